//! The factpico model directory manifest (`factpico.json`) and its inference from a Hugging
//! Face `config.json`.
use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// Current manifest schema version written by the `onnx/` export scripts.
pub const MANIFEST_SCHEMA_VERSION: u32 = 1;
/// Manifest file name inside a model directory.
pub const MANIFEST_FILE: &str = "factpico.json";
/// Maximum sequence length used when neither the manifest, the tokenizer nor the config give
/// one (and the cap applied to inferred lengths).
pub const DEFAULT_MAX_LENGTH: usize = 512;

/// What a model directory is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum ModelTask {
    /// AlignScore (RoBERTa + pooler + `tri_logits`/`bin_logits`/`reg` heads).
    Alignscore,
    /// A premise/hypothesis NLI cross-encoder with an `entailment` label.
    Nli,
    /// DAE-style dependency-arc entailment.
    Dae,
    /// Encoder-decoder generation (question generation, ...).
    Seq2seq,
    /// Extractive question answering (start/end logits).
    ExtractiveQa,
    /// Any other sequence(-pair) classifier.
    SequenceClassification,
    /// Per-token hidden states of an encoder cut after a given layer (BERTScore;
    /// `onnx/export_embedding.py`, read by [`crate::embed::TokenEmbedder`]).
    TokenEmbedding,
}

impl std::fmt::Display for ModelTask {
    /// The manifest's spelling (`"task"` in `factpico.json`), e.g. `token-embedding`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            ModelTask::Alignscore => "alignscore",
            ModelTask::Nli => "nli",
            ModelTask::Dae => "dae",
            ModelTask::Seq2seq => "seq2seq",
            ModelTask::ExtractiveQa => "extractive-qa",
            ModelTask::SequenceClassification => "sequence-classification",
            ModelTask::TokenEmbedding => "token-embedding",
        })
    }
}

/// Truncation strategy for a (premise, hypothesis) pair, with Hugging Face tokenizers'
/// semantics (`tokenizers/src/utils/truncation.rs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TruncationStrategy {
    /// Cut only the first sequence (premise) from its end; impossible when the second
    /// sequence plus special tokens alone exceed the limit.
    OnlyFirst,
    /// Cut only the second sequence (hypothesis).
    OnlySecond,
    /// Cut the longer sequence first until both are equal, then both
    /// (`truncation=True` in transformers).
    LongestFirst,
}

/// Which end tokens are removed from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum TruncationSide {
    /// Keep the beginning, drop tokens at the end (the transformers default).
    #[default]
    Right,
    /// Keep the end, drop tokens at the beginning.
    Left,
}

/// How pairs longer than `max_length` are cut.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct TruncationConfig {
    /// Primary strategy.
    pub strategy: TruncationStrategy,
    /// Which end to cut.
    #[serde(default)]
    pub side: TruncationSide,
    /// Strategy used for the whole tokenisation group when `strategy` is impossible for one of
    /// its pairs (AlignScore: `longest_first`, `inference.py:180-182`). `None`: error.
    #[serde(default)]
    pub fallback: Option<TruncationStrategy>,
}

/// Provenance of the weights.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct SourceInfo {
    /// Checkpoint the ONNX graph was exported from (URL, hub id or file name).
    pub checkpoint: String,
    /// sha256 (hex) of the checkpoint file, when known.
    #[serde(default)]
    pub sha256: Option<String>,
}

/// The tool that produced the directory.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct ExporterInfo {
    /// E.g. `factpico onnx/export_alignscore.py`.
    pub name: String,
    /// Exporter version (factpico version, or torch/onnx versions).
    pub version: String,
}

/// `factpico.json`: everything needed to run a model directory's `model.onnx` correctly.
///
/// Written by the `onnx/` export scripts; inferred by [`ModelManifest::infer_from_hf_config`]
/// for plain Hugging Face export directories.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelManifest {
    /// Manifest schema version ([`MANIFEST_SCHEMA_VERSION`]).
    pub schema_version: u32,
    /// Backbone architecture, Hugging Face `model_type` (e.g. `roberta`, `bert`).
    pub architecture: String,
    /// What the model is for.
    pub task: ModelTask,
    /// Graph input names in graph order (e.g. `["input_ids", "attention_mask"]`). Empty in an
    /// inferred manifest until the graph is loaded.
    #[serde(default)]
    pub inputs: Vec<String>,
    /// Graph output names in graph order (e.g. `["tri_logits", "bin_logits", "reg"]`).
    #[serde(default)]
    pub outputs: Vec<String>,
    /// Label names per output, index order (e.g. `"tri_logits": ["aligned", "neutral",
    /// "contradiction"]`, `"logits": ["entailment", "neutral", "contradiction"]`).
    #[serde(default)]
    pub labels: BTreeMap<String, Vec<String>>,
    /// Maximum number of tokens of an encoded pair, special tokens included.
    pub max_length: usize,
    /// Pair template, informative (e.g. `<s> A </s></s> B </s>`); the tokenizer's
    /// post-processor is what is applied.
    #[serde(default)]
    pub pair_template: String,
    /// Truncation of over-long pairs.
    pub truncation: TruncationConfig,
    /// Token id used for padding `input_ids` (RoBERTa: 1, BERT: 0).
    pub pad_token_id: i64,
    /// Where the weights come from.
    #[serde(default)]
    pub source: SourceInfo,
    /// Which tool produced the directory.
    #[serde(default)]
    pub exporter: ExporterInfo,
}

impl ModelManifest {
    /// Reads and validates `factpico.json`.
    ///
    /// # Errors
    /// [`Error::Io`] / [`Error::InvalidModel`] naming the file.
    pub fn from_file(path: &Path) -> Result<Self> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
        let m: ModelManifest = serde_json::from_str(&text).map_err(|e| Error::InvalidModel {
            path: path.to_path_buf(),
            reason: format!("not a valid factpico manifest ({e}); re-export the model with `cargo xtask export`"),
        })?;
        if m.schema_version != MANIFEST_SCHEMA_VERSION {
            return Err(Error::InvalidModel {
                path: path.to_path_buf(),
                reason: format!(
                    "manifest schema_version {} is not supported (expected {MANIFEST_SCHEMA_VERSION}); re-export the model",
                    m.schema_version
                ),
            });
        }
        if m.max_length < 8 {
            return Err(Error::InvalidModel {
                path: path.to_path_buf(),
                reason: format!("max_length {} is too small", m.max_length),
            });
        }
        Ok(m)
    }

    /// Infers a manifest for a Hugging Face export directory that has a `config.json` (and
    /// maybe `tokenizer_config.json`) but no `factpico.json`.
    ///
    /// * `architecture` = `model_type`; `labels` = `id2label` in index order, attached to the
    ///   graph's first output once the graph is loaded; `task` = `nli` when a label contains
    ///   "entail", else `sequence-classification`.
    /// * `max_length` = the first of: `tokenizer.json` `truncation.max_length`,
    ///   `tokenizer_config.json` `model_max_length` (when < 100000), `max_position_embeddings`
    ///   (minus 2 for RoBERTa-family position offsets); capped at [`DEFAULT_MAX_LENGTH`] (512),
    ///   which is also the default. Override it per call where the model was trained shorter
    ///   (e.g. 256 for the MiniLM NLI test asset).
    /// * truncation = `longest_first` (transformers' `truncation=True`), no fallback;
    ///   `pad_token_id` from the config (default 0).
    /// * `inputs`/`outputs` are taken from the graph at load time.
    ///
    /// # Errors
    /// [`Error::InvalidModel`] when `config.json` is not JSON or lacks `model_type`.
    pub fn infer_from_hf_config(dir: &Path) -> Result<Self> {
        let cfg_path = dir.join("config.json");
        let read_json = |p: &Path| -> Result<serde_json::Value> {
            let t = std::fs::read_to_string(p).map_err(|e| Error::io(p, e))?;
            serde_json::from_str(&t).map_err(|e| Error::InvalidModel {
                path: p.to_path_buf(),
                reason: format!("not valid JSON ({e})"),
            })
        };
        let cfg = read_json(&cfg_path)?;
        let architecture = cfg
            .get("model_type")
            .and_then(|v| v.as_str())
            .ok_or_else(|| Error::InvalidModel {
                path: cfg_path.clone(),
                reason: "no `model_type`; write a factpico.json manifest (see onnx/README.md)".into(),
            })?
            .to_owned();
        let mut labels = Vec::new();
        if let Some(map) = cfg.get("id2label").and_then(|v| v.as_object()) {
            let mut pairs: Vec<(usize, String)> = Vec::new();
            for (k, v) in map {
                let idx: usize = k.parse().map_err(|_| Error::InvalidModel {
                    path: cfg_path.clone(),
                    reason: format!("id2label key {k:?} is not an integer"),
                })?;
                pairs.push((idx, v.as_str().unwrap_or_default().to_owned()));
            }
            pairs.sort();
            if pairs.iter().enumerate().any(|(i, (k, _))| i != *k) {
                return Err(Error::InvalidModel {
                    path: cfg_path.clone(),
                    reason: "id2label keys are not 0..n".into(),
                });
            }
            labels = pairs.into_iter().map(|(_, v)| v).collect();
        }
        let task = if labels.iter().any(|l| l.to_lowercase().contains("entail")) {
            ModelTask::Nli
        } else {
            ModelTask::SequenceClassification
        };
        let roberta_like = matches!(architecture.as_str(), "roberta" | "xlm-roberta" | "camembert" | "longformer");
        let mut max_length = None;
        let tok_json = dir.join("tokenizer.json");
        if tok_json.is_file() {
            if let Ok(t) = read_json(&tok_json) {
                max_length = t
                    .get("truncation")
                    .and_then(|t| t.get("max_length"))
                    .and_then(|v| v.as_u64())
                    .map(|v| v as usize);
            }
        }
        if max_length.is_none() {
            let tc = dir.join("tokenizer_config.json");
            if tc.is_file() {
                max_length = read_json(&tc)?
                    .get("model_max_length")
                    .and_then(|v| v.as_f64())
                    .filter(|v| *v > 0.0 && *v < 100_000.0)
                    .map(|v| v as usize);
            }
        }
        if max_length.is_none() {
            max_length = cfg
                .get("max_position_embeddings")
                .and_then(|v| v.as_u64())
                .map(|v| v as usize - if roberta_like { 2 } else { 0 });
        }
        let max_length = max_length.unwrap_or(DEFAULT_MAX_LENGTH).min(DEFAULT_MAX_LENGTH);
        let pad_token_id = cfg.get("pad_token_id").and_then(|v| v.as_i64()).unwrap_or(0);
        let mut label_map = BTreeMap::new();
        if !labels.is_empty() {
            // Attached to the real first output name at load time.
            label_map.insert(String::new(), labels);
        }
        Ok(ModelManifest {
            schema_version: MANIFEST_SCHEMA_VERSION,
            architecture,
            task,
            inputs: Vec::new(),
            outputs: Vec::new(),
            labels: label_map,
            max_length,
            pair_template: String::new(),
            truncation: TruncationConfig {
                strategy: TruncationStrategy::LongestFirst,
                side: TruncationSide::Right,
                fallback: None,
            },
            pad_token_id,
            source: SourceInfo {
                checkpoint: cfg
                    .get("_name_or_path")
                    .and_then(|v| v.as_str())
                    .unwrap_or_default()
                    .to_owned(),
                sha256: None,
            },
            exporter: ExporterInfo { name: "inferred from config.json".into(), version: String::new() },
        })
    }

    /// Labels of `output`, if the manifest has them.
    pub fn labels_of(&self, output: &str) -> Option<&[String]> {
        self.labels.get(output).map(Vec::as_slice)
    }

    /// Index of the label whose name contains `needle` (case-insensitive) in `output`'s labels.
    pub fn label_index(&self, output: &str, needle: &str) -> Option<usize> {
        let needle = needle.to_lowercase();
        self.labels_of(output)?.iter().position(|l| l.to_lowercase().contains(&needle))
    }
}

#[cfg(test)]
mod display_tests {
    use super::ModelTask;

    #[test]
    fn task_display_is_the_manifest_spelling() {
        for t in [
            ModelTask::Alignscore,
            ModelTask::Nli,
            ModelTask::Dae,
            ModelTask::Seq2seq,
            ModelTask::ExtractiveQa,
            ModelTask::SequenceClassification,
            ModelTask::TokenEmbedding,
        ] {
            assert_eq!(serde_json::to_value(t).ok(), Some(serde_json::Value::String(t.to_string())));
        }
    }
}
