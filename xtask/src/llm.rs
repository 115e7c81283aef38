//! `cargo xtask llm-venv`: the venv the LLM tests start their real server from
//! (`$FACTPICO_HOME/llm-venv`: PyPI `xllamacpp` — llama.cpp's OpenAI-compatible server — and
//! `gguf`, pinned in `crates/factpico-llm/tests/support/requirements.txt`; about 30 s), and the
//! `cargo xtask test` hook that passes it to the tests as `FACTPICO_LLM_PYTHON`.
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};

use crate::python::{repo_root, run};

/// Environment variable the LLM tests read.
pub const PYTHON_ENV: &str = "FACTPICO_LLM_PYTHON";

/// Default venv: `$FACTPICO_HOME/llm-venv`.
pub fn default_venv() -> PathBuf {
    factpico_runtime::factpico_home().join("llm-venv")
}

fn check(python: &Path) -> bool {
    Command::new(python)
        .args(["-c", "import xllamacpp, gguf, numpy"])
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Creates (or verifies) the venv and returns its interpreter.
///
/// # Errors
/// No `python3`, venv creation or pip failure.
pub fn setup(venv: Option<PathBuf>) -> Result<PathBuf> {
    let venv = venv.unwrap_or_else(default_venv);
    let py = venv.join("bin").join("python");
    if py.exists() && check(&py) {
        eprintln!("xtask: LLM test venv ready: {}", venv.display());
        return Ok(py);
    }
    eprintln!("xtask: creating the LLM test venv {} (xllamacpp + gguf from PyPI, about 30 s)", venv.display());
    if let Some(parent) = venv.parent() {
        std::fs::create_dir_all(parent).with_context(|| format!("creating {}", parent.display()))?;
    }
    run(Command::new("python3").args(["-m", "venv"]).arg(&venv))
        .context("`python3 -m venv` failed: install Python >= 3.9 with the venv module (Debian: apt-get install python3-venv)")?;
    run(Command::new(&py)
        .args(["-m", "pip", "install", "--quiet", "--disable-pip-version-check", "-r"])
        .arg(repo_root().join("crates/factpico-llm/tests/support/requirements.txt")))
    .context("pip install of xllamacpp + gguf failed (PyPI reachable?)")?;
    if !check(&py) {
        bail!("{} was set up but cannot import xllamacpp / gguf", py.display());
    }
    Ok(py)
}

fn required() -> bool {
    std::env::var("FACTPICO_REQUIRE_SHARED").is_ok_and(|v| v == "1")
}

/// Before `cargo xtask test`: `$FACTPICO_LLM_PYTHON` if set, else the default venv (created
/// when `python3` exists). Without Python the LLM server tests print SKIP, except under
/// `FACTPICO_REQUIRE_SHARED=1` (CI), where this fails.
///
/// # Errors
/// Under `FACTPICO_REQUIRE_SHARED=1`: no Python or a failed setup.
pub fn prepare_for_tests() -> Result<Option<PathBuf>> {
    if let Some(p) = std::env::var_os(PYTHON_ENV).filter(|p| !p.is_empty()) {
        return Ok(Some(PathBuf::from(p)));
    }
    match setup(None) {
        Ok(p) => Ok(Some(p)),
        Err(e) if required() => Err(e),
        Err(e) => {
            eprintln!("xtask: WARNING: {e:#}\nxtask: LLM server tests will SKIP");
            Ok(None)
        }
    }
}
