//! Vectara HHEM-2.1-Open (`vectara/hallucination_evaluation_model`, Apache-2.0) on ONNX
//! Runtime, following the reference `modeling_hhem_v2.py` (`HHEMv2ForSequenceClassification.
//! predict`) published with the model; see `shared/specs/hhem.md` and `docs/hhem.md`.
//!
//! Per (premise, hypothesis) row, as the reference does:
//!
//! 1. the premise and hypothesis are substituted into the prompt template ([`PROMPT`], or the
//!    `prompt` of the model's `factpico.json`) with Python `str.format` semantics — **one**
//!    string, not a tokenizer pair; the template starts with the literal `<pad>`, which the
//!    T5 tokenizer reads as its pad token (id 0) at position 0, and the tokenizer appends
//!    `</s>`;
//! 2. no truncation: the whole sequence goes to the T5 encoder (right-padded in a batch, with
//!    the attention mask, so position 0 is unaffected);
//! 3. score = softmax of the 2 logits at position 0, index 1 = P(consistent) (label 0
//!    hallucinated, 1 consistent).
//!
//! **Length limit.** The reference has none; attention memory grows with the square of the
//! length, so this crate refuses a sequence over [`HhemOptions::max_length`] tokens (default
//! [`DEFAULT_MAX_LENGTH`] = 2048, the input size the model card quotes: ~1.5 s on a CPU) with
//! [`Error::TooLong`] for that row only. Raise the limit (up to the export's `max_length`) or
//! use [`PremiseMode::Chunked`].
//!
//! **Options beyond the reference** (defaults are the reference):
//! * [`PremiseMode::Chunked`]: the premise's Punkt sentences packed greedily into chunks of at
//!   most [`HhemOptions::chunk_tokens`] model tokens (a longer sentence is a chunk of its own),
//!   each chunk checked with the whole hypothesis, score = max over chunks;
//! * [`ClaimMode::Sentences`]: each Punkt sentence of the hypothesis checked on its own,
//!   aggregated by [`Aggregation`] (min by default, as the MiniCheck and FactCG units).
//!
//! **Nulls.** A hypothesis without a sentence in [`ClaimMode::Sentences`], or a premise without a
//! sentence in [`PremiseMode::Chunked`], has no score ([`NullReason`]); in the default mode
//! every text is scored (the reference scores empty strings too).
//!
//! **Features**: `engine` (default) is everything above (ONNX Runtime, tokenizers); without
//! it the crate is only [`HhemConfig`], its enums ([`PremiseMode`], [`ClaimMode`],
//! [`Aggregation`]) and the default limits, the options a user sets (JSON, Python, flags with
//! the `clap` feature), which the `factpico` facade reads in every build.
mod config;
#[cfg(feature = "engine")]
mod engine;

pub use config::{Aggregation, ClaimMode, HhemConfig, PremiseMode, DEFAULT_CHUNK_TOKENS, DEFAULT_MAX_LENGTH};
#[cfg(feature = "engine")]
pub use engine::*;
