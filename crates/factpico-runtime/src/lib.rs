//! `factpico-runtime`: the only factpico crate that talks to ONNX Runtime (`ort`) and
//! Hugging Face `tokenizers`.
//!
//! * [`setup_ort`] / [`find_ort_library`] / [`init_ort`]: locating and installing the ONNX
//!   Runtime shared library (`ORT_DYLIB_PATH`, else `$FACTPICO_HOME/ort/`), with clear errors
//!   for a missing or wrong library.
//! * [`ModelDir`] / [`ModelManifest`]: model directories (`model.onnx`, `tokenizer.json`,
//!   `factpico.json` or an inferred manifest from a Hugging Face `config.json`) and their
//!   validation; the sha256 of the graph for provenance.
//! * [`SessionOptions`]: threads, optimisation level, execution provider, spinning, pool size.
//! * [`PairClassifier`]: (premise, hypothesis) pair tokenisation with explicit truncation
//!   (Hugging Face semantics, with the group fallback AlignScore relies on), dynamic padding,
//!   length-bucketed batching, per-pair named outputs.
//!
//! ```no_run
//! use factpico_runtime::{PairClassifier, SessionOptions};
//! let clf = PairClassifier::load("/path/to/minilm-nli", &SessionOptions::default().intra_threads(2))?;
//! let out = clf.classify(&[("The drug lowered HbA1c.", "HbA1c fell.")], 16)?;
//! let logits = out[0].0.get("logits").unwrap_or_default();
//! # Ok::<(), factpico_runtime::Error>(())
//! ```
mod error;
pub mod dae;
pub mod embed;
pub mod extractive_qa;
pub mod generate;
pub mod seq2seq;
pub mod sequence;
mod manifest;
mod model;
mod ort_lib;
mod pair;
mod session;

pub use error::{Error, Result};
pub use manifest::{
    ExporterInfo, ModelManifest, ModelTask, SourceInfo, TruncationConfig, TruncationSide, TruncationStrategy,
    DEFAULT_MAX_LENGTH, MANIFEST_FILE, MANIFEST_SCHEMA_VERSION,
};
pub use model::{file_sha256, onnx_files_sha256, ModelDir, MODEL_DATA_FILE, MODEL_FILE, TOKENIZER_FILE};
pub use ort_lib::{
    check_ort_library, default_models_dir, factpico_home, find_ort_library, init_ort, init_ort_from, loaded_ort,
    setup_ort, OrtInfo, MIN_ORT_MINOR, ORT_VERSION,
};
pub use pair::{EncodedPair, PairClassifier, PairOutput, RunStats, Segment, TruncationReport};
pub use session::{ExecutionProvider, OptimizationLevel, SessionOptions};

/// (index, value) of the first maximum of `v` (`torch.max` semantics: the first of equal
/// maxima wins, and a NaN wins over any number): the best chunk of the chunk-max checkers
/// (MiniCheck, FactCG, HHEM). `(0, -inf)` for an empty slice.
pub fn max_first(v: &[f64]) -> (usize, f64) {
    let mut best = (0, f64::NEG_INFINITY);
    for (i, &x) in v.iter().enumerate() {
        if x > best.1 || (x.is_nan() && !best.1.is_nan()) {
            best = (i, x);
        }
    }
    best
}

/// Numerically stable softmax of a logit row (`f32` in, `f32` out, sums to 1).
/// Returns an empty vector for an empty row.
pub fn softmax(logits: &[f32]) -> Vec<f32> {
    let m = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let exps: Vec<f32> = logits.iter().map(|&x| (x - m).exp()).collect();
    let sum: f32 = exps.iter().sum();
    exps.into_iter().map(|e| e / sum).collect()
}

#[cfg(test)]
mod tests {
    use super::max_first;

    #[test]
    fn max_first_takes_the_first_maximum() {
        assert_eq!(max_first(&[0.2, 0.7, 0.7, 0.1]), (1, 0.7));
        assert_eq!(max_first(&[0.3]), (0, 0.3));
        assert!(max_first(&[0.3, f64::NAN]).1.is_nan());
    }
}
