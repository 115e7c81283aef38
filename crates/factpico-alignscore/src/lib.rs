//! AlignScore (Zha et al., ACL 2023) on ONNX Runtime, following the reference
//! implementation exactly: `yuh-zha/AlignScore` @ a0936d5, `src/alignscore/inference.py`
//! (`inference_per_example`, `inference`, `batch_tokenize`; see `shared/specs/alignscore.md`).
//!
//! Per (context, claim) pair in the split modes (`nli_sp`, the default, `bin_sp`, `reg_sp`):
//!
//! 1. the context is split into sentences with NLTK Punkt (English; [`factpico_text::Punkt`]),
//!    `[""]` when there is none;
//! 2. `n_chunks = whitespace_words(context) // 350 + 1`, `k = max(n_sents // n_chunks, 1)`
//!    sentences per chunk, chunks joined with one space ([`factpico_text::AlignScoreChunking`]);
//! 3. the claim is split into sentences with Punkt;
//! 4. every (chunk, claim sentence) pair is tokenised as a pair, truncating only the chunk
//!    (`only_first`) to the model maximum (512 for AlignScore); when a claim sentence alone
//!    does not fit, the reference's whole tokenisation mini-batch (32 pairs of the same
//!    example, row-major over chunks then sentences) falls back to `longest_first` — reproduced
//!    here, with the dropped tokens reported in [`Warning`]s;
//! 5. the head of the mode gives one value per pair: `nli_sp` = softmax(`tri_logits`)\[0\],
//!    `bin_sp` = softmax(`bin_logits`)\[1\], `reg_sp` = `reg`\[0\] (raw);
//! 6. score = mean over claim sentences of the max over chunks.
//!
//! The non-split modes (`nli`, `bin`, `reg`) run one pair (context, claim) truncated
//! `only_first`, no splitting.
//!
//! **Empty claims.** A claim with no sentence (empty or whitespace-only) has no defined score
//! in the split modes: the reference crashes there (`torch.cat` of an empty list; the spec's
//! "NaN" is what the algorithm would give). factpico returns `score: None` with
//! [`NullReason::NoClaimSentence`]. The non-split modes score such a claim like the reference.
//!
//! **Generic NLI models.** A model directory whose manifest task is `nli` (or an inferred
//! Hugging Face directory with an `entailment` label, such as the MiniLM NLI test asset)
//! works as the alignment function in the `nli`/`nli_sp` modes: the value per pair is the
//! softmax probability of the entailment label of the first output (`logits`). Its
//! `max_length` comes from the manifest unless [`AlignScoreOptions::max_length`] overrides
//! it (use 256 for the MiniLM asset, which was trained to 256 tokens).
//!
//! Parity: `tests/alignscore_parity.rs` compares all six modes with goldens from the
//! unmodified reference (`tests/goldens/gen_alignscore.py`) on a tiny random checkpoint
//! exported by our own path; |Δ| ≤ 1e-4.
//!
//! **Features**: `engine` (default) is everything above (ONNX Runtime); without it the crate
//! is only [`AlignScoreConfig`] and [`Mode`], the options a user sets (JSON, Python, flags
//! with the `clap` feature), which the `factpico` facade reads in every build.
mod config;
#[cfg(feature = "engine")]
mod engine;

pub use config::{AlignScoreConfig, Mode};
#[cfg(feature = "engine")]
pub use engine::*;
