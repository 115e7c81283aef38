//! The options type's command-line flags (feature `clap`, the derives in `src/config.rs`).
#![allow(clippy::unwrap_used, clippy::panic)]

use factpico_dae::*;

/// The flags come from the same definition: no flag = the defaults; each flag sets its
/// field; the ids are the JSON paths.
#[test]
fn flags_from_the_definition() {
    use clap::{Args as _, FromArgMatches as _};
    let cmd = DaeConfig::augment_args(clap::Command::new("t"));
    cmd.clone().debug_assert();
    let parse = |args: &[&str]| {
        let m = cmd.clone().try_get_matches_from(std::iter::once("t").chain(args.iter().copied())).unwrap();
        DaeConfig::from_arg_matches(&m).unwrap()
    };
    assert_eq!(parse(&[]), DaeConfig::default());
    let c = parse(&[
        "--dae-model", "m", "--dae-nli-model", "n", "--arcs", "a.conllu", "--parser", "conllu",
        "--dae-multi-sentence", "single-parse",
    ]);
    assert_eq!((c.model, c.nli_model, c.arcs), (Some("m".into()), Some("n".into()), Some("a.conllu".into())));
    assert_eq!((c.parser, c.multi_sentence), (Some(DaeParser::Conllu), MultiSentence::SingleParse));
    assert_eq!(parse(&["--parser", "json"]).parser, Some(DaeParser::Json));
    assert_eq!(parse(&["--parser", "spacy"]).parser, Some(DaeParser::Spacy));
    let defaults = serde_json::to_value(DaeConfig::default()).unwrap();
    for a in cmd.get_arguments() {
        let id = a.get_id().as_str();
        let field = id.strip_prefix("dae.").unwrap_or_else(|| panic!("{id}: not under dae."));
        assert!(defaults.get(field).is_some(), "{id}");
    }
}
