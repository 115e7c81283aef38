//! `cargo xtask bench llm`: factpico's LLM client vs the official Python `openai` client
//! (AsyncOpenAI + asyncio) at the same concurrency against the same local llama.cpp server
//! (PyPI `xllamacpp`, the tests' tiny random-weight GGUF), on the same request bodies.
//!
//! * Throughput: the full-text request bodies of `fixtures/pairs.jsonl` (FactPICO's prompts,
//!   `max_tokens` 8, no structured output, so both clients send standard OpenAI fields),
//!   repeated `--pairs`/12 times, at concurrency 4 on a server with 4 slots; one warm-up pass,
//!   then the two clients alternate, 3 runs each; medians.
//! * Overhead per request: 40 one-token requests with a short prompt at concurrency 1:
//!   client latency − the server's own processing time (llama.cpp's `timings`), median.
//!
//! Prints a Markdown table (and the machine's load average before and after) for BENCHMARKS.md.
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};

use anyhow::{bail, Context, Result};
use serde_json::{json, Value};

use crate::python::{repo_root, run, work_dir};

/// One measure's name with factpico's and the `openai` client's runs.
type Measured = (String, Vec<Value>, Vec<Value>);

fn loadavg() -> String {
    std::fs::read_to_string("/proc/loadavg").map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" ")).unwrap_or_default()
}

fn json_line(cmd: &mut Command) -> Result<Value> {
    let out = cmd.stderr(Stdio::inherit()).output().with_context(|| format!("could not start {cmd:?}"))?;
    if !out.status.success() {
        bail!("{cmd:?} failed with {}", out.status);
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text.lines().last().unwrap_or("");
    serde_json::from_str(line).with_context(|| format!("{cmd:?} printed {line:?}"))
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n == 0 {
        f64::NAN
    } else if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// Runs the benchmark with `n` throughput requests (rounded to whole passes over the fixtures).
///
/// # Errors
/// Python / venv / server / build failures.
pub fn bench(n: usize) -> Result<()> {
    measure(n, false).map(|_| ())
}

/// [`bench`], returning the rows of `cargo xtask bench all`: throughput and per-request overhead,
/// factpico's client (release, or dev when `debug`) against `openai`'s, medians of the 3 runs;
/// CPU seconds and peak RSS are each client process's own over its send loop.
///
/// # Errors
/// As [`bench`].
pub fn measure(n: usize, debug: bool) -> Result<Vec<crate::bench_all::Comparison>> {
    let py = match std::env::var_os(crate::llm::PYTHON_ENV).filter(|p| !p.is_empty()) {
        Some(p) => std::path::PathBuf::from(p),
        None => crate::llm::setup(None)?,
    };
    if !Command::new(&py).args(["-c", "import openai"]).output().is_ok_and(|o| o.status.success()) {
        eprintln!("xtask: installing the openai package into the LLM venv (benchmark only)");
        run(Command::new(&py).args(["-m", "pip", "install", "--quiet", "--disable-pip-version-check", "openai"]))?;
    }
    let dir = work_dir("bench-llm");
    std::fs::create_dir_all(&dir)?;
    let harness = repo_root().join("crates/factpico-llm/tests/support/llm_harness.py");
    let gguf = dir.join("tiny-random-llama.gguf");
    run(Command::new(&py).arg(&harness).arg("tiny").arg(&gguf))?;
    let mut build = crate::cargo();
    build.args(["build", "-p", "factpico-llm", "--example", "bench_client", "--quiet"]);
    if !debug {
        build.arg("--release");
    }
    run(&mut build)?;
    let target = std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| repo_root().join("target"), std::path::PathBuf::from);
    let bin = target.join(if debug { "debug" } else { "release" }).join("examples/bench_client");

    // request bodies: FactPICO full-text prompts over the fixtures, repeated
    let one_pass = dir.join("bodies-pass.json");
    run(Command::new(&bin).args(["bodies"]).arg(repo_root().join("fixtures/pairs.jsonl")).arg(&one_pass).args(["--max-tokens", "8"]))?;
    let pass: Vec<Value> = serde_json::from_str(&std::fs::read_to_string(&one_pass)?)?;
    let reps = n.div_ceil(pass.len()).max(1);
    let bodies: Vec<Value> = (0..reps).flat_map(|_| pass.iter().cloned()).collect();
    let throughput = dir.join("bodies-throughput.json");
    std::fs::write(&throughput, serde_json::to_string(&bodies)?)?;
    let short: Vec<Value> = (0..40)
        .map(|i| json!({"model": "bench", "messages": [{"role": "user", "content": format!("Rate summary {i}.")}], "max_tokens": 1, "temperature": 0.0}))
        .collect();
    let overhead = dir.join("bodies-overhead.json");
    std::fs::write(&overhead, serde_json::to_string(&short)?)?;

    let concurrency = 4;
    let mut server = Command::new(&py)
        .arg(&harness)
        .args(["backend", "--model"])
        .arg(&gguf)
        .args(["--parallel", &concurrency.to_string(), "--threads", "2", "--ctx", &(4096 * concurrency).to_string()])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .context("starting the llama.cpp server")?;
    let mut line = String::new();
    BufReader::new(server.stdout.take().context("server stdout")?).read_line(&mut line)?;
    let url = format!("{}/v1", serde_json::from_str::<Value>(&line)?["url"].as_str().context("server url")?);
    let script = repo_root().join("xtask/python/bench_llm_client.py");
    let factpico = |bodies: &Path, c: usize| json_line(Command::new(&bin).arg("run").arg(&url).arg(bodies).args(["--concurrency", &c.to_string()]));
    let openai = |bodies: &Path, c: usize| json_line(Command::new(&py).arg(&script).arg(&url).arg(bodies).arg(c.to_string()));

    let load_before = loadavg();
    let result = (|| -> Result<Vec<Measured>> {
        factpico(&throughput, concurrency)?; // warm-up: both clients then meet a warm prompt cache
        let mut out = Vec::new();
        for (what, bodies, c) in [("throughput", &throughput, concurrency), ("overhead", &overhead, 1)] {
            let (mut f, mut o) = (Vec::new(), Vec::new());
            for _ in 0..3 {
                f.push(factpico(bodies, c)?);
                o.push(openai(bodies, c)?);
            }
            out.push((what.to_owned(), f, o));
        }
        Ok(out)
    })();
    let load_after = loadavg();
    let _ = server.kill();
    let _ = server.wait();
    let runs = result?;

    let m = |v: &[Value], k: &str| median(v.iter().filter_map(|x| x[k].as_f64()).collect());
    let some = |x: f64| x.is_finite().then_some(x);
    let side = |label: &str, v: &[Value]| crate::bench_all::Side {
        label: label.to_owned(),
        wall_s: some(m(v, "wall_s")),
        cpu_s: some(m(v, "cpu_s")),
        peak_rss_mb: some(m(v, "peak_rss_mb")),
        threads: None,
    };
    let mut rows = Vec::new();
    println!("load average (1/5/15 min) before: {load_before}; after: {load_after}\n");
    println!("| measure | requests × runs | concurrency | factpico | openai (asyncio) | factpico / openai |\n|---|---:|---:|---:|---:|---:|");
    for (what, f, o) in &runs {
        let n = f[0]["n"].as_u64().unwrap_or(0);
        let c = f[0]["concurrency"].as_u64().unwrap_or(0);
        let failed: u64 = f.iter().chain(o).filter_map(|x| x["failed"].as_u64()).sum();
        if failed > 0 {
            bail!("{failed} requests failed during the {what} runs");
        }
        rows.push(crate::bench_all::Comparison {
            label: format!("LLM client {what}: {n} requests × 3 runs, concurrency {c}, local llama.cpp (tiny GGUF)"),
            pairs: n as usize,
            reference: Some(side("openai (AsyncOpenAI + asyncio)", o)),
            factpico: side(&format!("factpico-llm Client ({})", if debug { "debug" } else { "release" }), f),
            max_abs_delta: None,
            note: Some("medians; no scores".into()),
        });
        if what == "throughput" {
            let (a, b) = (m(f, "req_per_s"), m(o, "req_per_s"));
            println!("| requests/s (median) | {n} × 3 | {c} | {a:.2} | {b:.2} | {:.2}× |", a / b);
            let (a, b) = (m(f, "latency_ms_median"), m(o, "latency_ms_median"));
            println!("| latency per request, ms (median of medians) | {n} × 3 | {c} | {a:.1} | {b:.1} | {:.2}× |", a / b);
        } else {
            let (a, b) = (m(f, "overhead_ms_median"), m(o, "overhead_ms_median"));
            println!("| client overhead per request, ms (latency − server time) | {n} × 3 | {c} | {a:.2} | {b:.2} | {:.2}× |", a / b);
            let (a, b) = (m(f, "server_ms_median"), m(o, "server_ms_median"));
            println!("| server time per request, ms (llama.cpp timings) | {n} × 3 | {c} | {a:.2} | {b:.2} | |");
        }
    }
    println!("\nraw runs: {}", serde_json::to_string(&runs.iter().map(|(w, f, o)| json!({"what": w, "factpico": f, "openai": o})).collect::<Vec<_>>())?);
    Ok(rows)
}
