//! LERC-QuIP, QAFactEval's answer-overlap regressor (salesforce/QAFactEval @ 645686a,
//! `lerc_quip.py`, `LERCQuipScorer`): a RoBERTa (QuIP) `AutoModelForSequenceClassification`
//! with one regression output, fine-tuned on MOCHA's 1–5 answer-correctness ratings.
//!
//! Per question answered on the source (`probability > null_probability`): one sequence
//! `f"{question} <q> {gold_answer} <r> {prediction} <c> {source}"` (the markers are plain
//! text for the QuIP tokenizer), encoded with the model's tokenizer, cut to 512 tokens
//! **from the end** (`truncation=True`: long sources are mostly invisible), score =
//! `logits[0]`, raw (≈ 0–5, not clipped). Unanswered questions score 0; a summary's score is
//! the mean over its kept questions (0 with none) — done by the preset
//! ([`crate::QaFactEval`]). Export: `onnx/export_hf.py` on the `quip-512-mocha` directory.
use std::path::Path;

use factpico_runtime::sequence::SequenceClassifier;
use factpico_runtime::{ModelTask, SessionOptions};

use crate::error::{Error, Result};

/// Upper end of the LERC-QuIP scale used for normalisation (MOCHA ratings are 1–5).
pub const LERC_QUIP_MAX: f64 = 5.0;

/// The LERC-QuIP input string of one question (`lerc_quip.py` `_score_single_ref`).
pub fn lerc_quip_input(question: &str, gold_answer: &str, prediction: &str, context: &str) -> String {
    format!("{question} <q> {gold_answer} <r> {prediction} <c> {context}")
}

/// `min(max(x, 0), 5) / 5`: the maintainers' [0, 1] reading of a LERC-QuIP score
/// (QAFactEval issue #1). NaN stays NaN.
pub fn normalize_lerc_quip(x: f64) -> f64 {
    x.clamp(0.0, LERC_QUIP_MAX) / LERC_QUIP_MAX
}

/// A loaded LERC-QuIP regressor (`Send + Sync`).
#[derive(Debug)]
pub struct LercQuip {
    model: SequenceClassifier,
}

impl LercQuip {
    /// Loads a sequence-classification model directory with one output value.
    ///
    /// # Errors
    /// [`Error::Runtime`] when the directory cannot be loaded; [`Error::IncompatibleModel`]
    /// when the manifest's task is not `sequence-classification` or it says the model has
    /// more than one label.
    pub fn load(dir: impl AsRef<Path>, session: &SessionOptions) -> Result<Self> {
        let model = SequenceClassifier::load(dir.as_ref(), session).map_err(Error::rt("LERC-QuIP model"))?;
        if model.manifest().task != ModelTask::SequenceClassification {
            return Err(Error::IncompatibleModel {
                path: dir.as_ref().display().to_string(),
                reason: format!(
                    "task is {}; LERC-QuIP is a sequence-classification regressor (onnx/export_hf.py)",
                    model.manifest().task
                ),
            });
        }
        if let Some(labels) = model.manifest().labels_of(model.output_name()) {
            if labels.len() != 1 {
                return Err(Error::IncompatibleModel {
                    path: dir.as_ref().display().to_string(),
                    reason: format!(
                        "output {:?} has {} labels; LERC-QuIP is a 1-output regressor",
                        model.output_name(),
                        labels.len()
                    ),
                });
            }
        }
        Ok(Self { model })
    }

    /// The underlying classifier (manifest, provenance).
    pub fn model(&self) -> &SequenceClassifier {
        &self.model
    }

    /// Raw scores (`logits[0]`) of LERC-QuIP input strings ([`lerc_quip_input`]), input
    /// order; batches of at most `batch_size` (results do not depend on it beyond float noise).
    ///
    /// # Errors
    /// [`Error::Runtime`] for tokenizer/model failures; [`Error::IncompatibleModel`] when the
    /// graph does not return exactly one value per row.
    pub fn score(&self, inputs: &[String], batch_size: usize) -> Result<Vec<f64>> {
        let refs: Vec<&str> = inputs.iter().map(String::as_str).collect();
        let rows = self.model.classify(&refs, batch_size).map_err(Error::rt("LERC-QuIP"))?;
        rows.into_iter()
            .map(|(row, _)| {
                match row.as_slice() {
                    [x] => Ok(f64::from(*x)),
                    other => Err(Error::IncompatibleModel {
                        path: self.model.model_dir().path().display().to_string(),
                        reason: format!("{} output values per row; LERC-QuIP has one", other.len()),
                    }),
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn input_and_normalisation() {
        assert_eq!(lerc_quip_input("Q?", "a", "b", "ctx"), "Q? <q> a <r> b <c> ctx");
        assert_eq!(lerc_quip_input("", "", "", ""), " <q>  <r>  <c> ");
        assert_eq!(normalize_lerc_quip(-1.0), 0.0);
        assert_eq!(normalize_lerc_quip(2.5), 0.5);
        assert_eq!(normalize_lerc_quip(5.3), 1.0);
    }
}
