//! QA metric components against the reference functions (goldens from
//! `tests/goldens/gen_qa_references.py`):
//! * SQuAD normalisation / F1 / EM vs QuestEval `calculate_f1_squad` and transformers
//!   `squad_metrics.compute_f1` / `compute_exact`;
//! * extractive QA (SQuAD v2 windows + `compute_predictions_logits_with_null`) vs QAEval
//!   0.1.0 `QuestionAnsweringModel.answer_all` on the tiny ELECTRA fixture;
//! * edge cases the references cannot run (empty question / context).
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::collections::HashMap;

use factpico_qa::squad::{exact_match, normalize_answer, token_f1};
use factpico_runtime::extractive_qa::ExtractiveQaModel;
use factpico_runtime::SessionOptions;

fn sha256(s: &str) -> String {
    use sha2::Digest;
    hex::encode(sha2::Sha256::digest(s.as_bytes()))
}

fn qa_model() -> ExtractiveQaModel {
    factpico_runtime::init_ort().expect("ONNX Runtime (run `cargo xtask ort` or set ORT_DYLIB_PATH)");
    ExtractiveQaModel::load(
        common::workspace_root().join("fixtures/models/qa-tiny"),
        &SessionOptions::default().intra_threads(1),
    )
    .unwrap()
}

#[test]
fn squad_f1_em_match_references() {
    let g = common::golden("qa_references.json");
    let rows = g["f1"].as_array().unwrap();
    for r in rows {
        let (gold, pred) = (r["gold"].as_str().unwrap(), r["pred"].as_str().unwrap());
        assert_eq!(normalize_answer(gold), r["normalized"].as_str().unwrap(), "normalize({gold:?})");
        let f = token_f1(gold, pred);
        assert!((f - r["squad_f1"].as_f64().unwrap()).abs() < 1e-12, "{gold:?}/{pred:?}: {f}");
        assert!((f - r["questeval_f1"].as_f64().unwrap()).abs() < 1e-12, "{gold:?}/{pred:?}: {f}");
        assert!((token_f1(pred, gold) - f).abs() < 1e-12, "symmetry");
        assert_eq!(exact_match(gold, pred), r["squad_em"].as_f64().unwrap(), "{gold:?}/{pred:?}");
    }
    eprintln!("qa_components f1: compared {} answer pairs", rows.len());
}

#[test]
fn extractive_qa_matches_qaeval() {
    let g = common::golden("qa_references.json");
    let rows = g["qaeval_answering"]["rows"].as_array().unwrap();
    let real: Option<HashMap<String, common::Pair>> = common::real_pairs("qa_components")
        .map(|ps| ps.into_iter().map(|p| (p.id.clone(), p)).collect());
    let mut inputs: Vec<(String, String, usize)> = Vec::new();
    for (i, r) in rows.iter().enumerate() {
        let q = r["question"].as_str().unwrap().to_owned();
        if r["kind"] == "fixture" {
            inputs.push((q, r["context"].as_str().unwrap().to_owned(), i));
        } else if let Some(real) = &real {
            let p = &real[r["pair"].as_str().unwrap()];
            let c = if r["side"] == "source" { &p.source } else { &p.summary };
            inputs.push((q, c.clone(), i));
        }
    }
    let m = qa_model();
    let pairs: Vec<(&str, &str)> = inputs.iter().map(|(q, c, _)| (q.as_str(), c.as_str())).collect();
    for bs in [3, 32] {
        let preds = m.answer(&pairs, bs).unwrap();
        for ((_, c, i), p) in inputs.iter().zip(&preds) {
            let r = &rows[*i];
            if r["kind"] == "fixture" {
                assert_eq!(p.text, r["prediction"].as_str().unwrap(), "row {i}");
            } else {
                assert_eq!(sha256(&p.text), r["prediction_sha256"].as_str().unwrap(), "row {i} ({})", r["pair"]);
            }
            assert!((p.probability - r["probability"].as_f64().unwrap()).abs() < 1e-4, "row {i}: prob {} vs {}", p.probability, r["probability"]);
            assert!(
                (p.null_probability - r["null_probability"].as_f64().unwrap()).abs() < 1e-4,
                "row {i}: null prob {} vs {}",
                p.null_probability,
                r["null_probability"]
            );
            if let Some((a, b)) = p.span {
                assert_eq!(&c[a..b], p.text, "row {i}: span");
            }
        }
    }
    eprintln!("qa_components extractive: compared {} (question, context) pairs × 2 batch sizes", inputs.len());
}

#[test]
fn extractive_qa_edge_cases() {
    let m = qa_model();
    // Empty and whitespace-only contexts: no window; the reference's own fallback applies
    // (n-best = ["empty", ""], both logits 0 → 0.5 / 0.5, unanswered).
    let out = m.answer(&[("What?", ""), ("What?", " \n\t"), ("", "The drug worked.")], 4).unwrap();
    for p in &out[..2] {
        assert_eq!(p.text, "empty");
        assert_eq!((p.probability, p.null_probability), (0.5, 0.5));
        assert!(!p.is_answered());
        assert_eq!(p.span, None);
    }
    // Empty question: answered like any other (the reference raises).
    assert!(!out[2].n_best.is_empty());
    let total: f64 = out[2].n_best.iter().map(|e| e.probability).sum();
    assert!((total - 1.0).abs() < 1e-9);
    assert!(m.answer(&[("q", "c")], 0).is_err());
}
