//! The facade's error type.
//!
//! Convention of every factpico crate: one `Error` enum per crate; a variant that wraps
//! another error is either `#[error(transparent)]` or says only its own context in its
//! message and carries the cause as its `source()`. Renderers walk the chain:
//! [`error_chain`] here, `anyhow`'s `{:#}` in the CLI.

/// A boxed cause (the error of a metric crate, of ONNX Runtime, or a message).
pub type BoxError = Box<dyn std::error::Error + Send + Sync + 'static>;

/// Errors of the `factpico` facade.
///
/// Row-level problems that have a documented null (empty summary, ...) are *not*
/// errors: they appear as `null` scores with a reason in [`crate::Report::nulls`].
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A metric name that is not in the registry (see [`crate::registry`]).
    #[error("unknown metric `{name}`; available metrics: {available}")]
    UnknownMetric {
        /// The name that was asked for.
        name: String,
        /// Comma-separated list of the known metric names.
        available: String,
    },
    /// A metric is known but was not compiled into this build (a cargo feature is off).
    #[error("metric `{name}` is not available in this build: rebuild with the cargo feature `{feature}`")]
    FeatureDisabled {
        /// The metric name.
        name: String,
        /// The cargo feature that enables it.
        feature: &'static str,
    },
    /// A metric needs an option (e.g. a model directory) that was not given.
    #[error("metric `{metric}` needs {what}")]
    MissingOption {
        /// The metric name.
        metric: String,
        /// What is missing, phrased for the user (e.g. "a model directory: --alignscore-model DIR").
        what: String,
    },
    /// An option value is invalid (e.g. an unknown device name).
    #[error("invalid {option}: {message}")]
    InvalidOption {
        /// The option (`device`, ...).
        option: &'static str,
        /// What is wrong and what is expected.
        message: String,
    },
    /// Two metrics of one scorer share a name or an output column.
    #[error("metric `{metric}` cannot be added: {what} is already written by metric `{other}`")]
    Duplicate {
        /// The metric being added.
        metric: String,
        /// The clashing name (`its name` or `column <c>`).
        what: String,
        /// The metric that has it already.
        other: String,
    },
    /// A metric failed to initialise (model loading, library discovery, bad option); the
    /// cause is the `source()`.
    #[error("could not initialise metric `{metric}`")]
    Init {
        /// The metric name.
        metric: String,
        /// The underlying error (a metric crate's, the runtime's, or a message).
        #[source]
        source: BoxError,
    },
    /// A metric failed on an input pair or a batch (not a documented null: a real failure);
    /// the cause is the `source()`.
    #[error("metric `{metric}` failed")]
    Metric {
        /// The metric name.
        metric: String,
        /// The underlying error.
        #[source]
        source: BoxError,
    },
    /// An ONNX-only facility (`setup_ort`, the runtime) was asked of a build without it.
    #[error("this build has no ONNX Runtime support: {what} needs the `factpico` cargo feature `onnx` (or a model-based metric's feature)")]
    NoRuntime {
        /// What was asked for.
        what: &'static str,
    },
    /// The ONNX Runtime layer failed outside a metric (e.g. `setup_ort`).
    #[cfg(feature = "runtime")]
    #[error("ONNX Runtime setup failed")]
    Runtime(#[source] factpico_runtime::Error),
}

impl Error {
    /// [`Error::Init`] of `metric` with cause `source` (an error or a message).
    pub fn init(metric: &str, source: impl Into<BoxError>) -> Self {
        Error::Init { metric: metric.to_owned(), source: source.into() }
    }

    /// [`Error::Metric`] of `metric` with cause `source` (an error or a message).
    pub fn metric(metric: &str, source: impl Into<BoxError>) -> Self {
        Error::Metric { metric: metric.to_owned(), source: source.into() }
    }
}

/// `error` and its causes, joined with `": "` (what a row's `errors[].message` holds).
pub fn error_chain(error: &(dyn std::error::Error + 'static)) -> String {
    let mut out = error.to_string();
    let mut cur = error.source();
    while let Some(e) = cur {
        let s = e.to_string();
        // A transparent wrapper repeats its cause's message: print it once.
        if !out.ends_with(&s) {
            out.push_str(": ");
            out.push_str(&s);
        }
        cur = e.source();
    }
    out
}

/// Result alias of the facade.
pub type Result<T, E = Error> = std::result::Result<T, E>;
