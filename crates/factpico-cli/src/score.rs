//! `factpico score`: score a file of (abstract, summary) pairs.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use factpico::{InputRecord, Pair, Report, Scorer, ScorerOptions};

use crate::input::{self, input_sha256, Format, Record};
use crate::term::escape_controls;
use crate::output::{self, AtomicJsonl};
use crate::summary::Summary;

/// What to do with a row that cannot be read or scored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum OnError {
    /// Stop at the first bad row with an error naming it (the partial output is kept for `--resume`).
    Fail,
    /// Record the row as skipped in the output and the summary, and go on.
    Skip,
}

/// Arguments of `factpico score`.
#[derive(Debug, clap::Args)]
pub struct ScoreArgs {
    /// Input file: JSONL, JSON array, CSV or TSV (format from the extension, or --format);
    /// `-` reads standard input (needs --format).
    pub input: PathBuf,
    /// Output file, one row per input record, same order: `.jsonl` (or `.ndjson`) writes JSON
    /// lines, with the run's provenance once in OUT.provenance.json (written before the first
    /// row); `.parquet` writes a Parquet table with the provenance in its metadata. `-` writes
    /// JSON lines to standard output as they are scored (the summary table then goes to
    /// standard error; the provenance only with --provenance FILE).
    /// Default: <input stem>.scores.jsonl in the current directory.
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// Where to write the run's provenance (engine, options, models and their hashes, input
    /// mapping; each row's `run` is its hash). Default: OUT.provenance.json beside a JSONL
    /// output; none with `-o -` unless given; a Parquet output keeps it in its metadata
    /// (and also writes it here when given). `-` writes it to standard output, once, before
    /// the first row (the summary table then goes to standard error; not with `-o -` or
    /// `--resume`).
    #[arg(long, value_name = "FILE")]
    pub provenance: Option<PathBuf>,
    /// Also write a CSV of id, system and every score column; `-` writes it to standard
    /// output (the summary table then goes to standard error).
    #[arg(long)]
    pub csv: Option<PathBuf>,
    /// Also write the per-system summary table (Markdown) to this file; `-` writes it to
    /// standard output (once).
    #[arg(long)]
    pub summary: Option<PathBuf>,
    #[command(flatten)]
    pub fields: input::InputArgs,
    /// Seconds to wait for the spaCy sidecar (DAE's parser, the QA metrics' answer selection)
    /// to start and report ready (default 120). A sidecar that does not start fails its
    /// metric once, naming the time waited.
    #[arg(long, value_name = "SECS", env = factpico_nlp::sidecar::STARTUP_TIMEOUT_ENV,
          value_parser = factpico_nlp::sidecar::parse_timeout_secs)]
    pub sidecar_startup_timeout: Option<std::time::Duration>,
    /// Metrics to compute, comma-separated (see `factpico metrics`).
    #[arg(long, value_delimiter = ',', default_value = "rougeL,fkgl")]
    pub metrics: Vec<String>,
    /// Record the Punkt sentence spans of both texts in each row (off by default: `factpico
    /// report` recomputes them from the texts).
    #[arg(long)]
    pub sentences: bool,
    /// No sentence spans in the rows: the default since output schema 3 (kept so that
    /// older command lines still run).
    #[arg(long, hide = true, conflicts_with = "sentences")]
    pub no_sentences: bool,
    /// What to do with a bad row.
    #[arg(long, value_enum, default_value = "fail")]
    pub on_error: OnError,
    /// Continue an interrupted run from <output>.partial.
    #[arg(long)]
    pub resume: bool,
    /// Rows scored per block (memory bound; each block is scored in parallel, then written).
    /// Default 256; with an LLM metric 4 × the LLM concurrency (at least 8), so that the
    /// finished rows reach the output (its .partial file) as the run goes.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub block_size: Option<u64>,
    /// Rayon worker threads (1-1024; default: all cores).
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..=1024))]
    pub jobs: Option<u16>,
    /// No progress bar.
    #[arg(short, long)]
    pub quiet: bool,
    /// Print each row's explanation per metric (per-sentence support, per-arc and
    /// per-question detail) to standard output (to standard error with `-o -`, where standard
    /// output carries the rows).
    #[arg(long)]
    pub explain: bool,
    /// Read the input and print what the run would cost per metric (LLM metrics: requests and
    /// estimated prompt tokens), without building any metric, contacting any server or
    /// writing anything.
    #[arg(long)]
    pub dry_run: bool,
    /// Every option of every metric unit (their flags come from the options' own types), and
    /// --batch-size / --threads / --device.
    #[command(flatten)]
    pub options: ScorerOptions,
}

impl ScoreArgs {
    fn scorer_options(&self) -> ScorerOptions {
        ScorerOptions { metrics: self.metrics.clone(), sentence_spans: self.sentences, ..self.options.clone() }
    }

    /// The input fields of the per-row side inputs `inputs` (declared by the selected
    /// metrics): `--input-field NAME=FIELD`, else a unit's own flag, else the field NAME.
    /// A mapping whose name no selected metric reads is an error.
    fn extra_fields(&self, inputs: &[&factpico::RowInput]) -> Result<Vec<input::ExtraField>> {
        extra_fields(&self.fields, inputs)
    }
}

/// The input fields of the per-row side inputs `inputs` (see [`ScoreArgs::extra_fields`]);
/// shared with `factpico llm batch export`, which reads its input as `score` does.
pub(crate) fn extra_fields(fields: &input::InputArgs, inputs: &[&factpico::RowInput]) -> Result<Vec<input::ExtraField>> {
    let names: Vec<&str> = inputs.iter().map(|i| i.name).collect();
    fields.extra_fields(&names, ("no selected metric reads", "selected metrics read"))
}

/// Default output: `<input stem>.scores.jsonl` in the current directory (never beside the
/// input, which may be read-only or shared data).
fn default_output(input: &Path) -> PathBuf {
    let stem = match input.file_stem() {
        Some(s) if input != Path::new("-") => s.to_string_lossy().into_owned(),
        _ => "stdin".into(),
    };
    PathBuf::from(format!("{stem}.scores.jsonl"))
}

/// The kind of file `-o` names, from its extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum OutKind {
    /// JSON lines (`.jsonl`, `.ndjson`, standard output).
    Jsonl,
    /// A Parquet table (`.parquet`).
    Parquet,
}

fn out_kind(path: &Path) -> Result<OutKind> {
    if output::is_stdout(path) {
        return Ok(OutKind::Jsonl);
    }
    let ext = path.extension().map(|e| e.to_string_lossy().to_ascii_lowercase());
    match ext.as_deref() {
        Some("jsonl" | "ndjson") => Ok(OutKind::Jsonl),
        Some("parquet") => Ok(OutKind::Parquet),
        other => bail!(
            "-o {}: cannot tell the output format from {}; name the file .jsonl (or .ndjson) for JSON lines or .parquet for a Parquet table",
            path.display(),
            other.map_or_else(|| "a name without extension".to_owned(), |e| format!("the extension `.{e}`"))
        ),
    }
}

/// Runs `factpico score`. `matches` are the subcommand's parsed arguments (to tell which
/// unit flags were given). Returns the process exit code.
///
/// # Errors
/// Bad arguments, unreadable input, a bad row with `--on-error fail`, I/O failure.
pub fn run(args: &ScoreArgs, matches: Option<&clap::ArgMatches>) -> Result<i32> {
    if let Some(j) = args.jobs {
        rayon::ThreadPoolBuilder::new().num_threads(usize::from(j)).build_global().ok();
    }
    let plan = check_outputs(args)?;
    if !args.quiet {
        for w in matches.map(|m| crate::flags::ignored_flags(m, &args.metrics)).unwrap_or_default() {
            eprintln!("warning: {w}");
        }
    }
    if args.dry_run {
        return dry_run(args, plan.format);
    }
    if let Some(t) = args.sidecar_startup_timeout {
        // Not part of the options: how long to wait for a start never changes a score.
        factpico_nlp::sidecar::set_default_startup_timeout(t);
    }
    let (scorer, fields) = build_scorer(args, &plan)?;
    let mut records = input::open(&args.input, plan.format, &fields)?;
    let mut tally = Tally::new(args, &scorer)?;
    let opened = open_writer(args, &plan, &scorer, &mut records, &mut tally)?;
    let out = score_rows(args, &plan, &scorer, records, opened, &mut tally)?;
    finish(args, &plan, &scorer, out.as_deref(), tally)
}

/// What the command line asks of the run's outputs, checked before anything is built,
/// read or written ([`check_outputs`]).
struct Plan {
    /// The input's format.
    format: Format,
    /// The rows go to standard output (`-o -`).
    to_stdout: bool,
    /// The CSV goes to standard output (`--csv -`).
    csv_to_stdout: bool,
    /// Standard output carries data (rows, CSV or the provenance): explanations and the
    /// table go to standard error.
    stdout_is_data: bool,
    /// The output file (`None`: standard output).
    out_path: Option<PathBuf>,
    /// Its kind.
    kind: OutKind,
    /// Where the provenance is written, if anywhere besides a Parquet file's metadata.
    provenance_file: Option<PathBuf>,
    /// The files and directories the options name (`(option, path)`).
    named: Vec<(String, PathBuf)>,
    /// Whether an LLM metric is selected.
    llm_selected: bool,
    /// The LLM concurrency (the default block size with an LLM metric).
    llm_concurrency: usize,
}

/// Checks the input options and the outputs: at most one of them on standard output, none
/// replacing what the run reads, a known output kind, `--resume` only where it can work.
///
/// # Errors
/// The refusals above, each naming the options.
fn check_outputs(args: &ScoreArgs) -> Result<Plan> {
    args.fields.check()?;
    let format = args.fields.format_of(&args.input)?;
    let to_stdout = args.output.as_deref().is_some_and(output::is_stdout);
    let csv_to_stdout = args.csv.as_deref().is_some_and(output::is_stdout);
    let summary_to_stdout = args.summary.as_deref().is_some_and(output::is_stdout);
    let provenance_to_stdout = args.provenance.as_deref().is_some_and(output::is_stdout);
    if [to_stdout, csv_to_stdout, summary_to_stdout, provenance_to_stdout].iter().filter(|b| **b).count() > 1 {
        bail!("only one of -o, --csv, --summary and --provenance can be `-` (standard output): their lines would interleave");
    }
    if provenance_to_stdout && args.resume {
        bail!(
            "--resume needs the interrupted run's provenance file, and --provenance - writes the provenance to standard output: \
             give --provenance FILE (as the first run did), or leave it out for OUT.provenance.json"
        );
    }
    log::debug!(
        "score: input {} as {format:?}; metrics {}; output {}",
        args.input.display(),
        args.metrics.join(","),
        args.output.as_deref().map_or_else(|| "(default)".to_owned(), |p| p.display().to_string())
    );
    let out_path = (!to_stdout).then(|| args.output.clone().unwrap_or_else(|| default_output(&args.input)));
    // Refused after the path checks below (a directory is named as such first).
    let kind_checked = out_path.as_deref().map_or(Ok(OutKind::Jsonl), out_kind);
    let kind = kind_checked.as_ref().map_or(OutKind::Jsonl, |k| *k);
    // The run's provenance, once: beside a JSONL file, where --provenance says, or (Parquet)
    // in the file's metadata only.
    let provenance_file = args.provenance.clone().or_else(|| match (&out_path, kind) {
        (Some(out), OutKind::Jsonl) => Some(output::provenance_path(out)),
        _ => None,
    });
    // Everything the run reads is protected from its outputs: the input, and every file or
    // directory the options name (model directories, --arcs, ...).
    let options = args.scorer_options();
    let named = output::paths_in_options(&serde_json::to_value(&options)?);
    let mut inputs = vec![("the input".to_owned(), args.input.clone())];
    for (key, path) in &named {
        inputs.push((format!("an input of the run (option {key})"), path.clone()));
    }
    // The LLM request cache (a database updated in place) is a file of the run too: no output
    // may replace it or its -wal / -shm files, and it is never opened through a link.
    let llm_selected = args
        .metrics
        .iter()
        .filter_map(|m| factpico::metric_info(m))
        .any(|i| i.feature == Some("llm"));
    let cache = options.llm.runtime.cache_file().filter(|_| llm_selected);
    let databases: Vec<(&str, &Path)> = cache.iter().map(|p| ("the LLM request cache (--llm-cache)", p.as_path())).collect();
    output::check_paths(
        &inputs,
        &[
            ("-o", out_path.as_deref()),
            ("--csv", args.csv.as_deref()),
            ("--summary", args.summary.as_deref()),
            ("the provenance file (--provenance)", provenance_file.as_deref()),
        ],
        &databases,
    )?;
    kind_checked?;
    if to_stdout && args.resume {
        bail!("--resume needs an output file (-o FILE), not standard output");
    }
    if kind == OutKind::Parquet && args.resume {
        bail!(
            "--resume needs a JSON lines output (-o OUT.jsonl): a Parquet file is written whole (its footer last), so an interrupted one cannot be continued; score to .jsonl to resume"
        );
    }
    Ok(Plan {
        format,
        to_stdout,
        csv_to_stdout,
        stdout_is_data: to_stdout || csv_to_stdout || provenance_to_stdout,
        out_path,
        kind,
        provenance_file,
        named,
        llm_selected,
        llm_concurrency: options.llm.runtime.client.concurrency,
    })
}

/// Builds the metrics, maps their per-row side inputs to input fields, and records in the
/// scorer's provenance how the input is read (`provenance.input`, including the fields of the
/// metrics' side inputs). The provenance is written once (output schema 3) and each row
/// references it by hash (`run`); a resumed run must reproduce it exactly: the options, per
/// metric its settings and model hashes (a model re-exported in place is a different model),
/// the input mapping and side-input contents, the engine.
///
/// # Errors
/// A metric cannot be built, an `--input-field` no metric reads, a side input cannot be read.
fn build_scorer(args: &ScoreArgs, plan: &Plan) -> Result<(Scorer, input::FieldMap)> {
    let mut scorer = Scorer::try_new(args.scorer_options())?;
    let extra_fields = args.extra_fields(&scorer.row_inputs())?;
    let fields = args.fields.field_map(extra_fields);
    scorer.set_input(Some(input::input_provenance(plan.format, &fields, &plan.named)?));
    Ok((scorer, fields))
}

/// What the run counts as rows are written: the per-system table, the CSV, repeated ids,
/// the columns that got a value, the first skipped record.
struct Tally {
    summary: Summary,
    csv: Option<output::CsvOut>,
    ids: std::collections::HashSet<String>,
    /// How many rows repeat an id seen before, and the first such id.
    duplicate_ids: (u64, Option<String>),
    /// Columns that got a value in at least one row (a requested metric without any fails
    /// the run).
    valued: std::collections::HashSet<String>,
    /// Why the first skipped record was skipped.
    first_skipped: Option<String>,
}

impl Tally {
    /// An empty tally over the scorer's columns; creates the `--csv` file.
    fn new(args: &ScoreArgs, scorer: &Scorer) -> Result<Self> {
        Ok(Self {
            summary: Summary::new(scorer.summary_columns().into_iter().map(str::to_owned).collect()),
            csv: match &args.csv {
                Some(p) => Some(output::CsvOut::new(p, scorer.columns())?),
                None => None,
            },
            ids: std::collections::HashSet::new(),
            duplicate_ids: (0, None),
            valued: std::collections::HashSet::new(),
            first_skipped: None,
        })
    }

    /// Counts a written row (and writes its CSV line).
    fn count(&mut self, r: &Report) -> Result<()> {
        for (c, v) in &r.scores {
            if v.is_some() && !self.valued.contains(c) {
                self.valued.insert(c.clone());
            }
        }
        if let Some(id) = &r.id {
            if !self.ids.insert(id.clone()) {
                self.duplicate_ids.0 += 1;
                self.duplicate_ids.1.get_or_insert_with(|| id.clone());
            }
        }
        self.summary.add(r);
        if let Some(c) = self.csv.as_mut() {
            c.write(r)?;
        }
        Ok(())
    }
}

/// The output opened for writing.
struct Opened {
    writer: output::RowWriter,
    /// Rows already written by the interrupted run being resumed.
    skip: u64,
    /// A finished output being retried (`--resume` of a complete file with failed rows).
    retry: Option<output::Finished>,
}

/// Opens the output: a Parquet table, a retry of a finished output, a resumed partial file
/// (its rows checked against the input and counted), a new JSONL file or standard output;
/// writes the provenance file before the first row.
///
/// # Errors
/// The output or the provenance file cannot be written; `--resume` of rows that are not
/// this run's or not the input's.
fn open_writer(
    args: &ScoreArgs,
    plan: &Plan,
    scorer: &Scorer,
    records: &mut dyn Iterator<Item = Record>,
    tally: &mut Tally,
) -> Result<Opened> {
    let provenance = scorer.provenance();
    let provenance_file = &plan.provenance_file;
    let new = |writer, skip| Opened { writer, skip, retry: None };
    Ok(match (&plan.out_path, args.resume) {
        (Some(out), _) if plan.kind == OutKind::Parquet => {
            let w = output::RowWriter::parquet(out, &scorer.columns(), provenance)?;
            if let Some(p) = provenance_file {
                output::write_provenance(p, provenance)?;
            }
            new(w, 0)
        }
        (Some(out), true) if output::Finished::applies(out) => {
            // A finished output: its rows carrying failures are scored again, the
            // others kept byte for byte (checked against the input as they are copied).
            let prov_file = provenance_file.clone().unwrap_or_else(|| output::provenance_path(out));
            let (finished, n) = output::Finished::open(out, &prov_file, provenance)?;
            if !args.quiet {
                eprintln!(
                    "resuming a finished output: {} of its {} rows carry failures (metric errors, incomplete LLM results) and are scored again; the others are kept as written",
                    n.failed, n.rows
                );
            }
            let (w, _) = AtomicJsonl::create(out)?;
            Opened { writer: output::RowWriter::Jsonl(w), skip: 0, retry: Some(finished) }
        }
        (Some(out), true) => {
            // Every row already written must be the scoring of the same input record.
            let mut done: Vec<(Option<String>, Option<String>, Option<String>)> = Vec::new();
            let prov_file = provenance_file.clone().unwrap_or_else(|| output::provenance_path(out));
            let (w, r) = AtomicJsonl::resume(out, &prov_file, provenance, |rep| {
                done.push((rep.id.clone(), rep.input_sha256.clone(), rep.system.clone()));
                tally.count(rep)
            })?;
            for (i, (id, hash, system)) in done.iter().enumerate() {
                let Some(rec) = records.next() else {
                    bail!("--resume: the partial output has more rows ({}) than the input; wrong input file?", done.len())
                };
                check_written_row(i as u64 + 1, id.as_deref(), hash.as_deref(), system.as_deref(), &rec)?;
            }
            if !args.quiet {
                eprintln!(
                    "resuming: {} rows already in {} ({} bytes of an incomplete row dropped)",
                    r.rows_done,
                    crate::term::path(&output::partial_path(out)),
                    r.dropped_bytes
                );
            }
            new(output::RowWriter::Jsonl(w), r.rows_done)
        }
        (Some(out), false) => {
            let (w, replaced) = AtomicJsonl::create(out)?;
            // Before the first row (the partial file is held: no other run writes it now).
            if let Some(p) = provenance_file {
                output::write_provenance(p, provenance)?;
            }
            if let (Some(bytes), false) = (replaced, args.quiet) {
                eprintln!(
                    "warning: replaced the partial output of an interrupted run ({bytes} bytes in {}); --resume continues such a run instead",
                    crate::term::path(&output::partial_path(out))
                );
            }
            new(output::RowWriter::Jsonl(w), 0)
        }
        (None, _) => {
            if let Some(p) = provenance_file {
                output::write_provenance(p, provenance)?;
            }
            new(output::RowWriter::Jsonl(AtomicJsonl::stdout()), 0)
        }
    })
}

/// Scores the input block by block and writes the rows (a retry keeps the rows written
/// without failures), with a progress bar; commits the output. Returns the output file
/// (`None`: standard output).
///
/// # Errors
/// A bad row under `--on-error fail` or an unreadable input (naming what is kept), a row
/// that does not match the output being retried, I/O failure.
fn score_rows(
    args: &ScoreArgs,
    plan: &Plan,
    scorer: &Scorer,
    mut records: Box<dyn Iterator<Item = Record> + Send>,
    opened: Opened,
    tally: &mut Tally,
) -> Result<Option<PathBuf>> {
    let Opened { mut writer, skip, mut retry } = opened;
    let total = match plan.format {
        Format::Jsonl if std::fs::metadata(&args.input).is_ok_and(|m| m.is_file()) => input::count_jsonl_records(&args.input),
        _ => None,
    };
    // Rows or CSV streamed to a terminal would be interleaved with the bar drawn on it.
    use std::io::IsTerminal as _;
    let streams_to_stdout = plan.to_stdout || plan.csv_to_stdout;
    let progress = progress_bar(total, !draws_progress(args.quiet, streams_to_stdout, std::io::stdout().is_terminal()));
    progress.set_position(skip);

    let block = match args.block_size {
        Some(n) => usize::try_from(n).unwrap_or(usize::MAX),
        None if plan.llm_selected => (4 * plan.llm_concurrency).max(8),
        None => 256,
    };
    let retrying = retry.is_some();
    // A retry that stops early leaves the finished output as it was, and no partial file
    // (which the next --resume would continue instead of retrying).
    let mut discard = DiscardPartial(plan.out_path.as_deref().filter(|_| retrying).map(output::partial_path));
    let mut explaining = args.explain;
    let mut seen = skip;
    loop {
        let mut recs: Vec<Record> = records.by_ref().take(block).collect();
        if recs.is_empty() {
            if let Some(row) = retry.as_mut().map(output::Finished::next_row).transpose()?.flatten() {
                bail!("--resume: the output has more rows than the input (row {} has id {}); wrong input file?", seen + 1, row.0.id.as_deref().unwrap_or("none"));
            }
            break;
        }
        // --resume of a finished output: the rows written without failures are kept.
        let mut kept = kept_rows(retry.as_mut(), &recs, &mut seen)?;
        // --on-error fail: the rows before the first unreadable one are still scored and kept.
        // An error after which the rest of the input cannot be read stops the run whatever
        // --on-error says: a run that could not read all its input must not look complete.
        let mut unreadable = None;
        let stops = |r: &Record| r.as_ref().err().is_some_and(|e| e.fatal || args.on_error == OnError::Fail);
        if let Some(i) = recs.iter().zip(&kept).position(|(r, k)| k.is_none() && stops(r)) {
            unreadable = recs.split_off(i).into_iter().next().and_then(Result::err);
            kept.truncate(i);
        }
        let to_score: Vec<InputRecord<'_>> = recs
            .iter()
            .zip(&kept)
            .filter(|(_, k)| k.is_none())
            .filter_map(|(r, _)| r.as_ref().ok())
            .map(|r| InputRecord {
                pair: Pair::new(&r.id, &r.source, &r.summary).with_extras(&r.extras),
                row: r.row,
                system: r.system.as_deref(),
            })
            .collect();
        let mut scored = score_with_progress(scorer, &to_score, &progress).into_iter();
        for (rec, keep) in recs.iter().zip(kept) {
            if let Some((row, line)) = keep {
                writer.write_line(&line)?;
                tally.count(&row)?;
                continue;
            }
            let report = match rec {
                Ok(row) => {
                    let rep = scored.next().unwrap_or_default();
                    if args.on_error == OnError::Fail {
                        if let Some(err) = rep.errors.first() {
                            // The failing row is not kept: --resume scores it again.
                            writer.flush()?;
                            progress.abandon();
                            bail!("row {} (id {}): {}: {}{}", row.row, row.id, err.metric, err.message, keep_note(plan, retrying, tally.summary.rows()));
                        }
                    }
                    rep
                }
                Err(e) => {
                    tally.first_skipped.get_or_insert_with(|| e.message.clone());
                    scorer.skipped_row(e.row, e.id.clone(), e.message.clone())
                }
            };
            if explaining {
                let texts = rec.as_ref().ok().map(|r| factpico::explain::RowTexts { source: &r.source, summary: &r.summary });
                explaining = progress.suspend(|| explain(&report, texts.as_ref(), plan.stdout_is_data));
            }
            writer.write(&report)?;
            tally.count(&report)?;
        }
        writer.flush()?;
        progress.inc(recs.len() as u64);
        if let Some(e) = unreadable {
            progress.abandon();
            let advice = if e.fatal { "Fix the input" } else { "Fix the input or pass --on-error skip" };
            bail!("{} (row {}). {advice}{}", e.message, e.row, keep_note(plan, retrying, tally.summary.rows()));
        }
    }
    progress.finish_and_clear();
    let out = writer.finish()?;
    discard.0 = None;
    Ok(out)
}

/// What a stopped run leaves behind, after its error message.
fn keep_note(plan: &Plan, retrying: bool, rows: u64) -> String {
    match &plan.out_path {
        Some(out) if retrying => format!("; {} is left as it was (the next --resume retries its failed rows)", out.display()),
        Some(_) if rows == 0 => "; no row was scored before it".to_owned(),
        Some(out) if plan.kind == OutKind::Parquet => format!(
            "; {} is not written (a Parquet file is written whole: score to .jsonl to keep the {rows} rows before it and --resume)",
            out.display()
        ),
        Some(out) => {
            format!("; the {rows} rows before it are kept in {} (fix the input, then use --resume)", crate::term::path(&output::partial_path(out)))
        }
        None => String::new(),
    }
}

/// A row of a finished output kept as written: the row and its line's bytes.
type KeptRow = (Report, Vec<u8>);

/// `--resume` of a finished output: for each record of the block, the row already written
/// when it carries no failure (kept as written), else `None` (scored again); each written
/// row is checked against its record. Without a retry, `None` for every record. `seen`
/// counts the records.
///
/// # Errors
/// The output has fewer rows than the input, or a row is not its record's.
fn kept_rows(mut retry: Option<&mut output::Finished>, recs: &[Record], seen: &mut u64) -> Result<Vec<Option<KeptRow>>> {
    let mut kept: Vec<Option<KeptRow>> = Vec::with_capacity(recs.len());
    for rec in recs {
        *seen += 1;
        let Some(f) = retry.as_deref_mut() else {
            kept.push(None);
            continue;
        };
        let Some((row, line)) = f.next_row()? else {
            bail!("--resume: the output has fewer rows ({}) than the input; wrong input file?", *seen - 1)
        };
        check_written_row(*seen, row.id.as_deref(), row.input_sha256.as_deref(), row.system.as_deref(), rec)?;
        kept.push((!row.carries_failure()).then_some((row, line)));
    }
    Ok(kept)
}

/// After the rows are committed: the CSV and `--summary` files, the per-system table with
/// the metrics' run reports, the warnings (skipped records, repeated ids, metrics without
/// any value) and the exit status (3 when work failed or a metric produced no value).
///
/// # Errors
/// The CSV, the summary table or standard output cannot be written (saying that the rows were).
fn finish(args: &ScoreArgs, plan: &Plan, scorer: &Scorer, out: Option<&Path>, tally: Tally) -> Result<i32> {
    let Tally { summary, csv, duplicate_ids, valued, first_skipped, .. } = tally;
    // From here on the rows are committed: a later failure says so.
    let rows_are = |what: &str| match out {
        Some(o) => format!("the rows are complete in {}, but {what}", o.display()),
        None => format!("the rows are complete (written to standard output), but {what}"),
    };
    if let Some(c) = csv {
        c.finish().with_context(|| rows_are("the --csv file could not be written"))?;
    }
    // Run-level reports (e.g. LLM requests, tokens, failures) under the per-system table.
    let reports = scorer.run_reports();
    let mut table = summary.to_markdown();
    for (name, r) in &reports {
        use std::fmt::Write as _;
        let lines: Vec<String> = r.lines.iter().map(|(k, v)| format!("{k}: {v}")).collect();
        let _ = write!(table, "\n**{name}** — {}\n", lines.join("; "));
    }
    let failures: u64 = reports.iter().map(|(_, r)| r.failures).sum();
    if let Some(p) = args.summary.as_deref().filter(|p| !output::is_stdout(p)) {
        output::write_atomic(p, table.as_bytes()).with_context(|| rows_are("the --summary table could not be written"))?;
    }
    let valueless = valueless_metrics(args, scorer, &summary, &valued);
    if !args.quiet {
        let (rows, skipped) = (summary.rows(), summary.skipped());
        match out {
            Some(out) => eprintln!("wrote {rows} rows ({skipped} skipped) to {}", crate::term::path(out)),
            None => eprintln!("wrote {rows} rows ({skipped} skipped) to standard output"),
        }
        if rows == 0 {
            eprintln!("warning: the input had no records");
        }
    }
    if summary.skipped() > 0 {
        // Visible even with -q: rows of the input are missing from the scores.
        eprintln!(
            "warning: {} input records could not be read and were skipped (recorded as skipped rows){}",
            summary.skipped(),
            crate::term::escape_inline(&first_skipped.map(|m| format!("; first: {m}")).unwrap_or_default())
        );
    }
    if duplicate_ids.0 > 0 {
        eprintln!(
            "warning: {} rows repeat an id seen before (first: {}); ids should be unique to join with ratings or diff",
            duplicate_ids.0,
            crate::term::escape_inline(&duplicate_ids.1.unwrap_or_default())
        );
    }
    // System names in the table are data: escaped on the terminal (the --summary file keeps them).
    let table = escape_controls(&table);
    if plan.stdout_is_data {
        eprintln!("{table}");
    } else {
        let written = output::print_stdout(&format!("{table}\n"))
            .context("cannot write the per-system table (the rows were written)")?;
        if !written {
            // Its reader closed standard output (`--explain | head`): the table is not lost.
            eprintln!("standard output was closed; the per-system table:\n{table}");
        }
    }
    for name in &valueless {
        // Visible even with -q; exit status 3 as for failed work.
        eprintln!(
            "warning: metric {name} produced no value in any of the {} rows ({} skipped): every value is null; see the rows' `nulls`, `errors` and `skipped`",
            summary.rows(),
            summary.skipped()
        );
    }
    if failures > 0 {
        for (name, r) in reports.iter().filter(|(_, r)| r.failures > 0) {
            eprintln!("error: {name}: {}", escape_controls(&crate::flags::for_cli(r.advice.as_deref().unwrap_or("some work failed"))));
        }
        // Every row was written (with documented nulls where work failed); the exit status
        // says the run is incomplete.
        return Ok(3);
    }
    if !valueless.is_empty() {
        return Ok(3);
    }
    Ok(0)
}

/// Requested metrics that produced no value in any row (every record skipped, every row
/// failed or a documented null): they must not let the run look successful, whatever
/// --on-error says (under fail, every value can still be a documented null: empty
/// summaries, LLM replies that do not parse).
fn valueless_metrics(
    args: &ScoreArgs,
    scorer: &Scorer,
    summary: &Summary,
    valued: &std::collections::HashSet<String>,
) -> Vec<&'static str> {
    let columns = scorer.columns();
    let mut valueless: Vec<&'static str> = Vec::new();
    if summary.rows() > 0 {
        for name in &args.metrics {
            let Some(info) = factpico::metric_info(name) else { continue };
            let cols: Vec<&str> = info.columns.iter().map(|c| c.name).filter(|c| columns.contains(c)).collect();
            if !cols.is_empty() && !cols.iter().any(|c| valued.contains(*c)) && !valueless.contains(&info.name) {
                valueless.push(info.name);
            }
        }
    }
    valueless
}

/// Removes the partial file it names when dropped (a retry of a finished output that stopped
/// early); disarmed (`None`) once the output is committed.
struct DiscardPartial(Option<PathBuf>);

impl Drop for DiscardPartial {
    fn drop(&mut self) {
        if let Some(p) = self.0.take() {
            let _ = std::fs::remove_file(p);
        }
    }
}

/// Checks that input record `n` (1-based) is the record a written row was computed from
/// (`id`, `hash` = its `input_sha256`, `system`), as `--resume` requires.
///
/// # Errors
/// A different record (id or texts), system, or a record that cannot be read now but was
/// scored before.
fn check_written_row(n: u64, id: Option<&str>, hash: Option<&str>, system: Option<&str>, rec: &Record) -> Result<()> {
    match rec {
        Ok(rec) => {
            if id != Some(rec.id.as_str()) || hash != Some(input_sha256(&rec.source, &rec.summary, &rec.extras).as_str()) {
                bail!(
                    "--resume: input row {n} (id {}) is not the row already written as row {n} (id {}): a different input file, row order or field mapping; rerun without --resume",
                    rec.id,
                    id.unwrap_or("none")
                );
            }
            if hash.is_some() && rec.system.as_deref() != system {
                let show = |s: Option<&str>| s.map_or_else(|| "none".to_owned(), |s| format!("`{s}`"));
                bail!(
                    "--resume: input row {n} (id {}) has system {} but was written with system {}: the system values or --system-field changed; rerun without --resume",
                    rec.id,
                    show(rec.system.as_deref()),
                    show(system)
                );
            }
        }
        Err(e) => {
            if hash.is_some() {
                bail!("--resume: input row {n} cannot be read now ({}) but was scored before; wrong input file?", e.message);
            }
        }
    }
    Ok(())
}

/// `--dry-run`: reads the input and prints what the run would cost per metric, from the
/// units' plans; builds no metric, contacts nothing, writes nothing.
fn dry_run(args: &ScoreArgs, format: Format) -> Result<i32> {
    let options = args.scorer_options();
    let mut infos: Vec<&'static factpico::MetricInfo> = Vec::new();
    for name in &options.metrics {
        let info = factpico::metric_info(name)
            .with_context(|| format!("unknown metric {name:?} (available: {})", factpico::metric_names()))?;
        if !infos.iter().any(|i| i.name == info.name) {
            infos.push(info);
        }
    }
    let mut inputs: Vec<&'static factpico::RowInput> = Vec::new();
    for i in infos.iter().flat_map(|m| m.inputs) {
        if !inputs.iter().any(|o| o.name == i.name) {
            inputs.push(i);
        }
    }
    let records = input::open(&args.input, format, &args.fields.field_map(args.extra_fields(&inputs)?))?;
    let (mut rows, mut unreadable) = (Vec::new(), 0u64);
    for r in records {
        match r {
            Ok(r) => rows.push(r),
            Err(_) => unreadable += 1,
        }
    }
    let pairs: Vec<Pair<'_>> = rows.iter().map(|r| Pair::new(&r.id, &r.source, &r.summary).with_extras(&r.extras)).collect();
    println!("dry run: {} rows read ({unreadable} unreadable) from {}", pairs.len(), crate::term::path(&args.input));
    let mut refused = 0;
    for info in infos {
        match factpico::units::plan(info, &options, &pairs) {
            Some(Ok(line)) => println!("{line}"),
            Some(Err(e)) => {
                // what the run would refuse: an error, so that the dry run's exit says so
                refused += 1;
                println!("{}: refused: {}", info.name, crate::flags::for_cli(&factpico::error_chain(&e)));
                eprintln!("error: {}: {}", info.name, crate::flags::for_cli(&factpico::error_chain(&e)));
            }
            None => println!("{}: computed locally; no request to count", info.name),
        }
    }
    println!("nothing was sent or written");
    Ok(if refused > 0 { 2 } else { 0 })
}

/// Prints a row's explanation (`--explain`: each metric unit's rendering of its details) to
/// standard output, or to standard error when the rows go to standard output (`-o -`). Returns `false` when standard output can no longer be
/// written (its reader closed it, as `| head` does, or a write failed): explaining stops
/// with a warning, scoring goes on.
fn explain(r: &Report, texts: Option<&factpico::explain::RowTexts<'_>>, to_stderr: bool) -> bool {
    // Ids, texts and details are data: escaped for the terminal.
    let rendered = factpico::explain::render_text(r, &factpico::explain_report(r), texts);
    let s = escape_controls(&rendered);
    if to_stderr {
        eprint!("{s}");
        return true;
    }
    let why = match output::print_stdout(&s) {
        Ok(true) => return true,
        Ok(false) => "standard output was closed".to_owned(),
        Err(e) => format!("{e:#}"),
    };
    eprintln!("warning: {why}: --explain stops printing explanations; scoring goes on");
    false
}

/// Scores a block while showing the metrics' live status ([`factpico::Scorer::progress`]: an
/// LLM evaluator's requests) in the bar's message, and — as the bar is not drawn when
/// standard error is not a terminal — as an info log line (`-v`) every 5 seconds when it
/// changed.
fn score_with_progress(scorer: &factpico::Scorer, records: &[InputRecord<'_>], bar: &indicatif::ProgressBar) -> Vec<Report> {
    if scorer.metrics().all(|m| m.progress().is_none()) {
        return scorer.score_records(records);
    }
    let done = std::sync::atomic::AtomicBool::new(false);
    let line = || scorer.progress().into_iter().map(|(m, l)| format!("{m}: {l}")).collect::<Vec<_>>().join("; ");
    std::thread::scope(|s| {
        s.spawn(|| {
            let mut logged = (std::time::Instant::now(), String::new());
            while !done.load(std::sync::atomic::Ordering::Relaxed) {
                let now = line();
                bar.set_message(now.clone());
                if logged.0.elapsed() >= std::time::Duration::from_secs(5) && now != logged.1 {
                    log::info!("{now}");
                    logged = (std::time::Instant::now(), now);
                }
                std::thread::sleep(std::time::Duration::from_millis(250));
            }
            bar.set_message(line());
        });
        let out = scorer.score_records(records);
        done.store(true, std::sync::atomic::Ordering::Relaxed);
        out
    })
}

/// Whether `score` draws its progress bar (on standard error): not under `-q`, and not when
/// rows or CSV lines stream to standard output on a terminal (the bar, drawn on the same
/// terminal, would be glued into the rows). A bar on a non-terminal standard error is hidden
/// by indicatif itself.
fn draws_progress(quiet: bool, streams_to_stdout: bool, stdout_is_terminal: bool) -> bool {
    !(quiet || (streams_to_stdout && stdout_is_terminal))
}

fn progress_bar(total: Option<u64>, hidden: bool) -> indicatif::ProgressBar {
    if hidden {
        return indicatif::ProgressBar::hidden();
    }
    let pb = match total {
        Some(n) => indicatif::ProgressBar::new(n),
        None => indicatif::ProgressBar::new_spinner(),
    };
    pb.set_draw_target(indicatif::ProgressDrawTarget::stderr_with_hz(4));
    let style = match total {
        Some(_) => "{spinner} [{elapsed_precise}] {wide_bar} {pos}/{len} rows ({per_sec}, eta {eta}) {wide_msg}",
        None => "{spinner} [{elapsed_precise}] {pos} rows ({per_sec}) {wide_msg}",
    };
    if let Ok(s) = indicatif::ProgressStyle::with_template(style) {
        pb.set_style(s);
    }
    pb
}

#[cfg(test)]
mod tests {
    use super::draws_progress;

    /// Issue 23: with rows (`-o -`) or CSV (`--csv -`) on a terminal standard output, no
    /// progress bar is drawn on that terminal.
    #[test]
    fn no_progress_bar_when_rows_stream_to_a_terminal() {
        assert!(draws_progress(false, false, true), "rows to a file, table on the terminal");
        assert!(draws_progress(false, false, false));
        assert!(draws_progress(false, true, false), "rows to a pipe or file: the bar on stderr is harmless");
        assert!(!draws_progress(false, true, true), "rows to the terminal");
        assert!(!draws_progress(true, false, true), "-q");
        assert!(!draws_progress(true, true, false));
    }
}
