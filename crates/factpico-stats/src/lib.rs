//! Meta-evaluation statistics for factpico: how well does an automatic
//! metric agree with medical experts (FactPICO, Joseph et al., ACL 2024,
//! Tables 1, 4, 5 and 11)?
//!
//! | statistic | function | reference it matches |
//! |---|---|---|
//! | Kendall τ_b + p | [`kendall_tau_b`] | `scipy.stats.kendalltau(x, y, variant='b')` |
//! | Spearman ρ + p | [`spearman_rho`] | `scipy.stats.spearmanr` |
//! | Pearson r + p | [`pearson_r`] | `scipy.stats.pearsonr` |
//! | acc_eq (tie-calibrated pairwise accuracy) + ε | [`pairwise_accuracy_tie_calibrated`] | `mt_metrics_eval` `KendallWithTiesOpt(variant='acc23', sample_rate=1.0)` |
//! | instance & system level | [`meta_evaluate`] | per-system means, then the above |
//! | KL of Gaussian fits | [`kl_divergence_gaussian`] | closed form, checked by quadrature |
//! | Randolph's κ_free | [`randolph_kappa`] | `statsmodels` `fleiss_kappa(method='randolph')` |
//! | bootstrap CI | [`bootstrap_ci`], [`bootstrap_ci_by_item`], [`bootstrap_ci_with`] | percentile interval |
//! | paired permutation test | [`permutation_test`] | PERM-BOTH (`mt_metrics_eval` `PermutationSigDiff`) |
//!
//! Parity with the Python references is tested by `tests/stats_parity.rs`
//! against `tests/goldens/stats.json` (written by
//! `tests/goldens/gen_stats.py`): statistics to 1e-12, p-values to 1e-10.
//!
//! # Conventions
//!
//! * **Argument order**: symmetric statistics take `(x, y)`; asymmetric
//!   ones take `(metric, human)` (metric first, as in [`meta_evaluate`]).
//! * **Missing values**: NaN and ±∞ are missing and excluded *pairwise*
//!   (a row is dropped when either score is missing); every result reports
//!   `n` (used) and `n_excluded`. scipy would propagate NaN instead; the
//!   goldens apply scipy to the complete pairs.
//! * **Documented nulls instead of NaN**: a statistic that is undefined
//!   for valid input is `None` with a [`NullReason`]: fewer than 3 complete
//!   observations for correlations and pairwise accuracy (scipy returns a
//!   meaningless ±1, p = 1, at n = 2), a constant input (scipy: NaN), fewer
//!   than 3 systems for system level. Invalid input (length mismatch, bad
//!   parameters) is a [`Error`].
//! * **p-values** are two-sided for correlations; the permutation test is
//!   one-sided (A better than B).
//!
//! # What is ours, and why
//!
//! No maintained Rust crate offers these with scipy-compatible results, so
//! the crate implements: Knight's O(n log n) τ_b with the tie-corrected
//! variance and scipy's exact/asymptotic p-value choice; average-rank
//! Spearman; acc_eq's ε sweep; Randolph's κ with missing ratings; the
//! Gaussian KL; and the regularised incomplete beta used for the Pearson
//! and Spearman p-values — `statrs::function::beta::beta_reg` caps its
//! continued fraction at 140 terms and forms its prefactor from `ln Γ`
//! differences, giving absolute p-value errors of 1e-9 at n = 100 000 and
//! 2e-3 at n = 10⁶, and its `erfc` is off by 4.5e-11 (relative) at the
//! 5 % critical value (see the `special` module). Elementary special
//! functions come from `libm` (`erfc`, `lgamma`; musl ports, ~1 ulp);
//! resampling uses `rand` + `rand_chacha` (ChaCha20, seeded).

mod correlation;
mod data;
mod error;
mod kappa;
mod kl;
mod levels;
mod pairwise;
mod resample;
mod special;

pub use special::correlation_p_value;

pub use correlation::{
    kendall_tau_b, kendall_tau_b_with, pair_counts, pearson_r, spearman_rho, Correlation,
    KendallPValue, PValueMethod, PairCounts, MIN_OBSERVATIONS,
};
pub use error::{Error, Input, NullReason};

/// Former name of [`Error`].
#[deprecated(since = "0.1.0", note = "renamed to `factpico_stats::Error` (one `Error` enum per crate)")]
pub type StatsError = Error;
pub use kappa::{randolph_kappa, RandolphKappa};
pub use kl::{
    kl_divergence_gaussian, kl_normal, GaussianFit, KlDivergence, KlOptions, Normalization,
};
pub use levels::{
    level_statistics, meta_evaluate, Level, LevelStatistics, MetaEvaluation, SystemMean,
    MIN_SYSTEMS,
};
pub use pairwise::{
    calibration_sample, pairwise_accuracy, pairwise_accuracy_tie_calibrated,
    pairwise_accuracy_tie_calibrated_capped, PairwiseAccuracy, CALIBRATION_SEED, MAX_CALIBRATION_N,
};
pub use resample::{
    bootstrap_ci, bootstrap_ci_by_item, bootstrap_ci_with, permutation_test, BootstrapOptions,
    ConfidenceInterval, PermutationOptions, PermutationTest, Statistic,
};
