//! Hugging Face beam search, reproducing transformers 4.46.3
//! `GenerationMixin._beam_search` with `BeamSearchScorer` and `BeamHypotheses`
//! (`src/transformers/generation/beam_search.py`, `generation/utils.py`).
//!
//! Semantics reproduced:
//! * beam scores start at `[0, −1e9, …]` per input so the first step expands beam 0 only;
//! * per step, `log_softmax` of the logits (then the logits processors), plus the beam's
//!   running `f32` score; the best `2 × num_beams` candidates over `num_beams × V`
//!   (sorted, ties to the lower flat index);
//! * a candidate ending in EOS is offered to the finished-hypothesis heap only if it ranks
//!   among the first `num_beams` candidates, with score
//!   `sum_logprobs / generated_len ^ length_penalty` where `generated_len` counts the
//!   generated tokens including EOS but not the decoder start token (the 4.46 convention);
//! * the heap keeps the `num_beams` best; an input is *done* per `early_stopping`
//!   (`true`: heap full; `false`: best running score / `cur_len ^ lp` cannot beat the
//!   worst kept; `"never"`: the same bound, using `max_length` when `lp > 0`);
//! * at `max_length` the unfinished beams are added with their running score and the
//!   best hypothesis wins (ties: the one added last, like Python's `sorted(...).pop()`).

use super::{check_logits, log_softmax, DecoderStep, Hyp, LogitsProcessors};
use crate::{Error, Result};

/// HF `early_stopping` (`True`, `False`, `"never"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EarlyStopping {
    /// `True`: stop an input as soon as `num_beams` hypotheses are finished.
    True,
    /// `False` (transformers default): stop when the best running beam, length-normalised
    /// at the current length, cannot beat the worst finished hypothesis.
    #[default]
    False,
    /// `"never"`: the canonical bound (uses `max_length` when `length_penalty > 0`).
    Never,
}

/// Beam-search settings (HF `generate(num_beams=…, length_penalty=…, early_stopping=…)`).
#[derive(Debug, Clone, PartialEq)]
pub struct BeamConfig {
    /// Number of beams, ≥ 2 (HF uses greedy search for 1).
    pub num_beams: usize,
    /// Token fed at decoder position 0.
    pub decoder_start_token_id: u32,
    /// End-of-sequence token.
    pub eos_token_id: u32,
    /// Maximum decoder length including the start token (HF `max_length`), ≥ 2.
    pub max_length: usize,
    /// Exponent of the length normalisation (HF default 1.0).
    pub length_penalty: f64,
    /// Stopping rule.
    pub early_stopping: EarlyStopping,
    /// Logits processors (applied to the log-probabilities, as in HF beam search).
    pub processors: LogitsProcessors,
}

impl BeamConfig {
    /// HF defaults: `length_penalty = 1.0`, `early_stopping = False`, `max_length = 20`.
    pub fn new(num_beams: usize, decoder_start_token_id: u32, eos_token_id: u32) -> Self {
        Self {
            num_beams,
            decoder_start_token_id,
            eos_token_id,
            max_length: 20,
            length_penalty: 1.0,
            early_stopping: EarlyStopping::False,
            processors: LogitsProcessors::default(),
        }
    }
}

/// Best hypothesis of one input row.
#[derive(Debug, Clone, PartialEq)]
pub struct BeamOutput {
    /// Generated tokens after the start token, ending with EOS when the hypothesis finished.
    pub tokens: Vec<u32>,
    /// HF `sequences_scores`: `sum_logprobs / generated_len ^ length_penalty`.
    pub score: f64,
    /// Whether the hypothesis ended with EOS.
    pub finished: bool,
}

#[derive(Debug, Clone)]
struct Finished {
    score: f64,
    tokens: Vec<u32>,
    eos: bool,
}

/// `BeamHypotheses` of transformers 4.46.3.
#[derive(Debug)]
struct Heap {
    num_beams: usize,
    length_penalty: f64,
    early_stopping: EarlyStopping,
    max_length: usize,
    beams: Vec<Finished>,
    worst_score: f64,
}

impl Heap {
    fn new(cfg: &BeamConfig) -> Self {
        Self {
            num_beams: cfg.num_beams,
            length_penalty: cfg.length_penalty,
            early_stopping: cfg.early_stopping,
            max_length: cfg.max_length,
            beams: Vec::new(),
            worst_score: 1e9,
        }
    }

    fn add(&mut self, tokens: Vec<u32>, sum_logprobs: f32, generated_len: usize, eos: bool) {
        let score = f64::from(sum_logprobs) / (generated_len as f64).powf(self.length_penalty);
        if self.beams.len() < self.num_beams || score > self.worst_score {
            self.beams.push(Finished { score, tokens, eos });
            if self.beams.len() > self.num_beams {
                let mut sorted: Vec<(f64, usize)> =
                    self.beams.iter().enumerate().map(|(i, b)| (b.score, i)).collect();
                sorted.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
                self.beams.remove(sorted[0].1);
                self.worst_score = sorted[1].0;
            } else {
                self.worst_score = self.worst_score.min(score);
            }
        }
    }

    /// `cur_len` is the decoder length after this step (HF `input_ids.shape[-1] + 1`);
    /// the decoder prompt length is 1 (the start token).
    fn is_done(&self, best_sum_logprobs: f32, cur_len: usize) -> bool {
        if self.beams.len() < self.num_beams {
            return false;
        }
        let best = f64::from(best_sum_logprobs);
        let lp = self.length_penalty;
        let highest = match self.early_stopping {
            EarlyStopping::True => return true,
            EarlyStopping::False => best / ((cur_len - 1) as f64).powf(lp),
            EarlyStopping::Never => {
                if lp > 0.0 {
                    best / ((self.max_length - 1) as f64).powf(lp)
                } else {
                    best / ((cur_len - 1) as f64).powf(lp)
                }
            }
        };
        self.worst_score >= highest
    }

    fn best(&self) -> Option<&Finished> {
        // Python: sorted(beams, key=score).pop() — stable sort, last of the maxima.
        let mut best: Option<&Finished> = None;
        for b in &self.beams {
            if best.is_none_or(|x| b.score >= x.score) {
                best = Some(b);
            }
        }
        best
    }
}

#[derive(Debug, Clone)]
struct Beam {
    tokens: Vec<u32>,
    score: f32,
    slot: usize,
}

/// Top `k` of `(score, flat index)`, sorted by score descending then index ascending.
pub(crate) fn top_k(scores: &[f32], k: usize) -> Vec<(f32, usize)> {
    let mut best: Vec<(f32, usize)> = Vec::with_capacity(k + 1);
    for (i, &s) in scores.iter().enumerate() {
        if best.len() == k {
            if let Some(&(last, _)) = best.last() {
                // Strictly better than the current k-th (ties keep the lower index).
                if s.partial_cmp(&last) != Some(std::cmp::Ordering::Greater) {
                    continue;
                }
            }
        }
        let pos = best.partition_point(|&(v, _)| v >= s);
        best.insert(pos, (s, i));
        if best.len() > k {
            best.pop();
        }
    }
    best
}

/// Beam search over `batch_size` independent rows with HF semantics (see the module docs).
///
/// # Errors
/// [`Error::InvalidArgument`] when `num_beams < 2`, `max_length < 2`, the vocabulary is
/// too small to fill the beams (HF raises the same), or the decoder returns a wrongly
/// sized buffer; any error of the decoder.
pub fn hf_beam_search<D: DecoderStep + ?Sized>(
    decoder: &mut D,
    batch_size: usize,
    config: &BeamConfig,
) -> Result<Vec<BeamOutput>> {
    if config.num_beams < 2 {
        return Err(Error::InvalidArgument(format!(
            "num_beams must be at least 2 for beam search (use greedy for 1), got {}",
            config.num_beams
        )));
    }
    if config.max_length < 2 {
        return Err(Error::InvalidArgument(format!("max_length must be at least 2, got {}", config.max_length)));
    }
    if batch_size == 0 {
        return Ok(Vec::new());
    }
    let nb = config.num_beams;
    let vocab = decoder.vocab_size();
    decoder.start()?;
    let mut heaps: Vec<Heap> = (0..batch_size).map(|_| Heap::new(config)).collect();
    let mut done = vec![false; batch_size];
    // First call: one hypothesis per row (all beams are identical copies of it).
    let first: Vec<Hyp> =
        (0..batch_size).map(|row| Hyp { row, parent: None, token: config.decoder_start_token_id }).collect();
    let mut beams: Vec<Vec<Beam>> = (0..batch_size)
        .map(|row| {
            (0..nb)
                .map(|b| Beam { tokens: Vec::new(), score: if b == 0 { 0.0 } else { -1e9 }, slot: row })
                .collect()
        })
        .collect();
    let mut calls: Vec<Hyp> = first;
    let mut cur_len = 1usize;
    loop {
        let logits = decoder.step(&calls)?;
        check_logits(&logits, calls.len(), vocab)?;
        // Per-slot processed log-probabilities, computed lazily once per slot.
        let mut slot_lp: Vec<Option<Vec<f32>>> = vec![None; calls.len()];
        for row in 0..batch_size {
            if done[row] {
                continue;
            }
            let mut flat = Vec::with_capacity(nb * vocab);
            for beam in &beams[row] {
                let lp = match &slot_lp[beam.slot] {
                    Some(v) => v,
                    None => {
                        let mut v = log_softmax(&logits[beam.slot * vocab..(beam.slot + 1) * vocab]);
                        config.processors.apply(&mut v, cur_len, config.max_length, Some(config.eos_token_id));
                        slot_lp[beam.slot] = Some(v);
                        slot_lp[beam.slot].as_ref().ok_or_else(|| Error::InvalidArgument("unreachable".into()))?
                    }
                };
                flat.extend(lp.iter().map(|&x| x + beam.score));
            }
            let cands = top_k(&flat, 2 * nb);
            let mut next: Vec<Beam> = Vec::with_capacity(nb);
            for (rank, &(score, flat_idx)) in cands.iter().enumerate() {
                let (b, tok) = (flat_idx / vocab, (flat_idx % vocab) as u32);
                let parent = &beams[row][b];
                if tok == config.eos_token_id {
                    if rank >= nb {
                        continue;
                    }
                    heaps[row].add(parent.tokens.clone(), score, cur_len, true);
                } else {
                    let mut tokens = parent.tokens.clone();
                    tokens.push(tok);
                    next.push(Beam { tokens, score, slot: parent.slot });
                }
                if next.len() == nb {
                    break;
                }
            }
            if next.len() < nb {
                return Err(Error::InvalidArgument(format!(
                    "beam search could not fill {nb} beams from a vocabulary of {vocab}"
                )));
            }
            let best = cands.first().map_or(f32::NEG_INFINITY, |c| c.0);
            done[row] = heaps[row].is_done(best, cur_len + 1);
            beams[row] = next;
        }
        cur_len += 1;
        if done.iter().all(|&d| d) || cur_len >= config.max_length {
            break;
        }
        // Next call: every beam of every unfinished row, parent = its slot in this call.
        calls.clear();
        for row in 0..batch_size {
            if done[row] {
                continue;
            }
            for beam in &mut beams[row] {
                let parent = beam.slot;
                beam.slot = calls.len();
                calls.push(Hyp { row, parent: Some(parent), token: *beam.tokens.last().unwrap_or(&0) });
            }
        }
    }
    // finalize
    let mut out = Vec::with_capacity(batch_size);
    for row in 0..batch_size {
        if !done[row] {
            for beam in &beams[row] {
                heaps[row].add(beam.tokens.clone(), beam.score, cur_len - 1, false);
            }
        }
        let best = heaps[row]
            .best()
            .ok_or_else(|| Error::InvalidArgument("beam search produced no hypothesis".into()))?;
        let mut tokens = best.tokens.clone();
        if best.eos {
            tokens.push(config.eos_token_id);
        }
        out.push(BeamOutput { tokens, score: best.score, finished: best.eos });
    }
    Ok(out)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::super::toy::{lp, Toy};
    use super::*;

    #[test]
    fn top_k_sorted_with_index_ties() {
        assert_eq!(top_k(&[1.0, 3.0, 3.0, 2.0], 3), vec![(3.0, 1), (3.0, 2), (2.0, 3)]);
        assert_eq!(top_k(&[0.0, 0.0, 0.0], 2), vec![(0.0, 0), (0.0, 1)]);
    }

    /// Vocabulary: 0 = start/pad, 1 = EOS, 2 = "a", 3 = "b", 4 = "c". Two beams.
    ///
    /// Step 1 (prefix []): p = [0, .1, .5, .4, 0]. Beam 0 only (beam 1 at −1e9):
    ///   candidates a(.5) b(.4) eos(.1) …; EOS ranks 3rd ≥ num_beams → skipped.
    ///   beams: [a] ln.5 = −0.6931, [b] ln.4 = −0.9163.
    /// Step 2: after a: p = [0, .9, .05, .05, 0]; after b: p = [0, .2, .1, .1, .6].
    ///   sums: a+eos −0.6931−0.1054 = −0.7985; b+c −0.9163−0.5108 = −1.4271;
    ///         b+eos −0.9163−1.6094 = −2.5257; b+a −0.9163−2.3026 = −3.2189 (top 4).
    ///   rank 0 a+eos → finished, generated_len 2 → score −0.7985/2 = −0.3993.
    ///   running: [b c] −1.4271; b+eos is rank 2 ≥ num_beams → skipped; [b a] −3.2189.
    ///   Not done (1 finished < 2).
    /// Step 3: after [b c]: p = [0, .7, .1, .1, .1]; after [b a]: .25 each over 1..4.
    ///   b c eos −1.4271−0.3567 = −1.7838 (rank 0) → finished, len 3 → −0.5946.
    ///   Heap full: worst −0.5946. HF's bound uses the best *candidate* score of the step
    ///   (−1.7838, the EOS one) at cur_len 4: −1.7838/3 = −0.5946 ≤ worst → done.
    /// Result: [a, eos] with score −0.3993.
    fn toy() -> Toy<impl Fn(usize, &[u32]) -> Vec<f32>> {
        Toy::new(5, 0, |_, prefix: &[u32]| match prefix {
            [] => lp(&[0.0, 0.1, 0.5, 0.4, 0.0]),
            [2] => lp(&[0.0, 0.9, 0.05, 0.05, 0.0]),
            [3] => lp(&[0.0, 0.2, 0.1, 0.1, 0.6]),
            [3, 4] => lp(&[0.0, 0.7, 0.1, 0.1, 0.1]),
            _ => lp(&[0.0, 0.25, 0.25, 0.25, 0.25]),
        })
    }

    #[test]
    fn hand_worked_two_beams() {
        let mut t = toy();
        let mut cfg = BeamConfig::new(2, 0, 1);
        cfg.max_length = 10;
        let out = hf_beam_search(&mut t, 1, &cfg).unwrap();
        assert_eq!(out[0].tokens, vec![2, 1]);
        assert!(out[0].finished);
        let expect = ((0.5f64).ln() + (0.9f64).ln()) / 2.0;
        assert!((out[0].score - expect).abs() < 1e-6, "{} vs {expect}", out[0].score);
        // Calls: 1 hyp, then 2 beams, then 2 beams; done after step 3.
        assert_eq!(t.steps_seen, vec![1, 2, 2]);
    }

    #[test]
    fn length_penalty_changes_the_winner() {
        // With a strong length penalty (lp = 3), the longer hypothesis [b c eos] wins:
        // −0.7985 / 2^3 = −0.0998 vs −1.7838 / 3^3 = −0.0661.
        let mut t = toy();
        let mut cfg = BeamConfig::new(2, 0, 1);
        cfg.max_length = 10;
        cfg.length_penalty = 3.0;
        cfg.early_stopping = EarlyStopping::True;
        let out = hf_beam_search(&mut t, 1, &cfg).unwrap();
        assert_eq!(out[0].tokens, vec![3, 4, 1]);
    }

    #[test]
    fn max_length_adds_running_beams() {
        // max_length 2: only one step; nothing finished in the top 2 → running beams
        // [a] (−0.6931/1) and [b] are added; [a] wins, without EOS.
        let mut t = toy();
        let mut cfg = BeamConfig::new(2, 0, 1);
        cfg.max_length = 2;
        let out = hf_beam_search(&mut t, 1, &cfg).unwrap();
        assert_eq!(out[0].tokens, vec![2]);
        assert!(!out[0].finished);
        assert!((out[0].score - (0.5f64).ln()).abs() < 1e-6);
    }

    #[test]
    fn rejects_bad_configs() {
        let mut t = toy();
        assert!(hf_beam_search(&mut t, 1, &BeamConfig::new(1, 0, 1)).is_err());
        let mut cfg = BeamConfig::new(2, 0, 1);
        cfg.max_length = 1;
        assert!(hf_beam_search(&mut t, 1, &cfg).is_err());
        // A vocabulary holding only EOS cannot fill the beams (HF raises too).
        let mut tiny = Toy::new(1, 0, |_, _: &[u32]| lp(&[1.0]));
        assert!(hf_beam_search(&mut tiny, 1, &BeamConfig::new(2, 0, 0)).is_err());
    }

    #[test]
    fn batch_rows_are_independent() {
        let mut t = toy();
        let mut cfg = BeamConfig::new(2, 0, 1);
        cfg.max_length = 10;
        let out = hf_beam_search(&mut t, 3, &cfg).unwrap();
        assert_eq!(out.len(), 3);
        assert!(out.iter().all(|o| o.tokens == vec![2, 1]));
    }
}
