//! `cargo xtask`: developer tasks for factpico.
//!
//! * `cargo xtask test` — the project's test command (README, `.ci/run`):
//!   prepares what tests need (see below) and runs `cargo test --workspace`.
//!   Preparation: the ONNX Runtime library (fetched from PyPI into `$FACTPICO_HOME/ort` by
//!   `factpico_runtime::setup_ort` when absent) is passed to the tests as `ORT_DYLIB_PATH`.
//! * `cargo xtask ort` — install ONNX Runtime into `$FACTPICO_HOME/ort` (see `ort.rs`).
//! * `cargo xtask export alignscore|hf|quantize ...` — the `onnx/` export scripts (`export.rs`).
//! * `cargo xtask models alignscore-base|alignscore-large` — fetch + export public checkpoints.
//! * `cargo xtask fixtures alignscore` — tiny AlignScore fixture model + reference goldens.
//! * `cargo xtask bench alignscore` — factpico vs the Python reference (`bench.rs`).
//! * `cargo xtask sidecar` — the spaCy sidecar venv (`sidecar.rs`); `cargo xtask test` sets it
//!   up too and passes it to the tests as `FACTPICO_SIDECAR_PYTHON`.
//! * `cargo xtask fixtures qa` / `cargo xtask bench qa` — QA fixtures + goldens, QuestEval
//!   benchmark vs the Python reference (`bench_qa.rs`).
//! * `cargo xtask llm-venv` — the LLM tests' venv (`llm.rs`: xllamacpp + gguf); `cargo xtask test`
//!   sets it up too and passes it to the tests as `FACTPICO_LLM_PYTHON`.
//! * `cargo xtask bench llm` — factpico's LLM client vs the Python `openai` client on a local
//!   llama.cpp server (`bench_llm.rs`).
//! * `cargo xtask bench dae` — DAE arcs/s and summaries/s, sidecar parse time (`bench_dae.rs`).
//! * `cargo xtask fuzz [TARGET...] [--seconds N]` — libFuzzer runs of the input and arc
//!   readers, sequentially (`fuzz.rs`; not part of CI, which replays the committed corpus).
use std::process::Command;

use anyhow::{bail, Context, Result};
use clap::{Parser, Subcommand};

mod bench;
mod bench_model_free;
mod export;
mod fixtures;
mod fuzz;
mod ort;
mod python;
mod bench_dae;
mod bench_qa;
mod sidecar;
mod llm;
mod bench_llm;

#[derive(Parser)]
#[command(name = "xtask", about = "factpico developer tasks")]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Run the full test suite (what `.ci/run` runs).
    Test {
        /// Extra arguments passed to `cargo test` (e.g. `--test cli`, `-- --nocapture`); the
        /// test harness always gets `--show-output`, so passing tests print what they compared.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
    /// Install the ONNX Runtime library into $FACTPICO_HOME/ort (from the PyPI wheel).
    Ort,
    /// Export a model to a factpico model directory (runs onnx/*.py in a venv).
    Export {
        #[command(subcommand)]
        what: export::Export,
    },
    /// Fetch and export a public model (alignscore-base, alignscore-large) into $FACTPICO_HOME/models.
    Models {
        /// alignscore-base or alignscore-large.
        name: String,
        /// Output directory (default $FACTPICO_HOME/models/<name>).
        #[arg(long)]
        out: Option<std::path::PathBuf>,
        /// Also write an int8 copy to <out>-int8.
        #[arg(long)]
        int8: bool,
    },
    /// Regenerate committed fixtures and goldens (alignscore).
    Fixtures {
        /// Fixture set: alignscore.
        what: String,
        /// Skip the real pairs of ../shared in the goldens.
        #[arg(long)]
        no_real: bool,
    },
    /// Create the spaCy sidecar venv ($FACTPICO_HOME/sidecar-venv) with pinned requirements.
    Sidecar {
        /// Venv directory (default $FACTPICO_HOME/sidecar-venv).
        #[arg(long)]
        venv: Option<std::path::PathBuf>,
        /// Base interpreter used to create the venv (default python3).
        #[arg(long)]
        python: Option<String>,
    },
    /// Create the LLM tests' venv ($FACTPICO_HOME/llm-venv: xllamacpp + gguf from PyPI).
    LlmVenv {
        /// Venv directory (default $FACTPICO_HOME/llm-venv).
        #[arg(long)]
        venv: Option<std::path::PathBuf>,
    },
    /// Fuzz the input readers (JSONL, JSON array, CSV, TSV) and the CoNLL-U / JSON-arcs readers
    /// with cargo-fuzz (libFuzzer), one target after another; crashes go to fuzz/regressions/.
    Fuzz {
        /// Targets (default all): jsonl, json_array, csv, tsv, conllu, json_arcs.
        targets: Vec<String>,
        /// Seconds per target.
        #[arg(long, default_value_t = 600)]
        seconds: u64,
        /// cargo-fuzz sanitizer: address, none, ...
        #[arg(long, default_value = "address")]
        sanitizer: String,
    },
    /// Benchmarks (alignscore): factpico vs the Python reference; writes BENCHMARKS.md numbers.
    Bench {
        /// Benchmark: model-free (ROUGE-L + FKGL), alignscore, dae, qa, llm (client vs Python openai).
        what: String,
        /// Number of real pairs.
        #[arg(long, default_value_t = 100)]
        pairs: usize,
    },
}

pub(crate) fn cargo() -> Command {
    Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
}

fn run(cmd: &mut Command) -> Result<()> {
    let status = cmd.status().with_context(|| format!("could not start {cmd:?}"))?;
    if !status.success() {
        bail!("{cmd:?} failed with {status}");
    }
    Ok(())
}

fn main() -> Result<()> {
    let cli = Cli::parse();
    match cli.cmd {
        Cmd::Test { args } => {
            let mut cmd = cargo();
            if let Some(lib) = ort::prepare_for_tests()? {
                cmd.env("ORT_DYLIB_PATH", lib);
            }
            if let Some(py) = sidecar::prepare_for_tests()? {
                cmd.env(sidecar::PYTHON_ENV, py);
            }
            if let Some(py) = llm::prepare_for_tests()? {
                cmd.env(llm::PYTHON_ENV, py);
            }
            // --no-fail-fast: one failing test binary must not hide the results of the others.
            // --show-output: the golden/parity tests print what they compared (counts), and
            // that evidence belongs in CI's log, not only in failures.
            let mut args = args;
            match args.iter().position(|a| a == "--") {
                Some(i) => args.insert(i + 1, "--show-output".into()),
                None => args.extend(["--".into(), "--show-output".into()]),
            }
            run(cmd.args(["test", "--workspace", "--locked", "--no-fail-fast"]).args(args))
        }
        Cmd::Ort => ort::setup(),
        Cmd::Fuzz { targets, seconds, sanitizer } => fuzz::fuzz(&targets, seconds, &sanitizer),
        Cmd::Export { what } => export::export(what),
        Cmd::Models { name, out, int8 } => export::models(&name, out, int8),
        Cmd::Fixtures { what, .. } if what == "qa" => bench_qa::fixtures(),
        Cmd::Fixtures { what, no_real } => fixtures::fixtures(&what, no_real),
        Cmd::Sidecar { venv, python } => sidecar::setup(venv, python).map(|_| ()),
        Cmd::LlmVenv { venv } => llm::setup(venv).map(|_| ()),
        Cmd::Bench { what, .. } if what == "model-free" => bench_model_free::run(5),
        Cmd::Bench { what, pairs } if what == "dae" => bench_dae::bench(pairs),
        Cmd::Bench { what, pairs } if what == "qa" => bench_qa::bench(pairs),
        Cmd::Bench { what, pairs } if what == "llm" => bench_llm::bench(pairs),
        Cmd::Bench { what, pairs } => bench::bench(&what, pairs),
    }
}
