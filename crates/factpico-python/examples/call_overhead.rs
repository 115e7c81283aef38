//! The Rust side of the binding-overhead benchmark (`cargo xtask bench python`): the cost of
//! one call of the Rust APIs the Python package wraps, on the same tiny inputs as
//! `bench/bench.py`'s Python side. Prints one JSON object of nanoseconds per call.
//!
//! ```sh
//! cargo run --release -p factpico-python --example call_overhead
//! ```
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::hint::black_box;
use std::time::Instant;

const TARGET: &str = "The drug lowered blood pressure in adults.";
const PREDICTION: &str = "Blood pressure fell in adults.";

/// Best of 5 runs of `n` calls, in ns per call.
fn ns_per_call(n: u32, mut f: impl FnMut()) -> f64 {
    let mut best = f64::INFINITY;
    for _ in 0..5 {
        let t = Instant::now();
        for _ in 0..n {
            f();
        }
        best = best.min(t.elapsed().as_nanos() as f64 / f64::from(n));
    }
    best
}

fn main() {
    let rouge = factpico_rouge::RougeVariants::new(&["rougeL"], true).unwrap();
    let readability = factpico_readability::Readability::default();
    let options = factpico::ScorerOptions { metrics: vec!["rougeL".into()], sentence_spans: false, ..Default::default() };
    let scorer = factpico::Scorer::try_new(options).unwrap();
    let pair = [factpico::Pair::new("row-1", TARGET, PREDICTION)];
    let out = serde_json::json!({
        "rouge_score": ns_per_call(200_000, || { black_box(rouge.score(black_box(TARGET), black_box(PREDICTION))); }),
        "flesch_kincaid_grade": ns_per_call(200_000, || { black_box(readability.flesch_kincaid_grade(black_box(TARGET))); }),
        // Scorer.score of one pair, up to the JSON text the binding hands to Python.
        "scorer_score_1_pair": ns_per_call(50_000, || {
            let r = scorer.score_pairs(black_box(&pair));
            black_box(serde_json::to_string(&r).unwrap());
        }),
    });
    println!("{out}");
}
