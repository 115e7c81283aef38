//! Peak memory of ROUGE-L/Lsum on one single-line pair of N words each (the Lsum table has
//! (N+1)² cells): `cargo run --release -p factpico-rouge --example lsum_memory -- N`, run
//! under `/usr/bin/time -v` (maximum resident set size). Used to choose and document
//! `LSUM_MAX_CELLS`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

fn main() {
    let n: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(1000);
    let bounded = std::env::args().nth(2).is_some_and(|a| a == "bounded");
    let vocab: Vec<String> = (0..40).map(|i| format!("word{i}")).collect();
    let text = |seed: usize| (0..n).map(|i| vocab[(i * 7 + seed) % vocab.len()].as_str()).collect::<Vec<_>>().join(" ");
    let (t, p) = (text(0), text(3));
    let scorer = factpico_rouge::RougeL::new(factpico_rouge::RougeOptions::default());
    let start = std::time::Instant::now();
    if bounded {
        let s = scorer.score_bounded(&t, &p, factpico_rouge::LSUM_MAX_CELLS);
        println!("n={n} rougeL={} rougeLsum={:?} {:.2}s", s.rouge_l.fmeasure, s.rouge_lsum.map(|x| x.fmeasure), start.elapsed().as_secs_f64());
    } else {
        let s = scorer.score(&t, &p);
        println!("n={n} rougeL={} rougeLsum={} {:.2}s", s.rouge_l.fmeasure, s.rouge_lsum.fmeasure, start.elapsed().as_secs_f64());
    }
}
