//! The `qa` options as a user sets them: `ScorerOptions::qa` (JSON / Python `qa={...}`), the
//! QA flags of `factpico score` (feature `clap`) and the provenance's `options.qa`. Always
//! compiled (no ONNX Runtime): one definition per option. The unit `qa` has three metrics,
//! `questeval`, `qafacteval` and `cloze`; [`QaConfig::field_metrics`] tells which reads what.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// How the QA metrics select answer candidates (the user's choice; the engine's
/// `AnswerSelector` is what it resolves to).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[serde(rename_all = "snake_case")]
pub enum AnswerSelection {
    /// The spaCy sidecar when its Python is found, else `rules` (default).
    #[default]
    Auto,
    /// The spaCy sidecar (noun chunks and entities, as the references); an error if it is missing.
    Spacy,
    /// Pure-Rust rules (no Python).
    Rules,
}

/// Options of the QA metrics `questeval`, `qafacteval` and `cloze` (`ScorerOptions::qa`;
/// flags `--answers` and the model directories). Each metric needs its own models (see the
/// fields); the optional BERTScore and LERC-QuIP models add columns.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "clap", derive(clap::Args))]
#[serde(default, deny_unknown_fields)]
pub struct QaConfig {
    /// QA metrics: answer selection: auto (spaCy sidecar when installed, else rules), spacy,
    /// rules. Used by all three metrics (default auto).
    #[cfg_attr(feature = "clap", arg(id = "qa.answers", long = "answers", value_enum, default_value_t = QaConfig::default().answers))]
    pub answers: AnswerSelection,
    /// QuestEval: T5 question-generation model directory (`onnx/export_seq2seq.py
    /// --qg-prefix sv1`).
    #[cfg_attr(feature = "clap", arg(id = "qa.questeval_qg_model", long = "questeval-qg-model"))]
    pub questeval_qg_model: Option<PathBuf>,
    /// QuestEval: T5 QA model directory (with an "unanswerable" token; `--role qa`).
    #[cfg_attr(feature = "clap", arg(id = "qa.questeval_qa_model", long = "questeval-qa-model"))]
    pub questeval_qa_model: Option<PathBuf>,
    /// QuestEval: BERTScore token-embedding model directory (onnx/export_embedding.py;
    /// reference: bert-base-multilingual-cased, layer 9). Adds the `questeval*` columns (all
    /// three components, as published); without it they are null and only `questeval_f1*`
    /// are computed.
    #[cfg_attr(feature = "clap", arg(id = "qa.bertscore_model", long = "bertscore-model"))]
    pub bertscore_model: Option<PathBuf>,
    /// QAFactEval: BART question-generation model directory (`<m> … </m>` answer markers).
    #[cfg_attr(feature = "clap", arg(id = "qa.qafacteval_qg_model", long = "qafacteval-qg-model"))]
    pub qafacteval_qg_model: Option<PathBuf>,
    /// QAFactEval: LERC-QuIP regressor directory (onnx/export_hf.py on quip-512-mocha). Adds
    /// `qafacteval_lerc` (raw, about 0-5) and `qafacteval_lerc_norm` ([0, 1]); null without it.
    #[cfg_attr(feature = "clap", arg(id = "qa.lerc_model", long = "lerc-model"))]
    pub lerc_model: Option<PathBuf>,
    /// QAFactEval and cloze: extractive (span) QA model directory (`onnx/export_qa.py`).
    #[cfg_attr(feature = "clap", arg(id = "qa.extractive_qa_model", long = "extractive-qa-model"))]
    pub extractive_qa_model: Option<PathBuf>,
}

impl QaConfig {
    /// The metrics that read option `field` (a field name of this struct): each model
    /// directory names the metrics that load it; `answers` is read by all three (empty
    /// slice = every metric of the unit).
    pub fn field_metrics(field: &str) -> &'static [&'static str] {
        match field {
            "questeval_qg_model" | "questeval_qa_model" | "bertscore_model" => &["questeval"],
            "qafacteval_qg_model" | "lerc_model" => &["qafacteval"],
            "extractive_qa_model" => &["qafacteval", "cloze"],
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
        let name = |v: serde_json::Value| v.as_str().unwrap_or_default().to_owned();
        let a = [AnswerSelection::Auto, AnswerSelection::Spacy, AnswerSelection::Rules];
        assert_eq!(a.map(|x| name(serde_json::to_value(x).unwrap())), ["auto", "spacy", "rules"]);
        assert_eq!(
            serde_json::to_value(QaConfig::default()).unwrap(),
            serde_json::json!({"answers": "auto", "questeval_qg_model": null, "questeval_qa_model": null,
                "bertscore_model": null, "qafacteval_qg_model": null, "lerc_model": null, "extractive_qa_model": null})
        );
        let partial: QaConfig = serde_json::from_str(r#"{"answers": "rules", "lerc_model": "l"}"#).unwrap();
        assert_eq!((partial.answers, partial.lerc_model), (AnswerSelection::Rules, Some("l".into())));
        assert!(serde_json::from_str::<QaConfig>(r#"{"answer": "rules"}"#).unwrap_err().to_string().contains("answer"));
    }

    /// Every field named by `field_metrics` exists, and names metrics of the unit.
    #[test]
    fn field_metrics_name_fields() {
        let defaults = serde_json::to_value(QaConfig::default()).unwrap();
        for (field, _) in defaults.as_object().unwrap() {
            for m in QaConfig::field_metrics(field) {
                assert!(["questeval", "qafacteval", "cloze"].contains(m), "{field}: {m}");
            }
        }
        assert_eq!(QaConfig::field_metrics("extractive_qa_model"), ["qafacteval", "cloze"]);
        assert!(QaConfig::field_metrics("answers").is_empty());
    }
}
