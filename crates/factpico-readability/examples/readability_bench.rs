//! Times FKGL + FRE over a list of texts for both textstat families.
//!
//! ```text
//! /work/venvs/textstat073/bin/python crates/factpico-readability/tools/bench.py --dump /tmp/readability_texts.json
//! cargo run --release -p factpico-readability --example readability_bench -- /tmp/readability_texts.json
//! ```
//! The input is a JSON array of strings (the bench tool writes the 600 corpus texts; they stay
//! outside the repository). Prints the one-off dictionary load time and the best / median
//! wall time of one pass over all texts (20 passes, or the optional second argument).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use factpico_readability::{Readability, ReadabilityOptions, TextstatFamily};
use std::time::{Duration, Instant};

fn main() {
    let path = std::env::args().nth(1).expect("usage: readability_bench <texts.json>");
    let texts: Vec<String> = serde_json::from_str(&std::fs::read_to_string(&path).expect("read texts")).expect("JSON array of strings");
    let passes: usize = std::env::args().nth(2).map_or(20, |p| p.parse().expect("passes: a number"));
    let words: usize = texts.iter().map(|t| t.split_whitespace().count()).sum();
    println!("{} texts, {words} whitespace tokens", texts.len());
    for family in [TextstatFamily::Textstat073, TextstatFamily::Textstat078Cmudict] {
        let t0 = Instant::now();
        let r = Readability::new(ReadabilityOptions { family });
        let load = t0.elapsed();
        let mut times: Vec<Duration> = Vec::new();
        let mut checksum = 0.0;
        for _ in 0..passes {
            let t = Instant::now();
            for text in &texts {
                let s = r.analyze(text);
                checksum += s.fkgl + s.fre;
            }
            times.push(t.elapsed());
        }
        times.sort();
        println!(
            "{family}: load {:.1} ms; one pass over all texts: best {:.2} ms, median {:.2} ms (checksum {checksum:.3})",
            load.as_secs_f64() * 1e3,
            times[0].as_secs_f64() * 1e3,
            times[times.len() / 2].as_secs_f64() * 1e3
        );
    }
}
