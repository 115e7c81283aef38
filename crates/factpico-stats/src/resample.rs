//! Seeded bootstrap confidence intervals and paired permutation tests.
//!
//! Randomness: `rand_chacha::ChaCha20Rng::seed_from_u64(seed)`; indices by
//! `Rng::random_range`, swaps by `Rng::random::<bool>()`. Results are a
//! deterministic function of the inputs and the seed for a given version of
//! this crate and of `rand`/`rand_chacha` 0.9 (ChaCha's stream is
//! platform-independent).

use std::collections::HashMap;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;
use serde::{Deserialize, Serialize};

use crate::correlation::{kendall_tau_b, pearson_r, spearman_rho, MIN_OBSERVATIONS};
use crate::data::{check_len, complete_pairs, is_constant, mean, population_sd, present};
use crate::error::{Input, NullReason, Error};
use crate::levels::{system_means, system_vectors, Level};
use crate::pairwise::pairwise_accuracy_tie_calibrated;

/// A statistic of metric scores against human scores.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Statistic {
    /// [`crate::kendall_tau_b`].
    KendallTauB,
    /// [`crate::spearman_rho`].
    SpearmanRho,
    /// [`crate::pearson_r`].
    PearsonR,
    /// [`crate::pairwise_accuracy_tie_calibrated`] (up to O(n² log n) time
    /// and O(n) memory per call, on a sample of
    /// [`crate::MAX_CALIBRATION_N`] rows above that size: mind the cost
    /// inside resampling loops).
    PairwiseAccuracy,
}

impl Statistic {
    /// The statistic's value, `None` when undefined (see each function).
    ///
    /// # Errors
    /// [`Error::LengthMismatch`].
    pub fn compute(self, metric: &[f64], human: &[f64]) -> Result<Option<f64>, Error> {
        Ok(match self {
            Statistic::KendallTauB => kendall_tau_b(metric, human)?.statistic,
            Statistic::SpearmanRho => spearman_rho(metric, human)?.statistic,
            Statistic::PearsonR => pearson_r(metric, human)?.statistic,
            Statistic::PairwiseAccuracy => {
                pairwise_accuracy_tie_calibrated(metric, human)?.accuracy
            }
        })
    }
}

/// Options for the bootstrap.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct BootstrapOptions {
    /// Number of bootstrap resamples B ≥ 1 (default 1000).
    pub n_resamples: usize,
    /// Two-sided coverage in (0, 1) (default 0.95).
    pub confidence_level: f64,
    /// RNG seed (default 0).
    pub seed: u64,
}

impl Default for BootstrapOptions {
    fn default() -> Self {
        BootstrapOptions {
            n_resamples: 1000,
            confidence_level: 0.95,
            seed: 0,
        }
    }
}

/// A percentile bootstrap confidence interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ConfidenceInterval {
    /// The statistic on the full data.
    pub estimate: Option<f64>,
    /// Lower end: the (1 − level)/2 quantile of the defined resample values.
    pub lower: Option<f64>,
    /// Upper end: the (1 + level)/2 quantile.
    pub upper: Option<f64>,
    /// The coverage requested.
    pub confidence_level: f64,
    /// Resamples drawn.
    pub n_resamples: usize,
    /// Resamples whose statistic was undefined (e.g. a constant resample);
    /// they are dropped before taking quantiles.
    pub n_resamples_undefined: usize,
    /// Resampling units (complete observations, or items).
    pub n: usize,
    /// Observations excluded for a missing score before resampling.
    pub n_excluded: usize,
    /// Why the interval is `None`.
    pub null_reason: Option<NullReason>,
}

fn check_bootstrap(opts: &BootstrapOptions) -> Result<(), Error> {
    if opts.n_resamples == 0 {
        return Err(Error::InvalidParameter {
            name: "n_resamples",
            reason: "must be at least 1".into(),
        });
    }
    if !(opts.confidence_level > 0.0 && opts.confidence_level < 1.0) {
        return Err(Error::InvalidParameter {
            name: "confidence_level",
            reason: format!("must lie in (0, 1), got {}", opts.confidence_level),
        });
    }
    Ok(())
}

/// Quantile with linear interpolation between order statistics
/// (`numpy.quantile(..., method='linear')`, Hyndman & Fan type 7) of
/// sorted, non-empty `v`.
fn quantile_sorted(v: &[f64], q: f64) -> f64 {
    let h = (v.len() - 1) as f64 * q;
    let lo = h.floor() as usize;
    let hi = (lo + 1).min(v.len() - 1);
    v[lo] + (h - lo as f64) * (v[hi] - v[lo])
}

/// Generic percentile bootstrap over `n_units` resampling units.
///
/// Each of `opts.n_resamples` replicates draws `n_units` unit indices
/// uniformly with replacement and calls `statistic` with them; the
/// estimate is `statistic(&[0, 1, …, n_units − 1])`. The interval is the
/// pair of (1 ∓ level)/2 quantiles (type 7) of the defined replicate
/// values (Efron & Tibshirani 1993, §13.3, percentile interval). Use it
/// for statistics not covered by [`bootstrap_ci`] (e.g. kappa or KL).
///
/// # Errors
/// [`Error::InvalidParameter`] for bad options; errors of `statistic`.
pub fn bootstrap_ci_with<F>(
    n_units: usize,
    opts: &BootstrapOptions,
    mut statistic: F,
) -> Result<ConfidenceInterval, Error>
where
    F: FnMut(&[usize]) -> Result<Option<f64>, Error>,
{
    check_bootstrap(opts)?;
    let all: Vec<usize> = (0..n_units).collect();
    let estimate = statistic(&all)?;
    let mut ci = ConfidenceInterval {
        estimate,
        lower: None,
        upper: None,
        confidence_level: opts.confidence_level,
        n_resamples: opts.n_resamples,
        n_resamples_undefined: 0,
        n: n_units,
        n_excluded: 0,
        null_reason: None,
    };
    if n_units == 0 {
        ci.null_reason = Some(NullReason::TooFewObservations { n: 0, required: 1 });
        return Ok(ci);
    }
    let mut rng = ChaCha20Rng::seed_from_u64(opts.seed);
    let mut idx = vec![0usize; n_units];
    let mut values = Vec::with_capacity(opts.n_resamples);
    for _ in 0..opts.n_resamples {
        for slot in idx.iter_mut() {
            *slot = rng.random_range(0..n_units);
        }
        match statistic(&idx)? {
            Some(v) => values.push(v),
            None => ci.n_resamples_undefined += 1,
        }
    }
    if values.is_empty() {
        ci.null_reason = Some(NullReason::NoDefinedResamples);
        return Ok(ci);
    }
    values.sort_unstable_by(f64::total_cmp);
    let alpha = 1.0 - opts.confidence_level;
    ci.lower = Some(quantile_sorted(&values, alpha / 2.0));
    ci.upper = Some(quantile_sorted(&values, 1.0 - alpha / 2.0));
    Ok(ci)
}

/// Percentile bootstrap CI of `statistic(metric, human)`, resampling
/// complete (metric, human) observations with replacement.
///
/// Missing values are excluded pairwise first (`n_excluded`). Resamples in
/// which the statistic is undefined are dropped and counted. If the
/// estimate itself is undefined the interval is still computed from the
/// defined resamples (check `estimate`).
///
/// # Errors
/// [`Error::LengthMismatch`]; [`Error::InvalidParameter`].
pub fn bootstrap_ci(
    metric: &[f64],
    human: &[f64],
    statistic: Statistic,
    opts: &BootstrapOptions,
) -> Result<ConfidenceInterval, Error> {
    let c = complete_pairs(metric, human, "metric", "human")?;
    let (mut m, mut h) = (Vec::with_capacity(c.a.len()), Vec::with_capacity(c.a.len()));
    let mut ci = bootstrap_ci_with(c.a.len(), opts, |idx| {
        m.clear();
        h.clear();
        m.extend(idx.iter().map(|&i| c.a[i]));
        h.extend(idx.iter().map(|&i| c.b[i]));
        statistic.compute(&m, &h)
    })?;
    ci.n_excluded = c.excluded;
    Ok(ci)
}

/// Cluster bootstrap over items: each replicate draws the distinct items
/// with replacement and keeps every row (system output) of each drawn item,
/// then computes `statistic` at `level` (instance: over the rows; system:
/// over per-system means of complete rows, undefined with fewer than 3
/// systems). This is the resampling unit of FactPICO-style data, where one
/// abstract has several systems' summaries.
///
/// Rows with a missing score are kept in the clusters and excluded when the
/// statistic is computed (`n_excluded` counts them once, on the full data).
///
/// # Errors
/// [`Error::LengthMismatch`]; [`Error::InvalidParameter`].
pub fn bootstrap_ci_by_item<I: AsRef<str>, S: AsRef<str>>(
    item_ids: &[I],
    system_ids: &[S],
    metric: &[f64],
    human: &[f64],
    statistic: Statistic,
    level: Level,
    opts: &BootstrapOptions,
) -> Result<ConfidenceInterval, Error> {
    check_len(item_ids.len(), system_ids.len(), "item_ids", "system_ids")?;
    check_len(item_ids.len(), metric.len(), "item_ids", "metric")?;
    check_len(item_ids.len(), human.len(), "item_ids", "human")?;
    let mut order: Vec<&str> = Vec::new();
    let mut rows_of: HashMap<&str, Vec<usize>> = HashMap::new();
    for (r, i) in item_ids.iter().enumerate() {
        let rows = rows_of.entry(i.as_ref()).or_insert_with(|| {
            order.push(i.as_ref());
            Vec::new()
        });
        rows.push(r);
    }
    let clusters: Vec<&Vec<usize>> = order.iter().filter_map(|i| rows_of.get(i)).collect();
    let n_excluded = metric
        .iter()
        .zip(human)
        .filter(|(&m, &h)| !(present(m) && present(h)))
        .count();
    let (mut m, mut h, mut s): (Vec<f64>, Vec<f64>, Vec<&str>) = (vec![], vec![], vec![]);
    let mut ci = bootstrap_ci_with(clusters.len(), opts, |idx| {
        m.clear();
        h.clear();
        s.clear();
        for &c in idx {
            for &r in clusters[c] {
                m.push(metric[r]);
                h.push(human[r]);
                s.push(system_ids[r].as_ref());
            }
        }
        match level {
            Level::Instance => statistic.compute(&m, &h),
            Level::System => {
                let (means, _) = system_means(s.iter().copied().zip(m.iter().zip(&h)));
                match system_vectors(&means) {
                    Ok((sm, sh)) => statistic.compute(&sm, &sh),
                    Err(_) => Ok(None),
                }
            }
        }
    })?;
    ci.n_excluded = n_excluded;
    Ok(ci)
}

/// Options for [`permutation_test`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct PermutationOptions {
    /// Number of random swaps R ≥ 1 (default 1000).
    pub n_permutations: usize,
    /// RNG seed (default 0).
    pub seed: u64,
}

impl Default for PermutationOptions {
    fn default() -> Self {
        PermutationOptions {
            n_permutations: 1000,
            seed: 0,
        }
    }
}

/// Result of [`permutation_test`].
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct PermutationTest {
    /// Statistic of metric A against the humans.
    pub statistic_a: Option<f64>,
    /// Statistic of metric B against the humans.
    pub statistic_b: Option<f64>,
    /// `statistic_a − statistic_b`.
    pub delta: Option<f64>,
    /// One-sided p-value for "A agrees better than B":
    /// `(1 + #{r: δ_r ≥ δ}) / (1 + R_defined)` ∈ (0, 1].
    pub p_value: Option<f64>,
    /// Permutations drawn (R).
    pub n_permutations: usize,
    /// Permutations whose statistic was undefined (dropped).
    pub n_permutations_undefined: usize,
    /// Complete (A, B, human) observations used.
    pub n: usize,
    /// Observations excluded because any of the three scores was missing.
    pub n_excluded: usize,
    /// Why the test is `None`.
    pub null_reason: Option<NullReason>,
}

fn zscore(v: &[f64]) -> Option<Vec<f64>> {
    let mu = mean(v)?;
    let sd = population_sd(v, mu);
    (sd > 0.0).then(|| v.iter().map(|&x| (x - mu) / sd).collect())
}

/// Paired permutation test of whether metric A agrees better with the
/// humans than metric B does (one-sided).
///
/// PERM-BOTH of Deutsch, Dror & Roth (2021, *A Statistical Analysis of
/// Summarization Evaluation Metrics Using Resampling Methods*, TACL), as in
/// `mt_metrics_eval/stats.py::PermutationSigDiff`: both metrics are first
/// z-scored (population sd) so that their scores are exchangeable; each of
/// the R permutations swaps A's and B's score of every observation
/// independently with probability ½ and recomputes
/// `δ_r = S(A_r, human) − S(B_r, human)`. The p-value counts how often
/// `δ_r ≥ δ` (the observed difference) with +1 smoothing,
/// `(1 + count) / (1 + R_defined)` (Phipson & Smyth 2010), so it is never 0.
/// The reference uses `count / R` without smoothing.
///
/// Missing values (any of the three) are excluded row-wise. Null when
/// fewer than 3 complete rows, a metric is constant, or a statistic is
/// undefined on the observed data.
///
/// # Errors
/// [`Error::LengthMismatch`]; [`Error::InvalidParameter`] when
/// `n_permutations == 0`.
pub fn permutation_test(
    metric_a: &[f64],
    metric_b: &[f64],
    human: &[f64],
    statistic: Statistic,
    opts: &PermutationOptions,
) -> Result<PermutationTest, Error> {
    check_len(metric_a.len(), metric_b.len(), "metric_a", "metric_b")?;
    check_len(metric_a.len(), human.len(), "metric_a", "human")?;
    if opts.n_permutations == 0 {
        return Err(Error::InvalidParameter {
            name: "n_permutations",
            reason: "must be at least 1".into(),
        });
    }
    let (mut a, mut b, mut h) = (vec![], vec![], vec![]);
    for ((&x, &y), &z) in metric_a.iter().zip(metric_b).zip(human) {
        if present(x) && present(y) && present(z) {
            a.push(x);
            b.push(y);
            h.push(z);
        }
    }
    let n = h.len();
    let mut out = PermutationTest {
        statistic_a: None,
        statistic_b: None,
        delta: None,
        p_value: None,
        n_permutations: opts.n_permutations,
        n_permutations_undefined: 0,
        n,
        n_excluded: human.len() - n,
        null_reason: None,
    };
    if n < MIN_OBSERVATIONS {
        out.null_reason = Some(NullReason::TooFewObservations {
            n,
            required: MIN_OBSERVATIONS,
        });
        return Ok(out);
    }
    if is_constant(&h) {
        out.null_reason = Some(NullReason::ConstantInput {
            input: Input::Human,
        });
        return Ok(out);
    }
    let Some(za) = zscore(&a) else {
        out.null_reason = Some(NullReason::ConstantInput {
            input: Input::MetricA,
        });
        return Ok(out);
    };
    let Some(zb) = zscore(&b) else {
        out.null_reason = Some(NullReason::ConstantInput {
            input: Input::MetricB,
        });
        return Ok(out);
    };
    out.statistic_a = statistic.compute(&za, &h)?;
    out.statistic_b = statistic.compute(&zb, &h)?;
    let (Some(sa), Some(sb)) = (out.statistic_a, out.statistic_b) else {
        out.null_reason = Some(NullReason::NoDefinedResamples);
        return Ok(out);
    };
    let delta = sa - sb;
    out.delta = Some(delta);
    let mut rng = ChaCha20Rng::seed_from_u64(opts.seed);
    let (mut pa, mut pb) = (vec![0.0; n], vec![0.0; n]);
    let (mut count, mut defined) = (0usize, 0usize);
    for _ in 0..opts.n_permutations {
        for i in 0..n {
            if rng.random::<bool>() {
                pa[i] = zb[i];
                pb[i] = za[i];
            } else {
                pa[i] = za[i];
                pb[i] = zb[i];
            }
        }
        match (statistic.compute(&pa, &h)?, statistic.compute(&pb, &h)?) {
            (Some(x), Some(y)) => {
                defined += 1;
                if x - y >= delta {
                    count += 1;
                }
            }
            _ => out.n_permutations_undefined += 1,
        }
    }
    out.p_value = Some((1 + count) as f64 / (1 + defined) as f64);
    Ok(out)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn quantile_type7() {
        // numpy.quantile([1,2,3,4], 0.25) = 1.75; 0.975 of 0..=10 → 9.75
        assert_eq!(quantile_sorted(&[1.0, 2.0, 3.0, 4.0], 0.25), 1.75);
        let v: Vec<f64> = (0..=10).map(f64::from).collect();
        assert!((quantile_sorted(&v, 0.975) - 9.75).abs() < 1e-12);
        assert_eq!(quantile_sorted(&[5.0], 0.3), 5.0);
    }

    #[test]
    fn option_errors() {
        let bad = BootstrapOptions {
            confidence_level: 1.0,
            ..Default::default()
        };
        assert!(bootstrap_ci(
            &[1.0, 2.0, 3.0],
            &[1.0, 2.0, 3.0],
            Statistic::PearsonR,
            &bad
        )
        .is_err());
        let bad = PermutationOptions {
            n_permutations: 0,
            seed: 1,
        };
        assert!(permutation_test(&[1.0], &[1.0], &[1.0], Statistic::PearsonR, &bad).is_err());
    }
}
