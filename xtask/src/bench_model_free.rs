//! `cargo xtask bench model-free`: ROUGE-L + FKGL over all real (abstract,
//! summary) pairs of `../shared`, factpico's release CLI vs `rouge-score`
//! 0.1.2 + `textstat` 0.7.3 in one run (`xtask/python/bench_model_free.py`).
//!
//! The reference venv is created under `.factpico/venvs/bench-model-free`
//! from PyPI on first use; the input JSONL is written to `.factpico/bench/`
//! (gitignored: shared text never enters the repository).
use std::io::Write;
use std::path::PathBuf;
use std::process::Command;

use anyhow::{bail, Context, Result};

use crate::python::{repo_root, work_dir};

const REQUIREMENTS: &[&str] = &["rouge-score==0.1.2", "textstat==0.7.3", "pyphen==0.18.1", "nltk==3.10.4"];

fn venv_python() -> Result<PathBuf> {
    let venv = work_dir("venvs").join("bench-model-free");
    let py = venv.join("bin").join("python");
    if !py.exists() {
        eprintln!("xtask: creating {} ({})", venv.display(), REQUIREMENTS.join(" "));
        crate::run(Command::new("python3").arg("-m").arg("venv").arg(&venv))?;
        crate::run(Command::new(&py).args(["-m", "pip", "install", "-q"]).args(REQUIREMENTS))?;
    }
    Ok(py)
}

/// Writes the real pairs (InfoLossQA processed documents + Shaib 2023 plain summaries) as JSONL.
fn write_pairs(path: &std::path::Path) -> Result<usize> {
    let shared = repo_root().join("..").join("shared").join("data");
    let docs_path = shared.join("infolossqa/processed/documents.json");
    let docs: Vec<serde_json::Value> = serde_json::from_str(
        &std::fs::read_to_string(&docs_path).with_context(|| format!("{} (needs ../shared)", docs_path.display()))?,
    )?;
    let mut out = std::io::BufWriter::new(std::fs::File::create(path)?);
    let mut n = 0;
    for d in &docs {
        let row = serde_json::json!({"id": format!("ilq:{}", d["PMCID"]), "source": d["abstract"], "summary": d["simplification"]});
        writeln!(out, "{row}")?;
        n += 1;
    }
    let mut rdr = csv::Reader::from_path(shared.join("shaib2023/single-doc-annotations/single_doc_annotations_1.csv"))?;
    let headers = rdr.headers()?.clone();
    let col = |name: &str| headers.iter().position(|h| h == name).with_context(|| format!("no column {name}"));
    let (a, s) = (col("abstract")?, col("plain_summary")?);
    for rec in rdr.records() {
        let rec = rec?;
        let row = serde_json::json!({"id": format!("sh{n}"), "source": rec.get(a), "summary": rec.get(s)});
        writeln!(out, "{row}")?;
        n += 1;
    }
    out.flush()?;
    Ok(n)
}

/// Runs the benchmark and prints the JSON report (copy the figures into BENCHMARKS.md).
pub fn run(repeats: usize) -> Result<()> {
    crate::run(crate::cargo().args(["build", "--release", "-p", "factpico-cli"]).current_dir(repo_root()))?;
    let target = std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| repo_root().join("target"), PathBuf::from);
    let bin = target.join("release").join("factpico");
    if !bin.exists() {
        bail!("release binary not found at {}", bin.display());
    }
    let dir = work_dir("bench");
    std::fs::create_dir_all(&dir)?;
    let pairs = dir.join("model-free-pairs.jsonl");
    let n = write_pairs(&pairs)?;
    eprintln!("xtask: {n} real pairs in {}", pairs.display());
    let py = venv_python()?;
    let script = repo_root().join("xtask/python/bench_model_free.py");
    crate::run(
        Command::new(py)
            .arg(script)
            .arg("--pairs")
            .arg(&pairs)
            .arg("--factpico")
            .arg(&bin)
            .arg("--out-dir")
            .arg(&dir)
            .arg("--repeats")
            .arg(repeats.to_string()),
    )
}
