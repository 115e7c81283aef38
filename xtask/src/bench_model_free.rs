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

/// Writes the real pairs (InfoLossQA processed documents + Shaib 2023 plain summaries) as JSONL,
/// the first `limit` of them when given.
fn write_pairs(path: &std::path::Path, limit: Option<usize>) -> Result<usize> {
    let limit = limit.unwrap_or(usize::MAX);
    let shared = repo_root().join("..").join("shared").join("data");
    let docs_path = shared.join("infolossqa/processed/documents.json");
    let docs: Vec<serde_json::Value> = serde_json::from_str(
        &std::fs::read_to_string(&docs_path).with_context(|| format!("{} (needs ../shared)", docs_path.display()))?,
    )?;
    let mut out = std::io::BufWriter::new(std::fs::File::create(path)?);
    let mut n = 0;
    for d in docs.iter().take(limit) {
        let row = serde_json::json!({"id": format!("ilq:{}", d["PMCID"]), "source": d["abstract"], "summary": d["simplification"]});
        writeln!(out, "{row}")?;
        n += 1;
    }
    let mut rdr = csv::Reader::from_path(shared.join("shaib2023/single-doc-annotations/single_doc_annotations_1.csv"))?;
    let headers = rdr.headers()?.clone();
    let col = |name: &str| headers.iter().position(|h| h == name).with_context(|| format!("no column {name}"));
    let (a, s) = (col("abstract")?, col("plain_summary")?);
    for rec in rdr.records() {
        if n >= limit {
            break;
        }
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
    let (report, _) = report(repeats, None, false)?;
    println!("{}", serde_json::to_string_pretty(&report)?);
    Ok(())
}

/// The script's JSON report and the number of pairs, on the first `limit` pairs (all 300 when
/// `None`), with the release CLI (or the dev one when `debug`).
fn report(repeats: usize, limit: Option<usize>, debug: bool) -> Result<(serde_json::Value, usize)> {
    let mut build = crate::cargo();
    build.args(["build", "-p", "factpico-cli"]);
    if !debug {
        build.arg("--release");
    }
    crate::run(build.current_dir(repo_root()))?;
    let target = std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| repo_root().join("target"), PathBuf::from);
    let bin = target.join(if debug { "debug" } else { "release" }).join("factpico");
    if !bin.exists() {
        bail!("binary not found at {}", bin.display());
    }
    let dir = work_dir("bench");
    std::fs::create_dir_all(&dir)?;
    let pairs = dir.join(limit.map_or_else(|| "model-free-pairs.jsonl".to_owned(), |n| format!("model-free-pairs{n}.jsonl")));
    let n = write_pairs(&pairs, limit)?;
    eprintln!("xtask: {n} real pairs in {}", pairs.display());
    let py = venv_python()?;
    let script = repo_root().join("xtask/python/bench_model_free.py");
    let out = Command::new(py)
        .arg(script)
        .arg("--pairs")
        .arg(&pairs)
        .arg("--factpico")
        .arg(&bin)
        .arg("--out-dir")
        .arg(&dir)
        .arg("--repeats")
        .arg(repeats.to_string())
        .stderr(std::process::Stdio::inherit())
        .output()
        .context("running bench_model_free.py")?;
    if !out.status.success() {
        bail!("bench_model_free.py failed with {}", out.status);
    }
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).context("bench_model_free.py printed no JSON")?;
    Ok((report, n))
}

/// The comparison rows of `cargo xtask bench all` (`jobs 1` and `jobs 2` against the references).
///
/// # Errors
/// As [`run`].
pub fn measure(repeats: usize, limit: Option<usize>, debug: bool) -> Result<Vec<crate::bench_all::Comparison>> {
    use crate::bench_all::{Comparison, Side};
    let (r, n) = report(repeats, limit, debug)?;
    let f = |v: &serde_json::Value| v.as_f64();
    let reference = Side {
        label: format!("rouge-score {} + textstat {}, in-process loop", r["versions"]["rouge-score"].as_str().unwrap_or("?"), r["versions"]["textstat"].as_str().unwrap_or("?")),
        wall_s: f(&r["python"]["wall_s"]),
        cpu_s: f(&r["python"]["cpu_s"]),
        peak_rss_mb: f(&r["python"]["peak_rss_mb"]),
        threads: Some(1),
    };
    let delta = [f(&r["max_abs_diff_rougeL"]), f(&r["max_abs_diff_delta_fkgl"])].into_iter().flatten().fold(None, |m: Option<f64>, x| Some(m.map_or(x, |m| m.max(x))));
    Ok([1usize, 2]
        .into_iter()
        .map(|jobs| {
            let k = format!("factpico_jobs{jobs}");
            Comparison {
                label: format!("ROUGE-L + FKGL, `--jobs {jobs}`"),
                pairs: n,
                reference: Some(reference.clone()),
                factpico: Side {
                    label: "factpico CLI process (start-up and I/O included)".into(),
                    wall_s: f(&r[&k]["wall_s"]),
                    cpu_s: f(&r[&k]["cpu_s"]),
                    peak_rss_mb: f(&r[&k]["peak_rss_mb"]),
                    threads: Some(jobs),
                },
                max_abs_delta: delta,
                note: Some(format!("median of {repeats}")),
            }
        })
        .collect())
}
