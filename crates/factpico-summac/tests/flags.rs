//! The options type's command-line flags (feature `clap`, the derives in `src/config.rs`).
#![allow(clippy::unwrap_used, clippy::panic)]

use std::path::PathBuf;

use factpico_summac::*;

/// The flags come from the same definition: no flag = the defaults; each flag sets its
/// field; the ids are the JSON paths.
#[test]
fn flags_from_the_definition() {
    use clap::{Args as _, FromArgMatches as _};
    let cmd = SummacConfig::augment_args(clap::Command::new("t"));
    cmd.clone().debug_assert();
    let parse = |args: &[&str]| {
        let m = cmd.clone().try_get_matches_from(std::iter::once("t").chain(args.iter().copied())).unwrap();
        SummacConfig::from_arg_matches(&m).unwrap()
    };
    assert_eq!(parse(&[]), SummacConfig::default());
    let c = parse(&[
        "--summac-model", "m", "--summac-granularity", "2sents", "--summac-document-granularity", "paragraph",
        "--summac-cuts", "lifted", "--summac-entailment-index", "2", "--summac-contradiction-index", "0",
        "--summac-zs-op1", "min", "--summac-zs-op2", "max", "--summac-conv-weights", "w.json",
    ]);
    assert_eq!(c.model, Some(PathBuf::from("m")));
    assert_eq!((c.granularity, c.document_granularity, c.cuts), (Granularity::TwoSentences, Some(Granularity::Paragraph), Cuts::Lifted));
    assert_eq!((c.entailment_index, c.contradiction_index), (Some(2), Some(0)));
    assert_eq!((c.zs_op1, c.zs_op2), (Reduce::Min, Reduce::Max));
    assert_eq!(c.conv_weights, Some(PathBuf::from("w.json")));
    for a in cmd.get_arguments() {
        let id = a.get_id().as_str();
        let field = id.strip_prefix("summac.").unwrap_or_else(|| panic!("{id}: not under summac."));
        assert!(serde_json::to_value(SummacConfig::default()).unwrap().get(field).is_some(), "{id}");
    }
}
