//! `cargo xtask fixtures qa` and `cargo xtask bench qa`.
//!
//! * fixtures: rebuilds `fixtures/models/{t5-tiny-qg,t5-tiny-qa,bart-tiny,qa-tiny}` and the
//!   goldens `tests/goldens/qa_generation.json`, `qa_references.json`.
//! * bench: builds a full-size T5-base-shaped random model (not committed, ~2.5 GB under
//!   `bench-out/qa`), times the unmodified `questeval` 0.2.4 pipeline (PyTorch CPU) and
//!   factpico (`bench_questeval` example, ONNX Runtime) on the same real pairs with the same
//!   (replayed) spaCy answers, and prints the BENCHMARKS.md table.
//!
//! Python: the reference venv ([`crate::python::REFERENCE`]; `$FACTPICO_REF_PYTHON`).
use std::path::PathBuf;
use std::process::Command;

use anyhow::{bail, Context, Result};
use serde_json::Value;

use crate::python::{reference_python, repo_root, run, run_script};

fn qa_python() -> Result<PathBuf> {
    reference_python()
}

/// Regenerates the QA fixtures and goldens.
pub fn fixtures() -> Result<()> {
    let py = qa_python()?;
    run_script(&py, "tests/goldens/gen_qa_fixtures.py", &[])?;
    run_script(&py, "tests/goldens/gen_qa_generation.py", &[])?;
    run_script(&py, "tests/goldens/gen_qa_references.py", &[])
}

/// Runs the QuestEval benchmark on `n_pairs` real pairs.
pub fn bench(n_pairs: usize) -> Result<()> {
    measure(n_pairs).map(|_| ())
}

/// [`bench`], returning the row of `cargo xtask bench all`: factpico's side is measured as a
/// whole process by `/usr/bin/time` (model load included), the reference's by its script.
///
/// # Errors
/// No reference venv, a failing script or example.
pub fn measure(n_pairs: usize) -> Result<crate::bench_all::Comparison> {
    let py = qa_python()?;
    let dir = repo_root().join("bench-out").join("qa");
    std::fs::create_dir_all(&dir)?;
    let d = dir.display().to_string();
    if !dir.join("onnx").join("decoder_with_past_model.onnx").exists() {
        run_script(&py, "tests/goldens/gen_qa_bench.py", &["build", &d])?;
    }
    let load = || std::fs::read_to_string("/proc/loadavg").unwrap_or_default().split_whitespace().take(3).collect::<Vec<_>>().join(" ");
    let ref_load_before = load();
    run_script(&py, "tests/goldens/gen_qa_bench.py", &["reference", &d, &n_pairs.to_string()])?;
    let ref_load_after = load();
    let reference: Value = serde_json::from_str(&std::fs::read_to_string(dir.join("reference.json"))?)?;
    let mut cmd = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    if let Some(lib) = crate::ort::prepare_for_tests()? {
        cmd.env("ORT_DYLIB_PATH", lib);
    }
    run(cmd.args(["build", "--release", "-p", "factpico-qa", "--example", "bench_questeval"]))?;
    let target = std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| repo_root().join("target"), PathBuf::from);
    let exe = target.join("release").join("examples").join("bench_questeval");
    let mut cmd = Command::new(&exe);
    if let Some(lib) = crate::ort::prepare_for_tests()? {
        cmd.env("ORT_DYLIB_PATH", lib);
    }
    let ours_load_before = load();
    let (out, ours_wall, ours_cpu, ours_rss) = crate::bench_all::timed(
        cmd.args([dir.join("onnx").display().to_string(), dir.join("pairs.json").display().to_string(), "2".into()]),
    )
    .with_context(|| format!("running {}", exe.display()))?;
    let ours_load_after = load();
    let ours: Value = serde_json::from_slice(&out.stdout)?;
    let f = |v: &Value, k: &str| v[k].as_f64().unwrap_or(f64::NAN);
    let diffs: Vec<f64> = ours["scores"]
        .as_array()
        .map(|a| {
            a.iter()
                .zip(reference["scores"].as_array().into_iter().flatten())
                .map(|(x, y)| (x.as_f64().unwrap_or(f64::NAN) - y.as_f64().unwrap_or(f64::NAN)).abs())
                .collect()
        })
        .unwrap_or_default();
    let max_d = diffs.iter().copied().fold(0.0, f64::max);
    println!(
        "| measure | value |\n|---|---|\n\
         | pairs (real InfoLossQA), questions generated and answered | {} , {} |\n\
         | reference questeval 0.2.4 (PyTorch CPU, 2 threads): questions/s, summaries/s | {:.2}, {:.3} ({:.1} s wall, {:.1} CPU-s) |\n\
         | factpico (ONNX Runtime, 2 threads): questions/s, summaries/s | {:.2}, {:.3} ({:.1} s) |\n\
         | speed-up (wall) | {:.2}x |\n\
         | max abs(score diff) factpico vs reference | {:.2e} |\n\
         | load average (1, 5, 15 min) before / after: reference; factpico | {} / {}; {} / {} |",
        reference["pairs"],
        reference["questions"],
        f(&reference, "questions_per_s"),
        f(&reference, "pairs_per_s"),
        f(&reference, "seconds"),
        f(&reference, "cpu_seconds"),
        f(&ours, "questions_per_s"),
        f(&ours, "pairs_per_s"),
        f(&ours, "seconds"),
        f(&reference, "seconds") / f(&ours, "seconds"),
        max_d,
        ref_load_before,
        ref_load_after,
        ours_load_before,
        ours_load_after
    );
    Ok(crate::bench_all::Comparison {
        label: format!("QuestEval F1, random T5-base graph, {} questions", reference["questions"]),
        pairs: reference["pairs"].as_u64().map_or(n_pairs, |x| x as usize),
        reference: Some(crate::bench_all::Side {
            label: "questeval 0.2.4 (PyTorch CPU)".into(),
            wall_s: reference["seconds"].as_f64(),
            cpu_s: reference["cpu_seconds"].as_f64(),
            peak_rss_mb: reference["peak_rss_mb"].as_f64(),
            threads: Some(2),
        }),
        factpico: crate::bench_all::Side {
            label: "bench_questeval example (release), whole process".into(),
            wall_s: Some(ours_wall),
            cpu_s: Some(ours_cpu),
            peak_rss_mb: Some(ours_rss),
            threads: Some(2),
        },
        max_abs_delta: Some(max_d),
        note: Some("factpico side includes model load".into()),
    })
}

/// `cargo xtask bench qafacteval --pairs N`: factpico's throughput for the QAFactEval-style
/// preset on full-size random models (BART-large-shaped QG, ELECTRA-large-shaped QA; built by
/// `gen_qa_bench.py build-qafacteval` under `bench-out/qafacteval`, not committed). The
/// reference (`qafacteval` 0.10 on AllenNLP 1.1 / torch 1.6 / GPU-era pins) is not timed here.
pub fn bench_qafacteval(n_pairs: usize) -> Result<()> {
    let dir = repo_root().join("bench-out").join("qafacteval");
    std::fs::create_dir_all(&dir)?;
    if !dir.join("qg-onnx").join("decoder_with_past_model.onnx").exists() || !dir.join("qa-onnx").join("model.onnx").exists() {
        let py = qa_python()?;
        run_script(&py, "tests/goldens/gen_qa_bench.py", &["build-qafacteval", &dir.display().to_string()])?;
    }
    let mut cmd = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    run(cmd.args(["build", "--release", "-p", "factpico-qa", "--example", "bench_qafacteval"]))?;
    let target = std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| repo_root().join("target"), PathBuf::from);
    let exe = target.join("release").join("examples").join("bench_qafacteval");
    let mut cmd = Command::new(&exe);
    if let Some(lib) = crate::ort::prepare_for_tests()? {
        cmd.env("ORT_DYLIB_PATH", lib);
    }
    let load_before = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    let out = cmd
        .args([dir.join("qg-onnx").display().to_string(), dir.join("qa-onnx").display().to_string(), n_pairs.to_string(), "2".into()])
        .output()
        .with_context(|| format!("running {}", exe.display()))?;
    if !out.status.success() {
        bail!("bench_qafacteval failed: {}", String::from_utf8_lossy(&out.stderr));
    }
    let load_after = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    let v: Value = serde_json::from_slice(&out.stdout)?;
    let f = |k: &str| v[k].as_f64().unwrap_or(f64::NAN);
    println!(
        "| measure | value |\n|---|---|\n\
         | pairs (real InfoLossQA), questions generated / kept by the filter | {}, {} / {} |\n\
         | mean question length (words; random weights never emit </s>: every beam runs 100 steps) | {:.1} |\n\
         | factpico (ONNX Runtime, 2 threads): questions/s, summaries/s | {:.3}, {:.4} ({:.1} s wall, {:.1} CPU-s) |\n\
         | load average before / after (1, 5, 15 min) | {} / {} |",
        v["pairs"],
        v["questions_generated"],
        v["questions_kept"],
        f("mean_question_words"),
        f("questions_per_s"),
        f("pairs_per_s"),
        f("seconds"),
        f("cpu_seconds"),
        load_before.split_whitespace().take(3).collect::<Vec<_>>().join(" "),
        load_after.split_whitespace().take(3).collect::<Vec<_>>().join(" ")
    );
    Ok(())
}
