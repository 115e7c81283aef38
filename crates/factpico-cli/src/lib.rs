//! The `factpico` command-line tool as a library: [`run`] is the whole command line (the
//! binary `src/main.rs` and the Python package's `factpico` console script call it); the input
//! readers are public so that they can be fuzzed (`cargo xtask fuzz`) and tested directly, and
//! so is the escaping of untrusted text printed on a terminal ([`term`]).

pub mod input;
pub mod fuzzing;
pub mod term;

mod diff;
mod flags;
mod llm_batch;
mod logging;
mod meta_eval;
mod meta_eval_args;
mod models;
mod output;
mod report;
mod score;
mod setup;
mod summary;
mod app;

pub use app::run;
pub use meta_eval_args::MetaEvalArgs;
