//! Atomic, resumable JSONL output.
//!
//! Rows are appended to `<out>.partial` (locked for the whole run, see
//! [`factpico_io::PartialFile`]) and flushed after every block; the file is renamed to `<out>`
//! only when the run completes, so an interrupted run never leaves a truncated file under the
//! final name. `--resume` reads the partial file back, drops a trailing incomplete line,
//! checks that it was written with the same options, and continues after the last complete row.

use std::io::{BufRead, BufReader, BufWriter, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use factpico::Report;
use factpico_io::{PartialFile, PartialOpen};

pub use factpico_io::{partial_path, write_atomic};

enum Sink {
    File(PartialFile),
    Stdout(BufWriter<std::io::Stdout>),
}

/// A JSONL writer to `<out>.partial`, renamed to `<out>` by [`AtomicJsonl::finish`];
/// or, for `-o -`, straight to standard output (no atomicity, no resume).
pub struct AtomicJsonl {
    sink: Sink,
}

/// What a resumed run found in the partial file.
#[derive(Debug, Clone, Copy)]
pub struct Resumed {
    /// Complete rows already written (= input records to skip).
    pub rows_done: u64,
    /// Bytes of an incomplete last line that were dropped.
    pub dropped_bytes: u64,
}

impl AtomicJsonl {
    /// Starts a fresh partial file. A partial file left by a dead run is replaced (its name
    /// now points to the new file; it is never written through); one that a live run holds is
    /// refused; a symlink, hard-linked file or special file there is refused.
    ///
    /// # Errors
    /// The partial file cannot be created, or is refused (see above).
    pub fn create(out: &Path) -> Result<(Self, Option<u64>)> {
        let (file, how) = PartialFile::create(out)?;
        let replaced = match how {
            PartialOpen::Fresh => None,
            PartialOpen::ReplacedStale(bytes) => Some(bytes),
        };
        Ok((Self { sink: Sink::File(file) }, replaced))
    }

    /// Rows go to standard output as they are scored (`-o -`).
    pub fn stdout() -> Self {
        Self { sink: Sink::Stdout(BufWriter::new(std::io::stdout())) }
    }

    /// Reopens the partial file of an interrupted run for appending.
    ///
    /// `options_fingerprint` ([`resume_fingerprint`] of this run's provenance) is compared
    /// with that of the rows already written (a resumed run must use the same options, models
    /// and input mapping); `on_row` sees every complete row already written, in order (the
    /// caller checks that they match the input and feeds its summary).
    ///
    /// # Errors
    /// No partial file exists, it is held by a live run or is not a plain file, a complete
    /// line is not a valid row or was written by an older output schema, the options differ,
    /// or `on_row` fails.
    pub fn resume(
        out: &Path,
        options_fingerprint: &serde_json::Value,
        mut on_row: impl FnMut(&Report) -> Result<()>,
    ) -> Result<(Self, Resumed)> {
        let partial = partial_path(out);
        let Some(mut pf) = PartialFile::open_existing(out)? else {
            if out.exists() {
                bail!(
                    "--resume: {} is already complete (no {} to resume); remove it to score again",
                    out.display(),
                    partial.display()
                );
            }
            bail!("--resume: no interrupted run found ({} does not exist)", partial.display());
        };
        let file = pf.file();
        let total = file.metadata().with_context(|| format!("cannot read {}", partial.display()))?.len();
        let mut reader = BufReader::new(&mut *file);
        let mut good_end = 0u64;
        let mut rows = 0u64;
        let mut line = Vec::new();
        loop {
            line.clear();
            let n = reader.read_until(b'\n', &mut line).with_context(|| format!("cannot read {}", partial.display()))?;
            if n == 0 {
                break;
            }
            if line.last() != Some(&b'\n') {
                break; // incomplete last line: the run died while writing it
            }
            let report: Report = serde_json::from_slice(&line).with_context(|| {
                format!("--resume: line {} of {} is not a valid factpico row", rows + 1, partial.display())
            })?;
            check_schema(&report, rows + 1, &partial)?;
            let then = resume_fingerprint(&report.provenance);
            if report.skipped.is_none() && then != *options_fingerprint {
                bail!(
                    "--resume: {} was written with different options, models or input (format, field mapping, side inputs) ({}); rerun without --resume",
                    partial.display(),
                    describe_difference(&then, options_fingerprint)
                );
            }
            on_row(&report)?;
            rows += 1;
            good_end += n as u64;
        }
        drop(reader);
        file.set_len(good_end).with_context(|| format!("cannot truncate {}", partial.display()))?;
        file.seek(SeekFrom::End(0)).with_context(|| format!("cannot seek in {}", partial.display()))?;
        Ok((Self { sink: Sink::File(pf) }, Resumed { rows_done: rows, dropped_bytes: total - good_end }))
    }

    fn writer(&mut self) -> &mut dyn Write {
        match &mut self.sink {
            Sink::File(f) => f,
            Sink::Stdout(w) => w,
        }
    }

    fn describe(&self) -> String {
        match &self.sink {
            Sink::File(f) => f.path().display().to_string(),
            Sink::Stdout(_) => "standard output".to_owned(),
        }
    }

    /// Appends one row.
    ///
    /// # Errors
    /// Serialisation or I/O failure (the message names the file or standard output).
    pub fn write(&mut self, report: &Report) -> Result<()> {
        let mut line = serde_json::to_vec(report).context("cannot serialise a row")?;
        line.push(b'\n');
        if let Err(e) = self.writer().write_all(&line) {
            return Err(self.io_error(e));
        }
        Ok(())
    }

    fn io_error(&self, e: std::io::Error) -> anyhow::Error {
        match &self.sink {
            // PartialFile's errors already name the file.
            Sink::File(_) => anyhow::Error::new(e),
            Sink::Stdout(_) => anyhow::Error::new(e).context("cannot write rows to standard output"),
        }
    }

    /// Flushes buffered rows to the partial file (called after each block).
    ///
    /// # Errors
    /// I/O failure (the message names the file or standard output).
    pub fn flush(&mut self) -> Result<()> {
        if let Err(e) = self.writer().flush() {
            return Err(self.io_error(e));
        }
        Ok(())
    }

    /// Flushes, syncs and renames the partial file to the final path.
    ///
    /// # Errors
    /// I/O failure.
    pub fn finish(self) -> Result<Option<PathBuf>> {
        let what = self.describe();
        match self.sink {
            Sink::File(f) => Ok(Some(f.commit()?)),
            Sink::Stdout(mut w) => {
                w.flush().with_context(|| format!("cannot write rows to {what}"))?;
                Ok(None)
            }
        }
    }
}

/// Refuses rows of an older output schema: their provenance and fingerprint differ in
/// meaning, so they cannot be continued (`SCHEMA_VERSION`).
fn check_schema(report: &Report, line: u64, partial: &Path) -> Result<()> {
    let v = report.provenance.get("schema_version").and_then(serde_json::Value::as_u64);
    if v != Some(u64::from(factpico::SCHEMA_VERSION)) {
        bail!(
            "--resume: line {line} of {} was written by output schema version {} and this factpico writes version {}; \
             it cannot be continued: rerun without --resume (the new run replaces it)",
            partial.display(),
            v.map_or_else(|| "unknown".to_owned(), |v| v.to_string()),
            factpico::SCHEMA_VERSION
        );
    }
    Ok(())
}

/// Names the option keys whose values differ between two option objects (dotted paths).
/// The part of a row's provenance a resumed run must reproduce: `options`, `metrics` (each
/// metric's settings, model directories and model sha256) and `input` (format, field mapping
/// with the system field, id derivation, side inputs with their sha256).
pub fn resume_fingerprint(provenance: &serde_json::Value) -> serde_json::Value {
    let null = serde_json::Value::Null;
    serde_json::json!({
        "options": provenance.get("options").unwrap_or(&null),
        "metrics": provenance.get("metrics").unwrap_or(&null),
        "input": provenance.get("input").unwrap_or(&null),
    })
}

fn describe_difference(old: &serde_json::Value, new: &serde_json::Value) -> String {
    fn walk(prefix: &str, a: &serde_json::Value, b: &serde_json::Value, out: &mut Vec<String>) {
        match (a, b) {
            (serde_json::Value::Object(x), serde_json::Value::Object(y)) => {
                let keys: std::collections::BTreeSet<&String> = x.keys().chain(y.keys()).collect();
                for k in keys {
                    let null = serde_json::Value::Null;
                    let p = if prefix.is_empty() { k.clone() } else { format!("{prefix}.{k}") };
                    walk(&p, x.get(k).unwrap_or(&null), y.get(k).unwrap_or(&null), out);
                }
            }
            _ if a != b => out.push(format!("{prefix}: {a} then, {b} now")),
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk("", old, new, &mut out);
    if out.is_empty() {
        "unknown difference".into()
    } else {
        out.join("; ")
    }
}

/// Checks that a parsed JSON line is a row of factpico's score schema (what `factpico score`
/// writes, [`Report`]): an object whose `provenance` is an object with an integer
/// `schema_version` (1 to [`factpico::SCHEMA_VERSION`]), with a `scores` object or, for an
/// unreadable record, a `skipped` reason. Any other JSON (an input record, a ratings row) is
/// not a score row. Returns what is wrong.
fn check_row_schema(v: &serde_json::Value) -> std::result::Result<(), String> {
    let Some(obj) = v.as_object() else { return Err("it is not a JSON object".into()) };
    let version = obj.get("provenance").and_then(|p| p.get("schema_version")).and_then(serde_json::Value::as_u64);
    match version {
        Some(n) if (1..=u64::from(factpico::SCHEMA_VERSION)).contains(&n) => {}
        Some(n) => return Err(format!("its schema_version {n} is not one this factpico reads (1 to {})", factpico::SCHEMA_VERSION)),
        None => return Err("it has no provenance.schema_version".into()),
    }
    let scores = obj.get("scores").is_some_and(serde_json::Value::is_object);
    let skipped = obj.get("skipped").is_some_and(serde_json::Value::is_string);
    if !scores && !skipped {
        return Err("it has neither a scores object nor a skipped reason".into());
    }
    Ok(())
}

/// Calls `f` on every row of a factpico score file (JSONL written by `factpico score`),
/// streaming. Blank lines are ignored.
///
/// # Errors
/// I/O failure, a line that is not a factpico score row (checked as [`check_row_schema`]
/// describes: an input file or any other JSON is refused), or an error from `f`.
pub fn for_each_report(path: &Path, mut f: impl FnMut(Report) -> Result<()>) -> Result<()> {
    let file = std::fs::File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    for (i, line) in BufReader::new(file).lines().enumerate() {
        let line = line.with_context(|| format!("{}: line {}", path.display(), i + 1))?;
        if line.trim().is_empty() {
            continue;
        }
        let not_a_row = || format!("{}: line {} is not a factpico score row", path.display(), i + 1);
        let value: serde_json::Value = serde_json::from_str(&line).with_context(not_a_row)?;
        if let Err(why) = check_row_schema(&value) {
            bail!("{} ({why}); give files written by `factpico score`", not_a_row());
        }
        let report: Report = serde_json::from_value(value).with_context(not_a_row)?;
        f(report)?;
    }
    Ok(())
}

/// Refuses output paths that would overwrite an input, each other (or the JSONL output's
/// partial file), a directory or a special file, before anything is written
/// ([`factpico_io::PathGuard`]). `inputs` are (label, path) of everything the run reads;
/// an output `-` (standard output) is not a file and is not checked.
///
/// # Errors
/// The first refused output, with what it would overwrite.
pub fn check_paths(inputs: &[(String, PathBuf)], outputs: &[(&str, Option<&Path>)]) -> Result<()> {
    let mut guard = factpico_io::PathGuard::new();
    for (label, p) in inputs {
        if p != Path::new("-") {
            guard.input(label.as_str(), p);
        }
    }
    for (i, (flag, p)) in outputs.iter().enumerate() {
        let Some(p) = p.filter(|p| !is_stdout(p)) else { continue };
        guard.output(*flag, p)?;
        if i == 0 {
            guard.output(format!("the partial file of {flag}"), &partial_path(p))?;
        }
    }
    Ok(())
}

/// Every existing file or directory named by a string value of the scorer options (model
/// directories, side inputs such as `--arcs`), as (dotted option key, path), in key order:
/// what a run reads besides its input. Found by walking the serialised options, so that
/// each metric's options are covered without a list to keep up to date.
pub fn paths_in_options(options: &serde_json::Value) -> Vec<(String, PathBuf)> {
    fn walk(prefix: &str, v: &serde_json::Value, out: &mut Vec<(String, PathBuf)>) {
        match v {
            serde_json::Value::Object(m) => {
                for (k, x) in m {
                    let key = if prefix.is_empty() { k.clone() } else { format!("{prefix}.{k}") };
                    walk(&key, x, out);
                }
            }
            serde_json::Value::Array(a) => {
                for (i, x) in a.iter().enumerate() {
                    walk(&format!("{prefix}[{i}]"), x, out);
                }
            }
            serde_json::Value::String(s) if !s.is_empty() && std::fs::metadata(s).is_ok() => {
                out.push((prefix.to_owned(), PathBuf::from(s)));
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk("", options, &mut out);
    out
}

/// Where the CSV goes: a file written atomically, or standard output (`--csv -`).
enum CsvSink {
    File(factpico_io::AtomicFile),
    Stdout(std::io::Stdout),
}

impl Write for CsvSink {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self {
            CsvSink::File(f) => f.write(buf),
            CsvSink::Stdout(o) => o.write(buf),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match self {
            CsvSink::File(f) => f.flush(),
            CsvSink::Stdout(o) => o.flush(),
        }
    }
}

/// CSV export of the scores (row, id, system, skipped, then every column), written
/// atomically ([`factpico_io::AtomicFile`]), or streamed to standard output for `--csv -`.
pub struct CsvOut {
    writer: csv::Writer<CsvSink>,
    columns: Vec<&'static str>,
}

impl CsvOut {
    /// Starts the CSV with its header row; `path` `-` is standard output.
    ///
    /// # Errors
    /// The temporary file cannot be created or written.
    pub fn new(path: &Path, columns: Vec<&'static str>) -> Result<Self> {
        let sink = if is_stdout(path) {
            CsvSink::Stdout(std::io::stdout())
        } else {
            CsvSink::File(factpico_io::AtomicFile::create(path)?)
        };
        let mut writer = csv::Writer::from_writer(sink);
        let mut header = vec!["row", "id", "system", "skipped"];
        header.extend(columns.iter().copied());
        writer.write_record(&header)?;
        Ok(Self { writer, columns })
    }

    /// Appends one row.
    ///
    /// # Errors
    /// I/O failure (naming the file).
    pub fn write(&mut self, r: &Report) -> Result<()> {
        let mut rec = vec![
            r.row.map(|n| n.to_string()).unwrap_or_default(),
            r.id.clone().unwrap_or_default(),
            r.system.clone().unwrap_or_default(),
            r.skipped.clone().unwrap_or_default(),
        ];
        for c in &self.columns {
            rec.push(r.score(c).map(|v| format!("{v}")).unwrap_or_default());
        }
        self.writer.write_record(&rec).map_err(|e| match self.writer.get_ref() {
            CsvSink::Stdout(_) => anyhow::Error::new(e).context("cannot write the CSV to standard output"),
            CsvSink::File(_) => anyhow::Error::new(e),
        })?;
        Ok(())
    }

    /// Flushes and renames the CSV to its final path (flushes standard output for `--csv -`).
    ///
    /// # Errors
    /// I/O failure (naming the file or standard output).
    pub fn finish(self) -> Result<()> {
        match self.writer.into_inner().map_err(|e| anyhow::Error::new(e.into_error()))? {
            CsvSink::File(file) => {
                file.commit()?;
            }
            CsvSink::Stdout(mut out) => out.flush().context("cannot write the CSV to standard output")?,
        }
        Ok(())
    }
}

/// Whether an output path means standard output (`-`).
pub fn is_stdout(path: &Path) -> bool {
    path == Path::new("-")
}

/// Writes `text` to standard output and flushes it. `Ok(false)` when standard output is a
/// pipe whose reader has gone (`factpico metrics | head -1`): the reader chose to stop, so
/// that is not an error of ours (`print!` would panic there).
///
/// # Errors
/// Any other write failure (e.g. a full disk behind a redirection), naming standard output.
pub fn print_stdout(text: &str) -> Result<bool> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(false),
        Err(e) => Err(anyhow::Error::new(e).context("cannot write to standard output")),
    }
}
