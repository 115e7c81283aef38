//! ONNX Runtime for the Python package: the library file comes from the `onnxruntime` wheel
//! (found by `factpico/_ort.py`), loaded through `factpico-runtime`, the one crate that talks
//! to `ort`.

use pyo3::prelude::*;

use crate::errors::runtime_error;

/// Loads ONNX Runtime from `path` (once per process; later calls keep the first library).
/// Returns the path of the library in use.
#[pyfunction]
pub(crate) fn init_ort(py: Python<'_>, path: std::path::PathBuf) -> PyResult<String> {
    let info = py.detach(|| factpico::runtime::init_ort_from(&path)).map_err(runtime_error)?;
    Ok(info.path.display().to_string())
}

/// The library file ONNX Runtime was loaded from in this process, or `None`.
#[pyfunction]
pub(crate) fn loaded_ort() -> Option<String> {
    factpico::runtime::loaded_ort().map(|i| i.path.display().to_string())
}

/// Checks, without loading it, that `path` is a usable ONNX Runtime library (exists, shared
/// object, version ≥ 1.31 when the name carries one); raises with the reason otherwise.
#[pyfunction]
pub(crate) fn check_ort_library(path: std::path::PathBuf) -> PyResult<()> {
    factpico::runtime::check_ort_library(&path).map_err(runtime_error)
}
