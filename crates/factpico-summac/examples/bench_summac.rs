//! Timing harness used by `cargo xtask bench summac` (run it in release):
//!
//! ```text
//! cargo run --release -p factpico-summac --example bench_summac -- \
//!     MODEL_DIR PAIRS_JSON CONV_JSON [--threads 2] [--batch-size 32] [--pairs N]
//! ```
//!
//! `PAIRS_JSON` is `[[id, document, summary], ...]`. Scores SummaC-ZS and SummaC-Conv from one
//! image pass (sentence granularity, the reference's limits) and prints one JSON object:
//! scoring seconds (model load excluded), CPU seconds, seconds inside `Session::run`, NLI
//! pairs, peak RSS (VmHWM) and the scores.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use std::time::Instant;

use factpico_summac::{ConvHead, Summac, SummacOptions, ZsOptions};

/// Peak resident set size in MB (`VmHWM` of /proc/self/status).
fn peak_rss_mb() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let kb = status.lines().find_map(|l| l.strip_prefix("VmHWM:")).and_then(|v| v.split_whitespace().next());
    kb.and_then(|v| v.parse::<f64>().ok()).map_or(f64::NAN, |kb| kb / 1024.0)
}

/// User + system CPU seconds of this process, all threads (fields 14 and 15 of /proc/self/stat).
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let fields: Vec<f64> =
        stat.rsplit_once(')').map_or("", |(_, r)| r).split_whitespace().skip(11).take(2).filter_map(|v| v.parse().ok()).collect();
    if fields.len() == 2 { (fields[0] + fields[1]) / 100.0 } else { f64::NAN }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (model, pairs_path, conv_path) = (&args[0], &args[1], &args[2]);
    let mut pairs: Vec<(String, String, String)> =
        serde_json::from_str(&std::fs::read_to_string(pairs_path).unwrap()).unwrap();
    let mut opts = SummacOptions { threads: 2, ..SummacOptions::default() };
    let mut i = 3;
    while i + 1 < args.len() {
        let v: usize = args[i + 1].parse().unwrap();
        match args[i].as_str() {
            "--threads" => opts.threads = v,
            "--batch-size" => opts.batch_size = v,
            "--pairs" => pairs.truncate(v),
            other => panic!("unknown option {other}"),
        }
        i += 2;
    }
    let t_load = Instant::now();
    let summac = Summac::try_new(model, opts.clone()).unwrap();
    let head = ConvHead::from_file(conv_path).unwrap();
    let load_s = t_load.elapsed().as_secs_f64();
    let rows: Vec<(&str, &str)> = pairs.iter().map(|(_, d, s)| (d.as_str(), s.as_str())).collect();
    let (t0, c0) = (Instant::now(), cpu_seconds());
    let images = summac.images(&rows).unwrap();
    let zs: Vec<Option<f64>> = images.iter().map(|img| ZsOptions::default().score(img).score).collect();
    let conv: Vec<Option<f64>> = images.iter().map(|img| head.score(img, summac.limits()).score).collect();
    let secs = t0.elapsed().as_secs_f64();
    let cpu = cpu_seconds() - c0;
    let st = summac.classifier().stats();
    let json = serde_json::json!({
        "model": model, "rows": rows.len(), "threads": opts.threads, "batch_size": opts.batch_size,
        "load_seconds": load_s, "seconds": secs, "cpu_seconds": cpu, "forward_seconds": st.forward_seconds,
        "nli_pairs": st.pairs, "tokens": st.tokens, "padded_tokens": st.padded_tokens,
        "peak_rss_mb": peak_rss_mb(), "zs": zs, "conv": conv,
    });
    println!("{json}");
}
