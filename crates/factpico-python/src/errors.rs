//! factpico's errors as the usual Python exceptions, with factpico's message:
//! `FileNotFoundError` for a missing model directory or file, `ValueError` for bad options
//! or arguments, `RuntimeError` for failures of ONNX Runtime or a model.

use pyo3::exceptions::{PyFileNotFoundError, PyRuntimeError, PyValueError};
use pyo3::PyErr;

use factpico::runtime::Error as RuntimeError;

/// True when `e` or one of its sources is a missing file or directory.
fn is_missing_file(e: &(dyn std::error::Error + 'static)) -> bool {
    let mut cur: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(err) = cur {
        if let Some(r) = err.downcast_ref::<RuntimeError>() {
            if matches!(r, RuntimeError::MissingFile { .. } | RuntimeError::OrtNotFound { .. }) {
                return true;
            }
        }
        if let Some(io) = err.downcast_ref::<std::io::Error>() {
            if io.kind() == std::io::ErrorKind::NotFound {
                return true;
            }
        }
        cur = err.source();
    }
    false
}

/// True when `e` or one of its sources is an invalid LLM option (`llm.runtime.client.concurrency`
/// of 0, an empty `llm.model`...): a `ValueError`, as other bad option values.
fn is_invalid_llm_option(e: &(dyn std::error::Error + 'static)) -> bool {
    let mut cur: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(err) = cur {
        if matches!(err.downcast_ref::<factpico::units::llm::LlmError>(), Some(factpico::units::llm::LlmError::Options(_))) {
            return true;
        }
        cur = err.source();
    }
    false
}

/// A facade error as a Python exception; its message is the whole cause chain
/// ([`factpico::error_chain`], what a row's `errors[].message` holds), since the facade's own
/// messages say only their context ("could not initialise metric `dae`").
pub(crate) fn facade_error(e: factpico::Error) -> PyErr {
    let message = factpico::error_chain(&e);
    // A missing model directory is recognised from the source chain where the metric crate
    // keeps the I/O error, else from the wording of the chain ("... does not exist").
    let missing = is_missing_file(&e)
        || (matches!(e, factpico::Error::Init { .. } | factpico::Error::MissingOption { .. })
            && (message.contains("does not exist") || message.contains(" not found: ")));
    if missing {
        return PyFileNotFoundError::new_err(message);
    }
    if is_invalid_llm_option(&e) {
        return PyValueError::new_err(message);
    }
    match e {
        factpico::Error::UnknownMetric { .. }
        | factpico::Error::FeatureDisabled { .. }
        | factpico::Error::MissingOption { .. }
        | factpico::Error::InvalidOption { .. }
        | factpico::Error::Duplicate { .. } => PyValueError::new_err(message),
        _ => PyRuntimeError::new_err(message),
    }
}

/// A runtime (ONNX Runtime, model directory) error as a Python exception.
pub(crate) fn runtime_error(e: RuntimeError) -> PyErr {
    let message = factpico::error_chain(&e);
    if is_missing_file(&e) {
        return PyFileNotFoundError::new_err(message);
    }
    match e {
        RuntimeError::InvalidArgument(_) | RuntimeError::OrtLibrary { .. } | RuntimeError::InvalidModel { .. } => {
            PyValueError::new_err(message)
        }
        _ => PyRuntimeError::new_err(message),
    }
}
