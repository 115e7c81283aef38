//! `factpico score --metrics minicheck` through the binary, against the unmodified reference:
//! the scores of the fixture rows equal the goldens of `Liyan06/MiniCheck`
//! (`tests/goldens/minicheck.json`, written by `tests/goldens/gen_minicheck.py`) for the
//! whole-claim mode, the per-sentence min / mean modes and the short configuration (chunk
//! size and maximum length flags, truncation warnings); `--explain` shows the best chunk per
//! claim; a checker that does not match the model directory and a missing directory are clear
//! errors; the unit's flags without `--metrics minicheck` are reported as ignored.
#![cfg(feature = "onnx")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

const TOL: f64 = 1e-4;

fn bin() -> Command {
    static SCRATCH: std::sync::OnceLock<tempfile::TempDir> = std::sync::OnceLock::new();
    let cwd = SCRATCH.get_or_init(|| tempfile::tempdir().unwrap());
    let mut c = Command::new(env!("CARGO_BIN_EXE_factpico"));
    c.current_dir(cwd.path());
    c
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn s(p: &Path) -> String {
    p.to_str().unwrap().to_owned()
}

fn model(variant: &str) -> String {
    s(&root().join(format!("fixtures/models/minicheck-{variant}-tiny")))
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn goldens() -> Value {
    serde_json::from_str(&std::fs::read_to_string(root().join("tests/goldens/minicheck.json")).unwrap()).unwrap()
}

/// Scores `fixtures/pairs.jsonl` + `edge_cases.jsonl` + the goldens' extra rows (long
/// documents and claims, a blank document, markup; stored verbatim in the goldens) with
/// `args`; the rows.
fn score(args: &[&str]) -> Vec<Value> {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.jsonl");
    let mut text = ["pairs.jsonl", "edge_cases.jsonl"]
        .iter()
        .map(|f| std::fs::read_to_string(root().join("fixtures").join(f)).unwrap())
        .collect::<String>();
    for r in goldens()["extra"].as_array().unwrap() {
        text.push_str(&format!("{r}\n"));
    }
    std::fs::write(&input, text).unwrap();
    let out = dir.path().join("out.jsonl");
    let mut all = vec!["score", input.to_str().unwrap(), "-q", "-o", out.to_str().unwrap(), "--metrics", "minicheck"];
    all.extend_from_slice(args);
    let o = bin().args(&all).output().unwrap();
    assert!(o.status.success(), "{all:?}: {}", stderr(&o));
    rows_with_provenance(&out)
}

/// The rows of a score file, each joined with the run's provenance (output schema 3 writes it
/// once, beside the rows, as `OUT.provenance.json`) under `provenance`.
fn rows_with_provenance(out: &std::path::Path) -> Vec<Value> {
    let p = format!("{}.provenance.json", out.display());
    let prov: Value = serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
    let mut rows: Vec<Value> = std::fs::read_to_string(out).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    for r in &mut rows {
        assert_eq!(r["run"], factpico::provenance_hash(&prov).as_str(), "{r}");
        r["provenance"] = prov.clone();
    }
    rows
}


/// id -> golden row of `config`/`variant` (fixture rows).
fn golden(config: &str, variant: &str) -> HashMap<String, Value> {
    let g = goldens();
    let rows = g["configs"][config][variant]["fixtures"]
        .as_array()
        .unwrap_or_else(|| panic!("tests/goldens/minicheck.json has no {config}/{variant} fixture rows"));
    rows.iter().map(|r| (r["id"].as_str().unwrap().to_owned(), r.clone())).collect()
}

/// Compares `scores.minicheck` (and the label) of every scored row with `want(golden row)`;
/// returns how many rows were compared.
fn compare(rows: &[Value], gold: &HashMap<String, Value>, want: impl Fn(&Value) -> Option<f64>) -> usize {
    let mut n = 0;
    for r in rows {
        let id = r["id"].as_str().unwrap();
        let got = r["scores"]["minicheck"].as_f64();
        let Some(g) = gold.get(id) else { panic!("row {id} is not in the goldens") };
        match (got, want(g)) {
            (Some(x), Some(y)) => {
                assert!((x - y).abs() <= TOL, "{id}: factpico {x} vs reference {y}");
                assert_eq!(r["scores"]["minicheck_label"].as_f64(), Some(if x > 0.5 { 1.0 } else { 0.0 }), "{id}");
                n += 1;
            }
            // Empty / wordless summaries are nulled by the scorer before any metric runs.
            (None, _) => assert!(r["nulls"]["minicheck"].is_string(), "{id}: null without a reason: {r}"),
            (Some(x), None) => panic!("{id}: factpico {x}, the reference has no score"),
        }
    }
    n
}

#[test]
fn whole_claim_scores_equal_the_reference() {
    for variant in ["roberta-large", "deberta-v3-large", "flan-t5-large"] {
        let rows = score(&["--minicheck-model", &model(variant)]);
        let n = compare(&rows, &golden("default", variant), |g| g["whole"]["score"].as_f64());
        assert!(n >= 20, "{variant}: {n} rows compared");
        let p = &rows[0]["provenance"]["metrics"]["minicheck"];
        assert_eq!(p["checker"], variant, "{p}");
        assert_eq!(p["claim"], "whole");
        assert_eq!(rows[0]["provenance"]["options"]["minicheck"]["claim"], "whole");
        assert_eq!(p["model_sha256"].as_str().map(str::len), Some(64), "{p}");
        eprintln!("minicheck cli {variant}/whole: {n} rows equal the reference");
    }
}

#[test]
fn sentence_mode_aggregates_equal_the_reference() {
    let gold = golden("default", "roberta-large");
    for agg in ["min", "mean"] {
        let rows = score(&[
            "--minicheck-model",
            &model("roberta-large"),
            "--minicheck-claim",
            "sentences",
            "--minicheck-aggregation",
            agg,
        ]);
        let n = compare(&rows, &gold, |g| g["sentences"][agg].as_f64());
        assert!(n >= 20, "{agg}: {n} rows compared");
        // One claim per summary sentence in the detail.
        let fx01 = &rows[0];
        let want = gold["fx01"]["sentences"]["sentence_scores"].as_array().unwrap().len();
        assert_eq!(fx01["details"]["minicheck"]["claims"].as_array().unwrap().len(), want);
        eprintln!("minicheck cli roberta-large/sentences/{agg}: {n} rows equal the reference");
    }
}

/// The short configuration (chunks of 64 tokens, or 40 words for Flan-T5; 160-token inputs):
/// many chunks, claims cut — the reference's scores on every checker, and a warning on every
/// row whose inputs were cut.
#[test]
fn chunk_size_and_max_length_flags_match_the_reference_and_warn_about_truncation() {
    for (variant, chunk) in [("roberta-large", 64), ("deberta-v3-large", 64), ("flan-t5-large", 40)] {
        let chunk_s = chunk.to_string();
        let rows = score(&[
            "--minicheck-model",
            &model(variant),
            "--minicheck-chunk-size",
            &chunk_s,
            "--minicheck-max-length",
            "160",
        ]);
        let n = compare(&rows, &golden("short", variant), |g| g["whole"]["score"].as_f64());
        assert!(n >= 20, "{variant}: {n} rows compared");
        let warned: Vec<&Value> = rows
            .iter()
            .filter(|r| {
                r["warnings"].as_array().into_iter().flatten().any(|w| {
                    w["metric"] == "minicheck" && w["message"].as_str().unwrap().contains("cut to the model length")
                })
            })
            .collect();
        assert!(!warned.is_empty(), "{variant}: no truncation warning with 160-token inputs");
        for r in &rows {
            let cut = r["details"]["minicheck"]["warnings"].as_array().is_some_and(|w| !w.is_empty());
            assert_eq!(cut, warned.iter().any(|w| w["id"] == r["id"]), "{variant} {}: detail and row warnings disagree", r["id"]);
        }
        let p = &rows[0]["provenance"]["metrics"]["minicheck"];
        assert_eq!((p["chunk_size"].as_u64(), p["max_length"].as_u64()), (Some(chunk), Some(160)), "{p}");
        eprintln!("minicheck cli {variant}/short: {n} rows equal the reference, {} rows warn about cut inputs", warned.len());
    }
}

#[test]
fn explain_shows_the_best_chunk_per_summary_sentence() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("o.jsonl");
    let input = root().join("fixtures/pairs.jsonl");
    let o = bin()
        .args([
            "score",
            &s(&input),
            "-q",
            "-o",
            &s(&out),
            "--metrics",
            "minicheck",
            "--minicheck-model",
            &model("flan-t5-large"),
            "--minicheck-claim",
            "sentences",
            "--explain",
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let text = format!("{}{}", String::from_utf8_lossy(&o.stdout), stderr(&o));
    assert!(text.contains("flan-t5-large (per summary sentence, min over sentences)"), "{text}");
    assert!(text.contains("supported"), "{text}");
    // The evidence is quoted from the abstract (fx01 starts with "BACKGROUND.").
    assert!(text.contains("BACKGROUND"), "{text}");
}

#[test]
fn wrong_checker_and_missing_model_are_clear_errors() {
    let input = s(&root().join("fixtures/pairs.jsonl"));
    let o = bin()
        .args([
            "score",
            &input,
            "-q",
            "-o",
            "-",
            "--metrics",
            "minicheck",
            "--minicheck-model",
            &model("roberta-large"),
            "--minicheck-checker",
            "flan-t5-large",
        ])
        .output()
        .unwrap();
    assert!(!o.status.success());
    let e = stderr(&o);
    assert!(e.contains("--minicheck-checker flan-t5-large does not match") && e.contains("roberta-large checker"), "{e}");
    let o = bin()
        .args(["score", &input, "-q", "-o", "-", "--metrics", "minicheck", "--minicheck-model", "/nonexistent/minicheck"])
        .output()
        .unwrap();
    assert!(!o.status.success());
    let e = stderr(&o);
    assert!(e.contains("`/nonexistent/minicheck` does not exist (option --minicheck-model)"), "{e}");
    // The unit's flags without the metric: a warning, the run goes on.
    let o = bin()
        .args(["score", &input, "-o", "-", "--metrics", "rougeL", "--minicheck-claim", "sentences"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("warning: --minicheck-claim is ignored: it is used by --metrics minicheck (selected: rougeL)"),
        "{}",
        stderr(&o)
    );
}
