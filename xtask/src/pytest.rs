//! The Python package's test stage (`cargo xtask pytest`, also the last step of
//! `cargo xtask test`):
//!
//! 1. **venv**: `.factpico/pytest-venv`, created with `python3 -m venv` and filled from
//!    `crates/factpico-python/requirements-test.txt` (pytest, onnxruntime = `ORT_VERSION`, the
//!    reference packages rouge-score 0.1.2 and textstat 0.7.3, pyarrow, ray[data], pyspark).
//!    Re-filled only when that file changes (its sha256 is stamped in the venv).
//! 2. **wheel**: `pip install crates/factpico-python` — the README's install command, building the
//!    wheel with maturin from PyPI — with `MATURIN_PEP517_ARGS=--profile dev` and the workspace's
//!    target directory, so the ONNX crates already compiled by `cargo build`/`cargo test` are
//!    reused instead of a second, release-profile build (`FACTPICO_WHEEL_PROFILE=release` for the
//!    release build users get).
//! 3. **pytest** on `crates/factpico-python/tests` with `FACTPICO_CLI` (the workspace's `factpico`
//!    binary, for the identity tests) and the ONNX Runtime library / sidecar of the Rust tests.
//!
//! Each sub-stage prints its wall time (`xtask: python stage: ...`), which `.ci/run`'s log keeps.
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use anyhow::{Context, Result};

use crate::python::{repo_root, run, work_dir};

fn venv_python(venv: &Path) -> PathBuf {
    venv.join("bin").join("python")
}

fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest;
    hex::encode(sha2::Sha256::digest(bytes))
}

/// `.factpico/<name>` with the requirements of `crates/factpico-python/<requirements>` (which may
/// include `requirements-test.txt`), (re)created when those files changed.
pub fn venv(name: &str, requirements: &str) -> Result<PathBuf> {
    let venv = work_dir(name);
    let py = venv_python(&venv);
    let dir = repo_root().join("crates/factpico-python");
    let req = dir.join(requirements);
    let mut stamped = Vec::new();
    for f in [requirements, "requirements-test.txt"] {
        stamped.extend(std::fs::read(dir.join(f)).with_context(|| format!("reading {f}"))?);
    }
    let want = sha256_hex(&stamped);
    let stamp = venv.join("factpico-requirements.sha256");
    if py.exists() && std::fs::read_to_string(&stamp).is_ok_and(|s| s.trim() == want) {
        return Ok(py);
    }
    let base = std::env::var("FACTPICO_PYTHON").unwrap_or_else(|_| "python3".into());
    eprintln!("xtask: creating {} ({base}; {requirements}: pytest, onnxruntime, rouge-score, textstat, ray[data], pyspark from PyPI)", venv.display());
    if venv.exists() {
        std::fs::remove_dir_all(&venv).with_context(|| format!("removing the stale {}", venv.display()))?;
    }
    run(Command::new(&base).args(["-m", "venv"]).arg(&venv))
        .with_context(|| format!("`{base} -m venv` failed: install Python >= 3.9 with the venv module"))?;
    run(Command::new(&py).args(["-m", "pip", "install", "--quiet", "--disable-pip-version-check", "-r"]).arg(&req))
        .context("pip install of the Python test requirements failed (PyPI reachable?)")?;
    std::fs::write(&stamp, want)?;
    Ok(py)
}

/// The workspace's target directory (where `cargo build` put the `factpico` binary).
pub fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| repo_root().join("target"), PathBuf::from)
}

/// `crate feature "f"` lines of `cargo tree -e features` for the given selection.
fn feature_lines(selection: &[&str], edges: &str) -> Result<std::collections::BTreeSet<String>> {
    let out = crate::cargo()
        .args(["tree", "--locked", "--prefix", "none", "-e", edges])
        .args(selection)
        .current_dir(repo_root())
        .output()
        .context("running cargo tree")?;
    Ok(String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| l.contains(" feature \"") && !l.contains("(command-line)"))
        .map(|l| l.trim_end_matches(" (*)").to_owned())
        .collect())
}

/// Warns when the wheel build (factpico-python alone) would resolve a shared dependency with
/// other features than `cargo build --workspace`, i.e. would recompile it and what depends on
/// it instead of reusing the workspace's build (see the alignment block of
/// `crates/factpico-python/Cargo.toml`).
fn check_feature_alignment() -> Result<()> {
    let ws = feature_lines(&["--workspace"], "features,normal,build,dev")?;
    let py = feature_lines(&["-p", "factpico-python"], "features,normal,build")?;
    let crate_of = |l: &String| l.split(' ').next().unwrap_or_default().to_owned();
    let py_crates: std::collections::BTreeSet<String> = py.iter().map(crate_of).collect();
    // The workspace's own crates (the facade gets the CLI's `cli` flags there) recompile alone,
    // in seconds; a drifting external dependency recompiles everything above it.
    let drift: std::collections::BTreeSet<String> = ws
        .difference(&py)
        .filter(|l| py_crates.contains(&crate_of(l)) && !crate_of(l).starts_with("factpico"))
        .map(crate_of)
        .collect();
    if drift.is_empty() {
        eprintln!("xtask: the wheel build resolves its dependencies with the workspace's features (build reused)");
    } else {
        eprintln!(
            "xtask: WARNING: the wheel build will recompile {} and their dependents: their features differ from \
             `cargo build --workspace`; name them in the alignment block of crates/factpico-python/Cargo.toml",
            drift.into_iter().collect::<Vec<_>>().join(", ")
        );
    }
    Ok(())
}

/// Builds and installs the wheel into the venv (see the module docs); `profile`: `dev` (tests,
/// reusing the workspace build) or `release` (benchmarks, what users get).
pub fn install_wheel(py: &Path, profile: &str) -> Result<()> {
    if profile == "dev" {
        check_feature_alignment()?;
    }
    let _ = Command::new(py).args(["-m", "pip", "uninstall", "--quiet", "--yes", "factpico"]).status();
    run(Command::new(py)
        .args(["-m", "pip", "install", "--quiet", "--disable-pip-version-check"])
        .arg(repo_root().join("crates/factpico-python"))
        .env("MATURIN_PEP517_ARGS", format!("--profile {profile}"))
        .env("CARGO_TARGET_DIR", target_dir()))
    .context("building/installing the factpico wheel failed")
}

/// Runs the Python stage; `pytest_args` go to pytest.
///
/// # Errors
/// A failing sub-stage or failing tests.
pub fn run_stage(ort_lib: Option<&Path>, sidecar: Option<&Path>, pytest_args: &[String]) -> Result<()> {
    let t0 = Instant::now();
    let py = venv("pytest-venv", "requirements-test.txt")?;
    let t1 = Instant::now();
    // The CLI the identity tests compare with (no-op when `cargo build`/`cargo test` built it).
    run(crate::cargo().args(["build", "--locked", "--quiet", "-p", "factpico-cli"]).env("CARGO_TARGET_DIR", target_dir()))?;
    install_wheel(&py, &std::env::var("FACTPICO_WHEEL_PROFILE").unwrap_or_else(|_| "dev".into()))?;
    let t2 = Instant::now();
    let mut cmd = Command::new(&py);
    cmd.args(["-m", "pytest", "-p", "no:cacheprovider", "-rs"])
        .arg(repo_root().join("crates/factpico-python/tests"))
        .args(pytest_args)
        .current_dir(repo_root())
        .env("FACTPICO_CLI", target_dir().join("debug").join("factpico"))
        // The Python package loads ONNX Runtime from its onnxruntime wheel; the CLI it is
        // compared with gets the library of the Rust tests.
        .env_remove("ORT_DYLIB_PATH")
        .env("RAY_AUTH_MODE", "disabled")
        .env("RAY_USAGE_STATS_ENABLED", "0");
    if let Some(lib) = ort_lib {
        cmd.env("FACTPICO_CLI_ORT_DYLIB_PATH", lib);
    }
    if let Some(s) = sidecar {
        cmd.env(crate::sidecar::PYTHON_ENV, s);
    }
    let result = run(&mut cmd);
    let t3 = Instant::now();
    eprintln!(
        "xtask: python stage: venv {:.0}s, wheel (build + install) {:.0}s, pytest {:.0}s",
        (t1 - t0).as_secs_f64(),
        (t2 - t1).as_secs_f64(),
        (t3 - t2).as_secs_f64()
    );
    result.context("Python package tests failed")
}

/// `cargo xtask bench python`: release wheel in `.factpico/bench-venv`, the Rust side of the
/// call-overhead comparison (`examples/call_overhead.rs`), then `bench/bench.py` (Markdown on
/// stdout, JSON in `bench-out/python.json`).
///
/// # Errors
/// A failing step.
pub fn bench(sections: &[String], alignscore_pairs: usize) -> Result<()> {
    let py = venv("bench-venv", "requirements-bench.txt")?;
    // The AlignScore reference (PyTorch) on the first pairs, when its venv exists.
    let alignscore = match crate::bench::reference_run(alignscore_pairs, &format!("reference-python-{alignscore_pairs}.json")) {
        Ok((dir, pairs, reference)) => Some((dir.join("onnx-base"), pairs, reference)),
        Err(e) => {
            eprintln!("xtask: SKIP the AlignScore reference comparison: {e:#}");
            None
        }
    };
    install_wheel(&py, "release")?;
    let out = crate::cargo()
        .args(["run", "--quiet", "--locked", "--release", "-p", "factpico-python", "--example", "call_overhead"])
        .env("CARGO_TARGET_DIR", target_dir())
        .output()
        .context("running the call_overhead example")?;
    if !out.status.success() {
        anyhow::bail!("call_overhead failed: {}", String::from_utf8_lossy(&out.stderr));
    }
    let rust_json = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    let out_dir = repo_root().join("bench-out");
    std::fs::create_dir_all(&out_dir)?;
    let mut cmd = Command::new(&py);
    cmd.arg(repo_root().join("crates/factpico-python/bench/bench.py"));
    if let Some((model, pairs, reference)) = &alignscore {
        cmd.arg("--alignscore-model").arg(model).arg("--alignscore-pairs").arg(pairs).arg("--alignscore-reference").arg(reference);
    }
    run(cmd
        .args(sections)
        .arg("--rust-json")
        .arg(rust_json)
        .arg("--out")
        .arg(out_dir.join("python.json"))
        .env_remove("ORT_DYLIB_PATH")
        .env("RAY_AUTH_MODE", "disabled")
        .env("RAY_USAGE_STATS_ENABLED", "0"))
}

/// `cargo xtask bench python` (its default sections), returning the rows of `cargo xtask bench
/// all` from `bench-out/python.json`: the AlignScore row (reference vs the Python API: wall, CPU,
/// peak RSS, max |Δ|) and the ROUGE and textstat rows (best-of wall times only).
///
/// # Errors
/// As [`bench`]; a missing or unreadable `python.json`.
pub fn measure(alignscore_pairs: usize) -> Result<Vec<crate::bench_all::Comparison>> {
    use crate::bench_all::{Comparison, Side};
    // Not the Ray section (minutes of actors; `cargo xtask bench python` runs it): no row here reads it.
    bench(&["rouge".to_owned(), "textstat".to_owned(), "overhead".to_owned()], alignscore_pairs)?;
    let path = repo_root().join("bench-out").join("python.json");
    let r: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?)?;
    let wall = |label: &str, v: &serde_json::Value| Side { label: label.to_owned(), wall_s: v.as_f64(), ..Side::default() };
    let mut rows = Vec::new();
    let rouge = &r["rouge"]["seconds"];
    if rouge.is_object() {
        rows.push(Comparison {
            label: "ROUGE-L/Lsum per pair, Python API".into(),
            pairs: r["rouge"]["pairs"].as_u64().unwrap_or(0) as usize,
            reference: Some(wall("rouge-score 0.1.2", &rouge["rouge-score"])),
            factpico: wall("factpico.rouge_score", &rouge["factpico"]),
            max_abs_delta: Some(0.0),
            note: Some("best of 5, wall only; values asserted equal".into()),
        });
    }
    let ts = &r["textstat"]["seconds"];
    if ts.is_object() {
        rows.push(Comparison {
            label: "FKGL + FRE per text, Python API".into(),
            pairs: r["textstat"]["texts"].as_u64().unwrap_or(0) as usize / 2,
            reference: Some(wall("textstat 0.7.3", &ts["textstat 0.7.3"])),
            factpico: wall("factpico.textstat", &ts["factpico"]),
            max_abs_delta: Some(0.0),
            note: Some("best of 5, wall only; values asserted equal".into()),
        });
    }
    let a = &r["alignscore"];
    if a.is_object() {
        let f = |k: &str| a[k].as_f64();
        rows.push(Comparison {
            label: "AlignScore nli_sp, random RoBERTa-base graph, Python API".into(),
            pairs: a["pairs"].as_u64().unwrap_or(0) as usize,
            reference: Some(Side {
                label: "alignscore 0.1.4 (PyTorch CPU, batch 32)".into(),
                wall_s: f("reference_seconds"),
                cpu_s: f("reference_cpu_seconds"),
                peak_rss_mb: f("reference_peak_rss_mb"),
                threads: Some(2),
            }),
            factpico: Side {
                label: "factpico.alignscore.AlignScore (release wheel), batch 2".into(),
                wall_s: f("seconds"),
                cpu_s: f("cpu_seconds"),
                peak_rss_mb: f("peak_rss_mb"),
                threads: Some(2),
            },
            max_abs_delta: f("max_abs_diff"),
            note: None,
        });
        // Issue 26 item 4: the Python API against the engine itself, same graph, pairs, batch
        // size (2) and threads (2), one after the other; the "reference" side is the engine
        // (ratio > 0.9: the Python path is within 10 % of it).
        let dir = repo_root().join("bench-out").join("alignscore");
        let pairs = dir.join(format!("pairs{}.json", a["pairs"].as_u64().unwrap_or(0)));
        let engine = crate::bench::factpico_run(&dir.join("onnx-base"), &pairs, &["--batch-size", "2"])?;
        let e = |k: &str| engine[k].as_f64();
        let (py_scores, engine_scores) = (crate::bench::scores(a), crate::bench::scores(&engine));
        if py_scores.len() != engine_scores.len() {
            anyhow::bail!("Python API scored {} pairs, the engine {}", py_scores.len(), engine_scores.len());
        }
        let (_, delta, _) = crate::bench::deltas(&py_scores, &engine_scores);
        rows.push(Comparison {
            label: "AlignScore nli_sp: Python API vs the engine (same pairs, batch 2, 2 threads)".into(),
            pairs: engine_scores.len(),
            reference: Some(Side {
                label: "engine: bench_alignscore example (release)".into(),
                wall_s: e("seconds"),
                cpu_s: e("cpu_seconds"),
                peak_rss_mb: e("peak_rss_mb"),
                threads: Some(2),
            }),
            factpico: Side {
                label: "factpico.alignscore.AlignScore (release wheel)".into(),
                wall_s: f("seconds"),
                cpu_s: f("cpu_seconds"),
                peak_rss_mb: f("peak_rss_mb"),
                threads: Some(2),
            },
            max_abs_delta: Some(delta),
            note: Some("the \"reference\" side is factpico's Rust engine: ratio = engine / Python API".into()),
        });
    }
    Ok(rows)
}
