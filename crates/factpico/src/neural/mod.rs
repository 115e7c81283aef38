//! Registry entries of the model-based metrics. The metrics themselves are
//! compiled in only with their cargo features (`alignscore`, `dae`, `qa`), so
//! the facade without features does not depend on ONNX Runtime.

use crate::metric::{ColumnInfo, Direction, MetricInfo, Texts};

/// AlignScore registry entry.
pub static ALIGNSCORE: MetricInfo = MetricInfo {
    name: "alignscore",
    description: "AlignScore: summary sentences vs Punkt chunks of the abstract; max over chunks, mean over sentences",
    reference: "yuh-zha/AlignScore a0936d5, src/alignscore/inference.py (nli_sp default; bin_sp, reg_sp, nli, bin, reg)",
    columns: &[ColumnInfo {
        name: "alignscore",
        description: "AlignScore (nli_sp: mean over summary sentences of max over chunks of P(aligned)); reg modes are unbounded",
        min: Some(0.0),
        max: Some(1.0),
        direction: Direction::HigherIsBetter,
        primary: true,
        texts: Texts::Both,
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
            texts: Texts::Both,
        },
        ColumnInfo {
            name: "dae_mean",
            description: "mean over scored arcs of P(arc entailed)",
            min: Some(0.0),
            max: Some(1.0),
            direction: Direction::HigherIsBetter,
            primary: false,
            texts: Texts::Both,
        },
        ColumnInfo {
            name: "dae_label",
            description: "reference binary label: 1 iff every arc's argmax is 'entailed'",
            min: Some(0.0),
            max: Some(1.0),
            direction: Direction::HigherIsBetter,
            primary: false,
            texts: Texts::Both,
        },
    ],
    feature: Some("dae"),
    needs_model: true,
};

/// QuestEval registry entry: `questeval_f1*` (answerability and F1, always computed) and,
/// with a BERTScore model (`bertscore_model`), `questeval*` (the reference's three components).
pub static QUESTEVAL: MetricInfo = MetricInfo {
    name: "questeval",
    description: "QuestEval: T5 QG on each text, T5 QA (with answerability) on the other; answerability, token F1 and (with --bertscore-model) BERTScore, precision and recall averaged",
    reference: "ThomasScialom/QuestEval 241a1aa (questeval 0.2.4), questeval/questeval_metric.py; questeval_f1: list_scores=('answerability','f1'); questeval: ('answerability','bertscore','f1') with bert_score 0.3.9",
    columns: &[
        ColumnInfo {
            name: "questeval_f1",
            description: "(precision + recall) / 2 of QuestEval's answerability and F1 components; not comparable with published QuestEval (no BERTScore)",
            min: Some(0.0),
            max: Some(1.0),
            direction: Direction::HigherIsBetter,
            primary: true,
            texts: Texts::Both,
        },
        ColumnInfo {
            name: "questeval_f1_precision",
            description: "summary questions answered on the abstract (precision direction)",
            min: Some(0.0),
            max: Some(1.0),
            direction: Direction::HigherIsBetter,
            primary: false,
            texts: Texts::Both,
        },
        ColumnInfo {
            name: "questeval_f1_recall",
            description: "abstract questions answered on the summary (recall direction)",
            min: Some(0.0),
            max: Some(1.0),
            direction: Direction::HigherIsBetter,
            primary: false,
            texts: Texts::Both,
        },
        ColumnInfo {
            name: "questeval",
            description: "QuestEval with all three components (answerability, BERTScore, F1) as published; null without --bertscore-model",
            min: Some(0.0),
            max: Some(1.0),
            direction: Direction::HigherIsBetter,
            primary: false,
            texts: Texts::Both,
        },
        ColumnInfo {
            name: "questeval_precision",
            description: "precision direction with BERTScore; null without --bertscore-model",
            min: Some(0.0),
            max: Some(1.0),
            direction: Direction::HigherIsBetter,
            primary: false,
            texts: Texts::Both,
        },
        ColumnInfo {
            name: "questeval_recall",
            description: "recall direction with BERTScore; null without --bertscore-model",
            min: Some(0.0),
            max: Some(1.0),
            direction: Direction::HigherIsBetter,
            primary: false,
            texts: Texts::Both,
        },
    ],
    feature: Some("qa"),
    needs_model: true,
};

/// QAFactEval registry entry (answer overlap; LERC-QuIP with `lerc_model`).
pub static QAFACTEVAL: MetricInfo = MetricInfo {
    name: "qafacteval",
    description: "QAFactEval-style: BART QG on summary noun chunks, consistency filter, extractive QA on the abstract, answer overlap and (with --lerc-model) LERC-QuIP",
    reference: "salesforce/QAFactEval 645686a (qafacteval.py, lerc_quip.py) + danieldeutsch/qaeval dd72731 (f1 / em keys)",
    columns: &[
        ColumnInfo {
            name: "qafacteval_f1",
            description: "mean token F1 between summary and abstract answers over consistent questions (0 for unanswered)",
            min: Some(0.0),
            max: Some(1.0),
            direction: Direction::HigherIsBetter,
            primary: true,
            texts: Texts::Both,
        },
        ColumnInfo {
            name: "qafacteval_em",
            description: "mean exact match over consistent questions",
            min: Some(0.0),
            max: Some(1.0),
            direction: Direction::HigherIsBetter,
            primary: false,
            texts: Texts::Both,
        },
        ColumnInfo {
            name: "qafacteval_answered",
            description: "fraction of consistent questions answered on the abstract",
            min: Some(0.0),
            max: Some(1.0),
            direction: Direction::HigherIsBetter,
            primary: false,
            texts: Texts::Both,
        },
        ColumnInfo {
            name: "qafacteval_lerc",
            description: "QAFactEval's headline lerc_quip: mean LERC-QuIP score over consistent questions (0 for unanswered), raw (about 0-5, not clipped); null without --lerc-model",
            min: None,
            max: None,
            direction: Direction::HigherIsBetter,
            primary: false,
            texts: Texts::Both,
        },
        ColumnInfo {
            name: "qafacteval_lerc_norm",
            description: "clamp(qafacteval_lerc, 0, 5) / 5; null without --lerc-model",
            min: Some(0.0),
            max: Some(1.0),
            direction: Direction::HigherIsBetter,
            primary: false,
            texts: Texts::Both,
        },
    ],
    feature: Some("qa"),
    needs_model: true,
};

/// Cloze-question registry entry (SummaQA-style; extractive QA model only).
pub static CLOZE: MetricInfo = MetricInfo {
    name: "cloze",
    description: "SummaQA-style cloze questions: summary sentences with one answer masked, answered on the abstract by an extractive QA model",
    reference: "SummaQA idea (Scialom et al. 2019); no reference parity",
    columns: &[
        ColumnInfo {
            name: "cloze_f1",
            description: "mean token F1 between masked answers and the abstract's predictions (0 with no question)",
            min: Some(0.0),
            max: Some(1.0),
            direction: Direction::HigherIsBetter,
            primary: true,
            texts: Texts::Both,
        },
        ColumnInfo {
            name: "cloze_probability",
            description: "mean n-best probability of the predictions",
            min: Some(0.0),
            max: Some(1.0),
            direction: Direction::HigherIsBetter,
            primary: false,
            texts: Texts::Both,
        },
    ],
    feature: Some("qa"),
    needs_model: true,
};

/// Registry entries of the model-based metrics (always listed, even when not compiled in).
pub fn registry_entries() -> Vec<&'static MetricInfo> {
    vec![&ALIGNSCORE, &DAE, &QUESTEVAL, &QAFACTEVAL, &CLOZE]
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
        #[cfg(feature = "qa")]
        "questeval" | "qafacteval" | "cloze" => Some(qa::build(name, options)),
        _ => None,
    }
}

#[cfg(feature = "alignscore")]
mod alignscore;
#[cfg(feature = "dae")]
mod dae;
#[cfg(feature = "qa")]
mod qa;

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
