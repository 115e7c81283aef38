//! Reading score and rating files into rows of named cells.
//!
//! Accepted formats (from the extension, or given explicitly):
//! * **JSONL** (`.jsonl`, `.ndjson`): one JSON object per line. A row with a
//!   `scores` object is a `factpico score` row (`factpico::Report`): its
//!   columns are `scores.*` plus the top-level `id`, `system` and `row`, its
//!   `nulls` reasons are kept, a `skipped` row keeps its id with no scores,
//!   and a row without an id (unreadable input) is counted and dropped. Any
//!   other object is a flat row whose scalar fields are the columns.
//! * **JSON** (`.json`): an array of such objects.
//! * **Parquet** (`.parquet`, feature `parquet`, whatever format is given): a score table
//!   written by `factpico score -o OUT.parquet` (or the Python package's `score_table`),
//!   read as the JSONL rows it holds ([`factpico_io::parquet_rows`]).
//! * **CSV** / **TSV** (`.csv`, `.tsv`): a header line, then one row per record, read
//!   by the same rules as `factpico score`'s input ([`factpico_io::delimited`]): CSV
//!   quoting is RFC 4180 (quoted fields may contain newlines; a quote that is never closed
//!   or is followed by text is an error naming the lines); TSV cells are literal, quotes
//!   included ([`Format::TsvQuoted`] reads CSV-style quoting); a header name used twice is
//!   refused.
//!
//! Numeric cells: JSON numbers, or strings that parse as `f64`. Missing:
//! JSON `null`, and the strings `""`, `NA`, `N/A`, `NaN`, `nan`, `null`,
//! `None` (case-insensitive, trimmed); non-finite numbers are missing too.
//! Anything else in a requested numeric column is an [`Error::NotNumeric`].

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use factpico_io::delimited::{self, lines_text, LineCounter};
use serde_json::Value;

use crate::error::{Error, Result, Side};

/// A table file format: factpico-io's, the one `factpico score` reads too.
pub use factpico_io::Format;

/// One data row.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Row {
    /// 1-based data row number in the file (header excluded), or a factpico row's `row`
    /// field (its record number in the scored input).
    pub row: usize,
    /// Where the row is in this file, for messages: its 1-based line (JSONL, CSV, TSV; the
    /// line where the record starts) or element number (JSON array, see [`Table::place`]).
    pub line: usize,
    /// Column → cell (CSV cells are JSON strings).
    pub cells: BTreeMap<String, Value>,
    /// Column → reason for a documented null (factpico rows only).
    pub nulls: BTreeMap<String, String>,
    /// Why a factpico row was skipped by `factpico score`, when it was.
    pub skipped: Option<String>,
}

/// A loaded score or rating file.
#[derive(Debug, Clone)]
pub struct Table {
    /// The file it was read from.
    pub path: PathBuf,
    /// Which input it is.
    pub side: Side,
    /// Whether its rows are `factpico score` reports.
    pub factpico: bool,
    /// Every column name seen, in first-seen order.
    pub columns: Vec<String>,
    /// The data rows, in file order.
    pub rows: Vec<Row>,
    /// Rows are numbered by JSON-array element, not by line.
    pub elements: bool,
    /// factpico rows dropped because they had no id (unreadable input):
    /// `(row, reason)`.
    pub dropped: Vec<(usize, String)>,
}

const MISSING: &[&str] = &["", "na", "n/a", "nan", "null", "none", "-nan"];

impl Table {
    /// Reads `path` in `format` (or the format of its extension).
    ///
    /// # Errors
    /// [`Error::Io`], [`Error::UnknownFormat`], [`Error::Csv`], [`Error::Json`],
    /// [`Error::Empty`] (no data rows).
    pub fn load(path: &Path, side: Side, format: Option<Format>) -> Result<Table> {
        let mut rows = Vec::new();
        let mut t = Self::stream(path, side, format, &mut |r| {
            rows.push(r);
            Ok(())
        })?;
        t.rows = rows;
        Ok(t)
    }

    /// Reads `path` like [`Table::load`], but hands each data row to `sink` as it is read
    /// instead of keeping it: the returned table has the columns, the dropped rows and the
    /// flags, and no `rows`. JSONL is read line by line and Parquet one record batch at a time
    /// (memory does not grow with the file); a JSON array and a CSV/TSV file are read whole
    /// first (their rows are still handed over one at a time). Errors as [`Table::load`], and any error of `sink`
    /// (which stops the reading).
    ///
    /// # Errors
    /// As [`Table::load`].
    pub fn stream(path: &Path, side: Side, format: Option<Format>, sink: &mut dyn FnMut(Row) -> Result<()>) -> Result<Table> {
        #[cfg(feature = "parquet")]
        if path.extension().is_some_and(|e| e.eq_ignore_ascii_case("parquet")) {
            // One record batch at a time (factpico_io::parquet_rows::for_each_parquet_row): the
            // rows a JSONL copy of the table would hold, one per line.
            enum Step {
                Read(factpico_io::Error),
                Row(Error),
            }
            impl From<factpico_io::Error> for Step {
                fn from(e: factpico_io::Error) -> Self {
                    Step::Read(e)
                }
            }
            let mut t = Self::empty(path, side, Format::Jsonl);
            let mut n = 0;
            let mut i = 0;
            let read = factpico_io::parquet_rows::for_each_parquet_row(path, |r| {
                i += 1;
                let mut counted = |r: Row| {
                    n += 1;
                    sink(r)
                };
                t.push_json(r, i, i, &mut counted).map_err(Step::Row)
            });
            match read {
                Ok(_) => {}
                Err(Step::Row(e)) => return Err(e),
                Err(Step::Read(e)) => {
                    return Err(Error::io(
                        "cannot read",
                        path,
                        std::io::Error::other(format!("{e}: {}", std::error::Error::source(&e).map(ToString::to_string).unwrap_or_default())),
                    ))
                }
            }
            return t.finish(n);
        }
        let format = match format.or_else(|| Format::from_path(path)) {
            Some(f) => f,
            None => return Err(Error::UnknownFormat { path: path.to_owned() }),
        };
        if format == Format::Jsonl {
            let file = std::fs::File::open(path).map_err(|e| Error::io("cannot read", path, e))?;
            return Self::stream_jsonl(std::io::BufReader::with_capacity(1 << 16, file), path, side, sink);
        }
        let text = std::fs::read_to_string(path).map_err(|e| Error::io("cannot read", path, e))?;
        Self::parse_with(&text, path, side, format, sink)
    }

    /// Parses file contents already in memory (`path` is used in messages).
    ///
    /// # Errors
    /// As [`Table::load`], less the I/O errors.
    pub fn parse(text: &str, path: &Path, side: Side, format: Format) -> Result<Table> {
        let mut rows = Vec::new();
        let mut t = Self::parse_with(text, path, side, format, &mut |r| {
            rows.push(r);
            Ok(())
        })?;
        t.rows = rows;
        Ok(t)
    }

    fn empty(path: &Path, side: Side, format: Format) -> Table {
        Table {
            elements: format == Format::Json,
            path: path.to_owned(),
            side,
            factpico: false,
            columns: Vec::new(),
            rows: Vec::new(),
            dropped: Vec::new(),
        }
    }

    /// [`Error::Empty`] when neither a row (`n` handed over) nor a dropped row was read.
    fn finish(self, n: usize) -> Result<Table> {
        if n == 0 && self.dropped.is_empty() {
            return Err(Error::Empty { path: self.path });
        }
        Ok(self)
    }

    /// JSONL from a reader, one line at a time (line numbers 1-based; blank lines skipped).
    fn stream_jsonl(mut reader: impl std::io::BufRead, path: &Path, side: Side, sink: &mut dyn FnMut(Row) -> Result<()>) -> Result<Table> {
        let mut t = Self::empty(path, side, Format::Jsonl);
        let (mut n, mut handed) = (0, 0);
        let mut counted = |r: Row| {
            handed += 1;
            sink(r)
        };
        let mut buf = String::new();
        for i in 1.. {
            buf.clear();
            if reader.read_line(&mut buf).map_err(|e| Error::io("cannot read", path, e))? == 0 {
                break;
            }
            let line = buf.strip_suffix('\n').map_or(buf.as_str(), |l| l.strip_suffix('\r').unwrap_or(l));
            if line.trim().is_empty() {
                continue;
            }
            let v: Value = serde_json::from_str(line).map_err(|e| Error::Json {
                path: path.to_owned(),
                line: i,
                message: e.to_string(),
            })?;
            n += 1;
            t.push_json(v, n, i, &mut counted)?;
        }
        t.finish(handed)
    }

    fn parse_with(text: &str, path: &Path, side: Side, format: Format, sink: &mut dyn FnMut(Row) -> Result<()>) -> Result<Table> {
        if format == Format::Jsonl {
            return Self::stream_jsonl(text.as_bytes(), path, side, sink);
        }
        let mut t = Self::empty(path, side, format);
        let mut n = 0;
        let mut counted = |r: Row| {
            n += 1;
            sink(r)
        };
        match format {
            Format::Csv => t.read_delimited(text, b',', true, &mut counted)?,
            Format::Tsv => t.read_delimited(text, b'\t', false, &mut counted)?,
            Format::TsvQuoted => t.read_delimited(text, b'\t', true, &mut counted)?,
            Format::Jsonl => {} // read above, line by line
            Format::Json => {
                let v: Value = serde_json::from_str(text).map_err(|e| Error::Json {
                    path: path.to_owned(),
                    line: e.line(),
                    message: e.to_string(),
                })?;
                let Value::Array(items) = v else {
                    return Err(Error::Json {
                        path: path.to_owned(),
                        line: 0,
                        message: "expected a JSON array of objects".into(),
                    });
                };
                for (i, item) in items.into_iter().enumerate() {
                    t.push_json(item, i + 1, 0, &mut counted)?;
                }
            }
        }
        t.finish(n)
    }

    fn see(&mut self, col: &str) {
        if !self.columns.iter().any(|c| c == col) {
            self.columns.push(col.to_owned());
        }
    }

    /// CSV / TSV rows, read by the rules of `factpico score`'s input
    /// ([`factpico_io::delimited`]): `quoting` off reads TSV cells literally; a quote never
    /// closed, text after a closing quote and a repeated header name are errors naming the
    /// lines or columns.
    fn read_delimited(&mut self, text: &str, delimiter: u8, quoting: bool, sink: &mut dyn FnMut(Row) -> Result<()>) -> Result<()> {
        let path = self.path.clone();
        let err = |message: String| Error::Csv { path: path.clone(), message };
        let mut rdr = csv::ReaderBuilder::new()
            .delimiter(delimiter)
            .quoting(quoting)
            .flexible(false)
            .from_reader(text.as_bytes());
        let headers: Vec<String> =
            rdr.headers().map_err(|e| err(e.to_string()))?.iter().map(|h| h.trim().to_owned()).collect();
        for (i, h) in headers.iter().enumerate() {
            let at: Vec<usize> = headers.iter().enumerate().filter(|(_, g)| *g == h).map(|(j, _)| j + 1).collect();
            if at.len() > 1 && at[0] == i + 1 {
                return Err(err(delimited::duplicate_column(h, &at)));
            }
        }
        for h in &headers {
            self.see(h);
        }
        let bytes = text.as_bytes();
        let offset = |p: &csv::Position| usize::try_from(p.byte()).unwrap_or(usize::MAX).min(bytes.len());
        let mut lines = LineCounter::new();
        let mut start = offset(rdr.position());
        for &b in &bytes[..start] {
            lines.push(b);
        }
        let hint = if delimiter == b'\t' { ", or read the file's quotes literally (format tsv)" } else { "" };
        let mut rec = csv::StringRecord::new();
        for n in 1u64.. {
            let res = rdr.read_record(&mut rec);
            let end = offset(rdr.position());
            let raw = &bytes[start..end.max(start)];
            start = end.max(start);
            if matches!(res, Ok(false)) {
                break;
            }
            let (first, last, problem) = delimited::scan_record(raw, delimiter, quoting, &mut lines);
            let at = lines_text(first, last);
            if let Some(p) = problem {
                return Err(err(p.describe(n, &at, hint)));
            }
            if let Err(e) = res {
                let literal = if !quoting && raw.contains(&b'"') {
                    " (TSV cells are read literally; if this file quotes its cells CSV-style, as pandas' \
                     to_csv(sep='\\t') does, set `ratings_format` / `scores_format` to tsv_quoted)"
                } else {
                    ""
                };
                let what = match e.kind() {
                    csv::ErrorKind::UnequalLengths { expected_len, len, .. } => {
                        format!("found {len} fields, but the header has {expected_len}")
                    }
                    _ => e.to_string(),
                };
                return Err(err(format!("record {n} ({at}): {what}{literal}")));
            }
            let cells = headers.iter().zip(rec.iter()).map(|(h, v)| (h.clone(), Value::String(v.to_owned()))).collect();
            let row = usize::try_from(n).unwrap_or(usize::MAX);
            sink(Row { row, line: usize::try_from(first).unwrap_or(usize::MAX), cells, ..Row::default() })?;
        }
        Ok(())
    }

    fn push_json(&mut self, v: Value, row: usize, line: usize, sink: &mut dyn FnMut(Row) -> Result<()>) -> Result<()> {
        let Value::Object(obj) = v else {
            return Err(Error::Json {
                path: self.path.clone(),
                line,
                message: format!("row {row}: expected a JSON object"),
            });
        };
        let mut r = Row { row, line: if line == 0 { row } else { line }, ..Row::default() };
        if let Some(Value::Object(scores)) = obj.get("scores") {
            self.factpico = true;
            for key in ["row", "id", "system"] {
                if let Some(v) = obj.get(key) {
                    self.see(key);
                    r.cells.insert(key.to_owned(), v.clone());
                }
            }
            for (k, v) in scores {
                self.see(k);
                r.cells.insert(k.clone(), v.clone());
            }
            if let Some(Value::Object(nulls)) = obj.get("nulls") {
                for (k, why) in nulls {
                    r.nulls.insert(k.clone(), why.as_str().map_or_else(|| why.to_string(), str::to_owned));
                }
            }
            r.skipped = obj.get("skipped").and_then(Value::as_str).map(str::to_owned);
            if let Some(Value::Number(n)) = obj.get("row") {
                r.row = n.as_u64().and_then(|n| usize::try_from(n).ok()).unwrap_or(row);
            }
            if obj.get("id").is_none_or(Value::is_null) {
                let why = r.skipped.clone().unwrap_or_else(|| "row has no id".into());
                self.dropped.push((r.row, why));
                return Ok(());
            }
        } else {
            for (k, v) in obj {
                if !(v.is_object() || v.is_array()) {
                    self.see(&k);
                    r.cells.insert(k, v);
                }
            }
        }
        sink(r)
    }

    /// Names the places of two rows in this file for messages: `lines 3 and 17` (JSONL, CSV,
    /// TSV) or `elements 3 and 17` (JSON array).
    pub fn place(&self, a: &Row, b: &Row) -> String {
        let unit = if self.elements { "elements" } else { "lines" };
        format!("{unit} {} and {}", a.line, b.line)
    }

    /// True when the column occurs in the file.
    pub fn has_column(&self, col: &str) -> bool {
        self.columns.iter().any(|c| c == col)
    }

    /// True when the column occurs and at least one row has a non-empty, non-null cell in it
    /// (e.g. the `system` column of a `factpico score --csv` file without systems is all empty).
    pub fn has_values(&self, col: &str) -> bool {
        self.has_column(col)
            && self.rows.iter().any(|r| match r.cells.get(col) {
                None | Some(Value::Null) => false,
                Some(Value::String(s)) => !s.trim().is_empty(),
                Some(_) => true,
            })
    }

    /// [`Error::MissingColumn`] unless the column occurs in the file.
    ///
    /// # Errors
    /// [`Error::MissingColumn`].
    pub fn require_column(&self, col: &str) -> Result<()> {
        if self.has_column(col) {
            return Ok(());
        }
        Err(Error::MissingColumn {
            side: self.side,
            path: self.path.clone(),
            column: col.to_owned(),
            available: self.columns.join(", "),
        })
    }

    /// The cell of `row` in `col` as a key string (ids, systems): strings as
    /// they are (trimmed), integers and other numbers in their JSON text,
    /// `None` for a missing cell, JSON null or an empty string.
    pub fn key_cell(row: &Row, col: &str) -> Option<String> {
        key_value(row.cells.get(col))
    }

    /// The cell of `row` in `col` as a number; `Ok(None)` when missing (see
    /// the module docs for what counts as missing).
    ///
    /// # Errors
    /// [`Error::NotNumeric`].
    pub fn numeric_cell(&self, row: &Row, col: &str) -> Result<Option<f64>> {
        numeric_value(row.cells.get(col)).map_err(|raw| self.not_numeric(row.row, col, &raw))
    }

    /// The [`Error::NotNumeric`] of the cell `value` of data row `row` in `col`.
    pub(crate) fn not_numeric(&self, row: usize, col: &str, value: &str) -> Error {
        Error::NotNumeric {
            side: self.side,
            path: self.path.clone(),
            row,
            column: col.to_owned(),
            value: value.chars().take(40).collect(),
        }
    }
}

/// A cell as a number: `Ok(None)` when missing (see the module docs), `Err(text)` with the
/// cell's text when it is not a finite number.
pub(crate) fn numeric_value(cell: Option<&Value>) -> std::result::Result<Option<f64>, String> {
    let v = match cell {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::Number(n)) => n.as_f64(),
        Some(Value::String(s)) => {
            let t = s.trim();
            if MISSING.iter().any(|m| t.eq_ignore_ascii_case(m)) {
                return Ok(None);
            }
            match t.parse::<f64>() {
                // NaN spellings are missing markers (above); an infinity is an error
                Ok(v) if v.is_finite() => Some(v),
                _ => return Err(s.clone()),
            }
        }
        Some(other) => return Err(other.to_string()),
    };
    Ok(v.filter(|v| v.is_finite()))
}

/// The key text of a cell (ids, systems), as [`Table::key_cell`] reads it.
pub(crate) fn key_value(cell: Option<&Value>) -> Option<String> {
    match cell? {
        Value::Null => None,
        Value::String(s) => {
            let s = s.trim();
            (!s.is_empty()).then(|| s.to_owned())
        }
        other => Some(other.to_string()),
    }
}
#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;

    fn parse(text: &str, f: Format) -> Table {
        Table::parse(text, Path::new("t"), Side::Scores, f).unwrap()
    }

    #[test]
    fn csv_missing_markers_and_numbers() {
        let t = parse("id,a\nx,1.5\ny,NA\nz,\nw, nan \n", Format::Csv);
        let vals: Vec<Option<f64>> = t.rows.iter().map(|r| t.numeric_cell(r, "a").unwrap()).collect();
        assert_eq!(vals, vec![Some(1.5), None, None, None]);
        // an infinite rating is not a missing value: it is refused, naming the cell
        for inf in ["inf", "-inf", "Infinity", "+INF"] {
            let t = parse(&format!("id,a\nv,{inf}\n"), Format::Csv);
            let e = t.numeric_cell(&t.rows[0], "a").unwrap_err().to_string();
            assert!(e.contains(&format!("row 1, column `a`: `{inf}` is not a finite number")), "{e}");
        }
        let bad = parse("id,a\nx,abc\n", Format::Csv);
        let e = bad.numeric_cell(&bad.rows[0], "a").unwrap_err();
        assert!(e.to_string().contains("row 1, column `a`: `abc` is not a finite number"), "{e}");
    }

    #[test]
    fn factpico_rows_are_flattened_and_unreadable_rows_dropped() {
        let text = r#"{"row":1,"id":"a","system":"S","scores":{"rougeL":0.5,"fkgl_summary":null},"nulls":{"fkgl_summary":"empty summary"},"provenance":{}}
{"row":2,"id":null,"skipped":"bad json","scores":{}}
{"row":3,"id":7,"scores":{"rougeL":0.25}}"#;
        let t = parse(text, Format::Jsonl);
        assert!(t.factpico);
        assert_eq!(t.rows.len(), 2);
        assert_eq!(t.dropped, vec![(2, "bad json".to_owned())]);
        assert_eq!(Table::key_cell(&t.rows[1], "id").as_deref(), Some("7"));
        assert_eq!(Table::key_cell(&t.rows[0], "system").as_deref(), Some("S"));
        assert_eq!(t.numeric_cell(&t.rows[0], "fkgl_summary").unwrap(), None);
        assert_eq!(t.rows[0].nulls["fkgl_summary"], "empty summary");
        assert!(t.has_column("rougeL") && !t.has_column("provenance"));
        assert!(t.require_column("alignscore").unwrap_err().to_string().contains("available: row, id, system, fkgl_summary, rougeL"));
    }

    #[test]
    fn formats_from_extensions_and_errors() {
        assert_eq!(Format::from_path(Path::new("a/b.JSONL")), Some(Format::Jsonl));
        assert_eq!(Format::from_path(Path::new("a.tsv")), Some(Format::Tsv));
        assert_eq!(Format::from_path(Path::new("a.txt")), None);
        assert!(matches!(Table::parse("", Path::new("e.csv"), Side::Ratings, Format::Csv), Err(Error::Empty { .. })));
        let e = Table::parse("{\"id\":1}\n[1]\n", Path::new("x.jsonl"), Side::Ratings, Format::Jsonl).unwrap_err();
        assert!(e.to_string().starts_with("x.jsonl:2:"), "{e}");
        let t = parse("[{\"id\":\"a\",\"h\":\"4\",\"nested\":{\"k\":1}}]", Format::Json);
        assert_eq!(t.numeric_cell(&t.rows[0], "h").unwrap(), Some(4.0));
        assert!(!t.has_column("nested"));
    }
}
