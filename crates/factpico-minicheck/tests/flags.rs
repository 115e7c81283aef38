//! The options type's command-line flags (feature `clap`, the derives in `src/config.rs`).
#![allow(clippy::unwrap_used, clippy::panic)]

use std::path::PathBuf;

use factpico_minicheck::*;

/// The flags come from the same definition: no flag = the defaults; each flag sets its
/// field; the ids are the JSON paths.
#[test]
fn flags_from_the_definition() {
    use clap::{Args as _, FromArgMatches as _};
    let cmd = MiniCheckConfig::augment_args(clap::Command::new("t"));
    cmd.clone().debug_assert();
    let parse = |args: &[&str]| {
        let m = cmd.clone().try_get_matches_from(std::iter::once("t").chain(args.iter().copied())).unwrap();
        MiniCheckConfig::from_arg_matches(&m).unwrap()
    };
    assert_eq!(parse(&[]), MiniCheckConfig::default());
    let c = parse(&[
        "--minicheck-model", "m", "--minicheck-checker", "deberta-v3-large", "--minicheck-claim", "sentences",
        "--minicheck-aggregation", "mean", "--minicheck-chunk-size", "300", "--minicheck-max-length", "1024",
    ]);
    assert_eq!(
        c,
        MiniCheckConfig {
            model: Some(PathBuf::from("m")),
            checker: Some(Variant::DebertaV3Large),
            claim: ClaimMode::Sentences,
            aggregation: Aggregation::Mean,
            chunk_size: Some(300),
            max_length: Some(1024),
        }
    );
    for v in Variant::ALL {
        assert_eq!(parse(&["--minicheck-checker", v.as_str()]).checker, Some(v));
    }
    for a in cmd.get_arguments() {
        let id = a.get_id().as_str();
        let field = id.strip_prefix("minicheck.").unwrap_or_else(|| panic!("{id}: not under minicheck."));
        assert!(serde_json::to_value(MiniCheckConfig::default()).unwrap().get(field).is_some(), "{id}");
    }
}
