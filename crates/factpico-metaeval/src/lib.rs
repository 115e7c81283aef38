//! Meta-evaluation of automatic metrics against expert ratings, as in
//! FactPICO (Joseph et al., ACL 2024): which metric agrees with medical
//! experts, per PICO element and overall?
//!
//! * [`Table`]: read a scores file (`factpico score` JSONL, or any
//!   CSV/TSV/JSON/JSONL with an id column and metric columns) and a ratings
//!   file (an id column and human aspect columns, optionally a system column).
//! * [`join()`]: join them on ids, with clear errors for ids that do not join
//!   (counts per side and examples; [`JoinOptions::allow_missing`] to proceed).
//! * [`evaluate()`]: for each metric column × human aspect, Kendall τ_b,
//!   Spearman ρ, Pearson r and tie-calibrated pairwise accuracy at the
//!   instance level (FactPICO Table 4) and over per-system means (Table 5;
//!   a documented null with fewer than 3 systems), optional seeded bootstrap
//!   intervals, and the KL divergence of Gaussian fits (Appendix G).
//!   Lower-is-better metrics (registry, or [`Direction`] overrides) are
//!   negated first, so positive always means agreement. All statistics come
//!   from `factpico-stats`.
//! * [`render`]: Markdown / CSV / JSON; [`write_atomic`] for output.
//! * [`plot`]: SVG and PNG scatter plots (Figure 2 style) and standardised
//!   distribution plots (Appendix G style), drawn with `plotters` and an
//!   embedded DejaVu Sans font (no system font library needed).
//! * [`kappa`]: Randolph's κ over an items × annotators file (Table 1).
//! * [`run()`]: the whole pipeline, as `factpico meta-eval` runs it;
//!   Its argument parser lives in the CLI crate (`factpico_cli::MetaEvalArgs`).

mod direction;
mod error;
mod evaluate;
pub mod join;
pub mod kappa;
pub mod plot;
mod render;
mod slim;
mod table;

use std::path::{Path, PathBuf};

pub use direction::{parse_overrides, registry_direction, resolve, Direction, DirectionSource, MetricDirection};
pub use error::{Error, Result, Side};
pub use evaluate::{aspect_direction, evaluate, Cell, CellIntervals, EvalOptions, Inputs, KlCell, LevelNull, Levels, MetaEvalResult, SystemMeans};
pub use factpico_stats::{BootstrapOptions, Level};
pub use join::{join, JoinOptions, JoinReport, Joined, Unjoined};
pub use render::{csv_table, f3, markdown, render, sampled_note, write_atomic, OutputFormat};
pub use table::{Format, Row, Table};

/// Everything [`run`] needs: inputs, join, evaluation, outputs, plots.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// Scores file.
    pub scores: PathBuf,
    /// Its format (default: from the extension).
    pub scores_format: Option<Format>,
    /// Ratings file.
    pub ratings: PathBuf,
    /// Its format (default: from the extension).
    pub ratings_format: Option<Format>,
    /// Metric columns of the scores file.
    pub metrics: Vec<String>,
    /// Human aspect columns of the ratings file.
    pub aspects: Vec<String>,
    /// How to join.
    pub join: JoinOptions,
    /// What to compute.
    pub eval: EvalOptions,
    /// Output formats written to `out_dir`.
    pub formats: Vec<OutputFormat>,
    /// Directory for `<stem>.md|csv|json`; `None`: write nothing (the
    /// caller prints [`RunOutput::markdown`]).
    pub out_dir: Option<PathBuf>,
    /// File stem of the outputs (default `meta-eval`).
    pub stem: String,
    /// Plots to draw, if any.
    pub plots: Option<plot::PlotOptions>,
}

/// What [`run`] produced.
#[derive(Debug, Clone)]
pub struct RunOutput {
    /// The full result.
    pub result: MetaEvalResult,
    /// The Markdown rendering.
    pub markdown: String,
    /// Files written (tables, then plots), in order.
    pub written: Vec<PathBuf>,
    /// The joined rows the result was computed from (for plots drawn later, e.g.
    /// [`plot::scatter_svg`]).
    pub joined: Joined,
}

fn file_name(p: &Path) -> String {
    p.file_name().map_or_else(|| p.display().to_string(), |n| n.to_string_lossy().into_owned())
}

/// Loads, joins, evaluates, renders and writes: the whole of
/// `factpico meta-eval`.
///
/// # Errors
/// Any [`Error`] of the steps.
pub fn run(opts: &RunOptions) -> Result<RunOutput> {
    // Only the columns the join reads are kept (a few numbers a row), and both files are
    // read row by row where their format allows (JSONL), so memory stays bounded.
    let sys_name = join::system_name(&opts.join);
    let joined = {
        let wanted = |id, numeric| slim::Wanted { id, system: &sys_name, numeric };
        let scores = slim::SlimTable::load(&opts.scores, Side::Scores, opts.scores_format, &wanted(&opts.join.scores_id, &opts.metrics))?;
        let ratings = slim::SlimTable::load(&opts.ratings, Side::Ratings, opts.ratings_format, &wanted(&opts.join.ratings_id, &opts.aspects))?;
        join::join_slim(&scores, &ratings, &opts.metrics, &opts.aspects, &opts.join)?
    };
    let mut result = evaluate(&joined, &opts.metrics, &opts.aspects, &opts.eval)?;
    result.inputs = Inputs {
        scores: file_name(&opts.scores),
        ratings: file_name(&opts.ratings),
        scores_id: opts.join.scores_id.clone(),
        ratings_id: opts.join.ratings_id.clone(),
    };
    let markdown = render::markdown(&result);
    let mut written = Vec::new();
    // Every output (tables and plots) is checked against the inputs and each other first.
    let mut targets: Vec<PathBuf> = match &opts.out_dir {
        Some(dir) => opts.formats.iter().map(|f| dir.join(format!("{}.{}", opts.stem, f.extension()))).collect(),
        None => Vec::new(),
    };
    if let Some(p) = &opts.plots {
        targets.extend(plot::planned_files(&result, p)?);
    }
    refuse_overwriting_inputs(&targets, &[&opts.scores, &opts.ratings])?;
    if let Some(dir) = &opts.out_dir {
        for &f in &opts.formats {
            let text = if f == OutputFormat::Md { markdown.clone() } else { render(&result, f)? };
            let path = dir.join(format!("{}.{}", opts.stem, f.extension()));
            write_atomic(&path, text.as_bytes())?;
            written.push(path);
        }
    }
    if let Some(p) = &opts.plots {
        written.extend(plot::draw_all(&joined, &result, p)?);
    }
    Ok(RunOutput { result, markdown, written, joined })
}

/// Refuses output paths that name one of the input files (the same file through any path:
/// compared after resolving symlinks and `..`), before anything is written.
///
/// # Errors
/// [`Error::InvalidOption`] (`out_dir`) naming the clashing input.
pub fn refuse_overwriting_inputs(targets: &[PathBuf], inputs: &[&Path]) -> Result<()> {
    // One guard for every factpico writer: same file through any path, symlink or hard link.
    let mut guard = factpico_io::PathGuard::new();
    for i in inputs {
        guard.input("the input", i);
    }
    for t in targets {
        if let Err(e) = guard.output(format!("the output {}", t.display()), t) {
            return Err(Error::InvalidOption {
                option: "out_dir",
                message: format!("{e}; choose another `stem`, `out_dir` or `plots`"),
            });
        }
    }
    Ok(())
}
