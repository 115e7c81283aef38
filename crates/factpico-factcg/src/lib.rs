//! FactCG-DeBERTa-v3-Large (Lei et al., *FactCG: Enhancing Fact Checkers with Graph-Based
//! Multi-Hop Data*, NAACL 2025) on ONNX Runtime, following the reference implementation
//! exactly: `derenlei/FactCG` @ 49748b9, `factcg/inference.py` (`Inferencer`, `use_hf_ckpt=True`,
//! checkpoint `yaxili96/FactCG-DeBERTa-v3-Large`) and `factcg/utils.py` @ 4eb1537
//! (`INSTRUCTION_TEMPLATE`); see `shared/specs/factcg.md`.
//!
//! Per (document, claim) row:
//!
//! 1. the document is chunked by `chunking_src` ([`factpico_text::FactcgChunking`]): NLTK
//!    Punkt sentences packed greedily while the summed NLTK `word_tokenize` count stays ≤ 550,
//!    joined with `"\n"`; an over-long sentence is its own chunk, and an over-long **first**
//!    sentence is preceded by an empty chunk `""`, which is scored like any other;
//! 2. every chunk is put with the **whole claim** into the instruction template
//!    ([`instruction`]): `chunk`, a blank line, `Choose your answer: based on the paragraph
//!    above can we conclude that "<claim>"?`, a blank line, `OPTIONS:`, `- Yes`, `- No`,
//!    `I think the answer is ` (trailing space);
//! 3. that text is tokenised as **one** sequence (`[CLS] … [SEP]`), cut from the end to 2048
//!    tokens (`truncation='only_first'` on a single sequence: a long chunk loses the claim and
//!    the options first);
//! 4. P(supported) per chunk = softmax over the 2 logits, index 1;
//! 5. score = max over chunks (first maximum = the reference's best chunk); label =
//!    score > threshold (0.5, the README's fixed threshold; `benchmark.py` uses `p > t`).
//!
//! Padding: the reference pads batches with the EOS token (`pad_token = eos_token`) on the
//! right and masks it; this crate pads with the manifest's pad id, also masked. DeBERTa's
//! relative positions make padding irrelevant beyond float noise (parity ≤ 1e-4, tested).
//!
//! [`ClaimMode::Whole`] (the default) is the reference. [`ClaimMode::Sentences`] splits the
//! claim into Punkt sentences, checks each one as above and aggregates with [`Aggregation`]:
//! the minimum by default (supported only if every sentence is, as MiniCheck's unit does) or
//! the mean.
//!
//! **Nulls.** A document without any chunk (empty, whitespace-only, or whose sentences have no
//! `word_tokenize` token: `chunking_src` then returns `[]` and the reference fails) has no
//! score ([`NullReason::NoChunk`]); in the sentence mode, so has a claim without a sentence.
//!
//! **Features**: `engine` (default) is everything above (ONNX Runtime, tokenizers); without
//! it the crate is only [`FactCgConfig`] and its enums ([`ClaimMode`], [`Aggregation`]), the
//! options a user sets (JSON, Python, flags with the `clap` feature), which the `factpico`
//! facade reads in every build.
mod config;
#[cfg(feature = "engine")]
mod engine;

pub use config::{Aggregation, ClaimMode, FactCgConfig};
#[cfg(feature = "engine")]
pub use engine::*;
