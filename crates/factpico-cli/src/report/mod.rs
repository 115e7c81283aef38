//! `factpico report`: one self-contained HTML page to read a score file.
//!
//! The page holds everything (styles, script, plots; no network): an overview (the
//! per-system table of `factpico score`, per-system distributions of each primary column,
//! and with `--ratings` the tables and scatter plots of `factpico meta-eval`), a sortable,
//! filterable list of rows, and one lazily rendered view per row (texts side by side with
//! sentence support shading, DAE arcs on their words, QA questions, every null, warning and
//! error).
//!
//! * [`texts`]: re-reads the scored input and checks each row's id and `input_sha256`, so the
//!   page never shows a text that was not the one scored.
//! * [`explain`]: the per-metric parts of a row view, converted from the explanation blocks
//!   every metric unit computes from the row's `details` JSON alone (`factpico::explain`).
//! * [`payload`]: the data embedded in the page (JSON, `<` escaped) and the UTF-16 offsets
//!   the script uses.
//! * [`page`]: the HTML (maud templates: every text escaped), CSS and script.

mod explain;
mod gather;
mod page;
mod payload;
mod texts;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use crate::input::InputArgs;
use crate::output;

/// Arguments of `factpico report`.
#[derive(Debug, clap::Args)]
#[command(after_help = "Example:\n  factpico score fixtures/pairs.jsonl -o pairs.scores.jsonl\n  \
    factpico report pairs.scores.jsonl --input fixtures/pairs.jsonl -o pairs.report.html")]
pub struct ReportArgs {
    /// Score file written by `factpico score` (JSONL).
    pub scores: PathBuf,
    /// Output HTML file (written atomically); `-` writes the page to standard output.
    /// Default: <scores stem>.report.html in the current directory.
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// The input that was scored, re-read for the texts with the same field options as
    /// `factpico score` (--format, --id-field, --source-field, ...; by default those the score
    /// file records, where it does). Each row's id and input_sha256 must match, or the report
    /// is refused. Without it the page has no texts.
    #[arg(long)]
    pub input: Option<PathBuf>,
    #[command(flatten)]
    pub fields: InputArgs,
    /// Expert ratings (CSV/TSV/JSON(L) with an id column and aspect columns): adds the
    /// meta-evaluation tables and scatter plots of `factpico meta-eval`.
    #[arg(long)]
    pub ratings: Option<PathBuf>,
    /// Id column of the ratings file.
    #[arg(long, alias = "ratings-id-field", default_value = "id")]
    pub ratings_id: String,
    /// Human aspect columns of the ratings file (required with --ratings), comma-separated.
    #[arg(long, value_delimiter = ',', requires = "ratings")]
    pub aspects: Vec<String>,
    /// Metric columns to meta-evaluate (default: the primary columns of the score file).
    #[arg(id = "metrics", long = "meta-metrics", value_name = "META_METRICS", value_delimiter = ',', requires = "ratings")]
    pub meta_metrics: Vec<String>,
    /// System column of the ratings (default: `system` where present); joins with the id.
    #[arg(long, requires = "ratings")]
    pub system_col: Option<String>,
    /// Evaluate the joined rows even when some ids occur in one file only.
    #[arg(long, requires = "ratings")]
    pub allow_missing: bool,
    /// Human aspects where lower is better, comma-separated.
    #[arg(id = "aspect_directions", long = "lower-is-better-aspects", value_name = "LOWER_IS_BETTER_ASPECTS", value_delimiter = ',', requires = "ratings")]
    pub lower_is_better_aspects: Vec<String>,
    /// Declared scale LO,HI of the human aspects (KL normalisation), e.g. 1,4.
    #[arg(long, value_parser = crate::meta_eval_args::parse_range, requires = "ratings")]
    pub human_range: Option<(f64, f64)>,
    /// Bootstrap resamples for 95% intervals of the meta-evaluation (0 = none, else >= 100).
    #[arg(long, default_value_t = 0, requires = "ratings")]
    pub bootstrap: usize,
    /// Seed of the bootstrap and of the scatter-plot jitter.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Rows the page holds in full (every row listed and openable). Above it the overview
    /// (per-system table, histograms, meta-evaluation) still counts every row, read in two
    /// streaming passes, but the list holds a selection: the first MAX_ROWS/2 rows, the
    /// worst-scoring rows of each primary column per system, and the first 100 rows with
    /// errors (docs/report.md). Memory grows with this number, not with the file.
    #[arg(long, default_value_t = gather::DEFAULT_MAX_ROWS, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(2..))]
    pub max_rows: usize,
    /// Page title (default: the score file's name).
    #[arg(long)]
    pub title: Option<String>,
    /// Print nothing but errors.
    #[arg(short, long)]
    pub quiet: bool,
}

/// Default output: `<scores stem>.report.html` in the current directory.
fn default_output(scores: &Path) -> PathBuf {
    let stem = scores.file_stem().map_or_else(|| "scores".into(), |s| s.to_string_lossy().into_owned());
    let stem = stem.strip_suffix(".scores").unwrap_or(&stem).to_owned();
    PathBuf::from(format!("{stem}.report.html"))
}

/// The columns present in the rows, in registry order (unknown columns after, by name),
/// with their registry description and direction.
fn columns_of(present: &BTreeSet<String>) -> Vec<payload::Column> {
    let mut present: BTreeSet<&str> = present.iter().map(String::as_str).collect();
    let mut out = Vec::new();
    for m in factpico::registry() {
        for c in m.columns {
            if present.remove(c.name) {
                out.push(payload::Column {
                    name: c.name.to_owned(),
                    description: c.description.to_owned(),
                    higher: c.direction == factpico::Direction::HigherIsBetter,
                    primary: c.primary,
                    metric: m.name.to_owned(),
                });
            }
        }
    }
    for name in present {
        out.push(payload::Column {
            name: name.to_owned(),
            description: "not in the metric registry of this factpico".into(),
            higher: true,
            primary: false,
            metric: String::new(),
        });
    }
    out
}

/// The per-system table's columns for these rows: those `factpico score` printed, as the
/// file's provenance records them (`summary_columns`); for files written before it did (or
/// without their provenance file), the primary columns of the registry metrics that produced
/// the rows.
fn primary_columns(present: &BTreeSet<String>, provenance: Option<&factpico::Provenance>) -> Vec<String> {
    if let Some(cols) = provenance.and_then(|p| p.summary_columns.as_ref()) {
        return cols.clone();
    }
    let has = |col: &str| present.contains(col);
    factpico::registry().into_iter().flat_map(|m| m.primary_columns()).filter(|c| has(c)).map(str::to_owned).collect()
}

/// Runs `factpico report`. Returns the process exit code.
///
/// # Errors
/// Unreadable score file, an input whose rows do not match the scored ones, ratings that do
/// not join, output failure.
pub fn run(args: &ReportArgs) -> Result<i32> {
    let out = args.output.clone().unwrap_or_else(|| default_output(&args.scores));
    // The output never replaces what the report reads, a directory or a special file
    // (factpico-io's guard, as for every factpico writer).
    let inputs: Vec<(String, PathBuf)> =
        [("the score file", Some(&args.scores)), ("the --input file", args.input.as_ref()), ("the --ratings file", args.ratings.as_ref())]
            .into_iter()
            .filter_map(|(label, p)| p.map(|p| (label.to_owned(), p.clone())))
            .collect();
    output::check_paths(&inputs, &[("-o", Some(&out))], &[])?;
    if args.ratings.is_some() && args.aspects.is_empty() {
        bail!("--ratings needs --aspects: the human rating columns to compare with (e.g. --aspects avg_pio)");
    }
    let gathered = gather::gather(&args.scores, args.max_rows, primary_columns)?;
    let file = &gathered.file;
    if let (Some(note), false) = (&file.note, args.quiet) {
        eprintln!("warning: {}", crate::term::escape_controls(note));
    }
    if let (n @ 1.., Some(first)) = (gathered.duplicates.0, &gathered.duplicates.1) {
        // Visible even with -q: the overview counts every one of them.
        eprintln!(
            "warning: {n} rows repeat an (id, system) seen before (first: {}); the overview counts each of them",
            crate::term::escape_inline(first)
        );
    }
    let provenance = file.provenance.as_ref();
    let reports = &gathered.reports;
    let texts = match &args.input {
        Some(input) => {
            let ((format, fields), origin) = texts::mapping(input, &args.fields, provenance)?;
            let t = texts::read(input, format, &fields, reports)
                .with_context(|| format!("{} read with {origin}", input.display()))?;
            Some(t)
        }
        None => None,
    };
    let primary = &gathered.primary;
    let meta = match &args.ratings {
        Some(ratings) => Some(meta_eval(args, ratings, primary)?),
        None => None,
    };
    let columns = columns_of(&gathered.present);
    let title = args.title.clone().unwrap_or_else(|| {
        args.scores.file_name().map_or_else(|| "factpico report".into(), |n| n.to_string_lossy().into_owned())
    });
    let html = page::render(&page::Page {
        title: &title,
        scores_path: &args.scores,
        input_path: args.input.as_deref(),
        reports,
        total: gathered.total,
        selection: gathered.selection.as_ref(),
        provenance,
        texts: texts.as_ref(),
        columns: &columns,
        primary,
        summary: &gathered.summary,
        histograms: &gathered.histograms,
        systems: &gathered.systems,
        meta: meta.as_ref(),
    })?;
    let to_stdout = output::is_stdout(&out);
    if to_stdout {
        // `-o -`: the page on standard output (a reader that stopped early is its choice).
        output::print_stdout(&html).context("cannot write the report to standard output (-o -)")?;
    } else {
        output::write_atomic(&out, html.as_bytes())?;
    }
    let shown = if to_stdout { "the page to standard output".to_owned() } else { crate::term::path(&out) };
    if !args.quiet {
        match &gathered.selection {
            None => eprintln!("wrote {shown} ({} rows, {} bytes)", reports.len(), html.len()),
            Some(_) => eprintln!(
                "wrote {shown} ({} rows; the list holds {} of them, more than --max-rows {}: see the page's note; {} bytes)",
                gathered.total,
                reports.len(),
                args.max_rows,
                html.len()
            ),
        }
        if texts.is_none() {
            eprintln!("note: no --input: the page shows scores and details but not the texts");
        }
    }
    Ok(0)
}

/// What the overview shows of the meta-evaluation: `factpico meta-eval`'s Markdown report
/// and its scatter plots (SVG), computed by `factpico-metaeval`.
pub(crate) struct MetaEval {
    /// The Markdown report of `factpico meta-eval`.
    pub markdown: String,
    /// (aspect, scatter SVG) per aspect.
    pub scatter: Vec<(String, String)>,
    /// Warnings (rows that did not join under --allow-missing), flags translated.
    pub warnings: Vec<String>,
}

fn meta_eval(args: &ReportArgs, ratings: &Path, primary: &[String]) -> Result<MetaEval> {
    use factpico_metaeval as me;
    let metrics = if args.meta_metrics.is_empty() { primary.to_vec() } else { args.meta_metrics.clone() };
    if (1..crate::meta_eval_args::MIN_BOOTSTRAP).contains(&args.bootstrap) {
        bail!("--bootstrap {} cannot give a percentile interval; use 0 or at least {}", args.bootstrap, crate::meta_eval_args::MIN_BOOTSTRAP);
    }
    let opts = me::RunOptions {
        scores: args.scores.clone(),
        scores_format: Some(me::Format::Jsonl),
        ratings: ratings.to_owned(),
        ratings_format: None,
        metrics,
        aspects: args.aspects.clone(),
        join: me::JoinOptions {
            scores_id: "id".into(),
            ratings_id: args.ratings_id.clone(),
            system_col: args.system_col.clone(),
            allow_missing: args.allow_missing,
        },
        eval: me::EvalOptions {
            levels: me::Levels::Both,
            directions: Default::default(),
            aspect_directions: args
                .lower_is_better_aspects
                .iter()
                .map(|c| (c.clone(), me::Direction::LowerIsBetter))
                .collect(),
            bootstrap: (args.bootstrap > 0).then_some(me::BootstrapOptions {
                n_resamples: args.bootstrap,
                confidence_level: 0.95,
                seed: args.seed,
            }),
            human_range: args.human_range,
        },
        formats: Vec::new(),
        out_dir: None,
        stem: "meta-eval".into(),
        plots: None,
    };
    let run = me::run(&opts).context("meta-evaluation (--ratings)")?;
    let mut scatter = Vec::new();
    for aspect in &run.result.aspects {
        scatter.push((aspect.clone(), me::plot::scatter_svg(&run.joined, &run.result, aspect, args.seed)?));
    }
    let warnings = run.result.join.missing_warning().map(|w| crate::flags::for_report(&w).into_owned()).into_iter().collect();
    Ok(MetaEval { markdown: run.markdown, scatter, warnings })
}
