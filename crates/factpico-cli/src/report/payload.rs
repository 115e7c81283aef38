//! The data a report page embeds, and how it is embedded.
//!
//! * The **index** (one `<script type="application/json" id="fp-index">`): the columns and, per
//!   row, `[row, id, system index or -1, flags, skipped, value per column...]`; parsed at load
//!   time for the row list.
//! * One **row payload** per row (`id="fp-r-<i>"`) and one block per distinct abstract
//!   (`id="fp-s-<k>"`), parsed only when a row is opened: a 10,000-row page opens as fast as
//!   its index parses.
//!
//! Offsets in payloads are UTF-16 code units (what JavaScript strings index), converted from
//! the byte offsets of the score rows. JSON is embedded with `<`, `>` and `&` written as
//! `\u003c`, `\u003e`, `\u0026`, so no text can end the script block (`</script>`) or open a
//! comment in it.

use serde::Serialize;
use serde_json::{json, Value};

use factpico::Report;

/// A score column as the page describes it.
#[derive(Debug, Clone, Serialize)]
pub struct Column {
    /// Column name (`scores.<name>`).
    pub name: String,
    /// Registry description.
    pub description: String,
    /// Whether higher is better.
    pub higher: bool,
    /// A metric's headline column (shown in the list and the overview).
    pub primary: bool,
    /// The metric that writes it (empty when unknown).
    pub metric: String,
}

/// Row flag bits of the index.
pub const FLAG_NULLS: u8 = 1;
/// The row has warnings.
pub const FLAG_WARNINGS: u8 = 2;
/// The row has metric errors.
pub const FLAG_ERRORS: u8 = 4;

/// Serialises `value` as JSON that is safe inside a `<script>` element: `<`, `>` and `&`
/// (which only occur inside JSON strings) become `\u003c`, `\u003e`, `\u0026`.
///
/// # Errors
/// A value serde_json cannot serialise (non-string map keys).
pub fn embed<T: Serialize + ?Sized>(value: &T) -> serde_json::Result<String> {
    let s = serde_json::to_string(value)?;
    let mut out = String::with_capacity(s.len() + 16);
    for c in s.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            c => out.push(c),
        }
    }
    Ok(out)
}

/// The index of all rows: `systems` (sorted) and per row
/// `[row, id, system index or -1, flags, skipped, values...]` in `columns` order.
pub fn index(reports: &[Report], columns: &[Column]) -> Value {
    let systems: Vec<&str> = {
        let set: std::collections::BTreeSet<&str> = reports.iter().filter_map(|r| r.system.as_deref()).collect();
        set.into_iter().collect()
    };
    let rows: Vec<Value> = reports
        .iter()
        .map(|r| {
            let sys = r.system.as_deref().and_then(|s| systems.binary_search(&s).ok()).map_or(-1, |i| i as i64);
            let mut flags = 0u8;
            if !r.nulls.is_empty() {
                flags |= FLAG_NULLS;
            }
            if !r.warnings.is_empty() {
                flags |= FLAG_WARNINGS;
            }
            if !r.errors.is_empty() {
                flags |= FLAG_ERRORS;
            }
            let mut row = vec![json!(r.row), json!(r.id.as_deref().unwrap_or("")), json!(sys), json!(flags), json!(r.skipped.is_some())];
            row.extend(columns.iter().map(|c| json!(r.score(&c.name))));
            Value::Array(row)
        })
        .collect();
    json!({ "columns": columns, "systems": systems, "rows": rows })
}

/// Byte offsets of one text → UTF-16 offsets.
pub struct Utf16<'a> {
    text: &'a str,
    /// (byte offset, UTF-16 offset) at every char boundary, plus the end.
    table: Vec<(usize, usize)>,
}

impl<'a> Utf16<'a> {
    /// The conversion table of `text`.
    pub fn new(text: &'a str) -> Self {
        let mut table = Vec::with_capacity(text.len() + 1);
        let mut u = 0;
        for (b, c) in text.char_indices() {
            table.push((b, u));
            u += c.len_utf16();
        }
        table.push((text.len(), u));
        Self { text, table }
    }

    /// The text.
    pub fn text(&self) -> &'a str {
        self.text
    }

    /// UTF-16 offset of byte offset `b`; `None` when `b` is not a char boundary of the text.
    pub fn at(&self, b: usize) -> Option<usize> {
        self.table.binary_search_by_key(&b, |&(byte, _)| byte).ok().map(|i| self.table[i].1)
    }

    /// A byte span `[start, end)` as a UTF-16 span; `None` when it does not fit the text.
    pub fn span(&self, start: usize, end: usize) -> Option<[usize; 2]> {
        if start > end {
            return None;
        }
        Some([self.at(start)?, self.at(end)?])
    }
}

/// Builds the row payload of `r` (texts given when verified).
pub fn row(r: &Report, source: Option<(usize, &str)>, summary: Option<&str>) -> Value {
    let mut problems: Vec<String> = Vec::new();
    let src16 = source.map(|(_, s)| Utf16::new(s));
    let sum16 = summary.map(Utf16::new);
    let mut spans = |side: Option<&Utf16<'_>>, list: &[[usize; 2]], what: &str| -> Vec<[usize; 2]> {
        let Some(t) = side else { return Vec::new() };
        let mut out = Vec::with_capacity(list.len());
        for &[a, b] in list {
            match t.span(a, b) {
                Some(s) => out.push(s),
                None => problems.push(format!("{what} span [{a}, {b}) does not fit the text ({} bytes)", t.text().len())),
            }
        }
        out
    };
    // Rows record sentence spans only with `score --sentences` (output schema 3): otherwise
    // they are recomputed from the texts (the same Punkt segmentation).
    let sentences = match &r.sentences {
        Some(s) => s.clone(),
        None => factpico::Sentences::of(source.map_or("", |(_, s)| s), summary.unwrap_or("")),
    };
    let sent_source = spans(src16.as_ref(), &sentences.source, "abstract sentence");
    let sent_summary = spans(sum16.as_ref(), &sentences.summary, "summary sentence");
    let parts = super::explain::render(r, src16.as_ref(), sum16.as_ref(), &mut problems);
    let pairs = |v: &[factpico::Warning]| -> Vec<[String; 2]> {
        v.iter().map(|w| [w.metric.clone(), w.message.clone()]).collect()
    };
    let nulls: Vec<[&String; 2]> = r.nulls.iter().map(|(c, why)| [c, why]).collect();
    json!({
        "src": source.map(|(k, _)| k),
        "sum": summary,
        "sent": { "source": sent_source, "summary": sent_summary },
        "support": parts.support,
        "sections": parts.sections,
        "nulls": nulls,
        "warnings": pairs(&r.warnings),
        "errors": pairs(&r.errors),
        "skipped": r.skipped,
        "problems": problems,
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn embedded_json_cannot_end_a_script_block() {
        let v = json!({"s": "</script><script>alert(1)</script><!-- & -->", "k<": 1});
        let e = embed(&v).unwrap();
        assert!(!e.contains('<') && !e.contains('>') && !e.contains('&'), "{e}");
        // Still the same JSON.
        let back: Value = serde_json::from_str(&e).unwrap();
        assert_eq!(back, v);
    }

    #[test]
    fn utf16_offsets() {
        // β (2 bytes, 1 unit), 𝛃 (4 bytes, 2 units), ≥ (3 bytes, 1 unit)
        let t = "aβ𝛃≥b";
        let u = Utf16::new(t);
        assert_eq!(u.at(0), Some(0));
        assert_eq!(u.at(1), Some(1));
        assert_eq!(u.at(3), Some(2));
        assert_eq!(u.at(7), Some(4));
        assert_eq!(u.at(10), Some(5));
        assert_eq!(u.at(11), Some(6));
        assert_eq!(u.at(2), None, "inside β");
        assert_eq!(u.span(3, 7), Some([2, 4]));
        assert_eq!(u.span(0, 12), None, "past the end");
        assert_eq!(u.span(3, 1), None);
        assert_eq!("aβ𝛃≥b".encode_utf16().count(), 6);
    }
}
