//! `cargo xtask bench dae [--pairs N]`: DAE's model step on the real InfoLossQA pairs with a
//! full-size ELECTRA-base-shaped random DAE graph (generated into `.factpico/bench/dae-base`,
//! not committed; random weights run at the speed of real ones), against DAE-2021's own code on
//! the same checkpoint and arcs (`onnx/bench_dae.py`); spaCy sidecar parse time reported
//! separately. Runs `crates/factpico-dae/examples/bench_dae.rs` in release mode.
use std::path::Path;
use std::process::Command;

use anyhow::{Context, Result};
use serde_json::Value;

use crate::python::{export_python, reference_python, repo_root, run, run_script, work_dir};

/// [`measure`], printing the example's table.
///
/// # Errors
/// Missing `../shared`, export or benchmark failures.
pub fn bench(pairs: usize) -> Result<()> {
    measure(pairs).map(|_| ())
}

/// [`bench`], returning the rows of `cargo xtask bench all`: DAE's **model step** (everything
/// after the parse: encoding, the ELECTRA-base forward, the arc head, softmax) of factpico
/// against DAE-2021's own code, per mode (per-sentence and single parse), on the same arcs.
///
/// * factpico: the `bench_dae` example (release, 2 intra-op threads, batch 4), `score_batch`
///   with the parses given, CPU and wall seconds of its own process;
/// * the reference: `onnx/bench_dae.py` — `units` (reference venv) turns the same spaCy
///   sidecar parses into DAE units and rewrites the checkpoint for transformers 2.11;
///   `reference` (the DAE venv, `cargo xtask venv dae`; `$FACTPICO_DAE_REFERENCE`, a checkout
///   of tagoyal/factuality-datasets) runs the unmodified `get_single_features` and
///   `ElectraDependencyModel.forward` per unit, batch 1 padded to 512, torch 2 threads;
/// * max |Δ| of the arc probabilities, pair by pair, and the profile against the fp32 FLOP
///   limit ([`profile`]).
///
/// CoreNLP, the reference's parser, cannot be obtained here: parse time is in neither figure
/// (the example prints the sidecar's separately).
///
/// # Errors
/// As [`bench`]; a missing venv or `$FACTPICO_DAE_REFERENCE`; a failing script.
pub fn measure(pairs: usize) -> Result<Vec<crate::bench_all::Comparison>> {
    let shared = crate::bench_all::shared_root();
    let vocab = shared.join("models/minilm-nli/tokenizer.json");
    let docs = shared.join("data/infolossqa/processed/documents.json");
    anyhow::ensure!(vocab.is_file() && docs.is_file(), "bench dae needs ../shared (set FACTPICO_SHARED)");
    let model = work_dir("bench").join("dae-base");
    let ckpt = work_dir("bench").join("dae-base-ckpt");
    if !model.join("model.onnx").is_file() {
        let py = export_python()?;
        let (ckpt_s, model_s) = (s(&ckpt), s(&model));
        run_script(&py, "onnx/export_dae.py", &["random", "--shape", "base", "--vocab-from", &s(&vocab), &ckpt_s])?;
        run_script(&py, "onnx/export_dae.py", &["export", &ckpt_s, &model_s])?;
    }
    let sidecar = crate::sidecar::prepare_for_tests()?.context("the DAE benchmark needs the spaCy sidecar (python3)")?;
    let dir = repo_root().join("bench-out").join("dae");
    std::fs::create_dir_all(&dir)?;
    // the reference
    let (units, torch_ckpt, ref_json) = (dir.join(format!("units{pairs}.json")), dir.join("ckpt-torch"), dir.join("reference.json"));
    let refpy = reference_python()?;
    run(Command::new(&refpy)
        .arg(repo_root().join("onnx/bench_dae.py"))
        .args(["units", "--ckpt", &s(&ckpt), "--documents", &s(&docs), "--pairs", &pairs.to_string()])
        .args(["--out", &s(&units), "--torch-ckpt", &s(&torch_ckpt)])
        .env(crate::sidecar::PYTHON_ENV, &sidecar)
        .current_dir(repo_root()))?;
    let daepy = crate::python::DAE.python()?;
    run(Command::new(&daepy)
        .arg(repo_root().join("onnx/bench_dae.py"))
        .args(["reference", "--ckpt", &s(&torch_ckpt), "--units", &s(&units), "--out", &s(&ref_json), "--threads", "2"])
        .current_dir(repo_root()))?;
    let reference: Value = serde_json::from_str(&std::fs::read_to_string(&ref_json)?)?;
    // factpico
    run(crate::cargo().args(["build", "--release", "-p", "factpico-dae", "--example", "bench_dae"]).current_dir(repo_root()))?;
    let target = std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| repo_root().join("target"), std::path::PathBuf::from);
    let ours_json = dir.join("factpico.json");
    let mut cmd = Command::new(target.join("release/examples/bench_dae"));
    if let Some(lib) = crate::ort::prepare_for_tests()? {
        cmd.env("ORT_DYLIB_PATH", lib);
    }
    cmd.env(crate::sidecar::PYTHON_ENV, &sidecar)
        .arg("--model")
        .arg(&model)
        .arg("--documents")
        .arg(&docs)
        .args(["--pairs", &pairs.to_string(), "--threads", "2", "--json", &s(&ours_json)])
        .current_dir(repo_root());
    let out = cmd.output().context("running the bench_dae example")?;
    print!("{}", String::from_utf8_lossy(&out.stdout));
    anyhow::ensure!(out.status.success(), "bench_dae failed: {}", String::from_utf8_lossy(&out.stderr));
    let ours: Value = serde_json::from_str(&std::fs::read_to_string(&ours_json)?)?;
    rows(&reference, &ours, pairs)
}

fn s(p: &Path) -> String {
    p.to_string_lossy().into_owned()
}

/// The two rows (per-sentence, single parse) from the reference's and the example's JSON.
fn rows(reference: &Value, ours: &Value, pairs: usize) -> Result<Vec<crate::bench_all::Comparison>> {
    let f = |v: &Value| v.as_f64();
    let mut rows = Vec::new();
    for mode in ["PerSentence", "SingleParse"] {
        let (r, o) = (&reference["modes"][mode], &ours["modes"][mode]);
        anyhow::ensure!(r.is_object() && o.is_object(), "mode {mode} missing from the benchmark output");
        let cmp = compare(r, o)?;
        let profile = profile(r, o).map_or_else(String::new, |p| format!("; {p}"));
        rows.push(crate::bench_all::Comparison {
            label: format!("DAE model step, random ELECTRA-base, {}", if mode == "PerSentence" { "per sentence" } else { "single parse" }),
            pairs,
            reference: Some(crate::bench_all::Side {
                label: format!(
                    "DAE-2021 train_utils (unmodified), transformers {} / torch {}, batch 1 padded to 512",
                    reference["transformers"].as_str().unwrap_or("?"),
                    reference["torch"].as_str().unwrap_or("?")
                ),
                wall_s: f(&r["wall_s"]),
                cpu_s: f(&r["cpu_s"]),
                peak_rss_mb: f(&reference["peak_rss_mb"]),
                threads: reference["threads"].as_u64().map(|t| t as usize),
            }),
            factpico: crate::bench_all::Side {
                label: format!("factpico-dae (bench_dae example, release), batch {} padded to its longest", ours["batch_size"]),
                wall_s: f(&o["wall_s"]),
                cpu_s: f(&o["cpu_s"]),
                peak_rss_mb: f(&ours["peak_rss_mb"]),
                threads: ours["threads"].as_u64().map(|t| t as usize),
            },
            max_abs_delta: cmp.max_abs_delta,
            note: Some(format!(
                "model step only (same spaCy sidecar parses given to both; CoreNLP, the reference's parser, is not obtainable); \
                 {} arcs compared in {} pairs{}; peak RSS of each whole process (both modes){profile}",
                cmp.arcs,
                cmp.pairs,
                cmp.excluded
            )),
        });
    }
    Ok(rows)
}

/// What [`compare`] found.
#[derive(Debug, PartialEq)]
struct ArcComparison {
    /// max |Δ| over the compared arcs.
    max_abs_delta: Option<f64>,
    /// Arcs compared.
    arcs: usize,
    /// Pairs compared.
    pairs: usize,
    /// Why pairs were left out (empty when none).
    excluded: String,
}

/// Pair by pair: the arc probabilities of both sides (`probs`: one list per pair), leaving out
/// the pairs the reference raised on (`failed_pairs`) and — named in `excluded` — pairs whose
/// arc counts differ.
fn compare(r: &Value, o: &Value) -> Result<ArcComparison> {
    let list = |v: &Value| -> Result<Vec<Vec<f64>>> {
        v["probs"]
            .as_array()
            .context("probs missing")?
            .iter()
            .map(|p| p.as_array().map(|a| a.iter().filter_map(Value::as_f64).collect()).context("probs per pair"))
            .collect()
    };
    let (rp, op) = (list(r)?, list(o)?);
    anyhow::ensure!(rp.len() == op.len(), "the reference scored {} pairs, factpico {}", rp.len(), op.len());
    let failed: Vec<usize> =
        r["failed_pairs"].as_array().map(|a| a.iter().filter_map(|v| v.as_u64().map(|k| k as usize)).collect()).unwrap_or_default();
    let (mut max, mut arcs, mut pairs, mut differ) = (None::<f64>, 0, 0, Vec::new());
    for (k, (a, b)) in rp.iter().zip(&op).enumerate() {
        if failed.contains(&k) {
            continue;
        }
        if a.len() != b.len() {
            differ.push(k);
            continue;
        }
        pairs += 1;
        arcs += a.len();
        for (x, y) in a.iter().zip(b) {
            let d = (x - y).abs();
            max = Some(max.map_or(d, |m: f64| m.max(d)));
        }
    }
    let mut excluded = String::new();
    if !failed.is_empty() {
        excluded += &format!("; {} pair(s) left out where the reference raises (KeyError: an arc word without word pieces)", failed.len());
    }
    if !differ.is_empty() {
        excluded += &format!("; {} pair(s) left out whose arc counts differ: {differ:?}", differ.len());
    }
    Ok(ArcComparison { max_abs_delta: max, arcs, pairs, excluded })
}

/// ELECTRA-base's FLOPs ([`crate::bench_all::EncoderShape`]: 12 layers, d 768, d_ff 3072) over
/// the inputs each side ran, from the reference's real lengths (`lengths`: [real tokens, arcs]
/// per model pass): the reference pads every pass to 512; factpico sorts the passes by length
/// and pads each batch of 4 to its longest (its `score_batch`). Returns the GFLOP of both and
/// the GFLOP each side achieved per CPU second (`cpu_s` of `r` and `o`).
fn profile(r: &Value, o: &Value) -> Option<String> {
    let shape = crate::bench_all::EncoderShape { layers: 12.0, d: 768.0, ffn_matrices: 2.0, d_ff: 3072.0 };
    let gflop = |n: f64, len: f64| n * len * (shape.per_token() + shape.per_len_sq() * len) / 1e9;
    let mut lens: Vec<f64> = r["lengths"].as_array()?.iter().filter_map(|l| l[0].as_f64()).collect();
    lens.sort_by(f64::total_cmp);
    let passes = lens.len() as f64;
    let theirs = gflop(passes, 512.0);
    let ours: f64 = lens.chunks(4).map(|c| gflop(c.len() as f64, c.iter().copied().fold(0.0, f64::max))).sum();
    let real: f64 = lens.iter().map(|&l| gflop(1.0, l)).sum();
    Some(format!(
        "profile: {passes} model passes, {:.0} real tokens; {ours:.0} GFLOP (factpico, batches of 4 padded) vs {theirs:.0} \
         (reference, padded to 512; {real:.0} on real tokens); achieved {:.1} vs {:.1} GFLOP per CPU s",
        lens.iter().sum::<f64>(),
        ours / o["cpu_s"].as_f64()?.max(1e-9),
        theirs / r["cpu_s"].as_f64()?.max(1e-9),
    ))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use serde_json::json;

    #[test]
    fn compare_leaves_out_failed_and_mismatched_pairs() {
        let r = json!({"probs": [[0.5, 0.25], [0.9], [0.1, 0.2], []], "failed_pairs": [1]});
        let o = json!({"probs": [[0.5, 0.2], [0.0], [0.1], []]});
        let c = compare(&r, &o).unwrap();
        // pair 0: |0.25 - 0.2|; pair 1 failed on the reference side; pair 2 differs in count
        assert!((c.max_abs_delta.unwrap() - 0.05).abs() < 1e-12, "{c:?}");
        assert_eq!((c.arcs, c.pairs), (2, 2));
        assert!(c.excluded.contains("1 pair(s) left out where the reference raises"), "{}", c.excluded);
        assert!(c.excluded.contains("arc counts differ: [2]"), "{}", c.excluded);
        // no arcs at all: no delta, nothing excluded
        let c = compare(&json!({"probs": [[]]}), &json!({"probs": [[]]})).unwrap();
        assert_eq!(c, ArcComparison { max_abs_delta: None, arcs: 0, pairs: 1, excluded: String::new() });
        // different pair counts are an error
        assert!(compare(&json!({"probs": [[]]}), &json!({"probs": []})).is_err());
    }

    #[test]
    fn profile_pads_batches_of_four_to_their_longest() {
        // five passes: factpico batches [100, 200, 300, 400] (padded to 400) and [500]
        let r = json!({"cpu_s": 2.0, "lengths": [[500, 1], [100, 1], [300, 2], [200, 1], [400, 3]]});
        let o = json!({"cpu_s": 1.0});
        let p = profile(&r, &o).unwrap();
        let shape = crate::bench_all::EncoderShape { layers: 12.0, d: 768.0, ffn_matrices: 2.0, d_ff: 3072.0 };
        let g = |n: f64, l: f64| n * l * (shape.per_token() + shape.per_len_sq() * l) / 1e9;
        let ours = g(4.0, 400.0) + g(1.0, 500.0);
        let theirs = g(5.0, 512.0);
        assert!(p.contains(&format!("{ours:.0} GFLOP (factpico")), "{p}");
        assert!(p.contains(&format!("vs {theirs:.0} (reference")), "{p}");
        assert!(p.contains(&format!("achieved {ours:.1} vs {:.1}", theirs / 2.0)), "{p}");
        assert!(p.contains("1500 real tokens"), "{p}");
    }
}
