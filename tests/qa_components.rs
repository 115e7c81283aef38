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

/// QAFactEval-style and cloze presets on the tiny fixtures: invariants the reference
/// defines (filter accounting, zero kept → 0, empty source → 0, ranges, spans).
#[test]
fn qafacteval_and_cloze_presets_on_fixtures() {
    use factpico_qa::{ClozeOptions, ClozeQa, QaFactEval, QaFactEvalOptions};
    factpico_runtime::init_ort().unwrap();
    let root = common::workspace_root().join("fixtures/models");
    let mut o = QaFactEvalOptions::new(root.join("bart-tiny"), root.join("qa-tiny"));
    o.session = SessionOptions::default().intra_threads(1);
    let qf = QaFactEval::try_new(o.clone()).unwrap();
    let pairs: Vec<common::Pair> = common::fixture_pairs();
    let inputs: Vec<(&str, &str)> = pairs.iter().map(|p| (p.source.as_str(), p.summary.as_str())).collect();
    let rows = qf.score_batch(&inputs).unwrap();
    let mut generated = 0;
    for (p, r) in pairs.iter().zip(&rows) {
        assert_eq!(r.generated, r.questions.len());
        assert_eq!(r.kept, r.questions.iter().filter(|q| q.consistent == Some(true)).count());
        for v in [r.f1, r.em, r.is_answered] {
            assert!((0.0..=1.0).contains(&v), "{}: {v}", p.id);
        }
        if r.kept == 0 {
            assert_eq!((r.f1, r.em, r.is_answered), (0.0, 0.0, 0.0), "{}: zero kept questions score 0", p.id);
        }
        if p.source.trim().is_empty() || p.summary.trim().is_empty() {
            assert_eq!(r.generated, 0);
        }
        for q in &r.questions {
            if let Some(s) = &q.answer_span {
                assert_eq!(&p.summary[s.clone()], q.answer);
            }
            if let Some(s) = &q.predicted_span {
                assert_eq!(&p.source[s.clone()], q.predicted);
            }
            // Filtered questions are not answered on the source.
            if q.consistent == Some(false) {
                assert!(q.answered.is_none());
            }
            assert!(q.question.contains(char::is_alphanumeric) || q.question.is_empty());
        }
        assert!(r.lerc_quip.is_none());
        generated += r.generated;
    }
    assert!(generated > 20, "the fixtures yield questions ({generated})");
    // Without the filter every generated question is scored.
    o.consistency_filter = false;
    let plain = QaFactEval::try_new(o).unwrap().score_batch(&inputs).unwrap();
    for r in &plain {
        assert_eq!(r.kept, r.generated);
    }
    // Empty source → all zero.
    let r = qf.score(" ", "Researchers studied 240 adults with asthma.").unwrap();
    assert_eq!((r.f1, r.em, r.generated), (0.0, 0.0, 0));

    let mut co = ClozeOptions::new(root.join("qa-tiny"));
    co.session = SessionOptions::default().intra_threads(1);
    let cloze = ClozeQa::try_new(co).unwrap().score_batch(&inputs).unwrap();
    let mut n = 0;
    for r in &cloze {
        assert!((0.0..=1.0).contains(&r.f1) && (0.0..=1.0).contains(&r.probability));
        for q in &r.questions {
            assert!(q.question.contains("[MASK]"));
        }
        n += r.questions.len();
    }
    assert!(n > 20);
    eprintln!("qa_components presets: {generated} QAFactEval questions, {n} cloze questions on {} fixture pairs", pairs.len());
}
