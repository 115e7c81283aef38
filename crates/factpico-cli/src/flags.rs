//! The one translation of option fields into command-line flags.
//!
//! factpico's libraries name an option in their errors and warnings by its path in the
//! `ScorerOptions` JSON, in backticks (`` `llm.runtime.client.concurrency` must be at least
//! 1 ``): what a Rust or Python caller writes. A command-line user sets the same option with
//! a flag, so every library message the CLI prints (errors, log warnings, the failed-work
//! advice, `--dry-run` errors, `factpico metrics`) goes through [`for_cli`], which replaces
//! each field named in [`field_flags`] by its flag (`--llm-concurrency must be at least 1`).
//! A field without a flag stays as it is. Texts written into output files (rows' null
//! reasons and errors) keep the field names of the provenance they sit next to.

use std::borrow::Cow;
use std::sync::OnceLock;

use clap::Args as _;

/// `ScorerOptions` field path → `factpico score` flag, for every option that has a flag:
/// read from the options' own clap definitions, whose ids are the field paths
/// (`summac.granularity` → `--summac-granularity`, `llm.runtime.client.concurrency` →
/// `--llm-concurrency`).
pub fn field_flags() -> &'static [(String, String)] {
    static TABLE: OnceLock<Vec<(String, String)>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let cmd = factpico::ScorerOptions::augment_args(clap::Command::new("score"));
        cmd.get_arguments().filter_map(|a| a.get_long().map(|l| (a.get_id().as_str().to_owned(), format!("--{l}")))).collect()
    })
}

/// `cmd` (and its subcommands) with each option flag's value named after the flag
/// (`--summac-granularity <SUMMAC_GRANULARITY>`) instead of clap's default, the id (the option's
/// field path).
pub fn value_names(mut cmd: clap::Command) -> clap::Command {
    cmd = cmd.mut_args(|a| {
        let id = a.get_id().as_str().to_owned();
        let default_name = a.get_value_names().is_none_or(|v| v.iter().any(|n| n.as_str() == id));
        match a.get_long() {
            Some(long) if id.contains('.') && default_name && a.get_action().takes_values() => {
                let name = long.to_uppercase().replace('-', "_");
                a.value_name(name)
            }
            _ => a,
        }
    });
    let names: Vec<String> = cmd.get_subcommands().map(|s| s.get_name().to_owned()).collect();
    for n in names {
        cmd = cmd.mut_subcommand(n, value_names);
    }
    cmd
}

/// `message` with every `` `field` `` of [`field_flags`] replaced by its flag.
pub fn for_cli(message: &str) -> Cow<'_, str> {
    if !message.contains('`') {
        return Cow::Borrowed(message);
    }
    let mut out = Cow::Borrowed(message);
    for (field, flag) in field_flags() {
        let quoted = format!("`{field}`");
        if out.contains(&quoted) {
            out = Cow::Owned(out.replace(&quoted, flag));
        }
    }
    out
}

/// A warning per option flag given on the command line (`matches`: those of a command that
/// flattens [`factpico::ScorerOptions`]) whose metrics are not among `selected` (names or
/// aliases): the option does nothing, but enters the provenance. The runtime flags
/// (`--batch-size`, `--threads`, `--device`) are shared and never warned about.
pub fn ignored_flags(matches: &clap::ArgMatches, selected: &[String]) -> Vec<String> {
    let canonical: Vec<&str> = selected.iter().filter_map(|n| factpico::metric_info(n).map(|m| m.name)).collect();
    let units = factpico::units::units();
    let cmd = factpico::ScorerOptions::augment_args(clap::Command::new("score"));
    let mut out = Vec::new();
    for arg in cmd.get_arguments() {
        let id = arg.get_id().as_str();
        if !matches!(matches.value_source(id), Some(clap::parser::ValueSource::CommandLine)) {
            continue;
        }
        let Some((key, field)) = id.split_once('.') else { continue };
        let Some(unit) = units.iter().find(|u| u.key == key) else { continue };
        let used_by = unit.metrics_reading(field);
        if used_by.iter().any(|u| canonical.contains(u)) {
            continue;
        }
        let flag = arg.get_long().map_or_else(|| id.to_owned(), |l| format!("--{l}"));
        out.push(format!("{flag} is ignored: it is used by --metrics {} (selected: {})", used_by.join(" or "), selected.join(",")));
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

    /// Every option flag is in the table under its field path, which is a path of the
    /// options' JSON; the ids are unique (clap's own check).
    #[test]
    fn the_table_is_the_options_flags() {
        let cmd = factpico::ScorerOptions::augment_args(clap::Command::new("score"));
        cmd.clone().debug_assert();
        let table = field_flags();
        assert!(table.len() >= 40, "{table:?}");
        for (field, flag) in table {
            assert!(flag.starts_with("--"), "{field} {flag}");
            // The path is a field of the options' JSON (which refuses unknown fields): some
            // value of some JSON type is accepted there, or refused for its type only.
            let accepted = [serde_json::json!(null), serde_json::json!(false), serde_json::json!(1), serde_json::json!("x"), serde_json::json!([])]
                .into_iter()
                .map(|v| {
                    let object = field.rsplit('.').fold(v, |inner, key| serde_json::json!({ key: inner }));
                    serde_json::from_value::<factpico::ScorerOptions>(object).map_err(|e| e.to_string())
                })
                .collect::<Vec<_>>();
            assert!(accepted.iter().all(|r| !matches!(r, Err(e) if e.contains("unknown field"))), "{field}: {accepted:?}");
        }
        for (field, flag) in [("summac.zs_op1", "--summac-zs-op1"), ("rouge.use_stemmer", "--rouge-stemmer"), ("runtime.device", "--device"), ("llm.structured_output", "--llm-structured")] {
            assert!(table.iter().any(|(f, g)| f == field && g == flag), "{field} → {flag}");
        }
    }

    /// No flag given: the parsed options are the options' `Default` (each flag's default is
    /// the option's); a flag given sets its field, and only a flag given on the command line
    /// is reported as ignored.
    #[test]
    fn no_flag_is_the_default_and_flags_set_options() {
        use clap::FromArgMatches as _;
        let cmd = factpico::ScorerOptions::augment_args(clap::Command::new("score"));
        let parse = |args: &[&str]| {
            let m = cmd.clone().try_get_matches_from(std::iter::once("score").chain(args.iter().copied())).unwrap();
            (factpico::ScorerOptions::from_arg_matches(&m).unwrap(), m)
        };
        let (o, _) = parse(&[]);
        assert_eq!(o, factpico::ScorerOptions::default());
        assert_eq!(o.llm.runtime, factpico::units::llm::LlmRuntime::default());
        let (o, m) = parse(&["--summac-zs-op1", "min", "--device", "cuda:1", "--rouge-stemmer", "false", "--llm-concurrency", "2"]);
        assert_eq!(serde_json::to_value(o.summac.zs_op1).unwrap(), "min");
        assert_eq!(o.runtime.device, factpico::Device::Cuda(1));
        assert!(!o.rouge.use_stemmer);
        assert_eq!(o.llm.runtime.client.concurrency, 2);
        let w = ignored_flags(&m, &["rouge-l".to_owned(), "summac_conv".to_owned()]);
        assert_eq!(
            w,
            [
                "--summac-zs-op1 is ignored: it is used by --metrics summac_zs (selected: rouge-l,summac_conv)",
                "--llm-concurrency is ignored: it is used by --metrics llm or llm_pipeline or llm_minicheck (selected: rouge-l,summac_conv)"
            ]
        );
        let w = ignored_flags(&m, &["fkgl".to_owned()]);
        assert_eq!(w.len(), 3, "{w:?}");
        assert!(w.iter().any(|l| l.starts_with("--llm-concurrency is ignored: it is used by --metrics llm or llm_pipeline or llm_minicheck")), "{w:?}");
    }
}
