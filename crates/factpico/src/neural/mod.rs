//! Registry entries of the model-based metrics. The metrics themselves are
//! compiled in only with their cargo features (`alignscore`, `dae`, `qa`), so
//! the facade without features does not depend on ONNX Runtime.

use crate::metric::{ColumnInfo, Direction, MetricInfo};

/// AlignScore registry entry.
pub static ALIGNSCORE: MetricInfo = MetricInfo {
    name: "alignscore",
    description: "AlignScore: summary sentences vs Punkt chunks of the abstract; max over chunks, mean over sentences",
    reference: "yuh-zha/AlignScore a0936d5, src/alignscore/inference.py (nli_sp)",
    columns: &[ColumnInfo {
        name: "alignscore",
        description: "AlignScore (nli_sp: mean over summary sentences of max over chunks of P(aligned)); reg modes are unbounded",
        min: Some(0.0),
        max: Some(1.0),
        direction: Direction::HigherIsBetter,
        primary: true,
    }],
    feature: Some("alignscore"),
    needs_model: true,
};

/// DAE registry entry.
pub static DAE: MetricInfo = MetricInfo {
    name: "dae",
    description: "DAE-style dependency-arc entailment: P(entailed) per summary arc; FactPICO takes the minimum",
    reference: "tagoyal/factuality-datasets 80e1902 train_utils.py (ElectraDependencyModel); FactPICO min aggregation",
    columns: &[
        ColumnInfo {
            name: "dae",
            description: "minimum over scored arcs of P(arc entailed by the abstract)",
            min: Some(0.0),
            max: Some(1.0),
            direction: Direction::HigherIsBetter,
            primary: true,
        },
        ColumnInfo {
            name: "dae_mean",
            description: "mean over scored arcs of P(arc entailed)",
            min: Some(0.0),
            max: Some(1.0),
            direction: Direction::HigherIsBetter,
            primary: false,
        },
        ColumnInfo {
            name: "dae_label",
            description: "reference binary label: 1 iff every arc's argmax is 'entailed'",
            min: Some(0.0),
            max: Some(1.0),
            direction: Direction::HigherIsBetter,
            primary: false,
        },
    ],
    feature: Some("dae"),
    needs_model: true,
};

/// QuestEval registry entry.
pub static QUESTEVAL: MetricInfo = MetricInfo {
    name: "questeval",
    description: "QuestEval: QG on each text, QA on the other; F1/answerability (and BERTScore when configured), precision and recall averaged",
    reference: "ThomasScialom/QuestEval 241a1aa (questeval 0.2.4), questeval/questeval_metric.py",
    columns: &[
        ColumnInfo {
            name: "questeval",
            description: "QuestEval with its BERTScore component (comparable to published numbers only with the reference models)",
            min: Some(0.0),
            max: Some(1.0),
            direction: Direction::HigherIsBetter,
            primary: true,
        },
        ColumnInfo {
            name: "questeval_f1",
            description: "QuestEval without BERTScore (answerability + token F1); not comparable with published QuestEval",
            min: Some(0.0),
            max: Some(1.0),
            direction: Direction::HigherIsBetter,
            primary: false,
        },
    ],
    feature: Some("qa"),
    needs_model: true,
};

/// QAFactEval registry entry.
pub static QAFACTEVAL: MetricInfo = MetricInfo {
    name: "qafacteval",
    description: "QAFactEval-style: QG on the summary, extractive QA on the abstract, answer overlap (LERC when configured, else F1)",
    reference: "salesforce/QAFactEval 645686a + danieldeutsch/qaeval dd72731",
    columns: &[
        ColumnInfo {
            name: "qafacteval",
            description: "mean LERC-style score over consistent questions (0-5, raw) when a LERC model is configured",
            min: None,
            max: None,
            direction: Direction::HigherIsBetter,
            primary: true,
        },
        ColumnInfo {
            name: "qafacteval_f1",
            description: "mean token F1 between summary and abstract answers over consistent questions (0 for unanswered)",
            min: Some(0.0),
            max: Some(1.0),
            direction: Direction::HigherIsBetter,
            primary: false,
        },
        ColumnInfo {
            name: "qafacteval_em",
            description: "mean exact match between summary and abstract answers over consistent questions",
            min: Some(0.0),
            max: Some(1.0),
            direction: Direction::HigherIsBetter,
            primary: false,
        },
    ],
    feature: Some("qa"),
    needs_model: true,
};

/// Registry entries of the model-based metrics (always listed, even when not compiled in).
pub fn registry_entries() -> Vec<&'static MetricInfo> {
    vec![&ALIGNSCORE, &DAE, &QUESTEVAL, &QAFACTEVAL]
}

/// Builds a model-based metric if it is compiled into this build; `None` otherwise.
pub(crate) fn build(
    name: &str,
    _info: &'static MetricInfo,
    options: &crate::ScorerOptions,
) -> Option<crate::Result<Box<dyn crate::Metric>>> {
    let _ = options;
    match name {
        #[cfg(feature = "alignscore")]
        "alignscore" => Some(alignscore::build(options)),
        #[cfg(feature = "dae")]
        "dae" => Some(dae::build(options)),
        _ => None,
    }
}

#[cfg(feature = "alignscore")]
mod alignscore;
#[cfg(feature = "dae")]
mod dae;

/// `$FACTPICO_HOME/models/<name>` (default `~/.cache/factpico/models/<name>`).
#[cfg(any(feature = "alignscore", feature = "dae", feature = "qa"))]
pub(crate) fn default_model_dir(name: &str) -> std::path::PathBuf {
    factpico_runtime::default_models_dir().join(name)
}

/// Renders an error of a metric crate as a facade error.
#[cfg(any(feature = "alignscore", feature = "dae", feature = "qa"))]
pub(crate) fn init_error(metric: &str, e: impl std::fmt::Display) -> crate::Error {
    crate::Error::Init { metric: metric.to_owned(), message: e.to_string() }
}
