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
//!
//! `factpico-metaeval` names its options the same way, by their fields in its own options
//! (`RunOptions`, `JoinOptions`, `EvalOptions`: `` `allow_missing` ``, `` `human_range` ``;
//! `` `plots.aspects` ``): `factpico meta-eval`'s messages go through [`for_meta_eval`],
//! whose table is read from [`MetaEvalArgs`](crate::MetaEvalArgs)' clap definitions (arg
//! ids = those field names), and the meta-evaluation of `factpico report --ratings` through
//! [`for_report`] (the report's own flags, e.g. `--meta-metrics` for `metrics`).

use std::borrow::Cow;
use std::sync::OnceLock;

use clap::Args as _;

/// `ScorerOptions` field path → `factpico score` flag, for every option that has a flag:
/// read from the options' own clap definitions, whose ids are the field paths
/// (`summac.granularity` → `--summac-granularity`, `llm.runtime.client.concurrency` →
/// `--llm-concurrency`).
pub fn field_flags() -> &'static [(String, String)] {
    static TABLE: OnceLock<Vec<(String, String)>> = OnceLock::new();
    TABLE.get_or_init(|| flag_table(&factpico::ScorerOptions::augment_args(clap::Command::new("score"))))
}

/// `factpico-metaeval` option field → `factpico meta-eval` flag, for every argument of
/// [`MetaEvalArgs`](crate::MetaEvalArgs) with a long flag: read from its clap definitions,
/// whose ids are the library's field names (`allow_missing` → `--allow-missing`,
/// `stem` → `--name`, `plots.aspects` → `--plot-aspects`).
pub fn meta_eval_flags() -> &'static [(String, String)] {
    static TABLE: OnceLock<Vec<(String, String)>> = OnceLock::new();
    TABLE.get_or_init(|| flag_table(&crate::MetaEvalArgs::augment_args(clap::Command::new("meta-eval"))))
}

/// As [`meta_eval_flags`] for the meta-evaluation options of `factpico report`
/// (`metrics` → `--meta-metrics`).
pub fn report_flags() -> &'static [(String, String)] {
    static TABLE: OnceLock<Vec<(String, String)>> = OnceLock::new();
    TABLE.get_or_init(|| flag_table(&crate::report::ReportArgs::augment_args(clap::Command::new("report"))))
}

/// Arg id → `--long` of each argument of `cmd` that has a long flag.
fn flag_table(cmd: &clap::Command) -> Vec<(String, String)> {
    cmd.get_arguments().filter_map(|a| a.get_long().map(|l| (a.get_id().as_str().to_owned(), format!("--{l}")))).collect()
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
    translate(message, field_flags())
}

/// `message` (any message of `factpico meta-eval`: errors, warnings) with every `` `field` ``
/// of [`meta_eval_flags`] replaced by its flag.
pub fn for_meta_eval(message: &str) -> Cow<'_, str> {
    translate(message, meta_eval_flags())
}

/// `message` (a message of `factpico report`) with every `` `field` `` of [`report_flags`],
/// then of [`field_flags`], replaced by its flag.
pub fn for_report(message: &str) -> Cow<'_, str> {
    match translate(message, report_flags()) {
        Cow::Borrowed(m) => for_cli(m),
        Cow::Owned(m) => Cow::Owned(for_cli(&m).into_owned()),
    }
}

/// `message` with every `` `field` `` of `table` replaced by its flag.
fn translate<'a>(message: &'a str, table: &[(String, String)]) -> Cow<'a, str> {
    if !message.contains('`') {
        return Cow::Borrowed(message);
    }
    let mut out = Cow::Borrowed(message);
    for (field, flag) in table {
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

    /// Every argument of `factpico meta-eval` (and of `factpico report`) with a long flag is in
    /// its table under its id; the ids that differ from the flags are the library's fields.
    #[test]
    fn the_meta_eval_tables_are_the_args_flags() {
        for (cmd, table) in [
            (crate::MetaEvalArgs::augment_args(clap::Command::new("meta-eval")), meta_eval_flags()),
            (crate::report::ReportArgs::augment_args(clap::Command::new("report")), report_flags()),
        ] {
            cmd.clone().debug_assert();
            for a in cmd.get_arguments() {
                if let Some(long) = a.get_long() {
                    let id = a.get_id().as_str();
                    assert!(table.iter().any(|(f, g)| f == id && *g == format!("--{long}")), "{id} → --{long}: {table:?}");
                }
            }
        }
        for (field, flag) in [
            ("allow_missing", "--allow-missing"),
            ("human_range", "--human-range"),
            ("directions", "--direction"),
            ("aspect_directions", "--lower-is-better-aspects"),
            ("formats", "--format"),
            ("stem", "--name"),
            ("plots.aspects", "--plot-aspects"),
            ("KappaLayout::Packed", "--kappa-columns"),
        ] {
            assert!(meta_eval_flags().iter().any(|(f, g)| f == field && g == flag), "{field} → {flag}");
        }
        assert!(report_flags().iter().any(|(f, g)| f == "metrics" && g == "--meta-metrics"));
    }

    /// Every option `factpico-metaeval` names (each `option: "…"` of an
    /// `Error::InvalidOption` in its sources, and the fields its advice names) has a
    /// `factpico meta-eval` flag, and the library's messages come out with flags.
    #[test]
    fn every_option_the_metaeval_library_names_has_a_flag() {
        use factpico_metaeval as me;
        let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../factpico-metaeval/src");
        let mut named = Vec::new();
        for entry in std::fs::read_dir(&src).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "rs") {
                let text = std::fs::read_to_string(&path).unwrap();
                // No flag text (`--name`) outside comments: the library names fields.
                let flag = |l: &str| l.match_indices("--").any(|(i, _)| l[i + 2..].starts_with(|c: char| c.is_ascii_lowercase()));
                let code = |l: &&str| !l.trim_start().starts_with("//");
                assert!(!text.lines().filter(code).any(flag), "{}: a flag in a message", path.display());
                for part in text.split("option: \"").skip(1) {
                    named.push(part.split('"').next().unwrap().to_owned());
                }
            }
        }
        assert!(named.len() >= 10, "{named:?}");
        // Named in advice and warnings (see the messages below).
        named.extend(["allow_missing", "system_col", "scores_id", "ratings_id", "stem", "out_dir", "plots", "scores_format", "ratings_format"].map(String::from));
        for field in &named {
            assert!(meta_eval_flags().iter().any(|(f, _)| f == field), "`{field}` has no meta-eval flag");
            assert!(!for_meta_eval(&format!("`{field}`")).contains('`'), "{field}");
        }

        let e = me::parse_overrides(&["nope"]).unwrap_err().to_string();
        assert_eq!(for_meta_eval(&e), "invalid option --direction: `nope`: expected COLUMN=lower or COLUMN=higher");
        let e = me::OutputFormat::parse_list("pdf").unwrap_err().to_string();
        assert_eq!(for_meta_eval(&e), "invalid option --format: unknown format `pdf` (use md, csv, json)");
        let table = me::Table { path: "r.csv".into(), side: me::Side::Ratings, factpico: false, columns: Vec::new(), rows: Vec::new(), elements: false, dropped: Vec::new() };
        let layout = me::kappa::KappaLayout::Packed { columns: Vec::new(), separator: '|' };
        let e = me::kappa::kappa(&table, &layout, 4).unwrap_err().to_string();
        assert_eq!(for_meta_eval(&e), "invalid option --kappa-columns: no column given");
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("r.csv");
        std::fs::write(&input, "id\n").unwrap();
        let e = me::refuse_overwriting_inputs(std::slice::from_ref(&input), &[&input]).unwrap_err().to_string();
        let e = for_meta_eval(&e);
        assert!(e.starts_with("invalid option --out-dir: ") && e.ends_with("; choose another --name, --out-dir or --plots"), "{e}");
        let unjoined = me::Unjoined {
            scores_path: "s.jsonl".into(),
            ratings_path: "r.csv".into(),
            scores_rows: 2,
            ratings_rows: 1,
            scores_only: 1,
            ratings_only: 0,
            scores_examples: vec!["b".into()],
            ratings_examples: Vec::new(),
        };
        assert!(for_meta_eval(&unjoined.to_string()).ends_with("; set --allow-missing to evaluate the joined rows only"));
        let report = me::JoinReport { scores_only: 1, joined: 1, ..me::JoinReport::default() };
        let w = report.missing_warning().unwrap();
        assert_eq!(for_meta_eval(&w), "1 scores rows and 0 ratings rows did not join (--allow-missing); 1 rows evaluated");
        assert_eq!(for_report(&w), for_meta_eval(&w));
        let e = me::Error::NothingJoined { scores: "s".into(), ratings: "r".into(), scores_examples: "a".into(), ratings_examples: "b".into() };
        assert!(for_meta_eval(&e.to_string()).contains("check --scores-id / --ratings-id"), "{e}");
    }
}
