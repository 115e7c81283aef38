//! Plain-text rendering of a row's LLM details (`--explain`), computed from the `details` JSON
//! alone. Model output is untrusted: every reply, rationale and quote is shown escaped
//! ([`escape`]), so control characters and terminal escape sequences cannot act on the terminal.

use serde_json::Value;

/// Escapes `s` for a terminal: `\n`, `\t`, `\r`, quotes, backslashes and every control character
/// (ESC included) become Rust-style escapes; printable Unicode is kept. Long text is cut to
/// `max_chars` characters with `…`.
pub fn escape(s: &str, max_chars: usize) -> String {
    let mut out: String = s.chars().take(max_chars).flat_map(char::escape_debug).collect();
    if s.chars().count() > max_chars {
        out.push('…');
    }
    out
}

/// Quoted fragments of an extraction reply — text between `"…"` or `“…”`, trimmed, at least
/// 3 characters — each with its byte span `[start, end)` in `text` (the text it was quoted from)
/// when it occurs there verbatim. Replies without quotation marks give none.
pub fn quotes(reply: &str, text: &str) -> Vec<(String, Option<(usize, usize)>)> {
    let mut out = Vec::new();
    let mut rest = reply;
    while let Some(open) = rest.find(['"', '\u{201c}']) {
        let width = rest[open..].chars().next().map_or(1, char::len_utf8);
        let after = &rest[open + width..];
        let Some(close) = after.find(['"', '\u{201d}']) else { break };
        let q = after[..close].trim();
        if q.chars().count() >= 3 {
            let span = text.find(q).map(|s| (s, s + q.len()));
            out.push((q.to_owned(), span));
        }
        let cw = after[close..].chars().next().map_or(1, char::len_utf8);
        rest = &after[close + cw..];
    }
    out
}

fn num(v: &Value) -> String {
    v.as_f64().map_or_else(|| "null".to_owned(), |x| format!("{x}"))
}

fn rated(d: &Value) -> String {
    if let Some(e) = d.get("error").and_then(Value::as_str) {
        return format!("request failed: {}", escape(e, 300));
    }
    let mut s = format!(
        "score {} (prompt rating {})",
        num(&d["score"]),
        d["rating"].as_u64().map_or_else(|| "none".to_owned(), |r| r.to_string())
    );
    if let Some(r) = d["null_reason"].as_str() {
        s.push_str(&format!(" — null: {}", escape(r, 300)));
    }
    if d["cached"].as_bool() == Some(true) {
        s.push_str(" [cached]");
    }
    if let Some(r) = d["rationale"].as_str() {
        s.push_str(&format!("\n      rationale: \"{}\"", escape(r, 600)));
    }
    if let Some(r) = d["reply"].as_str() {
        s.push_str(&format!("\n      reply: \"{}\"", escape(r, 600)));
    }
    s
}

/// The `--explain` text of one metric's details (`metric` = `llm` or `llm_pipeline`).
pub fn explain_text(metric: &str, d: &Value) -> String {
    let mut s = format!(
        "-- {metric} ({}, structured output {})\n",
        d["protocol"].as_str().unwrap_or("?"),
        d["structured_output"].as_str().unwrap_or("?")
    );
    if let Some(x) = d.get("extraction") {
        for (k, label) in [("abstract_pico", "PICO quoted from the abstract"), ("summary_pico", "PICO quoted from the summary"), ("summary_results", "results quoted from the summary")] {
            let e = &x[k];
            if e.is_null() {
                continue;
            }
            match e.get("error").and_then(Value::as_str) {
                Some(err) => s.push_str(&format!("   {label}: request failed: {}\n", escape(err, 300))),
                None => s.push_str(&format!("   {label}: \"{}\"\n", escape(e["reply"].as_str().unwrap_or(""), 800))),
            }
        }
    }
    if let Some(els) = d["elements"].as_object() {
        for name in ["population", "intervention", "comparator", "outcome"] {
            if let Some(e) = els.get(name) {
                s.push_str(&format!("   {name}: {}\n", rated(e)));
            }
        }
    }
    for (i, e) in d["evidence"].as_array().into_iter().flatten().enumerate() {
        s.push_str(&format!("   evidence [{}] \"{}\": {}\n", i + 1, escape(e["span"].as_str().unwrap_or(""), 200), rated(e)));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_terminal_sequences() {
        let e = escape("Rating: 1\x1b[31mred\x07\nnext \"q\" β", 100);
        assert_eq!(e, "Rating: 1\\u{1b}[31mred\\u{7}\\nnext \\\"q\\\" β");
        assert!(!e.contains('\x1b'));
        assert_eq!(escape("abcdef", 3), "abc…");
    }

    #[test]
    fn quotes_are_located() {
        let text = "We enrolled 240 adults with asthma. They took budesonide.";
        let q = quotes("Population: \"240 adults with asthma\"\nIntervention: “budesonide” and \"x\" and \"not there\"", text);
        assert_eq!(q[0], ("240 adults with asthma".to_owned(), Some((12, 34))));
        assert_eq!(q[1], ("budesonide".to_owned(), Some((46, 56))));
        assert_eq!(q[2], ("not there".to_owned(), None));
        assert_eq!(q.len(), 3, "{q:?}");
        assert!(quotes("no quotation marks", text).is_empty());
        assert!(quotes("unterminated \"quote", text).is_empty());
    }

    #[test]
    fn renders_details() {
        let d = serde_json::json!({
            "protocol": "full_text", "structured_output": "off",
            "elements": {"population": {"rating": 1, "score": 4.0, "rationale": "ok", "reply": "Rating: 1\nok", "cached": true, "null_reason": null}},
            "evidence": [{"span": "s", "error": "HTTP 500: boom"}],
        });
        let t = explain_text("llm", &d);
        assert!(t.contains("population: score 4 (prompt rating 1) [cached]"), "{t}");
        assert!(t.contains("reply: \"Rating: 1\\nok\""), "{t}");
        assert!(t.contains("evidence [1] \"s\": request failed: HTTP 500: boom"), "{t}");
    }
}
