//! MiniCheck fixtures and benchmark (`cargo xtask fixtures minicheck`,
//! `cargo xtask bench minicheck [--pairs N]`).
//!
//! Both run in the MiniCheck reference venv, `$FACTPICO_MINICHECK_PYTHON`: the export
//! requirements (`onnx/requirements.txt`) + `onnx/requirements-minicheck.txt` + the reference
//! itself (`Liyan06/MiniCheck` @ b58b9fa, installed `--no-deps` from a snapshot; see
//! onnx/README.md, "MiniCheck").
//!
//! Fixtures: for each checker (`roberta-large`, `deberta-v3-large`, `flan-t5-large`)
//! `onnx/random_minicheck.py --size tiny` writes a random-weight replica of the released
//! checkpoint's directory under `.factpico/fixtures/minicheck/`, `onnx/export_minicheck.py`
//! exports it to `fixtures/models/minicheck-<variant>-tiny/`, and
//! `tests/goldens/gen_minicheck.py` runs the unmodified reference on the replicas →
//! `tests/goldens/minicheck.json`.
//!
//! Benchmark: full-size random replicas (released shapes; tokenizers trained on the real
//! abstracts), exported by the same path, under the gitignored `bench-out/minicheck/`; the
//! reference (PyTorch CPU, its default batch 16, 2 threads) and factpico (release, 2 threads)
//! score the same first N InfoLossQA pairs one after the other; the Markdown printed is what
//! BENCHMARKS.md records. One checker's replica is on disk at a time (built, measured,
//! deleted); `minicheck:flan-t5-large` measures one checker.
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};
use serde_json::Value;

use crate::python::{repo_root, run_script, work_dir};

const VARIANTS: [&str; 3] = ["roberta-large", "deberta-v3-large", "flan-t5-large"];

fn s(p: &Path) -> String {
    p.to_string_lossy().into_owned()
}

/// The interpreter with the MiniCheck reference installed.
fn minicheck_python() -> Result<PathBuf> {
    match std::env::var_os("FACTPICO_MINICHECK_PYTHON").map(PathBuf::from) {
        Some(p) if p.exists() => Ok(p),
        Some(p) => bail!("FACTPICO_MINICHECK_PYTHON={} does not exist", p.display()),
        None => bail!(
            "set FACTPICO_MINICHECK_PYTHON to the python of a venv with the MiniCheck reference \
             (onnx/README.md, section 'MiniCheck': onnx/requirements.txt + onnx/requirements-minicheck.txt \
             + Liyan06/MiniCheck @ b58b9fa installed --no-deps)"
        ),
    }
}

/// `cargo xtask fixtures minicheck`.
pub fn fixtures(no_real: bool) -> Result<()> {
    let py = minicheck_python()?;
    let root = repo_root();
    let work = work_dir("fixtures").join("minicheck");
    if work.exists() {
        std::fs::remove_dir_all(&work)?;
    }
    std::fs::create_dir_all(&work)?;
    let corpus = [
        s(&root.join("onnx/tiny_tokenizer_corpus.txt")),
        s(&root.join("fixtures/pairs.jsonl")),
        s(&root.join("fixtures/edge_cases.jsonl")),
    ];
    for v in VARIANTS {
        let ckpt = work.join(v);
        let mut args = vec!["--variant", v, "--size", "tiny", "--out"];
        let ckpt_s = s(&ckpt);
        args.push(ckpt_s.as_str());
        args.push("--corpus");
        args.extend(corpus.iter().map(String::as_str));
        run_script(&py, "onnx/random_minicheck.py", &args)?;
        let out = root.join("fixtures/models").join(format!("minicheck-{v}-tiny"));
        if out.exists() {
            std::fs::remove_dir_all(&out)?;
        }
        let name = format!("random-weight replica of the {v} MiniCheck checkpoint (onnx/random_minicheck.py --size tiny)");
        run_script(&py, "onnx/export_minicheck.py", &["--variant", v, "--model", &ckpt_s, "--out", &s(&out), "--checkpoint-name", &name])?;
    }
    let golden = root.join("tests/goldens/minicheck.json");
    let mut args: Vec<String> = Vec::new();
    for v in VARIANTS {
        args.push(format!("--{v}"));
        args.push(s(&work.join(v)));
    }
    args.extend(["--out".to_owned(), s(&golden)]);
    if no_real {
        args.push("--no-real".into());
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    run_script(&py, "tests/goldens/gen_minicheck.py", &args)?;
    eprintln!("fixtures: wrote fixtures/models/minicheck-*-tiny and {}", golden.display());
    Ok(())
}

fn loadavg() -> String {
    std::fs::read_to_string("/proc/loadavg").map_or_else(|_| "?".into(), |l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
}

/// The full-size random replica of MiniCheck `v` (checkpoint at `ckpt`, its ONNX export at
/// `onnx`), each built only when absent: `onnx/random_minicheck.py --size full` (vocabulary of
/// 8,000 pieces trained on `corpus`), then `onnx/export_minicheck.py`.
///
/// # Errors
/// A failing script.
pub(crate) fn full_replica(py: &Path, v: &str, corpus: &Path, ckpt: &Path, onnx: &Path) -> Result<()> {
    if !ckpt.join("config.json").exists() {
        run_script(
            py,
            "onnx/random_minicheck.py",
            &["--variant", v, "--size", "full", "--vocab-size", "8000", "--out", &s(ckpt), "--corpus", &s(corpus)],
        )?;
    }
    if !onnx.join("model.onnx").exists() {
        run_script(py, "onnx/export_minicheck.py", &["--variant", v, "--model", &s(ckpt), "--out", &s(onnx)])?;
    }
    Ok(())
}

pub(crate) fn factpico_run(model: &Path, pairs: &Path) -> Result<Value> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .args(["run", "--quiet", "--release", "-p", "factpico-minicheck", "--example", "bench_minicheck", "--"])
        .arg(model)
        .arg(pairs)
        .args(["--threads", "2"])
        .current_dir(repo_root())
        .output()
        .context("running the bench_minicheck example")?;
    if !out.status.success() {
        bail!("bench_minicheck failed: {}", String::from_utf8_lossy(&out.stderr));
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text.lines().last().unwrap_or_default();
    serde_json::from_str(line).with_context(|| format!("bad bench output: {line}"))
}

/// Free bytes on the file system holding `path` (`df`), `None` when unknown.
fn free_bytes(path: &Path) -> Option<u64> {
    let out = Command::new("df").args(["-B1", "--output=avail"]).arg(path).output().ok()?;
    String::from_utf8_lossy(&out.stdout).lines().nth(1)?.trim().parse().ok()
}

/// Disk a full-size replica takes while it is built and exported: the safetensors
/// checkpoint, the ONNX graph and the exporter's temporary copy (4 bytes per parameter each).
fn disk_needed(variant: &str) -> u64 {
    let params: u64 = match variant {
        "roberta-large" => 355_000_000,
        "deberta-v3-large" => 435_000_000,
        _ => 783_000_000,
    };
    3 * 4 * params
}

/// Free space the benchmark leaves to the machine's other users.
const DISK_RESERVE: u64 = 8 << 30;

/// `Err(reason)` when building `variant`'s full-size replica would leave less than
/// [`DISK_RESERVE`] free (a replica already built needs nothing more).
pub fn disk_check(variant: &str) -> std::result::Result<(), String> {
    if !VARIANTS.contains(&variant) {
        return Err(format!("unknown MiniCheck checker {variant} (known: {})", VARIANTS.join(", ")));
    }
    let dir = repo_root().join("bench-out").join("minicheck");
    let built = dir.join(format!("{variant}-full/config.json")).exists() && dir.join(format!("{variant}-full-onnx/model.onnx")).exists();
    let probe = if dir.exists() { dir } else { repo_root() };
    match free_bytes(&probe) {
        Some(f) if !built && f < disk_needed(variant) + DISK_RESERVE => {
            let gib = |b: u64| b as f64 / f64::from(1u32 << 30);
            Err(format!(
                "not measured: building it needs ~{:.1} GiB and {:.1} GiB are free (8 GiB stay free for others)",
                gib(disk_needed(variant)),
                gib(f)
            ))
        }
        _ => Ok(()),
    }
}

/// `cargo xtask bench minicheck[:VARIANT,...] [--pairs N]`: each checker's full-size replica
/// is built, exported, measured and **deleted** before the next one (a full-size Flan-T5-large
/// takes ~3 GB per copy); a checker whose build would leave less than 8 GiB free is not
/// measured and says so.
pub fn bench(what: &str, n_pairs: usize) -> Result<()> {
    measure(what, n_pairs).map(|_| ())
}

/// The encoder of a checker, from the released configurations (24 layers, d 1024): 2
/// feed-forward matrices of 4096 for RoBERTa / DeBERTa-v3, 3 of 2816 for T5's gated GELU.
/// DeBERTa's disentangled attention adds two more l × 2k products per layer (not counted: a
/// lower bound); Flan-T5's single decoder step is negligible.
fn shape(variant: &str) -> crate::bench_all::EncoderShape {
    let (ffn_matrices, d_ff) = if variant == "flan-t5-large" { (3.0, 2816.0) } else { (2.0, 4096.0) };
    crate::bench_all::EncoderShape { layers: 24.0, d: 1024.0, ffn_matrices, d_ff }
}

/// Where the time goes, against the fp32 FLOP limit ([`crate::bench_all::EncoderShape`]): the
/// encoder FLOPs each side computed (real tokens, and the padded batches each side ran:
/// `bench_minicheck`'s `work`), and the GFLOP each side achieved per CPU second.
fn profile(variant: &str, ours: &Value, reference: &Value) -> Option<String> {
    let w = &ours["work"];
    let (per_tok, per_sq) = (shape(variant).per_token(), shape(variant).per_len_sq());
    let g = |tok: f64, sq: f64| (per_tok * tok + per_sq * sq) / 1e9;
    let real = g(w["tokens"].as_f64()?, 0.0);
    let fp = g(w["padded_tokens"].as_f64()?, w["attention_sq"].as_f64()?);
    let rp = g(w["reference_padded_tokens"].as_f64()?, w["reference_attention_sq"].as_f64()?);
    let (fc, rc) = (ours["cpu_seconds"].as_f64()?, reference["cpu_seconds"].as_f64()?);
    Some(format!(
        "profile: {} real tokens; encoder fp32 work {fp:.0} GFLOP in factpico's batches (padded {} tokens) vs {rp:.0} GFLOP in the \
         reference's (padded {} tokens; real tokens alone {real:.0} GFLOP); achieved {:.1} GFLOP per CPU s (factpico) vs {:.1} (reference)",
        w["tokens"],
        w["padded_tokens"],
        w["reference_padded_tokens"],
        fp / fc,
        rp / rc
    ))
}

/// [`bench`], returning the rows of `cargo xtask bench all` (one per measured checker).
///
/// # Errors
/// Unknown checker, no reference venv, a failing script or example.
pub fn measure(what: &str, n_pairs: usize) -> Result<Vec<crate::bench_all::Comparison>> {
    let variants: Vec<&str> = match what.split_once(':') {
        None => VARIANTS.to_vec(),
        Some((_, list)) => list.split(',').filter(|v| !v.is_empty()).collect(),
    };
    if let Some(bad) = variants.iter().find(|v| !VARIANTS.contains(v)) {
        bail!("unknown MiniCheck checker {bad} (known: {})", VARIANTS.join(", "));
    }
    let py = minicheck_python()?;
    let root = repo_root();
    let dir = root.join("bench-out").join("minicheck");
    std::fs::create_dir_all(&dir)?;
    let pairs = dir.join(format!("pairs{n_pairs}.json"));
    let corpus = dir.join("corpus.jsonl");
    run_script(&py, "onnx/bench_minicheck.py", &["pairs", "--n", &n_pairs.to_string(), "--out", &s(&pairs), "--corpus-out", &s(&corpus)])?;
    let mut rows = Vec::new();
    let mut comparisons = Vec::new();
    for v in variants {
        let ckpt = dir.join(format!("{v}-full"));
        let onnx = dir.join(format!("{v}-full-onnx"));
        let built = ckpt.join("config.json").exists() && onnx.join("model.onnx").exists();
        let free = free_bytes(&dir);
        if !built && free.is_some_and(|f| f < disk_needed(v) + DISK_RESERVE) {
            let gib = |b: u64| b as f64 / f64::from(1u32 << 30);
            let msg = format!(
                "not measured: building it needs ~{:.1} GiB and {:.1} GiB are free (8 GiB stay free for others)",
                gib(disk_needed(v)),
                gib(free.unwrap_or(0))
            );
            eprintln!("{v}: {msg}");
            rows.push(format!("| {v} | {msg} | | | | | | | |"));
            continue;
        }
        full_replica(&py, v, &corpus, &ckpt, &onnx)?;
        let ref_json = dir.join(format!("{v}-reference.json"));
        let load_before = loadavg();
        run_script(
            &py,
            "onnx/bench_minicheck.py",
            &["reference", "--variant", v, "--ckpt", &s(&ckpt), "--pairs", &s(&pairs), "--out", &s(&ref_json)],
        )?;
        let reference: Value = serde_json::from_str(&std::fs::read_to_string(&ref_json)?)?;
        let ours = factpico_run(&onnx, &pairs)?;
        let load_after = loadavg();
        let f = |x: &Value, k: &str| x[k].as_f64().unwrap_or(f64::NAN);
        let sc = |x: &Value| -> Vec<Option<f64>> {
            x["scores"].as_array().map(|a| a.iter().map(Value::as_f64).collect()).unwrap_or_default()
        };
        let d = sc(&ours).iter().zip(sc(&reference)).filter_map(|(a, b)| Some((a.as_ref()? - b?).abs())).fold(0.0, f64::max);
        let side = |label: &str, x: &Value| crate::bench_all::Side {
            label: label.to_owned(),
            wall_s: x["seconds"].as_f64(),
            cpu_s: x["cpu_seconds"].as_f64(),
            peak_rss_mb: x["peak_rss_mb"].as_f64(),
            threads: Some(2),
        };
        comparisons.push(crate::bench_all::Comparison {
            label: format!("{v} full-size random replica, {} chunk+claim inputs", ours["inputs"]),
            pairs: ours["pairs"].as_u64().unwrap_or(0) as usize,
            reference: Some(side("Liyan06/MiniCheck @ b58b9fa (PyTorch CPU, batch 16)", &reference)),
            factpico: side(&format!("bench_minicheck example (release), batch {}", ours["batch_size"]), &ours),
            max_abs_delta: Some(d),
            note: profile(v, &ours, &reference),
        });
        rows.push(format!(
            "| {v} | {n} | {inputs} | {rs:.1} s ({rc:.1} CPU s) | {fs:.1} s ({fc:.1} CPU s) | **{ratio:.2}x** wall, {cratio:.2}x CPU | {d:.1e} | {rr:.0} / {fr:.0} MB | {load_before} → {load_after} |",
            n = ours["pairs"],
            inputs = ours["inputs"],
            rs = f(&reference, "seconds"),
            rc = f(&reference, "cpu_seconds"),
            fs = f(&ours, "seconds"),
            fc = f(&ours, "cpu_seconds"),
            ratio = f(&reference, "seconds") / f(&ours, "seconds"),
            cratio = f(&reference, "cpu_seconds") / f(&ours, "cpu_seconds"),
            rr = f(&reference, "peak_rss_mb"),
            fr = f(&ours, "peak_rss_mb"),
        ));
        // Disk: one full-size replica at a time.
        for d in [&ckpt, &onnx] {
            std::fs::remove_dir_all(d).with_context(|| format!("removing {}", d.display()))?;
        }
    }
    let md = format!(
        "| checker (full-size random graph) | pairs | chunk+claim inputs | reference (PyTorch CPU, batch 16) | factpico (ORT, default batch) | speed-up | max abs(score diff) | peak RSS ref / factpico | load avg (1/5/15 min) before → after |\n\
         |---|---|---|---|---|---|---|---|---|\n{}\n",
        rows.join("\n")
    );
    let out = dir.join("BENCHMARKS-section.md");
    std::fs::write(&out, &md)?;
    println!("{md}\n(written to {})", out.display());
    Ok(comparisons)
}
