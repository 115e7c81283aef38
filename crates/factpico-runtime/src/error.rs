//! The one error type of `factpico-runtime`.
use std::path::PathBuf;

/// Everything that can go wrong while locating ONNX Runtime, loading a model directory,
/// tokenising or running a session. Every message says which file is at fault and what to do.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// No ONNX Runtime shared library was found in any of the searched places.
    #[error(
        "ONNX Runtime library not found (searched: {searched}). Run `factpico setup ort` \
         (or `cargo xtask ort`) to fetch onnxruntime 1.32.0 from PyPI into $FACTPICO_HOME/ort, \
         or set ORT_DYLIB_PATH to an existing libonnxruntime.so (version >= 1.31)"
    )]
    OrtNotFound {
        /// Human-readable list of the places that were searched.
        searched: String,
    },
    /// A library path was given or found but cannot be used (missing, not a shared object, too old).
    #[error(
        "ONNX Runtime library {path} is unusable: {reason}. Point ORT_DYLIB_PATH at a \
         libonnxruntime.so of version >= 1.31, or run `factpico setup ort`"
    )]
    OrtLibrary {
        /// The offending path.
        path: PathBuf,
        /// Why it was rejected.
        reason: String,
    },
    /// `factpico setup ort` could not download or unpack the onnxruntime wheel.
    #[error("could not set up ONNX Runtime in {dir}: {reason}")]
    OrtSetup {
        /// Target directory (`$FACTPICO_HOME/ort`).
        dir: PathBuf,
        /// What failed.
        reason: String,
    },
    /// A model directory or one of its files is missing.
    #[error("{what} not found: {path}. {hint}")]
    MissingFile {
        /// Which file (e.g. "model directory", "tokenizer.json").
        what: &'static str,
        /// The expected path.
        path: PathBuf,
        /// What to do about it.
        hint: String,
    },
    /// A model directory is present but inconsistent (manifest vs graph, bad config, corrupt file).
    #[error("invalid model in {path}: {reason}")]
    InvalidModel {
        /// The file or directory at fault.
        path: PathBuf,
        /// What is wrong and how to fix it.
        reason: String,
    },
    /// Reading a file failed (the I/O error is the `source()`).
    #[error("cannot read {path}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// The tokenizer failed (load or encode).
    #[error("tokenizer error ({context}): {message}")]
    Tokenizer {
        /// What was being done.
        context: String,
        /// The tokenizer's message.
        message: String,
    },
    /// ONNX Runtime returned an error.
    #[error("ONNX Runtime error ({context}): {message}")]
    Ort {
        /// What was being done.
        context: String,
        /// ONNX Runtime's message.
        message: String,
    },
    /// An execution provider other than the CPU cannot be used: this build or the loaded
    /// ONNX Runtime library lacks it, or it failed to start (driver, libraries, device).
    #[error("the {provider} execution provider cannot be used: {reason}")]
    ExecutionProvider {
        /// The provider (`CUDA`).
        provider: &'static str,
        /// Why, and what to do.
        reason: String,
    },
    /// A caller-supplied argument is invalid (e.g. batch size 0, unknown output name).
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
}

/// `Result` with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub(crate) fn ort(context: impl Into<String>, e: impl std::fmt::Display) -> Self {
        Error::Ort { context: context.into(), message: e.to_string() }
    }
    pub(crate) fn tok(context: impl Into<String>, e: impl std::fmt::Display) -> Self {
        Error::Tokenizer { context: context.into(), message: e.to_string() }
    }
    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io { path: path.into(), source }
    }
}
