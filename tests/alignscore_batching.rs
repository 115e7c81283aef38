//! AlignScore results do not depend on batch size or row order (≤ 1e-5), and
//! `score` equals `score_batch` per row; truncation is reported.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod alignscore_support;
mod common;

use factpico_alignscore::{AlignScore, AlignScoreOptions, AlignScoreOutput, Mode, Warning};

fn scorer(batch_size: usize) -> AlignScore {
    AlignScore::try_new(
        alignscore_support::tiny_model(),
        AlignScoreOptions { mode: Mode::NliSp, batch_size, threads: 2, ..AlignScoreOptions::default() },
    )
    .unwrap()
}

fn assert_close(a: &AlignScoreOutput, b: &AlignScoreOutput, what: &str) -> f64 {
    assert_eq!(a.score.is_some(), b.score.is_some(), "{what}");
    assert_eq!(a.sentences.len(), b.sentences.len(), "{what}");
    let mut max_d = 0.0f64;
    if let (Some(x), Some(y)) = (a.score, b.score) {
        max_d = max_d.max((x - y).abs());
    }
    for (s, t) in a.sentences.iter().zip(&b.sentences) {
        assert_eq!(s.span, t.span, "{what}");
        max_d = max_d.max((s.score - t.score).abs());
    }
    assert!(max_d <= 1e-5, "{what}: |Δ| = {max_d:.3e}");
    max_d
}

#[test]
fn batch_size_and_order_do_not_change_scores() {
    if !alignscore_support::ort_or_skip("batch_size_and_order_do_not_change_scores") {
        return;
    }
    let mut rows: Vec<(String, String)> =
        common::fixture_pairs().into_iter().map(|p| (p.source, p.summary)).collect();
    if let Some(real) = common::real_pairs("batch_size_and_order_do_not_change_scores") {
        rows.extend(real.into_iter().step_by(15).map(|p| (p.source, p.summary)));
    }
    let inputs: Vec<(&str, &str)> = rows.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
    let base = scorer(1).score_batch(&inputs).unwrap();
    let mut max_d = 0.0f64;
    for bs in [3, 16, 64] {
        let s = scorer(bs);
        let out = s.score_batch(&inputs).unwrap();
        for (i, (a, b)) in base.iter().zip(&out).enumerate() {
            max_d = max_d.max(assert_close(a, b, &format!("batch {bs}, row {i}")));
        }
        let rev: Vec<(&str, &str)> = inputs.iter().rev().copied().collect();
        let out = s.score_batch(&rev).unwrap();
        for (i, (a, b)) in base.iter().zip(out.iter().rev()).enumerate() {
            max_d = max_d.max(assert_close(a, b, &format!("batch {bs} reversed, row {i}")));
        }
    }
    let single = scorer(4);
    for (i, (c, h)) in inputs.iter().enumerate().take(12) {
        max_d = max_d.max(assert_close(&base[i], &single.score(c, h).unwrap(), &format!("score() row {i}")));
    }
    eprintln!("batch_size_and_order_do_not_change_scores: {} rows, batch sizes 1/3/16/64, reversed; max |Δ| = {max_d:.2e}", inputs.len());
}

#[test]
fn outputs_carry_spans_chunks_and_warnings() {
    if !alignscore_support::ort_or_skip("outputs_carry_spans_chunks_and_warnings") {
        return;
    }
    let g = common::golden("alignscore_tiny.json");
    let own = g["calls"][0]["rows"].as_array().unwrap();
    let row = |id: &str| own.iter().find(|r| r["id"] == id).unwrap();
    let s = scorer(8);

    let r = row("x_long_context_one_claim");
    let (ctx, claim) = (r["source"].as_str().unwrap(), r["summary"].as_str().unwrap());
    let o = s.score(ctx, claim).unwrap();
    assert!(o.chunks.len() >= 4);
    for w in o.chunks.windows(2) {
        assert!(w[0].span.end < w[1].span.start && w[0].sentences.end == w[1].sentences.start);
    }
    assert_eq!(o.chunks.last().unwrap().span.end, ctx.trim_end().len());
    assert_eq!(&claim[o.sentences[0].span.start..o.sentences[0].span.end], claim.trim());
    let best = o.sentences[0].best_chunk;
    assert!(best < o.chunks.len());

    // Claim sentence over 512 tokens: flagged, and the fallback cut the claim.
    let r = row("x_claim_sentence_over_limit");
    let o = s.score(r["source"].as_str().unwrap(), r["summary"].as_str().unwrap()).unwrap();
    assert!(o.warnings.iter().any(|w| matches!(w, Warning::ClaimTooLong { sentence: 1, tokens, max_length: 512 } if *tokens > 508)), "{:?}", o.warnings);
    assert!(o.warnings.iter().any(|w| matches!(w, Warning::ClaimTruncated { sentence: 1, .. })), "{:?}", o.warnings);

    // A long context in the non-split mode is truncated and says so.
    let nli = AlignScore::try_new(
        alignscore_support::tiny_model(),
        AlignScoreOptions { mode: Mode::Nli, threads: 2, ..AlignScoreOptions::default() },
    )
    .unwrap();
    let o = nli.score(ctx, "Dropout was similar.").unwrap();
    assert!(o.warnings.iter().any(|w| matches!(w, Warning::ContextTruncated { chunk: 0, dropped_tokens } if *dropped_tokens > 100)), "{:?}", o.warnings);

    // Empty claim: documented null in split modes.
    let o = s.score(ctx, "  \n").unwrap();
    assert!(o.score.is_none() && o.null_reason.is_some() && o.sentences.is_empty());
    let json = serde_json::to_string(&o).unwrap();
    assert!(json.contains("\"null_reason\":\"no_claim_sentence\""), "{json}");
    eprintln!("outputs_carry_spans_chunks_and_warnings: 4 rows checked");
}
