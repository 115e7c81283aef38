//! `factpico_text::FactcgChunking` against FactCG's `Inferencer.chunking_src`
//! run unmodified (golden file `tests/goldens/factcg_chunks.json`, produced by
//! `tests/goldens/gen_factcg_chunks.py`): chunk strings verbatim for the fixture
//! and hand-written texts, chunk hashes for the 600 real texts of `../shared`,
//! at four chunk sizes (550, the reference's, and smaller ones that move the
//! boundaries and produce over-long sentences and empty first chunks).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]
#[path = "../../../tests/common/mod.rs"]
mod common;

use factpico_text::{FactcgChunking, Punkt, WordTokenizeCounter};
use serde_json::Value;
use sha2::{Digest, Sha256};

fn ours(text: &str, size: usize) -> Vec<String> {
    FactcgChunking { max_tokens: size }
        .chunks(&Punkt::english(), &WordTokenizeCounter, text)
        .into_iter()
        .map(|c| c.text)
        .collect()
}

fn sizes(golden: &Value) -> Vec<usize> {
    golden["sizes"].as_array().expect("sizes").iter().map(|v| v.as_u64().expect("size") as usize).collect()
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array().expect("chunk list").iter().map(|t| t.as_str().expect("chunk").to_owned()).collect()
}

fn check_verbatim(golden: &Value, id: &str, text: &str, rec: &Value, errs: &mut Vec<String>) -> usize {
    let mut n = 0;
    for size in sizes(golden) {
        let want = strings(&rec[size.to_string()]);
        n += want.len();
        let got = ours(text, size);
        if got != want {
            errs.push(format!("{id} (size {size}):\n  factcg: {want:?}\n  ours:   {got:?}"));
        }
    }
    n
}

fn report(what: &str, n_texts: usize, n_chunks: usize, errs: &[String]) {
    eprintln!("factcg_chunks_golden {what}: {n_texts} texts, {n_chunks} reference chunks; {} mismatches", errs.len());
    for e in errs.iter().take(10) {
        eprintln!("{e}");
    }
    assert!(errs.is_empty(), "{what}: {} mismatches against FactCG (see stderr)", errs.len());
}

#[test]
fn factcg_chunks_match_reference_on_fixtures() {
    let golden = common::golden("factcg_chunks.json");
    let recs = golden["fixtures"].as_object().expect("fixtures");
    let texts = common::fixture_texts();
    assert_eq!(recs.len(), texts.len(), "fixtures changed; rerun gen_factcg_chunks.py");
    let mut errs = Vec::new();
    let mut n = 0;
    for (id, text) in &texts {
        n += check_verbatim(&golden, id, text, &recs[id.as_str()], &mut errs);
    }
    report("fixtures", texts.len(), n, &errs);
}

#[test]
fn factcg_chunks_match_reference_on_handwritten_texts() {
    let golden = common::golden("factcg_chunks.json");
    let recs = golden["handwritten"].as_array().expect("handwritten");
    let mut errs = Vec::new();
    let mut n = 0;
    let mut empty_first = 0;
    for rec in recs {
        let id = rec["id"].as_str().expect("id");
        n += check_verbatim(&golden, id, rec["text"].as_str().expect("text"), &rec["chunks"], &mut errs);
        empty_first += usize::from(rec["chunks"]["550"][0].as_str() == Some(""));
    }
    // The quirks the goldens must cover: an empty first chunk at the reference size.
    assert!(empty_first >= 2, "hand-written texts no longer exercise the empty first chunk");
    report("handwritten", recs.len(), n, &errs);
}

#[test]
fn factcg_chunks_match_reference_on_real_texts() {
    let Some(texts) = common::real_texts("factcg_chunks_match_reference_on_real_texts") else { return };
    let golden = common::golden("factcg_chunks.json");
    let recs = golden["real"].as_object().expect("real");
    assert_eq!(recs.len(), texts.len(), "golden and corpus disagree on the number of texts; rerun the generator");
    let mut errs = Vec::new();
    let mut n = 0;
    let mut multi = 0;
    for (id, text) in &texts {
        let rec = &recs[id.as_str()];
        for size in sizes(&golden) {
            let want: Vec<&str> = rec[size.to_string()].as_array().expect("hashes").iter().map(|h| h.as_str().expect("hash")).collect();
            n += want.len();
            if size == 550 && want.len() > 1 {
                multi += 1;
            }
            let got: Vec<String> =
                ours(text, size).iter().map(|c| hex::encode(Sha256::digest(c.as_bytes()))[..16].to_owned()).collect();
            if got != want {
                errs.push(format!("{id} (size {size}): factcg {} chunks, ours {} (hashes differ)", want.len(), got.len()));
            }
        }
    }
    eprintln!("factcg_chunks_golden real: {multi} texts have more than one chunk at 550 tokens");
    report("real", texts.len(), n, &errs);
}
