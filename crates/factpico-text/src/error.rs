//! The crate's error type.

/// Errors of `factpico-text`.
///
/// Splitting and word counting never fail; only option constructors validate
/// their arguments.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// An option value is outside its valid range (e.g. a chunk size of zero,
    /// which AlignScore's `n_words // size` would divide by).
    #[error("invalid option `{name}`: {reason}")]
    InvalidOption {
        /// Option name, as spelled in the options struct.
        name: &'static str,
        /// Why the value was rejected.
        reason: &'static str,
    },
}
