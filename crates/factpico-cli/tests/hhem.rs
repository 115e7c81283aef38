//! `factpico score --metrics hhem` through the binary, against the unmodified reference: the
//! fixture and extra rows score as the goldens of `modeling_hhem_v2.py`'s `predict`
//! (`tests/goldens/hhem.json`, written by `tests/goldens/gen_hhem.py`) on the tiny replica;
//! the row over the default 2048-token limit is that row's error and the others are scored
//! (with `--hhem-max-length 8192` it matches the reference too); `--explain` shows per-chunk
//! probabilities; `hhem` and `factcg` run together; bad options and a missing model are errors.
#![cfg(feature = "onnx")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::Value;

mod support;
use support::{bin, rows_with_provenance, stderr};

const TOL: f64 = 1e-4;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn s(p: &Path) -> String {
    p.to_str().unwrap().to_owned()
}

fn model() -> String {
    s(&root().join("fixtures/models/hhem-tiny"))
}

fn goldens() -> Value {
    serde_json::from_str(&std::fs::read_to_string(root().join("tests/goldens/hhem.json")).unwrap()).unwrap()
}

/// Writes the fixtures + the goldens' extra rows to a temporary input file.
fn input(dir: &Path) -> PathBuf {
    let input = dir.join("in.jsonl");
    let mut text = ["pairs.jsonl", "edge_cases.jsonl"]
        .iter()
        .map(|f| std::fs::read_to_string(root().join("fixtures").join(f)).unwrap())
        .collect::<String>();
    for r in goldens()["extra"].as_array().unwrap() {
        text.push_str(&format!("{r}\n"));
    }
    std::fs::write(&input, text).unwrap();
    input
}

fn score(args: &[&str]) -> (Vec<Value>, Output) {
    let dir = tempfile::tempdir().unwrap();
    let input = input(dir.path());
    let out = dir.path().join("out.jsonl");
    let m = model();
    let mut all = vec!["score", input.to_str().unwrap(), "-q", "-o", out.to_str().unwrap(), "--metrics", "hhem", "--hhem-model", &m];
    all.extend_from_slice(args);
    let o = bin().args(&all).output().unwrap();
    assert!(o.status.success(), "{all:?}: {}", stderr(&o));
    (rows_with_provenance(&out), o)
}

fn gold() -> HashMap<String, Value> {
    goldens()["rows"].as_array().unwrap().iter().map(|r| (r["id"].as_str().unwrap().to_owned(), r.clone())).collect()
}

#[test]
fn scores_equal_the_reference_and_long_rows_fail_alone() {
    let gold = gold();
    // The row over the default limit fails alone (`--on-error skip` records it and goes on;
    // the default `--on-error fail` stops there, tested below).
    for (limit, args) in [(2048, vec!["--on-error", "skip"]), (8192, vec!["--hhem-max-length", "8192"])] {
        let (rows, _) = score(&args);
        let (mut n, mut failed) = (0, 0);
        for r in &rows {
            let id = r["id"].as_str().unwrap();
            let g = &gold[id];
            match r["scores"]["hhem"].as_f64() {
                Some(x) => {
                    let y = g["score"].as_f64().unwrap();
                    assert!((x - y).abs() <= TOL, "{id}: factpico {x} vs reference {y}");
                    assert_eq!(r["scores"]["hhem_label"].as_f64(), Some(if x >= 0.5 { 1.0 } else { 0.0 }), "{id}");
                    n += 1;
                }
                None if g["n_tokens"].as_u64().unwrap() > limit => {
                    let err = r["errors"].to_string();
                    assert!(err.contains("is 2300 tokens, over the limit of 2048") && err.contains("chunked"), "{id}: {r}");
                    failed += 1;
                }
                // Scorer-level nulls (empty summaries) carry a reason.
                None => assert!(r["nulls"]["hhem"].is_string(), "{id}: null without a reason: {r}"),
            }
        }
        assert!(n >= 18, "{n} rows compared");
        assert_eq!(failed, usize::from(limit == 2048), "limit {limit}");
        let p = &rows[0]["provenance"]["metrics"]["hhem"];
        assert_eq!((p["premise"].as_str(), p["max_length"].as_u64()), (Some("whole"), Some(limit)), "{p}");
        eprintln!("hhem cli (limit {limit}): {n} rows equal the reference, {failed} refused");
    }
}

#[test]
fn explain_modes_and_errors() {
    let (rows, o) = score(&["--explain", "--hhem-premise", "chunked", "--hhem-chunk-tokens", "200", "--hhem-claim", "sentences"]);
    let text = format!("{}{}", String::from_utf8_lossy(&o.stdout), stderr(&o));
    assert!(text.contains("P(consistent) per chunk") && text.contains("abstract chunks"), "{text}");
    let long = rows.iter().find(|r| r["id"] == "x_long_premise").unwrap();
    assert!(long["scores"]["hhem"].as_f64().is_some(), "chunked, the long premise is scored: {long}");
    let dir = tempfile::tempdir().unwrap();
    let long = input(dir.path());
    let m = model();
    let o = bin().args(["score", &s(&long), "-q", "-o", "-", "--metrics", "hhem", "--hhem-model", &m]).output().unwrap();
    assert!(!o.status.success());
    assert!(stderr(&o).contains("(id x_long_premise): hhem: metric `hhem` failed: HHEM: the prompt with premise and hypothesis is 2300 tokens, over the limit of 2048 (raise max_length up to 8192, or use the chunked premise mode)"), "{}", stderr(&o));
    let input = s(&root().join("fixtures/pairs.jsonl"));
    let o = bin().args(["score", &input, "-q", "-o", "-", "--metrics", "hhem", "--hhem-model", &m, "--hhem-threshold", "1.5"]).output().unwrap();
    assert!(!o.status.success());
    assert!(stderr(&o).contains("threshold 1.5 is not in [0, 1]"), "{}", stderr(&o));
    let o = bin().args(["score", &input, "-q", "-o", "-", "--metrics", "hhem", "--hhem-model", "/nonexistent/hhem"]).output().unwrap();
    assert!(!o.status.success());
    assert!(stderr(&o).contains("`/nonexistent/hhem` does not exist (option --hhem-model)"), "{}", stderr(&o));
}

/// The acceptance command: both tiny fixtures, both columns written.
#[test]
fn hhem_and_factcg_together() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.jsonl");
    let o = bin()
        .args([
            "score",
            &s(&root().join("fixtures/pairs.jsonl")),
            "-q",
            "-o",
            out.to_str().unwrap(),
            "--metrics",
            "hhem,factcg",
            "--hhem-model",
            &model(),
            "--factcg-model",
            &s(&root().join("fixtures/models/factcg-deberta-v3-large-tiny")),
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let rows: Vec<Value> = std::fs::read_to_string(&out).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(rows.len(), 12);
    let gold = gold();
    for r in &rows {
        let h = r["scores"]["hhem"].as_f64().unwrap();
        assert!((h - gold[r["id"].as_str().unwrap()]["score"].as_f64().unwrap()).abs() <= TOL);
        assert!(r["scores"]["factcg"].as_f64().is_some(), "{r}");
    }
    let o = bin().args(["metrics"]).output().unwrap();
    let list = String::from_utf8_lossy(&o.stdout);
    assert!(list.contains("hhem") && list.contains("hhem_label"), "{list}");
}

/// Issue 23, class 2: under `--on-error fail` the row whose metric failed is not kept in the
/// partial output (only the rows before it are, as the message says), so `--resume` scores it
/// again instead of counting it done; a resume that meets the same failure stops there again.
#[test]
fn a_failed_row_is_not_kept_for_resume() {
    let dir = tempfile::tempdir().unwrap();
    let input = input(dir.path());
    let out = dir.path().join("out.jsonl");
    let partial = dir.path().join("out.jsonl.partial");
    let m = model();
    let args = ["score", input.to_str().unwrap(), "-q", "-o", out.to_str().unwrap(), "--metrics", "hhem", "--hhem-model", &m];
    let before = std::fs::read_to_string(&input).unwrap().lines().position(|l| l.contains("\"x_long_premise\"")).unwrap();
    for resume in [false, true] {
        let mut all = args.to_vec();
        if resume {
            all.push("--resume");
        }
        let o = bin().args(&all).output().unwrap();
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        assert!(stderr(&o).contains(&format!("the {before} rows before it are kept in")), "{}", stderr(&o));
        let kept: Vec<Value> = std::fs::read_to_string(&partial).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        assert_eq!(kept.len(), before, "resume {resume}");
        assert!(kept.iter().all(|r| r["id"] != "x_long_premise" && r.get("errors").is_none()), "resume {resume}");
        assert!(!out.exists());
    }
}
