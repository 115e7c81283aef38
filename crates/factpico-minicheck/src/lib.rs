//! MiniCheck (Tang, Laban & Durrett, *MiniCheck: Efficient Fact-Checking of LLMs on Grounding
//! Documents*, EMNLP 2024) on ONNX Runtime, following the reference implementation exactly:
//! `Liyan06/MiniCheck` @ b58b9fa, `minicheck/minicheck.py` and `minicheck/inference.py`
//! (`Inferencer`; see `shared/specs/minicheck.md`).
//!
//! Per (document, claim) row, for the three encoder-sized checkers
//! (`lytang/MiniCheck-RoBERTa-Large`, `-DeBERTa-v3-Large`, `-Flan-T5-Large`):
//!
//! 1. the document is cut at every `\n`, each block is split into sentences with NLTK Punkt
//!    ([`factpico_text::Punkt`]) and a `"\n"` marker is kept between blocks
//!    (`sent_tokenize_with_newlines`);
//! 2. sentences are packed greedily into chunks while the summed count stays ≤ the chunk size
//!    — model tokens without special tokens (capped at the model length) for RoBERTa/DeBERTa,
//!    400 by default; whitespace words for Flan-T5, 500 by default; a sentence over the budget
//!    is its own chunk; chunks are joined with `" "`, `" \n "` → `"\n"`, stripped, empty ones
//!    dropped ([`factpico_text::TokenBudgetChunking`]);
//! 3. every chunk is checked against the **whole claim** (the reference never splits it): one
//!    single sequence `prefix + chunk + separator + claim` (separator = the tokenizer's EOS
//!    token, `</s>` or DeBERTa's `[SEP]`; prefix `"predict: "` for Flan-T5), cut from the end
//!    to the model length (512 RoBERTa, 2048 DeBERTa/Flan-T5: a long chunk cuts the claim);
//! 4. P(supported) per chunk = softmax over the 2 outputs, index 1 — for Flan-T5 the two
//!    outputs are the first-decoder-step logits of vocabulary ids 3 ("unsupported") and 209
//!    ("supported"), computed inside the exported graph (`onnx/export_minicheck.py`);
//! 5. score = max over chunks; label = score > 0.5 (`minicheck.py:151`).
//!
//! [`ClaimMode::Whole`] (the default) is that reference behaviour, proven by parity tests.
//! [`ClaimMode::Sentences`] splits the claim into Punkt sentences, checks each one as above
//! and aggregates per summary with [`Aggregation`]: the **minimum** over sentences by default
//! (Bespoke-MiniCheck's rule, `inference.py` `LLMCheck.score`: a summary is supported only if
//! every sentence is), or the mean (the share of supported content, AlignScore's rule). The
//! authors recommend splitting multi-sentence claims ("sentence-level prediction performance
//! is better", `inference.py:165-175`); see `docs/minicheck.md` for the choice.
//!
//! **Nulls.** A document with no non-empty chunk (empty or whitespace-only) has no score
//! ([`NullReason::EmptyDocument`]; the reference raises in `torch.cat`); in the sentence
//! mode, so has a claim without a sentence ([`NullReason::NoClaimSentence`]). The whole-claim
//! mode scores an empty claim as the reference does (`chunk</s>` + nothing).
//!
//! **Features**: `engine` (default) is everything above (ONNX Runtime, tokenizers); without
//! it the crate is only [`MiniCheckConfig`] and its enums ([`Variant`], [`ClaimMode`],
//! [`Aggregation`], [`ChunkUnit`]), the options a user sets (JSON, Python, flags with the
//! `clap` feature), which the `factpico` facade reads in every build.
mod config;
#[cfg(feature = "engine")]
mod encoding;
#[cfg(feature = "engine")]
mod engine;

pub use config::{Aggregation, ChunkUnit, ClaimMode, MiniCheckConfig, Variant};
#[cfg(feature = "engine")]
pub use engine::*;
