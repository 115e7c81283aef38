//! Helpers shared by the ONNX-backed units (feature `runtime`, which every model-based
//! metric's feature enables): model directories, their hashes, the spaCy sidecar check.
//! A build with only some model-based metrics uses only some of them.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use crate::{Error, Result};

/// `$FACTPICO_HOME/models/<name>` (default `~/.cache/factpico/models/<name>`).
pub(crate) fn default_model_dir(name: &str) -> PathBuf {
    factpico_runtime::default_models_dir().join(name)
}

/// The directory of `dir`, checked to exist; [`Error::MissingOption`] naming `flag` and
/// `what` when not given, [`Error::Init`] when it does not exist.
pub(crate) fn require_dir(metric: &str, dir: Option<&PathBuf>, flag: &str, what: &str, doc: &str) -> Result<PathBuf> {
    match dir {
        Some(d) if d.exists() => Ok(d.clone()),
        Some(d) => Err(Error::init(metric, format!("{flag} {}: directory does not exist", d.display()))),
        None => Err(Error::MissingOption { metric: metric.into(), what: format!("{flag} DIR ({what}; see {doc})") }),
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
