//! `cargo xtask bench report`: size and time to first render of `factpico report` pages of
//! 1,000 and 10,000 rows in headless Chromium (the browser of the report tests).
//!
//! Seed rows: the real InfoLossQA documents (`../shared`) scored with ROUGE-L, FKGL and the
//! AlignScore and DAE fixture models (DAE over the spaCy sidecar's parses), so each row carries
//! per-sentence and per-arc details. (The QA fixture models are left out: random weights
//! generate questions of maximal length, which would say nothing about real rows, and
//! generating them takes long on a shared machine.) They are replicated
//! to N rows with distinct ids and distinct abstracts (a marker appended to each abstract, its
//! input_sha256 recomputed), so no abstract is shared between rows: the worst case for size.
//! Measured per page: file size, `factpico report` wall time, and in Chromium (median of 3
//! loads): the script's ready mark (the list drawn) and first contentful paint after
//! navigation start, the time to open the last row (hash change to rendered view), to sort by
//! a column and to filter by system.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use serde_json::{json, Value};

#[allow(clippy::all, clippy::pedantic, unused)]
#[path = "../../crates/factpico-cli/tests/browser/mod.rs"]
mod browser;

fn sha16(source: &str, summary: &str) -> String {
    use sha2::Digest;
    let mut h = sha2::Sha256::new();
    h.update(source.as_bytes());
    h.update([0u8]);
    h.update(summary.as_bytes());
    hex::encode(&h.finalize()[..8])
}

fn workspace() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Runs the benchmark for the given row counts; prints a Markdown table.
///
/// # Errors
/// Missing shared data, browser, ONNX Runtime or sidecar; a failing command.
pub fn run(sizes: &[usize]) -> Result<()> {
    let root = workspace();
    let docs = std::env::var_os("FACTPICO_SHARED")
        .map_or_else(|| root.join("../shared"), PathBuf::from)
        .join("data/infolossqa/documents.json");
    if !docs.is_file() {
        bail!("{} not found: the report benchmark seeds its rows with the InfoLossQA documents", docs.display());
    }
    let Some((chromium, driver)) = browser::find() else {
        bail!("chromium / chromedriver not found: run `cargo xtask browser`");
    };
    let mut env: Vec<(&str, PathBuf)> = Vec::new();
    if let Some(lib) = crate::ort::prepare_for_tests()? {
        env.push(("ORT_DYLIB_PATH", lib));
    }
    if let Some(py) = crate::sidecar::prepare_for_tests()? {
        env.push((crate::sidecar::PYTHON_ENV, py));
    }
    // The dev profile (dependencies at opt-level 2, as the tests build them): the browser
    // timings do not depend on it; `factpico report`'s own wall time is that of this build.
    crate::run(crate::cargo().args(["build", "-p", "factpico-cli", "--quiet"]).current_dir(&root))?;
    let bin = root.join("target/debug/factpico");
    let dir = root.join("target/bench-report");
    std::fs::create_dir_all(&dir)?;
    let model = |n: &str| root.join("fixtures/models").join(n).display().to_string();
    let seed = dir.join("seed.scores.jsonl");
    if !seed.is_file() {
        eprintln!("xtask: scoring the 104 InfoLossQA documents with the AlignScore and DAE fixture models (seed rows)");
        let mut cmd = Command::new(&bin);
        cmd.args(["score", docs.to_str().unwrap_or_default(), "-o", seed.to_str().unwrap_or_default(), "-q"])
            .args(["--id-field", "PMCID", "--source-field", "abstract", "--summary-field", "simplification"])
            .args(["--metrics", "rougeL,fkgl,alignscore,dae"])
            .args(["--alignscore-model", &model("alignscore-tiny"), "--dae-model", &model("dae-tiny")]);
        for (k, v) in &env {
            cmd.env(k, v);
        }
        crate::run(&mut cmd)?;
    }
    let seed_rows: Vec<Value> = std::fs::read_to_string(&seed)?.lines().map(serde_json::from_str).collect::<Result<_, _>>()?;
    let src: Vec<Value> = serde_json::from_str(&std::fs::read_to_string(&docs)?)?;
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    let mut table = String::from(
        "| rows | page size | bytes per row | `factpico report` wall | list drawn (script ready) | first contentful paint | whole file loaded | open last row | sort by a column | filter by system |\n|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    for &n in sizes {
        let input = dir.join(format!("rows{n}.jsonl"));
        let scores = dir.join(format!("rows{n}.scores.jsonl"));
        let html = dir.join(format!("rows{n}.report.html"));
        let mut fi = std::io::BufWriter::new(std::fs::File::create(&input)?);
        let mut fs = std::io::BufWriter::new(std::fs::File::create(&scores)?);
        for k in 0..n {
            let m = k % seed_rows.len();
            let mut r = seed_rows[m].clone();
            let id = format!("{}-{k}", r["id"].as_str().unwrap_or("row"));
            // A distinct abstract per row: a marker after its last sentence.
            let source = format!("{} [copy {k}]", src[m]["abstract"].as_str().unwrap_or_default());
            let summary = src[m]["simplification"].as_str().unwrap_or_default();
            r["row"] = json!(k + 1);
            r["id"] = json!(id);
            r["input_sha256"] = json!(sha16(&source, summary));
            r["system"] = json!(["gpt-4", "system-b", "system-c"][k % 3]);
            writeln!(fi, "{}", json!({ "id": id, "source": source, "summary": summary }))?;
            writeln!(fs, "{r}")?;
        }
        fi.flush()?;
        fs.flush()?;
        drop((fi, fs));
        let t = Instant::now();
        crate::run(Command::new(&bin).args(["report", scores.to_str().unwrap_or_default(), "--input", input.to_str().unwrap_or_default(), "-o", html.to_str().unwrap_or_default(), "-q"]))?;
        let wall = t.elapsed();
        let size = std::fs::metadata(&html)?.len();
        let m = rt.block_on(measure(&chromium, &driver, &html, n))?;
        eprintln!("xtask: {n} rows: {size} bytes, report {wall:.2?}, browser {m:?}");
        table.push_str(&format!(
            "| {n} | {:.1} MB | {} | {:.2} s | {:.0} ms | {:.0} ms | {:.0} ms | {:.0} ms | {:.0} ms | {:.0} ms |\n",
            size as f64 / 1e6,
            size / n as u64,
            wall.as_secs_f64(),
            m[0],
            m[1],
            m[2],
            m[3],
            m[4],
            m[5]
        ));
    }
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!("{table}\nmachine load average at the end (1/5/15 min): {}", load.split_whitespace().take(3).collect::<Vec<_>>().join(" "));
    Ok(())
}

/// Median over 3 loads of [ready, first contentful paint, load event end, open last row, sort,
/// filter] in ms.
async fn measure(chromium: &Path, driver: &Path, html: &Path, n: usize) -> Result<[f64; 6]> {
    let mut runs: Vec<[f64; 6]> = Vec::new();
    for _ in 0..3 {
        let b = browser::Browser::start(chromium, driver, 1400, 1000).await;
        b.open(html).await;
        let t = b
            .js(
                "const r = performance.getEntriesByName('factpico-ready')[0]; const p = performance.getEntriesByName('first-contentful-paint')[0];\
                 const nav = performance.getEntriesByType('navigation')[0];\
                 return [r ? r.startTime : null, p ? p.startTime : null, document.getElementById('fp-count').textContent, nav ? nav.loadEventEnd : null]",
                vec![],
            )
            .await;
        if t[2] != json!(format!("{n} of {n} rows")) {
            bail!("the page lists {} instead of {n} rows", t[2]);
        }
        let open = b
            .js(
                &format!(
                    "return await new Promise(res => {{ const t = performance.now(); \
                     window.addEventListener('hashchange', () => res(performance.now() - t), {{ once: true }}); location.hash = '#row={}'; }})",
                    n - 1
                ),
                vec![],
            )
            .await;
        b.js("location.hash = '#list'", vec![]).await;
        b.wait_for("return !document.getElementById('fp-listview').hidden", Duration::from_secs(30)).await;
        let sort = b.js("const t = performance.now(); document.querySelector('.fp-h[data-col]:nth-child(4)').click(); return performance.now() - t", vec![]).await;
        let filter = b
            .js(
                "const s = document.getElementById('fp-f-system'); s.value = '1'; const t = performance.now(); \
                 s.dispatchEvent(new Event('change')); return performance.now() - t",
                vec![],
            )
            .await;
        let f = |v: &Value| v.as_f64().context("a timing is missing");
        runs.push([f(&t[0])?, f(&t[1])?, f(&t[3])?, f(&open)?, f(&sort)?, f(&filter)?]);
        b.close().await;
    }
    let mut out = [0.0; 6];
    for (k, o) in out.iter_mut().enumerate() {
        let mut v: Vec<f64> = runs.iter().map(|r| r[k]).collect();
        v.sort_by(f64::total_cmp);
        *o = v[v.len() / 2];
    }
    Ok(out)
}
