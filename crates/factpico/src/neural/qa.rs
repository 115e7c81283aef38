//! QuestEval, QAFactEval-style and cloze QA metrics through the [`Metric`]
//! trait (feature `qa`).

use std::path::PathBuf;
use std::sync::Arc;

use factpico_qa::{
    AnswerSelector, ClozeOptions, ClozeQa, ClozeRow, QaFactEval, QaFactEvalOptions, QaFactEvalRow, QuestEval,
    QuestEvalOptions, QuestEvalRow,
};
use factpico_runtime::SessionOptions;

use crate::metric::{Metric, MetricInfo, MetricOutput, Pair};
use crate::neural::{init_error, CLOZE, QAFACTEVAL, QUESTEVAL};
use crate::{Error, ModelOptions, Result, ScorerOptions};

fn require(metric: &str, dir: &Option<PathBuf>, flag: &str, what: &str) -> Result<PathBuf> {
    match dir {
        Some(d) if d.exists() => Ok(d.clone()),
        Some(d) => Err(init_error(metric, format!("{flag} {}: directory does not exist", d.display()))),
        None => Err(Error::MissingOption { metric: metric.into(), what: format!("{flag} DIR ({what}; see docs/qa.md)") }),
    }
}

/// The answer selector and its name for provenance.
fn answers(choice: Option<&str>) -> Result<(AnswerSelector, &'static str)> {
    let spacy = || {
        let sidecar = factpico_nlp::sidecar::SpacySidecar::new(factpico_nlp::sidecar::SidecarConfig::default());
        AnswerSelector::Spacy(Arc::new(sidecar))
    };
    match choice.unwrap_or("auto") {
        "rules" => Ok((AnswerSelector::Rules, "rules")),
        "spacy" => {
            // Fail now, not on every row, when the sidecar cannot start.
            let sidecar = factpico_nlp::sidecar::SpacySidecar::new(factpico_nlp::sidecar::SidecarConfig::default());
            let python = sidecar.resolve_python().map_err(|e| init_error("qa", e))?;
            if !python.exists() {
                return Err(init_error("qa", format!("the spaCy sidecar interpreter {} does not exist; run `cargo xtask sidecar` or use --answers rules", python.display())));
            }
            Ok((spacy(), "spacy"))
        }
        "auto" => {
            let found = factpico_nlp::sidecar::SpacySidecar::new(factpico_nlp::sidecar::SidecarConfig::default())
                .resolve_python()
                .is_ok_and(|p| p.exists());
            Ok(if found { (spacy(), "spacy") } else { (AnswerSelector::Rules, "rules") })
        }
        other => Err(init_error("qa", format!("unknown answer selection {other:?} (auto, spacy, rules)"))),
    }
}

/// sha256 of every ONNX graph of a model directory (seq2seq exports hold several).
fn sha(metric: &str, dir: &std::path::Path) -> Result<serde_json::Value> {
    let files = factpico_runtime::onnx_files_sha256(dir).map_err(|e| init_error(metric, e))?;
    Ok(serde_json::json!(files))
}

/// An optional component model (BERTScore, LERC-QuIP): its directory, checked like the
/// required ones, and its provenance (`null` when not given).
fn optional_model(
    name: &str,
    dir: &Option<PathBuf>,
    flag: &str,
    what: &str,
    reference: &str,
) -> Result<(Option<PathBuf>, serde_json::Value)> {
    if dir.is_none() {
        return Ok((None, serde_json::Value::Null));
    }
    let d = require(name, dir, flag, what)?;
    let provenance = serde_json::json!({ "model": d, "model_sha256": sha(name, &d)?, "reference": reference });
    Ok((Some(d), provenance))
}

/// `--batch-size` and `--threads`, where given.
fn run_options(m: &ModelOptions, batch_size: &mut usize, session: &mut SessionOptions) {
    if let Some(b) = m.batch_size {
        *batch_size = b;
    }
    if let Some(t) = m.threads {
        *session = session.clone().intra_threads(t);
    }
}

/// Builds `questeval`, `qafacteval` or `cloze` from `options.models`.
pub(super) fn build(name: &str, options: &ScorerOptions) -> Result<Box<dyn Metric>> {
    let m = &options.models;
    let (selector, selector_name) = answers(m.qa_answers.as_deref())?;
    match name {
        "questeval" => {
            let qg = require(name, &m.questeval_qg_model, "--questeval-qg-model", "a T5 question-generation export")?;
            let qa = require(name, &m.questeval_qa_model, "--questeval-qa-model", "a T5 QA export with an unanswerable token")?;
            let (bert, bert_provenance) = optional_model(
                name,
                &m.bertscore_model,
                "--bertscore-model",
                "a token-embedding export",
                "bert_score 0.3.9 (idf=False, no rescaling, batch 64)",
            )?;
            let mut o = QuestEvalOptions::new(&qg, &qa);
            o.bertscore_model = bert;
            o.answers = selector;
            run_options(m, &mut o.batch_size, &mut o.session);
            let provenance = serde_json::json!({
                "reference": QUESTEVAL.reference, "qg_model": qg, "qa_model": qa,
                "qg_model_sha256": sha(name, &qg)?, "qa_model_sha256": sha(name, &qa)?,
                "answers": selector_name, "bertscore": bert_provenance,
            });
            let inner = QuestEval::try_new(o).map_err(|e| init_error(name, e))?;
            Ok(Box::new(QaMetric { inner: Inner::QuestEval(Box::new(inner)), provenance }))
        }
        "qafacteval" => {
            let qg = require(name, &m.qafacteval_qg_model, "--qafacteval-qg-model", "a BART question-generation export")?;
            let qa = require(name, &m.extractive_qa_model, "--extractive-qa-model", "an extractive QA export")?;
            let (lerc, lerc_provenance) = optional_model(
                name,
                &m.lerc_model,
                "--lerc-model",
                "a LERC-QuIP export",
                "salesforce/QAFactEval 645686a lerc_quip.py",
            )?;
            let mut o = QaFactEvalOptions::new(&qg, &qa);
            o.lerc_model = lerc;
            o.answers = selector;
            run_options(m, &mut o.batch_size, &mut o.session);
            let provenance = serde_json::json!({
                "reference": QAFACTEVAL.reference, "qg_model": qg, "qa_model": qa,
                "qg_model_sha256": sha(name, &qg)?, "qa_model_sha256": sha(name, &qa)?,
                "answers": selector_name, "lerc": lerc_provenance,
            });
            let inner = QaFactEval::try_new(o).map_err(|e| init_error(name, e))?;
            Ok(Box::new(QaMetric { inner: Inner::QaFactEval(Box::new(inner)), provenance }))
        }
        _ => {
            let qa = require(name, &m.extractive_qa_model, "--extractive-qa-model", "an extractive QA export")?;
            let mut o = ClozeOptions::new(&qa);
            o.answers = selector;
            run_options(m, &mut o.batch_size, &mut o.session);
            let provenance = serde_json::json!({
                "reference": CLOZE.reference, "qa_model": qa, "qa_model_sha256": sha(name, &qa)?, "answers": selector_name,
            });
            let inner = ClozeQa::try_new(o).map_err(|e| init_error(name, e))?;
            Ok(Box::new(QaMetric { inner: Inner::Cloze(Box::new(inner)), provenance }))
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
}

/// Null reason of the BERTScore columns without a BERTScore model.
const NO_BERTSCORE: &str = "no --bertscore-model: QuestEval's BERTScore component is not computed (see questeval_f1)";
/// Null reason of the LERC-QuIP columns without a LERC-QuIP model.
const NO_LERC: &str = "no --lerc-model: LERC-QuIP is not computed";

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
        out.warnings.push("no question from the summary: the precision direction scores 0, as the reference does".into());
    }
    if r.recall.questions == 0 {
        out.warnings.push("no question from the abstract: the recall direction scores 0, as the reference does".into());
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
    fn name(&self) -> &'static str {
        self.info().name
    }

    fn run(&self, rows: &[(&str, &str)]) -> std::result::Result<Vec<MetricOutput>, String> {
        let e = |e: factpico_qa::Error| e.to_string();
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

    fn score(&self, source: &str, summary: &str) -> Result<MetricOutput> {
        self.run(&[(source, summary)])
            .map_err(|message| Error::Metric { metric: self.name().into(), message })?
            .pop()
            .ok_or_else(|| Error::Metric { metric: self.name().into(), message: "no output".into() })
    }

    /// Questions of all rows are generated and answered in shared batches.
    fn score_batch(&self, pairs: &[Pair<'_>]) -> Vec<Result<MetricOutput>> {
        let rows: Vec<(&str, &str)> = pairs.iter().map(|p| (p.source, p.summary)).collect();
        match self.run(&rows) {
            Ok(outs) => outs.into_iter().map(Ok).collect(),
            Err(_) => pairs.iter().map(|p| self.score(p.source, p.summary)).collect(),
        }
    }
}
