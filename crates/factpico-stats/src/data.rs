//! Pairwise exclusion of missing values, and ranking helpers.

use crate::error::Error;

/// Pairwise-complete copy of two parallel vectors.
#[derive(Debug, Clone, Default)]
pub(crate) struct Complete {
    pub(crate) a: Vec<f64>,
    pub(crate) b: Vec<f64>,
    pub(crate) excluded: usize,
}

/// True when `v` counts as an observation (finite). NaN and ±∞ are missing.
#[inline]
pub(crate) fn present(v: f64) -> bool {
    v.is_finite()
}

/// Checks lengths, then keeps the positions where both values are finite.
/// `-0.0` is normalised to `0.0` so that `total_cmp` orders like `==`.
pub(crate) fn complete_pairs(
    a: &[f64],
    b: &[f64],
    a_name: &'static str,
    b_name: &'static str,
) -> Result<Complete, Error> {
    check_len(a.len(), b.len(), a_name, b_name)?;
    let mut out = Complete {
        a: Vec::with_capacity(a.len()),
        b: Vec::with_capacity(a.len()),
        excluded: 0,
    };
    for (&u, &v) in a.iter().zip(b) {
        if present(u) && present(v) {
            out.a.push(u + 0.0);
            out.b.push(v + 0.0);
        } else {
            out.excluded += 1;
        }
    }
    Ok(out)
}

pub(crate) fn check_len(
    left: usize,
    right: usize,
    left_name: &'static str,
    right_name: &'static str,
) -> Result<(), Error> {
    if left == right {
        Ok(())
    } else {
        Err(Error::LengthMismatch {
            left_name,
            left,
            right_name,
            right,
        })
    }
}

/// True when every value equals the first (exact `==`, as scipy checks).
pub(crate) fn is_constant(v: &[f64]) -> bool {
    v.first().is_none_or(|&f| v.iter().all(|&x| x == f))
}

/// Order-preserving map of a non-NaN `f64` onto `u64` (for `-0.0` and
/// `0.0` to share a key, callers normalise `-0.0` first).
#[inline]
fn ord_key(v: f64) -> u64 {
    let b = v.to_bits();
    if b >> 63 == 1 {
        !b
    } else {
        b | (1 << 63)
    }
}

/// Indices of `v` in ascending order, ties by index (the order a stable
/// sort gives). `v` must be NaN-free. Sorts contiguous (key, index) pairs,
/// which is several times faster than an indirect comparison sort.
fn argsort(v: &[f64]) -> Vec<usize> {
    let mut keyed: Vec<(u64, usize)> = v
        .iter()
        .enumerate()
        .map(|(i, &x)| (ord_key(x), i))
        .collect();
    keyed.sort_unstable();
    keyed.into_iter().map(|(_, i)| i).collect()
}

/// Average ranks (1-based), as `scipy.stats.rankdata(v, method="average")`.
/// Ties share the mean of the positions they span, e.g. `[10, 20, 20, 30]`
/// → `[1, 2.5, 2.5, 4]`. `v` must be NaN-free.
pub(crate) fn average_ranks(v: &[f64]) -> Vec<f64> {
    let idx = argsort(v);
    let mut ranks = vec![0.0; v.len()];
    let mut start = 0;
    while start < idx.len() {
        let mut end = start + 1;
        while end < idx.len() && v[idx[end]] == v[idx[start]] {
            end += 1;
        }
        // positions start+1 ..= end (1-based); their mean:
        let r = (start + 1 + end) as f64 / 2.0;
        for &i in &idx[start..end] {
            ranks[i] = r;
        }
        start = end;
    }
    ranks
}

/// Dense ranks (0-based, ties share a rank, no gaps) and the number of
/// distinct values. `v` must be NaN-free.
pub(crate) fn dense_ranks(v: &[f64]) -> (Vec<u32>, usize) {
    let idx = argsort(v);
    let mut ranks = vec![0u32; v.len()];
    let mut rank = 0u32;
    for (k, &i) in idx.iter().enumerate() {
        if k > 0 && v[i] != v[idx[k - 1]] {
            rank += 1;
        }
        ranks[i] = rank;
    }
    let distinct = if v.is_empty() { 0 } else { rank as usize + 1 };
    (ranks, distinct)
}

/// Arithmetic mean by sequential summation (`sum / n`); `None` when empty.
pub(crate) fn mean(v: &[f64]) -> Option<f64> {
    if v.is_empty() {
        return None;
    }
    let mut s = 0.0;
    for &x in v {
        s += x;
    }
    Some(s / v.len() as f64)
}

/// Population standard deviation (`ddof = 0`, the maximum-likelihood
/// estimate, as `numpy.std` and `scipy.stats.norm.fit`). Two-pass.
pub(crate) fn population_sd(v: &[f64], mean: f64) -> f64 {
    let mut ss = 0.0;
    for &x in v {
        let d = x - mean;
        ss += d * d;
    }
    (ss / v.len() as f64).sqrt()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn average_ranks_with_ties() {
        // positions of 20: 2 and 3 → 2.5; 30 → 4; 10 → 1
        assert_eq!(
            average_ranks(&[30.0, 10.0, 20.0, 20.0]),
            vec![4.0, 1.0, 2.5, 2.5]
        );
        // three-way tie at positions 1..=3 → 2
        assert_eq!(
            average_ranks(&[5.0, 5.0, 5.0, 1.0]),
            vec![3.0, 3.0, 3.0, 1.0]
        );
    }

    #[test]
    fn ord_key_is_monotone() {
        let v = [
            f64::NEG_INFINITY,
            -1e300,
            -2.5,
            -1e-300,
            0.0,
            1e-300,
            3.0,
            1e300,
            f64::INFINITY,
        ];
        for w in v.windows(2) {
            assert!(ord_key(w[0]) < ord_key(w[1]), "{} < {}", w[0], w[1]);
        }
        assert_eq!(argsort(&[2.0, 1.0, 2.0, 0.5]), vec![3, 1, 0, 2]);
    }

    #[test]
    fn dense_ranks_and_negative_zero() {
        let c = complete_pairs(&[-0.0, 0.0, 1.0], &[1.0, 2.0, 3.0], "a", "b").unwrap();
        let (r, d) = dense_ranks(&c.a);
        assert_eq!(r, vec![0, 0, 1]);
        assert_eq!(d, 2);
    }

    #[test]
    fn exclusion_counts_nan_and_infinity() {
        let c = complete_pairs(
            &[1.0, f64::NAN, 3.0, 4.0],
            &[1.0, 2.0, f64::INFINITY, 4.0],
            "a",
            "b",
        )
        .unwrap();
        assert_eq!(c.a, vec![1.0, 4.0]);
        assert_eq!(c.excluded, 2);
        assert!(matches!(
            complete_pairs(&[1.0], &[], "a", "b"),
            Err(Error::LengthMismatch {
                left: 1,
                right: 0,
                ..
            })
        ));
    }
}
