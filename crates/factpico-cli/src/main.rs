//! The `factpico` command-line tool.
//!
//! * `factpico score INPUT` — score (abstract, summary) pairs; JSONL out, per-system table.
//! * `factpico diff OLD NEW` — compare two score files with tolerances; non-zero exit on drift.
//! * `factpico metrics` — list metrics, their columns, ranges, directions and references.
//! * `factpico meta-eval` — agreement of metric columns with expert ratings (tables, plots).
//! * `factpico setup ort` — install the ONNX Runtime library from PyPI for the model-based metrics.

mod diff;
// The input readers live in the library target (fuzzed and tested there).
use factpico_cli::input;
mod meta_eval;
mod output;
mod score;
mod setup;
mod summary;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};

/// Scores plain-language summaries of medical evidence for factuality and readability.
#[derive(Debug, Parser)]
#[command(name = "factpico", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
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
    /// List the available metrics and their output columns.
    Metrics,
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
        let inputs: Vec<String> =
            u.metrics.iter().flat_map(|m| m.inputs.iter().map(|i| format!("`{}`: {}", i.name, i.description))).collect();
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

fn main() -> std::process::ExitCode {
    let matches = Cli::command().get_matches();
    let cli = Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    let result = match &cli.cmd {
        Cmd::Score(a) => score::run(a, matches.subcommand_matches("score")),
        Cmd::Diff(a) => diff::run(a),
        Cmd::MetaEval(a) => meta_eval::run(a),
        Cmd::Setup { what } => setup::run(what),
        // A closed standard output (`| head`) ends the listing quietly.
        Cmd::Metrics => output::print_stdout(&list_metrics()).map(|_| 0),
    };
    match result {
        Ok(code) => std::process::ExitCode::from(u8::try_from(code).unwrap_or(1)),
        Err(e) => {
            eprintln!("error: {e:#}");
            std::process::ExitCode::from(2)
        }
    }
}
