//! Resumable outputs: `OUT.partial`, locked for the whole run, renamed to `OUT` when complete.

use std::fs::{File, Metadata, OpenOptions};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use crate::atomic::{fresh_temp, with_path};
use crate::{check_output_path, dir_of, partial_path, sync_dir, Error, Result};

/// How [`PartialFile::create`] found the partial-file path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PartialOpen {
    /// Nothing was there.
    Fresh,
    /// The unlocked partial file of an earlier, dead run (this many bytes) was replaced by a
    /// new empty one (its name now points to the new file; its data was not written to).
    ReplacedStale(u64),
}

/// The partial file of a resumable output, held under an exclusive advisory lock
/// (`flock`) until it is dropped or committed.
///
/// * [`PartialFile::create`] starts a new partial file: a fresh temporary file, locked, then
///   moved to `OUT.partial` without replacing anything ([`tempfile::NamedTempFile::persist_noclobber`]).
///   When `OUT.partial` exists it must be a plain file (not a symlink, no other hard link)
///   whose lock is free, i.e. left by a dead run: it is then replaced by a rename (its data
///   is never opened for writing). A locked one is [`Error::Busy`].
/// * [`PartialFile::open_existing`] continues a dead run's partial file (`--resume`), with the
///   same checks.
/// * [`PartialFile::commit`] syncs and renames it to `OUT` after checking that the name
///   still refers to this file.
///
/// On filesystems without advisory locks (some network filesystems) the lock is skipped and
/// concurrent runs are not detected.
pub struct PartialFile {
    output: PathBuf,
    partial: PathBuf,
    file: File,
    writer: BufWriter<File>,
}

impl std::fmt::Debug for PartialFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PartialFile").field("output", &self.output).field("partial", &self.partial).finish()
    }
}

#[cfg(unix)]
fn same_file(a: &Metadata, b: &Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    a.dev() == b.dev() && a.ino() == b.ino()
}

#[cfg(not(unix))]
fn same_file(a: &Metadata, b: &Metadata) -> bool {
    a.len() == b.len() && a.modified().ok() == b.modified().ok()
}

#[cfg(unix)]
fn links(m: &Metadata) -> u64 {
    use std::os::unix::fs::MetadataExt;
    m.nlink()
}

#[cfg(not(unix))]
fn links(_: &Metadata) -> u64 {
    1
}

enum Lock {
    Held,
    Busy,
}

fn try_lock(file: &File, path: &Path) -> Result<Lock> {
    match file.try_lock() {
        Ok(()) => Ok(Lock::Held),
        Err(std::fs::TryLockError::WouldBlock) => Ok(Lock::Busy),
        // No advisory locks here (some network filesystems): go on without.
        Err(std::fs::TryLockError::Error(e)) if e.kind() == std::io::ErrorKind::Unsupported => Ok(Lock::Held),
        Err(std::fs::TryLockError::Error(e)) => Err(Error::io("cannot lock", path, e)),
    }
}

/// Checks what lies at the partial-file path (`lstat`): `None` when nothing.
fn inspect(partial: &Path) -> Result<Option<Metadata>> {
    let meta = match std::fs::symlink_metadata(partial) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(Error::io("cannot inspect", partial, e)),
    };
    let remove = "factpico writes its partial output there itself and never through a link or into another file; remove it (or choose another output)";
    if meta.file_type().is_symlink() {
        return Err(Error::refused(partial, format!("is a symbolic link; {remove}")));
    }
    if !meta.is_file() {
        return Err(Error::refused(partial, format!("exists and is not a regular file; {remove}")));
    }
    if links(&meta) > 1 {
        return Err(Error::refused(
            partial,
            format!("has {} other hard link(s), so it is another file's data too; {remove}", links(&meta) - 1),
        ));
    }
    Ok(Some(meta))
}

/// Opens and locks the existing partial file described by `meta`; `None` when the name was
/// replaced meanwhile (the caller retries).
fn open_locked(output: &Path, partial: &Path, meta: &Metadata, write: bool) -> Result<Option<File>> {
    let file = OpenOptions::new()
        .read(true)
        .write(write)
        .open(partial)
        .map_err(|e| Error::io("cannot open", partial, e))?;
    let opened = file.metadata().map_err(|e| Error::io("cannot inspect", partial, e))?;
    if !same_file(meta, &opened) {
        return Ok(None);
    }
    if let Lock::Busy = try_lock(&file, partial)? {
        return Err(Error::Busy { output: output.to_owned(), partial: partial.to_owned() });
    }
    // The lock is ours; is the name still this file (not replaced by a run that just ended)?
    match inspect(partial)? {
        Some(now) if same_file(&now, &opened) => Ok(Some(file)),
        _ => Ok(None),
    }
}

impl PartialFile {
    /// Starts a new, empty partial file for `output` (see the type's docs).
    ///
    /// # Errors
    /// [`Error::Busy`] (a live run writes this output), [`Error::Refused`] (a link, a
    /// directory or a special file is at `OUT.partial`; `output` is refused by
    /// [`check_output_path`]), [`Error::Io`].
    pub fn create(output: &Path) -> Result<(Self, PartialOpen)> {
        check_output_path(output)?;
        let partial = partial_path(output);
        for _ in 0..8 {
            let tmp = fresh_temp(&partial)?;
            if let Lock::Busy = try_lock(tmp.as_file(), tmp.path())? {
                return Err(Error::io("cannot lock", tmp.path(), std::io::ErrorKind::WouldBlock.into()));
            }
            let tmp = match tmp.persist_noclobber(&partial) {
                Ok(file) => return Ok((Self::new(output, partial, file)?, PartialOpen::Fresh)),
                Err(e) if e.error.kind() == std::io::ErrorKind::AlreadyExists => e.file,
                Err(e) => {
                    let p = e.file.path().to_owned();
                    return Err(Error::io(format!("cannot rename {} to", p.display()), &partial, e.error));
                }
            };
            let Some(meta) = inspect(&partial)? else { continue };
            let Some(old) = open_locked(output, &partial, &meta, false)? else { continue };
            // A dead run's partial file: replace the name (the old data is not written to).
            let file = tmp.persist(&partial).map_err(|e| {
                let p = e.file.path().to_owned();
                Error::io(format!("cannot rename {} to", p.display()), &partial, e.error)
            })?;
            drop(old);
            sync_dir(dir_of(&partial));
            return Ok((Self::new(output, partial, file)?, PartialOpen::ReplacedStale(meta.len())));
        }
        Err(Error::refused(&partial, "kept changing while factpico tried to create it; is another program writing there?"))
    }

    /// Reopens the partial file of an interrupted run of `output` for reading and appending;
    /// `None` when there is none.
    ///
    /// # Errors
    /// [`Error::Busy`] (a live run writes this output), [`Error::Refused`] (a link, a
    /// directory or a special file is at `OUT.partial`), [`Error::Io`].
    pub fn open_existing(output: &Path) -> Result<Option<Self>> {
        check_output_path(output)?;
        let partial = partial_path(output);
        for _ in 0..8 {
            let Some(meta) = inspect(&partial)? else { return Ok(None) };
            if let Some(file) = open_locked(output, &partial, &meta, true)? {
                return Ok(Some(Self::new(output, partial, file)?));
            }
        }
        Err(Error::refused(&partial, "kept changing while factpico tried to open it; is another program writing there?"))
    }

    fn new(output: &Path, partial: PathBuf, file: File) -> Result<Self> {
        let clone = file.try_clone().map_err(|e| Error::io("cannot open", &partial, e))?;
        Ok(Self { output: output.to_owned(), partial, file, writer: BufWriter::with_capacity(1 << 16, clone) })
    }

    /// The final output path.
    pub fn output(&self) -> &Path {
        &self.output
    }

    /// The partial file's path (`OUT.partial`).
    pub fn path(&self) -> &Path {
        &self.partial
    }

    /// The locked file itself (to read back and truncate a partial file before appending).
    /// Flush ([`Write::flush`]) before using it when rows were written.
    pub fn file(&mut self) -> &mut File {
        &mut self.file
    }

    /// Flushes, syncs and renames the partial file to the output; returns the output path.
    ///
    /// # Errors
    /// [`Error::Io`]; [`Error::Refused`] when `OUT.partial` no longer names this file, or the
    /// output's name is now refused by [`check_output_path`] (then nothing is renamed).
    pub fn commit(mut self) -> Result<PathBuf> {
        self.writer.flush().map_err(|e| Error::io("cannot write", &self.partial, e))?;
        self.file.sync_all().map_err(|e| Error::io("cannot sync", &self.partial, e))?;
        let mine = self.file.metadata().map_err(|e| Error::io("cannot inspect", &self.partial, e))?;
        match std::fs::symlink_metadata(&self.partial) {
            Ok(now) if same_file(&now, &mine) => {}
            _ => {
                return Err(Error::refused(
                    &self.partial,
                    "was removed or replaced by another program during the run; the output was not renamed",
                ))
            }
        }
        // The output's name may have become a link meanwhile: never replace one.
        check_output_path(&self.output)?;
        std::fs::rename(&self.partial, &self.output)
            .map_err(|e| Error::io(format!("cannot rename {} to", self.partial.display()), &self.output, e))?;
        sync_dir(dir_of(&self.output));
        Ok(self.output)
    }
}

impl Write for PartialFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.writer.write(buf).map_err(|e| with_path(e, &self.partial))
    }

    fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()> {
        self.writer.write_all(buf).map_err(|e| with_path(e, &self.partial))
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.writer.flush().map_err(|e| with_path(e, &self.partial))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn second_writer_is_busy_and_stale_files_are_replaced_not_written() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("o.jsonl");
        let (mut a, how) = PartialFile::create(&out).unwrap();
        assert_eq!(how, PartialOpen::Fresh);
        a.write_all(b"row\n").unwrap();
        a.flush().unwrap();
        assert!(matches!(PartialFile::create(&out), Err(Error::Busy { .. })));
        assert!(matches!(PartialFile::open_existing(&out), Err(Error::Busy { .. })));
        drop(a); // a dead run: its partial file stays, unlocked
        let stale = std::fs::read(partial_path(&out)).unwrap();
        assert_eq!(stale, b"row\n");
        let (b, how) = PartialFile::create(&out).unwrap();
        assert_eq!(how, PartialOpen::ReplacedStale(4));
        assert_eq!(std::fs::read(partial_path(&out)).unwrap(), b"");
        assert_eq!(b.commit().unwrap(), out);
        assert!(!partial_path(&out).exists());
        assert_eq!(std::fs::read(&out).unwrap(), b"");
    }

    #[cfg(unix)]
    #[test]
    fn links_at_the_partial_path_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("victim");
        std::fs::write(&victim, b"keep").unwrap();
        let out = dir.path().join("o.jsonl");
        std::os::unix::fs::symlink(&victim, partial_path(&out)).unwrap();
        let e = PartialFile::create(&out).unwrap_err();
        assert!(e.to_string().contains("symbolic link"), "{e}");
        assert!(PartialFile::open_existing(&out).is_err());
        std::fs::remove_file(partial_path(&out)).unwrap();
        std::fs::hard_link(&victim, partial_path(&out)).unwrap();
        let e = PartialFile::create(&out).unwrap_err();
        assert!(e.to_string().contains("hard link"), "{e}");
        assert!(PartialFile::open_existing(&out).is_err());
        assert_eq!(std::fs::read(&victim).unwrap(), b"keep");
    }
}
