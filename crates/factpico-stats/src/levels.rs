//! Instance-level and system-level meta-evaluation.

use std::collections::{BTreeMap, HashSet};

use serde::{Deserialize, Serialize};

use crate::correlation::{kendall_tau_b, pearson_r, spearman_rho, Correlation};
use crate::data::{check_len, mean, present};
use crate::error::{NullReason, Error};
use crate::pairwise::{pairwise_accuracy_tie_calibrated, PairwiseAccuracy};

/// Minimum number of systems for system-level statistics.
pub const MIN_SYSTEMS: usize = 3;

/// The four agreement statistics of FactPICO's meta-evaluation at one level.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct LevelStatistics {
    /// Kendall τ_b ([`kendall_tau_b`]).
    pub kendall_tau_b: Correlation,
    /// Spearman ρ ([`spearman_rho`]).
    pub spearman_rho: Correlation,
    /// Pearson r ([`pearson_r`]).
    pub pearson_r: Correlation,
    /// Tie-calibrated pairwise accuracy ([`pairwise_accuracy_tie_calibrated`]).
    pub pairwise_accuracy: PairwiseAccuracy,
}

/// Computes all four statistics of metric against human scores.
///
/// # Errors
/// [`Error::LengthMismatch`].
pub fn level_statistics(metric: &[f64], human: &[f64]) -> Result<LevelStatistics, Error> {
    Ok(LevelStatistics {
        kendall_tau_b: kendall_tau_b(metric, human)?,
        spearman_rho: spearman_rho(metric, human)?,
        pearson_r: pearson_r(metric, human)?,
        pairwise_accuracy: pairwise_accuracy_tie_calibrated(metric, human)?,
    })
}

/// One system's mean scores over its complete observations.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SystemMean {
    /// System id.
    pub system: String,
    /// Mean metric score.
    pub metric_mean: f64,
    /// Mean human score.
    pub human_mean: f64,
    /// Complete observations averaged.
    pub n: usize,
}

/// Result of [`meta_evaluate`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MetaEvaluation {
    /// Statistics over all complete (item, system) observations.
    pub instance: LevelStatistics,
    /// Statistics over the per-system means; `None` when fewer than
    /// [`MIN_SYSTEMS`] systems have data (`system_null_reason` says so).
    pub system: Option<LevelStatistics>,
    /// Why `system` is `None`.
    pub system_null_reason: Option<NullReason>,
    /// Per-system means, sorted by system id (systems with no complete
    /// observation are omitted).
    pub system_means: Vec<SystemMean>,
    /// Distinct item ids (all rows).
    pub n_items: usize,
    /// Distinct system ids (all rows).
    pub n_systems: usize,
    /// Rows excluded because the metric or human score was NaN or ±∞.
    pub n_excluded: usize,
}

/// Per-system means over complete rows, sorted by system id, and the
/// number of rows excluded for a missing score.
pub(crate) fn system_means<'a>(
    rows: impl Iterator<Item = (&'a str, (&'a f64, &'a f64))>,
) -> (Vec<SystemMean>, usize) {
    let mut groups: BTreeMap<&str, (Vec<f64>, Vec<f64>)> = BTreeMap::new();
    let mut n_excluded = 0;
    for (s, (&m, &h)) in rows {
        if present(m) && present(h) {
            let g = groups.entry(s).or_default();
            g.0.push(m);
            g.1.push(h);
        } else {
            n_excluded += 1;
        }
    }
    let means = groups
        .iter()
        .filter_map(|(s, (m, h))| {
            Some(SystemMean {
                system: (*s).to_owned(),
                metric_mean: mean(m)?,
                human_mean: mean(h)?,
                n: m.len(),
            })
        })
        .collect();
    (means, n_excluded)
}

/// The (metric, human) mean vectors, or the null reason when fewer than
/// [`MIN_SYSTEMS`] systems have data.
pub(crate) fn system_vectors(means: &[SystemMean]) -> Result<(Vec<f64>, Vec<f64>), NullReason> {
    if means.len() < MIN_SYSTEMS {
        return Err(NullReason::TooFewSystems {
            n_systems: means.len(),
            required: MIN_SYSTEMS,
        });
    }
    Ok((
        means.iter().map(|s| s.metric_mean).collect(),
        means.iter().map(|s| s.human_mean).collect(),
    ))
}

/// Which level a statistic is computed at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Level {
    /// Over all (item, system) rows.
    Instance,
    /// Over per-system means (needs at least [`MIN_SYSTEMS`] systems).
    System,
}

/// FactPICO-style meta-evaluation of one metric against human scores, at
/// both levels.
///
/// Input: one row per (item, system) output — `item_ids[i]`,
/// `system_ids[i]`, `metric[i]`, `human[i]` (e.g. FactPICO: 115 abstracts ×
/// 3 systems, human = Avg. PICO-R).
/// * **Instance level**: [`level_statistics`] over all rows (missing values
///   excluded pairwise).
/// * **System level**: per system, the arithmetic means (sequential sum / n)
///   of metric and human over that system's complete rows; then
///   [`level_statistics`] over those means. With fewer than 3 systems this
///   is a documented null (`system = None`,
///   [`NullReason::TooFewSystems`]), even though scipy would return ±1 for
///   two systems.
///
/// # Errors
/// [`Error::LengthMismatch`] unless all four inputs have equal length;
/// [`Error::DuplicateItemSystem`] when an (item, system) pair repeats.
pub fn meta_evaluate<I: AsRef<str>, S: AsRef<str>>(
    item_ids: &[I],
    system_ids: &[S],
    metric: &[f64],
    human: &[f64],
) -> Result<MetaEvaluation, Error> {
    check_len(item_ids.len(), system_ids.len(), "item_ids", "system_ids")?;
    check_len(item_ids.len(), metric.len(), "item_ids", "metric")?;
    check_len(item_ids.len(), human.len(), "item_ids", "human")?;
    let mut seen: HashSet<(&str, &str)> = HashSet::with_capacity(item_ids.len());
    for (i, s) in item_ids.iter().zip(system_ids) {
        if !seen.insert((i.as_ref(), s.as_ref())) {
            return Err(Error::DuplicateItemSystem {
                item: i.as_ref().to_owned(),
                system: s.as_ref().to_owned(),
            });
        }
    }
    let n_items = item_ids
        .iter()
        .map(AsRef::as_ref)
        .collect::<HashSet<&str>>()
        .len();
    let n_systems = system_ids
        .iter()
        .map(AsRef::as_ref)
        .collect::<HashSet<&str>>()
        .len();

    let instance = level_statistics(metric, human)?;

    let (system_means, n_excluded) = system_means(
        system_ids
            .iter()
            .map(AsRef::as_ref)
            .zip(metric.iter().zip(human)),
    );
    let (system, system_null_reason) = match system_vectors(&system_means) {
        Ok((m, h)) => (Some(level_statistics(&m, &h)?), None),
        Err(reason) => (None, Some(reason)),
    };
    Ok(MetaEvaluation {
        instance,
        system,
        system_null_reason,
        system_means,
        n_items,
        n_systems,
        n_excluded,
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn system_means_and_levels() {
        // 2 items × 3 systems. System means (metric, human):
        // A: (0.1+0.3)/2 = 0.2, (1+3)/2 = 2;  B: 0.5, 3;  C: 0.9, 4 (one row NaN → n=1)
        let items = ["d1", "d2", "d1", "d2", "d1", "d2"];
        let systems = ["A", "A", "B", "B", "C", "C"];
        let metric = [0.1, 0.3, 0.4, 0.6, 0.9, f64::NAN];
        let human = [1.0, 3.0, 2.0, 4.0, 4.0, 1.0];
        let r = meta_evaluate(&items, &systems, &metric, &human).unwrap();
        assert_eq!((r.n_items, r.n_systems, r.n_excluded), (2, 3, 1));
        let means: Vec<(f64, f64, usize)> = r
            .system_means
            .iter()
            .map(|s| (s.metric_mean, s.human_mean, s.n))
            .collect();
        assert!((means[0].0 - 0.2).abs() < 1e-15 && means[0].1 == 2.0 && means[0].2 == 2);
        assert!((means[1].0 - 0.5).abs() < 1e-15 && means[1].1 == 3.0);
        assert!(means[2] == (0.9, 4.0, 1));
        let sys = r.system.unwrap();
        assert_eq!(sys.kendall_tau_b.statistic, Some(1.0));
        assert_eq!(sys.pairwise_accuracy.accuracy, Some(1.0));
        assert_eq!(r.instance.kendall_tau_b.n, 5);
    }

    #[test]
    fn two_systems_is_a_documented_null() {
        let r = meta_evaluate(
            &["a", "b", "c", "a", "b", "c"],
            &["S1", "S1", "S1", "S2", "S2", "S2"],
            &[0.1, 0.2, 0.3, 0.4, 0.5, 0.7],
            &[1.0, 2.0, 2.0, 3.0, 4.0, 3.0],
        )
        .unwrap();
        assert!(r.system.is_none());
        assert_eq!(
            r.system_null_reason,
            Some(NullReason::TooFewSystems {
                n_systems: 2,
                required: 3
            })
        );
        assert!(r.instance.spearman_rho.statistic.is_some());
    }

    #[test]
    fn duplicates_and_lengths_are_errors() {
        assert!(matches!(
            meta_evaluate(&["a", "a"], &["S", "S"], &[1.0, 2.0], &[1.0, 2.0]),
            Err(Error::DuplicateItemSystem { .. })
        ));
        assert!(matches!(
            meta_evaluate(&["a"], &["S"], &[1.0, 2.0], &[1.0]),
            Err(Error::LengthMismatch { .. })
        ));
    }
}
