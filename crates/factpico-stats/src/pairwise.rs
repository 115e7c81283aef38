//! Pairwise accuracy with tie calibration (acc_eq).
//!
//! Deutsch, Foster & Freitag (2023), *Ties Matter: Meta-Evaluating Modern
//! Metrics with Pairwise Accuracy and Tie Calibration*, EMNLP 2023
//! (arXiv 2305.14324). Reference implementation: google-research
//! `mt-metrics-eval`, `mt_metrics_eval/tau_optimization.py`
//! (`tau_optimization`, `TauSufficientStats.acc_23`) called through
//! `mt_metrics_eval/stats.py::KendallWithTiesOpt(variant='acc23')`.

use serde::{Deserialize, Serialize};

use crate::correlation::{PairCounts, MIN_OBSERVATIONS};
use crate::data::complete_pairs;
use crate::error::{NullReason, Error};

/// Largest number of complete observations
/// [`pairwise_accuracy_tie_calibrated`] accepts: 20 000 (≤ 2·10⁸ pairs,
/// ≤ 1.6 GB for the sorted thresholds, tens of seconds).
pub const MAX_CALIBRATION_N: usize = 20_000;

/// Pairwise accuracy (acc_23 / acc_eq) of a metric against human scores.
///
/// Over all `n_pairs = n(n−1)/2` pairs of complete observations, a pair
/// counts as correct when the metric orders it as the humans do, or when
/// both call it a tie:
/// `accuracy = (concordant + ties_both) / n_pairs` ∈ [0, 1].
/// Metric ties are *induced*: a pair whose metric scores differ by at most
/// `epsilon` (`|m_i − m_j| ≤ ε`) is a metric tie. Human ties are exact
/// equality.
///
/// `accuracy`, `epsilon` and `counts` are `None` exactly when `null_reason`
/// is `Some` (fewer than 3 complete observations).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct PairwiseAccuracy {
    /// acc_eq ∈ [0, 1].
    pub accuracy: Option<f64>,
    /// The tie threshold ε ≥ 0 used (chosen, for the calibrated variant), in
    /// metric units.
    pub epsilon: Option<f64>,
    /// Pair classification at `epsilon`; `ties_x_only` = human-only ties,
    /// `ties_y_only` = metric-only ties.
    pub counts: Option<PairCounts>,
    /// Number of pairs, `n(n−1)/2`.
    pub n_pairs: u64,
    /// Complete observations used.
    pub n: usize,
    /// Observations excluded because either score was NaN or ±∞.
    pub n_excluded: usize,
    /// Why the statistic is undefined, when it is.
    pub null_reason: Option<NullReason>,
}

fn classify(h: f64, m: f64, eps: f64) -> u8 {
    // 0 concordant, 1 discordant, 2 human-only tie, 3 metric-only tie, 4 both
    let ht = h == 0.0;
    let mt = m.abs() <= eps;
    match (ht, mt) {
        (true, true) => 4,
        (true, false) => 2,
        (false, true) => 3,
        _ if (h > 0.0) == (m > 0.0) => 0,
        _ => 1,
    }
}

fn counts_at(human: &[f64], metric: &[f64], eps: f64) -> PairCounts {
    let mut c = [0u64; 5];
    for i in 0..human.len() {
        for j in i + 1..human.len() {
            c[classify(human[i] - human[j], metric[i] - metric[j], eps) as usize] += 1;
        }
    }
    PairCounts {
        concordant: c[0],
        discordant: c[1],
        ties_x_only: c[2],
        ties_y_only: c[3],
        ties_both: c[4],
    }
}

fn result(n: usize, excluded: usize, eps: f64, counts: PairCounts) -> PairwiseAccuracy {
    let n_pairs = counts.n_pairs();
    PairwiseAccuracy {
        accuracy: Some((counts.concordant + counts.ties_both) as f64 / n_pairs as f64),
        epsilon: Some(eps),
        counts: Some(counts),
        n_pairs,
        n,
        n_excluded: excluded,
        null_reason: None,
    }
}

fn too_few(n: usize, excluded: usize) -> PairwiseAccuracy {
    PairwiseAccuracy {
        accuracy: None,
        epsilon: None,
        counts: None,
        n_pairs: (n * n.saturating_sub(1) / 2) as u64,
        n,
        n_excluded: excluded,
        null_reason: Some(NullReason::TooFewObservations {
            n,
            required: MIN_OBSERVATIONS,
        }),
    }
}

/// Pairwise accuracy with a fixed tie threshold `epsilon` (metric pairs with
/// `|Δ| ≤ epsilon` are ties); `epsilon = 0` gives plain acc_23 with exact
/// ties. Same as `mt_metrics_eval.stats.KendallVariants(human, metric,
/// variant='acc23', epsilon=epsilon)`. Use it to apply an ε chosen on other
/// data. O(n²) time, O(n) memory.
///
/// # Errors
/// [`Error::LengthMismatch`]; [`Error::InvalidParameter`] when
/// `epsilon` is negative or not finite.
pub fn pairwise_accuracy(
    metric: &[f64],
    human: &[f64],
    epsilon: f64,
) -> Result<PairwiseAccuracy, Error> {
    if !(epsilon >= 0.0 && epsilon.is_finite()) {
        return Err(Error::InvalidParameter {
            name: "epsilon",
            reason: format!("must be finite and ≥ 0, got {epsilon}"),
        });
    }
    let c = complete_pairs(metric, human, "metric", "human")?;
    let n = c.a.len();
    if n < MIN_OBSERVATIONS {
        return Ok(too_few(n, c.excluded));
    }
    Ok(result(
        n,
        c.excluded,
        epsilon,
        counts_at(&c.b, &c.a, epsilon),
    ))
}

/// Tie-calibrated pairwise accuracy acc_eq (Deutsch et al. 2023): the
/// maximum over ε ≥ 0 of [`pairwise_accuracy`]`(metric, human, ε)`, and the
/// ε attaining it.
///
/// Algorithm (same result as the authors' `tau_optimization` with
/// `sample_rate=1.0`, i.e. exhaustive, not the 10 % pair sample that
/// `KendallWithTiesOpt` uses by default): candidate thresholds are 0 and
/// every distinct `|m_i − m_j|`. Raising ε past a pair's `|Δm|` turns it
/// into a metric tie, which changes the numerator `concordant + ties_both`
/// by +1 (human-tied pair becomes a joint tie), −1 (concordant pair becomes
/// a metric-only tie) or 0 (discordant or already tied). Only the ±1 pairs
/// are stored and sorted, then swept in increasing `|Δm|`, applying all
/// pairs with equal `|Δm|` together. The returned ε is the *smallest*
/// candidate reaching the maximum (the reference takes the first
/// `nanargmax`; its running value is exact for a single vector, so ties
/// between candidates resolve the same way).
///
/// Complexity: O(n²) pair enumeration plus O(P log P) sorting, P ≤ n(n−1)/2
/// the ±1 pairs — O(n² log n) time, up to 8·P bytes of memory (36 MB at
/// n = 3 000; ~0.1 s). Intended for n up to a few thousand; inputs with more
/// than [`MAX_CALIBRATION_N`] complete observations are rejected rather
/// than risking gigabytes of memory.
///
/// Missing values (NaN, ±∞) are excluded pairwise; null when fewer than 3
/// complete observations remain. A constant human vector is not null:
/// every pair is a human tie and the best ε ties every metric pair
/// (accuracy 1), as in the reference.
///
/// # Errors
/// [`Error::LengthMismatch`]; [`Error::TooLarge`] above
/// [`MAX_CALIBRATION_N`] complete observations.
pub fn pairwise_accuracy_tie_calibrated(
    metric: &[f64],
    human: &[f64],
) -> Result<PairwiseAccuracy, Error> {
    let c = complete_pairs(metric, human, "metric", "human")?;
    let n = c.a.len();
    if n < MIN_OBSERVATIONS {
        return Ok(too_few(n, c.excluded));
    }
    if n > MAX_CALIBRATION_N {
        return Err(Error::TooLarge {
            what: "pairwise_accuracy_tie_calibrated",
            n,
            max: MAX_CALIBRATION_N,
        });
    }
    let (m, h) = (&c.a, &c.b);
    let mut base: u64 = 0; // concordant + ties_both at ε = 0
    let mut plus: Vec<f64> = Vec::new(); // human tie, metric differs
    let mut minus: Vec<f64> = Vec::new(); // concordant
    for i in 0..n {
        for j in i + 1..n {
            let dh = h[i] - h[j];
            let dm = m[i] - m[j];
            match classify(dh, dm, 0.0) {
                0 => {
                    base += 1;
                    minus.push(dm.abs());
                }
                2 => plus.push(dm.abs()),
                4 => base += 1,
                _ => {}
            }
        }
    }
    plus.sort_unstable_by(f64::total_cmp);
    minus.sort_unstable_by(f64::total_cmp);

    let (mut best, mut best_eps) = (base as i64, 0.0f64);
    let mut cur = base as i64;
    let (mut i, mut j) = (0usize, 0usize);
    while i < plus.len() || j < minus.len() {
        let d = match (plus.get(i), minus.get(j)) {
            (Some(&p), Some(&q)) => p.min(q),
            (Some(&p), None) => p,
            (None, Some(&q)) => q,
            (None, None) => break,
        };
        while i < plus.len() && plus[i] == d {
            cur += 1;
            i += 1;
        }
        while j < minus.len() && minus[j] == d {
            cur -= 1;
            j += 1;
        }
        if cur > best {
            best = cur;
            best_eps = d;
        }
    }
    let counts = counts_at(h, m, best_eps);
    debug_assert_eq!((counts.concordant + counts.ties_both) as i64, best);
    Ok(result(n, c.excluded, best_eps, counts))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn hand_worked_calibration() {
        // human  h = [1, 1, 2, 3], metric m = [0.10, 0.12, 0.50, 0.45]
        // pairs (i,j): Δh, |Δm|, class at ε=0
        //  (0,1): 0, 0.02  human tie, metric differs  → +1 when ε ≥ 0.02
        //  (0,2): -1, 0.40 concordant                  → −1 when ε ≥ 0.40
        //  (0,3): -2, 0.35 concordant                  → −1 when ε ≥ 0.35
        //  (1,2): -1, 0.38 concordant                  → −1 when ε ≥ 0.38
        //  (1,3): -2, 0.33 concordant                  → −1 when ε ≥ 0.33
        //  (2,3): -1, 0.05 discordant (m2 > m3)        →  0
        // ε = 0: C + T_both = 4 → 4/6; ε = 0.02: 5/6 (best); ε = 0.05: 5/6;
        // larger ε only loses. Smallest maximiser: ε = |0.10 − 0.12|.
        let h = [1.0, 1.0, 2.0, 3.0];
        let m = [0.10, 0.12, 0.50, 0.45];
        let r = pairwise_accuracy_tie_calibrated(&m, &h).unwrap();
        assert!((r.accuracy.unwrap() - 5.0 / 6.0).abs() < 1e-15);
        assert_eq!(r.epsilon, Some((0.10f64 - 0.12).abs()));
        let c = r.counts.unwrap();
        assert_eq!(
            (
                c.concordant,
                c.discordant,
                c.ties_x_only,
                c.ties_y_only,
                c.ties_both
            ),
            (4, 1, 0, 0, 1)
        );
        assert_eq!(r.n_pairs, 6);
        // fixed ε = 0: 4/6
        let r0 = pairwise_accuracy(&m, &h, 0.0).unwrap();
        assert!((r0.accuracy.unwrap() - 4.0 / 6.0).abs() < 1e-15);
        // fixed ε = 0.36: ties (0,1),(2,3),(0,3),(1,3) → C = 2 [(0,2),(1,2)],
        // T_both = 1 → 3/6
        let r1 = pairwise_accuracy(&m, &h, 0.36).unwrap();
        assert!((r1.accuracy.unwrap() - 0.5).abs() < 1e-15);
    }

    #[test]
    fn no_gain_keeps_epsilon_zero() {
        // strictly increasing in both → all concordant, any tie only hurts
        let r =
            pairwise_accuracy_tie_calibrated(&[1.0, 2.0, 3.0, 4.0], &[1.0, 2.0, 3.0, 4.0]).unwrap();
        assert_eq!((r.accuracy, r.epsilon), (Some(1.0), Some(0.0)));
    }

    #[test]
    fn constant_human_ties_everything() {
        // all pairs human-tied: best ε = max |Δm| = 2, accuracy 1
        let r = pairwise_accuracy_tie_calibrated(&[0.0, 1.0, 2.0], &[3.0, 3.0, 3.0]).unwrap();
        assert_eq!((r.accuracy, r.epsilon), (Some(1.0), Some(2.0)));
    }

    #[test]
    fn nulls_and_errors() {
        let r = pairwise_accuracy_tie_calibrated(&[1.0, f64::NAN, 2.0], &[1.0, 2.0, 3.0]).unwrap();
        assert_eq!(
            r.null_reason,
            Some(NullReason::TooFewObservations { n: 2, required: 3 })
        );
        assert_eq!(r.n_excluded, 1);
        assert!(pairwise_accuracy(&[1.0, 2.0, 3.0], &[1.0, 2.0, 3.0], -1.0).is_err());
        assert!(pairwise_accuracy_tie_calibrated(&[1.0], &[]).is_err());
        let big = vec![0.5; MAX_CALIBRATION_N + 1];
        assert!(matches!(
            pairwise_accuracy_tie_calibrated(&big, &big),
            Err(Error::TooLarge { n, .. }) if n == MAX_CALIBRATION_N + 1
        ));
    }
}
