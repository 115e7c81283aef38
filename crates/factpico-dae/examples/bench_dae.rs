//! DAE throughput benchmark (run by `cargo xtask bench dae`).
//!
//! `bench_dae --model DIR --documents infolossqa/processed/documents.json [--pairs N] [--threads T] [--json OUT]`
//!
//! 1. parses the summaries with the spaCy sidecar (per-sentence and single-parse modes),
//!    timed separately (startup excluded);
//! 2. scores every pair with the DAE model in both modes, arcs given: arcs/s, summaries/s.
//!
//! `--json OUT` also writes the model step's figures per mode for `cargo xtask bench all`
//! (the reference side is `onnx/bench_dae.py`): wall and CPU seconds of `score_batch` (this
//! process only: the sidecar is another process, and the parses are given), the arc
//! probabilities per pair in output order, and the process's peak RSS (VmHWM, MB).
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::path::PathBuf;
use std::time::Instant;

use factpico_dae::{Dae, DaeInput, DaeModel, DaeOptions, MultiSentence};
use factpico_nlp::sidecar::{SidecarConfig, SpacySidecar};
use factpico_nlp::{ArcSource, Doc};
use factpico_runtime::SessionOptions;

fn arg(name: &str) -> Option<String> {
    let a: Vec<String> = std::env::args().collect();
    a.iter().position(|x| x == name).and_then(|i| a.get(i + 1).cloned())
}

/// User + system CPU seconds of this process, all threads (fields 14 and 15 of /proc/self/stat).
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let fields: Vec<f64> =
        stat.rsplit_once(')').map_or("", |(_, r)| r).split_whitespace().skip(11).take(2).filter_map(|v| v.parse().ok()).collect();
    if fields.len() == 2 { (fields[0] + fields[1]) / 100.0 } else { f64::NAN }
}

/// Peak RSS of this process (VmHWM), MB.
fn peak_rss_mb() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let kb = status.lines().find_map(|l| l.strip_prefix("VmHWM:")).and_then(|v| v.split_whitespace().next());
    kb.and_then(|v| v.parse::<f64>().ok()).map_or(f64::NAN, |kb| kb / 1024.0)
}

fn main() {
    let model = PathBuf::from(arg("--model").expect("--model DIR"));
    let docs = PathBuf::from(arg("--documents").expect("--documents FILE"));
    let n: usize = arg("--pairs").map_or(100, |s| s.parse().expect("--pairs N"));
    let threads: usize = arg("--threads").map_or(2, |s| s.parse().expect("--threads T"));
    let json_out = arg("--json").map(PathBuf::from);
    let batch_size = 4;
    let mut modes = serde_json::Map::new();
    let v: Vec<serde_json::Value> = serde_json::from_str(&std::fs::read_to_string(&docs).unwrap()).unwrap();
    let pairs: Vec<(String, String)> = v
        .iter()
        .take(n)
        .map(|d| (d["abstract"].as_str().unwrap().to_owned(), d["simplification"].as_str().unwrap().to_owned()))
        .collect();
    let sc = SpacySidecar::new(SidecarConfig::default());
    let t = Instant::now();
    let info = sc.start().unwrap();
    let startup = t.elapsed().as_secs_f64();
    let d: Vec<Doc<'_>> = pairs.iter().map(|(_, s)| Doc { id: "", text: s }).collect();
    let words: usize = pairs.iter().map(|(_, s)| s.split_whitespace().count()).sum();
    println!(
        "DAE benchmark: {} InfoLossQA pairs ({words} summary words), model {}, {threads} intra-op threads",
        pairs.len(),
        model.display()
    );
    println!("spaCy sidecar: spaCy {} {} {}, startup {startup:.2} s", info.spacy, info.model, info.model_version);
    println!();
    println!("| mode | parse s (sidecar) | DAE s | arcs | arcs/s | summaries/s | summaries/s incl. parse |");
    println!("|---|---|---|---|---|---|---|");
    for mode in [MultiSentence::PerSentence, MultiSentence::SingleParse] {
        let mut o = DaeOptions::new(DaeModel::Electra(model.clone()));
        o.multi_sentence = mode;
        o.session = SessionOptions::default().intra_threads(threads);
        o.batch_size = batch_size;
        let dae = Dae::try_new(o).unwrap();
        let t = Instant::now();
        let parses = sc.parse(&d, dae.parse_mode()).unwrap();
        let parse_s = t.elapsed().as_secs_f64();
        let items: Vec<DaeInput<'_>> = pairs
            .iter()
            .zip(&parses)
            .map(|((src, summ), p)| DaeInput { id: "", source: src, summary: summ, arcs: Some(p) })
            .collect();
        // warm-up (session initialisation) on one pair
        dae.score_batch(&items[..1]).unwrap();
        let (t, c) = (Instant::now(), cpu_seconds());
        let out = dae.score_batch(&items).unwrap();
        let (dae_s, dae_cpu) = (t.elapsed().as_secs_f64(), cpu_seconds() - c);
        let arcs: usize = out.iter().map(|o| o.arcs.len()).sum();
        let k = items.len() as f64;
        println!(
            "| {mode:?} | {parse_s:.2} | {dae_s:.2} | {arcs} | {:.1} | {:.2} | {:.2} |",
            arcs as f64 / dae_s,
            k / dae_s,
            k / (dae_s + parse_s)
        );
        let probs: Vec<Vec<f64>> = out.iter().map(|o| o.arcs.iter().map(|a| a.probability).collect()).collect();
        modes.insert(
            format!("{mode:?}"),
            serde_json::json!({"wall_s": dae_s, "cpu_s": dae_cpu, "parse_s": parse_s, "arcs": arcs, "probs": probs}),
        );
    }
    if let Some(path) = json_out {
        let v = serde_json::json!({
            "pairs": pairs.len(), "threads": threads, "batch_size": batch_size, "peak_rss_mb": peak_rss_mb(), "modes": modes,
        });
        std::fs::write(&path, serde_json::to_string(&v).unwrap()).unwrap();
    }
}
