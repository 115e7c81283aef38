//! `cargo xtask`: developer tasks for factpico.
//!
//! * `cargo xtask test` — the project's test command (README, `.ci/run`):
//!   prepares what tests need (see below) and runs `cargo test --workspace`.
//!   Preparation: the ONNX Runtime library (fetched from PyPI into `$FACTPICO_HOME/ort` by
//!   `factpico_runtime::setup_ort` when absent) is passed to the tests as `ORT_DYLIB_PATH`.
//! * `cargo xtask ort` — install ONNX Runtime into `$FACTPICO_HOME/ort` (see `ort.rs`).
//! * `cargo xtask export alignscore|hf|quantize ...` — the `onnx/` export scripts (`export.rs`).
//! * `cargo xtask models [--list | NAME [--from DIR]]` — every published model of the library's
//!   catalogue (`crates/factpico-models/catalogue.json`): the library's pull with the export
//!   venv, or the same export from files placed by hand (`models.rs`).
//! * `cargo xtask replicas` — random-weight replicas of every published file format, exported
//!   with the user-facing command and checked against the reference's own loader (`replicas.rs`).
//! * `cargo xtask replica NAME --out DIR --tiny` — the replica of one catalogue entry's files in
//!   the hub layout `DIR/<org>/<repo>/<file>`, for a local hub (`replicas.rs`).
//! * `cargo xtask venv NAME` — create one of the Python environments (`python.rs`).
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
//! * `cargo xtask bench dae` — DAE's model step against DAE-2021's own code (the DAE venv,
//!   `$FACTPICO_DAE_REFERENCE`), arcs/s and summaries/s, sidecar parse time (`bench_dae.rs`).
//! * `cargo xtask browser` — Debian's chromium + chromedriver for the `factpico report` browser
//!   tests (`browser.rs`; apt-get as root when absent); `cargo xtask test` sets it up too.
//! * `cargo xtask bench report` — size and time to first render of 1,000- and 10,000-row
//!   report pages in headless Chromium (`bench_report.rs`).
//! * `cargo xtask pytest [ARGS]` — the Python package's stage alone (`pytest.rs`): venv, wheel,
//!   pytest; `cargo xtask test` runs it after `cargo test` unless given targeted arguments.
//! * `cargo xtask fixtures summac` / `cargo xtask bench summac` — SummaC fixtures + goldens,
//!   benchmark vs the Python reference (`summac.rs`).
//! * `cargo xtask fixtures minicheck` / `cargo xtask bench minicheck` — MiniCheck replicas,
//!   fixtures + goldens, benchmark vs the reference (`minicheck.rs`).
//! * `cargo xtask bench all [--pairs N] [--only NAME,...] [--fresh] [--redo NAME] [--debug]` —
//!   every comparison above one after the other, resumable per section (results stored under
//!   `target/bench-all/`), then the generated tables of BENCHMARKS.md (`bench_all.rs`); its
//!   `int8` section compares the `--int8` copies with their fp32 graphs (`bench_int8.rs`).
//! * `cargo xtask fuzz [TARGET...] [--seconds N]` — libFuzzer runs of the input and arc
//!   readers, sequentially (`fuzz.rs`; not part of CI, which replays the committed corpus).
use std::process::Command;

use anyhow::{bail, Context, Result};
use clap::{Parser, Subcommand};

mod bench;
mod bench_all;
mod bench_model_free;
mod export;
mod fixtures;
mod fuzz;
mod models;
mod ort;
mod python;
mod pytest;
mod replicas;
mod bench_dae;
mod bench_int8;
mod bench_qa;
mod bench_report;
mod browser;
mod minicheck;
mod sidecar;
mod summac;
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
    /// The Python package's tests only (venv, wheel, pytest); extra arguments go to pytest.
    Pytest {
        /// Extra arguments passed to pytest (e.g. `-k rouge`, `-x`).
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
    /// Download and export a published model into $FACTPICO_HOME/models/NAME (or, with
    /// --from, export files placed by hand). `--list` shows every model.
    Models {
        /// Model name (see --list).
        #[arg(required_unless_present = "list")]
        name: Option<String>,
        /// List every model with its source, licence and command.
        #[arg(long, conflicts_with_all = ["from", "out", "int8"])]
        list: bool,
        /// Directory holding the model's files (layout: see the message of `cargo xtask models NAME`
        /// or onnx/README.md); runs the export offline.
        #[arg(long)]
        from: Option<std::path::PathBuf>,
        /// Output directory (default $FACTPICO_HOME/models/<name>).
        #[arg(long)]
        out: Option<std::path::PathBuf>,
        /// Also write an int8 copy to <out>-int8 (single-graph models).
        #[arg(long)]
        int8: bool,
    },
    /// Build random-weight replicas of every published checkpoint format, export them with
    /// `cargo xtask models NAME --from DIR` and check them against the reference's own loader.
    Replicas {
        /// Only this replica (alignscore, dae, questeval, bertscore, qafacteval-qg, qafacteval-qa, lerc).
        #[arg(long)]
        only: Vec<String>,
        /// Working directory (default <repo>/.factpico/replicas; kept for inspection).
        #[arg(long)]
        work: Option<std::path::PathBuf>,
        /// Reuse replicas, exports and reference runs already in the working directory.
        #[arg(long)]
        reuse: bool,
    },
    /// Write random-weight replicas of every file catalogue entry NAME pulls, under the
    /// publisher's names and formats, in the hub layout DIR/<org>/<repo>/<file> (serve DIR with
    /// `cargo run -p factpico-models --example hub_server -- DIR`).
    Replica {
        /// Catalogue name (alignscore-base, alignscore-large, dae-xsum, questeval-qg, ...).
        name: String,
        /// Output directory (the hub layout).
        #[arg(long)]
        out: std::path::PathBuf,
        /// Tiny dimensions (a few MB; the only size the builders write, so required).
        #[arg(long)]
        tiny: bool,
        /// Working directory of the builder (default <repo>/.factpico/replica/<family>).
        #[arg(long)]
        work: Option<std::path::PathBuf>,
    },
    /// Create a Python environment (export, reference, qaeval, dae) under <repo>/.venv-NAME.
    Venv {
        /// Recipe name.
        name: String,
    },
    /// Regenerate committed fixtures and goldens (alignscore).
    Fixtures {
        /// Fixture set: alignscore, qa, minicheck.
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
    /// Install the headless browser of the report tests (chromium, chromedriver) when absent.
    Browser,
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
        /// Benchmark: model-free (ROUGE-L + FKGL), alignscore, dae (model step vs DAE-2021's code), qa (QuestEval vs the reference),
        /// qafacteval (factpico only), report (page size and time to first render), python (the Python package),
        /// summac, minicheck (or minicheck:VARIANT,... for some checkers),
        /// llm (client vs Python openai), or all (every comparison, resumable; see --only, --redo,
        /// --fresh).
        what: String,
        /// Number of real pairs.
        #[arg(long, default_value_t = 100)]
        pairs: usize,
        /// bench all: only these sections (repeatable or comma-separated).
        #[arg(long)]
        only: Vec<String>,
        /// bench all: rerun these sections although their results are stored.
        #[arg(long)]
        redo: Vec<String>,
        /// bench all: rerun every section.
        #[arg(long)]
        fresh: bool,
        /// bench all: build factpico's side in the dev profile where a section allows it
        /// (model-free, llm); recorded in the table's "build" column.
        #[arg(long)]
        debug: bool,
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
            let ort_lib = ort::prepare_for_tests()?;
            if let Some(lib) = &ort_lib {
                cmd.env("ORT_DYLIB_PATH", lib);
            }
            let sidecar_py = sidecar::prepare_for_tests()?;
            if let Some(py) = &sidecar_py {
                cmd.env(sidecar::PYTHON_ENV, py);
            }
            browser::prepare_for_tests()?;
            // A targeted run (`cargo xtask test --test cli`) is Rust only; the full run adds the
            // Python package's stage (`FACTPICO_SKIP_PYTHON=1` skips it, with a notice).
            let python_stage = args.is_empty();
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
            let rust = run(cmd.args(["test", "--workspace", "--locked", "--no-fail-fast"]).args(args));
            let python = if !python_stage {
                Ok(())
            } else if std::env::var("FACTPICO_SKIP_PYTHON").is_ok_and(|v| v == "1") {
                eprintln!("xtask: SKIP the Python package's tests (FACTPICO_SKIP_PYTHON=1)");
                Ok(())
            } else {
                pytest::run_stage(ort_lib.as_deref(), sidecar_py.as_deref(), &[])
            };
            rust.and(python)
        }
        Cmd::Pytest { args } => {
            let ort_lib = ort::prepare_for_tests()?;
            let sidecar_py = sidecar::prepare_for_tests()?;
            pytest::run_stage(ort_lib.as_deref(), sidecar_py.as_deref(), &args)
        }
        Cmd::Ort => ort::setup(),
        Cmd::Fuzz { targets, seconds, sanitizer } => fuzz::fuzz(&targets, seconds, &sanitizer),
        Cmd::Export { what } => export::export(what),
        Cmd::Models { list: true, .. } => {
            print!("{}", models::list());
            Ok(())
        }
        Cmd::Models { name, from, out, int8, .. } => models::get(name.as_deref().unwrap_or_default(), from, out, int8),
        Cmd::Replicas { only, work, reuse } => replicas::run_all(&only, work, reuse),
        Cmd::Replica { name, out, tiny, work } => replicas::replica(&name, &out, tiny, work),
        Cmd::Venv { name } => python::venv(&name)?.python().map(|p| println!("{}", p.display())),
        Cmd::Fixtures { what, .. } if what == "qa" => bench_qa::fixtures(),
        Cmd::Fixtures { what, no_real } if what == "summac" => summac::fixtures(no_real),
        Cmd::Fixtures { what, no_real } if what == "minicheck" => minicheck::fixtures(no_real),
        Cmd::Fixtures { what, no_real } => fixtures::fixtures(&what, no_real),
        Cmd::Sidecar { venv, python } => sidecar::setup(venv, python).map(|_| ()),
        Cmd::Browser => browser::setup().map(|_| ()),
        Cmd::LlmVenv { venv } => llm::setup(venv).map(|_| ()),
        Cmd::Bench { what, pairs, only, redo, fresh, debug } if what == "all" => {
            bench_all::run(&bench_all::Options { pairs, only, fresh, redo, debug })
        }
        Cmd::Bench { what, .. } if what == "model-free" => bench_model_free::run(5),
        Cmd::Bench { what, pairs, .. } if what == "python" => pytest::bench(&[], pairs.min(300)),
        Cmd::Bench { what, pairs, .. } if what == "dae" => bench_dae::bench(pairs),
        Cmd::Bench { what, pairs, .. } if what == "qa" => bench_qa::bench(pairs),
        Cmd::Bench { what, .. } if what == "report" => bench_report::run(&[1_000, 10_000]),
        Cmd::Bench { what, pairs, .. } if what == "qafacteval" => bench_qa::bench_qafacteval(pairs),
        Cmd::Bench { what, pairs, .. } if what == "summac" => summac::bench(pairs),
        Cmd::Bench { what, pairs, .. } if what == "minicheck" || what.starts_with("minicheck:") => minicheck::bench(&what, pairs),
        Cmd::Bench { what, pairs, .. } if what == "llm" => bench_llm::bench(pairs),
        Cmd::Bench { what, pairs, .. } => bench::bench(&what, pairs),
    }
}
