//! `factpico score --metrics llm_minicheck` (Bespoke-MiniCheck's protocol) against a REAL
//! llama.cpp server (PyPI `xllamacpp`) serving the harness's tiny random GGUF in its
//! `--minicheck` variant (whole-word `Yes`, `yes`, `YES`, ` Yes`, `No` tokens holding the top-5
//! after the prompt), behind the recording proxy of `crates/factpico-llm/tests/support`:
//!
//! * every request is the reference's (system prompt verbatim, `Document: …\nClaim: …`, one
//!   token, temperature 0, top_logprobs 5);
//! * every (chunk, sentence) probability equals the sum of `exp(logprob)` over the server's raw
//!   top-5 alternatives whose lowercased text is `yes` (the recorded reply), with ` Yes` present
//!   and not counted;
//! * the abstract is one chunk when it fits; with a small `--llm-minicheck-chunk-size` the chunks
//!   are the reference's greedy packing over token counts this test asks the server itself;
//! * the row is the min over sentences of the max over chunks, the label `> 0.5`;
//! * documented nulls: empty abstract, empty summary, replies without logprobs (warning, run
//!   report line); a re-run makes no chat request.
#![cfg(feature = "llm")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

#[path = "../../factpico-llm/tests/support/mod.rs"]
mod support;
#[path = "support/llm_cli.rs"]
mod llm_cli;

use std::io::{Read, Write};
use std::path::Path;

use serde_json::{json, Value};
use support::Harness;
use llm_cli::{bin, report, rows, text, tokens as report_tokens};

/// `minicheck/utils.py: SYSTEM_PROMPT` of Liyan06/MiniCheck @ b58b9fa, copied by hand.
const SYSTEM: &str = "Determine whether the provided claim is consistent with the corresponding document. Consistency in this context implies that all information presented in the claim is substantiated by the document. If not, it should be considered inconsistent. Please assess the claim's consistency with the document by responding with either \"Yes\" or \"No\".";

const SHORT_SOURCE: &str = "Adults with hypertension received drug A or placebo for 12 weeks. Blood pressure fell more with drug A.";
const SHORT_SUMMARY: &str = "Drug A lowered blood pressure. It was tested in adults. Side effects were rare.";
const SHORT_CLAIMS: [&str; 3] = ["Drug A lowered blood pressure.", "It was tested in adults.", "Side effects were rare."];

/// The long abstract's blocks (cut at its one newline) and their sentences.
const LONG_BLOCKS: [&[&str]; 2] = [
    &[
        "Adults with mild hypertension were randomised to drug A or to placebo.",
        "The trial ran for twelve weeks in four clinics.",
        "Systolic blood pressure fell by 9 mmHg with drug A and by 2 mmHg with placebo.",
    ],
    &["Headache was the most common adverse event.", "No serious harms were reported."],
];
const LONG_SUMMARY: &str = "Drug A reduced systolic pressure more than placebo. Headaches were common.";
const LONG_CLAIMS: [&str; 2] = ["Drug A reduced systolic pressure more than placebo.", "Headaches were common."];
const CHUNK: usize = 120;

fn long_source() -> String {
    LONG_BLOCKS.iter().map(|b| b.join(" ")).collect::<Vec<_>>().join("\n")
}

/// POST JSON over plain HTTP/1.1 (the test's own client, independent of factpico's).
fn post(url: &str, body: &Value) -> Value {
    let rest = url.strip_prefix("http://").unwrap();
    let (host, path) = rest.split_once('/').map_or((rest, "/".to_owned()), |(h, p)| (h, format!("/{p}")));
    let mut s = std::net::TcpStream::connect(host).unwrap();
    let b = body.to_string();
    write!(s, "POST {path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{b}", b.len()).unwrap();
    let mut resp = String::new();
    s.read_to_string(&mut resp).unwrap();
    let (head, body) = resp.split_once("\r\n\r\n").unwrap();
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: {body}"))
}

/// The server's own token count of `text` (no special tokens).
fn tokens(h: &Harness, text: &str) -> usize {
    post(&format!("{}/tokenize", h.backend), &json!({"content": text, "add_special": false}))["tokens"].as_array().unwrap().len()
}

/// The reference's greedy packing (`LLMCheck.get_all_chunks_per_doc.chunks`), over the items of
/// `LONG_BLOCKS` with the server's counts: (first sentence, end sentence, chunk text).
fn expected_long_chunks(h: &Harness, size: usize) -> Vec<(usize, usize, String)> {
    let mut items: Vec<Option<(usize, &str)>> = Vec::new(); // None = the "\n" marker
    let mut n = 0;
    for (b, block) in LONG_BLOCKS.iter().enumerate() {
        if b > 0 {
            items.push(None);
        }
        for s in *block {
            items.push(Some((n, s)));
            n += 1;
        }
    }
    let count = |it: &Option<(usize, &str)>| tokens(h, it.map_or("\n", |(_, s)| s));
    let emit = |cur: &[Option<(usize, &str)>], out: &mut Vec<(usize, usize, String)>| {
        let joined = cur.iter().map(|it| it.map_or("\n", |(_, s)| s)).collect::<Vec<_>>().join(" ");
        let t = joined.replace(" \n ", "\n").trim().to_owned();
        let idx: Vec<usize> = cur.iter().flatten().map(|(i, _)| *i).collect();
        if !t.is_empty() {
            out.push((idx[0], idx[idx.len() - 1] + 1, t));
        }
    };
    let (mut out, mut cur, mut total) = (Vec::new(), Vec::new(), 0);
    for it in &items {
        let k = count(it);
        if total + k > size {
            emit(&cur, &mut out);
            cur = vec![*it];
            total = k;
        } else {
            cur.push(*it);
            total += k;
        }
    }
    emit(&cur, &mut out);
    out
}

/// The support the reference computes from one raw reply: Σ exp(logprob) over the first
/// token's top alternatives whose text, lowercased, is "yes" (not stripped).
fn support_of(reply: &Value) -> f64 {
    let top = reply["choices"][0]["logprobs"]["content"][0]["top_logprobs"].as_array().unwrap();
    assert_eq!(top.len(), 5, "{reply}");
    top.iter().filter(|t| t["token"].as_str().unwrap().to_lowercase() == "yes").map(|t| t["logprob"].as_f64().unwrap().exp()).sum()
}

/// The recorded (body, reply) of the check of `claim` against `chunk`.
fn exchange<'a>(ex: &'a [Value], chunk: &str, claim: &str) -> &'a Value {
    let user = format!("Document: {chunk}\nClaim: {claim}");
    ex.iter()
        .find(|e| e["body"]["messages"][1]["content"] == user.as_str())
        .unwrap_or_else(|| panic!("no recorded request for {user:?}"))
}

/// Checks one scored row against the recorded exchanges: every cell, the maxima, the minimum.
fn check_row(row: &Value, ex: &[Value], chunks: &[String], claims: &[&str]) -> f64 {
    let d = &row["details"]["llm_minicheck"];
    assert_eq!(d["chunks"].as_array().unwrap().len(), chunks.len(), "{d}");
    let dc = d["claims"].as_array().unwrap();
    assert_eq!(dc.iter().map(|c| c["text"].as_str().unwrap()).collect::<Vec<_>>(), claims, "sentence claims");
    let mut maxima = Vec::new();
    for (c, claim) in dc.iter().zip(claims) {
        let mut cells = Vec::new();
        for (i, chunk) in chunks.iter().enumerate() {
            let e = exchange(ex, chunk, claim);
            let b = &e["body"];
            assert_eq!(b["messages"][0], json!({"role": "system", "content": SYSTEM}));
            assert_eq!((b["max_tokens"].as_i64(), b["temperature"].as_i64(), b["top_logprobs"].as_i64()), (Some(1), Some(0), Some(5)), "{b}");
            assert_eq!(b["logprobs"], true);
            let top = e["reply"]["choices"][0]["logprobs"]["content"][0]["top_logprobs"].as_array().unwrap();
            let texts: Vec<&str> = top.iter().map(|t| t["token"].as_str().unwrap()).collect();
            assert!(texts.contains(&" Yes") && texts.contains(&"Yes") && texts.contains(&"yes"), "{texts:?}");
            let want = support_of(&e["reply"]);
            let stripped: f64 = top
                .iter()
                .filter(|t| t["token"].as_str().unwrap().trim().to_lowercase() == "yes")
                .map(|t| t["logprob"].as_f64().unwrap().exp())
                .sum();
            assert!(stripped > want + 0.01, "\" Yes\" must not count: {want} vs {stripped}");
            let got = c["chunk_scores"][i].as_f64().unwrap();
            assert!((got - want).abs() < 1e-12, "{claim:?} x chunk {i}: {got} vs the server's {want}");
            cells.push(want);
        }
        let max = cells.iter().copied().fold(f64::MIN, f64::max);
        assert!((c["score"].as_f64().unwrap() - max).abs() < 1e-12, "{c}");
        maxima.push(max);
    }
    let min = maxima.iter().copied().fold(f64::MAX, f64::min);
    let score = row["scores"]["llm_minicheck"].as_f64().unwrap();
    assert!((score - min).abs() < 1e-12, "row {score} vs min of maxima {min}");
    assert_eq!(row["scores"]["llm_minicheck_label"].as_f64(), Some(if min > 0.5 { 1.0 } else { 0.0 }));
    score
}

fn write_input(path: &Path, rows: &[(&str, &str, &str)]) {
    let lines: Vec<String> = rows.iter().map(|(id, s, y)| json!({"id": id, "source": s, "summary": y}).to_string()).collect();
    std::fs::write(path, lines.join("\n") + "\n").unwrap();
}

#[test]
fn llm_minicheck_follows_bespoke_minicheck_on_a_real_server() {
    let Some(h) = Harness::start_with("cli llm_minicheck", &["--minicheck"]) else { return };
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache.sqlite");
    let input = dir.path().join("in.jsonl");
    let long = long_source();
    write_input(&input, &[("short", SHORT_SOURCE, SHORT_SUMMARY), ("long", &long, LONG_SUMMARY), ("no-summary", SHORT_SOURCE, "  \n "), ("no-source", " ", SHORT_SUMMARY)]);
    let run = |out: &Path, extra: &[&str]| {
        let o = bin(dir.path())
            .args(["score", input.to_str().unwrap(), "--metrics", "llm_minicheck", "-o", out.to_str().unwrap()])
            .args(["--llm-base-url", &h.url, "--llm-model", "tiny", "--llm-cache", cache.to_str().unwrap(), "--llm-retries", "1", "--llm-timeout", "120"])
            .args(extra)
            .output()
            .unwrap();
        let (stdout, stderr) = text(&o);
        assert!(o.status.success(), "{stdout}\n{stderr}");
        (stdout, stderr)
    };

    // 1. The reference's default chunk size: each abstract is one chunk (by the byte bound).
    let out_a = dir.path().join("a.jsonl");
    let (stdout, _) = run(&out_a, &["--explain"]);
    let a = rows(&out_a);
    let ex = h.cmd(json!({"cmd": "state", "exchanges": true}))["exchanges"].as_array().unwrap().clone();
    assert_eq!(ex.len(), 5, "3 + 2 sentence checks, one chunk each");
    let short = check_row(&a[0], &ex, &[SHORT_SOURCE.to_owned()], &SHORT_CLAIMS);
    check_row(&a[1], &ex, std::slice::from_ref(&long), &LONG_CLAIMS);
    assert!(short > 0.0 && short < 1.0, "{short}");
    assert_eq!(a[0]["details"]["llm_minicheck"]["chunk_tokens"], "bound");
    // empty texts: the scorer's own documented nulls (the library's are `claim has no sentence`,
    // `document is empty or whitespace-only`, for callers that reach it)
    for (r, why) in [(&a[2], "empty summary"), (&a[3], "empty source")] {
        for c in ["llm_minicheck", "llm_minicheck_label"] {
            assert!(r["scores"][c].is_null(), "{r}");
            assert!(r["nulls"][c].as_str().unwrap().starts_with(why), "{r}");
        }
    }
    assert!(stdout.contains("Bespoke-MiniCheck (per summary sentence"), "{stdout}");
    let prov: Value = serde_json::from_str(&std::fs::read_to_string(format!("{}.provenance.json", out_a.display())).unwrap()).unwrap();
    let p = &prov["metrics"]["llm_minicheck"];
    assert_eq!(p["chunk_size"], 32_468, "{p}");
    assert_eq!(p["request"]["top_logprobs"], 5, "{p}");

    // 2. A re-run answers from the cache: no chat request, the same rows; with prices, the
    //    run report prices the cache's answers as saved (the same usage lines as `llm`).
    let sent = h.chat_requests();
    let out_a2 = dir.path().join("a2.jsonl");
    let md = dir.path().join("a2.md");
    run(&out_a2, &["--summary", md.to_str().unwrap(), "--llm-price-input", "1", "--llm-price-output", "3"]);
    assert_eq!(h.chat_requests(), sent, "the re-run sent chat requests");
    let r = report(&std::fs::read_to_string(&md).unwrap(), "llm_minicheck");
    assert!(r["requests"].starts_with("5 distinct: 5 from the cache, 0 sent and answered, 0 failed"), "{r:?}");
    assert_eq!(report_tokens(&r["tokens sent"]), (0, 0), "{r:?}");
    let (p, c) = report_tokens(&r["tokens of cached answers"]);
    assert!(p > 0 && c == 5, "one completion token per check: {r:?}");
    let saved = format!("the 5 answers from the cache would have cost {:.6} more (saved)", (p as f64 + 3.0 * c as f64) / 1e6);
    let cost = &r["cost"];
    assert!(cost.starts_with("0.000000 for the tokens sent (0 prompt + 0 completion at 1 per million prompt tokens, 3 per million completion tokens)") && cost.ends_with(&saved), "{saved}: {cost}");
    let a2 = rows(&out_a2);
    for (x, y) in a.iter().zip(&a2) {
        assert_eq!(x["scores"], y["scores"]);
    }

    // 3. Chunks of at most 120 tokens of the served model: the reference's greedy packing
    //    over the server's counts (asked here independently); max over chunks, min over sentences.
    let out_b = dir.path().join("b.jsonl");
    run(&out_b, &["--llm-minicheck-chunk-size", &CHUNK.to_string()]);
    let b = rows(&out_b);
    let want = expected_long_chunks(&h, CHUNK);
    assert!(want.len() >= 3, "{want:?}");
    let d = &b[1]["details"]["llm_minicheck"];
    assert_eq!(d["chunk_tokens"], "server");
    let got: Vec<[u64; 2]> = d["chunks"].as_array().unwrap().iter().map(|c| serde_json::from_value(c["sentences"].clone()).unwrap()).collect();
    assert_eq!(got, want.iter().map(|(a, b, _)| [*a as u64, *b as u64]).collect::<Vec<_>>());
    let ex = h.cmd(json!({"cmd": "state", "exchanges": true}))["exchanges"].as_array().unwrap().clone();
    let texts: Vec<String> = want.iter().map(|(_, _, t)| t.clone()).collect();
    assert!(texts.iter().any(|t| t.contains('\n')) || texts.iter().any(|t| t.starts_with("Headache")), "{texts:?}");
    let long_score = check_row(&b[1], &ex, &texts, &LONG_CLAIMS);
    // the per-sentence maximum really picks among different chunk probabilities
    let cells: Vec<f64> = d["claims"][0]["chunk_scores"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect();
    assert!(cells.iter().any(|c| (c - cells[0]).abs() > 1e-9), "{cells:?}");
    assert!(long_score > 0.0);
    // the short abstract still fits its byte bound: one chunk, not counted
    assert_eq!(b[0]["details"]["llm_minicheck"]["chunk_tokens"], "bound");
    check_row(&b[0], &ex, &[SHORT_SOURCE.to_owned()], &SHORT_CLAIMS);

    // 4. Replies without logprobs: nulls with the reason, a warning, a run-report line; never
    //    the sampled token.
    let one = dir.path().join("one.jsonl");
    write_input(&one, &[("short", SHORT_SOURCE, SHORT_SUMMARY)]);
    h.faults(json!([{"strip_logprobs": true}, {"strip_logprobs": true}, {"strip_logprobs": true}]));
    let out_c = dir.path().join("c.jsonl");
    let o = bin(dir.path())
        .args(["score", one.to_str().unwrap(), "--metrics", "llm_minicheck", "-o", out_c.to_str().unwrap(), "--llm-no-cache"])
        .args(["--summary", dir.path().join("c.md").to_str().unwrap()])
        .args(["--llm-base-url", &h.url, "--llm-model", "tiny"])
        .output()
        .unwrap();
    let (_, stderr) = text(&o);
    // every value of the run is a null: the run does not look successful (exit non-zero)
    assert!(!o.status.success() && stderr.contains("produced no value"), "{stderr}");
    let c = rows(&out_c);
    assert!(c[0]["scores"]["llm_minicheck"].is_null(), "{}", c[0]);
    assert!(c[0]["nulls"]["llm_minicheck"].as_str().unwrap().contains("no logprobs"), "{}", c[0]);
    assert!(stderr.contains("sent no logprobs"), "{stderr}");
    let table = std::fs::read_to_string(dir.path().join("c.md")).unwrap();
    assert!(table.contains("**llm_minicheck** — requests: 3 distinct") && table.contains("logprobs: 3 replies came without logprobs"), "{table}");
}
