//! Times FKGL + FRE over a list of texts for both textstat families.
//!
//! ```text
//! $TEXTSTAT073/bin/python crates/factpico-readability/tools/bench.py --dump /tmp/readability_texts.json
//! cargo run --release -p factpico-readability --example readability_bench -- /tmp/readability_texts.json
//! ```
//! The input is a JSON array of strings (the bench tool writes the 600 corpus texts; they stay
//! outside the repository). Prints the one-off dictionary load time, the best / median
//! wall time and the median thread CPU time of one pass over all texts (20 passes, or the optional second argument).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use factpico_readability::{Readability, ReadabilityOptions, TextstatFamily};
use std::time::{Duration, Instant};

/// CPU time of this thread in ns from Linux `/proc/thread-self/schedstat` (None elsewhere):
/// on a shared machine it is a steadier figure than wall time.
fn cpu_ns() -> Option<u64> {
    std::fs::read_to_string("/proc/thread-self/schedstat").ok()?.split_whitespace().next()?.parse().ok()
}

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
        let mut cpu: Vec<u64> = Vec::new();
        let mut checksum = 0.0;
        for _ in 0..passes {
            let (t, c) = (Instant::now(), cpu_ns());
            for text in &texts {
                let s = r.analyze(text);
                checksum += s.fkgl + s.fre;
            }
            times.push(t.elapsed());
            if let (Some(c0), Some(c1)) = (c, cpu_ns()) {
                cpu.push(c1 - c0);
            }
        }
        times.sort();
        cpu.sort_unstable();
        let cpu_median = cpu.get(cpu.len() / 2).map_or("n/a".to_owned(), |&ns| format!("{:.2} ms", ns as f64 / 1e6));
        println!(
            "{family}: load {:.1} ms; one pass over all texts: wall best {:.2} ms, median {:.2} ms; CPU median {cpu_median} (checksum {checksum:.3})",
            load.as_secs_f64() * 1e3,
            times[0].as_secs_f64() * 1e3,
            times[times.len() / 2].as_secs_f64() * 1e3
        );
    }
}
