//! `factpico score` on the real InfoLossQA documents (../shared), as
//! `docs/cli.md` shows it. Skips with a visible message when ../shared is absent
//! (fails under FACTPICO_REQUIRE_SHARED=1).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

#[path = "../../../tests/common/mod.rs"]
mod common;

use std::process::Command;

#[test]
fn score_infolossqa_documents_json_array() {
    let Some(docs) = common::require_shared("score_infolossqa_documents_json_array", "data/infolossqa/documents.json") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("ilq.jsonl");
    let o = Command::new(env!("CARGO_BIN_EXE_factpico"))
        .args(["score", docs.to_str().unwrap(), "-o", out.to_str().unwrap(), "-q"])
        .args(["--id-field", "PMCID", "--source-field", "abstract", "--summary-field", "simplification"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let table = String::from_utf8(o.stdout).unwrap();
    assert!(table.contains("| (all) | 104 |"), "{table}");
    let rows: Vec<serde_json::Value> =
        std::fs::read_to_string(&out).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let src: Vec<serde_json::Value> = serde_json::from_str(&std::fs::read_to_string(&docs).unwrap()).unwrap();
    assert_eq!(rows.len(), src.len());
    for (r, d) in rows.iter().zip(&src) {
        assert_eq!(r["id"].as_str().unwrap(), d["PMCID"].to_string());
        assert!(r["scores"]["rougeL"].as_f64().unwrap() > 0.0);
        assert!(r["scores"]["delta_fkgl"].is_number());
    }
    // GPT-4 simplifications are easier to read than their abstracts on average.
    let mean_dfk = rows.iter().map(|r| r["scores"]["delta_fkgl"].as_f64().unwrap()).sum::<f64>() / rows.len() as f64;
    eprintln!("scored {} InfoLossQA documents; mean ΔFK {mean_dfk:.2}", rows.len());
    assert!(mean_dfk < 0.0);
}
