//! Unit `llm`: FactPICO's LLM evaluators over any OpenAI-compatible chat-completions server
//! (cargo feature `llm`; crate `factpico-llm`, docs/llm.md):
//!
//! * `llm` — full text: per element P, I, C, O, the abstract and the summary in one prompt
//!   (rating 1–5 with a rationale), and per gold evidence span R (rating 1–4);
//! * `llm_pipeline` — the two-stage PICO-R pipeline: quotes extracted from both texts, then rated.
//!
//! Columns on FactPICO's human scale (4 = accurate … 1 = missing; N/A a documented null). The
//! row's evidence spans are the side input `evidence` (`--evidence-field`). The registry
//! entries, options, flags and explanation are compiled into every build; the client (HTTP,
//! async runtime, SQLite cache) only with the feature.

use serde::Deserialize;

use super::MetricUnit;
use crate::explain::{ExplainBlock, Quote, Rating, Side, TextSpan};
use crate::metric::{ColumnInfo, Direction::HigherIsBetter as Hi, Metric, MetricInfo, RowInput};
use crate::session::RuntimeOptions;
use crate::Result;

pub use factpico_llm::{ClientOptions, Error as LlmError, LlmOptions, LlmRuntime, SamplingPreset, StructuredOutput, Target};
/// The evaluators' crate (its `Evaluator` and `batch` files, for `factpico llm batch`).
#[cfg(feature = "llm")]
pub use factpico_llm;

const REFERENCE: &str = "lilywchen/FactPICO 2e16993, code/llm_evaluations/ (llm_gen.py, result_gen.py; pico_extract.py, res_extract.py), prompts verbatim in crates/factpico-llm/templates/factpico.json";

/// The per-row side input of both metrics.
pub static EVIDENCE: RowInput = RowInput {
    name: "evidence",
    description: "gold result spans (Evidence Inference 2.0 style): a JSON list of strings; in CSV/TSV a cell holding a JSON list, or spans separated by `llm.evidence_separator` (default ||)",
};

macro_rules! llm_columns {
    ($p:literal, $what:literal) => {
        &[
            ColumnInfo::new(concat!($p, "_population"), concat!($what, "Population: 4 accurate, 3 vague or somewhat inaccurate, 2 inaccurate or missing critical descriptors, 1 missing (prompt's 1-4; its 5 = N/A is null)"), Hi).range(Some(1.0), Some(4.0)),
            ColumnInfo::new(concat!($p, "_intervention"), concat!($what, "Intervention, same scale"), Hi).range(Some(1.0), Some(4.0)),
            ColumnInfo::new(concat!($p, "_comparator"), concat!($what, "Comparator, same scale"), Hi).range(Some(1.0), Some(4.0)),
            ColumnInfo::new(concat!($p, "_outcome"), concat!($what, "Outcome, same scale"), Hi).range(Some(1.0), Some(4.0)),
            ColumnInfo::new(concat!($p, "_evidence"), concat!($what, "evidence inference (R): mean over the row's evidence spans of 4 accurate, 3 vague or slightly inaccurate, 2 critically inaccurate, 1 missing"), Hi).range(Some(1.0), Some(4.0)),
            ColumnInfo::new(concat!($p, "_avg"), concat!($what, "Avg. PICO-R: mean of the readable P, I, C, O and R"), Hi).range(Some(1.0), Some(4.0)).primary(),
            ColumnInfo::new(concat!($p, "_pio"), concat!($what, "mean of the readable P, I and O (the elements Shaib et al. 2023 rate; compare with their avg_pio)"), Hi).range(Some(1.0), Some(4.0)),
            ColumnInfo::new(concat!($p, "_population_weighted"), concat!($what, "Population, probability-weighted (llm.logprobs): expected rating over the rating token's digit probabilities, same scale; null when N/A is the most probable"), Hi).range(Some(1.0), Some(4.0)),
            ColumnInfo::new(concat!($p, "_intervention_weighted"), concat!($what, "Intervention, probability-weighted (llm.logprobs)"), Hi).range(Some(1.0), Some(4.0)),
            ColumnInfo::new(concat!($p, "_comparator_weighted"), concat!($what, "Comparator, probability-weighted (llm.logprobs)"), Hi).range(Some(1.0), Some(4.0)),
            ColumnInfo::new(concat!($p, "_outcome_weighted"), concat!($what, "Outcome, probability-weighted (llm.logprobs)"), Hi).range(Some(1.0), Some(4.0)),
            ColumnInfo::new(concat!($p, "_evidence_weighted"), concat!($what, "evidence inference (R), probability-weighted (llm.logprobs): mean over the spans"), Hi).range(Some(1.0), Some(4.0)),
            ColumnInfo::new(concat!($p, "_avg_weighted"), concat!($what, "Avg. PICO-R of the probability-weighted ratings (llm.logprobs)"), Hi).range(Some(1.0), Some(4.0)),
            ColumnInfo::new(concat!($p, "_pio_weighted"), concat!($what, "mean of the probability-weighted P, I and O (llm.logprobs)"), Hi).range(Some(1.0), Some(4.0)),
        ]
    };
}

/// `llm` (full text) registry entry.
pub static LLM: MetricInfo = MetricInfo::new(
    "llm",
    "FactPICO LLM evaluator over the full texts: per PICO element and per evidence span, the reference's prompts, ratings mapped to the human scale",
    REFERENCE,
    llm_columns!("llm", "full text: "),
)
.model("llm")
.aliases(&["llm_full_text", "llm-full-text"])
.inputs(&[EVIDENCE]);

/// `llm_pipeline` (extract-then-rate) registry entry.
pub static LLM_PIPELINE: MetricInfo = MetricInfo::new(
    "llm_pipeline",
    "FactPICO's two-stage PICO-R pipeline: PICO and result quotes extracted from both texts by the LLM, then rated; the reference's prompts, ratings mapped to the human scale",
    REFERENCE,
    llm_columns!("llm_pipeline", "pipeline: "),
)
.model("llm")
.aliases(&["llm-pipeline", "llm_pico_r"])
.inputs(&[EVIDENCE]);

/// `llm_minicheck` (Bespoke-MiniCheck as a claim checker) registry entry.
pub static LLM_MINICHECK: MetricInfo = MetricInfo::new(
    "llm_minicheck",
    "Bespoke-MiniCheck (or another model) as a claim checker over an OpenAI-compatible server: per summary sentence and abstract chunk, the reference's prompt, one token, P(yes) from the top-5 logprobs; min over sentences of the max over chunks",
    factpico_llm::minicheck::REFERENCE,
    &[
        ColumnInfo::new("llm_minicheck", "P(supported): min over the summary's sentences of the max over abstract chunks of the summed probability of the top-5 first-token alternatives whose lowercased text is \"yes\"", Hi)
            .range(Some(0.0), Some(1.0))
            .primary(),
        ColumnInfo::new("llm_minicheck_label", "1 iff llm_minicheck > 0.5 (every sentence supported), else 0", Hi).range(Some(0.0), Some(1.0)),
    ],
)
.model("llm")
.aliases(&["llm-minicheck", "bespoke_minicheck", "bespoke-minicheck"]);

/// The `llm` unit.
pub struct Llm;

impl MetricUnit for Llm {
    type Options = LlmOptions;
    const METRICS: &'static [&'static MetricInfo] = &[&LLM, &LLM_PIPELINE, &LLM_MINICHECK];
    const COMPILED_IN: bool = cfg!(feature = "llm");

    fn build(metric: &'static MetricInfo, options: &LlmOptions, runtime: &RuntimeOptions) -> Result<Box<dyn Metric>> {
        let _ = runtime;
        #[cfg(feature = "llm")]
        {
            imp::build(metric, options)
        }
        #[cfg(not(feature = "llm"))]
        {
            let _ = options;
            Err(super::feature_disabled(metric))
        }
    }

    /// Pipeline: the stage-1 extractions (with the quotes found in the texts); both: one
    /// [`Rating`] per element and per evidence span, with the rationale and the raw reply.
    fn explain(metric: &'static MetricInfo, detail: &serde_json::Value) -> Vec<ExplainBlock> {
        if metric.name == LLM_MINICHECK.name {
            return explain_minicheck(detail);
        }
        let Ok(d) = serde_json::from_value::<Detail>(detail.clone()) else {
            return crate::explain::generic(detail);
        };
        let mut blocks = Vec::new();
        if let Some(x) = &d.extraction {
            let mut ratings = Vec::new();
            for (label, side, e) in [
                ("PICO quoted from the abstract", Side::Source, &x.abstract_pico),
                ("PICO quoted from the summary", Side::Summary, &x.summary_pico),
                ("results quoted from the summary", Side::Summary, &x.summary_results),
            ] {
                let Some(e) = e else { continue };
                ratings.push(Rating {
                    element: label.to_owned(),
                    rating: None,
                    scale: None,
                    rationale: None,
                    raw: e.reply.clone(),
                    quotes: e
                        .quotes
                        .iter()
                        .map(|q| Quote { text: q.text.clone(), span: q.span.and_then(|[a, b]| TextSpan::new(side, a, b)) })
                        .collect(),
                    note: e.error.clone().map(|err| format!("request failed: {err}")),
                });
            }
            blocks.push(ExplainBlock::Ratings { title: "stage 1: extractions (quotes located in the texts where found)".into(), ratings });
        }
        let scale = |d: &Element| d.rating.map(|r| format!("human scale 1-4; prompt rating {r}"));
        let rate = |element: String, e: &Element| Rating {
            element,
            rating: e.score,
            scale: scale(e),
            rationale: e.rationale.clone(),
            raw: e.reply.clone(),
            quotes: Vec::new(),
            note: {
                let base = e
                    .null_reason
                    .clone()
                    .or_else(|| e.error.as_ref().map(|x| format!("request failed: {x}")))
                    .or_else(|| e.cached.then(|| "answer from the cache".to_owned()));
                let weighted = e
                    .weighted
                    .as_ref()
                    .and_then(|w| w.get("score").and_then(serde_json::Value::as_f64).map(|v| (v, w.get("mass").and_then(serde_json::Value::as_f64))))
                    .map(|(v, m)| format!("probability-weighted {v:.3}{}", m.map(|m| format!(" (digit mass {m:.3})")).unwrap_or_default()))
                    .or_else(|| e.weighted_score.map(|v| format!("probability-weighted mean {v:.3}")));
                let parts: Vec<String> = [e.summary.clone(), weighted, base].into_iter().flatten().collect();
                (!parts.is_empty()).then(|| parts.join("; "))
            },
        };
        let mut ratings: Vec<Rating> = ["population", "intervention", "comparator", "outcome"]
            .iter()
            .filter_map(|k| d.elements.get(*k).map(|e| rate((*k).to_owned(), e)))
            .collect();
        for (i, e) in d.evidence.iter().enumerate() {
            let mut r = rate(format!("evidence [{}]", i + 1), e);
            // the gold span is the row's input, not a quote the model made: shown as such (the
            // detail holds no position in the abstract, so none is claimed or denied)
            if let Some(span) = &e.span {
                let gold = format!("gold evidence span: \"{span}\"");
                r.note = Some(match r.note {
                    Some(n) => format!("{gold}; {n}"),
                    None => gold,
                });
            }
            ratings.push(r);
        }
        let title = if metric.name == LLM_PIPELINE.name {
            "stage 2: ratings over the extractions (4 accurate … 1 missing)"
        } else {
            "ratings over the full texts (4 accurate … 1 missing)"
        };
        blocks.push(ExplainBlock::Ratings { title: title.into(), ratings });
        blocks
    }

    /// Requests, estimated prompt tokens and the completion-token bound; nothing is sent.
    fn plan(metric: &'static MetricInfo, options: &LlmOptions, pairs: &[crate::Pair<'_>]) -> Option<Result<String>> {
        let prices = match options.runtime.prices() {
            Ok(p) => p,
            Err(e) => return Some(Err(crate::Error::init(metric.name, e))),
        };
        if metric.name == LLM_MINICHECK.name {
            return Some(Ok(plan_minicheck(options, pairs, prices.as_ref())));
        }
        let protocol = if metric.name == LLM_PIPELINE.name { factpico_llm::Protocol::Pipeline } else { factpico_llm::Protocol::FullText };
        let sep = options.evidence_separator.clone().unwrap_or_else(|| factpico_llm::DEFAULT_EVIDENCE_SEPARATOR.to_owned());
        let spans: Vec<Option<Vec<String>>> = pairs
            .iter()
            .map(|p| p.extra("evidence").and_then(|v| factpico_llm::evidence_spans(v, &sep).ok().flatten()))
            .collect();
        let rows: Vec<factpico_llm::RowInput<'_>> = pairs
            .iter()
            .zip(&spans)
            .map(|(p, s)| factpico_llm::RowInput { source: p.source, summary: p.summary, evidence: s.as_deref() })
            .collect();
        Some(factpico_llm::plan(protocol, options, &rows).map_err(|e| crate::Error::init(metric.name, e)).map(|p| plan_message(metric.name, &p, prices.as_ref())))
    }

    fn option_metrics(field: &str) -> &'static [&'static str] {
        match field {
            "extract_max_tokens" => &["llm_pipeline"],
            "minicheck_chunk_size" => &["llm_minicheck"],
            "structured_output" | "preset" | "temperature" | "top_p" | "seed" | "max_tokens" | "rationale_max_chars"
            | "elements" | "logprobs" | "prompt" | "rationale_first" | "samples" | "evidence_separator" => &["llm", "llm_pipeline"],
            _ => &[],
        }
    }
}

/// `llm_minicheck`'s dry run: one request per (abstract chunk, summary sentence); a
/// document counts as one chunk when its byte bound fits the chunk size, else as its
/// byte-bound chunks (token counts need the server).
fn plan_minicheck(options: &LlmOptions, pairs: &[crate::Pair<'_>], prices: Option<&factpico_llm::Prices>) -> String {
    use factpico_text::SentenceSplitter;
    let punkt = factpico_text::Punkt::english();
    let size = options.minicheck_chunk_size.unwrap_or(factpico_llm::minicheck::DEFAULT_CHUNK_SIZE);
    let packing = factpico_text::TokenBudgetChunking { max_tokens: size, split_newlines: true };
    let bound = |s: &str| s.len() + 1;
    let (mut requests, mut tokens, mut long) = (0u64, 0u64, 0u64);
    for p in pairs {
        let chunks = packing.chunks(&punkt, &bound, p.source);
        long += u64::from(chunks.len() > 1);
        let sentences = punkt.split(p.summary);
        for c in &chunks {
            for s in &sentences {
                requests += 1;
                let claim = s.get(p.summary).unwrap_or_default();
                let user = factpico_llm::minicheck::user_message(&c.text, claim);
                tokens += factpico_llm::estimate_prompt_tokens(factpico_llm::minicheck::SYSTEM_PROMPT, &user);
            }
        }
    }
    format!(
        "llm_minicheck: {requests} requests (abstract chunks x summary sentences) for {} rows ({long} abstracts over the chunk size of {size} tokens by their byte bound, counted as byte-bound chunks: the server's token counts decide); estimated prompt tokens ≈ {tokens} (⌈characters/4⌉ per message + 4 per message + 3 per request, OpenAI's rule of thumb: the model's tokenizer decides); completion tokens at most {requests} (one each).{}{DRY_RUN_BASIS}",
        pairs.len(),
        cost_estimate(prices, tokens, Some(requests)),
    )
}

/// `llm_minicheck`'s explanation: one [`crate::explain::SentenceSupport`] per summary sentence
/// with the abstract chunk of its maximum as evidence.
fn explain_minicheck(detail: &serde_json::Value) -> Vec<ExplainBlock> {
    use crate::explain::SentenceSupport;
    let span = |v: &serde_json::Value, side: Side| {
        let a = v.get(0)?.as_u64().and_then(|x| usize::try_from(x).ok())?;
        let b = v.get(1)?.as_u64().and_then(|x| usize::try_from(x).ok())?;
        TextSpan::new(side, a, b)
    };
    let claims = detail["claims"].as_array().cloned().unwrap_or_default();
    let chunks = detail["chunks"].as_array().cloned().unwrap_or_default();
    if claims.is_empty() {
        return vec![ExplainBlock::Table {
            title: "Bespoke-MiniCheck: no score".into(),
            rows: vec![
                ("reason".into(), detail["null_reason"].as_str().unwrap_or("no claim was checked").to_owned()),
                ("chunks".into(), chunks.len().to_string()),
            ],
        }];
    }
    let sentences = claims
        .iter()
        .map(|c| {
            let score = c["score"].as_f64();
            let best = c["best_chunk"].as_u64().and_then(|i| chunks.get(usize::try_from(i).ok()?));
            let cached = c["checks"].as_array().is_some_and(|a| !a.is_empty() && a.iter().all(|k| k["cached"] == true));
            SentenceSupport {
                span: span(&c["span"], Side::Summary),
                score,
                label: score.map(|s| if s > 0.5 { "supported" } else { "unsupported" }.to_owned()),
                evidence: best.and_then(|k| span(&k["span"], Side::Source)),
                evidence_score: None,
                note: c["null_reason"].as_str().map(str::to_owned).or_else(|| cached.then(|| "answers from the cache".to_owned())),
            }
        })
        .collect();
    vec![ExplainBlock::SentenceSupport {
        title: format!("Bespoke-MiniCheck (per summary sentence, min over sentences): max over {} abstract chunks", chunks.len()),
        sentences,
    }]
}

/// The part of an `llm` / `llm_pipeline` detail the explanation reads.
#[derive(Debug, Deserialize)]
struct Detail {
    #[serde(default)]
    elements: std::collections::BTreeMap<String, Element>,
    #[serde(default)]
    evidence: Vec<Element>,
    extraction: Option<Extraction>,
}

#[derive(Debug, Deserialize)]
struct Element {
    rating: Option<u8>,
    score: Option<f64>,
    rationale: Option<String>,
    null_reason: Option<String>,
    reply: Option<String>,
    /// Several samples (`llm.samples`): their ratings, majority and spread in one line.
    #[serde(default)]
    summary: Option<String>,
    /// The probability-weighted rating (`llm.logprobs`).
    #[serde(default)]
    weighted: Option<serde_json::Value>,
    #[serde(default)]
    weighted_score: Option<f64>,
    #[serde(default)]
    cached: bool,
    error: Option<String>,
    span: Option<String>,
}

#[derive(Debug, Deserialize)]
struct Extraction {
    abstract_pico: Option<Stage1>,
    summary_pico: Option<Stage1>,
    summary_results: Option<Stage1>,
}

#[derive(Debug, Deserialize)]
struct Stage1 {
    reply: Option<String>,
    error: Option<String>,
    #[serde(default)]
    quotes: Vec<DetailQuote>,
}

#[derive(Debug, Deserialize)]
struct DetailQuote {
    text: String,
    span: Option<[usize; 2]>,
}

/// The end of every LLM metric's `--dry-run` paragraph: what the estimate does not subtract.
const DRY_RUN_BASIS: &str = " Basis: every request counted as sent — answers already in the cache are not subtracted (the cache was not checked: its keys need the model the server reports, and a dry run contacts no server); a run sends only what the cache lacks.";

/// The dry run's cost sentence for `prompt` estimated tokens and at most `completion` (None:
/// unbounded) at `prices`; empty without prices.
fn cost_estimate(prices: Option<&factpico_llm::Prices>, prompt: u64, completion: Option<u64>) -> String {
    match (prices, completion) {
        (None, _) => String::new(),
        (Some(pr), Some(c)) => format!(
            " Estimated cost: about {} at most (the estimated prompt tokens and the completion bound, {} + {} tokens, at {}).",
            money(pr.cost(prompt, c)),
            prompt,
            c,
            price_basis(pr)
        ),
        (Some(pr), None) => format!(
            " Estimated cost: {} for the prompt tokens ({} at {}); the completion tokens are not bounded, so neither is the cost.",
            money(pr.cost(prompt, 0)),
            prompt,
            price_basis(pr)
        ),
    }
}

/// `--dry-run`'s paragraph for one metric: requests, token estimates with their basis, the
/// cost estimate when prices are set, and what the estimate does not subtract (the cache).
fn plan_message(metric: &str, p: &factpico_llm::Plan, prices: Option<&factpico_llm::Prices>) -> String {
    let stage2 = if p.stage2_requests > 0 {
        format!(" ({} of them rate stage-1 replies; their prompt tokens are counted with each reply at its max tokens, an upper bound)", p.stage2_requests)
    } else {
        String::new()
    };
    let completion = p.max_completion_tokens.map_or_else(
        || "unbounded (no max tokens is sent)".to_owned(),
        |n| format!("at most {n} (every reply at its max tokens, an upper bound)"),
    );
    let cost = cost_estimate(prices, p.estimated_prompt_tokens, p.max_completion_tokens);
    format!(
        "{metric}: {} requests{stage2} for {} rows ({} with evidence spans); estimated prompt tokens ≈ {} (⌈characters/4⌉ per message + 4 per message + 3 per request, OpenAI's rule of thumb: the model's tokenizer decides); completion tokens {completion}.{cost}{DRY_RUN_BASIS}",
        p.requests,
        p.rows,
        p.rows_with_evidence,
        p.estimated_prompt_tokens
    )
}

/// A cost: six decimals (a millionth of the currency unit, the price of one token at 1 per
/// million).
fn money(x: f64) -> String {
    format!("{x:.6}")
}

/// The prices as the report prints them.
fn price_basis(p: &factpico_llm::Prices) -> String {
    format!("{} per million prompt tokens, {} per million completion tokens", p.input_per_mtok, p.output_per_mtok)
}

/// The run report's usage lines, shared by every LLM metric: requests (distinct, from the
/// cache, sent, failed, retries), tokens sent, tokens of the cache's answers and, with prices,
/// the cost line.
#[cfg(feature = "llm")]
fn usage_lines(s: &factpico_llm::RunStats, prices: Option<factpico_llm::Prices>) -> Vec<(String, String)> {
    let mut lines = vec![
        (
            "requests".to_owned(),
            format!("{} distinct: {} from the cache, {} sent and answered, {} failed; {} retries", s.requests, s.cached, s.answered, s.failed, s.retries),
        ),
        ("tokens sent".to_owned(), format!("{} prompt + {} completion", s.prompt_tokens, s.completion_tokens)),
        ("tokens of cached answers".to_owned(), format!("{} prompt + {} completion", s.cached_prompt_tokens, s.cached_completion_tokens)),
    ];
    if let Some(p) = prices {
        lines.push(("cost".to_owned(), cost_line(&p, s)));
    }
    lines
}

/// The run report's cost line: what was sent, and what the cache's answers would have cost.
#[cfg(feature = "llm")]
fn cost_line(p: &factpico_llm::Prices, s: &factpico_llm::RunStats) -> String {
    format!(
        "{} for the tokens sent ({} prompt + {} completion at {}), and the {} answers from the cache would have cost {} more (saved)",
        money(p.cost(s.prompt_tokens, s.completion_tokens)),
        s.prompt_tokens,
        s.completion_tokens,
        price_basis(p),
        s.cached,
        money(p.cost(s.cached_prompt_tokens, s.cached_completion_tokens)),
    )
}

/// What the failure message says: how many requests failed, and how many a re-run sends at
/// most — the failed ones and the pipeline's rating requests that wait on a failed extraction
/// (exact unless extraction replies coincide, which makes their rating requests one).
#[cfg(feature = "llm")]
fn failure_advice(s: &factpico_llm::RunStats, cached: bool) -> String {
    let first = s.first_failures.first().cloned().unwrap_or_default();
    let resend = s.failed_distinct + s.waiting_on_failed;
    let what = if s.waiting_on_failed > 0 {
        format!(
            "the {} failed ones and {} rating requests that wait on failed extractions (fewer when extraction replies coincide: their prompts quote the replies, and identical requests are sent once)",
            s.failed_distinct, s.waiting_on_failed
        )
    } else {
        format!("the {} failed ones", s.failed_distinct)
    };
    let again = if cached {
        format!(
            "Re-run the same command: the {} answered requests come from the cache, and it sends at most {resend}: {what}",
            s.cached + s.answered
        )
    } else {
        format!("Re-run the same command: without a cache it sends every request again ({resend} of them never answered: {what})")
    };
    format!("{} requests failed after their retries (first: {first}); their columns are documented nulls. {again}", s.failed)
}

#[cfg(feature = "llm")]
mod imp {
    use factpico_llm::{evidence_spans, Evaluator, MiniCheckEvaluator, Protocol, RowInput, DEFAULT_EVIDENCE_SEPARATOR};

    use super::{LlmOptions, LLM, LLM_MINICHECK, LLM_PIPELINE};
    use crate::metric::{Metric, MetricInfo, MetricOutput, Pair, RunReport};
    use crate::{Error, Result};

    pub(super) fn build(metric: &'static MetricInfo, options: &LlmOptions) -> Result<Box<dyn Metric>> {
        if metric.name == LLM_MINICHECK.name {
            let evaluator = MiniCheckEvaluator::try_new(options).map_err(|e| Error::init(metric.name, e))?;
            return Ok(Box::new(MiniCheckMetric { evaluator, started: std::time::Instant::now() }));
        }
        let protocol = if metric.name == LLM_PIPELINE.name { Protocol::Pipeline } else { Protocol::FullText };
        let evaluator = Evaluator::try_new(protocol, options).map_err(|e| Error::init(metric.name, e))?;
        let info: &'static MetricInfo = if protocol == Protocol::Pipeline { &LLM_PIPELINE } else { &LLM };
        let separator = options.evidence_separator.clone().unwrap_or_else(|| DEFAULT_EVIDENCE_SEPARATOR.to_owned());
        Ok(Box::new(LlmMetric { info, evaluator, separator, started: std::time::Instant::now() }))
    }

    struct MiniCheckMetric {
        evaluator: MiniCheckEvaluator,
        /// When the metric was built: the clock of the tokens-per-second figure.
        started: std::time::Instant,
    }

    impl Metric for MiniCheckMetric {
        fn info(&self) -> &'static MetricInfo {
            &LLM_MINICHECK
        }

        fn progress(&self) -> Option<String> {
            Some(progress_line(&self.evaluator.stats(), self.started.elapsed()))
        }

        fn provenance(&self) -> serde_json::Value {
            self.evaluator.provenance()
        }

        fn score(&self, pair: &Pair<'_>) -> Result<MetricOutput> {
            self.score_batch(std::slice::from_ref(pair))?
                .pop()
                .unwrap_or_else(|| Err(Error::metric(LLM_MINICHECK.name, "no result for the row")))
        }

        /// Requests, tokens and cost, the served model, the chunk size, replies without logprobs.
        fn run_report(&self) -> Option<RunReport> {
            let s = self.evaluator.stats();
            let mut lines = super::usage_lines(&s, self.evaluator.prices());
            lines.push(("served model".to_owned(), self.evaluator.served_model().id.clone()));
            lines.push(("chunk size".to_owned(), format!("{} tokens", self.evaluator.chunk_size())));
            if let Some(p) = self.evaluator.cache_path() {
                lines.push(("cache".to_owned(), p.display().to_string()));
            }
            if s.replies_without_logprobs > 0 {
                lines.push((
                    "logprobs".to_owned(),
                    format!("{} replies came without logprobs: their checks (and rows) are nulls", s.replies_without_logprobs),
                ));
            }
            let advice = (s.failed > 0).then(|| {
                format!(
                    "{} requests failed after their retries (first: {}); re-run the same command: answered requests come from the cache",
                    s.failed,
                    s.first_failures.first().cloned().unwrap_or_default()
                )
            });
            Some(RunReport { lines, failures: s.failed, advice })
        }

        /// All rows' checks run concurrently; a failed request is a documented null of its row.
        fn score_batch(&self, pairs: &[Pair<'_>]) -> Result<Vec<Result<MetricOutput>>> {
            let rows: Vec<(&str, &str)> = pairs.iter().map(|p| (p.source, p.summary)).collect();
            Ok(self
                .evaluator
                .evaluate(&rows)
                .into_iter()
                .map(|r| Ok(MetricOutput { scores: r.scores, nulls: r.nulls, detail: Some(r.detail), warnings: r.warnings }))
                .collect())
        }
    }

    struct LlmMetric {
        info: &'static MetricInfo,
        evaluator: Evaluator,
        separator: String,
        /// When the metric was built: the clock of the tokens-per-second figure.
        started: std::time::Instant,
    }

    /// The live line of [`Metric::progress`]: requests done of those planned so far, how
    /// they ended, retries, and completion tokens per second of the sent requests.
    pub(super) fn progress_line(s: &factpico_llm::RunStats, elapsed: std::time::Duration) -> String {
        let secs = elapsed.as_secs_f64();
        let rate = if secs > 0.0 { s.completion_tokens as f64 / secs } else { 0.0 };
        format!(
            "{}/{} requests: {} from the cache, {} answered, {} failed, {} retries; {rate:.1} completion tokens/s",
            s.requests, s.planned, s.cached, s.answered, s.failed, s.retries
        )
    }

    impl Metric for LlmMetric {
        fn info(&self) -> &'static MetricInfo {
            self.info
        }

        /// The served model, the template version, the structured-output mode used (and any
        /// fallback), sampling — never the API key.
        fn provenance(&self) -> serde_json::Value {
            self.evaluator.provenance()
        }

        fn score(&self, pair: &Pair<'_>) -> Result<MetricOutput> {
            self.score_batch(std::slice::from_ref(pair))?
                .pop()
                .unwrap_or_else(|| Err(Error::metric(self.info.name, "no result for the row")))
        }

        /// Requests (distinct, cached, sent, failed, retries) and tokens of the run so far; the
        /// failed requests make `factpico score` exit non-zero.
        fn run_report(&self) -> Option<RunReport> {
            let s = self.evaluator.stats();
            let mut lines = super::usage_lines(&s, self.evaluator.prices());
            let served = self.evaluator.served_model();
            lines.push(("served model".to_owned(), served.id.clone()));
            let so = self.evaluator.structured_output();
            lines.push((
                "structured output".to_owned(),
                match &so.fallback {
                    Some(why) => format!("{} requested, {} used ({why})", so.requested, so.used),
                    None => so.used.to_string(),
                },
            ));
            if let Some(p) = self.evaluator.cache_path() {
                lines.push(("cache".to_owned(), p.display().to_string()));
            }
            if s.replies_without_logprobs > 0 {
                lines.push((
                    "logprobs".to_owned(),
                    format!("{} replies came without logprobs: their weighted columns are nulls", s.replies_without_logprobs),
                ));
            }
            if s.failed > 0 {
                lines.push((
                    "a re-run sends at most".to_owned(),
                    format!("{} ({} failed + {} rating requests waiting on failed extractions)", s.failed_distinct + s.waiting_on_failed, s.failed_distinct, s.waiting_on_failed),
                ));
            }
            if s.cache_write_errors > 0 {
                lines.push(("cache write errors".to_owned(), s.cache_write_errors.to_string()));
            }
            let advice = (s.failed > 0).then(|| super::failure_advice(&s, self.evaluator.cache_path().is_some()));
            Some(RunReport { lines, failures: s.failed, advice })
        }

        fn progress(&self) -> Option<String> {
            Some(progress_line(&self.evaluator.stats(), self.started.elapsed()))
        }

        /// All rows' requests run concurrently (bounded by `llm.runtime.client.concurrency`); a failed
        /// request is a documented null of that row, never an error of the batch.
        fn score_batch(&self, pairs: &[Pair<'_>]) -> Result<Vec<Result<MetricOutput>>> {
            let mut warnings: Vec<Option<String>> = Vec::with_capacity(pairs.len());
            let spans: Vec<Option<Vec<String>>> = pairs
                .iter()
                .map(|p| match p.extra("evidence").map(|v| evidence_spans(v, &self.separator)) {
                    None => {
                        warnings.push(None);
                        None
                    }
                    Some(Ok(s)) => {
                        warnings.push(None);
                        s
                    }
                    Some(Err(e)) => {
                        warnings.push(Some(format!("evidence field ignored: {e}")));
                        None
                    }
                })
                .collect();
            let rows: Vec<RowInput<'_>> = pairs
                .iter()
                .zip(&spans)
                .map(|(p, s)| RowInput { source: p.source, summary: p.summary, evidence: s.as_deref() })
                .collect();
            let results = self.evaluator.evaluate(&rows);
            Ok(results
                .into_iter()
                .zip(warnings)
                .map(|(r, w)| {
                    let mut out = MetricOutput { scores: r.scores, nulls: r.nulls, detail: Some(r.detail), warnings: r.warnings };
                    out.warnings.extend(w);
                    Ok(out)
                })
                .collect())
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use crate::{Scorer, ScorerOptions};

    /// `llm.runtime` is set through the `ScorerOptions` JSON (as Python passes it).
    #[test]
    fn runtime_options_are_read_from_scorer_options_json() {
        let o: ScorerOptions = serde_json::from_str(
            r#"{"llm": {"model": "m", "runtime": {"client": {"concurrency": 8, "timeout_s": 30, "backoff_min_s": 0.25},
                "cache": "/tmp/x.sqlite", "no_cache": true}}}"#,
        )
        .unwrap();
        let r = &o.llm.runtime;
        assert_eq!(r.client.concurrency, 8);
        assert!((r.client.timeout_s - 30.0).abs() < f64::EPSILON);
        assert!((r.client.backoff_min_s - 0.25).abs() < f64::EPSILON);
        assert_eq!(r.client.retries, factpico_llm::ClientOptions::default().retries, "absent fields keep their defaults");
        assert_eq!(r.cache.as_deref(), Some(std::path::Path::new("/tmp/x.sqlite")));
        assert!(r.no_cache);
        assert_eq!(o.llm.model.as_deref(), Some("m"));
    }

    #[test]
    fn unknown_or_mistyped_runtime_fields_are_refused_by_name() {
        let e = serde_json::from_str::<ScorerOptions>(r#"{"llm": {"runtime": {"client": {"concurency": 8}}}}"#).unwrap_err().to_string();
        assert!(e.contains("unknown field `concurency`") && e.contains("`concurrency`"), "{e}");
        let e = serde_json::from_str::<ScorerOptions>(r#"{"llm": {"runtime": {"cahce": "/tmp/x"}}}"#).unwrap_err().to_string();
        assert!(e.contains("unknown field `cahce`") && e.contains("`cache`") && e.contains("`no_cache`"), "{e}");
        // Durations are numbers of seconds, not serde's {secs, nanos}.
        let e = serde_json::from_str::<ScorerOptions>(r#"{"llm": {"runtime": {"client": {"timeout_s": {"secs": 1, "nanos": 0}}}}}"#)
            .unwrap_err()
            .to_string();
        assert!(e.contains("invalid type: map, expected f64"), "{e}");
    }

    /// Two option sets differing only in `llm.runtime` serialise identically and give the same
    /// provenance (hence the same `run` hash and `--resume` fingerprint).
    #[test]
    fn runtime_options_stay_out_of_the_options_json_and_the_provenance() {
        let plain = ScorerOptions { metrics: vec!["rougeL".into()], ..ScorerOptions::default() };
        let mut tuned = plain.clone();
        tuned.llm.runtime.client.concurrency = 32;
        tuned.llm.runtime.client.timeout_s = 5.0;
        tuned.llm.runtime.client.max_reply_bytes = 1;
        tuned.llm.runtime.cache = Some("/elsewhere/cache.sqlite".into());
        tuned.llm.runtime.no_cache = true;
        assert_ne!(plain, tuned);
        let (a, b) = (serde_json::to_string(&plain).unwrap(), serde_json::to_string(&tuned).unwrap());
        assert_eq!(a, b);
        let v: serde_json::Value = serde_json::from_str(&a).unwrap();
        assert!(v["llm"].get("runtime").is_none() && !a.contains("concurrency") && !a.contains("no_cache"), "{a}");
        let (sa, sb) = (Scorer::try_new(plain).unwrap(), Scorer::try_new(tuned).unwrap());
        assert_eq!(sa.provenance(), sb.provenance());
        assert_eq!(crate::provenance_hash(sa.provenance()), crate::provenance_hash(sb.provenance()));
        // What is recorded reads back as the defaults (the runtime is not carried).
        let back: ScorerOptions = serde_json::from_str(&b).unwrap();
        assert_eq!(back.llm.runtime, factpico_llm::LlmRuntime::default());
    }
}
