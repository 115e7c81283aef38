//! QA-based factuality metrics for plain-language summaries of medical evidence.
//!
//! * [`QuestEval`] — the QuestEval preset (`questeval` 0.2.4): T5 question generation and
//!   answering in both directions, answerability, token F1 and — with a BERTScore model —
//!   BERTScore, reported as `questeval` (all three) or `questeval_f1` (no BERTScore model).
//! * [`QaFactEval`] — the QAFactEval-style preset (`qafacteval` 0.10 over `qaeval` 0.1.0):
//!   BART question generation with `<m> … </m>` answer markers and AllenNLP beam search,
//!   extractive QA with SQuAD v2 post-processing, the consistency filter, EM/F1 and — with
//!   a LERC-QuIP model — `lerc_quip`.
//! * [`BertScorer`] — BERTScore (`bert_score` 0.3.9, no idf, no rescaling) over a
//!   token-embedding export; [`LercQuip`] — QAFactEval's LERC-QuIP regressor.
//! * [`ClozeQa`] — SummaQA-style cloze questions (masked summary sentences) with an
//!   extractive QA model only.
//! * [`AnswerSelector`] — spaCy (through the `factpico-nlp` sidecar) or pure-Rust rules.
//! * [`squad`] — SQuAD normalisation, exact match and token F1.
//!
//! Every row carries its per-question records ([`QuestionRecord`]: question, the answer
//! span on each side with byte offsets, answerability / probabilities, F1) so a reader can
//! see which fact was lost or changed, and the answer selector that ran.
//!
//! ```no_run
//! use factpico_qa::{QuestEval, QuestEvalOptions};
//! let qe = QuestEval::try_new(QuestEvalOptions::new("models/questeval-qg", "models/questeval-qa"))?;
//! let row = qe.score("Aspirin lowered pain in 120 adults.", "Aspirin helped 120 adults.")?;
//! println!("{} = {:.3} ({} questions)", row.metric, row.score, row.questions.len());
//! # Ok::<(), factpico_qa::Error>(())
//! ```
pub mod answers;
pub mod bertscore;
mod error;
pub mod lerc;
pub mod qafacteval;
pub mod questeval;
pub mod report;
pub mod squad;

pub use answers::{AnswerCandidate, AnswerKind, AnswerProvenance, AnswerSelector, Answers};
pub use bertscore::{BertScoreValue, BertScorer, BERTSCORE_BATCH_SIZE};
pub use error::{Error, Result};
pub use lerc::{lerc_quip_input, normalize_lerc_quip, LercQuip, LERC_QUIP_MAX};
pub use qafacteval::{ClozeOptions, ClozeQa, ClozeRow, QaFactEval, QaFactEvalOptions, QaFactEvalRow};
pub use questeval::{DirectionScore, QuestEval, QuestEvalOptions, QuestEvalRow, QUESTEVAL, QUESTEVAL_F1};
pub use report::{QuestionFlow, QuestionRecord, RowProvenance};
