//! `factpico.Scorer`'s engine: the facade [`factpico::Scorer`] configured from JSON options.

use std::sync::{Arc, Mutex, PoisonError};

use factpico::{Extras, Pair, Report, ScorerOptions};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;

use crate::errors::facade_error;

/// A built facade scorer and the process it was built in.
struct Built {
    pid: u32,
    scorer: Arc<factpico::Scorer>,
}

/// Scores (source, summary) pairs with the metrics and options of a [`ScorerOptions`] given as
/// JSON. Picklable from Python through its options (`options_json`); fork-safe: used in a
/// forked child, it rebuilds its metrics (models) from those options on first use, because
/// ONNX Runtime sessions and rayon pools do not survive `fork`.
#[pyclass(module = "factpico._native", frozen)]
pub(crate) struct Scorer {
    options: ScorerOptions,
    built: Mutex<Option<Built>>,
}

/// Pairs scored between two checks for signals: `factpico score`'s default `--block-size`.
const BLOCK: usize = 256;

fn build(options: &ScorerOptions) -> PyResult<Arc<factpico::Scorer>> {
    factpico::Scorer::try_new(options.clone()).map(Arc::new).map_err(facade_error)
}

impl Scorer {
    /// The scorer for this process (re-created after a fork).
    fn get(&self, py: Python<'_>) -> PyResult<Arc<factpico::Scorer>> {
        let pid = std::process::id();
        let mut guard = self.built.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(b) = guard.as_ref() {
            if b.pid == pid {
                return Ok(b.scorer.clone());
            }
        }
        if let Some(old) = guard.take() {
            // Built in the parent before a fork: its ONNX Runtime sessions own thread pools
            // whose threads exist only in the parent, and dropping them here could wait on
            // those threads forever. Abandon it and load the models again.
            std::mem::forget(old);
        }
        let options = self.options.clone();
        let scorer = py.detach(move || build(&options))?;
        *guard = Some(Built { pid, scorer: scorer.clone() });
        Ok(scorer)
    }
}

#[pymethods]
impl Scorer {
    /// Builds the metrics of `options_json` (a JSON object with the fields of factpico's
    /// `ScorerOptions`; absent fields take their defaults).
    #[new]
    fn new(py: Python<'_>, options_json: &str) -> PyResult<Self> {
        let options: ScorerOptions = serde_json::from_str(options_json)
            .map_err(|e| PyValueError::new_err(format!("invalid Scorer options: {e}")))?;
        let opts = options.clone();
        let scorer = py.detach(move || build(&opts))?;
        Ok(Self { options, built: Mutex::new(Some(Built { pid: std::process::id(), scorer })) })
    }

    /// The complete options (defaults filled in), as JSON.
    fn options_json(&self) -> PyResult<String> {
        serde_json::to_string(&self.options).map_err(|e| PyValueError::new_err(e.to_string()))
    }

    /// The run's provenance as JSON (stored once; each row's `run` is its hash).
    fn provenance_json(&self, py: Python<'_>) -> PyResult<String> {
        let s = self.get(py)?;
        serde_json::to_string(s.provenance()).map_err(|e| PyValueError::new_err(e.to_string()))
    }

    /// Output columns, in metric order.
    fn columns(&self, py: Python<'_>) -> PyResult<Vec<String>> {
        Ok(self.get(py)?.columns().into_iter().map(str::to_owned).collect())
    }

    /// The selected metrics' names, in order.
    fn metric_names(&self, py: Python<'_>) -> PyResult<Vec<String>> {
        Ok(self.get(py)?.metrics().map(|m| m.info().name.to_owned()).collect())
    }

    /// The per-row side inputs the selected metrics read (`Pair::extras`), as
    /// `(name, description)`.
    fn row_inputs(&self, py: Python<'_>) -> PyResult<Vec<(String, String)>> {
        Ok(self.get(py)?.row_inputs().into_iter().map(|r| (r.name.to_owned(), r.description.to_owned())).collect())
    }

    /// Scores `sources[i]` against `summaries[i]`; returns a JSON array of rows as
    /// `factpico score` writes them (`row` = `first_row + i`, ids and systems as given,
    /// `input_sha256` of the texts and side inputs). All lists have the same length (checked);
    /// `extras_json`, when given, is a JSON array of one object per pair (side input name ->
    /// value; absent names are absent inputs).
    #[pyo3(signature = (sources, summaries, ids, systems, extras_json=None, first_row=1))]
    #[allow(clippy::too_many_arguments)]
    fn score_json(
        &self,
        py: Python<'_>,
        sources: Vec<String>,
        summaries: Vec<String>,
        ids: Vec<String>,
        systems: Vec<Option<String>>,
        extras_json: Option<&str>,
        first_row: u64,
    ) -> PyResult<String> {
        let n = sources.len();
        let extras: Vec<Extras> = match extras_json {
            Some(j) => serde_json::from_str(j)
                .map_err(|e| PyValueError::new_err(format!("per-row inputs: expected one JSON object per pair: {e}")))?,
            None => vec![Extras::new(); n],
        };
        for (name, len) in
            [("summaries", summaries.len()), ("ids", ids.len()), ("systems", systems.len()), ("per-row inputs", extras.len())]
        {
            if len != n {
                return Err(PyValueError::new_err(format!("sources has {n} items but {name} has {len}")));
            }
        }
        let scorer = self.get(py)?;
        let pool = crate::pool::pool()?;
        // Scored in blocks of BLOCK pairs, as `factpico score` scores its input (so the model
        // batches, and the rows, are the CLI's), with Python's signal handlers run between
        // blocks on this, the calling thread, holding the GIL: Ctrl-C raises KeyboardInterrupt
        // after the block in progress, and nothing of the call is returned.
        let mut rows: Vec<Report> = Vec::with_capacity(n);
        let chunk = BLOCK;
        let mut start = 0usize;
        while start < n {
            let end = (start + chunk).min(n);
            let done = py.detach(|| {
                pool.install(|| {
                    let pairs: Vec<Pair<'_>> = (start..end)
                        .map(|i| Pair::new(&ids[i], &sources[i], &summaries[i]).with_extras(&extras[i]))
                        .collect();
                    scorer
                        .score_pairs(&pairs)
                        .into_iter()
                        .zip(start..end)
                        .map(|(mut rep, i)| {
                            rep.row = Some(first_row + i as u64);
                            rep.id = Some(ids[i].clone());
                            rep.system = systems[i].clone();
                            rep.input_sha256 = Some(factpico::input_sha256(&sources[i], &summaries[i], &extras[i]));
                            rep
                        })
                        .collect::<Vec<Report>>()
                })
            });
            rows.extend(done);
            py.check_signals()?;
            start = end;
        }
        py.detach(|| serde_json::to_string(&rows)).map_err(|e| PyValueError::new_err(format!("cannot serialise the rows: {e}")))
    }

    fn __reduce__(&self) -> PyResult<()> {
        Err(PyTypeError::new_err(
            "factpico._native.Scorer is pickled through factpico.Scorer, which re-creates it from its options",
        ))
    }
}

/// `input_sha256(source, summary, extras_json=None)`: the row identity hash `factpico score`
/// records (`extras_json`: the row's side inputs as a JSON object).
#[pyfunction]
#[pyo3(signature = (source, summary, extras_json=None))]
pub(crate) fn input_sha256(source: &str, summary: &str, extras_json: Option<&str>) -> PyResult<String> {
    let extras: Extras = match extras_json {
        Some(j) => serde_json::from_str(j).map_err(|e| PyValueError::new_err(format!("per-row inputs: {e}")))?,
        None => Extras::new(),
    };
    Ok(factpico::input_sha256(source, summary, &extras))
}

fn parse_row(row_json: &str) -> PyResult<Report> {
    serde_json::from_str(row_json).map_err(|e| PyValueError::new_err(format!("not a factpico output row: {e}")))
}

/// `explain_json(row_json)`: the explanation of every metric of an output row, computed from
/// the row alone (`factpico::explain_report`), as JSON: a list of `{metric, scores,
/// nulls, blocks}`.
#[pyfunction]
pub(crate) fn explain_json(row_json: &str) -> PyResult<String> {
    let report = parse_row(row_json)?;
    serde_json::to_string(&factpico::explain_report(&report)).map_err(|e| PyValueError::new_err(e.to_string()))
}

/// `explain_text(row_json, source=None, summary=None)`: the row's explanation as
/// `factpico score --explain` prints it (spans quoted from the texts when both are given).
#[pyfunction]
#[pyo3(signature = (row_json, source=None, summary=None))]
pub(crate) fn explain_text(row_json: &str, source: Option<&str>, summary: Option<&str>) -> PyResult<String> {
    let report = parse_row(row_json)?;
    let texts = match (source, summary) {
        (Some(source), Some(summary)) => Some(factpico::explain::RowTexts { source, summary }),
        _ => None,
    };
    Ok(factpico::explain::render_text(&report, &factpico::explain_report(&report), texts.as_ref()))
}

/// The metric registry (every metric of this build, with its columns, ranges, directions and
/// references) as JSON.
#[pyfunction]
pub(crate) fn metrics_json() -> PyResult<String> {
    serde_json::to_string(&factpico::registry()).map_err(|e| PyValueError::new_err(e.to_string()))
}

/// The default `ScorerOptions` as JSON (every option with its default value).
#[pyfunction]
pub(crate) fn default_options_json() -> PyResult<String> {
    serde_json::to_string(&ScorerOptions::default()).map_err(|e| PyValueError::new_err(e.to_string()))
}
