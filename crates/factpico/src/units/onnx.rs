//! Helpers shared by the ONNX-backed units (feature `runtime`, which every model-based
//! metric's feature enables): model directories, their hashes, the spaCy sidecar check.
//! A build with only some model-based metrics uses only some of them.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use crate::{Error, Result};

/// `$FACTPICO_HOME/models/<name>` (default `~/.cache/factpico/models/<name>`): where
/// `factpico models pull NAME` installs catalogue model NAME.
pub(crate) fn default_model_dir(name: &str) -> PathBuf {
    factpico_runtime::default_models_dir().join(name)
}

/// Whether `given` is a bare model name (`alignscore-base`), not a path: one normal
/// component, no separator.
fn is_bare_name(given: &Path) -> bool {
    let mut c = given.components();
    matches!((c.next(), c.next()), (Some(std::path::Component::Normal(_)), None))
}

/// The model directory of a model option: `given` as a directory when one exists there (an
/// existing directory always wins over a catalogue name of the same spelling); else, when
/// `given` is a bare name, the installed catalogue model of that name
/// (`$FACTPICO_HOME/models/NAME`); with no value, the metric's default catalogue model
/// `default_name`. The one "model missing" error of every model-based unit: it names the
/// option by its path in backticks (`` `summac.model` ``; the command line shows its flag
/// instead) and the `factpico models pull` command.
///
/// # Errors
/// [`Error::MissingOption`] when nothing is installed or found there.
pub(crate) fn resolve_model_dir(metric: &str, option: &str, given: Option<&Path>, default_name: &str) -> Result<PathBuf> {
    let missing = |what: String| Err(Error::MissingOption { metric: metric.into(), what });
    let store = factpico_runtime::default_models_dir();
    match given {
        Some(d) if d.is_dir() => Ok(d.to_path_buf()),
        Some(d) if is_bare_name(d) => {
            let name = d.to_string_lossy();
            let installed = default_model_dir(&name);
            if installed.is_dir() {
                return Ok(installed);
            }
            missing(format!(
                "a model: `{name}` does not exist as a directory and is not an installed model ({} does not exist; \
                 option `{option}`: a directory or an installed model's name); install it with `factpico models pull {name}` (`factpico models \
                 list` shows the catalogue)",
                installed.display()
            ))
        }
        Some(d) if d.exists() => missing(format!(
            "a model directory: `{}` is not a directory (option `{option}`; a model directory holds model.onnx, \
             tokenizer.json and factpico.json)",
            d.display()
        )),
        Some(d) => missing(format!("a model directory: `{}` does not exist (option `{option}`)", d.display())),
        None => {
            let installed = default_model_dir(default_name);
            if installed.is_dir() {
                return Ok(installed);
            }
            missing(format!(
                "a model: the default model `{default_name}` is not installed ({} does not exist); install it with \
                 `factpico models pull {default_name}`, or set `{option}` to a model directory or name (models in {})",
                installed.display(),
                store.display()
            ))
        }
    }
}

/// The directory of `dir`, checked to exist; [`Error::MissingOption`] naming the option
/// (its path, `` `qa.lerc_model` ``) and `what` when not given, [`Error::Init`] when it does
/// not exist.
pub(crate) fn require_dir(metric: &str, dir: Option<&PathBuf>, option: &str, what: &str, doc: &str) -> Result<PathBuf> {
    match dir {
        Some(d) if d.exists() => Ok(d.clone()),
        Some(d) => Err(Error::init(metric, format!("`{option}` {}: directory does not exist", d.display()))),
        None => Err(Error::MissingOption { metric: metric.into(), what: format!("`{option}` DIR ({what}; see {doc})") }),
    }
}

/// sha256 of every ONNX graph of a model directory (seq2seq exports hold several), as a
/// JSON object file → hex.
pub(crate) fn graphs_sha256(metric: &str, dir: &Path) -> Result<serde_json::Value> {
    let files = factpico_runtime::onnx_files_sha256(dir).map_err(|e| Error::init(metric, e))?;
    Ok(serde_json::json!(files))
}

/// sha256 of a model directory's main graph (`model.onnx`).
pub(crate) fn model_sha256(metric: &str, dir: &Path) -> Result<String> {
    factpico_runtime::ModelDir::open(dir)
        .and_then(|d| d.model_sha256().map(str::to_owned))
        .map_err(|e| Error::init(metric, e))
}

/// Fails now, not on every row, when the spaCy sidecar's interpreter is missing; `instead`
/// says what to use instead.
#[cfg(any(feature = "dae", feature = "qa"))]
pub(crate) fn check_sidecar(metric: &str, instead: &str) -> Result<()> {
    let sidecar = factpico_nlp::sidecar::SpacySidecar::new(factpico_nlp::sidecar::SidecarConfig::default());
    let python = sidecar.resolve_python().map_err(|e| Error::init(metric, e))?;
    if !python.exists() {
        return Err(Error::init(
            metric,
            format!(
                "the spaCy sidecar interpreter {} does not exist; run `cargo xtask sidecar` or {instead}",
                python.display()
            ),
        ));
    }
    Ok(())
}
