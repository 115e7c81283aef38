//! The [`Metric`] abstraction and the metric registry.
//!
//! A metric scores one (source, summary) pair — source = the RCT abstract
//! (premise / reference / target), summary = the plain-language summary
//! (hypothesis / claim / prediction) — and yields one or more named *columns*
//! (e.g. `rougeL`, `rougeL_precision`). The [`registry`] describes every column:
//! its range, its direction (is higher better?) and the reference
//! implementation it follows. The CLI's output and the meta-evaluation read
//! directions from here.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::Result;

/// Whether a higher value of a column means a better summary.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    /// Higher is better (e.g. ROUGE-L F, AlignScore).
    HigherIsBetter,
    /// Lower is better (e.g. Flesch-Kincaid grade of the summary, ΔFK).
    LowerIsBetter,
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

/// Description of one output column of a metric.
#[derive(Debug, Clone, Serialize)]
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
    /// The texts its value depends on.
    pub texts: Texts,
}

/// Description of a metric: its name (as given to `--metrics`), columns and reference.
#[derive(Debug, Clone, Serialize)]
pub struct MetricInfo {
    /// Name used on the command line and in [`crate::ScorerOptions::metrics`].
    pub name: &'static str,
    /// One-line description.
    pub description: &'static str,
    /// The reference implementation this metric reproduces (package/repo, version, file).
    pub reference: &'static str,
    /// Columns this metric writes.
    pub columns: &'static [ColumnInfo],
    /// Cargo feature of the `factpico` crate that compiles the metric in (`None`: always built).
    pub feature: Option<&'static str>,
    /// Whether the metric needs a model directory.
    pub needs_model: bool,
}

/// What a metric returns for one pair.
#[derive(Debug, Clone, Default, Serialize)]
pub struct MetricOutput {
    /// Column name → value; `None` is a documented null whose reason is in `nulls`.
    pub scores: BTreeMap<String, Option<f64>>,
    /// Column name → why the value is null.
    pub nulls: BTreeMap<String, String>,
    /// Metric-specific detail (per-sentence scores, per-arc probabilities, per-question answers).
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

    /// An output whose every column of `info` is null for `reason`.
    pub fn all_null(info: &MetricInfo, reason: &str) -> Self {
        let mut out = Self::default();
        for c in info.columns {
            out.set_null(c.name, reason);
        }
        out
    }
}

/// One input pair as metrics see it in a batch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pair<'a> {
    /// Row id (`""` when the caller has none). Metrics that read per-row side
    /// inputs (pre-parsed dependency arcs for DAE) look rows up by it.
    pub id: &'a str,
    /// The abstract (premise, reference, target).
    pub source: &'a str,
    /// The plain-language summary (hypothesis, claim, prediction).
    pub summary: &'a str,
}

/// A factuality or readability metric over (source, summary) pairs.
///
/// Implementations must be deterministic and thread-safe: the scorer calls them
/// from rayon workers.
pub trait Metric: Send + Sync {
    /// Registry entry of this metric.
    fn info(&self) -> &'static MetricInfo;

    /// Options and model identity (e.g. the ONNX file's sha256) recorded in each output row.
    fn provenance(&self) -> serde_json::Value;

    /// Scores one pair. `source` = abstract (premise), `summary` = plain-language summary.
    ///
    /// # Errors
    /// A real failure (model run failed, ...). Degenerate but valid input yields
    /// `Ok` with documented nulls instead.
    fn score(&self, source: &str, summary: &str) -> Result<MetricOutput>;

    /// Scores many pairs; one result per input pair, in order. The default runs
    /// [`Metric::score`] on rayon's pool; model-based metrics override it to
    /// batch model inputs across rows.
    fn score_batch(&self, pairs: &[Pair<'_>]) -> Vec<Result<MetricOutput>> {
        use rayon::prelude::*;
        pairs.par_iter().map(|p| self.score(p.source, p.summary)).collect()
    }
}

const fn col(
    name: &'static str,
    description: &'static str,
    min: Option<f64>,
    max: Option<f64>,
    direction: Direction,
    primary: bool,
) -> ColumnInfo {
    ColumnInfo { name, description, min, max, direction, primary, texts: Texts::Both }
}

/// A column of one text only (see [`Texts`]).
const fn col_of(texts: Texts, name: &'static str, description: &'static str, direction: Direction, primary: bool) -> ColumnInfo {
    ColumnInfo { name, description, min: None, max: None, direction, primary, texts }
}

use Direction::{HigherIsBetter as Hi, LowerIsBetter as Lo};

/// ROUGE-L registry entry.
pub static ROUGE_L: MetricInfo = MetricInfo {
    name: "rougeL",
    description: "ROUGE-L (summary-as-one-sequence LCS) and ROUGE-Lsum (newline-split union LCS); target = abstract, prediction = summary",
    reference: "Google rouge-score 0.1.2 (rouge_score/rouge_scorer.py), NLTK PorterStemmer NLTK_EXTENSIONS",
    columns: &[
        col("rougeL", "ROUGE-L F-measure", Some(0.0), Some(1.0), Hi, true),
        col("rougeL_precision", "ROUGE-L precision (LCS / summary tokens)", Some(0.0), Some(1.0), Hi, false),
        col("rougeL_recall", "ROUGE-L recall (LCS / abstract tokens)", Some(0.0), Some(1.0), Hi, false),
        col("rougeLsum", "ROUGE-Lsum F-measure (sentences split on newlines)", Some(0.0), Some(1.0), Hi, false),
        col("rougeLsum_precision", "ROUGE-Lsum precision", Some(0.0), Some(1.0), Hi, false),
        col("rougeLsum_recall", "ROUGE-Lsum recall", Some(0.0), Some(1.0), Hi, false),
    ],
    feature: None,
    needs_model: false,
};

/// Flesch-Kincaid registry entry.
pub static FKGL: MetricInfo = MetricInfo {
    name: "fkgl",
    description: "Flesch-Kincaid grade level of abstract and summary, and ΔFK = FK(summary) − FK(abstract)",
    reference: "Python textstat 0.7.3 (default; pyphen-only, legacy rounding) or 0.7.8 (cmudict first), textstat/textstat.py",
    columns: &[
        col("delta_fkgl", "ΔFK = FKGL(summary) − FKGL(abstract), US grade levels; negative = simpler", None, None, Lo, true),
        col_of(Texts::Summary, "fkgl_summary", "Flesch-Kincaid grade level of the summary (US grade)", Lo, false),
        col_of(Texts::Source, "fkgl_source", "Flesch-Kincaid grade level of the abstract (US grade)", Lo, false),
    ],
    feature: None,
    needs_model: false,
};

/// Flesch reading ease registry entry.
pub static FRE: MetricInfo = MetricInfo {
    name: "fre",
    description: "Flesch reading ease of abstract and summary (same counts as FKGL)",
    reference: "Python textstat 0.7.3 / 0.7.8 flesch_reading_ease",
    columns: &[
        col_of(Texts::Summary, "fre_summary", "Flesch reading ease of the summary (higher = easier; unbounded)", Hi, true),
        col_of(Texts::Source, "fre_source", "Flesch reading ease of the abstract", Hi, false),
        col("delta_fre", "FRE(summary) − FRE(abstract); positive = easier", None, None, Hi, false),
    ],
    feature: None,
    needs_model: false,
};

/// Every metric factpico knows, compiled in or not.
pub fn registry() -> Vec<&'static MetricInfo> {
    let mut v: Vec<&'static MetricInfo> = vec![&ROUGE_L, &FKGL, &FRE];
    v.extend(crate::neural::registry_entries());
    v
}

/// Looks up a metric by its `--metrics` name (case-sensitive; `rougel` and `rouge-l` are accepted aliases of `rougeL`).
pub fn metric_info(name: &str) -> Option<&'static MetricInfo> {
    let canonical = match name {
        "rougel" | "rouge-l" | "rouge_l" | "rougeLsum" => "rougeL",
        "flesch_kincaid" | "fk" => "fkgl",
        other => other,
    };
    registry().into_iter().find(|m| m.name == canonical)
}

/// Looks up the column `name` in every registered metric.
pub fn column_info(name: &str) -> Option<(&'static MetricInfo, &'static ColumnInfo)> {
    registry()
        .into_iter()
        .find_map(|m| m.columns.iter().find(|c| c.name == name).map(|c| (m, c)))
}

/// Comma-separated names of all registered metrics (for error messages).
pub fn metric_names() -> String {
    registry().iter().map(|m| m.name).collect::<Vec<_>>().join(", ")
}
