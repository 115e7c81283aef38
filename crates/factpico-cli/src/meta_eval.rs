//! `factpico meta-eval`: meta-evaluate metric columns against human ratings
//! (FactPICO Tables 4/5, Figure 2, Appendix G), or, with `--kappa`, the
//! annotators' agreement (Table 1). The arguments ([`MetaEvalArgs`], in
//! `meta_eval_args.rs`, public so that `docs/meta-eval.md`'s commands are rerun
//! verbatim by `tests/metaeval_docs.rs`) drive the `factpico-metaeval` library.

use std::io::Write;

use anyhow::{Context, Result};
use crate::term::escape_controls;

pub use crate::meta_eval_args::MetaEvalArgs;

/// Runs `factpico meta-eval`: the Markdown report goes to stdout (unless
/// `--quiet` with `--out-dir`), written files and warnings to stderr.
/// Returns the process exit code (0).
///
/// # Errors
/// Bad arguments, unreadable or malformed files, ids that do not join
/// (without --allow-missing), output failures.
pub fn run(a: &MetaEvalArgs) -> Result<i32> {
    let out = a.execute()?;
    if a.out_dir.is_none() || !a.quiet {
        let mut stdout = std::io::stdout().lock();
        stdout
            // Column names, ids and systems come from the files: escaped for the terminal
            // (the --out-dir files keep them).
            .write_all(escape_controls(&out.markdown).as_bytes())
            .and_then(|()| stdout.flush())
            .context("cannot write the report to standard output")?;
    }
    for w in &out.warnings {
        eprintln!("warning: {}", escape_controls(&crate::flags::for_meta_eval(w)));
    }
    for p in &out.written {
        eprintln!("wrote {}", crate::term::path(p));
    }
    Ok(0)
}
