//! The `summac` options as a user sets them: `ScorerOptions::summac` (JSON / Python
//! `summac={...}`), the `--summac-*` flags (feature `clap`) and the provenance's
//! `options.summac`. Always compiled (no ONNX Runtime): one definition per option.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// How a text is cut into chunks (one side of the NLI image; the reference's `granularity`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[serde(rename_all = "snake_case")]
pub enum Granularity {
    /// NLTK Punkt sentences (`nltk.sent_tokenize`, `factpico_text::Punkt`), short ones
    /// dropped. The setting of the paper's best models and of the released Conv weights.
    #[default]
    Sentence,
    /// Paragraphs: split on `"\n\n"` when the text has one, else on `"\n"`, each piece
    /// Python-`strip()`ped, short ones dropped (the reference class default).
    Paragraph,
    /// Sliding windows of two consecutive (kept) sentences joined with one space; the last
    /// window is the last sentence alone (`2sents`).
    #[serde(rename = "2sents")]
    #[cfg_attr(feature = "clap", value(name = "2sents"))]
    TwoSentences,
    /// The whole text as one chunk, never filtered (even when empty).
    Document,
    /// The kept sentences followed by the kept paragraphs.
    Mixed,
}

/// A reduction over one axis of the image (the reference's `op1` / `op2`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[serde(rename_all = "snake_case")]
pub enum Reduce {
    /// Maximum.
    Max,
    /// Arithmetic mean.
    Mean,
    /// Minimum.
    Min,
}

/// Which probabilities enter SummaC-ZS's per-chunk score (the reference's `use_ent` /
/// `use_con`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ZsLabels {
    /// `ent - con` (reference default `use_ent=True, use_con=True`), in \[−1, 1\].
    #[default]
    EntailmentMinusContradiction,
    /// `ent` only (`use_con=False`), in \[0, 1\].
    Entailment,
    /// `1 - con` (`use_ent=False`), in \[0, 1\].
    NotContradiction,
}

/// The reference's silent cuts: reproduced (and reported in the row's warnings), or lifted
/// (the engine's `Limits::reference` / `Limits::lifted`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[serde(rename_all = "snake_case")]
pub enum Cuts {
    /// As the reference (default): sentences of ≤ 10 characters dropped, the abstract cut at
    /// 100 sentences, pairs cut to 500 tokens, Conv on the first 10 summary sentences, 0 for a
    /// row without pairs. Each cut that applies is a warning of the row.
    #[default]
    Reference,
    /// No cut: only empty sentences dropped, every sentence used, pairs cut only at the
    /// model's own limit, null for a row without pairs.
    Lifted,
}

/// Options of SummaC-ZS and SummaC-Conv (`ScorerOptions::summac`; flags `--summac-*`).
/// `Default` = the reference's settings with the released `vitc` model.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "clap", derive(clap::Args))]
#[serde(default, deny_unknown_fields)]
pub struct SummacConfig {
    /// SummaC: NLI model directory (`onnx/export_summac.py nli`, or any 3-way NLI
    /// cross-encoder); unset = `$FACTPICO_HOME/models/summac-vitc`.
    #[cfg_attr(feature = "clap", arg(id = "summac.model", long = "summac-model"))]
    pub model: Option<PathBuf>,
    /// SummaC: chunking of both texts (default sentence).
    #[cfg_attr(feature = "clap", arg(id = "summac.granularity", long = "summac-granularity", value_enum, default_value_t = SummacConfig::default().granularity))]
    pub granularity: Granularity,
    /// SummaC: chunking of the abstract when it differs from the summary's (the reference's
    /// `"<document>-<summary>"` granularity); unset = `granularity`.
    #[cfg_attr(feature = "clap", arg(id = "summac.document_granularity", long = "summac-document-granularity", value_enum))]
    pub document_granularity: Option<Granularity>,
    /// SummaC: the reference's cuts (short sentences, 100 abstract sentences, 500 tokens, 10
    /// Conv rows): `reference` (default; each cut is a row warning) or `lifted`.
    #[cfg_attr(feature = "clap", arg(id = "summac.cuts", long = "summac-cuts", value_enum, default_value_t = SummacConfig::default().cuts))]
    pub cuts: Cuts,
    /// SummaC: index of the entailment label in the model's logits; unset = the label named
    /// `entail…` (the exporter names them; SummaC's `vitc` is 0).
    #[cfg_attr(feature = "clap", arg(id = "summac.entailment_index", long = "summac-entailment-index"))]
    pub entailment_index: Option<usize>,
    /// SummaC: index of the contradiction label; unset = the label named `contra…`.
    #[cfg_attr(feature = "clap", arg(id = "summac.contradiction_index", long = "summac-contradiction-index"))]
    pub contradiction_index: Option<usize>,
    /// SummaC-ZS: reduction over abstract sentences (reference `op1`, default max).
    #[cfg_attr(feature = "clap", arg(id = "summac.zs_op1", long = "summac-zs-op1", value_enum, default_value_t = SummacConfig::default().zs_op1))]
    pub zs_op1: Reduce,
    /// SummaC-ZS: reduction over summary sentences (reference `op2`, default mean).
    #[cfg_attr(feature = "clap", arg(id = "summac.zs_op2", long = "summac-zs-op2", value_enum, default_value_t = SummacConfig::default().zs_op2))]
    pub zs_op2: Reduce,
    /// SummaC-ZS: which probabilities (default entailment minus contradiction; JSON only).
    #[cfg_attr(feature = "clap", arg(skip))]
    pub zs_labels: ZsLabels,
    /// SummaC-Conv: weight file (`onnx/export_summac.py conv`); unset = the released weights
    /// (`summac_conv_vitc_sent_perc_e.bin`, embedded), trained for the `vitc` model.
    #[cfg_attr(feature = "clap", arg(id = "summac.conv_weights", long = "summac-conv-weights"))]
    pub conv_weights: Option<PathBuf>,
}

impl Default for SummacConfig {
    fn default() -> Self {
        Self {
            model: None,
            granularity: Granularity::Sentence,
            document_granularity: None,
            cuts: Cuts::Reference,
            entailment_index: None,
            contradiction_index: None,
            zs_op1: Reduce::Max,
            zs_op2: Reduce::Mean,
            zs_labels: ZsLabels::EntailmentMinusContradiction,
            conv_weights: None,
        }
    }
}

impl SummacConfig {
    /// The metrics that read option `field` (a field name of this struct): SummaC-ZS's and
    /// SummaC-Conv's own options name one metric; the rest are read by both (empty slice).
    pub fn field_metrics(field: &str) -> &'static [&'static str] {
        match field {
            "zs_op1" | "zs_op2" | "zs_labels" => &["summac_zs"],
            "conv_weights" => &["summac_conv"],
            _ => &[],
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]
    use super::*;

    /// JSON names of every option value (the provenance's and `fixtures/units/*.json`'s).
    #[test]
    fn json_names_and_defaults() {
        let names = |v: Vec<serde_json::Value>| v.into_iter().map(|j| j.as_str().unwrap_or_default().to_owned()).collect::<Vec<_>>();
        let g = [Granularity::Sentence, Granularity::Paragraph, Granularity::TwoSentences, Granularity::Document, Granularity::Mixed];
        assert_eq!(names(g.iter().map(|x| serde_json::to_value(x).unwrap()).collect()), ["sentence", "paragraph", "2sents", "document", "mixed"]);
        let r = [Reduce::Max, Reduce::Mean, Reduce::Min];
        assert_eq!(names(r.iter().map(|x| serde_json::to_value(x).unwrap()).collect()), ["max", "mean", "min"]);
        let l = [ZsLabels::EntailmentMinusContradiction, ZsLabels::Entailment, ZsLabels::NotContradiction];
        assert_eq!(
            names(l.iter().map(|x| serde_json::to_value(x).unwrap()).collect()),
            ["entailment_minus_contradiction", "entailment", "not_contradiction"]
        );
        assert_eq!(names([Cuts::Reference, Cuts::Lifted].iter().map(|x| serde_json::to_value(x).unwrap()).collect()), ["reference", "lifted"]);
        let d = serde_json::to_value(SummacConfig::default()).unwrap();
        assert_eq!(
            d,
            serde_json::json!({"model": null, "granularity": "sentence", "document_granularity": null, "cuts": "reference",
                "entailment_index": null, "contradiction_index": null, "zs_op1": "max", "zs_op2": "mean",
                "zs_labels": "entailment_minus_contradiction", "conv_weights": null})
        );
        let partial: SummacConfig = serde_json::from_str(r#"{"zs_op1": "min", "granularity": "2sents"}"#).unwrap();
        assert_eq!((partial.zs_op1, partial.granularity, partial.zs_op2), (Reduce::Min, Granularity::TwoSentences, Reduce::Mean));
        assert!(serde_json::from_str::<SummacConfig>(r#"{"zs_op3": "min"}"#).unwrap_err().to_string().contains("zs_op3"));
    }
}
