//! Atomic, resumable JSONL output.
//!
//! Rows are appended to `<out>.partial` and flushed after every block; the
//! file is renamed to `<out>` only when the run completes, so an interrupted
//! run never leaves a truncated file under the final name. `--resume` reads the
//! partial file back, drops a trailing incomplete line, checks that it was
//! written with the same options, and continues after the last complete row.

use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, BufWriter, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use factpico::Report;

/// The `<out>.partial` path of an output path.
pub fn partial_path(out: &Path) -> PathBuf {
    let mut s = out.as_os_str().to_owned();
    s.push(".partial");
    PathBuf::from(s)
}

/// A JSONL writer to `<out>.partial`, renamed to `<out>` by [`AtomicJsonl::finish`];
/// or, for `-o -`, straight to standard output (no atomicity, no resume).
pub struct AtomicJsonl {
    out: Option<PathBuf>,
    partial: PathBuf,
    writer: Box<dyn Write>,
    file: Option<File>,
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
    /// Starts a fresh partial file (an existing one is replaced).
    ///
    /// # Errors
    /// The partial file cannot be created.
    pub fn create(out: &Path) -> Result<Self> {
        ensure_parent(out)?;
        let partial = partial_path(out);
        let file = File::create(&partial).with_context(|| format!("cannot create {}", partial.display()))?;
        let writer = Box::new(BufWriter::new(file.try_clone()?));
        Ok(Self { out: Some(out.to_owned()), partial, writer, file: Some(file) })
    }

    /// Rows go to standard output as they are scored (`-o -`).
    pub fn stdout() -> Self {
        Self { out: None, partial: PathBuf::new(), writer: Box::new(BufWriter::new(std::io::stdout())), file: None }
    }

    /// Reopens the partial file of an interrupted run for appending.
    ///
    /// `options_fingerprint` ([`resume_fingerprint`] of this run's provenance) is compared
    /// with that of the rows already written (a resumed run must use the same options and
    /// models); `on_row`
    /// sees every complete row already written, in order (the caller checks that
    /// they match the input and feeds its summary).
    ///
    /// # Errors
    /// No partial file exists, a complete line is not a valid row, the
    /// options differ, or `on_row` fails.
    pub fn resume(
        out: &Path,
        options_fingerprint: &serde_json::Value,
        mut on_row: impl FnMut(&Report) -> Result<()>,
    ) -> Result<(Self, Resumed)> {
        let partial = partial_path(out);
        if !partial.exists() {
            if out.exists() {
                bail!(
                    "--resume: {} is already complete (no {} to resume); remove it to score again",
                    out.display(),
                    partial.display()
                );
            }
            bail!("--resume: no interrupted run found ({} does not exist)", partial.display());
        }
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .open(&partial)
            .with_context(|| format!("cannot open {}", partial.display()))?;
        let total = file.metadata()?.len();
        let mut reader = BufReader::new(&mut file);
        let mut good_end = 0u64;
        let mut rows = 0u64;
        let mut line = Vec::new();
        loop {
            line.clear();
            let n = reader.read_until(b'\n', &mut line)?;
            if n == 0 {
                break;
            }
            if line.last() != Some(&b'\n') {
                break; // incomplete last line: the run died while writing it
            }
            let report: Report = serde_json::from_slice(&line).with_context(|| {
                format!("--resume: line {} of {} is not a valid factpico row", rows + 1, partial.display())
            })?;
            let then = resume_fingerprint(&report.provenance);
            if report.skipped.is_none() && then != *options_fingerprint {
                bail!(
                    "--resume: {} was written with different options or models ({}); rerun without --resume",
                    partial.display(),
                    describe_difference(&then, options_fingerprint)
                );
            }
            on_row(&report)?;
            rows += 1;
            good_end += n as u64;
        }
        drop(reader);
        file.set_len(good_end)?;
        file.seek(SeekFrom::End(0))?;
        let writer = Box::new(BufWriter::new(file.try_clone()?));
        Ok((
            Self { out: Some(out.to_owned()), partial, writer, file: Some(file) },
            Resumed { rows_done: rows, dropped_bytes: total - good_end },
        ))
    }

    /// Appends one row.
    ///
    /// # Errors
    /// Serialisation or I/O failure.
    pub fn write(&mut self, report: &Report) -> Result<()> {
        serde_json::to_writer(&mut self.writer, report)?;
        self.writer.write_all(b"\n")?;
        Ok(())
    }

    /// Flushes buffered rows to the partial file (called after each block).
    ///
    /// # Errors
    /// I/O failure.
    pub fn flush(&mut self) -> Result<()> {
        self.writer.flush()?;
        Ok(())
    }

    /// Flushes, syncs and renames the partial file to the final path.
    ///
    /// # Errors
    /// I/O failure.
    pub fn finish(mut self) -> Result<Option<PathBuf>> {
        self.writer.flush()?;
        drop(self.writer);
        let Some(out) = self.out else { return Ok(None) };
        if let Some(f) = &self.file {
            f.sync_all()?;
        }
        std::fs::rename(&self.partial, &out)
            .with_context(|| format!("cannot rename {} to {}", self.partial.display(), out.display()))?;
        Ok(Some(out))
    }
}

/// Names the option keys whose values differ between two option objects (dotted paths).
/// The part of a row's provenance a resumed run must reproduce: `options` and `metrics`
/// (each metric's settings, model directories and model sha256).
pub fn resume_fingerprint(provenance: &serde_json::Value) -> serde_json::Value {
    let null = serde_json::Value::Null;
    serde_json::json!({
        "options": provenance.get("options").unwrap_or(&null),
        "metrics": provenance.get("metrics").unwrap_or(&null),
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

/// Creates the parent directory of `path` when it does not exist.
///
/// # Errors
/// The directory cannot be created.
pub fn ensure_parent(path: &Path) -> Result<()> {
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() && !dir.exists() => std::fs::create_dir_all(dir)
            .with_context(|| format!("cannot create the output directory {}", dir.display())),
        _ => Ok(()),
    }
}

/// Writes `contents` to `path` atomically (temporary file in the same directory, then rename).
///
/// # Errors
/// I/O failure.
pub fn write_atomic(path: &Path, contents: &[u8]) -> Result<()> {
    ensure_parent(path)?;
    let tmp = partial_path(path);
    std::fs::write(&tmp, contents).with_context(|| format!("cannot write {}", tmp.display()))?;
    std::fs::rename(&tmp, path).with_context(|| format!("cannot rename {} to {}", tmp.display(), path.display()))?;
    Ok(())
}

/// Calls `f` on every row of a factpico JSONL file, streaming.
///
/// # Errors
/// I/O failure, a line that is not a row, or an error from `f`.
pub fn for_each_report(path: &Path, mut f: impl FnMut(Report) -> Result<()>) -> Result<()> {
    let file = File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    for (i, line) in BufReader::new(file).lines().enumerate() {
        let line = line.with_context(|| format!("{}: line {}", path.display(), i + 1))?;
        if line.trim().is_empty() {
            continue;
        }
        let report: Report = serde_json::from_str(&line)
            .with_context(|| format!("{}: line {} is not a factpico row", path.display(), i + 1))?;
        f(report)?;
    }
    Ok(())
}
