//! The `factpico` console script of the wheel (`factpico._cli:main`) and `factpico.models`:
//! the command line and the model store without a repository checkout.
use pyo3::exceptions::{PyFileNotFoundError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;

/// Runs the `factpico` command line on `argv` (program name first) with the GIL released and
/// returns its exit status (0 success, 1 `diff` drift, 2 error, 3 rows carrying failures).
#[pyfunction]
pub fn cli_main(py: Python<'_>, argv: Vec<String>) -> u8 {
    py.detach(move || factpico_cli::run(argv))
}

fn store() -> PyResult<factpico_models::ModelStore> {
    factpico_models::ModelStore::from_env().map_err(models_error)
}

fn models_error(e: factpico_models::Error) -> PyErr {
    let message = factpico::error_chain(&e);
    match e {
        factpico_models::Error::UnknownModel { .. } => PyValueError::new_err(message),
        factpico_models::Error::NotInstalled { .. } => PyFileNotFoundError::new_err(message),
        _ => PyRuntimeError::new_err(message),
    }
}

/// The catalogue as JSON: per entry its name, metric, option, licence, size, route and
/// whether (and where) it is installed.
#[pyfunction]
pub fn models_list_json(py: Python<'_>) -> PyResult<String> {
    py.detach(|| {
        let store = store()?;
        let rows: Vec<serde_json::Value> = store
            .catalogue()
            .models
            .iter()
            .map(|e| {
                let installed = store.installed(&e.name).unwrap_or(false);
                serde_json::json!({
                    "name": e.name, "metric": e.metric, "option": e.option, "about": e.about,
                    "licence": e.licence, "size": e.size, "route": e.route.kind(), "refused": e.refused,
                    "installed": installed,
                    "path": store.path(&e.name).ok().filter(|_| installed).map(|p| p.display().to_string()),
                })
            })
            .collect();
        serde_json::to_string(&rows).map_err(|e| PyRuntimeError::new_err(e.to_string()))
    })
}

/// The export scripts and Python of `python-export` routes: the wheel's `factpico/_export` and
/// the calling Python (with `factpico[export]`), as `factpico.models` passes them.
fn export_config(python: Option<std::path::PathBuf>, scripts: Option<std::path::PathBuf>) -> factpico_models::ExportConfig {
    factpico_models::ExportConfig { python, scripts }
}

/// Downloads, verifies, converts and installs catalogue model `name` (see `factpico models
/// pull`); returns the installed directory. `export_python` / `export_scripts`: the Python and
/// the folder holding `onnx/` of `python-export` routes (`None`: `FACTPICO_EXPORT_PYTHON` /
/// `FACTPICO_EXPORT_SCRIPTS`, then a checkout).
#[pyfunction]
#[pyo3(signature = (name, int8=false, force=false, quiet=true, export_python=None, export_scripts=None))]
pub fn models_pull(
    py: Python<'_>,
    name: String,
    int8: bool,
    force: bool,
    quiet: bool,
    export_python: Option<std::path::PathBuf>,
    export_scripts: Option<std::path::PathBuf>,
) -> PyResult<String> {
    py.detach(move || {
        let opts = factpico_models::PullOptions {
            hub: factpico_models::HubConfig::from_env(),
            quiet,
            int8,
            force,
            export: export_config(export_python, export_scripts),
            ..factpico_models::PullOptions::default()
        };
        store()?.pull(&name, &opts).map(|p| p.display().to_string()).map_err(models_error)
    })
}

/// Installs catalogue model `name` from files already on disk (`dir`, laid out as the
/// catalogue's `place` says; e.g. an AlignScore `.ckpt` beside its backbone's files);
/// `export_python` / `export_scripts` as in [`models_pull`].
#[pyfunction]
#[pyo3(signature = (name, dir, export_python=None, export_scripts=None))]
pub fn models_import(
    py: Python<'_>,
    name: String,
    dir: std::path::PathBuf,
    export_python: Option<std::path::PathBuf>,
    export_scripts: Option<std::path::PathBuf>,
) -> PyResult<String> {
    py.detach(move || {
        let opts = factpico_models::PullOptions {
            hub: factpico_models::HubConfig::from_env(),
            quiet: true,
            export: export_config(export_python, export_scripts),
            ..Default::default()
        };
        store()?.import(&name, &dir, &opts).map(|p| p.display().to_string()).map_err(models_error)
    })
}

/// The installed directory of catalogue model `name`.
#[pyfunction]
pub fn models_path(name: String) -> PyResult<String> {
    let store = store()?;
    if !store.installed(&name).map_err(models_error)? {
        return Err(PyFileNotFoundError::new_err(format!(
            "model `{name}` is not installed; install it with factpico.models.pull({name:?}) or `factpico models pull {name}`"
        )));
    }
    Ok(store.path(&name).map_err(models_error)?.display().to_string())
}

/// The AlignScore drop-in's `ckpt_path`: converts an AlignScore Lightning `.ckpt` (the file the
/// reference takes) once, without torch, into `$FACTPICO_HOME/models/alignscore-ckpt-<first 16
/// hex of its sha256>` and returns that directory; later calls with the same file reuse it.
/// `model` is the reference's backbone argument: a local directory with `config.json`,
/// `vocab.json`, `merges.txt`, or a hub name (`roberta-base`, `roberta-large`, or `org/repo`)
/// whose three files are downloaded (resumable, verified, `HF_ENDPOINT` / `HF_TOKEN` /
/// `HF_HUB_OFFLINE` and the Hugging Face cache honoured).
#[pyfunction]
pub fn alignscore_from_ckpt(py: Python<'_>, ckpt: std::path::PathBuf, model: String) -> PyResult<String> {
    py.detach(move || {
        let rt = |e: &dyn std::fmt::Display| PyRuntimeError::new_err(e.to_string());
        let sha = factpico_models::sha256_file(&ckpt).map_err(models_error)?;
        let models = factpico_models::factpico_home().join("models");
        let out = models.join(format!("alignscore-ckpt-{}", &sha[..16]));
        if out.join("factpico.json").is_file() {
            return Ok(out.display().to_string());
        }
        let backbone = if std::path::Path::new(&model).is_dir() {
            std::path::PathBuf::from(&model)
        } else {
            let repo = if model.contains('/') { model.clone() } else { format!("FacebookAI/{model}") };
            let dir = factpico_models::factpico_home().join("downloads").join(format!("backbone-{}", repo.replace('/', "--")));
            let client = factpico_models::HubClient::new(factpico_models::HubConfig::from_env(), factpico_models::Progress { bars: false })
                .map_err(models_error)?;
            for f in ["config.json", "vocab.json", "merges.txt"] {
                let file = factpico_models::HubFile { path: f.into(), sha256: None, optional: false };
                client.fetch(&repo, "main", &file, &dir.join(f)).map_err(models_error)?;
            }
            dir
        };
        std::fs::create_dir_all(&models).map_err(|e| rt(&e))?;
        let tmp = models.join(format!(".alignscore-ckpt-{}.tmp-{}", &sha[..16], std::process::id()));
        let _ = std::fs::remove_dir_all(&tmp);
        let name = ckpt.file_name().map(|n| n.to_string_lossy().into_owned());
        let opts = factpico_convert::ConvertOptions { checkpoint_name: name, ..Default::default() };
        if let Err(e) = factpico_convert::convert_alignscore(&ckpt, &backbone, &tmp, &opts) {
            let _ = std::fs::remove_dir_all(&tmp);
            return Err(PyValueError::new_err(factpico::error_chain(&e)));
        }
        match std::fs::rename(&tmp, &out) {
            Ok(()) => {}
            // another process converted the same file meanwhile: keep its result
            Err(_) if out.join("factpico.json").is_file() => {
                let _ = std::fs::remove_dir_all(&tmp);
            }
            Err(e) => return Err(rt(&e)),
        }
        Ok(out.display().to_string())
    })
}
