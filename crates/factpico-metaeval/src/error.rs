//! The crate's error type.

use std::path::PathBuf;

/// Which input file an error or count refers to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Side {
    /// The metric scores file ([`RunOptions::scores`](crate::RunOptions::scores)).
    Scores,
    /// The human ratings file ([`RunOptions::ratings`](crate::RunOptions::ratings)).
    Ratings,
}

impl std::fmt::Display for Side {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Side::Scores => "scores",
            Side::Ratings => "ratings",
        })
    }
}

/// Everything that can go wrong in a meta-evaluation: bad input files, ids
/// that do not join, bad options, output failures. Statistics that are merely
/// undefined (constant input, fewer than 3 systems) are not errors but
/// documented nulls in the results.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A file could not be read or written (the I/O error is the `source()`;
    /// `anyhow`'s `{:#}` shows it).
    #[error("{action} {path}")]
    Io {
        /// What was being done (`cannot read`, `cannot write`, ...).
        action: &'static str,
        /// The file.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// An output file could not be written, or was refused before writing (it would
    /// overwrite an input, ...): see [`factpico_io::Error`].
    #[error(transparent)]
    Output(#[from] factpico_io::Error),
    /// The format of a file cannot be told from its extension.
    #[error("cannot tell the format of {path} from its extension (expected .jsonl, .ndjson, .json, .csv or .tsv)")]
    UnknownFormat {
        /// The file.
        path: PathBuf,
    },
    /// A CSV/TSV file is malformed.
    #[error("{path}: malformed CSV: {message}")]
    Csv {
        /// The file.
        path: PathBuf,
        /// The parser's message (with the record position).
        message: String,
    },
    /// A JSON/JSONL file is malformed.
    #[error("{path}:{line}: {message}")]
    Json {
        /// The file.
        path: PathBuf,
        /// 1-based line (JSONL) or 0 for a whole-file JSON document.
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// The file has no data rows.
    #[error("{path} has no data rows")]
    Empty {
        /// The file.
        path: PathBuf,
    },
    /// A requested column is absent from a file.
    #[error("{side} file {path} has no column `{column}` (available: {available})")]
    MissingColumn {
        /// Which input.
        side: Side,
        /// The file.
        path: PathBuf,
        /// The requested column.
        column: String,
        /// Comma-separated columns that do exist.
        available: String,
    },
    /// A row has no (or an empty) id.
    #[error("{side} file {path}, row {row}: empty or missing id in column `{column}`")]
    MissingId {
        /// Which input.
        side: Side,
        /// The file.
        path: PathBuf,
        /// 1-based data row.
        row: usize,
        /// The id column.
        column: String,
    },
    /// A row has an empty system cell while the system column is in use.
    #[error("{side} file {path}, row {row}: empty or missing system in column `{column}` (every row needs a system when the system column is used)")]
    MissingSystem {
        /// Which input.
        side: Side,
        /// The file.
        path: PathBuf,
        /// 1-based data row.
        row: usize,
        /// The system column.
        column: String,
    },
    /// The same join key occurs twice in one file.
    #[error("{side} file {path}: duplicate id `{key}` ({place}); ids must be unique{hint}")]
    DuplicateId {
        /// Which input.
        side: Side,
        /// The file.
        path: PathBuf,
        /// The repeated key (`id`, or `id @ system` when joining on systems).
        key: String,
        /// 1-based row of the first occurrence.
        first_row: usize,
        /// 1-based row of the repetition.
        row: usize,
        /// Where both are in the file (`lines 3 and 17`, `elements 3 and 17`).
        place: String,
        /// Extra advice (e.g. to set `system_col`).
        hint: String,
    },
    /// A cell of a numeric column is neither a number nor a missing marker.
    #[error("{side} file {path}, row {row}, column `{column}`: `{value}` is not a finite number (missing values: empty, NA, N/A, NaN, null, None)")]
    NotNumeric {
        /// Which input.
        side: Side,
        /// The file.
        path: PathBuf,
        /// 1-based data row.
        row: usize,
        /// The column.
        column: String,
        /// The offending cell (truncated to 40 characters).
        value: String,
    },
    /// Ids present on one side only (and `allow_missing` is off).
    #[error("{0}")]
    Unjoined(Box<crate::join::Unjoined>),
    /// No row joined at all.
    #[error("no id of {scores} joins an id of {ratings}: check `scores_id` / `ratings_id` (e.g. scores ids {scores_examples}, ratings ids {ratings_examples})")]
    NothingJoined {
        /// The scores file.
        scores: PathBuf,
        /// The ratings file.
        ratings: PathBuf,
        /// Up to 3 example ids of the scores file.
        scores_examples: String,
        /// Up to 3 example ids of the ratings file.
        ratings_examples: String,
    },
    /// A bad option value (direction spec, empty column list, unknown format, ...).
    #[error("invalid option `{option}`: {message}")]
    InvalidOption {
        /// The option, named by its field in the options it is set in ([`RunOptions`](crate::RunOptions),
        /// [`JoinOptions`](crate::JoinOptions), [`EvalOptions`](crate::EvalOptions): `directions`,
        /// `formats`, `human_range`, ...; `plots.aspects` for a field of
        /// [`PlotOptions`](crate::plot::PlotOptions); `KappaLayout::Packed` for a kappa layout's
        /// columns). A command line translates it to its flag.
        option: &'static str,
        /// What is wrong.
        message: String,
    },
    /// An error of the statistics crate (a bug here or bad parameters); it is the `source()`.
    #[error("statistics")]
    Stats(#[from] factpico_stats::Error),
    /// A plot could not be drawn or written.
    #[error("plot {path}: {message}")]
    Plot {
        /// The output file.
        path: PathBuf,
        /// The backend's message.
        message: String,
    },
}

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub(crate) fn io(action: &'static str, path: &std::path::Path, source: std::io::Error) -> Self {
        Error::Io { action, path: path.to_owned(), source }
    }
}
