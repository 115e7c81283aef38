//! The per-row report: what `factpico score` writes as one JSONL line and what
//! [`crate::Scorer::score`] returns.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// Version of the output row schema. Bumped on any incompatible change of [`Report`] or of
/// what its provenance means.
///
/// * 2: `provenance.input` (how the input was read: format, field mapping including the
///   system field, id derivation, side inputs with their sha256; written by
///   `factpico score`), which enters the `--resume` fingerprint; `input_sha256` covers the
///   row's extra per-row inputs when it has any. `--resume` refuses version-1 files.
/// * 1: the first published schema.
pub const SCHEMA_VERSION: u32 = 2;

/// A remark attached to a row, with the metric it concerns.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Warning {
    /// Metric name (`rougeL`, `alignscore`, ...) or `input` for row-level remarks.
    pub metric: String,
    /// Human-readable message.
    pub message: String,
}

/// Byte spans `[start, end)` of the Punkt sentences of both texts (NLTK
/// `sent_tokenize`-identical), as used by the sentence-level metrics.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sentences {
    /// Sentences of the abstract (source), byte offsets into the source text.
    pub source: Vec<[usize; 2]>,
    /// Sentences of the summary, byte offsets into the summary text.
    pub summary: Vec<[usize; 2]>,
}

/// One scored (source, summary) pair.
///
/// `scores` holds every requested column; a `null` value has its reason in
/// `nulls`. Rows that could not be read at all (malformed input with
/// `--on-error skip`) have `skipped` set and no scores.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// 1-based record number in the input (data rows, header excluded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub row: Option<u64>,
    /// Row id (from the id field, derived, or `row-<n>`); `None` only for unreadable rows.
    pub id: Option<String>,
    /// First 16 hex digits of sha256(source ‖ 0x00 ‖ summary) of the scored texts, or, when
    /// the row has extra per-row inputs (evidence spans, ...), of sha256(source ‖ 0x00 ‖
    /// summary ‖ 0x00 ‖ canonical JSON of the extras map): identifies the input a row was
    /// computed from (`factpico score --resume` checks it). Rows without extras hash as in
    /// schema 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_sha256: Option<String>,
    /// The generating system (`system` field), when the input has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system: Option<String>,
    /// Column → value (`null` = documented null, reason in `nulls`).
    #[serde(default)]
    pub scores: BTreeMap<String, Option<f64>>,
    /// Column → reason for a null value.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub nulls: BTreeMap<String, String>,
    /// Non-fatal remarks.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<Warning>,
    /// Metric failures on this row (their columns are null).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<Warning>,
    /// Why the row was skipped (unreadable input), when it was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skipped: Option<String>,
    /// Sentence spans used by sentence-level metrics.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sentences: Option<Sentences>,
    /// Metric name → metric-specific detail (per sentence / arc / question).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub details: BTreeMap<String, serde_json::Value>,
    /// Engine version, schema version, options, model hashes.
    #[serde(default)]
    pub provenance: serde_json::Value,
}

impl Report {
    /// The value of column `name`, if present and not null.
    pub fn score(&self, name: &str) -> Option<f64> {
        self.scores.get(name).copied().flatten()
    }
}

/// The `input_sha256` of a row, which identifies the texts it was computed from (`score
/// --resume` and `report` check it): the first 16 hex digits of sha256(source ‖ 0x00 ‖
/// summary), or, for a row with per-row side inputs, of sha256(source ‖ 0x00 ‖ summary ‖ 0x00 ‖
/// JSON of the extras map) (keys sorted, compact): rows without extras hash as in schema 1.
pub fn input_sha256(source: &str, summary: &str, extras: &crate::Extras) -> String {
    use sha2::Digest;
    let mut h = sha2::Sha256::new();
    h.update(source.as_bytes());
    h.update([0u8]);
    h.update(summary.as_bytes());
    if !extras.is_empty() {
        h.update([0u8]);
        h.update(serde_json::to_string(extras).unwrap_or_default().as_bytes());
    }
    hex::encode(&h.finalize()[..8])
}
