//! The `hhem` options as a user sets them: `ScorerOptions::hhem` (JSON / Python
//! `hhem={...}`), the `--hhem-*` flags (feature `clap`) and the provenance's `options.hhem`.
//! Always compiled (no ONNX Runtime): one definition per option.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// Default length limit in tokens (special tokens included): the input size the model card
/// quotes (~1.5 s for a 2k-token input on a CPU).
pub const DEFAULT_MAX_LENGTH: usize = 2048;

/// Default chunk budget of [`PremiseMode::Chunked`], in model tokens of the premise.
pub const DEFAULT_CHUNK_TOKENS: usize = 1024;

/// How the premise (abstract) is used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[serde(rename_all = "snake_case")]
pub enum PremiseMode {
    /// The whole premise in one input, as the reference (default; parity-tested); a row whose
    /// input is over the length limit fails with `Error::TooLong`.
    #[default]
    Whole,
    /// Punkt-sentence chunks of at most `chunk_tokens` model tokens; max over chunks.
    Chunked,
}

/// How the hypothesis (summary) is checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[serde(rename_all = "snake_case")]
pub enum ClaimMode {
    /// The whole hypothesis in one piece, as the reference (default; parity mode).
    #[default]
    Whole,
    /// Each Punkt sentence of the hypothesis on its own, aggregated with [`Aggregation`].
    Sentences,
}

/// Aggregation of per-sentence scores in [`ClaimMode::Sentences`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[serde(rename_all = "snake_case")]
pub enum Aggregation {
    /// Minimum: consistent only if every sentence is (default, as the MiniCheck and FactCG
    /// units).
    #[default]
    Min,
    /// Mean over sentences.
    Mean,
}

/// Options of HHEM (`ScorerOptions::hhem`; flags `--hhem-*`). `Default` = the reference's
/// behaviour with a 2048-token limit and the default model directory.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "clap", derive(clap::Args))]
#[serde(default, deny_unknown_fields)]
pub struct HhemConfig {
    /// HHEM: model directory (onnx/export_hhem.py) or installed model name; unset =
    /// `$FACTPICO_HOME/models/hhem-2.1-open`.
    #[cfg_attr(feature = "clap", arg(id = "hhem.model", long = "hhem-model"))]
    pub model: Option<PathBuf>,
    /// HHEM: use the whole abstract (default, the reference) or Punkt-sentence chunks.
    #[cfg_attr(feature = "clap", arg(id = "hhem.premise", long = "hhem-premise", value_enum, default_value_t = HhemConfig::default().premise))]
    pub premise: PremiseMode,
    /// HHEM, --hhem-premise chunked: chunk budget in model tokens (default 1024,
    /// [`DEFAULT_CHUNK_TOKENS`]).
    #[cfg_attr(feature = "clap", arg(id = "hhem.chunk_tokens", long = "hhem-chunk-tokens"))]
    pub chunk_tokens: Option<usize>,
    /// HHEM: check the whole summary (default, the reference) or each sentence.
    #[cfg_attr(feature = "clap", arg(id = "hhem.claim", long = "hhem-claim", value_enum, default_value_t = HhemConfig::default().claim))]
    pub claim: ClaimMode,
    /// HHEM, --hhem-claim sentences: aggregate sentences by min (default) or mean.
    #[cfg_attr(feature = "clap", arg(id = "hhem.aggregation", long = "hhem-aggregation", value_enum, default_value_t = HhemConfig::default().aggregation))]
    pub aggregation: Aggregation,
    /// HHEM: label threshold in [0, 1] (default 0.5, the model card's): hhem_label = hhem >=
    /// threshold.
    #[cfg_attr(feature = "clap", arg(id = "hhem.threshold", long = "hhem-threshold"))]
    pub threshold: Option<f64>,
    /// HHEM: length limit in tokens of one model input (default 2048); longer rows fail.
    ///
    /// One input = template, abstract or chunk, summary and `</s>`; unset =
    /// [`DEFAULT_MAX_LENGTH`]. The reference has no limit; memory grows with the square of
    /// the length.
    #[cfg_attr(feature = "clap", arg(id = "hhem.max_length", long = "hhem-max-length"))]
    pub max_length: Option<usize>,
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
        assert_eq!([PremiseMode::Whole, PremiseMode::Chunked].map(name), ["whole", "chunked"]);
        assert_eq!([ClaimMode::Whole, ClaimMode::Sentences].map(name), ["whole", "sentences"]);
        assert_eq!([Aggregation::Min, Aggregation::Mean].map(name), ["min", "mean"]);
        assert_eq!(
            serde_json::to_value(HhemConfig::default()).unwrap(),
            serde_json::json!({"model": null, "premise": "whole", "chunk_tokens": null, "claim": "whole",
                "aggregation": "min", "threshold": null, "max_length": null})
        );
        let o: HhemConfig = serde_json::from_str("{}").unwrap();
        assert_eq!(o, HhemConfig::default());
        assert_eq!((o.premise, o.claim, o.threshold, o.max_length), (PremiseMode::Whole, ClaimMode::Whole, None, None));
        let o: HhemConfig =
            serde_json::from_str(r#"{"premise": "chunked", "chunk_tokens": 300, "claim": "sentences", "aggregation": "mean"}"#)
                .unwrap();
        assert_eq!((o.premise, o.chunk_tokens, o.claim, o.aggregation), (PremiseMode::Chunked, Some(300), ClaimMode::Sentences, Aggregation::Mean));
        assert!(serde_json::from_str::<HhemConfig>(r#"{"chunks": 3}"#).unwrap_err().to_string().contains("chunks"));
        assert!(serde_json::from_str::<HhemConfig>(r#"{"premise": "split"}"#).is_err());
    }
}
