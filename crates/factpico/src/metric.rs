//! The [`Metric`] abstraction and the metric registry.
//!
//! A metric scores one (source, summary) pair — source = the RCT abstract
//! (premise / reference / target), summary = the plain-language summary
//! (hypothesis / claim / prediction) — and yields one or more named *columns*
//! (e.g. `rougeL`, `rougeL_precision`). The [`registry`] describes every column:
//! its range, its direction (is higher better?) and the reference
//! implementation it follows. The CLI's output and the meta-evaluation read
//! directions from here. The registry is assembled from the metric units
//! ([`crate::units`]); metrics implemented outside this crate join a
//! [`crate::Scorer`] through [`crate::ScorerBuilder::metric`].

use std::collections::BTreeMap;

use serde::Serialize;

use crate::Result;

/// Whether a higher value of a column means a better summary (the registry's, and the
/// meta-evaluation's: it negates lower-is-better columns before any statistic).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    /// Higher is better (e.g. ROUGE-L F, AlignScore).
    HigherIsBetter,
    /// Lower is better (e.g. Flesch-Kincaid grade of the summary, ΔFK).
    LowerIsBetter,
}

impl Direction {
    /// The sign that makes higher better: +1 or −1.
    pub fn sign(self) -> f64 {
        match self {
            Self::HigherIsBetter => 1.0,
            Self::LowerIsBetter => -1.0,
        }
    }

    /// `higher` or `lower`.
    pub fn word(self) -> &'static str {
        match self {
            Self::HigherIsBetter => "higher",
            Self::LowerIsBetter => "lower",
        }
    }
}

/// Which of the two texts a column's value depends on. A column of one text (e.g.
/// `fkgl_summary`) is computed even when the other text is empty; a column of both is a
/// documented null when either is (see [`crate::Scorer`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Texts {
    /// Needs the abstract and the summary (ROUGE, ΔFK, every factuality metric).
    Both,
    /// The abstract (source) alone (e.g. `fkgl_source`).
    Source,
    /// The summary alone (e.g. `fkgl_summary`).
    Summary,
}

/// Description of one output column of a metric. Build it with [`ColumnInfo::new`].
#[derive(Debug, Clone, Serialize)]
#[non_exhaustive]
pub struct ColumnInfo {
    /// Column name as it appears in output rows (`scores.<name>`).
    pub name: &'static str,
    /// One-line description, with units.
    pub description: &'static str,
    /// Inclusive lower bound of the value, `None` when unbounded.
    pub min: Option<f64>,
    /// Inclusive upper bound of the value, `None` when unbounded.
    pub max: Option<f64>,
    /// Direction used by the meta-evaluation.
    pub direction: Direction,
    /// The headline column of its metric (shown in the per-system summary table).
    pub primary: bool,
    /// The texts its value depends on (default [`Texts::Both`]).
    pub texts: Texts,
}

impl ColumnInfo {
    /// An unbounded, non-primary column of both texts (`const`, for `static` registry
    /// entries).
    pub const fn new(name: &'static str, description: &'static str, direction: Direction) -> Self {
        Self { name, description, min: None, max: None, direction, primary: false, texts: Texts::Both }
    }

    /// Sets the inclusive range (`None` = unbounded on that side).
    #[must_use]
    pub const fn range(mut self, min: Option<f64>, max: Option<f64>) -> Self {
        self.min = min;
        self.max = max;
        self
    }

    /// Marks the column as its metric's headline column.
    #[must_use]
    pub const fn primary(mut self) -> Self {
        self.primary = true;
        self
    }

    /// Declares the texts the value depends on: a column of one text keeps its value when
    /// the other text is empty ([`crate::Scorer`]'s null policy).
    #[must_use]
    pub const fn texts(mut self, texts: Texts) -> Self {
        self.texts = texts;
        self
    }
}

/// A per-row side input a metric reads beyond (source, summary): e.g. the evidence spans of
/// an LLM evaluator. Input readers (the CLI) read it from the input field of the same
/// name unless mapped otherwise (`factpico score --input-field NAME=FIELD`), and hand it to
/// the metric in [`Pair::extras`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct RowInput {
    /// Key in [`Pair::extras`] and default input field name (e.g. `evidence`).
    pub name: &'static str,
    /// What the field holds and its JSON shape (string, array of strings, ...).
    pub description: &'static str,
}

/// Description of a metric: its name (as given to `--metrics`), columns and reference.
/// Build it with [`MetricInfo::new`] (a `const fn`, for `static` entries).
#[derive(Debug, Clone, Serialize)]
#[non_exhaustive]
pub struct MetricInfo {
    /// Name used on the command line and in [`crate::ScorerOptions::metrics`].
    pub name: &'static str,
    /// Other accepted names (e.g. `rouge-l` for `rougeL`).
    pub aliases: &'static [&'static str],
    /// One-line description.
    pub description: &'static str,
    /// The reference implementation this metric reproduces (package/repo, version, file).
    pub reference: &'static str,
    /// Columns this metric writes: every row gets exactly these (value or documented null).
    pub columns: &'static [ColumnInfo],
    /// Cargo feature of the `factpico` crate that compiles the metric in (`None`: always built).
    pub feature: Option<&'static str>,
    /// Whether the metric needs a model directory (or another external resource).
    pub needs_model: bool,
    /// Per-row side inputs the metric reads from [`Pair::extras`].
    pub inputs: &'static [RowInput],
}

impl MetricInfo {
    /// A model-free metric compiled into every build, without aliases or side inputs.
    pub const fn new(
        name: &'static str,
        description: &'static str,
        reference: &'static str,
        columns: &'static [ColumnInfo],
    ) -> Self {
        Self { name, aliases: &[], description, reference, columns, feature: None, needs_model: false, inputs: &[] }
    }

    /// Sets the accepted aliases.
    #[must_use]
    pub const fn aliases(mut self, aliases: &'static [&'static str]) -> Self {
        self.aliases = aliases;
        self
    }

    /// The metric needs a model; it is compiled in with the `factpico` cargo feature `feature`.
    #[must_use]
    pub const fn model(mut self, feature: &'static str) -> Self {
        self.feature = Some(feature);
        self.needs_model = true;
        self
    }

    /// Sets the per-row side inputs.
    #[must_use]
    pub const fn inputs(mut self, inputs: &'static [RowInput]) -> Self {
        self.inputs = inputs;
        self
    }

    /// Names of the primary columns.
    pub fn primary_columns(&self) -> impl Iterator<Item = &'static str> {
        self.columns.iter().filter(|c| c.primary).map(|c| c.name)
    }
}

/// What a metric returns for one pair.
#[derive(Debug, Clone, Default, Serialize)]
pub struct MetricOutput {
    /// Column name → value; `None` is a documented null whose reason is in `nulls`.
    pub scores: BTreeMap<String, Option<f64>>,
    /// Column name → why the value is null.
    pub nulls: BTreeMap<String, String>,
    /// Metric-specific detail (per-sentence scores, per-arc probabilities, per-question
    /// answers): what the unit's explanation ([`crate::explain`]) renders.
    pub detail: Option<serde_json::Value>,
    /// Non-fatal remarks (truncation, fallbacks).
    pub warnings: Vec<String>,
}

impl MetricOutput {
    /// Sets a column value.
    pub fn set(&mut self, column: &str, value: f64) {
        self.scores.insert(column.to_owned(), Some(value));
    }

    /// Sets a column to a documented null with its reason.
    pub fn set_null(&mut self, column: &str, reason: impl Into<String>) {
        self.scores.insert(column.to_owned(), None);
        self.nulls.insert(column.to_owned(), reason.into());
    }

    /// Sets `column` from a model-based metric's score, the one conversion of every such
    /// metric: the value when finite; a documented null `non-finite model output` when not;
    /// with no score, a null for `why` (the metric's null reason; `no score` when it gives
    /// none). With `label = Some((label_column, positive))` also the 0/1 label column: 1.0
    /// when `positive(score)`, else 0.0, and the score's null reason when the score is null.
    pub fn set_score(&mut self, column: &str, score: Option<f64>, why: Option<String>, label: Option<(&str, &dyn Fn(f64) -> bool)>) {
        let null = match score {
            Some(v) if v.is_finite() => {
                self.set(column, v);
                if let Some((label_column, positive)) = label {
                    self.set(label_column, if positive(v) { 1.0 } else { 0.0 });
                }
                return;
            }
            Some(_) => "non-finite model output".to_owned(),
            None => why.unwrap_or_else(|| "no score".to_owned()),
        };
        if let Some((label_column, _)) = label {
            self.set_null(label_column, null.clone());
        }
        self.set_null(column, null);
    }

    /// An output whose every column of `info` is null for `reason`.
    pub fn all_null(info: &MetricInfo, reason: &str) -> Self {
        let mut out = Self::default();
        for c in info.columns {
            out.set_null(c.name, reason);
        }
        out
    }
}

/// Per-row side inputs: [`RowInput::name`] → value (JSON as read from the input row; a
/// CSV/TSV cell is a string).
pub type Extras = BTreeMap<String, serde_json::Value>;

static NO_EXTRAS: Extras = BTreeMap::new();

/// One input pair as metrics see it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pair<'a> {
    /// Row id (`""` when the caller has none). Metrics that read side inputs keyed by row
    /// (pre-parsed dependency arcs for DAE) look rows up by it.
    pub id: &'a str,
    /// The abstract (premise, reference, target).
    pub source: &'a str,
    /// The plain-language summary (hypothesis, claim, prediction).
    pub summary: &'a str,
    /// Per-row side inputs declared by the metrics ([`MetricInfo::inputs`]); empty by default.
    pub extras: &'a Extras,
}

impl<'a> Pair<'a> {
    /// A pair with an id and no side inputs.
    pub fn new(id: &'a str, source: &'a str, summary: &'a str) -> Self {
        Self { id, source, summary, extras: &NO_EXTRAS }
    }

    /// The same pair with these side inputs.
    #[must_use]
    pub fn with_extras(mut self, extras: &'a Extras) -> Self {
        self.extras = extras;
        self
    }

    /// The side input `name`, if the row has one.
    pub fn extra(&self, name: &str) -> Option<&'a serde_json::Value> {
        self.extras.get(name)
    }
}

/// A factuality or readability metric over (source, summary) pairs.
///
/// Implementations must be deterministic and thread-safe: the scorer calls them
/// from rayon workers. Built-in metrics are built by their unit ([`crate::units`]);
/// others join a scorer through [`crate::ScorerBuilder::metric`].
pub trait Metric: Send + Sync {
    /// Registry entry of this metric (name, columns, ranges, directions, reference).
    fn info(&self) -> &'static MetricInfo;

    /// Options and model identity (e.g. the ONNX file's sha256) recorded in each output
    /// row's `provenance.metrics.<name>`; a resumed run must reproduce it.
    fn provenance(&self) -> serde_json::Value;

    /// Scores one pair.
    ///
    /// # Errors
    /// A real failure (model run failed, ...). Degenerate but valid input yields
    /// `Ok` with documented nulls instead.
    fn score(&self, pair: &Pair<'_>) -> Result<MetricOutput>;

    /// Scores many pairs. `Ok` holds one result per input pair, in order; the default runs
    /// [`Metric::score`] on rayon's pool. Model-based metrics override it to batch model
    /// inputs across rows, and return `Err` when the batch as a whole failed: the scorer
    /// then scores the rows one by one with [`Metric::score`] and records the batch error in
    /// each row's warnings (that fallback lives in the scorer only).
    ///
    /// # Errors
    /// The batch as a whole failed.
    fn score_batch(&self, pairs: &[Pair<'_>]) -> Result<Vec<Result<MetricOutput>>> {
        use rayon::prelude::*;
        Ok(pairs.par_iter().map(|p| self.score(p)).collect())
    }

    /// What the metric has to say about the whole run, after its last row (e.g. an LLM
    /// evaluator's requests, tokens and failed requests). Default: nothing.
    fn run_report(&self) -> Option<RunReport> {
        None
    }

    /// A one-line live status of long-running work while [`Metric::score_batch`] runs (e.g.
    /// an LLM evaluator's requests: sent, answered, from the cache, failed, retries, tokens
    /// per second), polled from another thread by `factpico score`'s progress display.
    /// Default: `None` (rows are the unit of progress).
    fn progress(&self) -> Option<String> {
        None
    }

    /// Columns shown in the per-system summary table (default: the primary columns of
    /// [`Metric::info`]); a metric whose headline depends on its options overrides it.
    fn summary_columns(&self) -> Vec<&'static str> {
        self.info().primary_columns().collect()
    }
}

/// A metric's report on a whole run ([`Metric::run_report`]): shown under the per-system
/// table of `factpico score` (and in its `--summary` file).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct RunReport {
    /// `(what, value)` lines, e.g. `("requests", "120 distinct: 96 from the cache, …")`.
    pub lines: Vec<(String, String)>,
    /// Units of work that failed for good (e.g. requests after their retries): when any did,
    /// `factpico score` still writes every row (with documented nulls) but exits with status 3.
    pub failures: u64,
    /// What to do about the failures.
    pub advice: Option<String>,
}


#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    /// The one score → output conversion: a finite score and its label, a non-finite one
    /// and a missing one as documented nulls of both columns.
    #[test]
    fn set_score_values_labels_and_nulls() {
        let positive = |v: f64| v > 0.5;
        let mut o = MetricOutput::default();
        o.set_score("m", Some(0.7), None, Some(("m_label", &positive)));
        assert_eq!((o.scores["m"], o.scores["m_label"]), (Some(0.7), Some(1.0)));
        assert!(o.nulls.is_empty());
        let mut o = MetricOutput::default();
        o.set_score("m", Some(0.2), None, Some(("m_label", &positive)));
        assert_eq!(o.scores["m_label"], Some(0.0));
        let mut o = MetricOutput::default();
        o.set_score("m", Some(f64::NAN), None, Some(("m_label", &positive)));
        assert_eq!((o.scores["m"], o.scores["m_label"]), (None, None));
        assert_eq!((o.nulls["m"].as_str(), o.nulls["m_label"].as_str()), ("non-finite model output", "non-finite model output"));
        let mut o = MetricOutput::default();
        o.set_score("m", None, Some("empty summary".into()), None);
        assert_eq!(o.nulls["m"], "empty summary");
        assert!(!o.scores.contains_key("m_label"));
        let mut o = MetricOutput::default();
        o.set_score("m", None, None, None);
        assert_eq!(o.nulls["m"], "no score");
    }
}
