//! # factpico-llm
//!
//! FactPICO's LLM evaluators (Joseph et al., ACL 2024; prompt code: GitHub
//! `lilywchen/FactPICO`, `code/llm_evaluations/`, MIT) over any OpenAI-compatible
//! chat-completions server — a hosted API, vLLM, llama.cpp's server, Ollama:
//!
//! * [`Protocol::FullText`] (metric `llm`): per PICO element, the abstract and the summary in one
//!   prompt, rated 1–5 with a rationale; per gold evidence span, a 1–4 evidence-inference rating;
//! * [`Protocol::Pipeline`] (metric `llm_pipeline`): the two-stage "PICO-R" pipeline — quotes of
//!   the elements (and the summary's results) extracted first, then rated.
//!
//! Ratings are reported on FactPICO's human scale (4 = accurate … 1 = missing; see [`parse`]).
//! Prompts are the reference's, rendered byte-identically ([`templates`]); replies are
//! constrained ([`structured`]) and parsed strictly ([`parse`]); requests go through a client
//! with bounded concurrency and retries ([`client`]) and a persistent SQLite cache ([`cache`]),
//! so a re-run makes no request.
//!
//! ```no_run
//! use factpico_llm::{Evaluator, LlmOptions, Protocol, RowInput};
//!
//! let options = LlmOptions {
//!     base_url: Some("http://127.0.0.1:8080/v1".into()),
//!     model: Some("smollm2".into()),
//!     ..LlmOptions::default()
//! };
//! let evaluator = Evaluator::try_new(Protocol::FullText, &options)?;
//! let spans = vec!["Exacerbations were less frequent with the inhaler (p=0.002)".to_owned()];
//! let rows = [RowInput { source: "…abstract…", summary: "…summary…", evidence: Some(&spans) }];
//! for r in evaluator.evaluate(&rows) {
//!     println!("{:?} {:?}", r.scores, r.nulls);
//! }
//! # Ok::<(), factpico_llm::Error>(())
//! ```

//!
//! Cargo feature `client` (default): the HTTP client, the cache and the [`Evaluator`]. Without
//! it the crate is only the protocol — options, templates, parsing, structured-output schemas,
//! request planning and `--explain` rendering — with no HTTP, async or SQLite dependency.

#[cfg(feature = "client")]
pub mod batch;
#[cfg(feature = "client")]
pub mod cache;
#[cfg(feature = "client")]
pub mod client;
mod error;
#[cfg(feature = "client")]
mod evaluator;
pub mod explain;
pub mod minicheck;
mod options;
pub mod parse;
mod requests;
pub mod structured;
pub mod templates;
#[cfg(feature = "client")]
pub mod weighted;

pub use error::{Error, Result};
#[cfg(feature = "client")]
pub use evaluator::{Evaluator, RowResult, RunStats, StructuredUse};
pub use options::{
    default_cache_path, redact_url, ClientOptions, LlmOptions, LlmRuntime, Prices, PromptVariant, Protocol, Sampling, SamplingPreset,
    Target, DEFAULT_EVIDENCE_SEPARATOR, DEFAULT_RATIONALE_MAX, MAX_SAMPLES, TOP_LOGPROBS,
};
pub use requests::{estimate_prompt_tokens, evidence_spans, plan, request_bodies, Plan, RowInput};
pub use structured::StructuredOutput;
pub use templates::{Element, Messages, Templates};

#[cfg(feature = "client")]
pub use client::Traffic;
#[cfg(feature = "client")]
pub use minicheck::MiniCheckEvaluator;
