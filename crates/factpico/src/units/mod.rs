//! Metric units: everything about a family of metrics in one file.
//!
//! A **unit** is one options section and the metrics that share it (most units have one
//! metric; `readability` has FKGL and FRE, `qa` has QuestEval, QAFactEval and cloze, which
//! share the answer selector and the extractive QA model). A unit file holds:
//!
//! * the registry entries of its metrics ([`MetricInfo`]: columns, ranges, directions,
//!   reference, aliases, cargo feature, per-row side inputs);
//! * its typed options ([`MetricUnit::Options`]: serde, `Default`, documented fields, enums
//!   rather than strings), which become the field `ScorerOptions::<key>`;
//!   The options type is the metric crate's own (`factpico_summac::SummacConfig`, ...): its
//!   fields are also the command-line flags (`clap` derives behind the crates' and this
//!   crate's `clap` feature, each flag's id being the option's JSON path, e.g.
//!   `summac.granularity`), so a unit has no flag code of its own;
//! * its builder ([`MetricUnit::build`]), behind the unit's cargo feature for model-based
//!   metrics, which records the metric's provenance ([`Metric::provenance`]);
//! * its explanation ([`MetricUnit::explain`]): renderer-neutral [`ExplainBlock`]s from a
//!   row's `details` alone (no model), used by `--explain` and the HTML report.
//!
//! `units!` below is **the one list of units**: it generates [`ScorerOptions`] (with the
//! feature `clap`, a `clap::Args` flattening every unit's options), the registry, and the
//! build and explanation dispatch. Adding a metric = a new unit file + one line in that
//! list + its crate and feature in `crates/factpico/Cargo.toml` (docs/adding-a-metric.md).

use serde::{de::DeserializeOwned, Deserialize, Serialize};

use crate::explain::ExplainBlock;
use crate::metric::{Metric, MetricInfo};
use crate::session::RuntimeOptions;
use crate::Result;

#[cfg(feature = "runtime")]
pub(crate) mod onnx;

pub mod alignscore;
pub mod dae;
pub mod factcg;
pub mod hhem;
pub mod minicheck;
pub mod llm;
pub mod qa;
pub mod readability;
pub mod rouge;
pub mod summac;

pub use factpico_alignscore::{AlignScoreConfig, Mode as AlignScoreMode};
pub use factpico_dae::{DaeConfig, DaeParser, MultiSentence as DaeMultiSentence};
pub use factpico_qa::{AnswerSelection, QaConfig};

/// A metric unit (see the [module docs](self)). Implemented by a zero-sized type per unit
/// and listed once in `units!` (this module).
pub trait MetricUnit {
    /// The unit's options: the field `ScorerOptions::<key>` (and the Python keyword option
    /// `<key>=`), recorded in every row's `provenance.options.<key>`. `serde(default)` so
    /// that a partial object fills the rest from `Default`; `deny_unknown_fields` so that a
    /// typo is an error.
    type Options: Serialize + DeserializeOwned + Default + Clone + std::fmt::Debug + PartialEq + Send + Sync + 'static;

    /// The registry entries of the unit's metrics, in listing order.
    const METRICS: &'static [&'static MetricInfo];

    /// Whether the unit's metrics are compiled into this build: `cfg!(feature = "...")` of
    /// the unit's cargo feature (default `true`, for model-free units).
    const COMPILED_IN: bool = true;

    /// Builds `metric` (one of [`MetricUnit::METRICS`]) with the unit's options and the
    /// shared runtime options.
    ///
    /// # Errors
    /// [`crate::Error::FeatureDisabled`] when the unit's cargo feature is off,
    /// [`crate::Error::MissingOption`] / [`crate::Error::Init`] (with the cause as its
    /// `source()`) when the metric cannot be built.
    fn build(metric: &'static MetricInfo, options: &Self::Options, runtime: &RuntimeOptions)
        -> Result<Box<dyn Metric>>;

    /// The explanation of `metric`'s entry of a row's `details`, from the JSON alone.
    /// Default: [`crate::explain::generic`].
    fn explain(metric: &'static MetricInfo, detail: &serde_json::Value) -> Vec<ExplainBlock> {
        let _ = metric;
        crate::explain::generic(detail)
    }

    /// The metrics that read the option `field` (a field name of [`MetricUnit::Options`],
    /// e.g. `conv_weights`), for the warning about an option set for metrics that are not
    /// selected; empty (the default) = every metric of the unit.
    fn option_metrics(field: &str) -> &'static [&'static str] {
        let _ = field;
        &[]
    }

    /// What a run of `metric` over `pairs` would cost, for `factpico score --dry-run`: one
    /// line (e.g. an LLM evaluator's request count and estimated prompt tokens), computed
    /// without building the metric or contacting anything. Default: `None` (nothing to count).
    fn plan(metric: &'static MetricInfo, options: &Self::Options, pairs: &[crate::Pair<'_>]) -> Option<Result<String>> {
        let _ = (metric, options, pairs);
        None
    }
}

/// A unit as listed: its key (the `ScorerOptions` field) and its metrics.
#[derive(Debug, Clone, Copy)]
pub struct UnitInfo {
    /// The options key (`rouge`, `readability`, `alignscore`, ...).
    pub key: &'static str,
    /// The unit's metrics.
    pub metrics: &'static [&'static MetricInfo],
    /// Whether they are compiled into this build ([`MetricUnit::COMPILED_IN`]).
    pub compiled_in: bool,
    /// The metrics that read an option of the unit ([`MetricUnit::option_metrics`]).
    pub option_metrics: fn(&str) -> &'static [&'static str],
}

impl UnitInfo {
    /// The names of the metrics that read the unit's option `field`: those of
    /// [`MetricUnit::option_metrics`], or every metric of the unit.
    pub fn metrics_reading(&self, field: &str) -> Vec<&'static str> {
        match (self.option_metrics)(field) {
            [] => self.metrics.iter().map(|m| m.name).collect(),
            some => some.to_vec(),
        }
    }
}

/// [`Error::FeatureDisabled`](crate::Error::FeatureDisabled) for `metric` (what a unit's
/// `build` returns when its feature is off).
pub fn feature_disabled(metric: &MetricInfo) -> crate::Error {
    crate::Error::FeatureDisabled { name: metric.name.to_owned(), feature: metric.feature.unwrap_or("?") }
}

/// The one list of metric units. Each entry is `doc comment, key: UnitType`; `key` names
/// the `ScorerOptions` field holding the unit's options.
macro_rules! units {
    ($( $(#[$meta:meta])* $key:ident : $unit:ty ),+ $(,)?) => {
        /// Options of a [`Scorer`](crate::Scorer): which metrics, the shared runtime options
        /// and each unit's options (one field per unit, named after the unit).
        ///
        /// Serialisable (recorded in every output row's `provenance.options`); every field
        /// has a default, so a partial JSON object (or Python keyword options) fills the rest,
        /// and an unknown field is an error.
        ///
        /// With the feature `clap`, also the command-line flags of every unit (a flattened
        /// `clap::Args`; each flag's id is the option's JSON path, e.g. `summac.granularity`, and
        /// its default the option's `Default`). `metrics` and `sentence_spans` have no flag
        /// here: the command line gives them its own.
        #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
        #[cfg_attr(feature = "clap", derive(clap::Args))]
        #[serde(default, deny_unknown_fields)]
        pub struct ScorerOptions {
            /// Metric names or aliases (see [`crate::registry`]); default `["rougeL", "fkgl"]`
            /// (the model-free ones).
            #[cfg_attr(feature = "clap", arg(skip = ScorerOptions::default().metrics))]
            pub metrics: Vec<String>,
            /// Record the Punkt sentence spans of both texts in each report (default false:
            /// opt-in since output schema 3, `factpico score --sentences`; a consumer can
            /// recompute them from the texts, as `factpico report` does).
            #[cfg_attr(feature = "clap", arg(skip))]
            pub sentence_spans: bool,
            /// Options shared by the model-based metrics: batch size, threads, device.
            #[cfg_attr(feature = "clap", command(flatten))]
            pub runtime: RuntimeOptions,
            $(
                $(#[$meta])*
                #[cfg_attr(feature = "clap", command(flatten))]
                pub $key: <$unit as MetricUnit>::Options,
            )+
        }

        impl Default for ScorerOptions {
            fn default() -> Self {
                Self {
                    metrics: vec!["rougeL".into(), "fkgl".into()],
                    sentence_spans: false,
                    runtime: RuntimeOptions::default(),
                    $( $key: Default::default(), )+
                }
            }
        }

        /// Every unit, in listing order.
        pub fn units() -> Vec<UnitInfo> {
            vec![ $( UnitInfo {
                key: stringify!($key),
                metrics: <$unit as MetricUnit>::METRICS,
                compiled_in: <$unit as MetricUnit>::COMPILED_IN,
                option_metrics: <$unit as MetricUnit>::option_metrics,
            }, )+ ]
        }

        pub(crate) fn registry() -> Vec<&'static MetricInfo> {
            let mut v: Vec<&'static MetricInfo> = Vec::new();
            $( v.extend_from_slice(<$unit as MetricUnit>::METRICS); )+
            v
        }

        /// Builds the registered metric `info` with `options` (`None` for a metric of no unit).
        pub(crate) fn build(info: &'static MetricInfo, options: &ScorerOptions) -> Option<Result<Box<dyn Metric>>> {
            $(
                if <$unit as MetricUnit>::METRICS.iter().any(|m| m.name == info.name) {
                    return Some(<$unit as MetricUnit>::build(info, &options.$key, &options.runtime));
                }
            )+
            None
        }

        /// The cost of running the registered metric `info` over `pairs`
        /// ([`MetricUnit::plan`]; `None`: the unit has nothing to count).
        pub fn plan(info: &'static MetricInfo, options: &ScorerOptions, pairs: &[crate::Pair<'_>]) -> Option<Result<String>> {
            $(
                if <$unit as MetricUnit>::METRICS.iter().any(|m| m.name == info.name) {
                    return <$unit as MetricUnit>::plan(info, &options.$key, pairs);
                }
            )+
            None
        }

        /// The unit's explanation of metric `name`'s detail (`None` for a metric of no unit).
        pub(crate) fn explain(name: &str, detail: &serde_json::Value) -> Option<Vec<ExplainBlock>> {
            $(
                if let Some(info) = <$unit as MetricUnit>::METRICS.iter().find(|m| m.name == name) {
                    return Some(<$unit as MetricUnit>::explain(info, detail));
                }
            )+
            None
        }
    };
}

units! {
    /// ROUGE-L / ROUGE-Lsum options (metric `rougeL`; default: Porter stemming on, as
    /// rouge-score's `use_stemmer=True`).
    rouge: rouge::Rouge,
    /// Readability options of `fkgl` and `fre` (default: the textstat 0.7.3 family).
    readability: readability::Readability,
    /// AlignScore options (metric `alignscore`; feature `alignscore`).
    alignscore: alignscore::AlignScore,
    /// DAE options (metric `dae`; feature `dae`).
    dae: dae::Dae,
    /// Options of the QA metrics `questeval`, `qafacteval` and `cloze` (feature `qa`).
    qa: qa::Qa,
    /// Options of `summac_zs` and `summac_conv` (feature `summac`).
    summac: summac::Summac,
    /// MiniCheck options (metric `minicheck`; feature `minicheck`).
    minicheck: minicheck::MiniCheck,
    /// FactCG options (metric `factcg`; feature `factcg`).
    factcg: factcg::FactCg,
    /// HHEM-2.1-Open options (metric `hhem`; feature `hhem`).
    hhem: hhem::Hhem,
    /// Options of the LLM evaluators `llm` and `llm_pipeline` (feature `llm`): server, model,
    /// structured output, sampling; its transport and cache settings (`llm.runtime`) are read
    /// from JSON but never serialised (outside the provenance and the resume fingerprint).
    llm: llm::Llm,
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;

    #[test]
    fn metric_names_aliases_and_columns_are_unique() {
        let mut names = std::collections::BTreeMap::new();
        let mut columns = std::collections::BTreeMap::new();
        for m in registry() {
            for n in std::iter::once(&m.name).chain(m.aliases) {
                if let Some(other) = names.insert(*n, m.name) {
                    panic!("name {n} of {} is also {other}'s", m.name);
                }
            }
            for c in m.columns {
                if let Some(other) = columns.insert(c.name, m.name) {
                    panic!("column {} of {} is also {other}'s", c.name, m.name);
                }
            }
            assert_eq!(m.primary_columns().count(), 1, "{}: one primary column", m.name);
        }
    }

    #[test]
    fn options_round_trip_and_reject_unknown_fields() {
        let o = ScorerOptions::default();
        let j = serde_json::to_value(&o).unwrap();
        for u in units() {
            assert!(j.get(u.key).is_some(), "options have a `{}` section: {j}", u.key);
        }
        assert_eq!(serde_json::from_value::<ScorerOptions>(j).unwrap(), o);
        let partial: ScorerOptions =
            serde_json::from_str(r#"{"metrics": ["alignscore"], "alignscore": {"mode": "bin_sp"}}"#).unwrap();
        assert_eq!(partial.alignscore.mode, AlignScoreMode::BinSp);
        assert!(!partial.sentence_spans, "sentence spans are opt-in");
        let e = serde_json::from_str::<ScorerOptions>(r#"{"alignscore": {"mdoe": "bin_sp"}}"#).unwrap_err().to_string();
        assert!(e.contains("mdoe"), "{e}");
        let e = serde_json::from_str::<ScorerOptions>(r#"{"alignscore": {"mode": "nli-sp"}}"#).unwrap_err().to_string();
        assert!(e.contains("nli-sp"), "{e}");
    }
}
