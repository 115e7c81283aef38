//! Kendall τ_b, Spearman ρ and Pearson r with scipy's two-sided p-values.

use serde::{Deserialize, Serialize};

use crate::data::{average_ranks, complete_pairs, dense_ranks, is_constant};
use crate::error::{Input, NullReason, Error};
use crate::special::{correlation_p_value, normal_two_sided};

/// Minimum number of complete pairs for any correlation in this crate.
///
/// scipy returns ±1 (p = 1) for n = 2, which carries no information; we
/// return a [`NullReason::TooFewObservations`] null instead.
pub const MIN_OBSERVATIONS: usize = 3;

/// How a [`Correlation`]'s p-value was obtained.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PValueMethod {
    /// Exact null distribution of Kendall's S (no ties); scipy
    /// `_mstats_basic._kendall_p_exact`.
    KendallExact,
    /// Normal approximation with the tie-corrected variance of S
    /// (Kendall 1970, eq. 4.4; scipy `kendalltau(method='asymptotic')`).
    KendallAsymptotic,
    /// Student t with n − 2 degrees of freedom on
    /// `t = ρ √((n−2)/(1−ρ²))` (scipy `spearmanr`).
    StudentT,
    /// Exact null of Pearson's r for bivariate normal data: Beta(n/2−1, n/2−1)
    /// on (−1, 1) (scipy `pearsonr`).
    Beta,
}

/// A correlation coefficient with its two-sided p-value.
///
/// `statistic` ∈ [−1, 1]; `p_value` ∈ [0, 1]. Both are `None` exactly when
/// `null_reason` is `Some` (fewer than [`MIN_OBSERVATIONS`] complete pairs,
/// or a constant input — where scipy returns NaN).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Correlation {
    /// The coefficient.
    pub statistic: Option<f64>,
    /// Two-sided p-value for H0: no association.
    pub p_value: Option<f64>,
    /// How the p-value was computed (`None` when the p-value is).
    pub p_value_method: Option<PValueMethod>,
    /// Complete pairs used.
    pub n: usize,
    /// Pairs excluded because either value was NaN or ±∞.
    pub n_excluded: usize,
    /// Why the statistic is undefined, when it is.
    pub null_reason: Option<NullReason>,
}

impl Correlation {
    fn null(n: usize, n_excluded: usize, reason: NullReason) -> Self {
        Correlation {
            statistic: None,
            p_value: None,
            p_value_method: None,
            n,
            n_excluded,
            null_reason: Some(reason),
        }
    }
}

/// Pair classification counts over all `n(n−1)/2` pairs of observations.
///
/// Naming follows `mt_metrics_eval.tau_optimization.TauSufficientStats`
/// with `x` = human, `y` = metric where that matters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct PairCounts {
    /// Pairs ordered the same way in both inputs.
    pub concordant: u64,
    /// Pairs ordered oppositely.
    pub discordant: u64,
    /// Pairs tied in the first input only (x, or human).
    pub ties_x_only: u64,
    /// Pairs tied in the second input only (y, or metric).
    pub ties_y_only: u64,
    /// Pairs tied in both.
    pub ties_both: u64,
}

impl PairCounts {
    /// Total number of pairs.
    pub fn n_pairs(&self) -> u64 {
        self.concordant + self.discordant + self.ties_x_only + self.ties_y_only + self.ties_both
    }
}

/// p-value method for [`kendall_tau_b_with`]; mirrors scipy's `method`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum KendallPValue {
    /// scipy's `'auto'`: exact when there are no ties and
    /// (n ≤ 33 or min(discordant, concordant) ≤ 1), otherwise asymptotic.
    #[default]
    Auto,
    /// Exact null distribution; an error if there are ties.
    Exact,
    /// Normal approximation with tie-corrected variance.
    Asymptotic,
}

/// Everything Knight's algorithm produces.
#[derive(Debug, Clone, Copy)]
pub(crate) struct KnightStats {
    pub(crate) n: u64,
    pub(crate) dis: u64,
    /// pairs tied in x (including joint ties)
    pub(crate) xtie: u64,
    /// pairs tied in y (including joint ties)
    pub(crate) ytie: u64,
    /// pairs tied in both
    pub(crate) ntie: u64,
    /// Σ t(t−1)(t−2) and Σ t(t−1)(2t+5) over tie groups of x and y
    pub(crate) x0: f64,
    pub(crate) x1: f64,
    pub(crate) y0: f64,
    pub(crate) y1: f64,
}

impl KnightStats {
    pub(crate) fn total(&self) -> u64 {
        self.n * self.n.saturating_sub(1) / 2
    }

    pub(crate) fn counts(&self) -> PairCounts {
        let tot = self.total();
        let ties_x_only = self.xtie - self.ntie;
        let ties_y_only = self.ytie - self.ntie;
        PairCounts {
            concordant: tot - ties_x_only - ties_y_only - self.ntie - self.dis,
            discordant: self.dis,
            ties_x_only,
            ties_y_only,
            ties_both: self.ntie,
        }
    }
}

fn tie_sums(group_sizes: impl Iterator<Item = u64>) -> (u64, f64, f64) {
    let (mut pairs, mut s0, mut s1) = (0u64, 0u128, 0u128);
    for t in group_sizes.filter(|&t| t > 1) {
        pairs += t * (t - 1) / 2;
        let t = u128::from(t);
        s0 += t * (t - 1) * (t - 2);
        s1 += t * (t - 1) * (2 * t + 5);
    }
    (pairs, s0 as f64, s1 as f64)
}

/// Counts inversions (i < j with v[i] > v[j]) by bottom-up merge sort.
fn count_inversions(v: &mut [u32]) -> u64 {
    let n = v.len();
    let mut buf = vec![0u32; n];
    let mut inversions = 0u64;
    let mut width = 1;
    let (mut src, mut dst): (&mut [u32], &mut [u32]) = (v, &mut buf);
    while width < n {
        let mut lo = 0;
        while lo < n {
            let mid = (lo + width).min(n);
            let hi = (lo + 2 * width).min(n);
            let (mut i, mut j, mut k) = (lo, mid, lo);
            while i < mid && j < hi {
                if src[j] < src[i] {
                    inversions += (mid - i) as u64;
                    dst[k] = src[j];
                    j += 1;
                } else {
                    dst[k] = src[i];
                    i += 1;
                }
                k += 1;
            }
            dst[k..k + (mid - i)].copy_from_slice(&src[i..mid]);
            k += mid - i;
            dst[k..k + (hi - j)].copy_from_slice(&src[j..hi]);
            lo = hi;
        }
        std::mem::swap(&mut src, &mut dst);
        width *= 2;
    }
    inversions
}

/// Knight's (1966) O(n log n) algorithm on NaN-free data of equal length:
/// sort by (x, y); count ties in x and joint ties from runs; count
/// discordant pairs as merge-sort inversions of the y sequence (within an x
/// tie group y is ascending, so x-ties contribute no inversions); count
/// ties in y from the dense ranks of y.
pub(crate) fn knight(x: &[f64], y: &[f64]) -> KnightStats {
    let n = x.len();
    let (rx, _) = dense_ranks(x);
    let (ry, ny) = dense_ranks(y);
    let mut keys: Vec<u64> = rx
        .iter()
        .zip(&ry)
        .map(|(&a, &b)| (u64::from(a) << 32) | u64::from(b))
        .collect();
    keys.sort_unstable();

    let runs = |eq: &dyn Fn(u64, u64) -> bool| {
        let mut sizes = Vec::new();
        let mut start = 0;
        for i in 1..=keys.len() {
            if i == keys.len() || !eq(keys[i], keys[start]) {
                sizes.push((i - start) as u64);
                start = i;
            }
        }
        sizes
    };
    let (xtie, x0, x1) = tie_sums(runs(&|a, b| a >> 32 == b >> 32).into_iter());
    let (ntie, _, _) = tie_sums(runs(&|a, b| a == b).into_iter());
    let mut ycount = vec![0u64; ny];
    for &r in &ry {
        ycount[r as usize] += 1;
    }
    let (ytie, y0, y1) = tie_sums(ycount.into_iter());

    let mut ys: Vec<u32> = keys.iter().map(|&k| k as u32).collect();
    let dis = count_inversions(&mut ys);
    KnightStats {
        n: n as u64,
        dis,
        xtie,
        ytie,
        ntie,
        x0,
        x1,
        y0,
        y1,
    }
}

/// Concordant / discordant / tied pair counts of the pairwise-complete data
/// (missing values NaN, ±∞ excluded), in O(n log n) by Knight's algorithm.
/// `ties_x_only` are pairs tied in `x` but not `y`, and so on; the five
/// counts sum to `n(n−1)/2`. These are the sufficient statistics of every
/// Kendall variant (`mt_metrics_eval` `TauSufficientStats`).
///
/// # Errors
/// [`Error::LengthMismatch`].
pub fn pair_counts(x: &[f64], y: &[f64]) -> Result<PairCounts, Error> {
    let c = complete_pairs(x, y, "x", "y")?;
    Ok(knight(&c.a, &c.b).counts())
}

/// Kendall's τ_b between `x` and `y` with scipy's default (`method='auto'`)
/// two-sided p-value. Equivalent to `scipy.stats.kendalltau(x, y,
/// variant='b')` on the pairwise-complete data. See [`kendall_tau_b_with`].
///
/// # Errors
/// [`Error::LengthMismatch`] when `x.len() != y.len()`.
pub fn kendall_tau_b(x: &[f64], y: &[f64]) -> Result<Correlation, Error> {
    kendall_tau_b_with(x, y, KendallPValue::Auto)
}

/// Kendall's τ_b = (C − D) / √((P − T_x)(P − T_y)) with `P = n(n−1)/2`,
/// `T_x`, `T_y` the pairs tied in x, y (Kendall 1945), in O(n log n)
/// (Knight 1966), matching `scipy.stats.kendalltau(x, y, variant='b',
/// method=...)` (scipy 1.17 `_stats_py.py`).
///
/// Missing values (NaN, ±∞) are excluded pairwise and counted in
/// `n_excluded`. The p-value is two-sided:
/// * exact (Kendall 1970 recurrence, scipy `_kendall_p_exact`) — only
///   without ties;
/// * asymptotic: `S = C − D` normal with variance
///   `[n(n−1)(2n+5) − Σt(t−1)(2t+5) − Σu(u−1)(2u+5)]/18
///   + Σt(t−1)·Σu(u−1) / (2n(n−1))
///   + Σt(t−1)(t−2)·Σu(u−1)(u−2) / (9n(n−1)(n−2))`.
///
/// Null (not an error) when fewer than 3 complete pairs or either input is
/// constant.
///
/// # Errors
/// [`Error::LengthMismatch`]; [`Error::ExactPValueWithTies`] for
/// `KendallPValue::Exact` with tied data.
pub fn kendall_tau_b_with(
    x: &[f64],
    y: &[f64],
    method: KendallPValue,
) -> Result<Correlation, Error> {
    let c = complete_pairs(x, y, "x", "y")?;
    let n = c.a.len();
    if n < MIN_OBSERVATIONS {
        return Ok(Correlation::null(
            n,
            c.excluded,
            NullReason::TooFewObservations {
                n,
                required: MIN_OBSERVATIONS,
            },
        ));
    }
    let k = knight(&c.a, &c.b);
    let tot = k.total();
    if k.xtie == tot {
        return Ok(Correlation::null(
            n,
            c.excluded,
            NullReason::ConstantInput { input: Input::X },
        ));
    }
    if k.ytie == tot {
        return Ok(Correlation::null(
            n,
            c.excluded,
            NullReason::ConstantInput { input: Input::Y },
        ));
    }
    let con_minus_dis =
        tot as i128 - k.xtie as i128 - k.ytie as i128 + k.ntie as i128 - 2 * k.dis as i128;
    let cmd = con_minus_dis as f64;
    let tau =
        (cmd / ((tot - k.xtie) as f64).sqrt() / ((tot - k.ytie) as f64).sqrt()).clamp(-1.0, 1.0);

    let untied = k.xtie == 0 && k.ytie == 0;
    let exact = match method {
        KendallPValue::Exact => {
            if !untied {
                return Err(Error::ExactPValueWithTies {
                    ties_x: k.xtie,
                    ties_y: k.ytie,
                });
            }
            true
        }
        KendallPValue::Asymptotic => false,
        KendallPValue::Auto => untied && (n <= 33 || k.dis.min(tot - k.dis) <= 1),
    };
    let (p, m) = if exact {
        (
            kendall_p_exact(k.n, tot - k.dis),
            PValueMethod::KendallExact,
        )
    } else {
        let nf = n as f64;
        let m = nf * (nf - 1.0);
        let var = (m * (2.0 * nf + 5.0) - k.x1 - k.y1) / 18.0
            + (2 * u128::from(k.xtie) * u128::from(k.ytie)) as f64 / m
            + k.x0 * k.y0 / (9.0 * m * (nf - 2.0));
        (
            normal_two_sided(cmd / var.sqrt()),
            PValueMethod::KendallAsymptotic,
        )
    };
    Ok(Correlation {
        statistic: Some(tau),
        p_value: Some(p),
        p_value_method: Some(m),
        n,
        n_excluded: c.excluded,
        null_reason: None,
    })
}

fn factorial(n: u64) -> f64 {
    // exact in u128 up to 34!, then a rounded running product
    let mut exact: u128 = 1;
    let mut k = 1u64;
    while k < n && k < 34 {
        k += 1;
        exact *= u128::from(k);
    }
    let mut f = exact as f64;
    while k < n {
        k += 1;
        f *= k as f64;
    }
    f
}

/// Two-sided exact p-value of Kendall's statistic for `n` untied
/// observations with `c` concordant pairs (scipy
/// `_mstats_basic._kendall_p_exact`, Kendall 1970): twice the lower tail
/// of the number of inversions of a random permutation.
pub(crate) fn kendall_p_exact(n: u64, c: u64) -> f64 {
    let tot = n * n.saturating_sub(1) / 2;
    let c = c.min(tot - c);
    let prob = if n <= 2 {
        1.0
    } else if c == 0 {
        if n < 171 {
            2.0 / factorial(n)
        } else {
            0.0
        }
    } else if c == 1 {
        if n < 172 {
            2.0 / factorial(n - 1)
        } else {
            0.0
        }
    } else if 4 * c == n * (n - 1) {
        1.0
    } else {
        // new[k] = number of permutations of j elements with k inversions
        // (k ≤ c), built up for j = 3..=n.
        let c = c as usize;
        let mut new = vec![0.0f64; c + 1];
        new[0] = 1.0;
        new[1] = 1.0;
        let scaled = n >= 171;
        for j in 3..=n as usize {
            let mut acc = 0.0;
            for v in new.iter_mut() {
                acc += *v;
                *v = if scaled { acc / j as f64 } else { acc };
            }
            if j <= c {
                for k in (j..=c).rev() {
                    new[k] -= new[k - j];
                }
            }
        }
        let s: f64 = new.iter().sum();
        if scaled {
            s
        } else {
            2.0 * s / factorial(n)
        }
    };
    prob.clamp(0.0, 1.0)
}

/// Pearson r of NaN-free, non-constant data, computed as scipy does:
/// centre, scale each centred vector by its max-abs-scaled Euclidean norm,
/// dot product, clip to [−1, 1].
pub(crate) fn pearson_statistic(x: &[f64], y: &[f64]) -> f64 {
    let center = |v: &[f64]| -> Vec<f64> {
        let m = crate::data::mean(v).unwrap_or(0.0);
        v.iter().map(|&a| a - m).collect()
    };
    let norm = |v: &[f64]| -> f64 {
        let vmax = v.iter().fold(0.0f64, |m, &a| m.max(a.abs()));
        if vmax == 0.0 {
            return 0.0;
        }
        vmax * v
            .iter()
            .map(|&a| (a / vmax) * (a / vmax))
            .sum::<f64>()
            .sqrt()
    };
    let xm = center(x);
    let ym = center(y);
    let (nx, ny) = (norm(&xm), norm(&ym));
    let r: f64 = xm.iter().zip(&ym).map(|(&a, &b)| (a / nx) * (b / ny)).sum();
    r.clamp(-1.0, 1.0)
}

/// Spearman's ρ as scipy computes it: `numpy.corrcoef` of the average
/// ranks, i.e. `(s_xy/(n−1)) / √(s_xx/(n−1)) / √(s_yy/(n−1))` of the centred
/// ranks, clipped. Centred ranks are multiples of ½ and their mean is
/// exactly (n+1)/2, so the sums are exact and the result is bit-identical
/// to numpy's (which matters near |ρ| = 1, where the p-value of a small
/// sample is ill-conditioned).
pub(crate) fn spearman_statistic(x: &[f64], y: &[f64]) -> f64 {
    let rx = average_ranks(x);
    let ry = average_ranks(y);
    let n = rx.len() as f64;
    let mx = crate::data::mean(&rx).unwrap_or(0.0);
    let my = crate::data::mean(&ry).unwrap_or(0.0);
    let (mut sxx, mut syy, mut sxy) = (0.0, 0.0, 0.0);
    for (&a, &b) in rx.iter().zip(&ry) {
        let (da, db) = (a - mx, b - my);
        sxx += da * da;
        syy += db * db;
        sxy += da * db;
    }
    let f = n - 1.0;
    (sxy / f / (sxx / f).sqrt() / (syy / f).sqrt()).clamp(-1.0, 1.0)
}

fn product_moment(
    x: &[f64],
    y: &[f64],
    ranks: bool,
    method: PValueMethod,
) -> Result<Correlation, Error> {
    let c = complete_pairs(x, y, "x", "y")?;
    let n = c.a.len();
    if n < MIN_OBSERVATIONS {
        return Ok(Correlation::null(
            n,
            c.excluded,
            NullReason::TooFewObservations {
                n,
                required: MIN_OBSERVATIONS,
            },
        ));
    }
    if is_constant(&c.a) {
        return Ok(Correlation::null(
            n,
            c.excluded,
            NullReason::ConstantInput { input: Input::X },
        ));
    }
    if is_constant(&c.b) {
        return Ok(Correlation::null(
            n,
            c.excluded,
            NullReason::ConstantInput { input: Input::Y },
        ));
    }
    let r = if ranks {
        spearman_statistic(&c.a, &c.b)
    } else {
        pearson_statistic(&c.a, &c.b)
    };
    Ok(Correlation {
        statistic: Some(r),
        p_value: correlation_p_value(r, n),
        p_value_method: Some(method),
        n,
        n_excluded: c.excluded,
        null_reason: None,
    })
}

/// Spearman's ρ: Pearson r of the average ranks (ties share the mean rank),
/// as `scipy.stats.spearmanr(x, y)`. Two-sided p-value from Student t with
/// n − 2 degrees of freedom on `t = ρ √((n−2)/((1+ρ)(1−ρ)))`, evaluated via
/// the identity `P(|T| ≥ |t|) = 2 I_{(1−|ρ|)/2}((n−2)/2, (n−2)/2)`.
///
/// Missing values excluded pairwise; null when n < 3 or an input is constant.
///
/// # Errors
/// [`Error::LengthMismatch`].
pub fn spearman_rho(x: &[f64], y: &[f64]) -> Result<Correlation, Error> {
    product_moment(x, y, true, PValueMethod::StudentT)
}

/// Pearson's r, as `scipy.stats.pearsonr(x, y)`, with the exact two-sided
/// p-value under bivariate normality: r ~ Beta(n/2−1, n/2−1) on (−1, 1).
///
/// Missing values excluded pairwise; null when n < 3 or an input is
/// constant (exactly equal values; nearly constant input is computed, as
/// scipy does after its `NearConstantInputWarning`).
///
/// # Errors
/// [`Error::LengthMismatch`].
pub fn pearson_r(x: &[f64], y: &[f64]) -> Result<Correlation, Error> {
    product_moment(x, y, false, PValueMethod::Beta)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn brute(x: &[f64], y: &[f64]) -> PairCounts {
        let mut c = PairCounts::default();
        for i in 0..x.len() {
            for j in i + 1..x.len() {
                let (dx, dy) = (x[i] - x[j], y[i] - y[j]);
                match (dx == 0.0, dy == 0.0) {
                    (true, true) => c.ties_both += 1,
                    (true, false) => c.ties_x_only += 1,
                    (false, true) => c.ties_y_only += 1,
                    _ if (dx > 0.0) == (dy > 0.0) => c.concordant += 1,
                    _ => c.discordant += 1,
                }
            }
        }
        c
    }

    #[test]
    fn knight_matches_brute_force() {
        let x = [1.0, 2.0, 2.0, 3.0, 3.0, 3.0, 5.0, 0.0, 2.0];
        let y = [4.0, 1.0, 1.0, 2.0, 5.0, 2.0, 0.0, 0.0, 3.0];
        assert_eq!(knight(&x, &y).counts(), brute(&x, &y));
        // a pseudo-random larger case with many ties
        let mut s = 12345u64;
        let mut next = || {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((s >> 33) % 7) as f64
        };
        let x: Vec<f64> = (0..300).map(|_| next()).collect();
        let y: Vec<f64> = (0..300).map(|_| next()).collect();
        assert_eq!(knight(&x, &y).counts(), brute(&x, &y));
    }

    #[test]
    fn kendall_hand_worked() {
        // x = [1,2,3,4], y = [1,3,2,4]: pairs (6): only (2,3) discordant.
        // C = 5, D = 1, no ties → τ = 4/6 = 2/3.
        // Exact p: n = 4, c = 5 → min(5, 1) = 1 → 2/(n−1)! = 2/6 = 1/3.
        let r = kendall_tau_b(&[1.0, 2.0, 3.0, 4.0], &[1.0, 3.0, 2.0, 4.0]).unwrap();
        assert!((r.statistic.unwrap() - 2.0 / 3.0).abs() < 1e-15);
        assert!((r.p_value.unwrap() - 1.0 / 3.0).abs() < 1e-15);
        assert_eq!(r.p_value_method, Some(PValueMethod::KendallExact));

        // x = [1,1,2,3], y = [1,2,2,3]: pairs: (1,2) tie x only; (1,3) C;
        // (1,4) C; (2,3) tie y only; (2,4) C; (3,4) C → C=4, D=0, Tx=1, Ty=1.
        // τ_b = 4 / √((6−1)(6−1)) = 0.8.
        let r = kendall_tau_b(&[1.0, 1.0, 2.0, 3.0], &[1.0, 2.0, 2.0, 3.0]).unwrap();
        assert!((r.statistic.unwrap() - 0.8).abs() < 1e-15);
        assert_eq!(r.p_value_method, Some(PValueMethod::KendallAsymptotic));
        // one tie group of size 2 in each: Σt(t−1)(2t+5) = 2·1·9 = 18, Σt(t−1)(t−2) = 0
        // var = [12·13 − 18 − 18]/18 + (2·1·1)/12 + 0 = 120/18 + 1/6 = 41/6
        // z = 4/√(41/6); p = erfc(z/√2)
        let z = 4.0 / (41.0f64 / 6.0).sqrt();
        let p = libm::erfc(z / std::f64::consts::SQRT_2);
        assert!((r.p_value.unwrap() - p).abs() < 1e-15);
    }

    #[test]
    fn exact_p_recurrence() {
        // n = 4, all 24 permutations by inversion count: 1,3,5,6,5,3,1.
        // c = 2 (or 4): lower tail P(inv ≤ 2) = 9/24 → two-sided 18/24.
        assert!((kendall_p_exact(4, 2) - 0.75).abs() < 1e-15);
        // n = 3: counts 1,2,2,1; c = 0 → 2/6
        assert!((kendall_p_exact(3, 0) - 1.0 / 3.0).abs() < 1e-15);
        // the scaled branch (n ≥ 171) agrees with the closed form near c = 2
        // only in being a probability; check it is in range and symmetric.
        let p = kendall_p_exact(200, 9000);
        assert!((0.0..=1.0).contains(&p));
        assert_eq!(p, kendall_p_exact(200, 200 * 199 / 2 - 9000));
    }

    #[test]
    fn spearman_and_pearson_hand_worked() {
        // x = [1,2,3], y = [1,3,2]: ranks equal values; Pearson:
        // centred x = [-1,0,1], y = [-1,1,0] → r = 1/(√2·√2) = 0.5
        let r = pearson_r(&[1.0, 2.0, 3.0], &[1.0, 3.0, 2.0]).unwrap();
        assert!((r.statistic.unwrap() - 0.5).abs() < 1e-15);
        // n = 3 null of r is arcsine: p = 1 − (2/π) asin(0.5) = 2/3
        assert!((r.p_value.unwrap() - 2.0 / 3.0).abs() < 1e-14);
        let s = spearman_rho(&[10.0, 20.0, 30.0], &[0.1, 5.0, 2.0]).unwrap();
        assert!((s.statistic.unwrap() - 0.5).abs() < 1e-15);
    }

    #[test]
    fn nulls_and_exclusions() {
        let r = kendall_tau_b(&[1.0, 2.0], &[2.0, 1.0]).unwrap();
        assert_eq!(
            r.null_reason,
            Some(NullReason::TooFewObservations { n: 2, required: 3 })
        );
        let r = pearson_r(&[1.0, 1.0, 1.0], &[1.0, 2.0, 3.0]).unwrap();
        assert_eq!(
            r.null_reason,
            Some(NullReason::ConstantInput { input: Input::X })
        );
        let r = spearman_rho(&[1.0, 2.0, 3.0], &[4.0, 4.0, 4.0]).unwrap();
        assert_eq!(
            r.null_reason,
            Some(NullReason::ConstantInput { input: Input::Y })
        );
        let r = kendall_tau_b(&[1.0, 1.0, 1.0], &[1.0, 2.0, 3.0]).unwrap();
        assert_eq!(
            r.null_reason,
            Some(NullReason::ConstantInput { input: Input::X })
        );
        let r = kendall_tau_b(
            &[1.0, f64::NAN, 2.0, 3.0, 4.0],
            &[1.0, 2.0, 2.0, f64::NAN, 3.0],
        )
        .unwrap();
        assert_eq!((r.n, r.n_excluded), (3, 2));
        assert_eq!(r.statistic, Some(1.0));
        assert!(kendall_tau_b(&[1.0], &[1.0, 2.0]).is_err());
        assert!(matches!(
            kendall_tau_b_with(&[1.0, 1.0, 2.0], &[1.0, 2.0, 3.0], KendallPValue::Exact),
            Err(Error::ExactPValueWithTies {
                ties_x: 1,
                ties_y: 0
            })
        ));
    }
}
