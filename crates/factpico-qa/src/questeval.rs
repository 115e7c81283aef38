//! The QuestEval preset (ThomasScialom/QuestEval @ 241a1aa, `questeval` 0.2.4,
//! `questeval/questeval_metric.py`), text2text task, sources only, no weighter — the
//! factuality use of FactPICO.
//!
//! Per (source, summary):
//! 1. answers of each text ([`AnswerSelector::questeval`]: first 5 sentences, entities then
//!    noun chunks);
//! 2. one question per answer: T5 input `"{prefix} </s> {answer} </s> {full text}"`
//!    (prefix `sv1` for the reference QG model), tokenised with right truncation to 512,
//!    greedy decoding with `max_length = 20` (transformers' default), decoded with
//!    `skip_special_tokens=True, clean_up_tokenization_spaces=True`;
//! 3. each question answered on the *other* text: input `"{question} </s> {other text}"`,
//!    greedy, answer = decoded output (may be `unanswerable`), **answerability**
//!    `= 1 − softmax(step-0 logits)[unanswerable id]` (73 for the reference QA model);
//! 4. per question `f1 = SQuAD F1(predicted, gold answer)` and the answerability, clamped
//!    to `[0, 1]`; a direction's score is the mean over all its questions of all components
//!    (= mean of the per-component means) and **0 when it has no question**;
//! 5. `score = (precision + recall) / 2`, precision = summary questions answered on the
//!    source, recall = source questions answered on the summary; an empty source or
//!    summary (`""`) scores 0.
//!
//! The reference's third component, BERTScore (mBERT layer 9) between predicted and gold
//! answers, is not computed by this version: the score is then reported as
//! **`questeval_f1`** and must not be compared with published QuestEval numbers.
use std::collections::HashMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use factpico_runtime::generate::GreedyConfig;
use factpico_runtime::seq2seq::Seq2SeqModel;
use factpico_runtime::SessionOptions;

use crate::answers::{AnswerSelector, Answers};
use crate::error::{Error, Result};
use crate::report::{Direction, QuestionRecord, RowProvenance};
use crate::squad::token_f1;

/// Name under which the score is reported without the BERTScore component.
pub const QUESTEVAL_F1: &str = "questeval_f1";

/// QuestEval settings. `QuestEvalOptions::new(qg, qa)` gives the reference's defaults.
#[derive(Debug, Clone)]
pub struct QuestEvalOptions {
    /// Question-generation model directory (`onnx/export_seq2seq.py --role qg`; the reference
    /// uses `ThomasNLG/t5-qg_squad1-en`).
    pub qg_model: PathBuf,
    /// Question-answering model directory with an `unanswerable_token_id` in its manifest
    /// (reference: `ThomasNLG/t5-qa_squad2neg-en`, id 73).
    pub qa_model: PathBuf,
    /// BERTScore encoder directory. Not supported by this version: must be `None` (the
    /// score is then `questeval_f1`).
    pub bertscore_model: Option<PathBuf>,
    /// Answer selection (spaCy sidecar for parity; rules otherwise).
    pub answers: AnswerSelector,
    /// Sentences per text that yield answers (reference: 5).
    pub limit_sent: usize,
    /// Generation `max_length`, decoder start token included (reference: 20).
    pub max_length: usize,
    /// QG prefix; `None` takes the QG manifest's `qg_prefix` (`sv1` for the reference
    /// model), `Some("")` disables it.
    pub qg_prefix: Option<String>,
    /// Sequences per encoder/decoder batch (≥ 1).
    pub batch_size: usize,
    /// ONNX Runtime session settings.
    pub session: SessionOptions,
}

impl QuestEvalOptions {
    /// Reference defaults with the given model directories and rule-based answers.
    pub fn new(qg_model: impl Into<PathBuf>, qa_model: impl Into<PathBuf>) -> Self {
        Self {
            qg_model: qg_model.into(),
            qa_model: qa_model.into(),
            bertscore_model: None,
            answers: AnswerSelector::Rules,
            limit_sent: 5,
            max_length: 20,
            qg_prefix: None,
            batch_size: 16,
            session: SessionOptions::default(),
        }
    }
}

/// Mean components of one direction.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, Default)]
pub struct DirectionScore {
    /// Direction score: mean over questions and components; 0 with no question.
    pub score: f64,
    /// Mean answerability (None with no question).
    pub answerability: Option<f64>,
    /// Mean token F1 (None with no question).
    pub f1: Option<f64>,
    /// Number of questions.
    pub questions: usize,
}

/// QuestEval result of one (source, summary) pair.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct QuestEvalRow {
    /// Metric name of `score`: `questeval_f1` (no BERTScore component).
    pub metric: String,
    /// `(precision + recall) / 2`, in `[0, 1]`.
    pub score: f64,
    /// Summary questions answered on the source.
    pub precision: DirectionScore,
    /// Source questions answered on the summary.
    pub recall: DirectionScore,
    /// Every question of both directions (precision first).
    pub questions: Vec<QuestionRecord>,
    /// Answer selectors used.
    pub provenance: RowProvenance,
}

/// A loaded QuestEval scorer.
#[derive(Debug)]
pub struct QuestEval {
    qg: Seq2SeqModel,
    qa: Seq2SeqModel,
    unanswerable: u32,
    prefix: Option<String>,
    opts: QuestEvalOptions,
}

struct QaOut {
    answer: String,
    answerability: f64,
}

impl QuestEval {
    /// Loads the models.
    ///
    /// # Errors
    /// [`Error::InvalidOption`] for a BERTScore model (unsupported), zero batch size or
    /// `max_length < 2`; [`Error::Runtime`] when a model directory cannot be loaded;
    /// [`Error::IncompatibleModel`] when the QA manifest has no `unanswerable_token_id`.
    pub fn try_new(opts: QuestEvalOptions) -> Result<Self> {
        if opts.bertscore_model.is_some() {
            return Err(Error::InvalidOption(
                "the BERTScore component of QuestEval is not implemented in this version; leave \
                 bertscore_model unset (the score is then reported as questeval_f1)"
                    .into(),
            ));
        }
        if opts.batch_size == 0 || opts.max_length < 2 || opts.limit_sent == 0 {
            return Err(Error::InvalidOption("batch_size and limit_sent must be ≥ 1 and max_length ≥ 2".into()));
        }
        let qg = Seq2SeqModel::load(&opts.qg_model, &opts.session).map_err(Error::rt("QuestEval QG model"))?;
        let qa = Seq2SeqModel::load(&opts.qa_model, &opts.session).map_err(Error::rt("QuestEval QA model"))?;
        let unanswerable = qa.config().unanswerable_token_id.ok_or_else(|| Error::IncompatibleModel {
            path: opts.qa_model.display().to_string(),
            reason: "the manifest has no seq2seq.unanswerable_token_id; re-export with \
                     `onnx/export_seq2seq.py ... --role qa --unanswerable-token unanswerable`"
                .into(),
        })?;
        let prefix = match &opts.qg_prefix {
            Some(p) if p.is_empty() => None,
            Some(p) => Some(p.clone()),
            None => qg.config().qg_prefix.clone(),
        };
        Ok(Self { qg, qa, unanswerable, prefix, opts })
    }

    /// Scores one pair (source = abstract, summary = plain-language summary).
    ///
    /// # Errors
    /// Answer-selection and model errors.
    pub fn score(&self, source: &str, summary: &str) -> Result<QuestEvalRow> {
        let mut rows = self.score_batch(&[(source, summary)])?;
        rows.pop().ok_or_else(|| Error::InvalidOption("empty batch".into()))
    }

    /// Scores many pairs; questions of all pairs are generated and answered in shared batches.
    ///
    /// # Errors
    /// Answer-selection and model errors.
    pub fn score_batch(&self, pairs: &[(&str, &str)]) -> Result<Vec<QuestEvalRow>> {
        let sources: Vec<&str> = pairs.iter().map(|p| p.0).collect();
        let summaries: Vec<&str> = pairs.iter().map(|p| p.1).collect();
        let src_ans = self.opts.answers.questeval(&sources, self.opts.limit_sent)?;
        let sum_ans = self.opts.answers.questeval(&summaries, self.opts.limit_sent)?;
        let items: Vec<(&str, &str, &Answers, &Answers)> = pairs
            .iter()
            .zip(src_ans.iter().zip(&sum_ans))
            .map(|((s, m), (a, b))| (*s, *m, a, b))
            .collect();
        self.score_batch_with_answers(&items)
    }

    /// Scores pairs with precomputed answers `(source, summary, source answers, summary
    /// answers)` — e.g. answers read from a reference run.
    ///
    /// # Errors
    /// Model errors.
    pub fn score_batch_with_answers(&self, items: &[(&str, &str, &Answers, &Answers)]) -> Result<Vec<QuestEvalRow>> {
        // 1. question generation for every answer of every non-empty pair.
        let mut qg_inputs: Vec<String> = Vec::new();
        let mut qg_index: HashMap<String, usize> = HashMap::new();
        let mut jobs: Vec<Vec<(Direction, usize, usize)>> = Vec::with_capacity(items.len());
        for (src, summ, sa, ma) in items {
            let mut j = Vec::new();
            if !src.is_empty() && !summ.is_empty() {
                for (dir, text, ans) in
                    [(Direction::SummaryToSource, summ, ma), (Direction::SourceToSummary, src, sa)]
                {
                    for (ci, c) in ans.candidates.iter().enumerate() {
                        let input = match &self.prefix {
                            Some(p) => format!("{p} </s> {} </s> {text}", c.text),
                            None => format!("{} </s> {text}", c.text),
                        };
                        let k = *qg_index.entry(input.clone()).or_insert_with(|| {
                            qg_inputs.push(input);
                            qg_inputs.len() - 1
                        });
                        j.push((dir, ci, k));
                    }
                }
            }
            jobs.push(j);
        }
        let questions = self.generate(&self.qg, &qg_inputs, &[])?;
        // 2. question answering on the other text.
        let mut qa_inputs: Vec<String> = Vec::new();
        let mut qa_index: HashMap<String, usize> = HashMap::new();
        let mut qa_of: Vec<Vec<usize>> = Vec::with_capacity(items.len());
        for ((src, summ, _, _), j) in items.iter().zip(&jobs) {
            let mut v = Vec::with_capacity(j.len());
            for &(dir, _, k) in j {
                let other = if dir == Direction::SummaryToSource { src } else { summ };
                let input = format!("{} </s> {other}", questions[k].0);
                let idx = *qa_index.entry(input.clone()).or_insert_with(|| {
                    qa_inputs.push(input);
                    qa_inputs.len() - 1
                });
                v.push(idx);
            }
            qa_of.push(v);
        }
        let answers: Vec<QaOut> = self
            .generate(&self.qa, &qa_inputs, &[self.unanswerable])?
            .into_iter()
            .map(|(answer, p)| QaOut { answer, answerability: 1.0 - p.first().copied().unwrap_or(0.0) })
            .collect();
        // 3. compose.
        let mut rows = Vec::with_capacity(items.len());
        for (((src, summ, sa, ma), j), qa) in items.iter().zip(&jobs).zip(&qa_of) {
            let mut records = Vec::with_capacity(j.len());
            for (&(dir, ci, k), &ai) in j.iter().zip(qa) {
                let (ans, other) =
                    if dir == Direction::SummaryToSource { (ma, src) } else { (sa, summ) };
                let c = &ans.candidates[ci];
                let out = &answers[ai];
                let predicted_span = (!out.answer.is_empty())
                    .then(|| other.find(out.answer.as_str()).map(|s| s..s + out.answer.len()))
                    .flatten();
                records.push(QuestionRecord {
                    direction: dir,
                    answer_kind: c.kind.clone(),
                    question: questions[k].0.clone(),
                    answer: c.text.clone(),
                    answer_span: c.span.clone(),
                    predicted: out.answer.clone(),
                    predicted_span,
                    answerability: Some(out.answerability),
                    probability: None,
                    null_probability: None,
                    answered: None,
                    f1: token_f1(&out.answer, &c.text),
                    em: None,
                    consistent: None,
                    self_answer: None,
                });
            }
            let precision = direction_score(&records, Direction::SummaryToSource);
            let recall = direction_score(&records, Direction::SourceToSummary);
            let score = if src.is_empty() || summ.is_empty() { 0.0 } else { (precision.score + recall.score) / 2.0 };
            rows.push(QuestEvalRow {
                metric: QUESTEVAL_F1.to_owned(),
                score,
                precision,
                recall,
                questions: records,
                provenance: RowProvenance {
                    source_answers: Some(sa.provenance.clone()),
                    summary_answers: ma.provenance.clone(),
                    source_sentences: sa.sentences.len(),
                    summary_sentences: ma.sentences.len(),
                },
            });
        }
        Ok(rows)
    }

    /// Greedy generation of many input strings: (decoded text, first-step probe probs).
    fn generate(&self, model: &Seq2SeqModel, inputs: &[String], probes: &[u32]) -> Result<Vec<(String, Vec<f64>)>> {
        let enc: Vec<Vec<u32>> = inputs
            .iter()
            .map(|s| model.encode(s).map(|e| e.ids))
            .collect::<std::result::Result<_, _>>()
            .map_err(Error::rt("tokenising QuestEval inputs"))?;
        let refs: Vec<&[u32]> = enc.iter().map(Vec::as_slice).collect();
        let c = model.config();
        let mut cfg = GreedyConfig::new(c.decoder_start_token_id, Some(c.eos_token_id), c.pad_token_id);
        cfg.max_length = self.opts.max_length;
        cfg.probe_token_ids = probes.to_vec();
        let outs = model
            .generate_greedy(&refs, &cfg, self.opts.batch_size)
            .map_err(Error::rt("QuestEval generation"))?;
        outs.into_iter()
            .map(|o| {
                let text = model.decode_hf(&o.tokens, true, true).map_err(Error::rt("decoding"))?;
                Ok((text, o.first_step_probs.iter().map(|&p| f64::from(p)).collect()))
            })
            .collect()
    }
}

/// QuestEval `_base_score` for one direction: mean of the clamped components over all
/// questions, 0 when there is none.
fn direction_score(records: &[QuestionRecord], dir: Direction) -> DirectionScore {
    let qs: Vec<&QuestionRecord> = records.iter().filter(|r| r.direction == dir).collect();
    if qs.is_empty() {
        return DirectionScore::default();
    }
    let clamp = |x: f64| x.clamp(0.0, 1.0);
    let ans: Vec<f64> = qs.iter().map(|r| clamp(r.answerability.unwrap_or(0.0))).collect();
    let f1: Vec<f64> = qs.iter().map(|r| clamp(r.f1)).collect();
    let n = qs.len() as f64;
    let all: f64 = ans.iter().chain(&f1).sum();
    DirectionScore {
        score: all / (2.0 * n),
        answerability: Some(ans.iter().sum::<f64>() / n),
        f1: Some(f1.iter().sum::<f64>() / n),
        questions: qs.len(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::answers::AnswerKind;

    fn rec(dir: Direction, a: f64, f1: f64) -> QuestionRecord {
        QuestionRecord {
            direction: dir,
            answer_kind: AnswerKind::Provided,
            question: "q".into(),
            answer: "a".into(),
            answer_span: None,
            predicted: "p".into(),
            predicted_span: None,
            answerability: Some(a),
            probability: None,
            null_probability: None,
            answered: None,
            f1,
            em: None,
            consistent: None,
            self_answer: None,
        }
    }

    #[test]
    fn composition_hand_worked() {
        // Precision: answerability [0.9, 1.2→1.0], f1 [0.5, 0] → (0.9+1+0.5+0)/4 = 0.6.
        // Recall: no questions → 0. Score (0.6 + 0)/2 = 0.3.
        let r = vec![rec(Direction::SummaryToSource, 0.9, 0.5), rec(Direction::SummaryToSource, 1.2, 0.0)];
        let p = direction_score(&r, Direction::SummaryToSource);
        assert!((p.score - 0.6).abs() < 1e-12);
        assert_eq!(p.questions, 2);
        assert!((p.answerability.unwrap_or(0.0) - 0.95).abs() < 1e-12);
        let q = direction_score(&r, Direction::SourceToSummary);
        assert_eq!(q.score, 0.0);
        assert_eq!(q.f1, None);
    }
}
