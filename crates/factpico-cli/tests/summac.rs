//! `factpico score --metrics summac_zs,summac_conv` through the binary: the fixtures with the
//! tiny ALBERT NLI fixture, and the real InfoLossQA documents with the shared MiniLM NLI
//! model, each compared with the unmodified reference's goldens (`tests/goldens/summac.json`,
//! |Δ| ≤ 1e-4); the cut warnings, `--summac-cuts lifted`, flags of unselected metrics.
#![cfg(feature = "onnx")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

#[path = "../../../tests/common/mod.rs"]
mod common;

use std::collections::HashMap;
use std::path::PathBuf;
use std::process::{Command, Output};

use serde_json::Value;

fn root() -> PathBuf {
    common::workspace_root()
}

fn s(p: &std::path::Path) -> String {
    p.to_str().unwrap().to_owned()
}

fn score(input: &str, out: &std::path::Path, extra: &[&str]) -> Output {
    let o = Command::new(env!("CARGO_BIN_EXE_factpico"))
        .current_dir(out.parent().unwrap())
        .args(["score", input, "-q", "-o", out.to_str().unwrap()])
        .args(extra)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    o
}

fn rows(out: &std::path::Path) -> Vec<Value> {
    rows_with_provenance(out)
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


/// A row's warnings (the key is absent when there are none).
fn warnings(r: &Value) -> Vec<Value> {
    r.get("warnings").map_or_else(Vec::new, |w| w.as_array().unwrap().clone())
}

/// Golden rows of a call, by id.
fn golden(call: &str) -> HashMap<String, Value> {
    let g = common::golden("summac.json");
    let c = g["calls"].as_array().unwrap().iter().find(|c| c["name"] == call).unwrap();
    c["rows"].as_array().unwrap().iter().map(|r| (r["id"].as_str().unwrap().to_owned(), r.clone())).collect()
}

/// Compares the rows' two columns with the golden (`id_prefix` + row id); returns (n, max |Δ|).
fn compare(rows: &[Value], gold: &HashMap<String, Value>, id_prefix: &str) -> (usize, f64) {
    let mut max = 0.0f64;
    for r in rows {
        let id = format!("{id_prefix}{}", r["id"].as_str().unwrap());
        let g = &gold[&id];
        for (col, key) in [("summac_zs", "zs"), ("summac_conv", "conv_perc_e")] {
            let got = r["scores"][col].as_f64().unwrap_or_else(|| panic!("{id}: no {col}: {r}"));
            let d = (got - g[key].as_f64().unwrap()).abs();
            assert!(d <= 1e-4, "{id} {col}: {got} vs reference {}", g[key]);
            max = max.max(d);
        }
    }
    (rows.len(), max)
}

#[test]
fn summac_on_the_fixtures_matches_the_reference() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("s.jsonl");
    let model = root().join("fixtures/models/summac-albert-tiny");
    let conv = root().join("fixtures/models/summac-conv-tiny/perc-e.json");
    let o = score(
        &s(&root().join("fixtures/pairs.jsonl")),
        &out,
        &["--metrics", "summac_zs,summac_conv", "--summac-model", &s(&model), "--summac-conv-weights", &s(&conv), "--explain"],
    );
    let rows = rows(&out);
    let (n, max) = compare(&rows, &golden("own_albert_tiny"), "");
    eprintln!("fixtures through the CLI: {n} rows x 2 columns, max |Δ| vs reference {max:.2e}");
    assert_eq!(n, 12);
    let p = &rows[0]["provenance"];
    assert_eq!(p["options"]["summac"]["cuts"], "reference");
    assert_eq!(p["metrics"]["summac_zs"]["granularity"], "sentence");
    assert_eq!(p["metrics"]["summac_conv"]["conv"]["bins"], "percentile");
    assert!(p["metrics"]["summac_zs"]["model_sha256"].as_str().unwrap().len() == 64);
    let explain = String::from_utf8_lossy(&o.stdout);
    assert!(explain.contains("SummaC-ZS: summary sentences") && explain.contains("SummaC-Conv"), "{explain}");
}

#[test]
fn summac_on_the_real_infolossqa_documents_with_minilm() {
    let test = "summac_on_the_real_infolossqa_documents_with_minilm";
    let Some(docs) = common::require_shared(test, "data/infolossqa/processed/documents.json") else { return };
    let Some(minilm) = common::require_shared(test, "models/minilm-nli") else { return };
    // The reference scored the first N processed documents with MiniLM (the golden's rows):
    // score exactly those, as a JSON array in the documents' own field names.
    let gold = golden("real_minilm");
    let all: Vec<Value> = serde_json::from_str(&std::fs::read_to_string(&docs).unwrap()).unwrap();
    let first: Vec<&Value> = all.iter().take(gold.len()).collect();
    let pmcid = |d: &Value| d["PMCID"].as_str().map_or_else(|| d["PMCID"].to_string(), str::to_owned);
    assert!(first.iter().all(|d| gold.contains_key(&format!("ilq:{}", pmcid(d)))), "the golden's rows are the first documents");
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("ilq.json");
    std::fs::write(&input, serde_json::to_string(&first).unwrap()).unwrap();
    let out = dir.path().join("ilq.jsonl");
    let conv = root().join("fixtures/models/summac-conv-tiny/perc-e.json");
    score(
        &s(&input),
        &out,
        &[
            "--id-field", "PMCID", "--source-field", "abstract", "--summary-field", "simplification",
            "--metrics", "summac_zs,summac_conv", "--summac-model", &s(&minilm), "--summac-conv-weights", &s(&conv),
        ],
    );
    let rows = rows(&out);
    let (n, max) = compare(&rows, &gold, "ilq:");
    let cut = rows
        .iter()
        .filter(|r| warnings(r).iter().any(|w| w["message"].as_str().unwrap_or_default().contains("SummaC-Conv used the first 10")))
        .count();
    let mean = rows.iter().map(|r| r["scores"]["summac_zs"].as_f64().unwrap()).sum::<f64>() / n as f64;
    eprintln!(
        "InfoLossQA documents with MiniLM NLI: {n} rows x 2 columns, max |Δ| vs reference {max:.2e}; mean SummaC-ZS \
         {mean:.3}; {cut} rows warn that Conv used only the first 10 of their summary sentences"
    );
    assert_eq!(n, gold.len());
    assert!(n >= 10);
    assert!(cut > 0, "GPT-4 simplifications often have more than 10 sentences");
}

#[test]
fn lifted_cuts_and_ignored_flags() {
    let dir = tempfile::tempdir().unwrap();
    let model = root().join("fixtures/models/summac-albert-tiny");
    let input = dir.path().join("in.jsonl");
    let summary = (1..=12).map(|i| format!("Sentence number {i} says the drug helped.")).collect::<Vec<_>>().join(" ");
    let doc = "The trial enrolled 120 adults with asthma. The drug reduced attacks. It works.";
    std::fs::write(&input, serde_json::json!({"id": "a", "source": doc, "summary": summary}).to_string() + "\n").unwrap();
    let (out_r, out_l) = (dir.path().join("r.jsonl"), dir.path().join("l.jsonl"));
    let conv = root().join("fixtures/models/summac-conv-tiny/perc-e.json");
    let base = ["--metrics", "summac_conv", "--summac-model", model.to_str().unwrap(), "--summac-conv-weights", conv.to_str().unwrap()];
    score(&s(&input), &out_r, &base);
    score(&s(&input), &out_l, &[&base[..], &["--summac-cuts", "lifted"]].concat());
    let (r, l) = (&rows(&out_r)[0], &rows(&out_l)[0]);
    let msgs = |r: &Value| warnings(r).iter().map(|w| w["message"].as_str().unwrap().to_owned()).collect::<Vec<_>>();
    assert!(msgs(r).iter().any(|m| m.contains("first 10 of 12")), "{:?}", msgs(r));
    assert!(msgs(r).iter().any(|m| m.contains("characters or fewer")), "'It works.' is dropped: {:?}", msgs(r));
    assert!(msgs(l).is_empty(), "{:?}", msgs(l));
    assert_ne!(r["scores"]["summac_conv"], l["scores"]["summac_conv"]);
    assert_eq!(l["provenance"]["options"]["summac"]["cuts"], "lifted");
    // A Conv-only flag with only summac_zs selected warns that it does nothing (not under -q).
    let o = Command::new(env!("CARGO_BIN_EXE_factpico"))
        .args(["score", &s(&input), "-o", &s(&dir.path().join("z.jsonl")), "--metrics", "summac_zs"])
        .args(["--summac-model", model.to_str().unwrap(), "--summac-conv-weights", conv.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(e.contains("--summac-conv-weights is ignored: it is used by --metrics summac_conv"), "{e}");
}
