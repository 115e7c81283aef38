//! Streaming readers for the input formats of `factpico score`: JSON lines,
//! JSON array, CSV and TSV, with configurable field names and id derivation.
//!
//! Every record becomes either an [`InputRow`] or a [`RowError`] that names the
//! record number, the line (where the format has one) and the field. Nothing is
//! loaded whole: JSONL and CSV are read record by record, a JSON array is parsed
//! element by element on a reader thread through a bounded channel. A file that is not of its
//! format at all (a JSON array or a pretty-printed document named `.jsonl`, JSON lines with CR
//! line ends, one object named `.json`) is refused by [`open`], before any record is read.

mod json_record;

use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::sync::mpsc;

use anyhow::{bail, Context, Result};
use factpico_io::delimited::{self, lines_text, scan_record, LineCounter};
use sha2::Digest;

/// Input file format: factpico-io's, shared with `factpico meta-eval`. `tsv-quoted` is TSV
/// with `--tsv-quotes` (recorded so in the provenance).
pub use factpico_io::Format;


/// The input options shared by `factpico score` and `factpico report` (which re-reads the
/// scored input with the same options): format, field names and side-input fields.
#[derive(Debug, Clone, clap::Args)]
pub struct InputArgs {
    /// Input format (default: from the file extension).
    #[arg(long, value_enum)]
    pub format: Option<Format>,
    /// TSV: parse CSV-style double quotes (quoted fields may hold tabs and line breaks, `""` is
    /// a quote). Without it TSV fields are taken literally, quotes included.
    #[arg(long)]
    pub tsv_quotes: bool,
    /// CSV: the character that separates fields (default `,`), e.g. `--delimiter ';'` for the
    /// CSV that Excel writes in locales with a decimal comma. One ASCII character other than a
    /// quote or a line break (`tab` or `\t` for a tab).
    #[arg(long, value_name = "CHAR", value_parser = parse_delimiter)]
    pub delimiter: Option<u8>,
    /// Field holding the row id. When absent from the input, ids are derived
    /// (--id-from) or `row-<n>`.
    #[arg(long)]
    pub id_field: Option<String>,
    /// Field holding the abstract.
    #[arg(long, default_value = "source")]
    pub source_field: String,
    /// Field holding the plain-language summary.
    #[arg(long, default_value = "summary")]
    pub summary_field: String,
    /// Field holding the generating system (optional in the data).
    #[arg(long, default_value = "system")]
    pub system_field: String,
    /// Derive ids from sha256 of this field (instead of any id field of the data)
    /// (e.g. `--id-from source --id-prefix sh_ --id-hex 12` matches shaib2023's doc_id).
    #[arg(long, conflicts_with = "id_field")]
    pub id_from: Option<String>,
    /// Prefix of derived ids.
    #[arg(long, default_value = "", requires = "id_from")]
    pub id_prefix: String,
    /// Hex digits of sha256 kept in derived ids (1-64).
    #[arg(long, default_value_t = 12, value_parser = clap::value_parser!(u8).range(1..=64), requires = "id_from")]
    pub id_hex: u8,
    /// Read a metric's per-row side input NAME from input field FIELD (repeatable; default:
    /// the field called NAME). `factpico metrics` lists each metric's inputs.
    #[arg(long = "input-field", value_name = "NAME=FIELD", value_parser = parse_input_field)]
    pub input_fields: Vec<(String, String)>,
    /// LLM metrics: input field holding the row's evidence spans (default: `evidence`); the
    /// same as --input-field evidence=FIELD, which wins when both are given.
    #[arg(long, value_name = "FIELD")]
    pub evidence_field: Option<String>,
}

/// The per-row side input `--evidence-field` names (the LLM evaluators' gold spans).
pub const EVIDENCE_INPUT: &str = "evidence";

fn parse_input_field(s: &str) -> std::result::Result<(String, String), String> {
    match s.split_once('=') {
        Some((name, field)) if !name.trim().is_empty() && !field.trim().is_empty() => {
            Ok((name.trim().to_owned(), field.trim().to_owned()))
        }
        _ => Err(format!("expected NAME=FIELD (e.g. evidence=spans), got {s:?}")),
    }
}

/// A `--delimiter` value: one ASCII character other than a quote or a line break (`tab` or
/// `\t` for a tab).
pub fn parse_delimiter(s: &str) -> std::result::Result<u8, String> {
    let b = match s {
        "tab" | "\\t" => b'\t',
        _ => match s.as_bytes() {
            [b] if b.is_ascii() => *b,
            _ => return Err(format!("expected one ASCII character (e.g. ';' or tab), got {s:?}")),
        },
    };
    if matches!(b, b'"' | b'\n' | b'\r') {
        return Err(format!("{s:?} cannot separate fields (quotes and line breaks have their own meaning)"));
    }
    Ok(b)
}

impl InputArgs {
    /// The input field given for the per-row side input `name`: the last
    /// `--input-field NAME=FIELD`, else `--evidence-field` for `evidence`; `None` = not given
    /// (the field called `name`).
    pub fn side_field(&self, name: &str) -> Option<String> {
        self.input_fields
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, f)| f.clone())
            .or_else(|| self.evidence_field.clone().filter(|_| name == EVIDENCE_INPUT))
    }

    /// The input fields of the per-row side inputs `names` (each [`InputArgs::side_field`],
    /// else the field of the same name). `readers` words the error for an `--input-field`
    /// naming an input outside `names`: who does not read it, and the label of the list of
    /// what they read (`("no selected metric reads", "selected metrics read")`).
    ///
    /// # Errors
    /// An `--input-field NAME=...` whose NAME is not in `names`.
    pub fn extra_fields(&self, names: &[&str], readers: (&str, &str)) -> Result<Vec<ExtraField>> {
        for (name, _) in &self.input_fields {
            if !names.contains(&name.as_str()) {
                bail!(
                    "--input-field {name}=...: {} a per-row input `{name}` ({}: {})",
                    readers.0,
                    readers.1,
                    if names.is_empty() { "none".to_owned() } else { names.join(", ") }
                );
            }
        }
        Ok(names
            .iter()
            .map(|n| {
                let given = self.side_field(n);
                ExtraField { name: (*n).to_owned(), explicit: given.is_some(), field: given.unwrap_or_else(|| (*n).to_owned()) }
            })
            .collect())
    }

    /// The field mapping these options describe, reading the per-row side inputs `extras`.
    pub fn field_map(&self, extras: Vec<ExtraField>) -> FieldMap {
        FieldMap {
            id: self.id_field.clone().unwrap_or_else(|| "id".into()),
            id_explicit: self.id_field.is_some(),
            source: self.source_field.clone(),
            summary: self.summary_field.clone(),
            system: self.system_field.clone(),
            derive_id: self.id_from.as_ref().map(|f| DeriveId {
                field: f.clone(),
                prefix: self.id_prefix.clone(),
                hex_len: usize::from(self.id_hex),
            }),
            tsv_quotes: self.tsv_quotes || self.format == Some(Format::TsvQuoted),
            // `,` is CSV's own: recorded as no delimiter (the provenance of a run without it).
            delimiter: self.delimiter.filter(|&d| d != b','),
            extras,
        }
    }

    /// `--format`, else the format of `input`'s extension.
    ///
    /// # Errors
    /// Neither tells the format (a compressed file's extension, `.gz`, `.zip`, ..., is named
    /// as compressed).
    pub fn format_of(&self, input: &Path) -> Result<Format> {
        // `tsv-quoted` is TSV read with quotes (`field_map` sets them): recorded as `tsv` with
        // `tsv_quotes`, as --tsv-quotes has always been.
        let format = self.format.map(|f| if f == Format::TsvQuoted { Format::Tsv } else { f });
        match format.or_else(|| Format::from_path(input)) {
            Some(f) if f != Format::Csv && self.delimiter.is_some() => {
                let tsv = if f == Format::Tsv { " (TSV is separated by tabs; pass --format csv to read it as CSV)" } else { "" };
                bail!("--delimiter applies to CSV input, but {} is read as {}{tsv}", input.display(), f.name())
            }
            Some(f) => Ok(f),
            None => {
                let ext = input.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase);
                if let Some(kind) = ext.as_deref().and_then(compressed_extension) {
                    bail!("input {} is compressed ({kind}); {}", input.display(), DECOMPRESS);
                }
                bail!("cannot tell the format of {} from its extension; pass --format jsonl|json|csv|tsv", input.display())
            }
        }
    }

    /// Checks that the field options can describe a scoring: the source and the summary are
    /// different fields (the same field would score each text against itself).
    ///
    /// # Errors
    /// `--source-field` and `--summary-field` name the same field.
    pub fn check(&self) -> Result<()> {
        if self.source_field == self.summary_field {
            bail!(
                "--source-field and --summary-field name the same field `{}`: each text would be scored against itself; give the abstract's and the summary's fields",
                self.source_field
            );
        }
        Ok(())
    }
}


pub use factpico::input_sha256;

/// `provenance.input` of output schema 2: how the rows were read, so that a report can
/// re-read the input and `--resume` can refuse a different reading:
/// `{"format", "tsv_quotes", ["delimiter",] "fields": {"id", "source", "summary", "system", "<side input>"...},
/// "derive_id": {"field", "prefix", "hex_len"} | null, "side_inputs": {"<option>": {"path",
/// "sha256"}}}`. `fields` maps each name to its input field, including the metrics' per-row
/// side inputs ([`FieldMap::extras`], e.g. `"evidence": "spans"`); `fields.id` is null when
/// ids are derived; `delimiter` (CSV, one character) only when `--delimiter` gave one other
/// than `,`. Side inputs are the files (not directories) the
/// options name, e.g. `--arcs`; their full sha256 enters the resume fingerprint.
///
/// # Errors
/// A side input cannot be read.
pub fn input_provenance(
    format: Format,
    fields: &FieldMap,
    side_inputs: &[(String, std::path::PathBuf)],
) -> Result<factpico::InputProvenance> {
    let mut side = std::collections::BTreeMap::new();
    for (name, path) in side_inputs {
        if !std::fs::metadata(path).is_ok_and(|m| m.is_file()) {
            continue;
        }
        let mut h = sha2::Sha256::new();
        let mut f = File::open(path).with_context(|| format!("cannot read {}", path.display()))?;
        std::io::copy(&mut f, &mut h).with_context(|| format!("cannot read {}", path.display()))?;
        side.insert(
            name.clone(),
            factpico::SideInput { path: path.display().to_string(), sha256: hex::encode(h.finalize()) },
        );
    }
    let mut field_names = std::collections::BTreeMap::new();
    let id = if fields.derive_id.is_some() { None } else { Some(fields.id.clone()) };
    field_names.insert("id".to_owned(), id);
    field_names.insert("source".to_owned(), Some(fields.source.clone()));
    field_names.insert("summary".to_owned(), Some(fields.summary.clone()));
    field_names.insert("system".to_owned(), Some(fields.system.clone()));
    // The metrics' per-row side inputs (`--input-field NAME=FIELD`): name -> field.
    for x in &fields.extras {
        field_names.entry(x.name.clone()).or_insert_with(|| Some(x.field.clone()));
    }
    Ok(factpico::InputProvenance {
        // Recorded only when given, so that the provenance of a run without it is unchanged.
        delimiter: fields.delimiter.map(|d| char::from(d).to_string()),
        derive_id: fields.derive_id.as_ref().map(|d| factpico::DeriveIdProvenance {
            field: d.field.clone(),
            hex_len: d.hex_len as u64,
            prefix: d.prefix.clone(),
        }),
        fields: field_names,
        format: format.name().to_owned(),
        side_inputs: side,
        tsv_quotes: fields.tsv_quotes,
    })
}

/// How the id of a row is derived when the input has no id field:
/// `prefix + first hex_len hex digits of sha256(field value as UTF-8)`.
#[derive(Debug, Clone)]
pub struct DeriveId {
    /// Field whose value is hashed (e.g. `source`).
    pub field: String,
    /// Prefix put before the hex digits (e.g. `sh_`).
    pub prefix: String,
    /// Number of hex digits kept (1..=64).
    pub hex_len: usize,
}

/// A per-row side input read from the input (declared by a selected metric, e.g. `evidence`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExtraField {
    /// The input's name (key in the row's extras map).
    pub name: String,
    /// The input field holding it.
    pub field: String,
    /// Named on the command line: a CSV/TSV header without it is an error (otherwise rows
    /// simply have no such input and the metric gives its documented null).
    pub explicit: bool,
}

/// Field names of the input records.
#[derive(Debug, Clone)]
pub struct FieldMap {
    /// Id field (default `id`).
    pub id: String,
    /// Whether the id field was given explicitly (then a missing id is an error,
    /// else rows without it get `row-<n>` or a derived id).
    pub id_explicit: bool,
    /// Source (abstract) field, default `source`.
    pub source: String,
    /// Summary field, default `summary`.
    pub summary: String,
    /// Optional system field, default `system` (absent values are fine).
    pub system: String,
    /// Id derivation, used when the id field is absent.
    pub derive_id: Option<DeriveId>,
    /// TSV only: parse CSV-style double quotes (`"a\tb"`, `""` for a quote). Off by
    /// default: TSV fields are taken literally, quotes included (IANA text/tab-separated-values
    /// has no quoting: fields hold no tabs or line breaks).
    pub tsv_quotes: bool,
    /// CSV only: the field separator when not `,` (`--delimiter`).
    pub delimiter: Option<u8>,
    /// Per-row side inputs to read (absent or null values are left out of the row's extras).
    pub extras: Vec<ExtraField>,
}

/// One readable input record.
#[derive(Debug, Clone)]
pub struct InputRow {
    /// 1-based record number.
    pub row: u64,
    /// Row id.
    pub id: String,
    /// System, if any.
    pub system: Option<String>,
    /// Abstract text.
    pub source: String,
    /// Summary text.
    pub summary: String,
    /// Per-row side inputs ([`FieldMap::extras`]) present in the record: name → JSON value
    /// (a CSV/TSV cell is a string).
    pub extras: factpico::Extras,
}

/// A record that could not be read.
#[derive(Debug, Clone)]
pub struct RowError {
    /// 1-based record number.
    pub row: u64,
    /// The id, when it could be read.
    pub id: Option<String>,
    /// Message naming the line/record and field.
    pub message: String,
    /// The rest of the input cannot be read after this record (a JSON-array syntax error, a
    /// CSV quote never closed, an I/O error): the run cannot complete, whatever `--on-error`.
    pub fatal: bool,
}

impl RowError {
    /// An error of one record; the records after it can still be read.
    pub fn new(row: u64, id: Option<String>, message: String) -> Self {
        Self { row, id, message, fatal: false }
    }

    /// An error after which the rest of the input cannot be read ([`RowError::fatal`]).
    pub fn fatal(row: u64, message: String) -> Self {
        Self { row, id: None, message, fatal: true }
    }
}

/// A record: readable or not.
pub type Record = std::result::Result<InputRow, RowError>;

/// Opens `path` and returns an iterator of records.
///
/// # Errors
/// The file cannot be opened, or (CSV/TSV) the header lacks a configured field
/// or cannot be read.
pub fn open(path: &Path, format: Format, fields: &FieldMap) -> Result<Box<dyn Iterator<Item = Record> + Send>> {
    let raw: Box<dyn Read + Send> = if path == Path::new("-") {
        Box::new(std::io::stdin())
    } else {
        if std::fs::metadata(path).is_ok_and(|m| m.is_dir()) {
            bail!("input {} is a directory; give a file", path.display());
        }
        // A compressed or UTF-16 file is named before any record is read.
        let mut head = Vec::with_capacity(4);
        File::open(path)
            .and_then(|f| f.take(4).read_to_end(&mut head))
            .with_context(|| format!("cannot open input file {}", path.display()))?;
        if let Some(why) = sniff(&head) {
            bail!("input {} {why}", path.display());
        }
        Box::new(File::open(path).with_context(|| format!("cannot open input file {}", path.display()))?)
    };
    from_reader(raw, format, fields)
}

/// The records of `raw` (the bytes of a file in `format`), as [`open`] reads a file.
///
/// # Errors
/// (CSV/TSV) the header lacks a configured field or cannot be read.
pub fn from_reader(
    raw: Box<dyn Read + Send>,
    format: Format,
    fields: &FieldMap,
) -> Result<Box<dyn Iterator<Item = Record> + Send>> {
    let reader = BufReader::with_capacity(1 << 16, SkipBom { inner: raw, checked: false, pending: Vec::new() });
    Ok(match format {
        Format::Jsonl => Box::new(JsonlReader::new(reader, fields.clone())?),
        Format::Json => Box::new(json_array(reader, fields.clone())?),
        Format::Csv => Box::new(DelimitedReader::new(reader, fields.delimiter.unwrap_or(b','), true, fields)?),
        Format::Tsv => Box::new(DelimitedReader::new(reader, b'\t', fields.tsv_quotes, fields)?),
        Format::TsvQuoted => Box::new(DelimitedReader::new(reader, b'\t', true, fields)?),
    })
}

/// Counts the records of a JSONL file cheaply (non-blank lines), for the progress bar.
pub fn count_jsonl_records(path: &Path) -> Option<u64> {
    let mut reader = BufReader::with_capacity(1 << 16, File::open(path).ok()?);
    let mut n = 0u64;
    let mut buf = Vec::new();
    loop {
        buf.clear();
        match reader.read_until(b'\n', &mut buf) {
            Ok(0) => return Some(n),
            Ok(_) => {
                if buf.iter().any(|b| !b.is_ascii_whitespace()) {
                    n += 1;
                }
            }
            Err(_) => return None,
        }
    }
}

/// What to do with a compressed input.
const DECOMPRESS: &str = "factpico reads uncompressed JSONL, JSON, CSV or TSV: decompress it first (e.g. `gunzip -k FILE`), or pipe it (`gunzip -c FILE | factpico score - --format jsonl`)";

/// The compression a file extension names (`gz` → gzip, ...).
fn compressed_extension(ext: &str) -> Option<&'static str> {
    match ext {
        "gz" | "gzip" | "tgz" => Some("gzip"),
        "bz2" => Some("bzip2"),
        "xz" => Some("xz"),
        "zst" => Some("zstd"),
        "zip" => Some("zip"),
        _ => None,
    }
}

/// What the first bytes of an input say that makes it unreadable as UTF-8 text: a compressed
/// file (gzip, bzip2, xz, zstd, zip magic numbers) or UTF-16 (a byte-order mark, or ASCII
/// text interleaved with zero bytes). `None` for anything else.
fn sniff(head: &[u8]) -> Option<String> {
    let compressed = |kind: &str| Some(format!("is compressed ({kind}); {DECOMPRESS}"));
    let utf16 = |order: &str| {
        Some(format!(
            "is UTF-16 ({order}); factpico reads UTF-8: convert it first (e.g. `iconv -f UTF-16 -t UTF-8 FILE > FILE.utf8`)"
        ))
    };
    match head {
        [0x1f, 0x8b, ..] => compressed("gzip"),
        [b'B', b'Z', b'h', ..] => compressed("bzip2"),
        [0xfd, b'7', b'z', b'X', ..] => compressed("xz"),
        [0x28, 0xb5, 0x2f, 0xfd, ..] => compressed("zstd"),
        [b'P', b'K', 0x03, 0x04, ..] => compressed("zip"),
        [0xff, 0xfe, ..] => utf16("little-endian, with a byte-order mark"),
        [0xfe, 0xff, ..] => utf16("big-endian, with a byte-order mark"),
        [a, 0, b, 0, ..] if *a != 0 && *b != 0 => utf16("little-endian"),
        [0, a, 0, b, ..] if *a != 0 && *b != 0 => utf16("big-endian"),
        _ => None,
    }
}

/// A reader that drops a leading UTF-8 byte-order mark, and refuses input whose first bytes
/// are a compressed file or UTF-16 ([`sniff`]) with an error naming it.
struct SkipBom<R> {
    inner: R,
    checked: bool,
    pending: Vec<u8>,
}

impl<R: Read> Read for SkipBom<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if !self.checked {
            self.checked = true;
            let mut head = [0u8; 4];
            let mut n = 0;
            while n < 4 {
                let k = self.inner.read(&mut head[n..])?;
                if k == 0 {
                    break;
                }
                n += k;
            }
            if let Some(why) = sniff(&head[..n]) {
                return Err(std::io::Error::new(std::io::ErrorKind::InvalidData, format!("the input {why}")));
            }
            let start = if head[..n.min(3)] == [0xEF, 0xBB, 0xBF] { 3 } else { 0 };
            self.pending = head[start..n].to_vec();
        }
        if !self.pending.is_empty() {
            let k = self.pending.len().min(buf.len());
            buf[..k].copy_from_slice(&self.pending[..k]);
            self.pending.drain(..k);
            return Ok(k);
        }
        self.inner.read(buf)
    }
}

fn derive(d: &DeriveId, value: &str) -> String {
    let hex = hex::encode(sha2::Sha256::digest(value.as_bytes()));
    format!("{}{}", d.prefix, &hex[..d.hex_len.min(64)])
}

fn type_name(v: &serde_json::Value) -> &'static str {
    match v {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "boolean",
        serde_json::Value::Number(_) => "number",
        serde_json::Value::String(_) => "string",
        serde_json::Value::Array(_) => "array",
        serde_json::Value::Object(_) => "object",
    }
}

/// Extracts the fields of one JSON record. `where_` is e.g. "line 7" or "element 3".
fn from_json(value: serde_json::Value, row: u64, where_: &str, fields: &FieldMap) -> Record {
    let err = |id: Option<String>, message: String| RowError::new(row, id, format!("{where_}: {message}"));
    let serde_json::Value::Object(obj) = value else {
        return Err(err(None, format!("expected a JSON object, got {}", type_name(&value))));
    };
    let keys = || obj.keys().map(String::as_str).collect::<Vec<_>>().join(", ");
    let get_str = |name: &str, required: bool| -> std::result::Result<Option<String>, String> {
        match obj.get(name) {
            None if required => Err(format!("missing field `{name}` (fields present: {})", keys())),
            None => Ok(None),
            Some(serde_json::Value::String(s)) => Ok(Some(s.clone())),
            Some(serde_json::Value::Number(n)) if name == fields.id || name == fields.system => {
                if n.is_i64() || n.is_u64() {
                    Ok(Some(n.to_string()))
                } else {
                    Err(format!("field `{name}` must be a string or an integer, got the number {n} (quote it to keep it exact)"))
                }
            }
            Some(serde_json::Value::Null) if !required => Ok(None),
            Some(v) => Err(format!("field `{name}` must be a string, got {}", type_name(v))),
        }
    };
    // --id-from takes precedence over an id field of the data (they are exclusive on the command line).
    let id = match fields.derive_id {
        Some(_) => None,
        None => match get_str(&fields.id, fields.id_explicit) {
            Ok(Some(id)) if id.trim().is_empty() => {
                return Err(err(None, format!("field `{}` is empty (ids must be non-empty to join with ratings)", fields.id)))
            }
            Ok(id) => id,
            Err(e) => return Err(err(None, e)),
        },
    };
    let source = match get_str(&fields.source, true) {
        Ok(s) => s.unwrap_or_default(),
        Err(e) => return Err(err(id, e)),
    };
    let summary = match get_str(&fields.summary, true) {
        Ok(s) => s.unwrap_or_default(),
        Err(e) => return Err(err(id, e)),
    };
    // An empty system is no system, as an empty CSV cell.
    let system = match get_str(&fields.system, false) {
        Ok(s) => s.filter(|s| !s.is_empty()),
        Err(e) => return Err(err(id, e)),
    };
    let id = match (id, &fields.derive_id) {
        (Some(id), _) => id,
        (None, Some(d)) => match obj.get(&d.field) {
            Some(serde_json::Value::String(v)) => derive(d, v),
            Some(v) => return Err(err(None, format!("id field `{}` must be a string, got {}", d.field, type_name(v)))),
            None => return Err(err(None, format!("missing field `{}` to derive the id from (fields present: {})", d.field, keys()))),
        },
        (None, None) => format!("row-{row}"),
    };
    let extras = fields
        .extras
        .iter()
        .filter_map(|x| obj.get(&x.field).filter(|v| !v.is_null()).map(|v| (x.name.clone(), v.clone())))
        .collect();
    Ok(InputRow { row, id, system, source, summary, extras })
}

struct JsonlReader<R> {
    reader: R,
    fields: FieldMap,
    line: u64,
    row: u64,
    failed: bool,
    /// The first record, read when the reader is made ([`JsonlReader::new`]).
    first: Option<Record>,
    /// Set while reading the first record when the file is not JSON lines at all.
    refuse: Option<String>,
}

impl<R: BufRead> JsonlReader<R> {
    /// Reads the first record, to refuse a file that is not JSON lines (a JSON array, a
    /// pretty-printed document, CR line ends) before any row is scored: read record by record,
    /// such a file would be one unreadable row per line.
    fn new(reader: R, fields: FieldMap) -> Result<Self> {
        let mut me = Self { reader, fields, line: 0, row: 0, failed: false, first: None, refuse: None };
        me.first = me.read_record();
        if let Some(why) = me.refuse.take() {
            bail!("{why}");
        }
        Ok(me)
    }

    fn read_record(&mut self) -> Option<Record> {
        if self.failed {
            return None;
        }
        let mut buf = Vec::new();
        loop {
            buf.clear();
            match self.reader.read_until(b'\n', &mut buf) {
                Ok(0) => return None,
                Ok(_) => {}
                Err(e) => {
                    self.row += 1;
                    self.failed = true;
                    return Some(Err(RowError::fatal(
                        self.row,
                        format!("line {}: read error: {e}; the rest of the input cannot be read", self.line + 1),
                    )));
                }
            }
            self.line += 1;
            if buf.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            self.row += 1;
            let (row, line) = (self.row, self.line);
            // The line ends with a line break (else the file ends inside it).
            let ended = buf.last() == Some(&b'\n');
            let text = match std::str::from_utf8(&buf) {
                Ok(t) => t,
                Err(e) => {
                    return Some(Err(RowError::new(
                        row,
                        None,
                        format!("line {line}: invalid UTF-8 at byte {} of the line", e.valid_up_to()),
                    )))
                }
            };
            if row == 1 && text.trim_start().starts_with('[') {
                self.refuse = Some(format!(
                    "line {line}: this looks like a JSON array, not JSON Lines (one object per line): name it .json or use --format json"
                ));
                return None;
            }
            if text.starts_with('\u{feff}') {
                return Some(Err(RowError::new(
                    row,
                    None,
                    format!(
                        "line {line} starts with a byte-order mark (U+FEFF), as when files written with one are joined; \
                         remove it (only the start of the file may hold one)"
                    ),
                )));
            }
            let parsed = {
                use serde::de::DeserializeSeed as _;
                let mut de = serde_json::Deserializer::from_str(text);
                json_record::RecordSeed(&self.fields).deserialize(&mut de).and_then(|p| de.end().map(|()| p))
            };
            let value = match parsed {
                Ok(p) => match p.error() {
                    Some(e) => return Some(Err(RowError::new(row, p.id(&self.fields), format!("line {line}: {e}")))),
                    None => p.value,
                },
                Err(e) => {
                    if row == 1 {
                        if let Some(why) = not_json_lines(text, &e, ended) {
                            self.refuse = Some(format!("line {line}: {why}"));
                            return None;
                        }
                    }
                    return Some(Err(RowError::new(row, None, format!("line {line}: {}", jsonl_error(text, &e, ended)))));
                }
            };
            return Some(from_json(value, row, &format!("line {line}"), &self.fields));
        }
    }
}

impl<R: BufRead> Iterator for JsonlReader<R> {
    type Item = Record;

    fn next(&mut self) -> Option<Record> {
        match self.first.take() {
            Some(r) => Some(r),
            None => self.read_record(),
        }
    }
}

/// CR line ends: a `\r` that is not part of a `\r\n` and has text after it.
fn has_lone_cr(text: &str) -> bool {
    let b = text.as_bytes();
    b.iter().enumerate().any(|(i, &c)| c == b'\r' && b.get(i + 1) != Some(&b'\n') && !b[i + 1..].iter().all(u8::is_ascii_whitespace))
}

/// Why a first line that is not a JSON object makes the whole file not JSON lines: a
/// pretty-printed document (the line opens an object and ends where a pretty-printer breaks
/// lines), or CR line ends (the whole file is one line).
fn not_json_lines(text: &str, e: &serde_json::Error, ended: bool) -> Option<String> {
    if has_lone_cr(text) {
        return Some(CR_LINE_ENDS.to_owned());
    }
    let t = text.trim();
    (t.starts_with('{') && e.is_eof() && ended && t.ends_with(['{', '[', ','])).then(|| {
        "this looks like a pretty-printed JSON document, not JSON Lines (one object per line): the object opened \
         here does not end on this line; put each object on one line (e.g. `jq -c . FILE > FIXED.jsonl`), or, for \
         an array of objects, name it .json or use --format json"
            .to_owned()
    })
}

const CR_LINE_ENDS: &str = "the file uses CR line ends (\\r without \\n), so its records run together on one line; \
     JSON lines end each record with \\n (or \\r\\n): convert them (e.g. `tr '\\r' '\\n' < FILE > FIXED.jsonl`)";

/// The message of a JSON line serde_json could not read, naming the cause and a position
/// within the line (serde_json's own `at line L column C` counts from the start of the line,
/// so it is given as the column only; its line 2 is the line's end).
fn jsonl_error(text: &str, e: &serde_json::Error, ended: bool) -> String {
    if has_lone_cr(text) {
        return CR_LINE_ENDS.to_owned();
    }
    let full = e.to_string();
    let msg = full.strip_suffix(&format!(" at line {} column {}", e.line(), e.column())).unwrap_or(&full);
    if let Some((at, esc)) = unpaired_surrogate(text) {
        if e.line() > 1 || e.column() > at {
            return format!(
                "an unpaired UTF-16 surrogate {esc} in a string (column {}): JSON text is Unicode, so \\ud800-\\udbff \
                 must be followed by \\udc00-\\udfff (serde_json: {msg})",
                at + 1
            );
        }
    }
    if e.is_eof() && !ended {
        return format!("the record is incomplete (the file ends inside it): was the file cut off? (serde_json: {msg})");
    }
    if e.is_eof() {
        return format!(
            "malformed JSON: the line ends before the record does ({msg}); a JSON lines record is one line (a line break inside a text is written \\n)"
        );
    }
    let at = if e.line() > 1 { "at the end of the line".to_owned() } else { format!("at column {}", e.column()) };
    let hint = if msg.starts_with("control character") && e.line() > 1 {
        " (a JSON lines record is one line: a line break inside a text is written \\n)"
    } else if ["NaN", "Infinity"].iter().any(|t| text.contains(t)) {
        " (NaN and Infinity are not valid JSON; write null or a string)"
    } else {
        ""
    };
    format!("malformed JSON: {msg} {at}{hint}")
}

/// The first unpaired UTF-16 surrogate escape (`\ud800` without a `\udc00`-`\udfff` after it,
/// or such a trailing one alone) in the strings of a JSON text: (byte offset, the escape).
fn unpaired_surrogate(text: &str) -> Option<(usize, &str)> {
    let b = text.as_bytes();
    let hex4 = |at: usize| -> Option<u32> {
        let h = b.get(at..at + 4)?;
        if !h.iter().all(u8::is_ascii_hexdigit) {
            return None;
        }
        u32::from_str_radix(std::str::from_utf8(h).ok()?, 16).ok()
    };
    let (mut i, mut in_string) = (0, false);
    while i < b.len() {
        match b[i] {
            b'"' => {
                in_string = !in_string;
                i += 1;
            }
            b'\\' if in_string => match (b.get(i + 1), hex4(i + 2)) {
                (Some(b'u'), Some(cp)) if (0xD800..0xDC00).contains(&cp) => {
                    let low = b.get(i + 6) == Some(&b'\\') && b.get(i + 7) == Some(&b'u') && hex4(i + 8).is_some_and(|c| (0xDC00..0xE000).contains(&c));
                    if !low {
                        return Some((i, &text[i..i + 6]));
                    }
                    i += 12;
                }
                (Some(b'u'), Some(cp)) if (0xDC00..0xE000).contains(&cp) => return Some((i, &text[i..i + 6])),
                (Some(b'u'), Some(_)) => i += 6,
                _ => i += 2,
            },
            _ => i += 1,
        }
    }
    None
}

/// A JSON array parsed element by element on a reader thread (bounded channel).
fn json_array<R: Read + Send + 'static>(reader: R, fields: FieldMap) -> Result<impl Iterator<Item = Record> + Send> {
    use serde::de::{Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

    /// Why the reader thread stopped early.
    enum Stop {
        /// A syntax or read error (the element's message).
        Json(String),
        /// The file is not an array: refused before any record is read.
        NotArray(String),
    }
    struct Elements(mpsc::SyncSender<std::result::Result<json_record::Parsed, Stop>>, FieldMap);
    impl<'de> Visitor<'de> for Elements {
        /// Whether the file held an array (else one object, already skipped).
        type Value = bool;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("a JSON array of objects")
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> std::result::Result<bool, A::Error> {
            while let Some(v) = seq.next_element_seed(json_record::RecordSeed(&self.1))? {
                if self.0.send(Ok(v)).is_err() {
                    break; // receiver gone
                }
            }
            Ok(true)
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> std::result::Result<bool, A::Error> {
            while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
            Ok(false)
        }
    }

    let (tx, rx) = mpsc::sync_channel(256);
    let thread_fields = fields.clone();
    let handle = std::thread::spawn(move || {
        let mut de = serde_json::Deserializer::from_reader(reader);
        let stop = match de.deserialize_any(Elements(tx.clone(), thread_fields)) {
            Ok(true) => de.end().err().map(|e| Stop::Json(e.to_string())),
            Ok(false) => Some(Stop::NotArray(match de.end() {
                Ok(()) => "a .json input is an array of objects; this file holds one object (use .jsonl for one object per line, or put the object in [ ])".to_owned(),
                Err(_) => "a .json input is an array of objects; this file holds an object followed by more text (objects one after another, one per line, are JSON lines: name it .jsonl or use --format jsonl)".to_owned(),
            })),
            Err(e) => Some(Stop::Json(e.to_string())),
        };
        if let Some(stop) = stop {
            let _ = tx.send(Err(stop));
        }
    });
    // The reader thread is joined when its channel ends, so that it never outlives the
    // records (the fuzzer's leak check saw a finishing thread's buffers as leaked).
    let mut handle = Some(handle);
    // A file that is not an array is refused before any record is read.
    let mut pending = Some(rx.recv());
    if let Some(Ok(Err(Stop::NotArray(why)))) = &pending {
        let why = why.clone();
        if let Some(h) = handle.take() {
            let _ = h.join();
        }
        bail!("{why}");
    }
    let mut row = 0u64;
    Ok(std::iter::from_fn(move || match pending.take().unwrap_or_else(|| rx.recv()) {
        Ok(item) => Some(item),
        Err(_) => {
            if let Some(h) = handle.take() {
                let _ = h.join();
            }
            None
        }
    })
    .map(move |item| {
        row += 1;
        match item {
            Ok(p) => match p.error() {
                Some(e) => Err(RowError::new(row, p.id(&fields), format!("array element {row}: {e}"))),
                None => from_json(p.value, row, &format!("array element {row}"), &fields),
            },
            Err(Stop::Json(e) | Stop::NotArray(e)) => Err(RowError::fatal(
                row,
                format!("array element {row}: malformed JSON: {e}; the rest of the file cannot be read"),
            )),
        }
    }))
}

/// Passes bytes through and keeps a copy of them until the record that holds them is read
/// (to count lines and check quoting on the raw bytes of each record).
struct Tee<R> {
    inner: R,
    log: std::sync::Arc<std::sync::Mutex<Vec<u8>>>,
}

impl<R: Read> Read for Tee<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        if let Ok(mut log) = self.log.lock() {
            log.extend_from_slice(&buf[..n]);
        }
        Ok(n)
    }
}

struct DelimitedReader<R> {
    rdr: csv::Reader<Tee<R>>,
    log: std::sync::Arc<std::sync::Mutex<Vec<u8>>>,
    /// Stream offset of `log[0]`.
    base: u64,
    lines: LineCounter,
    delimiter: u8,
    quoting: bool,
    record: csv::ByteRecord,
    id: Option<usize>,
    source: usize,
    summary: usize,
    system: Option<usize>,
    derive: Option<(usize, DeriveId)>,
    /// (name, column) of the per-row side inputs found in the header.
    extras: Vec<(String, usize)>,
    row: u64,
    done: bool,
}

/// What a header that lacks a field holds: its columns, and when they look `;`-separated
/// (Excel's CSV in locales with a decimal comma) the `--delimiter` to read them with.
fn header_hint(names: &[String], delimiter: u8) -> String {
    // `--delimiter` is a CSV option: a TSV read is switched to CSV.
    let fix = if delimiter == b'\t' { "--format csv --delimiter ';'" } else { "--delimiter ';'" };
    match names {
        [one] if delimiter != b';' && one.contains(';') => {
            format!("the header has one column `{one}`: is the file separated by `;`? use {fix}")
        }
        _ if delimiter != b';' && names.iter().any(|n| n.contains(';')) => format!(
            "columns are: {} (a column name holds `;`: if the file is separated by `;`, use {fix})",
            names.join(", ")
        ),
        _ => format!("columns are: {}", names.join(", ")),
    }
}

impl<R: Read> DelimitedReader<R> {
    fn new(reader: R, delimiter: u8, quoting: bool, fields: &FieldMap) -> Result<Self> {
        let log = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let tee = Tee { inner: reader, log: std::sync::Arc::clone(&log) };
        let mut rdr = csv::ReaderBuilder::new().delimiter(delimiter).quoting(quoting).has_headers(true).from_reader(tee);
        let headers = rdr.byte_headers().context("cannot read the header row")?.clone();
        let names: Vec<String> = headers.iter().map(|h| String::from_utf8_lossy(h).trim_start_matches('\u{feff}').to_owned()).collect();
        if names.iter().all(String::is_empty) {
            bail!("the input is empty: a CSV/TSV file needs a header row naming its columns (e.g. id,source,summary)");
        }
        let find = |name: &str| -> Result<Option<usize>> {
            let at: Vec<usize> = names.iter().enumerate().filter(|(_, h)| *h == name).map(|(i, _)| i + 1).collect();
            match at.as_slice() {
                [] => Ok(None),
                [i] => Ok(Some(i - 1)),
                many => bail!("{}", delimited::duplicate_column(name, many)),
            }
        };
        let require = |name: &str, what: &str| -> Result<usize> {
            match find(name)? {
                Some(i) => Ok(i),
                None => bail!("{what} field `{name}` is not in the header; {}", header_hint(&names, delimiter)),
            }
        };
        let source = require(&fields.source, "source")?;
        let summary = require(&fields.summary, "summary")?;
        let id = if fields.id_explicit {
            Some(require(&fields.id, "id")?)
        } else if fields.derive_id.is_some() {
            None // --id-from takes precedence over an id column of the data
        } else {
            find(&fields.id)?
        };
        let derive = match (&fields.derive_id, id) {
            (Some(d), None) => Some((require(&d.field, "id-derivation")?, d.clone())),
            _ => None,
        };
        let system = find(&fields.system)?;
        let mut extras = Vec::new();
        for x in &fields.extras {
            let col = if x.explicit { Some(require(&x.field, &format!("`{}` input", x.name))?) } else { find(&x.field)? };
            if let Some(i) = col {
                extras.push((x.name.clone(), i));
            }
        }
        let mut me = Self {
            rdr,
            log,
            base: 0,
            lines: LineCounter::new(),
            delimiter,
            quoting,
            record: csv::ByteRecord::new(),
            id,
            source,
            summary,
            system,
            derive,
            extras,
            row: 0,
            done: false,
        };
        // The header's bytes: count their lines, then forget them.
        let end = me.rdr.position().byte();
        for b in me.take_raw(end) {
            me.lines.push(b);
        }
        Ok(me)
    }

    /// The raw bytes from the last record end up to stream offset `end`, removed from the log.
    fn take_raw(&mut self, end: u64) -> Vec<u8> {
        let Ok(mut log) = self.log.lock() else { return Vec::new() };
        let n = usize::try_from(end.saturating_sub(self.base)).unwrap_or(usize::MAX).min(log.len());
        let raw: Vec<u8> = log.drain(..n).collect();
        self.base += n as u64;
        raw
    }
}

impl<R: Read> Iterator for DelimitedReader<R> {
    type Item = Record;

    fn next(&mut self) -> Option<Record> {
        if self.done {
            return None;
        }
        let res = self.rdr.read_byte_record(&mut self.record);
        let end = self.rdr.position().byte();
        let raw = self.take_raw(end);
        if matches!(res, Ok(false)) {
            return None;
        }
        self.row += 1;
        let row = self.row;
        let (first, last, problem) = scan_record(&raw, self.delimiter, self.quoting, &mut self.lines);
        let at = lines_text(first, last);
        if let Some(problem) = problem {
            let hint = if self.delimiter == b'\t' { ", or drop --tsv-quotes to read quotes literally" } else { "" };
            let message = problem.describe(row, &at, hint);
            if problem.is_fatal() {
                self.done = true;
                return Some(Err(RowError::fatal(row, message)));
            }
            return Some(Err(RowError::new(row, None, message)));
        }
        if let Err(e) = res {
            let message = match e.kind() {
                csv::ErrorKind::UnequalLengths { expected_len, len, .. } => {
                    let hint = if !self.quoting && raw.contains(&b'"') {
                        " (TSV fields are read literally; if this file quotes its fields CSV-style, as pandas' \
                         to_csv(sep='\\t') does, pass --tsv-quotes)"
                    } else {
                        ""
                    };
                    format!("record {row} ({at}): found {len} fields, but the header has {expected_len}{hint}")
                }
                csv::ErrorKind::Io(err) => {
                    self.done = true;
                    return Some(Err(RowError::fatal(
                        row,
                        format!("record {row} ({at}): read error: {err}; the rest of the input cannot be read"),
                    )));
                }
                _ => format!("record {row} ({at}): {e}"),
            };
            return Some(Err(RowError::new(row, None, message)));
        }
        let rec = &self.record;
        let get = |i: usize, name: &str| -> std::result::Result<String, String> {
            let bytes = rec.get(i).unwrap_or_default();
            String::from_utf8(bytes.to_vec()).map_err(|e| {
                format!("record {row} ({at}): field `{name}` is not valid UTF-8 (byte {})", e.utf8_error().valid_up_to())
            })
        };
        let id = match self.id.map(|i| get(i, "id")).transpose() {
            Ok(Some(id)) if id.trim().is_empty() => {
                return Some(Err(RowError::new(
                    row,
                    None,
                    format!("record {row} ({at}): field `id` is empty (ids must be non-empty to join with ratings)"),
                )))
            }
            Ok(id) => id,
            Err(message) => return Some(Err(RowError::new(row, None, message))),
        };
        let id_for_err = id.clone();
        let fetch = |i: usize, name: &str| get(i, name).map_err(|message| RowError::new(row, id_for_err.clone(), message));
        let source = match fetch(self.source, "source") {
            Ok(s) => s,
            Err(e) => return Some(Err(e)),
        };
        let summary = match fetch(self.summary, "summary") {
            Ok(s) => s,
            Err(e) => return Some(Err(e)),
        };
        let system = match self.system.map(|i| fetch(i, "system")).transpose() {
            Ok(s) => s.filter(|s| !s.is_empty()),
            Err(e) => return Some(Err(e)),
        };
        let id = match (id, &self.derive) {
            (Some(id), _) => id,
            (None, Some((i, d))) => match fetch(*i, &d.field) {
                Ok(v) => derive(d, &v),
                Err(e) => return Some(Err(e)),
            },
            (None, None) => format!("row-{row}"),
        };
        let mut extras = factpico::Extras::new();
        for (name, i) in &self.extras {
            match fetch(*i, name) {
                Ok(v) if v.is_empty() => {}
                Ok(v) => {
                    extras.insert(name.clone(), serde_json::Value::String(v));
                }
                Err(e) => return Some(Err(e)),
            }
        }
        Some(Ok(InputRow { row, id, system, source, summary, extras }))
    }
}

#[cfg(test)]
mod extras_tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    fn fields(extras: Vec<ExtraField>) -> FieldMap {
        FieldMap {
            id: "id".into(),
            id_explicit: false,
            source: "source".into(),
            summary: "summary".into(),
            system: "system".into(),
            derive_id: None,
            tsv_quotes: false,
            delimiter: None,
            extras,
        }
    }

    fn read(name: &str, bytes: &[u8], format: Format, f: &FieldMap) -> Result<Vec<Record>> {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join(name);
        std::fs::write(&p, bytes).unwrap();
        Ok(open(&p, format, f)?.collect())
    }

    /// Per-row side inputs: JSON values as they are (absent / null left out), CSV cells as
    /// strings (empty left out); an explicitly mapped column missing from the header is an error.
    #[test]
    fn side_inputs_are_read_per_row() {
        let x = |field: &str, explicit| ExtraField { name: "evidence".into(), field: field.into(), explicit };
        let jsonl = b"{\"id\":\"a\",\"source\":\"s\",\"summary\":\"m\",\"spans\":[\"x\",\"y\"]}\n{\"id\":\"b\",\"source\":\"s\",\"summary\":\"m\",\"spans\":null}\n{\"id\":\"c\",\"source\":\"s\",\"summary\":\"m\"}\n";
        let rows = read("in.jsonl", jsonl, Format::Jsonl, &fields(vec![x("spans", true)])).unwrap();
        let ex: Vec<factpico::Extras> = rows.into_iter().map(|r| r.unwrap().extras).collect();
        assert_eq!(ex[0]["evidence"], serde_json::json!(["x", "y"]));
        assert!(ex[1].is_empty() && ex[2].is_empty());
        let csv = b"id,source,summary,evidence\na,s,m,quoted span\nb,s,m,\n";
        let rows = read("in.csv", csv, Format::Csv, &fields(vec![x("evidence", false)])).unwrap();
        let ex: Vec<factpico::Extras> = rows.into_iter().map(|r| r.unwrap().extras).collect();
        assert_eq!(ex[0]["evidence"], serde_json::json!("quoted span"));
        assert!(ex[1].is_empty());
        // Default mapping, column absent: rows have no such input.
        let rows = read("in.csv", b"id,source,summary\na,s,m\n", Format::Csv, &fields(vec![x("evidence", false)])).unwrap();
        assert!(rows[0].as_ref().unwrap().extras.is_empty());
        // Explicit mapping, column absent: a clear error.
        let e = read("in.csv", b"id,source,summary\na,s,m\n", Format::Csv, &fields(vec![x("spans", true)])).err().unwrap();
        assert!(e.to_string().contains("`evidence` input field `spans` is not in the header; columns are: id, source, summary"), "{e}");
    }

    #[test]
    fn delimiters_surrogates_and_the_recorded_delimiter() {
        assert_eq!(parse_delimiter(";"), Ok(b';'));
        assert_eq!(parse_delimiter("tab"), Ok(b'\t'));
        assert_eq!(parse_delimiter("\\t"), Ok(b'\t'));
        assert!(parse_delimiter("\"").is_err() && parse_delimiter("\n").is_err() && parse_delimiter("é").is_err() && parse_delimiter("").is_err());
        assert_eq!(unpaired_surrogate(r#"{"a":"x\ud800y"}"#), Some((7, r"\ud800")));
        assert_eq!(unpaired_surrogate(r#"{"a":"\udfff"}"#), Some((6, r"\udfff")));
        assert_eq!(unpaired_surrogate(r#"{"a":"\ud83d\ude00 \\ud800 \u00e9"}"#), None);
        // A `;` CSV read with the delimiter; the provenance records it only when given.
        let mut f = fields(Vec::new());
        f.delimiter = Some(b';');
        let rows = read("in.csv", b"id;source;summary\na;\"s;t\";m\n", Format::Csv, &f).unwrap();
        assert_eq!(rows[0].as_ref().unwrap().source, "s;t");
        assert_eq!(input_provenance(Format::Csv, &f, &[]).unwrap().delimiter.as_deref(), Some(";"));
        assert!(input_provenance(Format::Csv, &fields(Vec::new()), &[]).unwrap().delimiter.is_none());
    }

    /// Rows without side inputs hash as in schema 1; side inputs enter the hash.
    #[test]
    fn input_sha256_covers_side_inputs_only_when_present() {
        let none = factpico::Extras::new();
        // sha256("abc" ‖ 0x00 ‖ "de"), first 8 bytes (python3: hashlib.sha256(b"abc\x00de").hexdigest()[:16]).
        assert_eq!(input_sha256("abc", "de", &none), "e0d078a7ea89a004");
        let mut ev = factpico::Extras::new();
        ev.insert("evidence".into(), serde_json::json!(["240 adults"]));
        let with = input_sha256("abc", "de", &ev);
        // python3: sha256(b"abc\x00de\x00" + json.dumps(extras, separators=(",", ":")).encode())
        assert_eq!(with, "31d968bebb3153e2");
        ev.insert("evidence".into(), serde_json::json!(["420 adults"]));
        assert_ne!(input_sha256("abc", "de", &ev), with);
    }
}
