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
use crate::options::{LlmOptions, PromptVariant, Protocol, Sampling, DEFAULT_RATIONALE_MAX};
use crate::parse::{parse_free_text, parse_json, parse_rating_only, Parsed, Scale};
use crate::requests::{spans_of, Bodies, Prompts, RowInput, Shape};
use crate::structured::StructuredOutput;
use crate::templates::{Element, Messages, Templates};
use crate::weighted::{weighted, RatingAt, Weighted};

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
    /// Requests planned so far: the distinct requests of every batch handed to the evaluator
    /// (those done are `requests`); the denominator of the live progress.
    pub planned: u64,
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
    /// Distinct requests that failed (or were not sent) and were not answered later in the
    /// run: the ones a re-run sends again. `failed` counts every failed attempt to get an
    /// answer, so a request failing in two batches counts twice there, once here.
    pub failed_distinct: u64,
    /// Pipeline stage-2 rating requests that could not be formed because an extraction they
    /// quote failed (distinct: per pair of extraction requests and element, per results
    /// extraction and span). A re-run sends them after their extractions; their number is
    /// exact unless two extraction replies turn out identical (then one request serves both).
    pub waiting_on_failed: u64,
    /// The first few failures, as messages.
    pub first_failures: Vec<String>,
    /// Replies (sent or cached) without logprobs although `llm.logprobs` asked for them:
    /// their weighted columns are nulls.
    pub replies_without_logprobs: u64,
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

/// What a re-run would send: failed request keys not answered since, stage-2 requests that
/// waited on a failed extraction and were not formed since.
#[derive(Debug, Default)]
struct Pending {
    failed: std::collections::HashSet<String>,
    waiting: std::collections::HashSet<String>,
    formed: std::collections::HashSet<String>,
}

/// A job: one chat request.
#[derive(Debug, Clone)]
pub(crate) struct Job {
    pub(crate) key: String,
    pub(crate) body: Value,
}

/// A rating prompt's jobs: one per sample.
type Jobs = Vec<Job>;

/// A row's stage-2 jobs (per element, per span); `None` where the stage-1 request failed.
type Stage2 = (Vec<Option<Jobs>>, Vec<Option<Jobs>>);

/// A request's outcome.
#[derive(Debug, Clone)]
pub(crate) enum Outcome {
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
    pub(crate) client: Client,
    pub(crate) cache: Option<Cache>,
    served: ServedModel,
    structured: StructuredUse,
    pub(crate) runtime: tokio::runtime::Runtime,
    stats: Mutex<RunStats>,
    pending: Mutex<Pending>,
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
        options.validate()?;
        let rationale_max = options.rationale_max_chars.unwrap_or(DEFAULT_RATIONALE_MAX);
        options.runtime.prices()?;
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
            pending: Mutex::new(Pending::default()),
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
            shape: Shape::of(&self.options),
        }
    }

    fn prompts(&self) -> Prompts {
        Prompts::new(self.options.prompt)
    }

    fn jobs(&self, bodies: Vec<Value>) -> Jobs {
        bodies.into_iter().map(|b| self.job(b)).collect()
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
            if self.options.prompt != PromptVariant::RatingOnly {
                o.insert("max_tokens".into(), json!(256));
            }
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
            "prompt": self.options.prompt,
            "rationale_first": self.options.rationale_first,
            "logprobs": self.options.logprobs.then_some(crate::options::TOP_LOGPROBS),
            "samples": self.options.sample_count(),
            "api_key_env": self.options.api_key_env,
            "api_key_sent": self.client.has_key(),
            "cache": self.cache.is_some(),
        })
    }

    /// The token prices of `llm.runtime` (validated when the evaluator was built).
    pub fn prices(&self) -> Option<crate::options::Prices> {
        self.options.runtime.prices().ok().flatten()
    }

    /// Totals of the requests so far.
    pub fn stats(&self) -> RunStats {
        let mut s = self.stats.lock().map(|g| g.clone()).unwrap_or_default();
        let t = self.client.traffic();
        s.attempts = t.attempts - self.traffic_at_start.attempts;
        s.retries = t.retries - self.traffic_at_start.retries;
        let p = self.pending.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        s.failed_distinct = p.failed.len() as u64;
        s.waiting_on_failed = p.waiting.difference(&p.formed).count() as u64;
        s
    }

    fn with_pending(&self, f: impl FnOnce(&mut Pending)) {
        let mut g = self.pending.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        f(&mut g);
    }

    /// Records which stage-2 requests were formed and which wait on a failed extraction (a
    /// request is named by its stage-1 request keys and its element or span).
    fn note_stage2(&self, s1: &[[Option<Job>; 3]], s2: &[Stage2], spans: &[Option<Vec<&str>>], wanted: &[bool]) {
        let key = |j: &Option<Job>| j.as_ref().map_or("", |j| j.key.as_str()).to_owned();
        // one entry per sample: a re-run sends every sample of a prompt that could not be formed
        let n = self.options.sample_count();
        self.with_pending(|p| {
            for ((jobs, (el, ev)), sp) in s1.iter().zip(s2).zip(spans) {
                for ((e, j), _) in Element::ALL.iter().zip(el).zip(wanted).filter(|(_, &w)| w) {
                    for i in 0..n {
                        let id = format!("{}\u{0}{}\u{0}{}\u{0}{i}", key(&jobs[0]), key(&jobs[1]), e.name());
                        if j.is_some() { p.formed.insert(id) } else { p.waiting.insert(id) };
                    }
                }
                for (span, j) in sp.iter().flatten().zip(ev) {
                    for i in 0..n {
                        let id = format!("{}\u{0}span\u{0}{span}\u{0}{i}", key(&jobs[2]));
                        if j.is_some() { p.formed.insert(id) } else { p.waiting.insert(id) };
                    }
                }
            }
        });
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
        let pr = self.prompts();
        match self.protocol {
            Protocol::FullText => {
                let mut plan: Vec<(Vec<Option<Jobs>>, Vec<Jobs>)> = Vec::with_capacity(rows.len());
                for (r, sp) in rows.iter().zip(&spans) {
                    let el: Vec<Option<Jobs>> = Element::ALL
                        .iter()
                        .zip(&wanted)
                        .map(|(&e, &w)| w.then(|| self.jobs(b.ratings(&pr.full_text_pico(e, r.source, r.summary), Scale::PicoWithNa))))
                        .collect();
                    let ev: Vec<Jobs> =
                        sp.iter().flatten().map(|s| self.jobs(b.ratings(&pr.full_text_result(s, r.summary), Scale::Result))).collect();
                    plan.push((el, ev));
                }
                let all: Vec<&Job> = plan.iter().flat_map(|(a, e)| a.iter().flatten().chain(e).flatten()).collect();
                let out = self.execute(&all).await;
                plan.iter()
                    .zip(&spans)
                    .zip(warnings)
                    .map(|(((el, ev), sp), w)| {
                        let els: Vec<Option<Rated>> =
                            el.iter().map(|j| j.as_ref().map(|j| self.judge_all(&out, j, Scale::PicoWithNa))).collect();
                        let evs: Vec<Rated> = ev.iter().map(|j| self.judge_all(&out, j, Scale::Result)).collect();
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
                                Some(self.jobs(b.ratings(&pr.pipeline_pico(e, &a.content, &s.content), Scale::PicoWithNa)))
                            }
                            _ => None,
                        })
                        .collect();
                    let ev = sp
                        .iter()
                        .flatten()
                        .map(|span| match &res {
                            Some(Ok(x)) => Some(self.jobs(b.ratings(&pr.pipeline_result(span, &x.content), Scale::Result))),
                            _ => None,
                        })
                        .collect();
                    s2.push((el, ev));
                }
                self.note_stage2(&s1, &s2, &spans, &wanted);
                let all2: Vec<&Job> = s2.iter().flat_map(|(a, e)| a.iter().chain(e)).flatten().flatten().collect();
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
                                Some(j) => Some(self.judge_all(&out2, j, Scale::PicoWithNa)),
                                None => Some(Rated::upstream(upstream(&[0, 1]))),
                            })
                            .collect();
                        let evs = ev
                            .iter()
                            .map(|j| match j {
                                Some(j) => self.judge_all(&out2, j, Scale::Result),
                                None => Rated::upstream(upstream(&[2])),
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

    pub(crate) fn job(&self, body: Value) -> Job {
        Job { key: self.key(&body), body }
    }

    /// Runs the distinct jobs concurrently: cache first, then the server.
    pub(crate) async fn execute(&self, jobs: &[&Job]) -> HashMap<String, Outcome> {
        let mut unique: Vec<&Job> = Vec::with_capacity(jobs.len());
        let mut seen = std::collections::HashSet::new();
        for j in jobs {
            if seen.insert(j.key.as_str()) {
                unique.push(j);
            }
        }
        self.with_stats(|s| s.planned += unique.len() as u64);
        let futures = unique.iter().map(|j| async move { (j.key.clone(), self.fetch(j).await) });
        let results = futures_util::future::join_all(futures).await;
        results.into_iter().collect()
    }

    async fn fetch(&self, job: &Job) -> Outcome {
        if let Some(c) = &self.cache {
            match c.get(&job.key) {
                Ok(Some(reply)) => {
                    self.with_pending(|p| {
                        p.failed.remove(&job.key);
                    });
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
                self.with_pending(|p| {
                    p.failed.remove(&job.key);
                });
                self.with_stats(|s| {
                    s.requests += 1;
                    s.answered += 1;
                    s.prompt_tokens += reply.usage.prompt_tokens;
                    s.completion_tokens += reply.usage.completion_tokens;
                });
                Outcome::Answered { reply, cached: false }
            }
            Err(f) => {
                self.with_pending(|p| {
                    p.failed.insert(job.key.clone());
                });
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

    pub(crate) fn with_stats(&self, f: impl FnOnce(&mut RunStats)) {
        let mut g = self.stats.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        f(&mut g);
    }

    fn judge(&self, outcome: &Outcome, scale: Scale) -> Judged {
        match outcome {
            Outcome::Answered { reply, cached } => {
                let fr = reply.finish_reason.as_deref();
                let (parsed, at) = if self.options.prompt == PromptVariant::RatingOnly {
                    (parse_rating_only(&reply.content, scale, fr), RatingAt::First)
                } else if self.structured.used.json_replies() {
                    (parse_json(&reply.content, scale, fr), RatingAt::JsonKey)
                } else {
                    (parse_free_text(&reply.content, scale, fr), RatingAt::Label)
                };
                let w = self.options.logprobs.then(|| weighted(reply.logprobs.as_deref(), parsed.rating, scale, at));
                if self.options.logprobs && reply.logprobs.as_ref().is_none_or(Vec::is_empty) {
                    let mut first = false;
                    self.with_stats(|s| {
                        first = s.replies_without_logprobs == 0;
                        s.replies_without_logprobs += 1;
                    });
                    if first {
                        log::warn!(
                            "{}: the weighted columns are nulls (the sampled ratings are kept){}",
                            if *cached { "a reply from the cache has no logprobs (the server sent none when it was asked)" } else { "the server sent no logprobs although `llm.logprobs` asked for them" },
                            if *cached { "; to ask again, use another `llm.runtime.cache` or `llm.runtime.no_cache`" } else { "" }
                        );
                    }
                }
                Judged { parsed: Some(parsed), reply: Some(reply.clone()), cached: *cached, failure: None, upstream: false, weighted: w }
            }
            Outcome::Failed(f) => {
                Judged { parsed: None, reply: None, cached: false, failure: Some(f.to_string()), upstream: false, weighted: None }
            }
        }
    }

    /// Judges every sample of one rating prompt.
    fn judge_all(&self, out: &HashMap<String, Outcome>, jobs: &[Job], scale: Scale) -> Rated {
        Rated { samples: jobs.iter().map(|j| self.judge(&out[&j.key], scale)).collect(), logprobs: self.options.logprobs }
    }

    fn assemble(
        &self,
        elements: Vec<Option<Rated>>,
        spans: Option<&[&str]>,
        evidence: Vec<Rated>,
        extraction: Option<Value>,
        warnings: Vec<String>,
    ) -> RowResult {
        let cols = self.protocol.columns();
        let wcols = self.protocol.weighted_columns();
        let mut out = RowResult { warnings, ..RowResult::default() };
        let set = |out: &mut RowResult, col: &str, v: std::result::Result<f64, String>| match v {
            Ok(v) => {
                out.scores.insert(col.to_owned(), Some(v));
            }
            Err(r) => {
                out.scores.insert(col.to_owned(), None);
                out.nulls.insert(col.to_owned(), r);
            }
        };
        let not_requested = "not requested (`llm.elements`)".to_owned();
        let no_logprobs = "not requested (`llm.logprobs`)".to_owned();
        let mut failed: Vec<String> = Vec::new();
        // readable values of P, I, C, O, R (sampled, weighted), and of P, I, O only (`_pio`)
        let (mut readable, mut readable_w): (Vec<f64>, Vec<f64>) = (Vec::new(), Vec::new());
        let (mut pio, mut pio_w, mut pio_failed): (Vec<f64>, Vec<f64>, Vec<&str>) = (Vec::new(), Vec::new(), Vec::new());
        let is_pio = |e: &Element| matches!(e, Element::Population | Element::Intervention | Element::Outcome);
        let mut el_detail = serde_json::Map::new();
        for (((e, j), col), wcol) in Element::ALL.iter().zip(&elements).zip(&cols).zip(&wcols) {
            let Some(j) = j else {
                set(&mut out, col, Err(not_requested.clone()));
                set(&mut out, wcol, Err(if self.options.logprobs { not_requested.clone() } else { no_logprobs.clone() }));
                continue;
            };
            let v = j.value();
            if let Ok(v) = v {
                readable.push(v);
                if is_pio(e) {
                    pio.push(v);
                }
            }
            if j.failed() {
                failed.push(e.name().to_owned());
                if is_pio(e) {
                    pio_failed.push(e.name());
                }
            }
            set(&mut out, col, v);
            let w = j.weighted_value();
            if let Ok(w) = w {
                readable_w.push(w);
                if is_pio(e) {
                    pio_w.push(w);
                }
            }
            set(&mut out, wcol, w);
            el_detail.insert(e.name().into(), j.detail());
        }
        // R: mean over the spans' readable ratings.
        let (ev_col, ev_wcol) = (&cols[4], &wcols[4]);
        let mut ev_detail = Vec::new();
        match spans {
            None if !self.options.wants_evidence() => {
                set(&mut out, ev_col, Err(not_requested.clone()));
                set(&mut out, ev_wcol, Err(if self.options.logprobs { not_requested.clone() } else { no_logprobs.clone() }));
            }
            None => {
                let why = "no evidence spans in this row (its input `evidence`)".to_owned();
                set(&mut out, ev_col, Err(why.clone()));
                set(&mut out, ev_wcol, Err(if self.options.logprobs { why } else { no_logprobs.clone() }));
            }
            Some(spans) => {
                let (mut vals, mut wvals) = (Vec::new(), Vec::new());
                let (mut reasons, mut wreasons) = (Vec::new(), Vec::new());
                let mut span_failed = false;
                for (span, j) in spans.iter().zip(&evidence) {
                    span_failed |= j.failed();
                    match j.value() {
                        Ok(v) => vals.push(v),
                        Err(r) => reasons.push(r),
                    }
                    match j.weighted_value() {
                        Ok(v) => wvals.push(v),
                        Err(r) => wreasons.push(r),
                    }
                    let mut d = j.detail();
                    if let Some(o) = d.as_object_mut() {
                        o.insert("span".into(), json!(span));
                    }
                    ev_detail.push(d);
                }
                let mean_of = |vals: &[f64], reasons: &[String]| -> std::result::Result<f64, String> {
                    if span_failed {
                        Err(format!("a span's request failed ({}); re-run to complete", reasons.first().cloned().unwrap_or_default()))
                    } else if vals.is_empty() {
                        Err(format!("no span rating could be read ({})", reasons.first().cloned().unwrap_or_default()))
                    } else {
                        Ok(vals.iter().sum::<f64>() / vals.len() as f64)
                    }
                };
                if span_failed {
                    failed.push("evidence".into());
                }
                let v = mean_of(&vals, &reasons);
                if let Ok(v) = v {
                    readable.push(v);
                }
                set(&mut out, ev_col, v);
                let w = if self.options.logprobs { mean_of(&wvals, &wreasons) } else { Err(no_logprobs.clone()) };
                if let Ok(w) = w {
                    readable_w.push(w);
                }
                set(&mut out, ev_wcol, w);
            }
        }
        let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
        // "incomplete:" marks a row that `factpico score --resume` scores again
        // (factpico::INCOMPLETE_PREFIX; the facade cannot be a dependency here).
        let avg = |vals: &[f64]| -> std::result::Result<f64, String> {
            if !failed.is_empty() {
                Err(format!("incomplete: request failed for {}; re-run to complete", failed.join(", ")))
            } else if vals.is_empty() {
                Err("no element rating could be read".into())
            } else {
                Ok(mean(vals))
            }
        };
        let pio_of = |vals: &[f64]| -> std::result::Result<f64, String> {
            if !pio_failed.is_empty() {
                Err(format!("incomplete: request failed for {}; re-run to complete", pio_failed.join(", ")))
            } else if vals.is_empty() {
                Err("no P, I or O rating could be read (or none was requested)".into())
            } else {
                Ok(mean(vals))
            }
        };
        set(&mut out, &cols[5], avg(&readable));
        set(&mut out, &cols[6], pio_of(&pio));
        if self.options.logprobs {
            set(&mut out, &wcols[5], avg(&readable_w));
            set(&mut out, &wcols[6], pio_of(&pio_w));
        } else {
            set(&mut out, &wcols[5], Err(no_logprobs.clone()));
            set(&mut out, &wcols[6], Err(no_logprobs));
        }
        let all: Vec<&Rated> = elements.iter().flatten().chain(&evidence).collect();
        out.failed_requests = u32::try_from(all.iter().map(|j| j.failed_requests()).sum::<usize>()).unwrap_or(u32::MAX);
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

/// One rating request's judgement (one sample).
#[derive(Debug, Clone)]
struct Judged {
    parsed: Option<Parsed>,
    reply: Option<Reply>,
    cached: bool,
    failure: Option<String>,
    /// Not asked because its stage-1 request failed (counted there).
    upstream: bool,
    /// The probability-weighted rating (`None`: logprobs not requested).
    weighted: Option<Weighted>,
}

impl Judged {
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

    /// The weighted value, or the null reason (a failed request's reason when it failed).
    fn weighted_value(&self) -> std::result::Result<f64, String> {
        if self.failure.is_some() {
            return self.value();
        }
        match &self.weighted {
            Some(Weighted { score: Some(v), .. }) => Ok(*v),
            Some(Weighted { null_reason: Some(r), .. }) => Err(r.clone()),
            _ => Err("not requested (`llm.logprobs`)".into()),
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
                if let Some(o) = d.as_object_mut() {
                    if let Some(f) = &r.system_fingerprint {
                        o.insert("system_fingerprint".into(), json!(f));
                    }
                    if let Some(w) = &self.weighted {
                        o.insert("weighted".into(), json!(w));
                    }
                }
                d
            }
            _ => json!({ "error": self.failure }),
        }
    }
}

/// The judgements of one rating prompt: one per sample (one unless `llm.samples` > 1).
#[derive(Debug, Clone)]
struct Rated {
    samples: Vec<Judged>,
    logprobs: bool,
}

impl Rated {
    fn upstream(reason: String) -> Self {
        let j = Judged { parsed: None, reply: None, cached: false, failure: Some(reason), upstream: true, weighted: None };
        Self { samples: vec![j], logprobs: false }
    }

    /// Whether a request failed (here or upstream): the row is incomplete.
    fn failed(&self) -> bool {
        self.samples.iter().any(|j| j.failure.is_some())
    }

    /// Failed requests of this prompt (not counting upstream failures).
    fn failed_requests(&self) -> usize {
        self.samples.iter().filter(|j| j.failure.is_some() && !j.upstream).count()
    }

    /// Mean over the readable samples; a failed sample makes it a null (re-run to complete).
    /// With several samples, N/A (prompt rating 5) in at least half of the samples that gave
    /// a rating makes the element N/A (a null, as one sample's 5 is); otherwise the N/A
    /// samples are left out of the mean.
    fn value(&self) -> std::result::Result<f64, String> {
        if let Some(reason) = self.mostly_na() {
            return Err(reason);
        }
        self.mean(Judged::value)
    }

    /// The N/A null of several samples, when N/A holds at least half of the ratings read.
    fn mostly_na(&self) -> Option<String> {
        if self.samples.len() < 2 || self.failed() {
            return None;
        }
        let rated: Vec<u8> = self.samples.iter().filter_map(|j| j.parsed.as_ref().and_then(|p| p.rating)).collect();
        let na = rated.iter().filter(|&&r| r == 5).count();
        (na > 0 && 2 * na >= rated.len()).then(|| {
            format!("N/A: {na} of the {} samples that gave a rating rated the element not applicable (rating 5)", rated.len())
        })
    }

    fn weighted_value(&self) -> std::result::Result<f64, String> {
        if !self.logprobs && !self.failed() {
            return Err("not requested (`llm.logprobs`)".into());
        }
        if let Some(reason) = self.mostly_na() {
            return Err(reason);
        }
        self.mean(Judged::weighted_value)
    }

    /// Mean of `f` over the samples: the first failed sample's reason when one failed, else
    /// the mean of the readable ones, else the first sample's null reason.
    fn mean(&self, f: fn(&Judged) -> std::result::Result<f64, String>) -> std::result::Result<f64, String> {
        if let Some(j) = self.samples.iter().find(|j| j.failure.is_some()) {
            return f(j);
        }
        let (ok, errs): (Vec<_>, Vec<_>) = self.samples.iter().map(f).partition(std::result::Result::is_ok);
        let ok: Vec<f64> = ok.into_iter().flatten().collect();
        if ok.is_empty() {
            return Err(errs.into_iter().find_map(std::result::Result::err).unwrap_or_else(|| "no reply".into()));
        }
        Ok(ok.iter().sum::<f64>() / ok.len() as f64)
    }

    fn detail(&self) -> Value {
        if self.samples.len() == 1 {
            return self.samples[0].detail();
        }
        // several samples: majority prompt rating (ties toward the higher prompt rating, i.e.
        // the lower human score), population standard deviation of the readable human scores
        let mut counts: BTreeMap<u8, usize> = BTreeMap::new();
        let mut scores = Vec::new();
        for j in &self.samples {
            if let Some(p) = &j.parsed {
                if let Some(r) = p.rating {
                    *counts.entry(r).or_default() += 1;
                }
                if let Some(v) = p.score {
                    scores.push(v);
                }
            }
        }
        let majority = counts.iter().max_by_key(|(r, n)| (**n, **r)).map(|(r, _)| *r);
        let spread = (!scores.is_empty()).then(|| {
            let m = scores.iter().sum::<f64>() / scores.len() as f64;
            (scores.iter().map(|v| (v - m).powi(2)).sum::<f64>() / scores.len() as f64).sqrt()
        });
        let ratings: Vec<String> = self
            .samples
            .iter()
            .map(|j| j.parsed.as_ref().and_then(|p| p.rating).map_or_else(|| "none".to_owned(), |r| r.to_string()))
            .collect();
        let summary = format!(
            "{} samples: prompt ratings {}; majority {}; spread {}",
            self.samples.len(),
            ratings.join(", "),
            majority.map_or_else(|| "none".to_owned(), |r| r.to_string()),
            spread.map_or_else(|| "none".to_owned(), |s| format!("{s:.3}"))
        );
        // "rating", "rationale" and "reply" stay null: no single reply stands for the samples
        // (each sample's are under "samples"); "score" is the column's value.
        json!({
            "rating": null,
            "score": self.value().ok(),
            "null_reason": self.value().err(),
            "rationale": null,
            "reply": null,
            "summary": summary,
            "cached": self.samples.iter().all(|j| j.cached),
            "weighted_score": self.weighted_value().ok(),
            "majority": majority,
            "majority_score": majority.and_then(|r| Scale::PicoWithNa.to_human(r)),
            "spread": spread,
            "readable": scores.len(),
            "samples": self.samples.iter().map(Judged::detail).collect::<Vec<_>>(),
        })
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
pub(crate) fn run_blocking<F: std::future::Future + Send>(rt: &tokio::runtime::Runtime, f: F) -> F::Output
where
    F::Output: Send,
{
    if tokio::runtime::Handle::try_current().is_ok() {
        std::thread::scope(|s| s.spawn(|| rt.block_on(f)).join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
    } else {
        rt.block_on(f)
    }
}

