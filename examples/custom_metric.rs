//! Adds a metric implemented outside factpico to a `Scorer`, next to built-in metrics, and
//! scores the bundled fixtures.
//!
//! The metric, `numbers_supported`, is a toy numeric-faithfulness check: the fraction of the
//! numbers in the summary (240, 0.64, 12, ...) that also occur in the abstract. RCT summaries
//! that change a sample size or an effect size score below 1.
//!
//! Run: `cargo run --example custom_metric [PAIRS.jsonl]` (default `fixtures/pairs.jsonl`).
use std::collections::BTreeMap;

use factpico::{ColumnInfo, Direction, Metric, MetricInfo, MetricOutput, Pair, Scorer, ScorerOptions};

/// Registry entry of the custom metric: name, description, reference, columns.
static NUMBERS: MetricInfo = MetricInfo::new(
    "numbers_supported",
    "fraction of the summary's numbers that occur in the abstract",
    "none (example metric in examples/custom_metric.rs)",
    &[
        ColumnInfo::new(
            "numbers_supported",
            "numbers of the summary found in the abstract / numbers of the summary",
            Direction::HigherIsBetter,
        )
        .range(Some(0.0), Some(1.0))
        .primary(),
        ColumnInfo::new("numbers_in_summary", "numbers in the summary", Direction::HigherIsBetter),
    ],
);

/// Numbers of a text as written (`240`, `0.64`, `12`), with thousands separators dropped.
fn numbers(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let chars: Vec<char> = text.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        let inner_sep = (c == '.' || c == ',') && !cur.is_empty() && chars.get(i + 1).is_some_and(char::is_ascii_digit);
        if c.is_ascii_digit() || inner_sep {
            if c != ',' {
                cur.push(c);
            }
        } else if !cur.is_empty() {
            out.push(std::mem::take(&mut cur));
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

struct NumbersSupported;

impl Metric for NumbersSupported {
    fn info(&self) -> &'static MetricInfo {
        &NUMBERS
    }

    fn provenance(&self) -> serde_json::Value {
        serde_json::json!({ "version": 1, "tokenisation": "ASCII digit runs with inner . or , (commas dropped)" })
    }

    fn score(&self, pair: &Pair<'_>) -> factpico::Result<MetricOutput> {
        let in_source = numbers(pair.source);
        let in_summary = numbers(pair.summary);
        let unsupported: Vec<&String> = in_summary.iter().filter(|n| !in_source.contains(n)).collect();
        let mut out = MetricOutput::default();
        out.set("numbers_in_summary", in_summary.len() as f64);
        if in_summary.is_empty() {
            out.set_null("numbers_supported", "the summary has no number");
        } else {
            out.set("numbers_supported", 1.0 - unsupported.len() as f64 / in_summary.len() as f64);
        }
        out.detail = Some(serde_json::json!({ "summary_numbers": in_summary, "unsupported": unsupported }));
        Ok(out)
    }
}

/// Scores the pairs of a JSONL file (`id`, `system`, `source`, `summary`) with ROUGE-L, FKGL
/// and the custom metric; returns `(system, report)` per row.
pub fn score_file(path: &str) -> Result<Vec<(String, factpico::Report)>, Box<dyn std::error::Error>> {
    let scorer = Scorer::builder()
        .options(ScorerOptions { metrics: vec!["rougeL".into(), "fkgl".into()], ..ScorerOptions::default() })
        .metric(NumbersSupported)
        .build()?;
    println!("columns: {}", scorer.columns().join(", "));
    // The custom metric's provenance is recorded once for the run (each row's `run` is its hash).
    println!("provenance: {} (run {})", scorer.provenance().metrics["numbers_supported"], scorer.run());
    let rows: Vec<serde_json::Value> = std::fs::read_to_string(path)?
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(serde_json::from_str)
        .collect::<Result<_, _>>()?;
    let field = |r: &serde_json::Value, k: &str| r[k].as_str().unwrap_or_default().to_owned();
    let texts: Vec<(String, String, String)> =
        rows.iter().map(|r| (field(r, "id"), field(r, "source"), field(r, "summary"))).collect();
    let pairs: Vec<Pair<'_>> = texts.iter().map(|(id, s, m)| Pair::new(id, s, m)).collect();
    let reports = scorer.score_pairs(&pairs);
    Ok(rows.iter().map(|r| field(r, "system")).zip(reports).collect())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args().nth(1).unwrap_or_else(|| "fixtures/pairs.jsonl".into());
    let scored = score_file(&path)?;
    let mut per_system: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    for (system, r) in &scored {
        let shown = |c: &str| r.score(c).map_or_else(|| "null".to_owned(), |v| format!("{v:.3}"));
        println!(
            "{:>6} {:<11} numbers_supported={:<6} rougeL={} unsupported={}",
            r.id.as_deref().unwrap_or("?"),
            system,
            shown("numbers_supported"),
            shown("rougeL"),
            r.details["numbers_supported"]["unsupported"]
        );
        if let Some(v) = r.score("numbers_supported") {
            per_system.entry(system.clone()).or_default().push(v);
        }
    }
    for (system, v) in &per_system {
        println!(
            "mean numbers_supported of {system}: {:.3} over {} rows",
            v.iter().sum::<f64>() / v.len() as f64,
            v.len()
        );
    }
    Ok(())
}
