//! The crate's error type.
use std::path::PathBuf;

/// Everything that can go wrong while reading the catalogue, downloading, converting or
/// managing installed models. Messages name catalogue fields, files and environment
/// variables, never a command-line flag; they never contain a hub token or URL credentials.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The catalogue text is not valid (JSON syntax, a missing field, a duplicate name...).
    #[error("model catalogue {origin}: {reason}")]
    Catalogue {
        /// Where the catalogue came from (`built-in` or a file path).
        origin: String,
        /// What is wrong.
        reason: String,
    },
    /// No catalogue entry has this name.
    #[error("unknown model {name:?}; known: {known}")]
    UnknownModel {
        /// The name asked for.
        name: String,
        /// The catalogue's names, comma-separated.
        known: String,
    },
    /// The entry's `refused` field: factpico does not support this model.
    #[error("{name} is not supported: {reason}")]
    Refused {
        /// Entry name.
        name: String,
        /// The catalogue's reason.
        reason: String,
    },
    /// The entry cannot be downloaded by factpico (a by-hand source or a pip package).
    #[error("{name} cannot be downloaded by factpico:\n{how}")]
    ByHand {
        /// Entry name.
        name: String,
        /// What to do instead (which file goes where, then the import command).
        how: String,
    },
    /// A value is neither an existing directory nor an installed catalogue model.
    #[error("model {name} is not installed (no directory {path}); install it with `factpico models pull {name}`")]
    NotInstalled {
        /// Entry name.
        name: String,
        /// Where it would be.
        path: PathBuf,
    },
    /// A model value that is neither a directory nor a catalogue name.
    #[error("model {value:?} is neither an existing directory nor a catalogue model name (see `factpico models list`)")]
    NotAModel {
        /// The value given.
        value: String,
    },
    /// A filesystem operation failed.
    #[error("cannot {action} {path}")]
    Io {
        /// What was attempted (`create`, `read`, `rename ... to`...).
        action: String,
        /// The path concerned.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// The disk filled up (`ENOSPC` / quota) while writing: nothing is installed; the bytes
    /// downloaded so far stay in `downloads/` and the next pull resumes from them.
    #[error(
        "no space left on the disk: the filesystem mounted at {mount} is full (cannot {action} {path}). Nothing was \
         installed and the bytes already downloaded are kept: free space there (or set FACTPICO_HOME to a larger disk, \
         copying its downloads/ folder over) and run the pull again to resume"
    )]
    DiskFull {
        /// What was attempted.
        action: String,
        /// The path concerned.
        path: PathBuf,
        /// The mount point of the full filesystem (the closest ancestor of `path` on its device).
        mount: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// Something at a path factpico writes is not what it should be (a symbolic link...).
    #[error("refusing {path}: {reason}")]
    UnsafePath {
        /// The path.
        path: PathBuf,
        /// Why.
        reason: String,
    },
    /// The HTTP request could not be made or was cut (the partial download is kept).
    #[error("download of {what} failed ({url}){kept}")]
    Http {
        /// `org/repo/file` or the archive name.
        what: String,
        /// The URL, credentials removed.
        url: String,
        /// ` ; N bytes kept for the next attempt` or empty.
        kept: String,
        /// The cause (its URL removed).
        #[source]
        source: reqwest::Error,
    },
    /// The transfer broke off; the bytes received are kept in the partial file.
    #[error("download of {what} was interrupted after {kept} bytes ({url}); run the pull again to resume from there")]
    Interrupted {
        /// `org/repo/file` or the archive name.
        what: String,
        /// The URL, credentials removed.
        url: String,
        /// Bytes in the partial file.
        kept: u64,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// The hub answered with an unexpected status.
    #[error("{url} answered HTTP {status}: {reason}")]
    Status {
        /// The URL, credentials removed.
        url: String,
        /// The status code.
        status: u16,
        /// What it means here.
        reason: String,
    },
    /// 401/403: a gated or private repository.
    #[error("the hub refused access to {repo} (HTTP {status}): it is gated or private. {hint}")]
    Unauthorized {
        /// `org/repo`.
        repo: String,
        /// 401 or 403.
        status: u16,
        /// Whether a token was sent, and what to do.
        hint: String,
    },
    /// A required file is not in the repository (`404`, `X-Error-Code: EntryNotFound`).
    #[error("{repo} has no file {file} at revision {revision} (HTTP 404 {code})")]
    NotFound {
        /// `org/repo`.
        repo: String,
        /// File path in the repository.
        file: String,
        /// Revision asked for.
        revision: String,
        /// The `X-Error-Code` header (`EntryNotFound`, `RepoNotFound`, ...).
        code: String,
    },
    /// The server is not a Hugging Face hub endpoint (no `X-Repo-Commit`, no `X-Linked-Etag`...).
    #[error("{url} does not answer as a Hugging Face hub endpoint: {reason}")]
    NotAHub {
        /// The URL, credentials removed.
        url: String,
        /// What was missing.
        reason: String,
    },
    /// A downloaded or cached file does not have the expected sha256 or size; nothing is installed.
    #[error("{what}: {reason}; the file was discarded and nothing was installed")]
    Checksum {
        /// `org/repo/file`.
        what: String,
        /// Expected vs found.
        reason: String,
    },
    /// `HF_HUB_OFFLINE` is set and a file is in no local cache.
    #[error("offline (HF_HUB_OFFLINE): {repo}/{file} is not in the Hugging Face cache {cache}; run the pull where the hub is reachable, or copy an HF cache or $FACTPICO_HOME/models (docs/models.md)")]
    Offline {
        /// `org/repo`.
        repo: String,
        /// File path in the repository.
        file: String,
        /// The cache searched.
        cache: PathBuf,
    },
    /// Files the conversion needs are missing from an import directory.
    #[error("{name}: {dir} lacks {missing}")]
    MissingFiles {
        /// Entry name.
        name: String,
        /// Directory given.
        dir: PathBuf,
        /// Missing relative paths (`a|b` = either).
        missing: String,
    },
    /// No Python with the export stack for a `python-export` route.
    #[error("{name} is converted by the Python export scripts (onnx/), which need PyTorch: {reason}. Install the export stack with: {command}")]
    ExportUnavailable {
        /// Entry name.
        name: String,
        /// What was missing.
        reason: String,
        /// The command to run.
        command: String,
    },
    /// An export step failed.
    #[error("{name}: export step {step} failed ({status})")]
    ExportFailed {
        /// Entry name.
        name: String,
        /// The script run.
        step: String,
        /// Its exit status.
        status: String,
    },
    /// The caller's converter failed.
    #[error("{name}: conversion failed")]
    Convert {
        /// Entry name.
        name: String,
        /// The converter's error.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// An option that the entry does not support (`int8`...).
    #[error("{name}: {reason}")]
    Unsupported {
        /// Entry name.
        name: String,
        /// What and why.
        reason: String,
    },
}

impl Error {
    /// An I/O error at `path`; a full disk (`StorageFull`, `QuotaExceeded`) becomes
    /// [`Error::DiskFull`] naming the filesystem's mount point.
    pub(crate) fn io(action: impl Into<String>, path: &std::path::Path, source: std::io::Error) -> Self {
        if matches!(source.kind(), std::io::ErrorKind::StorageFull | std::io::ErrorKind::QuotaExceeded) {
            return Error::DiskFull { action: action.into(), path: path.to_owned(), mount: mount_point(path), source };
        }
        Error::Io { action: action.into(), path: path.to_owned(), source }
    }
}

/// The mount point of the filesystem holding `path` (or its closest existing ancestor): the
/// highest ancestor on the same device.
fn mount_point(path: &std::path::Path) -> PathBuf {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let abs = std::path::absolute(path).unwrap_or_else(|_| path.to_owned());
        let mut ancestors = abs.ancestors().filter_map(|a| std::fs::metadata(a).ok().map(|m| (a, m.dev())));
        if let Some((first, dev)) = ancestors.next() {
            let mut top = first;
            for (a, d) in ancestors {
                if d != dev {
                    break;
                }
                top = a;
            }
            return top.to_owned();
        }
        abs
    }
    #[cfg(not(unix))]
    {
        path.to_owned()
    }
}

/// `Result` with [`Error`].
pub type Result<T> = std::result::Result<T, Error>;
