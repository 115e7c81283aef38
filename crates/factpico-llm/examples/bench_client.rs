//! Client benchmark (driven by `cargo xtask bench llm`): factpico's chat client against a
//! local OpenAI-compatible server, to compare with `xtask/python/bench_llm_client.py` (the
//! official `openai` client with asyncio) on the same request bodies.
//!
//! ```sh
//! # the full-text request bodies of a JSONL file (no network)
//! bench_client bodies fixtures/pairs.jsonl OUT.json [--max-tokens N]
//! # send them: N requests at concurrency C, no cache, no retry; prints one JSON line
//! bench_client run http://127.0.0.1:PORT/v1 BODIES.json --concurrency C
//! ```
//! The JSON line: `n`, `concurrency`, `wall_s`, `req_per_s`, `latency_ms_median`,
//! `server_ms_median` (llama.cpp's reported processing time), `overhead_ms_median` (latency −
//! server time, per request), `failed`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::BufRead;
use std::time::Instant;

use factpico_llm::client::Client;
use factpico_llm::{request_bodies, ClientOptions, LlmOptions, Protocol, RowInput, StructuredOutput};

/// User + system CPU seconds of this process (all threads), from /proc/self/stat; and peak RSS
/// (VmHWM) in MB. `None` where /proc is missing.
fn cpu_seconds() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/self/stat").ok()?;
    let f: Vec<&str> = s.rsplit_once(')')?.1.split_whitespace().collect();
    Some((f.get(11)?.parse::<f64>().ok()? + f.get(12)?.parse::<f64>().ok()?) / 100.0)
}

fn peak_rss_mb() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let kb: f64 = s.lines().find(|l| l.starts_with("VmHWM:"))?.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}

fn median(mut v: Vec<f64>) -> Option<f64> {
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    Some(if n % 2 == 1 { v[n / 2] } else { (v[n / 2 - 1] + v[n / 2]) / 2.0 })
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let flag = |name: &str| args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).cloned();
    match args.first().map(String::as_str) {
        Some("bodies") => {
            let rows: Vec<serde_json::Value> = std::io::BufReader::new(std::fs::File::open(&args[1])?)
                .lines()
                .map(|l| serde_json::from_str(&l.unwrap()).unwrap())
                .collect();
            let spans: Vec<Option<Vec<String>>> = rows
                .iter()
                .map(|r| r.get("evidence").and_then(|e| e.as_array()).map(|a| a.iter().filter_map(|s| s.as_str().map(str::to_owned)).collect()))
                .collect();
            let inputs: Vec<RowInput<'_>> = rows
                .iter()
                .zip(&spans)
                .map(|(r, s)| RowInput { source: r["source"].as_str().unwrap(), summary: r["summary"].as_str().unwrap(), evidence: s.as_deref() })
                .collect();
            let o = LlmOptions {
                model: Some("bench".into()),
                structured_output: StructuredOutput::Off,
                max_tokens: Some(flag("--max-tokens").map(|v| v.parse()).transpose()?.unwrap_or(8)),
                ..LlmOptions::default()
            };
            let bodies = request_bodies(Protocol::FullText, &o, &inputs)?;
            std::fs::write(&args[2], serde_json::to_string(&bodies)?)?;
            eprintln!("{} request bodies written to {}", bodies.len(), args[2]);
        }
        Some("run") => {
            let bodies: Vec<serde_json::Value> = serde_json::from_str(&std::fs::read_to_string(&args[2])?)?;
            let c: usize = flag("--concurrency").map(|v| v.parse()).transpose()?.unwrap_or(4);
            let client = Client::new(&args[1], "bench", None, ClientOptions { concurrency: c, retries: 0, ..ClientOptions::default() })?;
            let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build()?;
            // Latency is timed from when a request may go out (a permit of this semaphore, as
            // the Python side's asyncio.Semaphore), not from when it was queued: with all
            // futures started at once, timing before the client's own limit would count the
            // wait for a free slot (about half the run's wall time) as latency.
            let permits = tokio::sync::Semaphore::new(c);
            let (t0, c0) = (Instant::now(), cpu_seconds());
            let results = rt.block_on(futures_util::future::join_all(bodies.iter().map(|b| {
                let (client, permits) = (&client, &permits);
                async move {
                    let _permit = permits.acquire().await.expect("the semaphore is never closed");
                    let t = Instant::now();
                    let r = client.chat(b).await;
                    (t.elapsed().as_secs_f64() * 1000.0, r)
                }
            })));
            let wall = t0.elapsed().as_secs_f64();
            let cpu = cpu_seconds().zip(c0).map(|(a, b)| a - b);
            let mut lat = Vec::new();
            let mut server = Vec::new();
            let mut overhead = Vec::new();
            let mut failed = 0;
            for (ms, r) in &results {
                match r {
                    Ok(reply) => {
                        lat.push(*ms);
                        if let Some(s) = reply.server_ms {
                            server.push(s);
                            overhead.push(ms - s);
                        }
                    }
                    Err(_) => failed += 1,
                }
            }
            println!(
                "{}",
                serde_json::json!({
                    "client": "factpico", "n": bodies.len(), "concurrency": c, "wall_s": wall,
                    "req_per_s": bodies.len() as f64 / wall, "latency_ms_median": median(lat),
                    "server_ms_median": median(server), "overhead_ms_median": median(overhead), "failed": failed,
                    "cpu_s": cpu, "peak_rss_mb": peak_rss_mb(),
                })
            );
        }
        _ => return Err("usage: bench_client bodies IN.jsonl OUT.json | run BASE_URL BODIES.json --concurrency C".into()),
    }
    Ok(())
}
