//! BERTScore as `bert_score` 0.3.9 computes it (Tiiiger/bert_score, `bert_score/scorer.py`
//! `BERTScorer.score` and `bert_score/utils.py` `sent_encode`, `bert_cos_score_idf`,
//! `greedy_cos_idf`) with `idf=False`, no baseline rescaling, one reference per candidate —
//! the setting of QuestEval 0.2.4 (`questeval/utils.py` `calculate_BERTScore`, model
//! `bert-base-multilingual-cased`, layer 9).
//!
//! Per (candidate, reference):
//! 1. each string is Python-`strip()`ped and encoded with the model's tokenizer, special
//!    tokens included (`[CLS] … [SEP]`; an empty string is `[CLS] [SEP]`), cut to the
//!    model's `max_length` from the right;
//! 2. token vectors = the encoder's hidden states after layer N
//!    ([`factpico_runtime::embed::TokenEmbedder`]), each divided by its L2 norm;
//! 3. cosine matrix `sim[i][j]` between candidate token i and reference token j —
//!    **special tokens included** (a word may match `[CLS]`/`[SEP]`);
//! 4. weights: 1 per token, 0 for `[CLS]` and `[SEP]`, normalised to sum 1 per sequence;
//!    `P = Σᵢ wᵢ maxⱼ sim[i][j]`, `R = Σⱼ wⱼ maxᵢ sim[i][j]`, `F = 2PR / (P + R)`;
//! 5. edge cases as the reference: a candidate of exactly 2 tokens (empty) gets `P = 0`, a
//!    reference of 2 tokens `R = 0`, and a NaN `F` (0/0 weights, `P + R = 0`) becomes 0 —
//!    so F is 0 whenever either side is empty;
//! 6. **batch padding**: pairs are scored in consecutive batches of `batch_size` (64), and in
//!    the reference the similarity of a real token with a padding position is 0, not
//!    excluded: when a pair's reference is shorter than the longest reference of its batch,
//!    each candidate token's best similarity is floored at 0 (likewise recall with the
//!    candidate lengths). This only matters when a best cosine similarity is negative, and
//!    is reproduced.
//!
//! Scores are raw (not rescaled), in `[-1, 1]` (practically `[0, 1]`).
use std::collections::HashMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use factpico_runtime::embed::{TokenEmbedder, TokenEmbeddings};
use factpico_runtime::seq2seq::python_strip;
use factpico_runtime::SessionOptions;

use crate::error::{Error, Result};

/// `bert_score`'s default batch size (pairs per greedy-matching batch and sentences per
/// embedding batch).
pub const BERTSCORE_BATCH_SIZE: usize = 64;

/// Precision, recall and F1 of one (candidate, reference) pair.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct BertScoreValue {
    /// Candidate-side greedy matching, weighted mean over candidate tokens.
    pub precision: f64,
    /// Reference-side greedy matching, weighted mean over reference tokens.
    pub recall: f64,
    /// `2PR / (P + R)`; 0 when that is NaN (e.g. an empty side).
    pub f1: f64,
}

/// A loaded BERTScore scorer (`Send + Sync`).
#[derive(Debug)]
pub struct BertScorer {
    model: TokenEmbedder,
    batch_size: usize,
}

/// Unit-normalised token vectors (f64) and weights of one encoded string.
struct Prepared {
    vectors: Vec<Vec<f64>>,
    weights: Vec<f64>,
}

impl BertScorer {
    /// Loads a token-embedding model directory (`onnx/export_embedding.py`).
    ///
    /// # Errors
    /// [`Error::Runtime`] naming the directory when it cannot be loaded.
    pub fn load(dir: impl AsRef<Path>, session: &SessionOptions) -> Result<Self> {
        let model = TokenEmbedder::load(dir.as_ref(), session).map_err(Error::rt("BERTScore model"))?;
        Ok(Self { model, batch_size: BERTSCORE_BATCH_SIZE })
    }

    /// Sets the batch size (pairs per matching batch, sequences per embedding batch; ≥ 1).
    /// Only the default (64) reproduces the reference's padding effect (see the module docs).
    ///
    /// # Errors
    /// [`Error::InvalidOption`] for 0.
    pub fn with_batch_size(mut self, batch_size: usize) -> Result<Self> {
        if batch_size == 0 {
            return Err(Error::InvalidOption("BERTScore batch_size must be ≥ 1".into()));
        }
        self.batch_size = batch_size;
        Ok(self)
    }

    /// The embedding model (layer, ids, provenance).
    pub fn model(&self) -> &TokenEmbedder {
        &self.model
    }

    /// Token ids of `text` as the reference's `sent_encode`: stripped, special tokens
    /// added, cut to `max_length`.
    ///
    /// # Errors
    /// [`Error::Runtime`] (tokenizer).
    pub fn encode(&self, text: &str) -> Result<Vec<u32>> {
        Ok(self.model.encode(python_strip(text)).map_err(Error::rt("BERTScore tokenisation"))?.ids)
    }

    /// Scores (candidate, reference) pairs in one `BERTScorer.score(cands, refs)` call.
    ///
    /// # Errors
    /// [`Error::Runtime`] for tokenizer or model failures.
    pub fn score(&self, pairs: &[(&str, &str)]) -> Result<Vec<BertScoreValue>> {
        // Encode and embed every distinct string once (the reference dedups sentences too;
        // masked padding makes embeddings independent of their embedding batch).
        let mut ids_of: HashMap<&str, usize> = HashMap::new();
        let mut seqs: Vec<Vec<u32>> = Vec::new();
        let mut seq_index: HashMap<Vec<u32>, usize> = HashMap::new();
        let mut text_seq: Vec<usize> = Vec::new();
        for &(c, r) in pairs {
            for t in [c, r] {
                if ids_of.contains_key(t) {
                    continue;
                }
                let ids = self.encode(t)?;
                let k = *seq_index.entry(ids.clone()).or_insert_with(|| {
                    seqs.push(ids);
                    seqs.len() - 1
                });
                ids_of.insert(t, text_seq.len());
                text_seq.push(k);
            }
        }
        let refs: Vec<&[u32]> = seqs.iter().map(Vec::as_slice).collect();
        let embs = self.model.embed(&refs, self.batch_size).map_err(Error::rt("BERTScore embeddings"))?;
        let cfg = self.model.config();
        let prepared: Vec<Prepared> =
            seqs.iter().zip(&embs).map(|(ids, e)| prepare(ids, e, cfg.cls_token_id, cfg.sep_token_id)).collect();
        let seq_of = |t: &str| -> Result<&Prepared> {
            ids_of
                .get(t)
                .and_then(|&i| prepared.get(text_seq[i]))
                .ok_or_else(|| Error::InvalidOption("internal: a BERTScore string was not embedded".into()))
        };
        let mut out = Vec::with_capacity(pairs.len());
        for batch in pairs.chunks(self.batch_size) {
            let mut items = Vec::with_capacity(batch.len());
            for &(c, r) in batch {
                items.push((seq_of(c)?, seq_of(r)?));
            }
            let max_c = items.iter().map(|(c, _)| c.vectors.len()).max().unwrap_or(0);
            let max_r = items.iter().map(|(_, r)| r.vectors.len()).max().unwrap_or(0);
            for (c, r) in items {
                out.push(greedy_match(c, r, c.vectors.len() < max_c, r.vectors.len() < max_r));
            }
        }
        Ok(out)
    }
}

fn prepare(ids: &[u32], e: &TokenEmbeddings, cls: u32, sep: u32) -> Prepared {
    let vectors = e
        .rows()
        .map(|row| {
            let norm = row.iter().map(|&x| f64::from(x) * f64::from(x)).sum::<f64>().sqrt();
            row.iter().map(|&x| f64::from(x) / norm).collect()
        })
        .collect();
    let weights = ids.iter().map(|&t| if t == cls || t == sep { 0.0 } else { 1.0 }).collect();
    Prepared { vectors, weights }
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// `greedy_cos_idf` for one pair; `cand_padded` / `ref_padded`: whether that side is
/// shorter than the longest of its batch (then padding positions offer a similarity of 0).
fn greedy_match(c: &Prepared, r: &Prepared, cand_padded: bool, ref_padded: bool) -> BertScoreValue {
    let (n, m) = (c.vectors.len(), r.vectors.len());
    let sim: Vec<Vec<f64>> = c.vectors.iter().map(|ci| r.vectors.iter().map(|rj| dot(ci, rj)).collect()).collect();
    let floor = |padded: bool| if padded { 0.0 } else { f64::NEG_INFINITY };
    let best_c: Vec<f64> = sim.iter().map(|row| row.iter().copied().fold(floor(ref_padded), f64::max)).collect();
    let best_r: Vec<f64> =
        (0..m).map(|j| sim.iter().map(|row| row[j]).fold(floor(cand_padded), f64::max)).collect();
    let weighted = |best: &[f64], w: &[f64]| -> f64 {
        let total: f64 = w.iter().sum();
        best.iter().zip(w).map(|(b, w)| b * (w / total)).sum()
    };
    let mut p = weighted(&best_c, &c.weights);
    let mut r_ = weighted(&best_r, &r.weights);
    let mut f = 2.0 * p * r_ / (p + r_);
    if n == 2 {
        p = 0.0;
    }
    if m == 2 {
        r_ = 0.0;
    }
    if f.is_nan() {
        f = 0.0;
    }
    BertScoreValue { precision: p, recall: r_, f1: f }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prep(vs: &[[f64; 2]], w: &[f64]) -> Prepared {
        let vectors = vs
            .iter()
            .map(|v| {
                let n = (v[0] * v[0] + v[1] * v[1]).sqrt();
                vec![v[0] / n, v[1] / n]
            })
            .collect();
        Prepared { vectors, weights: w.to_vec() }
    }

    #[test]
    fn greedy_matching_hand_worked() {
        // Candidate [CLS] x [SEP], reference [CLS] y z [SEP] in 2-D.
        // cls = (1,0), sep = (0,1), x = (1,1)/√2, y = (1,0), z = (-1,0).
        let c = prep(&[[1.0, 0.0], [1.0, 1.0], [0.0, 1.0]], &[0.0, 1.0, 0.0]);
        let r = prep(&[[1.0, 0.0], [1.0, 0.0], [-1.0, 0.0], [0.0, 1.0]], &[0.0, 1.0, 1.0, 0.0]);
        let v = greedy_match(&c, &r, false, false);
        // P: x's best = cos(x, cls|y|sep) = 1/√2.
        let s = 1.0 / 2f64.sqrt();
        assert!((v.precision - s).abs() < 1e-12);
        // R: y's best = max(cos(y,cls)=1, cos(y,x)=s, cos(y,sep)=0) = 1; z's best = max(-1, -s, 0) = 0.
        assert!((v.recall - 0.5).abs() < 1e-12);
        assert!((v.f1 - 2.0 * s * 0.5 / (s + 0.5)).abs() < 1e-12);
    }

    #[test]
    fn padding_floors_negative_maxima() {
        // The candidate word (-1, 0) points away from every reference token (x > 0): its best
        // similarity is negative, unless the reference is padded in its batch (then 0).
        let c = prep(&[[0.0, 1.0], [-1.0, 0.0], [0.0, 1.0]], &[0.0, 1.0, 0.0]);
        let r = prep(&[[1.0, 0.2], [1.0, 0.1], [1.0, -0.1]], &[0.0, 1.0, 0.0]);
        let plain = greedy_match(&c, &r, false, false);
        let padded = greedy_match(&c, &r, false, true);
        assert!(plain.precision < 0.0);
        assert_eq!(padded.precision, 0.0);
        // Recall side unchanged by the reference's padding flag.
        assert_eq!(plain.recall, padded.recall);
    }

    #[test]
    fn empty_sides_give_zero_f1() {
        let empty = prep(&[[1.0, 0.0], [0.0, 1.0]], &[0.0, 0.0]);
        let word = prep(&[[1.0, 0.0], [1.0, 1.0], [0.0, 1.0]], &[0.0, 1.0, 0.0]);
        let v = greedy_match(&empty, &word, false, false);
        assert_eq!((v.precision, v.f1), (0.0, 0.0));
        assert!(v.recall.is_finite());
        let v = greedy_match(&word, &empty, false, false);
        assert_eq!((v.recall, v.f1), (0.0, 0.0));
        assert!(v.precision.is_finite());
        let v = greedy_match(&empty, &empty, false, false);
        assert_eq!((v.precision, v.recall, v.f1), (0.0, 0.0, 0.0));
    }
}
