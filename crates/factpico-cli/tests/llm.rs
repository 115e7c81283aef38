//! `factpico score` with the LLM evaluators against a REAL llama.cpp server (PyPI `xllamacpp`,
//! tiny random-weight GGUF) behind the fault-injecting proxy of
//! `crates/factpico-llm/tests/support`: every column or a documented null, rationales and raw
//! replies in `--explain`, a re-run with zero chat requests, `--dry-run`, a run whose server
//! dies (exit 3, nothing lost, the re-run asks only the missing), evidence spans from CSV, and
//! an API key that never reaches the output.
#![cfg(feature = "llm")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

#[path = "../../factpico-llm/tests/support/mod.rs"]
mod support;
#[path = "support/llm_cli.rs"]
mod llm_cli;

use std::path::Path;

use serde_json::{json, Value};
use support::Harness;
use llm_cli::{bin, fixtures, text};
use llm_cli::rows_with_provenance as rows;


/// The common LLM flags for the tiny model.
fn llm_args(url: &str, cache: &Path) -> Vec<String> {
    [
        "--llm-base-url", url, "--llm-model", "tiny", "--llm-structured", "grammar", "--llm-max-tokens", "60",
        "--llm-extract-max-tokens", "24", "--llm-rationale-max-chars", "24", "--llm-cache",
    ]
    .iter()
    .map(|s| (*s).to_owned())
    .chain([cache.display().to_string(), "--llm-retries".into(), "2".into(), "--llm-timeout".into(), "120".into()])
    .collect()
}

const COLUMNS: [&str; 7] = ["population", "intervention", "comparator", "outcome", "evidence", "avg", "pio"];

#[test]
fn score_writes_every_column_explains_and_a_rerun_makes_zero_requests() {
    let Some(h) = Harness::start("cli llm score") else { return };
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.jsonl");
    let cache = dir.path().join("cache.sqlite");
    let input = fixtures().join("pairs.jsonl");
    let run = |extra: &[&str]| {
        bin(dir.path())
            .args(["score", input.to_str().unwrap(), "--metrics", "llm,llm_pipeline", "-o", out.to_str().unwrap(), "--explain"])
            .args(llm_args(&h.url, &cache))
            .args(extra)
            .output()
            .unwrap()
    };
    let o = run(&[]);
    let (stdout, stderr) = text(&o);
    assert!(o.status.success(), "{stderr}");
    let sent = h.chat_requests();
    assert!(sent > 100, "{sent} chat requests");
    let first = rows(&out);
    assert_eq!(first.len(), 12);
    for r in &first {
        for m in ["llm", "llm_pipeline"] {
            for c in COLUMNS {
                let col = format!("{m}_{c}");
                match &r["scores"][&col] {
                    Value::Number(v) => {
                        let v = v.as_f64().unwrap();
                        assert!((1.0..=4.0).contains(&v), "{col} = {v}");
                    }
                    Value::Null => assert!(r["nulls"][&col].is_string(), "{col} null without a reason: {r}"),
                    other => panic!("{col}: {other}"),
                }
            }
            // every fixture row has evidence spans: R was rated
            assert!(r["details"][m]["evidence"].as_array().is_some_and(|a| !a.is_empty()), "{m}: {}", r["details"][m]);
        }
        let p = &r["provenance"]["metrics"]["llm"];
        assert!(p["served_model"]["id"].as_str().unwrap().ends_with(".gguf"), "{p}");
        assert_eq!(p["structured_output"]["used"], json!("grammar"));
        assert!(r["details"]["llm_pipeline"]["extraction"]["abstract_pico"]["reply"].is_string());
    }
    // --explain: per element the rating, rationale and raw reply; the pipeline's extractions
    assert!(stdout.contains("ratings over the full texts"), "{stdout}");
    assert!(stdout.contains("stage 1: extractions"), "{stdout}");
    // the gold evidence spans are shown as the row's input, not as model quotes "not found"
    let span = first[0]["details"]["llm"]["evidence"][0]["span"].as_str().unwrap();
    assert!(stdout.contains(&format!("gold evidence span: \"{span}\"")), "{span}: {stdout}");
    assert!(!stdout.contains(&format!("quote: \"{span}\"")), "{stdout}");
    assert!(stdout.contains("raw reply: \"Rating: "), "{stdout}");
    assert!(stdout.contains("rationale: "), "{stdout}");
    // the summary table reports the requests and tokens
    assert!(stdout.contains("**llm** — requests: ") && stdout.contains("tokens sent: "), "{stdout}");

    // Second run of the same command: zero chat requests, the same scores.
    let o = run(&[]);
    let (stdout, stderr) = text(&o);
    assert!(o.status.success(), "{stderr}");
    assert_eq!(h.chat_requests(), sent, "the re-run sent chat requests");
    assert!(stdout.contains("0 sent and answered"), "{stdout}");
    let second = rows(&out);
    for (a, b) in first.iter().zip(&second) {
        assert_eq!(a["scores"], b["scores"]);
    }
    println!("cli llm: first run {sent} chat requests, second run 0");
}

#[test]
fn dry_run_counts_requests_and_tokens_and_sends_nothing() {
    let dir = tempfile::tempdir().unwrap();
    // nothing listens there: a dry run must not even ask for the model list
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let out = dir.path().join("out.jsonl");
    let o = bin(dir.path())
        .args(["score", fixtures().join("pairs.jsonl").to_str().unwrap(), "--metrics", "llm,llm_pipeline,rougeL", "--dry-run", "-o"])
        .arg(&out)
        .args(["--llm-base-url", &format!("http://127.0.0.1:{port}/v1"), "--llm-model", "m"])
        .output()
        .unwrap();
    let (stdout, stderr) = text(&o);
    assert!(o.status.success(), "{stderr}");
    // 12 rows, 6 distinct abstracts; full text: 4 per row + 18 spans in all
    assert!(stdout.contains("llm: 66 requests for 12 rows (12 with evidence spans)"), "{stdout}");
    assert!(stdout.contains("llm_pipeline: ") && stdout.contains("rate stage-1 replies"), "{stdout}");
    assert!(stdout.contains("rougeL: computed locally"), "{stdout}");
    assert!(stdout.contains("nothing was sent or written"));
    assert!(!out.exists(), "a dry run wrote its output");
}

#[test]
fn a_server_killed_mid_run_exits_3_keeps_every_answer_and_the_rerun_asks_only_the_missing() {
    let Some(h) = Harness::start("cli llm killed") else { return };
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.jsonl");
    let cache = dir.path().join("cache.sqlite");
    let input = fixtures().join("pairs.jsonl");
    let run = || {
        bin(dir.path())
            .args(["score", input.to_str().unwrap(), "--metrics", "llm", "-o", out.to_str().unwrap(), "-q"])
            .args(llm_args(&h.url, &cache))
            .output()
            .unwrap()
    };
    h.cmd(json!({"cmd": "kill_after", "n": 20}));
    let o = run();
    let (_, stderr) = text(&o);
    assert_eq!(o.status.code(), Some(3), "{stderr}");
    assert!(stderr.contains("requests failed after their retries") && stderr.contains("Re-run the same command"), "{stderr}");
    // the output is complete: 12 rows, the failed columns are documented nulls
    let r = rows(&out);
    assert_eq!(r.len(), 12);
    let failed_cells = r
        .iter()
        .flat_map(|x| x["nulls"].as_object().into_iter().flat_map(|m| m.values()))
        .filter(|v| v.as_str().unwrap().contains("request failed"))
        .count();
    assert!(failed_cells > 0);
    // every answer the server gave before it died (the structured-output probe is one of them;
    // requests in flight at the kill may still have been answered)
    let answered = h.state()["counters"]["answered"].as_u64().unwrap();
    assert!(answered >= 20, "{answered}");
    h.cmd(json!({"cmd": "restart"}));
    // `--resume` on the finished output (issue 23, class 2: one rule for every metric): the rows
    // whose requests failed (an `incomplete:` null) are scored again, the others kept as
    // written; with the cache, only the requests never answered are sent.
    let first = std::fs::read_to_string(&out).unwrap();
    let incomplete: Vec<bool> = first.lines().map(|l| l.contains("\"incomplete: ")).collect();
    let n_incomplete = incomplete.iter().filter(|x| **x).count();
    assert!(n_incomplete > 0, "no incomplete row after the kill");
    let before = h.chat_requests();
    let o = bin(dir.path())
        .args(["score", input.to_str().unwrap(), "--metrics", "llm", "-o", out.to_str().unwrap(), "--resume"])
        .args(llm_args(&h.url, &cache))
        .output()
        .unwrap();
    let (_, stderr) = text(&o);
    assert!(o.status.success(), "{stderr}");
    assert!(stderr.contains(&format!("{n_incomplete} of its 12 rows carry failures")), "{stderr}");
    let asked = h.chat_requests() - before;
    // 66 distinct rating requests + 1 probe; the re-run asks exactly the ones never answered
    assert_eq!(asked, 66 + 1 - answered, "the re-run asked {asked}, {answered} had been answered");
    let second = std::fs::read_to_string(&out).unwrap();
    for ((a, b), inc) in first.lines().zip(second.lines()).zip(&incomplete) {
        if !inc {
            assert_eq!(a, b, "a row without failures is kept byte for byte");
        }
    }
    for x in rows(&out) {
        assert!(!x["nulls"].to_string().contains("request failed"), "{x}");
    }
    // Complete now: a second --resume has nothing to do.
    let o = bin(dir.path())
        .args(["score", input.to_str().unwrap(), "--metrics", "llm", "-o", out.to_str().unwrap(), "-q", "--resume"])
        .args(llm_args(&h.url, &cache))
        .output()
        .unwrap();
    assert!(!o.status.success() && text(&o).1.contains("already complete"), "{}", text(&o).1);
    println!("cli llm: server killed after {answered} answers (incl. the probe) → exit 3; --resume re-scored the {n_incomplete} incomplete rows and asked the other {asked} of 66 + 1");
}

#[test]
fn evidence_spans_from_a_csv_cell_and_the_api_key_never_in_the_output() {
    let Some(h) = Harness::start("cli llm csv") else { return };
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("in.csv");
    let mut w = csv::Writer::from_path(&csv).unwrap();
    w.write_record(["id", "abstract", "plain", "spans"]).unwrap();
    w.write_record(["a1", "We randomised 40 adults to drug A or placebo. Pain fell with A (p=0.01).", "Drug A eased pain in adults.", "Pain fell with A (p=0.01) || no adverse events"]).unwrap();
    w.write_record(["a2", "We randomised 40 adults to drug A or placebo. Pain fell with A (p=0.01).", "Drug A did nothing.", ""]).unwrap();
    w.flush().unwrap();
    drop(w);
    let out = dir.path().join("out.jsonl");
    let secret = "sk-cli-test-0123456789-secret";
    let o = bin(dir.path())
        .args(["score", csv.to_str().unwrap(), "--metrics", "llm", "--source-field", "abstract", "--summary-field", "plain", "--evidence-field", "spans", "-o", out.to_str().unwrap(), "--explain"])
        .args(llm_args(&h.url, &dir.path().join("cache.sqlite")))
        .args(["--llm-api-key-env", "FACTPICO_CLI_TEST_KEY", "--llm-elements", "population,evidence"])
        .env("FACTPICO_CLI_TEST_KEY", secret)
        .env("RUST_LOG", "trace")
        .output()
        .unwrap();
    let (stdout, stderr) = text(&o);
    assert!(o.status.success(), "{stderr}");
    let r = rows(&out);
    let spans: Vec<&str> = r[0]["details"]["llm"]["evidence"].as_array().unwrap().iter().map(|e| e["span"].as_str().unwrap()).collect();
    assert_eq!(spans, ["Pain fell with A (p=0.01)", "no adverse events"]);
    assert!(r[1]["nulls"]["llm_evidence"].as_str().unwrap().contains("no evidence spans"));
    assert!(r[0]["nulls"]["llm_intervention"].as_str().unwrap().contains("not requested"));
    assert!(r[0]["scores"]["llm_population"].is_number() || r[0]["nulls"]["llm_population"].is_string());
    // the key was sent (the proxy saw it) but is nowhere in what factpico wrote
    assert!(h.state()["auth"].as_array().unwrap().iter().any(|a| a.as_str() == Some(&format!("Bearer {secret}"))));
    // The rows and the provenance file written beside them.
    let written = std::fs::read_to_string(&out).unwrap() + &std::fs::read_to_string(format!("{}.provenance.json", out.display())).unwrap();
    for (what, s) in [("output", &written), ("stdout", &stdout), ("stderr", &stderr)] {
        assert!(!s.contains(secret), "the API key is in the {what}");
    }
    assert!(written.contains("FACTPICO_CLI_TEST_KEY"), "the provenance names the variable");
    // schema 2: the evidence field is part of the recorded input mapping
    assert_eq!(r[0]["provenance"]["input"]["fields"]["evidence"], json!("spans"), "{}", r[0]["provenance"]["input"]);
}

/// A key given in the base URL's userinfo (`http://user:KEY@host/v1`) is never sent, and reaches
/// no artefact: the rows (their provenance options included), stdout, stderr at trace level,
/// the request cache, and the HTML report of the output.
#[test]
fn a_key_in_the_url_userinfo_reaches_no_artefact() {
    let Some(h) = Harness::start("cli llm userinfo") else { return };
    let dir = tempfile::tempdir().unwrap();
    let secret = "sk-userinfo-0123456789-secret";
    let url = h.url.replacen("http://", &format!("http://someone:{secret}@"), 1);
    assert!(url.contains(secret) && url != h.url, "{url}");
    let out = dir.path().join("out.jsonl");
    let cache = dir.path().join("cache.sqlite");
    let input = fixtures().join("pairs.jsonl");
    let o = bin(dir.path())
        .args(["score", input.to_str().unwrap(), "--metrics", "llm", "-o", out.to_str().unwrap(), "--explain"])
        .args(llm_args(&url, &cache))
        .args(["--llm-elements", "population"])
        .env("RUST_LOG", "trace")
        .output()
        .unwrap();
    let (stdout, stderr) = text(&o);
    assert!(o.status.success(), "{stderr}");
    let html = dir.path().join("out.html");
    let r = bin(dir.path())
        .args(["report", out.to_str().unwrap(), "--input", input.to_str().unwrap(), "-o", html.to_str().unwrap()])
        .output()
        .unwrap();
    let (rout, rerr) = text(&r);
    assert!(r.status.success(), "{rerr}");
    let written = std::fs::read_to_string(&out).unwrap() + &std::fs::read_to_string(format!("{}.provenance.json", out.display())).unwrap();
    assert!(written.contains("\"base_url\""), "the provenance records the server");
    let cache_bytes = String::from_utf8_lossy(&std::fs::read(&cache).unwrap()).into_owned();
    let page = std::fs::read_to_string(&html).unwrap();
    for (what, s) in [
        ("output", &written),
        ("stdout", &stdout),
        ("stderr", &stderr),
        ("cache", &cache_bytes),
        ("report", &page),
        ("report stdout", &rout),
        ("report stderr", &rerr),
    ] {
        assert!(!s.contains(secret), "the key in the URL is in the {what}");
        assert!(!s.contains("someone:"), "the URL's user name is in the {what}");
    }
    // and it was never sent: no Authorization header at all reached the server
    assert!(h.state()["auth"].as_array().unwrap().iter().all(|a| !a.as_str().unwrap_or("").contains(secret)));
}

/// The LLM library names options by their `ScorerOptions` field (`llm.runtime.client.concurrency`);
/// the CLI prints the flag the user typed instead. No server is needed: each of these is refused
/// before anything is sent.
#[test]
fn option_errors_name_the_flags_not_the_fields() {
    let dir = tempfile::tempdir().unwrap();
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let url = format!("http://127.0.0.1:{port}/v1");
    let pairs = fixtures().join("pairs.jsonl");
    let garbage = dir.path().join("garbage.sqlite");
    std::fs::write(&garbage, b"not a database, a text file put here by someone".repeat(100)).unwrap();
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec![], "--llm-base-url is required for the LLM metrics (e.g. --llm-base-url http://127.0.0.1:8080/v1, --llm-model my-model)"),
        (vec!["--llm-base-url", &url, "--llm-model", "m", "--llm-concurrency", "0"], "--llm-concurrency must be at least 1"),
        (vec!["--llm-base-url", &url, "--llm-model", "m", "--llm-timeout", "0"], "--llm-timeout must be a positive number of seconds"),
        // inf passed the old check and would have panicked at the first request
        (vec!["--llm-base-url", &url, "--llm-model", "m", "--llm-timeout", "inf"], "--llm-timeout must be a positive number of seconds, got inf"),
        (vec!["--llm-base-url", "ftp://h/v1", "--llm-model", "m"], "--llm-base-url \"ftp://h/v1\" must start with http:// or https://"),
        (vec!["--llm-base-url", &url, "--llm-model", "m", "--llm-rationale-max-chars", "0"], "--llm-rationale-max-chars must be at least 1"),
        (
            vec!["--llm-base-url", &url, "--llm-model", "m", "--llm-cache", garbage.to_str().unwrap()],
            "or set --llm-cache to another path",
        ),
    ];
    for (args, want) in cases {
        let o = bin(dir.path())
            .args(["score", pairs.to_str().unwrap(), "--metrics", "llm", "-o", "-", "-q"])
            .args(&args)
            .output()
            .unwrap();
        let (_, stderr) = text(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(want), "{args:?}: wanted {want:?} in {stderr}");
        assert!(!stderr.contains("`llm."), "{args:?}: a field name reached the CLI user: {stderr}");
    }
    // --dry-run prints a plan error with the flag too.
    let o = bin(dir.path())
        .args(["score", pairs.to_str().unwrap(), "--metrics", "llm", "--dry-run", "--llm-rationale-max-chars", "0"])
        .args(["--llm-base-url", &url, "--llm-model", "m"])
        .output()
        .unwrap();
    let (stdout, stderr) = text(&o);
    assert!(stdout.contains("--llm-rationale-max-chars must be at least 1") && !stdout.contains("`llm."), "{stdout}{stderr}");
}
