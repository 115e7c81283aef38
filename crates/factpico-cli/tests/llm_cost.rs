//! Cost and usage of the LLM evaluators (issue 24 item 6) and the re-run count of a failed
//! pipeline run (issue 24 defect 5), against a REAL llama.cpp server (PyPI `xllamacpp`, tiny
//! random-weight GGUF) behind the fault-injecting proxy of `crates/factpico-llm/tests/support`:
//!
//! * the run report's token counts equal the sum of the `usage` of the distinct requests in
//!   the rows' details, and its cost line equals tokens × price;
//! * a re-run from the cache reports those tokens as cached, zero sent, and what they saved;
//!   the prices change neither the provenance nor the request bodies;
//! * `--dry-run` states the basis of its estimate and prices it;
//! * a pipeline run whose extraction requests fail exits 3 saying how many requests a re-run
//!   sends, and the re-run sends exactly that many.
#![cfg(feature = "llm")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

#[path = "../../factpico-llm/tests/support/mod.rs"]
mod support;
#[path = "support/llm_cli.rs"]
mod llm_cli;

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::{json, Value};
use support::Harness;
use llm_cli::{bin, fixtures, number_after, report, rows, text, tokens};

/// The tiny model's flags, without retries (each test adds its own).
fn llm_args(url: &str, cache: &Path) -> Vec<String> {
    [
        "--llm-base-url", url, "--llm-model", "tiny", "--llm-structured", "grammar", "--llm-max-tokens", "60",
        "--llm-extract-max-tokens", "24", "--llm-rationale-max-chars", "24", "--llm-timeout", "120", "--llm-cache",
    ]
    .iter()
    .map(|s| (*s).to_owned())
    .chain([cache.display().to_string()])
    .collect()
}

/// Sum of the `usage` of the distinct requests in the rows' details of `metric`. Each request
/// is named by what its body is made of: full text, (abstract, summary, element) and (summary,
/// span); pipeline stage 1, (kind, text); stage 2, the extraction replies it quotes and the
/// element or span. A request shared by rows (one abstract's extraction) counts once.
fn usage_of_details(rows: &[Value], metric: &str) -> (u64, u64, usize) {
    let mut seen: BTreeMap<String, (u64, u64)> = BTreeMap::new();
    let mut add = |id: String, d: &Value| {
        if let Some(u) = d.get("usage").filter(|u| u.is_object()) {
            let t = (u["prompt_tokens"].as_u64().unwrap(), u["completion_tokens"].as_u64().unwrap());
            if let Some(old) = seen.insert(id.clone(), t) {
                assert_eq!(old, t, "{id}: one request, two usages");
            }
        }
    };
    for r in rows {
        let d = &r["details"][metric];
        let x = &d["extraction"];
        let reply = |k: &str| x[k]["reply"].as_str().unwrap_or("").to_owned();
        for (e, v) in d["elements"].as_object().unwrap() {
            let id = if x.is_object() {
                format!("s2|{}|{}|{e}", reply("abstract_pico"), reply("summary_pico"))
            } else {
                format!("ft|{}|{}|{e}", r["input_texts"]["source"], r["input_texts"]["summary"])
            };
            add(id, v);
        }
        for v in d["evidence"].as_array().unwrap() {
            let id = if x.is_object() {
                format!("s2r|{}|{}", reply("summary_results"), v["span"])
            } else {
                format!("ftr|{}|{}", r["input_texts"]["summary"], v["span"])
            };
            add(id, v);
        }
        if x.is_object() {
            for (k, text) in [("abstract_pico", "source"), ("summary_pico", "summary"), ("summary_results", "summary")] {
                add(format!("s1|{k}|{}", r["input_texts"][text]), &x[k]);
            }
        }
    }
    let (p, c) = seen.values().fold((0, 0), |(p, c), (a, b)| (p + a, c + b));
    (p, c, seen.len())
}

/// Joins each output row with its input texts (the rows carry only a hash of them).
fn with_inputs(mut out: Vec<Value>) -> Vec<Value> {
    let input: Vec<Value> =
        std::fs::read_to_string(fixtures().join("pairs.jsonl")).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(out.len(), input.len());
    for (r, i) in out.iter_mut().zip(&input) {
        assert_eq!(r["id"], i["id"]);
        r["input_texts"] = json!({"source": i["source"], "summary": i["summary"]});
    }
    out
}

#[test]
fn the_report_counts_the_tokens_of_the_details_prices_them_and_a_cached_rerun_sends_none() {
    let Some(h) = Harness::start("cli llm cost") else { return };
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.jsonl");
    let summary = dir.path().join("summary.md");
    let cache = dir.path().join("cache.sqlite");
    let input = fixtures().join("pairs.jsonl");
    let run = |prices: &[&str]| {
        bin(dir.path())
            .args(["score", input.to_str().unwrap(), "--metrics", "llm,llm_pipeline", "-o", out.to_str().unwrap()])
            .args(["--summary", summary.to_str().unwrap(), "--no-sentences"])
            .args(llm_args(&h.url, &cache))
            .args(["--llm-retries", "2"])
            .args(prices)
            .output()
            .unwrap()
    };
    let (pin, pout) = (2.5, 10.0);
    let o = run(&["--llm-price-input", "2.5", "--llm-price-output", "10"]);
    let (stdout, stderr) = text(&o);
    assert!(o.status.success(), "{stderr}");
    let table = std::fs::read_to_string(&summary).unwrap();
    assert!(stdout.contains("cost: "), "the report on the terminal has the cost line: {stdout}");
    let first = with_inputs(rows(&out));
    let provenance1 = std::fs::read_to_string(format!("{}.provenance.json", out.display())).unwrap();
    let mut sent = BTreeMap::new();
    for m in ["llm", "llm_pipeline"] {
        let r = report(&table, m);
        let (p, c) = tokens(&r["tokens sent"]);
        let (dp, dc, n) = usage_of_details(&first, m);
        assert_eq!((p, c), (dp, dc), "{m}: report {r:?}, details {dp} + {dc} over {n} requests");
        assert!(p > 0 && c > 0, "{m}: {r:?}");
        assert!(r["requests"].starts_with(&format!("{n} distinct: 0 from the cache, {n} sent and answered, 0 failed")), "{m}: {r:?}");
        assert_eq!(tokens(&r["tokens of cached answers"]), (0, 0), "{m}");
        let cost = &r["cost"];
        let want = (p as f64 * pin + c as f64 * pout) / 1e6;
        let got = number_after(cost, "");
        assert!((got - want).abs() < 1e-6, "{m}: cost {got} ≠ {want}: {cost}");
        assert!(cost.contains(&format!("({p} prompt + {c} completion at 2.5 per million prompt tokens, 10 per million completion tokens)")), "{cost}");
        assert!(cost.ends_with(", and the 0 answers from the cache would have cost 0.000000 more (saved)"), "{cost}");
        println!("{m}: {n} requests, {p} prompt + {c} completion tokens, cost {got:.6} at {pin}/{pout} per million");
        sent.insert(m, (n, p, c));
    }
    let chat = h.chat_requests();

    // The same command from the cache, with other prices: nothing sent, the same tokens
    // reported as cached, their cost as saved; the provenance (and so `run`) is unchanged.
    let o = run(&["--llm-price-input", "1", "--llm-price-output", "3"]);
    let (_, stderr) = text(&o);
    assert!(o.status.success(), "{stderr}");
    assert_eq!(h.chat_requests(), chat, "the re-run sent chat requests");
    let table = std::fs::read_to_string(&summary).unwrap();
    for m in ["llm", "llm_pipeline"] {
        let r = report(&table, m);
        let (n, p, c) = sent[m];
        assert!(r["requests"].starts_with(&format!("{n} distinct: {n} from the cache, 0 sent and answered, 0 failed")), "{m}: {r:?}");
        assert_eq!(tokens(&r["tokens sent"]), (0, 0), "{m}");
        assert_eq!(tokens(&r["tokens of cached answers"]), (p, c), "{m}");
        let cost = &r["cost"];
        assert!(cost.starts_with("0.000000 for the tokens sent (0 prompt + 0 completion at 1 per million prompt tokens, 3 per million completion tokens)"), "{cost}");
        let saved = number_after(cost, &format!("the {n} answers from the cache would have cost "));
        assert!((saved - (p as f64 + 3.0 * c as f64) / 1e6).abs() < 1e-6, "{m}: {cost}");
    }
    let provenance2 = std::fs::read_to_string(format!("{}.provenance.json", out.display())).unwrap();
    assert_eq!(provenance1, provenance2, "the prices entered the provenance");
    assert!(!provenance1.contains("price"), "{provenance1}");
    // No request body carries a price.
    let bodies = h.state()["bodies"].to_string();
    assert!(!bodies.contains("price"), "{bodies}");
}

#[test]
fn dry_run_states_its_basis_and_prices_the_estimate() {
    let dir = tempfile::tempdir().unwrap();
    // nothing listens there: a dry run contacts no server
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let url = format!("http://127.0.0.1:{port}/v1");
    let dry = |extra: &[&str]| {
        let o = bin(dir.path())
            .args(["score", fixtures().join("pairs.jsonl").to_str().unwrap(), "--metrics", "llm,llm_pipeline,llm_minicheck", "--dry-run"])
            .args(["--llm-base-url", &url, "--llm-model", "m"])
            .args(extra)
            .output()
            .unwrap();
        let (stdout, stderr) = text(&o);
        assert!(o.status.success(), "{stderr}");
        stdout
    };
    let stdout = dry(&["--llm-price-input", "2.5", "--llm-price-output", "10"]);
    for m in ["llm", "llm_pipeline"] {
        let line = stdout.lines().find(|l| l.starts_with(&format!("{m}: "))).unwrap_or_else(|| panic!("{stdout}"));
        let prompt = number_after(line, "estimated prompt tokens ≈ ");
        let completion = number_after(line, "completion tokens at most ");
        let cost = number_after(line, "Estimated cost: about ");
        let want = (prompt * 2.5 + completion * 10.0) / 1e6;
        assert!((cost - want).abs() < 1e-6, "{m}: {cost} ≠ {want}: {line}");
        for basis in [
            "⌈characters/4⌉ per message",
            "(every reply at its max tokens, an upper bound)",
            "answers already in the cache are not subtracted (the cache was not checked",
            "at 2.5 per million prompt tokens, 10 per million completion tokens",
        ] {
            assert!(line.contains(basis), "{m}: {basis:?} not in {line}");
        }
    }
    assert!(stdout.contains("llm: 66 requests for 12 rows (12 with evidence spans)"), "{stdout}");
    // llm_minicheck: one token per check, priced the same way, with the same basis.
    let line = stdout.lines().find(|l| l.starts_with("llm_minicheck: ")).unwrap_or_else(|| panic!("{stdout}"));
    let requests = number_after(line, "llm_minicheck: ");
    let prompt = number_after(line, "estimated prompt tokens ≈ ");
    assert_eq!(number_after(line, "completion tokens at most "), requests, "{line}");
    let cost = number_after(line, "Estimated cost: about ");
    assert!((cost - (prompt * 2.5 + requests * 10.0) / 1e6).abs() < 1e-6, "{cost}: {line}");
    assert!(requests > 12.0 && prompt > requests * 50.0, "{line}");
    assert!(line.contains("answers already in the cache are not subtracted (the cache was not checked"), "{line}");
    // Without max tokens (the paper's GPT-4 preset) the completion, hence the cost, is unbounded.
    let stdout = dry(&["--llm-price-input", "2.5", "--llm-preset", "paper-gpt4"]);
    assert!(stdout.contains("completion tokens unbounded (no max tokens is sent)"), "{stdout}");
    assert!(stdout.contains("the completion tokens are not bounded, so neither is the cost"), "{stdout}");
    // Without prices: no cost, the basis all the same.
    let stdout = dry(&[]);
    assert!(!stdout.contains("Estimated cost") && stdout.contains("not subtracted"), "{stdout}");
    // A bad price is refused naming the flag.
    let o = bin(dir.path())
        .args(["score", fixtures().join("pairs.jsonl").to_str().unwrap(), "--metrics", "llm", "-o", "-", "-q"])
        .args(["--llm-base-url", &url, "--llm-model", "m", "--llm-price-output=-1"])
        .output()
        .unwrap();
    let (_, stderr) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("--llm-price-output must be a non-negative number"), "{stderr}");
}

/// One failed pipeline run and its re-run: `(message, resend, waiting, asked)`: the exit-3
/// message, the requests it says a re-run sends at most, of which rating requests waiting on
/// failed extractions, and the chat requests the re-run sent. The probe passes, the next 5 chat
/// requests (extractions: stage 1 is all that is in flight before stage 2) get HTTP 500. With
/// `distinct`, every extraction reply (of both runs) is replaced by a text of its own, so no two
/// rating prompts coincide (the tiny random model gives the same reply to different texts).
fn failed_pipeline_run(h: &Harness, dir: &Path, name: &str, distinct: bool) -> (String, u64, u64, u64) {
    let out = dir.join(format!("{name}.jsonl"));
    let cache = dir.join(format!("{name}.sqlite"));
    let summary = dir.join(format!("{name}.summary.md"));
    let input = fixtures().join("pairs.jsonl");
    let run = || {
        bin(dir)
            .args(["score", input.to_str().unwrap(), "--metrics", "llm_pipeline", "-o", out.to_str().unwrap(), "-q", "--no-sentences"])
            .args(["--summary", summary.to_str().unwrap()])
            .args(llm_args(&h.url, &cache))
            .args(["--llm-retries", "0", "--llm-stop-after-failures", "0"])
            .output()
            .unwrap()
    };
    // 6 abstracts + 12 summaries + 12 results extractions = 30 in stage 1; with `distinct`,
    // the 25 answered get their own text (any later entries would replace rating replies).
    let quote = |run: &str, i: usize| json!({"content": format!("Population: \"{run} quote {i}\"")});
    let mut faults = vec![json!({})];
    faults.extend(vec![json!({"status": 500}); 5]);
    if distinct {
        faults.extend((0..25).map(|i| quote("first", i)));
    }
    h.faults(json!(faults));
    let o = run();
    let (_, stderr) = text(&o);
    assert_eq!(o.status.code(), Some(3), "{stderr}");
    let msg = stderr.lines().find(|l| l.starts_with("error: llm_pipeline: ")).unwrap_or_else(|| panic!("{stderr}")).to_owned();
    assert!(msg.contains("5 requests failed after their retries"), "{msg}");
    let resend = number_after(&msg, "it sends at most ") as u64;
    let waiting = number_after(&msg, "the 5 failed ones and ") as u64;
    assert!(
        msg.contains(&format!("it sends at most {resend}: the 5 failed ones and {waiting} rating requests that wait on failed extractions")),
        "{msg}"
    );
    assert_eq!(resend, 5 + waiting, "{msg}");
    assert!(waiting > 0, "{msg}");
    let failed_extractions: usize = rows(&out)
        .iter()
        .map(|x| {
            ["abstract_pico", "summary_pico", "summary_results"]
                .iter()
                .filter(|k| x["details"]["llm_pipeline"]["extraction"][**k].get("error").is_some())
                .count()
        })
        .sum();
    assert!(failed_extractions >= 5, "{failed_extractions}");
    let table = std::fs::read_to_string(&summary).unwrap();
    assert_eq!(
        report(&table, "llm_pipeline")["a re-run sends at most"],
        format!("{resend} (5 failed + {waiting} rating requests waiting on failed extractions)"),
        "{table}"
    );
    if distinct {
        h.faults(json!((0..5).map(|i| quote("second", i)).collect::<Vec<_>>()));
    }
    let before = h.chat_requests();
    let o = run();
    let (_, stderr) = text(&o);
    assert!(o.status.success(), "{stderr}");
    (msg, resend, waiting, h.chat_requests() - before)
}

/// Defect 5: stage-2 requests are never formed when their extraction fails, so a re-run sends
/// more than the failed requests; the message counts them. With distinct extraction replies the
/// re-run sends exactly that many; with the tiny model's own (often identical) replies, at most.
#[test]
fn a_pipeline_run_with_failed_extractions_says_how_many_requests_the_rerun_sends() {
    let Some(h) = Harness::start("cli llm rerun count") else { return };
    let dir = tempfile::tempdir().unwrap();
    let (msg, resend, waiting, asked) = failed_pipeline_run(&h, dir.path(), "distinct", true);
    assert_eq!(asked, resend, "the message said a re-run sends at most {resend}; it sent {asked}: {msg}");
    println!("cli llm: 5 extractions failed → exit 3, the message: a re-run sends at most {resend} (5 + {waiting} waiting ratings); it sent {asked}");
    let (msg, resend, waiting, asked) = failed_pipeline_run(&h, dir.path(), "model", false);
    assert!(asked <= resend && asked >= 5, "the message said a re-run sends at most {resend}; it sent {asked}: {msg}");
    println!("cli llm: the tiny model's own replies: at most {resend} (5 + {waiting}); it sent {asked}");
}
