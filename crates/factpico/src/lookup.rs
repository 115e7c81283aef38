//! Lookups over the built-in metrics, the layer above the units: the registry (every unit's
//! [`MetricInfo`]s, from `units!`), name and column lookups, and the explanation of a row's
//! details by the unit that wrote them. `metric` and `explain` (below the units) hold the
//! types the units use and never reach back up.

use crate::explain::{nulls_of, ExplainBlock, MetricExplanation};
use crate::metric::{ColumnInfo, MetricInfo};
use crate::report::Report;

/// Every metric factpico knows, compiled in or not, in unit order.
pub fn registry() -> Vec<&'static MetricInfo> {
    crate::units::registry()
}

/// Looks up a metric by its `--metrics` name or one of its aliases (case-sensitive; e.g.
/// `rougel`, `rouge-l` and `rougeLsum` resolve to `rougeL`).
pub fn metric_info(name: &str) -> Option<&'static MetricInfo> {
    let name = name.trim();
    registry().into_iter().find(|m| m.name == name || m.aliases.contains(&name))
}

/// Looks up the column `name` in every registered metric.
pub fn column_info(name: &str) -> Option<(&'static MetricInfo, &'static ColumnInfo)> {
    registry().into_iter().find_map(|m| m.columns.iter().find(|c| c.name == name).map(|c| (m, c)))
}

/// Comma-separated names of all registered metrics (for error messages).
pub fn metric_names() -> String {
    registry().iter().map(|m| m.name).collect::<Vec<_>>().join(", ")
}

/// The explanation of metric `metric`'s `detail` (its entry of a row's `details`): the
/// unit's rendering for a registered metric, [`generic`] otherwise.
pub fn explain_metric(metric: &str, detail: &serde_json::Value) -> Vec<ExplainBlock> {
    crate::units::explain(metric, detail).unwrap_or_else(|| crate::explain::generic(detail))
}

/// Every metric of a row that wrote columns or details, explained: the registered metrics
/// in registry order, then others in name order.
pub fn explain_report(report: &Report) -> Vec<MetricExplanation> {
    let mut out = Vec::new();
    let mut covered = std::collections::BTreeSet::new();
    for info in registry() {
        let scores: Vec<(String, Option<f64>)> =
            info.columns.iter().filter_map(|c| report.scores.get(c.name).map(|v| (c.name.to_owned(), *v))).collect();
        let detail = report.details.get(info.name);
        if scores.is_empty() && detail.is_none() {
            continue;
        }
        for (c, _) in &scores {
            covered.insert(c.clone());
        }
        covered.insert(info.name.to_owned());
        out.push(MetricExplanation {
            metric: info.name.to_owned(),
            nulls: nulls_of(report, scores.iter().map(|(c, _)| c.as_str())),
            scores,
            blocks: detail.map(|d| explain_metric(info.name, d)).unwrap_or_default(),
        });
    }
    // Metrics outside the registry (added through the builder): their details by name, and
    // the remaining columns under the metric whose name prefixes them (else `other`).
    let others: Vec<&String> = report.details.keys().filter(|k| !covered.contains(*k)).collect();
    for name in others {
        let scores: Vec<(String, Option<f64>)> = report
            .scores
            .iter()
            .filter(|(c, _)| !covered.contains(*c) && c.starts_with(name.as_str()))
            .map(|(c, v)| (c.clone(), *v))
            .collect();
        for (c, _) in &scores {
            covered.insert(c.clone());
        }
        out.push(MetricExplanation {
            metric: name.clone(),
            nulls: nulls_of(report, scores.iter().map(|(c, _)| c.as_str())),
            scores,
            blocks: explain_metric(name, &report.details[name]),
        });
    }
    let rest: Vec<(String, Option<f64>)> =
        report.scores.iter().filter(|(c, _)| !covered.contains(*c)).map(|(c, v)| (c.clone(), *v)).collect();
    if !rest.is_empty() {
        out.push(MetricExplanation {
            metric: "other".into(),
            nulls: nulls_of(report, rest.iter().map(|(c, _)| c.as_str())),
            scores: rest,
            blocks: Vec::new(),
        });
    }
    out
}

