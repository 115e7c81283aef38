//! The per-metric parts of a row view, computed from the row's `details` JSON alone (no
//! model): this is the one module that knows the metrics' detail formats.
//!
//! Parts are renderer-neutral data that the page's script draws with `textContent`:
//! * **support**: per summary sentence, a score and the abstract spans that support it
//!   (AlignScore: the best chunk), shaded and highlighted on the texts;
//! * **sections**: blocks (`p`, `kv`, `table`) per metric. Table rows may carry `hl`, spans
//!   of either text (`[side, start, end]`, side 0 = abstract, 1 = summary) highlighted when the
//!   row is clicked (QA answers, AlignScore chunks); a table with `marks` also marks its rows'
//!   spans on the texts with the row's score (DAE: each arc's P(entailed) on its head and child
//!   words, the lowest arc flagged); `low: [column, threshold]` flags low values.
//!
//! A metric this module does not know (e.g. one added later) is still shown: its details are
//! laid out generically (scalars as key/value pairs, lists of objects as tables).

use serde_json::{json, Map, Value};

use factpico::Report;

use super::payload::Utf16;

/// The parts of one row.
#[derive(Debug, Default)]
pub struct Parts {
    /// Sentence support layers.
    pub support: Vec<Value>,
    /// Per-metric sections.
    pub sections: Vec<Value>,
}

/// Renders every metric detail of `r`. Spans that do not fit the texts are reported in
/// `problems` and left out.
pub fn render(r: &Report, src: Option<&Utf16<'_>>, sum: Option<&Utf16<'_>>, problems: &mut Vec<String>) -> Parts {
    let mut parts = Parts::default();
    let mut cx = Cx { src, sum, problems };
    // Registry order (as the columns), then metrics the registry does not know, by name.
    let registry = factpico::registry();
    let mut details: Vec<(&String, &Value)> = r.details.iter().collect();
    details.sort_by_key(|(m, _)| (registry.iter().position(|i| i.name == m.as_str()).unwrap_or(usize::MAX), m.as_str()));
    for (metric, d) in details {
        match metric.as_str() {
            "alignscore" => alignscore(&mut cx, &mut parts, r, d),
            "dae" => dae(&mut cx, &mut parts, d),
            "questeval" | "qafacteval" | "cloze" => qa(&mut cx, &mut parts, metric, d),
            _ => parts.sections.push(section(metric, metric, generic(d))),
        }
    }
    parts
}

struct Cx<'a, 'b> {
    src: Option<&'a Utf16<'a>>,
    sum: Option<&'a Utf16<'a>>,
    problems: &'b mut Vec<String>,
}

#[derive(Clone, Copy)]
enum Side {
    Source,
    Summary,
}

impl Side {
    fn name(self) -> &'static str {
        match self {
            Side::Source => "source",
            Side::Summary => "summary",
        }
    }
}

impl Cx<'_, '_> {
    fn text(&self, side: Side) -> Option<&Utf16<'_>> {
        match side {
            Side::Source => self.src,
            Side::Summary => self.sum,
        }
    }

    /// A `{start, end}` byte span (serde of `Range`/`Span`) as UTF-16 offsets on `side`.
    fn span(&mut self, side: Side, v: &Value, what: &str) -> Option<[usize; 2]> {
        let (a, b) = (v.get("start")?.as_u64()? as usize, v.get("end")?.as_u64()? as usize);
        let t = self.text(side)?;
        let s = t.span(a, b);
        if s.is_none() {
            self.problems.push(format!("{what}: span [{a}, {b}) does not fit the {} ({} bytes)", side.name(), t.text().len()));
        }
        s
    }

    /// The text of a byte span, when the text is known and the span fits.
    fn slice(&self, side: Side, v: &Value) -> Option<String> {
        let (a, b) = (v.get("start")?.as_u64()? as usize, v.get("end")?.as_u64()? as usize);
        self.text(side)?.text().get(a..b).map(str::to_owned)
    }
}

/// A span to highlight, compactly: `[side (0 abstract, 1 summary), start, end]` (UTF-16).
fn hl_span(side: Side, s: [usize; 2]) -> Value {
    json!([matches!(side, Side::Summary) as u8, s[0], s[1]])
}

fn section(metric: &str, title: &str, blocks: Vec<Value>) -> Value {
    json!({ "metric": metric, "title": title, "blocks": blocks })
}

fn num(v: Option<f64>) -> Value {
    v.map_or(Value::Null, |x| json!(x))
}

/// A cell flagged low (red) or muted.
fn flagged(v: Value, cls: &str) -> Value {
    json!({ "v": v, "cls": cls })
}

fn alignscore(cx: &mut Cx<'_, '_>, parts: &mut Parts, r: &Report, d: &Value) {
    let mode = d["mode"].as_str().unwrap_or("?");
    let chunks = d["chunks"].as_array().map(Vec::as_slice).unwrap_or_default();
    let sentences = d["sentences"].as_array().map(Vec::as_slice).unwrap_or_default();
    let mut support = Vec::new();
    let mut rows = Vec::new();
    for (k, s) in sentences.iter().enumerate() {
        let score = s["score"].as_f64();
        let best = s["best_chunk"].as_u64().map(|b| b as usize);
        let chunk = best.and_then(|b| chunks.get(b));
        let evidence: Vec<[usize; 2]> =
            chunk.and_then(|c| cx.span(Side::Source, &c["span"], "AlignScore chunk")).into_iter().collect();
        let span = cx.span(Side::Summary, &s["span"], "AlignScore sentence");
        let note = match (best, chunk.and_then(|c| c["sentences"].as_object())) {
            (Some(b), Some(sents)) => format!(
                "best-supporting chunk {} of {} (abstract sentences {}–{})",
                b + 1,
                chunks.len(),
                sents.get("start").and_then(Value::as_u64).map_or(0, |x| x + 1),
                sents.get("end").and_then(Value::as_u64).unwrap_or(0)
            ),
            _ => String::new(),
        };
        if let (Some(span), Some(score)) = (span, score) {
            support.push(json!({ "span": span, "score": score, "evidence": &evidence, "note": note }));
        }
        let text = cx.slice(Side::Summary, &s["span"]).map_or(Value::Null, Value::String);
        let mut hl: Vec<Value> = evidence.iter().map(|e| hl_span(Side::Source, *e)).collect();
        hl.extend(span.map(|s| hl_span(Side::Summary, s)));
        rows.push(json!({ "cells": [k + 1, text, num(score), best.map_or(Value::Null, |b| json!(b + 1))], "hl": hl }));
    }
    let bounded = !mode.starts_with("reg");
    let label = format!("AlignScore ({mode})");
    if !support.is_empty() {
        parts.support.push(json!({
            "metric": "alignscore", "label": label, "column": "alignscore",
            "lo": 0.0, "hi": 1.0, "sentences": support,
        }));
    }
    let mut blocks = vec![json!({ "t": "kv", "items": [
        ["alignscore", num(r.score("alignscore"))],
        ["mode", mode],
        ["abstract chunks", chunks.len()],
    ]})];
    if !bounded {
        blocks.push(json!({ "t": "p", "cls": "muted", "text": "reg modes are unbounded: the shading clamps scores to [0, 1]." }));
    }
    if rows.is_empty() {
        blocks.push(json!({ "t": "p", "cls": "muted", "text": "No per-sentence scores (non-split mode or null row)." }));
    } else {
        blocks.push(json!({
            "t": "table", "caption": "Per summary sentence: the max over abstract chunks (the row score is their mean); click a row to highlight the sentence and its best chunk",
            "head": ["#", "summary sentence", "score", "best chunk"], "rows": rows, "low": [2, 0.5],
        }));
    }
    if let Some(w) = d["warnings"].as_array().filter(|w| !w.is_empty()) {
        blocks.push(json!({ "t": "table", "head": ["AlignScore warning"], "rows": w.iter().map(|x| json!([compact(x)])).collect::<Vec<_>>() }));
    }
    parts.sections.push(section("alignscore", &label, blocks));
}

fn dae(cx: &mut Cx<'_, '_>, parts: &mut Parts, d: &Value) {
    let arcs = d["arcs"].as_array().map(Vec::as_slice).unwrap_or_default();
    let mut order: Vec<&Value> = arcs.iter().collect();
    order.sort_by(|a, b| a["probability"].as_f64().unwrap_or(1.0).total_cmp(&b["probability"].as_f64().unwrap_or(1.0)));
    let mut rows = Vec::new();
    for a in order {
        let p = a["probability"].as_f64();
        let hl: Vec<Value> =
            ["head_span", "child_span"].iter().filter_map(|key| cx.span(Side::Summary, &a[*key], "DAE arc word")).map(|s| hl_span(Side::Summary, s)).collect();
        let entailed = a["entailed"].as_bool();
        let mut row = vec![a["relation"].clone(), a["head"].clone(), a["child"].clone(), num(p), json!(entailed.map_or("–", |e| if e { "yes" } else { "no" }))];
        if let Some(h) = a["hypothesis"].as_str() {
            row.push(json!(h));
        }
        rows.push(json!({ "cells": row, "hl": hl }));
    }
    let zero_shot = arcs.iter().any(|a| a["hypothesis"].is_string());
    let mut head = vec!["relation", "head", "child", "P(entailed)", "entailed"];
    if zero_shot {
        head.push("hypothesis checked");
    }
    let mut blocks = vec![json!({ "t": "kv", "items": [
        ["dae (min)", d["min"]], ["dae_mean", d["mean"]], ["dae_label", d["label"]],
        ["arcs scored", arcs.len()], ["arcs kept before the cap", d["n_arcs_kept"]],
        ["arcs without wordpieces", d["n_arcs_skipped"]], ["truncated abstract wordpieces", d["truncated_wordpieces"]],
    ]})];
    if let Some(reason) = d.get("null_reason").filter(|v| !v.is_null()) {
        blocks.push(json!({ "t": "p", "cls": "error", "text": format!("null: {}", compact(reason)) }));
    }
    if !rows.is_empty() {
        // The rows mark their words on the summary with their P(entailed) (column 3): each
        // word shows its lowest arc, flagged below 0.5, the lowest arc of the row in bold.
        blocks.push(json!({
            "t": "table",
            "caption": "Dependency arcs of the summary, lowest P(entailed) first (words marked on the summary; click a row to highlight them)",
            "head": head, "rows": rows, "low": [3, 0.5],
            "marks": { "label": "DAE arc", "score": 3, "threshold": 0.5 },
        }));
    }
    parts.sections.push(section("dae", "DAE (dependency-arc entailment)", blocks));
}

fn qa(cx: &mut Cx<'_, '_>, parts: &mut Parts, metric: &str, d: &Value) {
    let title = match metric {
        "questeval" => "QuestEval",
        "qafacteval" => "QAFactEval",
        _ => "Cloze QA",
    };
    let mut questions: Vec<&Value> = Vec::new();
    for key in ["questions", "precision_questions", "recall_questions"] {
        if let Some(q) = d[key].as_array() {
            questions.extend(q);
        }
    }
    let has = |k: &str| questions.iter().any(|q| !q[k].is_null());
    let (bert, lerc, answerability, probability) = (has("bertscore"), has("lerc_quip"), has("answerability"), has("probability"));
    let mut head = vec!["asked of", "question", "answer (asked text)", "answer (other text)"];
    if answerability {
        head.push("answerability");
    }
    if probability {
        head.push("P(answer)");
    }
    head.push("F1");
    if bert {
        head.push("BERTScore");
    }
    if lerc {
        head.push("LERC-QuIP");
    }
    head.push("kept");
    let mut rows = Vec::new();
    let mut f1_col = 0;
    for q in &questions {
        let (from, to) = match q["direction"].as_str() {
            Some("source_to_summary") => (Side::Source, Side::Summary),
            _ => (Side::Summary, Side::Source),
        };
        let asked = match from {
            Side::Summary => "summary → answered on abstract",
            Side::Source => "abstract → answered on summary",
        };
        let mut hl = Vec::new();
        if let Some(s) = cx.span(from, &q["answer_span"], &format!("{title} answer")) {
            hl.push(hl_span(from, s));
        }
        if let Some(s) = cx.span(to, &q["predicted_span"], &format!("{title} predicted answer")) {
            hl.push(hl_span(to, s));
        }
        let f1 = q["f1"].as_f64();
        let mut row = vec![
            json!(asked),
            q["question"].clone(),
            q["answer"].clone(),
            q["predicted"].clone(),
        ];
        if answerability {
            row.push(q["answerability"].clone());
        }
        if probability {
            row.push(q["probability"].clone());
        }
        f1_col = row.len();
        row.push(num(f1));
        if bert {
            row.push(q["bertscore"].clone());
        }
        if lerc {
            row.push(q["lerc_quip"].clone());
        }
        row.push(match q["consistent"].as_bool() {
            Some(false) => flagged(json!("filtered"), "muted"),
            _ => json!("yes"),
        });
        rows.push(json!({ "cells": row, "hl": hl }));
    }
    // Scalars of the detail (scores, counts) as key/value pairs.
    let items: Vec<Value> = d
        .as_object()
        .map(|o| o.iter().filter(|(_, v)| is_scalar(v)).map(|(k, v)| json!([k, v])).collect())
        .unwrap_or_default();
    let mut blocks = Vec::new();
    if !items.is_empty() {
        blocks.push(json!({ "t": "kv", "items": items }));
    }
    if rows.is_empty() {
        blocks.push(json!({ "t": "p", "cls": "muted", "text": "No question was asked." }));
    } else {
        blocks.push(json!({
            "t": "table",
            "caption": "Questions with the answers from both texts (click a row to highlight the answers)",
            "head": head, "rows": rows, "low": [f1_col, 0.5],
        }));
    }
    parts.sections.push(section(metric, title, blocks));
}

fn is_scalar(v: &Value) -> bool {
    !(v.is_object() || v.is_array())
}

/// A value as one line of text (strings as they are).
fn compact(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Generic layout of an unknown metric's detail: scalars as key/value pairs, lists of objects
/// as tables (nested values as compact JSON), nested objects recursively.
fn generic(d: &Value) -> Vec<Value> {
    let mut blocks = Vec::new();
    generic_into(d, "", &mut blocks, 0);
    if blocks.is_empty() {
        blocks.push(json!({ "t": "p", "cls": "muted", "text": "No detail." }));
    }
    blocks
}

const MAX_TABLE_ROWS: usize = 500;

/// A table of objects: one row per object, one column per key (in first-seen order), nested
/// values as compact JSON; `first` names an extra first column holding each object's key.
fn object_table<'a>(caption: String, items: impl Iterator<Item = (Option<&'a String>, &'a Value)> + Clone, first: Option<&str>) -> Value {
    let mut keys: Vec<&String> = Vec::new();
    for (_, it) in items.clone() {
        for k in it.as_object().map(Map::keys).into_iter().flatten() {
            if !keys.contains(&k) {
                keys.push(k);
            }
        }
    }
    let rows: Vec<Value> = items
        .take(MAX_TABLE_ROWS)
        .map(|(name, it)| {
            let mut row: Vec<Value> = name.map(|n| json!(n)).into_iter().collect();
            row.extend(keys.iter().map(|k| match &it[k.as_str()] {
                v if is_scalar(v) => v.clone(),
                v => json!(compact(v)),
            }));
            Value::Array(row)
        })
        .collect();
    let mut head: Vec<&str> = first.into_iter().collect();
    head.extend(keys.iter().map(|k| k.as_str()));
    json!({ "t": "table", "caption": caption, "head": head, "rows": rows })
}

fn generic_into(d: &Value, path: &str, blocks: &mut Vec<Value>, depth: usize) {
    match d {
        // An object of objects (e.g. per-element ratings keyed by element): one table.
        Value::Object(o) if o.len() >= 2 && o.values().all(Value::is_object) => {
            let last = path.rsplit('.').next().unwrap_or(path);
            blocks.push(object_table(path.to_owned(), o.iter().map(|(k, v)| (Some(k), v)), Some(if last.is_empty() { "key" } else { last })));
        }
        Value::Object(o) => {
            let items: Vec<Value> = o.iter().filter(|(_, v)| is_scalar(v)).map(|(k, v)| json!([k, v])).collect();
            if !items.is_empty() {
                if !path.is_empty() {
                    blocks.push(json!({ "t": "p", "text": path }));
                }
                blocks.push(json!({ "t": "kv", "items": items }));
            }
            for (k, v) in o.iter().filter(|(_, v)| !is_scalar(v)) {
                let p = if path.is_empty() { k.clone() } else { format!("{path}.{k}") };
                if depth >= 4 {
                    blocks.push(json!({ "t": "kv", "items": [[p, compact(v)]] }));
                } else {
                    generic_into(v, &p, blocks, depth + 1);
                }
            }
        }
        Value::Array(items) if items.iter().all(Value::is_object) && !items.is_empty() => {
            let caption = if items.len() > MAX_TABLE_ROWS {
                format!("{path} (first {MAX_TABLE_ROWS} of {})", items.len())
            } else {
                path.to_owned()
            };
            blocks.push(object_table(caption, items.iter().map(|v| (None, v)), None));
        }
        Value::Array(items) => {
            let text = items.iter().map(compact).collect::<Vec<_>>().join(", ");
            blocks.push(json!({ "t": "kv", "items": [[path, text]] }));
        }
        v => blocks.push(json!({ "t": "kv", "items": [[path, v]] })),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn unknown_metrics_are_laid_out_generically() {
        let d = json!({
            "model": "m", "elements": [
                {"element": "population", "rating": 3, "rationale": "<b>ok</b>", "quotes": ["a", "b"]},
                {"element": "comparator", "rating": 1, "rationale": "missing"}
            ]
        });
        let blocks = generic(&d);
        assert_eq!(blocks[0]["t"], "kv");
        assert_eq!(blocks[0]["items"][0], json!(["model", "m"]));
        let t = &blocks[1];
        assert_eq!(t["t"], "table");
        // serde_json objects iterate in key order
        assert_eq!(t["head"], json!(["element", "quotes", "rating", "rationale"]));
        assert_eq!(t["rows"][0], json!(["population", "[\"a\",\"b\"]", 3, "<b>ok</b>"]));
        assert_eq!(t["rows"][1][1], Value::Null);
    }

    #[test]
    fn per_element_objects_become_one_table() {
        // The shape of an LLM evaluator's detail: ratings keyed by PICO element.
        let d = json!({"elements": {
            "population": {"rating": 1, "rationale": "</script><b>x</b>", "quotes": ["240 adults"]},
            "comparator": {"rating": 3, "rationale": "placebo", "quotes": []}
        }});
        let blocks = generic(&d);
        assert_eq!(blocks.len(), 1, "{blocks:?}");
        let t = &blocks[0];
        assert_eq!(t["head"], json!(["elements", "quotes", "rating", "rationale"]));
        assert_eq!(t["rows"][0], json!(["comparator", "[]", 3, "placebo"]));
        assert_eq!(t["rows"][1], json!(["population", "[\"240 adults\"]", 1, "</script><b>x</b>"]));
    }

    #[test]
    fn dae_marks_the_lowest_arc_on_its_words() {
        let summary = "The drug cured β patients.";
        let t = Utf16::new(summary);
        let d = json!({"min": 0.2, "mean": 0.5, "label": 0, "arcs": [
            {"relation": "nsubj", "head": "cured", "child": "drug", "head_span": {"start": 9, "end": 14}, "child_span": {"start": 4, "end": 8}, "probability": 0.8, "entailed": true, "sentence": 0},
            {"relation": "amod", "head": "patients", "child": "β", "head_span": {"start": 18, "end": 26}, "child_span": {"start": 15, "end": 17}, "probability": 0.2, "entailed": false, "sentence": 0}
        ]});
        let mut problems = Vec::new();
        let mut parts = Parts::default();
        dae(&mut Cx { src: None, sum: Some(&t), problems: &mut problems }, &mut parts, &d);
        assert!(problems.is_empty(), "{problems:?}");
        let t = &parts.sections[0]["blocks"][1];
        assert_eq!(t["marks"]["score"], 3);
        let rows = t["rows"].as_array().unwrap();
        // lowest first; β is one UTF-16 unit
        assert_eq!(rows[0]["cells"][0], "amod");
        assert_eq!(rows[0]["cells"][3], 0.2);
        assert_eq!(rows[0]["hl"], json!([[1, 17, 25], [1, 15, 16]]));
        assert_eq!(rows[1]["hl"], json!([[1, 9, 14], [1, 4, 8]]));
    }

    #[test]
    fn spans_that_do_not_fit_are_reported_not_shown() {
        let t = Utf16::new("short");
        let d = json!({"arcs": [{"relation": "x", "head": "a", "child": "b", "head_span": {"start": 2, "end": 40}, "child_span": {"start": 0, "end": 1}, "probability": 0.1}]});
        let mut problems = Vec::new();
        let mut parts = Parts::default();
        dae(&mut Cx { src: None, sum: Some(&t), problems: &mut problems }, &mut parts, &d);
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert_eq!(parts.sections[0]["blocks"][1]["rows"][0]["hl"], json!([[1, 0, 1]]));
    }
}
