//! The meta-evaluation proper: every (metric column × human aspect) at the
//! instance and system levels, with optional bootstrap intervals and the
//! distribution KL, on joined data.

use std::collections::BTreeMap;

use factpico_stats::{
    bootstrap_ci_by_item, kl_divergence_gaussian, meta_evaluate, BootstrapOptions, ConfidenceInterval,
    KlDivergence, KlOptions, Level, LevelStatistics, Normalization, NullReason, Statistic, SystemMean,
};
use serde::{Deserialize, Serialize};

use crate::direction::{resolve, Direction, MetricDirection};
use crate::error::{Error, Result};
use crate::join::{JoinReport, Joined};

/// Which levels to compute.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Levels {
    /// Instance level only.
    Instance,
    /// System level only.
    System,
    /// Both (default).
    #[default]
    Both,
}

impl Levels {
    /// The levels included, instance first.
    pub fn list(self) -> Vec<Level> {
        match self {
            Levels::Instance => vec![Level::Instance],
            Levels::System => vec![Level::System],
            Levels::Both => vec![Level::Instance, Level::System],
        }
    }
}

/// Options of [`evaluate`].
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct EvalOptions {
    /// Levels to report.
    pub levels: Levels,
    /// Direction overrides (column → direction); others come from the registry.
    pub directions: BTreeMap<String, Direction>,
    /// Human aspects where lower is better (error or omission counts), which
    /// are negated like lower-is-better metrics; all others are taken as
    /// higher-is-better (FactPICO's 1–4 ratings are).
    pub aspect_directions: BTreeMap<String, Direction>,
    /// Percentile bootstrap CIs (resampling items, all systems of a drawn
    /// item together), or `None`.
    pub bootstrap: Option<BootstrapOptions>,
    /// Declared (lo, hi) scale of the human aspects for the KL normalisation
    /// (e.g. (1, 4) for the PICO ratings); `None`: observed min–max.
    pub human_range: Option<(f64, f64)>,
}

/// Bootstrap intervals of the four statistics of one cell.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct CellIntervals {
    /// Kendall τ_b.
    pub kendall_tau_b: ConfidenceInterval,
    /// Spearman ρ.
    pub spearman_rho: ConfidenceInterval,
    /// Pearson r.
    pub pearson_r: ConfidenceInterval,
    /// Tie-calibrated pairwise accuracy.
    pub pairwise_accuracy: ConfidenceInterval,
}

/// Why a whole level of a cell is null.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum LevelNull {
    /// No system column: all rows belong to one (unnamed) system.
    NoSystemColumn,
    /// A documented null of the statistics crate (e.g. fewer than 3 systems).
    Stats {
        /// The reason.
        reason: NullReason,
    },
}

impl std::fmt::Display for LevelNull {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LevelNull::NoSystemColumn => {
                write!(f, "no system column: all rows come from one system, and system level needs at least 3")
            }
            LevelNull::Stats { reason } => write!(f, "{reason}"),
        }
    }
}

/// One (level, metric, aspect) cell of the result tables.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Cell {
    /// Instance or system.
    pub level: Level,
    /// Metric column.
    pub metric: String,
    /// Human aspect column.
    pub aspect: String,
    /// Direction applied (values negated when lower is better).
    pub direction: Direction,
    /// The four statistics, `None` when the whole level is null.
    pub stats: Option<LevelStatistics>,
    /// Why `stats` is `None`.
    pub null: Option<LevelNull>,
    /// Observations used: complete rows (instance) or systems with data (system).
    pub n: usize,
    /// Rows excluded because the metric or the human value was missing.
    pub n_excluded: usize,
    /// Bootstrap intervals, when requested and the level is defined.
    pub intervals: Option<CellIntervals>,
}

/// Per-system means of one (metric, aspect) pair, both on their original
/// scales (not negated).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SystemMeans {
    /// Metric column.
    pub metric: String,
    /// Human aspect column.
    pub aspect: String,
    /// One entry per system with data, sorted by system.
    pub means: Vec<SystemMean>,
}

/// KL divergence between Gaussian fits of one (metric, aspect) pair.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KlCell {
    /// Metric column.
    pub metric: String,
    /// Human aspect column.
    pub aspect: String,
    /// `KL(N_human ‖ N_metric)` after min–max normalisation of both (both
    /// direction-adjusted first).
    pub kl: KlDivergence,
}

/// Names of the inputs, as shown in reports (file names, not full paths,
/// so that reports do not depend on where the files were).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Inputs {
    /// File name of the scores file.
    pub scores: String,
    /// File name of the ratings file.
    pub ratings: String,
    /// Id column of the scores file.
    pub scores_id: String,
    /// Id column of the ratings file.
    pub ratings_id: String,
}

/// The whole result of a meta-evaluation.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MetaEvalResult {
    /// The inputs (filled by [`crate::run`]; empty names from [`evaluate`]).
    pub inputs: Inputs,
    /// Metric columns, in the requested order.
    pub metrics: Vec<String>,
    /// Human aspect columns, in the requested order.
    pub aspects: Vec<String>,
    /// Each metric's direction and its source.
    pub directions: Vec<MetricDirection>,
    /// The join's counts.
    pub join: JoinReport,
    /// Distinct ids among the joined rows.
    pub n_items: usize,
    /// Distinct systems among the joined rows (0 without a system column).
    pub n_systems: usize,
    /// The options used.
    pub options: EvalOptions,
    /// Cells, level-major, then metric, then aspect (requested orders).
    pub cells: Vec<Cell>,
    /// Per-system means (empty without a system column).
    pub system_means: Vec<SystemMeans>,
    /// Distribution divergences over the instance-level rows.
    pub kl: Vec<KlCell>,
}

impl MetaEvalResult {
    /// The cell of (level, metric, aspect), if computed.
    pub fn cell(&self, level: Level, metric: &str, aspect: &str) -> Option<&Cell> {
        self.cells.iter().find(|c| c.level == level && c.metric == metric && c.aspect == aspect)
    }
}

const STATISTICS: [Statistic; 4] =
    [Statistic::KendallTauB, Statistic::SpearmanRho, Statistic::PearsonR, Statistic::PairwiseAccuracy];

/// Meta-evaluates every metric column of `joined` against every aspect.
///
/// For each metric, values are multiplied by its direction's sign
/// (lower-is-better columns negated), then
/// [`factpico_stats::meta_evaluate`] gives the instance level (all joined
/// rows) and the system level (per-system means; a documented null without
/// a system column or with fewer than 3 systems). Bootstrap intervals use
/// [`factpico_stats::bootstrap_ci_by_item`] with the same seed for every
/// cell (common random numbers: the intervals of different metrics come
/// from the same item resamples).
///
/// # Errors
/// [`Error::Stats`] (bad bootstrap options, a human value outside
/// `human_range`); [`Error::InvalidOption`] for a bad `human_range`.
pub fn evaluate(joined: &Joined, metrics: &[String], aspects: &[String], opts: &EvalOptions) -> Result<MetaEvalResult> {
    if let Some((lo, hi)) = opts.human_range {
        if !(lo.is_finite() && hi.is_finite() && lo < hi) {
            return Err(Error::InvalidOption {
                option: "human_range",
                message: format!("[{lo}, {hi}] must be finite with lo < hi"),
            });
        }
    }
    if let Some(c) = opts.directions.keys().find(|c| !metrics.contains(c)) {
        return Err(Error::InvalidOption {
            option: "directions",
            message: format!("`{c}` is not one of the evaluated metrics ({})", metrics.join(", ")),
        });
    }
    if let Some(c) = opts.aspect_directions.keys().find(|c| !aspects.contains(c)) {
        return Err(Error::InvalidOption {
            option: "aspect_directions",
            message: format!("`{c}` is not one of the evaluated aspects ({})", aspects.join(", ")),
        });
    }
    let n = joined.ids.len();
    let one_system = vec![String::new(); n];
    let systems: &[String] = joined.systems.as_deref().unwrap_or(&one_system);
    let n_items = joined.ids.iter().collect::<std::collections::HashSet<_>>().len();
    let n_systems = joined.systems.as_ref().map_or(0, |s| s.iter().collect::<std::collections::HashSet<_>>().len());
    let directions: Vec<MetricDirection> = metrics.iter().map(|m| resolve(m, &opts.directions)).collect();

    let mut cells_by_level: Vec<Vec<Cell>> = vec![Vec::new(); 2];
    let mut system_means = Vec::new();
    let mut kl = Vec::new();
    for (metric, dir) in metrics.iter().zip(&directions) {
        let raw = missing_column(&joined.metrics, "metrics", metric)?;
        let sign = dir.direction.sign();
        let oriented: Vec<f64> = raw.iter().map(|v| v * sign).collect();
        for aspect in aspects {
            let human_raw = missing_column(&joined.aspects, "aspects", aspect)?;
            let h_sign = aspect_direction(opts, aspect).sign();
            let human_oriented: Vec<f64> = human_raw.iter().map(|v| v * h_sign).collect();
            let human = &human_oriented;
            let me = meta_evaluate(&joined.ids, systems, &oriented, human)?;
            if joined.systems.is_some() {
                // Means on the metric's own scale, for tables and plots: the oriented means
                // with the sign undone. Negation is exact and rounding symmetric, so each
                // equals the mean of the raw values bit for bit, except that a zero comes back
                // as -0.0, which `+ 0.0` turns into the +0.0 a raw sum (from +0.0) gives.
                // (This replaced a second meta_evaluate of the raw values, which computed every
                // statistic again.)
                let means = me
                    .system_means
                    .iter()
                    .map(|s| SystemMean {
                        metric_mean: s.metric_mean * sign + 0.0,
                        human_mean: s.human_mean * h_sign + 0.0,
                        ..s.clone()
                    })
                    .collect();
                system_means.push(SystemMeans { metric: metric.clone(), aspect: aspect.clone(), means });
            }
            kl.push(KlCell {
                metric: metric.clone(),
                aspect: aspect.clone(),
                kl: kl_divergence_gaussian(&oriented, human, &kl_options(opts, aspect)).map_err(|e| match e {
                    factpico_stats::Error::OutOfRange { value, .. } => Error::InvalidOption {
                        option: "human_range",
                        message: format!(
                            "aspect `{aspect}` has the value {} outside the declared scale",
                            value * h_sign
                        ),
                    },
                    other => Error::Stats(other),
                })?,
            });
            for level in opts.levels.list() {
                let (stats, null, n_used) = match level {
                    Level::Instance => (Some(me.instance), None, me.instance.kendall_tau_b.n),
                    Level::System => match (&me.system, &joined.systems) {
                        (_, None) => (None, Some(LevelNull::NoSystemColumn), 0),
                        (Some(s), Some(_)) => (Some(*s), None, me.system_means.len()),
                        (None, Some(_)) => (
                            None,
                            me.system_null_reason.map(|reason| LevelNull::Stats { reason }),
                            me.system_means.len(),
                        ),
                    },
                };
                let intervals = match (&opts.bootstrap, &stats) {
                    (Some(b), Some(_)) => Some(intervals(&joined.ids, systems, &oriented, human, level, b)?),
                    _ => None,
                };
                let li = usize::from(level == Level::System);
                cells_by_level[li].push(Cell {
                    level,
                    metric: metric.clone(),
                    aspect: aspect.clone(),
                    direction: dir.direction,
                    stats,
                    null,
                    n: n_used,
                    n_excluded: me.n_excluded,
                    intervals,
                });
            }
        }
    }
    let cells = cells_by_level.into_iter().flatten().collect();
    Ok(MetaEvalResult {
        inputs: Inputs::default(),
        metrics: metrics.to_vec(),
        aspects: aspects.to_vec(),
        directions,
        join: joined.report.clone(),
        n_items,
        n_systems,
        options: opts.clone(),
        cells,
        system_means,
        kl,
    })
}

/// The declared scale of `aspect` after its direction is applied
/// (`(lo, hi)`, or `(−hi, −lo)` for a lower-is-better aspect).
pub fn human_range_for(opts: &EvalOptions, aspect: &str) -> Option<(f64, f64)> {
    let (lo, hi) = opts.human_range?;
    Some(match aspect_direction(opts, aspect) {
        Direction::HigherIsBetter => (lo, hi),
        Direction::LowerIsBetter => (-hi, -lo),
    })
}

fn kl_options(opts: &EvalOptions, aspect: &str) -> KlOptions {
    KlOptions {
        human: human_range_for(opts, aspect).map_or(Normalization::ObservedMinMax, |(lo, hi)| Normalization::Range { lo, hi }),
        metric: Normalization::ObservedMinMax,
    }
}

/// The direction of a human aspect (higher-is-better unless declared).
pub fn aspect_direction(opts: &EvalOptions, aspect: &str) -> Direction {
    opts.aspect_directions.get(aspect).copied().unwrap_or(Direction::HigherIsBetter)
}

/// `col` of `map`, which holds the columns of the option `option` (`metrics`, `aspects`).
fn missing_column<'a>(map: &'a BTreeMap<String, Vec<f64>>, option: &'static str, col: &str) -> Result<&'a Vec<f64>> {
    map.get(col).ok_or_else(|| Error::InvalidOption {
        option,
        message: format!("column `{col}` was not part of the join"),
    })
}

fn intervals(
    ids: &[String],
    systems: &[String],
    metric: &[f64],
    human: &[f64],
    level: Level,
    b: &BootstrapOptions,
) -> Result<CellIntervals> {
    let mut out = Vec::with_capacity(4);
    for s in STATISTICS {
        out.push(bootstrap_ci_by_item(ids, systems, metric, human, s, level, b)?);
    }
    Ok(CellIntervals {
        kendall_tau_b: out[0],
        spearman_rho: out[1],
        pearson_r: out[2],
        pairwise_accuracy: out[3],
    })
}
