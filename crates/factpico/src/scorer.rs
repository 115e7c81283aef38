//! [`Scorer`]: the configured set of metrics, applied to (source, summary) pairs.

use rayon::prelude::*;

use crate::error::error_chain;
use crate::lookup::{metric_info, metric_names};
use crate::metric::{Metric, MetricInfo, MetricOutput, Pair, Texts};
use crate::provenance::{InputProvenance, Provenance};
use crate::report::{input_sha256, Report, Sentences, Warning, SCHEMA_VERSION};
use crate::units::ScorerOptions;
use crate::{Error, Result};

/// Applies the configured metrics to (source, summary) pairs.
///
/// Policy for degenerate input (documented null, not an error): when the source
/// or the summary is empty or whitespace-only, every column that depends on that text
/// ([`crate::Texts`]: all columns of both texts, such as ROUGE, ΔFK and the factuality
/// metrics, and the columns of that text alone, such as `fkgl_source`) is `null` with the
/// reason `"empty source"` / `"empty summary"`; when it has no alphanumeric character at
/// all (e.g. only punctuation), the reason is `"source has no words"` / `"summary has no
/// words"`. Columns of the other text alone keep their values (`fkgl_summary` of a row
/// with an empty abstract). A metric runs on such a pair only when it has columns of the
/// other text alone (the references return artefacts on degenerate text: textstat 0.7.3
/// gives −15.7, AlignScore NaN, DAE crashes), and its columns of the degenerate text are
/// then replaced by the null.
///
/// Batches: each metric scores all scorable pairs of a call together
/// ([`Metric::score_batch`]). When a metric reports that a batch failed as a whole, the
/// scorer scores those rows one by one ([`Metric::score`]) and records the batch error in
/// each of their warnings; a row that fails alone gets its own error in `errors` and
/// null columns. A metric that panics (a bug) never takes the run down: a panicking batch
/// is a failed batch, and a row on which the metric panics alone gets that metric's columns
/// as documented nulls (`"metric panicked (see warnings)"`) with the panic message in its
/// warnings; the other rows and metrics keep their values.
pub struct Scorer {
    metrics: Vec<Box<dyn Metric>>,
    options: ScorerOptions,
    provenance: Provenance,
    /// [`Provenance::hash`] of `provenance`: each report's `run`.
    run: String,
}

impl std::fmt::Debug for Scorer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Scorer")
            .field("options", &self.options)
            .field("metrics", &self.metrics.iter().map(|m| m.info().name).collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}

/// Builds a [`Scorer`] from built-in metric names ([`ScorerOptions`]) and metrics
/// implemented elsewhere ([`ScorerBuilder::metric`]).
///
/// ```
/// use factpico::{Metric, MetricInfo, MetricOutput, Pair, Scorer, ScorerOptions};
/// use factpico::{ColumnInfo, Direction};
///
/// /// Summary length in words (a toy metric).
/// struct Words;
/// static WORDS: MetricInfo = MetricInfo::new(
///     "words", "summary length in words", "none (toy example)",
///     &[ColumnInfo::new("words", "whitespace words of the summary", Direction::LowerIsBetter).primary()],
/// );
/// impl Metric for Words {
///     fn info(&self) -> &'static MetricInfo { &WORDS }
///     fn provenance(&self) -> serde_json::Value { serde_json::json!({"version": 1}) }
///     fn score(&self, pair: &Pair<'_>) -> factpico::Result<MetricOutput> {
///         let mut out = MetricOutput::default();
///         out.set("words", pair.summary.split_whitespace().count() as f64);
///         Ok(out)
///     }
/// }
///
/// let scorer = Scorer::builder()
///     .options(ScorerOptions { metrics: vec!["rougeL".into()], ..Default::default() })
///     .metric(Words)
///     .build()
///     .unwrap();
/// let r = scorer.score("The trial enrolled 240 adults.", "It enrolled 240 adults.");
/// assert_eq!(r.score("words"), Some(4.0));
/// assert!(r.score("rougeL").is_some());
/// ```
#[derive(Default)]
pub struct ScorerBuilder {
    options: ScorerOptions,
    extra: Vec<Box<dyn Metric>>,
}

impl std::fmt::Debug for ScorerBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ScorerBuilder")
            .field("options", &self.options)
            .field("extra", &self.extra.iter().map(|m| m.info().name).collect::<Vec<_>>())
            .finish()
    }
}

impl ScorerBuilder {
    /// The built-in metrics (`options.metrics`) and their options.
    #[must_use]
    pub fn options(mut self, options: ScorerOptions) -> Self {
        self.options = options;
        self
    }

    /// Adds a metric implemented outside factpico; it runs after the built-in ones, in the
    /// order added, and its [`Metric::provenance`] is recorded under its name.
    #[must_use]
    pub fn metric(mut self, metric: impl Metric + 'static) -> Self {
        self.extra.push(Box::new(metric));
        self
    }

    /// Adds an already boxed metric (see [`ScorerBuilder::metric`]).
    #[must_use]
    pub fn boxed_metric(mut self, metric: Box<dyn Metric>) -> Self {
        self.extra.push(metric);
        self
    }

    /// Builds the named built-in metrics, then appends the added ones.
    ///
    /// # Errors
    /// [`Error::UnknownMetric`] for a name not in the registry,
    /// [`Error::FeatureDisabled`] for a metric not compiled in,
    /// [`Error::MissingOption`] / [`Error::Init`] when a model cannot be loaded,
    /// [`Error::Duplicate`] when an added metric's name or a column clashes with another's.
    pub fn build(self) -> Result<Scorer> {
        let ScorerBuilder { options, extra } = self;
        let mut metrics: Vec<Box<dyn Metric>> = Vec::new();
        let mut seen = std::collections::BTreeSet::new();
        for name in &options.metrics {
            let info = metric_info(name)
                .ok_or_else(|| Error::UnknownMetric { name: name.clone(), available: metric_names() })?;
            if !seen.insert(info.name) {
                continue;
            }
            let built =
                crate::units::build(info, &options).unwrap_or_else(|| Err(crate::units::feature_disabled(info)))?;
            metrics.push(built);
        }
        for m in extra {
            let info = m.info();
            for other in &metrics {
                let o = other.info();
                let clash = if o.name == info.name {
                    Some("its name".to_owned())
                } else {
                    info.columns
                        .iter()
                        .find(|c| o.columns.iter().any(|d| d.name == c.name))
                        .map(|c| format!("column `{}`", c.name))
                };
                if let Some(what) = clash {
                    return Err(Error::Duplicate { metric: info.name.to_owned(), what, other: o.name.to_owned() });
                }
            }
            metrics.push(m);
        }
        let provenance = Provenance {
            engine: format!("factpico {}", crate::VERSION),
            input: None,
            metrics: metrics.iter().map(|m| (m.info().name.to_owned(), m.provenance())).collect(),
            options: serde_json::to_value(&options).unwrap_or(serde_json::Value::Null),
            schema_version: SCHEMA_VERSION,
            summary_columns: Some(metrics.iter().flat_map(|m| m.summary_columns()).map(str::to_owned).collect()),
        };
        let run = provenance.hash();
        Ok(Scorer { metrics, options, provenance, run })
    }
}

impl Scorer {
    /// Builds the metrics named in `options.metrics` (see [`Scorer::builder`] to add
    /// metrics implemented elsewhere).
    ///
    /// # Errors
    /// See [`ScorerBuilder::build`].
    pub fn try_new(options: ScorerOptions) -> Result<Self> {
        Self::builder().options(options).build()
    }

    /// A builder: built-in metrics by name, plus metrics implemented elsewhere.
    pub fn builder() -> ScorerBuilder {
        ScorerBuilder::default()
    }

    /// The options this scorer was built with.
    pub fn options(&self) -> &ScorerOptions {
        &self.options
    }

    /// The run's provenance (engine, schema version, options, per-metric settings and model
    /// hashes, summary columns): stored once per output, referenced by every report's `run`
    /// ([`Scorer::run`]).
    pub fn provenance(&self) -> &Provenance {
        &self.provenance
    }

    /// Records how the rows were read ([`Provenance::input`], set by a front end that reads
    /// an input file) and recomputes [`Scorer::run`]: the reports scored from then on
    /// reference the provenance with the input.
    pub fn set_input(&mut self, input: Option<InputProvenance>) {
        self.provenance.input = input;
        self.run = self.provenance.hash();
    }

    /// [`Provenance::hash`] of [`Scorer::provenance`]: the `run` of every report.
    pub fn run(&self) -> &str {
        &self.run
    }

    /// Names of all output columns, in metric order.
    pub fn columns(&self) -> Vec<&'static str> {
        self.metrics.iter().flat_map(|m| m.info().columns.iter().map(|c| c.name)).collect()
    }

    /// The columns of the per-system summary table, in metric order
    /// ([`Metric::summary_columns`]).
    pub fn summary_columns(&self) -> Vec<&'static str> {
        self.metrics.iter().flat_map(|m| m.summary_columns()).collect()
    }

    /// The per-row side inputs the metrics read ([`MetricInfo::inputs`]), first declaration
    /// of each name.
    pub fn row_inputs(&self) -> Vec<&'static crate::RowInput> {
        let mut out: Vec<&'static crate::RowInput> = Vec::new();
        for m in &self.metrics {
            for i in m.info().inputs {
                if !out.iter().any(|o| o.name == i.name) {
                    out.push(i);
                }
            }
        }
        out
    }

    /// Each metric's report on the run so far ([`Metric::run_report`]), in metric order.
    pub fn run_reports(&self) -> Vec<(&'static str, crate::metric::RunReport)> {
        self.metrics.iter().filter_map(|m| m.run_report().map(|r| (m.info().name, r))).collect()
    }

    /// The live status lines of the metrics that report one ([`Metric::progress`]), as
    /// `(metric, line)`; callable from another thread while a batch is being scored.
    pub fn progress(&self) -> Vec<(&'static str, String)> {
        self.metrics.iter().filter_map(|m| m.progress().map(|p| (m.info().name, p))).collect()
    }

    /// The metrics, in the requested order.
    pub fn metrics(&self) -> impl Iterator<Item = &dyn Metric> {
        self.metrics.iter().map(|m| m.as_ref())
    }

    /// Scores one pair (id and system left empty).
    pub fn score(&self, source: &str, summary: &str) -> Report {
        self.score_batch(&[(source, summary)]).pop().unwrap_or_default()
    }

    /// Scores many (source, summary) pairs, in parallel where metrics allow;
    /// one report per pair, in order (ids left empty).
    pub fn score_batch(&self, pairs: &[(&str, &str)]) -> Vec<Report> {
        let rows: Vec<Pair<'_>> = pairs.iter().map(|&(source, summary)| Pair::new("", source, summary)).collect();
        self.score_pairs(&rows)
    }

    /// Scores many identified pairs; one report per pair, in order, with `id` set
    /// (empty ids stay `None`). Metrics with per-row side inputs find them in
    /// [`Pair::extras`] (or, for DAE's pre-parsed arcs, by id).
    pub fn score_pairs(&self, pairs: &[Pair<'_>]) -> Vec<Report> {
        let mut reports: Vec<Report> = pairs
            .par_iter()
            .map(|p| Report {
                id: (!p.id.is_empty()).then(|| p.id.to_owned()),
                sentences: self.options.sentence_spans.then(|| sentences(p.source, p.summary)),
                run: Some(self.run.clone()),
                ..Report::default()
            })
            .collect();
        // Pairs that every metric can score (non-empty on both sides), and the degenerate
        // ones with why each side cannot be scored.
        let mut live: Vec<usize> = Vec::with_capacity(pairs.len());
        let mut partial: Vec<(usize, Degenerate)> = Vec::new();
        for (i, p) in pairs.iter().enumerate() {
            let d = Degenerate { source: degenerate(p.source, "source"), summary: degenerate(p.summary, "summary") };
            if d.source.is_none() && d.summary.is_none() {
                live.push(i);
                continue;
            }
            let reasons: Vec<&str> = [d.source, d.summary].into_iter().flatten().collect();
            reports[i].warnings.push(Warning {
                metric: "input".into(),
                message: format!("{}: the columns that need this text are null", reasons.join(", ")),
            });
            partial.push((i, d));
        }
        let live_pairs: Vec<Pair<'_>> = live.iter().map(|&i| pairs[i]).collect();
        for m in &self.metrics {
            let info = m.info();
            let outs = run_metric(m.as_ref(), &live_pairs);
            for (&i, out) in live.iter().zip(outs) {
                merge(&mut reports[i], info, out);
            }
            // Degenerate pairs: the metric runs only where one of its columns needs just the
            // other text; the columns that need the degenerate text are nulls either way.
            let (runs, nulls): (Vec<_>, Vec<_>) =
                partial.iter().partition(|(_, d)| info.columns.iter().any(|c| d.null_reason(c.texts).is_none()));
            for &(i, d) in nulls {
                let r = d.source.or(d.summary).unwrap_or("empty text");
                merge(&mut reports[i], info, Ok(MetricOutput::all_null(info, r)));
            }
            let run_pairs: Vec<Pair<'_>> = runs.iter().map(|(i, _)| pairs[*i]).collect();
            for (&(i, d), mut out) in runs.into_iter().zip(run_metric(m.as_ref(), &run_pairs)) {
                if let Ok(o) = &mut out {
                    for c in info.columns {
                        if let Some(r) = d.null_reason(c.texts) {
                            o.set_null(c.name, r);
                        }
                    }
                }
                merge(&mut reports[i], info, out);
            }
        }
        reports
    }
}

/// An input record to score into a complete row ([`Scorer::score_records`]): its pair and
/// what the record says besides the texts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InputRecord<'a> {
    /// The pair; its `id` is the row's id (kept even when empty).
    pub pair: Pair<'a>,
    /// 1-based record number in the input.
    pub row: u64,
    /// The system that wrote the summary, if the input says.
    pub system: Option<&'a str>,
}

impl Scorer {
    /// Scores input records into complete rows, as `factpico score` writes them: each
    /// report of [`Scorer::score_pairs`] with the record's row number, id, system and
    /// [`crate::input_sha256`] (which `--resume` and `report` check), and [`Scorer::run`].
    pub fn score_records(&self, records: &[InputRecord<'_>]) -> Vec<Report> {
        let pairs: Vec<Pair<'_>> = records.iter().map(|r| r.pair).collect();
        let mut reports = self.score_pairs(&pairs);
        for (rep, r) in reports.iter_mut().zip(records) {
            rep.row = Some(r.row);
            rep.id = Some(r.pair.id.to_owned());
            rep.system = r.system.map(str::to_owned);
            rep.input_sha256 = Some(input_sha256(r.pair.source, r.pair.summary, r.pair.extras));
        }
        reports
    }

    /// The row of an input record that could not be read: its number, its id when it could
    /// be read, why it was skipped, and [`Scorer::run`].
    pub fn skipped_row(&self, row: u64, id: Option<String>, why: String) -> Report {
        Report { row: Some(row), id, skipped: Some(why), run: Some(self.run.clone()), ..Report::default() }
    }
}

/// Why each text of a pair cannot be scored (`None`: it can).
#[derive(Debug, Clone, Copy)]
struct Degenerate {
    source: Option<&'static str>,
    summary: Option<&'static str>,
}

impl Degenerate {
    /// Why a column of `texts` cannot be computed on this pair, if it cannot.
    fn null_reason(self, texts: Texts) -> Option<&'static str> {
        match texts {
            Texts::Both => self.source.or(self.summary),
            Texts::Source => self.source,
            Texts::Summary => self.summary,
        }
    }
}

/// One result per pair: the metric's batch, or — when the batch failed as a whole — each
/// row scored alone with the batch error in its warnings (the only copy of that fallback).
///
/// A metric that panics never takes the run down: a panicking batch counts as a failed
/// batch (its panic message is the batch error), and a row whose scoring panics alone gets
/// its metric's columns as documented nulls (`"metric panicked (see warnings)"`) with the
/// panic message in a warning; other rows and other metrics keep their values.
fn run_metric(m: &dyn Metric, pairs: &[Pair<'_>]) -> Vec<Result<MetricOutput>> {
    if pairs.is_empty() {
        return Vec::new();
    }
    let info = m.info();
    let batch_error = match catch_panic(|| m.score_batch(pairs)) {
        Ok(Ok(outs)) if outs.len() == pairs.len() => return outs,
        Ok(Ok(outs)) => BatchFailure::Error(Error::metric(
            info.name,
            format!("score_batch returned {} results for {} pairs", outs.len(), pairs.len()),
        )),
        Ok(Err(e)) => BatchFailure::Error(e),
        Err(message) => BatchFailure::Panic(message),
    };
    if pairs.len() == 1 {
        return vec![match batch_error {
            BatchFailure::Error(e) => Err(e),
            BatchFailure::Panic(message) => Ok(panicked(info, &message)),
        }];
    }
    let why = match &batch_error {
        BatchFailure::Error(e) => error_chain(e),
        BatchFailure::Panic(message) => format!("panicked: {message}"),
    };
    let note = format!("the batch of {} rows failed ({why}); this row was scored alone", pairs.len());
    pairs
        .iter()
        .map(|p| {
            let mut out = match catch_panic(|| m.score(p)) {
                Ok(res) => res?,
                Err(message) => panicked(info, &message),
            };
            out.warnings.push(note.clone());
            Ok(out)
        })
        .collect()
}

/// Why a batch gave no results.
enum BatchFailure {
    /// The metric reported an error for the whole batch.
    Error(Error),
    /// The metric panicked (the panic's message).
    Panic(String),
}

/// Runs `f`, turning a panic into its message (the panic hook has already reported it on
/// standard error). Metrics are plain computations on their inputs, so a panic leaves no
/// state behind that later rows could observe half-updated (a metric holding a lock
/// reports the poisoned lock as its own error).
fn catch_panic<T>(f: impl FnOnce() -> T) -> std::result::Result<T, String> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).map_err(|payload| {
        payload
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a panic without a message".to_owned())
    })
}

/// A row on which the metric panicked: its columns are documented nulls, with the panic in
/// a warning.
fn panicked(info: &'static MetricInfo, message: &str) -> MetricOutput {
    let mut out = MetricOutput::all_null(info, "metric panicked (see warnings)");
    out.warnings.push(format!(
        "the metric panicked on this row ({message}); its columns are null here (a bug in the metric: please report it with this row)"
    ));
    out
}

/// Why a text cannot be scored, if it cannot.
fn degenerate(text: &str, side: &'static str) -> Option<&'static str> {
    if text.trim().is_empty() {
        Some(if side == "source" { "empty source" } else { "empty summary" })
    } else if !text.chars().any(char::is_alphanumeric) {
        Some(if side == "source" { "source has no words" } else { "summary has no words" })
    } else {
        None
    }
}

fn sentences(source: &str, summary: &str) -> Sentences {
    Sentences::of(source, summary)
}

fn merge(report: &mut Report, info: &'static MetricInfo, out: Result<MetricOutput>) {
    let metric = info.name;
    match out {
        Ok(out) => {
            report.scores.extend(out.scores);
            report.nulls.extend(out.nulls);
            if let Some(d) = out.detail {
                report.details.insert(metric.to_owned(), d);
            }
            report
                .warnings
                .extend(out.warnings.into_iter().map(|message| Warning { metric: metric.to_owned(), message }));
        }
        Err(e) => {
            let null = MetricOutput::all_null(info, "metric failed (see errors)");
            report.scores.extend(null.scores);
            report.nulls.extend(null.nulls);
            report.errors.push(Warning { metric: metric.to_owned(), message: error_chain(&e) });
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    use super::*;
    use crate::metric::{ColumnInfo, Direction};

    static FLAKY: MetricInfo = MetricInfo::new(
        "flaky",
        "test metric whose batches fail",
        "none",
        &[ColumnInfo::new("flaky", "summary length", Direction::HigherIsBetter).primary()],
    );

    /// Batches always fail; a row whose summary contains "bad" fails alone too.
    struct Flaky {
        singles: Arc<AtomicUsize>,
    }

    #[derive(Debug, thiserror::Error)]
    #[error("tensor shape mismatch")]
    struct Cause;

    impl Metric for Flaky {
        fn info(&self) -> &'static MetricInfo {
            &FLAKY
        }
        fn provenance(&self) -> serde_json::Value {
            serde_json::json!({})
        }
        fn score(&self, pair: &Pair<'_>) -> Result<MetricOutput> {
            self.singles.fetch_add(1, Ordering::SeqCst);
            if pair.summary.contains("bad") {
                return Err(Error::metric("flaky", "row too long"));
            }
            let mut out = MetricOutput::default();
            out.set("flaky", pair.summary.len() as f64);
            Ok(out)
        }
        fn score_batch(&self, _pairs: &[Pair<'_>]) -> Result<Vec<Result<MetricOutput>>> {
            Err(Error::Metric { metric: "flaky".into(), source: Box::new(Cause) })
        }
    }

    #[test]
    fn failed_batch_falls_back_row_by_row_and_records_the_batch_error() {
        let singles = Arc::new(AtomicUsize::new(0));
        let scorer = Scorer::builder()
            .options(ScorerOptions { metrics: vec!["rougeL".into()], ..ScorerOptions::default() })
            .metric(Flaky { singles: Arc::clone(&singles) })
            .build()
            .unwrap();
        let reports = scorer.score_batch(&[
            ("The drug worked.", "It worked."),
            ("The drug worked.", "A bad row."),
            ("The drug worked.", ""),
        ]);
        // Row 1: scored alone, batch error in its warnings.
        assert_eq!(reports[0].score("flaky"), Some(10.0));
        let w: Vec<&str> =
            reports[0].warnings.iter().filter(|w| w.metric == "flaky").map(|w| w.message.as_str()).collect();
        assert_eq!(
            w,
            ["the batch of 2 rows failed (metric `flaky` failed: tensor shape mismatch); this row was scored alone"]
        );
        assert!(reports[0].errors.is_empty());
        // Row 2: fails alone: its own error, the column null, the batch error still noted.
        assert_eq!(reports[1].scores.get("flaky"), Some(&None));
        assert_eq!(reports[1].errors.len(), 1);
        assert_eq!(reports[1].errors[0].message, "metric `flaky` failed: row too long");
        // The other metric is unaffected; the degenerate row never reaches the metric.
        assert!(reports[1].score("rougeL").is_some());
        assert_eq!(reports[2].nulls.get("flaky").map(String::as_str), Some("empty summary"));
        // The two live rows were scored alone, once each.
        assert_eq!(singles.load(Ordering::SeqCst), 2);
    }

    /// Input records become complete rows: row number, id (even empty), system, input hash
    /// and run; a skipped record's row carries its reason and the run.
    #[test]
    fn records_become_complete_rows() {
        let scorer = Scorer::try_new(ScorerOptions { metrics: vec!["rougeL".into()], ..ScorerOptions::default() }).unwrap();
        let extras: crate::Extras = [("evidence".to_owned(), serde_json::json!("x"))].into_iter().collect();
        let records = [
            InputRecord { pair: Pair::new("a", "The drug worked.", "It worked.").with_extras(&extras), row: 3, system: Some("S") },
            InputRecord { pair: Pair::new("", "The drug worked.", ""), row: 4, system: None },
        ];
        let rows = scorer.score_records(&records);
        assert_eq!((rows[0].row, rows[0].id.as_deref(), rows[0].system.as_deref()), (Some(3), Some("a"), Some("S")));
        assert_eq!(rows[0].input_sha256.as_deref(), Some(input_sha256("The drug worked.", "It worked.", &extras).as_str()));
        assert_eq!(rows[0].run.as_deref(), Some(scorer.run()));
        assert!(rows[0].score("rougeL").is_some());
        assert_eq!((rows[1].row, rows[1].id.as_deref(), rows[1].system.as_deref()), (Some(4), Some(""), None));
        assert_eq!(rows[1].nulls.get("rougeL").map(String::as_str), Some("empty summary"));
        let skipped = scorer.skipped_row(5, None, "line 5: malformed JSON".into());
        assert_eq!((skipped.row, skipped.skipped.as_deref(), skipped.run.as_deref()), (Some(5), Some("line 5: malformed JSON"), Some(scorer.run())));
    }

    #[test]
    fn a_failed_batch_of_one_is_that_rows_error() {
        let scorer = Scorer::builder()
            .options(ScorerOptions { metrics: vec![], ..ScorerOptions::default() })
            .metric(Flaky { singles: Arc::default() })
            .build()
            .unwrap();
        let r = scorer.score("The drug worked.", "It worked.");
        assert_eq!(r.errors[0].message, "metric `flaky` failed: tensor shape mismatch");
        assert_eq!(r.nulls.get("flaky").map(String::as_str), Some("metric failed (see errors)"));
    }

    #[test]
    fn added_metrics_may_not_clash() {
        static CLASH: MetricInfo = MetricInfo::new(
            "my_rouge",
            "clashes",
            "none",
            &[ColumnInfo::new("rougeL_recall", "x", Direction::HigherIsBetter).primary()],
        );
        struct Clash;
        impl Metric for Clash {
            fn info(&self) -> &'static MetricInfo {
                &CLASH
            }
            fn provenance(&self) -> serde_json::Value {
                serde_json::Value::Null
            }
            fn score(&self, _: &Pair<'_>) -> Result<MetricOutput> {
                Ok(MetricOutput::default())
            }
        }
        let e = Scorer::builder().metric(Clash).build().unwrap_err().to_string();
        assert_eq!(
            e,
            "metric `my_rouge` cannot be added: column `rougeL_recall` is already written by metric `rougeL`"
        );
        let e = Scorer::builder()
            .options(ScorerOptions { metrics: vec![], ..ScorerOptions::default() })
            .metric(Flaky { singles: Arc::default() })
            .metric(Flaky { singles: Arc::default() })
            .build()
            .unwrap_err();
        assert!(matches!(e, Error::Duplicate { .. }), "{e}");
    }
}
