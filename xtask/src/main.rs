//! `cargo xtask`: developer tasks for factpico.
//!
//! * `cargo xtask test` — the project's test command (README, `.ci/run`):
//!   prepares what tests need (see below) and runs `cargo test --workspace`.
use std::process::Command;

use anyhow::{bail, Context, Result};
use clap::{Parser, Subcommand};

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
        /// Extra arguments passed to `cargo test`.
        #[arg(trailing_var_arg = true)]
        args: Vec<String>,
    },
}

fn cargo() -> Command {
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
        Cmd::Test { args } => run(cargo().args(["test", "--workspace", "--locked"]).args(args)),
    }
}
