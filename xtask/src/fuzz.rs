//! `cargo xtask fuzz`: libFuzzer (cargo-fuzz) runs of the input and arc readers, one target
//! after the other, for a bounded time each. A developer command, not part of CI: CI replays
//! the committed seeds and crash reproducers (`crates/factpico-cli/tests/fuzz_corpus.rs`).
//!
//! * Targets (`fuzz/fuzz_targets/`): jsonl, json_array, csv, tsv, conllu, json_arcs; harnesses
//!   and invariants in `factpico_cli::fuzzing`.
//! * Seeds: `fuzz/seeds/<target>/` (committed); libFuzzer's working corpus grows in
//!   `fuzz/corpus/<target>/` (ignored by git).
//! * A crash or invariant failure is copied to `fuzz/regressions/<target>/` (commit it: the
//!   replay test then keeps it fixed) and the command fails.
//! * Needs `cargo install cargo-fuzz`. On a stable toolchain cargo-fuzz's `-Z` flags are
//!   allowed with `RUSTC_BOOTSTRAP=1`, which this command sets.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};

/// The fuzz targets, in the order they run.
pub const TARGETS: [&str; 6] = ["jsonl", "json_array", "csv", "tsv", "conllu", "json_arcs"];

/// One target's figures.
struct Figures {
    target: String,
    runs: Option<u64>,
    seconds: Option<u64>,
    corpus: usize,
    crashes: Vec<PathBuf>,
}

fn files(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir).map(|rd| rd.flatten().map(|e| e.path()).collect()).unwrap_or_default();
    v.sort();
    v
}

/// Runs each target (all when `targets` is empty) for `seconds`, sequentially.
pub fn fuzz(targets: &[String], seconds: u64, sanitizer: &str) -> Result<()> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let dir = root.join("fuzz");
    let ok = Command::new("cargo").args(["fuzz", "--version"]).output().is_ok_and(|o| o.status.success());
    if !ok {
        bail!("cargo-fuzz is not installed: `cargo install cargo-fuzz` (crates.io)");
    }
    let targets: Vec<String> = if targets.is_empty() { TARGETS.iter().map(|t| (*t).to_owned()).collect() } else { targets.to_vec() };
    for t in &targets {
        if !TARGETS.contains(&t.as_str()) {
            bail!("unknown fuzz target `{t}`; targets: {}", TARGETS.join(", "));
        }
    }
    let mut all = Vec::new();
    for t in &targets {
        let corpus = dir.join("corpus").join(t);
        let seeds = dir.join("seeds").join(t);
        let artifacts = dir.join("artifacts").join(t);
        std::fs::create_dir_all(&corpus)?;
        std::fs::create_dir_all(&artifacts)?;
        let before: Vec<PathBuf> = files(&artifacts);
        eprintln!("== fuzz {t}: {seconds} s ({sanitizer} sanitizer)");
        let out = Command::new("cargo")
            .current_dir(&dir)
            .env("RUSTC_BOOTSTRAP", "1")
            .args(["fuzz", "run", "-O", "-s", sanitizer, t])
            .arg(&corpus)
            .arg(&seeds)
            .arg("--")
            .arg(format!("-max_total_time={seconds}"))
            // -timeout=120: a shared, loaded machine can stall one input for many seconds.
            .args(["-rss_limit_mb=2048", "-timeout=120", "-print_final_stats=1", "-max_len=65536"])
            .output()
            .with_context(|| format!("could not run cargo fuzz for {t}"))?;
        let log = String::from_utf8_lossy(&out.stderr);
        std::fs::write(dir.join("corpus").join(format!("{t}.log")), log.as_bytes())?;
        let mut runs = None;
        let mut secs = None;
        for l in log.lines() {
            // "Done 123456 runs in 600 second(s)"
            if let Some(rest) = l.strip_prefix("Done ") {
                let w: Vec<&str> = rest.split_whitespace().collect();
                runs = w.first().and_then(|x| x.parse().ok());
                secs = w.get(3).and_then(|x| x.parse().ok());
            }
            if let Some(n) = l.strip_prefix("stat::number_of_executed_units: ") {
                runs = n.trim().parse().ok().or(runs);
            }
        }
        // slow-unit-* files only report an input slower than libFuzzer's threshold (on a loaded
        // machine, descheduling alone does it): listed, not counted as crashes.
        let (slow, crashes): (Vec<PathBuf>, Vec<PathBuf>) = files(&artifacts)
            .into_iter()
            .filter(|p| !before.contains(p))
            .partition(|p| p.file_name().is_some_and(|n| n.to_string_lossy().starts_with("slow-unit-")));
        for s in &slow {
            eprintln!("slow input (not a crash; rerun it alone to time it): {}", s.display());
        }
        if !out.status.success() && crashes.is_empty() {
            eprintln!("{}", log.lines().rev().take(40).collect::<Vec<_>>().into_iter().rev().collect::<Vec<_>>().join("\n"));
            bail!("cargo fuzz run {t} failed ({}) without a crash artifact; see fuzz/corpus/{t}.log", out.status);
        }
        for c in &crashes {
            let keep = dir.join("regressions").join(t);
            std::fs::create_dir_all(&keep)?;
            std::fs::copy(c, keep.join(c.file_name().unwrap_or_default()))?;
        }
        all.push(Figures { target: t.clone(), runs, seconds: secs, corpus: files(&corpus).len(), crashes });
    }
    println!("| target | executions | seconds | corpus entries | crashes |\n|---|---:|---:|---:|---:|");
    for f in &all {
        println!(
            "| {} | {} | {} | {} | {} |",
            f.target,
            f.runs.map_or("?".into(), |r| r.to_string()),
            f.seconds.map_or("?".into(), |s| s.to_string()),
            f.corpus,
            f.crashes.len()
        );
    }
    let crashed: Vec<String> = all.iter().flat_map(|f| f.crashes.iter().map(|c| c.display().to_string())).collect();
    if !crashed.is_empty() {
        bail!("crashes (copied to fuzz/regressions/; commit them and fix): {}", crashed.join(", "));
    }
    Ok(())
}
