//! The one error type of `factpico-qa`.

/// Errors of the QA metrics. Model problems carry the runtime's error (which names the
/// file and the fix) as their `source()`; render the chain (`anyhow`'s `{:#}`,
/// `factpico::error_chain`) to see it.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Loading or running a model failed (missing directory, ONNX Runtime, tokenizer); the
    /// runtime's error is the `source()`.
    #[error("{what}")]
    Runtime {
        /// Which model / step.
        what: String,
        /// The runtime error.
        #[source]
        source: factpico_runtime::Error,
    },
    /// The spaCy sidecar (answer selection) failed; its error is the `source()`.
    #[error("answer selection with spaCy failed")]
    Nlp(#[from] factpico_nlp::Error),
    /// A model directory does not fit the preset (e.g. a QA model without an
    /// "unanswerable" token id, a QG model of the wrong family).
    #[error("model {path}: {reason}")]
    IncompatibleModel {
        /// The model directory.
        path: String,
        /// What is wrong and how to fix it.
        reason: String,
    },
    /// An option is out of range (batch size 0, empty model path, ...).
    #[error("invalid option: {0}")]
    InvalidOption(String),
}

/// `Result` with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub(crate) fn rt(what: impl Into<String>) -> impl FnOnce(factpico_runtime::Error) -> Self {
        let what = what.into();
        move |source| Error::Runtime { what, source }
    }
}
