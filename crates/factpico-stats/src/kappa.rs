//! Randolph's free-marginal multirater kappa.

use std::collections::{HashMap, HashSet};
use std::hash::Hash;

use serde::{Deserialize, Serialize};

use crate::error::{NullReason, Error};

/// Result of [`randolph_kappa`].
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct RandolphKappa {
    /// κ_free = (P_o − 1/k) / (1 − 1/k) ∈ [−1/(k−1), 1].
    pub kappa: Option<f64>,
    /// P_o: mean over items of the proportion of agreeing rater pairs, ∈ [0, 1].
    pub observed_agreement: Option<f64>,
    /// P_e = 1/k.
    pub chance_agreement: f64,
    /// k.
    pub n_categories: usize,
    /// Items with at least two ratings (used).
    pub n_items: usize,
    /// Items with fewer than two ratings (excluded).
    pub n_items_excluded: usize,
    /// Ratings on the used items.
    pub n_ratings: usize,
    /// Why `kappa` is `None` (no item has two ratings).
    pub null_reason: Option<NullReason>,
}

/// Randolph's (2005) free-marginal multirater kappa, the agreement
/// statistic of FactPICO Table 1.
///
/// `ratings` is an items × annotators matrix (rows may differ in length);
/// `None` marks a missing rating. Labels are compared by equality only, so
/// any `Eq + Hash` type works (e.g. the 1–4 scale as integers); `k =
/// n_categories` is the number of categories raters could choose from
/// (not only those observed).
///
/// For item i with r_i ≥ 2 ratings, n_ij of them in category j,
/// `P_i = Σ_j n_ij (n_ij − 1) / (r_i (r_i − 1))` (the proportion of
/// agreeing ordered rater pairs); `P_o = mean_i P_i` over items with
/// r_i ≥ 2 (items with fewer are excluded and counted);
/// `κ_free = (P_o − 1/k) / (1 − 1/k)`. With complete data (r_i = r for all
/// i) this is Randolph's formula and equals
/// `statsmodels.stats.inter_rater.fleiss_kappa(table, method='randolph')`
/// (statsmodels requires complete data; this function does not).
///
/// Reference: J. J. Randolph, *Free-marginal multirater kappa (multirater
/// κfree): an alternative to Fleiss' fixed-marginal multirater kappa*,
/// Joensuu Learning and Instruction Symposium, 2005.
///
/// # Errors
/// [`Error::InvalidParameter`] when `n_categories < 2`;
/// [`Error::TooManyCategories`] when more than `n_categories` distinct
/// labels occur.
pub fn randolph_kappa<T, R>(ratings: &[R], n_categories: usize) -> Result<RandolphKappa, Error>
where
    T: Eq + Hash,
    R: AsRef<[Option<T>]>,
{
    if n_categories < 2 {
        return Err(Error::InvalidParameter {
            name: "n_categories",
            reason: format!("need at least 2 categories, got {n_categories}"),
        });
    }
    let mut labels: HashSet<&T> = HashSet::new();
    let mut sum_p = 0.0;
    let (mut n_items, mut n_excluded, mut n_ratings) = (0usize, 0usize, 0usize);
    for row in ratings {
        let mut counts: HashMap<&T, u64> = HashMap::new();
        let mut r = 0u64;
        for v in row.as_ref().iter().flatten() {
            labels.insert(v);
            *counts.entry(v).or_insert(0) += 1;
            r += 1;
        }
        if r < 2 {
            n_excluded += 1;
            continue;
        }
        let agree: u64 = counts.values().map(|&c| c * (c - 1)).sum();
        sum_p += agree as f64 / (r * (r - 1)) as f64;
        n_items += 1;
        n_ratings += r as usize;
    }
    if labels.len() > n_categories {
        return Err(Error::TooManyCategories {
            observed: labels.len(),
            n_categories,
        });
    }
    let pe = 1.0 / n_categories as f64;
    let (kappa, po, reason) = if n_items == 0 {
        (
            None,
            None,
            Some(NullReason::TooFewObservations { n: 0, required: 1 }),
        )
    } else {
        let po = sum_p / n_items as f64;
        (Some((po - pe) / (1.0 - pe)), Some(po), None)
    };
    Ok(RandolphKappa {
        kappa,
        observed_agreement: po,
        chance_agreement: pe,
        n_categories,
        n_items,
        n_items_excluded: n_excluded,
        n_ratings,
        null_reason: reason,
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn hand_worked_complete() {
        // 3 items × 3 raters, k = 4.
        // item 1: 4,4,4 → n = {4:3}: 3·2/(3·2) = 1
        // item 2: 4,4,3 → {4:2, 3:1}: 2·1/6 = 1/3
        // item 3: 1,2,3 → 0
        // P_o = (1 + 1/3 + 0)/3 = 4/9; κ = (4/9 − 1/4)/(3/4) = (7/36)/(3/4) = 7/27
        let r = randolph_kappa(
            &[
                [Some(4), Some(4), Some(4)],
                [Some(4), Some(4), Some(3)],
                [Some(1), Some(2), Some(3)],
            ],
            4,
        )
        .unwrap();
        assert!((r.observed_agreement.unwrap() - 4.0 / 9.0).abs() < 1e-15);
        assert!((r.kappa.unwrap() - 7.0 / 27.0).abs() < 1e-15);
        assert_eq!((r.n_items, r.n_ratings), (3, 9));
    }

    #[test]
    fn missing_ratings() {
        // item 1: 4, -, 4 → 1; item 2: -, 3, - → excluded; item 3: 2,3,3,3 →
        // {b:3, c:1}: 3·2/(4·3) = 1/2. P_o = (1 + 1/2)/2 = 3/4.
        let rows: Vec<Vec<Option<&str>>> = vec![
            vec![Some("a"), None, Some("a")],
            vec![None, Some("b"), None],
            vec![Some("c"), Some("b"), Some("b"), Some("b")],
        ];
        let r = randolph_kappa(&rows, 3).unwrap();
        assert!((r.observed_agreement.unwrap() - 0.75).abs() < 1e-15);
        // k = 3: κ = (3/4 − 1/3)/(2/3) = 5/8
        assert!((r.kappa.unwrap() - 0.625).abs() < 1e-15);
        assert_eq!((r.n_items, r.n_items_excluded, r.n_ratings), (2, 1, 6));
    }

    #[test]
    fn errors_and_null() {
        assert!(randolph_kappa(&[[Some(1), Some(2)]], 1).is_err());
        assert!(matches!(
            randolph_kappa(&[[Some(1), Some(2), Some(3)]], 2),
            Err(Error::TooManyCategories {
                observed: 3,
                n_categories: 2
            })
        ));
        let r = randolph_kappa(&[[Some(1), None]], 2).unwrap();
        assert!(r.kappa.is_none() && r.null_reason.is_some());
    }
}
