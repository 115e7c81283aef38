//! Unit `qa`: the QA-based metrics `questeval` (QuestEval), `qafacteval` (QAFactEval-style)
//! and `cloze` (SummaQA-style cloze questions) (cargo feature `qa`). One unit because they
//! share the answer selector (`--answers`) and the extractive QA model (QAFactEval, cloze).

use factpico_qa::QaConfig;
use serde::Deserialize;

use super::MetricUnit;
use crate::explain::{ExplainBlock, Question, Side, TextSpan};
use crate::metric::{ColumnInfo, Direction::HigherIsBetter as Hi, Metric, MetricInfo};
use crate::session::RuntimeOptions;
use crate::Result;

/// QuestEval registry entry: `questeval_f1*` (answerability and F1, always computed) and,
/// with a BERTScore model, `questeval*` (the reference's three components).
pub static QUESTEVAL: MetricInfo = MetricInfo::new(
    "questeval",
    "QuestEval: T5 QG on each text, T5 QA (with answerability) on the other; answerability, token F1 and (with `qa.bertscore_model`) BERTScore, precision and recall averaged",
    "ThomasScialom/QuestEval 241a1aa (questeval 0.2.4), questeval/questeval_metric.py; questeval_f1: list_scores=('answerability','f1'); questeval: ('answerability','bertscore','f1') with bert_score 0.3.9",
    &[
        ColumnInfo::new(
            "questeval_f1",
            "(precision + recall) / 2 of QuestEval's answerability and F1 components; not comparable with published QuestEval (no BERTScore)",
            Hi,
        )
        .range(Some(0.0), Some(1.0))
        .primary(),
        ColumnInfo::new("questeval_f1_precision", "summary questions answered on the abstract (precision direction)", Hi)
            .range(Some(0.0), Some(1.0)),
        ColumnInfo::new("questeval_f1_recall", "abstract questions answered on the summary (recall direction)", Hi)
            .range(Some(0.0), Some(1.0)),
        ColumnInfo::new(
            "questeval",
            "QuestEval with all three components (answerability, BERTScore, F1) as published; null without `qa.bertscore_model`",
            Hi,
        )
        .range(Some(0.0), Some(1.0)),
        ColumnInfo::new("questeval_precision", "precision direction with BERTScore; null without `qa.bertscore_model`", Hi)
            .range(Some(0.0), Some(1.0)),
        ColumnInfo::new("questeval_recall", "recall direction with BERTScore; null without `qa.bertscore_model`", Hi)
            .range(Some(0.0), Some(1.0)),
    ],
)
.model("qa");

/// QAFactEval registry entry (answer overlap; LERC-QuIP with a LERC-QuIP model).
pub static QAFACTEVAL: MetricInfo = MetricInfo::new(
    "qafacteval",
    "QAFactEval-style: BART QG on summary noun chunks, consistency filter, extractive QA on the abstract, answer overlap and (with `qa.lerc_model`) LERC-QuIP",
    "salesforce/QAFactEval 645686a (qafacteval.py, lerc_quip.py) + danieldeutsch/qaeval dd72731 (f1 / em keys)",
    &[
        ColumnInfo::new(
            "qafacteval_f1",
            "mean token F1 between summary and abstract answers over consistent questions (0 for unanswered)",
            Hi,
        )
        .range(Some(0.0), Some(1.0))
        .primary(),
        ColumnInfo::new("qafacteval_em", "mean exact match over consistent questions", Hi).range(Some(0.0), Some(1.0)),
        ColumnInfo::new("qafacteval_answered", "fraction of consistent questions answered on the abstract", Hi)
            .range(Some(0.0), Some(1.0)),
        ColumnInfo::new(
            "qafacteval_lerc",
            "QAFactEval's headline lerc_quip: mean LERC-QuIP score over consistent questions (0 for unanswered), raw (about 0-5, not clipped); null without `qa.lerc_model`",
            Hi,
        ),
        ColumnInfo::new("qafacteval_lerc_norm", "clamp(qafacteval_lerc, 0, 5) / 5; null without `qa.lerc_model`", Hi)
            .range(Some(0.0), Some(1.0)),
    ],
)
.model("qa");

/// Cloze-question registry entry (SummaQA-style; extractive QA model only).
pub static CLOZE: MetricInfo = MetricInfo::new(
    "cloze",
    "SummaQA-style cloze questions: summary sentences with one answer masked, answered on the abstract by an extractive QA model",
    "SummaQA idea (Scialom et al. 2019); no reference parity",
    &[
        ColumnInfo::new("cloze_f1", "mean token F1 between masked answers and the abstract's predictions (0 with no question)", Hi)
            .range(Some(0.0), Some(1.0))
            .primary(),
        ColumnInfo::new("cloze_probability", "mean n-best probability of the predictions", Hi).range(Some(0.0), Some(1.0)),
    ],
)
.model("qa");

/// The `qa` unit.
pub struct Qa;

impl MetricUnit for Qa {
    type Options = QaConfig;
    const METRICS: &'static [&'static MetricInfo] = &[&QUESTEVAL, &QAFACTEVAL, &CLOZE];
    const COMPILED_IN: bool = cfg!(feature = "qa");

    fn build(
        metric: &'static MetricInfo,
        options: &QaConfig,
        runtime: &RuntimeOptions,
    ) -> Result<Box<dyn Metric>> {
        #[cfg(feature = "qa")]
        {
            imp::build(metric, options, runtime)
        }
        #[cfg(not(feature = "qa"))]
        {
            let _ = (options, runtime);
            Err(super::feature_disabled(metric))
        }
    }

    /// Every question (filtered ones marked) with its answers on both texts and its values.
    fn explain(metric: &'static MetricInfo, detail: &serde_json::Value) -> Vec<ExplainBlock> {
        let Ok(d) = serde_json::from_value::<Detail>(detail.clone()) else {
            return crate::explain::generic(detail);
        };
        let questions = d
            .questions
            .iter()
            .map(|q| {
                let asked_on = if q.direction == "source_to_summary" { Side::Source } else { Side::Summary };
                let span =
                    |side: Side, r: &Option<DetailRange>| r.as_ref().and_then(|r| TextSpan::new(side, r.start, r.end));
                let mut values = Vec::new();
                if metric.name == QUESTEVAL.name {
                    values.push(("answerability".to_owned(), q.answerability));
                } else {
                    values.push(("P".to_owned(), q.probability));
                }
                values.push(("F1".to_owned(), q.f1));
                if q.bertscore.is_some() {
                    values.push(("BERTScore".to_owned(), q.bertscore));
                }
                if q.lerc_quip.is_some() {
                    values.push(("LERC-QuIP".to_owned(), q.lerc_quip));
                }
                Question {
                    asked_on,
                    question: q.question.clone(),
                    answer: q.answer.clone(),
                    answer_span: span(asked_on, &q.answer_span),
                    predicted: q.predicted.clone(),
                    predicted_span: span(asked_on.other(), &q.predicted_span),
                    values,
                    filtered: q.consistent == Some(false),
                }
            })
            .collect();
        let title = match metric.name {
            "questeval" => "questions from each text, answered on the other",
            "qafacteval" => "questions from the summary, answered on the abstract",
            _ => "cloze questions from the summary, answered on the abstract",
        };
        vec![ExplainBlock::Questions { title: title.into(), questions }]
    }

    fn option_metrics(field: &str) -> &'static [&'static str] {
        QaConfig::field_metrics(field)
    }
}

/// The part of the QA rows' JSON (`QuestEvalRow`, `QaFactEvalRow`, `ClozeRow`) the
/// explanation reads.
#[derive(Deserialize)]
struct Detail {
    #[serde(default)]
    questions: Vec<DetailQuestion>,
}

#[derive(Deserialize)]
struct DetailRange {
    start: usize,
    end: usize,
}

#[derive(Deserialize)]
struct DetailQuestion {
    direction: String,
    question: String,
    answer: String,
    answer_span: Option<DetailRange>,
    predicted: String,
    predicted_span: Option<DetailRange>,
    answerability: Option<f64>,
    probability: Option<f64>,
    f1: Option<f64>,
    bertscore: Option<f64>,
    lerc_quip: Option<f64>,
    consistent: Option<bool>,
}

#[cfg(feature = "qa")]
mod imp {
    use std::path::PathBuf;
    use std::sync::Arc;

    use factpico_qa::{
        AnswerSelection, AnswerSelector, ClozeOptions, ClozeQa, ClozeRow, QaFactEval, QaFactEvalOptions, QaFactEvalRow, QuestEval,
        QuestEvalOptions, QuestEvalRow, QaConfig,
    };

    use super::{CLOZE, QAFACTEVAL, QUESTEVAL};
    use crate::metric::{Metric, MetricInfo, MetricOutput, Pair};
    use crate::session::RuntimeOptions;
    use crate::units::onnx::{check_sidecar, graphs_sha256, require_dir};
    use crate::{Error, Result};

    const DOC: &str = "docs/qa.md";

    /// The answer selector and its name for provenance.
    fn answers(metric: &str, choice: AnswerSelection) -> Result<(AnswerSelector, &'static str)> {
        let spacy = || {
            let sidecar = factpico_nlp::sidecar::SpacySidecar::new(factpico_nlp::sidecar::SidecarConfig::default());
            AnswerSelector::Spacy(Arc::new(sidecar))
        };
        match choice {
            AnswerSelection::Rules => Ok((AnswerSelector::Rules, "rules")),
            AnswerSelection::Spacy => {
                check_sidecar(metric, "set `qa.answers` to rules")?;
                Ok((spacy(), "spacy"))
            }
            AnswerSelection::Auto => {
                let found = factpico_nlp::sidecar::SpacySidecar::new(factpico_nlp::sidecar::SidecarConfig::default())
                    .resolve_python()
                    .is_ok_and(|p| p.exists());
                Ok(if found { (spacy(), "spacy") } else { (AnswerSelector::Rules, "rules") })
            }
        }
    }

    /// An optional component model (BERTScore, LERC-QuIP): its directory, checked like the
    /// required ones, and its provenance (`null` when not given).
    fn optional_model(
        name: &str,
        dir: Option<&PathBuf>,
        option: &str,
        what: &str,
        reference: &str,
    ) -> Result<(Option<PathBuf>, serde_json::Value)> {
        if dir.is_none() {
            return Ok((None, serde_json::Value::Null));
        }
        let d = require_dir(name, dir, option, what, DOC)?;
        let provenance =
            serde_json::json!({ "model": d, "model_sha256": graphs_sha256(name, &d)?, "reference": reference });
        Ok((Some(d), provenance))
    }

    /// Builds `questeval`, `qafacteval` or `cloze`.
    pub(super) fn build(
        metric: &'static MetricInfo,
        m: &QaConfig,
        runtime: &RuntimeOptions,
    ) -> Result<Box<dyn Metric>> {
        let name = metric.name;
        let (selector, selector_name) = answers(name, m.answers)?;
        let session = runtime.session();
        match name {
            "questeval" => {
                let qg = require_dir(
                    name,
                    m.questeval_qg_model.as_ref(),
                    "qa.questeval_qg_model",
                    "a T5 question-generation export",
                    DOC,
                )?;
                let qa = require_dir(
                    name,
                    m.questeval_qa_model.as_ref(),
                    "qa.questeval_qa_model",
                    "a T5 QA export with an unanswerable token",
                    DOC,
                )?;
                let (bert, bert_provenance) = optional_model(
                    name,
                    m.bertscore_model.as_ref(),
                    "qa.bertscore_model",
                    "a token-embedding export",
                    "bert_score 0.3.9 (idf=False, no rescaling, batch 64)",
                )?;
                let mut o = QuestEvalOptions::new(&qg, &qa);
                o.bertscore_model = bert;
                o.answers = selector;
                o.batch_size = runtime.batch_size.unwrap_or(o.batch_size);
                o.session = session;
                let provenance = serde_json::json!({
                    "reference": QUESTEVAL.reference, "qg_model": qg, "qa_model": qa,
                    "qg_model_sha256": graphs_sha256(name, &qg)?, "qa_model_sha256": graphs_sha256(name, &qa)?,
                    "answers": selector_name, "bertscore": bert_provenance,
                });
                let bertscore = !provenance["bertscore"].is_null();
                let inner = QuestEval::try_new(o).map_err(|e| Error::init(name, e))?;
                Ok(Box::new(QaMetric { inner: Inner::QuestEval(Box::new(inner)), provenance, bertscore }))
            }
            "qafacteval" => {
                let qg = require_dir(
                    name,
                    m.qafacteval_qg_model.as_ref(),
                    "qa.qafacteval_qg_model",
                    "a BART question-generation export",
                    DOC,
                )?;
                let qa = require_dir(
                    name,
                    m.extractive_qa_model.as_ref(),
                    "qa.extractive_qa_model",
                    "an extractive QA export",
                    DOC,
                )?;
                let (lerc, lerc_provenance) = optional_model(
                    name,
                    m.lerc_model.as_ref(),
                    "qa.lerc_model",
                    "a LERC-QuIP export",
                    "salesforce/QAFactEval 645686a lerc_quip.py",
                )?;
                let mut o = QaFactEvalOptions::new(&qg, &qa);
                o.lerc_model = lerc;
                o.answers = selector;
                o.batch_size = runtime.batch_size.unwrap_or(o.batch_size);
                o.session = session;
                let provenance = serde_json::json!({
                    "reference": QAFACTEVAL.reference, "qg_model": qg, "qa_model": qa,
                    "qg_model_sha256": graphs_sha256(name, &qg)?, "qa_model_sha256": graphs_sha256(name, &qa)?,
                    "answers": selector_name, "lerc": lerc_provenance,
                });
                let inner = QaFactEval::try_new(o).map_err(|e| Error::init(name, e))?;
                Ok(Box::new(QaMetric { inner: Inner::QaFactEval(Box::new(inner)), provenance, bertscore: false }))
            }
            _ => {
                let qa = require_dir(
                    name,
                    m.extractive_qa_model.as_ref(),
                    "qa.extractive_qa_model",
                    "an extractive QA export",
                    DOC,
                )?;
                let mut o = ClozeOptions::new(&qa);
                o.answers = selector;
                o.batch_size = runtime.batch_size.unwrap_or(o.batch_size);
                o.session = session;
                let provenance = serde_json::json!({
                    "reference": CLOZE.reference, "qa_model": qa, "qa_model_sha256": graphs_sha256(name, &qa)?, "answers": selector_name,
                });
                let inner = ClozeQa::try_new(o).map_err(|e| Error::init(name, e))?;
                Ok(Box::new(QaMetric { inner: Inner::Cloze(Box::new(inner)), provenance, bertscore: false }))
            }
        }
    }

    enum Inner {
        QuestEval(Box<QuestEval>),
        QaFactEval(Box<QaFactEval>),
        Cloze(Box<ClozeQa>),
    }

    struct QaMetric {
        inner: Inner,
        provenance: serde_json::Value,
        /// QuestEval with a BERTScore model (its `questeval` column is then a headline).
        bertscore: bool,
    }

    /// Null reason of the BERTScore columns without a BERTScore model.
    const NO_BERTSCORE: &str =
        "no `qa.bertscore_model`: QuestEval's BERTScore component is not computed (see questeval_f1)";
    /// Null reason of the LERC-QuIP columns without a LERC-QuIP model.
    const NO_LERC: &str = "no `qa.lerc_model`: LERC-QuIP is not computed";

    /// A direction's score with answerability and F1 only (QuestEval `_base_score` with
    /// `list_scores=('answerability', 'f1')`): the mean of the two component means.
    fn two_component(d: &factpico_qa::DirectionScore) -> f64 {
        match (d.answerability, d.f1) {
            (Some(a), Some(f)) => (a + f) / 2.0,
            _ => 0.0,
        }
    }

    fn questeval_output(r: QuestEvalRow) -> MetricOutput {
        let mut out = MetricOutput::default();
        if r.metric == factpico_qa::QUESTEVAL {
            // Three components; the two-component columns from the same questions.
            out.set("questeval", r.score);
            out.set("questeval_precision", r.precision.score);
            out.set("questeval_recall", r.recall.score);
            let (p, q) = (two_component(&r.precision), two_component(&r.recall));
            out.set("questeval_f1", (p + q) / 2.0);
            out.set("questeval_f1_precision", p);
            out.set("questeval_f1_recall", q);
        } else {
            out.set("questeval_f1", r.score);
            out.set("questeval_f1_precision", r.precision.score);
            out.set("questeval_f1_recall", r.recall.score);
            for c in ["questeval", "questeval_precision", "questeval_recall"] {
                out.set_null(c, NO_BERTSCORE);
            }
        }
        if r.precision.questions == 0 {
            out.warnings
                .push("no question from the summary: the precision direction scores 0, as the reference does".into());
        }
        if r.recall.questions == 0 {
            out.warnings
                .push("no question from the abstract: the recall direction scores 0, as the reference does".into());
        }
        out.detail = serde_json::to_value(&r).ok();
        out
    }

    fn qafacteval_output(r: QaFactEvalRow) -> MetricOutput {
        let mut out = MetricOutput::default();
        out.set("qafacteval_f1", r.f1);
        out.set("qafacteval_em", r.em);
        out.set("qafacteval_answered", r.is_answered);
        match (r.lerc_quip, r.lerc_quip_normalized) {
            (Some(raw), Some(norm)) => {
                out.set("qafacteval_lerc", raw);
                out.set("qafacteval_lerc_norm", norm);
            }
            _ => {
                out.set_null("qafacteval_lerc", NO_LERC);
                out.set_null("qafacteval_lerc_norm", NO_LERC);
            }
        }
        if r.kept == 0 {
            out.warnings.push(format!(
                "no question passed the consistency filter ({} generated): scores are 0, as the reference does",
                r.generated
            ));
        }
        out.detail = serde_json::to_value(&r).ok();
        out
    }

    fn cloze_output(r: ClozeRow) -> MetricOutput {
        let mut out = MetricOutput::default();
        out.set("cloze_f1", r.f1);
        out.set("cloze_probability", r.probability);
        if r.questions.is_empty() {
            out.warnings.push("no answer candidate in the summary: no cloze question was asked".into());
        }
        out.detail = serde_json::to_value(&r).ok();
        out
    }

    impl QaMetric {
        fn run(&self, rows: &[(&str, &str)]) -> Result<Vec<MetricOutput>> {
            let name = self.info().name;
            let e = |e: factpico_qa::Error| Error::metric(name, e);
            Ok(match &self.inner {
                Inner::QuestEval(q) => q.score_batch(rows).map_err(e)?.into_iter().map(questeval_output).collect(),
                Inner::QaFactEval(q) => q.score_batch(rows).map_err(e)?.into_iter().map(qafacteval_output).collect(),
                Inner::Cloze(q) => q.score_batch(rows).map_err(e)?.into_iter().map(cloze_output).collect(),
            })
        }
    }

    impl Metric for QaMetric {
        fn info(&self) -> &'static MetricInfo {
            match self.inner {
                Inner::QuestEval(_) => &QUESTEVAL,
                Inner::QaFactEval(_) => &QAFACTEVAL,
                Inner::Cloze(_) => &CLOZE,
            }
        }

        fn provenance(&self) -> serde_json::Value {
            self.provenance.clone()
        }

        fn score(&self, pair: &Pair<'_>) -> Result<MetricOutput> {
            self.run(&[(pair.source, pair.summary)])?.pop().ok_or_else(|| Error::metric(self.info().name, "no output"))
        }

        /// Questions of all rows are generated and answered in shared batches.
        fn score_batch(&self, pairs: &[Pair<'_>]) -> Result<Vec<Result<MetricOutput>>> {
            let rows: Vec<(&str, &str)> = pairs.iter().map(|p| (p.source, p.summary)).collect();
            Ok(self.run(&rows)?.into_iter().map(Ok).collect())
        }

        /// QuestEval's published composition (`questeval`) next to `questeval_f1` when a
        /// BERTScore model makes it non-null.
        fn summary_columns(&self) -> Vec<&'static str> {
            if self.bertscore {
                vec!["questeval", "questeval_f1"]
            } else {
                self.info().primary_columns().collect()
            }
        }
    }
}
