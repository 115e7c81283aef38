//! Atomic, resumable JSONL output.
//!
//! Rows are appended to `<out>.partial` (locked for the whole run, see
//! [`factpico_io::PartialFile`]) and flushed after every block; the file is renamed to `<out>`
//! only when the run completes, so an interrupted run never leaves a truncated file under the
//! final name. The run's provenance is written once, before the first row, to
//! `<out>.provenance.json` ([`provenance_path`]); each row references it by hash (`run`).
//! `--resume` reads the partial file back, drops a trailing incomplete line, checks that the
//! provenance file is this run's and the rows reference it, and continues after the last
//! complete row.

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
    /// The run's provenance file (`provenance_file`, written before the first row) must hold
    /// exactly `provenance` (this run's: same options, models, input mapping, engine), and
    /// every complete row already written must reference it (`run`); `on_row` sees those rows,
    /// in order (the caller checks that they match the input and feeds its summary). The
    /// provenance file is left as it is.
    ///
    /// # Errors
    /// No partial file exists, it is held by a live run or is not a plain file, the
    /// provenance file is missing, unreadable, of another output schema or differs from
    /// `provenance`, a complete line is not a valid row, was written by an older output schema
    /// or references another run, or `on_row` fails.
    pub fn resume(
        out: &Path,
        provenance_file: &Path,
        provenance: &factpico::Provenance,
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
        // Absent for a partial file of an older schema (its rows are named as such below).
        let then = if provenance_file.exists() { Some(read_provenance_for_resume(provenance_file, &partial)?) } else { None };
        let missing = || {
            anyhow::anyhow!(
                "--resume: the provenance file {} of the interrupted run ({}) is missing; rerun without --resume",
                provenance_file.display(),
                partial.display()
            )
        };
        let run = then.as_ref().map(factpico::Provenance::hash);
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
            let report = written_row(&line, rows + 1, &partial)?;
            let Some(run) = &run else { return Err(missing()) };
            check_run(&report, rows + 1, &partial, run, provenance_file)?;
            on_row(&report)?;
            rows += 1;
            good_end += n as u64;
        }
        drop(reader);
        // Checked after the rows, so that a file of an older schema is named as such first.
        let Some(then) = then else { return Err(missing()) };
        if then != *provenance {
            bail!(
                "--resume: {} was written with different options, models or input (format, field mapping, side inputs) ({}); rerun without --resume",
                partial.display(),
                describe_difference(&then.to_value(), &provenance.to_value())
            );
        }
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

    /// Appends one row as the bytes already written for it (`line`, its newline included):
    /// a row kept from a finished output stays byte-identical.
    ///
    /// # Errors
    /// I/O failure (the message names the file or standard output).
    pub fn write_line(&mut self, line: &[u8]) -> Result<()> {
        if let Err(e) = self.writer().write_all(line) {
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

/// A finished output (no partial file) reopened by `--resume` to retry the rows that carry
/// failures ([`Report::carries_failure`]: metric errors, incomplete LLM results): its rows are read back in order, one per input record, while
/// the new output is written; the others are copied byte for byte. Streams: one line in memory.
pub struct Finished {
    reader: BufReader<std::fs::File>,
    path: PathBuf,
    provenance_file: PathBuf,
    run: String,
    line: u64,
}

/// What [`Finished::open`] found in the finished output.
#[derive(Debug, Clone, Copy)]
pub struct FinishedRows {
    /// Rows in the file.
    pub rows: u64,
    /// Rows carrying metric failures (to be scored again).
    pub failed: u64,
}

impl Finished {
    /// True when `out` exists and no partial file of it does: `--resume` then retries the
    /// finished output's failed rows instead of continuing an interrupted run.
    #[must_use]
    pub fn applies(out: &Path) -> bool {
        out.exists() && std::fs::symlink_metadata(partial_path(out)).is_err()
    }

    /// Opens the finished output `out` for a retry. Its provenance file must hold exactly
    /// `provenance` (as for resuming an interrupted run), every line must be a complete row of
    /// this output schema referencing it, and at least one row must carry a failure.
    ///
    /// # Errors
    /// The file or its provenance file cannot be read, a line is not a row of this schema or
    /// references another run, the provenance differs, or no row carries a failure (then the
    /// output is complete: nothing to resume).
    pub fn open(out: &Path, provenance_file: &Path, provenance: &factpico::Provenance) -> Result<(Self, FinishedRows)> {
        let then = read_provenance_for_resume(provenance_file, out)?;
        if then != *provenance {
            bail!(
                "--resume: {} was written with different options, models or input (format, field mapping, side inputs) ({}); rerun without --resume",
                out.display(),
                describe_difference(&then.to_value(), &provenance.to_value())
            );
        }
        let run = then.hash();
        let open = || -> Result<BufReader<std::fs::File>> {
            Ok(BufReader::new(std::fs::File::open(out).with_context(|| format!("--resume: cannot read {}", out.display()))?))
        };
        let mut this = Self { reader: open()?, path: out.to_owned(), provenance_file: provenance_file.to_owned(), run, line: 0 };
        let mut counts = FinishedRows { rows: 0, failed: 0 };
        while let Some((report, _)) = this.next_row()? {
            counts.rows += 1;
            counts.failed += u64::from(report.carries_failure());
        }
        if counts.failed == 0 {
            bail!(
                "--resume: {} is already complete and none of its {} rows carries a failure (no {} to resume either); remove it to score again",
                out.display(),
                counts.rows,
                partial_path(out).display()
            );
        }
        this.reader = open()?;
        this.line = 0;
        Ok((this, counts))
    }

    /// The next row and its line's bytes (newline included); `None` at the end of the file.
    ///
    /// # Errors
    /// I/O failure, an incomplete last line, a line that is not a row of this output schema,
    /// or a row of another run.
    pub fn next_row(&mut self) -> Result<Option<(Report, Vec<u8>)>> {
        let mut line = Vec::new();
        let n = self.reader.read_until(b'\n', &mut line).with_context(|| format!("cannot read {}", self.path.display()))?;
        if n == 0 {
            return Ok(None);
        }
        self.line += 1;
        if line.last() != Some(&b'\n') {
            bail!("--resume: line {} of {} is incomplete: the file is not a finished output; rerun without --resume", self.line, self.path.display());
        }
        let report = written_row(&line, self.line, &self.path)?;
        check_run(&report, self.line, &self.path, &self.run, &self.provenance_file)?;
        Ok(Some((report, line)))
    }
}

/// Line `n` of a file written by `factpico score` (a partial or finished output) read back for
/// `--resume`: a row of this output schema.
fn written_row(line: &[u8], n: u64, file: &Path) -> Result<Report> {
    let report: Report = serde_json::from_slice(line)
        .with_context(|| format!("--resume: line {n} of {} is not a valid factpico row", file.display()))?;
    check_schema(&report, n, file)?;
    Ok(report)
}

/// Refuses a row written by another run than the one its provenance file describes (`run`).
fn check_run(report: &Report, n: u64, file: &Path, run: &str, provenance_file: &Path) -> Result<()> {
    if report.run.as_deref() != Some(run) {
        bail!(
            "--resume: line {n} of {} references run {} but its provenance file {} is run {run}: they belong to different runs; rerun without --resume",
            file.display(),
            report.run.as_deref().unwrap_or("none"),
            provenance_file.display()
        );
    }
    Ok(())
}

/// Refuses rows of an older output schema (rows with their own `provenance` and no `run`):
/// their provenance differs in meaning and place, so they cannot be continued
/// (`SCHEMA_VERSION`).
fn check_schema(report: &Report, line: u64, partial: &Path) -> Result<()> {
    let v = if report.run.is_some() && report.provenance.is_null() {
        Some(u64::from(factpico::SCHEMA_VERSION))
    } else {
        report.provenance.get("schema_version").and_then(serde_json::Value::as_u64)
    };
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

/// The provenance file of an output (`OUT.provenance.json`, output schema 3): the run's
/// provenance, written once, before the first row, instead of a copy in every row.
/// A name too long for `NAME_MAX` with the suffix is shortened with a hash of the full name
/// ([`factpico_io::sibling_path`]), as the partial file's is.
pub fn provenance_path(out: &Path) -> PathBuf {
    factpico_io::sibling_path(out, ".provenance.json")
}

/// Writes the run's provenance file atomically (pretty JSON and a newline; the rows'
/// `run` is [`factpico::provenance_hash`] of its value, whatever the whitespace); `path` `-`
/// writes it to standard output.
///
/// # Errors
/// I/O failure (naming the file).
pub fn write_provenance(path: &Path, provenance: &factpico::Provenance) -> Result<()> {
    let mut text = serde_json::to_vec_pretty(&provenance.to_value()).context("cannot serialise the provenance")?;
    text.push(b'\n');
    if is_stdout(path) {
        // `--provenance -`: once, before the first row; a reader that stopped early is its choice.
        let text = String::from_utf8(text).context("cannot serialise the provenance")?;
        print_stdout(&text).context("cannot write the provenance to standard output (--provenance -)")?;
        return Ok(());
    }
    write_atomic(path, &text).with_context(|| format!("cannot write the provenance file {}", path.display()))
}

/// Reads a provenance file ([`factpico::Provenance`]).
///
/// # Errors
/// I/O failure, not a JSON object or not a provenance (naming the file).
pub fn read_provenance(path: &Path) -> Result<factpico::Provenance> {
    typed_provenance(read_provenance_json(path)?, path)
}

/// The provenance in a provenance file's JSON object.
fn typed_provenance(v: serde_json::Value, path: &Path) -> Result<factpico::Provenance> {
    factpico::Provenance::from_value(v).with_context(|| format!("the provenance file {} is not a factpico provenance", path.display()))
}

/// Reads a provenance file as a JSON object (its schema version is checked before its shape).
fn read_provenance_json(path: &Path) -> Result<serde_json::Value> {
    let text = std::fs::read(path).with_context(|| format!("cannot read the provenance file {}", path.display()))?;
    let v: serde_json::Value =
        serde_json::from_slice(&text).with_context(|| format!("the provenance file {} is not valid JSON", path.display()))?;
    if !v.is_object() {
        bail!("the provenance file {} is not a JSON object", path.display());
    }
    Ok(v)
}

fn read_provenance_for_resume(path: &Path, partial: &Path) -> Result<factpico::Provenance> {
    let v = read_provenance_json(path).with_context(|| format!("--resume of {}", partial.display()))?;
    let version = v.get("schema_version").and_then(serde_json::Value::as_u64);
    if version != Some(u64::from(factpico::SCHEMA_VERSION)) {
        bail!(
            "--resume: {} was written by output schema version {} and this factpico writes version {}; \
             it cannot be continued: rerun without --resume (the new run replaces it)",
            path.display(),
            version.map_or_else(|| "unknown".to_owned(), |v| v.to_string()),
            factpico::SCHEMA_VERSION
        );
    }
    typed_provenance(v, path).with_context(|| format!("--resume of {}", partial.display()))
}

/// Names the keys whose values differ between two provenance objects (dotted paths).
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
/// writes, [`Report`]): an object with, in output schema 3, a `run` string (the hash of the
/// provenance stored beside the rows), or, in schemas 1 and 2, a `provenance` object with an
/// integer `schema_version` (1 to [`factpico::SCHEMA_VERSION`]); and a `scores` object or,
/// for an unreadable record, a `skipped` reason. Any other JSON (an input record, a ratings
/// row) is not a score row. Returns what is wrong.
fn check_row_schema(v: &serde_json::Value) -> std::result::Result<(), String> {
    let Some(obj) = v.as_object() else { return Err("it is not a JSON object".into()) };
    let run = obj.get("run").is_some_and(serde_json::Value::is_string);
    let version = obj.get("provenance").and_then(|p| p.get("schema_version")).and_then(serde_json::Value::as_u64);
    match version {
        _ if run && obj.get("provenance").is_none() => {}
        Some(n) if (1..=u64::from(factpico::SCHEMA_VERSION)).contains(&n) => {}
        Some(n) => return Err(format!("its schema_version {n} is not one this factpico reads (1 to {})", factpico::SCHEMA_VERSION)),
        None => return Err(format!(
            "it has neither a `run` (output schema {}) nor a provenance.schema_version (schemas 1 and 2)",
            factpico::SCHEMA_VERSION
        )),
    }
    let scores = obj.get("scores").is_some_and(serde_json::Value::is_object);
    let skipped = obj.get("skipped").is_some_and(serde_json::Value::is_string);
    if !scores && !skipped {
        return Err("it has neither a scores object nor a skipped reason".into());
    }
    Ok(())
}

/// What a score file records besides its rows.
#[derive(Debug, Default)]
pub struct ScoreFile {
    /// The run's provenance: the provenance file beside a JSONL of output schema 3 (when it
    /// is there and is the rows' `run`), the metadata of a Parquet file, or the first row's
    /// own copy in schemas 1 and 2.
    pub provenance: Option<factpico::Provenance>,
    /// Why the provenance is absent when rows reference one (missing or foreign provenance
    /// file), for the caller to warn.
    pub note: Option<String>,
}

/// Whether `path` names a Parquet file (extension `.parquet`, any case).
pub fn is_parquet(path: &Path) -> bool {
    path.extension().is_some_and(|e| e.eq_ignore_ascii_case("parquet"))
}

/// Calls `f` on every row of a factpico score file: JSONL written by `factpico score` (of
/// output schema 1 to [`factpico::SCHEMA_VERSION`]), streaming, blank lines ignored; or a
/// Parquet table (`.parquet`, [`factpico_io::parquet_rows`]), read whole. Returns the run's
/// provenance ([`ScoreFile`]).
///
/// # Errors
/// I/O failure, a line that is not a factpico score row (checked as [`check_row_schema`]
/// describes: an input file or any other JSON is refused), a Parquet file that is not a
/// score table, or an error from `f`.
pub fn for_each_report(path: &Path, mut f: impl FnMut(Report) -> Result<()>) -> Result<ScoreFile> {
    if is_parquet(path) {
        // Streamed one record batch at a time: memory does not grow with the file.
        let mut i = 0usize;
        let provenance = factpico_io::parquet_rows::for_each_parquet_row(path, |row| -> Result<()> {
            i += 1;
            let not_a_row = || format!("{}: row {i} is not a factpico score row", path.display());
            if !row.get("scores").is_some_and(serde_json::Value::is_object) && !row.get("skipped").is_some_and(serde_json::Value::is_string) {
                bail!("{} (it has neither scores nor a skipped reason); give files written by `factpico score`", not_a_row());
            }
            f(serde_json::from_value(row).with_context(not_a_row)?)
        })?;
        let key = factpico_io::parquet_rows::PROVENANCE_KEY;
        return Ok(match provenance.map(factpico::Provenance::from_value) {
            Some(Ok(p)) => ScoreFile { provenance: Some(p), note: None },
            Some(Err(e)) => ScoreFile { provenance: None, note: Some(format!("{}: its `{key}` metadata is not a factpico provenance ({e}): the provenance is not shown", path.display())) },
            None => ScoreFile { provenance: None, note: Some(format!("{} has no `{key}` metadata: the provenance is not shown", path.display())) },
        });
    }
    let file = std::fs::File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    let mut info = ScoreFile::default();
    let mut run: Option<String> = None;
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
        if info.provenance.is_none() && info.note.is_none() && report.provenance.is_object() {
            // Output schemas 1 and 2: the first row's own copy.
            match factpico::Provenance::from_value(report.provenance.clone()) {
                Ok(p) => info.provenance = Some(p),
                Err(e) => info.note = Some(format!("the provenance of line {} is not a factpico provenance ({e}): it is not shown", i + 1)),
            }
        }
        if run.is_none() {
            run.clone_from(&report.run);
        }
        f(report)?;
    }
    if let (None, Some(run)) = (&info.provenance, run) {
        let p = provenance_path(path);
        match read_provenance(&p) {
            Ok(v) if v.hash() == run => info.provenance = Some(v),
            Ok(v) => {
                info.note = Some(format!(
                    "{} is the provenance of run {} but the rows are run {run} (a later run replaced it?): the provenance is not shown",
                    p.display(),
                    v.hash()
                ));
            }
            Err(_) if !p.exists() => {
                info.note = Some(format!("the rows' provenance file {} is missing: options and model hashes are not shown", p.display()));
            }
            Err(e) => info.note = Some(format!("{e:#}: the provenance is not shown")),
        }
    }
    Ok(info)
}

/// Refuses output paths that would overwrite an input, each other (or the JSONL output's
/// partial file), a directory or a special file, before anything is written
/// ([`factpico_io::PathGuard`]). `inputs` are (label, path) of everything the run reads;
/// `databases` (label, path) the databases it updates in place (the LLM request cache: with
/// its `-wal` and `-shm` files, never a symbolic link, [`factpico_io::PathGuard::database`]),
/// checked before the outputs, which may then not replace them; an output `-` (standard
/// output) is not a file and is not checked.
///
/// # Errors
/// The first refused database or output, with what it would overwrite.
pub fn check_paths(inputs: &[(String, PathBuf)], outputs: &[(&str, Option<&Path>)], databases: &[(&str, &Path)]) -> Result<()> {
    let mut guard = factpico_io::PathGuard::new();
    for (label, p) in inputs {
        if p != Path::new("-") {
            guard.input(label.as_str(), p);
        }
    }
    for (label, p) in databases {
        guard.database(*label, p)?;
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

/// Where `factpico score` writes its rows: JSON lines ([`AtomicJsonl`]: a resumable partial
/// file, or standard output) or a Parquet table ([`factpico_io::parquet_rows::ParquetRows`]:
/// rows buffered per block, the file renamed into place when complete; not resumable).
pub enum RowWriter {
    /// JSON lines.
    Jsonl(AtomicJsonl),
    /// A Parquet table and the rows of the current block.
    Parquet(Box<factpico_io::parquet_rows::ParquetRows>, Vec<serde_json::Value>),
}

impl RowWriter {
    /// Starts a Parquet table at `out` with the score `columns` and the run's provenance.
    ///
    /// # Errors
    /// The file cannot be created.
    pub fn parquet(out: &Path, columns: &[&str], provenance: &factpico::Provenance) -> Result<Self> {
        Ok(Self::Parquet(Box::new(factpico_io::parquet_rows::ParquetRows::create(out, columns, &provenance.to_value())?), Vec::new()))
    }

    /// Appends one row.
    ///
    /// # Errors
    /// Serialisation or I/O failure (naming the file or standard output).
    pub fn write(&mut self, report: &Report) -> Result<()> {
        match self {
            Self::Jsonl(w) => w.write(report),
            Self::Parquet(_, pending) => {
                pending.push(serde_json::to_value(report).context("cannot serialise a row")?);
                Ok(())
            }
        }
    }

    /// Appends one row as the bytes already written for it (JSON lines only: a retry of a
    /// finished output, which Parquet outputs refuse before any writer exists).
    ///
    /// # Errors
    /// I/O failure; a Parquet writer.
    pub fn write_line(&mut self, line: &[u8]) -> Result<()> {
        match self {
            Self::Jsonl(w) => w.write_line(line),
            Self::Parquet(..) => bail!("a Parquet output cannot copy JSON lines"),
        }
    }

    /// Flushes the rows of the block (JSON lines to the partial file; a Parquet row batch).
    ///
    /// # Errors
    /// I/O failure.
    pub fn flush(&mut self) -> Result<()> {
        match self {
            Self::Jsonl(w) => w.flush(),
            Self::Parquet(w, pending) => {
                w.write(pending)?;
                pending.clear();
                Ok(())
            }
        }
    }

    /// Completes the output (renamed to its final name); `None` for standard output.
    ///
    /// # Errors
    /// I/O failure.
    pub fn finish(mut self) -> Result<Option<PathBuf>> {
        self.flush()?;
        match self {
            Self::Jsonl(w) => w.finish(),
            Self::Parquet(w, _) => Ok(Some((*w).finish()?)),
        }
    }
}
