//! DAE-style dependency-arc entailment for plain-language summaries.
//!
//! Reference: Goyal & Durrett (NAACL 2021), `tagoyal/factuality-datasets` @ 80e1902
//! (`ElectraDependencyModel`, `train_utils.py`), as specified in `shared/specs/dae.md`;
//! FactPICO (Joseph et al., ACL 2024) scores a summary by the **minimum** arc probability.
//!
//! Pipeline: summary → dependency [`Parse`] (spaCy sidecar, CoNLL-U or JSON arcs;
//! [`factpico_nlp`]) → kept arcs (reference ignore list, [`factpico_nlp::labels`]) → per-arc
//! P(entailed) from either
//! * [`DaeModel::Electra`]: a DAE checkpoint exported by `onnx/export_dae.py` (exact
//!   reference input encoding, [`encode`]), or
//! * [`DaeModel::ZeroShotNli`]: any NLI cross-encoder directory, each arc turned into a short
//!   hypothesis checked against the best source chunk ([`zeroshot`]),
//!
//! → aggregation ([`Aggregation`]: min (default), mean, or the reference's binary label).
//! See `docs/dae.md` for the design decisions and what is exact vs approximate.
//!
//! ```no_run
//! use factpico_dae::{Dae, DaeOptions, DaeModel};
//! let dae = Dae::try_new(DaeOptions::new(DaeModel::Electra("models/dae-xsum".into())))?;
//! let out = dae.score("The drug lowered blood pressure.", "The drug raised blood pressure.", None)?;
//! println!("{:?} over {} arcs", out.score, out.arcs.len());
//! # Ok::<(), factpico_dae::Error>(())
//! ```
//!
//! **Features**: `engine` (default) is everything above (parsers, ONNX Runtime); without it
//! the crate is only [`DaeConfig`] and its enums, the options a user sets (JSON, Python,
//! flags with the `clap` feature), which the `factpico` facade reads in every build.
#![forbid(unsafe_code)]

mod config;
#[cfg(feature = "engine")]
pub mod encode;
#[cfg(feature = "engine")]
mod engine;
#[cfg(feature = "engine")]
pub mod select;
#[cfg(feature = "engine")]
pub mod zeroshot;

pub use config::{DaeConfig, DaeParser, MultiSentence};
#[cfg(feature = "engine")]
pub use engine::*;
