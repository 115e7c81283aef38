//! Renderer-neutral explanations of a scored row.
//!
//! Each metric unit turns its part of a row's `details` (the JSON the metric wrote) into
//! [`ExplainBlock`]s — per-sentence support with byte spans and best evidence, dependency
//! arcs, questions, per-element ratings, key/value tables, text — **from the JSON alone**:
//! no model is loaded, so a report can be rendered from a score file written elsewhere,
//! by any build. `factpico score --explain` prints them as text ([`render_text`]); the
//! HTML report renders the same blocks as HTML. A metric without a unit-specific
//! explanation (one added through [`crate::ScorerBuilder::metric`]) gets the generic one
//! ([`generic`]: its detail's scalar fields as a table).
//!
//! All text in the blocks (questions, answers, LLM rationales and replies) is untrusted
//! data: renderers must escape it. Byte spans index the row's source or summary text
//! ([`Side`]); they are `[start, end)` byte offsets, as in `Report::sentences`.

use serde::{Deserialize, Serialize};

use crate::report::Report;

/// Which text of the pair a span indexes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Side {
    /// The abstract (premise, reference).
    Source,
    /// The plain-language summary (hypothesis, claim).
    Summary,
}

impl Side {
    /// The other text.
    pub fn other(self) -> Self {
        match self {
            Side::Source => Side::Summary,
            Side::Summary => Side::Source,
        }
    }
}

/// A byte span `[start, end)` of one of the pair's texts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct TextSpan {
    /// Which text.
    pub side: Side,
    /// Byte offset of the first byte.
    pub start: usize,
    /// Byte offset one past the last byte.
    pub end: usize,
}

impl TextSpan {
    /// The span, when it is valid (`start <= end`).
    pub fn new(side: Side, start: usize, end: usize) -> Option<Self> {
        (start <= end).then_some(Self { side, start, end })
    }

    /// The spanned text of `texts`, when the span fits it on character boundaries.
    pub fn text<'a>(&self, texts: &RowTexts<'a>) -> Option<&'a str> {
        let t = match self.side {
            Side::Source => texts.source,
            Side::Summary => texts.summary,
        };
        t.get(self.start..self.end)
    }
}

/// The row's texts, when the renderer has them (the CLI does; a report re-reads the input).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RowTexts<'a> {
    /// The abstract.
    pub source: &'a str,
    /// The summary.
    pub summary: &'a str,
}

/// How well one summary sentence (or claim) is supported, and by what.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SentenceSupport {
    /// The sentence (usually in the summary).
    pub span: Option<TextSpan>,
    /// Its score (e.g. max over chunks of P(aligned)); `None` when not scored.
    pub score: Option<f64>,
    /// A label (e.g. `supported` / `unsupported`), when the metric gives one.
    pub label: Option<String>,
    /// The best evidence for it (e.g. the source chunk giving the max).
    pub evidence: Option<TextSpan>,
    /// The evidence's score, when it differs from `score`.
    pub evidence_score: Option<f64>,
    /// Why it was not scored, or another remark (e.g. "after the first 10 sentences").
    pub note: Option<String>,
}

/// One scored dependency arc of the summary.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Arc {
    /// Relation (`nsubj`, `nmod:in`, ...).
    pub relation: String,
    /// Head word.
    pub head: String,
    /// Child word.
    pub child: String,
    /// The head's span in the summary.
    pub head_span: Option<TextSpan>,
    /// The child's span in the summary.
    pub child_span: Option<TextSpan>,
    /// P(entailed), `[0, 1]`.
    pub probability: Option<f64>,
    /// Whether the arc's argmax is "entailed".
    pub entailed: Option<bool>,
    /// The hypothesis text checked (zero-shot variants).
    pub hypothesis: Option<String>,
}

/// One question of a QA-based metric.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Question {
    /// The text the question was generated from (the answer is in it).
    pub asked_on: Side,
    /// The question (or the cloze sentence with the answer masked).
    pub question: String,
    /// The selected answer on `asked_on`.
    pub answer: String,
    /// Its span.
    pub answer_span: Option<TextSpan>,
    /// The answer found on the other text.
    pub predicted: String,
    /// Its span, when it occurs there verbatim.
    pub predicted_span: Option<TextSpan>,
    /// Named per-question values, in display order (`answerability`, `F1`, `BERTScore`, ...).
    pub values: Vec<(String, Option<f64>)>,
    /// Dropped by a filter (e.g. QAFactEval's consistency filter).
    pub filtered: bool,
}

/// A quotation an evaluator gave as evidence.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Quote {
    /// The quoted text, as the evaluator wrote it.
    pub text: String,
    /// Where it was found, when it was.
    pub span: Option<TextSpan>,
}

/// One element's rating (e.g. an LLM evaluator's rating of the Population element).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Rating {
    /// The element (`Population`, `Intervention`, ..., or `overall`).
    pub element: String,
    /// The rating, when one was given.
    pub rating: Option<f64>,
    /// The scale, e.g. `1-4`.
    pub scale: Option<String>,
    /// The evaluator's rationale.
    pub rationale: Option<String>,
    /// The raw reply it was parsed from.
    pub raw: Option<String>,
    /// Quotations given as evidence.
    pub quotes: Vec<Quote>,
    /// Why there is no rating, or another remark.
    pub note: Option<String>,
}

/// One renderer-neutral block of a metric's explanation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum ExplainBlock {
    /// Per-sentence (or per-claim) support, in sentence order.
    SentenceSupport {
        /// Caption (e.g. "summary sentences, max over abstract chunks").
        title: String,
        /// One entry per sentence.
        sentences: Vec<SentenceSupport>,
    },
    /// Scored dependency arcs, lowest probability first.
    Arcs {
        /// Caption.
        title: String,
        /// The arcs.
        arcs: Vec<Arc>,
    },
    /// Questions with their answers on both texts.
    Questions {
        /// Caption.
        title: String,
        /// The questions.
        questions: Vec<Question>,
    },
    /// Per-element ratings.
    Ratings {
        /// Caption.
        title: String,
        /// The ratings.
        ratings: Vec<Rating>,
    },
    /// A key/value table.
    Table {
        /// Caption.
        title: String,
        /// `(key, value)` rows, values already formatted.
        rows: Vec<(String, String)>,
    },
    /// Free text.
    Text {
        /// The text.
        text: String,
    },
}

/// The explanation of one metric of a row: its column values and its blocks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MetricExplanation {
    /// Metric name.
    pub metric: String,
    /// `(column, value)` of the metric's registry columns present in the row, in registry
    /// order (every column of the row's scores for a metric outside the registry).
    pub scores: Vec<(String, Option<f64>)>,
    /// Column → why it is null.
    pub nulls: Vec<(String, String)>,
    /// The blocks.
    pub blocks: Vec<ExplainBlock>,
}

/// The generic explanation: the scalar top-level fields of `detail` as a table (nested
/// values summarised by their size).
pub fn generic(detail: &serde_json::Value) -> Vec<ExplainBlock> {
    use serde_json::Value;
    let Value::Object(map) = detail else {
        return if detail.is_null() { Vec::new() } else { vec![ExplainBlock::Text { text: detail.to_string() }] };
    };
    let rows = map
        .iter()
        .map(|(k, v)| {
            let shown = match v {
                Value::Array(a) => format!("[{} items]", a.len()),
                Value::Object(o) => format!("{{{} fields}}", o.len()),
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            (k.clone(), shown)
        })
        .collect();
    vec![ExplainBlock::Table { title: "detail".into(), rows }]
}

pub(crate) fn nulls_of<'a>(report: &Report, columns: impl Iterator<Item = &'a str>) -> Vec<(String, String)> {
    columns.filter_map(|c| report.nulls.get(c).map(|r| (c.to_owned(), r.clone()))).collect()
}

/// Untrusted text (model output) for a terminal: control characters — newlines, escape
/// sequences, bells — become visible escapes (`\n`, `\u{1b}`), so a reply cannot move the
/// cursor, recolour or rewrite the terminal; printable Unicode is kept.
pub fn escape_untrusted(text: &str) -> String {
    text.chars().map(|c| if c.is_control() { c.escape_debug().to_string() } else { c.to_string() }).collect()
}

fn num(v: Option<f64>, digits: usize) -> String {
    v.map_or_else(|| "–".to_owned(), |x| format!("{x:.digits$}"))
}

/// Quoted span text (cut to 80 characters), when the texts are known.
fn quoted(span: Option<&TextSpan>, texts: Option<&RowTexts<'_>>) -> String {
    match (span, texts) {
        (Some(s), Some(t)) => match s.text(t) {
            Some(x) => {
                let x = x.split_whitespace().collect::<Vec<_>>().join(" ");
                let cut: String = x.chars().take(80).collect();
                if cut.len() < x.len() {
                    format!("\"{cut}…\"")
                } else {
                    format!("\"{cut}\"")
                }
            }
            None => format!("[{}..{}]", s.start, s.end),
        },
        (Some(s), None) => format!("{} [{}..{}]", side_name(s.side), s.start, s.end),
        (None, _) => String::new(),
    }
}

fn side_name(s: Side) -> &'static str {
    match s {
        Side::Source => "abstract",
        Side::Summary => "summary",
    }
}

/// Plain-text rendering of a row's explanation, as `factpico score --explain` prints it
/// (a header line per row, a `-- metric: column=value ...` line per metric, then its
/// blocks, then the null reasons); `explained` is the row's [`crate::explain_report`]. With
/// `texts`, spans are shown as the quoted text.
pub fn render_text(report: &Report, explained: &[MetricExplanation], texts: Option<&RowTexts<'_>>) -> String {
    use std::fmt::Write as _;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "== row {} id {}{}",
        report.row.unwrap_or(0),
        report.id.as_deref().unwrap_or("?"),
        report.system.as_deref().map(|x| format!(" ({x})")).unwrap_or_default()
    );
    if let Some(reason) = &report.skipped {
        let _ = writeln!(s, "   skipped: {reason}");
    }
    for m in explained {
        if m.blocks.is_empty() {
            continue;
        }
        let scores: Vec<String> = m
            .scores
            .iter()
            .map(|(c, v)| format!("{c}={}", v.map_or_else(|| "null".to_owned(), |x| format!("{x:.4}"))))
            .collect();
        let _ = writeln!(s, "-- {}: {}", m.metric, scores.join(" "));
        for b in &m.blocks {
            s.push_str(&block_text(b, texts));
        }
    }
    for (col, reason) in &report.nulls {
        let _ = writeln!(s, "   {col}: null ({reason})");
    }
    s
}

/// Plain-text rendering of one block (indented lines).
pub fn block_text(block: &ExplainBlock, texts: Option<&RowTexts<'_>>) -> String {
    use std::fmt::Write as _;
    let mut s = String::new();
    match block {
        ExplainBlock::SentenceSupport { title, sentences } => {
            let _ = writeln!(s, "   {title} ({} sentences)", sentences.len());
            for (i, x) in sentences.iter().enumerate() {
                let mut line = format!("   [{}] {} {}", i + 1, num(x.score, 3), quoted(x.span.as_ref(), texts));
                if let Some(l) = &x.label {
                    let _ = write!(line, " [{l}]");
                }
                if x.evidence.is_some() {
                    let _ = write!(line, " | best evidence: {}", quoted(x.evidence.as_ref(), texts));
                    if x.evidence_score.is_some() {
                        let _ = write!(line, " ({})", num(x.evidence_score, 3));
                    }
                }
                if let Some(n) = &x.note {
                    let _ = write!(line, " ({n})");
                }
                let _ = writeln!(s, "{line}");
            }
        }
        ExplainBlock::Arcs { title, arcs } => {
            let _ = writeln!(s, "   {title} ({} arcs; lowest first)", arcs.len());
            for a in arcs {
                let _ = writeln!(s, "   {}({}, {}) P(entailed) {}", a.relation, a.head, a.child, num(a.probability, 3));
            }
        }
        ExplainBlock::Questions { title, questions } => {
            let _ = writeln!(s, "   {title} ({} questions)", questions.len());
            for q in questions {
                let dir = match q.asked_on {
                    Side::Summary => "summary_to_source",
                    Side::Source => "source_to_summary",
                };
                let values: String = q.values.iter().map(|(k, v)| format!(" | {k} {}", num(*v, 3))).collect();
                let filtered = if q.filtered { " [filtered]" } else { "" };
                let _ = writeln!(
                    s,
                    "   [{dir}] Q: {} | answer: {} | other side: {}{values}{filtered}",
                    q.question, q.answer, q.predicted
                );
            }
        }
        ExplainBlock::Ratings { title, ratings } => {
            let _ = writeln!(s, "   {title}");
            for r in ratings {
                let scale = r.scale.as_deref().map(|x| format!(" ({x})")).unwrap_or_default();
                let _ = writeln!(s, "   {}: {}{scale}", r.element, num(r.rating, 0));
                if let Some(x) = &r.rationale {
                    let _ = writeln!(s, "      rationale: {}", escape_untrusted(x));
                }
                for q in &r.quotes {
                    let found = match &q.span {
                        Some(sp) => format!(" ({} [{}..{}])", side_name(sp.side), sp.start, sp.end),
                        None => " (not found in the texts)".to_owned(),
                    };
                    let _ = writeln!(s, "      quote: \"{}\"{found}", escape_untrusted(&q.text));
                }
                if let Some(x) = &r.raw {
                    let _ = writeln!(s, "      raw reply: \"{}\"", escape_untrusted(x));
                }
                if let Some(n) = &r.note {
                    let _ = writeln!(s, "      note: {}", escape_untrusted(n));
                }
            }
        }
        ExplainBlock::Table { title, rows } if rows.is_empty() => {
            let _ = writeln!(s, "   {title}: none");
        }
        ExplainBlock::Table { title, rows } => {
            let _ = writeln!(s, "   {title}:");
            for (k, v) in rows {
                let _ = writeln!(s, "      {k}: {v}");
            }
        }
        ExplainBlock::Text { text } => {
            for l in text.lines() {
                let _ = writeln!(s, "   {l}");
            }
        }
    }
    s
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]
    use super::*;

    /// AlignScore's detail alone (no model) gives per-sentence support with the best chunk as
    /// evidence; the text rendering quotes both from the row's texts.
    #[test]
    fn alignscore_detail_renders_from_json_alone() {
        let source = "Adults took the drug. Blood pressure fell.";
        let summary = "Adults took it. Pressure rose.";
        let detail = serde_json::json!({
            "score": 0.5, "null_reason": null, "mode": "nli_sp", "warnings": [],
            "sentences": [
                {"span": {"start": 0, "end": 15}, "score": 0.9, "best_chunk": 0},
                {"span": {"start": 16, "end": 30}, "score": 0.1, "best_chunk": 1}
            ],
            "chunks": [
                {"span": {"start": 0, "end": 21}, "sentences": {"start": 0, "end": 1}},
                {"span": {"start": 22, "end": 42}, "sentences": {"start": 1, "end": 2}}
            ]
        });
        let blocks = crate::explain_metric("alignscore", &detail);
        let ExplainBlock::SentenceSupport { sentences, .. } = &blocks[0] else { panic!("{blocks:?}") };
        assert_eq!(sentences[1].span, TextSpan::new(Side::Summary, 16, 30));
        assert_eq!(sentences[1].evidence, TextSpan::new(Side::Source, 22, 42));
        let mut r = Report { id: Some("r1".into()), ..Report::default() };
        r.scores.insert("alignscore".into(), Some(0.5));
        r.details.insert("alignscore".into(), detail);
        let text = render_text(&r, &crate::explain_report(&r), Some(&RowTexts { source, summary }));
        assert!(text.contains("-- alignscore: alignscore=0.5000"), "{text}");
        assert!(text.contains("[2] 0.100 \"Pressure rose.\" | best evidence: \"Blood pressure fell.\""), "{text}");
    }

    /// DAE arcs come lowest first; an unknown metric's detail gets the generic table.
    #[test]
    fn dae_arcs_sorted_and_unknown_details_generic() {
        let arc = |rel: &str, p: f64| serde_json::json!({"relation": rel, "head": "h", "child": "c", "head_span": {"start": 0, "end": 1}, "child_span": {"start": 2, "end": 3}, "sentence": 0, "probability": p, "entailed": p > 0.5});
        let d = serde_json::json!({"arcs": [arc("nsubj", 0.9), arc("dobj", 0.2)], "n_arcs_skipped": 0, "truncated_wordpieces": 0});
        let ExplainBlock::Arcs { arcs, .. } = &crate::explain_metric("dae", &d)[0] else { panic!() };
        assert_eq!(arcs.iter().map(|a| a.relation.as_str()).collect::<Vec<_>>(), ["dobj", "nsubj"]);
        let g = crate::explain_metric("my_metric", &serde_json::json!({"n": 3, "items": [1, 2]}));
        assert_eq!(
            g,
            vec![ExplainBlock::Table {
                title: "detail".into(),
                rows: vec![("items".into(), "[2 items]".into()), ("n".into(), "3".into())]
            }]
        );
        // A detail the unit cannot read falls back to the generic table instead of failing.
        assert!(matches!(&crate::explain_metric("dae", &serde_json::json!({"arcs": "?"}))[0], ExplainBlock::Table { .. }));
    }
}
