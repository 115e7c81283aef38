//! AllenNLP 1.1.0 beam search (`allennlp/nn/beam_search.py`, `BeamSearch.search`), as
//! used by QAEval's question generator (`qaeval/generation/model.py`, beam 4,
//! `max_steps = 100`, start token `<s>`), which QAFactEval calls.
//!
//! Semantics reproduced:
//! * step 0 decodes the start token once per input and keeps the top `beam_size` tokens
//!   (`log_softmax` scores); with `beam_size = 1` and every input predicting the end token
//!   at once, search returns immediately;
//! * each later step extends every beam by its top `per_node_beam_size` tokens, adds the
//!   beam's summed log-probability, and keeps the top `beam_size` of the
//!   `beam_size × per_node_beam_size` candidates — **no length normalisation**;
//! * a beam whose last token is the end token can only be extended by the end token with
//!   log-probability 0 (it keeps its score);
//! * search stops when every beam of every input ends with the end token or after
//!   `max_steps` predicted tokens;
//! * ties in `topk` go to the lower index.
//!
//! The caller (QAEval) takes the beam with the highest log-probability (`argmax`, first on
//! ties) and strips trailing end tokens: see [`AllenNlpBeamOutput::best_tokens`].

use super::beam::top_k;
use super::{check_logits, log_softmax, DecoderStep, Hyp};
use crate::{Error, Result};

/// AllenNLP `BeamSearch(end_index, max_steps, beam_size, per_node_beam_size)`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AllenNlpBeamConfig {
    /// Token fed at the first step (QAEval: BART `<s>`, id 0).
    pub start_token_id: u32,
    /// End token (`end_index`; BART `</s>`, id 2).
    pub end_token_id: u32,
    /// Number of beams (QAEval: 4), ≥ 1.
    pub beam_size: usize,
    /// Candidates per beam per step (AllenNLP default: `beam_size`).
    pub per_node_beam_size: Option<usize>,
    /// Maximum number of predicted tokens (QAEval: 100), ≥ 1.
    pub max_steps: usize,
}

impl AllenNlpBeamConfig {
    /// QAEval's settings for BART: start `<s>` = 0, end `</s>` = 2, beam 4, 100 steps.
    pub fn qaeval_bart() -> Self {
        Self { start_token_id: 0, end_token_id: 2, beam_size: 4, per_node_beam_size: None, max_steps: 100 }
    }
}

/// All beams of one input, best first (AllenNLP's `topk` order).
#[derive(Debug, Clone, PartialEq)]
pub struct AllenNlpBeamOutput {
    /// `(predicted tokens, summed log-probability)` per beam; every sequence has the same
    /// length (the number of steps run), finished ones padded with the end token.
    pub beams: Vec<(Vec<u32>, f32)>,
}

impl AllenNlpBeamOutput {
    /// QAEval's choice: the beam with the highest log-probability (first on ties), with
    /// trailing end tokens removed (`make_output_human_readable`).
    pub fn best_tokens(&self, end_token_id: u32) -> Vec<u32> {
        let mut best: Option<&(Vec<u32>, f32)> = None;
        for b in &self.beams {
            if best.is_none_or(|x| b.1 > x.1) {
                best = Some(b);
            }
        }
        let mut tokens = best.map(|b| b.0.clone()).unwrap_or_default();
        while tokens.last() == Some(&end_token_id) {
            tokens.pop();
        }
        tokens
    }

    /// Log-probability of the best beam.
    pub fn best_log_probability(&self) -> f32 {
        self.beams.iter().map(|b| b.1).fold(f32::NEG_INFINITY, f32::max)
    }
}

#[derive(Debug, Clone)]
struct Beam {
    tokens: Vec<u32>,
    score: f32,
    /// Slot in the last decoder call that produced this beam's state; `None` once finished.
    slot: Option<usize>,
}

/// Beam search with AllenNLP 1.1.0 semantics over `batch_size` rows.
///
/// Beams that ended are not sent to the decoder again (their extension is fixed).
///
/// # Errors
/// [`Error::InvalidArgument`] when `beam_size` or `max_steps` is 0, or
/// `per_node_beam_size` exceeds the vocabulary (AllenNLP raises `ConfigurationError`);
/// any error of the decoder.
pub fn allennlp_beam_search<D: DecoderStep + ?Sized>(
    decoder: &mut D,
    batch_size: usize,
    config: &AllenNlpBeamConfig,
) -> Result<Vec<AllenNlpBeamOutput>> {
    let beam_size = config.beam_size;
    let per_node = config.per_node_beam_size.unwrap_or(beam_size);
    if beam_size == 0 || per_node == 0 || config.max_steps == 0 {
        return Err(Error::InvalidArgument(
            "AllenNLP beam search needs beam_size, per_node_beam_size and max_steps ≥ 1".into(),
        ));
    }
    if batch_size == 0 {
        return Ok(Vec::new());
    }
    let vocab = decoder.vocab_size();
    if per_node > vocab || beam_size > vocab {
        return Err(Error::InvalidArgument(format!(
            "target vocabulary ({vocab}) too small for beam_size {beam_size} / per_node_beam_size {per_node}"
        )));
    }
    let end = config.end_token_id;
    decoder.start()?;
    let first: Vec<Hyp> =
        (0..batch_size).map(|row| Hyp { row, parent: None, token: config.start_token_id }).collect();
    let logits = decoder.step(&first)?;
    check_logits(&logits, batch_size, vocab)?;
    let mut beams: Vec<Vec<Beam>> = Vec::with_capacity(batch_size);
    for row in 0..batch_size {
        let lp = log_softmax(&logits[row * vocab..(row + 1) * vocab]);
        beams.push(
            top_k(&lp, beam_size)
                .into_iter()
                .map(|(s, t)| Beam {
                    tokens: vec![t as u32],
                    score: s,
                    slot: if t as u32 == end { None } else { Some(row) },
                })
                .collect(),
        );
    }
    if beam_size == 1 && beams.iter().all(|b| b.iter().all(|x| x.tokens[0] == end)) {
        return Ok(beams.into_iter().map(|b| AllenNlpBeamOutput { beams: to_out(b) }).collect());
    }
    for _ in 0..config.max_steps - 1 {
        if beams.iter().all(|row| row.iter().all(|b| b.slot.is_none())) {
            break;
        }
        // One decoder call for all unfinished beams.
        let mut calls: Vec<Hyp> = Vec::new();
        let mut call_of: Vec<Vec<Option<usize>>> = Vec::with_capacity(batch_size);
        for (row, row_beams) in beams.iter().enumerate() {
            let mut v = Vec::with_capacity(row_beams.len());
            for b in row_beams {
                match b.slot {
                    Some(parent) => {
                        v.push(Some(calls.len()));
                        calls.push(Hyp { row, parent: Some(parent), token: *b.tokens.last().unwrap_or(&end) });
                    }
                    None => v.push(None),
                }
            }
            call_of.push(v);
        }
        let logits = decoder.step(&calls)?;
        check_logits(&logits, calls.len(), vocab)?;
        for row in 0..batch_size {
            // Candidates in AllenNLP order: beam-major, then that beam's top per_node.
            let mut cand_scores: Vec<f32> = Vec::with_capacity(beam_size * per_node);
            let mut cand_tokens: Vec<u32> = Vec::with_capacity(beam_size * per_node);
            for (bi, b) in beams[row].iter().enumerate() {
                match call_of[row][bi] {
                    Some(slot) => {
                        let lp = log_softmax(&logits[slot * vocab..(slot + 1) * vocab]);
                        for (s, t) in top_k(&lp, per_node) {
                            cand_scores.push(s + b.score);
                            cand_tokens.push(t as u32);
                        }
                    }
                    None => {
                        // Finished: the end token at 0, every other token at −inf
                        // (topk of that row: end first, then the lowest indices).
                        cand_scores.push(b.score);
                        cand_tokens.push(end);
                        let mut t = 0u32;
                        while !cand_tokens.len().is_multiple_of(per_node) {
                            if t != end {
                                cand_scores.push(f32::NEG_INFINITY);
                                cand_tokens.push(t);
                            }
                            t += 1;
                        }
                    }
                }
            }
            let mut next = Vec::with_capacity(beam_size);
            for (s, idx) in top_k(&cand_scores, beam_size) {
                let parent = &beams[row][idx / per_node];
                let tok = cand_tokens[idx];
                let mut tokens = parent.tokens.clone();
                tokens.push(tok);
                let slot = if tok == end { None } else { call_of[row][idx / per_node] };
                next.push(Beam { tokens, score: s, slot });
            }
            beams[row] = next;
        }
    }
    Ok(beams.into_iter().map(|b| AllenNlpBeamOutput { beams: to_out(b) }).collect())
}

fn to_out(b: Vec<Beam>) -> Vec<(Vec<u32>, f32)> {
    b.into_iter().map(|x| (x.tokens, x.score)).collect()
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::super::toy::{lp, Toy};
    use super::*;

    /// Vocabulary: 0 = `<s>`, 1 = "a", 2 = `</s>`, 3 = "b". Beam 2, per node 2.
    fn toy() -> Toy<impl Fn(usize, &[u32]) -> Vec<f32>> {
        Toy::new(4, 0, |_, prefix: &[u32]| match prefix {
            [] => lp(&[0.0, 0.6, 0.3, 0.1]),
            [1] => lp(&[0.0, 0.1, 0.2, 0.7]),
            [1, 3] => lp(&[0.0, 0.05, 0.9, 0.05]),
            _ => lp(&[0.0, 0.25, 0.5, 0.25]),
        })
    }

    /// Hand-worked (ln .6 = −0.5108, ln .3 = −1.2040, ln .7 = −0.3567, ln .2 = −1.6094,
    /// ln .9 = −0.1054, ln .05 = −2.9957):
    /// * step 0: top 2 of [·, a .6, </s> .3, b .1] → [a] −0.5108, [</s>] −1.2040.
    /// * step 1: [a] → top 2: b −0.8675, </s> −2.1202; [</s>] → </s> −1.2040 (finished
    ///   keeps its score), then −inf. Keep [a b] −0.8675, [</s> </s>] −1.2040.
    /// * step 2: [a b] → </s> −0.9729, a/b −3.8632; [</s> </s>] → −1.2040.
    ///   Keep [a b </s>] −0.9729, [</s> </s> </s>] −1.2040. All ended → stop.
    #[test]
    fn hand_worked_search() {
        let mut t = toy();
        let cfg = AllenNlpBeamConfig {
            start_token_id: 0,
            end_token_id: 2,
            beam_size: 2,
            per_node_beam_size: None,
            max_steps: 10,
        };
        let out = allennlp_beam_search(&mut t, 1, &cfg).unwrap();
        let beams = &out[0].beams;
        assert_eq!(beams[0].0, vec![1, 3, 2]);
        assert_eq!(beams[1].0, vec![2, 2, 2]);
        let e0 = (0.6f64.ln() + 0.7f64.ln() + 0.9f64.ln()) as f32;
        assert!((beams[0].1 - e0).abs() < 1e-5);
        assert!((beams[1].1 - 0.3f32.ln()).abs() < 1e-5);
        assert_eq!(out[0].best_tokens(2), vec![1, 3]);
        // Decoder calls: 1 (start), 1 ([a]), 1 ([a b]) — finished beams are not re-run.
        assert_eq!(t.steps_seen, vec![1, 1, 1]);
    }

    /// Summed log-probability favours short outputs: step 0 gives [a] ln .55 = −0.5978 and
    /// [</s>] ln .45 = −0.7985; every continuation of "a" costs ln .5 = −0.6931, so at
    /// step 1 [a a] = −1.2909 < −0.7985 and the empty sequence stays best until
    /// `max_steps` (4 tokens), although "a" was the better first token.
    #[test]
    fn short_hypotheses_win_without_normalisation() {
        let mut t = Toy::new(4, 0, |_, prefix: &[u32]| match prefix {
            [] => lp(&[0.0, 0.55, 0.45, 0.0]),
            _ => lp(&[0.0, 0.5, 0.0, 0.5]),
        });
        let cfg = AllenNlpBeamConfig {
            start_token_id: 0,
            end_token_id: 2,
            beam_size: 2,
            per_node_beam_size: None,
            max_steps: 4,
        };
        let out = allennlp_beam_search(&mut t, 1, &cfg).unwrap();
        assert_eq!(out[0].best_tokens(2), Vec::<u32>::new());
        // The other beam ran to max_steps: 4 predicted tokens.
        assert_eq!(out[0].beams[1].0.len(), 4);
    }

    #[test]
    fn beam_one_all_end_returns_immediately() {
        let mut t = Toy::new(3, 0, |_, _: &[u32]| lp(&[0.0, 0.2, 0.8]));
        let cfg = AllenNlpBeamConfig {
            start_token_id: 0,
            end_token_id: 2,
            beam_size: 1,
            per_node_beam_size: None,
            max_steps: 5,
        };
        let out = allennlp_beam_search(&mut t, 2, &cfg).unwrap();
        assert_eq!(out[0].beams[0].0, vec![2]);
        assert_eq!(t.steps_seen, vec![2]);
    }

    #[test]
    fn rejects_bad_configs() {
        let mut t = toy();
        let mut cfg = AllenNlpBeamConfig::qaeval_bart();
        cfg.beam_size = 5; // > vocab 4
        assert!(allennlp_beam_search(&mut t, 1, &cfg).is_err());
        cfg.beam_size = 0;
        assert!(allennlp_beam_search(&mut t, 1, &cfg).is_err());
    }
}
