//! The one translation of option fields into command-line flags.
//!
//! factpico's libraries name an option in their errors and warnings by its path in the
//! `ScorerOptions` JSON, in backticks (`` `llm.runtime.client.concurrency` must be at least
//! 1 ``): what a Rust or Python caller writes. A command-line user sets the same option with
//! a flag, so every library message the CLI prints (errors, log warnings, the failed-work
//! advice, `--dry-run` errors, `factpico metrics`) goes through [`for_cli`], which replaces
//! each field named in [`FIELD_FLAGS`] by its flag (`--llm-concurrency must be at least 1`).
//! A field without a flag stays as it is. Texts written into output files (rows' null
//! reasons and errors) keep the field names of the provenance they sit next to.

use std::borrow::Cow;

/// `ScorerOptions` field path → `factpico score` flag. Scope: the LLM evaluators (issue 20
/// item 5); other units' messages still name their flags themselves.
pub const FIELD_FLAGS: &[(&str, &str)] = &[
    ("llm.base_url", "--llm-base-url"),
    ("llm.model", "--llm-model"),
    ("llm.api_key_env", "--llm-api-key-env"),
    ("llm.served_model", "--llm-served-model"),
    ("llm.structured_output", "--llm-structured"),
    ("llm.preset", "--llm-preset"),
    ("llm.temperature", "--llm-temperature"),
    ("llm.top_p", "--llm-top-p"),
    ("llm.seed", "--llm-seed"),
    ("llm.max_tokens", "--llm-max-tokens"),
    ("llm.extract_max_tokens", "--llm-extract-max-tokens"),
    ("llm.rationale_max_chars", "--llm-rationale-max-chars"),
    ("llm.elements", "--llm-elements"),
    ("llm.logprobs", "--llm-logprobs"),
    ("llm.prompt", "--llm-prompt"),
    ("llm.rationale_first", "--llm-rationale-first"),
    ("llm.samples", "--llm-samples"),
    ("llm.minicheck_chunk_size", "--llm-minicheck-chunk-size"),
    ("llm.evidence_separator", "--evidence-separator"),
    ("llm.runtime.client.concurrency", "--llm-concurrency"),
    ("llm.runtime.client.timeout_s", "--llm-timeout"),
    ("llm.runtime.client.retries", "--llm-retries"),
    ("llm.runtime.client.max_reply_bytes", "--llm-max-reply-bytes"),
    ("llm.runtime.client.stop_after_failures", "--llm-stop-after-failures"),
    ("llm.runtime.cache", "--llm-cache"),
    ("llm.runtime.no_cache", "--llm-no-cache"),
    ("llm.runtime.price_input_per_mtok", "--llm-price-input"),
    ("llm.runtime.price_output_per_mtok", "--llm-price-output"),
];

/// `message` with every `` `field` `` of [`FIELD_FLAGS`] replaced by its flag.
pub fn for_cli(message: &str) -> Cow<'_, str> {
    if !message.contains('`') {
        return Cow::Borrowed(message);
    }
    let mut out = Cow::Borrowed(message);
    for (field, flag) in FIELD_FLAGS {
        let quoted = format!("`{field}`");
        if out.contains(&quoted) {
            out = Cow::Owned(out.replace(&quoted, flag));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]
    use super::*;

    #[test]
    fn fields_become_flags_and_the_rest_is_kept() {
        assert_eq!(
            for_cli("invalid LLM option: `llm.runtime.client.concurrency` must be at least 1"),
            "invalid LLM option: --llm-concurrency must be at least 1"
        );
        assert_eq!(
            for_cli("`llm.base_url` is required (e.g. `llm.base_url` http://h/v1, `llm.model` m)"),
            "--llm-base-url is required (e.g. --llm-base-url http://h/v1, --llm-model m)"
        );
        // No flag: the field stays; `llm.model` inside a longer path is not touched.
        assert_eq!(for_cli("`llm.runtime.client.backoff_min_s` bad"), "`llm.runtime.client.backoff_min_s` bad");
        assert_eq!(for_cli("`llm.model_x` and `id`"), "`llm.model_x` and `id`");
        assert!(matches!(for_cli("plain text"), Cow::Borrowed(_)));
    }

    /// Every flag of the table is a `factpico score` flag, and every flag of the LLM unit that
    /// sets an option has its field here.
    #[test]
    fn the_table_matches_the_llm_flags() {
        use clap::Args as _;
        let unit = factpico::units::llm::LlmArgs::augment_args(clap::Command::new("unit"));
        let unit_flags: Vec<String> = unit.get_arguments().filter_map(|a| a.get_long().map(|l| format!("--{l}"))).collect();
        for (field, flag) in FIELD_FLAGS {
            assert!(unit_flags.iter().any(|f| f == flag), "{field} → {flag}: not a flag of the llm unit");
        }
        for f in &unit_flags {
            // --evidence-field maps an input field, not an option.
            if f != "--evidence-field" {
                assert!(FIELD_FLAGS.iter().any(|(_, g)| g == f), "{f} has no field in FIELD_FLAGS");
            }
        }
    }
}
