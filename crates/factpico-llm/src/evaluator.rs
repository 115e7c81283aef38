//! The two FactPICO LLM evaluators over rows of (abstract, summary, optional evidence spans).
//!
//! * [`Protocol::FullText`] (`llm`): per element P, I, C, O, the abstract and the summary in
//!   one prompt (`llm_gen.py`); per gold result span, the span and the summary
//!   (`result_gen.py`).
//! * [`Protocol::Pipeline`] (`llm_pipeline`): stage 1 quotes the PICO elements of the abstract
//!   and of the summary (`pico_extract.py: pico_extract`), and the result spans of the summary
//!   (`res_extract.py: res_extract`, only for rows with spans); stage 2 rates each element over
//!   the two extractions and each gold span against the summary's extracted results.
//!
//! Columns (`<prefix>` = `llm` or `llm_pipeline`), on FactPICO's human scale (4 accurate … 1
//! missing; see [`crate::parse`]):
//!
//! | column | value | documented nulls |
//! |---|---|---|
//! | `<prefix>_population`, `_intervention`, `_comparator`, `_outcome` | the element's rating | N/A (rating 5); unparseable reply (raw text kept); request failed |
//! | `<prefix>_evidence` | mean over the row's spans of the readable span ratings | no spans in the row; no span rating readable; a span request failed |
//! | `<prefix>_avg` | mean of the readable P, I, C, O and `_evidence` ("Avg. PICO-R") | no element readable; a request failed (re-run to complete) |
//! | `<prefix>_pio` | mean of the readable P, I and O (the elements Shaib et al. 2023 rate; compare with their `avg_pio`) | none of P, I, O readable or requested; a P, I or O request failed (re-run to complete) |

use std::collections::{BTreeMap, HashMap};
use std::sync::Mutex;

use serde::Serialize;
use serde_json::{json, Value};

use crate::cache::{request_key, Cache};
use crate::client::{ApiKey, Client, Reply, RequestError, RequestFailure, ServedModel, Traffic};
use crate::error::{Error, Result};
use crate::options::{LlmOptions, Protocol, Sampling, DEFAULT_RATIONALE_MAX};
use crate::parse::{parse_free_text, parse_json, Parsed, Scale};
use crate::requests::{spans_of, Bodies, RowInput};
use crate::structured::StructuredOutput;
use crate::templates::{Element, Messages, Templates};

/// One row's result.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RowResult {
    /// Column → value (`None` = documented null, reason in `nulls`).
    pub scores: BTreeMap<String, Option<f64>>,
    /// Column → why it is null.
    pub nulls: BTreeMap<String, String>,
    /// Per element: raw reply, parsed rating, rationale; pipeline extractions; requests.
    pub detail: Value,
    /// Remarks (skipped empty spans, ...).
    pub warnings: Vec<String>,
    /// Requests of this row that failed (after retries) or were not sent.
    pub failed_requests: u32,
}

/// Totals of the requests an evaluator made, over its lifetime.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct RunStats {
    /// Distinct requests needed (after de-duplication within each batch).
    pub requests: u64,
    /// Answered from the cache.
    pub cached: u64,
    /// Sent and answered.
    pub answered: u64,
    /// Failed after their retries, or not sent because the server was gone.
    pub failed: u64,
    /// HTTP attempts, retries included.
    pub attempts: u64,
    /// Retries.
    pub retries: u64,
    /// Prompt tokens of the sent requests.
    pub prompt_tokens: u64,
    /// Completion tokens of the sent requests.
    pub completion_tokens: u64,
    /// Prompt tokens of the cached replies (as the server reported them then).
    pub cached_prompt_tokens: u64,
    /// Completion tokens of the cached replies.
    pub cached_completion_tokens: u64,
    /// Replies that could not be stored in the cache.
    pub cache_write_errors: u64,
    /// The first few failures, as messages.
    pub first_failures: Vec<String>,
}

/// Whether the structured-output mode asked for is the one used.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StructuredUse {
    /// The mode asked for.
    pub requested: StructuredOutput,
    /// The mode used.
    pub used: StructuredOutput,
    /// Why it fell back (the probe's answer), if it did.
    pub fallback: Option<String>,
}

/// A job: one chat request.
#[derive(Debug, Clone)]
struct Job {
    key: String,
    body: Value,
}

/// A row's stage-2 jobs (per element, per span); `None` where the stage-1 request failed.
type Stage2 = (Vec<Option<Job>>, Vec<Option<Job>>);

/// A request's outcome.
#[derive(Debug, Clone)]
enum Outcome {
    Answered { reply: Reply, cached: bool },
    Failed(RequestFailure),
}

/// One FactPICO LLM evaluator bound to a server, a model and a cache.
pub struct Evaluator {
    protocol: Protocol,
    templates: &'static Templates,
    options: LlmOptions,
    sampling: Sampling,
    rationale_max: usize,
    client: Client,
    cache: Option<Cache>,
    served: ServedModel,
    structured: StructuredUse,
    runtime: tokio::runtime::Runtime,
    stats: Mutex<RunStats>,
    traffic_at_start: Traffic,
    /// The base URL in the cache keys: the client's, or "" with a declared served model.
    key_base: String,
    /// Whether requests can be sent (false: a declared served model and no base URL).
    sendable: bool,
    /// While a batch file is exported: the requests missing from the cache, collected
    /// instead of sent ([`crate::batch`]).
    collect: Mutex<Option<Vec<(String, Value)>>>,
}

/// The client's URL when none is given (a declared served model): never contacted.
const NO_URL: &str = "http://no-base-url.invalid/v1";

impl std::fmt::Debug for Evaluator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Evaluator")
            .field("protocol", &self.protocol)
            .field("base_url", &self.client.base_url())
            .field("served", &self.served.id)
            .finish_non_exhaustive()
    }
}

fn required<'a>(v: &'a Option<String>, field: &str) -> Result<&'a str> {
    v.as_deref().filter(|s| !s.trim().is_empty()).ok_or_else(|| {
        Error::Options(format!("{field} is required for the LLM metrics (e.g. `llm.base_url` http://127.0.0.1:8080/v1, `llm.model` my-model)"))
    })
}

impl Evaluator {
    /// Connects to the server (asks it which model it serves), opens the cache and checks that
    /// the server accepts the structured-output mode (one small probe request, cached; an HTTP
    /// 400/404/415/422/501 answer falls back to `off`, recorded in the provenance).
    ///
    /// # Errors
    /// [`Error::Options`] (no base URL or model), [`Error::MissingApiKey`], [`Error::Unreachable`]
    /// (server down: reported at once, nothing retried), [`Error::Unauthorized`],
    /// [`Error::ModelNotServed`], [`Error::CacheCorrupt`], [`Error::Cache`], [`Error::Runtime`].
    pub fn try_new(protocol: Protocol, options: &LlmOptions) -> Result<Self> {
        let declared = options.served_model.as_deref().map(str::trim).filter(|s| !s.is_empty());
        let base_url = match declared {
            Some(_) if options.base_url.as_deref().is_none_or(|u| u.trim().is_empty()) => None,
            _ => Some(required(&options.base_url, "`llm.base_url`")?),
        };
        let model = required(&options.model, "`llm.model`")?;
        let key = match &options.api_key_env {
            Some(name) if !name.trim().is_empty() => Some(ApiKey::from_env(name.trim())?),
            _ => None,
        };
        let rationale_max = options.rationale_max_chars.unwrap_or(DEFAULT_RATIONALE_MAX);
        if rationale_max == 0 {
            return Err(Error::Options("`llm.rationale_max_chars` must be at least 1".into()));
        }
        let client = Client::new(base_url.unwrap_or(NO_URL), model, key, options.runtime.client.clone())?;
        let cache = options.runtime.cache_file().map(|p| Cache::open(&p)).transpose()?;
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("factpico-llm")
            .enable_all()
            .build()
            .map_err(Error::Runtime)?;
        let served = match declared {
            // Declared: not asked, and keyed without the base URL (see `LlmOptions::served_model`).
            Some(name) => ServedModel { id: name.to_owned(), identity: json!({"id": name, "declared": true}), llama_cpp: false, note: None },
            None => run_blocking(&runtime, client.served_model())?,
        };
        let key_base = if declared.is_some() { String::new() } else { client.base_url().to_owned() };
        if let Some(note) = &served.note {
            log::warn!("{note}");
        }
        let sampling = Sampling::resolve(options);
        let templates = Templates::factpico();
        let mut this = Self {
            protocol,
            templates,
            options: options.clone(),
            sampling,
            rationale_max,
            traffic_at_start: client.traffic(),
            client,
            cache,
            served,
            structured: StructuredUse { requested: options.structured_output, used: options.structured_output, fallback: None },
            runtime,
            stats: Mutex::new(RunStats::default()),
            key_base,
            sendable: base_url.is_some(),
            collect: Mutex::new(None),
        };
        // A declared served model is not probed either: the constraint asked for is used.
        if options.structured_output != StructuredOutput::Off && declared.is_none() {
            if let Some(why) = this.probe()? {
                log::warn!(
                    "the server does not accept structured output {} ({why}); falling back to free text (`llm.structured_output` off)",
                    options.structured_output
                );
                this.structured.used = StructuredOutput::Off;
                this.structured.fallback = Some(why);
            }
        }
        Ok(this)
    }

    fn bodies(&self) -> Bodies<'_> {
        Bodies {
            model: self.client.model(),
            sampling: &self.sampling,
            structured: self.structured.used,
            rationale_max: self.rationale_max,
        }
    }

    fn key(&self, body: &Value) -> String {
        request_key(&self.key_base, &self.served.identity, self.templates.version(), body)
    }

    /// The requests a run over `rows` would send now — distinct, not answered in the cache —
    /// as (cache key, body), and the rows' results without them; nothing is sent. The
    /// pipeline's rating requests (stage 2) are among them only for rows whose extraction
    /// answers are all in the cache. Not for use while the evaluator scores elsewhere.
    pub(crate) fn missing(&self, rows: &[RowInput<'_>]) -> (Vec<(String, Value)>, Vec<RowResult>) {
        *self.collect.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = Some(Vec::new());
        let results = self.evaluate(rows);
        let got = self.collect.lock().unwrap_or_else(std::sync::PoisonError::into_inner).take().unwrap_or_default();
        (got, results)
    }

    /// The cache, when one is used.
    pub(crate) fn cache(&self) -> Option<&Cache> {
        self.cache.as_ref()
    }

    /// The base URL in the cache keys ("" with a declared served model).
    pub(crate) fn key_base(&self) -> &str {
        &self.key_base
    }

    /// Sends one small request with the structured-output constraint. `Some(reason)` when the
    /// server rejects it. The verdict is cached like a reply.
    fn probe(&self) -> Result<Option<String>> {
        let m = Messages { system: "Rate the summary between 1 to 4.".into(), user: "Summary:\nA probe.\n".into() };
        let bodies = Bodies { rationale_max: 8, ..self.bodies() };
        let mut body = bodies.rating(&m, Scale::Result);
        if let Some(o) = body.as_object_mut() {
            o.insert("max_tokens".into(), json!(256));
        }
        let key = format!("probe:{}", self.key(&body));
        if let Some(c) = &self.cache {
            if let Some(verdict) = c.get_probe(&key)? {
                return Ok((!verdict.is_empty()).then_some(verdict));
            }
        }
        let verdict = run_blocking(&self.runtime, async {
            match self.client.probe(&body).await {
                Ok(()) => Ok(None),
                Err((status, message)) if matches!(status, 400 | 404 | 415 | 422 | 501) => {
                    Ok(Some(format!("probe answered HTTP {status}: {message}")))
                }
                Err((401 | 403, message)) => Err(Error::Unauthorized { url: self.client.base_url().to_owned(), status: 401, message }),
                Err((status, message)) => {
                    log::warn!("structured-output probe inconclusive (HTTP {status}: {message}); keeping {}", self.structured.requested);
                    Ok(None)
                }
            }
        })?;
        if let Some(c) = &self.cache {
            c.put_probe(&key, verdict.as_deref().unwrap_or(""))?;
        }
        Ok(verdict)
    }

    /// The protocol.
    pub fn protocol(&self) -> Protocol {
        self.protocol
    }

    /// The served model as the server reported it.
    pub fn served_model(&self) -> &ServedModel {
        &self.served
    }

    /// The structured-output mode asked for and used.
    pub fn structured_output(&self) -> &StructuredUse {
        &self.structured
    }

    /// The cache file, when a cache is used.
    pub fn cache_path(&self) -> Option<&std::path::Path> {
        self.cache.as_ref().map(Cache::path)
    }

    /// Provenance: server (normalised base URL, requested model, served identity), templates,
    /// structured output (requested / used / fallback), sampling, rationale bound, whether a key
    /// was sent (the variable's name, never its value), whether a cache was used.
    pub fn provenance(&self) -> Value {
        let (source, commit) = self.templates.source();
        json!({
            "protocol": self.protocol,
            "reference": format!("{source} @ {commit}, code/llm_evaluations/"),
            "templates": self.templates.version(),
            "base_url": self.sendable.then(|| self.client.base_url()),
            "model": self.client.model(),
            "served_model": self.served.identity,
            "structured_output": self.structured,
            "sampling": self.sampling,
            "rationale_max_chars": self.rationale_max,
            "api_key_env": self.options.api_key_env,
            "api_key_sent": self.client.has_key(),
            "cache": self.cache.is_some(),
        })
    }

    /// Totals of the requests so far.
    pub fn stats(&self) -> RunStats {
        let mut s = self.stats.lock().map(|g| g.clone()).unwrap_or_default();
        let t = self.client.traffic();
        s.attempts = t.attempts - self.traffic_at_start.attempts;
        s.retries = t.retries - self.traffic_at_start.retries;
        s
    }

    /// Scores rows; one result per row, in order. Requests run concurrently (bounded by the
    /// client's concurrency); identical requests within the call are sent once.
    pub fn evaluate(&self, rows: &[RowInput<'_>]) -> Vec<RowResult> {
        run_blocking(&self.runtime, self.evaluate_async(rows))
    }

    async fn evaluate_async(&self, rows: &[RowInput<'_>]) -> Vec<RowResult> {
        let mut warnings: Vec<Vec<String>> = vec![Vec::new(); rows.len()];
        let want_r = self.options.wants_evidence();
        let spans: Vec<Option<Vec<&str>>> =
            rows.iter().zip(warnings.iter_mut()).map(|(r, w)| if want_r { spans_of(r, w) } else { None }).collect();
        let wanted: Vec<bool> = Element::ALL.iter().map(|&e| self.options.wants(e)).collect();
        let any_pico = wanted.iter().any(|&w| w);
        let b = self.bodies();
        let t = self.templates;
        match self.protocol {
            Protocol::FullText => {
                let mut plan: Vec<(Vec<Option<Job>>, Vec<Job>)> = Vec::with_capacity(rows.len());
                for (r, sp) in rows.iter().zip(&spans) {
                    let el: Vec<Option<Job>> = Element::ALL
                        .iter()
                        .zip(&wanted)
                        .map(|(&e, &w)| w.then(|| self.job(b.rating(&t.full_text_pico(e, r.source, r.summary), Scale::PicoWithNa))))
                        .collect();
                    let ev: Vec<Job> = sp
                        .iter()
                        .flatten()
                        .map(|s| self.job(b.rating(&t.full_text_result(s, r.summary), Scale::Result)))
                        .collect();
                    plan.push((el, ev));
                }
                let all: Vec<&Job> = plan.iter().flat_map(|(a, e)| a.iter().flatten().chain(e)).collect();
                let out = self.execute(&all).await;
                plan.iter()
                    .zip(&spans)
                    .zip(warnings)
                    .map(|(((el, ev), sp), w)| {
                        let els: Vec<Option<Judged>> =
                            el.iter().map(|j| j.as_ref().map(|j| self.judge(&out[&j.key], Scale::PicoWithNa))).collect();
                        let evs: Vec<Judged> = ev.iter().map(|j| self.judge(&out[&j.key], Scale::Result)).collect();
                        self.assemble(els, sp.as_deref(), evs, None, w)
                    })
                    .collect()
            }
            Protocol::Pipeline => {
                // stage 1
                let mut s1: Vec<[Option<Job>; 3]> = Vec::with_capacity(rows.len());
                for (r, sp) in rows.iter().zip(&spans) {
                    s1.push([
                        any_pico.then(|| self.job(b.extraction(&t.extract_pico(r.source)))),
                        any_pico.then(|| self.job(b.extraction(&t.extract_pico(r.summary)))),
                        sp.as_ref().map(|_| self.job(b.extraction(&t.extract_result(r.summary)))),
                    ]);
                }
                let all1: Vec<&Job> = s1.iter().flatten().flatten().collect();
                let out1 = self.execute(&all1).await;
                let text = |j: &Option<Job>| -> Option<std::result::Result<&Reply, String>> {
                    j.as_ref().map(|j| match &out1[&j.key] {
                        Outcome::Answered { reply, .. } => Ok(reply),
                        Outcome::Failed(f) => Err(f.to_string()),
                    })
                };
                // stage 2
                let mut s2: Vec<Stage2> = Vec::with_capacity(rows.len());
                for ((jobs, sp), _r) in s1.iter().zip(&spans).zip(rows) {
                    let (a, s, res) = (text(&jobs[0]), text(&jobs[1]), text(&jobs[2]));
                    let el = Element::ALL
                        .iter()
                        .zip(&wanted)
                        .map(|(&e, &w)| match (&a, &s) {
                            _ if !w => None,
                            (Some(Ok(a)), Some(Ok(s))) => {
                                Some(self.job(b.rating(&t.pipeline_pico(e, &a.content, &s.content), Scale::PicoWithNa)))
                            }
                            _ => None,
                        })
                        .collect();
                    let ev = sp
                        .iter()
                        .flatten()
                        .map(|span| match &res {
                            Some(Ok(x)) => Some(self.job(b.rating(&t.pipeline_result(span, &x.content), Scale::Result))),
                            _ => None,
                        })
                        .collect();
                    s2.push((el, ev));
                }
                let all2: Vec<&Job> = s2.iter().flat_map(|(a, e)| a.iter().chain(e)).flatten().collect();
                let out2 = self.execute(&all2).await;
                s1.iter()
                    .zip(&s2)
                    .zip(&spans)
                    .zip(warnings)
                    .zip(rows)
                    .map(|((((jobs, (el, ev)), sp), w), r)| {
                        let stage1: Vec<Option<&Outcome>> = jobs.iter().map(|j| j.as_ref().map(|j| &out1[&j.key])).collect();
                        let upstream = |which: &[usize]| -> String {
                            let failed: Vec<String> = which
                                .iter()
                                .filter_map(|&i| match stage1[i] {
                                    Some(Outcome::Failed(f)) => Some(f.to_string()),
                                    _ => None,
                                })
                                .collect();
                            format!("extraction request failed: {}", failed.join("; "))
                        };
                        let els = el
                            .iter()
                            .zip(&wanted)
                            .map(|(j, &w)| match j {
                                _ if !w => None,
                                Some(j) => Some(self.judge(&out2[&j.key], Scale::PicoWithNa)),
                                None => Some(Judged::upstream(upstream(&[0, 1]))),
                            })
                            .collect();
                        let evs = ev
                            .iter()
                            .map(|j| match j {
                                Some(j) => self.judge(&out2[&j.key], Scale::Result),
                                None => Judged::upstream(upstream(&[2])),
                            })
                            .collect();
                        let extraction = json!({
                            "abstract_pico": extraction_detail(stage1[0], r.source),
                            "summary_pico": extraction_detail(stage1[1], r.summary),
                            "summary_results": extraction_detail(stage1[2], r.summary),
                        });
                        self.assemble(els, sp.as_deref(), evs, Some(extraction), w)
                    })
                    .collect()
            }
        }
    }

    fn job(&self, body: Value) -> Job {
        Job { key: self.key(&body), body }
    }

    /// Runs the distinct jobs concurrently: cache first, then the server.
    async fn execute(&self, jobs: &[&Job]) -> HashMap<String, Outcome> {
        let mut unique: Vec<&Job> = Vec::with_capacity(jobs.len());
        let mut seen = std::collections::HashSet::new();
        for j in jobs {
            if seen.insert(j.key.as_str()) {
                unique.push(j);
            }
        }
        let futures = unique.iter().map(|j| async move { (j.key.clone(), self.fetch(j).await) });
        let results = futures_util::future::join_all(futures).await;
        results.into_iter().collect()
    }

    async fn fetch(&self, job: &Job) -> Outcome {
        if let Some(c) = &self.cache {
            match c.get(&job.key) {
                Ok(Some(reply)) => {
                    self.with_stats(|s| {
                        s.requests += 1;
                        s.cached += 1;
                        s.cached_prompt_tokens += reply.usage.prompt_tokens;
                        s.cached_completion_tokens += reply.usage.completion_tokens;
                    });
                    return Outcome::Answered { reply, cached: true };
                }
                Ok(None) => {}
                Err(e) => log::warn!("{e}; sending the request"),
            }
        }
        if let Some(exported) = self.collect.lock().unwrap_or_else(std::sync::PoisonError::into_inner).as_mut() {
            exported.push((job.key.clone(), job.body.clone()));
            return Outcome::Failed(RequestFailure { error: RequestError::NotSent("exported to a batch file".into()), attempts: 0 });
        }
        let sent = if self.sendable {
            self.client.chat(&job.body).await
        } else {
            let why = "the answer is not in the cache and there is no `llm.base_url` to send the request to (a declared `llm.served_model`): give `llm.base_url`, or export it with `factpico llm batch export`";
            Err(RequestFailure { error: RequestError::NotSent(why.into()), attempts: 0 })
        };
        match sent {
            Ok(reply) => {
                if let Some(c) = &self.cache {
                    if let Err(e) = c.put(&job.key, self.client.base_url(), &self.served.id, &job.body, &reply) {
                        log::warn!("{e}");
                        self.with_stats(|s| s.cache_write_errors += 1);
                    }
                }
                self.with_stats(|s| {
                    s.requests += 1;
                    s.answered += 1;
                    s.prompt_tokens += reply.usage.prompt_tokens;
                    s.completion_tokens += reply.usage.completion_tokens;
                });
                Outcome::Answered { reply, cached: false }
            }
            Err(f) => {
                self.with_stats(|s| {
                    s.requests += 1;
                    s.failed += 1;
                    if s.first_failures.len() < 5 {
                        s.first_failures.push(f.to_string());
                    }
                });
                Outcome::Failed(f)
            }
        }
    }

    fn with_stats(&self, f: impl FnOnce(&mut RunStats)) {
        let mut g = self.stats.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        f(&mut g);
    }

    fn judge(&self, outcome: &Outcome, scale: Scale) -> Judged {
        match outcome {
            Outcome::Answered { reply, cached } => {
                let fr = reply.finish_reason.as_deref();
                let parsed = if self.structured.used.json_replies() {
                    parse_json(&reply.content, scale, fr)
                } else {
                    parse_free_text(&reply.content, scale, fr)
                };
                Judged { parsed: Some(parsed), reply: Some(reply.clone()), cached: *cached, failure: None, upstream: false }
            }
            Outcome::Failed(f) => Judged { parsed: None, reply: None, cached: false, failure: Some(f.to_string()), upstream: false },
        }
    }

    fn assemble(
        &self,
        elements: Vec<Option<Judged>>,
        spans: Option<&[&str]>,
        evidence: Vec<Judged>,
        extraction: Option<Value>,
        warnings: Vec<String>,
    ) -> RowResult {
        let cols = self.protocol.columns();
        let mut out = RowResult { warnings, ..RowResult::default() };
        let mut failed: Vec<String> = Vec::new();
        let mut readable: Vec<f64> = Vec::new();
        // P, I and O only (no comparator, no evidence): the `_pio` column.
        let (mut pio, mut pio_failed): (Vec<f64>, Vec<&str>) = (Vec::new(), Vec::new());
        let is_pio = |e: &Element| matches!(e, Element::Population | Element::Intervention | Element::Outcome);
        let mut el_detail = serde_json::Map::new();
        for ((e, j), col) in Element::ALL.iter().zip(&elements).zip(&cols) {
            let Some(j) = j else {
                out.scores.insert(col.clone(), None);
                out.nulls.insert(col.clone(), "not requested (`llm.elements`)".into());
                continue;
            };
            match j.value() {
                Ok(v) => {
                    out.scores.insert(col.clone(), Some(v));
                    readable.push(v);
                    if is_pio(e) {
                        pio.push(v);
                    }
                }
                Err(reason) => {
                    if j.failure.is_some() {
                        failed.push(e.name().to_owned());
                        if is_pio(e) {
                            pio_failed.push(e.name());
                        }
                    }
                    out.scores.insert(col.clone(), None);
                    out.nulls.insert(col.clone(), reason);
                }
            }
            el_detail.insert(e.name().into(), j.detail());
        }
        // R: mean over the spans' readable ratings.
        let ev_col = &cols[4];
        let mut ev_detail = Vec::new();
        match spans {
            None if !self.options.wants_evidence() => {
                out.scores.insert(ev_col.clone(), None);
                out.nulls.insert(ev_col.clone(), "not requested (`llm.elements`)".into());
            }
            None => {
                out.scores.insert(ev_col.clone(), None);
                out.nulls.insert(ev_col.clone(), "no evidence spans in this row (its input `evidence`)".into());
            }
            Some(spans) => {
                let mut vals = Vec::new();
                let mut reasons = Vec::new();
                let mut span_failed = false;
                for (span, j) in spans.iter().zip(&evidence) {
                    match j.value() {
                        Ok(v) => vals.push(v),
                        Err(r) => {
                            span_failed |= j.failure.is_some();
                            reasons.push(r);
                        }
                    }
                    let mut d = j.detail();
                    if let Some(o) = d.as_object_mut() {
                        o.insert("span".into(), json!(span));
                    }
                    ev_detail.push(d);
                }
                if span_failed {
                    failed.push("evidence".into());
                    out.scores.insert(ev_col.clone(), None);
                    out.nulls.insert(
                        ev_col.clone(),
                        format!("a span's request failed ({}); re-run to complete", reasons.first().cloned().unwrap_or_default()),
                    );
                } else if vals.is_empty() {
                    out.scores.insert(ev_col.clone(), None);
                    out.nulls.insert(
                        ev_col.clone(),
                        format!("no span rating could be read ({})", reasons.first().cloned().unwrap_or_default()),
                    );
                } else {
                    let m = vals.iter().sum::<f64>() / vals.len() as f64;
                    out.scores.insert(ev_col.clone(), Some(m));
                    readable.push(m);
                }
            }
        }
        let avg_col = &cols[5];
        if !failed.is_empty() {
            out.scores.insert(avg_col.clone(), None);
            // "incomplete:" marks a row that `factpico score --resume` scores again
            // (factpico::INCOMPLETE_PREFIX; the facade cannot be a dependency here).
            out.nulls.insert(avg_col.clone(), format!("incomplete: request failed for {}; re-run to complete", failed.join(", ")));
        } else if readable.is_empty() {
            out.scores.insert(avg_col.clone(), None);
            out.nulls.insert(avg_col.clone(), "no element rating could be read".into());
        } else {
            out.scores.insert(avg_col.clone(), Some(readable.iter().sum::<f64>() / readable.len() as f64));
        }
        let pio_col = &cols[6];
        if !pio_failed.is_empty() {
            out.scores.insert(pio_col.clone(), None);
            out.nulls.insert(pio_col.clone(), format!("incomplete: request failed for {}; re-run to complete", pio_failed.join(", ")));
        } else if pio.is_empty() {
            out.scores.insert(pio_col.clone(), None);
            out.nulls.insert(pio_col.clone(), "no P, I or O rating could be read (or none was requested)".into());
        } else {
            out.scores.insert(pio_col.clone(), Some(pio.iter().sum::<f64>() / pio.len() as f64));
        }
        let all: Vec<&Judged> = elements.iter().flatten().chain(&evidence).collect();
        out.failed_requests = u32::try_from(all.iter().filter(|j| j.failure.is_some() && !j.upstream).count()).unwrap_or(u32::MAX);
        let mut detail = json!({
            "protocol": self.protocol,
            "structured_output": self.structured.used,
            "elements": el_detail,
            "evidence": ev_detail,
        });
        if let (Some(x), Some(o)) = (extraction, detail.as_object_mut()) {
            let stage1_failed = ["abstract_pico", "summary_pico", "summary_results"]
                .iter()
                .filter(|k| x[**k].get("error").is_some())
                .count();
            out.failed_requests += u32::try_from(stage1_failed).unwrap_or(0);
            o.insert("extraction".into(), x);
        }
        out.detail = detail;
        out
    }
}

/// One rating request's judgement.
#[derive(Debug, Clone)]
struct Judged {
    parsed: Option<Parsed>,
    reply: Option<Reply>,
    cached: bool,
    failure: Option<String>,
    /// Not asked because its stage-1 request failed (counted there).
    upstream: bool,
}

impl Judged {
    fn upstream(reason: String) -> Self {
        Self { parsed: None, reply: None, cached: false, failure: Some(reason), upstream: true }
    }

    /// The human-scale value, or the null reason.
    fn value(&self) -> std::result::Result<f64, String> {
        if let Some(f) = &self.failure {
            return Err(if self.upstream { f.clone() } else { format!("request failed: {f}; re-run to retry (answered requests come from the cache)") });
        }
        match &self.parsed {
            Some(Parsed { score: Some(v), .. }) => Ok(*v),
            Some(Parsed { null_reason: Some(r), .. }) => Err(r.clone()),
            _ => Err("no reply".into()),
        }
    }

    fn detail(&self) -> Value {
        match (&self.reply, &self.parsed) {
            (Some(r), Some(p)) => {
                let mut d = json!({
                    "rating": p.rating,
                    "score": p.score,
                    "rationale": p.rationale,
                    "null_reason": p.null_reason,
                    "reply": r.content,
                    "finish_reason": r.finish_reason,
                    "cached": self.cached,
                    "usage": r.usage,
                });
                if let (Some(f), Some(o)) = (&r.system_fingerprint, d.as_object_mut()) {
                    o.insert("system_fingerprint".into(), json!(f));
                }
                d
            }
            _ => json!({ "error": self.failure }),
        }
    }
}

fn extraction_detail(o: Option<&Outcome>, text: &str) -> Value {
    match o {
        None => Value::Null,
        Some(Outcome::Answered { reply, cached }) => json!({
            "reply": reply.content,
            "finish_reason": reply.finish_reason,
            "cached": cached,
            "usage": reply.usage,
            "quotes": crate::explain::quotes(&reply.content, text)
                .into_iter()
                .map(|(q, span)| json!({"text": q, "span": span.map(|(a, b)| [a, b])}))
                .collect::<Vec<_>>(),
        }),
        Some(Outcome::Failed(f)) => json!({ "error": f.to_string() }),
    }
}

/// Runs a future to completion on `rt`, also when called from inside another tokio runtime
/// (then on a scoped helper thread, since a runtime cannot block inside another).
fn run_blocking<F: std::future::Future + Send>(rt: &tokio::runtime::Runtime, f: F) -> F::Output
where
    F::Output: Send,
{
    if tokio::runtime::Handle::try_current().is_ok() {
        std::thread::scope(|s| s.spawn(|| rt.block_on(f)).join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
    } else {
        rt.block_on(f)
    }
}

