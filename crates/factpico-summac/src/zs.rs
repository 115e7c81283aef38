//! SummaC-ZS (`SummaCZS.image2score`, `model_summac.py:363-384`): per summary chunk, the
//! `op1` (default max) over document chunks of P(entailment) minus that of
//! P(contradiction); the row score is the `op2` (default mean) over summary chunks.
use serde::{Deserialize, Serialize};

use crate::image::{Image, Warning};
use crate::{Error, Reduce, Result, Span, ZsLabels};

impl Reduce {
    fn apply(self, v: &[f64]) -> f64 {
        match self {
            Reduce::Max => v.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            Reduce::Min => v.iter().copied().fold(f64::INFINITY, f64::min),
            Reduce::Mean => v.iter().sum::<f64>() / v.len() as f64,
        }
    }
    /// The reference's name.
    pub fn as_str(self) -> &'static str {
        match self {
            Reduce::Max => "max",
            Reduce::Mean => "mean",
            Reduce::Min => "min",
        }
    }
}

impl std::str::FromStr for Reduce {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "max" => Ok(Reduce::Max),
            "mean" => Ok(Reduce::Mean),
            "min" => Ok(Reduce::Min),
            _ => Err(Error::InvalidOption(format!("unknown reduction {s:?} (max, mean, min)"))),
        }
    }
}

/// SummaC-ZS settings. `Default` = the reference's (`op1="max"`, `op2="mean"`, both labels).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ZsOptions {
    /// Over document chunks, per summary chunk (reference `op1`, default max).
    pub op1: Reduce,
    /// Over summary chunks (reference `op2`, default mean).
    pub op2: Reduce,
    /// Which probabilities are used.
    pub labels: ZsLabels,
}

impl Default for ZsOptions {
    fn default() -> Self {
        ZsOptions { op1: Reduce::Max, op2: Reduce::Mean, labels: ZsLabels::EntailmentMinusContradiction }
    }
}

/// One summary chunk's SummaC-ZS detail.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ZsChunk {
    /// Byte span in the summary.
    pub span: Span,
    /// `op1` over document chunks of P(entailment).
    pub entailment: f64,
    /// `op1` over document chunks of P(contradiction).
    pub contradiction: f64,
    /// The chunk's score (per [`ZsLabels`]).
    pub score: f64,
    /// Document chunk with the highest P(entailment) (first on ties).
    pub best_document_chunk: usize,
    /// Its byte span in the document.
    pub best_document_span: Span,
}

/// Why a row has no score.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NullReason {
    /// No (document chunk, summary chunk) pair and [`crate::NoPairs::Null`] was asked for.
    NoPairs,
}

impl std::fmt::Display for NullReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NullReason::NoPairs => f.write_str("no (document chunk, summary chunk) pair to score"),
        }
    }
}

/// SummaC-ZS of one row.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ZsOutput {
    /// The score (\[−1, 1\] with the default labels); `None` with `null_reason`.
    pub score: Option<f64>,
    /// Why `score` is `None`.
    pub null_reason: Option<NullReason>,
    /// Per summary chunk (empty when there was no pair).
    pub chunks: Vec<ZsChunk>,
    /// The image's cuts and edge cases.
    pub warnings: Vec<Warning>,
}

impl ZsOptions {
    /// Scores one image (no model needed).
    pub fn score(&self, image: &Image) -> ZsOutput {
        let warnings = image.warnings.clone();
        if image.n_document == 0 || image.n_summary == 0 {
            return ZsOutput { score: None, null_reason: Some(NullReason::NoPairs), chunks: Vec::new(), warnings };
        }
        let mut scores = Vec::with_capacity(image.n_summary);
        let mut chunks = Vec::with_capacity(image.n_summary);
        for j in 0..image.n_summary {
            let ent: Vec<f64> = image.column(0, j).into_iter().map(f64::from).collect();
            let con: Vec<f64> = image.column(1, j).into_iter().map(f64::from).collect();
            let (e, c) = (self.op1.apply(&ent), self.op1.apply(&con));
            let s = match self.labels {
                ZsLabels::EntailmentMinusContradiction => e - c,
                ZsLabels::Entailment => e,
                ZsLabels::NotContradiction => 1.0 - c,
            };
            scores.push(s);
            if !image.no_pairs {
                let best = ent.iter().enumerate().fold(0, |b, (i, &v)| if v > ent[b] { i } else { b });
                chunks.push(ZsChunk {
                    span: image.summary_chunks[j].span,
                    entailment: e,
                    contradiction: c,
                    score: s,
                    best_document_chunk: best,
                    best_document_span: image.document_chunks.get(best).map_or_else(Span::default, |c| c.span),
                });
            }
        }
        ZsOutput { score: Some(self.op2.apply(&scores)), null_reason: None, chunks, warnings }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn image(nd: usize, ns: usize, ent: &[f32], con: &[f32]) -> Image {
        Image {
            document_chunks: Vec::new(),
            summary_chunks: (0..ns).map(|j| crate::Chunk { text: String::new(), span: Span::new(j, j + 1) }).collect(),
            entailment: ent.to_vec(),
            contradiction: con.to_vec(),
            neutral: vec![0.0; nd * ns],
            n_document: nd,
            n_summary: ns,
            no_pairs: false,
            warnings: Vec::new(),
        }
    }

    #[test]
    fn max_then_mean_by_hand() {
        // 2 document chunks x 2 summary chunks, row-major [doc][sum].
        let img = image(2, 2, &[0.9, 0.1, 0.5, 0.3], &[0.05, 0.8, 0.2, 0.6]);
        let out = ZsOptions::default().score(&img);
        // chunk 0: max ent 0.9, max con 0.2 -> 0.7; chunk 1: 0.3 - 0.8 = -0.5; mean 0.1.
        let s = out.score.unwrap_or(f64::NAN);
        assert!((s - 0.1).abs() < 1e-6, "{s}");
        assert_eq!(out.chunks[0].best_document_chunk, 0);
        assert_eq!(out.chunks[1].best_document_chunk, 1);
        let min = ZsOptions { op2: Reduce::Min, ..ZsOptions::default() }.score(&img);
        assert!((min.score.unwrap_or(f64::NAN) + 0.5).abs() < 1e-6);
        let mean1 = ZsOptions { op1: Reduce::Mean, labels: ZsLabels::Entailment, ..ZsOptions::default() }.score(&img);
        // chunk 0 mean ent 0.7, chunk 1 mean ent 0.2 -> 0.45
        assert!((mean1.score.unwrap_or(f64::NAN) - 0.45).abs() < 1e-6);
        let notc = ZsOptions { labels: ZsLabels::NotContradiction, ..ZsOptions::default() }.score(&img);
        // 1 - 0.2 = 0.8, 1 - 0.8 = 0.2 -> 0.5
        assert!((notc.score.unwrap_or(f64::NAN) - 0.5).abs() < 1e-6);
    }

    #[test]
    fn reference_zero_image_scores_zero_and_empty_image_is_null() {
        let mut z = image(1, 1, &[0.0], &[0.0]);
        z.no_pairs = true;
        let out = ZsOptions::default().score(&z);
        assert_eq!(out.score, Some(0.0));
        assert!(out.chunks.is_empty());
        let e = image(0, 0, &[], &[]);
        let out = ZsOptions::default().score(&e);
        assert_eq!((out.score, out.null_reason), (None, Some(NullReason::NoPairs)));
    }
}
