//! The `factpico` command-line tool ([`factpico_cli::run`]).
//!
//! * `factpico score INPUT` — score (abstract, summary) pairs; JSONL out, per-system table.
//! * `factpico diff OLD NEW` — compare two score files with tolerances; non-zero exit on drift.
//! * `factpico metrics` — list metrics, their columns, ranges, directions and references.
//! * `factpico meta-eval` — agreement of metric columns with expert ratings (tables, plots).
//! * `factpico report SCORES` — one self-contained HTML page to read a score file.
//! * `factpico models list | pull | import | rm | path` — the published models by name (`models.rs`).
//! * `factpico setup ort` — install the ONNX Runtime library from PyPI for the model-based metrics.

fn main() -> std::process::ExitCode {
    std::process::ExitCode::from(factpico_cli::run(std::env::args_os()))
}
