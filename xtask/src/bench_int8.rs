//! The `int8` section of `cargo xtask bench all`: the int8 copy that `factpico models pull NAME
//! --int8` installs (`onnx/quantize.py`: dynamic int8, per-channel weight scales) against the fp32
//! graph it was made from, **factpico on both sides** (the row's "reference" side is factpico
//! fp32: ratio = fp32 / int8 CPU seconds, max |Δ| = int8 against fp32), on the graphs of the
//! other sections:
//!
//! * SummaC (ZS and Conv) with the real-weight MiniLM NLI asset of `../shared` (drift figures
//!   that mean something) on N pairs, and with the random ALBERT-xlarge replica (vitc shape) on
//!   N / 10 pairs;
//! * MiniCheck with the full-size random RoBERTa-large replica on N pairs (built, measured and
//!   deleted again, as the MiniCheck section does).
//!
//! AlignScore's int8 row is in the `alignscore` section. Random weights make the drift of the
//! replicas unrepresentative of trained models (their activations are not quantisation-friendly):
//! only the MiniLM row's drift speaks for real checkpoints. No recipe meets issue 26's drift
//! target (BENCHMARKS.md, "int8 recipe frontier"): this measures what `--int8` ships.
//!
//! Python: the reference venv (`onnxruntime.quantization`, torch for the replicas).
use std::path::{Path, PathBuf};

use anyhow::Result;
use serde_json::Value;

use crate::bench_all::{Comparison, Side};
use crate::python::{reference_python, repo_root, run_script};

fn s(p: &Path) -> String {
    p.to_string_lossy().into_owned()
}

/// `DIR-int8` next to `dir` (made once by `onnx/quantize.py`).
fn quantized(py: &Path, dir: &Path, out: &Path) -> Result<PathBuf> {
    if !out.join("model.onnx").is_file() {
        run_script(py, "onnx/quantize.py", &["--model-dir", &s(dir), "--out", &s(out)])?;
    }
    Ok(out.to_path_buf())
}

fn side(label: &str, v: &Value) -> Side {
    Side {
        label: label.to_owned(),
        wall_s: v["seconds"].as_f64(),
        cpu_s: v["cpu_seconds"].as_f64(),
        peak_rss_mb: v["peak_rss_mb"].as_f64(),
        threads: Some(2),
    }
}

fn row(label: String, pairs: usize, fp32: &Value, int8: &Value, max_abs_delta: f64, note: &str) -> Comparison {
    Comparison {
        label,
        pairs,
        reference: Some(side("factpico fp32 (the graph the int8 copy is made from)", fp32)),
        factpico: side("factpico int8 (onnx/quantize.py: dynamic, per-channel weights)", int8),
        max_abs_delta: Some(max_abs_delta),
        note: Some(format!("ratio = fp32 / int8 (both factpico); max |Δ| = int8 vs fp32; {note}")),
    }
}

/// Runs the section (see the module docs).
///
/// # Errors
/// No reference venv, no `../shared`, a failing script or example.
pub fn measure(n_pairs: usize) -> Result<Vec<Comparison>> {
    let py = reference_python()?;
    let shared = crate::bench_all::shared_root();
    let mut rows = Vec::new();

    // SummaC
    let dir = repo_root().join("bench-out").join("summac");
    std::fs::create_dir_all(&dir)?;
    let n_xl = (n_pairs / 10).max(1);
    let (pairs, pairs_xl) = (dir.join(format!("pairs{n_pairs}.json")), dir.join(format!("pairs{n_xl}.json")));
    run_script(&py, "onnx/bench_summac.py", &["pairs", "--out", &s(&pairs), "--n", &n_pairs.to_string()])?;
    run_script(&py, "onnx/bench_summac.py", &["pairs", "--out", &s(&pairs_xl), "--n", &n_xl.to_string()])?;
    run_script(&py, "onnx/bench_summac.py", &["prepare", "--size", "xlarge", "--out", &s(&dir)])?;
    let conv = dir.join("conv.json");
    let minilm = shared.join("models/minilm-nli");
    for (label, fp32_dir, int8_dir, p, n, note) in [
        ("SummaC, MiniLM NLI (shared asset, real weights)", minilm.clone(), dir.join("minilm-nli-int8"), &pairs, n_pairs, "real weights: the drift is representative"),
        ("SummaC, random ALBERT-xlarge (vitc shape)", dir.join("onnx-xlarge"), dir.join("onnx-xlarge-int8"), &pairs_xl, n_xl, "random weights: the drift is not representative"),
    ] {
        let q = quantized(&py, &fp32_dir, &int8_dir)?;
        let a = crate::summac::factpico_run(&fp32_dir, p, &conv)?;
        let b = crate::summac::factpico_run(&q, p, &conv)?;
        let (dz, dc) = (crate::summac::max_delta(&a, &b, "zs"), crate::summac::max_delta(&a, &b, "conv"));
        rows.push(row(format!("{label}: ZS and Conv (max |Δ| ZS {dz:.3}, Conv {dc:.3})"), n, &a, &b, dz.max(dc), note));
    }

    // MiniCheck RoBERTa-large
    let v = "roberta-large";
    if let Err(why) = crate::minicheck::disk_check(v) {
        eprintln!("int8: MiniCheck {v}: {why}");
    } else {
        let dir = repo_root().join("bench-out").join("minicheck");
        std::fs::create_dir_all(&dir)?;
        let pairs = dir.join(format!("pairs{n_pairs}.json"));
        let corpus = dir.join("corpus.jsonl");
        run_script(&py, "onnx/bench_minicheck.py", &["pairs", "--n", &n_pairs.to_string(), "--out", &s(&pairs), "--corpus-out", &s(&corpus)])?;
        let (ckpt, onnx, int8) = (dir.join(format!("{v}-full")), dir.join(format!("{v}-full-onnx")), dir.join(format!("{v}-full-onnx-int8")));
        let result = (|| -> Result<Comparison> {
            crate::minicheck::full_replica(&py, v, &corpus, &ckpt, &onnx)?;
            let q = quantized(&py, &onnx, &int8)?;
            let a = crate::minicheck::factpico_run(&onnx, &pairs)?;
            let b = crate::minicheck::factpico_run(&q, &pairs)?;
            let sc = |x: &Value| -> Vec<Option<f64>> { x["scores"].as_array().map(|a| a.iter().map(Value::as_f64).collect()).unwrap_or_default() };
            let (x, y) = (sc(&a), sc(&b));
            anyhow::ensure!(x.len() == y.len() && !x.is_empty(), "fp32 and int8 scored different rows");
            let d = x.iter().zip(&y).filter_map(|(p, q)| Some((p.as_ref()? - q.as_ref()?).abs())).fold(0.0, f64::max);
            Ok(row("MiniCheck, random RoBERTa-large replica (full size)".to_owned(), n_pairs, &a, &b, d, "random weights: the drift is not representative"))
        })();
        for d in [&ckpt, &onnx, &int8] {
            let _ = std::fs::remove_dir_all(d);
        }
        rows.push(result?);
    }
    Ok(rows)
}
