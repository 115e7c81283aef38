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
//! * [`Scorer`] / [`ScorerOptions`]: choose metrics and options, score pairs (batched,
//!   parallel); [`Scorer::builder`] adds metrics implemented elsewhere ([`Metric`]).
//! * [`Report`]: one row of output (scores, documented nulls, warnings, details, opt-in sentence
//!   spans, and `run`: the hash of the provenance stored once per output).
//! * [`units`]: one unit per metric family — registry entry, typed options, builder,
//!   command-line flags, explanation — listed once; the [`registry`] describes each
//!   metric's columns, ranges, directions and references.
//! * [`explain`]: renderer-neutral explanations of a row, from its `details` alone.
//!
//! Cargo features: `onnx` (every ONNX-backed metric: `alignscore`, `dae`, `qa`), `cuda`
//! (the CUDA execution provider, [`Device::Cuda`]), `clap` (the command-line flags: clap derives on [`ScorerOptions`] and every unit's options).

mod error;
pub mod explain;
mod lookup;
pub mod metric;
mod provenance;
mod report;
mod scorer;
mod session;
pub mod units;

pub use error::{error_chain, BoxError, Error, Result};
pub use explain::ExplainBlock;
pub use lookup::{column_info, explain_metric, explain_report, metric_info, metric_names, registry};
pub use metric::{
    ColumnInfo, Direction, Extras, Metric, MetricInfo, MetricOutput, Pair, RowInput,
    RunReport,
    Texts,
};
pub use provenance::{DeriveIdProvenance, InputProvenance, Provenance, SideInput};
pub use report::{input_sha256, provenance_hash, Report, Sentences, Warning, INCOMPLETE_PREFIX, SCHEMA_VERSION};
pub use scorer::{InputRecord, Scorer, ScorerBuilder};
pub use session::{Device, RuntimeOptions};
pub use units::{MetricUnit, ScorerOptions};

/// Version of this crate (recorded in the run's provenance).
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The ONNX runtime layer (library discovery and setup, model directories),
/// re-exported when a model-based metric is compiled in.
#[cfg(feature = "runtime")]
pub use factpico_runtime as runtime;

/// Whether this build runs ONNX models (a model-based metric's feature is on).
pub const HAS_RUNTIME: bool = cfg!(feature = "runtime");

/// `$FACTPICO_HOME` (default `~/.cache/factpico`): where ONNX Runtime and models live.
#[cfg(feature = "runtime")]
pub fn factpico_home() -> std::path::PathBuf {
    factpico_runtime::factpico_home()
}

/// Installs the ONNX Runtime library from the PyPI `onnxruntime` wheel into `home`
/// (`$FACTPICO_HOME` when `None`); returns the library's path.
///
/// # Errors
/// [`Error::NoRuntime`] in a build without model-based metrics; `Error::Runtime` when
/// the download or unpacking fails (the message says what to do instead).
pub fn setup_ort(home: Option<&std::path::Path>) -> Result<std::path::PathBuf> {
    #[cfg(feature = "runtime")]
    {
        let home = home.map_or_else(factpico_runtime::factpico_home, std::path::Path::to_path_buf);
        factpico_runtime::setup_ort(&home).map_err(Error::Runtime)
    }
    #[cfg(not(feature = "runtime"))]
    {
        let _ = home;
        Err(Error::NoRuntime { what: "`setup ort`" })
    }
}

/// Re-exports of the model-free metric crates' option types.
pub mod options {
    pub use factpico_readability::{ReadabilityOptions, TextstatFamily};
    pub use factpico_rouge::RougeOptions;
}
