//! rouge-score 0.1.2's `rouge_scorer.RougeScorer`, over `factpico-rouge`.

use factpico_rouge::{RougeVariants, Score};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// The engine of `factpico.rouge_score.rouge_scorer.RougeScorer`: `score` returns a dict of
/// rouge type → `score_type(precision, recall, fmeasure)` (rouge-score's `scoring.Score`).
#[pyclass(module = "factpico._native", frozen)]
pub(crate) struct RougeScorer {
    inner: RougeVariants,
    split_summaries: bool,
    score_type: Py<PyAny>,
}

impl RougeScorer {
    fn sentences(text: &str) -> Vec<&str> {
        factpico_text::Punkt::english().span_tokenize(text).into_iter().map(|s| &text[s.start..s.end]).collect()
    }

    fn score_one(&self, target: &str, prediction: &str) -> Vec<Score> {
        if self.split_summaries {
            self.inner.score_sentences(&Self::sentences(target), &Self::sentences(prediction))
        } else {
            self.inner.score(target, prediction)
        }
    }

    fn to_dict<'py>(&self, py: Python<'py>, scores: &[Score]) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        let cls = self.score_type.bind(py);
        for (name, s) in self.inner.rouge_types().iter().zip(scores) {
            d.set_item(name, cls.call1((s.precision, s.recall, s.fmeasure))?)?;
        }
        Ok(d)
    }
}

#[pymethods]
impl RougeScorer {
    #[new]
    fn new(rouge_types: Vec<String>, use_stemmer: bool, split_summaries: bool, score_type: Py<PyAny>) -> PyResult<Self> {
        let inner = RougeVariants::new(&rouge_types, use_stemmer).map_err(|e| PyValueError::new_err(e.to_string()))?;
        Ok(Self { inner, split_summaries, score_type })
    }

    /// The rouge types, in order.
    #[getter]
    fn rouge_types(&self) -> Vec<String> {
        self.inner.rouge_types().to_vec()
    }

    /// rouge-score `score(target, prediction)`.
    fn score<'py>(&self, py: Python<'py>, target: &str, prediction: &str) -> PyResult<Bound<'py, PyDict>> {
        let scores = self.score_one(target, prediction);
        self.to_dict(py, &scores)
    }

    /// rouge-score `score_multi(targets, prediction)`.
    fn score_multi<'py>(&self, py: Python<'py>, targets: Vec<String>, prediction: &str) -> PyResult<Bound<'py, PyDict>> {
        let scores = if self.split_summaries {
            let p = Self::sentences(prediction);
            let all: Vec<Vec<Score>> =
                targets.iter().map(|t| self.inner.score_sentences(&Self::sentences(t), &p)).collect();
            best(all)
        } else {
            self.inner.score_multi(&targets, prediction)
        };
        let scores = scores.ok_or_else(|| PyValueError::new_err("score_multi needs at least one target"))?;
        self.to_dict(py, &scores)
    }

    /// `score(targets[i], predictions[i])` for every i, in parallel with the GIL released.
    fn score_batch<'py>(
        &self,
        py: Python<'py>,
        targets: Vec<String>,
        predictions: Vec<String>,
    ) -> PyResult<Vec<Bound<'py, PyDict>>> {
        use rayon::prelude::*;
        if targets.len() != predictions.len() {
            return Err(PyValueError::new_err(format!(
                "targets and predictions differ in length ({} vs {})",
                targets.len(),
                predictions.len()
            )));
        }
        let pool = crate::pool::pool()?;
        let all: Vec<Vec<Score>> = py.detach(|| {
            pool.install(|| targets.par_iter().zip(predictions.par_iter()).map(|(t, p)| self.score_one(t, p)).collect())
        });
        all.iter().map(|s| self.to_dict(py, s)).collect()
    }
}

/// Per variant, the score with the highest F-measure (first on ties), as rouge-score's
/// `score_multi`.
fn best(all: Vec<Vec<Score>>) -> Option<Vec<Score>> {
    let mut it = all.into_iter();
    let mut best = it.next()?;
    for scores in it {
        for (slot, cand) in best.iter_mut().zip(scores) {
            if cand.fmeasure > slot.fmeasure {
                *slot = cand;
            }
        }
    }
    Some(best)
}
