//! Score rows as a Parquet table (feature `parquet`): what `factpico score -o OUT.parquet`
//! writes and what `diff`, `report` and `meta-eval` read back.
//!
//! The layout is the Python package's Arrow table (`factpico._table.to_table`): one row per
//! scored summary; `row` (int64), `id`, `system`, `input_sha256` (string); one nullable
//! `float64` column per score (null = documented null, its reason in `nulls`); `nulls`,
//! `warnings`, `errors`, `details`, `sentences` as JSON text (null when empty); then `skipped`
//! (why an unreadable record was skipped) and `run` (the hash of the run's provenance), both
//! strings. The run's provenance (JSON) is stored once, under the schema metadata key
//! [`PROVENANCE_KEY`] (pyarrow shows it as `table.schema.metadata[b"factpico.provenance"]`).
//!
//! Rows come in and go out as JSON objects of the JSONL row shape (`{"row", "id", "system",
//! "input_sha256", "scores": {...}, "nulls": {...}, ..., "skipped", "run"}`), so the codec
//! needs no knowledge of factpico's row type. Written uncompressed (no compression codec is
//! compiled in: build time), atomically ([`AtomicFile`]: temporary file, renamed when complete).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::builder::{Float64Builder, Int64Builder, StringBuilder};
use arrow_array::{Array, ArrayRef, Float64Array, Int64Array, RecordBatch, StringArray};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::arrow::ArrowWriter;
use parquet::file::properties::WriterProperties;
use serde_json::{Map, Value};

use crate::{AtomicFile, Error, Result};

/// Schema metadata key of the run's provenance (JSON text).
pub const PROVENANCE_KEY: &str = "factpico.provenance";
/// The columns before the scores (`row` is int64, the others strings).
pub const BASE_COLUMNS: [&str; 4] = ["row", "id", "system", "input_sha256"];
/// The JSON text columns after the scores (null when the row's value is absent or empty).
pub const JSON_COLUMNS: [&str; 5] = ["nulls", "warnings", "errors", "details", "sentences"];
/// The string columns after the JSON ones.
pub const TAIL_COLUMNS: [&str; 2] = ["skipped", "run"];

/// Rows per row group (the writer buffers at most this many rows' encoded values).
const ROW_GROUP: usize = 65_536;

fn parquet_error(path: &Path, what: &str, e: impl std::fmt::Display) -> Error {
    Error::Io { action: format!("{what}:"), path: path.to_owned(), source: std::io::Error::other(e.to_string()) }
}

/// A Parquet score table being written: rows are appended by [`ParquetRows::write`] and
/// the file appears under its name only at [`ParquetRows::finish`].
pub struct ParquetRows {
    writer: ArrowWriter<AtomicFile>,
    schema: SchemaRef,
    columns: Vec<String>,
    target: PathBuf,
}

impl std::fmt::Debug for ParquetRows {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ParquetRows").field("target", &self.target).field("columns", &self.columns).finish_non_exhaustive()
    }
}

impl ParquetRows {
    /// Starts the table at `path` with the score `columns` (in order) and the run's
    /// `provenance` in the schema metadata.
    ///
    /// # Errors
    /// The path is refused or the temporary file cannot be created ([`AtomicFile::create`]);
    /// the Parquet writer cannot start.
    pub fn create(path: &Path, columns: &[&str], provenance: &Value) -> Result<Self> {
        let mut fields = vec![
            Field::new("row", DataType::Int64, true),
            Field::new("id", DataType::Utf8, true),
            Field::new("system", DataType::Utf8, true),
            Field::new("input_sha256", DataType::Utf8, true),
        ];
        for c in columns {
            if BASE_COLUMNS.contains(c) || JSON_COLUMNS.contains(c) || TAIL_COLUMNS.contains(c) {
                return Err(Error::refused(path, format!("a score column is named `{c}`, as a column of the table's layout")));
            }
            fields.push(Field::new(*c, DataType::Float64, true));
        }
        fields.extend(JSON_COLUMNS.iter().chain(TAIL_COLUMNS.iter()).map(|c| Field::new(*c, DataType::Utf8, true)));
        let meta: std::collections::HashMap<String, String> = [(PROVENANCE_KEY.to_owned(), provenance.to_string())].into_iter().collect();
        let schema = Arc::new(Schema::new_with_metadata(fields, meta));
        let file = AtomicFile::create(path)?;
        let props = WriterProperties::builder().set_max_row_group_row_count(Some(ROW_GROUP)).build();
        let writer = ArrowWriter::try_new(file, schema.clone(), Some(props))
            .map_err(|e| parquet_error(path, "cannot start the Parquet file", e))?;
        Ok(Self { writer, schema, columns: columns.iter().map(|c| (*c).to_owned()).collect(), target: path.to_owned() })
    }

    /// Appends rows (JSON objects of the JSONL row shape; a score missing from `scores` is
    /// null, a score column not in the table is ignored).
    ///
    /// # Errors
    /// The Parquet writer fails (I/O).
    pub fn write(&mut self, rows: &[Value]) -> Result<()> {
        if rows.is_empty() {
            return Ok(());
        }
        let str_of = |r: &Value, k: &str| r.get(k).and_then(Value::as_str).map(str::to_owned);
        let mut arrays: Vec<ArrayRef> = Vec::with_capacity(self.schema.fields().len());
        let mut row = Int64Builder::with_capacity(rows.len());
        for r in rows {
            row.append_option(r.get("row").and_then(Value::as_i64));
        }
        arrays.push(Arc::new(row.finish()));
        for k in ["id", "system", "input_sha256"] {
            arrays.push(Arc::new(rows.iter().map(|r| str_of(r, k)).collect::<StringArray>()));
        }
        for c in &self.columns {
            let mut b = Float64Builder::with_capacity(rows.len());
            for r in rows {
                b.append_option(r.get("scores").and_then(|s| s.get(c)).and_then(Value::as_f64));
            }
            arrays.push(Arc::new(b.finish()));
        }
        for k in JSON_COLUMNS {
            let mut b = StringBuilder::with_capacity(rows.len(), 64 * rows.len());
            for r in rows {
                match r.get(k) {
                    None | Some(Value::Null) => b.append_null(),
                    Some(Value::Object(m)) if m.is_empty() => b.append_null(),
                    Some(Value::Array(a)) if a.is_empty() => b.append_null(),
                    Some(v) => b.append_value(v.to_string()),
                }
            }
            arrays.push(Arc::new(b.finish()));
        }
        for k in TAIL_COLUMNS {
            arrays.push(Arc::new(rows.iter().map(|r| str_of(r, k)).collect::<StringArray>()));
        }
        let batch = RecordBatch::try_new(self.schema.clone(), arrays)
            .map_err(|e| parquet_error(&self.target, "cannot build a Parquet row batch for", e))?;
        self.writer.write(&batch).map_err(|e| parquet_error(&self.target, "cannot write", e))
    }

    /// Writes the footer and renames the file to its final name. Returns the path.
    ///
    /// # Errors
    /// The Parquet writer or the rename fails.
    pub fn finish(self) -> Result<PathBuf> {
        let target = self.target.clone();
        let file = self.writer.into_inner().map_err(|e| parquet_error(&target, "cannot finish", e))?;
        file.commit()
    }
}

/// A Parquet score table read back: its rows in the JSONL row shape and its provenance.
#[derive(Debug, Clone, Default)]
pub struct ReadRows {
    /// One JSON object per row, in file order (absent and null cells omitted, except `id`
    /// and `scores`; JSON columns parsed).
    pub rows: Vec<Value>,
    /// The schema metadata's [`PROVENANCE_KEY`], parsed.
    pub provenance: Option<Value>,
}

/// Reads a Parquet score table written by [`ParquetRows`] or by the Python package
/// (`Scorer.score_table` written with pyarrow). Score columns are every column not of the
/// layout; they must be floating point.
///
/// # Errors
/// The file cannot be read or is not Parquet; a layout column has another type; the
/// provenance or a JSON cell is not valid JSON.
pub fn read_parquet_rows(path: &Path) -> Result<ReadRows> {
    let mut rows = Vec::new();
    let provenance = for_each_parquet_row(path, |row| {
        rows.push(row);
        Ok::<(), Error>(())
    })?;
    Ok(ReadRows { rows, provenance })
}

/// Streams the rows of a score table to `f`, one JSON object of the JSONL row shape at a time
/// (as [`read_parquet_rows`] returns them), reading one record batch (at most 1,024 rows) at a
/// time: memory does not grow with the file. Returns the provenance (schema metadata
/// [`PROVENANCE_KEY`]), when the file has one. Stops at the first error of `f`.
///
/// # Errors
/// As [`read_parquet_rows`] (converted into `E`), or the first error of `f`.
pub fn for_each_parquet_row<E: From<Error>>(path: &Path, mut f: impl FnMut(Value) -> std::result::Result<(), E>) -> std::result::Result<Option<Value>, E> {
    let file = std::fs::File::open(path).map_err(|e| Error::io("cannot open", path, e))?;
    let builder = ParquetRecordBatchReaderBuilder::try_new(file).map_err(|e| parquet_error(path, "cannot read Parquet from", e))?;
    let provenance = match builder.schema().metadata().get(PROVENANCE_KEY) {
        Some(text) => Some(serde_json::from_str(text).map_err(|e| parquet_error(path, "the provenance metadata is not JSON in", e))?),
        None => None,
    };
    let reader = builder.build().map_err(|e| parquet_error(path, "cannot read Parquet from", e))?;
    for batch in reader {
        let batch = batch.map_err(|e| parquet_error(path, "cannot read Parquet rows from", e))?;
        let schema = batch.schema();
        let mut out: Vec<Map<String, Value>> = vec![Map::new(); batch.num_rows()];
        let mut scores: Vec<Map<String, Value>> = vec![Map::new(); batch.num_rows()];
        for (field, col) in schema.fields().iter().zip(batch.columns()) {
            let name = field.name().as_str();
            let wrong = |want: &str| {
                parquet_error(path, &format!("column `{name}` is {} (expected {want}) in", field.data_type()), "not a factpico score table")
            };
            if name == "row" {
                let a = col.as_any().downcast_ref::<Int64Array>().ok_or_else(|| wrong("int64"))?;
                for (i, o) in out.iter_mut().enumerate() {
                    if a.is_valid(i) {
                        o.insert("row".into(), a.value(i).into());
                    }
                }
            } else if BASE_COLUMNS.contains(&name) || JSON_COLUMNS.contains(&name) || TAIL_COLUMNS.contains(&name) {
                let cast;
                let a = match col.as_any().downcast_ref::<StringArray>() {
                    Some(a) => a,
                    None => {
                        cast = arrow_cast_utf8(col.as_ref()).ok_or_else(|| wrong("string"))?;
                        &cast
                    }
                };
                let json = JSON_COLUMNS.contains(&name);
                for (i, o) in out.iter_mut().enumerate() {
                    if a.is_null(i) {
                        if name == "id" {
                            o.insert("id".into(), Value::Null);
                        }
                        continue;
                    }
                    let v = if json {
                        serde_json::from_str(a.value(i))
                            .map_err(|e| parquet_error(path, &format!("column `{name}` has a cell that is not JSON ({e}) in"), "row"))?
                    } else {
                        Value::String(a.value(i).to_owned())
                    };
                    o.insert(name.to_owned(), v);
                }
            } else {
                let a = col.as_any().downcast_ref::<Float64Array>().ok_or_else(|| wrong("float64 (a score column)"))?;
                for (i, s) in scores.iter_mut().enumerate() {
                    let v = if a.is_valid(i) { serde_json::Number::from_f64(a.value(i)).map_or(Value::Null, Value::Number) } else { Value::Null };
                    s.insert(name.to_owned(), v);
                }
            }
        }
        for (mut o, s) in out.into_iter().zip(scores) {
            // A skipped row (an unreadable record) has no scores.
            if !o.contains_key("skipped") || s.values().any(|v| !v.is_null()) {
                o.insert("scores".into(), Value::Object(s));
            }
            f(Value::Object(o))?;
        }
    }
    Ok(provenance)
}

/// A large-string or string-view column as plain strings (what other writers may produce).
fn arrow_cast_utf8(col: &dyn Array) -> Option<StringArray> {
    if let Some(a) = col.as_any().downcast_ref::<arrow_array::LargeStringArray>() {
        return Some(a.iter().collect());
    }
    if let Some(a) = col.as_any().downcast_ref::<arrow_array::StringViewArray>() {
        return Some(a.iter().collect());
    }
    None
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn rows_round_trip_with_nulls_details_and_provenance() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.parquet");
        let rows = vec![
            serde_json::json!({"row": 1, "id": "a", "system": "S", "input_sha256": "00ff", "scores": {"rougeL": 0.25, "fkgl": null},
                "nulls": {"fkgl": "empty summary"}, "details": {"rougeL": {"lcs": 3}}, "run": "abc"}),
            serde_json::json!({"row": 2, "id": "b", "input_sha256": "11ee", "scores": {"rougeL": 0.1_f64.powi(9), "fkgl": -3.5}, "run": "abc"}),
            serde_json::json!({"row": 3, "id": null, "skipped": "bad record", "run": "abc"}),
        ];
        let prov = serde_json::json!({"schema_version": 3, "engine": "factpico test"});
        let mut w = ParquetRows::create(&path, &["rougeL", "fkgl"], &prov).unwrap();
        assert!(!path.exists(), "written under a temporary name until finished");
        w.write(&rows[..1]).unwrap();
        w.write(&rows[1..]).unwrap();
        assert_eq!(w.finish().unwrap(), path);
        let back = read_parquet_rows(&path).unwrap();
        assert_eq!(back.provenance, Some(prov));
        assert_eq!(back.rows, rows);
    }

    #[test]
    fn a_score_column_named_like_the_layout_and_a_non_parquet_file_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.parquet");
        let e = ParquetRows::create(&path, &["run"], &Value::Null).unwrap_err().to_string();
        assert!(e.contains("a score column is named `run`"), "{e}");
        std::fs::write(&path, b"{\"id\": 1}\n").unwrap();
        let e = read_parquet_rows(&path).unwrap_err().to_string();
        assert!(e.contains("cannot read Parquet from"), "{e}");
    }
}
