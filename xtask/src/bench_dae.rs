//! `cargo xtask bench dae [--pairs N]`: DAE throughput on the real InfoLossQA pairs with a
//! full-size ELECTRA-base-shaped random DAE graph (generated into `.factpico/bench/dae-base`,
//! not committed; random weights run at the speed of real ones), spaCy sidecar parse time
//! reported separately. Runs `crates/factpico-dae/examples/bench_dae.rs` in release mode.
use std::process::Command;

use anyhow::{Context, Result};

use crate::python::{export_python, repo_root, run, run_script, work_dir};

/// Builds the model when missing, then runs the benchmark example.
///
/// # Errors
/// Missing `../shared`, export or benchmark failures.
pub fn bench(pairs: usize) -> Result<()> {
    measure(pairs).map(|_| ())
}

/// [`bench`], returning the row of `cargo xtask bench all` (factpico only: the whole example
/// process, both modes, sidecar parses and model loads included, by `/usr/bin/time`).
///
/// # Errors
/// As [`bench`].
pub fn measure(pairs: usize) -> Result<Vec<crate::bench_all::Comparison>> {
    let shared = std::env::var_os("FACTPICO_SHARED")
        .map_or_else(|| repo_root().join("..").join("shared"), std::path::PathBuf::from);
    let vocab = shared.join("models/minilm-nli/tokenizer.json");
    let docs = shared.join("data/infolossqa/processed/documents.json");
    anyhow::ensure!(vocab.is_file() && docs.is_file(), "bench dae needs ../shared (set FACTPICO_SHARED)");
    let model = work_dir("bench").join("dae-base");
    if !model.join("model.onnx").is_file() {
        let py = export_python()?;
        let ckpt = work_dir("bench").join("dae-base-ckpt");
        let (ckpt_s, model_s) = (ckpt.to_string_lossy().into_owned(), model.to_string_lossy().into_owned());
        let vocab_s = vocab.to_string_lossy().into_owned();
        run_script(&py, "onnx/export_dae.py", &["random", "--shape", "base", "--vocab-from", &vocab_s, &ckpt_s])?;
        run_script(&py, "onnx/export_dae.py", &["export", &ckpt_s, &model_s])?;
    }
    run(crate::cargo().args(["build", "--release", "-p", "factpico-dae", "--example", "bench_dae"]).current_dir(repo_root()))?;
    let target = std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| repo_root().join("target"), std::path::PathBuf::from);
    let mut cmd = Command::new(target.join("release/examples/bench_dae"));
    if let Some(lib) = crate::ort::prepare_for_tests()? {
        cmd.env("ORT_DYLIB_PATH", lib);
    }
    if let Some(py) = crate::sidecar::prepare_for_tests()? {
        cmd.env(crate::sidecar::PYTHON_ENV, py);
    }
    cmd.arg("--model")
        .arg(&model)
        .arg("--documents")
        .arg(&docs)
        .arg("--pairs")
        .arg(pairs.to_string())
        .current_dir(repo_root());
    let (out, wall, cpu, rss) = crate::bench_all::timed(&mut cmd).context("DAE benchmark failed")?;
    print!("{}", String::from_utf8_lossy(&out.stdout));
    Ok(vec![crate::bench_all::Comparison {
        label: "DAE, random ELECTRA-base graph, per-sentence + single-parse modes (no reference)".into(),
        pairs,
        reference: None,
        factpico: crate::bench_all::Side {
            label: "bench_dae example (release), whole process".into(),
            wall_s: Some(wall),
            cpu_s: Some(cpu),
            peak_rss_mb: Some(rss),
            threads: Some(2),
        },
        max_abs_delta: None,
        note: Some("factpico only; the example prints arcs/s".into()),
    }])
}
