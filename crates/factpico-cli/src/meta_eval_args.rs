//! The arguments of `factpico meta-eval`, so that the command line, its
//! documentation and the tests that rerun documented commands
//! (`tests/metaeval_docs.rs`) share one parser over the `factpico-metaeval`
//! library. The binary only prints what [`MetaEvalArgs::execute`] returns.

use std::path::PathBuf;

use factpico_metaeval::kappa::{run_kappa, KappaLayout};
use factpico_metaeval::plot::{PlotFormat, PlotOptions};
use factpico_metaeval::{
    parse_overrides, write_atomic, BootstrapOptions, Direction, Error, EvalOptions, Format, JoinOptions, Levels,
    MetaEvalResult, OutputFormat, Result, RunOptions,
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
    #[arg(id = "levels", long = "level", value_name = "LEVEL", value_enum, default_value = "both")]
    pub level: LevelArg,
    /// Bootstrap resamples for 95% CIs (items resampled with all their systems); 0 = none, else at least 100.
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
    #[arg(id = "directions", long = "direction", value_name = "DIRECTION", value_delimiter = ',')]
    pub direction: Vec<String>,
    /// Human aspects where lower is better (e.g. error or omission counts), comma-separated; they are negated too.
    #[arg(id = "aspect_directions", long = "lower-is-better-aspects", value_name = "LOWER_IS_BETTER_ASPECTS", value_delimiter = ',')]
    pub lower_is_better_aspects: Vec<String>,
    /// Declared scale LO,HI of the human aspects for the KL normalisation (default: observed range), e.g. 1,4.
    #[arg(long, value_parser = parse_range)]
    pub human_range: Option<(f64, f64)>,
    /// Output formats written to --out-dir: md,csv,json.
    #[arg(id = "formats", long = "format", value_name = "FORMAT", default_value = "md,csv,json")]
    pub format: String,
    /// Directory for NAME.md/.csv/.json (NAME from --name). Without it, the Markdown report goes to stdout.
    #[arg(long)]
    pub out_dir: Option<PathBuf>,
    /// File stem of the outputs (a plain file name: no path separators, not `.`/`..`).
    #[arg(id = "stem", long = "name", value_name = "NAME", default_value = "meta-eval")]
    pub name: String,
    /// Directory for plots (scatter_ASPECT and distribution_ASPECT, .svg/.png).
    #[arg(long)]
    pub plots: Option<PathBuf>,
    /// Plot formats: svg,png.
    #[arg(id = "plots.formats", long = "plot-format", value_name = "PLOT_FORMAT", value_delimiter = ',', default_value = "svg,png")]
    pub plot_format: Vec<String>,
    /// Aspects to plot (default: all evaluated aspects).
    #[arg(id = "plots.aspects", long = "plot-aspects", value_name = "PLOT_ASPECTS", value_delimiter = ',')]
    pub plot_aspects: Vec<String>,
    /// Format of the scores file (default: from its extension).
    #[arg(long, value_enum)]
    pub scores_format: Option<Format>,
    /// Format of the ratings file (default: from its extension).
    #[arg(long, value_enum)]
    pub ratings_format: Option<Format>,
    /// Instead: Randolph's kappa over the ratings file's annotators (--annotators or --kappa-columns, --categories).
    #[arg(long)]
    pub kappa: bool,
    /// --kappa: one column per annotator (comma-separated); one kappa over them.
    #[arg(id = "KappaLayout::Annotators", long = "annotators", value_name = "ANNOTATORS", value_delimiter = ',')]
    pub annotators: Vec<String>,
    /// --kappa: columns each packing an item's labels with --kappa-sep (e.g. population_ratings = 4|3|4); one kappa each.
    #[arg(id = "KappaLayout::Packed", long = "kappa-columns", value_name = "KAPPA_COLUMNS", value_delimiter = ',')]
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

/// Parses `LO,HI` (a declared rating scale, e.g. `1,4`), as `--human-range` takes it.
///
/// # Errors
/// A message for clap when either bound is missing or not a number.
pub fn parse_range(s: &str) -> Result<(f64, f64), String> {
    let (a, b) = s.split_once(',').ok_or_else(|| format!("expected LO,HI, got `{s}`"))?;
    let lo: f64 = a.trim().parse().map_err(|e| format!("`{a}`: {e}"))?;
    let hi: f64 = b.trim().parse().map_err(|e| format!("`{b}`: {e}"))?;
    Ok((lo, hi))
}

/// An invalid option, named by its arg id (the library's field name, as its own errors name
/// it): printed through `flags::for_meta_eval`, which gives the flag.
fn invalid(option: &'static str, message: impl Into<String>) -> Error {
    Error::InvalidOption { option, message: message.into() }
}

fn plot_formats(v: &[String]) -> Result<Vec<PlotFormat>> {
    let mut out = Vec::new();
    for f in v.iter().map(|s| s.trim().to_ascii_lowercase()) {
        let p = match f.as_str() {
            "svg" => PlotFormat::Svg,
            "png" => PlotFormat::Png,
            other => return Err(invalid("plots.formats", format!("unknown format `{other}` (use svg, png)"))),
        };
        if !out.contains(&p) {
            out.push(p);
        }
    }
    Ok(out)
}

/// What one `factpico meta-eval` invocation produced.
#[derive(Debug, Clone)]
pub struct CliOutput {
    /// The Markdown report (tables, or the kappa table with `--kappa`).
    pub markdown: String,
    /// Files written, in order.
    pub written: Vec<PathBuf>,
    /// Warnings for stderr (e.g. rows that did not join under --allow-missing).
    pub warnings: Vec<String>,
    /// The meta-evaluation result (`None` in `--kappa` mode).
    pub result: Option<MetaEvalResult>,
}

/// `MetaEvalArgs` as a stand-alone parser (for [`MetaEvalArgs::try_parse_args`]).
#[derive(Debug, clap::Parser)]
#[command(name = "factpico meta-eval", no_binary_name = true)]
struct Standalone {
    #[command(flatten)]
    args: MetaEvalArgs,
}

impl MetaEvalArgs {
    /// Parses the arguments that follow `factpico meta-eval` on a command
    /// line (without the program and subcommand names).
    ///
    /// # Errors
    /// [`Error::InvalidOption`] with clap's message.
    pub fn try_parse_args<I, T>(args: I) -> Result<Self>
    where
        I: IntoIterator<Item = T>,
        T: Into<std::ffi::OsString> + Clone,
    {
        use clap::Parser as _;
        Standalone::try_parse_from(args)
            .map(|s| s.args)
            .map_err(|e| invalid("arguments", e.to_string()))
    }

    /// The library options these arguments stand for.
    ///
    /// # Errors
    /// [`Error::InvalidOption`] for missing or malformed arguments.
    pub fn run_options(&self) -> Result<RunOptions> {
        let Some(scores) = self.scores.clone() else {
            return Err(invalid("scores", "--scores FILE is required (or --kappa for inter-annotator agreement)"));
        };
        if self.metrics.is_empty() {
            return Err(invalid("metrics", "required: the metric columns of the scores file, e.g. --metrics rougeL,delta_fkgl"));
        }
        if self.aspects.is_empty() {
            return Err(invalid("aspects", "required: the human rating columns of the ratings file, e.g. --aspects avg_pio"));
        }
        if (1..MIN_BOOTSTRAP).contains(&self.bootstrap) {
            return Err(invalid(
                "bootstrap",
                format!(
                    "{} resamples cannot give a percentile interval; use 0 (no intervals) or at least {MIN_BOOTSTRAP} (1000 recommended)",
                    self.bootstrap
                ),
            ));
        }
        let bootstrap = (self.bootstrap > 0).then_some(BootstrapOptions {
            n_resamples: self.bootstrap,
            confidence_level: self.confidence,
            seed: self.seed,
        });
        let plots = match &self.plots {
            Some(dir) => Some(PlotOptions {
                dir: dir.clone(),
                formats: plot_formats(&self.plot_format)?,
                aspects: (!self.plot_aspects.is_empty()).then(|| self.plot_aspects.clone()),
                seed: self.seed,
            }),
            None => None,
        };
        Ok(RunOptions {
            scores,
            scores_format: self.scores_format,
            ratings: self.ratings.clone(),
            ratings_format: self.ratings_format,
            metrics: self.metrics.clone(),
            aspects: self.aspects.clone(),
            join: JoinOptions {
                scores_id: self.scores_id.clone(),
                ratings_id: self.ratings_id.clone(),
                system_col: self.system_col.clone(),
                allow_missing: self.allow_missing,
            },
            eval: EvalOptions {
                levels: match self.level {
                    LevelArg::Instance => Levels::Instance,
                    LevelArg::System => Levels::System,
                    LevelArg::Both => Levels::Both,
                },
                directions: parse_overrides(&self.direction)?,
                aspect_directions: self
                    .lower_is_better_aspects
                    .iter()
                    .map(|c| (c.clone(), Direction::LowerIsBetter))
                    .collect(),
                bootstrap,
                human_range: self.human_range,
            },
            formats: OutputFormat::parse_list(&self.format)?,
            out_dir: self.out_dir.clone(),
            stem: self.name.clone(),
            plots,
        })
    }

    fn kappa_mode(&self) -> Result<CliOutput> {
        let Some(k) = self.categories else {
            return Err(invalid("categories", "--kappa needs --categories K (the number of labels annotators chose from, e.g. 4)"));
        };
        let layout = match (self.annotators.is_empty(), self.kappa_columns.is_empty()) {
            (false, true) => KappaLayout::Annotators { columns: self.annotators.clone() },
            (true, false) => KappaLayout::Packed { columns: self.kappa_columns.clone(), separator: self.kappa_sep },
            _ => {
                return Err(invalid(
                    "kappa",
                    "needs exactly one of --annotators A,B,C (one column per annotator) or --kappa-columns C1,C2 (packed labels)",
                ))
            }
        };
        let (rows, markdown) = run_kappa(&self.ratings, self.ratings_format, &layout, k)?;
        let mut written = Vec::new();
        if let Some(dir) = &self.out_dir {
            let md_path = dir.join(format!("{}.md", self.name));
            let json_path = dir.join(format!("{}.json", self.name));
            factpico_metaeval::refuse_overwriting_inputs(&[md_path.clone(), json_path.clone()], &[&self.ratings])?;
            write_atomic(&md_path, markdown.as_bytes())?;
            let json = serde_json::to_string_pretty(&rows)
                .map_err(|e| Error::Json { path: "<output>".into(), line: 0, message: e.to_string() })?
                + "\n";
            write_atomic(&json_path, json.as_bytes())?;
            written = vec![md_path, json_path];
        }
        Ok(CliOutput { markdown, written, warnings: Vec::new(), result: None })
    }

    /// Runs the meta-evaluation (or `--kappa`) these arguments describe:
    /// reads, joins, computes, writes the files; prints nothing.
    ///
    /// # Errors
    /// Any [`Error`] of the steps.
    pub fn execute(&self) -> Result<CliOutput> {
        check_name(&self.name)?;
        if self.kappa {
            return self.kappa_mode();
        }
        let out = factpico_metaeval::run(&self.run_options()?)?;
        let mut warnings: Vec<String> = out.result.join.missing_warning().into_iter().collect();
        warnings.extend(out.result.cells.iter().filter_map(factpico_metaeval::sampled_note));
        Ok(CliOutput { markdown: out.markdown, written: out.written, warnings, result: Some(out.result) })
    }
}

/// Smallest `--bootstrap` count accepted besides 0: with fewer resamples a 95% percentile
/// interval is just the extremes of a handful of draws.
pub const MIN_BOOTSTRAP: usize = 100;

/// `--name` is a file stem inside `--out-dir`, never a path that leaves it.
fn check_name(name: &str) -> Result<()> {
    let bad = name.is_empty()
        || name == "."
        || name == ".."
        || name.contains(['/', '\\'])
        || name.chars().any(char::is_control);
    if bad {
        return Err(invalid(
            "stem",
            format!("{name:?} is not a plain file name (the outputs are --out-dir/NAME.md/.csv/.json); e.g. --name shaib"),
        ));
    }
    Ok(())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn args(extra: &[&str]) -> MetaEvalArgs {
        let mut a = vec!["--scores", "s.jsonl", "--ratings", "r.csv", "--aspects", "avg", "--metrics", "rougeL"];
        a.extend_from_slice(extra);
        MetaEvalArgs::try_parse_args(a).unwrap()
    }

    #[test]
    fn names_that_leave_the_out_dir_are_refused() {
        for bad in ["../x", "a/b", "..", ".", "", "a\\b"] {
            let e = crate::flags::for_meta_eval(&args(&["--name", bad]).execute().unwrap_err().to_string()).into_owned();
            assert!(e.starts_with("invalid option --name: "), "{bad:?}: {e}");
        }
        // A plain name passes the check and fails later, on the missing scores file.
        let e = args(&["--name", "shaib.v2"]).execute().unwrap_err();
        assert!(!e.to_string().contains("--name"), "{e}");
    }

    #[test]
    fn outputs_never_overwrite_the_inputs() {
        let dir = tempfile::tempdir().unwrap();
        let scores = dir.path().join("scores.csv");
        let ratings = dir.path().join("ratings.csv");
        std::fs::write(&scores, "id,rougeL\na,0.1\nb,0.2\nc,0.3\n").unwrap();
        std::fs::write(&ratings, "id,avg\na,1\nb,3\nc,2\n").unwrap();
        let d = dir.path().to_str().unwrap();
        let sub = dir.path().join("sub");
        std::fs::create_dir(&sub).unwrap();
        for (name, format, out_dir) in
            [("scores", "csv", d.to_owned()), ("ratings", "md,csv", d.to_owned()), ("scores", "csv", format!("{}/..", sub.display()))]
        {
            let a = MetaEvalArgs::try_parse_args([
                "--scores", scores.to_str().unwrap(), "--ratings", ratings.to_str().unwrap(), "--aspects", "avg",
                "--metrics", "rougeL", "--out-dir", &out_dir, "--name", name, "--format", format,
            ])
            .unwrap();
            let e = a.execute().unwrap_err().to_string();
            assert!(e.contains("would overwrite the input"), "{name} {format}: {e}");
        }
        assert_eq!(std::fs::read_to_string(&scores).unwrap(), "id,rougeL\na,0.1\nb,0.2\nc,0.3\n");
        assert_eq!(std::fs::read_to_string(&ratings).unwrap(), "id,avg\na,1\nb,3\nc,2\n");
        // Another name in the same directory works.
        let a = MetaEvalArgs::try_parse_args([
            "--scores", scores.to_str().unwrap(), "--ratings", ratings.to_str().unwrap(), "--aspects", "avg",
            "--metrics", "rougeL", "--out-dir", d, "--name", "report", "--format", "csv",
        ])
        .unwrap();
        assert_eq!(a.execute().unwrap().written, [dir.path().join("report.csv")]);
    }

    #[test]
    fn too_few_bootstrap_resamples_are_refused() {
        for n in ["1", "2", "99"] {
            let e = crate::flags::for_meta_eval(&args(&["--bootstrap", n]).run_options().unwrap_err().to_string()).into_owned();
            assert!(e.starts_with("invalid option --bootstrap: "), "{n}: {e}");
        }
        assert!(args(&["--bootstrap", "0"]).run_options().unwrap().eval.bootstrap.is_none());
        assert_eq!(args(&["--bootstrap", "100"]).run_options().unwrap().eval.bootstrap.unwrap().n_resamples, 100);
    }
}
