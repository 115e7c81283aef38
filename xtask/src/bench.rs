//! `cargo xtask bench alignscore`: factpico vs the Python reference on the same real pairs
//! (not a test: timings depend on the machine). Everything generated goes under the
//! gitignored `bench-out/alignscore/`; the printed Markdown section is what BENCHMARKS.md
//! records.
//!
//! 1. `onnx/bench_reference.py prepare`: random RoBERTa-base-shaped AlignScore checkpoint
//!    (tokenizer trained on the real texts), exported by our path, plus an int8 copy.
//! 2. `onnx/bench_reference.py reference`: the unmodified reference (PyTorch CPU, batch 32,
//!    padding to 512, `nli_sp`, 2 threads) on the first N real pairs.
//! 3. `bench_alignscore` example (release): factpico fp32 and int8 on the same pairs, 2 threads.
//! 4. MiniLM NLI (shared test asset) fp32 vs int8 quantised by `onnx/quantize.py`: score
//!    deltas on all 300 real pairs (`nli_sp`, max length 256).
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};
use serde_json::Value;

use crate::python::{reference_python, repo_root, run_script};

fn s(p: &Path) -> String {
    p.to_string_lossy().into_owned()
}

/// The `bench_alignscore` example (release, 2 threads) on `pairs` with `model`: its JSON line
/// (`seconds`, `cpu_seconds`, `peak_rss_mb`, `scores`, ...).
pub(crate) fn factpico_run(model: &Path, pairs: &Path, extra: &[&str]) -> Result<Value> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .args(["run", "--quiet", "--release", "-p", "factpico-alignscore", "--example", "bench_alignscore", "--"])
        .arg(model)
        .arg(pairs)
        .args(["--threads", "2"])
        .args(extra)
        .current_dir(repo_root())
        .output()
        .context("running the bench_alignscore example")?;
    if !out.status.success() {
        bail!("bench_alignscore failed: {}", String::from_utf8_lossy(&out.stderr));
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text.lines().last().unwrap_or_default();
    serde_json::from_str(line).with_context(|| format!("bad bench output: {line}"))
}

/// The `scores` array of a run's JSON (`None` for a null score).
pub(crate) fn scores(v: &Value) -> Vec<Option<f64>> {
    v["scores"].as_array().map(|a| a.iter().map(Value::as_f64).collect()).unwrap_or_default()
}

/// Mean and max |a − b| over the pairs both sides scored, and their number.
pub(crate) fn deltas(a: &[Option<f64>], b: &[Option<f64>]) -> (f64, f64, usize) {
    let d: Vec<f64> = a.iter().zip(b).filter_map(|(x, y)| Some((x.as_ref()? - y.as_ref()?).abs())).collect();
    let mean = d.iter().sum::<f64>() / d.len().max(1) as f64;
    (mean, d.iter().copied().fold(0.0, f64::max), d.len())
}

/// MB of a model directory's graph: `model.onnx` plus its external data `model.onnx.data` when
/// present (the exporters' layout).
fn size_mb(dir: &Path) -> f64 {
    let len = |f: &str| std::fs::metadata(dir.join(f)).map(|m| m.len() as f64 / 1e6);
    len("model.onnx").map_or(f64::NAN, |g| g + len("model.onnx.data").unwrap_or(0.0))
}

/// Where the time goes, against the fp32 FLOP limit ([`crate::bench_all::EncoderShape`]):
/// RoBERTa-base's FLOPs (12 layers, d 768, d_ff 3072) over the tokens each side ran:
/// factpico's padded tokens (its counters; sequence length = their mean per model pair), the
/// reference's model pairs padded to 512 (its `padding="max_length"`), and the GFLOP each side
/// achieved per CPU second.
fn profile(fp32: &Value, reference: &Value) -> Option<String> {
    let shape = crate::bench_all::EncoderShape { layers: 12.0, d: 768.0, ffn_matrices: 2.0, d_ff: 3072.0 };
    let gflop = |tokens: f64, len: f64| tokens * (shape.per_token() + shape.per_len_sq() * len) / 1e9;
    let pairs = fp32["model_pairs"].as_f64()?;
    let padded = fp32["padded_tokens"].as_f64()?;
    let ours = gflop(padded, padded / pairs.max(1.0));
    let theirs = gflop(pairs * 512.0, 512.0);
    Some(format!(
        "profile: {pairs} model pairs, {} real / {padded} padded tokens (factpico) vs {} (reference, padded to 512); \
         {ours:.0} vs {theirs:.0} GFLOP; achieved {:.1} vs {:.1} GFLOP per CPU s",
        fp32["tokens"],
        pairs * 512.0,
        ours / fp32["cpu_seconds"].as_f64()?,
        theirs / reference["cpu_seconds"].as_f64()?
    ))
}

/// The reference side of the AlignScore benchmark, shared with `cargo xtask bench python`: the
/// first `n_pairs` real pairs, the random RoBERTa-base-shaped checkpoint and its export
/// (`bench-out/alignscore/onnx-base`), and the unmodified reference's run on them (written to
/// `bench-out/alignscore/<out_name>`). Returns (directory, pairs JSON, reference JSON).
///
/// # Errors
/// No reference venv, or a failing script.
pub fn reference_run(n_pairs: usize, out_name: &str) -> Result<(PathBuf, PathBuf, PathBuf)> {
    let py = reference_python()?;
    let dir: PathBuf = repo_root().join("bench-out").join("alignscore");
    std::fs::create_dir_all(&dir)?;
    let pairs = dir.join(format!("pairs{n_pairs}.json"));
    run_script(&py, "onnx/bench_reference.py", &["pairs", "--out", &s(&pairs), "--n", &n_pairs.to_string()])?;
    run_script(&py, "onnx/bench_reference.py", &["prepare", "--out", &s(&dir)])?;
    let ref_json = dir.join(out_name);
    run_script(
        &py,
        "onnx/bench_reference.py",
        &[
            "reference", "--ckpt", &s(&dir.join("AlignScore-base.ckpt")), "--backbone", &s(&dir.join("roberta-base")),
            "--pairs", &s(&pairs), "--out", &s(&ref_json),
        ],
    )?;
    Ok((dir, pairs, ref_json))
}

/// Runs a benchmark.
pub fn bench(what: &str, n_pairs: usize) -> Result<()> {
    if what != "alignscore" {
        bail!("unknown benchmark {what:?} (known: alignscore)");
    }
    measure(n_pairs).map(|_| ())
}

/// `cargo xtask bench alignscore`: prints and writes the section; returns the rows of
/// `cargo xtask bench all` (fp32 and int8 against the reference).
///
/// # Errors
/// No reference venv, a failing script or example.
pub fn measure(n_pairs: usize) -> Result<Vec<crate::bench_all::Comparison>> {
    let py = reference_python()?;
    let (dir, pairs, ref_json) = reference_run(n_pairs, "reference.json")?;
    let pairs_all = dir.join("pairs300.json");
    run_script(&py, "onnx/bench_reference.py", &["pairs", "--out", &s(&pairs_all), "--n", "300"])?;
    let reference: Value = serde_json::from_str(&std::fs::read_to_string(&ref_json)?)?;
    let fp32 = factpico_run(&dir.join("onnx-base"), &pairs, &[])?;
    let int8 = factpico_run(&dir.join("onnx-base-int8"), &pairs, &[])?;

    let shared = crate::bench_all::shared_root();
    let minilm = shared.join("models/minilm-nli");
    let minilm_int8 = dir.join("minilm-nli-int8");
    if !minilm_int8.join("model.onnx").exists() {
        run_script(&py, "onnx/quantize.py", &["--model-dir", &s(&minilm), "--out", &s(&minilm_int8)])?;
    }
    let m32 = factpico_run(&minilm, &pairs_all, &["--max-length", "256"])?;
    let m8 = factpico_run(&minilm_int8, &pairs_all, &["--max-length", "256"])?;

    let r_scores = scores(&reference);
    let (d32_mean, d32_max, n32) = deltas(&scores(&fp32), &r_scores);
    let (d8_mean, d8_max, _) = deltas(&scores(&int8), &r_scores);
    let (m_mean, m_max, mn) = deltas(&scores(&m8), &scores(&m32));
    let f = |v: &Value, k: &str| v[k].as_f64().unwrap_or(f64::NAN);
    let model_mb = size_mb(&dir.join("onnx-base"));
    let md = format!(
        "| measure | value |\n|---|---|\n\
         | pairs (real abstract, summary) | {n} |\n\
         | reference (alignscore 0.1.4, PyTorch CPU, batch 32, pad 512), pairs/s | {rp:.3} ({rs:.1} s) |\n\
         | factpico fp32, pairs/s | {fp:.3} ({fs:.1} s) |\n\
         | speed-up fp32 vs reference (wall) | {ratio:.2}x |\n\
         | CPU seconds (all threads): reference / factpico fp32 / factpico int8 | {rc:.1} / {fc:.1} / {ic:.1} (CPU-time ratio ref/fp32 {cratio:.2}x, fp32/int8 {icratio:.2}x) |\n\
         | mean / max abs(score diff) fp32 vs reference | {d32_mean:.2e} / {d32_max:.2e} ({n32} pairs) |\n\
         | factpico fp32: time in ORT `Session::run` / total | {ff:.1} s / {fs:.1} s (pipeline overhead {ov:.1}%) |\n\
         | factpico int8, pairs/s | {ip:.3} ({is:.1} s) |\n\
         | int8 speed-up vs fp32 (same graph) | {i_ratio:.2}x |\n\
         | int8 vs reference mean / max abs(score diff) (random weights) | {d8_mean:.2e} / {d8_max:.2e} |\n\
         | MiniLM NLI int8 vs fp32 (our quantize.py), nli_sp, 300 real pairs: mean / max abs(score diff) | {m_mean:.4} / {m_max:.4} ({mn} pairs) |\n\
         | peak RSS: factpico fp32 / int8 / reference | {r32:.0} / {r8:.0} / {rr:.0} MB (fp32 graph {model_mb:.0} MB) |\n\
         | model pairs run by factpico; tokens / padded tokens | {mp} ; {tok} / {ptok} |\n",
        n = reference["pairs"],
        rp = f(&reference, "pairs_per_s"),
        rs = f(&reference, "seconds"),
        fp = f(&fp32, "pairs_per_s"),
        fs = f(&fp32, "seconds"),
        ratio = f(&fp32, "pairs_per_s") / f(&reference, "pairs_per_s"),
        rc = f(&reference, "cpu_seconds"),
        fc = f(&fp32, "cpu_seconds"),
        ic = f(&int8, "cpu_seconds"),
        cratio = f(&reference, "cpu_seconds") / f(&fp32, "cpu_seconds"),
        icratio = f(&fp32, "cpu_seconds") / f(&int8, "cpu_seconds"),
        ff = f(&fp32, "forward_seconds"),
        ov = 100.0 * f(&fp32, "overhead"),
        ip = f(&int8, "pairs_per_s"),
        is = f(&int8, "seconds"),
        i_ratio = f(&int8, "pairs_per_s") / f(&fp32, "pairs_per_s"),
        r32 = f(&fp32, "peak_rss_mb"),
        r8 = f(&int8, "peak_rss_mb"),
        rr = f(&reference, "peak_rss_mb"),
        mp = fp32["model_pairs"],
        tok = fp32["tokens"],
        ptok = fp32["padded_tokens"],
    );
    let out = dir.join("BENCHMARKS-section.md");
    std::fs::write(&out, &md)?;
    std::fs::write(dir.join("results.json"), serde_json::to_string_pretty(&serde_json::json!({
        "reference": {"seconds": reference["seconds"], "cpu_seconds": reference["cpu_seconds"], "pairs_per_s": reference["pairs_per_s"], "peak_rss_mb": reference["peak_rss_mb"]},
        "fp32": {"seconds": fp32["seconds"], "cpu_seconds": fp32["cpu_seconds"], "forward_seconds": fp32["forward_seconds"], "peak_rss_mb": fp32["peak_rss_mb"]},
        "int8": {"seconds": int8["seconds"], "cpu_seconds": int8["cpu_seconds"], "forward_seconds": int8["forward_seconds"], "peak_rss_mb": int8["peak_rss_mb"]},
        "minilm": {"fp32_seconds": m32["seconds"], "int8_seconds": m8["seconds"], "mean_abs_delta": m_mean, "max_abs_delta": m_max},
    }))?)?;
    println!("{md}\n(written to {})", out.display());
    let g = |v: &Value, k: &str| v[k].as_f64();
    let side = |label: &str, v: &Value| crate::bench_all::Side {
        label: label.to_owned(),
        wall_s: g(v, "seconds"),
        cpu_s: g(v, "cpu_seconds"),
        peak_rss_mb: g(v, "peak_rss_mb"),
        threads: Some(2),
    };
    let reference_side = side("alignscore 0.1.4 (PyTorch CPU, batch 32, pad 512)", &reference);
    let n = reference["pairs"].as_u64().map_or(n_pairs, |x| x as usize);
    Ok(vec![
        crate::bench_all::Comparison {
            label: "AlignScore nli_sp, random RoBERTa-base graph, fp32".into(),
            pairs: n,
            reference: Some(reference_side.clone()),
            factpico: side("bench_alignscore example (release), batch 2", &fp32),
            max_abs_delta: Some(d32_max),
            note: profile(&fp32, &reference),
        },
        crate::bench_all::Comparison {
            label: "same graph, factpico int8 (scores drift by design)".into(),
            pairs: n,
            reference: Some(reference_side),
            factpico: side("bench_alignscore example (release), int8", &int8),
            max_abs_delta: Some(d8_max),
            note: None,
        },
    ])
}
