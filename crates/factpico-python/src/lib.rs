//! `factpico._native`: the compiled core of the `factpico` Python package.
//!
//! The Python package (`python/factpico/`) is the public API; this module is its engine:
//!
//! * [`scorer::Scorer`]: `factpico.Scorer` — any set of factpico metrics on (source, summary)
//!   pairs, configured by the facade's serde [`factpico::ScorerOptions`] (given as JSON, so
//!   every option of every metric reaches Python without a binding change), one output row per
//!   pair exactly as `factpico score` writes it.
//! * [`rouge::RougeScorer`]: rouge-score 0.1.2's `rouge_scorer.RougeScorer` over
//!   `factpico-rouge`.
//! * [`readability`]: textstat's `flesch_kincaid_grade` / `flesch_reading_ease` (0.7.3 and
//!   0.7.8 families) over `factpico-readability`.
//! * [`ort`]: loading ONNX Runtime from the library file the Python side found in the
//!   `onnxruntime` wheel.
//!
//! Work runs with the GIL released, in a per-process rayon pool ([`pool`]) that is rebuilt
//! after `fork` (a rayon pool's threads do not survive a fork; neither do ONNX Runtime's, so a
//! scorer used in a forked child re-creates its models from its options: [`scorer`]).

use pyo3::prelude::*;

mod cli;
mod errors;
mod ort;
mod pool;
mod readability;
mod rouge;
mod scorer;

/// The `factpico._native` module.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", factpico::VERSION)?;
    m.add("ORT_VERSION", factpico::runtime::ORT_VERSION)?;
    m.add("MIN_ORT_MINOR", factpico::runtime::MIN_ORT_MINOR)?;
    m.add("SCHEMA_VERSION", factpico::SCHEMA_VERSION)?;
    m.add_class::<scorer::Scorer>()?;
    m.add_class::<rouge::RougeScorer>()?;
    m.add_class::<readability::Readability>()?;
    m.add_function(wrap_pyfunction!(scorer::metrics_json, m)?)?;
    m.add_function(wrap_pyfunction!(scorer::default_options_json, m)?)?;
    m.add_function(wrap_pyfunction!(scorer::input_sha256, m)?)?;
    m.add_function(wrap_pyfunction!(scorer::explain_json, m)?)?;
    m.add_function(wrap_pyfunction!(scorer::explain_text, m)?)?;
    m.add_function(wrap_pyfunction!(ort::init_ort, m)?)?;
    m.add_function(wrap_pyfunction!(ort::loaded_ort, m)?)?;
    m.add_function(wrap_pyfunction!(ort::check_ort_library, m)?)?;
    m.add_function(wrap_pyfunction!(pool::set_num_threads, m)?)?;
    m.add_function(wrap_pyfunction!(pool::get_num_threads, m)?)?;
    m.add_function(wrap_pyfunction!(cli::cli_main, m)?)?;
    m.add_function(wrap_pyfunction!(cli::models_list_json, m)?)?;
    m.add_function(wrap_pyfunction!(cli::models_pull, m)?)?;
    m.add_function(wrap_pyfunction!(cli::models_import, m)?)?;
    m.add_function(wrap_pyfunction!(cli::models_path, m)?)?;
    m.add_function(wrap_pyfunction!(cli::alignscore_from_ckpt, m)?)?;
    Ok(())
}
