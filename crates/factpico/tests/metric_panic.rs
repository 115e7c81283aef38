//! A metric that panics never takes the run down (issue 10): the panic becomes a documented
//! null of that metric's columns on the row(s) it panicked on, with a warning naming the
//! panic; the other rows of that metric and every other metric keep their values.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use factpico::{ColumnInfo, Direction, Metric, MetricInfo, MetricOutput, Pair, Scorer, ScorerOptions};

static BOOM: MetricInfo = MetricInfo::new(
    "boom",
    "test metric that panics on summaries containing `boom`",
    "none (test)",
    &[
        ColumnInfo::new("boom_len", "summary length in bytes", Direction::HigherIsBetter).primary(),
        ColumnInfo::new("boom_words", "summary words", Direction::HigherIsBetter),
    ],
);

/// Panics on a summary containing "boom" (in `score`, so the default `score_batch` panics
/// inside rayon's parallel iterator, as a real metric's bug would).
struct Boom;

impl Metric for Boom {
    fn info(&self) -> &'static MetricInfo {
        &BOOM
    }
    fn provenance(&self) -> serde_json::Value {
        serde_json::json!({})
    }
    fn score(&self, pair: &Pair<'_>) -> factpico::Result<MetricOutput> {
        if pair.summary.contains("boom") {
            let v: Vec<u32> = Vec::new();
            // An index out of bounds, as a metric's bug would panic.
            let _ = v[pair.summary.len()];
        }
        let mut out = MetricOutput::default();
        out.set("boom_len", pair.summary.len() as f64);
        out.set("boom_words", pair.summary.split_whitespace().count() as f64);
        Ok(out)
    }
}

static BATCH_BOOM: MetricInfo = MetricInfo::new(
    "batch_boom",
    "test metric whose batch panics",
    "none (test)",
    &[ColumnInfo::new("batch_boom", "summary length", Direction::HigherIsBetter).primary()],
);

/// Its batch panics whenever it holds more than one pair; alone, each row scores.
struct BatchBoom;

impl Metric for BatchBoom {
    fn info(&self) -> &'static MetricInfo {
        &BATCH_BOOM
    }
    fn provenance(&self) -> serde_json::Value {
        serde_json::json!({})
    }
    fn score(&self, pair: &Pair<'_>) -> factpico::Result<MetricOutput> {
        let mut out = MetricOutput::default();
        out.set("batch_boom", pair.summary.len() as f64);
        Ok(out)
    }
    fn score_batch(&self, pairs: &[Pair<'_>]) -> factpico::Result<Vec<factpico::Result<MetricOutput>>> {
        assert!(pairs.len() <= 1, "batch of {} pairs: padding bug", pairs.len());
        Ok(pairs.iter().map(|p| self.score(p)).collect())
    }
}

fn scorer() -> Scorer {
    Scorer::builder()
        .options(ScorerOptions { metrics: vec!["rougeL".into()], ..ScorerOptions::default() })
        .metric(Boom)
        .metric(BatchBoom)
        .build()
        .unwrap()
}

const SOURCE: &str = "The trial enrolled 240 adults with asthma.";

#[test]
fn a_panicking_metric_gives_documented_nulls_on_its_rows_and_keeps_everything_else() {
    let s = scorer();
    let pairs = [
        Pair::new("a", SOURCE, "It enrolled 240 adults."),
        Pair::new("b", SOURCE, "It went boom with 240 adults."),
        Pair::new("c", SOURCE, "Adults with asthma took part."),
    ];
    let reports = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| s.score_pairs(&pairs)))
        .expect("a metric's panic must not unwind out of Scorer::score_pairs");
    assert_eq!(reports.len(), 3);
    // Every row keeps ROUGE-L, and the rows the metric did not panic on keep its values.
    for r in &reports {
        assert!(r.score("rougeL").is_some(), "{r:?}");
        assert!(r.errors.is_empty(), "a panic is a documented null, not an error: {:?}", r.errors);
        assert_eq!(r.score("batch_boom"), Some(r_summary_len(r, &pairs)), "row-by-row fallback keeps values: {r:?}");
    }
    assert_eq!(reports[0].score("boom_len"), Some(23.0));
    assert_eq!(reports[2].score("boom_words"), Some(5.0));
    // The row it panicked on: both columns null with the panic's reason, and a warning.
    let b = &reports[1];
    for col in ["boom_len", "boom_words"] {
        assert!(b.scores.contains_key(col) && b.score(col).is_none(), "{col} is a null column: {b:?}");
        let why = b.nulls.get(col).unwrap_or_else(|| panic!("{col} has a null reason: {b:?}"));
        assert!(why.contains("panicked"), "{col}: {why}");
    }
    assert!(
        b.warnings
            .iter()
            .any(|w| w.metric == "boom" && w.message.contains("panicked") && w.message.contains("index out of bounds")),
        "a warning names the panic: {:?}",
        b.warnings
    );
    // The batch panic is recorded on each row scored alone.
    for r in &reports {
        assert!(
            r.warnings.iter().any(|w| w.metric == "batch_boom" && w.message.contains("padding bug")),
            "{:?}",
            r.warnings
        );
    }
}

#[test]
fn a_panic_on_a_single_pair_is_a_documented_null() {
    let s = scorer();
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| s.score(SOURCE, "boom")))
        .expect("a metric's panic must not unwind out of Scorer::score");
    assert!(r.score("rougeL").is_some());
    assert!(r.score("boom_len").is_none());
    assert!(r.nulls.get("boom_len").is_some_and(|n| n.contains("panicked")), "{r:?}");
    assert_eq!(r.score("batch_boom"), Some(4.0));
}

fn r_summary_len(r: &factpico::Report, pairs: &[Pair<'_>]) -> f64 {
    let id = r.id.as_deref().unwrap();
    pairs.iter().find(|p| p.id == id).unwrap().summary.len() as f64
}
