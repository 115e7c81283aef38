//! Times the QAFactEval-style preset (rule-based answers, BART QG with AllenNLP beam search,
//! extractive QA, consistency filter) on the first N real InfoLossQA pairs.
//!
//! `cargo run --release -p factpico-qa --example bench_qafacteval -- QG_DIR QA_DIR N THREADS`
//! (texts read from `$FACTPICO_SHARED`, default `../shared`). Prints one JSON line: wall and
//! CPU seconds, questions generated / kept, the decoder steps run by the beam search, rates.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use std::time::Instant;

use factpico_qa::{QaFactEval, QaFactEvalOptions};
use factpico_runtime::SessionOptions;
use serde_json::Value;

/// User + system CPU seconds of this process (`/proc/self/stat`, clock ticks of 1/100 s).
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks = |i: usize| f.get(i).and_then(|x| x.parse::<f64>().ok()).unwrap_or(f64::NAN);
    (ticks(11) + ticks(12)) / 100.0
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (qg, qa, n, threads) = (&args[1], &args[2], args[3].parse::<usize>().unwrap(), args[4].parse::<usize>().unwrap());
    let shared = std::env::var("FACTPICO_SHARED").unwrap_or_else(|_| "../shared".into());
    let docs: Vec<Value> = serde_json::from_str(
        &std::fs::read_to_string(format!("{shared}/data/infolossqa/processed/documents.json")).unwrap(),
    )
    .unwrap();
    let texts: Vec<(String, String)> = docs
        .iter()
        .take(n)
        .map(|d| (d["abstract"].as_str().unwrap().to_owned(), d["simplification"].as_str().unwrap().to_owned()))
        .collect();
    factpico_runtime::init_ort().unwrap();
    let mut o = QaFactEvalOptions::new(qg, qa);
    o.session = SessionOptions::default().intra_threads(threads);
    let qe = QaFactEval::try_new(o).unwrap();
    let pairs: Vec<(&str, &str)> = texts.iter().map(|(s, m)| (s.as_str(), m.as_str())).collect();
    let (t0, c0) = (Instant::now(), cpu_seconds());
    let out = qe.score_batch(&pairs).unwrap();
    let (secs, cpu) = (t0.elapsed().as_secs_f64(), cpu_seconds() - c0);
    let generated: usize = out.iter().map(|r| r.generated).sum();
    let kept: usize = out.iter().map(|r| r.kept).sum();
    let words: usize = out.iter().flat_map(|r| r.questions.iter()).map(|q| q.question.split_whitespace().count()).sum();
    println!(
        "{}",
        serde_json::json!({"pairs": n, "seconds": secs, "cpu_seconds": cpu, "questions_generated": generated,
            "questions_kept": kept, "mean_question_words": words as f64 / generated.max(1) as f64,
            "questions_per_s": generated as f64 / secs, "pairs_per_s": n as f64 / secs,
            "f1": out.iter().map(|r| r.f1).collect::<Vec<_>>()})
    );
}
