//! Any list of ROUGE variants (`rouge1` … `rouge9`, `rougeL`, `rougeLsum`), as
//! `rouge_scorer.RougeScorer(rouge_types, use_stemmer=...)` of rouge-score 0.1.2 computes them.
//!
//! [`crate::RougeL`] is factpico's ROUGE-L metric; [`RougeVariants`] is the general form behind
//! the Python drop-in `factpico.rouge_score.rouge_scorer.RougeScorer`. Both delegate to the
//! same [`rougers`] core. ROUGE-N counts clipped n-gram matches (precision = matches /
//! prediction n-grams, recall = matches / target n-grams); ROUGE-L and ROUGE-Lsum are as
//! documented on the crate. rougeL/rougeLsum are bit-identical to rouge-score 0.1.2 by
//! `tests/rouge_golden.rs`; every variant is checked against rouge-score 0.1.2 on the 300 real
//! pairs by the Python package's tests (`crates/factpico-python/tests/test_rouge_dropin.py`).

use std::fmt;

use rougers::{Document, RougeType, Tokenizer};

use crate::Score;

/// A rouge type name that rouge-score does not know (`rouge0`, `rouge10`, `rougel`, ...).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownRougeType {
    /// The name that was given.
    pub name: String,
}

impl fmt::Display for UnknownRougeType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown rouge type {:?}: expected rouge1 … rouge9, rougeL or rougeLsum (case-sensitive, as in rouge-score)",
            self.name
        )
    }
}

impl std::error::Error for UnknownRougeType {}

/// A scorer of several ROUGE variants at once, equivalent to rouge-score 0.1.2's
/// `RougeScorer(rouge_types, use_stemmer=use_stemmer)` (`tokenizer=None`). Each text is
/// tokenized once for all variants. `Send + Sync`, scoring takes `&self`.
#[derive(Debug, Clone)]
pub struct RougeVariants {
    names: Vec<String>,
    scorer: rougers::RougeScorer,
    tokenizer: Tokenizer,
}

impl RougeVariants {
    /// Builds a scorer for `rouge_types` (names as in rouge-score; order kept, duplicates kept
    /// once as rouge-score's result dict does).
    ///
    /// # Errors
    /// [`UnknownRougeType`] for a name outside `rouge1` … `rouge9`, `rougeL`, `rougeLsum`.
    pub fn new<S: AsRef<str>>(rouge_types: &[S], use_stemmer: bool) -> Result<Self, UnknownRougeType> {
        let mut types: Vec<RougeType> = Vec::with_capacity(rouge_types.len());
        for name in rouge_types {
            let name = name.as_ref();
            let t: RougeType = name.parse().map_err(|_| UnknownRougeType { name: name.to_owned() })?;
            if !types.contains(&t) {
                types.push(t);
            }
        }
        let tokenizer = Tokenizer::new(use_stemmer);
        let scorer = rougers::RougeScorer::with_tokenizer(types.clone(), tokenizer)
            .map_err(|_| UnknownRougeType { name: format!("{types:?}") })?;
        Ok(Self { names: types.iter().map(ToString::to_string).collect(), scorer, tokenizer })
    }

    /// The variant names, in the order of the scores returned.
    pub fn rouge_types(&self) -> &[String] {
        &self.names
    }

    /// Scores of `prediction` against `target` (rouge-score's `score(target, prediction)`),
    /// one per variant in [`Self::rouge_types`] order. ROUGE-Lsum sentences are the non-empty
    /// `"\n"`-separated lines (rouge-score's default `split_summaries=False`).
    pub fn score(&self, target: &str, prediction: &str) -> Vec<Score> {
        collect(self.scorer.score(target, prediction))
    }

    /// As [`Self::score`] with caller-split sentences for ROUGE-Lsum (rouge-score's
    /// `split_summaries=True` when the sentences are `nltk.sent_tokenize`'s, e.g. from
    /// `factpico_text::Punkt`). Empty sentences are dropped, as rouge-score does; the other
    /// variants see the concatenated sentence tokens.
    pub fn score_sentences<T: AsRef<str>, P: AsRef<str>>(&self, target: &[T], prediction: &[P]) -> Vec<Score> {
        collect(self.scorer.score_documents(&self.document(target), &self.document(prediction)))
    }

    /// rouge-score's `score_multi(targets, prediction)`: per variant, the score against the
    /// target with the highest F-measure (the first on ties). `None` when `targets` is empty.
    pub fn score_multi<S: AsRef<str>>(&self, targets: &[S], prediction: &str) -> Option<Vec<Score>> {
        self.scorer.score_multi(targets, prediction).map(collect)
    }

    fn document<S: AsRef<str>>(&self, sentences: &[S]) -> Document {
        let sentences: Vec<Vec<String>> = sentences
            .iter()
            .map(AsRef::as_ref)
            .filter(|s| !s.is_empty())
            .map(|s| self.tokenizer.tokenize(s))
            .collect();
        Document { tokens: sentences.concat(), sentences }
    }
}

fn collect(scores: rougers::Scores) -> Vec<Score> {
    scores.iter().map(|(_, s)| s.into()).collect()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn names_order_and_duplicates() {
        let s = RougeVariants::new(&["rougeLsum", "rouge1", "rouge1", "rouge2"], true).unwrap();
        assert_eq!(s.rouge_types(), ["rougeLsum", "rouge1", "rouge2"]);
        let e = RougeVariants::new(&["rouge0"], true).unwrap_err().to_string();
        assert!(e.contains("rouge0"), "{e}");
        assert!(RougeVariants::new(&["rougel"], true).is_err());
    }

    #[test]
    fn agrees_with_rouge_l() {
        let (t, p) = ("Aspirin lowers the risk.\nIt causes bleeding.", "It lowers the risk of bleeding.");
        let s = RougeVariants::new(&["rougeL", "rougeLsum"], true).unwrap().score(t, p);
        let l = crate::RougeL::new(crate::RougeOptions::default()).score(t, p);
        assert_eq!(s, vec![l.rouge_l, l.rouge_lsum]);
        // rouge1: 6 prediction unigrams, 7 target unigrams; "it lowers the risk bleeding" match 5.
        let one = RougeVariants::new(&["rouge1"], true).unwrap().score(t, p)[0];
        assert_eq!((one.precision, one.recall), (5.0 / 6.0, 5.0 / 7.0));
    }
}
