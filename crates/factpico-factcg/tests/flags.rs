//! The options type's command-line flags (feature `clap`, the derives in `src/config.rs`).
#![allow(clippy::unwrap_used, clippy::panic)]

use std::path::PathBuf;

use factpico_factcg::*;

/// The flags come from the same definition: no flag = the defaults; each flag sets its
/// field; the ids are the JSON paths.
#[test]
fn flags_from_the_definition() {
    use clap::{Args as _, FromArgMatches as _};
    let cmd = FactCgConfig::augment_args(clap::Command::new("t"));
    cmd.clone().debug_assert();
    let parse = |args: &[&str]| {
        let m = cmd.clone().try_get_matches_from(std::iter::once("t").chain(args.iter().copied())).unwrap();
        FactCgConfig::from_arg_matches(&m).unwrap()
    };
    assert_eq!(parse(&[]), FactCgConfig::default());
    let c = parse(&[
        "--factcg-model", "m", "--factcg-claim", "sentences", "--factcg-aggregation", "mean",
        "--factcg-threshold", "0.7", "--factcg-chunk-size", "300",
    ]);
    assert_eq!(
        c,
        FactCgConfig {
            model: Some(PathBuf::from("m")),
            claim: ClaimMode::Sentences,
            aggregation: Aggregation::Mean,
            threshold: Some(0.7),
            chunk_size: Some(300),
        }
    );
    for a in cmd.get_arguments() {
        let id = a.get_id().as_str();
        let field = id.strip_prefix("factcg.").unwrap_or_else(|| panic!("{id}: not under factcg."));
        assert!(serde_json::to_value(FactCgConfig::default()).unwrap().get(field).is_some(), "{id}");
    }
}
