//! The facade's error type.

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
    /// A metric failed to initialise (model loading, library discovery, ...).
    #[error("could not initialise metric `{metric}`: {message}")]
    Init {
        /// The metric name.
        metric: String,
        /// The underlying error, rendered.
        message: String,
    },
    /// A metric failed on one input pair (not a documented null: a real failure).
    #[error("metric `{metric}` failed: {message}")]
    Metric {
        /// The metric name.
        metric: String,
        /// The underlying error, rendered.
        message: String,
    },
}

/// Result alias of the facade.
pub type Result<T, E = Error> = std::result::Result<T, E>;
