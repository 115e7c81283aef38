//! Running the `onnx/` and `tests/goldens/` Python scripts in the right interpreter.
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};

/// Repository root (parent of `xtask/`).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().map_or_else(|| PathBuf::from("."), Path::to_path_buf)
}

/// Scratch directory for generated, uncommitted artefacts (`<repo>/.factpico`, gitignored).
pub fn work_dir(sub: &str) -> PathBuf {
    repo_root().join(".factpico").join(sub)
}

/// The interpreter with the AlignScore reference installed (goldens, benchmark):
/// `$FACTPICO_REF_PYTHON`, else `/work/venvs/alignscore/bin/python`.
pub fn reference_python() -> Result<PathBuf> {
    let p = std::env::var_os("FACTPICO_REF_PYTHON")
        .map_or_else(|| PathBuf::from("/work/venvs/alignscore/bin/python"), PathBuf::from);
    if !p.exists() {
        bail!(
            "no reference Python at {} (set FACTPICO_REF_PYTHON). Create the venv as described in \
             onnx/README.md, section 'Reference venv' (alignscore-speedofmagic==0.1.4 --no-deps plus \
             onnx/requirements-reference.txt)",
            p.display()
        );
    }
    Ok(p)
}

/// The interpreter for the export scripts: `$FACTPICO_EXPORT_PYTHON`, else
/// `<repo>/.venv-export/bin/python`, created from `onnx/requirements.txt` when missing
/// (downloads PyTorch: several GB).
pub fn export_python() -> Result<PathBuf> {
    if let Some(p) = std::env::var_os("FACTPICO_EXPORT_PYTHON") {
        let p = PathBuf::from(p);
        if !p.exists() {
            bail!("FACTPICO_EXPORT_PYTHON={} does not exist", p.display());
        }
        return Ok(p);
    }
    let venv = repo_root().join(".venv-export");
    let py = venv.join("bin").join("python");
    if py.exists() {
        return Ok(py);
    }
    eprintln!("xtask: creating {} from onnx/requirements.txt (PyTorch etc.; several GB)", venv.display());
    run(Command::new("python3").arg("-m").arg("venv").arg(&venv))?;
    run(Command::new(&py)
        .args(["-m", "pip", "install", "--disable-pip-version-check", "-r"])
        .arg(repo_root().join("onnx").join("requirements.txt")))?;
    Ok(py)
}

/// Runs a command, failing on a non-zero exit.
pub fn run(cmd: &mut Command) -> Result<()> {
    let status = cmd.status().with_context(|| format!("could not start {cmd:?}"))?;
    if !status.success() {
        bail!("{cmd:?} failed with {status}");
    }
    Ok(())
}

/// `python <repo>/<script> args...` with the repo root as working directory.
pub fn run_script(python: &Path, script: &str, args: &[&str]) -> Result<()> {
    run(Command::new(python).arg(repo_root().join(script)).args(args).current_dir(repo_root()))
}
