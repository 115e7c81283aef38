//! The `factpico` command-line tool as a library: [`run`] is the whole command line (the
//! binary `src/main.rs` and the Python package's `factpico` console script call it); the input
//! readers are public so that they can be fuzzed (`cargo xtask fuzz`) and tested directly, and
//! so is the escaping of untrusted text printed on a terminal ([`term`]).

/// `eprintln!` that never panics: a closed standard error (`factpico … 2>&1 | head`) must not
/// abort a run whose output is still to be finalised (std's macro panics on EPIPE). Shadows
/// the prelude macro in every module of this crate.
macro_rules! eprintln {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($t)*);
    }};
}

/// `eprint!` that never panics (see `eprintln!` above).
macro_rules! eprint {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        let _ = write!(std::io::stderr(), $($t)*);
    }};
}

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
/// The message of a `factpico-metaeval` error or warning as `factpico meta-eval` prints it:
/// the library's option fields (`` `allow_missing` ``) replaced by the command's flags.
pub use flags::for_meta_eval;
