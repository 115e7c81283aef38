//! `cargo xtask bench alignscore` (filled in below).
use anyhow::{bail, Result};

/// Runs a benchmark.
pub fn bench(what: &str, _pairs: usize) -> Result<()> {
    bail!("unknown benchmark {what:?}")
}
