//! The per-metric parts of a row view, converted from the renderer-neutral explanation every
//! metric unit computes from the row's `details` JSON alone ([`factpico::explain`]).
//!
//! This module knows block kinds, not metrics: AlignScore, DAE, the QA metrics and any metric
//! added later (SummaC, MiniCheck, the LLM evaluators, one added through
//! `Scorer::builder().metric(..)`) appear on the page without a change here.
//!
//! Parts are renderer-neutral data that the page's script draws with `textContent`:
//! * **support** ([`ExplainBlock::SentenceSupport`] on summary sentences): a layer per block,
//!   each sentence shaded by its score on the metric's scale (the declared range of its
//!   primary column, else [0, 1]; values outside are clamped and said so) with its best
//!   evidence highlighted in the abstract on hover or click;
//! * **sections**: one per metric, with blocks `p`, `kv` and `table`. Table rows may carry
//!   `hl`, spans of either text (`[side, start, end]`, side 0 = abstract, 1 = summary, UTF-16
//!   offsets) highlighted when the row is clicked (sentences and their evidence, arcs, QA
//!   answers, quotes); a table with `marks` also marks its rows' spans on the texts with the
//!   row's score (dependency arcs: each word shows its lowest arc, the lowest arc flagged);
//!   `low: [column, threshold]` flags low values.

use factpico::explain::{ExplainBlock, MetricExplanation, Side, TextSpan};
use factpico::Report;
use serde_json::{json, Value};

use super::payload::Utf16;

/// The parts of one row.
#[derive(Debug, Default)]
pub struct Parts {
    /// Sentence support layers.
    pub support: Vec<Value>,
    /// Per-metric sections.
    pub sections: Vec<Value>,
}

/// Renders every metric explanation of `r` ([`factpico::explain_report`]: registry
/// order, then metrics outside the registry). Metrics whose explanation has no block (ROUGE,
/// readability: their scores are the chips) get no section. Spans that do not fit the texts
/// are reported in `problems` and left out.
pub fn render(r: &Report, src: Option<&Utf16<'_>>, sum: Option<&Utf16<'_>>, problems: &mut Vec<String>) -> Parts {
    let mut parts = Parts::default();
    let mut cx = Cx { src, sum, problems };
    for m in factpico::explain_report(r) {
        if m.blocks.is_empty() {
            continue;
        }
        let info = factpico::registry().into_iter().find(|i| i.name == m.metric);
        let scale = info
            .and_then(|i| i.columns.iter().find(|c| c.primary))
            .and_then(|c| Some((c.min?, c.max?)))
            .filter(|(lo, hi)| lo < hi && lo.is_finite() && hi.is_finite())
            .unwrap_or((0.0, 1.0));
        let mut blocks = Vec::new();
        if let Some(i) = info {
            blocks.push(json!({ "t": "p", "cls": "muted", "text": i.description }));
        }
        if let Some(kv) = scores_kv(&m) {
            blocks.push(kv);
        }
        for b in &m.blocks {
            cx.block(&m.metric, scale, b, &mut parts.support, &mut blocks);
        }
        parts.sections.push(json!({ "metric": m.metric, "title": m.metric, "blocks": blocks }));
    }
    parts
}

/// The metric's columns and values (a null shown with its reason).
fn scores_kv(m: &MetricExplanation) -> Option<Value> {
    let items: Vec<Value> = m
        .scores
        .iter()
        .map(|(c, v)| match v {
            Some(x) => json!([c, x]),
            None => {
                let why = m.nulls.iter().find(|(n, _)| n == c).map_or("", |(_, w)| w.as_str());
                json!([c, { "v": format!("null ({why})"), "cls": "null" }])
            }
        })
        .collect();
    (!items.is_empty()).then(|| json!({ "t": "kv", "items": items }))
}

struct Cx<'a, 'b> {
    src: Option<&'a Utf16<'a>>,
    sum: Option<&'a Utf16<'a>>,
    problems: &'b mut Vec<String>,
}

fn side_bit(side: Side) -> u8 {
    match side {
        Side::Source => 0,
        Side::Summary => 1,
    }
}

fn side_name(side: Side) -> &'static str {
    match side {
        Side::Source => "abstract",
        Side::Summary => "summary",
    }
}

fn num(v: Option<f64>) -> Value {
    v.map_or(Value::Null, |x| json!(x))
}

/// At most `n` characters of `s`, whitespace collapsed, with `…` when cut.
fn snippet(s: &str, n: usize) -> String {
    let s = s.split_whitespace().collect::<Vec<_>>().join(" ");
    let cut: String = s.chars().take(n).collect();
    if cut.len() < s.len() {
        format!("{cut}…")
    } else {
        cut
    }
}

/// Headers and cells of the optional columns of a table: a column is shown when any row has
/// a value for it.
fn optional<T>(head: &mut Vec<String>, name: &str, rows: &mut [Vec<Value>], values: impl Iterator<Item = Option<T>>, to: impl Fn(T) -> Value) {
    let values: Vec<Option<T>> = values.collect();
    if values.iter().any(Option::is_some) {
        head.push(name.to_owned());
        for (row, v) in rows.iter_mut().zip(values) {
            row.push(v.map_or(Value::Null, &to));
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

    /// A byte span as a UTF-16 span of its text; `None` (and a problem when the text is
    /// known) when it does not fit.
    fn span16(&mut self, span: &TextSpan, what: &str) -> Option<[usize; 2]> {
        let t = self.text(span.side)?;
        let s = t.span(span.start, span.end);
        if s.is_none() {
            self.problems.push(format!(
                "{what}: span [{}, {}) does not fit the {} ({} bytes)",
                span.start,
                span.end,
                side_name(span.side),
                t.text().len()
            ));
        }
        s
    }

    /// A span to highlight, compactly: `[side, start, end]`.
    fn hl(&mut self, span: Option<&TextSpan>, what: &str) -> Option<Value> {
        let span = span?;
        self.span16(span, what).map(|s| json!([side_bit(span.side), s[0], s[1]]))
    }

    /// The spanned text, when the text is known and the span fits.
    fn slice(&self, span: Option<&TextSpan>) -> Option<String> {
        let span = span?;
        self.text(span.side)?.text().get(span.start..span.end).map(str::to_owned)
    }

    fn block(&mut self, metric: &str, scale: (f64, f64), b: &ExplainBlock, support: &mut Vec<Value>, out: &mut Vec<Value>) {
        match b {
            ExplainBlock::SentenceSupport { title, sentences } => {
                let what = format!("{metric} sentence");
                let mut layer = Vec::new();
                let mut rows = Vec::new();
                let mut hls = Vec::new();
                for s in sentences {
                    let span = s.span.as_ref().and_then(|x| self.span16(x, &what).map(|u| (x.side, u)));
                    let evidence = s.evidence.as_ref().and_then(|x| self.span16(x, &format!("{metric} evidence")).map(|u| (x.side, u)));
                    let mut note: Vec<String> = Vec::new();
                    if let Some(l) = &s.label {
                        note.push(l.clone());
                    }
                    if let Some(e) = &s.evidence {
                        let score = s.evidence_score.map(|x| format!(" ({x:.4})")).unwrap_or_default();
                        note.push(format!("best evidence{score} highlighted in the {}", side_name(e.side)));
                    }
                    if let Some(n) = &s.note {
                        note.push(n.clone());
                    }
                    if let (Some((Side::Summary, span)), Some(score)) = (span, s.score) {
                        let ev: Vec<[usize; 2]> = evidence.iter().filter(|(side, _)| *side == Side::Source).map(|(_, u)| *u).collect();
                        layer.push(json!({ "span": span, "score": score, "evidence": ev, "note": note.join("; ") }));
                    }
                    let mut hl = Vec::new();
                    hl.extend(span.map(|(side, u)| json!([side_bit(side), u[0], u[1]])));
                    hl.extend(evidence.map(|(side, u)| json!([side_bit(side), u[0], u[1]])));
                    hls.push(hl);
                    rows.push(vec![
                        json!(rows.len() + 1),
                        self.slice(s.span.as_ref()).map_or(Value::Null, Value::String),
                        num(s.score),
                    ]);
                }
                let mut head: Vec<String> = ["#", "sentence", "score"].map(str::to_owned).to_vec();
                optional(&mut head, "label", &mut rows, sentences.iter().map(|s| s.label.clone()), Value::String);
                optional(&mut head, "best evidence", &mut rows, sentences.iter().map(|s| s.evidence.as_ref()), |e| {
                    json!(self.slice(Some(e)).map_or_else(|| format!("{} bytes {}–{}", side_name(e.side), e.start, e.end), |t| snippet(&t, 80)))
                });
                optional(&mut head, "evidence score", &mut rows, sentences.iter().map(|s| s.evidence_score), |x| json!(x));
                optional(&mut head, "note", &mut rows, sentences.iter().map(|s| s.note.clone()), Value::String);
                let outside = sentences.iter().filter_map(|s| s.score).filter(|x| *x < scale.0 || *x > scale.1).count();
                if !layer.is_empty() {
                    support.push(json!({
                        "metric": metric, "label": format!("{metric}: {title}"),
                        "lo": scale.0, "hi": scale.1, "sentences": layer,
                    }));
                }
                if outside > 0 {
                    out.push(json!({ "t": "p", "cls": "muted", "text": format!(
                        "{outside} sentence scores lie outside [{}, {}]: the shading clamps them.", scale.0, scale.1) }));
                }
                let rows: Vec<Value> = rows.into_iter().zip(hls).map(|(cells, hl)| json!({ "cells": cells, "hl": hl })).collect();
                out.push(json!({
                    "t": "table",
                    "caption": format!("{title} (click a row to highlight the sentence and its best evidence)"),
                    "head": head, "rows": rows, "low": [2, (scale.0 + scale.1) / 2.0],
                }));
            }
            ExplainBlock::Arcs { title, arcs } => {
                let what = format!("{metric} arc word");
                let mut rows: Vec<Vec<Value>> = arcs
                    .iter()
                    .map(|a| {
                        vec![
                            json!(a.relation),
                            json!(a.head),
                            json!(a.child),
                            num(a.probability),
                            json!(a.entailed.map_or("–", |e| if e { "yes" } else { "no" })),
                        ]
                    })
                    .collect();
                let mut head: Vec<String> = ["relation", "head", "child", "P(entailed)", "entailed"].map(str::to_owned).to_vec();
                optional(&mut head, "hypothesis checked", &mut rows, arcs.iter().map(|a| a.hypothesis.clone()), Value::String);
                let rows: Vec<Value> = rows
                    .into_iter()
                    .zip(arcs)
                    .map(|(cells, a)| {
                        let hl: Vec<Value> =
                            [a.head_span.as_ref(), a.child_span.as_ref()].into_iter().filter_map(|s| self.hl(s, &what)).collect();
                        json!({ "cells": cells, "hl": hl })
                    })
                    .collect();
                if rows.is_empty() {
                    out.push(json!({ "t": "p", "cls": "muted", "text": format!("{title}: no arc.") }));
                } else {
                    // The rows mark their words with their P(entailed) (column 3): each word shows
                    // its lowest arc, flagged below 0.5, the lowest arc of the row in bold.
                    out.push(json!({
                        "t": "table",
                        "caption": format!("{title} (words marked on the text; click a row to highlight them)"),
                        "head": head, "rows": rows, "low": [3, 0.5],
                        "marks": { "label": format!("{metric} arc"), "score": 3, "threshold": 0.5 },
                    }));
                }
            }
            ExplainBlock::Questions { title, questions } => {
                let mut names: Vec<&str> = Vec::new();
                for q in questions {
                    for (k, _) in &q.values {
                        if !names.contains(&k.as_str()) {
                            names.push(k);
                        }
                    }
                }
                let mut head: Vec<String> =
                    ["asked of", "question", "answer (asked text)", "answer (other text)"].map(str::to_owned).to_vec();
                head.extend(names.iter().map(|n| (*n).to_owned()));
                head.push("kept".into());
                let rows: Vec<Value> = questions
                    .iter()
                    .map(|q| {
                        let asked = match q.asked_on {
                            Side::Summary => "summary → answered on abstract",
                            Side::Source => "abstract → answered on summary",
                        };
                        let mut cells = vec![json!(asked), json!(q.question), json!(q.answer), json!(q.predicted)];
                        cells.extend(names.iter().map(|n| num(q.values.iter().find(|(k, _)| k == n).and_then(|(_, v)| *v))));
                        cells.push(if q.filtered { json!({ "v": "filtered", "cls": "muted" }) } else { json!("yes") });
                        let hl: Vec<Value> = [q.answer_span.as_ref(), q.predicted_span.as_ref()]
                            .into_iter()
                            .filter_map(|s| self.hl(s, &format!("{metric} answer")))
                            .collect();
                        json!({ "cells": cells, "hl": hl })
                    })
                    .collect();
                if rows.is_empty() {
                    out.push(json!({ "t": "p", "cls": "muted", "text": format!("{title}: no question was asked.") }));
                } else {
                    out.push(json!({
                        "t": "table",
                        "caption": format!("{title} (click a row to highlight the answers)"),
                        "head": head, "rows": rows,
                    }));
                }
            }
            ExplainBlock::Ratings { title, ratings } => {
                let mut rows: Vec<Vec<Value>> = ratings.iter().map(|r| vec![json!(r.element), num(r.rating)]).collect();
                let mut head: Vec<String> = ["element", "rating"].map(str::to_owned).to_vec();
                optional(&mut head, "scale", &mut rows, ratings.iter().map(|r| r.scale.clone()), Value::String);
                optional(&mut head, "rationale", &mut rows, ratings.iter().map(|r| r.rationale.clone()), Value::String);
                optional(
                    &mut head,
                    "quotes",
                    &mut rows,
                    ratings.iter().map(|r| {
                        (!r.quotes.is_empty()).then(|| {
                            r.quotes
                                .iter()
                                .map(|q| format!("“{}”{}", q.text, if q.span.is_some() { "" } else { " (not found in the texts)" }))
                                .collect::<Vec<_>>()
                                .join(" · ")
                        })
                    }),
                    Value::String,
                );
                optional(&mut head, "note", &mut rows, ratings.iter().map(|r| r.note.clone()), Value::String);
                optional(&mut head, "reply", &mut rows, ratings.iter().map(|r| r.raw.clone()), |x| json!({ "v": x, "cls": "raw" }));
                let rows: Vec<Value> = rows
                    .into_iter()
                    .zip(ratings)
                    .map(|(cells, r)| {
                        let hl: Vec<Value> =
                            r.quotes.iter().filter_map(|q| self.hl(q.span.as_ref(), &format!("{metric} quote"))).collect();
                        json!({ "cells": cells, "hl": hl })
                    })
                    .collect();
                if rows.is_empty() {
                    out.push(json!({ "t": "p", "cls": "muted", "text": format!("{title}: no rating.") }));
                } else {
                    out.push(json!({
                        "t": "table",
                        "caption": format!("{title} (click a row to highlight its quotes)"),
                        "head": head, "rows": rows,
                    }));
                }
            }
            ExplainBlock::Table { title, rows } if rows.is_empty() => {
                out.push(json!({ "t": "p", "cls": "muted", "text": format!("{title}: none") }));
            }
            ExplainBlock::Table { title, rows } => {
                let items: Vec<Value> = rows.iter().map(|(k, v)| json!([k, v])).collect();
                out.push(json!({ "t": "kv", "caption": title, "items": items }));
            }
            ExplainBlock::Text { text } => out.push(json!({ "t": "p", "text": text })),
            // A block kind added to the facade after this report: shown as its JSON.
            other => out.push(json!({
                "t": "p", "cls": "muted",
                "text": serde_json::to_string(other).unwrap_or_else(|e| format!("(a block that cannot be shown: {e})")),
            })),
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::panic)]
mod tests {
    use super::*;
    use factpico::explain::{Quote, Rating, SentenceSupport};

    fn cx<'a, 'b>(src: Option<&'a Utf16<'a>>, sum: Option<&'a Utf16<'a>>, problems: &'b mut Vec<String>) -> Cx<'a, 'b> {
        Cx { src, sum, problems }
    }

    fn span(side: Side, a: usize, b: usize) -> Option<TextSpan> {
        TextSpan::new(side, a, b)
    }

    /// DAE's explanation (computed by the unit from the detail JSON) becomes an arc table that
    /// marks its words, lowest first, with UTF-16 offsets (β is two bytes, one unit).
    #[test]
    fn arcs_mark_their_words_in_utf16() {
        let summary = "The drug cured β patients.";
        let t = Utf16::new(summary);
        let mut r = Report::default();
        r.scores.insert("dae".into(), Some(0.2));
        r.details.insert("dae".into(), json!({"min": 0.2, "mean": 0.5, "label": 0, "n_arcs_skipped": 0, "truncated_wordpieces": 0, "arcs": [
            {"relation": "nsubj", "head": "cured", "child": "drug", "head_span": {"start": 9, "end": 14}, "child_span": {"start": 4, "end": 8}, "probability": 0.8, "entailed": true, "sentence": 0},
            {"relation": "amod", "head": "patients", "child": "β", "head_span": {"start": 18, "end": 26}, "child_span": {"start": 15, "end": 17}, "probability": 0.2, "entailed": false, "sentence": 0}
        ]}));
        let mut problems = Vec::new();
        let parts = render(&r, None, Some(&t), &mut problems);
        assert!(problems.is_empty(), "{problems:?}");
        let sec = &parts.sections[0];
        assert_eq!(sec["metric"], "dae");
        let table = sec["blocks"].as_array().unwrap().iter().find(|b| b["t"] == "table").unwrap();
        assert_eq!(table["marks"]["score"], 3);
        let rows = table["rows"].as_array().unwrap();
        assert_eq!(rows[0]["cells"][0], "amod");
        assert_eq!(rows[0]["cells"][3], 0.2);
        assert_eq!(rows[0]["hl"], json!([[1, 17, 25], [1, 15, 16]]));
        assert_eq!(rows[1]["hl"], json!([[1, 9, 14], [1, 4, 8]]));
        // The metric's scores head the section.
        let kv = sec["blocks"].as_array().unwrap().iter().find(|b| b["t"] == "kv").unwrap();
        assert_eq!(kv["items"][0], json!(["dae", 0.2]));
    }

    #[test]
    fn spans_that_do_not_fit_are_reported_not_shown() {
        let t = Utf16::new("short");
        let mut problems = Vec::new();
        let mut out = Vec::new();
        let b = ExplainBlock::Arcs {
            title: "arcs".into(),
            arcs: vec![factpico::explain::Arc {
                relation: "x".into(),
                head: "a".into(),
                child: "b".into(),
                head_span: span(Side::Summary, 2, 40),
                child_span: span(Side::Summary, 0, 1),
                probability: Some(0.1),
                entailed: None,
                hypothesis: None,
            }],
        };
        cx(None, Some(&t), &mut problems).block("m", (0.0, 1.0), &b, &mut Vec::new(), &mut out);
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert_eq!(out[0]["rows"][0]["hl"], json!([[1, 0, 1]]));
    }

    /// Sentence support on a [-1, 1] scale (e.g. SummaC zero-shot): a shading layer on that
    /// scale with the evidence in the abstract, and a table; a score outside is said to be
    /// clamped; only the columns some sentence fills are shown.
    #[test]
    fn sentence_support_layer_and_table() {
        let (source, summary) = ("Adults took the drug. Blood pressure fell.", "Adults took it. Pressure rose.");
        let (s16, m16) = (Utf16::new(source), Utf16::new(summary));
        let b = ExplainBlock::SentenceSupport {
            title: "summary sentences".into(),
            sentences: vec![
                SentenceSupport { span: span(Side::Summary, 0, 15), score: Some(0.9), label: None, evidence: span(Side::Source, 0, 21), evidence_score: None, note: None },
                SentenceSupport { span: span(Side::Summary, 16, 30), score: Some(-1.5), label: None, evidence: span(Side::Source, 22, 42), evidence_score: None, note: None },
            ],
        };
        let (mut problems, mut support, mut out) = (Vec::new(), Vec::new(), Vec::new());
        cx(Some(&s16), Some(&m16), &mut problems).block("summac", (-1.0, 1.0), &b, &mut support, &mut out);
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(support[0]["lo"], -1.0);
        assert_eq!(support[0]["sentences"][1]["span"], json!([16, 30]));
        assert_eq!(support[0]["sentences"][1]["evidence"], json!([[22, 42]]));
        assert!(out[0]["text"].as_str().unwrap().contains("1 sentence scores lie outside [-1, 1]"), "{out:?}");
        let t = &out[1];
        assert_eq!(t["head"], json!(["#", "sentence", "score", "best evidence"]));
        assert_eq!(t["rows"][1]["cells"], json!([2, "Pressure rose.", -1.5, "Blood pressure fell."]));
        assert_eq!(t["rows"][1]["hl"], json!([[1, 16, 30], [0, 22, 42]]));
        assert_eq!(t["low"], json!([2, 0.0]));
    }

    /// Per-element ratings (the LLM evaluators): rationale, quotes (those found highlight on
    /// click) and the raw reply, all as data for textContent.
    #[test]
    fn ratings_with_quotes() {
        let source = "240 adults with asthma.";
        let s16 = Utf16::new(source);
        let b = ExplainBlock::Ratings {
            title: "ratings".into(),
            ratings: vec![Rating {
                element: "population".into(),
                rating: Some(2.0),
                scale: None,
                rationale: Some("</script><b>x</b>".into()),
                raw: Some("{\"rating\": 2}".into()),
                quotes: vec![Quote { text: "240 adults".into(), span: span(Side::Source, 0, 10) }, Quote { text: "children".into(), span: None }],
                note: None,
            }],
        };
        let (mut problems, mut out) = (Vec::new(), Vec::new());
        cx(Some(&s16), None, &mut problems).block("llm", (0.0, 1.0), &b, &mut Vec::new(), &mut out);
        let t = &out[0];
        assert_eq!(t["head"], json!(["element", "rating", "rationale", "quotes", "reply"]));
        assert_eq!(
            t["rows"][0]["cells"],
            json!(["population", 2.0, "</script><b>x</b>", "“240 adults” · “children” (not found in the texts)", {"v": "{\"rating\": 2}", "cls": "raw"}])
        );
        assert_eq!(t["rows"][0]["hl"], json!([[0, 0, 10]]));
    }

    /// A metric outside the registry gets the facade's generic explanation (its detail's
    /// scalars as a table) under its own name.
    #[test]
    fn unknown_metrics_show_their_generic_explanation() {
        let mut r = Report::default();
        r.scores.insert("my_metric".into(), Some(0.5));
        r.details.insert("my_metric".into(), json!({"n": 3, "items": [1, 2]}));
        let parts = render(&r, None, None, &mut Vec::new());
        let sec = &parts.sections[0];
        assert_eq!(sec["metric"], "my_metric");
        let kv: Vec<&Value> = sec["blocks"].as_array().unwrap().iter().filter(|b| b["t"] == "kv").collect();
        assert_eq!(kv[0]["items"], json!([["my_metric", 0.5]]));
        assert_eq!(kv[1]["caption"], "detail");
        assert_eq!(kv[1]["items"], json!([["items", "[2 items]"], ["n", "3"]]));
    }
}
