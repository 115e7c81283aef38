//! Error type of factpico-readability.

/// Errors of this crate. Scoring itself never fails: every `&str` has defined counts and
/// scores (see the crate docs for the ranges).
#[derive(Debug, thiserror::Error, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// A family name that is neither textstat 0.7.3 nor 0.7.8 (see
    /// [`TextstatFamily`](crate::TextstatFamily)'s `FromStr`).
    #[error("unknown textstat family {0:?}: expected \"textstat073\" (0.7.3) or \"textstat078_cmudict\" (0.7.8)")]
    UnknownFamily(String),
}
