//! Issue 24 defect 4 against a REAL llama.cpp server (tiny GGUF behind the harness's proxy,
//! every chat request delayed): an LLM run's progress counts requests (logged at `-v` when
//! standard error is not a terminal), and the finished rows reach the output's `.partial` file
//! while the run goes on (blocks of 4 × the LLM concurrency rows, at least 8).
#![cfg(feature = "llm")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

#[path = "../../factpico-llm/tests/support/mod.rs"]
mod support;

use std::path::Path;
use std::time::{Duration, Instant};

use support::Harness;

fn lines(p: &Path) -> usize {
    std::fs::read_to_string(p).map_or(0, |t| t.lines().count())
}

#[test]
fn progress_counts_requests_and_rows_reach_the_partial_file_as_the_run_goes() {
    let Some(h) = Harness::start("cli llm progress") else { return };
    let dir = tempfile::tempdir().unwrap();
    let input = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/pairs.jsonl");
    let out = dir.path().join("out.jsonl");
    let partial = dir.path().join("out.jsonl.partial");
    // 12 rows x 1 element = 12 rating requests, one at a time, each held 0.6 s by the proxy
    h.delay(0.6);
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_factpico"))
        .current_dir(dir.path())
        .args(["score", input.to_str().unwrap(), "--metrics", "llm", "-o", out.to_str().unwrap(), "-v"])
        .args(["--llm-base-url", &h.url, "--llm-model", "tiny", "--llm-structured", "grammar", "--llm-max-tokens", "40"])
        .args(["--llm-rationale-max-chars", "16", "--llm-elements", "evidence", "--llm-concurrency", "1"])
        .args(["--llm-cache", dir.path().join("cache.sqlite").to_str().unwrap()])
        .stderr(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let spans: usize = std::fs::read_to_string(&input)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["evidence"].as_array().map_or(0, Vec::len))
        .sum();
    assert!(spans >= 12, "{spans} spans");
    // the first block (8 rows) is written while the rest is still being asked
    let t0 = Instant::now();
    let mut child = child;
    let mut seen_while_running = 0;
    while t0.elapsed() < Duration::from_secs(300) {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        seen_while_running = seen_while_running.max(lines(&partial));
        std::thread::sleep(Duration::from_millis(100));
    }
    let o = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{stderr}");
    assert!(
        (8..12).contains(&seen_while_running),
        "the .partial file had {seen_while_running} rows while the run was going (want the first block of 8)"
    );
    assert_eq!(lines(&out), 12);
    // progress lines count requests (every 5 s at -v when stderr is not a terminal)
    let progress: Vec<&str> = stderr.lines().filter(|l| l.contains("llm: ") && l.contains(" requests: ")).collect();
    assert!(!progress.is_empty(), "no progress line in:\n{stderr}");
    for l in &progress {
        let counts = l.split("llm: ").nth(1).unwrap();
        let (done, rest) = counts.split_once('/').unwrap();
        let planned: u64 = rest.split(' ').next().unwrap().parse().unwrap();
        let done: u64 = done.trim().parse().unwrap();
        assert!(done <= planned && planned as usize <= spans, "{l}");
        assert!(l.contains("from the cache") && l.contains("answered") && l.contains("retries") && l.contains("tokens/s"), "{l}");
    }
}
