//! Structured output: constraining the rating replies so they always parse.
//!
//! The prompts stay byte-identical to the reference's (they ask for `Rating:` in free text);
//! only the server's decoding is constrained:
//!
//! * [`StructuredOutput::JsonSchema`] (default): OpenAI's `response_format`
//!   `{"type": "json_schema", "json_schema": {"name": "factpico_rating", "strict": true, "schema": …}}`
//!   with `rating` an integer `enum` of the prompt's scale and `rationale` a string with a
//!   length-bounded `pattern` (`^[ -!#-\[\]-~]{1,N}$`: printable ASCII without `"` and `\`).
//!   An unbounded string lets llama.cpp answer HTTP 500 (its output parser fails on a reply cut
//!   at `max_tokens`) and random or weak models can fill the budget; the bound ends the reply.
//!   Understood by OpenAI, vLLM, llama.cpp's server, Ollama (≥ 0.5) and most gateways.
//! * [`StructuredOutput::Grammar`]: llama.cpp's `grammar` field with a GBNF grammar that spells
//!   out the paper's own format with no free whitespace —
//!   `root ::= "Rating: " [1-5] "\nRationale: " [ -~]{1,N}` — so the reply is parsed by the same
//!   free-text rules as the paper's replies.
//! * [`StructuredOutput::Off`]: the paper's free text, parsed by [`crate::parse::parse_free_text`].
//!
//! Unsupported servers: before the run the evaluator sends one small probe request with the
//! chosen constraint (its answer is cached like any other). An HTTP 400, 404, 415, 422 or 501
//! answer means the server does not accept it: the run falls back to `off`, says so on stderr
//! and records `{"requested", "used", "fallback"}` under the metric's provenance. Extraction
//! requests (pipeline stage 1) are never constrained: their replies are quotes, passed on as
//! they are.

use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::parse::Scale;

/// How rating replies are constrained.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[serde(rename_all = "kebab-case")]
pub enum StructuredOutput {
    /// JSON schema `response_format` (OpenAI structured outputs; default).
    #[default]
    #[cfg_attr(feature = "clap", value(alias = "json_schema"))]
    JsonSchema,
    /// llama.cpp GBNF `grammar` spelling out `Rating: N\nRationale: …`.
    #[cfg_attr(feature = "clap", value(alias = "gbnf"))]
    Grammar,
    /// No constraint: the paper's free text.
    #[cfg_attr(feature = "clap", value(alias = "none"))]
    Off,
}

impl StructuredOutput {
    /// `json-schema`, `grammar` or `off`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::JsonSchema => "json-schema",
            Self::Grammar => "grammar",
            Self::Off => "off",
        }
    }

    /// Whether replies are JSON (else free text).
    pub fn json_replies(self) -> bool {
        self == Self::JsonSchema
    }
}

impl std::fmt::Display for StructuredOutput {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for StructuredOutput {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "json-schema" | "json_schema" => Ok(Self::JsonSchema),
            "grammar" | "gbnf" => Ok(Self::Grammar),
            "off" | "none" => Ok(Self::Off),
            other => Err(format!("unknown structured-output mode {other:?} (json-schema, grammar, off)")),
        }
    }
}

/// The character class of the rationale, as a regex class (printable ASCII without `"` and `\`).
const RATIONALE_CLASS: &str = r#"[ -!#-\[\]-~]"#;

/// The JSON schema of a rating reply on `scale`, with the rationale at most `rationale_max` characters.
pub fn rating_schema(scale: Scale, rationale_max: usize) -> serde_json::Value {
    rating_schema_ordered(scale, rationale_max, false)
}

/// [`rating_schema`], the rationale first when `rationale_first`: the `required` list gives the
/// order, and requests are sent with `properties` in that order
/// ([`crate::requests::wire_json`]), which is the order servers generate them in.
pub fn rating_schema_ordered(scale: Scale, rationale_max: usize, rationale_first: bool) -> serde_json::Value {
    let required = if rationale_first { json!(["rationale", "rating"]) } else { json!(["rating", "rationale"]) };
    json!({
        "type": "object",
        "properties": {
            "rating": { "type": "integer", "enum": scale.allowed() },
            "rationale": { "type": "string", "pattern": format!("^{RATIONALE_CLASS}{{1,{}}}$", rationale_max.max(1)) },
        },
        "required": required,
        "additionalProperties": false,
    })
}

/// The `response_format` request field for [`StructuredOutput::JsonSchema`].
pub fn response_format(scale: Scale, rationale_max: usize) -> serde_json::Value {
    response_format_ordered(scale, rationale_max, false)
}

/// [`response_format`] with the field order of [`rating_schema_ordered`].
pub fn response_format_ordered(scale: Scale, rationale_max: usize, rationale_first: bool) -> serde_json::Value {
    json!({
        "type": "json_schema",
        "json_schema": { "name": "factpico_rating", "strict": true, "schema": rating_schema_ordered(scale, rationale_max, rationale_first) },
    })
}

/// The `response_format` of a rating-only reply: one integer of the scale (llama.cpp and vLLM
/// accept a non-object root; OpenAI answers HTTP 400, which the probe turns into a fallback
/// to `off`, stated on stderr and in the provenance).
pub fn digit_response_format(scale: Scale) -> serde_json::Value {
    json!({
        "type": "json_schema",
        "json_schema": { "name": "factpico_rating_digit", "strict": true, "schema": { "type": "integer", "enum": scale.allowed() } },
    })
}

/// The GBNF grammar for [`StructuredOutput::Grammar`].
pub fn gbnf(scale: Scale, rationale_max: usize) -> String {
    gbnf_ordered(scale, rationale_max, false)
}

/// [`gbnf`], `Rationale: …\nRating: N` when `rationale_first`.
pub fn gbnf_ordered(scale: Scale, rationale_max: usize, rationale_first: bool) -> String {
    let a = scale.allowed();
    let (lo, hi, n) = (a[0], a[a.len() - 1], rationale_max.max(1));
    if rationale_first {
        format!("root ::= \"Rationale: \" [ -~]{{1,{n}}} \"\\nRating: \" [{lo}-{hi}]")
    } else {
        format!("root ::= \"Rating: \" [{lo}-{hi}] \"\\nRationale: \" [ -~]{{1,{n}}}")
    }
}

/// The GBNF grammar of a rating-only reply: one digit of the scale.
pub fn digit_gbnf(scale: Scale) -> String {
    let a = scale.allowed();
    format!("root ::= [{}-{}]", a[0], a[a.len() - 1])
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn schema_and_grammar() {
        let s = rating_schema(Scale::Result, 300);
        assert_eq!(s["properties"]["rating"]["enum"], json!([1, 2, 3, 4]));
        assert_eq!(s["properties"]["rationale"]["pattern"], json!("^[ -!#-\\[\\]-~]{1,300}$"));
        assert_eq!(gbnf(Scale::PicoWithNa, 40), "root ::= \"Rating: \" [1-5] \"\\nRationale: \" [ -~]{1,40}");
        assert_eq!("grammar".parse::<StructuredOutput>(), Ok(StructuredOutput::Grammar));
        assert!("xml".parse::<StructuredOutput>().is_err());
    }

    #[test]
    fn rationale_first_is_sent_first() {
        let body = json!({"response_format": response_format_ordered(Scale::Result, 30, true)});
        let wire = crate::requests::wire_json(&body);
        assert!(wire.find("\"rationale\":{").unwrap() < wire.find("\"rating\":{").unwrap(), "{wire}");
        let wire = crate::requests::wire_json(&json!({"response_format": response_format(Scale::Result, 30)}));
        assert!(wire.find("\"rating\":{").unwrap() < wire.find("\"rationale\":{").unwrap(), "{wire}");
        // the default order is also the sorted one: bodies sent before this change are unchanged
        assert_eq!(wire, crate::requests::canonical_json(&json!({"response_format": response_format(Scale::Result, 30)})));
        assert_eq!(gbnf_ordered(Scale::Result, 9, true), "root ::= \"Rationale: \" [ -~]{1,9} \"\\nRating: \" [1-4]");
        assert_eq!(digit_gbnf(Scale::PicoWithNa), "root ::= [1-5]");
        assert_eq!(digit_response_format(Scale::Result)["json_schema"]["schema"]["enum"], json!([1, 2, 3, 4]));
    }

    #[test]
    fn pattern_matches_what_it_should() {
        let re = regex::Regex::new(rating_schema(Scale::Result, 10)["properties"]["rationale"]["pattern"].as_str().unwrap()).unwrap();
        assert!(re.is_match("ok, fine."));
        assert!(!re.is_match("has \"quote"));
        assert!(!re.is_match("eleven char"));
        assert!(!re.is_match(""));
    }
}
