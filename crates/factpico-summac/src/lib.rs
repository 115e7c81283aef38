//! SummaC-ZS and SummaC-Conv (Laban, Schnabel, Bennett & Hearst, TACL 2022) on ONNX
//! Runtime, following the reference implementation `tingofurro/summac` @ c1f3da9
//! (`summac/model_summac.py`, PyPI `summac` 0.0.4; see `shared/specs/summac.md`).
//!
//! 1. **Chunks** ([`Granularity`], default `sentence`): NLTK Punkt sentences
//!    ([`factpico_text::Punkt`]), chunks of 10 characters or fewer dropped; the document
//!    keeps its first 100 chunks.
//! 2. **Image** ([`Summac::images`]): one NLI forward pass per (document chunk, summary chunk)
//!    pair, premise = document chunk, tokenised as a pair and cut to 500 tokens
//!    `longest_first` (the reference passes `truncation=True, max_length=500` plus the legacy
//!    `truncation_strategy="only_first"`, which transformers ignores when `truncation` is
//!    given); softmax → `[P(entailment), P(contradiction), P(neutral)]`.
//! 3. **SummaC-ZS** ([`ZsOptions::score`]): mean over summary chunks of
//!    `max_i P_ent[i, j] − max_i P_con[i, j]`, in \[−1, 1\].
//! 4. **SummaC-Conv** ([`ConvHead::score`]): per summary chunk (the first 10), a histogram of
//!    the document chunks' P(entailment) over the weights' bins; a learned linear filter per
//!    row; mean over rows; `Linear(3 → 2)`; `softmax[1]`, in (0, 1). Weights: the released
//!    file ([`ConvHead::released_vitc`]) or any file converted by `onnx/export_summac.py conv`.
//!
//! **Cuts are reported.** The reference silently drops short sentences, documents past 100
//! chunks, summary sentences past the 10th (Conv) and tokens past 500; [`Limits::reference`]
//! (the default) reproduces each of them and records a [`Warning`] in the row's output, so
//! a summary whose only error sits in its 12th sentence does not score as clean without a
//! word. [`Limits::lifted`] removes every cut the model allows.
//!
//! **Rows without pairs** (an empty summary, or only short sentences): the reference's image
//! is `zeros(3, 1, 1)`, giving SummaC-ZS 0 and SummaC-Conv its layers' value on that image;
//! reproduced under [`NoPairs::Reference`] with a [`Warning::NoPairs`], or a null score under
//! [`NoPairs::Null`].
//!
//! Parity: `tests/parity.rs` compares images, SummaC-ZS and SummaC-Conv with goldens from the
//! unmodified reference (`tests/goldens/gen_summac.py`) on a tiny random ALBERT fixture and
//! on the MiniLM NLI test asset, fixtures and real InfoLossQA pairs; |Δ| ≤ 1e-4.
//!
//! ```no_run
//! use factpico_summac::{ConvHead, Summac, SummacOptions, ZsOptions};
//! let summac = Summac::try_new("models/vitc", SummacOptions::default())?;
//! let rows = [("The trial enrolled 300 adults. HbA1c fell by 1.2%.", "HbA1c fell in adults.")];
//! let images = summac.images(&rows)?;
//! let zs = ZsOptions::default().score(&images[0]);
//! let conv = ConvHead::released_vitc()?.score(&images[0], summac.limits());
//! println!("{:?} {:?} {:?}", zs.score, conv.score, zs.warnings);
//! # Ok::<(), factpico_summac::Error>(())
//! ```
//!
//! **Features**: `engine` (default) is everything above (ONNX Runtime); without it the crate
//! is only [`SummacConfig`] and its enums, the options a user sets (JSON, Python, flags with
//! the `clap` feature), which the `factpico` facade reads in every build.
#[cfg(feature = "engine")]
mod chunking;
mod config;
#[cfg(feature = "engine")]
mod conv;
#[cfg(feature = "engine")]
mod image;
#[cfg(feature = "engine")]
mod zs;

use std::path::PathBuf;

#[cfg(feature = "engine")]
pub use chunking::{split_text, Chunk, Chunked, Granularities};
pub use config::{Cuts, Granularity, Reduce, SummacConfig, ZsLabels};
#[cfg(feature = "engine")]
pub use conv::{even_bins, histogram, ConvAgg, ConvHead, ConvOutput, ConvRow, ConvSource, CONV_FORMAT, CONV_FORMAT_VERSION, PERCENTILE_BINS};
pub use factpico_text::Span;
#[cfg(feature = "engine")]
pub use image::{Image, Limits, NoPairs, Side, Summac, SummacOptions, Warning};
#[cfg(feature = "engine")]
pub use zs::{NullReason, ZsChunk, ZsOptions, ZsOutput};

/// Errors of the SummaC metrics.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Model loading, tokenisation or inference failed (the message names the file and
    /// what to do).
    #[cfg(feature = "engine")]
    #[error(transparent)]
    Runtime(#[from] factpico_runtime::Error),
    /// The options do not fit each other or the model.
    #[error("invalid SummaC option: {0}")]
    InvalidOption(String),
    /// A SummaC-Conv weight file is invalid.
    #[error("invalid SummaC-Conv weight file {path}: {reason}")]
    ConvWeights {
        /// The file (`<json>` for text given directly).
        path: PathBuf,
        /// What is wrong and what to do.
        reason: String,
    },
    /// A file could not be read.
    #[error("cannot read {path}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
}

/// `Result` with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(feature = "engine")]
impl Summac {
    /// SummaC-ZS of many (document, summary) rows (one image pass).
    ///
    /// # Errors
    /// As [`Summac::images`].
    pub fn score_zs(&self, rows: &[(&str, &str)], options: &ZsOptions) -> Result<Vec<ZsOutput>> {
        Ok(self.images(rows)?.iter().map(|img| options.score(img)).collect())
    }

    /// SummaC-Conv of many (document, summary) rows (one image pass).
    ///
    /// # Errors
    /// As [`Summac::images`].
    pub fn score_conv(&self, rows: &[(&str, &str)], head: &ConvHead) -> Result<Vec<ConvOutput>> {
        Ok(self.images(rows)?.iter().map(|img| head.score(img, self.limits())).collect())
    }
}

#[cfg(all(test, feature = "engine"))]
mod tests {
    #[test]
    fn summac_is_send_and_sync() {
        fn assert_send_sync<T: Send + Sync>() {}
        assert_send_sync::<super::Summac>();
        assert_send_sync::<super::ConvHead>();
    }
}
