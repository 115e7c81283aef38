//! Bespoke-MiniCheck as a claim checker over any OpenAI-compatible server (metric
//! `llm_minicheck`), following the reference's `LLMCheck` for Bespoke-MiniCheck-7B (GitHub
//! `Liyan06/MiniCheck` @ b58b9fa, `minicheck/inference.py`, prompts in `minicheck/utils.py`,
//! Apache-2.0; see THIRD_PARTY.md):
//!
//! 1. **Document chunks**: the document is cut at newlines, each block split into Punkt
//!    sentences with a `"\n"` marker between blocks, and the items packed greedily into chunks
//!    of at most `chunk_size` tokens of the served model (each item counted on its own without
//!    special tokens), joined with spaces, `" \n "` → `"\n"`, stripped
//!    ([`factpico_text::TokenBudgetChunking`], as the encoder MiniCheck unit). The reference's
//!    default chunk size is `max_model_len − 300` = 32,468 tokens, so an RCT abstract is one
//!    chunk. Tokens are counted only when needed: when every item's UTF-8 length + 1 (an upper
//!    bound on its token count) sums to at most the chunk size, the document is one chunk under
//!    any tokenizer; otherwise the server counts them (`POST /tokenize`, llama.cpp and vLLM;
//!    counts cached).
//! 2. **Claims**: the summary split into Punkt sentences (`nltk.sent_tokenize(claim)`, no
//!    newline split), every sentence checked against every chunk.
//! 3. **One request per (chunk, sentence)**: system prompt [`SYSTEM_PROMPT`], user message
//!    [`USER_PROMPT`] with `[DOCUMENT]` then `[CLAIM]` replaced ([`user_message`]), temperature
//!    0, one generated token (`max_tokens` 1), `logprobs` with `top_logprobs` 5 (the reference's
//!    vLLM `SamplingParams(temperature=0, max_tokens=1, logprobs=5)`).
//! 4. **Support probability** ([`support_probability`]): the sum of `exp(logprob)` over the
//!    first token's top-5 alternatives whose text, lowercased, equals `"yes"` (the reference's
//!    `decoded_token.lower() == 'yes'`: no stripping, so `" Yes"` does not count).
//! 5. **Aggregation**: per sentence the maximum over chunks, then the minimum over sentences
//!    (`LLMCheck.score`'s SentenceFusion); supported iff the score > 0.5.
//!
//! Differences: an empty or whitespace-only document is a null (the reference checks the empty
//! string `''`), as is a summary without a sentence (the reference raises on it); a reply without
//! logprobs (or without top alternatives) is a null with its reason — never the sampled token
//! read as a probability.

/// The reference's system prompt (`minicheck/utils.py: SYSTEM_PROMPT`), verbatim.
pub const SYSTEM_PROMPT: &str = "Determine whether the provided claim is consistent with the corresponding document. Consistency in this context implies that all information presented in the claim is substantiated by the document. If not, it should be considered inconsistent. Please assess the claim's consistency with the document by responding with either \"Yes\" or \"No\".";

/// The reference's user message template (`minicheck/utils.py: USER_PROMPT`), verbatim.
pub const USER_PROMPT: &str = "Document: [DOCUMENT]\nClaim: [CLAIM]";

/// Top alternatives asked for the generated token (the reference's vLLM `logprobs=5`).
pub const TOP_LOGPROBS: u8 = 5;

/// The reference's default `max_model_len` for Bespoke-MiniCheck-7B.
pub const DEFAULT_MAX_MODEL_LEN: usize = 32_768;

/// Tokens the reference keeps for the claim (`default_chunk_size = max_model_len - 300`).
pub const CLAIM_RESERVE: usize = 300;

/// Default chunk size in tokens: [`DEFAULT_MAX_MODEL_LEN`] − [`CLAIM_RESERVE`].
pub const DEFAULT_CHUNK_SIZE: usize = DEFAULT_MAX_MODEL_LEN - CLAIM_RESERVE;

/// The columns: the support probability in [0, 1] (primary) and its label (1 iff > 0.5).
pub const COLUMNS: [&str; 2] = ["llm_minicheck", "llm_minicheck_label"];

/// Where the protocol comes from.
pub const REFERENCE: &str = "Liyan06/MiniCheck @ b58b9fa, minicheck/inference.py (LLMCheck, Bespoke-MiniCheck-7B), prompts from minicheck/utils.py (Apache-2.0)";

/// Null reason of an empty or whitespace-only document.
pub const EMPTY_DOCUMENT: &str = "document is empty or whitespace-only (no chunk)";

/// Null reason of a summary without a sentence.
pub const NO_CLAIM_SENTENCE: &str = "claim has no sentence (empty or whitespace-only)";

/// Null reason of a reply without logprobs.
pub const NO_LOGPROBS: &str = "the server sent no logprobs for the answer token (asked: logprobs, top_logprobs 5): the support probability is not read from the sampled token";

/// Null reason of a reply with the token's logprob but no alternatives.
pub const NO_TOP_LOGPROBS: &str = "the server sent no top_logprobs alternatives for the answer token: the support probability is not read from the sampled token";

/// The user message: the reference's `USER_PROMPT.replace("[DOCUMENT]", doc).replace("[CLAIM]", claim)`,
/// quirk included (a `[CLAIM]` inside the document is replaced by the claim too).
#[must_use]
pub fn user_message(document: &str, claim: &str) -> String {
    USER_PROMPT.replace("[DOCUMENT]", document).replace("[CLAIM]", claim)
}

/// The chat request body of one (chunk, claim) check.
#[must_use]
pub fn request_body(model: &str, document: &str, claim: &str) -> serde_json::Value {
    serde_json::json!({
        "model": model,
        "messages": [
            { "role": "system", "content": SYSTEM_PROMPT },
            { "role": "user", "content": user_message(document, claim) },
        ],
        "temperature": 0,
        "max_tokens": 1,
        "logprobs": true,
        "top_logprobs": TOP_LOGPROBS,
    })
}

/// The support probability from the first generated token's alternatives `(text, logprob)`:
/// the sum of `exp(logprob)` over those whose text, lowercased (Unicode, as Python's
/// `str.lower`), equals `"yes"` — not stripped. Every alternative the server sent counts (the
/// reference sums its whole top-5 dict).
///
/// # Errors
/// [`NO_TOP_LOGPROBS`] when `top` is empty.
pub fn support_probability(top: &[(String, f64)]) -> Result<f64, String> {
    if top.is_empty() {
        return Err(NO_TOP_LOGPROBS.to_owned());
    }
    // `+ 0.0`: an empty sum is -0.0 in Rust; no "yes" among the alternatives is probability 0
    Ok(top.iter().filter(|(t, _)| t.to_lowercase() == "yes").map(|(_, lp)| lp.exp()).sum::<f64>() + 0.0)
}

/// The minimum over sentences of the maximum over chunks (`probs[sentence][chunk]`); `None`
/// when there is no sentence or a sentence has no chunk.
#[must_use]
pub fn aggregate(probs: &[Vec<f64>]) -> Option<f64> {
    let maxima: Option<Vec<f64>> = probs.iter().map(|row| row.iter().copied().reduce(f64::max)).collect();
    maxima?.into_iter().reduce(f64::min)
}

#[cfg(feature = "client")]
pub use imp::MiniCheckEvaluator;

#[cfg(feature = "client")]
mod imp {
    use std::collections::HashMap;
    use std::sync::atomic::{AtomicBool, Ordering};

    use factpico_text::{Punkt, SentenceSplitter, Span, TokenBudgetChunking};
    use serde_json::{json, Value};

    use super::{aggregate, request_body, support_probability, COLUMNS, DEFAULT_CHUNK_SIZE, EMPTY_DOCUMENT, NO_CLAIM_SENTENCE, NO_LOGPROBS, REFERENCE};
    use crate::cache::request_key;
    use crate::client::ServedModel;
    use crate::error::{Error, Result};
    use crate::evaluator::{run_blocking, Evaluator, Job, Outcome, RowResult, RunStats};
    use crate::options::{LlmOptions, Protocol};
    use crate::structured::StructuredOutput;

    /// A document's chunks.
    #[derive(Debug, Clone)]
    struct DocChunks {
        texts: Vec<String>,
        spans: Vec<[usize; 2]>,
        sentences: Vec<[usize; 2]>,
        /// `bound` (one chunk by the byte bound) or `server` (counted by the server).
        counted: &'static str,
    }

    /// Bespoke-MiniCheck over an OpenAI-compatible server (see the module docs), with the
    /// client, cache and statistics of the [`Evaluator`].
    pub struct MiniCheckEvaluator {
        inner: Evaluator,
        chunk_size: usize,
        punkt: Punkt,
        warned: AtomicBool,
    }

    impl std::fmt::Debug for MiniCheckEvaluator {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.debug_struct("MiniCheckEvaluator").field("inner", &self.inner).field("chunk_size", &self.chunk_size).finish_non_exhaustive()
        }
    }

    impl MiniCheckEvaluator {
        /// Connects to the server (which model it serves) and opens the cache. Only the
        /// server, model, key, cache, transport and `minicheck_chunk_size` options apply: the
        /// requests are the reference's (temperature 0, one token, top-5 logprobs).
        ///
        /// # Errors
        /// As [`Evaluator::try_new`]; [`Error::Options`] for a chunk size of 0.
        pub fn try_new(options: &LlmOptions) -> Result<Self> {
            let chunk_size = options.minicheck_chunk_size.unwrap_or(DEFAULT_CHUNK_SIZE);
            if chunk_size == 0 {
                return Err(Error::Options("`llm.minicheck_chunk_size` must be at least 1".into()));
            }
            // No structured-output probe: MiniCheck requests are never constrained.
            // The FactPICO evaluators' reply options do not apply (one fixed request per check).
            let o = LlmOptions {
                structured_output: StructuredOutput::Off,
                samples: None,
                prompt: crate::options::PromptVariant::Published,
                rationale_first: false,
                logprobs: false,
                ..options.clone()
            };
            let inner = Evaluator::try_new(Protocol::FullText, &o)?;
            Ok(Self { inner, chunk_size, punkt: Punkt::english(), warned: AtomicBool::new(false) })
        }

        /// The chunk size in tokens.
        pub fn chunk_size(&self) -> usize {
            self.chunk_size
        }

        /// The served model as the server reported it.
        pub fn served_model(&self) -> &ServedModel {
            self.inner.served_model()
        }

        /// The cache file, when a cache is used.
        pub fn cache_path(&self) -> Option<&std::path::Path> {
            self.inner.cache_path()
        }

        /// The prices per million tokens (`llm.runtime.price_input_per_mtok` /
        /// `price_output_per_mtok`), as [`crate::Evaluator::prices`]: the run report's cost line.
        pub fn prices(&self) -> Option<crate::options::Prices> {
            self.inner.prices()
        }

        /// Totals of the requests so far (`replies_without_logprobs`: replies whose checks are
        /// nulls for want of logprobs).
        pub fn stats(&self) -> RunStats {
            self.inner.stats()
        }

        /// Provenance: the reference, the request's fixed parameters, the chunk size, the
        /// server and served model, whether a key was sent (the variable's name only), the cache.
        pub fn provenance(&self) -> Value {
            let c = &self.inner.client;
            let p = self.inner.provenance();
            json!({
                "protocol": "bespoke-minicheck",
                "reference": REFERENCE,
                "request": { "temperature": 0, "max_tokens": 1, "logprobs": true, "top_logprobs": super::TOP_LOGPROBS },
                "support": "sum of the probabilities of the first token's top-5 alternatives whose lowercased text is \"yes\"",
                "claims": "summary sentences (Punkt)",
                "aggregation": "min over sentences of the max over chunks",
                "chunk_size": self.chunk_size,
                "chunk_unit": "tokens of the served model (POST /tokenize), counted only when the byte bound exceeds the chunk size",
                "base_url": c.base_url(),
                "model": c.model(),
                "served_model": self.inner.served_model().identity,
                "api_key_env": p["api_key_env"],
                "api_key_sent": c.has_key(),
                "cache": self.inner.cache.is_some(),
            })
        }

        /// Scores `(document, summary)` rows; one result per row, in order. All checks run
        /// concurrently (bounded by the client's concurrency), identical ones sent once.
        pub fn evaluate(&self, rows: &[(&str, &str)]) -> Vec<RowResult> {
            run_blocking(&self.inner.runtime, self.evaluate_async(rows))
        }

        async fn evaluate_async(&self, rows: &[(&str, &str)]) -> Vec<RowResult> {
            let mut docs: HashMap<&str, std::result::Result<DocChunks, String>> = HashMap::new();
            for (doc, _) in rows {
                if !docs.contains_key(doc) {
                    let c = self.chunks(doc).await;
                    docs.insert(doc, c);
                }
            }
            let model = self.inner.client.model().to_owned();
            // per row: claims, and per claim per chunk a job
            let mut plans: Vec<(Vec<Span>, Vec<Vec<Job>>)> = Vec::with_capacity(rows.len());
            for (doc, summary) in rows {
                let claims: Vec<Span> = self.punkt.split(summary);
                let jobs = match &docs[doc] {
                    Ok(d) => claims
                        .iter()
                        .map(|s| {
                            let claim = s.get(summary).unwrap_or_default();
                            d.texts.iter().map(|chunk| self.inner.job(request_body(&model, chunk, claim))).collect()
                        })
                        .collect(),
                    Err(_) => Vec::new(),
                };
                plans.push((claims, jobs));
            }
            let all: Vec<&Job> = plans.iter().flat_map(|(_, j)| j.iter().flatten()).collect();
            let out = self.inner.execute(&all).await;
            rows.iter().zip(plans).map(|((doc, summary), (claims, jobs))| self.assemble(&docs[doc], summary, &claims, &jobs, &out)).collect()
        }

        /// The document's chunks (module docs, step 1), or why there are none.
        async fn chunks(&self, doc: &str) -> std::result::Result<DocChunks, String> {
            let splitter = &self.punkt;
            let packing = TokenBudgetChunking { max_tokens: self.chunk_size, split_newlines: true };
            let bound = |s: &str| s.len() + 1;
            let by_bound = packing.chunks(splitter, &bound, doc);
            let (chunks, counted) = if by_bound.len() <= 1 {
                (by_bound, "bound")
            } else {
                // the items the packing counts, then their counts from the server
                let seen = std::sync::Mutex::new(Vec::<String>::new());
                let record = |s: &str| {
                    if let Ok(mut v) = seen.lock() {
                        v.push(s.to_owned());
                    }
                    0
                };
                let _ = packing.chunks(splitter, &record, doc);
                let mut items = seen.into_inner().unwrap_or_default();
                items.sort();
                items.dedup();
                let mut counts: HashMap<String, usize> = HashMap::with_capacity(items.len());
                for it in items {
                    let n = self.count_tokens(&it).await.map_err(|e| {
                        format!(
                            "incomplete: the document may exceed `llm.minicheck_chunk_size` ({} tokens) and its tokens could not be counted ({e}); re-run with a server that counts tokens (llama.cpp, vLLM) or a chunk size above the document's length",
                            self.chunk_size
                        )
                    })?;
                    counts.insert(it, n);
                }
                let exact = |s: &str| counts.get(s).copied().unwrap_or(0);
                (packing.chunks(splitter, &exact, doc), "server")
            };
            if chunks.is_empty() {
                return Err(EMPTY_DOCUMENT.to_owned());
            }
            Ok(DocChunks {
                spans: chunks.iter().map(|c| [c.spans.first().map_or(0, |s| s.start), c.spans.last().map_or(0, |s| s.end)]).collect(),
                sentences: chunks.iter().map(|c| [c.sentences.start, c.sentences.end]).collect(),
                texts: chunks.into_iter().map(|c| c.text).collect(),
                counted,
            })
        }

        /// One text's token count by the server, cached under the served model's identity.
        async fn count_tokens(&self, text: &str) -> std::result::Result<usize, String> {
            let key = format!(
                "tokens:{}",
                request_key(self.inner.client.base_url(), &self.inner.served_model().identity, "tokenize", &json!({ "tokenize": text }))
            );
            if let Some(c) = &self.inner.cache {
                if let Ok(Some(n)) = c.get_probe(&key) {
                    if let Ok(n) = n.parse() {
                        return Ok(n);
                    }
                }
            }
            let n = self.inner.client.count_tokens(text).await?;
            if let Some(c) = &self.inner.cache {
                if let Err(e) = c.put_probe(&key, &n.to_string()) {
                    log::warn!("{e}");
                }
            }
            Ok(n)
        }

        fn assemble(
            &self,
            doc: &std::result::Result<DocChunks, String>,
            summary: &str,
            claims: &[Span],
            jobs: &[Vec<Job>],
            out: &HashMap<String, Outcome>,
        ) -> RowResult {
            let mut r = RowResult::default();
            let null = |r: &mut RowResult, why: String| {
                for c in COLUMNS {
                    r.scores.insert(c.to_owned(), None);
                    r.nulls.insert(c.to_owned(), why.clone());
                }
            };
            let d = match doc {
                Ok(d) => d,
                Err(why) => {
                    null(&mut r, why.clone());
                    r.detail = json!({ "protocol": "bespoke-minicheck", "null_reason": why, "claims": [], "chunks": [] });
                    return r;
                }
            };
            let chunks: Vec<Value> = d
                .spans
                .iter()
                .zip(&d.sentences)
                .map(|(span, sentences)| json!({ "span": span, "sentences": sentences }))
                .collect();
            let mut failed = 0u32;
            let mut claim_details = Vec::with_capacity(claims.len());
            let mut probs: Vec<Vec<f64>> = Vec::with_capacity(claims.len());
            let mut first_null: Option<String> = None;
            for (span, row_jobs) in claims.iter().zip(jobs) {
                let mut checks = Vec::with_capacity(row_jobs.len());
                let mut scores: Vec<Option<f64>> = Vec::with_capacity(row_jobs.len());
                let mut claim_null: Option<String> = None;
                for job in row_jobs {
                    let (v, check) = match &out[&job.key] {
                        Outcome::Answered { reply, cached } => {
                            let first = reply.logprobs.as_ref().and_then(|l| l.first());
                            let v = match first {
                                None => {
                                    self.no_logprobs();
                                    Err(NO_LOGPROBS.to_owned())
                                }
                                Some(t) => support_probability(&t.top),
                            };
                            let check = json!({
                                "support": v.as_ref().ok(),
                                "null_reason": v.as_ref().err(),
                                "token": reply.content,
                                "top_logprobs": first.map(|t| &t.top),
                                "cached": cached,
                                "usage": reply.usage,
                            });
                            (v, check)
                        }
                        Outcome::Failed(f) => {
                            failed += 1;
                            let why = format!("incomplete: request failed: {f}; re-run to complete (answered requests come from the cache)");
                            (Err(why.clone()), json!({ "error": f.to_string(), "null_reason": why }))
                        }
                    };
                    if let Err(why) = &v {
                        claim_null.get_or_insert_with(|| why.clone());
                    }
                    scores.push(v.ok());
                    checks.push(check);
                }
                // first maximum (the chunk shown as evidence)
                let best = scores
                    .iter()
                    .enumerate()
                    .filter_map(|(i, s)| s.map(|s| (i, s)))
                    .fold(None::<(usize, f64)>, |acc, (i, s)| match acc {
                        Some((_, m)) if m >= s => acc,
                        _ => Some((i, s)),
                    });
                let score = if claim_null.is_none() { best.map(|b| b.1) } else { None };
                if let Some(why) = &claim_null {
                    first_null.get_or_insert_with(|| why.clone());
                } else {
                    probs.push(scores.iter().flatten().copied().collect());
                }
                claim_details.push(json!({
                    "span": [span.start, span.end],
                    "text": span.get(summary).unwrap_or_default(),
                    "score": score,
                    "supported": score.map(|s| s > 0.5),
                    "best_chunk": best.map(|b| b.0),
                    "chunk_scores": scores,
                    "null_reason": claim_null,
                    "checks": checks,
                }));
            }
            let value = if claims.is_empty() {
                Err(NO_CLAIM_SENTENCE.to_owned())
            } else if let Some(why) = first_null {
                Err(why)
            } else {
                aggregate(&probs).ok_or_else(|| NO_CLAIM_SENTENCE.to_owned())
            };
            match &value {
                Ok(v) => {
                    r.scores.insert(COLUMNS[0].to_owned(), Some(*v));
                    r.scores.insert(COLUMNS[1].to_owned(), Some(if *v > 0.5 { 1.0 } else { 0.0 }));
                }
                Err(why) => null(&mut r, why.clone()),
            }
            r.failed_requests = failed;
            r.detail = json!({
                "protocol": "bespoke-minicheck",
                "score": value.as_ref().ok(),
                "supported": value.as_ref().ok().map(|v| *v > 0.5),
                "null_reason": value.as_ref().err(),
                "claim_mode": "sentences",
                "aggregation": "min",
                "chunk_size": self.chunk_size,
                "chunk_tokens": d.counted,
                "chunks": chunks,
                "claims": claim_details,
            });
            r
        }

        fn no_logprobs(&self) {
            self.inner.with_stats(|s| s.replies_without_logprobs += 1);
            if !self.warned.swap(true, Ordering::Relaxed) {
                log::warn!("llm_minicheck: the server sent no logprobs (asked: logprobs, top_logprobs 5): those checks are nulls, never read from the sampled token");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn top(v: &[(&str, f64)]) -> Vec<(String, f64)> {
        v.iter().map(|(t, p)| ((*t).to_owned(), p.ln())).collect()
    }

    #[test]
    fn yes_alternatives_are_summed_case_insensitively_but_not_stripped() {
        let t = top(&[("Yes", 0.4), ("No", 0.3), (" Yes", 0.1), ("yes", 0.05), ("YES", 0.02)]);
        let p = support_probability(&t).unwrap();
        assert!((p - 0.47).abs() < 1e-12, "{p}");
        // " Yes", "Yes." and "yes\n" are other texts: not counted (the reference does not strip)
        let t = top(&[(" Yes", 0.6), ("Yes.", 0.2), ("yes\n", 0.1), ("No", 0.05), ("no", 0.01)]);
        assert_eq!(support_probability(&t).unwrap(), 0.0);
        // two alternatives with the same text (two token ids) both count, as in the reference's dict
        let t = top(&[("yes", 0.25), ("yes", 0.25), ("No", 0.5)]);
        assert!((support_probability(&t).unwrap() - 0.5).abs() < 1e-12);
        // yEs: lowercased, equal
        assert!((support_probability(&top(&[("yEs", 0.9)])).unwrap() - 0.9).abs() < 1e-12);
        // a log-probability of -inf is a probability of 0
        assert_eq!(support_probability(&[("Yes".to_owned(), f64::NEG_INFINITY)]).unwrap(), 0.0);
    }

    #[test]
    fn no_alternatives_is_a_null_never_the_sampled_token() {
        assert_eq!(support_probability(&[]).unwrap_err(), NO_TOP_LOGPROBS);
    }

    #[test]
    fn min_over_sentences_of_max_over_chunks() {
        assert_eq!(aggregate(&[vec![0.2, 0.9], vec![0.7, 0.1]]), Some(0.7));
        assert_eq!(aggregate(&[vec![0.3]]), Some(0.3));
        assert_eq!(aggregate(&[]), None);
        assert_eq!(aggregate(&[vec![0.3], vec![]]), None);
    }

    #[test]
    fn prompt_and_body_are_the_references() {
        assert_eq!(user_message("An RCT.", "It helped."), "Document: An RCT.\nClaim: It helped.");
        // the reference's replace order: a [CLAIM] placeholder inside the document is replaced too
        assert_eq!(user_message("a [CLAIM] b", "c"), "Document: a c b\nClaim: c");
        assert_eq!(user_message("d", "[DOCUMENT]"), "Document: d\nClaim: [DOCUMENT]");
        let b = request_body("m", "doc", "claim");
        assert_eq!(b["messages"][0]["content"], SYSTEM_PROMPT);
        assert_eq!(b["messages"][1]["content"], "Document: doc\nClaim: claim");
        assert_eq!((b["temperature"].as_i64(), b["max_tokens"].as_i64(), b["top_logprobs"].as_i64()), (Some(0), Some(1), Some(5)));
        assert_eq!(b["logprobs"], true);
        assert!(SYSTEM_PROMPT.starts_with("Determine whether the provided claim") && SYSTEM_PROMPT.ends_with("either \"Yes\" or \"No\"."));
        assert_eq!(DEFAULT_CHUNK_SIZE, 32_468);
    }
}
