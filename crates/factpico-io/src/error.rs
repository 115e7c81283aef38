//! The error type of factpico-io.

use std::path::PathBuf;

/// Result with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// What went wrong with an output file. Every variant names the file.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// An I/O operation failed (the I/O error is the `source()`; `anyhow`'s `{:#}` shows it,
    /// e.g. "cannot write /data/o.jsonl.partial: No space left on device (os error 28)").
    #[error("{action} {path}")]
    Io {
        /// What was being done (`cannot write`, `cannot rename ... to`, ...).
        action: String,
        /// The file.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// Another process holds the lock of this output's partial file: a second run onto a
    /// live output.
    #[error(
        "another factpico run is writing {output} (its partial file {partial} is locked); \
         wait for it to finish, or write to another output"
    )]
    Busy {
        /// The final output path.
        output: PathBuf,
        /// The locked partial file.
        partial: PathBuf,
    },
    /// A path is refused before anything is written (it would overwrite an input, lies in a
    /// model directory, is a link, a directory or a special file, ...).
    #[error("{path}: {reason}")]
    Refused {
        /// The refused path.
        path: PathBuf,
        /// Why, and what to do instead.
        reason: String,
    },
}

impl Error {
    /// An [`Error::Io`].
    pub fn io(action: impl Into<String>, path: &std::path::Path, source: std::io::Error) -> Self {
        Error::Io { action: action.into(), path: path.to_owned(), source }
    }

    /// An [`Error::Refused`].
    pub fn refused(path: &std::path::Path, reason: impl Into<String>) -> Self {
        Error::Refused { path: path.to_owned(), reason: reason.into() }
    }
}
