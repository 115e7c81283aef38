//! FactCG parity with the unmodified reference (`derenlei/FactCG` `Inferencer`,
//! `use_hf_ckpt=True`) on a tiny random-weight DeBERTa-v3 replica of
//! `yaxili96/FactCG-DeBERTa-v3-Large`, exported by `onnx/export_factcg.py`
//! (`fixtures/models/factcg-deberta-v3-large-tiny`): goldens from `tests/goldens/gen_factcg.py`.
//!
//! Whole-claim score, best chunk and per-chunk probabilities on the self-written fixtures, extra
//! rows (over-long first sentence → empty first chunk, many chunks, a chunk over 2048 tokens
//! that cuts the claim, newlines, quotes, a document without tokens) and real InfoLossQA pairs;
//! the sentence mode against the reference run on each `nltk.sent_tokenize` sentence,
//! aggregated by min and mean. |Δ| ≤ 1e-4 (fp32).
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "../../../tests/common/mod.rs"]
mod common;

use std::collections::HashMap;
use std::path::PathBuf;

use factpico_factcg::{Aggregation, ClaimMode, FactCg, FactCgOptions, NullReason};
use serde_json::Value;

const TOL: f64 = 1e-4;

fn model_dir() -> PathBuf {
    common::workspace_root().join("fixtures/models/factcg-deberta-v3-large-tiny")
}

fn checker(claim: ClaimMode, aggregation: Aggregation, batch_size: usize) -> FactCg {
    let opts = FactCgOptions { claim, aggregation, batch_size, threads: 2, ..FactCgOptions::default() };
    FactCg::try_new(model_dir(), opts).unwrap()
}

/// id -> (document, claim) for the fixtures, the golden's extra rows and (when present) the
/// real InfoLossQA pairs.
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
    if let Some(p) = common::require_shared("factcg_parity", "data/infolossqa/processed/documents.json") {
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

#[test]
fn whole_claim_matches_the_reference() {
    let golden = common::golden("factcg.json");
    let (texts, real) = texts(&golden);
    let rows: Vec<&Value> = golden["rows"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| real || !r["id"].as_str().unwrap().starts_with("ilq:"))
        .collect();
    let pairs: Vec<(&str, &str)> = rows
        .iter()
        .map(|r| {
            let (d, c) = &texts[r["id"].as_str().unwrap()];
            (d.as_str(), c.as_str())
        })
        .collect();
    // Batch size 3 mixes rows and chunks of different lengths in one batch.
    let fc = checker(ClaimMode::Whole, Aggregation::Min, 3);
    let outs = fc.score_batch(&pairs).unwrap();
    let (mut max_d, mut n_chunks, mut empty_first, mut cut, mut nulls) = (0f64, 0, 0, 0, 0);
    for (row, out) in rows.iter().zip(&outs) {
        let id = row["id"].as_str().unwrap();
        let w = &row["whole"];
        if w["score"].is_null() {
            // The reference fails on a document without chunks; factpico returns a null.
            assert!(w["error"].as_str().is_some(), "{id}");
            assert_eq!(out.null_reason, Some(NullReason::NoChunk), "{id}");
            assert!(out.score.is_none() && out.supported.is_none(), "{id}");
            nulls += 1;
            continue;
        }
        let want = w["score"].as_f64().unwrap();
        check(&mut max_d, id, out.score.unwrap(), want);
        assert_eq!(out.supported, Some(out.score.unwrap() > 0.5), "{id}");
        let c = &out.claims[0];
        let want_chunks: Vec<f64> = w["chunk_scores"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect();
        assert_eq!(c.chunk_scores.len(), want_chunks.len(), "{id}: chunk count");
        assert_eq!(out.chunks.len(), w["n_chunks"].as_u64().unwrap() as usize, "{id}");
        for (k, (g, r)) in c.chunk_scores.iter().zip(&want_chunks).enumerate() {
            check(&mut max_d, &format!("{id} chunk {k}"), *g, *r);
        }
        // Same best chunk unless two chunks tie within the tolerance.
        let best = w["best_chunk"].as_u64().unwrap() as usize;
        if c.best_chunk != best {
            assert!((want_chunks[best] - want_chunks[c.best_chunk]).abs() <= TOL, "{id}: best chunk");
        }
        n_chunks += want_chunks.len();
        empty_first += usize::from(out.chunks[0].sentences.is_empty());
        cut += c.truncated_chunks;
    }
    eprintln!(
        "factcg parity (whole claim): {} rows ({} null), {n_chunks} chunks, {empty_first} empty first chunks, \
         {cut} inputs cut to 2048 tokens; max |Δ| = {max_d:.3e}{}",
        rows.len(),
        nulls,
        if real { "" } else { " (real pairs skipped)" }
    );
    assert!(empty_first >= 2 && cut >= 1 && nulls >= 1, "the goldens no longer cover the reference's quirks");
}

#[test]
fn sentence_mode_matches_the_reference_per_sentence() {
    let golden = common::golden("factcg.json");
    let (texts, _) = texts(&golden);
    let min = checker(ClaimMode::Sentences, Aggregation::Min, 4);
    let mean = checker(ClaimMode::Sentences, Aggregation::Mean, 4);
    let mut max_d = 0f64;
    let mut n = 0;
    for row in golden["rows"].as_array().unwrap() {
        let Some(s) = row.get("sentences") else { continue };
        let id = row["id"].as_str().unwrap();
        let Some((doc, claim)) = texts.get(id) else { continue };
        let (a, b) = (min.score(doc, claim).unwrap(), mean.score(doc, claim).unwrap());
        let Some(per) = s["sentence_scores"].as_array().filter(|p| !p.is_empty()) else {
            assert!(a.score.is_none() && b.score.is_none(), "{id}: the reference has no score");
            continue;
        };
        assert_eq!(a.claims.len(), per.len(), "{id}: sentence count");
        for (k, (c, w)) in a.claims.iter().zip(per).enumerate() {
            check(&mut max_d, &format!("{id} sentence {k}"), c.score, w.as_f64().unwrap());
        }
        check(&mut max_d, &format!("{id} min"), a.score.unwrap(), s["min"].as_f64().unwrap());
        check(&mut max_d, &format!("{id} mean"), b.score.unwrap(), s["mean"].as_f64().unwrap());
        n += 1;
    }
    eprintln!("factcg parity (sentences): {n} rows; max |Δ| = {max_d:.3e}");
    assert!(n >= 10);
}

#[test]
fn threshold_sets_the_label() {
    let golden = common::golden("factcg.json");
    let (texts, _) = texts(&golden);
    let (doc, claim) = &texts["fx02"];
    let want = golden["rows"].as_array().unwrap().iter().find(|r| r["id"] == "fx02").unwrap()["whole"]["score"]
        .as_f64()
        .unwrap();
    for (t, label) in [(want - 0.01, true), (want + 0.01, false)] {
        let fc = FactCg::try_new(model_dir(), FactCgOptions { threshold: t, threads: 2, ..Default::default() }).unwrap();
        let out = fc.score(doc, claim).unwrap();
        assert_eq!(out.supported, Some(label), "threshold {t} vs score {want}");
    }
}
