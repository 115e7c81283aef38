//! HHEM-2.1-Open parity with the unmodified reference (`modeling_hhem_v2.py`,
//! `HHEMv2ForSequenceClassification.predict`) on a tiny random-weight replica of
//! `vectara/hallucination_evaluation_model` (flan-t5-base-shaped encoder + 2-label head),
//! exported by `onnx/export_hhem.py` (`fixtures/models/hhem-tiny`): goldens from
//! `tests/goldens/gen_hhem.py`.
//!
//! Token ids (exactly) and P(consistent) (|Δ| ≤ 1e-4, fp32) on the fixtures, extra rows
//! (braces in the texts, literal `<pad>`/`</s>` in a premise, newlines, a 2300-token premise,
//! Unicode) and the 200 real InfoLossQA pairs (read from `../shared`; visible SKIP without it);
//! the sentence mode against the reference run on each `nltk.sent_tokenize` sentence; the
//! length limit; the chunked mode against whole-mode scores of its chunks.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "../../../tests/common/mod.rs"]
mod common;

use std::collections::HashMap;
use std::path::PathBuf;

use factpico_hhem::{Aggregation, ClaimMode, Error, Hhem, HhemOptions, NullReason, PremiseMode};
use serde_json::Value;
use sha2::Digest;

const TOL: f64 = 1e-4;

fn model_dir() -> PathBuf {
    common::workspace_root().join("fixtures/models/hhem-tiny")
}

fn checker(o: HhemOptions) -> Hhem {
    Hhem::try_new(model_dir(), HhemOptions { threads: 2, ..o }).unwrap()
}

/// id -> (premise, hypothesis) for the fixtures, the golden's extra rows and (when present)
/// the real InfoLossQA pairs.
fn texts(golden: &Value) -> (HashMap<String, (String, String)>, bool) {
    let mut out = HashMap::new();
    for p in common::fixture_pairs() {
        out.insert(p.id, (p.source, p.summary));
    }
    for e in golden["extra"].as_array().unwrap() {
        out.insert(
            e["id"].as_str().unwrap().to_owned(),
            (e["source"].as_str().unwrap().to_owned(), e["summary"].as_str().unwrap().to_owned()),
        );
    }
    let mut real = false;
    if let Some(p) = common::require_shared("hhem_parity", "data/infolossqa/processed/documents.json") {
        let docs: Vec<Value> = serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap();
        for d in docs {
            out.insert(
                format!("ilq:{}", d["PMCID"]),
                (d["abstract"].as_str().unwrap().to_owned(), d["simplification"].as_str().unwrap().to_owned()),
            );
        }
        real = true;
    }
    (out, real)
}

fn check(max_d: &mut f64, what: &str, got: f64, want: f64) {
    let d = (got - want).abs();
    assert!(d <= TOL, "{what}: factpico {got} vs reference {want} (|Δ| = {d:.3e})");
    *max_d = max_d.max(d);
}

fn rows(golden: &Value, real: bool) -> Vec<&Value> {
    golden["rows"].as_array().unwrap().iter().filter(|r| real || !r["id"].as_str().unwrap().starts_with("ilq:")).collect()
}

#[test]
fn tokenisation_matches_the_reference() {
    let golden = common::golden("hhem.json");
    let (texts, real) = texts(&golden);
    let h = checker(HhemOptions::default());
    assert_eq!(h.prompt(), golden["prompt"].as_str().unwrap());
    let mut n = 0;
    for row in rows(&golden, real) {
        let id = row["id"].as_str().unwrap();
        let (p, c) = &texts[id];
        let ids = h.encode(p, c).unwrap();
        assert_eq!(ids[0], 0, "{id}: the literal <pad> is id 0 at position 0");
        assert_eq!(ids.last(), Some(&1), "{id}: </s> appended");
        if let Some(want) = row.get("ids") {
            let want: Vec<u32> = want.as_array().unwrap().iter().map(|v| v.as_u64().unwrap() as u32).collect();
            assert_eq!(ids, want, "{id}");
        }
        assert_eq!(ids.len(), row["n_tokens"].as_u64().unwrap() as usize, "{id}");
        let joined = ids.iter().map(u32::to_string).collect::<Vec<_>>().join(",");
        assert_eq!(hex::encode(sha2::Sha256::digest(joined.as_bytes())), row["ids_sha256"].as_str().unwrap(), "{id}");
        n += 1;
    }
    eprintln!("hhem tokenisation: {n} rows identical{}", if real { "" } else { " (real pairs skipped)" });
}

#[test]
fn whole_mode_matches_the_reference() {
    let golden = common::golden("hhem.json");
    let (texts, real) = texts(&golden);
    let rows = rows(&golden, real);
    let pairs: Vec<(&str, &str)> = rows
        .iter()
        .map(|r| {
            let (p, c) = &texts[r["id"].as_str().unwrap()];
            (p.as_str(), c.as_str())
        })
        .collect();
    // Parity needs the reference's "no limit": raise it to the export's; batch size 3 mixes
    // rows of different lengths in one padded batch.
    let h = checker(HhemOptions { max_length: Some(8192), batch_size: 3, ..Default::default() });
    let outs = h.score_batch(&pairs).unwrap();
    let mut max_d = 0f64;
    let mut longest = 0;
    for (row, out) in rows.iter().zip(outs) {
        let id = row["id"].as_str().unwrap();
        let out = out.unwrap_or_else(|e| panic!("{id}: {e}"));
        check(&mut max_d, id, out.score.unwrap(), row["score"].as_f64().unwrap());
        assert_eq!(out.consistent, Some(out.score.unwrap() >= 0.5), "{id}");
        assert_eq!(out.chunks.len(), 1, "{id}");
        longest = longest.max(out.claims[0].max_tokens);
    }
    eprintln!(
        "hhem parity (whole): {} rows, longest input {longest} tokens; max |Δ| = {max_d:.3e}{}",
        rows.len(),
        if real { "" } else { " (real pairs skipped)" }
    );
    assert!(longest > 2048, "the goldens no longer cover inputs over the default limit");
}

#[test]
fn default_limit_fails_only_the_long_rows() {
    let golden = common::golden("hhem.json");
    let (texts, real) = texts(&golden);
    let rows = rows(&golden, real);
    let pairs: Vec<(&str, &str)> = rows
        .iter()
        .map(|r| {
            let (p, c) = &texts[r["id"].as_str().unwrap()];
            (p.as_str(), c.as_str())
        })
        .collect();
    let h = checker(HhemOptions { batch_size: 4, ..Default::default() });
    assert_eq!(h.max_length(), 2048);
    let outs = h.score_batch(&pairs).unwrap();
    let (mut failed, mut max_d) = (0, 0f64);
    for (row, out) in rows.iter().zip(outs) {
        let id = row["id"].as_str().unwrap();
        let n = row["n_tokens"].as_u64().unwrap() as usize;
        match out {
            Err(Error::TooLong { tokens, max_length: 2048, limit: 8192 }) => {
                assert!(n > 2048 && tokens == n, "{id}: {tokens} vs {n}");
                failed += 1;
            }
            Err(e) => panic!("{id}: {e}"),
            Ok(o) => {
                assert!(n <= 2048, "{id}: {n} tokens scored");
                check(&mut max_d, id, o.score.unwrap(), row["score"].as_f64().unwrap());
            }
        }
    }
    eprintln!("hhem limit 2048: {failed} of {} rows refused, the rest max |Δ| = {max_d:.3e}", rows.len());
    assert!(failed >= 1);
}

#[test]
fn sentence_mode_matches_the_reference_per_sentence() {
    let golden = common::golden("hhem.json");
    let (texts, _) = texts(&golden);
    let min = checker(HhemOptions { claim: ClaimMode::Sentences, max_length: Some(8192), ..Default::default() });
    let mean = checker(HhemOptions {
        claim: ClaimMode::Sentences,
        aggregation: Aggregation::Mean,
        max_length: Some(8192),
        ..Default::default()
    });
    let (mut max_d, mut n, mut nulls) = (0f64, 0, 0);
    for row in golden["rows"].as_array().unwrap() {
        let Some(s) = row.get("sentences") else { continue };
        let id = row["id"].as_str().unwrap();
        let (p, c) = &texts[id];
        let (a, b) = (min.score(p, c).unwrap(), mean.score(p, c).unwrap());
        let per = s["sentence_scores"].as_array().unwrap();
        if per.is_empty() {
            assert_eq!(a.null_reason, Some(NullReason::NoClaimSentence), "{id}");
            assert!(a.score.is_none() && b.score.is_none(), "{id}");
            nulls += 1;
            continue;
        }
        assert_eq!(a.claims.len(), per.len(), "{id}: sentence count");
        for (k, (c, w)) in a.claims.iter().zip(per).enumerate() {
            check(&mut max_d, &format!("{id} sentence {k}"), c.score, w.as_f64().unwrap());
        }
        check(&mut max_d, &format!("{id} min"), a.score.unwrap(), s["min"].as_f64().unwrap());
        check(&mut max_d, &format!("{id} mean"), b.score.unwrap(), s["mean"].as_f64().unwrap());
        n += 1;
    }
    eprintln!("hhem parity (sentences): {n} rows, {nulls} without a sentence; max |Δ| = {max_d:.3e}");
    assert!(n >= 15 && nulls >= 1);
}

/// The chunked mode: chunks cover the premise's sentences in order, each within the budget
/// unless a single sentence is longer, and the score is the max of the whole-mode scores of
/// the chunk texts.
#[test]
fn chunked_mode_is_the_max_over_chunks() {
    let golden = common::golden("hhem.json");
    let (texts, _) = texts(&golden);
    let (p, c) = &texts["x_long_premise"];
    let budget = 300;
    let chunked = checker(HhemOptions { premise: PremiseMode::Chunked, chunk_tokens: budget, ..Default::default() });
    let whole = checker(HhemOptions { max_length: Some(8192), ..Default::default() });
    let out = chunked.score(p, c).unwrap();
    assert!(out.chunks.len() >= 5, "{} chunks", out.chunks.len());
    let mut prev_end = 0;
    let mut best = f64::NEG_INFINITY;
    for (k, ch) in out.chunks.iter().enumerate() {
        assert!(ch.span.start >= prev_end && ch.span.end > ch.span.start, "chunk {k}");
        prev_end = ch.span.end;
        assert!(ch.tokens <= budget, "chunk {k}: {} tokens", ch.tokens);
        let text = &p[ch.span.start..ch.span.end];
        let w = whole.score(text, c).unwrap().score.unwrap();
        assert!((w - out.claims[0].chunk_scores[k]).abs() <= 1e-5, "chunk {k}");
        best = best.max(w);
    }
    assert!((out.score.unwrap() - best).abs() <= 1e-5);
    // The whole premise is over the default limit; chunked, the row is scored.
    assert!(matches!(whole_default().score(p, c), Err(Error::TooLong { .. })));
    // Whitespace-only premise: no sentence to chunk.
    assert_eq!(chunked.score("  \n ", c).unwrap().null_reason, Some(NullReason::NoPremiseSentence));
}

fn whole_default() -> Hhem {
    checker(HhemOptions::default())
}

#[test]
fn batch_size_does_not_change_scores() {
    let golden = common::golden("hhem.json");
    let (texts, _) = texts(&golden);
    let ids: Vec<&str> = ["fx01", "fx04", "edge_empty_summary", "x_braces", "x_newlines", "fx12"].to_vec();
    let pairs: Vec<(&str, &str)> = ids.iter().map(|i| (texts[*i].0.as_str(), texts[*i].1.as_str())).collect();
    let one = checker(HhemOptions { batch_size: 1, ..Default::default() }).score_batch(&pairs).unwrap();
    let six = checker(HhemOptions { batch_size: 6, ..Default::default() }).score_batch(&pairs).unwrap();
    for (a, b) in one.iter().zip(&six) {
        let (a, b) = (a.as_ref().unwrap().score.unwrap(), b.as_ref().unwrap().score.unwrap());
        assert!((a - b).abs() <= 1e-5, "{a} vs {b}");
    }
}

#[test]
fn threshold_sets_the_label() {
    let golden = common::golden("hhem.json");
    let (texts, _) = texts(&golden);
    let (p, c) = &texts["fx02"];
    let want = golden["rows"].as_array().unwrap().iter().find(|r| r["id"] == "fx02").unwrap()["score"].as_f64().unwrap();
    for (t, label) in [(want - 0.01, true), (want + 0.01, false)] {
        let out = checker(HhemOptions { threshold: t, ..Default::default() }).score(p, c).unwrap();
        assert_eq!(out.consistent, Some(label), "threshold {t} vs score {want}");
    }
}

#[test]
fn max_length_over_the_export_is_refused() {
    let e = Hhem::try_new(model_dir(), HhemOptions { max_length: Some(100_000), ..Default::default() }).unwrap_err();
    assert!(e.to_string().contains("8192"), "{e}");
}
