//! Times QuestEval (questeval_f1) on pairs with replayed reference answers.
//!
//! `cargo run --release -p factpico-qa --example bench_questeval -- MODEL_DIR PAIRS_JSON THREADS`
//! where PAIRS_JSON is `gen_qa_bench.py reference`'s `pairs.json` (pair ids and the
//! reference's answers as offsets); the texts are read from ../shared. Prints one JSON line.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use std::time::Instant;

use factpico_qa::{AnswerCandidate, AnswerKind, AnswerProvenance, Answers, QuestEval, QuestEvalOptions};
use factpico_runtime::SessionOptions;
use serde_json::Value;

fn cp(text: &str) -> Vec<usize> {
    let mut v: Vec<usize> = text.char_indices().map(|(i, _)| i).collect();
    v.push(text.len());
    v
}

fn answers(text: &str, g: &Value) -> Answers {
    let c = cp(text);
    let sentences: Vec<std::ops::Range<usize>> = g["sentences"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| c[s[0].as_u64().unwrap() as usize]..c[s[1].as_u64().unwrap() as usize])
        .collect();
    let t5 = sentences.iter().map(|r| &text[r.clone()]).collect::<Vec<_>>().join(" ");
    let c5 = cp(&t5);
    let mut candidates = Vec::new();
    for (key, kind) in [("ner", AnswerKind::Entity(String::new())), ("noun", AnswerKind::NounChunk)] {
        for a in g[key].as_array().unwrap() {
            let s = t5[c5[a[0].as_u64().unwrap() as usize]..c5[a[1].as_u64().unwrap() as usize]].to_owned();
            candidates.push(AnswerCandidate { text: s, span: None, sentence: 0..0, kind: kind.clone() });
        }
    }
    Answers { candidates, sentences, provenance: AnswerProvenance::Provided }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (model, pairs_json, threads) = (&args[1], &args[2], args[3].parse::<usize>().unwrap());
    let rows: Vec<Value> = serde_json::from_str(&std::fs::read_to_string(pairs_json).unwrap()).unwrap();
    let shared = std::env::var("FACTPICO_SHARED").unwrap_or_else(|_| "../shared".into());
    let docs: Vec<Value> = serde_json::from_str(
        &std::fs::read_to_string(format!("{shared}/data/infolossqa/processed/documents.json")).unwrap(),
    )
    .unwrap();
    let text = |id: &str| -> (String, String) {
        let d = docs.iter().find(|d| format!("ilq:{}", d["PMCID"]) == id).unwrap();
        (d["abstract"].as_str().unwrap().to_owned(), d["simplification"].as_str().unwrap().to_owned())
    };
    let texts: Vec<(String, String)> = rows.iter().map(|r| text(r["id"].as_str().unwrap())).collect();
    let ans: Vec<(Answers, Answers)> =
        rows.iter().zip(&texts).map(|(r, (s, m))| (answers(s, &r["source"]), answers(m, &r["summary"]))).collect();
    factpico_runtime::init_ort().unwrap();
    let mut o = QuestEvalOptions::new(model, model);
    o.session = SessionOptions::default().intra_threads(threads);
    o.batch_size = 8;
    let qe = QuestEval::try_new(o).unwrap();
    let items: Vec<(&str, &str, &Answers, &Answers)> =
        texts.iter().zip(&ans).map(|((s, m), (a, b))| (s.as_str(), m.as_str(), a, b)).collect();
    let t0 = Instant::now();
    let out = qe.score_batch_with_answers(&items).unwrap();
    let secs = t0.elapsed().as_secs_f64();
    let questions: usize = out.iter().map(|r| r.precision.questions + r.recall.questions).sum();
    let scores: Vec<f64> = out.iter().map(|r| r.score).collect();
    println!(
        "{}",
        serde_json::json!({"pairs": rows.len(), "seconds": secs, "questions": questions,
            "questions_per_s": questions as f64 / secs, "pairs_per_s": rows.len() as f64 / secs, "scores": scores})
    );
}
