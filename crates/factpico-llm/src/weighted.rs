//! Probability-weighted ratings (G-Eval style: Liu et al., 2023, "G-Eval: NLG Evaluation using
//! GPT-4 with Better Human Alignment", §2.3): instead of the one sampled rating digit, the
//! expectation of the rating under the model's distribution over the scale's digits at the
//! rating token.
//!
//! # Rule
//!
//! 1. The rating token is located in the reply's generated tokens (`logprobs.content`): the
//!    first token holding a digit at or after the rating's label — the JSON key `"rating"`
//!    (`json-schema` mode), the `Rating:` label (`grammar` and free text), or the start of the
//!    reply (rating-only prompts). Its text, trimmed of white space, must be that one digit and
//!    equal the sampled rating read from the reply; otherwise the weighted value is null.
//! 2. Its alternatives (`top_logprobs`, plus the sampled token itself when the server left it
//!    out) whose text trimmed of white space is exactly one digit of the prompt's scale (1–4;
//!    P/I/C/O prompts also 5 = N/A) contribute `exp(logprob)` to that digit (`"3"` and `" 3"`
//!    both count for 3). Their sum is the *mass* (how much of the distribution the scale's
//!    digits hold among the alternatives sent; reported). No digit among them (the sampled
//!    one included only because the server left it out: a constraint forced a digit the model
//!    did not consider, and the expectation would repeat the sampled rating) → null.
//! 3. The digits' probabilities are renormalised to sum to 1. On the P/I/C/O scale, when N/A
//!    (5) is strictly the most probable digit the weighted value is null ("N/A most probable",
//!    as the sampled rating 5 is); otherwise N/A's mass is dropped and the value is
//!    `Σ_{k=1..4} p(k)·(5 − k) / Σ_{k=1..4} p(k)` on FactPICO's human scale (4 accurate … 1
//!    missing), a real number in [1, 4].
//!
//! Servers differ in which distribution they report: OpenAI and vLLM the model's (before any
//! constraint), llama.cpp the model's before sampling (its default `post_sampling_probs`
//! false); with a JSON schema or grammar constraining the token to the scale's digits the
//! renormalisation of step 3 gives the same expectation either way.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::client::TokenLogprob;
use crate::parse::Scale;

/// Where the rating's digit is in a reply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RatingAt {
    /// After the JSON key `"rating"` (`json-schema` mode).
    JsonKey,
    /// After the `Rating:` label (`grammar` mode and free text).
    Label,
    /// The first digit of the reply (rating-only prompts).
    First,
}

/// The probability-weighted rating of one reply.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Weighted {
    /// Expected rating on the human scale (1–4), `None` with `null_reason`.
    pub score: Option<f64>,
    /// Probability per prompt-scale digit, renormalised over the scale (keys "1"…"5").
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub probabilities: BTreeMap<u8, f64>,
    /// Sum of the scale digits' probabilities among the alternatives sent, before
    /// renormalising (0–1).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mass: Option<f64>,
    /// Why `score` is null.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub null_reason: Option<String>,
}

impl Weighted {
    /// A null with its reason.
    pub fn null(reason: impl Into<String>) -> Self {
        Self { score: None, probabilities: BTreeMap::new(), mass: None, null_reason: Some(reason.into()) }
    }
}

/// Null reason when a server sent no logprobs for a request that asked for them.
pub const NO_LOGPROBS: &str = "the server returned no logprobs for this reply (`llm.logprobs`): no weighted rating";

fn digit_of(text: &str, scale: Scale) -> Option<u8> {
    let t = text.trim();
    let mut c = t.chars();
    match (c.next(), c.next()) {
        (Some(d @ '1'..='5'), None) => {
            let d = d as u8 - b'0';
            scale.allowed().contains(&d).then_some(d)
        }
        _ => None,
    }
}

/// The weighted rating of a reply whose sampled rating is `sampled` (prompt scale), under the
/// rule of this module. `logprobs` is the reply's `logprobs.content` (`None`: not sent).
pub fn weighted(logprobs: Option<&[TokenLogprob]>, sampled: Option<u8>, scale: Scale, at: RatingAt) -> Weighted {
    let Some(tokens) = logprobs.filter(|t| !t.is_empty()) else {
        return Weighted::null(NO_LOGPROBS);
    };
    let Some(sampled) = sampled else {
        return Weighted::null("no rating was read from the reply, so no rating token to weigh");
    };
    // concatenated text and each token's start offset
    let mut text = String::new();
    let mut starts = Vec::with_capacity(tokens.len());
    for t in tokens {
        starts.push(text.len());
        text.push_str(&t.token);
    }
    let from = match at {
        RatingAt::First => Some(0),
        RatingAt::JsonKey => text.find("\"rating\"").map(|i| i + "\"rating\"".len()),
        RatingAt::Label => crate::parse::rating_label_end(&text),
    };
    let Some(from) = from else {
        return Weighted::null("the rating's label is not among the reply's tokens");
    };
    let Some(digit_at) = text[from..].find(|c: char| c.is_ascii_digit()).map(|i| i + from) else {
        return Weighted::null("no digit after the rating's label among the reply's tokens");
    };
    let i = starts.partition_point(|&s| s <= digit_at) - 1;
    let tok = &tokens[i];
    if digit_of(&tok.token, scale) != Some(sampled) {
        return Weighted::null(format!(
            "the rating token {:?} is not the sampled rating {sampled} alone (tokens split the number differently)",
            tok.token
        ));
    }
    let mut p: BTreeMap<u8, f64> = BTreeMap::new();
    let mut seen_sampled = false;
    for (t, lp) in &tok.top {
        seen_sampled |= *t == tok.token;
        if let Some(d) = digit_of(t, scale) {
            *p.entry(d).or_default() += lp.exp();
        }
    }
    if !seen_sampled {
        *p.entry(sampled).or_default() += tok.logprob.exp();
    }
    let mass: f64 = p.values().sum();
    if !(mass > 0.0 && mass.is_finite()) {
        return Weighted::null("no digit of the scale among the rating token's alternatives");
    }
    if !seen_sampled && p.len() == 1 {
        // only the sampled digit, added because the server left it out of the top list: the
        // expectation would merely repeat the sampled rating
        return Weighted {
            score: None,
            probabilities: BTreeMap::new(),
            mass: Some(mass),
            null_reason: Some(format!(
                "no digit of the scale among the rating token's {} most probable alternatives (the sampled digit had p = {mass:.4}: a constraint forced it)",
                tok.top.len()
            )),
        };
    }
    for v in p.values_mut() {
        *v /= mass;
    }
    let p_na = p.get(&5).copied().unwrap_or(0.0);
    let best_other = (1..=4).map(|k| p.get(&k).copied().unwrap_or(0.0)).fold(0.0, f64::max);
    let rated: f64 = (1..=4).map(|k| p.get(&k).copied().unwrap_or(0.0)).sum();
    if scale == Scale::PicoWithNa && p_na > best_other {
        return Weighted { score: None, probabilities: p, mass: Some(mass), null_reason: Some(format!("N/A is the most probable rating (p = {p_na:.3})")) };
    }
    if rated <= 0.0 {
        return Weighted { score: None, probabilities: p, mass: Some(mass), null_reason: Some("no probability on the ratings 1-4".into()) };
    }
    let score = (1..=4u8).map(|k| p.get(&k).copied().unwrap_or(0.0) * f64::from(5 - k)).sum::<f64>() / rated;
    Weighted { score: Some(score), probabilities: p, mass: Some(mass), null_reason: None }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn tok(t: &str, lp: f64, top: &[(&str, f64)]) -> TokenLogprob {
        TokenLogprob { token: t.into(), logprob: lp, top: top.iter().map(|(a, b)| ((*a).to_owned(), *b)).collect() }
    }

    #[test]
    fn expectation_over_the_scale() {
        // p(1)=0.5, p(2)=0.3 (" 2" and "2"), p(4)=0.1, "x" ignored
        let t = [tok("1", 0.5f64.ln(), &[("1", 0.5f64.ln()), ("2", 0.2f64.ln()), (" 2", 0.1f64.ln()), ("4", 0.1f64.ln()), ("x", 0.1f64.ln())])];
        let w = weighted(Some(&t), Some(1), Scale::Result, RatingAt::First);
        let (p1, p2, p4) = (0.5 / 0.9, 0.3 / 0.9, 0.1 / 0.9);
        assert!((w.score.unwrap() - (p1 * 4.0 + p2 * 3.0 + p4 * 1.0)).abs() < 1e-12, "{w:?}");
        assert!((w.mass.unwrap() - 0.9).abs() < 1e-12);
    }

    #[test]
    fn json_key_and_label_locate_the_token() {
        let t = [tok("{\"", -0.0, &[]), tok("r", 0.0, &[]), tok("ating", 0.0, &[]), tok("\":", 0.0, &[]), tok(" ", 0.0, &[]), tok("2", 0.7f64.ln(), &[("2", 0.7f64.ln()), ("1", 0.3f64.ln())]), tok(",", 0.0, &[])];
        let w = weighted(Some(&t), Some(2), Scale::PicoWithNa, RatingAt::JsonKey);
        assert!((w.score.unwrap() - (0.7 * 3.0 + 0.3 * 4.0)).abs() < 1e-12);
        // rationale first: a digit in the rationale before the key is skipped
        let t = [tok("{\"rationale\":\"3 of 4 ok\",\"rating\":", 0.0, &[]), tok("1", 0.0, &[("1", 0.0)])];
        assert_eq!(weighted(Some(&t), Some(1), Scale::Result, RatingAt::JsonKey).score, Some(4.0));
        let t = [tok("Rationale: 2 arms\nRating:", 0.0, &[]), tok(" 3", 0.0, &[(" 3", 0.0)])];
        assert_eq!(weighted(Some(&t), Some(3), Scale::Result, RatingAt::Label).score, Some(2.0));
    }

    #[test]
    fn documented_nulls() {
        assert_eq!(weighted(None, Some(1), Scale::Result, RatingAt::First).null_reason.as_deref(), Some(NO_LOGPROBS));
        let na = [tok("5", 0.6f64.ln(), &[("5", 0.6f64.ln()), ("1", 0.4f64.ln())])];
        assert!(weighted(Some(&na), Some(5), Scale::PicoWithNa, RatingAt::First).null_reason.unwrap().contains("N/A is the most probable"));
        // N/A present but not the most probable: dropped, renormalised over 1-4
        let t = [tok("1", 0.5f64.ln(), &[("1", 0.5f64.ln()), ("5", 0.3f64.ln()), ("4", 0.2f64.ln())])];
        let w = weighted(Some(&t), Some(1), Scale::PicoWithNa, RatingAt::First);
        assert!((w.score.unwrap() - (0.5 * 4.0 + 0.2 * 1.0) / 0.7).abs() < 1e-12);
        // a token that is not the sampled digit alone
        let t = [tok("12", 0.0, &[])];
        assert!(weighted(Some(&t), Some(1), Scale::Result, RatingAt::First).null_reason.unwrap().contains("not the sampled rating"));
        // the sampled token missing from top: counted beside the digits that are there
        let t = [tok("2", 0.3f64.ln(), &[("x", 0.5f64.ln()), ("1", 0.1f64.ln())])];
        let w = weighted(Some(&t), Some(2), Scale::Result, RatingAt::First);
        assert!((w.score.unwrap() - (0.3 * 3.0 + 0.1 * 4.0) / 0.4).abs() < 1e-12);
        assert!(weighted(Some(&[tok("a", 0.0, &[])]), Some(2), Scale::Result, RatingAt::First).null_reason.is_some());
        // a digit forced by a constraint the model did not consider: no digit among the top
        let t = [tok("2", 0.002f64.ln(), &[(" ", 0.9f64.ln()), ("\n", 0.05f64.ln())])];
        let w = weighted(Some(&t), Some(2), Scale::Result, RatingAt::First);
        assert!(w.score.is_none() && w.null_reason.unwrap().contains("a constraint forced it"), "{:?}", w.mass);
    }
}
