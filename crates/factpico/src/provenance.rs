//! [`Provenance`]: what a run was (engine, output schema, options, each metric's settings and
//! model hashes, the per-system table's columns, how the input was read), stored once per
//! output and referenced by every row's `run` ([`Provenance::hash`]).
//!
//! The JSON layout is that of output schema 3 (and, for the fields they have, of schemas 1
//! and 2): object keys sorted at every level, as `serde_json` writes a `Value`. The fields
//! below are declared in that order so that serialising the struct directly and serialising
//! it through [`Provenance::to_value`] give the same bytes. The options and each metric's
//! provenance stay JSON values: each metric writes its own, and the options' JSON is what
//! `--resume` compares (a typed copy would add defaults or drop keys of older files).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// The run's provenance (see the module documentation).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Provenance {
    /// `factpico <version>` of the engine that scored the rows.
    pub engine: String,
    /// How the rows were read (output schema 2 and later; set by a front end that reads an
    /// input file, e.g. `factpico score`; absent for library and Python runs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input: Option<InputProvenance>,
    /// Each metric's own provenance (settings, model hashes), by metric name.
    #[serde(default)]
    pub metrics: BTreeMap<String, serde_json::Value>,
    /// The [`crate::ScorerOptions`] as JSON.
    #[serde(default)]
    pub options: serde_json::Value,
    /// The output schema version ([`crate::SCHEMA_VERSION`] for runs of this engine).
    pub schema_version: u32,
    /// The columns of the per-system summary table, in metric order (absent in files written
    /// before it was recorded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary_columns: Option<Vec<String>>,
}

/// `provenance.input`: how the rows were read, so that a report can re-read the input and
/// `--resume` can refuse a different reading.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InputProvenance {
    /// The CSV delimiter, recorded only when one other than `,` was given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delimiter: Option<String>,
    /// How ids were derived when the input has no id field (`null` when they were read).
    #[serde(default)]
    pub derive_id: Option<DeriveIdProvenance>,
    /// Input field of each name: `id` (null when ids are derived), `source`, `summary`,
    /// `system`, and each per-row side input the metrics read (e.g. `"evidence": "spans"`).
    #[serde(default)]
    pub fields: BTreeMap<String, Option<String>>,
    /// The input format: `jsonl`, `json`, `csv` or `tsv`.
    pub format: String,
    /// Files the options name (e.g. `--arcs`), by option, with their sha256.
    #[serde(default)]
    pub side_inputs: BTreeMap<String, SideInput>,
    /// Whether TSV fields were read with quotes.
    #[serde(default)]
    pub tsv_quotes: bool,
}

/// How an id is derived: `prefix` + the first `hex_len` hex digits of sha256(`field`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeriveIdProvenance {
    /// The field whose value is hashed.
    pub field: String,
    /// Hex digits kept.
    #[serde(alias = "hex", default = "default_hex_len")]
    pub hex_len: u64,
    /// Put before the hex digits.
    #[serde(default)]
    pub prefix: String,
}

/// A file named by an option, with its full sha256 (part of the resume fingerprint).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SideInput {
    /// The path as given.
    pub path: String,
    /// sha256 of its bytes (hex).
    pub sha256: String,
}

/// The hex digits of a derived id when a provenance does not say (the CLI's default).
fn default_hex_len() -> u64 {
    12
}

impl Provenance {
    /// The provenance as a JSON value (object keys sorted at every level: the layout written
    /// to provenance files and hashed by [`Provenance::hash`]).
    pub fn to_value(&self) -> serde_json::Value {
        serde_json::to_value(self).unwrap_or(serde_json::Value::Null)
    }

    /// [`crate::provenance_hash`] of this provenance: the `run` of the rows scored under it.
    pub fn hash(&self) -> String {
        crate::report::provenance_hash(self)
    }

    /// Reads a provenance from its JSON (a provenance file, a Parquet file's metadata, or the
    /// `provenance` of a row of output schema 1 or 2).
    ///
    /// # Errors
    /// The value is not a provenance object (say which field is wrong).
    pub fn from_value(value: serde_json::Value) -> std::result::Result<Self, serde_json::Error> {
        serde_json::from_value(value)
    }

    /// The names of the metrics that ran.
    pub fn metric_names(&self) -> impl Iterator<Item = &str> {
        self.metrics.keys().map(String::as_str)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    /// The typed provenance writes the same bytes as the JSON value it replaces (keys sorted
    /// at every level), with and without an input, and reads back equal.
    #[test]
    fn typed_provenance_keeps_the_json_layout() {
        let value = serde_json::json!({
            "engine": "factpico 0.1.0",
            "schema_version": 3,
            "options": {"metrics": ["rougeL"], "b": null, "a": 1.5},
            "metrics": {"rougeL": {"version": 1}, "fkgl": {"z": 1, "a": [1, 2]}},
            "summary_columns": ["rougeL", "fkgl_summary"],
            "input": {
                "format": "csv", "tsv_quotes": false, "delimiter": ";",
                "fields": {"id": null, "source": "source", "summary": "summary", "system": "system", "evidence": "spans"},
                "derive_id": {"field": "source", "prefix": "sh_", "hex_len": 12},
                "side_inputs": {"dae.arcs": {"path": "arcs.jsonl", "sha256": "ab"}},
            },
        });
        let typed = Provenance::from_value(value.clone()).unwrap();
        assert_eq!(serde_json::to_vec(&typed).unwrap(), serde_json::to_vec(&value).unwrap());
        assert_eq!(serde_json::to_vec_pretty(&typed).unwrap(), serde_json::to_vec_pretty(&value).unwrap());
        assert_eq!(typed.hash(), crate::provenance_hash(&value));
        let mut bare = value.clone();
        bare.as_object_mut().unwrap().remove("input");
        bare.as_object_mut().unwrap().remove("summary_columns");
        let typed = Provenance::from_value(bare.clone()).unwrap();
        assert_eq!((typed.input.as_ref(), typed.summary_columns.as_ref()), (None, None));
        assert_eq!(serde_json::to_vec(&typed).unwrap(), serde_json::to_vec(&bare).unwrap());
    }
}
