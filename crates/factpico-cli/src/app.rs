//! The `factpico` command line as a function of its arguments ([`run`]): what the binary
//! (`src/main.rs`) and the Python package's `factpico` console script both call.
//!
//! * `factpico score INPUT` — score (abstract, summary) pairs; JSONL out, per-system table.
//! * `factpico diff OLD NEW` — compare two score files with tolerances; non-zero exit on drift.
//! * `factpico metrics` — list metrics, their columns, ranges, directions and references.
//! * `factpico meta-eval` — agreement of metric columns with expert ratings (tables, plots).
//! * `factpico report SCORES` — one self-contained HTML page to read a score file.
//! * `factpico models list | pull | import | rm | path` — the published models by name (`models.rs`).
//! * `factpico llm batch export | import` — the LLM metrics' requests as a Batch API file, and its answers.
//! * `factpico setup ort` — install the ONNX Runtime library from PyPI for the model-based metrics.

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};

use crate::{diff, llm_batch, logging, meta_eval, models, output, report, score, setup};

/// Scores plain-language summaries of medical evidence for factuality and readability.
#[derive(Debug, Parser)]
#[command(name = "factpico", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
    /// More log lines on standard error: `-v` factpico's debug lines, `-vv` every library's,
    /// `-vvv` trace (default: warnings and errors; `-q` errors only; `RUST_LOG` when neither
    /// is given).
    #[arg(short, long, action = clap::ArgAction::Count, global = true)]
    verbose: u8,
}

// Parsed once per process: the variants' size difference does not matter.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Subcommand)]
enum Cmd {
    /// Score a file of (abstract, summary) pairs.
    Score(score::ScoreArgs),
    /// Compare two score files row by row; exit 1 when any value drifted beyond its tolerance.
    Diff(diff::DiffArgs),
    /// Meta-evaluate metric columns against human ratings
    MetaEval(meta_eval::MetaEvalArgs),
    /// Write one self-contained HTML page to read a score file (texts, sentence support, arcs, questions).
    Report(report::ReportArgs),
    /// List the available metrics and their output columns.
    Metrics,
    /// The LLM metrics' batch files: `llm batch export` (the requests missing from the cache,
    /// as an OpenAI Batch API / `vllm run-batch` input file), `llm batch import` (the answers).
    Llm(llm_batch::LlmArgs),
    /// The published models metrics use: list, pull (download + install), import, rm, path.
    Models(models::ModelsArgs),
    /// Install what model-based metrics need (the ONNX Runtime library).
    Setup {
        #[command(subcommand)]
        what: setup::SetupWhat,
    },
}

/// The metric and unit tables (Markdown) of `factpico metrics`.
fn list_metrics() -> String {
    use std::fmt::Write as _;
    let mut s = String::new();
    let _ = writeln!(s, "| metric | column | range | better | reference |\n|---|---|---|---|---|");
    for m in factpico::registry() {
        for c in m.columns {
            let range = format!(
                "[{}, {}]",
                c.min.map_or("-inf".to_owned(), |v| v.to_string()),
                c.max.map_or("+inf".to_owned(), |v| v.to_string())
            );
            let better = match c.direction {
                factpico::Direction::HigherIsBetter => "higher",
                factpico::Direction::LowerIsBetter => "lower",
            };
            let feat = m.feature.map(|f| format!(" (feature `{f}`)")).unwrap_or_default();
            let _ = writeln!(s, "| {}{feat} | {} | {range} | {better} | {} |", m.name, c.name, m.reference);
        }
    }
    // Per unit: its options section, metrics, aliases, side inputs and whether it is built in.
    let _ = writeln!(s, "\n| unit (options key) | metrics | aliases | per-row inputs | in this build |\n|---|---|---|---|---|");
    for u in factpico::units::units() {
        let names: Vec<&str> = u.metrics.iter().map(|m| m.name).collect();
        let aliases: Vec<String> =
            u.metrics.iter().flat_map(|m| m.aliases.iter().map(move |a| format!("{a} → {}", m.name))).collect();
        // An input read by several metrics of the unit is listed once.
        let mut inputs: Vec<String> = Vec::new();
        for i in u.metrics.iter().flat_map(|m| m.inputs) {
            let line = format!("`{}`: {}", i.name, crate::flags::for_cli(i.description));
            if !inputs.iter().any(|l| l.starts_with(&format!("`{}`:", i.name))) {
                inputs.push(line);
            }
        }
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} |",
            u.key,
            names.join(", "),
            if aliases.is_empty() { "–".to_owned() } else { aliases.join(", ") },
            if inputs.is_empty() { "–".to_owned() } else { inputs.join("; ") },
            if u.compiled_in { "yes" } else { "no (cargo feature off)" }
        );
    }
    s
}

/// Runs the command line on `args` (the program name first, as `std::env::args_os()`) and
/// returns its exit status: 0 success, 1 `diff` drift, 2 error, 3 rows carrying failures
/// (`docs/cli.md`). `--help`, `--version` and argument errors print and exit the process, as
/// clap does.
pub fn run<I, T>(args: I) -> u8
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    let matches = crate::flags::value_names(Cli::command()).get_matches_from(args);
    let cli = Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    let quiet = match &cli.cmd {
        Cmd::Score(a) => a.quiet,
        Cmd::Report(a) => a.quiet,
        Cmd::MetaEval(a) => a.quiet,
        Cmd::Llm(a) => a.quiet(),
        _ => false,
    };
    logging::init(quiet, cli.verbose);
    let result = match &cli.cmd {
        Cmd::Score(a) => score::run(a, matches.subcommand_matches("score")),
        Cmd::Diff(a) => diff::run(a),
        Cmd::MetaEval(a) => meta_eval::run(a),
        Cmd::Report(a) => report::run(a),
        Cmd::Setup { what } => setup::run(what),
        Cmd::Models(a) => models::run(a),
        Cmd::Llm(a) => llm_batch::run(a),
        // A closed standard output (`| head`) ends the listing quietly.
        Cmd::Metrics => output::print_stdout(&list_metrics()).map(|_| 0),
    };
    match result {
        Ok(code) => u8::try_from(code).unwrap_or(1),
        Err(e) => {
            // Errors quote ids, texts and server messages: escaped for the terminal.
            // Library messages name options by field; the user typed flags (`flags`: each
            // command's own table).
            let message = format!("{e:#}");
            let message = match &cli.cmd {
                Cmd::MetaEval(_) => crate::flags::for_meta_eval(&message),
                Cmd::Report(_) => crate::flags::for_report(&message),
                _ => crate::flags::for_cli(&message),
            };
            eprintln!("error: {}", crate::term::escape_controls(&message));
            2
        }
    }
}
