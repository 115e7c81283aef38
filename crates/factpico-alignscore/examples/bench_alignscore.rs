//! Timing harness used by `cargo xtask bench alignscore` (run it in release):
//!
//! ```text
//! cargo run --release -p factpico-alignscore --example bench_alignscore -- \
//!     MODEL_DIR PAIRS_JSON [--threads 2] [--batch-size 8] [--max-length N] [--words-per-chunk N]
//!     [--cpu-mem-arena 0|1] [--pairs N (first N only)]
//! ```
//!
//! `PAIRS_JSON` is `[[id, context, claim], ...]`. Prints one JSON object: total scoring
//! seconds (model load excluded), pairs/s, seconds inside `Session::run` (raw ONNX Runtime
//! forward on the same tensors), pipeline overhead, peak RSS (VmHWM) and the scores.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use std::time::Instant;

use factpico_alignscore::{AlignScore, AlignScoreOptions};

fn peak_rss_mb() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1).and_then(|v| v.parse::<f64>().ok()))
        })
        .map_or(f64::NAN, |kb| kb / 1024.0)
}

/// User + system CPU seconds of this process (all threads), from /proc/self/stat.
fn cpu_seconds() -> f64 {
    std::fs::read_to_string("/proc/self/stat")
        .ok()
        .and_then(|s| {
            let rest = s.rsplit_once(')')?.1;
            let f: Vec<&str> = rest.split_whitespace().collect();
            let ticks = f.get(11)?.parse::<f64>().ok()? + f.get(12)?.parse::<f64>().ok()?;
            Some(ticks / 100.0)
        })
        .unwrap_or(f64::NAN)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let model = &args[0];
    let mut pairs: Vec<(String, String, String)> =
        serde_json::from_str(&std::fs::read_to_string(&args[1]).unwrap()).unwrap();
    let mut opts = AlignScoreOptions { threads: 2, ..AlignScoreOptions::default() };
    let mut i = 2;
    while i + 1 < args.len() {
        let v: usize = args[i + 1].parse().unwrap();
        match args[i].as_str() {
            "--threads" => opts.threads = v,
            "--batch-size" => opts.batch_size = v,
            "--max-length" => opts.max_length = Some(v),
            "--words-per-chunk" => opts.words_per_chunk = v,
            "--cpu-mem-arena" => opts.session.cpu_mem_arena = v != 0,
            "--pairs" => pairs.truncate(v),
            other => panic!("unknown option {other}"),
        }
        i += 2;
    }
    let t_load = Instant::now();
    let scorer = AlignScore::try_new(model, opts.clone()).unwrap();
    let load_s = t_load.elapsed().as_secs_f64();
    let rows: Vec<(&str, &str)> = pairs.iter().map(|(_, c, h)| (c.as_str(), h.as_str())).collect();
    scorer.classifier().reset_stats();
    let (t0, c0) = (Instant::now(), cpu_seconds());
    let out = scorer.score_batch(&rows).unwrap();
    let secs = t0.elapsed().as_secs_f64();
    let cpu = cpu_seconds() - c0;
    let st = scorer.classifier().stats();
    let scores: Vec<Option<f64>> = out.iter().map(|o| o.score).collect();
    let json = serde_json::json!({
        "model": model, "pairs": rows.len(), "threads": opts.threads, "batch_size": opts.batch_size, "cpu_mem_arena": opts.session.cpu_mem_arena,
        "load_seconds": load_s, "seconds": secs, "cpu_seconds": cpu, "pairs_per_s": rows.len() as f64 / secs,
        "forward_seconds": st.forward_seconds, "overhead": (secs - st.forward_seconds) / secs,
        "model_pairs": st.pairs, "tokens": st.tokens, "padded_tokens": st.padded_tokens,
        "peak_rss_mb": peak_rss_mb(), "scores": scores,
    });
    println!("{json}");
}
