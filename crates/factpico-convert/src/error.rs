//! The one error type of `factpico-convert`.
use std::path::PathBuf;

/// Everything that can go wrong while reading a checkpoint, checking it against its config,
/// building the ONNX graph or writing the model directory. Messages name the file at fault.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Reading or writing a file failed (the I/O error is the `source()`).
    #[error("cannot {action} {path}")]
    Io {
        /// "read", "write", "create", ...
        action: &'static str,
        /// The file.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// The checkpoint file is not in a format the reader accepts (zip of a `torch.save` with
    /// `data.pkl`, or safetensors), or its container is corrupt / truncated.
    #[error("{path}: {reason}")]
    Format {
        /// The checkpoint.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// The zip container could not be read (the zip error is the `source()`).
    #[error("{path}: not a readable zip archive ({what})")]
    Zip {
        /// The checkpoint.
        path: PathBuf,
        /// Which step failed.
        what: String,
        /// The underlying error.
        #[source]
        source: zip::result::ZipError,
    },
    /// The pickle stream (`data.pkl`) is malformed, truncated, too large or uses something the
    /// code-free interpreter refuses. `offset` is the byte offset of the opcode.
    #[error("{path}: pickle at byte {offset}: {reason}")]
    Pickle {
        /// The checkpoint (`archive/data.pkl` inside it).
        path: PathBuf,
        /// Byte offset in the pickle stream.
        offset: usize,
        /// What is wrong.
        reason: String,
    },
    /// A tensor is unusable: unknown dtype, storage shorter than the tensor, absurd shape.
    #[error("{path}: tensor `{name}`: {reason}")]
    Tensor {
        /// The checkpoint.
        path: PathBuf,
        /// Tensor name in the state dict.
        name: String,
        /// What is wrong.
        reason: String,
    },
    /// The checkpoint does not match the model config / the expected architecture (missing or
    /// unexpected weights, wrong shapes).
    #[error("{path}: checkpoint does not match {what}: {reason}")]
    Mismatch {
        /// The checkpoint.
        path: PathBuf,
        /// "config.json of <dir>" / "the AlignScore architecture".
        what: String,
        /// The differences.
        reason: String,
    },
    /// `config.json` is missing a field, has an unsupported value or cannot be parsed.
    #[error("{path}: {reason}")]
    Config {
        /// The config file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// The tokenizer could not be assembled from `vocab.json` + `merges.txt`.
    #[error("cannot build the tokenizer from {dir}: {reason}")]
    Tokenizer {
        /// The directory holding vocab.json / merges.txt.
        dir: PathBuf,
        /// What failed.
        reason: String,
    },
    /// The output directory cannot be used (it is a file, a symlink, or not empty of a previous model).
    #[error("output {path}: {reason}")]
    Output {
        /// The output directory.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
}

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub(crate) fn io(action: &'static str, path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io { action, path: path.into(), source }
    }
}
