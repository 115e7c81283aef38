//! Markdown, CSV and JSON renderings of a [`MetaEvalResult`], and atomic
//! file output.

use std::fmt::Write as _;
use std::path::Path;

use factpico_stats::{ConfidenceInterval, Level};

use crate::direction::{Direction, DirectionSource};
use crate::error::{Error, Result};
use crate::evaluate::{Cell, LevelNull, MetaEvalResult};

/// An output format of the tables.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OutputFormat {
    /// GitHub-flavoured Markdown tables with captions.
    Md,
    /// One CSV row per (level, metric, aspect), full precision.
    Csv,
    /// The whole result as pretty JSON.
    Json,
}

impl OutputFormat {
    /// File extension.
    pub fn extension(self) -> &'static str {
        match self {
            OutputFormat::Md => "md",
            OutputFormat::Csv => "csv",
            OutputFormat::Json => "json",
        }
    }

    /// Parses a comma-separated list (`md,csv,json`).
    ///
    /// # Errors
    /// [`Error::InvalidOption`] for an unknown name or an empty list.
    pub fn parse_list(s: &str) -> Result<Vec<OutputFormat>> {
        let mut out = Vec::new();
        for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let f = match part.to_ascii_lowercase().as_str() {
                "md" | "markdown" => OutputFormat::Md,
                "csv" => OutputFormat::Csv,
                "json" => OutputFormat::Json,
                other => {
                    return Err(Error::InvalidOption {
                        option: "formats",
                        message: format!("unknown format `{other}` (use md, csv, json)"),
                    })
                }
            };
            if !out.contains(&f) {
                out.push(f);
            }
        }
        if out.is_empty() {
            return Err(Error::InvalidOption { option: "formats", message: "no format given".into() });
        }
        Ok(out)
    }
}

/// Renders `result` in `format`.
///
/// # Errors
/// [`Error::InvalidOption`] never; JSON/CSV serialisation failures are
/// reported as [`Error::Json`]/[`Error::Csv`] with an empty path.
pub fn render(result: &MetaEvalResult, format: OutputFormat) -> Result<String> {
    match format {
        OutputFormat::Md => Ok(markdown(result)),
        OutputFormat::Csv => csv_table(result),
        OutputFormat::Json => serde_json::to_string_pretty(result)
            .map(|mut s| {
                s.push('\n');
                s
            })
            .map_err(|e| Error::Json { path: "<output>".into(), line: 0, message: e.to_string() }),
    }
}

/// Writes `contents` to `path` atomically ([`factpico_io::write_atomic`]: a fresh temporary
/// file in the same directory, created exclusively, synced, then renamed over `path`).
///
/// # Errors
/// [`Error::Output`].
pub fn write_atomic(path: &Path, contents: &[u8]) -> Result<()> {
    Ok(factpico_io::write_atomic(path, contents)?)
}

/// A number with 3 decimals (`—` for a null; never `-0.000`).
pub fn f3(v: Option<f64>) -> String {
    match v {
        None => "—".into(),
        Some(x) => {
            let s = format!("{x:.3}");
            if s == "-0.000" {
                "0.000".into()
            } else {
                s
            }
        }
    }
}

fn fmt_p(p: Option<f64>) -> String {
    match p {
        Some(p) if p < 0.001 => "<0.001".into(),
        other => f3(other),
    }
}

/// ε in metric units: 4 significant digits.
fn fmt_eps(e: Option<f64>) -> String {
    match e {
        None => "—".into(),
        Some(0.0) => "0".into(),
        // differences of equal values up to floating-point rounding
        Some(e) if e.abs() < 1e-9 => "≈0".into(),
        Some(e) if e.abs() < 1e-3 => format!("{e:.3e}"),
        Some(e) => {
            let digits = (3 - e.abs().log10().floor() as i32).clamp(0, 6) as usize;
            format!("{e:.digits$}")
        }
    }
}

fn with_ci(v: Option<f64>, ci: Option<&ConfidenceInterval>) -> String {
    match ci {
        Some(c) if c.lower.is_some() => format!("{} [{}, {}]", f3(v), f3(c.lower), f3(c.upper)),
        _ => f3(v),
    }
}

fn level_name(l: Level) -> &'static str {
    match l {
        Level::Instance => "instance",
        Level::System => "system",
    }
}

fn code_list(v: &[String]) -> String {
    v.iter().map(|s| format!("`{s}`")).collect::<Vec<_>>().join(", ")
}

fn caption(r: &MetaEvalResult, level: Level) -> String {
    let negated: Vec<String> =
        r.directions.iter().filter(|d| d.direction == Direction::LowerIsBetter).map(|d| d.metric.clone()).collect();
    let negated_aspects: Vec<String> = r
        .aspects
        .iter()
        .filter(|a| crate::evaluate::aspect_direction(&r.options, a) == Direction::LowerIsBetter)
        .cloned()
        .collect();
    let mut s = String::new();
    match level {
        Level::Instance => {
            let _ = write!(s, "Agreement over the joined rows (one per summary). ");
        }
        Level::System => {
            let _ = write!(s, "Agreement over the per-system means of metric and human scores. ");
        }
    }
    match (negated.is_empty(), negated_aspects.is_empty()) {
        (true, true) => s.push_str(
            "All metrics and aspects are higher-is-better, so a positive τ_b / ρ / r means agreement with the experts. ",
        ),
        (false, true) => {
            let _ = write!(
                s,
                "Lower-is-better metrics ({}) were negated first, so a positive τ_b / ρ / r always means agreement with the experts. ",
                code_list(&negated)
            );
        }
        (true, false) => {
            let _ = write!(
                s,
                "Lower-is-better human aspects ({}) were negated first, so a positive τ_b / ρ / r always means agreement with the experts. ",
                code_list(&negated_aspects)
            );
        }
        (false, false) => {
            let _ = write!(
                s,
                "Lower-is-better metrics ({}) and human aspects ({}) were negated first, so a positive τ_b / ρ / r always means agreement with the experts. ",
                code_list(&negated),
                code_list(&negated_aspects)
            );
        }
    }
    s.push_str(
        "τ_b: Kendall tau-b, p: its two-sided p-value (scipy's method choice); ρ: Spearman; r: Pearson; \
         acc_eq: tie-calibrated pairwise accuracy (Deutsch et al., 2023) at the optimal metric tie threshold ε \
         (metric units; ≈0: zero up to floating-point rounding); base: the acc_eq of a constant metric, i.e. the share of pairs the experts tie (a tie-free metric ordering pairs at random expects (1 − base)/2; a useful metric beats both); n: complete rows (systems at system level); excl.: rows with a missing metric or human value.",
    );
    if let Some(b) = &r.options.bootstrap {
        let _ = write!(
            s,
            " Brackets: {:.0}% percentile bootstrap intervals, resampling items (B = {}, seed {}).",
            b.confidence_level * 100.0,
            b.n_resamples,
            b.seed
        );
    }
    s
}

/// The pairwise accuracy of a constant metric on the same data: the share
/// of pairs tied by the experts (`ties_x_only + ties_both` over all pairs;
/// human ties do not depend on ε).
pub fn tie_baseline(a: &factpico_stats::PairwiseAccuracy) -> Option<f64> {
    let c = a.counts?;
    (a.n_pairs > 0).then(|| (c.ties_x_only + c.ties_both) as f64 / a.n_pairs as f64)
}

fn cell_row(c: &Cell) -> String {
    let iv = c.intervals.as_ref();
    match &c.stats {
        Some(st) => format!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            c.metric,
            c.aspect,
            c.n,
            c.n_excluded,
            with_ci(st.kendall_tau_b.statistic, iv.map(|i| &i.kendall_tau_b)),
            fmt_p(st.kendall_tau_b.p_value),
            with_ci(st.spearman_rho.statistic, iv.map(|i| &i.spearman_rho)),
            with_ci(st.pearson_r.statistic, iv.map(|i| &i.pearson_r)),
            with_ci(st.pairwise_accuracy.accuracy, iv.map(|i| &i.pairwise_accuracy)),
            fmt_eps(st.pairwise_accuracy.epsilon),
            f3(tie_baseline(&st.pairwise_accuracy)),
        ),
        None => format!("| {} | {} | {} | {} | — | — | — | — | — | — | — |", c.metric, c.aspect, c.n, c.n_excluded),
    }
}

fn null_notes(cells: &[&Cell]) -> Vec<String> {
    let mut notes: Vec<String> = Vec::new();
    for c in cells {
        if let Some(st) = &c.stats {
            for (name, reason) in [
                ("τ_b", st.kendall_tau_b.null_reason),
                ("ρ", st.spearman_rho.null_reason),
                ("r", st.pearson_r.null_reason),
                ("acc_eq", st.pairwise_accuracy.null_reason),
            ] {
                if let Some(reason) = reason {
                    notes.push(format!("`{}` × `{}`: {name} is null: {reason}.", c.metric, c.aspect));
                }
            }
        }
    }
    notes
}

/// `1234567` as `1,234,567`.
fn thousands(n: usize) -> String {
    let d = n.to_string();
    let mut out = String::new();
    for (i, ch) in d.chars().enumerate() {
        if i > 0 && (d.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

/// The note of a cell whose tie-calibrated pairwise accuracy was computed on a random sample
/// ([`factpico_stats::PairwiseAccuracy::sampled_from`]), e.g. "`rougeL` × `human`: acc_eq, ε
/// and base on a random sample of 20,000 of 1,000,000 observations …"; `None` when exact.
pub fn sampled_note(c: &Cell) -> Option<String> {
    let pa = c.stats?.pairwise_accuracy;
    let from = pa.sampled_from?;
    Some(format!(
        "`{}` × `{}`: pairwise accuracy (acc_eq, ε, base) on a random sample of {} of {} observations \
         (above {} the exact O(n²) calibration is not run; the sample is seeded and drawn from the same rows for every metric)",
        c.metric,
        c.aspect,
        thousands(pa.n),
        thousands(from),
        thousands(factpico_stats::MAX_CALIBRATION_N)
    ))
}

/// The Markdown report: inputs, one table per level, the distribution KL
/// table and (with systems) the per-system means.
pub fn markdown(r: &MetaEvalResult) -> String {
    let mut s = String::new();
    let j = &r.join;
    let _ = writeln!(s, "**Inputs.** scores: `{}` ({} rows", r.inputs.scores, j.scores_rows);
    s.pop();
    if j.scores_dropped > 0 {
        let _ = write!(s, "; {} unreadable rows without an id dropped", j.scores_dropped);
    }
    if j.scores_skipped > 0 {
        let _ = write!(s, "; {} skipped rows kept with missing scores", j.scores_skipped);
    }
    let _ = write!(
        s,
        "), ratings: `{}` ({} rows); joined on `{}` = `{}`",
        r.inputs.ratings, j.ratings_rows, r.inputs.scores_id, r.inputs.ratings_id
    );
    if j.key_includes_system {
        if let Some(c) = &j.system_column {
            let _ = write!(s, " and `{c}`");
        }
    }
    let _ = write!(s, ": {} rows, {} items, ", j.joined, r.n_items);
    match &j.system_column {
        Some(c) => {
            let _ = write!(s, "{} systems (column `{c}`).", r.n_systems);
        }
        None => s.push_str("no system column."),
    }
    if j.scores_only + j.ratings_only > 0 {
        let side = |n: usize, ex: &[String], what: &str| {
            if n == 0 {
                format!("0 {what} rows")
            } else {
                format!("{n} {what} rows (e.g. {})", ex.join(", "))
            }
        };
        let _ = write!(
            s,
            " Not joined (missing ids allowed): {}, {}.",
            side(j.scores_only, &j.scores_only_examples, "scores"),
            side(j.ratings_only, &j.ratings_only_examples, "ratings")
        );
    }
    s.push_str("\n\n**Directions.** ");
    let dirs: Vec<String> = r
        .directions
        .iter()
        .map(|d| {
            let src = match d.source {
                DirectionSource::Override => "override",
                DirectionSource::Registry => "registry",
                DirectionSource::Assumed => "assumed: not in the registry",
            };
            format!("`{}` {}-is-better ({src})", d.metric, d.direction.word())
        })
        .collect();
    s.push_str(&dirs.join(", "));
    let low_aspects: Vec<String> = r
        .aspects
        .iter()
        .filter(|a| crate::evaluate::aspect_direction(&r.options, a) == Direction::LowerIsBetter)
        .cloned()
        .collect();
    if !low_aspects.is_empty() {
        let _ = write!(s, "; human aspects where lower is better: {}", code_list(&low_aspects));
    }
    s.push_str(".\n\n**Missing values.** ");
    let missing: Vec<String> = r
        .metrics
        .iter()
        .chain(&r.aspects)
        .filter_map(|c| {
            let m = j.missing.get(c)?;
            (m.n_missing > 0).then(|| {
                let why: Vec<String> = m.reasons.iter().map(|(k, v)| format!("{k} ×{v}")).collect();
                format!("`{c}` {} ({})", m.n_missing, why.join("; "))
            })
        })
        .collect();
    if missing.is_empty() {
        s.push_str("none.\n");
    } else {
        let _ = writeln!(s, "{}; such rows are excluded pairwise.", missing.join(", "));
    }

    for level in r.options.levels.list() {
        let cells: Vec<&Cell> = r.cells.iter().filter(|c| c.level == level).collect();
        let title = match level {
            Level::Instance => "Instance level",
            Level::System => "System level",
        };
        let _ = writeln!(s, "\n#### {title}\n");
        let all_null = cells.iter().all(|c| c.stats.is_none());
        if all_null {
            let reasons: std::collections::BTreeSet<String> =
                cells.iter().filter_map(|c| c.null.as_ref().map(LevelNull::to_string)).collect();
            let _ = writeln!(s, "Not computed: {}.", reasons.into_iter().collect::<Vec<_>>().join("; "));
            continue;
        }
        let _ = writeln!(s, "{}\n", caption(r, level));
        s.push_str("| metric | aspect | n | excl. | τ_b | p(τ_b) | ρ | r | acc_eq | ε | base |\n");
        s.push_str("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for c in &cells {
            let _ = writeln!(s, "{}", cell_row(c));
        }
        let mut notes = null_notes(&cells);
        notes.extend(cells.iter().filter_map(|c| sampled_note(c)));
        for c in &cells {
            if let Some(n) = &c.null {
                notes.push(format!("`{}` × `{}`: not computed: {n}.", c.metric, c.aspect));
            }
        }
        if !notes.is_empty() {
            s.push('\n');
            for n in notes {
                let _ = writeln!(s, "* {n}");
            }
        }
    }

    if !r.kl.is_empty() {
        s.push_str("\n#### Score distributions (FactPICO Appendix G)\n\n");
        let human = match r.options.human_range {
            Some((lo, hi)) => format!("human scores from their declared scale [{lo}, {hi}]"),
            None => "human scores from their observed range".into(),
        };
        let _ = writeln!(
            s,
            "Each score set is direction-adjusted and min–max normalised onto [0, 1] ({human}; metric scores from their \
             observed range), a normal distribution is fitted to each (μ, σ by maximum likelihood), and \
             KL(N_human ‖ N_metric) is given in nats: 0 = identical fits, larger = the metric's score distribution \
             differs more from the experts'.\n"
        );
        s.push_str("| metric | aspect | n | KL | μ_human | σ_human | μ_metric | σ_metric |\n");
        s.push_str("|---|---|---:|---:|---:|---:|---:|---:|\n");
        for k in &r.kl {
            let h = k.kl.human_fit;
            let m = k.kl.metric_fit;
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {} | {} | {} | {} |",
                k.metric,
                k.aspect,
                k.kl.n,
                f3(k.kl.kl),
                f3(h.map(|f| f.mean)),
                f3(h.map(|f| f.sd)),
                f3(m.map(|f| f.mean)),
                f3(m.map(|f| f.sd))
            );
        }
    }

    if !r.system_means.is_empty() {
        s.push_str("\n#### Per-system means\n\n");
        s.push_str("Means on each column's own scale (not negated).\n\n");
        let systems: Vec<String> = {
            let mut v: Vec<String> =
                r.system_means.iter().flat_map(|m| m.means.iter().map(|x| x.system.clone())).collect();
            v.sort();
            v.dedup();
            v
        };
        let mut header = String::from("| system |");
        let mut rule = String::from("|---|");
        for m in &r.metrics {
            let _ = write!(header, " {m} |");
            rule.push_str("---:|");
        }
        for a in &r.aspects {
            let _ = write!(header, " {a} |");
            rule.push_str("---:|");
        }
        let _ = writeln!(s, "{header}\n{rule}");
        let first_aspect = r.aspects.first();
        let first_metric = r.metrics.first();
        for sys in &systems {
            let mut row = format!("| {sys} |");
            for m in &r.metrics {
                let v = r
                    .system_means
                    .iter()
                    .find(|x| &x.metric == m && Some(&x.aspect) == first_aspect)
                    .and_then(|x| x.means.iter().find(|y| &y.system == sys))
                    .map(|y| y.metric_mean);
                let _ = write!(row, " {} |", f3(v));
            }
            for a in &r.aspects {
                let v = r
                    .system_means
                    .iter()
                    .find(|x| &x.aspect == a && Some(&x.metric) == first_metric)
                    .and_then(|x| x.means.iter().find(|y| &y.system == sys))
                    .map(|y| y.human_mean);
                let _ = write!(row, " {} |", f3(v));
            }
            let _ = writeln!(s, "{row}");
        }
        s.push_str("\nMeans are over the rows where both the metric and the aspect are present (first aspect / first metric for the respective columns).\n");
    }
    s
}

fn opt(v: Option<f64>) -> String {
    v.map(|x| x.to_string()).unwrap_or_default()
}

/// The long-format CSV: one row per (level, metric, aspect), full precision,
/// empty cells for nulls.
///
/// # Errors
/// [`Error::Csv`] on a serialisation failure (not expected).
pub fn csv_table(r: &MetaEvalResult) -> Result<String> {
    let err = |e: csv::Error| Error::Csv { path: "<output>".into(), message: e.to_string() };
    let mut w = csv::WriterBuilder::new().terminator(csv::Terminator::Any(b'\n')).from_writer(Vec::new());
    let mut header = vec![
        "level", "metric", "aspect", "direction", "n", "n_excluded", "kendall_tau_b", "kendall_p", "spearman_rho",
        "spearman_p", "pearson_r", "pearson_p", "acc_eq", "acc_eq_epsilon", "acc_eq_tie_baseline",
    ];
    let boot = r.options.bootstrap.is_some();
    if boot {
        header.extend([
            "kendall_tau_b_lo",
            "kendall_tau_b_hi",
            "spearman_rho_lo",
            "spearman_rho_hi",
            "pearson_r_lo",
            "pearson_r_hi",
            "acc_eq_lo",
            "acc_eq_hi",
        ]);
    }
    header.extend(["kl", "null_reason"]);
    w.write_record(&header).map_err(err)?;
    for c in &r.cells {
        let st = c.stats.as_ref();
        let mut rec = vec![
            level_name(c.level).to_owned(),
            c.metric.clone(),
            c.aspect.clone(),
            c.direction.word().to_owned(),
            c.n.to_string(),
            c.n_excluded.to_string(),
            opt(st.and_then(|s| s.kendall_tau_b.statistic)),
            opt(st.and_then(|s| s.kendall_tau_b.p_value)),
            opt(st.and_then(|s| s.spearman_rho.statistic)),
            opt(st.and_then(|s| s.spearman_rho.p_value)),
            opt(st.and_then(|s| s.pearson_r.statistic)),
            opt(st.and_then(|s| s.pearson_r.p_value)),
            opt(st.and_then(|s| s.pairwise_accuracy.accuracy)),
            opt(st.and_then(|s| s.pairwise_accuracy.epsilon)),
            opt(st.and_then(|s| tie_baseline(&s.pairwise_accuracy))),
        ];
        if boot {
            let iv = c.intervals.as_ref();
            for ci in [
                iv.map(|i| i.kendall_tau_b),
                iv.map(|i| i.spearman_rho),
                iv.map(|i| i.pearson_r),
                iv.map(|i| i.pairwise_accuracy),
            ] {
                rec.push(opt(ci.and_then(|c| c.lower)));
                rec.push(opt(ci.and_then(|c| c.upper)));
            }
        }
        let kl = if c.level == Level::Instance {
            r.kl.iter().find(|k| k.metric == c.metric && k.aspect == c.aspect).and_then(|k| k.kl.kl)
        } else {
            None
        };
        rec.push(opt(kl));
        let mut reasons: Vec<String> = c.null.iter().map(ToString::to_string).collect();
        if let Some(st) = st {
            for (name, reason) in [
                ("kendall_tau_b", st.kendall_tau_b.null_reason),
                ("spearman_rho", st.spearman_rho.null_reason),
                ("pearson_r", st.pearson_r.null_reason),
                ("acc_eq", st.pairwise_accuracy.null_reason),
            ] {
                if let Some(reason) = reason {
                    reasons.push(format!("{name}: {reason}"));
                }
            }
        }
        rec.push(reasons.join("; "));
        w.write_record(&rec).map_err(err)?;
    }
    let bytes = w.into_inner().map_err(|e| Error::Csv { path: "<output>".into(), message: e.to_string() })?;
    String::from_utf8(bytes).map_err(|e| Error::Csv { path: "<output>".into(), message: e.to_string() })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;

    #[test]
    fn number_formats() {
        assert_eq!(f3(Some(-0.0001)), "0.000");
        assert_eq!(f3(None), "—");
        assert_eq!(fmt_p(Some(0.0004)), "<0.001");
        assert_eq!(fmt_eps(Some(0.0)), "0");
        assert_eq!(fmt_eps(Some(0.012345)), "0.01235");
        assert_eq!(fmt_eps(Some(2.7e-17)), "≈0");
        assert_eq!(fmt_eps(Some(2.7e-7)), "2.700e-7");
        assert_eq!(fmt_eps(Some(0.0001159)), "1.159e-4");
        assert_eq!(fmt_eps(Some(1.5)), "1.500");
        assert_eq!(fmt_eps(Some(123.4)), "123.4");
    }

    #[test]
    fn format_lists() {
        assert_eq!(OutputFormat::parse_list("md, json,md").unwrap(), vec![OutputFormat::Md, OutputFormat::Json]);
        assert!(OutputFormat::parse_list("md,xml").is_err());
        assert!(OutputFormat::parse_list(" ").is_err());
    }

    #[test]
    fn atomic_write_replaces_and_leaves_no_temp() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("sub").join("t.md");
        write_atomic(&p, b"one").unwrap();
        write_atomic(&p, b"two").unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "two");
        let n = std::fs::read_dir(p.parent().unwrap()).unwrap().count();
        assert_eq!(n, 1);
    }
}
