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
use crate::data::{complete_pairs, present};
use crate::error::{NullReason, Error};

/// Largest number of complete observations
/// [`pairwise_accuracy_tie_calibrated`] computes exactly: 20 000 (≤ 2·10⁸
/// pairs, seconds). Above it, the statistic is computed on a seeded uniform
/// random sample of this many observations and flagged as such
/// ([`PairwiseAccuracy::sampled_from`]).
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
    /// When the calibrated statistic was computed on a random sample (more
    /// than [`MAX_CALIBRATION_N`] complete observations): the number of
    /// complete observations the sample of `n` was drawn from. `None`: exact,
    /// over all complete observations (absent from JSON then).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sampled_from: Option<usize>,
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
        sampled_from: None,
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
        sampled_from: None,
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
/// a metric-only tie) or 0 (discordant or already tied). The ±1 pairs are
/// swept in increasing `|Δm|`, all pairs with equal `|Δm|` applied together.
/// With the observations sorted by metric, the pairs whose gap lies in a
/// range are found by binary search, so the sweep goes range by range,
/// holding at most 2²³ gaps (64 MiB) at a time: a range with more pairs is
/// halved until it fits, or holds a single gap value (whose pairs are then
/// only counted). A metric with at most n/4 distinct values is swept by
/// groups of equal value instead (a heap over pairs of groups, each pair's
/// ±1 counts from one merge of their sorted human values: O(k·n + k² log k)
/// for k values, no gaps stored). The returned ε
/// is the *smallest* candidate reaching the maximum (the reference takes the
/// first `nanargmax`; its running value is exact for a single vector, so
/// ties between candidates resolve the same way).
///
/// Complexity: O(n² log n) time (the ±1 pairs sorted range by range, then
/// one O(n²) pass counting the pairs at the chosen ε; n = 20 000 with every
/// value distinct: about 13 s in a release build, where sorting all pairs at
/// once took 17 s and up to 1.6 GB); O(n) memory plus at most 64 MiB of gaps.
///
/// **Above [`MAX_CALIBRATION_N`] complete observations** the statistic is
/// computed on a uniform random sample of `MAX_CALIBRATION_N` of them,
/// drawn without replacement by [`calibration_sample`] with the fixed seed
/// [`CALIBRATION_SEED`], and the result says so: `sampled_from` is the
/// number of complete observations it was drawn from (`n` is then the
/// sample size, `n_pairs` the sample's pairs). The draw depends only on the
/// positions of the complete observations, so two calls over vectors with the
/// same complete rows (e.g. several metrics of one run against one aspect)
/// use the same sample. At or below the cap the result is exact and
/// `sampled_from` is `None`.
///
/// Missing values (NaN, ±∞) are excluded pairwise; null when fewer than 3
/// complete observations remain. A constant human vector is not null:
/// every pair is a human tie and the best ε ties every metric pair
/// (accuracy 1), as in the reference.
///
/// # Errors
/// [`Error::LengthMismatch`].
pub fn pairwise_accuracy_tie_calibrated(
    metric: &[f64],
    human: &[f64],
) -> Result<PairwiseAccuracy, Error> {
    pairwise_accuracy_tie_calibrated_capped(metric, human, MAX_CALIBRATION_N, CALIBRATION_SEED)
}

/// [`pairwise_accuracy_tie_calibrated`] with the sample size `cap` and the
/// sampling seed given: above `cap` complete observations, the statistic of
/// a uniform random sample of `cap` of them ([`calibration_sample`]),
/// flagged by `sampled_from`. `cap` below 3 is taken as 3.
///
/// # Errors
/// [`Error::LengthMismatch`].
pub fn pairwise_accuracy_tie_calibrated_capped(
    metric: &[f64],
    human: &[f64],
    cap: usize,
    seed: u64,
) -> Result<PairwiseAccuracy, Error> {
    let c = complete_pairs(metric, human, "metric", "human")?;
    let n = c.a.len();
    if n < MIN_OBSERVATIONS {
        return Ok(too_few(n, c.excluded));
    }
    let cap = cap.max(MIN_OBSERVATIONS);
    if n <= cap {
        return Ok(calibrated(&c.a, &c.b, c.excluded));
    }
    // positions (in the input vectors) of the complete observations, so that the draw is
    // tied to rows, not to their rank among the complete ones
    let complete: Vec<usize> =
        (0..metric.len()).filter(|&i| present(metric[i]) && present(human[i])).collect();
    debug_assert_eq!(complete.len(), n);
    let keep = calibration_sample(&complete, cap, seed);
    let m: Vec<f64> = keep.iter().map(|&k| c.a[k]).collect();
    let h: Vec<f64> = keep.iter().map(|&k| c.b[k]).collect();
    let mut r = calibrated(&m, &h, c.excluded);
    r.sampled_from = Some(n);
    Ok(r)
}

/// Seed of the sample that [`pairwise_accuracy_tie_calibrated`] draws above
/// [`MAX_CALIBRATION_N`] complete observations (a fixed constant, so that
/// results are reproducible run to run).
pub const CALIBRATION_SEED: u64 = 0x5eed_fac7_91c0_2023;

fn splitmix64(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A uniform random sample without replacement of `k` of the observations
/// whose row positions are `positions`: the indices (into `positions`, in
/// increasing order) of the `k` observations with the smallest keys
/// `splitmix64(seed ⊕ position)`. Deterministic on every platform; the key of
/// a row depends only on its position and the seed, so vectors that share
/// complete rows share their sampled rows (coordinated samples). All indices
/// when `k ≥ positions.len()`. O(n) time and memory.
pub fn calibration_sample(positions: &[usize], k: usize, seed: u64) -> Vec<usize> {
    if k >= positions.len() {
        return (0..positions.len()).collect();
    }
    let mut keyed: Vec<(u64, usize)> =
        positions.iter().enumerate().map(|(i, &p)| (splitmix64(seed ^ p as u64), i)).collect();
    keyed.select_nth_unstable(k);
    let mut out: Vec<usize> = keyed[..k].iter().map(|&(_, i)| i).collect();
    out.sort_unstable();
    out
}

/// Most ±1 pairs [`pairwise_accuracy_tie_calibrated`] holds at once (2²³: 64 MiB of
/// thresholds); larger sets are swept in consecutive ranges of `|Δm|`.
const SWEEP_BLOCK: usize = 1 << 23;

/// The pairs `(i, j)`, `i < j`, of `ms` (sorted ascending) whose gap `ms[j] − ms[i]` lies in
/// `[lo, hi]` (both > 0): for each `i`, the `j` range (gaps grow with `j`, as rounding is
/// monotone).
fn gap_range(ms: &[f64], i: usize, lo: f64, hi: f64) -> (usize, usize) {
    let rest = &ms[i + 1..];
    let a = rest.partition_point(|&x| x - ms[i] < lo);
    let b = a + rest[a..].partition_point(|&x| x - ms[i] <= hi);
    (i + 1 + a, i + 1 + b)
}

/// The running sweep of [`calibrated`]: change of `concordant + ties_both` relative to ε = 0,
/// the best change so far and its ε, and the concordant pairs seen.
struct Sweep {
    /// Most ±1 pairs held at once ([`SWEEP_BLOCK`]; smaller in tests).
    block: usize,
    cur: i64,
    best: i64,
    best_eps: f64,
    concordant: u64,
}

impl Sweep {
    /// Applies every pair with a gap whose bits lie in `[lo, hi]` (positive f64 bit patterns
    /// order as their values), in increasing gap, holding at most [`SWEEP_BLOCK`] of them:
    /// a larger range is halved (by bits) until it fits or holds a single gap value.
    fn range(&mut self, ms: &[f64], hs: &[f64], lo: u64, hi: u64) {
        let (dlo, dhi) = (f64::from_bits(lo), f64::from_bits(hi));
        let n = ms.len();
        let mut pairs = 0usize;
        // the smallest and largest gap in the range (ranges shrink to them before halving)
        let (mut gmin, mut gmax) = (f64::INFINITY, 0.0f64);
        for i in 0..n.saturating_sub(1) {
            let (a, b) = gap_range(ms, i, dlo, dhi);
            if b > a {
                pairs += b - a;
                gmin = gmin.min(ms[a] - ms[i]);
                gmax = gmax.max(ms[b - 1] - ms[i]);
            }
        }
        if pairs == 0 {
            return;
        }
        let (lo, hi) = (gmin.to_bits(), gmax.to_bits());
        let (dlo, dhi) = (gmin, gmax);
        if lo == hi {
            // one gap value: all its pairs change the count together
            let mut net = 0i64;
            for i in 0..n - 1 {
                let (a, b) = gap_range(ms, i, dlo, dhi);
                for j in a..b {
                    if hs[j] == hs[i] {
                        net += 1;
                    } else if hs[j] > hs[i] {
                        net -= 1;
                        self.concordant += 1;
                    }
                }
            }
            self.apply(dlo, net);
            return;
        }
        if pairs > self.block {
            let mid = lo + (hi - lo) / 2;
            self.range(ms, hs, lo, mid);
            self.range(ms, hs, mid + 1, hi);
            return;
        }
        // +1: human tie, metric differs; −1: concordant (the gap is > 0)
        let (mut plus, mut minus) = (Vec::new(), Vec::new());
        for i in 0..n - 1 {
            let (a, b) = gap_range(ms, i, dlo, dhi);
            for j in a..b {
                if hs[j] == hs[i] {
                    plus.push(ms[j] - ms[i]);
                } else if hs[j] > hs[i] {
                    minus.push(ms[j] - ms[i]);
                }
            }
        }
        self.concordant += minus.len() as u64;
        plus.sort_unstable_by(f64::total_cmp);
        minus.sort_unstable_by(f64::total_cmp);
        let (mut i, mut j) = (0usize, 0usize);
        while i < plus.len() || j < minus.len() {
            let d = match (plus.get(i), minus.get(j)) {
                (Some(&p), Some(&q)) => p.min(q),
                (Some(&p), None) => p,
                (None, Some(&q)) => q,
                (None, None) => break,
            };
            let mut net = 0i64;
            while i < plus.len() && plus[i] == d {
                net += 1;
                i += 1;
            }
            while j < minus.len() && minus[j] == d {
                net -= 1;
                j += 1;
            }
            self.apply(d, net);
        }
    }

    /// All pairs of gap `d` (the next gap in increasing order) change the count by `net`.
    fn apply(&mut self, d: f64, net: i64) {
        self.cur += net;
        if self.cur > self.best {
            self.best = self.cur;
            self.best_eps = d;
        }
    }
}

/// The exact calibration over complete observations `m`, `h` (n ≥ 3): by groups of equal
/// metric value ([`calibrated_groups`]) when the metric has at most n/4 distinct values,
/// else by ranges of gaps ([`calibrated_in_blocks`]). Both give the same result.
fn calibrated(m: &[f64], h: &[f64], excluded: usize) -> PairwiseAccuracy {
    let mut sorted = m.to_vec();
    sorted.sort_unstable_by(f64::total_cmp);
    sorted.dedup_by(|a, b| a == b);
    if sorted.len() <= m.len() / 4 {
        calibrated_groups(m, h, excluded)
    } else {
        calibrated_in_blocks(m, h, excluded, SWEEP_BLOCK)
    }
}

/// A pair of metric-value groups `(a, b)`, `a < b`, ordered by their gap (smallest first in
/// a max-heap), then by `(a, b)` for a deterministic order.
struct GroupPair {
    gap: f64,
    a: usize,
    b: usize,
}

impl PartialEq for GroupPair {
    fn eq(&self, o: &Self) -> bool {
        self.cmp(o) == std::cmp::Ordering::Equal
    }
}
impl Eq for GroupPair {}
impl PartialOrd for GroupPair {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for GroupPair {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        o.gap.total_cmp(&self.gap).then(o.a.cmp(&self.a)).then(o.b.cmp(&self.b))
    }
}

/// (human ties, concordant pairs) between a lower-metric group `lo` and a higher-metric
/// group `hi` (both sorted): pairs with equal human values, and pairs whose higher-metric
/// side also has the higher human value.
fn cross_counts(lo: &[f64], hi: &[f64]) -> (u64, u64) {
    let (mut ties, mut conc) = (0u64, 0u64);
    let mut i = 0; // lo values < current hi value
    let mut e = 0; // lo values <= current hi value
    for &v in hi {
        while i < lo.len() && lo[i] < v {
            i += 1;
        }
        if e < i {
            e = i;
        }
        while e < lo.len() && lo[e] == v {
            e += 1;
        }
        conc += i as u64;
        ties += (e - i) as u64;
    }
    (ties, conc)
}

/// The exact calibration over complete observations `m`, `h` (n ≥ 3) for a metric with few
/// distinct values: observations grouped by equal metric value (humans sorted within a
/// group), a heap over pairs of groups yields the group pairs in increasing gap, and each
/// group pair's ±1 counts come from one merge of the two groups' sorted human values.
/// O(k·n + k² log k) time for k distinct values, O(n) memory.
fn calibrated_groups(m: &[f64], h: &[f64], excluded: usize) -> PairwiseAccuracy {
    let n = m.len();
    let mut order: Vec<(f64, f64)> = m.iter().copied().zip(h.iter().copied()).collect();
    order.sort_unstable_by(|x, y| x.0.total_cmp(&y.0).then(x.1.total_cmp(&y.1)));
    // groups of equal metric value (== , as the pair classification compares Δm with 0)
    let mut starts: Vec<usize> = vec![0];
    for i in 1..n {
        if order[i].0 != order[i - 1].0 {
            starts.push(i);
        }
    }
    starts.push(n);
    let hs: Vec<f64> = order.iter().map(|p| p.1).collect();
    let values: Vec<f64> = starts[..starts.len() - 1].iter().map(|&s| order[s].0).collect();
    drop(order);
    let group = |g: usize| &hs[starts[g]..starts[g + 1]];
    let k = values.len();
    // ties_both at ε = 0: equal metric and equal human values
    let mut base: u64 = 0;
    for g in 0..k {
        let v = group(g);
        let mut run = 1u64;
        for w in 1..=v.len() {
            if w < v.len() && v[w] == v[w - 1] {
                run += 1;
            } else {
                base += run * (run - 1) / 2;
                run = 1;
            }
        }
    }
    let mut heap = std::collections::BinaryHeap::with_capacity(k);
    for a in 0..k.saturating_sub(1) {
        heap.push(GroupPair { gap: values[a + 1] - values[a], a, b: a + 1 });
    }
    // running change of concordant + ties_both relative to ε = 0
    let (mut cur, mut best, mut best_eps) = (0i64, 0i64, 0.0f64);
    let mut concordant_total: u64 = 0;
    while let Some(top) = heap.pop() {
        let d = top.gap;
        let mut step = |p: GroupPair, heap: &mut std::collections::BinaryHeap<GroupPair>| {
            let (t, c) = cross_counts(group(p.a), group(p.b));
            concordant_total += c;
            if p.b + 1 < k {
                heap.push(GroupPair { gap: values[p.b + 1] - values[p.a], a: p.a, b: p.b + 1 });
            }
            t as i64 - c as i64
        };
        cur += step(top, &mut heap);
        while heap.peek().is_some_and(|p| p.gap == d) {
            let Some(p) = heap.pop() else { break };
            cur += step(p, &mut heap);
        }
        if cur > best {
            best = cur;
            best_eps = d;
        }
    }
    base += concordant_total;
    let counts = counts_at(h, m, best_eps);
    debug_assert_eq!((counts.concordant + counts.ties_both) as i64, base as i64 + best);
    result(n, excluded, best_eps, counts)
}


fn calibrated_in_blocks(m: &[f64], h: &[f64], excluded: usize, block: usize) -> PairwiseAccuracy {
    let n = m.len();
    let mut order: Vec<(f64, f64)> = m.iter().copied().zip(h.iter().copied()).collect();
    order.sort_unstable_by(|x, y| x.0.total_cmp(&y.0).then(x.1.total_cmp(&y.1)));
    let ms: Vec<f64> = order.iter().map(|p| p.0).collect();
    let hs: Vec<f64> = order.iter().map(|p| p.1).collect();
    drop(order);
    // ties_both at ε = 0: equal metric and equal human values (adjacent after the sort)
    let mut ties_both: u64 = 0;
    let mut run = 1u64;
    for w in 1..=n {
        if w < n && ms[w] == ms[w - 1] && hs[w] == hs[w - 1] {
            run += 1;
        } else {
            ties_both += run * (run - 1) / 2;
            run = 1;
        }
    }
    // every positive gap, +∞ included (a difference of two finite values can overflow)
    let mut sweep = Sweep { block, cur: 0, best: 0, best_eps: 0.0, concordant: 0 };
    sweep.range(&ms, &hs, 1, f64::INFINITY.to_bits());
    let base = ties_both + sweep.concordant;
    let counts = counts_at(h, m, sweep.best_eps);
    debug_assert_eq!((counts.concordant + counts.ties_both) as i64, base as i64 + sweep.best);
    result(n, excluded, sweep.best_eps, counts)
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
        // above the cap: no error any more, a flagged sample of MAX_CALIBRATION_N
        let big = vec![0.5; MAX_CALIBRATION_N + 1];
        let r = pairwise_accuracy_tie_calibrated(&big, &big).unwrap();
        assert_eq!((r.n, r.sampled_from), (MAX_CALIBRATION_N, Some(MAX_CALIBRATION_N + 1)));
        assert_eq!(r.accuracy, Some(1.0));
    }

    /// The calibration as it was before the range sweep: every ±1 pair stored and sorted at once.
    fn calibrated_by_sorting(m: &[f64], h: &[f64]) -> (f64, f64) {
        let n = m.len();
        let (mut base, mut plus, mut minus) = (0u64, Vec::new(), Vec::new());
        for i in 0..n {
            for j in i + 1..n {
                let (dh, dm) = (h[i] - h[j], m[i] - m[j]);
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
        let (mut best, mut best_eps, mut cur) = (base as i64, 0.0f64, base as i64);
        let (mut i, mut j) = (0, 0);
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
        (best as f64 / (n * (n - 1) / 2) as f64, best_eps)
    }

    fn lcg(state: &mut u64) -> u64 {
        *state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        *state >> 33
    }

    #[test]
    fn range_sweep_matches_the_sorted_pair_sweep() {
        let mut s = 7u64;
        for case in 0..300 {
            let n = 3 + (lcg(&mut s) % 60) as usize;
            // few distinct metric values (many ties) in some cases, continuous in others
            let levels = [2u64, 5, 1000, 1 << 30][case % 4];
            let mut m: Vec<f64> = (0..n).map(|_| (lcg(&mut s) % levels) as f64 * 0.1).collect();
            let mut h: Vec<f64> = (0..n).map(|_| (1 + lcg(&mut s) % 4) as f64).collect();
            if case % 5 == 0 {
                // huge gaps: differences that overflow to +∞
                m[0] = f64::MAX;
                m[1] = -f64::MAX;
                h[2] = 0.0;
            }
            let r = pairwise_accuracy_tie_calibrated(&m, &h).unwrap();
            let (acc, eps) = calibrated_by_sorting(&m, &h);
            assert_eq!(r.accuracy, Some(acc), "case {case}: {m:?} {h:?}");
            assert_eq!(r.epsilon.map(f64::to_bits), Some(eps.to_bits()), "case {case}");
            assert_eq!(r.sampled_from, None);
            // both algorithms, and sweeping in small blocks (ranges halved many times)
            assert_eq!(calibrated_groups(&m, &h, 0), r, "case {case}, groups");
            for block in [1, 7, 100, SWEEP_BLOCK] {
                assert_eq!(calibrated_in_blocks(&m, &h, 0, block), r, "case {case}, block {block}");
            }
        }
    }

    /// Timing at the cap, every metric value distinct (most distinct gaps):
    /// `cargo test -p factpico-stats --release -- --ignored --nocapture calibration_at_the_cap`.
    #[test]
    #[ignore = "timing, seconds in release"]
    fn calibration_at_the_cap() {
        let mut s = 5u64;
        let n = MAX_CALIBRATION_N;
        let m: Vec<f64> = (0..n).map(|_| lcg(&mut s) as f64 / 7.0).collect();
        let h: Vec<f64> = (0..n).map(|_| (1 + lcg(&mut s) % 4) as f64).collect();
        let t = std::time::Instant::now();
        let r = pairwise_accuracy_tie_calibrated(&m, &h).unwrap();
        let new = t.elapsed();
        let t = std::time::Instant::now();
        let (acc, eps) = calibrated_by_sorting(&m, &h);
        let old = t.elapsed();
        assert_eq!((r.accuracy, r.epsilon), (Some(acc), Some(eps)));
        println!("n = {n}: range sweep {new:?}, all pairs sorted at once {old:?}");
    }

    #[test]
    fn above_the_cap_a_seeded_sample_is_used_and_flagged() {
        let mut s = 11u64;
        let n = 400;
        let m: Vec<f64> = (0..n).map(|_| (lcg(&mut s) % 50) as f64).collect();
        let mut h: Vec<f64> = m.iter().map(|v| (v / 12.0).floor() + (lcg(&mut s) % 2) as f64).collect();
        h[3] = f64::NAN; // excluded before sampling
        let a = pairwise_accuracy_tie_calibrated_capped(&m, &h, 100, 42).unwrap();
        assert_eq!((a.n, a.sampled_from, a.n_excluded, a.n_pairs), (100, Some(399), 1, 4950));
        // deterministic: the same call gives the same result, bit for bit
        assert_eq!(pairwise_accuracy_tie_calibrated_capped(&m, &h, 100, 42).unwrap(), a);
        // it is exactly the statistic of the sampled rows
        let positions: Vec<usize> = (0..n).filter(|&i| i != 3).collect();
        let keep = calibration_sample(&positions, 100, 42);
        assert_eq!(keep.len(), 100);
        assert!(keep.windows(2).all(|w| w[0] < w[1]));
        let ms: Vec<f64> = keep.iter().map(|&k| m[positions[k]]).collect();
        let hs: Vec<f64> = keep.iter().map(|&k| h[positions[k]]).collect();
        let exact = pairwise_accuracy_tie_calibrated(&ms, &hs).unwrap();
        assert_eq!((a.accuracy, a.epsilon, a.counts), (exact.accuracy, exact.epsilon, exact.counts));
        // another metric over the same rows draws the same sample
        let m2: Vec<f64> = m.iter().map(|v| -v).collect();
        let b = pairwise_accuracy_tie_calibrated_capped(&m2, &h, 100, 42).unwrap();
        let m2s: Vec<f64> = keep.iter().map(|&k| m2[positions[k]]).collect();
        assert_eq!(b.accuracy, pairwise_accuracy_tie_calibrated(&m2s, &hs).unwrap().accuracy);
        // another seed, another sample
        assert_ne!(calibration_sample(&positions, 100, 43), keep);
        // at or below the cap: exact, identical to the uncapped call, not flagged
        let exact_all = pairwise_accuracy_tie_calibrated(&m, &h).unwrap();
        assert_eq!(pairwise_accuracy_tie_calibrated_capped(&m, &h, 399, 42).unwrap(), exact_all);
        assert_eq!(exact_all.sampled_from, None);
        // the flag is in the JSON only when sampled
        let j = serde_json::to_string(&exact_all).unwrap();
        assert!(!j.contains("sampled_from"), "{j}");
        assert!(serde_json::to_string(&a).unwrap().contains("\"sampled_from\":399"));
    }
}
