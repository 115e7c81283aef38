//! The `factcg` options as a user sets them: `ScorerOptions::factcg` (JSON / Python
//! `factcg={...}`), the `--factcg-*` flags (feature `clap`) and the provenance's
//! `options.factcg`. Always compiled (no ONNX Runtime): one definition per option.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// How the claim (summary) is checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[serde(rename_all = "snake_case")]
pub enum ClaimMode {
    /// The whole claim in one piece, as the reference's `Inferencer.eval` does (default;
    /// parity-tested).
    #[default]
    Whole,
    /// Each Punkt sentence of the claim on its own, aggregated with [`Aggregation`].
    Sentences,
}

/// Summary-level aggregation of the per-sentence scores in [`ClaimMode::Sentences`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[serde(rename_all = "snake_case")]
pub enum Aggregation {
    /// Minimum over sentences: supported only if every sentence is (default, as MiniCheck's
    /// unit).
    #[default]
    Min,
    /// Mean over sentences: the average support of the summary's sentences.
    Mean,
}

/// Options of FactCG (`ScorerOptions::factcg`; flags `--factcg-*`). `Default` = the
/// reference's behaviour with the default model directory.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "clap", derive(clap::Args))]
#[serde(default, deny_unknown_fields)]
pub struct FactCgConfig {
    /// FactCG: model directory (onnx/export_factcg.py); unset =
    /// `$FACTPICO_HOME/models/factcg-deberta-v3-large`.
    #[cfg_attr(feature = "clap", arg(id = "factcg.model", long = "factcg-model"))]
    pub model: Option<PathBuf>,
    /// FactCG: check the whole summary (default, the reference) or each sentence.
    #[cfg_attr(feature = "clap", arg(id = "factcg.claim", long = "factcg-claim", value_enum, default_value_t = FactCgConfig::default().claim))]
    pub claim: ClaimMode,
    /// FactCG, --factcg-claim sentences: aggregate sentences by min (default) or mean.
    #[cfg_attr(feature = "clap", arg(id = "factcg.aggregation", long = "factcg-aggregation", value_enum, default_value_t = FactCgConfig::default().aggregation))]
    pub aggregation: Aggregation,
    /// FactCG: label threshold in [0, 1] (default 0.5): factcg_label = factcg > threshold.
    ///
    /// Unset = 0.5, the README's fixed threshold (the paper also tunes one per dataset).
    #[cfg_attr(feature = "clap", arg(id = "factcg.threshold", long = "factcg-threshold"))]
    pub threshold: Option<f64>,
    /// FactCG: chunk budget in NLTK word_tokenize tokens (default 550, the reference's).
    #[cfg_attr(feature = "clap", arg(id = "factcg.chunk_size", long = "factcg-chunk-size"))]
    pub chunk_size: Option<usize>,
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]
    use super::*;

    fn name<T: Serialize>(x: T) -> String {
        serde_json::to_value(x).unwrap().as_str().unwrap_or_default().to_owned()
    }

    /// JSON names of every option value (the provenance's and `fixtures/units/*.json`'s),
    /// the defaults, and unknown fields or values refused.
    #[test]
    fn json_names_and_defaults() {
        assert_eq!([ClaimMode::Whole, ClaimMode::Sentences].map(name), ["whole", "sentences"]);
        assert_eq!([Aggregation::Min, Aggregation::Mean].map(name), ["min", "mean"]);
        assert_eq!(
            serde_json::to_value(FactCgConfig::default()).unwrap(),
            serde_json::json!({"model": null, "claim": "whole", "aggregation": "min", "threshold": null, "chunk_size": null})
        );
        let o: FactCgConfig = serde_json::from_str("{}").unwrap();
        assert_eq!(o, FactCgConfig::default());
        assert_eq!((o.claim, o.aggregation, o.threshold, o.chunk_size), (ClaimMode::Whole, Aggregation::Min, None, None));
        let o: FactCgConfig = serde_json::from_str(r#"{"claim": "sentences", "aggregation": "mean", "threshold": 0.7}"#).unwrap();
        assert_eq!((o.claim, o.aggregation, o.threshold), (ClaimMode::Sentences, Aggregation::Mean, Some(0.7)));
        assert!(serde_json::from_str::<FactCgConfig>(r#"{"chunk": 3}"#).unwrap_err().to_string().contains("chunk"));
        assert!(serde_json::from_str::<FactCgConfig>(r#"{"claim": "both"}"#).is_err());
    }
}
