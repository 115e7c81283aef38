//! `cargo xtask fixtures alignscore`: the committed tiny AlignScore fixture model and its
//! reference goldens.
//!
//! 1. `onnx/random_alignscore.py --size tiny`: random 2-layer RoBERTa AlignScore checkpoint
//!    (Lightning format) + tiny byte-level BPE backbone dir, under `.factpico/fixtures/`.
//! 2. `onnx/export_alignscore.py`: our export path → `fixtures/models/alignscore-tiny/`.
//! 3. `tests/goldens/gen_alignscore.py`: the unmodified reference on the same checkpoint →
//!    `tests/goldens/alignscore_tiny.json`.
//!
//! All three run in the reference venv ([`crate::python::reference_python`]), which also has
//! the export requirements (torch, transformers, onnx, onnxruntime).
use anyhow::{bail, Result};

use crate::python::{reference_python, repo_root, run_script, work_dir};

/// Runs the fixture pipeline for `what` (only `alignscore`).
pub fn fixtures(what: &str, no_real: bool) -> Result<()> {
    if what != "alignscore" {
        bail!("unknown fixture set {what:?} (known: alignscore)");
    }
    let py = reference_python()?;
    let work = work_dir("fixtures").join("alignscore");
    if work.exists() {
        std::fs::remove_dir_all(&work)?;
    }
    std::fs::create_dir_all(&work)?;
    let root = repo_root();
    let s = |p: &std::path::Path| p.to_string_lossy().into_owned();
    run_script(
        &py,
        "onnx/random_alignscore.py",
        &[
            "--size", "tiny", "--out", &s(&work), "--vocab-size", "1000", "--corpus",
            &s(&root.join("onnx/tiny_tokenizer_corpus.txt")),
            &s(&root.join("fixtures/pairs.jsonl")),
            &s(&root.join("fixtures/edge_cases.jsonl")),
        ],
    )?;
    let ckpt = work.join("AlignScore-tiny.ckpt");
    let backbone = work.join("roberta-tiny");
    let out = root.join("fixtures/models/alignscore-tiny");
    run_script(
        &py,
        "onnx/export_alignscore.py",
        &[
            "--ckpt", &s(&ckpt), "--backbone", &s(&backbone), "--out", &s(&out),
            "--checkpoint-name", "AlignScore-tiny.ckpt (random test fixture from onnx/random_alignscore.py --size tiny)",
        ],
    )?;
    let golden = root.join("tests/goldens/alignscore_tiny.json");
    let mut args = vec![
        "--ckpt".to_owned(), s(&ckpt), "--backbone".to_owned(), s(&backbone), "--onnx-dir".to_owned(), s(&out),
        "--out".to_owned(), s(&golden),
    ];
    if no_real {
        args.push("--no-real".into());
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    run_script(&py, "tests/goldens/gen_alignscore.py", &args)?;
    eprintln!("fixtures: wrote {} and {}", out.display(), golden.display());
    Ok(())
}
