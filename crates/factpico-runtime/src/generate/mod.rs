//! Autoregressive decoding for encoder–decoder models, written against a small
//! [`DecoderStep`] trait so the search algorithms are independent of ONNX Runtime
//! (and unit-testable on a toy vocabulary).
//!
//! Three searches are provided:
//!
//! * [`greedy`] — Hugging Face `generate(num_beams=1, do_sample=False)` as in
//!   transformers 4.46.3 (`GenerationMixin._sample`): argmax per step, finished rows
//!   padded, stop at `max_length` (which counts the decoder start token) or when every
//!   row emitted EOS. QuestEval's QG and QA use it with `max_length = 20`
//!   (`questeval/utils.py`, `API_T2T.predict`). It can also report the first step's
//!   softmax probability of chosen *probe* tokens — QuestEval's answerability is
//!   `1 − P(step 0 = "unanswerable")`.
//! * [`beam::hf_beam_search`] — transformers 4.46.3 `BeamSearchScorer` /
//!   `BeamHypotheses` semantics (`generation/beam_search.py`, `generation/utils.py::_beam_search`).
//! * [`allennlp::allennlp_beam_search`] — AllenNLP 1.1.0 `BeamSearch.search`
//!   (`allennlp/nn/beam_search.py`), used by QAEval/QAFactEval question generation:
//!   summed log-probabilities, no length normalisation, finished beams keep their score.
//!
//! All searches accept a batch of independent inputs ("rows") and keep the decoder's
//! key/value cache aligned through the `parent` links of [`Hyp`].

pub mod allennlp;
pub mod beam;

use crate::{Error, Result};

/// One hypothesis to extend in a decoding step.
///
/// Shapes: a step call receives `n` hypotheses; the implementation returns `n × vocab`
/// logits, row-major, in the same order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hyp {
    /// Index of the input (encoder row) this hypothesis decodes, `0..batch_size`.
    pub row: usize,
    /// Index, in the *previous* step call's hypothesis list, of the hypothesis this one
    /// extends (its key/value cache must be reused). `None` on the first step, when the
    /// cache is empty.
    pub parent: Option<usize>,
    /// The token fed to the decoder at this step (the decoder start token on the first step).
    pub token: u32,
}

/// A decoder that produces next-token logits for a list of hypotheses.
///
/// Contract: [`DecoderStep::start`] is called once before each search; then each call to
/// [`DecoderStep::step`] appends one token to every listed hypothesis. The `k`-th call
/// (0-based) decodes position `k` of the decoder sequence. A hypothesis may be dropped
/// from later calls (finished); it is then never a parent again.
pub trait DecoderStep {
    /// Vocabulary size `V` (width of each logits row).
    fn vocab_size(&self) -> usize;
    /// Resets the decoder cache before a new search.
    ///
    /// # Errors
    /// Implementation-defined (e.g. the encoder failed).
    fn start(&mut self) -> Result<()>;
    /// Runs one decoding step and returns raw (unnormalised) logits, `hyps.len() × V`,
    /// row-major.
    ///
    /// # Errors
    /// Implementation-defined (e.g. ONNX Runtime failed, a parent index is out of range).
    fn step(&mut self, hyps: &[Hyp]) -> Result<Vec<f32>>;
}

/// Logits processors applied at every step, with Hugging Face semantics
/// (`generation/logits_process.py`, transformers 4.46.3). All are off by default,
/// matching a model whose generation config sets none of them (e.g. T5).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LogitsProcessors {
    /// `MinLengthLogitsProcessor`: EOS is forbidden while the decoder length
    /// (start token included) is below this.
    pub min_length: Option<usize>,
    /// `ForcedBOSTokenLogitsProcessor`: this token is forced at decoder length 1.
    pub forced_bos_token_id: Option<u32>,
    /// `ForcedEOSTokenLogitsProcessor`: EOS is forced at decoder length `max_length - 1`.
    pub forced_eos_token_id: Option<u32>,
}

impl LogitsProcessors {
    /// Applies the processors in place to one row of scores. `cur_len` is the decoder
    /// length before this step (start token included), `max_length` as in the search.
    fn apply(&self, scores: &mut [f32], cur_len: usize, max_length: usize, eos: Option<u32>) {
        if let (Some(min), Some(eos)) = (self.min_length, eos) {
            if cur_len < min {
                if let Some(s) = scores.get_mut(eos as usize) {
                    *s = f32::NEG_INFINITY;
                }
            }
        }
        if let Some(bos) = self.forced_bos_token_id {
            if cur_len == 1 {
                force(scores, bos);
            }
        }
        if let Some(eos_forced) = self.forced_eos_token_id {
            if cur_len + 1 == max_length {
                force(scores, eos_forced);
            }
        }
    }

    fn is_empty(&self) -> bool {
        self.min_length.is_none() && self.forced_bos_token_id.is_none() && self.forced_eos_token_id.is_none()
    }
}

fn force(scores: &mut [f32], token: u32) {
    for (i, s) in scores.iter_mut().enumerate() {
        *s = if i == token as usize { 0.0 } else { f32::NEG_INFINITY };
    }
}

/// Greedy-search settings (Hugging Face `generate` with `num_beams=1, do_sample=False`).
#[derive(Debug, Clone, PartialEq)]
pub struct GreedyConfig {
    /// Token fed at decoder position 0 (T5: pad = 0; BART: `</s>` = 2).
    pub decoder_start_token_id: u32,
    /// End-of-sequence token; rows stop after emitting it. `None`: never stop early.
    pub eos_token_id: Option<u32>,
    /// Token appended to finished rows (HF pads them); only affects the cache, not outputs.
    pub pad_token_id: u32,
    /// Maximum decoder length **including the start token** (HF `max_length`, default 20),
    /// so at most `max_length - 1` tokens are generated. Must be ≥ 2.
    pub max_length: usize,
    /// Logits processors (none by default).
    pub processors: LogitsProcessors,
    /// Token ids whose first-step softmax probability is reported
    /// ([`GreedyOutput::first_step_probs`]), e.g. QuestEval's "unanswerable" id 73.
    pub probe_token_ids: Vec<u32>,
}

impl GreedyConfig {
    /// Transformers-default greedy settings: `max_length = 20`, no processors, no probes.
    pub fn new(decoder_start_token_id: u32, eos_token_id: Option<u32>, pad_token_id: u32) -> Self {
        Self {
            decoder_start_token_id,
            eos_token_id,
            pad_token_id,
            max_length: 20,
            processors: LogitsProcessors::default(),
            probe_token_ids: Vec::new(),
        }
    }
}

/// The result of decoding one input row.
#[derive(Debug, Clone, PartialEq)]
pub struct GreedyOutput {
    /// Generated tokens after the start token, up to and including EOS when it was
    /// emitted (no padding). Length ≤ `max_length - 1`.
    pub tokens: Vec<u32>,
    /// Whether the row ended with EOS (false: cut at `max_length`).
    pub finished: bool,
    /// For each probe token, `softmax(processed first-step logits)[probe]`, in `[0, 1]`
    /// (what transformers returns as `scores[0].softmax(-1)[:, id]`).
    pub first_step_probs: Vec<f32>,
}

/// `log_softmax` over one row, in `f32` like PyTorch's CPU kernel
/// (`x − max − ln Σ exp(x − max)`).
pub fn log_softmax(row: &[f32]) -> Vec<f32> {
    let max = row.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    if !max.is_finite() {
        return row.iter().map(|_| f32::NEG_INFINITY).collect();
    }
    let sum: f32 = row.iter().map(|&x| (x - max).exp()).sum();
    let lse = sum.ln();
    row.iter().map(|&x| x - max - lse).collect()
}

/// `softmax` over one row (`f32`).
pub fn softmax(row: &[f32]) -> Vec<f32> {
    let max = row.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let exps: Vec<f32> = row.iter().map(|&x| (x - max).exp()).collect();
    let sum: f32 = exps.iter().sum();
    exps.into_iter().map(|e| e / sum).collect()
}

/// Index of the first maximum (PyTorch `argmax` returns the first on ties).
fn argmax(row: &[f32]) -> usize {
    let mut best = 0;
    let mut best_v = row.first().copied().unwrap_or(f32::NEG_INFINITY);
    for (i, &v) in row.iter().enumerate().skip(1) {
        if v > best_v {
            best = i;
            best_v = v;
        }
    }
    best
}

pub(crate) fn check_logits(logits: &[f32], n: usize, vocab: usize) -> Result<()> {
    if logits.len() != n * vocab {
        return Err(Error::InvalidArgument(format!(
            "decoder step returned {} logits for {n} hypotheses × vocabulary {vocab}",
            logits.len()
        )));
    }
    Ok(())
}

/// Greedy decoding of `batch_size` independent rows.
///
/// Reproduces transformers 4.46.3 `generate(num_beams=1, do_sample=False)` token for
/// token (first maximum on ties). Finished rows are not sent to the decoder again
/// (their outputs cannot change).
///
/// # Errors
/// [`Error::InvalidArgument`] when `max_length < 2` or the decoder returns a wrongly
/// sized logits buffer; any error of the decoder.
pub fn greedy<D: DecoderStep + ?Sized>(
    decoder: &mut D,
    batch_size: usize,
    config: &GreedyConfig,
) -> Result<Vec<GreedyOutput>> {
    if config.max_length < 2 {
        return Err(Error::InvalidArgument(format!(
            "max_length must be at least 2 (start token + one generated token), got {}",
            config.max_length
        )));
    }
    let vocab = decoder.vocab_size();
    let mut outputs: Vec<GreedyOutput> = (0..batch_size)
        .map(|_| GreedyOutput { tokens: Vec::new(), finished: false, first_step_probs: Vec::new() })
        .collect();
    if batch_size == 0 {
        return Ok(outputs);
    }
    decoder.start()?;
    // Active hypotheses: one per unfinished row.
    let mut active: Vec<Hyp> =
        (0..batch_size).map(|row| Hyp { row, parent: None, token: config.decoder_start_token_id }).collect();
    let mut cur_len = 1usize;
    while !active.is_empty() && cur_len < config.max_length {
        let logits = decoder.step(&active)?;
        check_logits(&logits, active.len(), vocab)?;
        let mut next = Vec::with_capacity(active.len());
        for (i, hyp) in active.iter().enumerate() {
            let mut row = logits[i * vocab..(i + 1) * vocab].to_vec();
            if !config.processors.is_empty() {
                config.processors.apply(&mut row, cur_len, config.max_length, config.eos_token_id);
            }
            if cur_len == 1 && !config.probe_token_ids.is_empty() {
                let p = softmax(&row);
                outputs[hyp.row].first_step_probs = config
                    .probe_token_ids
                    .iter()
                    .map(|&t| p.get(t as usize).copied().unwrap_or(0.0))
                    .collect();
            }
            let tok = argmax(&row) as u32;
            let out = &mut outputs[hyp.row];
            out.tokens.push(tok);
            if Some(tok) == config.eos_token_id {
                out.finished = true;
            } else {
                next.push(Hyp { row: hyp.row, parent: Some(i), token: tok });
            }
        }
        active = next;
        cur_len += 1;
    }
    Ok(outputs)
}

#[cfg(test)]
pub(crate) mod toy {
    //! A deterministic toy decoder: logits depend only on (row, previous tokens).
    use super::*;

    /// Decoder whose next-token log-probabilities are given by a function of the
    /// prefix (tokens after the start token) and the row.
    pub struct Toy<F: Fn(usize, &[u32]) -> Vec<f32>> {
        pub vocab: usize,
        pub f: F,
        pub prefixes: Vec<Vec<u32>>,
        pub calls: usize,
        pub start_token: u32,
        pub steps_seen: Vec<usize>,
    }

    impl<F: Fn(usize, &[u32]) -> Vec<f32>> Toy<F> {
        pub fn new(vocab: usize, start_token: u32, f: F) -> Self {
            Self { vocab, f, prefixes: Vec::new(), calls: 0, start_token, steps_seen: Vec::new() }
        }
    }

    impl<F: Fn(usize, &[u32]) -> Vec<f32>> DecoderStep for Toy<F> {
        fn vocab_size(&self) -> usize {
            self.vocab
        }
        fn start(&mut self) -> Result<()> {
            self.prefixes.clear();
            self.calls = 0;
            Ok(())
        }
        fn step(&mut self, hyps: &[Hyp]) -> Result<Vec<f32>> {
            let mut new_prefixes = Vec::with_capacity(hyps.len());
            let mut out = Vec::with_capacity(hyps.len() * self.vocab);
            for h in hyps {
                let prefix = match h.parent {
                    None => {
                        assert_eq!(h.token, self.start_token);
                        Vec::new()
                    }
                    Some(p) => {
                        let mut v = self.prefixes[p].clone();
                        v.push(h.token);
                        v
                    }
                };
                let row = (self.f)(h.row, &prefix);
                out.extend(row);
                new_prefixes.push(prefix);
            }
            self.prefixes = new_prefixes;
            self.steps_seen.push(hyps.len());
            self.calls += 1;
            Ok(out)
        }
    }

    /// log-probabilities from probabilities (ln p; 0 → −inf).
    pub fn lp(p: &[f64]) -> Vec<f32> {
        p.iter().map(|&x| if x > 0.0 { x.ln() as f32 } else { f32::NEG_INFINITY }).collect()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::toy::{lp, Toy};
    use super::*;

    #[test]
    fn log_softmax_matches_definition() {
        let r = log_softmax(&[1.0, 2.0, 3.0]);
        let z = (1f64.exp() + 2f64.exp() + 3f64.exp()).ln();
        for (i, v) in r.iter().enumerate() {
            assert!((f64::from(*v) - ((i + 1) as f64 - z)).abs() < 1e-6);
        }
        let p = softmax(&[0.0, 0.0]);
        assert_eq!(p, vec![0.5, 0.5]);
    }

    #[test]
    fn argmax_takes_first_of_ties() {
        assert_eq!(argmax(&[1.0, 3.0, 3.0]), 1);
        assert_eq!(argmax(&[f32::NEG_INFINITY, f32::NEG_INFINITY]), 0);
    }

    #[test]
    fn greedy_stops_at_eos_and_max_length() {
        // vocab: 0 = start/pad, 1 = eos, 2 = "a", 3 = "b".
        // row 0: a, b, eos. row 1: always "a" → cut at max_length.
        let mut toy = Toy::new(4, 0, |row, prefix: &[u32]| {
            if row == 1 {
                return lp(&[0.0, 0.1, 0.8, 0.1]);
            }
            match prefix.len() {
                0 => lp(&[0.0, 0.1, 0.6, 0.3]),
                1 => lp(&[0.0, 0.2, 0.3, 0.5]),
                _ => lp(&[0.0, 0.7, 0.2, 0.1]),
            }
        });
        let mut cfg = GreedyConfig::new(0, Some(1), 0);
        cfg.max_length = 5;
        cfg.probe_token_ids = vec![3, 1];
        let out = greedy(&mut toy, 2, &cfg).unwrap();
        assert_eq!(out[0].tokens, vec![2, 3, 1]);
        assert!(out[0].finished);
        assert_eq!(out[1].tokens, vec![2, 2, 2, 2]); // max_length 5 = start + 4
        assert!(!out[1].finished);
        assert!((out[0].first_step_probs[0] - 0.3).abs() < 1e-6);
        assert!((out[1].first_step_probs[1] - 0.1).abs() < 1e-6);
        // Row 0 leaves after its EOS at step 3: calls saw 2, 2, 2, 1 hypotheses.
        assert_eq!(toy.steps_seen, vec![2, 2, 2, 1]);
    }

    #[test]
    fn greedy_rejects_bad_config_and_bad_decoder() {
        let mut toy = Toy::new(3, 0, |_, _: &[u32]| vec![0.0, 0.0, 0.0]);
        let mut cfg = GreedyConfig::new(0, Some(1), 0);
        cfg.max_length = 1;
        assert!(greedy(&mut toy, 1, &cfg).is_err());
        let mut bad = Toy::new(3, 0, |_, _: &[u32]| vec![0.0, 0.0, 0.0]);
        bad.vocab = 4; // claims 4, returns 3 per row
        let cfg = GreedyConfig::new(0, Some(1), 0);
        assert!(greedy(&mut bad, 1, &cfg).is_err());
        assert!(greedy(&mut toy, 0, &cfg).unwrap().is_empty());
    }

    #[test]
    fn processors_follow_hf() {
        let p = LogitsProcessors { min_length: Some(3), forced_bos_token_id: Some(2), forced_eos_token_id: Some(1) };
        let mut s = vec![0.5f32; 4];
        p.apply(&mut s, 1, 10, Some(1));
        assert_eq!(s, vec![f32::NEG_INFINITY, f32::NEG_INFINITY, 0.0, f32::NEG_INFINITY]);
        let mut s = vec![0.5f32; 4];
        p.apply(&mut s, 2, 10, Some(1));
        assert_eq!(s[1], f32::NEG_INFINITY);
        assert_eq!(s[2], 0.5);
        let mut s = vec![0.5f32; 4];
        p.apply(&mut s, 9, 10, Some(1));
        assert_eq!(s, vec![f32::NEG_INFINITY, 0.0, f32::NEG_INFINITY, f32::NEG_INFINITY]);
    }
}
