//! The options type's command-line flags (feature `clap`, the derives in `src/config.rs`).
#![allow(clippy::unwrap_used, clippy::panic)]

use std::path::PathBuf;

use factpico_hhem::*;

/// The flags come from the same definition: no flag = the defaults; each flag sets its
/// field; the ids are the JSON paths.
#[test]
fn flags_from_the_definition() {
    use clap::{Args as _, FromArgMatches as _};
    let cmd = HhemConfig::augment_args(clap::Command::new("t"));
    cmd.clone().debug_assert();
    let parse = |args: &[&str]| {
        let m = cmd.clone().try_get_matches_from(std::iter::once("t").chain(args.iter().copied())).unwrap();
        HhemConfig::from_arg_matches(&m).unwrap()
    };
    assert_eq!(parse(&[]), HhemConfig::default());
    let c = parse(&[
        "--hhem-model", "m", "--hhem-premise", "chunked", "--hhem-chunk-tokens", "300", "--hhem-claim", "sentences",
        "--hhem-aggregation", "mean", "--hhem-threshold", "0.7", "--hhem-max-length", "4096",
    ]);
    assert_eq!(
        c,
        HhemConfig {
            model: Some(PathBuf::from("m")),
            premise: PremiseMode::Chunked,
            chunk_tokens: Some(300),
            claim: ClaimMode::Sentences,
            aggregation: Aggregation::Mean,
            threshold: Some(0.7),
            max_length: Some(4096),
        }
    );
    for a in cmd.get_arguments() {
        let id = a.get_id().as_str();
        let field = id.strip_prefix("hhem.").unwrap_or_else(|| panic!("{id}: not under hhem."));
        assert!(serde_json::to_value(HhemConfig::default()).unwrap().get(field).is_some(), "{id}");
    }
}
