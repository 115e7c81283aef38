//! Per-row and per-question outputs (serde types) shared by the presets.
use std::ops::Range;

use serde::{Deserialize, Serialize};

use crate::answers::{AnswerKind, AnswerProvenance};

/// Which way a question travels: generated from one text, answered on the other. (Not a
/// metric's direction, `factpico::Direction`, which says whether higher scores are better.)
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum QuestionFlow {
    /// Generated from the summary, answered on the source: precision-like (is what the
    /// summary says supported?).
    SummaryToSource,
    /// Generated from the source, answered on the summary: recall-like (was the source's
    /// information kept?).
    SourceToSummary,
}

/// One question with its answers on both sides.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct QuestionRecord {
    /// Which way the question travels (serialised as `direction`, as before).
    pub direction: QuestionFlow,
    /// Kind of the selected answer span.
    pub answer_kind: AnswerKind,
    /// The generated question (or the cloze sentence with the answer masked).
    pub question: String,
    /// The selected answer on the text the question was generated from.
    pub answer: String,
    /// Byte span of `answer` in that text (`None` when not locatable, see
    /// [`crate::AnswerCandidate::span`]).
    pub answer_span: Option<Range<usize>>,
    /// The answer found on the other text (QuestEval: generated text, possibly
    /// `unanswerable`; extractive QA: the best non-null span).
    pub predicted: String,
    /// Byte span of `predicted` in the answering text (extractive: exact; generative: the
    /// first occurrence, when it occurs verbatim).
    pub predicted_span: Option<Range<usize>>,
    /// QuestEval answerability `1 − P(unanswerable at step 0)`, in `[0, 1]`.
    pub answerability: Option<f64>,
    /// Extractive QA: n-best probability of the prediction, `[0, 1]`.
    pub probability: Option<f64>,
    /// Extractive QA: n-best probability of the null answer, `[0, 1]`.
    pub null_probability: Option<f64>,
    /// Whether the answering model answered (extractive: `probability > null_probability`).
    pub answered: Option<bool>,
    /// SQuAD token F1 between `answer` and `predicted`, `[0, 1]` (0 when unanswered in
    /// QAFactEval).
    pub f1: f64,
    /// SQuAD exact match (QAFactEval), `{0, 1}`.
    pub em: Option<f64>,
    /// QAFactEval consistency filter: answered on its own text with F1 > threshold. `None`
    /// where the preset has no filter. Filtered questions do not count in the score.
    pub consistent: Option<bool>,
    /// The answer on its own text (QAFactEval's filter), when computed.
    pub self_answer: Option<String>,
    /// QuestEval with a BERTScore model: BERTScore F1 between `predicted` and `answer`
    /// (raw, before QuestEval's clamp to `[0, 1]`).
    #[serde(default)]
    pub bertscore: Option<f64>,
    /// QAFactEval with a LERC-QuIP model: the raw regression score (≈ 0–5) of a kept
    /// question answered on the source, `Some(0.0)` when unanswered; `None` for filtered
    /// questions or without the model.
    #[serde(default)]
    pub lerc_quip: Option<f64>,
}

/// Where the answers of a row came from, per text.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RowProvenance {
    /// Selector used on the source.
    pub source_answers: Option<AnswerProvenance>,
    /// Selector used on the summary.
    pub summary_answers: AnswerProvenance,
    /// Number of source sentences used for answers (QuestEval `limit_sent`).
    pub source_sentences: usize,
    /// Number of summary sentences used for answers.
    pub summary_sentences: usize,
}
