//! # factpico
//!
//! Scores plain-language summaries of medical evidence (RCT abstracts) for
//! factuality and readability, with metrics that reproduce their Python
//! reference implementations: ROUGE-L (Google `rouge-score` 0.1.2),
//! Flesch-Kincaid grade and ΔFK (`textstat`), and — behind cargo features,
//! over ONNX models — AlignScore, DAE-style arc entailment and QA-based metrics.
//!
//! ```
//! use factpico::{Scorer, ScorerOptions};
//!
//! let scorer = Scorer::try_new(ScorerOptions::default()).unwrap();
//! let report = scorer.score(
//!     "We randomly assigned 240 adults with asthma to an inhaler or placebo.",
//!     "Researchers gave 240 adults with asthma an inhaler or a dummy inhaler.",
//! );
//! let rouge_l = report.score("rougeL").unwrap();
//! assert!(rouge_l > 0.0 && rouge_l <= 1.0);
//! assert!(report.score("delta_fkgl").is_some());
//! ```
//!
//! * [`Scorer`] / [`ScorerOptions`]: choose metrics and options, score pairs (batched, parallel).
//! * [`Report`]: one row of output (scores, documented nulls, warnings, sentence spans, provenance).
//! * [`Metric`] and the [`registry`]: each metric's columns, ranges, directions and references.

mod builtin;
mod error;
pub mod metric;
mod neural;
mod report;
mod scorer;

pub use error::{Error, Result};
pub use metric::{column_info, metric_info, registry, ColumnInfo, Direction, Metric, MetricInfo, MetricOutput, Pair, Texts};
pub use report::{Report, Sentences, Warning, SCHEMA_VERSION};
pub use scorer::{ModelOptions, Scorer, ScorerOptions};

/// Version of this crate (recorded in every report's provenance).
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The ONNX runtime layer (library discovery and setup, model directories),
/// re-exported when a model-based metric is compiled in.
#[cfg(any(feature = "alignscore", feature = "dae", feature = "qa"))]
pub use factpico_runtime as runtime;

/// Re-exports of the metric crates' option types.
pub mod options {
    pub use factpico_readability::{ReadabilityOptions, TextstatFamily};
    pub use factpico_rouge::RougeOptions;
}
