//! The evaluators against a REAL llama.cpp server (PyPI `xllamacpp`, tiny random-weight GGUF
//! written by PyPI `gguf`), started by the tests, behind a fault-injecting proxy
//! (`tests/support/llm_harness.py`). Protocol, parsing, cache, failures.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::path::Path;
use std::time::{Duration, Instant};

use factpico_llm::{ClientOptions, Error, Evaluator, LlmOptions, LlmRuntime, Protocol, RowInput, RowResult, StructuredOutput};
use serde_json::{json, Value};
use support::Harness;

struct Fixture {
    source: String,
    summary: String,
    evidence: Vec<String>,
}

fn fixtures(n: usize) -> Vec<Fixture> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/pairs.jsonl");
    std::fs::read_to_string(root)
        .unwrap()
        .lines()
        .take(n)
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            Fixture {
                source: v["source"].as_str().unwrap().into(),
                summary: v["summary"].as_str().unwrap().into(),
                evidence: v["evidence"].as_array().unwrap().iter().map(|s| s.as_str().unwrap().to_owned()).collect(),
            }
        })
        .collect()
}

fn rows(f: &[Fixture]) -> Vec<RowInput<'_>> {
    f.iter().map(|x| RowInput { source: &x.source, summary: &x.summary, evidence: Some(&x.evidence) }).collect()
}

/// Options for the tiny model: small budgets, fast retries, a cache in `dir`.
fn options(url: &str, dir: &Path, mode: StructuredOutput) -> LlmOptions {
    LlmOptions {
        base_url: Some(url.to_owned()),
        model: Some("tiny".into()),
        structured_output: mode,
        max_tokens: Some(if mode == StructuredOutput::JsonSchema { 400 } else { 60 }),
        extract_max_tokens: Some(24),
        rationale_max_chars: Some(24),
        runtime: LlmRuntime {
            client: ClientOptions { concurrency: 2, timeout_s: 120.0, retries: 3, backoff_min_s: 0.05, backoff_max_s: 0.2, ..ClientOptions::default() },
            cache: Some(dir.join("cache.sqlite")),
            no_cache: false,
            ..LlmRuntime::default()
        },
        ..LlmOptions::default()
    }
}

fn assert_well_formed(r: &RowResult, prefix: &str) {
    for col in ["population", "intervention", "comparator", "outcome"] {
        let c = format!("{prefix}_{col}");
        match r.scores[&c] {
            Some(v) => assert!([1.0, 2.0, 3.0, 4.0].contains(&v), "{c} = {v}"),
            None => assert!(r.nulls[&c].starts_with("N/A"), "{c}: {}", r.nulls[&c]),
        }
    }
}

#[test]
fn grammar_mode_full_text_parses_every_reply_and_rerun_makes_zero_requests() {
    let Some(h) = Harness::start("grammar_mode_full_text") else { return };
    let dir = tempfile::tempdir().unwrap();
    let fx = fixtures(3);
    let o = options(&h.url, dir.path(), StructuredOutput::Grammar);
    let ev = Evaluator::try_new(Protocol::FullText, &o).unwrap();
    assert_eq!(ev.structured_output().used, StructuredOutput::Grammar);
    let before = h.chat_requests();
    let out = ev.evaluate(&rows(&fx));
    let spans: usize = fx.iter().map(|f| f.evidence.len()).sum();
    let sent = h.chat_requests() - before;
    assert_eq!(sent as usize, 3 * 4 + spans, "one request per element and span");
    for r in &out {
        assert_well_formed(r, "llm");
        let d = &r.detail["elements"]["population"];
        assert!(d["reply"].as_str().unwrap().starts_with("Rating: "), "{d}");
        assert!(r.scores["llm_evidence"].is_some(), "{:?}", r.nulls);
        assert_eq!(r.failed_requests, 0);
    }
    // The requests carried the grammar and the reference's prompts.
    let st = h.state();
    let body = st["bodies"].as_array().unwrap().last().unwrap().clone();
    assert!(body["grammar"].as_str().unwrap().starts_with("root ::= \"Rating: \" [1-"), "{body}");
    assert_eq!(body["temperature"], json!(0.0));
    let stats = ev.stats();
    assert_eq!((stats.answered, stats.cached, stats.failed), (sent, 0, 0));
    assert!(stats.prompt_tokens > 0 && stats.completion_tokens > 0);
    drop(ev);

    // A second run (new evaluator, same cache): zero chat requests, identical results.
    let before = h.chat_requests();
    let ev2 = Evaluator::try_new(Protocol::FullText, &o).unwrap();
    let out2 = ev2.evaluate(&rows(&fx));
    assert_eq!(h.chat_requests() - before, 0, "the re-run sent requests");
    assert_eq!(ev2.stats().cached, sent);
    for (a, b) in out.iter().zip(&out2) {
        assert_eq!(a.scores, b.scores);
    }
    println!("grammar full text: {sent} requests, re-run 0 requests; {:?}", out[0].scores);
}

#[test]
fn pipeline_extracts_then_rates_and_reruns_from_cache() {
    let Some(h) = Harness::start("pipeline") else { return };
    let dir = tempfile::tempdir().unwrap();
    // rows 1 and 2 share their abstract: its extraction is asked once
    let fx = fixtures(2);
    let o = options(&h.url, dir.path(), StructuredOutput::Grammar);
    let ev = Evaluator::try_new(Protocol::Pipeline, &o).unwrap();
    let before = h.chat_requests();
    let out = ev.evaluate(&rows(&fx));
    let sent = h.chat_requests() - before;
    // stage 1: 1 abstract + 2 summaries + 2 summary-results; stage 2: 2 × (4 + 2 spans)
    assert_eq!(sent, 1 + 2 + 2 + 2 * (4 + 2));
    for r in &out {
        assert_well_formed(r, "llm_pipeline");
        let x = &r.detail["extraction"];
        for k in ["abstract_pico", "summary_pico", "summary_results"] {
            assert!(x[k]["reply"].is_string(), "{k}: {x}");
        }
    }
    // Stage-2 prompts contain the stage-1 replies verbatim.
    let st = h.state();
    let abs_pico = out[0].detail["extraction"]["abstract_pico"]["reply"].as_str().unwrap().to_owned();
    let rated = st["bodies"].as_array().unwrap().iter().any(|b| {
        b["messages"][1]["content"].as_str().is_some_and(|u| u.starts_with(&format!("Abstract:\n{abs_pico}\n\nSummary:\n")))
    });
    assert!(rated, "no stage-2 prompt carries the abstract's extraction");
    drop(ev);
    let before = h.chat_requests();
    let out2 = Evaluator::try_new(Protocol::Pipeline, &o).unwrap().evaluate(&rows(&fx));
    assert_eq!(h.chat_requests() - before, 0);
    assert_eq!(out[1].scores, out2[1].scores);
}

#[test]
fn json_schema_mode_sends_the_schema_and_reads_json_or_reports_why_not() {
    let Some(h) = Harness::start("json_schema_mode") else { return };
    let dir = tempfile::tempdir().unwrap();
    let fx = fixtures(1);
    let o = options(&h.url, dir.path(), StructuredOutput::JsonSchema);
    let ev = Evaluator::try_new(Protocol::FullText, &o).unwrap();
    assert_eq!(ev.structured_output().used, StructuredOutput::JsonSchema, "llama.cpp accepts json_schema");
    let out = ev.evaluate(&rows(&fx));
    let st = h.state();
    let body = st["bodies"].as_array().unwrap().last().unwrap();
    let schema = &body["response_format"]["json_schema"]["schema"];
    assert_eq!(schema["properties"]["rating"]["enum"], json!([1, 2, 3, 4]), "{body}");
    assert_eq!(schema["properties"]["rationale"]["pattern"], json!("^[ -!#-\\[\\]-~]{1,24}$"));
    let mut parsed = 0;
    for (k, d) in out[0].detail["elements"].as_object().unwrap() {
        // Either well-formed JSON with a rating, or a documented null with the raw reply kept.
        if d["rating"].is_u64() {
            parsed += 1;
            serde_json::from_str::<Value>(d["reply"].as_str().unwrap()).unwrap();
        } else if d.get("error").is_some() {
            panic!("{k}: request failed: {d}");
        } else {
            assert!(d["null_reason"].as_str().unwrap().contains("JSON"), "{k}: {d}");
            assert!(d["reply"].is_string());
        }
    }
    println!("json-schema mode, tiny random model: {parsed}/4 element replies are complete JSON");
}

#[test]
fn malformed_out_of_range_and_na_replies_are_documented_nulls_with_the_raw_text() {
    let Some(h) = Harness::start("malformed_replies") else { return };
    let dir = tempfile::tempdir().unwrap();
    let fx = fixtures(1);
    let mut o = options(&h.url, dir.path(), StructuredOutput::Off);
    o.runtime.client.concurrency = 1; // replies are rewritten in request order: P, I, C, O, spans
    let ev = Evaluator::try_new(Protocol::FullText, &o).unwrap();
    h.faults(json!([
        {"content": "Rating: 7\nRationale: too high"},
        {"content": "Rating: 5\nRationale: no intervention here"},
        {"content": "The comparator looks fine to me."},
        {"content": "**Rating:** 2\n\nThe outcome is vague."},
        {"content": "Rating: 1 or maybe Rating: 3"},
        {"content": "Rating: 4"},
    ]));
    let r = &ev.evaluate(&rows(&fx))[0];
    assert_eq!(r.scores["llm_population"], None);
    assert!(r.nulls["llm_population"].contains("out of range"), "{:?}", r.nulls);
    assert_eq!(r.detail["elements"]["population"]["reply"], json!("Rating: 7\nRationale: too high"));
    assert!(r.nulls["llm_intervention"].starts_with("N/A"));
    assert!(r.nulls["llm_comparator"].contains("no \"Rating:\""));
    assert_eq!(r.detail["elements"]["comparator"]["reply"], json!("The comparator looks fine to me."));
    assert_eq!(r.scores["llm_outcome"], Some(3.0));
    assert_eq!(r.detail["elements"]["outcome"]["rationale"], json!("The outcome is vague."));
    // spans: ambiguous (null), then 4 → 1.0; evidence = mean of the readable one
    assert_eq!(r.scores["llm_evidence"], Some(1.0));
    assert!(r.detail["evidence"][0]["null_reason"].as_str().unwrap().contains("ambiguous"));
    // avg over the readable P/I/C/O/R: outcome 3 and evidence 1
    assert_eq!(r.scores["llm_avg"], Some(2.0));
    // the P/I/O mean (Shaib 2023's elements): only the outcome is readable
    assert_eq!(r.scores["llm_pio"], Some(3.0));
    assert_eq!(r.failed_requests, 0);
}

#[test]
fn bursts_of_429_with_retry_after_and_500_are_retried() {
    let Some(h) = Harness::start("retries") else { return };
    let dir = tempfile::tempdir().unwrap();
    let fx = fixtures(1);
    let mut o = options(&h.url, dir.path(), StructuredOutput::Grammar);
    o.runtime.client.concurrency = 1;
    o.runtime.client.retries = 4;
    let ev = Evaluator::try_new(Protocol::FullText, &o).unwrap();
    h.faults(json!([
        {"status": 429, "retry_after": "1"},
        {"status": 429, "retry_after": "1"},
        {"status": 500},
        {"status": 503},
    ]));
    let before = h.state()["times"].as_array().unwrap().len();
    let out = ev.evaluate(&rows(&fx));
    assert_well_formed(&out[0], "llm");
    assert_eq!(out[0].failed_requests, 0);
    let stats = ev.stats();
    assert_eq!(stats.retries, 4, "{stats:?}");
    assert_eq!(stats.failed, 0);
    // Retry-After honoured: the retry after each 429 came ≥ 1 s later.
    let st = h.state();
    let t: Vec<f64> = st["times"].as_array().unwrap()[before..].iter().map(|x| x.as_f64().unwrap()).collect();
    assert!(t[1] - t[0] >= 0.95 && t[2] - t[1] >= 0.95, "arrivals {t:?}");
    // the 5xx retries use the short exponential backoff (≤ 0.2 s here, plus the request)
    assert!(t[3] - t[2] < 1.0, "arrivals {t:?}");
}

#[test]
fn slow_server_times_out_and_the_row_says_so() {
    let Some(h) = Harness::start("timeout") else { return };
    let dir = tempfile::tempdir().unwrap();
    let fx = fixtures(1);
    let mut o = options(&h.url, dir.path(), StructuredOutput::Grammar);
    o.runtime.client.timeout_s = 1.0;
    o.runtime.client.retries = 1;
    let ev = Evaluator::try_new(Protocol::FullText, &o).unwrap();
    h.delay(3.0);
    let t0 = Instant::now();
    let out = ev.evaluate(&rows(&fx));
    let took = t0.elapsed();
    assert!(took < Duration::from_secs(20), "took {took:?}");
    let r = &out[0];
    assert!(r.nulls["llm_population"].contains("timeout"), "{:?}", r.nulls);
    assert!(r.nulls["llm_avg"].contains("incomplete"), "{:?}", r.nulls);
    assert!(r.nulls["llm_pio"].contains("incomplete"), "{:?}", r.nulls);
    assert_eq!(r.failed_requests, 6);
    assert_eq!(ev.stats().failed, 6);
    assert_eq!(ev.stats().retries, 6);
}

#[test]
fn server_killed_mid_run_keeps_answers_and_the_rerun_asks_only_the_missing() {
    let Some(h) = Harness::start("killed_mid_run") else { return };
    let dir = tempfile::tempdir().unwrap();
    let fx = fixtures(4);
    let mut o = options(&h.url, dir.path(), StructuredOutput::Grammar);
    o.runtime.client.retries = 2;
    let ev = Evaluator::try_new(Protocol::FullText, &o).unwrap();
    h.cmd(json!({"cmd": "kill_after", "n": 5}));
    let t0 = Instant::now();
    let out = ev.evaluate(&rows(&fx));
    assert!(t0.elapsed() < Duration::from_secs(60));
    let stats = ev.stats();
    let total: u64 = fx.iter().map(|f| 4 + f.evidence.len() as u64).sum();
    assert_eq!(stats.requests, total);
    assert!(stats.answered >= 5 && stats.failed > 0, "{stats:?}");
    assert_eq!(stats.answered + stats.failed, total);
    let failed_rows: u32 = out.iter().map(|r| r.failed_requests).sum();
    assert_eq!(u64::from(failed_rows), stats.failed);
    assert!(stats.first_failures.iter().any(|f| f.contains("cannot connect") || f.contains("not sent")), "{stats:?}");
    drop(ev);

    h.cmd(json!({"cmd": "restart"}));
    let before = h.chat_requests();
    let ev2 = Evaluator::try_new(Protocol::FullText, &o).unwrap();
    let out2 = ev2.evaluate(&rows(&fx));
    let asked = h.chat_requests() - before;
    assert_eq!(asked, stats.failed, "the re-run asked only the missing requests");
    assert_eq!(ev2.stats().cached, stats.answered);
    for r in &out2 {
        assert_eq!(r.failed_requests, 0);
        assert_well_formed(r, "llm");
    }
    println!("killed after 5 answers: {} answered, {} failed; re-run asked {asked}", stats.answered, stats.failed);
}

#[test]
fn two_models_behind_one_url_do_not_share_cache_entries() {
    let Some(h) = Harness::start("two_models") else { return };
    let dir = tempfile::tempdir().unwrap();
    let fx = fixtures(1);
    let o = options(&h.url, dir.path(), StructuredOutput::Grammar);
    let ev = Evaluator::try_new(Protocol::FullText, &o).unwrap();
    let first_id = ev.served_model().id.clone();
    ev.evaluate(&rows(&fx));
    drop(ev);
    h.cmd(json!({"cmd": "restart", "tiny_seed": 1}));
    let ev2 = Evaluator::try_new(Protocol::FullText, &o).unwrap();
    let before = h.chat_requests();
    assert_ne!(ev2.served_model().id, first_id);
    ev2.evaluate(&rows(&fx));
    assert_eq!(h.chat_requests() - before, 6, "another GGUF behind the same URL must not reuse answers");
}

#[test]
fn two_runs_sharing_one_cache_are_safe() {
    let Some(h) = Harness::start("shared_cache") else { return };
    let dir = tempfile::tempdir().unwrap();
    let fx = fixtures(2);
    let o = options(&h.url, dir.path(), StructuredOutput::Grammar);
    let results: Vec<Vec<RowResult>> = std::thread::scope(|s| {
        let a = s.spawn(|| Evaluator::try_new(Protocol::FullText, &o).unwrap().evaluate(&rows(&fx)));
        let b = s.spawn(|| Evaluator::try_new(Protocol::FullText, &o).unwrap().evaluate(&rows(&fx)));
        vec![a.join().unwrap(), b.join().unwrap()]
    });
    for r in results.iter().flatten() {
        assert_eq!(r.failed_requests, 0);
        assert_well_formed(r, "llm");
    }
    // temperature 0: both runs got the same answers
    assert_eq!(results[0][0].scores, results[1][0].scores);
    let cache = factpico_llm::cache::Cache::open(&dir.path().join("cache.sqlite")).unwrap();
    assert_eq!(cache.len().unwrap(), 2 * 4 + 4, "one entry per distinct request");
}

#[test]
fn structured_output_rejected_by_the_server_falls_back_and_says_so() {
    let Some(h) = Harness::start("fallback") else { return };
    let dir = tempfile::tempdir().unwrap();
    let o = options(&h.url, dir.path(), StructuredOutput::Grammar);
    h.faults(json!([{"status": 400}]));
    let ev = Evaluator::try_new(Protocol::FullText, &o).unwrap();
    let s = ev.structured_output();
    assert_eq!((s.requested, s.used), (StructuredOutput::Grammar, StructuredOutput::Off));
    assert!(s.fallback.as_deref().unwrap().contains("HTTP 400"), "{s:?}");
    let p = ev.provenance();
    assert_eq!(p["structured_output"]["used"], json!("off"));
    assert_eq!(p["structured_output"]["requested"], json!("grammar"));
    drop(ev);
    // the verdict is cached: no probe the second time
    let before = h.chat_requests();
    let ev2 = Evaluator::try_new(Protocol::FullText, &o).unwrap();
    assert_eq!(ev2.structured_output().used, StructuredOutput::Off);
    assert_eq!(h.chat_requests() - before, 0);
}

#[test]
fn the_api_key_is_sent_but_never_reported() {
    let Some(h) = Harness::start("api_key") else { return };
    let dir = tempfile::tempdir().unwrap();
    let secret = "sk-factpico-test-5ecret-77";
    std::env::set_var("FACTPICO_TEST_LLM_KEY", secret);
    let mut o = options(&h.url, dir.path(), StructuredOutput::Grammar);
    o.api_key_env = Some("FACTPICO_TEST_LLM_KEY".into());
    let ev = Evaluator::try_new(Protocol::FullText, &o).unwrap();
    let p = ev.provenance().to_string();
    assert!(!p.contains(secret) && p.contains("FACTPICO_TEST_LLM_KEY"), "{p}");
    assert!(!format!("{ev:?}").contains(secret));
    // a 401 that quotes the key back (as OpenAI's does, partially)
    h.faults(json!([{"status": 401, "echo_auth": true}]));
    let fx = fixtures(1);
    let mut o1 = o.clone();
    o1.runtime.client.concurrency = 1;
    let ev = Evaluator::try_new(Protocol::FullText, &o1).unwrap();
    let out = ev.evaluate(&rows(&fx));
    let all = format!("{:?} {:?} {}", out[0].nulls, ev.stats(), out[0].detail);
    assert!(!all.contains(secret), "{all}");
    assert!(all.contains("[redacted]"), "{all}");
    assert!(all.contains("not sent"), "after a 401 the remaining requests are not sent: {all}");
    let st = h.state();
    assert!(st["auth"].as_array().unwrap().iter().any(|a| a.as_str() == Some(&format!("Bearer {secret}"))));
    // an unset variable is an error naming the variable only
    let mut o2 = o.clone();
    o2.api_key_env = Some("FACTPICO_TEST_UNSET_KEY_VAR".into());
    let e = Evaluator::try_new(Protocol::FullText, &o2).unwrap_err();
    assert!(matches!(e, Error::MissingApiKey { .. }), "{e}");
}

#[test]
fn server_down_at_start_is_a_clear_error_within_seconds() {
    let dir = tempfile::tempdir().unwrap();
    // a port with nothing listening
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let o = options(&format!("http://127.0.0.1:{port}/v1"), dir.path(), StructuredOutput::Grammar);
    let t0 = Instant::now();
    let e = Evaluator::try_new(Protocol::FullText, &o).unwrap_err();
    assert!(t0.elapsed() < Duration::from_secs(5), "took {:?}", t0.elapsed());
    let msg = e.to_string();
    assert!(matches!(e, Error::Unreachable { .. }), "{msg}");
    assert!(msg.contains(&format!("127.0.0.1:{port}")) && msg.contains("Start the server"), "{msg}");
}

#[test]
fn a_server_still_loading_its_model_is_waited_for_within_the_timeout() {
    let Some(h) = Harness::start("loading server") else { return };
    let dir = tempfile::tempdir().unwrap();
    // llama.cpp answers the model list with HTTP 503 "Loading model" until the model is loaded
    let loading = json!({"status": 503, "message": "Loading model"});
    h.cmd(json!({"cmd": "model_faults", "faults": [loading, loading, loading]}));
    let models = |h: &Harness| h.state()["counters"]["models"].as_u64().unwrap();
    let before = models(&h);
    let o = options(&h.url, dir.path(), StructuredOutput::Grammar);
    let ev = Evaluator::try_new(Protocol::FullText, &o).unwrap();
    assert_eq!(models(&h) - before, 4, "three 503s, then the model list");
    assert!(ev.served_model().id.ends_with(".gguf"), "{:?}", ev.served_model());
    drop(ev);
    // one that never finishes loading: an error naming the status, after the patience (timeout)
    h.cmd(json!({"cmd": "model_faults", "faults": vec![loading; 200]}));
    let mut o = options(&h.url, dir.path(), StructuredOutput::Grammar);
    o.runtime.client.timeout_s = 1.0;
    let t0 = Instant::now();
    let e = Evaluator::try_new(Protocol::FullText, &o).unwrap_err();
    let msg = e.to_string();
    assert!(t0.elapsed() < Duration::from_secs(10), "took {:?}", t0.elapsed());
    assert!(msg.contains("HTTP 503 to the model list (after ") && msg.contains("Loading model"), "{msg}");
    h.cmd(json!({"cmd": "model_faults", "faults": []}));
    println!("loading server: waited through 3 × 503; gave up after {:?}: {msg}", t0.elapsed());
}

#[test]
fn corrupt_cache_is_detected_with_what_to_do() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cache.sqlite");
    std::fs::write(&path, b"this is not a database, it is a text file that someone put here".repeat(100)).unwrap();
    let o = options("http://127.0.0.1:9/v1", dir.path(), StructuredOutput::Grammar);
    let e = Evaluator::try_new(Protocol::FullText, &o).unwrap_err();
    assert!(matches!(e, Error::CacheCorrupt { .. }), "{e}");
    let msg = e.to_string();
    assert!(msg.contains("cache.sqlite") && msg.contains("delete it") && msg.contains("`llm.runtime.cache`"), "{msg}");
}

/// A server that ignores `max_tokens` and sends a huge reply: the reply is refused at the
/// `max_reply_bytes` cap (a row error naming the cap), nothing of it is stored, and the
/// other requests of the run are answered.
#[test]
fn a_reply_over_the_size_cap_is_refused_and_never_stored() {
    let Some(h) = Harness::start("reply_cap") else { return };
    let dir = tempfile::tempdir().unwrap();
    let fx = fixtures(1);
    let mut o = options(&h.url, dir.path(), StructuredOutput::Off);
    o.runtime.client.concurrency = 1;
    o.runtime.client.retries = 0;
    o.runtime.client.max_reply_bytes = 64 * 1024;
    let ev = Evaluator::try_new(Protocol::FullText, &o).unwrap();
    let huge = format!("Rating: 1\nRationale: {}", "x".repeat(400_000));
    h.faults(json!([{ "content": huge }]));
    let r = &ev.evaluate(&rows(&fx))[0];
    assert_eq!(r.failed_requests, 1, "{:?}", r.nulls);
    assert_eq!(r.scores["llm_population"], None);
    assert!(r.nulls["llm_population"].contains("65536 bytes"), "{:?}", r.nulls);
    // the other requests of the row were sent and answered
    let stats = ev.stats();
    assert_eq!(stats.failed, 1, "{stats:?}");
    assert!(stats.answered >= 4, "{stats:?}");
    assert!(!r.nulls["llm_intervention"].contains("request failed"), "{:?}", r.nulls);
    let detail = r.detail.to_string();
    assert!(detail.len() < 64 * 1024, "the huge reply reached the row ({} bytes)", detail.len());
    let cache = std::fs::read(dir.path().join("cache.sqlite")).unwrap();
    assert!(cache.len() < 200_000, "the huge reply reached the cache ({} bytes)", cache.len());
}

/// A server answering HTTP 500 to everything: after `stop_after_failures` requests in a row
/// have exhausted their retries, the remaining requests are not sent (no hour of backoff), and
/// every row says why.
#[test]
fn persistent_5xx_stops_the_run_after_failures_in_a_row() {
    let Some(h) = Harness::start("persistent_5xx") else { return };
    let dir = tempfile::tempdir().unwrap();
    let fx = fixtures(4);
    let mut o = options(&h.url, dir.path(), StructuredOutput::Off);
    o.runtime.client.concurrency = 1;
    o.runtime.client.retries = 1;
    o.runtime.client.stop_after_failures = 3;
    let ev = Evaluator::try_new(Protocol::FullText, &o).unwrap();
    h.faults(json!((0..60).map(|_| json!({"status": 500})).collect::<Vec<_>>()));
    let before = h.chat_requests();
    let out = ev.evaluate(&rows(&fx));
    let sent = h.chat_requests() - before;
    // 3 requests x (1 try + 1 retry); every later request is not sent
    assert_eq!(sent, 6, "chat requests sent: {sent}");
    let stats = ev.stats();
    assert_eq!(stats.answered, 0);
    assert_eq!(stats.failed, stats.requests, "{stats:?}");
    let reasons: Vec<&String> = out.iter().flat_map(|r| r.nulls.values()).collect();
    assert!(reasons.iter().any(|s| s.contains("3 requests in a row failed")), "{reasons:?}");
}

/// 429 answers do not count toward the early stop: a burst of them (more than
/// `stop_after_failures` requests' worth) is waited out and every request is answered.
#[test]
fn rate_limits_do_not_count_toward_the_early_stop() {
    let Some(h) = Harness::start("rate_limit_no_stop") else { return };
    let dir = tempfile::tempdir().unwrap();
    let fx = fixtures(1);
    let mut o = options(&h.url, dir.path(), StructuredOutput::Off);
    o.runtime.client.concurrency = 1;
    o.runtime.client.retries = 0;
    o.runtime.client.stop_after_failures = 1;
    let ev = Evaluator::try_new(Protocol::FullText, &o).unwrap();
    h.faults(json!([{"status": 429, "retry_after": "0"}, {"status": 429, "retry_after": "0"}]));
    let out = ev.evaluate(&rows(&fx));
    let stats = ev.stats();
    assert_eq!(stats.failed, 2, "{stats:?}");
    assert!(stats.answered >= 3, "requests after the 429s were not sent: {stats:?}");
    assert!(!out[0].nulls.values().any(|s| s.contains("in a row")), "{:?}", out[0].nulls);
}
