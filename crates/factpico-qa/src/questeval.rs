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
//! 4. per question `f1 = SQuAD F1(predicted, gold answer)`, the answerability and — when a
//!    BERTScore model is configured — `bertscore = BERTScore F1(predicted, gold answer)`
//!    ([`crate::bertscore`]; mBERT layer 9 in the reference; an `unanswerable` prediction is
//!    scored like any other string: the reference's zeroing of it is commented out), each
//!    clamped to `[0, 1]`; a direction's score is the mean over all its questions of all
//!    components (= mean of the per-component means) and **0 when it has no question**;
//! 5. `score = (precision + recall) / 2`, precision = summary questions answered on the
//!    source, recall = source questions answered on the summary; an empty source or
//!    summary (`""`) scores 0.
//!
//! With BERTScore (`list_scores=('answerability', 'bertscore', 'f1')`, the reference's
//! default) the score is named **`questeval`**; without it **`questeval_f1`**, which must not
//! be compared with published QuestEval numbers.
//!
//! BERTScore batches: the reference scores all (prediction, gold) pairs of one
//! `corpus_questeval` chunk (512 pairs) in two `bert_score` calls (questions asked on the
//! sources, then on the summaries, in the order of its per-text logs, shared by identical
//! texts), and bert_score's padding floors negative best similarities at 0 depending on the
//! batch neighbours. [`QuestEval::score_batch_with_answers`] rebuilds that order, so a call
//! with the same pairs in the same order as `corpus_questeval` (with `use_cache=False`)
//! reproduces it exactly.
use std::collections::HashMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use factpico_runtime::generate::GreedyConfig;
use factpico_runtime::seq2seq::Seq2SeqModel;
use factpico_runtime::SessionOptions;

use crate::answers::{AnswerSelector, Answers};
use crate::bertscore::BertScorer;
use crate::error::{Error, Result};
use crate::report::{QuestionFlow, QuestionRecord, RowProvenance};
use crate::squad::token_f1;

/// Name under which the score is reported without the BERTScore component.
pub const QUESTEVAL_F1: &str = "questeval_f1";
/// Name under which the score is reported with the BERTScore component (the reference's
/// default composition).
pub const QUESTEVAL: &str = "questeval";
/// Pairs per `corpus_questeval` chunk (its `batch_size`): the unit within which the reference
/// shares per-text logs and batches BERTScore.
pub const CORPUS_CHUNK: usize = 512;

/// QuestEval settings. `QuestEvalOptions::new(qg, qa)` gives the reference's defaults.
#[derive(Debug, Clone)]
pub struct QuestEvalOptions {
    /// Question-generation model directory (`onnx/export_seq2seq.py --role qg`; the reference
    /// uses `ThomasNLG/t5-qg_squad1-en`).
    pub qg_model: PathBuf,
    /// Question-answering model directory with an `unanswerable_token_id` in its manifest
    /// (reference: `ThomasNLG/t5-qa_squad2neg-en`, id 73).
    pub qa_model: PathBuf,
    /// BERTScore token-embedding directory (`onnx/export_embedding.py`; reference:
    /// `bert-base-multilingual-cased` cut after layer 9). `None`: no BERTScore component, the
    /// score is `questeval_f1`; `Some`: the reference's full composition, named `questeval`.
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
    /// Direction score (precision or recall side): mean over questions and components; 0 with no question.
    pub score: f64,
    /// Mean answerability (None with no question).
    pub answerability: Option<f64>,
    /// Mean token F1 (None with no question).
    pub f1: Option<f64>,
    /// Mean BERTScore F1, clamped per question (None with no question or without a
    /// BERTScore model).
    #[serde(default)]
    pub bertscore: Option<f64>,
    /// Number of questions.
    pub questions: usize,
}

/// QuestEval result of one (source, summary) pair.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct QuestEvalRow {
    /// Metric name of `score`: `questeval` (with BERTScore) or `questeval_f1` (without).
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
    bertscore: Option<BertScorer>,
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
    /// [`Error::InvalidOption`] for zero batch size or `max_length < 2`; [`Error::Runtime`]
    /// when a model directory (QG, QA, BERTScore) cannot be loaded;
    /// [`Error::IncompatibleModel`] when the QA manifest has no `unanswerable_token_id`.
    pub fn try_new(opts: QuestEvalOptions) -> Result<Self> {
        if opts.batch_size == 0 || opts.max_length < 2 || opts.limit_sent == 0 {
            return Err(Error::InvalidOption("batch_size and limit_sent must be ≥ 1 and max_length ≥ 2".into()));
        }
        let qg = Seq2SeqModel::load(&opts.qg_model, &opts.session).map_err(Error::rt("QuestEval QG model"))?;
        let qa = Seq2SeqModel::load(&opts.qa_model, &opts.session).map_err(Error::rt("QuestEval QA model"))?;
        let bertscore = match &opts.bertscore_model {
            Some(dir) => Some(BertScorer::load(dir, &opts.session)?),
            None => None,
        };
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
        Ok(Self { qg, qa, bertscore, unanswerable, prefix, opts })
    }

    /// The metric name of the scores: [`QUESTEVAL`] with a BERTScore model, else
    /// [`QUESTEVAL_F1`].
    pub fn metric_name(&self) -> &'static str {
        if self.bertscore.is_some() {
            QUESTEVAL
        } else {
            QUESTEVAL_F1
        }
    }

    /// The BERTScore scorer, when configured.
    pub fn bertscorer(&self) -> Option<&BertScorer> {
        self.bertscore.as_ref()
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
    /// answers)` — e.g. answers read from a reference run. With BERTScore, the reference's
    /// batch composition is reproduced for this list of pairs (see the module docs).
    ///
    /// # Errors
    /// Model errors.
    pub fn score_batch_with_answers(&self, items: &[(&str, &str, &Answers, &Answers)]) -> Result<Vec<QuestEvalRow>> {
        // 1. question generation for every answer of every non-empty pair.
        let mut qg_inputs: Vec<String> = Vec::new();
        let mut qg_index: HashMap<String, usize> = HashMap::new();
        let mut jobs: Vec<Vec<(QuestionFlow, usize, usize)>> = Vec::with_capacity(items.len());
        for (src, summ, sa, ma) in items {
            let mut j = Vec::new();
            if !src.is_empty() && !summ.is_empty() {
                for (dir, text, ans) in
                    [(QuestionFlow::SummaryToSource, summ, ma), (QuestionFlow::SourceToSummary, src, sa)]
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
                let other = if dir == QuestionFlow::SummaryToSource { src } else { summ };
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
        // 3. BERTScore between predicted and gold answers, in the reference's order.
        let bert: Option<Vec<Vec<f64>>> = match &self.bertscore {
            Some(scorer) => {
                let mut per_item: Vec<Vec<f64>> = jobs.iter().map(|j| vec![0.0; j.len()]).collect();
                let ctx = BertContext { items, jobs: &jobs, questions: &questions, qa_of: &qa_of, answers: &answers };
                for start in (0..items.len()).step_by(CORPUS_CHUNK) {
                    let end = (start + CORPUS_CHUNK).min(items.len());
                    ctx.chunk_bertscores(scorer, start..end, &mut per_item)?;
                }
                Some(per_item)
            }
            None => None,
        };
        // 4. compose.
        let mut rows = Vec::with_capacity(items.len());
        for (n, (((src, summ, sa, ma), j), qa)) in items.iter().zip(&jobs).zip(&qa_of).enumerate() {
            let mut records = Vec::with_capacity(j.len());
            for (jj, (&(dir, ci, k), &ai)) in j.iter().zip(qa).enumerate() {
                let (ans, other) =
                    if dir == QuestionFlow::SummaryToSource { (ma, src) } else { (sa, summ) };
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
                    bertscore: bert.as_ref().map(|b| b[n][jj]),
                    lerc_quip: None,
                });
            }
            let precision = direction_score(&records, QuestionFlow::SummaryToSource);
            let recall = direction_score(&records, QuestionFlow::SourceToSummary);
            let score = if src.is_empty() || summ.is_empty() { 0.0 } else { (precision.score + recall.score) / 2.0 };
            rows.push(QuestEvalRow {
                metric: self.metric_name().to_owned(),
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

/// QuestEval `_base_score` for one direction: mean of the clamped components
/// (answerability, BERTScore when every question has one, F1) over all questions, 0 when
/// there is none.
fn direction_score(records: &[QuestionRecord], dir: QuestionFlow) -> DirectionScore {
    let qs: Vec<&QuestionRecord> = records.iter().filter(|r| r.direction == dir).collect();
    if qs.is_empty() {
        return DirectionScore::default();
    }
    // `max(min(1, x), 0)`; a NaN would fail the reference's range assertion, count it as 0.
    let clamp = |x: f64| if x.is_nan() { 0.0 } else { x.clamp(0.0, 1.0) };
    let ans: Vec<f64> = qs.iter().map(|r| clamp(r.answerability.unwrap_or(0.0))).collect();
    let f1: Vec<f64> = qs.iter().map(|r| clamp(r.f1)).collect();
    let bert: Option<Vec<f64>> = qs.iter().map(|r| r.bertscore.map(clamp)).collect();
    let n = qs.len() as f64;
    let components = if bert.is_some() { 3.0 } else { 2.0 };
    let all: f64 = ans.iter().chain(bert.iter().flatten()).chain(&f1).sum();
    DirectionScore {
        score: all / (components * n),
        answerability: Some(ans.iter().sum::<f64>() / n),
        f1: Some(f1.iter().sum::<f64>() / n),
        bertscore: bert.map(|b| b.iter().sum::<f64>() / n),
        questions: qs.len(),
    }
}

/// What the BERTScore ordering needs from [`QuestEval::score_batch_with_answers`].
struct BertContext<'a> {
    items: &'a [(&'a str, &'a str, &'a Answers, &'a Answers)],
    /// Per item: (direction, candidate index, question index).
    jobs: &'a [Vec<(QuestionFlow, usize, usize)>],
    questions: &'a [(String, Vec<f64>)],
    /// Per item and job: index into `answers`.
    qa_of: &'a [Vec<usize>],
    answers: &'a [QaOut],
}

/// `log['asked'][question]` of one text: the QA answer and the gold answers in insertion order.
struct Asked {
    answer: usize,
    answered: bool,
    golds: Vec<String>,
}

/// A QuestEval per-text log (shared by every occurrence of the same text in a chunk).
#[derive(Default)]
struct Log {
    asked: Vec<Asked>,
    by_question: HashMap<String, usize>,
}

impl BertContext<'_> {
    /// The candidate text and question of job `jj` of item `i`.
    fn job(&self, i: usize, jj: usize) -> (QuestionFlow, &str, &str) {
        let (dir, ci, k) = self.jobs[i][jj];
        let (src_ans, summ_ans) = (self.items[i].2, self.items[i].3);
        let gold = if dir == QuestionFlow::SummaryToSource { &summ_ans.candidates[ci] } else { &src_ans.candidates[ci] };
        (dir, gold.text.as_str(), self.questions[k].0.as_str())
    }

    /// Replays QuestEval 0.2.4's `_batch_questeval` on one chunk: per-text logs filled by
    /// `_compute_question_answering` (sources asked the summaries' questions, then the
    /// summaries asked the sources'), then `_compute_answer_similarity_scores` over the
    /// source logs and then the summary logs, each one `bert_score` call on the to-do list
    /// (repeated logs repeat their entries; the last value written wins). Writes each
    /// job's BERTScore F1 into `out`.
    fn chunk_bertscores(
        &self,
        scorer: &BertScorer,
        chunk: std::ops::Range<usize>,
        out: &mut [Vec<f64>],
    ) -> Result<()> {
        let mut logs: Vec<Log> = Vec::new();
        let mut log_of: HashMap<&str, usize> = HashMap::new();
        // Both QA calls.
        for dir in [QuestionFlow::SummaryToSource, QuestionFlow::SourceToSummary] {
            let mut todo: Vec<(usize, usize, String)> = Vec::new();
            for i in chunk.clone() {
                let (src, summ, _, _) = self.items[i];
                if src.is_empty() || summ.is_empty() {
                    continue;
                }
                let on = if dir == QuestionFlow::SummaryToSource { src } else { summ };
                let l = *log_of.entry(on).or_insert_with(|| {
                    logs.push(Log::default());
                    logs.len() - 1
                });
                for jj in 0..self.jobs[i].len() {
                    let (d, gold, q) = self.job(i, jj);
                    if d != dir {
                        continue;
                    }
                    let log = &mut logs[l];
                    let a = match log.by_question.get(q) {
                        Some(&a) => a,
                        None => {
                            log.asked.push(Asked { answer: self.qa_of[i][jj], answered: false, golds: Vec::new() });
                            log.by_question.insert(q.to_owned(), log.asked.len() - 1);
                            log.asked.len() - 1
                        }
                    };
                    let asked = &mut log.asked[a];
                    if !asked.answered {
                        todo.push((l, a, gold.to_owned()));
                    } else if !asked.golds.iter().any(|g| g == gold) {
                        asked.golds.push(gold.to_owned());
                    }
                }
            }
            for (l, a, gold) in todo {
                let asked = &mut logs[l].asked[a];
                asked.answered = true;
                if !asked.golds.contains(&gold) {
                    asked.golds.push(gold);
                }
            }
        }
        // Both similarity calls.
        let mut value: HashMap<(usize, usize, usize), f64> = HashMap::new();
        for sources in [true, false] {
            let mut list: Vec<(usize, usize, usize)> = Vec::new();
            for i in chunk.clone() {
                let text = if sources { self.items[i].0 } else { self.items[i].1 };
                if text.is_empty() {
                    continue;
                }
                let Some(&l) = log_of.get(text) else { continue };
                for (a, asked) in logs[l].asked.iter().enumerate() {
                    for g in 0..asked.golds.len() {
                        if !value.contains_key(&(l, a, g)) {
                            list.push((l, a, g));
                        }
                    }
                }
            }
            if list.is_empty() {
                continue;
            }
            let pairs: Vec<(&str, &str)> = list
                .iter()
                .map(|&(l, a, g)| {
                    let asked = &logs[l].asked[a];
                    (self.answers[asked.answer].answer.as_str(), asked.golds[g].as_str())
                })
                .collect();
            let scores = scorer.score(&pairs)?;
            for (key, s) in list.into_iter().zip(scores) {
                value.insert(key, s.f1);
            }
        }
        // Each job's value.
        for i in chunk {
            let (src, summ, _, _) = self.items[i];
            for (jj, slot) in out[i].iter_mut().enumerate() {
                let (dir, gold, q) = self.job(i, jj);
                let on = if dir == QuestionFlow::SummaryToSource { src } else { summ };
                let found = log_of.get(on).and_then(|&l| {
                    let a = *logs[l].by_question.get(q)?;
                    let g = logs[l].asked[a].golds.iter().position(|x| x == gold)?;
                    value.get(&(l, a, g)).copied()
                });
                *slot = found.ok_or_else(|| {
                    Error::InvalidOption("internal: a QuestEval question has no BERTScore".into())
                })?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::answers::AnswerKind;

    fn rec(dir: QuestionFlow, a: f64, f1: f64) -> QuestionRecord {
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
            bertscore: None,
            lerc_quip: None,
        }
    }

    #[test]
    fn composition_hand_worked() {
        // Precision: answerability [0.9, 1.2→1.0], f1 [0.5, 0] → (0.9+1+0.5+0)/4 = 0.6.
        // Recall: no questions → 0. Score (0.6 + 0)/2 = 0.3.
        let r = vec![rec(QuestionFlow::SummaryToSource, 0.9, 0.5), rec(QuestionFlow::SummaryToSource, 1.2, 0.0)];
        let p = direction_score(&r, QuestionFlow::SummaryToSource);
        assert!((p.score - 0.6).abs() < 1e-12);
        assert_eq!(p.questions, 2);
        assert!((p.answerability.unwrap_or(0.0) - 0.95).abs() < 1e-12);
        let q = direction_score(&r, QuestionFlow::SourceToSummary);
        assert_eq!(q.score, 0.0);
        assert_eq!(q.f1, None);
    }
}
