//! Timing harness used by `cargo xtask bench minicheck` (run it in release):
//!
//! ```text
//! cargo run --release -p factpico-minicheck --example bench_minicheck -- \
//!     MODEL_DIR PAIRS_JSON [--threads 2] [--batch-size 4] [--pairs N (first N only)]
//!     [--memory-pattern 0|1] [--device-initializers 0|1] [--cpu-mem-arena 0|1]
//! ```
//!
//! `PAIRS_JSON` is `[[id, document, claim], ...]`. Scores the whole claims (the reference's
//! mode) and prints one JSON object: scoring seconds (model load excluded), CPU seconds,
//! peak RSS (VmHWM; also right after the model load), RSS at the end, inputs run and the scores.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use std::time::Instant;

use factpico_minicheck::{MiniCheck, MiniCheckOptions};

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

/// Current resident set size (VmRSS), MB.
fn rss_mb() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
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
    let mut opts = MiniCheckOptions { threads: 2, ..MiniCheckOptions::default() };
    let mut i = 2;
    while i + 1 < args.len() {
        let v: usize = args[i + 1].parse().unwrap();
        match args[i].as_str() {
            "--threads" => opts.threads = v,
            "--batch-size" => opts.batch_size = v,
            "--pairs" => pairs.truncate(v),
            // 1/0: ONNX Runtime's memory pattern and per-initializer allocation (defaults 1 and 0)
            "--memory-pattern" => opts.session.memory_pattern = v == 1,
            "--device-initializers" => opts.session.device_allocator_for_initializers = v == 1,
            // 1/0: ONNX Runtime's CPU memory arena (default 1)
            "--cpu-mem-arena" => opts.session.cpu_mem_arena = v == 1,
            other => panic!("unknown option {other}"),
        }
        i += 2;
    }
    let t_load = Instant::now();
    let mc = MiniCheck::try_new(model, opts.clone()).unwrap();
    let load_s = t_load.elapsed().as_secs_f64();
    let load_rss = peak_rss_mb();
    let rows: Vec<(&str, &str)> = pairs.iter().map(|(_, d, c)| (d.as_str(), c.as_str())).collect();
    let (t0, c0) = (Instant::now(), cpu_seconds());
    let out = mc.score_batch(&rows).unwrap();
    let secs = t0.elapsed().as_secs_f64();
    let cpu = cpu_seconds() - c0;
    let scores: Vec<Option<f64>> = out.iter().map(|o| o.score).collect();
    let inputs: usize = out.iter().map(|o| o.chunks.len() * o.claims.len()).sum();
    let work = work(&mc, model, &rows, opts.batch_size);
    let json = serde_json::json!({
        "model": model, "variant": mc.variant().as_str(), "pairs": rows.len(), "inputs": inputs,
        "threads": opts.threads, "batch_size": opts.batch_size,
        "load_seconds": load_s, "seconds": secs, "cpu_seconds": cpu, "pairs_per_s": rows.len() as f64 / secs,
        "peak_rss_mb": peak_rss_mb(), "peak_rss_after_load_mb": load_rss, "rss_end_mb": rss_mb(), "scores": scores,
        "work": work,
    });
    println!("{json}");
}

/// The work the scoring did, for the profile against the FLOP limit (counted after the timed
/// run, untimed): every chunk+claim input's token count (the model's `tokenizer.json`, special
/// tokens added, capped at the model's max length), summed as real tokens, as padded tokens of
/// factpico's batches (all rows' inputs together, longest first, `batch_size` per batch, padded
/// to each batch's longest) and of the reference's (`inference_per_example`: one row's chunks at
/// a time, 16 per batch, padded to the batch's longest), and `sum(b * l^2)` over the batches of
/// each (the attention term).
fn work(mc: &MiniCheck, model: &str, rows: &[(&str, &str)], batch_size: usize) -> serde_json::Value {
    let tok = tokenizers::Tokenizer::from_file(std::path::Path::new(model).join("tokenizer.json")).unwrap();
    let mut per_row: Vec<Vec<usize>> = Vec::new();
    for (doc, claim) in rows {
        let mut row = Vec::new();
        for (chunk, _) in mc.chunks(doc).unwrap() {
            let text = mc.input_text(&chunk, claim);
            row.push(tok.encode(text.as_str(), true).unwrap().get_ids().len().min(mc.max_length()));
        }
        per_row.push(row);
    }
    let batches = |lens: &[usize], b: usize| -> (usize, f64) {
        lens.chunks(b).fold((0, 0.0), |(p, sq), c| {
            let l = c.iter().copied().max().unwrap_or(0);
            (p + c.len() * l, sq + (c.len() * l * l) as f64)
        })
    };
    let (ref_padded, ref_sq) =
        per_row.iter().map(|r| batches(r, 16)).fold((0, 0.0), |(p, sq), (p2, sq2)| (p + p2, sq + sq2));
    let lens: Vec<usize> = per_row.concat();
    let mut sorted = lens.clone();
    sorted.sort_unstable_by(|a, b| b.cmp(a));
    let (padded, sq) = batches(&sorted, batch_size);
    serde_json::json!({
        "tokens": lens.iter().sum::<usize>(), "padded_tokens": padded, "attention_sq": sq,
        "reference_padded_tokens": ref_padded, "reference_attention_sq": ref_sq,
    })
}
