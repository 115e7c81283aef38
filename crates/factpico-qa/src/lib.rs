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
//!
//! **Features**: `engine` (default) is everything above (ONNX Runtime, the spaCy sidecar);
//! without it the crate is only [`QaConfig`] and [`AnswerSelection`], the options a user sets
//! (JSON, Python, flags with the `clap` feature), which the `factpico` facade reads in every
//! build.
#[cfg(feature = "engine")]
pub mod answers;
#[cfg(feature = "engine")]
pub mod bertscore;
mod config;
#[cfg(feature = "engine")]
mod error;
#[cfg(feature = "engine")]
pub mod lerc;
#[cfg(feature = "engine")]
pub mod qafacteval;
#[cfg(feature = "engine")]
pub mod questeval;
#[cfg(feature = "engine")]
pub mod report;
#[cfg(feature = "engine")]
pub mod squad;

pub use config::{AnswerSelection, QaConfig};
#[cfg(feature = "engine")]
pub use answers::{AnswerCandidate, AnswerKind, AnswerProvenance, AnswerSelector, Answers};
#[cfg(feature = "engine")]
pub use bertscore::{BertScoreValue, BertScorer, BERTSCORE_BATCH_SIZE};
#[cfg(feature = "engine")]
pub use error::{Error, Result};
#[cfg(feature = "engine")]
pub use lerc::{lerc_quip_input, normalize_lerc_quip, LercQuip, LERC_QUIP_MAX};
#[cfg(feature = "engine")]
pub use qafacteval::{ClozeOptions, ClozeQa, ClozeRow, QaFactEval, QaFactEvalOptions, QaFactEvalRow};
#[cfg(feature = "engine")]
pub use questeval::{DirectionScore, QuestEval, QuestEvalOptions, QuestEvalRow, QUESTEVAL, QUESTEVAL_F1};
#[cfg(feature = "engine")]
pub use report::{QuestionFlow, QuestionRecord, RowProvenance};
