//! QuestEval end-to-end parity: the unmodified `questeval` 0.2.4 `corpus_questeval` with the
//! tiny T5 fixtures substituted for its hub models, `list_scores=('answerability', 'f1')`
//! (goldens: `tests/goldens/gen_qa_references.py`). The reference's spaCy answers are
//! replayed (stored as offsets), so this checks QG input formatting, tokenisation,
//! truncation, greedy generation, decoding/clean-up, answerability, F1 and composition.
//! |Δ| ≤ 1e-4 per pair. Also: the spaCy sidecar reproduces the reference's answers when it
//! is installed.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
mod qa_support;

use std::collections::HashMap;

use factpico_qa::{AnswerProvenance, Answers, QuestEval, QuestEvalOptions};
use factpico_runtime::SessionOptions;
use serde_json::Value;

use qa_support::answers;


fn scorer() -> QuestEval {
    factpico_runtime::init_ort().expect("ONNX Runtime (run `cargo xtask ort` or set ORT_DYLIB_PATH)");
    let root = common::workspace_root().join("fixtures/models");
    let mut o = QuestEvalOptions::new(root.join("t5-tiny-qg"), root.join("t5-tiny-qa"));
    o.session = SessionOptions::default().intra_threads(2);
    o.batch_size = 16;
    QuestEval::try_new(o).unwrap()
}

fn check(name: &str, rows: &[Value], pairs: &HashMap<String, common::Pair>, qe: &QuestEval) -> usize {
    let ans: Vec<(Answers, Answers)> = rows
        .iter()
        .map(|r| {
            let p = &pairs[r["id"].as_str().unwrap()];
            (answers(&p.source, &r["source"]), answers(&p.summary, &r["summary"]))
        })
        .collect();
    let items: Vec<(&str, &str, &Answers, &Answers)> = rows
        .iter()
        .zip(&ans)
        .map(|(r, (a, b))| {
            let p = &pairs[r["id"].as_str().unwrap()];
            (p.source.as_str(), p.summary.as_str(), a, b)
        })
        .collect();
    let out = qe.score_batch_with_answers(&items).unwrap();
    let mut max_d = 0.0f64;
    for (r, o) in rows.iter().zip(&out) {
        let want = r["score"].as_f64().unwrap();
        let d = (o.score - want).abs();
        max_d = max_d.max(d);
        assert!(d <= 1e-4, "{name}/{}: factpico {} vs questeval {want}", r["id"], o.score);
        assert!((0.0..=1.0).contains(&o.score));
        assert_eq!(o.metric, "questeval_f1");
    }
    eprintln!("qa_questeval {name}: compared {} pairs, max |Δ| = {max_d:.2e}", rows.len());
    rows.len()
}

#[test]
fn questeval_end_to_end_fixture_pairs() {
    let g = common::golden("qa_references.json");
    let pairs: HashMap<String, common::Pair> =
        common::fixture_pairs().into_iter().map(|p| (p.id.clone(), p)).collect();
    let qe = scorer();
    let n = check("fixture", g["questeval_fixture"].as_array().unwrap(), &pairs, &qe);
    assert!(n >= 12);
}

#[test]
fn questeval_end_to_end_real_pairs() {
    let g = common::golden("qa_references.json");
    let Some(real) = common::real_pairs("qa_questeval") else { return };
    let pairs: HashMap<String, common::Pair> = real.into_iter().map(|p| (p.id.clone(), p)).collect();
    let n = check("real", g["questeval_real"].as_array().unwrap(), &pairs, &scorer());
    assert!(n >= 50);
}

#[test]
fn questeval_edge_cases() {
    let qe = scorer();
    // Empty summary or source → 0, no questions for the empty side.
    let rows = qe.score_batch(&[("The drug worked in 40 patients.", ""), ("", "Aspirin helped.")]).unwrap();
    for r in &rows {
        assert_eq!(r.score, 0.0);
        assert!(r.questions.is_empty());
    }
    // No candidate answers on either side (rules find nothing) → both directions 0.
    let r = qe.score("it did not work at all.", "nothing changed here.").unwrap();
    assert_eq!((r.score, r.precision.questions, r.recall.questions), (0.0, 0, 0));
    assert_eq!(r.provenance.summary_answers, AnswerProvenance::Rules);
    // With answers: every question is recorded with spans and answerability in [0, 1].
    let r = qe.score("Researchers enrolled 240 adults in the FDA trial.", "The trial enrolled 240 adults.").unwrap();
    assert!(r.precision.questions > 0 && r.recall.questions > 0);
    for q in &r.questions {
        let a = q.answerability.unwrap();
        assert!((0.0..=1.0).contains(&a));
        assert!((0.0..=1.0).contains(&q.f1));
        assert!(q.answer_span.is_some());
    }
    assert!((0.0..=1.0).contains(&r.score));
    // A whitespace-only summary is not "empty" for QuestEval (`text == ''` is the test):
    // it has no answers (precision 0) but the source's questions are still asked on it.
    let r = qe.score("The trial enrolled 240 adults.", "  \n").unwrap();
    assert_eq!(r.precision.questions, 0);
    assert!(r.recall.questions > 0);
    assert!((r.score - r.recall.score / 2.0).abs() < 1e-12);
}

fn sidecar_python(test: &str) -> Option<std::path::PathBuf> {
    use factpico_nlp::sidecar::{default_venv_python, PYTHON_ENV};
    let p = std::env::var_os(PYTHON_ENV)
        .map(std::path::PathBuf::from)
        .or_else(|| default_venv_python().filter(|p| p.exists()));
    if p.is_none() {
        if common::shared_required() {
            panic!("{test}: no sidecar Python ({PYTHON_ENV} unset, no `cargo xtask sidecar` venv) and FACTPICO_REQUIRE_SHARED=1");
        }
        eprintln!("SKIP {test}: no sidecar Python; run `cargo xtask sidecar` or set {PYTHON_ENV}");
    }
    p
}

/// The spaCy sidecar (en_core_web_sm 3.8.0, the model the goldens used) reproduces the
/// reference's QuestEval answer selection: sentences by `split_on_punct`, `text5`,
/// entities then noun chunks.
#[test]
fn sidecar_answers_match_reference_selection() {
    use factpico_nlp::sidecar::{SidecarConfig, SpacySidecar};
    let test = "sidecar_answers_match_reference_selection";
    let Some(py) = sidecar_python(test) else { return };
    let g = common::golden("qa_references.json");
    let sel = factpico_qa::AnswerSelector::Spacy(std::sync::Arc::new(SpacySidecar::new(SidecarConfig {
        python: Some(py),
        ..SidecarConfig::default()
    })));
    let mut texts: Vec<(String, Value)> = Vec::new();
    let fx: HashMap<String, common::Pair> = common::fixture_pairs().into_iter().map(|p| (p.id.clone(), p)).collect();
    for r in g["questeval_fixture"].as_array().unwrap() {
        let p = &fx[r["id"].as_str().unwrap()];
        texts.push((p.source.clone(), r["source"].clone()));
        texts.push((p.summary.clone(), r["summary"].clone()));
    }
    if let Some(real) = common::real_pairs(test) {
        let real: HashMap<String, common::Pair> = real.into_iter().map(|p| (p.id.clone(), p)).collect();
        for r in g["questeval_real"].as_array().unwrap() {
            let p = &real[r["id"].as_str().unwrap()];
            texts.push((p.source.clone(), r["source"].clone()));
            texts.push((p.summary.clone(), r["summary"].clone()));
        }
    }
    let nonempty: Vec<&(String, Value)> = texts.iter().filter(|(t, _)| !t.is_empty()).collect();
    let refs: Vec<&str> = nonempty.iter().map(|(t, _)| t.as_str()).collect();
    let got = sel.questeval(&refs, 5).unwrap();
    for ((t, want), a) in nonempty.iter().zip(&got) {
        let exp = answers(t, want);
        let e: Vec<&str> = exp.candidates.iter().map(|c| c.text.as_str()).collect();
        let o: Vec<&str> = a.candidates.iter().map(|c| c.text.as_str()).collect();
        assert_eq!(o, e, "answers of text {:?}…", t.chars().take(40).collect::<String>());
        assert_eq!(a.sentences, exp.sentences);
        for c in &a.candidates {
            if let Some(s) = &c.span {
                assert_eq!(&t[s.clone()], c.text);
            }
        }
    }
    eprintln!("qa_questeval sidecar: compared the answers of {} texts", nonempty.len());
}
