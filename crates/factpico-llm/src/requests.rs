//! Request bodies and the dry-run planner (no network).

use serde::Serialize;
use serde_json::{json, Value};

use crate::error::{Error, Result};
use crate::options::{LlmOptions, PromptVariant, Protocol, Sampling, DEFAULT_RATIONALE_MAX, TOP_LOGPROBS};
use crate::parse::Scale;
use crate::structured::{digit_gbnf, digit_response_format, gbnf_ordered, response_format_ordered, StructuredOutput};
use crate::templates::{Element, Messages, Templates};

/// One input row.
#[derive(Debug, Clone, Copy)]
pub struct RowInput<'a> {
    /// The abstract.
    pub source: &'a str,
    /// The plain-language summary.
    pub summary: &'a str,
    /// Gold result spans (Evidence Inference 2.0 style), if the row has them.
    pub evidence: Option<&'a [String]>,
}

/// What a dry run reports (nothing is sent, the server is not contacted).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Plan {
    /// Rows planned.
    pub rows: u64,
    /// Rows with at least one evidence span.
    pub rows_with_evidence: u64,
    /// Distinct requests (identical requests, e.g. one abstract's extraction shared by several
    /// summaries, count once).
    pub requests: u64,
    /// Of which pipeline stage 2 (their prompts contain stage-1 replies).
    pub stage2_requests: u64,
    /// Estimated prompt tokens: ⌈characters / 4⌉ per message + 4 per message + 3 per request
    /// (OpenAI's rule of thumb); pipeline stage-2 prompts are counted with each extraction
    /// reply at its max tokens (256 when unbounded), so that part is an upper bound.
    pub estimated_prompt_tokens: u64,
    /// Completion tokens at most (`None` when a max-tokens bound is unset).
    pub max_completion_tokens: Option<u64>,
}

/// Estimated prompt tokens of one chat request with a system and a user message: ⌈characters /
/// 4⌉ + 4 per message, + 3 per request (OpenAI's rule of thumb; the model's tokenizer decides).
/// The rule of [`Plan::estimated_prompt_tokens`], shared by every LLM metric's dry run.
#[must_use]
pub fn estimate_prompt_tokens(system: &str, user: &str) -> u64 {
    3 + [system, user].iter().map(|s| 4 + (s.chars().count() as u64).div_ceil(4)).sum::<u64>()
}

pub(crate) fn messages_json(m: &Messages) -> Value {
    json!([{ "role": "system", "content": m.system }, { "role": "user", "content": m.user }])
}

/// Request bodies, shared by the evaluator and the dry-run planner.
pub(crate) struct Bodies<'a> {
    pub(crate) model: &'a str,
    pub(crate) sampling: &'a Sampling,
    pub(crate) structured: StructuredOutput,
    pub(crate) rationale_max: usize,
    /// The reply's shape and what else rating requests ask for.
    pub(crate) shape: Shape,
}

/// What rating requests ask for beyond the sampling preset (from [`LlmOptions`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Shape {
    pub(crate) prompt: PromptVariant,
    pub(crate) rationale_first: bool,
    pub(crate) logprobs: bool,
    pub(crate) samples: u32,
    /// `llm.max_tokens` as given (the rating-only variant's default is 1, not the preset's).
    pub(crate) max_tokens: Option<u32>,
}

impl Shape {
    pub(crate) fn of(o: &LlmOptions) -> Self {
        Self { prompt: o.prompt, rationale_first: o.rationale_first, logprobs: o.logprobs, samples: o.sample_count(), max_tokens: o.max_tokens }
    }

    fn rating_only(self) -> bool {
        self.prompt == PromptVariant::RatingOnly
    }
}

/// The rating prompts of the chosen variant.
#[derive(Clone, Copy)]
pub(crate) struct Prompts {
    pub(crate) t: &'static Templates,
    pub(crate) variant: PromptVariant,
}

impl Prompts {
    pub(crate) fn new(variant: PromptVariant) -> Self {
        Self { t: Templates::factpico(), variant }
    }

    pub(crate) fn full_text_pico(self, e: Element, abstract_: &str, summary: &str) -> Messages {
        match self.variant {
            PromptVariant::Published => self.t.full_text_pico(e, abstract_, summary),
            PromptVariant::RatingOnly => self.t.full_text_pico_rating_only(e, abstract_, summary),
        }
    }

    pub(crate) fn full_text_result(self, span: &str, summary: &str) -> Messages {
        match self.variant {
            PromptVariant::Published => self.t.full_text_result(span, summary),
            PromptVariant::RatingOnly => self.t.full_text_result_rating_only(span, summary),
        }
    }

    pub(crate) fn pipeline_pico(self, e: Element, abstract_pico: &str, summary_pico: &str) -> Messages {
        match self.variant {
            PromptVariant::Published => self.t.pipeline_pico(e, abstract_pico, summary_pico),
            PromptVariant::RatingOnly => self.t.pipeline_pico_rating_only(e, abstract_pico, summary_pico),
        }
    }

    pub(crate) fn pipeline_result(self, span: &str, summary_results: &str) -> Messages {
        match self.variant {
            PromptVariant::Published => self.t.pipeline_result(span, summary_results),
            PromptVariant::RatingOnly => self.t.pipeline_result_rating_only(span, summary_results),
        }
    }
}

impl Bodies<'_> {
    /// Max tokens of a rating reply: 1 for rating-only prompts, else the option, else the preset's.
    pub(crate) fn rating_max_tokens(&self) -> Option<u32> {
        if self.shape.rating_only() {
            Some(1)
        } else {
            self.shape.max_tokens.or(self.sampling.max_tokens)
        }
    }

    /// The rating request bodies of one prompt: one per sample (sample i with seed `seed + i`
    /// when there are several).
    pub(crate) fn ratings(&self, m: &Messages, scale: Scale) -> Vec<Value> {
        let n = self.shape.samples.max(1);
        if n == 1 {
            return vec![self.rating(m, scale)];
        }
        let base = self.sampling.seed.unwrap_or(0);
        (0..n)
            .map(|i| {
                let mut b = self.rating(m, scale);
                if let Some(o) = b.as_object_mut() {
                    // `validate` keeps seed + n − 1 within i64 (what servers parse)
                    o.insert("seed".into(), json!(base.saturating_add(u64::from(i))));
                }
                b
            })
            .collect()
    }

    pub(crate) fn base(&self, m: &Messages, max_tokens: Option<u32>) -> Value {
        let s = self.sampling;
        let mut b = serde_json::Map::new();
        b.insert("model".into(), json!(self.model));
        b.insert("messages".into(), messages_json(m));
        if let Some(t) = s.temperature {
            b.insert("temperature".into(), json!(t));
        }
        if let Some(p) = s.top_p {
            b.insert("top_p".into(), json!(p));
        }
        if let Some(k) = s.top_k {
            b.insert("top_k".into(), json!(k));
        }
        if let Some(r) = s.repetition_penalty {
            b.insert("repetition_penalty".into(), json!(r));
            b.insert("repeat_penalty".into(), json!(r));
        }
        if let Some(seed) = s.seed {
            b.insert("seed".into(), json!(seed));
        }
        if let Some(n) = max_tokens {
            b.insert("max_tokens".into(), json!(n));
        }
        if !s.stop.is_empty() {
            b.insert("stop".into(), json!(s.stop));
        }
        Value::Object(b)
    }

    pub(crate) fn rating(&self, m: &Messages, scale: Scale) -> Value {
        let mut b = self.base(m, self.rating_max_tokens());
        let (only, first) = (self.shape.rating_only(), self.shape.rationale_first);
        if let Some(o) = b.as_object_mut() {
            match self.structured {
                StructuredOutput::JsonSchema if only => {
                    o.insert("response_format".into(), digit_response_format(scale));
                }
                StructuredOutput::JsonSchema => {
                    o.insert("response_format".into(), response_format_ordered(scale, self.rationale_max, first));
                }
                StructuredOutput::Grammar if only => {
                    o.insert("grammar".into(), json!(digit_gbnf(scale)));
                }
                StructuredOutput::Grammar => {
                    o.insert("grammar".into(), json!(gbnf_ordered(scale, self.rationale_max, first)));
                }
                StructuredOutput::Off => {}
            }
            if self.shape.logprobs {
                o.insert("logprobs".into(), json!(true));
                o.insert("top_logprobs".into(), json!(TOP_LOGPROBS));
            }
        }
        b
    }

    pub(crate) fn extraction(&self, m: &Messages) -> Value {
        self.base(m, self.sampling.extract_max_tokens)
    }
}

pub(crate) fn spans_of<'a>(row: &RowInput<'a>, warnings: &mut Vec<String>) -> Option<Vec<&'a str>> {
    let spans = row.evidence?;
    let kept: Vec<&str> = spans.iter().map(String::as_str).filter(|s| !s.trim().is_empty()).collect();
    if kept.len() < spans.len() {
        warnings.push(format!("{} empty evidence span(s) ignored", spans.len() - kept.len()));
    }
    (!kept.is_empty()).then_some(kept)
}

/// Reads a row's evidence spans from its input value: a JSON array of strings (JSONL/JSON
/// input), or a string (a CSV/TSV cell) holding either a JSON array of strings (when it starts
/// with `[`) or spans separated by `separator` (each trimmed; empty pieces dropped). `null`, an
/// empty string and an empty list mean "no spans" (`Ok(None)`).
///
/// # Errors
/// A message for any other shape (a number, an object, an array with a non-string item, a
/// cell starting with `[` that is not a JSON list of strings).
pub fn evidence_spans(value: &Value, separator: &str) -> std::result::Result<Option<Vec<String>>, String> {
    fn list(a: &[Value]) -> std::result::Result<Vec<String>, String> {
        a.iter()
            .map(|v| v.as_str().map(str::to_owned).ok_or_else(|| format!("evidence spans must be strings, found {v}")))
            .collect()
    }
    let spans = match value {
        Value::Null => Vec::new(),
        Value::Array(a) => list(a)?,
        Value::String(s) if s.trim_start().starts_with('[') => match serde_json::from_str::<Value>(s) {
            Ok(Value::Array(a)) => list(&a)?,
            _ => return Err("the evidence cell starts with '[' but is not a JSON list of strings".into()),
        },
        Value::String(s) => {
            let sep = if separator.is_empty() { crate::options::DEFAULT_EVIDENCE_SEPARATOR } else { separator };
            s.split(sep).map(str::trim).filter(|x| !x.is_empty()).map(str::to_owned).collect()
        }
        other => return Err(format!("evidence must be a list of strings (or a CSV cell), found {other}")),
    };
    Ok((!spans.is_empty()).then_some(spans))
}

/// The request bodies a run over `rows` sends first — every rating request of the full-text
/// protocol, the extraction requests of the pipeline (its stage-2 bodies depend on their
/// replies) — distinct, in order, with the structured-output mode requested. No network.
///
/// # Errors
/// [`Error::Options`] when the rationale bound is 0.
pub fn request_bodies(protocol: Protocol, options: &LlmOptions, rows: &[RowInput<'_>]) -> Result<Vec<Value>> {
    let sampling = Sampling::resolve(options);
    let rationale_max = options.rationale_max_chars.unwrap_or(DEFAULT_RATIONALE_MAX);
    if rationale_max == 0 {
        return Err(Error::Options("`llm.rationale_max_chars` must be at least 1".into()));
    }
    options.validate()?;
    let model = options.model.clone().unwrap_or_default();
    let b = Bodies { model: &model, sampling: &sampling, structured: options.structured_output, rationale_max, shape: Shape::of(options) };
    let t = Templates::factpico();
    let pr = Prompts::new(options.prompt);
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    let mut push = |v: Value| {
        if seen.insert(canonical_json(&v)) {
            out.push(v);
        }
    };
    for r in rows {
        let mut w = Vec::new();
        let spans = if options.wants_evidence() { spans_of(r, &mut w) } else { None };
        match protocol {
            Protocol::FullText => {
                for e in Element::ALL.into_iter().filter(|&e| options.wants(e)) {
                    b.ratings(&pr.full_text_pico(e, r.source, r.summary), Scale::PicoWithNa).into_iter().for_each(&mut push);
                }
                for s in spans.iter().flatten() {
                    b.ratings(&pr.full_text_result(s, r.summary), Scale::Result).into_iter().for_each(&mut push);
                }
            }
            Protocol::Pipeline => {
                if Element::ALL.iter().any(|&e| options.wants(e)) {
                    push(b.extraction(&t.extract_pico(r.source)));
                    push(b.extraction(&t.extract_pico(r.summary)));
                }
                if spans.is_some() {
                    push(b.extraction(&t.extract_result(r.summary)));
                }
            }
        }
    }
    Ok(out)
}

/// Counts the requests a run over `rows` would make and estimates their prompt tokens, without
/// contacting the server. The structured-output mode is the one requested (a fallback would
/// only remove the constraint).
///
/// # Errors
/// [`Error::Options`] when the rationale bound is 0.
pub fn plan(protocol: Protocol, options: &LlmOptions, rows: &[RowInput<'_>]) -> Result<Plan> {
    // what a run would refuse, a dry run refuses too (nothing is contacted)
    options.runtime.client.validate()?;
    options.runtime.prices()?;
    let given = |v: &Option<String>| v.as_deref().is_some_and(|s| !s.trim().is_empty());
    if !given(&options.model) {
        return Err(Error::Options("`llm.model` is required for the LLM metrics".into()));
    }
    if !given(&options.base_url) && !given(&options.served_model) {
        return Err(Error::Options(
            "`llm.base_url` is required for the LLM metrics (or `llm.served_model` for a batch run without a server)".into(),
        ));
    }
    let sampling = Sampling::resolve(options);
    let rationale_max = options.rationale_max_chars.unwrap_or(DEFAULT_RATIONALE_MAX);
    if rationale_max == 0 {
        return Err(Error::Options("`llm.rationale_max_chars` must be at least 1".into()));
    }
    options.validate()?;
    let model = options.model.clone().unwrap_or_default();
    let b = Bodies { model: &model, sampling: &sampling, structured: options.structured_output, rationale_max, shape: Shape::of(options) };
    let t = Templates::factpico();
    let pr = Prompts::new(options.prompt);
    let rating_max = b.rating_max_tokens();
    let est = |m: &Messages| estimate_prompt_tokens(&m.system, &m.user);
    let mut seen = std::collections::HashSet::new();
    let mut p = Plan { rows: rows.len() as u64, ..Plan::default() };
    let mut completion: Option<u64> = Some(0);
    let mut add = |p: &mut Plan, m: Messages, body: Value, max: Option<u32>, stage2: bool| {
        if seen.insert(canonical_json(&body)) {
            p.requests += 1;
            p.stage2_requests += u64::from(stage2);
            p.estimated_prompt_tokens += est(&m);
            completion = match (completion, max) {
                (Some(c), Some(n)) => Some(c + u64::from(n)),
                _ => None,
            };
        }
    };
    // Stand-in for a stage-1 reply in the pipeline's stage-2 estimate: max tokens × 4 characters.
    let filler = "x".repeat(4 * sampling.extract_max_tokens.unwrap_or(256) as usize);
    let any_pico = Element::ALL.iter().any(|&e| options.wants(e));
    for r in rows {
        let mut w = Vec::new();
        let spans = if options.wants_evidence() { spans_of(r, &mut w) } else { None };
        p.rows_with_evidence += u64::from(spans.is_some());
        match protocol {
            Protocol::FullText => {
                for e in Element::ALL.into_iter().filter(|&e| options.wants(e)) {
                    let m = pr.full_text_pico(e, r.source, r.summary);
                    for body in b.ratings(&m, Scale::PicoWithNa) {
                        add(&mut p, m.clone(), body, rating_max, false);
                    }
                }
                for s in spans.iter().flatten() {
                    let m = pr.full_text_result(s, r.summary);
                    for body in b.ratings(&m, Scale::Result) {
                        add(&mut p, m.clone(), body, rating_max, false);
                    }
                }
            }
            Protocol::Pipeline => {
                for text in [r.source, r.summary].into_iter().filter(|_| any_pico) {
                    let m = t.extract_pico(text);
                    add(&mut p, m.clone(), b.extraction(&m), sampling.extract_max_tokens, false);
                }
                if spans.is_some() {
                    let m = t.extract_result(r.summary);
                    add(&mut p, m.clone(), b.extraction(&m), sampling.extract_max_tokens, false);
                }
                // Stage 2 depends on stage-1 replies: one request per element and span of each
                // row (distinct rows assumed distinct), estimated with stand-in replies.
                let tag = format!("{}\u{0}{}", r.source, r.summary);
                for e in Element::ALL.into_iter().filter(|&e| options.wants(e)) {
                    let m = pr.pipeline_pico(e, &filler, &filler);
                    for body in b.ratings(&m, Scale::PicoWithNa) {
                        add(&mut p, m.clone(), json!({"stage2": tag, "element": e.name(), "body": body}), rating_max, true);
                    }
                }
                for (i, s) in spans.iter().flatten().enumerate() {
                    let m = pr.pipeline_result(s, &filler);
                    for body in b.ratings(&m, Scale::Result) {
                        add(&mut p, m.clone(), json!({"stage2": tag, "span": i, "body": body}), rating_max, true);
                    }
                }
            }
        }
    }
    p.max_completion_tokens = completion;
    Ok(p)
}

/// Canonical JSON: object keys sorted at every level, no insignificant whitespace.
pub fn canonical_json(v: &serde_json::Value) -> String {
    write_json(v, false)
}

/// A request body as it is sent: [`canonical_json`], except that the `properties` of a JSON
/// schema object come in the order its `required` list names them (then the others, sorted).
/// Servers generate structured replies in the order of `properties` (OpenAI, llama.cpp), and
/// key order is the only way JSON carries it: `"required": ["rationale", "rating"]` makes the
/// model write its rationale before it commits to a rating.
pub fn wire_json(v: &serde_json::Value) -> String {
    write_json(v, true)
}

fn write_json(v: &serde_json::Value, schema_order: bool) -> String {
    fn write(v: &serde_json::Value, out: &mut String, order: Option<&[serde_json::Value]>, schema_order: bool) {
        match v {
            serde_json::Value::Object(m) => {
                let mut keys: Vec<&String> = m.keys().collect();
                keys.sort();
                if let Some(req) = order {
                    let rank = |k: &String| req.iter().position(|r| r.as_str() == Some(k.as_str())).unwrap_or(usize::MAX);
                    keys.sort_by_key(|k| rank(k));
                }
                let required = m.get("required").and_then(serde_json::Value::as_array).filter(|_| schema_order);
                out.push('{');
                for (i, k) in keys.into_iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    out.push_str(&serde_json::Value::String(k.clone()).to_string());
                    out.push(':');
                    let inner = if k == "properties" { required.map(Vec::as_slice) } else { None };
                    write(&m[k], out, inner, schema_order);
                }
                out.push('}');
            }
            serde_json::Value::Array(a) => {
                out.push('[');
                for (i, x) in a.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    write(x, out, None, schema_order);
                }
                out.push(']');
            }
            other => out.push_str(&other.to_string()),
        }
    }
    let mut s = String::new();
    write(v, &mut s, None, schema_order);
    s
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::options::Target;

    #[test]
    fn plan_counts_distinct_requests() {
        let spans = vec!["result one".to_owned(), "result two".to_owned()];
        let rows = [
            RowInput { source: "Abstract A.", summary: "Summary 1.", evidence: Some(&spans) },
            RowInput { source: "Abstract A.", summary: "Summary 2.", evidence: None },
            RowInput { source: "Abstract A.", summary: "Summary 1.", evidence: Some(&spans) }, // a repeat
        ];
        // what a run would refuse, the plan refuses: no model, no server
        assert!(plan(Protocol::FullText, &LlmOptions::default(), &rows).unwrap_err().to_string().contains("`llm.model` is required"));
        let server = LlmOptions { base_url: Some("http://127.0.0.1:1/v1".into()), model: Some("m".into()), ..LlmOptions::default() };
        let o = server.clone();
        let p = plan(Protocol::FullText, &o, &rows).unwrap();
        assert_eq!((p.rows, p.rows_with_evidence, p.requests, p.stage2_requests), (3, 2, 4 + 2 + 4, 0));
        assert_eq!(p.max_completion_tokens, Some(10 * 512));
        assert!(p.estimated_prompt_tokens > 10 * 150 && p.estimated_prompt_tokens < 10 * 400, "{p:?}");
        // pipeline: stage 1 = 1 abstract + 2 summaries extracted + 1 results extraction; stage 2
        // = row 1 (4 + 2 spans) + row 2 (4); row 3 repeats row 1, so do all its requests
        let p = plan(Protocol::Pipeline, &o, &rows).unwrap();
        assert_eq!((p.requests, p.stage2_requests), (4 + 10, 10));
        // only R
        let o = LlmOptions { elements: vec![Target::Evidence], ..server.clone() };
        assert_eq!(plan(Protocol::FullText, &o, &rows).unwrap().requests, 2);
        // the paper's GPT-4 preset sends no max_tokens: completion tokens unbounded
        let o = LlmOptions { preset: crate::options::SamplingPreset::PaperGpt4, ..server };
        assert_eq!(plan(Protocol::FullText, &o, &rows).unwrap().max_completion_tokens, None);
    }

    #[test]
    fn evidence_field_shapes() {
        let sp = |v: Value| evidence_spans(&v, "||");
        assert_eq!(sp(json!(["a", "b"])).unwrap(), Some(vec!["a".to_owned(), "b".to_owned()]));
        assert_eq!(sp(json!("[\"a\", \"b || c\"]")).unwrap(), Some(vec!["a".to_owned(), "b || c".to_owned()]));
        assert_eq!(sp(json!(" a || b ||  ")).unwrap(), Some(vec!["a".to_owned(), "b".to_owned()]));
        assert_eq!(evidence_spans(&json!("a;b"), ";").unwrap(), Some(vec!["a".to_owned(), "b".to_owned()]));
        assert_eq!(sp(json!(null)).unwrap(), None);
        assert_eq!(sp(json!("")).unwrap(), None);
        assert_eq!(sp(json!([])).unwrap(), None);
        assert!(sp(json!([1])).unwrap_err().contains("strings"));
        assert!(sp(json!({"a": 1})).unwrap_err().contains("list of strings"));
        assert!(sp(json!("[not json")).unwrap_err().contains("not a JSON list"));
    }

    #[test]
    fn bodies_carry_sampling_and_constraint() {
        let s = Sampling::resolve(&LlmOptions { preset: crate::options::SamplingPreset::PaperOpenModels, seed: Some(7), ..LlmOptions::default() });
        let b = Bodies { model: "m", sampling: &s, structured: StructuredOutput::Grammar, rationale_max: 50, shape: Shape::default() };
        let m = Messages { system: "s".into(), user: "u".into() };
        let r = b.rating(&m, Scale::Result);
        assert_eq!(r["temperature"], json!(0.6));
        assert_eq!((r["top_k"].clone(), r["top_p"].clone(), r["seed"].clone()), (json!(90), json!(0.8), json!(7)));
        assert_eq!((r["repetition_penalty"].clone(), r["repeat_penalty"].clone()), (json!(1.1), json!(1.1)));
        assert_eq!(r["max_tokens"], json!(256));
        assert_eq!(r["stop"], json!(["</s>"]));
        assert!(r["grammar"].as_str().unwrap().contains("[1-4]"));
        assert!(b.extraction(&m).get("grammar").is_none(), "extractions are never constrained");
        assert_eq!(r["messages"], json!([{"role": "system", "content": "s"}, {"role": "user", "content": "u"}]));
    }
}
