//! `factpico meta-eval`: meta-evaluate metric columns against human ratings
//! (FactPICO Tables 4/5, Figure 2, Appendix G), or, with `--kappa`, the
//! annotators' agreement (Table 1). The work is done by `factpico-metaeval`.

use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use factpico_metaeval::kappa::{run_kappa, KappaLayout};
use factpico_metaeval::plot::{PlotFormat, PlotOptions};
use factpico_metaeval::{
    parse_overrides, write_atomic, BootstrapOptions, EvalOptions, Format, JoinOptions, Levels, OutputFormat, RunOptions,
};

/// Levels to report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum LevelArg {
    /// Over all joined rows (one per summary): FactPICO Table 4.
    Instance,
    /// Over per-system means (needs a system column and >= 3 systems): Table 5.
    System,
    /// Both.
    Both,
}

/// Input file formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum FormatArg {
    /// One JSON object per line (factpico score output or flat objects).
    Jsonl,
    /// A JSON array of objects.
    Json,
    /// CSV with a header.
    Csv,
    /// TSV with a header.
    Tsv,
}

impl From<FormatArg> for Format {
    fn from(f: FormatArg) -> Self {
        match f {
            FormatArg::Jsonl => Format::Jsonl,
            FormatArg::Json => Format::Json,
            FormatArg::Csv => Format::Csv,
            FormatArg::Tsv => Format::Tsv,
        }
    }
}

/// Arguments of `factpico meta-eval`.
#[derive(Debug, clap::Args)]
#[command(after_help = "Example (shaib2023 plain summaries):\n  factpico meta-eval --scores shaib.scores.jsonl \
    --ratings derived_human_avg_plain.csv --ratings-id doc_id \\\n    --aspects population_mean,intervention_mean,outcome_mean,avg_pio \
    --metrics rougeL,delta_fkgl,fkgl_summary --bootstrap 1000 --seed 0 --out-dir out --format md,csv,json --plots out/img")]
pub struct MetaEvalArgs {
    /// Scores file: `factpico score` JSONL, or CSV/TSV/JSON(L) with an id column and metric columns.
    #[arg(long)]
    pub scores: Option<PathBuf>,
    /// Ratings file: CSV/TSV/JSON(L) with an id column and human aspect columns (optionally a system column).
    #[arg(long)]
    pub ratings: PathBuf,
    /// Human aspect columns of the ratings file, comma-separated (e.g. population_mean,avg_pio).
    #[arg(long, value_delimiter = ',')]
    pub aspects: Vec<String>,
    /// Metric columns of the scores file, comma-separated (e.g. rougeL,delta_fkgl).
    #[arg(long, value_delimiter = ',')]
    pub metrics: Vec<String>,
    /// Levels to report.
    #[arg(long, value_enum, default_value = "both")]
    pub level: LevelArg,
    /// Bootstrap resamples for 95% CIs (items resampled with all their systems); 0 = none.
    #[arg(long, default_value_t = 0)]
    pub bootstrap: usize,
    /// Seed of the bootstrap (and of the scatter-plot jitter).
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Coverage of the bootstrap intervals.
    #[arg(long, default_value_t = 0.95)]
    pub confidence: f64,
    /// System column (default: a column named `system`, where present). In both files it joins with the id.
    #[arg(long)]
    pub system_col: Option<String>,
    /// Id column of the scores file.
    #[arg(long, default_value = "id")]
    pub scores_id: String,
    /// Id column of the ratings file.
    #[arg(long, default_value = "id")]
    pub ratings_id: String,
    /// Evaluate the joined rows even when some ids occur in one file only (the counts are reported).
    #[arg(long)]
    pub allow_missing: bool,
    /// Direction override, COLUMN=lower|higher (repeatable or comma-separated); default from the metric registry.
    #[arg(long, value_delimiter = ',')]
    pub direction: Vec<String>,
    /// Declared scale LO,HI of the human aspects for the KL normalisation (default: observed range), e.g. 1,4.
    #[arg(long, value_parser = parse_range)]
    pub human_range: Option<(f64, f64)>,
    /// Output formats written to --out-dir: md,csv,json.
    #[arg(long, default_value = "md,csv,json")]
    pub format: String,
    /// Directory for <name>.md/.csv/.json. Without it, the Markdown report goes to stdout.
    #[arg(long)]
    pub out_dir: Option<PathBuf>,
    /// File stem of the outputs.
    #[arg(long, default_value = "meta-eval")]
    pub name: String,
    /// Directory for plots (scatter_<aspect> and distribution_<aspect>).
    #[arg(long)]
    pub plots: Option<PathBuf>,
    /// Plot formats: svg,png.
    #[arg(long, value_delimiter = ',', default_value = "svg,png")]
    pub plot_format: Vec<String>,
    /// Aspects to plot (default: all evaluated aspects).
    #[arg(long, value_delimiter = ',')]
    pub plot_aspects: Vec<String>,
    /// Format of the scores file (default: from its extension).
    #[arg(long, value_enum)]
    pub scores_format: Option<FormatArg>,
    /// Format of the ratings file (default: from its extension).
    #[arg(long, value_enum)]
    pub ratings_format: Option<FormatArg>,
    /// Instead: Randolph's kappa over the ratings file's annotators (--annotators or --kappa-columns, --categories).
    #[arg(long)]
    pub kappa: bool,
    /// --kappa: one column per annotator (comma-separated); one kappa over them.
    #[arg(long, value_delimiter = ',')]
    pub annotators: Vec<String>,
    /// --kappa: columns each packing an item's labels with --kappa-sep (e.g. population_ratings = 4|3|4); one kappa each.
    #[arg(long, value_delimiter = ',')]
    pub kappa_columns: Vec<String>,
    /// --kappa: separator of packed labels.
    #[arg(long, default_value = "|")]
    pub kappa_sep: char,
    /// --kappa: number of label categories annotators chose from (k), e.g. 4.
    #[arg(long)]
    pub categories: Option<usize>,
    /// Do not print the report to stdout when writing to --out-dir.
    #[arg(short, long)]
    pub quiet: bool,
}

fn parse_range(s: &str) -> Result<(f64, f64), String> {
    let (a, b) = s.split_once(',').ok_or_else(|| format!("expected LO,HI, got `{s}`"))?;
    let lo: f64 = a.trim().parse().map_err(|e| format!("`{a}`: {e}"))?;
    let hi: f64 = b.trim().parse().map_err(|e| format!("`{b}`: {e}"))?;
    Ok((lo, hi))
}

fn plot_formats(v: &[String]) -> Result<Vec<PlotFormat>> {
    let mut out = Vec::new();
    for f in v.iter().map(|s| s.trim().to_ascii_lowercase()) {
        let p = match f.as_str() {
            "svg" => PlotFormat::Svg,
            "png" => PlotFormat::Png,
            other => bail!("--plot-format: unknown format `{other}` (use svg, png)"),
        };
        if !out.contains(&p) {
            out.push(p);
        }
    }
    Ok(out)
}

fn kappa_mode(a: &MetaEvalArgs) -> Result<i32> {
    let Some(k) = a.categories else {
        bail!("--kappa needs --categories K (the number of labels annotators chose from, e.g. 4)");
    };
    let layout = match (a.annotators.is_empty(), a.kappa_columns.is_empty()) {
        (false, true) => KappaLayout::Annotators { columns: a.annotators.clone() },
        (true, false) => KappaLayout::Packed { columns: a.kappa_columns.clone(), separator: a.kappa_sep },
        _ => bail!("--kappa needs exactly one of --annotators A,B,C (one column per annotator) or --kappa-columns C1,C2 (packed labels)"),
    };
    let (rows, md) = run_kappa(&a.ratings, a.ratings_format.map(Into::into), &layout, k)?;
    match &a.out_dir {
        Some(dir) => {
            let md_path = dir.join(format!("{}.md", a.name));
            write_atomic(&md_path, md.as_bytes())?;
            let json = serde_json::to_string_pretty(&rows).context("serialising kappa results")? + "\n";
            let json_path = dir.join(format!("{}.json", a.name));
            write_atomic(&json_path, json.as_bytes())?;
            if !a.quiet {
                print!("{md}");
            }
            eprintln!("wrote {} and {}", md_path.display(), json_path.display());
        }
        None => print!("{md}"),
    }
    Ok(0)
}

/// Runs `factpico meta-eval`. Returns the process exit code (0).
///
/// # Errors
/// Bad arguments, unreadable or malformed files, ids that do not join
/// (without --allow-missing), output failures.
pub fn run(a: &MetaEvalArgs) -> Result<i32> {
    if a.kappa {
        return kappa_mode(a);
    }
    let Some(scores) = a.scores.clone() else {
        bail!("--scores FILE is required (or --kappa for inter-annotator agreement)");
    };
    if a.metrics.is_empty() {
        bail!("--metrics is required: the metric columns of the scores file, e.g. --metrics rougeL,delta_fkgl");
    }
    if a.aspects.is_empty() {
        bail!("--aspects is required: the human rating columns of the ratings file, e.g. --aspects avg_pio");
    }
    let bootstrap = (a.bootstrap > 0).then_some(BootstrapOptions {
        n_resamples: a.bootstrap,
        confidence_level: a.confidence,
        seed: a.seed,
    });
    let plots = match &a.plots {
        Some(dir) => Some(PlotOptions {
            dir: dir.clone(),
            formats: plot_formats(&a.plot_format)?,
            aspects: (!a.plot_aspects.is_empty()).then(|| a.plot_aspects.clone()),
            seed: a.seed,
        }),
        None => None,
    };
    let opts = RunOptions {
        scores,
        scores_format: a.scores_format.map(Into::into),
        ratings: a.ratings.clone(),
        ratings_format: a.ratings_format.map(Into::into),
        metrics: a.metrics.clone(),
        aspects: a.aspects.clone(),
        join: JoinOptions {
            scores_id: a.scores_id.clone(),
            ratings_id: a.ratings_id.clone(),
            system_col: a.system_col.clone(),
            allow_missing: a.allow_missing,
        },
        eval: EvalOptions {
            levels: match a.level {
                LevelArg::Instance => Levels::Instance,
                LevelArg::System => Levels::System,
                LevelArg::Both => Levels::Both,
            },
            directions: parse_overrides(&a.direction)?,
            bootstrap,
            human_range: a.human_range,
        },
        formats: OutputFormat::parse_list(&a.format)?,
        out_dir: a.out_dir.clone(),
        stem: a.name.clone(),
        plots,
    };
    let out = factpico_metaeval::run(&opts)?;
    if a.out_dir.is_none() || !a.quiet {
        print!("{}", out.markdown);
    }
    let j = &out.result.join;
    if j.scores_only + j.ratings_only > 0 {
        eprintln!(
            "warning: {} scores rows and {} ratings rows did not join (--allow-missing); {} rows evaluated",
            j.scores_only, j.ratings_only, j.joined
        );
    }
    for p in &out.written {
        eprintln!("wrote {}", p.display());
    }
    Ok(0)
}
