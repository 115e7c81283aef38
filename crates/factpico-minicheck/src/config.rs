//! The `minicheck` options as a user sets them: `ScorerOptions::minicheck` (JSON / Python
//! `minicheck={...}`), the `--minicheck-*` flags (feature `clap`) and the provenance's
//! `options.minicheck`. Always compiled (no ONNX Runtime): one definition per option.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// The released MiniCheck checkers the reference's `Inferencer` runs (`model_name`).
/// Serialised (and given to `--minicheck-checker`) as `roberta-large`, `deberta-v3-large`,
/// `flan-t5-large`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum Variant {
    /// `lytang/MiniCheck-RoBERTa-Large` (355M), 2-way sequence classifier, 512 tokens,
    /// chunks of 400 tokens.
    #[serde(rename = "roberta-large")]
    #[cfg_attr(feature = "clap", value(name = "roberta-large"))]
    RobertaLarge,
    /// `lytang/MiniCheck-DeBERTa-v3-Large` (435M), 2-way sequence classifier, 2048 tokens,
    /// chunks of 400 tokens.
    #[serde(rename = "deberta-v3-large")]
    #[cfg_attr(feature = "clap", value(name = "deberta-v3-large"))]
    DebertaV3Large,
    /// `lytang/MiniCheck-Flan-T5-Large` (783M), first decoder step over 2 label tokens, 2048
    /// tokens, chunks of 500 words; the best of the three in the paper (the default checker:
    /// `Default`, and the default model directory's).
    #[default]
    #[serde(rename = "flan-t5-large")]
    #[cfg_attr(feature = "clap", value(name = "flan-t5-large"))]
    FlanT5Large,
}

impl Variant {
    /// All variants.
    pub const ALL: [Variant; 3] = [Variant::RobertaLarge, Variant::DebertaV3Large, Variant::FlanT5Large];

    /// The reference's `model_name` (`roberta-large`, `deberta-v3-large`, `flan-t5-large`; also
    /// the serialised name).
    pub fn as_str(self) -> &'static str {
        match self {
            Variant::RobertaLarge => "roberta-large",
            Variant::DebertaV3Large => "deberta-v3-large",
            Variant::FlanT5Large => "flan-t5-large",
        }
    }
    /// The released checkpoint on the Hugging Face hub.
    pub fn checkpoint(self) -> &'static str {
        match self {
            Variant::RobertaLarge => "lytang/MiniCheck-RoBERTa-Large",
            Variant::DebertaV3Large => "lytang/MiniCheck-DeBERTa-v3-Large",
            Variant::FlanT5Large => "lytang/MiniCheck-Flan-T5-Large",
        }
    }
    /// The reference's default chunk size (`minicheck.py:140`): 400 (tokens) or 500 (words).
    pub fn default_chunk_size(self) -> usize {
        match self {
            Variant::FlanT5Large => 500,
            _ => 400,
        }
    }
    /// What a chunk size counts.
    pub fn chunk_unit(self) -> ChunkUnit {
        match self {
            Variant::FlanT5Large => ChunkUnit::Words,
            _ => ChunkUnit::Tokens,
        }
    }
    /// The reference's default `max_model_len` (`inference.py:38-55`): 512 or 2048 tokens.
    pub fn default_max_length(self) -> usize {
        match self {
            Variant::RobertaLarge => 512,
            _ => 2048,
        }
    }
}

impl std::fmt::Display for Variant {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What the chunk size of the document chunking counts ([`Variant::chunk_unit`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChunkUnit {
    /// Model tokens without special tokens, each sentence counted on its own and capped at
    /// the model length (RoBERTa, DeBERTa).
    Tokens,
    /// Python whitespace words, `len(sentence.split())` (Flan-T5).
    Words,
}

/// How the claim (summary) is checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[serde(rename_all = "snake_case")]
pub enum ClaimMode {
    /// The whole claim in one piece, as the reference's `MiniCheck.score` does (default;
    /// parity-tested).
    #[default]
    Whole,
    /// Each Punkt sentence of the claim on its own, aggregated with [`Aggregation`] (what the
    /// authors recommend for multi-sentence claims).
    Sentences,
}

/// Summary-level aggregation of the per-sentence scores in [`ClaimMode::Sentences`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[serde(rename_all = "snake_case")]
pub enum Aggregation {
    /// Minimum over sentences (Bespoke-MiniCheck's `min_j max_i P[i, j]`): supported only if
    /// every sentence is (default).
    #[default]
    Min,
    /// Mean over sentences: the average support of the summary's sentences (AlignScore's rule).
    Mean,
}

/// Options of MiniCheck (`ScorerOptions::minicheck`; flags `--minicheck-*`). `Default` = the
/// reference's behaviour with the default model directory.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "clap", derive(clap::Args))]
#[serde(default, deny_unknown_fields)]
pub struct MiniCheckConfig {
    /// MiniCheck: model directory (onnx/export_minicheck.py); unset =
    /// `$FACTPICO_HOME/models/minicheck-<checker>`.
    #[cfg_attr(feature = "clap", arg(id = "minicheck.model", long = "minicheck-model"))]
    pub model: Option<PathBuf>,
    /// MiniCheck checker: roberta-large, deberta-v3-large, flan-t5-large (default: the model
    /// directory's; flan-t5-large for the default directory).
    ///
    /// Given with `model`, it must match the directory's manifest.
    #[cfg_attr(feature = "clap", arg(id = "minicheck.checker", long = "minicheck-checker", value_enum))]
    pub checker: Option<Variant>,
    /// MiniCheck: check the whole summary (default, the reference) or each sentence.
    #[cfg_attr(feature = "clap", arg(id = "minicheck.claim", long = "minicheck-claim", value_enum, default_value_t = MiniCheckConfig::default().claim))]
    pub claim: ClaimMode,
    /// MiniCheck, --minicheck-claim sentences: aggregate sentences by min (default) or mean.
    #[cfg_attr(feature = "clap", arg(id = "minicheck.aggregation", long = "minicheck-aggregation", value_enum, default_value_t = MiniCheckConfig::default().aggregation))]
    pub aggregation: Aggregation,
    /// MiniCheck: chunk size in tokens (RoBERTa, DeBERTa; default 400) or words (Flan-T5;
    /// default 500); unset = the reference's default.
    #[cfg_attr(feature = "clap", arg(id = "minicheck.chunk_size", long = "minicheck-chunk-size"))]
    pub chunk_size: Option<usize>,
    /// MiniCheck: maximum chunk+summary input length in tokens (default: the model's, 512 or
    /// 2048); longer inputs are cut from the end and counted in the row's warnings.
    ///
    /// Cut as the reference does (from the end: a long chunk cuts the claim).
    #[cfg_attr(feature = "clap", arg(id = "minicheck.max_length", long = "minicheck-max-length"))]
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
        assert_eq!(Variant::ALL.map(name), ["roberta-large", "deberta-v3-large", "flan-t5-large"]);
        for v in Variant::ALL {
            assert_eq!(name(v), v.as_str());
            assert_eq!(v.to_string(), v.as_str());
        }
        assert_eq!(Variant::default(), Variant::FlanT5Large);
        assert_eq!([ClaimMode::Whole, ClaimMode::Sentences].map(name), ["whole", "sentences"]);
        assert_eq!([Aggregation::Min, Aggregation::Mean].map(name), ["min", "mean"]);
        assert_eq!([ChunkUnit::Tokens, ChunkUnit::Words].map(name), ["tokens", "words"]);
        assert_eq!(
            serde_json::to_value(MiniCheckConfig::default()).unwrap(),
            serde_json::json!({"model": null, "checker": null, "claim": "whole", "aggregation": "min",
                "chunk_size": null, "max_length": null})
        );
        let o: MiniCheckConfig = serde_json::from_str("{}").unwrap();
        assert_eq!(o, MiniCheckConfig::default());
        assert_eq!((o.claim, o.aggregation, o.chunk_size, o.max_length), (ClaimMode::Whole, Aggregation::Min, None, None));
        let o: MiniCheckConfig =
            serde_json::from_str(r#"{"checker": "deberta-v3-large", "claim": "sentences", "aggregation": "mean"}"#).unwrap();
        assert_eq!((o.checker, o.claim, o.aggregation), (Some(Variant::DebertaV3Large), ClaimMode::Sentences, Aggregation::Mean));
        assert!(serde_json::from_str::<MiniCheckConfig>(r#"{"chunk": 3}"#).unwrap_err().to_string().contains("chunk"));
        assert!(serde_json::from_str::<MiniCheckConfig>(r#"{"checker": "t5-xl"}"#).is_err());
    }
}
