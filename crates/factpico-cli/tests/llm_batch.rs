//! `factpico llm batch export | import` against a REAL llama.cpp server (PyPI `xllamacpp`, tiny
//! random-weight GGUF, `crates/factpico-llm/tests/support`): the exported file is executed
//! line by line against the server by `tests/support/batch_runner.py` (as `vllm run-batch`
//! would), its output imported, and `factpico score` with the same options then completes
//! from the cache with zero requests — with the scores and raw replies of an online run of
//! the same rows against the same (freshly restarted, one-slot) server. Also: the pipeline's
//! two rounds, the refusals (a custom_id never exported, a request that is not the one
//! exported, non-200 and error lines), and what an export never writes (the API key, through
//! a symbolic link).
#![cfg(feature = "llm")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

#[path = "../../factpico-llm/tests/support/mod.rs"]
mod support;
#[path = "support/llm_cli.rs"]
mod llm_cli;

use std::path::Path;
use std::process::{Command, Output};

use serde_json::{json, Value};
use support::Harness;
use llm_cli::{bin, fixtures, text};

fn lines(p: &Path) -> Vec<Value> {
    std::fs::read_to_string(p).unwrap().lines().filter(|l| !l.trim().is_empty()).map(|l| serde_json::from_str(l).unwrap()).collect()
}

fn write_lines(p: &Path, v: &[Value]) {
    std::fs::write(p, v.iter().map(|x| format!("{x}\n")).collect::<String>()).unwrap();
}

/// The options both paths share: the tiny model, a declared served model, one request at a time.
fn common(metric: &str) -> Vec<String> {
    [
        "--metrics", metric, "--llm-model", "tiny", "--llm-served-model", "tiny-random-gguf", "--llm-structured", "grammar",
        "--llm-max-tokens", "60", "--llm-extract-max-tokens", "24", "--llm-rationale-max-chars", "24", "--llm-concurrency", "1",
        "--llm-retries", "2", "--llm-timeout", "120",
    ]
    .iter()
    .map(|s| (*s).to_owned())
    .collect()
}

/// Runs `batch_runner.py` (the LLM venv's Python) on `requests`, writing `results`.
fn run_batch(h: &Harness, requests: &Path, results: &Path) {
    let py = support::python("batch runner").unwrap();
    let root = h.url.trim_end_matches('/').trim_end_matches("/v1").to_owned();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/support/batch_runner.py");
    let o = Command::new(py).arg(script).arg(root).arg(requests).arg(results).output().unwrap();
    assert!(o.status.success(), "batch runner: {}", text(&o).1);
}

fn export(dir: &Path, input: &Path, opts: &[String], cache: &Path, out: &Path, extra: &[&str]) -> Output {
    bin(dir)
        .args(["llm", "batch", "export", input.to_str().unwrap(), "-o", out.to_str().unwrap(), "--llm-cache", cache.to_str().unwrap()])
        .args(opts)
        .args(extra)
        .output()
        .unwrap()
}

fn import(dir: &Path, results: &Path, requests: Option<&Path>, cache: &Path) -> Output {
    let mut c = bin(dir);
    c.args(["llm", "batch", "import", results.to_str().unwrap(), "--llm-cache", cache.to_str().unwrap()]);
    if let Some(r) = requests {
        c.args(["--requests", r.to_str().unwrap()]);
    }
    c.output().unwrap()
}

fn score(dir: &Path, input: &Path, opts: &[String], cache: &Path, out: &Path, extra: &[&str]) -> Output {
    bin(dir)
        .args(["score", input.to_str().unwrap(), "-o", out.to_str().unwrap(), "--llm-cache", cache.to_str().unwrap()])
        .args(opts)
        .args(extra)
        .output()
        .unwrap()
}

/// Per row: the scores, and every raw reply (elements, evidence spans, pipeline extractions).
fn scores_and_replies(out: &Path, metric: &str) -> Vec<(Value, Vec<Value>)> {
    lines(out)
        .into_iter()
        .map(|r| {
            let d = &r["details"][metric];
            let mut replies: Vec<Value> = ["population", "intervention", "comparator", "outcome"].iter().map(|e| d["elements"][e]["reply"].clone()).collect();
            replies.extend(d["evidence"].as_array().unwrap().iter().map(|e| e["reply"].clone()));
            for x in ["abstract_pico", "summary_pico", "summary_results"] {
                replies.push(d["extraction"][x]["reply"].clone());
            }
            assert!(replies.iter().any(Value::is_string), "{r}");
            (r["scores"].clone(), replies)
        })
        .collect()
}

fn counters(h: &Harness) -> (u64, u64) {
    let s = h.state();
    (s["counters"]["chat"].as_u64().unwrap(), s["counters"]["models"].as_u64().unwrap())
}

/// Checks the batch file's shape and returns its lines.
fn batch_lines(p: &Path) -> Vec<Value> {
    let v = lines(p);
    let mut ids = std::collections::HashSet::new();
    for l in &v {
        assert_eq!(l.as_object().unwrap().keys().collect::<Vec<_>>(), ["body", "custom_id", "method", "url"], "{l}");
        assert_eq!((&l["method"], &l["url"]), (&json!("POST"), &json!("/v1/chat/completions")));
        let id = l["custom_id"].as_str().unwrap();
        assert!(id.len() == 64 && id.chars().all(|c| c.is_ascii_hexdigit()), "{id}");
        assert!(ids.insert(id.to_owned()), "custom_id {id} twice");
        assert_eq!(l["body"]["model"], json!("tiny"));
        assert!(l["body"]["messages"].is_array());
    }
    v
}

#[test]
fn full_text_batch_round_trip_scores_like_an_online_run_with_zero_requests() {
    let Some(h) = Harness::start_with("cli llm batch full text", &["--parallel", "1"]) else { return };
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let input = fixtures().join("pairs.jsonl");
    let opts = common("llm");
    let url = ["--llm-base-url", h.url.as_str()];

    // The online run, on a fresh server.
    h.cmd(json!({"cmd": "restart"}));
    let (chat0, _) = counters(&h);
    let o = score(d, &input, &opts, &d.join("online.sqlite"), &d.join("online.jsonl"), &url);
    assert!(o.status.success(), "{}", text(&o).1);
    let online_sent = counters(&h).0 - chat0;
    assert_eq!(online_sent, 66, "12 rows × 4 elements + 18 spans");
    // What it asked is exactly what an export finds missing: nothing, from its cache.
    let o = export(d, &input, &opts, &d.join("online.sqlite"), &d.join("none.jsonl"), &[]);
    assert!(o.status.success(), "{}", text(&o).1);
    assert!(batch_lines(&d.join("none.jsonl")).is_empty());

    // The batch path: exported with no server at all (declared served model, no base URL).
    let cache = d.join("batch.sqlite");
    let o = export(d, &input, &opts, &cache, &d.join("batch.jsonl"), &[]);
    let (_, stderr) = text(&o);
    assert!(o.status.success(), "{stderr}");
    assert!(stderr.contains("llm: 66 requests to send (0 answered in the cache)"), "{stderr}");
    let batch = batch_lines(&d.join("batch.jsonl"));
    assert_eq!(batch.len(), 66);
    // Executed against the same server, restarted as for the online run.
    h.cmd(json!({"cmd": "restart"}));
    let (chat1, _) = counters(&h);
    run_batch(&h, &d.join("batch.jsonl"), &d.join("results.jsonl"));
    assert_eq!(counters(&h).0 - chat1, 66);
    let o = import(d, &d.join("results.jsonl"), Some(&d.join("batch.jsonl")), &cache);
    let (_, stderr) = text(&o);
    assert!(o.status.success(), "{stderr}");
    assert!(stderr.contains("imported 66 answers") && stderr.contains("0 exported requests still wait"), "{stderr}");
    // Importing the same file again: nothing new, nothing refused.
    let o = import(d, &d.join("results.jsonl"), Some(&d.join("batch.jsonl")), &cache);
    assert!(o.status.success() && text(&o).1.contains("imported 0 answers") && text(&o).1.contains("66 already there"), "{}", text(&o).1);

    // `factpico score` with the same options, the server up: zero requests, not even /models.
    let before = counters(&h);
    let o = score(d, &input, &opts, &cache, &d.join("batch_scores.jsonl"), &url);
    let (stdout, stderr) = text(&o);
    assert!(o.status.success(), "{stderr}");
    assert_eq!(counters(&h), before, "the score run contacted the server");
    assert!(stdout.contains("66 distinct: 66 from the cache, 0 sent and answered, 0 failed"), "{stdout}");
    // … and with no server at all.
    let o = score(d, &input, &opts, &cache, &d.join("offline_scores.jsonl"), &[]);
    assert!(o.status.success(), "{}", text(&o).1);
    assert_eq!(counters(&h), before);

    let online = scores_and_replies(&d.join("online.jsonl"), "llm");
    let batched = scores_and_replies(&d.join("batch_scores.jsonl"), "llm");
    let offline = scores_and_replies(&d.join("offline_scores.jsonl"), "llm");
    assert_eq!(online.len(), 12);
    assert_eq!(batched, online, "batch and online runs differ");
    assert_eq!(offline, online);
    let valued = online.iter().filter(|(s, _)| s["llm_avg"].is_number()).count();
    println!("cli llm batch: 66 requests exported, run, imported; scores of {valued}/12 rows with a value, equal to the online run's");
}

#[test]
fn pipeline_takes_two_rounds_and_scores_like_an_online_run() {
    let Some(h) = Harness::start_with("cli llm batch pipeline", &["--parallel", "1"]) else { return };
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let input = fixtures().join("pairs.jsonl");
    let opts = common("llm_pipeline");
    let url = ["--llm-base-url", h.url.as_str()];

    h.cmd(json!({"cmd": "restart"}));
    let o = score(d, &input, &opts, &d.join("online.sqlite"), &d.join("online.jsonl"), &url);
    assert!(o.status.success(), "{}", text(&o).1);

    let cache = d.join("batch.sqlite");
    h.cmd(json!({"cmd": "restart"}));
    // Round 1: the extractions (6 abstracts, 12 summaries' PICO, 12 summaries' results).
    let o = export(d, &input, &opts, &cache, &d.join("stage1.jsonl"), &[]);
    let (_, stderr) = text(&o);
    assert!(o.status.success(), "{stderr}");
    assert!(stderr.contains("of 12 rows quote their extraction answers") && stderr.contains("run this export again"), "{stderr}");
    let s1 = batch_lines(&d.join("stage1.jsonl"));
    assert_eq!(s1.len(), 30);
    assert!(s1.iter().all(|l| l["body"].get("grammar").is_none()), "extractions are not constrained");
    run_batch(&h, &d.join("stage1.jsonl"), &d.join("stage1.out.jsonl"));
    let o = import(d, &d.join("stage1.out.jsonl"), Some(&d.join("stage1.jsonl")), &cache);
    assert!(o.status.success(), "{}", text(&o).1);
    // Round 2: the ratings, which quote the imported extractions.
    let o = export(d, &input, &opts, &cache, &d.join("stage2.jsonl"), &[]);
    let (_, stderr) = text(&o);
    assert!(o.status.success(), "{stderr}");
    assert!(!stderr.contains("run this export again"), "{stderr}");
    let s2 = batch_lines(&d.join("stage2.jsonl"));
    assert!(!s2.is_empty() && s2.iter().all(|l| l["body"]["grammar"].is_string()), "stage 2 = rating requests");
    run_batch(&h, &d.join("stage2.jsonl"), &d.join("stage2.out.jsonl"));
    let o = import(d, &d.join("stage2.out.jsonl"), Some(&d.join("stage2.jsonl")), &cache);
    assert!(o.status.success(), "{}", text(&o).1);
    // Nothing left to export; the score run sends nothing.
    let o = export(d, &input, &opts, &cache, &d.join("stage3.jsonl"), &[]);
    assert!(o.status.success() && batch_lines(&d.join("stage3.jsonl")).is_empty(), "{}", text(&o).1);
    let before = counters(&h);
    let o = score(d, &input, &opts, &cache, &d.join("batch_scores.jsonl"), &url);
    let (stdout, stderr) = text(&o);
    assert!(o.status.success(), "{stderr}");
    assert_eq!(counters(&h), before, "the score run contacted the server");
    assert!(stdout.contains(" from the cache, 0 sent and answered, 0 failed"), "{stdout}");
    let online = scores_and_replies(&d.join("online.jsonl"), "llm_pipeline");
    let batched = scores_and_replies(&d.join("batch_scores.jsonl"), "llm_pipeline");
    assert_eq!(online.len(), 12);
    assert_eq!(batched, online, "batch and online pipeline runs differ");
    println!("cli llm batch pipeline: stage 1 {} + stage 2 {} requests; scores equal to the online run's", s1.len(), s2.len());
}

#[test]
fn import_refuses_foreign_or_altered_results_and_skips_failed_lines() {
    let Some(h) = Harness::start("cli llm batch refusals") else { return };
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // Two rows, population only: two requests.
    let input = d.join("two.jsonl");
    let two: Vec<Value> = lines(&fixtures().join("pairs.jsonl")).into_iter().take(2).collect();
    write_lines(&input, &two);
    let mut opts = common("llm");
    opts.extend(["--llm-elements".to_owned(), "population".to_owned()]);
    let cache = d.join("cache.sqlite");
    let (req, res) = (d.join("batch.jsonl"), d.join("results.jsonl"));
    let o = export(d, &input, &opts, &cache, &req, &[]);
    assert!(o.status.success(), "{}", text(&o).1);
    assert_eq!(batch_lines(&req).len(), 2);
    run_batch(&h, &req, &res);
    let good = lines(&res);
    assert!(good.iter().all(|l| l["response"]["status_code"] == json!(200)), "{good:?}");

    // A custom_id that was never exported: refused, naming the line; nothing imported.
    let mut forged = good.clone();
    forged[1]["custom_id"] = json!("0".repeat(64));
    write_lines(&d.join("forged.jsonl"), &forged);
    let o = import(d, &d.join("forged.jsonl"), None, &cache);
    let (_, stderr) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("forged.jsonl line 2") && stderr.contains("was not exported from the cache") && stderr.contains("the export used, --llm-cache)"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");

    // A request file edited before it was run: the answer is not the exported request's.
    let mut edited = lines(&req);
    edited[0]["body"]["max_tokens"] = json!(59);
    write_lines(&d.join("edited.jsonl"), &edited);
    run_batch(&h, &d.join("edited.jsonl"), &d.join("edited.out.jsonl"));
    let o = import(d, &d.join("edited.out.jsonl"), Some(&d.join("edited.jsonl")), &cache);
    let (_, stderr) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("edited.out.jsonl line 1") && stderr.contains("is not the request exported under that id") && stderr.contains("`max_tokens`"),
        "{stderr}"
    );
    // A request file that does not hold a result's custom_id.
    write_lines(&d.join("half.jsonl"), &lines(&req)[..1]);
    let o = import(d, &res, Some(&d.join("half.jsonl")), &cache);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).1.contains("results.jsonl line 2") && text(&o).1.contains("is not in the request file"), "{}", text(&o).1);
    // A line that is not JSON.
    std::fs::write(d.join("garbage.jsonl"), format!("{}\nnot json\n", good[0])).unwrap();
    let o = import(d, &d.join("garbage.jsonl"), None, &cache);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).1.contains("garbage.jsonl line 2: not a JSON line"), "{}", text(&o).1);
    // Nothing of the refused files was imported: both requests are still missing.
    let o = export(d, &input, &opts, &cache, &d.join("again.jsonl"), &[]);
    assert!(o.status.success());
    assert_eq!(batch_lines(&d.join("again.jsonl")).len(), 2);

    // Failed lines (an error object, a non-200 status) are reported and skipped: when nothing
    // is imported the exit status is 3.
    let mut failed = good.clone();
    failed[0]["response"] = json!({"status_code": 500, "request_id": "r1", "body": {"error": {"message": "injected server error"}}});
    failed[1]["response"] = Value::Null;
    failed[1]["error"] = json!({"code": "batch_expired", "message": "This request could not be executed before the completion window expired."});
    write_lines(&d.join("failed.jsonl"), &failed);
    let o = import(d, &d.join("failed.jsonl"), Some(&req), &cache);
    let (_, stderr) = text(&o);
    assert_eq!(o.status.code(), Some(3), "{stderr}");
    assert!(stderr.contains("line 1 (custom_id") && stderr.contains("HTTP 500: injected server error"), "{stderr}");
    assert!(stderr.contains("line 2 (custom_id") && stderr.contains("error: This request could not be executed"), "{stderr}");
    assert!(stderr.contains("nothing was imported"), "{stderr}");
    // One good line and one failed: the good one is imported (exit 0), the other exported again.
    write_lines(&d.join("mixed.jsonl"), &[good[0].clone(), failed[1].clone()]);
    let o = import(d, &d.join("mixed.jsonl"), Some(&req), &cache);
    let (_, stderr) = text(&o);
    assert!(o.status.success(), "{stderr}");
    assert!(stderr.contains("imported 1 answers") && stderr.contains("1 lines skipped") && stderr.contains("export again"), "{stderr}");
    let o = export(d, &input, &opts, &cache, &d.join("rest.jsonl"), &[]);
    assert!(o.status.success());
    let rest = batch_lines(&d.join("rest.jsonl"));
    assert_eq!(rest.len(), 1);
    assert_eq!(rest[0]["custom_id"], good[1]["custom_id"]);
    // An import into a cache the export did not use.
    let o = import(d, &res, None, &d.join("other.sqlite"));
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).1.contains("does not exist"), "{}", text(&o).1);
}

/// What needs no server: the export's refusals, and an API key that never reaches the file.
#[test]
fn export_never_writes_the_key_nor_through_a_link_and_takes_llm_metrics_only() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let input = fixtures().join("pairs.jsonl");
    let cache = d.join("cache.sqlite");
    let mut opts = common("llm,llm_pipeline");
    opts.extend(["--llm-api-key-env".to_owned(), "FACTPICO_BATCH_TEST_KEY".to_owned()]);
    let o = bin(d)
        .args(["llm", "batch", "export", input.to_str().unwrap(), "-o", "b.jsonl", "--llm-cache", cache.to_str().unwrap()])
        .args(&opts)
        .env("FACTPICO_BATCH_TEST_KEY", "sk-batch-SECRET-4711")
        .output()
        .unwrap();
    let (_, stderr) = text(&o);
    assert!(o.status.success(), "{stderr}");
    let file = std::fs::read_to_string(d.join("b.jsonl")).unwrap();
    assert_eq!(file.lines().count(), 66 + 30);
    assert!(!file.contains("sk-batch-SECRET-4711") && !stderr.contains("sk-batch-SECRET-4711"));
    // Atomic: no temporary file left beside it.
    let names: Vec<String> = std::fs::read_dir(d).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    assert!(names.iter().all(|n| n == "b.jsonl" || n.starts_with("cache.sqlite")), "{names:?}");

    #[cfg(unix)]
    {
        let victim = d.join("victim.txt");
        std::fs::write(&victim, "keep").unwrap();
        std::os::unix::fs::symlink(&victim, d.join("link.jsonl")).unwrap();
        let o = export(d, &input, &common("llm"), &cache, &d.join("link.jsonl"), &[]);
        assert_eq!(o.status.code(), Some(2));
        assert!(text(&o).1.contains("symbolic link"), "{}", text(&o).1);
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep");
    }
    let o = export(d, &input, &common("rougeL"), &cache, &d.join("x.jsonl"), &[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).1.contains("not an LLM metric"), "{}", text(&o).1);
    let o = export(d, &input, &common("llm_minicheck"), &cache, &d.join("x.jsonl"), &[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).1.contains("run it online") && !text(&o).1.contains("not an LLM metric"), "{}", text(&o).1);
    let o = export(d, &input, &common("llm"), &cache, &d.join("x.jsonl"), &["--llm-no-cache"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).1.contains("needs the request cache"), "{}", text(&o).1);
    // Without a declared served model the server is asked: none listening is an error, and
    // nothing is written.
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let plain: Vec<String> = common("llm").into_iter().filter(|a| a != "--llm-served-model" && a != "tiny-random-gguf").collect();
    let o = export(d, &input, &plain, &cache, &d.join("x.jsonl"), &["--llm-base-url", &format!("http://127.0.0.1:{port}/v1")]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).1.contains("cannot reach the LLM server"), "{}", text(&o).1);
    assert!(!d.join("x.jsonl").exists());
}
