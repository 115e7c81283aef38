//! The per-row report: what `factpico score` writes as one JSONL line and what
//! [`crate::Scorer::score`] returns.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// Version of the output row schema. Bumped on any incompatible change of [`Report`] or of
/// what its provenance means.
///
/// * 3: provenance once per output, compact rows: a row no longer carries the provenance
///   but `run`, the [`provenance_hash`] of the provenance written once beside it (`factpico
///   score` writes `OUT.provenance.json`, or the Parquet metadata key `factpico.provenance`);
///   sentence spans are opt-in (`sentence_spans`, `--sentences`). `diff`, `report` and
///   `meta-eval` still read version-2 rows (which carry their provenance); `--resume` refuses
///   them.
/// * 2: `provenance.input` (how the input was read: format, field mapping including the
///   system field, id derivation, side inputs with their sha256; written by
///   `factpico score`), which enters the `--resume` fingerprint; `input_sha256` covers the
///   row's extra per-row inputs when it has any. `--resume` refuses version-1 files.
/// * 1: the first published schema.
pub const SCHEMA_VERSION: u32 = 3;

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

impl Sentences {
    /// The Punkt sentence spans of both texts, as a row records them with
    /// [`crate::ScorerOptions::sentence_spans`] (for consumers of rows written without them,
    /// e.g. `factpico report`).
    pub fn of(source: &str, summary: &str) -> Self {
        let spans = |t: &str| -> Vec<[usize; 2]> {
            factpico_text::Punkt::english().span_tokenize(t).into_iter().map(|s| [s.start, s.end]).collect()
        };
        Self { source: spans(source), summary: spans(summary) }
    }
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
    /// Sentence spans used by sentence-level metrics (only with
    /// [`crate::ScorerOptions::sentence_spans`], off by default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sentences: Option<Sentences>,
    /// Metric name → metric-specific detail (per sentence / arc / question).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub details: BTreeMap<String, serde_json::Value>,
    /// [`provenance_hash`] of the run's provenance (engine version, schema version, options,
    /// model hashes): the provenance itself is written once per output, not in each row
    /// (output schema 3). `None` in rows of schema 1 and 2, which carry `provenance`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run: Option<String>,
    /// The run's provenance, in rows of output schema 1 and 2 only (read, never written:
    /// schema-3 rows carry [`Report::run`] and the provenance is stored once per output);
    /// `Null` otherwise.
    #[serde(default, skip_serializing_if = "serde_json::Value::is_null")]
    pub provenance: serde_json::Value,
}

impl Report {
    /// The value of column `name`, if present and not null.
    pub fn score(&self, name: &str) -> Option<f64> {
        self.scores.get(name).copied().flatten()
    }

    /// True when the row records work that failed and may succeed when the row is scored
    /// again: a metric failure (`errors`), or a null whose reason starts with
    /// [`INCOMPLETE_PREFIX`] (the LLM evaluators' requests that failed after their retries).
    /// `factpico score --resume` on a finished output scores exactly these rows again.
    pub fn carries_failure(&self) -> bool {
        !self.errors.is_empty() || self.nulls.values().any(|r| r.starts_with(INCOMPLETE_PREFIX))
    }
}

/// The start of a null reason that marks an incomplete result (work that failed and a re-run
/// may complete), e.g. `incomplete: request failed for population; re-run to complete`.
pub const INCOMPLETE_PREFIX: &str = "incomplete:";

/// The `run` reference of rows scored under `provenance` (output schema 3): the first 16 hex
/// digits of sha256 of its compact JSON (`serde_json::to_vec`, object keys sorted). Equal
/// provenance objects give equal hashes whatever the file's whitespace. `provenance` is a
/// [`crate::Provenance`] or its JSON value (hashed as a value: keys sorted at every level).
pub fn provenance_hash<P: serde::Serialize + ?Sized>(provenance: &P) -> String {
    use sha2::Digest;
    let value = serde_json::to_value(provenance).unwrap_or(serde_json::Value::Null);
    let bytes = serde_json::to_vec(&value).unwrap_or_default();
    hex::encode(&sha2::Sha256::digest(&bytes)[..8])
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

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod schema_tests {
    use super::*;

    /// Output schema 3: a row serialises `run`, never `provenance`; rows of schema 2 (with
    /// their provenance, without `run`) still deserialise.
    #[test]
    fn rows_reference_the_provenance_and_old_rows_still_read() {
        let prov = serde_json::json!({"schema_version": SCHEMA_VERSION, "engine": "factpico x", "options": {"b": 1, "a": [1.5]}});
        let run = provenance_hash(&prov);
        assert_eq!(run.len(), 16);
        // Whitespace and key order of a file do not change the hash (keys sorted, compact).
        let reread: serde_json::Value = serde_json::from_str(&serde_json::to_string_pretty(&prov).unwrap()).unwrap();
        assert_eq!(provenance_hash(&reread), run);
        assert_ne!(provenance_hash(&serde_json::json!({"schema_version": 2})), run);
        let r = Report { id: Some("a".into()), run: Some(run.clone()), ..Report::default() };
        let line = serde_json::to_string(&r).unwrap();
        assert_eq!(line, format!(r#"{{"id":"a","scores":{{}},"run":"{run}"}}"#));
        let old: Report = serde_json::from_str(r#"{"id":"a","scores":{"rougeL":0.5},"provenance":{"schema_version":2}}"#).unwrap();
        assert_eq!((old.run, old.provenance["schema_version"].as_u64()), (None, Some(2)));
        let s = Sentences::of("One. Two.", "Three.");
        assert_eq!((s.source, s.summary), (vec![[0, 4], [5, 9]], vec![[0, 6]]));
    }
}
