//! The options type's command-line flags (feature `clap`, the derives in `src/config.rs`).
#![allow(clippy::unwrap_used, clippy::panic)]

use std::path::PathBuf;

use factpico_qa::*;

/// The flags come from the same definition: no flag = the defaults; each flag sets its
/// field; the ids are the JSON paths.
#[test]
fn flags_from_the_definition() {
    use clap::{Args as _, FromArgMatches as _};
    let cmd = QaConfig::augment_args(clap::Command::new("t"));
    cmd.clone().debug_assert();
    let parse = |args: &[&str]| {
        let m = cmd.clone().try_get_matches_from(std::iter::once("t").chain(args.iter().copied())).unwrap();
        QaConfig::from_arg_matches(&m).unwrap()
    };
    assert_eq!(parse(&[]), QaConfig::default());
    let c = parse(&[
        "--answers", "rules", "--questeval-qg-model", "qg", "--questeval-qa-model", "qa", "--bertscore-model", "b",
        "--qafacteval-qg-model", "bart", "--lerc-model", "l", "--extractive-qa-model", "x",
    ]);
    let p = |s: &str| Some(PathBuf::from(s));
    assert_eq!(c.answers, AnswerSelection::Rules);
    assert_eq!((c.questeval_qg_model, c.questeval_qa_model, c.bertscore_model), (p("qg"), p("qa"), p("b")));
    assert_eq!((c.qafacteval_qg_model, c.lerc_model, c.extractive_qa_model), (p("bart"), p("l"), p("x")));
    assert_eq!(parse(&["--answers", "spacy"]).answers, AnswerSelection::Spacy);
    let defaults = serde_json::to_value(QaConfig::default()).unwrap();
    for a in cmd.get_arguments() {
        let id = a.get_id().as_str();
        let field = id.strip_prefix("qa.").unwrap_or_else(|| panic!("{id}: not under qa."));
        assert!(defaults.get(field).is_some(), "{id}");
    }
}
