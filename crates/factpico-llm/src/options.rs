//! Options of the LLM evaluators: which protocol, which server and model, sampling presets,
//! structured output, transport and cache location. Plain data (serde, `Default`), available
//! without the `client` feature so configurations are portable.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::structured::StructuredOutput;

/// Transport options of the client. None of them changes what a request asks, so none of
/// them enters the cache key or the provenance.
///
/// Settable from JSON as `llm.runtime.client` of the `ScorerOptions` (every field optional,
/// an unknown one refused). Durations are plain numbers of **seconds** (`"timeout_s": 120`,
/// `"backoff_min_s": 0.5`), not serde's `{secs, nanos}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "clap", derive(clap::Args))]
#[serde(default, deny_unknown_fields)]
pub struct ClientOptions {
    /// LLM metrics: requests in flight at once (default 4; match the server's parallel slots,
    /// e.g. llama.cpp's `--parallel`, or the API's rate limits).
    #[cfg_attr(feature = "clap", arg(id = "llm.runtime.client.concurrency", long = "llm-concurrency", default_value_t = ClientOptions::default().concurrency))]
    pub concurrency: usize,
    /// LLM metrics: per-request timeout in seconds, from sending to the last byte of the reply
    /// (default 300).
    #[cfg_attr(feature = "clap", arg(id = "llm.runtime.client.timeout_s", long = "llm-timeout", value_name = "SECONDS", default_value_t = ClientOptions::default().timeout_s))]
    pub timeout_s: f64,
    /// Connection timeout in seconds (default 10).
    #[cfg_attr(feature = "clap", arg(skip = ClientOptions::default().connect_timeout_s))]
    pub connect_timeout_s: f64,
    /// LLM metrics: retries after the first attempt (default 5) on HTTP 408, 429, 5xx,
    /// timeouts and transport errors (exponential backoff with jitter, Retry-After honoured).
    /// Other 4xx answers are not retried.
    #[cfg_attr(feature = "clap", arg(id = "llm.runtime.client.retries", long = "llm-retries", default_value_t = ClientOptions::default().retries))]
    pub retries: u32,
    /// First backoff delay in seconds (default 1); doubles per retry, full jitter.
    #[cfg_attr(feature = "clap", arg(skip = ClientOptions::default().backoff_min_s))]
    pub backoff_min_s: f64,
    /// Largest backoff delay in seconds (default 60).
    #[cfg_attr(feature = "clap", arg(skip = ClientOptions::default().backoff_max_s))]
    pub backoff_max_s: f64,
    /// Largest `Retry-After` honoured, in seconds (default 300); longer values are cut to it.
    #[cfg_attr(feature = "clap", arg(skip = ClientOptions::default().retry_after_max_s))]
    pub retry_after_max_s: f64,
    /// LLM metrics: largest reply body accepted, in bytes (default 8 MiB). A longer reply (a
    /// server that ignores `max_tokens`) fails its request, is not retried and is stored
    /// nowhere.
    #[cfg_attr(feature = "clap", arg(id = "llm.runtime.client.max_reply_bytes", long = "llm-max-reply-bytes", default_value_t = ClientOptions::default().max_reply_bytes))]
    pub max_reply_bytes: u64,
    /// LLM metrics: stop sending after this many requests in a row (in completion order, no
    /// success in between) have exhausted their retries on HTTP 5xx, timeouts or transport
    /// errors (default 5; 0 = never). Rate limiting (HTTP 429) does not count. The requests
    /// not sent are failures (exit 3): a re-run sends them.
    #[cfg_attr(feature = "clap", arg(id = "llm.runtime.client.stop_after_failures", long = "llm-stop-after-failures", default_value_t = ClientOptions::default().stop_after_failures))]
    pub stop_after_failures: u32,
}

impl Default for ClientOptions {
    fn default() -> Self {
        Self {
            concurrency: 4,
            timeout_s: 300.0,
            connect_timeout_s: 10.0,
            retries: 5,
            backoff_min_s: 1.0,
            backoff_max_s: 60.0,
            retry_after_max_s: 300.0,
            max_reply_bytes: 8 << 20,
            stop_after_failures: 5,
        }
    }
}

/// Largest [`ClientOptions::concurrency`] accepted.
pub const MAX_CONCURRENCY: usize = 65_536;

impl ClientOptions {
    /// Checks the values: a concurrency from 1 to [`MAX_CONCURRENCY`], positive timeouts,
    /// non-negative backoff and `Retry-After` bounds, every duration a finite number of
    /// seconds that fits a `Duration`. Messages name the field by its `ScorerOptions` path
    /// (`` `llm.runtime.client.timeout_s` ``).
    ///
    /// # Errors
    /// [`crate::Error::Options`] naming the first bad field.
    pub fn validate(&self) -> crate::Result<()> {
        let bad = |m: String| Err(crate::Error::Options(m));
        if self.concurrency == 0 {
            return bad("`llm.runtime.client.concurrency` must be at least 1".into());
        }
        if self.concurrency > MAX_CONCURRENCY {
            return bad(format!("`llm.runtime.client.concurrency` must be at most {MAX_CONCURRENCY}, got {}", self.concurrency));
        }
        for (field, v, positive) in [
            ("timeout_s", self.timeout_s, true),
            ("connect_timeout_s", self.connect_timeout_s, true),
            ("backoff_min_s", self.backoff_min_s, false),
            ("backoff_max_s", self.backoff_max_s, false),
            ("retry_after_max_s", self.retry_after_max_s, false),
        ] {
            let fits = std::time::Duration::try_from_secs_f64(v).is_ok();
            if !fits || (positive && v <= 0.0) {
                let what = if positive { "a positive" } else { "a non-negative" };
                return bad(format!("`llm.runtime.client.{field}` must be {what} number of seconds, got {v}"));
            }
        }
        Ok(())
    }
}

/// Which FactPICO protocol.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Protocol {
    /// Ratings over the full abstract and summary (metric `llm`).
    FullText,
    /// Extract-then-rate (metric `llm_pipeline`).
    Pipeline,
}

impl Protocol {
    /// Metric name and column prefix: `llm` or `llm_pipeline`.
    pub fn name(self) -> &'static str {
        match self {
            Self::FullText => "llm",
            Self::Pipeline => "llm_pipeline",
        }
    }

    /// The seven columns: `<prefix>_population`, `_intervention`, `_comparator`, `_outcome`,
    /// `_evidence`, `_avg` (Avg. PICO-R), `_pio` (mean of P, I, O: the elements Shaib et al.
    /// 2023's experts rate).
    pub fn columns(self) -> [String; 7] {
        let p = self.name();
        [
            format!("{p}_population"),
            format!("{p}_intervention"),
            format!("{p}_comparator"),
            format!("{p}_outcome"),
            format!("{p}_evidence"),
            format!("{p}_avg"),
            format!("{p}_pio"),
        ]
    }

    /// The probability-weighted twins of [`Protocol::columns`], in the same order, each named
    /// `<column>_weighted` (`llm_population_weighted`, …, `llm_avg_weighted`,
    /// `llm_pio_weighted`); nulls unless `llm.logprobs` is on.
    pub fn weighted_columns(self) -> [String; 7] {
        self.columns().map(|c| format!("{c}_weighted"))
    }
}

/// Sampling presets.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[serde(rename_all = "kebab-case")]
pub enum SamplingPreset {
    /// Temperature 0 (reproducible; default), max tokens 512 for ratings and extractions.
    /// A deviation from the paper, whose GPT-4 calls used the API's defaults.
    #[default]
    Deterministic,
    /// The paper's GPT-4 calls: no sampling parameter sent at all (the API's defaults;
    /// OpenAI's temperature default is 1) and no token limit.
    PaperGpt4,
    /// The paper's open models (Llama-2-7B-chat, Alpaca-7B, Mistral-7B-Instruct via Together):
    /// temperature 0.6, top-k 90, top-p 0.8, repetition penalty 1.1 (sent as vLLM's
    /// `repetition_penalty` and llama.cpp's `repeat_penalty`), max tokens 256, stop `</s>`.
    /// The paper's raw `[INST]`/Alpaca prompt strings are replaced by the server's chat template.
    PaperOpenModels,
}

/// Options of the LLM evaluators that change what is asked (they enter the provenance and,
/// through the request body, the cache key).
///
/// Credentials in the base URL's userinfo (`http://user:KEY@host/v1`) are never sent (the
/// client drops them, see [`crate::client::normalize_base_url`]) and never recorded: the
/// serialised options (provenance, resume fingerprint, Python) and `Debug` show the URL
/// without them ([`redact_url`]).
#[derive(Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "clap", derive(clap::Args))]
#[serde(default, deny_unknown_fields)]
pub struct LlmOptions {
    /// LLM metrics: base URL of an OpenAI-compatible API, ending in `/v1` (e.g.
    /// `https://api.openai.com/v1`, `http://127.0.0.1:8080/v1`); `/v1` is appended to a URL
    /// without a path. A `user:password@` part is ignored and never serialised.
    #[serde(serialize_with = "serialize_redacted_url")]
    #[cfg_attr(feature = "clap", arg(id = "llm.base_url", long = "llm-base-url", value_name = "URL"))]
    pub base_url: Option<String>,
    /// LLM metrics: the model name sent in requests (llama.cpp serves its one model whatever
    /// the name; the cache is keyed by the model the server reports).
    #[cfg_attr(feature = "clap", arg(id = "llm.model", long = "llm-model"))]
    pub model: Option<String>,
    /// LLM metrics: name of the environment variable holding the API key (never the key).
    /// Unset: no `Authorization` header (local servers).
    #[cfg_attr(feature = "clap", arg(id = "llm.api_key_env", long = "llm-api-key-env", value_name = "VAR"))]
    pub api_key_env: Option<String>,
    /// LLM metrics: the served model's identity, declared instead of asked (`GET /v1/models`): the cache
    /// is keyed by this name (and not by the base URL), no structured-output probe is sent,
    /// and `base_url` becomes optional (needed only to send requests). For batch files run
    /// offline (`vllm run-batch`, OpenAI's Batch API) and for scoring from the cache with
    /// no server. Runs declaring the same name share answers; a run that asks the server
    /// (no declared name) keys by the server's entry and shares none with them.
    #[cfg_attr(feature = "clap", arg(id = "llm.served_model", long = "llm-served-model", value_name = "NAME"))]
    pub served_model: Option<String>,
    /// LLM metrics: constraint on rating replies: json-schema (default; OpenAI structured
    /// outputs), grammar (llama.cpp GBNF), off (the paper's free text). A server that rejects
    /// it falls back to off (recorded in the provenance).
    #[cfg_attr(feature = "clap", arg(id = "llm.structured_output", long = "llm-structured", value_enum, default_value_t = LlmOptions::default().structured_output))]
    pub structured_output: StructuredOutput,
    /// LLM metrics: sampling preset: deterministic (default; temperature 0), paper-gpt4 (the
    /// API's defaults), paper-open-models (temperature 0.6, top-k 90, top-p 0.8, repetition
    /// penalty 1.1, 256 tokens).
    #[cfg_attr(feature = "clap", arg(id = "llm.preset", long = "llm-preset", value_enum, default_value_t = LlmOptions::default().preset))]
    pub preset: SamplingPreset,
    /// LLM metrics: temperature (overrides the preset's).
    #[cfg_attr(feature = "clap", arg(id = "llm.temperature", long = "llm-temperature"))]
    pub temperature: Option<f64>,
    /// LLM metrics: top-p (overrides the preset's).
    #[cfg_attr(feature = "clap", arg(id = "llm.top_p", long = "llm-top-p"))]
    pub top_p: Option<f64>,
    /// LLM metrics: sampling seed (sent when given).
    #[cfg_attr(feature = "clap", arg(id = "llm.seed", long = "llm-seed"))]
    pub seed: Option<u64>,
    /// LLM metrics: max tokens of a rating reply (overrides the preset's: deterministic 512,
    /// paper-open-models 256).
    #[cfg_attr(feature = "clap", arg(id = "llm.max_tokens", long = "llm-max-tokens"))]
    pub max_tokens: Option<u32>,
    /// LLM pipeline: max tokens of an extraction reply (stage 1; overrides the preset's:
    /// deterministic 512, paper-open-models 256).
    #[cfg_attr(feature = "clap", arg(id = "llm.extract_max_tokens", long = "llm-extract-max-tokens"))]
    pub extract_max_tokens: Option<u32>,
    /// LLM metrics: upper bound on the rationale's length in the structured modes, in
    /// characters (default 400).
    #[cfg_attr(feature = "clap", arg(id = "llm.rationale_max_chars", long = "llm-rationale-max-chars"))]
    pub rationale_max_chars: Option<usize>,
    /// LLM metrics: what to rate: any of population, intervention, comparator, outcome,
    /// evidence (comma-separated); empty (default) = all. Columns not rated are nulls ("not
    /// requested"), and the average is over the rated ones. Cuts the cost of a run (e.g.
    /// evidence inference only).
    #[cfg_attr(feature = "clap", arg(id = "llm.elements", long = "llm-elements", value_delimiter = ','))]
    pub elements: Vec<Target>,
    /// LLM metrics: separator of evidence spans in a CSV/TSV cell that does not hold a JSON
    /// list (default `||`; `factpico_llm::evidence_spans`).
    #[cfg_attr(feature = "clap", arg(id = "llm.evidence_separator", long = "evidence-separator"))]
    pub evidence_separator: Option<String>,
    /// LLM metrics: ask for the rating token's log-probabilities (`logprobs`, `top_logprobs` =
    /// [`TOP_LOGPROBS`]) and add the probability-weighted rating of each element beside the
    /// sampled one (columns `<prefix>_<element>_weighted`, see [`crate::weighted`]). Default
    /// off: requests with logprobs are new cache entries. A server that sends no logprobs
    /// leaves the weighted columns documented nulls, with a warning.
    #[serde(skip_serializing_if = "is_false")]
    #[cfg_attr(feature = "clap", arg(id = "llm.logprobs", long = "llm-logprobs"))]
    pub logprobs: bool,
    /// LLM metrics: prompt variant: published (default; the reference's prompts,
    /// byte-identical) or rating-only (texts first, the rating's digit only: one generated
    /// token).
    #[serde(skip_serializing_if = "is_default")]
    #[cfg_attr(feature = "clap", arg(id = "llm.prompt", long = "llm-prompt", value_enum, default_value_t = LlmOptions::default().prompt))]
    pub prompt: PromptVariant,
    /// LLM metrics: in the `json-schema` and `grammar` modes, ask for the rationale before the rating
    /// (`"required": ["rationale", "rating"]`, sent in that order; the grammar
    /// `Rationale: …\nRating: N`), so the model reasons before it commits to a number. The
    /// published prompt text is unchanged. Default off (rating first). Not with
    /// `prompt: rating-only` (no rationale there).
    #[serde(skip_serializing_if = "is_false")]
    #[cfg_attr(feature = "clap", arg(id = "llm.rationale_first", long = "llm-rationale-first"))]
    pub rationale_first: bool,
    /// LLM metrics: samples per rating request (default 1). With N > 1 the temperature must be above 0;
    /// sample i is sent with seed `seed + i` (`seed` default 0), each cached under its own
    /// key, so raising N sends only the new samples. An element's column is the mean of its
    /// readable samples; the detail has every sample, the majority rating and the spread.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "clap", arg(id = "llm.samples", long = "llm-samples", value_name = "N"))]
    pub samples: Option<u32>,
    /// llm_minicheck: the largest document chunk, in tokens of the served model (default
    /// [`crate::minicheck::DEFAULT_CHUNK_SIZE`] = 32,768 − 300, the reference's
    /// `max_model_len` minus its claim reserve). Set it to the server's context minus 300.
    /// Counted by the server's /tokenize only when the abstract may exceed it.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "clap", arg(id = "llm.minicheck_chunk_size", long = "llm-minicheck-chunk-size", value_name = "N"))]
    pub minicheck_chunk_size: Option<usize>,
    /// How requests travel: concurrency, timeouts, retries, cache location ([`LlmRuntime`]).
    /// Read from JSON (`"runtime": {"client": {"concurrency": 8}, "cache": "/tmp/c.sqlite"}`)
    /// but never serialised: results do not depend on it, so it is not part of the
    /// provenance, the `--resume` fingerprint or the request cache key.
    #[serde(default, skip_serializing)]
    #[cfg_attr(feature = "clap", command(flatten))]
    pub runtime: LlmRuntime,
}

/// Alternatives asked for per generated token when [`LlmOptions::logprobs`] is on (OpenAI
/// allows up to 20).
pub const TOP_LOGPROBS: u8 = 10;

/// Largest [`LlmOptions::samples`].
pub const MAX_SAMPLES: u32 = 64;

#[allow(clippy::trivially_copy_pass_by_ref)] // serde's skip_serializing_if signature
fn is_false(b: &bool) -> bool {
    !*b
}

fn is_default<T: Default + PartialEq>(v: &T) -> bool {
    *v == T::default()
}

/// Which prompts the rating requests use.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[serde(rename_all = "kebab-case")]
pub enum PromptVariant {
    /// The reference's prompts, byte-identical (a rating and a rationale per reply).
    #[default]
    Published,
    /// Rating-only, shared text first: the abstract and the summary (pipeline: the two
    /// extractions; evidence: the summary, then the span) open the user message, then the
    /// published rating instructions of the element with their last sentence ("Please provide
    /// only the rating and the rationale …") replaced by "Answer with the rating's digit
    /// only."; one generated token (`max_tokens` 1 whatever `llm.max_tokens` says), constrained to the scale's digits in the
    /// `json-schema` (an integer enum) and `grammar` modes. The shared prefix lets a server's
    /// prompt cache (llama.cpp) reuse the abstract across one summary's elements. Not a
    /// published protocol: a factpico variant, named as such in the provenance.
    #[cfg_attr(feature = "clap", value(alias = "rating_only"))]
    RatingOnly,
}

impl std::str::FromStr for PromptVariant {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "published" => Ok(Self::Published),
            "rating-only" | "rating_only" => Ok(Self::RatingOnly),
            other => Err(format!("unknown prompt variant {other:?} (published, rating-only)")),
        }
    }
}

/// `url` without the `user:password@` part of its authority (credentials in a URL), for
/// every place a URL is recorded or printed; any other text is returned unchanged.
///
/// `redact_url("http://u:KEY@host:1/v1") == "http://host:1/v1"`.
#[must_use]
pub fn redact_url(url: &str) -> std::borrow::Cow<'_, str> {
    let Some((scheme, rest)) = url.split_once("://") else { return url.into() };
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    match rest[..authority_end].rfind('@') {
        Some(at) => format!("{scheme}://{}", &rest[at + 1..]).into(),
        None => url.into(),
    }
}

fn serialize_redacted_url<S: serde::Serializer>(url: &Option<String>, s: S) -> Result<S::Ok, S::Error> {
    match url {
        Some(u) => s.serialize_some(redact_url(u).as_ref()),
        None => s.serialize_none(),
    }
}

impl std::fmt::Debug for LlmOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Exhaustive: a new field is a compile error here until it is shown (or redacted).
        let Self {
            base_url,
            model,
            api_key_env,
            served_model,
            structured_output,
            preset,
            temperature,
            top_p,
            seed,
            max_tokens,
            extract_max_tokens,
            rationale_max_chars,
            elements,
            evidence_separator,
            logprobs,
            prompt,
            rationale_first,
            samples,
            minicheck_chunk_size,
            runtime,
        } = self;
        f.debug_struct("LlmOptions")
            .field("base_url", &base_url.as_deref().map(redact_url))
            .field("model", model)
            .field("api_key_env", api_key_env)
            .field("served_model", served_model)
            .field("structured_output", structured_output)
            .field("preset", preset)
            .field("temperature", temperature)
            .field("top_p", top_p)
            .field("seed", seed)
            .field("max_tokens", max_tokens)
            .field("extract_max_tokens", extract_max_tokens)
            .field("rationale_max_chars", rationale_max_chars)
            .field("elements", elements)
            .field("evidence_separator", evidence_separator)
            .field("logprobs", logprobs)
            .field("prompt", prompt)
            .field("rationale_first", rationale_first)
            .field("samples", samples)
            .field("minicheck_chunk_size", minicheck_chunk_size)
            .field("runtime", runtime)
            .finish()
    }
}

/// A column an LLM evaluator can rate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Target {
    /// P.
    Population,
    /// I.
    Intervention,
    /// C.
    Comparator,
    /// O.
    Outcome,
    /// R: evidence inference over the row's spans.
    Evidence,
}

impl std::str::FromStr for Target {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s.trim() {
            "population" | "P" | "p" => Ok(Self::Population),
            "intervention" | "interventions" | "I" | "i" => Ok(Self::Intervention),
            "comparator" | "C" | "c" => Ok(Self::Comparator),
            "outcome" | "O" | "o" => Ok(Self::Outcome),
            "evidence" | "result" | "R" | "r" => Ok(Self::Evidence),
            other => Err(format!("unknown element {other:?} (population, intervention, comparator, outcome, evidence)")),
        }
    }
}

impl LlmOptions {
    /// Whether the element is rated.
    pub fn wants(&self, e: crate::templates::Element) -> bool {
        use crate::templates::Element as E;
        let t = match e {
            E::Population => Target::Population,
            E::Intervention => Target::Intervention,
            E::Comparator => Target::Comparator,
            E::Outcome => Target::Outcome,
        };
        self.elements.is_empty() || self.elements.contains(&t)
    }

    /// Whether evidence inference (R) is rated.
    pub fn wants_evidence(&self) -> bool {
        self.elements.is_empty() || self.elements.contains(&Target::Evidence)
    }

    /// Samples per rating request (`samples`, default 1).
    pub fn sample_count(&self) -> u32 {
        self.samples.unwrap_or(1)
    }

    /// Checks the combinations the fields allow: samples from 1 to [`MAX_SAMPLES`], a
    /// temperature above 0 with more than one sample, no rationale-first with rating-only
    /// prompts, the rationale bound at least 1. Messages name fields by their `ScorerOptions`
    /// path (`llm.samples`).
    ///
    /// # Errors
    /// [`crate::Error::Options`] naming the first bad field.
    pub fn validate(&self) -> crate::Result<()> {
        let bad = |m: String| Err(crate::Error::Options(m));
        if let Some(t) = self.temperature.filter(|t| !t.is_finite() || *t < 0.0) {
            return bad(format!("`llm.temperature` must be a finite number of at least 0, got {t}"));
        }
        if let Some(p) = self.top_p.filter(|p| !p.is_finite() || *p <= 0.0 || *p > 1.0) {
            return bad(format!("`llm.top_p` must be in (0, 1], got {p}"));
        }
        if self.max_tokens == Some(0) || self.extract_max_tokens == Some(0) {
            let f = if self.max_tokens == Some(0) { "max_tokens" } else { "extract_max_tokens" };
            return bad(format!("`llm.{f}` must be at least 1"));
        }
        let n = self.sample_count();
        if n == 0 || n > MAX_SAMPLES {
            return bad(format!("`llm.samples` must be from 1 to {MAX_SAMPLES}, got {n}"));
        }
        if let Some(seed) = self.seed.filter(|&s| s.saturating_add(u64::from(n.saturating_sub(1))) > i64::MAX as u64) {
            return bad(format!("`llm.seed` {seed} is too large: with {n} sample(s) the seeds sent go up to seed + {} and must stay within {}", n.saturating_sub(1), i64::MAX));
        }
        if n > 1 {
            let t = Sampling::resolve(self).temperature;
            if t.is_some_and(|t| t <= 0.0) {
                return bad(format!(
                    "`llm.samples` {n} needs a temperature above 0 (`llm.temperature`, e.g. 0.7): at temperature 0 every sample is the same reply"
                ));
            }
        }
        if self.rationale_first && self.prompt == PromptVariant::RatingOnly {
            return bad("`llm.rationale_first` cannot be combined with `llm.prompt` rating-only (its replies have no rationale)".into());
        }
        if self.rationale_first && self.structured_output == crate::structured::StructuredOutput::Off {
            return bad(
                "`llm.rationale_first` needs `llm.structured_output` json-schema or grammar (the free-text prompt's field order is the reference's)".into(),
            );
        }
        if self.rationale_max_chars == Some(0) {
            return bad("`llm.rationale_max_chars` must be at least 1".into());
        }
        Ok(())
    }
}

/// Operational settings: transport, concurrency, cache location (`LlmOptions::runtime`,
/// the JSON object `llm.runtime` of the `ScorerOptions`).
///
/// Deserialised only (every field optional, an unknown one refused): the options are
/// recorded without it, so two runs differing only here have the same provenance, resume
/// fingerprint and cache keys.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[cfg_attr(feature = "clap", derive(clap::Args))]
#[serde(default, deny_unknown_fields)]
pub struct LlmRuntime {
    /// Client transport options.
    #[cfg_attr(feature = "clap", command(flatten))]
    pub client: ClientOptions,
    /// LLM metrics: the request cache file (default `$FACTPICO_HOME/llm-cache.sqlite`, see
    /// [`default_cache_path`]).
    #[cfg_attr(feature = "clap", arg(id = "llm.runtime.cache", long = "llm-cache"))]
    pub cache: Option<PathBuf>,
    /// LLM metrics: no cache at all: every request is sent.
    #[cfg_attr(feature = "clap", arg(id = "llm.runtime.no_cache", long = "llm-no-cache"))]
    pub no_cache: bool,
    /// LLM metrics: price of a million prompt (input) tokens, in any currency (unset: not
    /// priced). Only turns the token counts of the run report and `--dry-run` into a cost;
    /// changes no request.
    #[cfg_attr(feature = "clap", arg(id = "llm.runtime.price_input_per_mtok", long = "llm-price-input", value_name = "PRICE"))]
    pub price_input_per_mtok: Option<f64>,
    /// LLM metrics: price of a million completion (output) tokens, in the same currency.
    #[cfg_attr(feature = "clap", arg(id = "llm.runtime.price_output_per_mtok", long = "llm-price-output", value_name = "PRICE"))]
    pub price_output_per_mtok: Option<f64>,
}

impl LlmRuntime {
    /// The cache file the evaluators open: `cache`, else [`default_cache_path`]; `None` with
    /// `no_cache`.
    pub fn cache_file(&self) -> Option<PathBuf> {
        (!self.no_cache).then(|| self.cache.clone().unwrap_or_else(default_cache_path))
    }

    /// The token prices, when either is set (the unset one is 0).
    ///
    /// # Errors
    /// [`crate::Error::Options`] naming the field when a price is negative or not finite.
    pub fn prices(&self) -> crate::Result<Option<Prices>> {
        for (field, v) in [("price_input_per_mtok", self.price_input_per_mtok), ("price_output_per_mtok", self.price_output_per_mtok)] {
            if let Some(v) = v.filter(|v| !v.is_finite() || *v < 0.0) {
                return Err(crate::Error::Options(format!("`llm.runtime.{field}` must be a non-negative number (a price per million tokens), got {v}")));
            }
        }
        if self.price_input_per_mtok.is_none() && self.price_output_per_mtok.is_none() {
            return Ok(None);
        }
        Ok(Some(Prices { input_per_mtok: self.price_input_per_mtok.unwrap_or(0.0), output_per_mtok: self.price_output_per_mtok.unwrap_or(0.0) }))
    }
}

/// Prices per million tokens ([`LlmRuntime::prices`]), in the caller's currency.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Prices {
    /// Per million prompt tokens.
    pub input_per_mtok: f64,
    /// Per million completion tokens.
    pub output_per_mtok: f64,
}

impl Prices {
    /// The cost of `prompt` prompt and `completion` completion tokens.
    #[must_use]
    pub fn cost(&self, prompt: u64, completion: u64) -> f64 {
        (prompt as f64 * self.input_per_mtok + completion as f64 * self.output_per_mtok) / 1e6
    }
}

/// Default separator of evidence spans in a CSV/TSV cell.
pub const DEFAULT_EVIDENCE_SEPARATOR: &str = "||";

/// Default rationale bound, characters.
pub const DEFAULT_RATIONALE_MAX: usize = 400;

/// `$FACTPICO_HOME/llm-cache.sqlite`, else `$XDG_CACHE_HOME/factpico/llm-cache.sqlite`, else
/// `~/.cache/factpico/llm-cache.sqlite` (the same home as the ONNX Runtime library).
pub fn default_cache_path() -> PathBuf {
    let home = if let Some(p) = std::env::var_os("FACTPICO_HOME").filter(|p| !p.is_empty()) {
        PathBuf::from(p)
    } else if let Some(p) = std::env::var_os("XDG_CACHE_HOME").filter(|p| !p.is_empty()) {
        PathBuf::from(p).join("factpico")
    } else if let Some(h) = std::env::var_os("HOME").filter(|p| !p.is_empty()) {
        PathBuf::from(h).join(".cache").join("factpico")
    } else {
        PathBuf::from(".factpico")
    };
    home.join("llm-cache.sqlite")
}

/// Resolved sampling parameters (what the requests carry).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Sampling {
    /// Temperature (`None`: not sent).
    pub temperature: Option<f64>,
    /// Top-p.
    pub top_p: Option<f64>,
    /// Top-k (non-standard; local servers).
    pub top_k: Option<u32>,
    /// Repetition penalty (non-standard; local servers).
    pub repetition_penalty: Option<f64>,
    /// Seed.
    pub seed: Option<u64>,
    /// Max tokens of rating replies.
    pub max_tokens: Option<u32>,
    /// Max tokens of extraction replies.
    pub extract_max_tokens: Option<u32>,
    /// Stop sequences.
    pub stop: Vec<String>,
}

impl Sampling {
    /// The preset's values with the explicit options applied.
    pub fn resolve(o: &LlmOptions) -> Self {
        let mut s = match o.preset {
            SamplingPreset::Deterministic => Self {
                temperature: Some(0.0),
                top_p: None,
                top_k: None,
                repetition_penalty: None,
                seed: None,
                max_tokens: Some(512),
                extract_max_tokens: Some(512),
                stop: vec![],
            },
            SamplingPreset::PaperGpt4 => Self {
                temperature: None,
                top_p: None,
                top_k: None,
                repetition_penalty: None,
                seed: None,
                max_tokens: None,
                extract_max_tokens: None,
                stop: vec![],
            },
            SamplingPreset::PaperOpenModels => Self {
                temperature: Some(0.6),
                top_p: Some(0.8),
                top_k: Some(90),
                repetition_penalty: Some(1.1),
                seed: None,
                max_tokens: Some(256),
                extract_max_tokens: Some(256),
                stop: vec!["</s>".into()],
            },
        };
        if o.temperature.is_some() {
            s.temperature = o.temperature;
        }
        if o.top_p.is_some() {
            s.top_p = o.top_p;
        }
        if o.seed.is_some() {
            s.seed = o.seed;
        }
        if o.max_tokens.is_some() {
            s.max_tokens = o.max_tokens;
        }
        if o.extract_max_tokens.is_some() {
            s.extract_max_tokens = o.extract_max_tokens;
        }
        s
    }
}

#[cfg(test)]
mod redaction_tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn redact_url_drops_userinfo_only() {
        assert_eq!(redact_url("http://u:KEY@host:1/v1"), "http://host:1/v1");
        assert_eq!(redact_url("https://KEY@api.example/v1?x=a@b"), "https://api.example/v1?x=a@b");
        assert_eq!(redact_url("http://host/v1/a@b"), "http://host/v1/a@b");
        assert_eq!(redact_url("http://host:8080"), "http://host:8080");
        assert_eq!(redact_url("not a url"), "not a url");
    }

    #[test]
    fn options_never_serialise_or_debug_print_url_credentials() {
        let o = LlmOptions { base_url: Some("http://someone:sk-SECRET-1@127.0.0.1:9/v1".into()), ..Default::default() };
        let json = serde_json::to_string(&o).unwrap();
        let debug = format!("{o:?}");
        for s in [&json, &debug] {
            assert!(!s.contains("sk-SECRET-1") && !s.contains("someone"), "{s}");
            assert!(s.contains("127.0.0.1:9/v1"), "{s}");
        }
        let back: LlmOptions = serde_json::from_str(&json).unwrap();
        assert_eq!(back.base_url.as_deref(), Some("http://127.0.0.1:9/v1"));
    }
}

#[cfg(test)]
mod runtime_tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn tuned() -> LlmOptions {
        let mut o = LlmOptions { model: Some("m".into()), base_url: Some("http://h/v1".into()), ..LlmOptions::default() };
        o.runtime = serde_json::from_value(serde_json::json!({
            "client": {"concurrency": 16, "timeout_s": 12.5, "connect_timeout_s": 2, "retries": 1,
                       "backoff_min_s": 0.1, "backoff_max_s": 3, "retry_after_max_s": 30,
                       "max_reply_bytes": 1024, "stop_after_failures": 0},
            "cache": "/tmp/factpico-test/cache.sqlite",
            "no_cache": true
        }))
        .unwrap();
        o
    }

    #[test]
    fn runtime_deserialises_with_seconds_as_numbers_and_defaults() {
        let o = tuned();
        let c = &o.runtime.client;
        assert_eq!((c.concurrency, c.retries, c.max_reply_bytes, c.stop_after_failures), (16, 1, 1024, 0));
        assert!((c.timeout_s - 12.5).abs() < f64::EPSILON && (c.connect_timeout_s - 2.0).abs() < f64::EPSILON);
        assert_eq!(o.runtime.cache.as_deref(), Some(std::path::Path::new("/tmp/factpico-test/cache.sqlite")));
        assert!(o.runtime.no_cache);
        let partial: LlmRuntime = serde_json::from_str(r#"{"client": {"concurrency": 2}}"#).unwrap();
        assert_eq!(partial.client, ClientOptions { concurrency: 2, ..ClientOptions::default() });
        assert_eq!((partial.cache, partial.no_cache), (None, false));
        assert_eq!(serde_json::from_str::<LlmRuntime>("{}").unwrap(), LlmRuntime::default());
        let o: LlmOptions = serde_json::from_str(r#"{"runtime": {"cache": "c.sqlite"}}"#).unwrap();
        assert_eq!(o.runtime.cache.as_deref(), Some(std::path::Path::new("c.sqlite")));
    }

    #[test]
    fn unknown_runtime_fields_are_refused_naming_the_valid_ones() {
        let e = serde_json::from_str::<LlmOptions>(r#"{"runtime": {"client": {"timeout": 5}}}"#).unwrap_err().to_string();
        assert!(e.contains("unknown field `timeout`") && e.contains("`timeout_s`"), "{e}");
        let e = serde_json::from_str::<LlmOptions>(r#"{"runtime": {"concurrency": 5}}"#).unwrap_err().to_string();
        assert!(e.contains("unknown field `concurrency`") && e.contains("`client`"), "{e}");
    }

    /// Serialised options (provenance, resume fingerprint, Python's `Scorer.options`) never
    /// carry the runtime: two sets differing only there serialise identically, and the round
    /// trip gives the default runtime.
    #[test]
    fn runtime_is_never_serialised() {
        let plain = LlmOptions { model: Some("m".into()), base_url: Some("http://h/v1".into()), ..LlmOptions::default() };
        let t = tuned();
        assert_ne!(plain, t);
        let (a, b) = (serde_json::to_string(&plain).unwrap(), serde_json::to_string(&t).unwrap());
        assert_eq!(a, b);
        assert!(!b.contains("runtime") && !b.contains("concurrency") && !b.contains("cache"), "{b}");
        let back: LlmOptions = serde_json::from_str(&b).unwrap();
        assert_eq!(back, plain);
    }

    /// The cache key is computed from the request body (with the base URL, served model and
    /// template version): the runtime changes no body, hence no key.
    #[cfg(feature = "client")]
    #[test]
    fn runtime_changes_no_request_body_or_cache_key() {
        let plain = LlmOptions { model: Some("m".into()), base_url: Some("http://h/v1".into()), ..LlmOptions::default() };
        let spans = vec!["fewer exacerbations".to_owned()];
        let rows = [crate::RowInput { source: "abstract", summary: "summary", evidence: Some(&spans) }];
        for p in [Protocol::FullText, Protocol::Pipeline] {
            let a = crate::request_bodies(p, &plain, &rows).unwrap();
            let b = crate::request_bodies(p, &tuned(), &rows).unwrap();
            assert!(!a.is_empty());
            assert_eq!(a, b);
            let key = |v: &serde_json::Value| crate::cache::request_key("http://h/v1", &serde_json::json!({"id": "m"}), "t", v);
            assert_eq!(a.iter().map(key).collect::<Vec<_>>(), b.iter().map(key).collect::<Vec<_>>());
        }
    }

    #[test]
    fn client_options_are_validated_by_field_name() {
        assert!(ClientOptions::default().validate().is_ok());
        let msg = |c: ClientOptions| c.validate().unwrap_err().to_string();
        let d = ClientOptions::default;
        assert!(msg(ClientOptions { concurrency: 0, ..d() }).contains("`llm.runtime.client.concurrency` must be at least 1"));
        assert!(msg(ClientOptions { concurrency: MAX_CONCURRENCY + 1, ..d() }).contains("`llm.runtime.client.concurrency` must be at most"));
        assert!(msg(ClientOptions { timeout_s: 0.0, ..d() }).contains("`llm.runtime.client.timeout_s` must be a positive number of seconds"));
        assert!(msg(ClientOptions { connect_timeout_s: -1.0, ..d() }).contains("`llm.runtime.client.connect_timeout_s`"));
        assert!(msg(ClientOptions { timeout_s: f64::INFINITY, ..d() }).contains("`llm.runtime.client.timeout_s`"));
        assert!(msg(ClientOptions { backoff_min_s: -0.5, ..d() }).contains("`llm.runtime.client.backoff_min_s` must be a non-negative"));
        assert!(msg(ClientOptions { retry_after_max_s: 1e30, ..d() }).contains("`llm.runtime.client.retry_after_max_s`"));
        assert!(ClientOptions { backoff_min_s: 0.0, ..d() }.validate().is_ok());
        let m = msg(ClientOptions { concurrency: 0, ..d() });
        assert!(!m.contains("--"), "library messages name fields, not flags: {m}");
    }
}
