//! # factpico-io
//!
//! The one place where factpico writes files it promises things about. Every writer of the
//! project (`factpico score` rows, CSV and summary; `factpico meta-eval` tables and plots;
//! the LLM request cache, reports and the Python API's outputs) goes through these types, so
//! the guarantees documented in `docs/cli.md` ("Guarantees") hold for all of them:
//!
//! * [`AtomicFile`] / [`write_atomic`]: a one-shot output is written to a fresh temporary file
//!   created exclusively (`O_CREAT|O_EXCL`, same directory, named
//!   `.NAME.PID.RANDOM.tmp.EXT`), synced, then renamed over the final name. On Linux a writer
//!   first removes the temporary files of the same target whose process is gone (a killed run's). Nothing that already exists is opened for writing: a symlink or hard
//!   link lying at any name the writer uses is never followed, and a failed or interrupted
//!   write leaves the final name untouched.
//! * [`PartialFile`]: a resumable output (`OUT.partial`, renamed to `OUT` when complete),
//!   held under an exclusive advisory lock for the whole run, so a second run onto the same
//!   output is refused ([`Error::Busy`]) instead of interleaving its rows. A stale partial
//!   file of a dead run is replaced by a new run (never written through) or continued by
//!   `--resume` (after checking it is a plain file with no other links).
//! * [`PathGuard`]: every file or directory a run reads (input, side inputs, model
//!   directories) is registered; an output that is the same file (through any path, symlink
//!   or hard link), lies inside a registered directory, or collides with another output of
//!   the same run is refused before anything is written.
//! * [`check_output_path`]: the rule every writer applies to its final name: an output whose
//!   last component is a symbolic link is never replaced (refused), and a path that is or
//!   leads to a standard stream or file descriptor (`/dev/stdout`, `/proc/self/fd/1`) is
//!   refused with "use `-o -`". Temporary and partial names are shortened (with a hash of
//!   the full name) to fit the 255-byte `NAME_MAX`, so every legal output name works.
//!
//! * [`delimited`]: the raw-byte rules both CSV / TSV readers follow (`factpico score`'s
//!   input, `factpico meta-eval`'s files): line numbers, quotes never closed or followed by
//!   text, literal TSV, duplicate header names.
//!
//! * [`parquet_rows`] (feature `parquet`): score rows as a Parquet table (the Python
//!   package's Arrow layout, the run's provenance in the schema metadata), written atomically.
//!
//! Errors carry the path and what was being done ([`Error::Io`]); the I/O error is the
//! `source()` (`anyhow`'s `{:#}` prints both).

mod atomic;
pub mod delimited;
mod error;
mod format;
mod guard;
#[cfg(feature = "parquet")]
pub mod parquet_rows;
mod partial;
mod target;

pub use atomic::{write_atomic, AtomicFile};
pub use error::{Error, Result};
pub use format::Format;
pub use guard::PathGuard;
pub use partial::{PartialFile, PartialOpen};
pub use target::{check_database_path, check_not_descriptor, check_output_path, database_files, partial_path, sibling_path};

use std::path::Path;

/// Creates the parent directory of `path` (and its parents) when it does not exist.
///
/// # Errors
/// [`Error::Io`] when a directory cannot be created.
pub fn ensure_parent(path: &Path) -> Result<()> {
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() && !dir.exists() => {
            std::fs::create_dir_all(dir).map_err(|e| Error::io("cannot create the directory", dir, e))
        }
        _ => Ok(()),
    }
}

/// The directory a file `path` lives in (`.` for a bare file name).
pub(crate) fn dir_of(path: &Path) -> &Path {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    }
}

/// Syncs a directory so that a rename in it survives a crash (best effort: not every
/// platform or filesystem can open or sync a directory).
pub(crate) fn sync_dir(dir: &Path) {
    if let Ok(d) = std::fs::File::open(dir) {
        let _ = d.sync_all();
    }
}
