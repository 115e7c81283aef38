//! AlignScore parity with the unmodified reference (yuh-zha/AlignScore @ a0936d5 via
//! alignscore-speedofmagic 0.1.4), all six modes, on the tiny random fixture checkpoint:
//! goldens from `tests/goldens/gen_alignscore.py`, ONNX graph from our export path.
//! |Δ| ≤ 1e-4 per pair (fp32).
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod alignscore_support;
mod common;

use std::collections::HashMap;

use factpico_alignscore::{AlignScore, AlignScoreOptions, Mode, NullReason};
use serde_json::Value;

const TOL: f64 = 1e-4;

fn scorer(mode: Mode, batch_size: usize) -> AlignScore {
    AlignScore::try_new(
        alignscore_support::tiny_model(),
        AlignScoreOptions { mode, batch_size, threads: 2, ..AlignScoreOptions::default() },
    )
    .unwrap()
}

/// Compares one golden call (rows in golden order) in every mode; returns (compared, nulls).
fn check_call(name: &str, rows: &[Value], texts: &HashMap<String, (String, String)>) -> (usize, usize) {
    let inputs: Vec<(&str, &str)> = rows
        .iter()
        .map(|r| {
            let (s, c) = &texts[r["id"].as_str().unwrap()];
            (s.as_str(), c.as_str())
        })
        .collect();
    let (mut compared, mut nulls) = (0, 0);
    // One model pass for the three split modes and one for the three non-split modes.
    let all = scorer(Mode::NliSp, 16).score_batch_modes(&inputs, &Mode::ALL).unwrap();
    for (mode, out) in Mode::ALL.into_iter().zip(all) {
        let mut max_d = 0.0f64;
        let mut worst = "";
        for (r, o) in rows.iter().zip(&out) {
            let id = r["id"].as_str().unwrap();
            match r[mode.as_str()].as_f64() {
                None => {
                    assert!(o.score.is_none(), "{name}/{mode}/{id}: reference has no score, we gave {:?}", o.score);
                    assert_eq!(o.null_reason, Some(NullReason::NoClaimSentence), "{name}/{mode}/{id}");
                    nulls += 1;
                }
                Some(want) => {
                    let got = o.score.unwrap_or_else(|| panic!("{name}/{mode}/{id}: no score ({:?})", o.null_reason));
                    let d = (got - want).abs();
                    if d > max_d {
                        max_d = d;
                        worst = id;
                    }
                    assert!(d <= TOL, "{name}/{mode}/{id}: factpico {got} vs reference {want} (|Δ| = {d:.3e})");
                    compared += 1;
                }
            }
            if mode.is_split() && o.score.is_some() {
                assert_eq!(o.chunks.len() as u64, r["n_chunks"].as_u64().unwrap(), "{name}/{mode}/{id}: chunks");
                assert_eq!(o.sentences.len() as u64, r["n_claim_sents"].as_u64().unwrap(), "{name}/{mode}/{id}: claim sentences");
            }
        }
        eprintln!("{name} {mode}: {} rows, max |Δ| = {max_d:.3e} (at {worst})", rows.len());
    }
    (compared, nulls)
}

fn golden_call(g: &Value, name: &str) -> Vec<Value> {
    g["calls"].as_array().unwrap().iter().find(|c| c["name"] == name).unwrap()["rows"].as_array().unwrap().clone()
}

#[test]
fn parity_own_pairs_all_modes() {
    if !alignscore_support::ort_or_skip("parity_own_pairs_all_modes") {
        return;
    }
    let g = common::golden("alignscore_tiny.json");
    let rows = golden_call(&g, "own");
    let mut texts: HashMap<String, (String, String)> =
        common::fixture_pairs().into_iter().map(|p| (p.id, (p.source, p.summary))).collect();
    for r in &rows {
        if let (Some(s), Some(c)) = (r["source"].as_str(), r["summary"].as_str()) {
            texts.insert(r["id"].as_str().unwrap().to_owned(), (s.to_owned(), c.to_owned()));
        }
    }
    let (n, nulls) = check_call("own", &rows, &texts);
    eprintln!("parity_own_pairs_all_modes: {} rows x 6 modes: {n} scores compared (|Δ| <= {TOL}), {nulls} documented nulls", rows.len());
    assert!(rows.len() >= 26 && n >= 150);
    // The self-written set covers what it is meant to cover.
    let by_id = |id: &str| rows.iter().find(|r| r["id"] == id).unwrap().clone();
    assert!(by_id("x_long_context_one_claim")["n_chunks"].as_u64().unwrap() >= 4, "long context gives several chunks");
    assert!(by_id("x_multi_sentence_claim")["n_claim_sents"].as_u64().unwrap() >= 5);
}

#[test]
fn parity_real_pairs_all_modes() {
    let Some(pairs) = common::real_pairs("parity_real_pairs_all_modes") else { return };
    if !alignscore_support::ort_or_skip("parity_real_pairs_all_modes") {
        return;
    }
    let g = common::golden("alignscore_tiny.json");
    let rows = golden_call(&g, "real");
    assert_eq!(rows.len(), pairs.len(), "golden was generated on the same 300 pairs");
    let texts: HashMap<String, (String, String)> = pairs.into_iter().map(|p| (p.id, (p.source, p.summary))).collect();
    let (n, nulls) = check_call("real", &rows, &texts);
    eprintln!("parity_real_pairs_all_modes: {} real pairs x 6 modes: {n} scores compared (|Δ| <= {TOL}), {nulls} nulls", rows.len());
    assert!(n >= 6 * 290);
}
