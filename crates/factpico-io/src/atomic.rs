//! One-shot outputs: a fresh, exclusively created temporary file renamed over the target.

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use crate::target::{temp_affixes, temp_owner};
use crate::{check_output_path, dir_of, ensure_parent, sync_dir, Error, Result};

/// A file written under a temporary name and renamed to its final name by
/// [`AtomicFile::commit`]. Dropped without `commit`, the temporary file is removed and the
/// final name is untouched.
///
/// The target must pass [`check_output_path`] (not a symbolic link, not a file descriptor such
/// as `/dev/stdout`), when created and again at the rename.
///
/// The temporary file is `.<name>.<pid>.<random>.tmp.<extension>` in the target's directory
/// (`pid`: the writer's process id; a name too long for `NAME_MAX` is shortened with a hash),
/// created with
/// `O_CREAT|O_EXCL` (nothing that exists, symlink or not, is opened) and the usual
/// permissions (`0666` minus the umask). Writes through [`std::io::Write`] are buffered;
/// their errors name the file.
///
/// A run killed before its rename (`kill -9`, a power cut) leaves its temporary file behind.
/// On Linux the next writer of the same target removes such files, [`remove_stale_temps`]:
/// exactly those named by this pattern for this target whose process is gone.
///
/// ```
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("table.md");
/// let mut f = factpico_io::AtomicFile::create(&path)?;
/// std::io::Write::write_all(&mut f, b"| a |\n")?;
/// assert!(!path.exists());
/// f.commit()?;
/// assert_eq!(std::fs::read_to_string(&path)?, "| a |\n");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct AtomicFile {
    target: PathBuf,
    tmp_path: PathBuf,
    writer: BufWriter<tempfile::NamedTempFile>,
}

impl std::fmt::Debug for AtomicFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AtomicFile").field("target", &self.target).field("tmp", &self.tmp_path).finish()
    }
}

/// A fresh temporary file beside `target` (exclusive creation, `0666` minus umask), named
/// `.<name>.<pid>.<random>.tmp.<ext>`; stale temporary files of the same target are removed
/// first ([`remove_stale_temps`]).
pub(crate) fn fresh_temp(target: &Path) -> Result<tempfile::NamedTempFile> {
    ensure_parent(target)?;
    let dir = dir_of(target);
    let name = target.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    // The target's extension last, for writers that pick a format from it (PNG encoders);
    // both shortened when the name would exceed NAME_MAX.
    let ext = target.extension().map(|e| e.to_string_lossy().into_owned());
    let (prefix, suffix) = temp_affixes(&name, ext.as_deref());
    remove_stale_temps(dir, &prefix, &suffix);
    let owned = format!("{prefix}{}.", std::process::id());
    let mut b = tempfile::Builder::new();
    b.prefix(&owned).suffix(&suffix).rand_bytes(6);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        b.permissions(std::fs::Permissions::from_mode(0o666));
    }
    b.tempfile_in(dir).map_err(|e| Error::io("cannot create a temporary file in", dir, e))
}

/// Removes, from `dir`, the temporary files of one target (names `<prefix><pid>.<6 letters or
/// digits><suffix>`, [`temp_owner`]) left by processes that no longer run: on Linux, those
/// whose `/proc/<pid>` is absent (with `/proc` mounted). Never a file of this process or of a
/// live one (a concurrent run onto the same target), never a name outside that exact pattern
/// (older temporary names without a pid are left), never anything but a regular file.
/// Best effort: errors are ignored. Elsewhere it does nothing.
///
/// A process id of another PID namespace (a container writing into the same directory) can
/// look dead from here: directories shared by runs in different containers should not hold
/// the same output. A dead run's pid reused by a live process leaves its file in place.
pub(crate) fn remove_stale_temps(dir: &Path, prefix: &str, suffix: &str) {
    #[cfg(target_os = "linux")]
    {
        let proc = Path::new("/proc");
        if !proc.join("self").exists() {
            return;
        }
        let Ok(entries) = std::fs::read_dir(dir) else { return };
        let me = std::process::id();
        for e in entries.flatten() {
            let name = e.file_name();
            let Some(pid) = name.to_str().and_then(|n| temp_owner(n, prefix, suffix)) else { continue };
            if pid == me || proc.join(pid.to_string()).exists() {
                continue;
            }
            if e.file_type().is_ok_and(|t| t.is_file()) {
                let _ = std::fs::remove_file(e.path());
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (dir, prefix, suffix, temp_owner);
}

impl AtomicFile {
    /// Creates the temporary file for `target` (creating missing parent directories).
    ///
    /// # Errors
    /// [`Error::Refused`] by [`check_output_path`]; [`Error::Io`] when the directory or the
    /// file cannot be created.
    pub fn create(target: &Path) -> Result<Self> {
        check_output_path(target)?;
        let tmp = fresh_temp(target)?;
        let tmp_path = tmp.path().to_owned();
        Ok(Self { target: target.to_owned(), tmp_path, writer: BufWriter::with_capacity(1 << 16, tmp) })
    }

    /// The final path.
    pub fn target(&self) -> &Path {
        &self.target
    }

    /// The temporary file's path (e.g. for a library that writes to a path itself).
    pub fn temp_path(&self) -> &Path {
        &self.tmp_path
    }

    /// Flushes and syncs the data, renames the temporary file to the target and syncs the
    /// directory. Returns the target.
    ///
    /// # Errors
    /// [`Error::Io`]: the flush, sync or rename failed; [`Error::Refused`]: the target became a
    /// link or file descriptor meanwhile (the temporary file is then removed).
    pub fn commit(self) -> Result<PathBuf> {
        let Self { target, tmp_path, writer } = self;
        let tmp = writer.into_inner().map_err(|e| Error::io("cannot write", &tmp_path, e.into_error()))?;
        tmp.as_file().sync_all().map_err(|e| Error::io("cannot sync", &tmp_path, e))?;
        // The name may have become a link meanwhile: never replace one.
        check_output_path(&target)?;
        tmp.persist(&target).map_err(|e| {
            Error::io(format!("cannot rename {} to", tmp_path.display()), &target, e.error)
        })?;
        sync_dir(dir_of(&target));
        Ok(target)
    }
}

/// Adds the file name to an I/O error of a write (the `Write` trait cannot carry a path).
pub(crate) fn with_path(e: std::io::Error, path: &Path) -> std::io::Error {
    std::io::Error::new(e.kind(), format!("cannot write {}: {e}", path.display()))
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.writer.write(buf).map_err(|e| with_path(e, &self.tmp_path))
    }

    fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()> {
        self.writer.write_all(buf).map_err(|e| with_path(e, &self.tmp_path))
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.writer.flush().map_err(|e| with_path(e, &self.tmp_path))
    }
}

/// Writes `contents` to `path` atomically ([`AtomicFile`]).
///
/// # Errors
/// [`Error::Io`] naming the file.
pub fn write_atomic(path: &Path, contents: &[u8]) -> Result<()> {
    let mut f = AtomicFile::create(path)?;
    f.writer.write_all(contents).map_err(|e| Error::io("cannot write", &f.tmp_path, e))?;
    f.commit().map(|_| ())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn never_writes_through_links_and_cleans_up() {
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("victim");
        std::fs::write(&victim, b"keep").unwrap();
        let out = dir.path().join("out.txt");
        #[cfg(unix)]
        std::os::unix::fs::symlink(&victim, &out).unwrap();
        // A link at the final name is refused (never replaced, never written through).
        #[cfg(unix)]
        {
            let e = write_atomic(&out, b"new").unwrap_err();
            assert!(e.to_string().contains("symbolic link"), "{e}");
            assert_eq!(std::fs::read(&victim).unwrap(), b"keep");
            assert!(std::fs::symlink_metadata(&out).unwrap().file_type().is_symlink());
            std::fs::remove_file(&out).unwrap();
        }
        write_atomic(&out, b"new").unwrap();
        assert_eq!(std::fs::read(&victim).unwrap(), b"keep");
        assert_eq!(std::fs::read(&out).unwrap(), b"new");
        // Dropped without commit: nothing left behind, the target unchanged.
        let mut f = AtomicFile::create(&out).unwrap();
        f.write_all(b"half").unwrap();
        let tmp = f.temp_path().to_owned();
        drop(f);
        assert!(!tmp.exists());
        assert_eq!(std::fs::read(&out).unwrap(), b"new");
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names.len(), 2, "{names:?}");
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn stale_temps_of_dead_runs_are_removed_and_live_ones_kept() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let out = d.join("o.csv");
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let dead = child.id();
        child.wait().unwrap();
        let me = std::process::id();
        let stale = d.join(format!(".o.csv.{dead}.aE5iqI.tmp.csv"));
        let live = d.join(format!(".o.csv.{me}.bF6jrJ.tmp.csv"));
        let init = d.join(".o.csv.1.cG7ksK.tmp.csv"); // pid 1 is alive
        let old = d.join(".o.csv.aE5iqI.tmp.csv"); // an older name: its owner is unknown
        let other = d.join(format!(".p.csv.{dead}.aE5iqI.tmp.csv")); // another target's
        let near = d.join(format!(".o.csv.{dead}.aE5iqI.tmp.csv.keep"));
        for p in [&stale, &live, &init, &old, &other, &near] {
            std::fs::write(p, "x").unwrap();
        }
        let stale_dir = d.join(format!(".o.csv.{dead}.dH8ltL.tmp.csv"));
        std::fs::create_dir(&stale_dir).unwrap();
        let mut f = AtomicFile::create(&out).unwrap();
        let tmp = f.temp_path().to_owned();
        let tmp_name = tmp.file_name().unwrap().to_str().unwrap().to_owned();
        assert!(tmp_name.starts_with(&format!(".o.csv.{me}.")) && tmp_name.ends_with(".tmp.csv"), "{tmp_name}");
        assert!(!stale.exists(), "the dead run's temporary file is removed");
        for p in [&live, &init, &old, &other, &near, &stale_dir] {
            assert!(p.exists(), "{} is kept", p.display());
        }
        f.write_all(b"a").unwrap();
        f.commit().unwrap();
        assert_eq!(std::fs::read(&out).unwrap(), b"a");
    }

    #[test]
    fn errors_name_the_file() {
        let e = write_atomic(Path::new("/proc/definitely/not/here.txt"), b"x").unwrap_err();
        assert!(e.to_string().contains("/proc/definitely/not"), "{e}");
    }
}
