//! The `dae` options as a user sets them: `ScorerOptions::dae` (JSON / Python `dae={...}`),
//! the DAE flags of `factpico score` (feature `clap`) and the provenance's `options.dae`.
//! Always compiled (no ONNX Runtime): one definition per option.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// How multi-sentence summaries are scored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[serde(rename_all = "kebab-case")]
pub enum MultiSentence {
    /// Default: each sentence is parsed and scored separately against the same article,
    /// with up to `max_arcs` (20) arcs per sentence; aggregation runs over all arcs.
    #[default]
    PerSentence,
    /// Reference-exact: the summary is parsed as one sentence and only its first `max_arcs`
    /// (20) arcs are scored (CoreNLP `ssplit.isOneSentence=True`, `train_utils.py:85`).
    SingleParse,
}

/// Where DAE's dependency arcs come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[serde(rename_all = "snake_case")]
pub enum DaeParser {
    /// The spaCy sidecar (`en_core_web_sm` 3.8.0); the default without `arcs`.
    Spacy,
    /// CoNLL-U read from `arcs`.
    Conllu,
    /// JSON arcs or CoreNLP JSON read from `arcs`.
    Json,
}

/// Options of the `dae` metric (`ScorerOptions::dae`; flags `--dae-*`, `--arcs`,
/// `--parser`). Exactly one of `model` and `nli_model` must be given to build the metric.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "clap", derive(clap::Args))]
#[serde(default, deny_unknown_fields)]
pub struct DaeConfig {
    /// DAE: an exported DAE-2021 ELECTRA arc model directory (onnx/export_dae.py).
    #[cfg_attr(feature = "clap", arg(id = "dae.model", long = "dae-model"))]
    pub model: Option<PathBuf>,
    /// DAE: an NLI cross-encoder directory for the zero-shot DAE-style variant.
    #[cfg_attr(feature = "clap", arg(id = "dae.nli_model", long = "dae-nli-model"))]
    pub nli_model: Option<PathBuf>,
    /// DAE: pre-parsed dependency arcs keyed by row id (.conllu CoNLL-U, or .jsonl JSON arcs /
    /// CoreNLP JSON).
    #[cfg_attr(feature = "clap", arg(id = "dae.arcs", long = "arcs"))]
    pub arcs: Option<PathBuf>,
    /// DAE: arc source: spacy (sidecar; default without --arcs), conllu or json (from
    /// --arcs); unset = the spaCy sidecar without `arcs`, the file's format with it.
    #[cfg_attr(feature = "clap", arg(id = "dae.parser", long = "parser", value_enum))]
    pub parser: Option<DaeParser>,
    /// DAE: per-sentence (default: all sentences, ≤20 arcs each) or single-parse (reference:
    /// one parse, first 20 arcs).
    #[cfg_attr(feature = "clap", arg(id = "dae.multi_sentence", long = "dae-multi-sentence", value_enum, default_value_t = DaeConfig::default().multi_sentence))]
    pub multi_sentence: MultiSentence,
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]
    use super::*;

    /// JSON names of every option value (the provenance's and `fixtures/units/*.json`'s).
    #[test]
    fn json_names_and_defaults() {
        let name = |v: serde_json::Value| v.as_str().unwrap_or_default().to_owned();
        let p = [DaeParser::Spacy, DaeParser::Conllu, DaeParser::Json];
        assert_eq!(p.map(|x| name(serde_json::to_value(x).unwrap())), ["spacy", "conllu", "json"]);
        let m = [MultiSentence::PerSentence, MultiSentence::SingleParse];
        assert_eq!(m.map(|x| name(serde_json::to_value(x).unwrap())), ["per-sentence", "single-parse"]);
        assert_eq!(MultiSentence::default(), MultiSentence::PerSentence);
        assert_eq!(
            serde_json::to_value(DaeConfig::default()).unwrap(),
            serde_json::json!({"model": null, "nli_model": null, "arcs": null, "parser": null, "multi_sentence": "per-sentence"})
        );
        let partial: DaeConfig = serde_json::from_str(r#"{"parser": "conllu", "multi_sentence": "single-parse"}"#).unwrap();
        assert_eq!((partial.parser, partial.multi_sentence), (Some(DaeParser::Conllu), MultiSentence::SingleParse));
        assert!(serde_json::from_str::<DaeConfig>(r#"{"max_arcs": 3}"#).unwrap_err().to_string().contains("max_arcs"));
    }
}
