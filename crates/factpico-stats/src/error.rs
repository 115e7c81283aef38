//! The crate's error type and the reasons a statistic can be a documented null.

use serde::{Deserialize, Serialize};

/// Bad input: something the caller must fix. Statistics that are merely
/// *undefined* for valid input (constant input, too few observations, fewer
/// than three systems) are not errors: they come back as `None` with a
/// [`NullReason`].
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Two parallel inputs have different lengths.
    #[error("length mismatch: `{left_name}` has {left} values but `{right_name}` has {right}")]
    LengthMismatch {
        /// Name of the first input.
        left_name: &'static str,
        /// Its length.
        left: usize,
        /// Name of the second input.
        right_name: &'static str,
        /// Its length.
        right: usize,
    },
    /// A parameter is outside its documented domain.
    #[error("invalid parameter `{name}`: {reason}")]
    InvalidParameter {
        /// Parameter name.
        name: &'static str,
        /// What is wrong with it.
        reason: String,
    },
    /// [`crate::KendallPValue::Exact`] was requested but the data have ties
    /// (scipy raises `ValueError` in the same case).
    #[error(
        "the exact Kendall p-value needs untied data ({ties_x} tied pairs in x, {ties_y} in y)"
    )]
    ExactPValueWithTies {
        /// Pairs tied in x.
        ties_x: u64,
        /// Pairs tied in y.
        ties_y: u64,
    },
    /// The same (item, system) pair occurs twice in a meta-evaluation input.
    #[error("duplicate (item, system) pair: item `{item}`, system `{system}`")]
    DuplicateItemSystem {
        /// Item id.
        item: String,
        /// System id.
        system: String,
    },
    /// More distinct labels were observed than the declared number of categories.
    #[error("{observed} distinct labels observed but n_categories = {n_categories}")]
    TooManyCategories {
        /// Distinct labels seen in the ratings.
        observed: usize,
        /// Declared number of categories `k`.
        n_categories: usize,
    },
    /// The input is too large for an algorithm with quadratic memory.
    #[error("{what} supports at most {max} complete observations, got {n}")]
    TooLarge {
        /// The operation.
        what: &'static str,
        /// Complete observations given.
        n: usize,
        /// Supported maximum.
        max: usize,
    },
    /// A value lies outside a declared range (KL divergence with fixed ranges).
    #[error("value {value} of `{input}` lies outside the declared range [{lo}, {hi}]")]
    OutOfRange {
        /// Which input.
        input: &'static str,
        /// The offending value.
        value: f64,
        /// Declared lower bound.
        lo: f64,
        /// Declared upper bound.
        hi: f64,
    },
}

/// Which input a [`NullReason`] refers to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Input {
    /// First argument of a symmetric statistic.
    X,
    /// Second argument of a symmetric statistic.
    Y,
    /// Human (expert) scores.
    Human,
    /// Metric scores.
    Metric,
    /// First metric of a paired comparison.
    MetricA,
    /// Second metric of a paired comparison.
    MetricB,
}

/// Why a statistic is `None` (a documented null, never a panic or a NaN).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum NullReason {
    /// Fewer complete observations (after excluding missing values) than required.
    TooFewObservations {
        /// Complete observations available.
        n: usize,
        /// Minimum needed.
        required: usize,
    },
    /// An input takes a single value, so the statistic is undefined
    /// (scipy returns NaN and warns `ConstantInputWarning`).
    ConstantInput {
        /// The constant input (the first one checked, if both are constant).
        input: Input,
    },
    /// System-level statistics need at least three systems with data.
    TooFewSystems {
        /// Systems with at least one complete observation.
        n_systems: usize,
        /// Minimum needed (3).
        required: usize,
    },
    /// No bootstrap resample / permutation produced a defined statistic.
    NoDefinedResamples,
}

impl std::fmt::Display for NullReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NullReason::TooFewObservations { n, required } => {
                write!(f, "too few complete observations ({n} < {required})")
            }
            NullReason::ConstantInput { input } => write!(f, "input `{input:?}` is constant"),
            NullReason::TooFewSystems {
                n_systems,
                required,
            } => {
                write!(
                    f,
                    "too few systems with a value for system level ({n_systems} < {required})"
                )
            }
            NullReason::NoDefinedResamples => write!(f, "no resample gave a defined statistic"),
        }
    }
}
