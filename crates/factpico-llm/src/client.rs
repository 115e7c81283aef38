//! An OpenAI-compatible chat-completions client for thousands of requests: bounded
//! concurrency, retries with exponential backoff and full jitter on HTTP 408/429/5xx, timeouts
//! and transport errors (honouring `Retry-After`), a per-request timeout, token accounting,
//! the served model's identity, and an API key that never leaves the `Authorization` header.
//!
//! Built on `reqwest` (HTTP, rustls) + `tokio` (async) + `backon` (retry policy).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use backon::{ExponentialBuilder, Retryable};
use serde::{Deserialize, Serialize};
use tokio::sync::Semaphore;

use crate::error::{Error, Result};
use crate::options::ClientOptions;

/// An API key. Its `Debug` and `Display` print `[redacted]`; it is only ever written into the
/// `Authorization` header (marked sensitive).
#[derive(Clone)]
pub struct ApiKey(String);

impl ApiKey {
    /// Reads the key from the environment variable `name`.
    ///
    /// # Errors
    /// [`Error::MissingApiKey`] when the variable is unset or empty.
    pub fn from_env(name: &str) -> Result<Self> {
        match std::env::var(name) {
            Ok(v) if !v.trim().is_empty() => Ok(Self(v.trim().to_owned())),
            _ => Err(Error::MissingApiKey { name: name.to_owned() }),
        }
    }
}

impl std::fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ApiKey([redacted])")
    }
}

/// Replaces every occurrence of `key` in `text` with `[redacted]` (and bounds the length of
/// server messages quoted in errors to 300 characters).
pub fn redact(text: &str, key: Option<&ApiKey>) -> String {
    let mut s = match key {
        Some(k) if !k.0.is_empty() => text.replace(&k.0, "[redacted]"),
        _ => text.to_owned(),
    };
    if s.chars().count() > 300 {
        s = s.chars().take(300).collect::<String>() + "…";
    }
    s
}

/// Token counts as the server reports them (`usage`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    /// Prompt tokens.
    pub prompt_tokens: u64,
    /// Completion tokens.
    pub completion_tokens: u64,
}

/// One successful chat completion.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Reply {
    /// `choices[0].message.content` (empty when the server sent none).
    pub content: String,
    /// `choices[0].finish_reason` (`stop`, `length`, ...).
    pub finish_reason: Option<String>,
    /// Token usage.
    pub usage: Usage,
    /// The `model` field of the reply, as the server names it.
    pub model: Option<String>,
    /// Server-side processing time in ms, when the server reports it (llama.cpp's
    /// `timings.prompt_ms + timings.predicted_ms`); measures the client's own overhead.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_ms: Option<f64>,
    /// The reply's `system_fingerprint`, when the server sends one (OpenAI: the backend
    /// configuration; llama.cpp: its build). Temperature 0 alone does not make replies
    /// reproducible across runs (batching, slots, prompt-cache reuse); this records what the
    /// server says it was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_fingerprint: Option<String>,
    /// Per generated token, its log-probability and the most probable alternatives
    /// (`choices[0].logprobs.content`), when the request asked for `logprobs` and the server
    /// sent them (OpenAI, vLLM, llama.cpp). `None`: not sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logprobs: Option<Vec<TokenLogprob>>,
}

/// One generated token's log-probability (natural log) and its top alternatives, as the
/// OpenAI chat-completions `logprobs.content[i]` carries them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TokenLogprob {
    /// The token's text.
    pub token: String,
    /// Its log-probability (≤ 0).
    pub logprob: f64,
    /// The most probable tokens at this position, `(text, log-probability)`, most probable
    /// first (the server's `top_logprobs`; the sampled token is usually among them).
    #[serde(default)]
    pub top: Vec<(String, f64)>,
}

/// Why a request failed (after its retries, where retryable).
#[derive(Debug, Clone, PartialEq)]
pub enum RequestError {
    /// An HTTP error status, with the server's message (API key redacted).
    Status {
        /// The status code.
        status: u16,
        /// The server's message.
        message: String,
        /// The `Retry-After` delay the server asked for.
        retry_after: Option<Duration>,
    },
    /// No reply within the per-request timeout.
    Timeout(Duration),
    /// The connection could not be made (server down, refused).
    Connect(String),
    /// Any other transport error (reset, broken reply body).
    Transport(String),
    /// HTTP 200 whose body is not a chat completion.
    Malformed(String),
    /// A reply body over the `max_reply_bytes` cap (bytes): not read further, not retried.
    TooLarge(u64),
    /// Not sent: an earlier request found the server gone, or the credentials refused.
    NotSent(String),
}

impl RequestError {
    fn retryable(&self) -> bool {
        match self {
            Self::Status { status, .. } => matches!(status, 408 | 429 | 500..=599),
            Self::Timeout(_) | Self::Connect(_) | Self::Transport(_) | Self::Malformed(_) => true,
            Self::NotSent(_) | Self::TooLarge(_) => false,
        }
    }

    /// Counts toward the early stop ([`ClientOptions::stop_after_failures`]): the server
    /// failing (5xx, timeouts, transport), not rate limiting it asked for (429).
    fn counts_toward_stop(&self) -> bool {
        match self {
            Self::Status { status, .. } => (500..=599).contains(status) || *status == 408,
            Self::Timeout(_) | Self::Connect(_) | Self::Transport(_) => true,
            Self::Malformed(_) | Self::NotSent(_) | Self::TooLarge(_) => false,
        }
    }
}

impl std::fmt::Display for RequestError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Status { status, message, .. } => write!(f, "HTTP {status}: {message}"),
            Self::Timeout(d) => write!(f, "no reply within the {:.0} s timeout (`llm.runtime.client.timeout_s`)", d.as_secs_f64()),
            Self::Connect(m) => write!(f, "cannot connect: {m}"),
            Self::Transport(m) => write!(f, "transport error: {m}"),
            Self::Malformed(m) => write!(f, "malformed reply: {m}"),
            Self::NotSent(m) => write!(f, "not sent: {m}"),
            Self::TooLarge(limit) => write!(
                f,
                "reply larger than {limit} bytes (`llm.runtime.client.max_reply_bytes`): the server may be ignoring max_tokens; nothing of it was kept"
            ),
        }
    }
}

/// A request that failed for good: the last error and how many attempts were made.
#[derive(Debug, Clone, PartialEq)]
pub struct RequestFailure {
    /// The last error.
    pub error: RequestError,
    /// Attempts made (0 when not sent).
    pub attempts: u32,
}

impl std::fmt::Display for RequestFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.attempts {
            0 => write!(f, "{}", self.error),
            1 => write!(f, "{} (1 attempt)", self.error),
            n => write!(f, "{} ({n} attempts)", self.error),
        }
    }
}

/// The model the server actually serves, as it reports it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ServedModel {
    /// The served model's id (llama.cpp: the alias or GGUF path).
    pub id: String,
    /// The server's `/models` entry without volatile fields (`created`): enters the cache key.
    pub identity: serde_json::Value,
    /// Whether the server is llama.cpp's (`owned_by: llamacpp`), which ignores the request's
    /// `model` field.
    pub llama_cpp: bool,
    /// A remark (model not listed, name ignored by the server, ...).
    pub note: Option<String>,
}

/// Counters of one client (all requests since it was built).
#[derive(Debug, Default)]
struct Counters {
    attempts: AtomicU64,
    succeeded: AtomicU64,
    failed: AtomicU64,
    retries: AtomicU64,
    /// Requests in a row (completion order) that failed on the server's side; reset by a success.
    failures_in_a_row: AtomicU64,
    prompt_tokens: AtomicU64,
    completion_tokens: AtomicU64,
}

/// Totals of a client's traffic.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Traffic {
    /// HTTP attempts made (first tries and retries).
    pub attempts: u64,
    /// Requests answered.
    pub succeeded: u64,
    /// Requests failed after their retries (or not sent).
    pub failed: u64,
    /// Retries made.
    pub retries: u64,
    /// Prompt tokens of the answered requests.
    pub prompt_tokens: u64,
    /// Completion tokens of the answered requests.
    pub completion_tokens: u64,
}

/// The chat-completions client.
#[derive(Debug)]
pub struct Client {
    http: reqwest::Client,
    base_url: String,
    model: String,
    key: Option<ApiKey>,
    options: ClientOptions,
    permits: Arc<Semaphore>,
    /// Set when the server is gone (a request exhausted its retries on connection errors) or
    /// refused our credentials: later requests are not sent.
    stop: Mutex<Option<String>>,
    counters: Counters,
}

/// Normalises a base URL: trims, drops a trailing `/`, drops `user:password@`, and appends
/// `/v1` when the URL has no path (the OpenAI clients' convention is a base URL ending in `/v1`).
///
/// # Errors
/// [`Error::Options`] for a URL that is not `http://` or `https://`.
pub fn normalize_base_url(url: &str) -> Result<String> {
    let u = url.trim().trim_end_matches('/');
    // Errors show the URL without credentials.
    let shown = crate::redact_url(u);
    let (scheme, rest) = u
        .split_once("://")
        .filter(|(s, _)| *s == "http" || *s == "https")
        .ok_or_else(|| Error::Options(format!("`llm.base_url` {shown:?} must start with http:// or https:// (e.g. http://127.0.0.1:8080/v1)")))?;
    let (authority, path) = match rest.find('/') {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, ""),
    };
    let host = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    if host.is_empty() {
        return Err(Error::Options(format!("`llm.base_url` {shown:?} has no host")));
    }
    let path = if path.is_empty() { "/v1" } else { path };
    Ok(format!("{scheme}://{host}{path}"))
}

impl Client {
    /// Builds a client for `base_url` (see [`normalize_base_url`]) and `model`.
    ///
    /// # Errors
    /// [`Error::Options`] for a bad URL or bad transport options ([`ClientOptions::validate`]), [`Error::Http`] when the HTTP
    /// client cannot be built.
    pub fn new(base_url: &str, model: &str, key: Option<ApiKey>, options: ClientOptions) -> Result<Self> {
        options.validate()?;
        if model.trim().is_empty() {
            return Err(Error::Options("`llm.model` is empty".into()));
        }
        let http = reqwest::Client::builder()
            .connect_timeout(Duration::from_secs_f64(options.connect_timeout_s))
            .pool_max_idle_per_host(options.concurrency)
            .user_agent(concat!("factpico/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(Error::Http)?;
        Ok(Self {
            http,
            base_url: normalize_base_url(base_url)?,
            model: model.to_owned(),
            key,
            permits: Arc::new(Semaphore::new(options.concurrency)),
            options,
            stop: Mutex::new(None),
            counters: Counters::default(),
        })
    }

    /// The normalised base URL (no credentials).
    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    /// The model name sent in requests.
    pub fn model(&self) -> &str {
        &self.model
    }

    /// Whether an API key is sent.
    pub fn has_key(&self) -> bool {
        self.key.is_some()
    }

    /// The transport options.
    pub fn options(&self) -> &ClientOptions {
        &self.options
    }

    /// Totals since the client was built.
    pub fn traffic(&self) -> Traffic {
        let c = &self.counters;
        Traffic {
            attempts: c.attempts.load(Ordering::Relaxed),
            succeeded: c.succeeded.load(Ordering::Relaxed),
            failed: c.failed.load(Ordering::Relaxed),
            retries: c.retries.load(Ordering::Relaxed),
            prompt_tokens: c.prompt_tokens.load(Ordering::Relaxed),
            completion_tokens: c.completion_tokens.load(Ordering::Relaxed),
        }
    }

    fn request(&self, method: reqwest::Method, path: &str) -> reqwest::RequestBuilder {
        let mut r = self.http.request(method, format!("{}{path}", self.base_url));
        if let Some(k) = &self.key {
            r = r.bearer_auth(&k.0);
        }
        r
    }

    fn redact(&self, s: &str) -> String {
        redact(s, self.key.as_ref())
    }

    /// Asks the server which model it serves (`GET <base>/models`). A server that is down
    /// (connection refused, no answer) is reported at once; a server that answers HTTP 503
    /// (llama.cpp and vLLM while they load the model), 502, 504 or 429 is asked again with
    /// exponential backoff (`backoff_min_s` doubling up to 10 s, `Retry-After` honoured) until
    /// the per-request timeout (`timeout_s`) has passed since the first ask.
    ///
    /// The entry whose `id` (or llama.cpp `aliases`) equals the requested model is chosen; a
    /// server listing exactly one model serves that one whatever the request names (llama.cpp
    /// ignores the `model` field). A server without `/models` (HTTP 404) is identified by the
    /// requested name, with a note.
    ///
    /// # Errors
    /// [`Error::Unreachable`], [`Error::Unauthorized`], [`Error::ModelNotServed`],
    /// [`Error::Protocol`].
    pub async fn served_model(&self) -> Result<ServedModel> {
        let url = format!("{}/models", self.base_url);
        let timeout = Duration::from_secs_f64(self.options.timeout_s.min(30.0));
        let started = std::time::Instant::now();
        let patience = Duration::from_secs_f64(self.options.timeout_s.max(0.0));
        let mut pause = Duration::from_secs_f64(self.options.backoff_min_s.max(0.01));
        let mut attempts = 0u32;
        let (status, body) = loop {
            attempts += 1;
            let resp = self.request(reqwest::Method::GET, "/models").timeout(timeout).send().await.map_err(|e| {
                let reason = if e.is_timeout() {
                    format!("no answer within {:.0} s", timeout.as_secs_f64())
                } else if e.is_connect() {
                    format!("connection failed ({})", self.redact(&error_chain(&e)))
                } else {
                    self.redact(&error_chain(&e))
                };
                Error::Unreachable { url: url.clone(), reason, source: Some(e) }
            })?;
            let status = resp.status().as_u16();
            let retry_after = resp.headers().get(reqwest::header::RETRY_AFTER).and_then(|v| v.to_str().ok()).and_then(parse_retry_after);
            let body = resp.text().await.unwrap_or_default();
            // Not ready yet (loading the model) or rate-limited: wait while the patience lasts.
            let wait = retry_after.unwrap_or(pause);
            if matches!(status, 429 | 502 | 503 | 504) && started.elapsed() + wait <= patience {
                log::warn!(
                    "{url} answered HTTP {status} ({}); asking again in {:.1} s",
                    self.redact(&server_message(&body)),
                    wait.as_secs_f64()
                );
                tokio::time::sleep(wait).await;
                pause = (pause * 2).min(Duration::from_secs(10));
                continue;
            }
            break (status, body);
        };
        let after = if attempts > 1 { format!(" (after {attempts} asks over {:.0} s)", started.elapsed().as_secs_f64()) } else { String::new() };
        match status {
            200 => {}
            401 | 403 => return Err(Error::Unauthorized { url, status, message: self.redact(&server_message(&body)) }),
            404 | 405 | 501 => {
                return Ok(ServedModel {
                    id: self.model.clone(),
                    identity: serde_json::json!({ "id": self.model, "listed": false }),
                    llama_cpp: false,
                    note: Some(format!("the server has no model list (HTTP {status} from {url}); the cache is keyed by the requested model name")),
                })
            }
            _ => {
                return Err(Error::Protocol {
                    url,
                    what: format!("HTTP {status} to the model list{after}: {}", self.redact(&server_message(&body))),
                })
            }
        }
        let v: serde_json::Value = serde_json::from_str(&body)
            .map_err(|e| Error::Protocol { url: url.clone(), what: format!("a model list that is not JSON ({e})") })?;
        let data = v.get("data").and_then(|d| d.as_array()).cloned().unwrap_or_default();
        let id_of = |m: &serde_json::Value| m.get("id").and_then(|i| i.as_str()).unwrap_or("").to_owned();
        let aliases_of = |m: &serde_json::Value| -> Vec<String> {
            m.get("aliases").and_then(|a| a.as_array()).map(|a| a.iter().filter_map(|x| x.as_str().map(str::to_owned)).collect()).unwrap_or_default()
        };
        let chosen = data
            .iter()
            .find(|m| id_of(m) == self.model)
            .or_else(|| data.iter().find(|m| aliases_of(m).contains(&self.model)))
            .map(|m| (m, None))
            .or_else(|| match data.as_slice() {
                [only] => Some((
                    only,
                    Some(format!("the server serves {:?} whatever the request names (asked for {:?})", id_of(only), self.model)),
                )),
                _ => None,
            });
        let Some((entry, note)) = chosen else {
            if data.is_empty() {
                return Err(Error::Protocol { url, what: "an empty model list".into() });
            }
            let served: Vec<String> = data.iter().map(id_of).take(20).collect();
            return Err(Error::ModelNotServed { url, model: self.model.clone(), served: served.join(", ") });
        };
        Ok(ServedModel {
            id: id_of(entry),
            llama_cpp: entry.get("owned_by").and_then(|o| o.as_str()) == Some("llamacpp"),
            identity: served_identity(entry),
            note,
        })
    }

    /// Sends one chat-completions request (`POST <base>/chat/completions` with `body`),
    /// retrying as configured. At most `concurrency` requests are in flight; a request holds
    /// its slot through its backoff pauses, which slows the whole run down under rate limiting.
    ///
    /// # Errors
    /// The last [`RequestError`] after the retries, or [`RequestError::NotSent`] once the
    /// server has been found gone or has refused the credentials.
    pub async fn chat(&self, body: &serde_json::Value) -> std::result::Result<Reply, RequestFailure> {
        let not_sent = |m: String| RequestFailure { error: RequestError::NotSent(m), attempts: 0 };
        let Ok(_permit) = self.permits.acquire().await else {
            return Err(not_sent("the client was shut down".into()));
        };
        if let Some(why) = self.stopped() {
            self.counters.failed.fetch_add(1, Ordering::Relaxed);
            return Err(not_sent(why));
        }
        let attempts = AtomicU64::new(0);
        let policy = ExponentialBuilder::default()
            .with_min_delay(Duration::from_secs_f64(self.options.backoff_min_s.max(0.0)))
            .with_max_delay(Duration::from_secs_f64(self.options.backoff_max_s.max(self.options.backoff_min_s).max(0.0)))
            .with_factor(2.0)
            .with_max_times(self.options.retries as usize)
            .with_jitter();
        let cap = Duration::from_secs_f64(self.options.retry_after_max_s.max(0.0));
        let result = (|| async {
            attempts.fetch_add(1, Ordering::Relaxed);
            self.counters.attempts.fetch_add(1, Ordering::Relaxed);
            self.attempt(body).await
        })
        .retry(policy)
        .when(|e: &RequestError| e.retryable() && self.stopped().is_none())
        .adjust(move |e: &RequestError, dur: Option<Duration>| {
            // Retry-After replaces the computed backoff (capped); never revives an exhausted policy.
            dur.map(|d| match e {
                RequestError::Status { retry_after: Some(ra), .. } => (*ra).min(cap),
                _ => d,
            })
        })
        .notify(|e: &RequestError, d: Duration| {
            self.counters.retries.fetch_add(1, Ordering::Relaxed);
            log::warn!("LLM request failed ({e}); retrying in {:.1} s", d.as_secs_f64());
        })
        .await;
        let attempts = u32::try_from(attempts.load(Ordering::Relaxed)).unwrap_or(u32::MAX);
        match result {
            Ok(reply) => {
                self.counters.failures_in_a_row.store(0, Ordering::Relaxed);
                self.counters.succeeded.fetch_add(1, Ordering::Relaxed);
                self.counters.prompt_tokens.fetch_add(reply.usage.prompt_tokens, Ordering::Relaxed);
                self.counters.completion_tokens.fetch_add(reply.usage.completion_tokens, Ordering::Relaxed);
                Ok(reply)
            }
            Err(error) => {
                self.counters.failed.fetch_add(1, Ordering::Relaxed);
                match &error {
                    RequestError::Connect(m) => {
                        self.stop_with(format!("the server at {} stopped accepting connections ({m})", self.base_url));
                    }
                    RequestError::Status { status: 401 | 403, message, .. } => {
                        self.stop_with(format!("the server refused the credentials (HTTP 401/403: {message})"));
                    }
                    e if e.counts_toward_stop() => {
                        let in_a_row = self.counters.failures_in_a_row.fetch_add(1, Ordering::Relaxed) + 1;
                        let limit = u64::from(self.options.stop_after_failures);
                        if limit > 0 && in_a_row >= limit {
                            self.stop_with(format!(
                                "{in_a_row} requests in a row failed after their retries (last: {e}; `llm.runtime.client.stop_after_failures` is {limit})"
                            ));
                        }
                    }
                    _ => {}
                }
                Err(RequestFailure { error, attempts })
            }
        }
    }

    /// Sends `body` once (no retry, no accounting) to learn whether the server accepts it:
    /// `Ok(())` on HTTP 200, else the status (0 for a transport error) and the server's message.
    ///
    /// # Errors
    /// `(status, message)` as described.
    pub async fn probe(&self, body: &serde_json::Value) -> std::result::Result<(), (u16, String)> {
        let timeout = Duration::from_secs_f64(self.options.timeout_s);
        let resp = self
            .request(reqwest::Method::POST, "/chat/completions")
            .timeout(timeout)
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .body(crate::requests::wire_json(body))
            .send()
            .await
            .map_err(|e| (0, self.transport_error(&e, timeout).to_string()))?;
        let status = resp.status().as_u16();
        let text = resp.text().await.unwrap_or_default();
        if status == 200 {
            Ok(())
        } else {
            Err((status, self.redact(&server_message(&text))))
        }
    }

    /// Counts the tokens of `text` with the served model's own tokenizer, without special
    /// tokens: `POST <root>/tokenize`, the root being the base URL without its `/v1`. One body
    /// serves llama.cpp's server (`content`, `add_special`) and vLLM (`prompt`,
    /// `add_special_tokens`, `model`); both answer `{"tokens": [...]}`. One attempt, no
    /// accounting (not a chat request).
    ///
    /// # Errors
    /// A message: transport error, HTTP status with the server's message, or no `tokens` list
    /// (servers without the endpoint, such as OpenAI or Ollama).
    pub async fn count_tokens(&self, text: &str) -> std::result::Result<usize, String> {
        let root = self.base_url.strip_suffix("/v1").unwrap_or(&self.base_url);
        let timeout = Duration::from_secs_f64(self.options.timeout_s);
        let body = serde_json::json!({
            "content": text, "add_special": false,
            "prompt": text, "add_special_tokens": false, "model": self.model,
        });
        let mut r = self.http.post(format!("{root}/tokenize")).timeout(timeout).json(&body);
        if let Some(k) = &self.key {
            r = r.bearer_auth(&k.0);
        }
        let resp = r.send().await.map_err(|e| self.transport_error(&e, timeout).to_string())?;
        let status = resp.status().as_u16();
        let text = self.read_capped(resp, timeout).await.map_err(|e| e.to_string())?;
        if status != 200 {
            return Err(format!("{root}/tokenize answered HTTP {status}: {}", self.redact(&server_message(&text))));
        }
        let v: serde_json::Value = serde_json::from_str(&text).map_err(|e| format!("{root}/tokenize: the body is not JSON ({e})"))?;
        v.get("tokens")
            .and_then(serde_json::Value::as_array)
            .map(Vec::len)
            .ok_or_else(|| format!("{root}/tokenize: no `tokens` list in the answer"))
    }

    fn stopped(&self) -> Option<String> {
        self.stop.lock().map(|g| g.clone()).unwrap_or_else(|p| p.into_inner().clone())
    }

    fn stop_with(&self, why: String) {
        let mut g = self.stop.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if g.is_none() {
            log::error!("{why}: the remaining LLM requests are not sent");
            *g = Some(why);
        }
    }

    async fn attempt(&self, body: &serde_json::Value) -> std::result::Result<Reply, RequestError> {
        let timeout = Duration::from_secs_f64(self.options.timeout_s);
        let sent = self.request(reqwest::Method::POST, "/chat/completions").timeout(timeout).header(reqwest::header::CONTENT_TYPE, "application/json").body(crate::requests::wire_json(body)).send().await;
        let resp = sent.map_err(|e| self.transport_error(&e, timeout))?;
        let status = resp.status().as_u16();
        let retry_after = resp.headers().get(reqwest::header::RETRY_AFTER).and_then(|v| v.to_str().ok()).and_then(parse_retry_after);
        let text = self.read_capped(resp, timeout).await?;
        if status != 200 {
            return Err(RequestError::Status { status, message: self.redact(&server_message(&text)), retry_after });
        }
        parse_completion(&text).map_err(|m| RequestError::Malformed(self.redact(&m)))
    }

    /// The reply body as text, read chunk by chunk up to `max_reply_bytes` (a declared or
    /// actual length over the cap is [`RequestError::TooLarge`] without reading the rest).
    async fn read_capped(&self, mut resp: reqwest::Response, timeout: Duration) -> std::result::Result<String, RequestError> {
        let cap = self.options.max_reply_bytes;
        if resp.content_length().is_some_and(|n| n > cap) {
            return Err(RequestError::TooLarge(cap));
        }
        let mut body = Vec::new();
        while let Some(chunk) = resp.chunk().await.map_err(|e| self.transport_error(&e, timeout))? {
            if (body.len() + chunk.len()) as u64 > cap {
                return Err(RequestError::TooLarge(cap));
            }
            body.extend_from_slice(&chunk);
        }
        Ok(String::from_utf8_lossy(&body).into_owned())
    }

    fn transport_error(&self, e: &reqwest::Error, timeout: Duration) -> RequestError {
        if e.is_timeout() {
            RequestError::Timeout(timeout)
        } else if e.is_connect() {
            RequestError::Connect(self.redact(&error_chain(e)))
        } else {
            RequestError::Transport(self.redact(&error_chain(e)))
        }
    }
}

/// The cache identity of a served model: its `/models` entry without volatile fields
/// (`created`). llama.cpp names a model by the GGUF path it was started with (or an alias), so
/// for its entries (`owned_by: llamacpp`) the id is reduced to the file name and the aliases are
/// dropped; what identifies the weights is its `meta` (parameter count, file size, vocabulary,
/// training context, width), which it reports. The same GGUF started by a relative or an
/// absolute path, or from another folder, keeps its cache entries; another GGUF of another
/// shape does not share them.
pub fn served_identity(entry: &serde_json::Value) -> serde_json::Value {
    let mut identity = entry.clone();
    if let Some(o) = identity.as_object_mut() {
        o.remove("created");
        if o.get("owned_by").and_then(|v| v.as_str()) == Some("llamacpp") {
            o.remove("aliases");
            if let Some(serde_json::Value::String(id)) = o.get_mut("id") {
                let name = std::path::Path::new(id.as_str()).file_name().map(|n| n.to_string_lossy().into_owned());
                if let Some(name) = name {
                    *id = name;
                }
            }
        }
    }
    identity
}

/// An error and its sources, joined with `: `.
fn error_chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut cur = e.source();
    while let Some(c) = cur {
        let m = c.to_string();
        if !s.contains(&m) {
            s.push_str(": ");
            s.push_str(&m);
        }
        cur = c.source();
    }
    s
}

/// The `error.message` of an OpenAI-style error body, else the body itself (trimmed).
fn server_message(body: &str) -> String {
    serde_json::from_str::<serde_json::Value>(body)
        .ok()
        .and_then(|v| {
            v.pointer("/error/message").and_then(|m| m.as_str().map(str::to_owned)).or_else(|| v.get("error").and_then(|m| m.as_str().map(str::to_owned)))
        })
        .unwrap_or_else(|| body.trim().to_owned())
}

/// `Retry-After`: delay-seconds (integer or decimal) or an HTTP date.
pub fn parse_retry_after(v: &str) -> Option<Duration> {
    let v = v.trim();
    if let Ok(s) = v.parse::<f64>() {
        return (s.is_finite() && s >= 0.0).then(|| Duration::from_secs_f64(s));
    }
    let when = httpdate::parse_http_date(v).ok()?;
    Some(when.duration_since(SystemTime::now()).unwrap_or(Duration::ZERO))
}

/// Reads a chat-completion body.
pub(crate) fn parse_completion(text: &str) -> std::result::Result<Reply, String> {
    let v: serde_json::Value = serde_json::from_str(text).map_err(|e| format!("the body is not JSON ({e})"))?;
    if let Some(err) = v.get("error") {
        return Err(format!("HTTP 200 with an error: {err}"));
    }
    let choice = v.pointer("/choices/0").ok_or("no choices[0] in the reply")?;
    let content = match choice.pointer("/message/content") {
        Some(serde_json::Value::String(s)) => s.clone(),
        Some(serde_json::Value::Null) | None => String::new(),
        Some(other) => return Err(format!("choices[0].message.content is not a string: {other}")),
    };
    let n = |p: &str| v.pointer(p).and_then(serde_json::Value::as_u64).unwrap_or(0);
    Ok(Reply {
        content,
        finish_reason: choice.get("finish_reason").and_then(|f| f.as_str()).map(str::to_owned),
        usage: Usage { prompt_tokens: n("/usage/prompt_tokens"), completion_tokens: n("/usage/completion_tokens") },
        model: v.get("model").and_then(|m| m.as_str()).map(str::to_owned),
        server_ms: match (v.pointer("/timings/prompt_ms").and_then(serde_json::Value::as_f64), v.pointer("/timings/predicted_ms").and_then(serde_json::Value::as_f64)) {
            (Some(p), Some(g)) => Some(p + g),
            _ => None,
        },
        system_fingerprint: v.get("system_fingerprint").and_then(|f| f.as_str()).map(str::to_owned),
        logprobs: choice.pointer("/logprobs/content").and_then(serde_json::Value::as_array).map(|a| a.iter().filter_map(token_logprob).collect()),
    })
}

/// One entry of `logprobs.content` (entries without a token text or a finite log-probability
/// are dropped; such alternatives too).
fn token_logprob(v: &serde_json::Value) -> Option<TokenLogprob> {
    let pair = |v: &serde_json::Value| -> Option<(String, f64)> {
        let t = v.get("token")?.as_str()?;
        let lp = v.get("logprob")?.as_f64().filter(|x| x.is_finite() || *x == f64::NEG_INFINITY)?;
        Some((t.to_owned(), lp))
    };
    let (token, logprob) = pair(v)?;
    let top = v.get("top_logprobs").and_then(serde_json::Value::as_array).map(|a| a.iter().filter_map(pair).collect()).unwrap_or_default();
    Some(TokenLogprob { token, logprob, top })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn base_urls() {
        assert_eq!(normalize_base_url("http://127.0.0.1:8080").unwrap(), "http://127.0.0.1:8080/v1");
        assert_eq!(normalize_base_url(" https://api.openai.com/v1/ ").unwrap(), "https://api.openai.com/v1");
        assert_eq!(normalize_base_url("http://user:pw@host:1/v1").unwrap(), "http://host:1/v1");
        assert!(normalize_base_url("localhost:8080").is_err());
        // errors never show credentials
        for bad in ["ftp://user:sk-SECRET@host/v1", "http://user:sk-SECRET@/v1"] {
            let e = normalize_base_url(bad).unwrap_err().to_string();
            assert!(!e.contains("sk-SECRET") && !e.contains("user:"), "{e}");
        }
    }

    #[test]
    fn retry_after_forms() {
        assert_eq!(parse_retry_after("2"), Some(Duration::from_secs(2)));
        assert_eq!(parse_retry_after("0.5"), Some(Duration::from_millis(500)));
        assert_eq!(parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT"), Some(Duration::ZERO));
        assert_eq!(parse_retry_after("soon"), None);
    }

    #[test]
    fn key_is_redacted() {
        let k = ApiKey("sk-secret-123".into());
        assert_eq!(format!("{k:?}"), "ApiKey([redacted])");
        assert_eq!(redact("bad key sk-secret-123 given", Some(&k)), "bad key [redacted] given");
    }

    #[test]
    fn llama_cpp_identity_is_the_weights_not_the_start_path() {
        let entry = |id: &str, size: u64| {
            serde_json::json!({"id": id, "object": "model", "owned_by": "llamacpp", "created": 17,
                "aliases": [id], "meta": {"n_params": 1000, "size": size, "n_vocab": 259}})
        };
        let a = served_identity(&entry("/srv/models/qwen.gguf", 10));
        assert_eq!(a, served_identity(&entry("models/qwen.gguf", 10)), "relative vs absolute path");
        assert_eq!(a, served_identity(&entry("./qwen.gguf", 10)));
        assert_ne!(a, served_identity(&entry("/srv/models/qwen.gguf", 11)), "other weights");
        assert_ne!(a, served_identity(&entry("/srv/models/other.gguf", 10)), "another file name");
        assert!(a.get("created").is_none());
        // other servers keep their whole entry (minus `created`)
        let vllm = serde_json::json!({"id": "org/model", "owned_by": "vllm", "created": 1, "root": "/x/y"});
        assert_eq!(served_identity(&vllm), serde_json::json!({"id": "org/model", "owned_by": "vllm", "root": "/x/y"}));
    }

    #[test]
    fn completions() {
        let r = parse_completion(r#"{"choices":[{"message":{"content":"Rating: 1"},"finish_reason":"stop"}],"usage":{"prompt_tokens":5,"completion_tokens":3},"model":"m"}"#).unwrap();
        assert_eq!((r.content.as_str(), r.usage.prompt_tokens, r.finish_reason.as_deref()), ("Rating: 1", 5, Some("stop")));
        assert_eq!(r.system_fingerprint, None);
        let r = parse_completion(r#"{"choices":[{"message":{"content":"x"}}],"system_fingerprint":"b6000-abc"}"#).unwrap();
        assert_eq!(r.system_fingerprint.as_deref(), Some("b6000-abc"));
        assert!(parse_completion("<html>").unwrap_err().contains("not JSON"));
        assert!(parse_completion(r#"{"choices":[]}"#).unwrap_err().contains("choices[0]"));
        // logprobs: OpenAI's layout; no logprobs field → None
        let r = parse_completion(r#"{"choices":[{"message":{"content":"2"},"logprobs":{"content":[{"token":"2","logprob":-0.1,"bytes":[50],"top_logprobs":[{"token":"2","logprob":-0.1},{"token":" 3","logprob":-2.5},{"token":"x"}]}]}}]}"#).unwrap();
        let lp = r.logprobs.unwrap();
        assert_eq!(lp.len(), 1);
        assert_eq!((lp[0].token.as_str(), lp[0].logprob), ("2", -0.1));
        assert_eq!(lp[0].top, vec![("2".to_owned(), -0.1), (" 3".to_owned(), -2.5)]);
        assert_eq!(parse_completion(r#"{"choices":[{"message":{"content":"2"}}]}"#).unwrap().logprobs, None);
        assert!(parse_completion(r#"{"error":{"message":"x"}}"#).unwrap_err().contains("error"));
        assert_eq!(server_message(r#"{"error":{"code":500,"message":"boom"}}"#), "boom");
    }
}
