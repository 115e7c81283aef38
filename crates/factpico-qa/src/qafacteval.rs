//! The QAFactEval-style preset (salesforce/QAFactEval @ 645686a `qafacteval.py` over
//! danieldeutsch/qaeval @ dd72731), and the cloze-question variant.
//!
//! Per (source, summary):
//! 1. an empty source (`source.trim() == ""`) gets all-zero metrics (`metric.py:89-106`);
//! 2. answers = noun chunks of each summary sentence ([`AnswerSelector::qaeval`]);
//! 3. question generation from the answer's **sentence only** with the answer marked
//!    `"{before}<m> {answer} </m>{after}"`, BART + AllenNLP beam search (beam 4, 100 steps,
//!    start `<s>`, summed log-probability, [`AllenNlpBeamConfig::qaeval_bart`]), trailing
//!    `</s>` removed, decoded without skipping special tokens, clean-up, `strip()`;
//! 4. **consistency filter** (QAFactEval's addition): the question is answered on the
//!    summary; it is kept iff answered (`probability > null_probability`) and
//!    `F1(gold answer, prediction) > 0.60` (strict);
//! 5. kept questions are answered on the source with the extractive model
//!    ([`ExtractiveQaModel`], SQuAD v2 post-processing); `is_answered`, and EM/F1 against
//!    the gold answer when answered, else 0;
//! 6. with a LERC-QuIP model ([`QaFactEvalOptions::lerc_model`], [`crate::lerc`]): per kept
//!    question answered on the source, the regression score of
//!    `"{question} <q> {gold} <r> {prediction} <c> {source}"` (cut to 512 tokens from the
//!    end), 0 when unanswered — the reference's headline `lerc_quip` (≈ 0–5, raw);
//! 7. per summary, the mean of each metric over kept questions; **zero kept questions → all
//!    metrics 0** (indistinguishable from "all wrong", as in the reference).
//!
//! This preset reports `qafacteval_f1` / `qafacteval_em` / `is_answered`, and `lerc_quip`
//! plus `lerc_quip_normalized = clamp(lerc_quip, 0, 5) / 5` when a LERC-QuIP model is given
//! (else `None`).
//!
//! Cloze mode ([`ClozeQa`], SummaQA-style): each summary answer is masked in its sentence
//! (`[MASK]`), the masked sentence is the question, answered on the source by the
//! extractive model; reports mean F1 and mean prediction probability. Needs no QG model.
use std::collections::HashMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use factpico_runtime::extractive_qa::{ExtractiveQaModel, QaPrediction};
use factpico_runtime::generate::allennlp::AllenNlpBeamConfig;
use factpico_runtime::seq2seq::{clean_up_tokenization, python_strip, Seq2SeqModel};
use factpico_runtime::SessionOptions;

use crate::answers::{AnswerCandidate, AnswerSelector, Answers};
use crate::error::{Error, Result};
use crate::lerc::{lerc_quip_input, normalize_lerc_quip, LercQuip};
use crate::report::{QuestionFlow, QuestionRecord, RowProvenance};
use crate::squad::{exact_match, token_f1};

/// QAEval's answer-marker tokens.
pub const SPAN_START: &str = "<m>";
/// QAEval's answer-marker tokens.
pub const SPAN_END: &str = "</m>";

/// QAFactEval settings; [`QaFactEvalOptions::new`] gives the reference's.
#[derive(Debug, Clone)]
pub struct QaFactEvalOptions {
    /// BART question generator with `<m>`/`</m>` added tokens (`onnx/export_seq2seq.py`).
    pub qg_model: PathBuf,
    /// Extractive QA model (`onnx/export_qa.py`; reference: ELECTRA-large SQuAD 2.0).
    pub qa_model: PathBuf,
    /// LERC-QuIP regressor (`onnx/export_hf.py` on QAFactEval's `quip-512-mocha`). `None`:
    /// `lerc_quip` is not computed.
    pub lerc_model: Option<PathBuf>,
    /// Answer selection (spaCy sidecar for parity; rules otherwise).
    pub answers: AnswerSelector,
    /// AllenNLP beam settings; `None`: QAEval's (beam 4, 100 steps, start = the manifest's
    /// BOS, end = its EOS).
    pub beam: Option<AllenNlpBeamConfig>,
    /// Consistency-filter threshold on F1 (reference 0.60, strict `>`).
    pub consistency_threshold: f64,
    /// Apply the consistency filter (QAFactEval: yes; plain QAEval: no).
    pub consistency_filter: bool,
    /// Sequences / windows per batch (≥ 1).
    pub batch_size: usize,
    /// ONNX Runtime session settings.
    pub session: SessionOptions,
}

impl QaFactEvalOptions {
    /// Reference defaults with the given model directories and rule-based answers.
    pub fn new(qg_model: impl Into<PathBuf>, qa_model: impl Into<PathBuf>) -> Self {
        Self {
            qg_model: qg_model.into(),
            qa_model: qa_model.into(),
            lerc_model: None,
            answers: AnswerSelector::Rules,
            beam: None,
            consistency_threshold: 0.60,
            consistency_filter: true,
            batch_size: 16,
            session: SessionOptions::default(),
        }
    }
}

/// QAFactEval result of one (source, summary) pair.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct QaFactEvalRow {
    /// Mean token F1 over kept questions (0 for unanswered), `[0, 1]` — `qafacteval_f1`.
    pub f1: f64,
    /// Mean exact match over kept questions, `[0, 1]` — `qafacteval_em`.
    pub em: f64,
    /// Fraction of kept questions answered on the source, `[0, 1]`.
    pub is_answered: f64,
    /// LERC-QuIP mean over kept questions (raw, ≈ 0–5, not clipped; 0 for unanswered
    /// questions and with no kept question); `None` without a LERC-QuIP model.
    pub lerc_quip: Option<f64>,
    /// `min(max(lerc_quip, 0), 5) / 5`, when `lerc_quip` is present.
    pub lerc_quip_normalized: Option<f64>,
    /// Questions generated (before the filter).
    pub generated: usize,
    /// Questions kept by the consistency filter.
    pub kept: usize,
    /// Every question, filtered ones included (`consistent = Some(false)`).
    pub questions: Vec<QuestionRecord>,
    /// Answer selector used.
    pub provenance: RowProvenance,
}

/// A loaded QAFactEval-style scorer.
#[derive(Debug)]
pub struct QaFactEval {
    qg: Seq2SeqModel,
    qa: ExtractiveQaModel,
    lerc: Option<LercQuip>,
    beam: AllenNlpBeamConfig,
    opts: QaFactEvalOptions,
}

/// `f"{context[:start]}<m> {context[start:end]} </m>{context[end:]}"` (QAEval
/// `_insert_span_symbols`); `start`/`end` are byte offsets on char boundaries.
pub fn mark_answer(sentence: &str, start: usize, end: usize) -> String {
    format!("{}{SPAN_START} {} {SPAN_END}{}", &sentence[..start], &sentence[start..end], &sentence[end..])
}

fn answer_in_sentence(c: &AnswerCandidate) -> Option<(usize, usize)> {
    let span = c.span.as_ref()?;
    (span.start >= c.sentence.start && span.end <= c.sentence.end)
        .then(|| (span.start - c.sentence.start, span.end - c.sentence.start))
}

impl QaFactEval {
    /// Loads the models.
    ///
    /// # Errors
    /// [`Error::InvalidOption`] (batch size 0, threshold outside `[0, 1]`),
    /// [`Error::Runtime`] for model directories, [`Error::IncompatibleModel`] when the QG
    /// tokenizer lacks `<m>`/`</m>`, the manifest has no BOS token or the LERC-QuIP model
    /// has more than one output value.
    pub fn try_new(opts: QaFactEvalOptions) -> Result<Self> {
        if opts.batch_size == 0 || !(0.0..=1.0).contains(&opts.consistency_threshold) {
            return Err(Error::InvalidOption("batch_size must be ≥ 1 and the threshold in [0, 1]".into()));
        }
        let qg = Seq2SeqModel::load(&opts.qg_model, &opts.session).map_err(Error::rt("QAFactEval QG model"))?;
        let qa = ExtractiveQaModel::load(&opts.qa_model, &opts.session).map_err(Error::rt("QAFactEval QA model"))?;
        let lerc = match &opts.lerc_model {
            Some(dir) => Some(LercQuip::load(dir, &opts.session)?),
            None => None,
        };
        let path = opts.qg_model.display().to_string();
        for t in [SPAN_START, SPAN_END] {
            if qg.token_to_id(t).is_none() {
                return Err(Error::IncompatibleModel {
                    path: path.clone(),
                    reason: format!("the tokenizer has no {t} token (QAEval's answer markers)"),
                });
            }
        }
        let beam = match &opts.beam {
            Some(b) => b.clone(),
            None => {
                let c = qg.config();
                let bos = c.bos_token_id.ok_or_else(|| Error::IncompatibleModel {
                    path: path.clone(),
                    reason: "the manifest has no bos_token_id (QAEval starts decoding from <s>)".into(),
                })?;
                AllenNlpBeamConfig { start_token_id: bos, end_token_id: c.eos_token_id, ..AllenNlpBeamConfig::qaeval_bart() }
            }
        };
        Ok(Self { qg, qa, lerc, beam, opts })
    }

    /// Generates one question per marked sentence (QAEval `QuestionGenerationModel`).
    ///
    /// # Errors
    /// Model errors.
    pub fn generate_questions(&self, marked: &[String]) -> Result<Vec<String>> {
        let enc: Vec<Vec<u32>> = marked
            .iter()
            .map(|s| self.qg.encode(s).map(|e| e.ids))
            .collect::<std::result::Result<_, _>>()
            .map_err(Error::rt("tokenising QG inputs"))?;
        let refs: Vec<&[u32]> = enc.iter().map(Vec::as_slice).collect();
        let outs =
            self.qg.generate_allennlp(&refs, &self.beam, self.opts.batch_size).map_err(Error::rt("QAFactEval QG"))?;
        outs.iter()
            .map(|o| {
                let ids = o.best_tokens(self.beam.end_token_id);
                let text = self.qg.decode(&ids, false).map_err(Error::rt("decoding questions"))?;
                // QAEval: `tokenizer.decode(ids).strip()` (Python strip, fast tokenizer: clean-up on).
                Ok(python_strip(&clean_up_tokenization(&text)).to_owned())
            })
            .collect()
    }

    /// Scores one pair.
    ///
    /// # Errors
    /// Answer-selection and model errors.
    pub fn score(&self, source: &str, summary: &str) -> Result<QaFactEvalRow> {
        let mut rows = self.score_batch(&[(source, summary)])?;
        rows.pop().ok_or_else(|| Error::InvalidOption("empty batch".into()))
    }

    /// Scores many pairs in shared batches.
    ///
    /// # Errors
    /// Answer-selection and model errors.
    pub fn score_batch(&self, pairs: &[(&str, &str)]) -> Result<Vec<QaFactEvalRow>> {
        let summaries: Vec<&str> = pairs.iter().map(|p| p.1).collect();
        let answers = self.opts.answers.qaeval(&summaries)?;
        let items: Vec<(&str, &str, &Answers)> =
            pairs.iter().zip(&answers).map(|((s, m), a)| (*s, *m, a)).collect();
        self.score_batch_with_answers(&items)
    }

    /// Scores pairs with precomputed summary answers.
    ///
    /// # Errors
    /// Model errors.
    pub fn score_batch_with_answers(&self, items: &[(&str, &str, &Answers)]) -> Result<Vec<QaFactEvalRow>> {
        // 1. QG over unique marked sentences.
        let mut marked: Vec<String> = Vec::new();
        let mut marked_idx: HashMap<String, usize> = HashMap::new();
        let mut jobs: Vec<Vec<(usize, usize)>> = Vec::with_capacity(items.len());
        for (src, summ, ans) in items {
            let mut j = Vec::new();
            if !src.trim().is_empty() {
                for (ci, c) in ans.candidates.iter().enumerate() {
                    let Some((s, e)) = answer_in_sentence(c) else { continue };
                    let m = mark_answer(&summ[c.sentence.clone()], s, e);
                    let k = *marked_idx.entry(m.clone()).or_insert_with(|| {
                        marked.push(m);
                        marked.len() - 1
                    });
                    j.push((ci, k));
                }
            }
            jobs.push(j);
        }
        let questions = self.generate_questions(&marked)?;
        // 2. Consistency: answer on the summary.
        let mut self_pairs: Vec<(usize, usize)> = Vec::new(); // (item, job)
        for (i, j) in jobs.iter().enumerate() {
            for (jj, _) in j.iter().enumerate() {
                self_pairs.push((i, jj));
            }
        }
        let self_inputs: Vec<(&str, &str)> =
            self_pairs.iter().map(|&(i, jj)| (questions[jobs[i][jj].1].as_str(), items[i].1)).collect();
        let self_preds = if self.opts.consistency_filter {
            self.qa.answer(&self_inputs, self.opts.batch_size).map_err(Error::rt("QA on the summary"))?
        } else {
            Vec::new()
        };
        let mut consistent: HashMap<(usize, usize), (bool, String)> = HashMap::new();
        for (n, &(i, jj)) in self_pairs.iter().enumerate() {
            let c = &items[i].2.candidates[jobs[i][jj].0];
            let keep = match self_preds.get(n) {
                Some(p) => p.is_answered() && token_f1(&c.text, &p.text) > self.opts.consistency_threshold,
                None => true,
            };
            consistent.insert((i, jj), (keep, self_preds.get(n).map(|p| p.text.clone()).unwrap_or_default()));
        }
        // 3. Kept questions answered on the source.
        let kept: Vec<(usize, usize)> = self_pairs.iter().copied().filter(|k| consistent[k].0).collect();
        let src_inputs: Vec<(&str, &str)> =
            kept.iter().map(|&(i, jj)| (questions[jobs[i][jj].1].as_str(), items[i].0)).collect();
        let src_preds = self.qa.answer(&src_inputs, self.opts.batch_size).map_err(Error::rt("QA on the source"))?;
        let src_pred: HashMap<(usize, usize), &QaPrediction> = kept.iter().copied().zip(&src_preds).collect();
        // 4. LERC-QuIP on kept questions answered on the source.
        let mut lerc: HashMap<(usize, usize), f64> = HashMap::new();
        if let Some(model) = &self.lerc {
            let answered: Vec<(usize, usize)> =
                kept.iter().copied().filter(|k| src_pred.get(k).is_some_and(|p| p.is_answered())).collect();
            let inputs: Vec<String> = answered
                .iter()
                .map(|&(i, jj)| {
                    let (ci, k) = jobs[i][jj];
                    let p = src_pred[&(i, jj)];
                    lerc_quip_input(&questions[k], &items[i].2.candidates[ci].text, &p.text, items[i].0)
                })
                .collect();
            let scores = model.score(&inputs, self.opts.batch_size)?;
            lerc = answered.into_iter().zip(scores).collect();
        }
        // 5. Aggregate.
        let mut rows = Vec::with_capacity(items.len());
        for (i, (_, _, ans)) in items.iter().enumerate() {
            let mut records = Vec::new();
            let (mut f1s, mut ems, mut answered, mut lercs) = (0.0, 0.0, 0.0, 0.0);
            let mut n_kept = 0usize;
            for (jj, &(ci, k)) in jobs[i].iter().enumerate() {
                let c = &ans.candidates[ci];
                let (keep, self_answer) = consistent[&(i, jj)].clone();
                let p = src_pred.get(&(i, jj));
                let is_ans = p.is_some_and(|p| p.is_answered());
                let (f1, em) = match p {
                    Some(p) if is_ans => (token_f1(&c.text, &p.text), exact_match(&c.text, &p.text)),
                    _ => (0.0, 0.0),
                };
                let lerc_q = (keep && self.lerc.is_some()).then(|| lerc.get(&(i, jj)).copied().unwrap_or(0.0));
                if keep {
                    n_kept += 1;
                    f1s += f1;
                    ems += em;
                    answered += if is_ans { 1.0 } else { 0.0 };
                    lercs += lerc_q.unwrap_or(0.0);
                }
                records.push(QuestionRecord {
                    direction: QuestionFlow::SummaryToSource,
                    answer_kind: c.kind.clone(),
                    question: questions[k].clone(),
                    answer: c.text.clone(),
                    answer_span: c.span.clone(),
                    predicted: p.map(|p| p.text.clone()).unwrap_or_default(),
                    predicted_span: p.and_then(|p| p.span.map(|(a, b)| a..b)),
                    answerability: None,
                    probability: p.map(|p| p.probability),
                    null_probability: p.map(|p| p.null_probability),
                    answered: p.map(|_| is_ans),
                    f1,
                    em: Some(em),
                    consistent: self.opts.consistency_filter.then_some(keep),
                    self_answer: self.opts.consistency_filter.then_some(self_answer),
                    bertscore: None,
                    lerc_quip: lerc_q,
                });
            }
            let n = n_kept as f64;
            let mean = |x: f64| if n_kept == 0 { 0.0 } else { x / n };
            let lerc_quip = self.lerc.is_some().then(|| mean(lercs));
            rows.push(QaFactEvalRow {
                f1: mean(f1s),
                em: mean(ems),
                is_answered: mean(answered),
                lerc_quip,
                lerc_quip_normalized: lerc_quip.map(normalize_lerc_quip),
                generated: jobs[i].len(),
                kept: n_kept,
                questions: records,
                provenance: RowProvenance {
                    source_answers: None,
                    summary_answers: ans.provenance.clone(),
                    source_sentences: 0,
                    summary_sentences: ans.sentences.len(),
                },
            });
        }
        Ok(rows)
    }
}

/// Cloze settings.
#[derive(Debug, Clone)]
pub struct ClozeOptions {
    /// Extractive QA model directory.
    pub qa_model: PathBuf,
    /// Answer selection on the summary.
    pub answers: AnswerSelector,
    /// Mask string replacing the answer (SummaQA uses `[MASK]`... any string the QA model
    /// tokenises sensibly).
    pub mask: String,
    /// Windows per batch (≥ 1).
    pub batch_size: usize,
    /// ONNX Runtime session settings.
    pub session: SessionOptions,
}

impl ClozeOptions {
    /// Defaults: rule-based answers, `[MASK]`, batch 16.
    pub fn new(qa_model: impl Into<PathBuf>) -> Self {
        Self {
            qa_model: qa_model.into(),
            answers: AnswerSelector::Rules,
            mask: "[MASK]".into(),
            batch_size: 16,
            session: SessionOptions::default(),
        }
    }
}

/// Cloze result of one pair.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClozeRow {
    /// Mean token F1 between masked answers and source predictions, `[0, 1]` (0 with no
    /// question).
    pub f1: f64,
    /// Mean probability of the predictions (n-best softmax), `[0, 1]`.
    pub probability: f64,
    /// Questions asked.
    pub questions: Vec<QuestionRecord>,
    /// Answer selector used.
    pub provenance: RowProvenance,
}

/// Cloze questions (SummaQA-style): summary sentences with one answer masked, answered on
/// the source by an extractive QA model.
#[derive(Debug)]
pub struct ClozeQa {
    qa: ExtractiveQaModel,
    opts: ClozeOptions,
}

impl ClozeQa {
    /// Loads the QA model.
    ///
    /// # Errors
    /// [`Error::InvalidOption`] for batch size 0; [`Error::Runtime`].
    pub fn try_new(opts: ClozeOptions) -> Result<Self> {
        if opts.batch_size == 0 {
            return Err(Error::InvalidOption("batch_size must be ≥ 1".into()));
        }
        let qa = ExtractiveQaModel::load(&opts.qa_model, &opts.session).map_err(Error::rt("cloze QA model"))?;
        Ok(Self { qa, opts })
    }

    /// Scores pairs.
    ///
    /// # Errors
    /// Answer-selection and model errors.
    pub fn score_batch(&self, pairs: &[(&str, &str)]) -> Result<Vec<ClozeRow>> {
        let summaries: Vec<&str> = pairs.iter().map(|p| p.1).collect();
        let answers = self.opts.answers.qaeval(&summaries)?;
        let mut inputs: Vec<(String, usize, usize)> = Vec::new();
        for (i, ((src, summ), ans)) in pairs.iter().zip(&answers).enumerate() {
            if src.trim().is_empty() {
                continue;
            }
            for (ci, c) in ans.candidates.iter().enumerate() {
                if let Some((s, e)) = answer_in_sentence(c) {
                    let sent = &summ[c.sentence.clone()];
                    inputs.push((format!("{}{}{}", &sent[..s], self.opts.mask, &sent[e..]), i, ci));
                }
            }
        }
        let qa_in: Vec<(&str, &str)> = inputs.iter().map(|(q, i, _)| (q.as_str(), pairs[*i].0)).collect();
        let preds = self.qa.answer(&qa_in, self.opts.batch_size).map_err(Error::rt("cloze QA"))?;
        let mut per: Vec<Vec<QuestionRecord>> = vec![Vec::new(); pairs.len()];
        for ((q, i, ci), p) in inputs.iter().zip(&preds) {
            let c = &answers[*i].candidates[*ci];
            per[*i].push(QuestionRecord {
                direction: QuestionFlow::SummaryToSource,
                answer_kind: c.kind.clone(),
                question: q.clone(),
                answer: c.text.clone(),
                answer_span: c.span.clone(),
                predicted: p.text.clone(),
                predicted_span: p.span.map(|(a, b)| a..b),
                answerability: None,
                probability: Some(p.probability),
                null_probability: Some(p.null_probability),
                answered: Some(p.is_answered()),
                f1: token_f1(&c.text, &p.text),
                em: Some(exact_match(&c.text, &p.text)),
                consistent: None,
                self_answer: None,
                bertscore: None,
                lerc_quip: None,
            });
        }
        Ok(per
            .into_iter()
            .zip(&answers)
            .map(|(qs, a)| {
                let n = qs.len();
                let mean = |f: &dyn Fn(&QuestionRecord) -> f64| {
                    if n == 0 {
                        0.0
                    } else {
                        qs.iter().map(f).sum::<f64>() / n as f64
                    }
                };
                ClozeRow {
                    f1: mean(&|r| r.f1),
                    probability: mean(&|r| r.probability.unwrap_or(0.0)),
                    provenance: RowProvenance {
                        source_answers: None,
                        summary_answers: a.provenance.clone(),
                        source_sentences: 0,
                        summary_sentences: a.sentences.len(),
                    },
                    questions: qs,
                }
            })
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marking_follows_qaeval() {
        assert_eq!(mark_answer("The drug worked.", 4, 8), "The <m> drug </m> worked.");
        assert_eq!(mark_answer("abc", 0, 3), "<m> abc </m>");
    }
}
