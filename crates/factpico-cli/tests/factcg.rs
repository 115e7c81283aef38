//! `factpico score --metrics factcg` through the binary, against the unmodified reference:
//! the fixture and extra rows score as the goldens of `derenlei/FactCG`'s `Inferencer`
//! (`tests/goldens/factcg.json`, written by `tests/goldens/gen_factcg.py`) on the tiny replica;
//! the document without tokens (the reference fails) is a null with a reason, the input cut at 2048 tokens a row
//! warning; `--explain` shows per-chunk probabilities (the reference's empty first chunk
//! named); `--factcg-threshold` moves the label; bad options and a missing model are errors.
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
    s(&root().join("fixtures/models/factcg-deberta-v3-large-tiny"))
}

fn goldens() -> Value {
    serde_json::from_str(&std::fs::read_to_string(root().join("tests/goldens/factcg.json")).unwrap()).unwrap()
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
    let mut all = vec!["score", input.to_str().unwrap(), "-q", "-o", out.to_str().unwrap(), "--metrics", "factcg", "--factcg-model", &m];
    all.extend_from_slice(args);
    let o = bin().args(&all).output().unwrap();
    assert!(o.status.success(), "{all:?}: {}", stderr(&o));
    (rows_with_provenance(&out), o)
}

#[test]
fn scores_equal_the_reference_with_nulls_and_warnings() {
    let gold: HashMap<String, Value> =
        goldens()["rows"].as_array().unwrap().iter().map(|r| (r["id"].as_str().unwrap().to_owned(), r.clone())).collect();
    let (rows, _) = score(&[]);
    let mut n = 0;
    for r in &rows {
        let id = r["id"].as_str().unwrap();
        let want = gold[id]["whole"]["score"].as_f64();
        match (r["scores"]["factcg"].as_f64(), want) {
            (Some(x), Some(y)) => {
                assert!((x - y).abs() <= TOL, "{id}: factpico {x} vs reference {y}");
                assert_eq!(r["scores"]["factcg_label"].as_f64(), Some(if x > 0.5 { 1.0 } else { 0.0 }), "{id}");
                n += 1;
            }
            // Scorer-level nulls (empty summaries) and the reference's failure (no chunk).
            (None, _) => assert!(r["nulls"]["factcg"].is_string(), "{id}: null without a reason: {r}"),
            (Some(x), None) => panic!("{id}: factpico {x}, the reference has no score"),
        }
    }
    assert!(n >= 20, "{n} rows compared");
    // The reference fails on it; the scorer nulls a wordless source before the metric runs
    // (the crate's own null, `NoChunk`, is tested in crates/factpico-factcg/tests/parity.rs).
    let tokenless = rows.iter().find(|r| r["id"] == "x_tokenless_doc").unwrap();
    assert!(tokenless["scores"]["factcg"].is_null() && tokenless["nulls"]["factcg"].is_string(), "{tokenless}");
    let cut = rows.iter().find(|r| r["id"] == "x_template_cut").unwrap();
    assert!(
        cut["warnings"].as_array().unwrap().iter().any(|w| w["metric"] == "factcg" && w["message"].as_str().unwrap().contains("cut from the end")),
        "{cut}"
    );
    let p = &rows[0]["provenance"]["metrics"]["factcg"];
    assert_eq!((p["claim"].as_str(), p["threshold"].as_f64(), p["chunk_size"].as_u64()), (Some("whole"), Some(0.5), Some(550)), "{p}");
    eprintln!("factcg cli: {n} rows equal the reference");
}

#[test]
fn explain_threshold_and_errors() {
    let (rows, o) = score(&["--explain", "--factcg-threshold", "0.95"]);
    let text = format!("{}{}", String::from_utf8_lossy(&o.stdout), stderr(&o));
    assert!(text.contains("P(supported) per chunk"), "{text}");
    assert!(text.contains("empty chunk"), "the over-long first sentence's empty chunk is not shown: {text}");
    for r in &rows {
        if let Some(x) = r["scores"]["factcg"].as_f64() {
            assert_eq!(r["scores"]["factcg_label"].as_f64(), Some(if x > 0.95 { 1.0 } else { 0.0 }), "{}", r["id"]);
        }
    }
    let input = s(&root().join("fixtures/pairs.jsonl"));
    let m = model();
    let o = bin().args(["score", &input, "-q", "-o", "-", "--metrics", "factcg", "--factcg-model", &m, "--factcg-threshold", "1.5"]).output().unwrap();
    assert!(!o.status.success());
    assert!(stderr(&o).contains("threshold 1.5 is not in [0, 1]"), "{}", stderr(&o));
    let o = bin().args(["score", &input, "-q", "-o", "-", "--metrics", "factcg", "--factcg-model", "/nonexistent/factcg"]).output().unwrap();
    assert!(!o.status.success());
    assert!(stderr(&o).contains("`/nonexistent/factcg` does not exist (option --factcg-model)"), "{}", stderr(&o));
}
