//! Issue 24 items 1-3 against a REAL llama.cpp server (tiny random-weight GGUF, the harness of
//! `crates/factpico-llm/tests/support`): probability-weighted ratings equal to the expectation
//! computed here from the logprobs the server sent, documented nulls and a warning when a
//! server sends none, the rating-only prompt variant (one generated token), rationale-first
//! replies, and repeated samples (mean column, majority and spread; raising N sends only the
//! new samples; temperature 0 refused).
#![cfg(feature = "llm")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

#[path = "../../factpico-llm/tests/support/mod.rs"]
mod support;
#[path = "support/llm_cli.rs"]
mod llm_cli;

use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::{json, Value};
use support::Harness;
use llm_cli::{bin, fixtures, rows};

/// The first `n` fixture pairs, as a JSONL file in `dir`.
fn input(dir: &Path, n: usize) -> PathBuf {
    let text = std::fs::read_to_string(fixtures().join("pairs.jsonl")).unwrap();
    let p = dir.join("in.jsonl");
    std::fs::write(&p, text.lines().take(n).map(|l| format!("{l}\n")).collect::<String>()).unwrap();
    p
}

fn score(dir: &Path, url: &str, input: &Path, out: &Path, extra: &[&str]) -> Output {
    bin(dir)
        .args(["score", input.to_str().unwrap(), "--metrics", "llm", "-o", out.to_str().unwrap(), "--explain"])
        .args(["--llm-base-url", url, "--llm-model", "tiny", "--llm-rationale-max-chars", "24"])
        .args(if extra.contains(&"--llm-max-tokens") { &[][..] } else { &["--llm-max-tokens", "60"][..] })
        .args(["--llm-cache", dir.join("cache.sqlite").to_str().unwrap(), "--llm-retries", "1", "--llm-timeout", "120"])
        .args(["--llm-concurrency", "1"])
        .args(extra)
        .output()
        .unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The expected weighted rating of one reply, computed here from the raw server reply (the
/// rule of docs/llm.md): the token holding the rating digit is the first token with a digit
/// after `after` (the label) in the generated text; its `top_logprobs` entries that are one
/// digit of the scale (trimmed) give p(k); renormalised; N/A (5) most probable → None; else
/// Σ p(k)(5-k) / Σ_{k≤4} p(k).
fn expected_weighted(reply: &Value, after: &str, na: bool) -> Option<f64> {
    let content = reply["choices"][0]["logprobs"]["content"].as_array().unwrap();
    let mut text = String::new();
    let mut found = None;
    for t in content {
        let tok = t["token"].as_str().unwrap();
        let before = text.len();
        text.push_str(tok);
        if let Some(pos) = text.find(after) {
            let start = pos + after.len();
            if tok.chars().any(|c| c.is_ascii_digit()) && text.len() > start && before.max(start) < text.len() {
                found = Some(t);
                break;
            }
        }
    }
    let t = found?;
    let mut p = [0.0f64; 6];
    let tops = t["top_logprobs"].as_array().unwrap();
    let mut alts: Vec<&Value> = tops.iter().collect();
    let is_digit = |v: &Value| v["token"].as_str().unwrap().trim().len() == 1 && v["token"].as_str().unwrap().trim().chars().all(|c| c.is_ascii_digit());
    if !tops.iter().any(|a| a["token"] == t["token"]) {
        if !tops.iter().any(is_digit) {
            return None; // only the sampled digit, forced by the constraint: no weighted value
        }
        alts.push(t); // the sampled token counts too when the server left it out of the top list
    }
    for alt in alts {
        let s = alt["token"].as_str().unwrap().trim();
        if s.len() == 1 {
            if let Some(d) = s.chars().next().unwrap().to_digit(10) {
                if (1..=if na { 5 } else { 4 }).contains(&d) {
                    p[d as usize] += alt["logprob"].as_f64().unwrap().exp();
                }
            }
        }
    }
    let total: f64 = p.iter().sum();
    let p: Vec<f64> = p.iter().map(|x| x / total).collect();
    if na && p[5] > p[1..5].iter().cloned().fold(0.0, f64::max) {
        return None;
    }
    let rated: f64 = p[1..5].iter().sum();
    Some((1..5).map(|k| p[k] * (5 - k) as f64).sum::<f64>() / rated)
}

#[test]
fn weighted_ratings_equal_the_expectation_over_the_servers_logprobs() {
    // the harness's --minicheck tiny model puts the rating digits among the first generated
    // token's top alternatives (a real spread for rating-only replies); after a label the
    // constraint forces a digit the model does not consider, and the weighted value is null
    let Some(h) = Harness::start_with("cli llm weighted", &["--parallel", "1", "--minicheck"]) else { return };
    let dir = tempfile::tempdir().unwrap();
    let inp = input(dir.path(), 2);
    let out = dir.path().join("w.jsonl");
    let mut checked = 0;
    for (mode, label, prompt) in [
        ("grammar", "", "rating-only"),
        ("json-schema", "", "rating-only"),
        ("grammar", "Rating: ", "published"),
        ("json-schema", "\"rating\"", "published"),
    ] {
        let before = h.chat_requests();
        let o = score(dir.path(), &h.url, &inp, &out, &["--llm-logprobs", "--llm-structured", mode, "--llm-prompt", prompt, "--llm-elements", "population,outcome", "--llm-max-tokens", "400"]);
        // the published prompts' replies may all be N/A with this model: no value is exit 3
        let ok = if prompt == "published" { matches!(o.status.code(), Some(0 | 3)) } else { o.status.success() };
        assert!(ok, "{mode} {prompt}: {:?} {}", o.status, stderr(&o));
        let sent = h.chat_requests() - before;
        assert!((4..=5).contains(&sent), "2 rows x 2 elements (and the structured-output probe once): {sent}");
        let st = h.cmd(json!({"cmd": "state", "exchanges": true}));
        let ex = st["exchanges"].as_array().unwrap();
        let ex = &ex[ex.len() - 4..];
        for e in ex {
            assert_eq!((e["body"]["logprobs"].clone(), e["body"]["top_logprobs"].clone()), (json!(true), json!(10)), "{e}");
        }
        let summaries: Vec<Value> = std::fs::read_to_string(&inp).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        // each row's weighted column is the expectation over the logprobs of the reply to the
        // request that carried that row's summary and element
        for (r, input_row) in rows(&out).iter().zip(&summaries) {
            let summary = input_row["summary"].as_str().unwrap();
            for el in ["population", "outcome"] {
                let d = &r["details"]["llm"]["elements"][el];
                let reply = &ex
                    .iter()
                    .find(|e| {
                        let m = &e["body"]["messages"];
                        let text = format!("{}{}", m[0]["content"].as_str().unwrap(), m[1]["content"].as_str().unwrap());
                        text.contains(summary) && text.contains(&format!("Find the {el} in accordance"))
                    })
                    .unwrap_or_else(|| panic!("{mode}: no request for {el} of row {}", r["id"]))["reply"];
                assert_eq!(reply["choices"][0]["message"]["content"], d["reply"]);
                let want = expected_weighted(reply, label, true);
                let got = r["scores"][format!("llm_{el}_weighted")].as_f64();
                match (want, got) {
                    (Some(w), Some(g)) => assert!((w - g).abs() < 1e-9, "{mode} {el}: expected {w}, got {g}"),
                    (None, None) => assert!(r["nulls"][format!("llm_{el}_weighted")].is_string()),
                    other => panic!("{mode} {el}: {other:?} ({})", d),
                }
                checked += usize::from(got.is_some());
                // the sampled column is still the sampled digit
                assert_eq!(r["scores"][format!("llm_{el}")].as_f64(), d["score"].as_f64());
            }
            // weighted P/O mean; comparator not requested
            assert!(r["scores"]["llm_comparator_weighted"].is_null());
            assert!(r["nulls"]["llm_comparator_weighted"].as_str().unwrap().contains("not requested"));
        }
    }
    assert!(checked > 0, "no weighted value to compare");
    // a server that sends no logprobs: weighted columns are documented nulls, stderr warns,
    // the run report says how many; the sampled ratings are kept; exit 0
    h.cmd(json!({"cmd": "faults", "faults": [], "strip_logprobs": true}));
    let o = score(dir.path(), &h.url, &inp, &out, &["--llm-logprobs", "--llm-elements", "evidence", "--llm-structured", "grammar", "--llm-seed", "3"]);
    let err = stderr(&o);
    assert!(o.status.success(), "{err}");
    assert!(err.contains("sent no logprobs"), "{err}");
    assert!(String::from_utf8_lossy(&o.stdout).contains("replies came without logprobs"));
    for r in rows(&out) {
        assert!(r["scores"]["llm_evidence_weighted"].is_null());
        assert!(r["nulls"]["llm_evidence_weighted"].as_str().unwrap().contains("no logprobs"), "{r}");
        assert!(r["scores"]["llm_evidence"].is_number(), "the sampled rating is kept: {r}");
    }
    // without --llm-logprobs the weighted columns say how to get them
    h.cmd(json!({"cmd": "faults", "faults": [], "strip_logprobs": false}));
    let o = score(dir.path(), &h.url, &inp, &out, &["--llm-elements", "evidence", "--llm-structured", "grammar"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(rows(&out)[0]["nulls"]["llm_evidence_weighted"].as_str().unwrap().contains("llm.logprobs"));
}

#[test]
fn rating_only_prompts_rationale_first_and_samples() {
    let Some(h) = Harness::start("cli llm variants") else { return };
    let dir = tempfile::tempdir().unwrap();
    let inp = input(dir.path(), 2);
    let out = dir.path().join("v.jsonl");

    // rating-only: one generated token, the texts first, the digit constrained (the tiny
    // model answers N/A to every P/I/C/O prompt, so evidence spans, on 1-4, give values)
    let before = h.chat_requests();
    let o = score(dir.path(), &h.url, &inp, &out, &["--llm-prompt", "rating-only", "--llm-structured", "grammar", "--llm-elements", "population,evidence", "--llm-logprobs"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let sent = usize::try_from(h.chat_requests() - before).unwrap();
    let st = h.state();
    let bodies = st["bodies"].as_array().unwrap();
    let mut pico = 0;
    for b in bodies[bodies.len() - sent..].iter().filter(|b| b["messages"][0]["content"] != json!("Rate the summary between 1 to 4.")) {
        assert_eq!(b["max_tokens"], json!(1), "{b}");
        let user = b["messages"][1]["content"].as_str().unwrap();
        assert!(user.trim_end().ends_with("Answer with the rating's digit only."), "{user}");
        assert!(!user.contains("Provide the rating after stating"));
        if user.starts_with("Abstract:\n") {
            pico += 1;
            assert_eq!(b["grammar"], json!("root ::= [1-5]"));
        } else {
            assert!(user.starts_with("Summary:\n") && user.contains("\n\nResult Inference Span:\n"), "{user}");
            assert_eq!(b["grammar"], json!("root ::= [1-4]"));
        }
    }
    assert_eq!(pico, 2, "one population request per row");
    for r in rows(&out) {
        let d = &r["details"]["llm"]["elements"]["population"];
        let reply = d["reply"].as_str().unwrap();
        assert_eq!(reply.len(), 1, "one digit: {reply:?}");
        let digit: f64 = reply.parse().unwrap();
        let want = if digit == 5.0 { None } else { Some(5.0 - digit) };
        assert_eq!(r["scores"]["llm_population"].as_f64(), want);
        let spans = r["details"]["llm"]["evidence"].as_array().unwrap();
        let vals: Vec<f64> = spans.iter().map(|s| 5.0 - s["reply"].as_str().unwrap().parse::<f64>().unwrap()).collect();
        let mean = vals.iter().sum::<f64>() / vals.len() as f64;
        assert!((r["scores"]["llm_evidence"].as_f64().unwrap() - mean).abs() < 1e-12);
        // the default tiny model has no digit among its top alternatives: a documented null
        match r["scores"]["llm_evidence_weighted"].as_f64() {
            Some(w) => assert!((1.0..=4.0).contains(&w)),
            None => assert!(r["nulls"]["llm_evidence_weighted"].as_str().unwrap().contains("no digit of the scale"), "{r}"),
        }
    }
    let prov: Value = serde_json::from_str(&std::fs::read_to_string(format!("{}.provenance.json", out.display())).unwrap()).unwrap();
    assert_eq!(prov["metrics"]["llm"]["prompt"], json!("rating-only"), "{}", prov["metrics"]["llm"]);

    // rationale first (JSON schema): the replies open with the rationale
    let o = score(dir.path(), &h.url, &inp, &out, &["--llm-rationale-first", "--llm-elements", "outcome,evidence", "--llm-max-tokens", "400"]);
    assert!(o.status.success(), "{}", stderr(&o));
    for r in rows(&out) {
        let reply = r["details"]["llm"]["elements"]["outcome"]["reply"].as_str().unwrap();
        assert!(reply.trim_start().starts_with("{\"rationale\""), "{reply}");
        for s in r["details"]["llm"]["evidence"].as_array().unwrap() {
            assert!(s["reply"].as_str().unwrap().trim_start().starts_with("{\"rationale\""), "{s}");
        }
    }
    // and the default order is still rating first
    let o = score(dir.path(), &h.url, &inp, &out, &["--llm-elements", "outcome,evidence", "--llm-max-tokens", "400"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let reply = rows(&out)[0]["details"]["llm"]["elements"]["outcome"]["reply"].as_str().unwrap().to_owned();
    assert!(reply.trim_start().starts_with("{\"rating\""), "{reply}");

    // samples: refused at temperature 0 (the default preset), naming the flag
    let o = score(dir.path(), &h.url, &inp, &out, &["--llm-samples", "3", "--llm-elements", "evidence"]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("--llm-samples") && stderr(&o).contains("temperature"), "{}", stderr(&o));
    // 3 samples at temperature 0.9: 3 requests per evidence span, seeds 0, 1, 2
    let spans: u64 = std::fs::read_to_string(&inp)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap()["evidence"].as_array().map_or(0, |a| a.len() as u64))
        .sum();
    assert!(spans > 0);
    let samp = |n: &str| {
        let before = h.chat_requests();
        let o = score(dir.path(), &h.url, &inp, &out, &["--llm-samples", n, "--llm-temperature", "0.9", "--llm-elements", "evidence", "--llm-structured", "grammar"]);
        assert!(o.status.success(), "{}", stderr(&o));
        h.chat_requests() - before
    };
    let first = samp("3");
    assert!(first == 3 * spans || first == 3 * spans + 1, "{first} requests: 3 per span (and this sampling's structured-output probe once)");
    let st = h.state();
    let bodies = st["bodies"].as_array().unwrap();
    let n = usize::try_from(3 * spans).unwrap();
    let mut seeds: Vec<u64> = bodies[bodies.len() - n..].iter().map(|b| b["seed"].as_u64().unwrap()).collect();
    seeds.sort_unstable();
    seeds.dedup();
    assert_eq!(seeds, vec![0, 1, 2]);
    for r in rows(&out) {
        let mut span_means = Vec::new();
        for d in r["details"]["llm"]["evidence"].as_array().unwrap() {
            let samples = d["samples"].as_array().unwrap();
            assert_eq!(samples.len(), 3);
            let scores: Vec<f64> = samples.iter().filter_map(|s| s["score"].as_f64()).collect();
            assert_eq!(d["score"].as_f64(), (!scores.is_empty()).then(|| scores.iter().sum::<f64>() / scores.len() as f64));
            if !scores.is_empty() {
                span_means.push(scores.iter().sum::<f64>() / scores.len() as f64);
                let mean = span_means[span_means.len() - 1];
                let sd = (scores.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / scores.len() as f64).sqrt();
                assert!((d["spread"].as_f64().unwrap() - sd).abs() < 1e-12);
            }
            // the majority is the most frequent prompt rating among the samples
            let ratings: Vec<u64> = samples.iter().filter_map(|s| s["rating"].as_u64()).collect();
            if let Some(m) = d["majority"].as_u64() {
                let count = |x: u64| ratings.iter().filter(|&&y| y == x).count();
                assert!(ratings.iter().all(|&x| count(x) <= count(m)), "{ratings:?} majority {m}");
            }
        }
        // the evidence column: mean over the spans of the sample means
        if let Some(v) = r["scores"]["llm_evidence"].as_f64() {
            assert!((v - span_means.iter().sum::<f64>() / span_means.len() as f64).abs() < 1e-12);
        }
    }
    // raising N from 3 to 5 sends only the 2 new samples per span; back to 3 sends none
    assert_eq!(samp("5"), 2 * spans);
    assert_eq!(samp("3"), 0);
}

/// `--dry-run` refuses what the run would refuse (exit 2, the flag named), without a server.
#[test]
fn dry_run_refuses_invalid_second_step_options() {
    let dir = tempfile::tempdir().unwrap();
    let inp = input(dir.path(), 2);
    let url = "http://127.0.0.1:9/v1";
    for (extra, want) in [
        (vec!["--llm-samples", "3"], "--llm-samples 3 needs a temperature above 0"),
        (vec!["--llm-samples", "0"], "--llm-samples must be from 1 to 64"),
        (vec!["--llm-prompt", "rating-only", "--llm-rationale-first"], "--llm-rationale-first cannot be combined"),
        (vec!["--llm-rationale-first", "--llm-structured", "off"], "--llm-rationale-first needs --llm-structured json-schema or grammar"),
        (vec!["--llm-temperature", "NaN"], "--llm-temperature must be a finite number"),
        (vec!["--llm-concurrency", "0"], "--llm-concurrency must be at least 1"),
        (vec!["--llm-price-input", "inf"], "must be a non-negative number"),
    ] {
        let o = bin(dir.path())
            .args(["score", inp.to_str().unwrap(), "--metrics", "llm", "--dry-run", "--llm-base-url", url, "--llm-model", "m"])
            .args(&extra)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2), "{extra:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(want), "{extra:?}: {}", stderr(&o));
    }
    // a valid dry run still exits 0
    let o = bin(dir.path())
        .args(["score", inp.to_str().unwrap(), "--metrics", "llm", "--dry-run", "--llm-base-url", url, "--llm-model", "m"])
        .args(["--llm-samples", "2", "--llm-temperature", "0.7", "--llm-logprobs"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

/// A closed standard error (`factpico … 2>&1 | head`) is no panic: the output is finalised.
#[test]
fn a_closed_stderr_does_not_abort_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("o.jsonl");
    for _ in 0..3 {
        let mut child = bin(dir.path())
            .args(["score", fixtures().join("pairs.jsonl").to_str().unwrap(), "--metrics", "rougeL", "-o", out.to_str().unwrap()])
            .stderr(std::process::Stdio::piped())
            .stdout(std::process::Stdio::null())
            .spawn()
            .unwrap();
        drop(child.stderr.take());
        let status = child.wait().unwrap();
        assert_eq!(status.code(), Some(0), "exit {status:?} (101 = a panic)");
        assert_eq!(rows(&out).len(), 12);
    }
}
