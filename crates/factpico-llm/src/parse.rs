//! Reading a rating out of a reply — strictly, never guessing — and mapping it onto FactPICO's
//! human scale.
//!
//! # Scales
//!
//! | prompt | prompt's scale | human scale (higher is better) |
//! |---|---|---|
//! | P/I/C/O (full text and pipeline) | 1 accurate · 2 vague or somewhat inaccurate · 3 inaccurate or missing critical descriptors · 4 missing · 5 N/A | 4 · 3 · 2 · 1 · null (N/A) |
//! | R (evidence inference, both) | 1 accurate · 2 vague or slightly inaccurate · 3 critically inaccurate · 4 missing | 4 · 3 · 2 · 1 |
//!
//! i.e. `human = 5 − prompt rating`, and the P/I/C/O prompts' 5 ("N/A") is a documented null.
//!
//! # Free-text replies (the paper's format; also the `grammar` mode's)
//!
//! 1. A rating is the label `Rating:` — case-insensitive, optionally in Markdown bold
//!    (`**Rating:** 2`, `**Rating**: 2`) — followed by optional spaces/asterisks and then an
//!    integer, or `N/A` / `NA` (only on the P/I/C/O scale, where it means 5). Anything after
//!    the number is ignored (`Rating: 2/5`, `Rating: 2 - vague`). A bare number without the
//!    label is never read as a rating.
//! 2. No label → null (`no "Rating:" in the reply`, noting a reply cut at `max_tokens`). A
//!    decimal (`Rating: 2.5`) → null (`not an integer`). A number outside the prompt's scale →
//!    null (`out of range`). Several labels with different values → null (`ambiguous`);
//!    repeated identical values are fine.
//! 3. The rationale is the text after a `Rationale:` label when there is one, else the reply
//!    without the `Rating: N` label, trimmed; `None` when empty.
//!
//! # JSON replies (`json-schema` mode)
//!
//! The reply must be one JSON object with an integer `rating` (and a string `rationale`);
//! invalid JSON (typically a reply cut at `max_tokens`), a missing / non-integer / out-of-scale
//! `rating` are nulls with the reason. No fallback to the free-text rules.
//!
//! In every case the raw reply is kept in the row's details.

use std::sync::OnceLock;

use regex::Regex;
use serde::Serialize;

/// The rating scale a prompt asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Scale {
    /// P/I/C/O prompts: 1–4, and 5 = N/A.
    PicoWithNa,
    /// Evidence-inference prompts: 1–4.
    Result,
}

impl Scale {
    /// Ratings the prompt allows (the JSON schema's enum, the grammar's class).
    pub fn allowed(self) -> &'static [u8] {
        match self {
            Self::PicoWithNa => &[1, 2, 3, 4, 5],
            Self::Result => &[1, 2, 3, 4],
        }
    }

    /// The human-scale value of a prompt rating: `Some(5 − r)` for 1–4; `None` for 5 (N/A on
    /// the P/I/C/O scale) and anything outside the scale.
    pub fn to_human(self, rating: u8) -> Option<f64> {
        match (self, rating) {
            (_, 1..=4) => Some(f64::from(5 - rating)),
            _ => None,
        }
    }
}

/// What was read from one reply.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Parsed {
    /// The rating on the prompt's scale, when one was read (5 = N/A for P/I/C/O).
    pub rating: Option<u8>,
    /// FactPICO's human scale (4 accurate … 1 missing); `None` with `null_reason` set.
    pub score: Option<f64>,
    /// The rationale, when the reply has one.
    pub rationale: Option<String>,
    /// Why `score` is null (N/A, no rating, out of range, ambiguous, invalid JSON).
    pub null_reason: Option<String>,
}

impl Parsed {
    fn null(reason: impl Into<String>, rationale: Option<String>) -> Self {
        Self { rating: None, score: None, rationale, null_reason: Some(reason.into()) }
    }

    fn rated(scale: Scale, rating: u8, rationale: Option<String>) -> Self {
        match scale.to_human(rating) {
            Some(score) => Self { rating: Some(rating), score: Some(score), rationale, null_reason: None },
            None if scale == Scale::PicoWithNa && rating == 5 => Self {
                rating: Some(5),
                score: None,
                rationale,
                null_reason: Some("N/A: the model rated the element not applicable (rating 5)".into()),
            },
            None => Self::null(out_of_range(scale, &rating.to_string()), rationale),
        }
    }
}

fn out_of_range(scale: Scale, value: &str) -> String {
    let a = scale.allowed();
    format!("rating {value} is out of range (the prompt's scale is {}-{})", a[0], a[a.len() - 1])
}

fn truncated_note(finish_reason: Option<&str>) -> &'static str {
    if finish_reason == Some("length") {
        " (the reply was cut at max_tokens)"
    } else {
        ""
    }
}

fn rating_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    #[allow(clippy::expect_used)] // a constant pattern, exercised by the tests
    RE.get_or_init(|| {
        Regex::new(r"(?i)\brating\**[ \t]*:[ \t*]*(n/?a\b|[+-]?[0-9]+(?:[.,][0-9]+)?)").expect("valid regex")
    })
}

fn label_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    #[allow(clippy::expect_used)] // a constant pattern, exercised by the tests
    RE.get_or_init(|| Regex::new(r"(?i)\brating\**[ \t]*:").expect("valid regex"))
}

/// Byte offset just after the first `Rating:` label of `text` (the free-text rules' label).
pub(crate) fn rating_label_end(text: &str) -> Option<usize> {
    label_re().find(text).map(|m| m.end())
}

fn rationale_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    #[allow(clippy::expect_used)] // a constant pattern, exercised by the tests
    RE.get_or_init(|| Regex::new(r"(?i)\**rationale\**[ \t]*:\**").expect("valid regex"))
}

/// Reads a free-text reply (the paper's `Rating:` format) under the rules of this module.
/// `finish_reason` (`"length"` when the reply hit `max_tokens`) only refines null reasons.
pub fn parse_free_text(reply: &str, scale: Scale, finish_reason: Option<&str>) -> Parsed {
    let caps: Vec<regex::Captures<'_>> = rating_re().captures_iter(reply).collect();
    let rationale = free_text_rationale(reply, caps.first().and_then(|c| c.get(0)));
    if caps.is_empty() {
        let reason = if label_re().is_match(reply) {
            "the \"Rating:\" label is not followed by a number or N/A"
        } else {
            "no \"Rating:\" in the reply"
        };
        return Parsed::null(format!("{reason}{}", truncated_note(finish_reason)), rationale);
    }
    let mut values: Vec<String> = Vec::new();
    for c in &caps {
        let raw = c.get(1).map_or("", |m| m.as_str());
        let v = if raw.eq_ignore_ascii_case("n/a") || raw.eq_ignore_ascii_case("na") { "N/A".to_owned() } else { raw.to_owned() };
        if !values.contains(&v) {
            values.push(v);
        }
    }
    if values.len() > 1 {
        return Parsed::null(format!("ambiguous: the reply gives several ratings ({})", values.join(", ")), rationale);
    }
    let v = &values[0];
    if v == "N/A" {
        return match scale {
            Scale::PicoWithNa => Parsed::rated(scale, 5, rationale),
            Scale::Result => Parsed::null("rating N/A is not on this prompt's scale (1-4)", rationale),
        };
    }
    if v.contains('.') || v.contains(',') {
        return Parsed::null(format!("rating {v} is not an integer"), rationale);
    }
    match v.parse::<i64>() {
        Ok(n) if (1..=5).contains(&n) => Parsed::rated(scale, n as u8, rationale),
        _ => Parsed::null(out_of_range(scale, v), rationale),
    }
}

fn free_text_rationale(reply: &str, rating: Option<regex::Match<'_>>) -> Option<String> {
    let text = match rationale_re().find(reply) {
        // rationale first (`Rationale: …\nRating: N`): the rationale ends at the rating label
        Some(m) => match rating.filter(|r| r.start() >= m.end()) {
            Some(r) => reply[m.end()..r.start()].to_owned(),
            None => reply[m.end()..].to_owned(),
        },
        None => match rating {
            Some(m) => format!("{}{}", &reply[..m.start()], &reply[m.end()..]),
            None => reply.to_owned(),
        },
    };
    let t = text.trim().trim_start_matches(['-', ':', '*']).trim();
    (!t.is_empty()).then(|| t.to_owned())
}

/// Reads a JSON reply (`{"rating": <int>, "rationale": <string>}`) under the rules of this module.
pub fn parse_json(reply: &str, scale: Scale, finish_reason: Option<&str>) -> Parsed {
    let v: serde_json::Value = match serde_json::from_str(reply.trim()) {
        Ok(v) => v,
        Err(e) => {
            return Parsed::null(format!("the reply is not valid JSON ({e}){}", truncated_note(finish_reason)), None)
        }
    };
    let Some(obj) = v.as_object() else {
        return Parsed::null("the reply is JSON but not an object", None);
    };
    let rationale = obj.get("rationale").and_then(|r| r.as_str()).map(str::trim).filter(|r| !r.is_empty()).map(str::to_owned);
    match obj.get("rating") {
        None => Parsed::null("the JSON reply has no \"rating\"", rationale),
        Some(r) => match r.as_i64() {
            Some(n) if (1..=5).contains(&n) => Parsed::rated(scale, n as u8, rationale),
            Some(n) => Parsed::null(out_of_range(scale, &n.to_string()), rationale),
            None => Parsed::null(format!("the JSON reply's rating {r} is not an integer"), rationale),
        },
    }
}

/// Reads a rating-only reply ([`crate::options::PromptVariant::RatingOnly`]): after trimming
/// white space (and one pair of JSON quotes), exactly one digit of the scale; anything else is
/// a null with the reason (never a guess).
pub fn parse_rating_only(reply: &str, scale: Scale, finish_reason: Option<&str>) -> Parsed {
    let t = reply.trim();
    let t = t.strip_prefix('"').and_then(|x| x.strip_suffix('"')).unwrap_or(t).trim();
    let mut chars = t.chars();
    match (chars.next(), chars.next()) {
        (Some(c @ '1'..='5'), None) => Parsed::rated(scale, c as u8 - b'0', None),
        (Some(c), None) if c.is_ascii_digit() => Parsed::null(out_of_range(scale, t), None),
        (None, _) => Parsed::null(format!("the rating-only reply is empty{}", truncated_note(finish_reason)), None),
        _ => {
            let shown: String = t.chars().take(40).collect();
            Parsed::null(format!("the rating-only reply is not one digit of the scale: {shown:?}"), None)
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn rating_only_replies() {
        assert_eq!(parse_rating_only("2", Scale::PicoWithNa, None).score, Some(3.0));
        assert_eq!(parse_rating_only(" 1\n", Scale::Result, None).score, Some(4.0));
        assert_eq!(parse_rating_only("5", Scale::PicoWithNa, None).rating, Some(5));
        assert!(parse_rating_only("5", Scale::Result, None).null_reason.unwrap().contains("1-4"));
        assert!(parse_rating_only("0", Scale::Result, None).null_reason.unwrap().contains("out of range"));
        assert!(parse_rating_only("Rating", Scale::Result, Some("length")).null_reason.unwrap().contains("not one digit"));
        assert!(parse_rating_only("", Scale::Result, Some("length")).null_reason.unwrap().contains("cut at max_tokens"));
        assert!(parse_rating_only("12", Scale::Result, None).null_reason.is_some());
    }

    #[test]
    fn rationale_first_free_text() {
        let p = parse_free_text("Rationale: The population is vague.\nRating: 2", Scale::PicoWithNa, None);
        assert_eq!((p.rating, p.rationale.as_deref()), (Some(2), Some("The population is vague.")));
    }

    fn ft(s: &str) -> Parsed {
        parse_free_text(s, Scale::PicoWithNa, None)
    }

    #[test]
    fn paper_format() {
        let p = ft("Rating: 2\nRationale: The population is described vaguely.");
        assert_eq!((p.rating, p.score), (Some(2), Some(3.0)));
        assert_eq!(p.rationale.as_deref(), Some("The population is described vaguely."));
        let p = ft("**Rating:** 1\n\nThe summary says adults with asthma.");
        assert_eq!(p.score, Some(4.0));
        assert_eq!(p.rationale.as_deref(), Some("The summary says adults with asthma."));
        assert_eq!(ft("**Rating**: 4 - missing").score, Some(1.0));
        assert_eq!(ft("rating:3/5").score, Some(2.0));
        assert_eq!(ft("Rating: 2\n...\nRating: 2").score, Some(3.0));
    }

    #[test]
    fn nulls_never_guess() {
        assert!(ft("The summary is accurate. 1").null_reason.unwrap().contains("no \"Rating:\""));
        assert!(parse_free_text("Rating", Scale::Result, Some("length")).null_reason.unwrap().contains("cut at max_tokens"));
        assert!(ft("Rating: 2.5").null_reason.unwrap().contains("not an integer"));
        assert!(ft("Rating: 7").null_reason.unwrap().contains("out of range (the prompt's scale is 1-5)"));
        assert!(ft("Rating: 0").null_reason.unwrap().contains("out of range"));
        assert!(parse_free_text("Rating: 5", Scale::Result, None).null_reason.unwrap().contains("1-4"));
        assert!(ft("Rating: 1 ... on reflection Rating: 3").null_reason.unwrap().contains("ambiguous"));
        assert!(ft("Ratings are hard: 3").score.is_none());
        assert!(ft("Rating: not applicable").null_reason.unwrap().contains("not followed by a number"));
    }

    #[test]
    fn not_applicable() {
        let p = ft("Rating: 5\nRationale: no comparator in the trial");
        assert_eq!((p.rating, p.score), (Some(5), None));
        assert!(p.null_reason.unwrap().starts_with("N/A"));
        assert_eq!(ft("Rating: N/A").rating, Some(5));
        assert_eq!(ft("Rating: NA").rating, Some(5));
        assert!(parse_free_text("Rating: N/A", Scale::Result, None).null_reason.unwrap().contains("not on this prompt's scale"));
    }

    #[test]
    fn json_replies() {
        let p = parse_json("{\"rating\": 1, \"rationale\": \"ok\"}", Scale::PicoWithNa, None);
        assert_eq!((p.score, p.rationale.as_deref()), (Some(4.0), Some("ok")));
        let p = parse_json("{\"rating\"\n:4,\n\"rationale\"", Scale::PicoWithNa, Some("length"));
        assert!(p.null_reason.unwrap().contains("cut at max_tokens"));
        assert!(parse_json("{\"rating\": 9}", Scale::Result, None).null_reason.unwrap().contains("out of range"));
        assert!(parse_json("{\"rating\": \"2\"}", Scale::Result, None).null_reason.unwrap().contains("not an integer"));
        assert!(parse_json("[1]", Scale::Result, None).null_reason.unwrap().contains("not an object"));
        assert_eq!(parse_json("{\"rating\": 5, \"rationale\": \"x\"}", Scale::PicoWithNa, None).rating, Some(5));
    }

    #[test]
    fn human_scale() {
        assert_eq!(Scale::Result.to_human(1), Some(4.0));
        assert_eq!(Scale::Result.to_human(4), Some(1.0));
        assert_eq!(Scale::PicoWithNa.to_human(5), None);
    }
}
