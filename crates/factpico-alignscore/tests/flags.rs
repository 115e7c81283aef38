//! The options type's command-line flags (feature `clap`, the derives in `src/config.rs`).
#![allow(clippy::unwrap_used, clippy::panic)]

use std::path::PathBuf;

use factpico_alignscore::*;

/// The flags come from the same definition: no flag = the defaults; each flag sets its
/// field; the ids are the JSON paths.
#[test]
fn flags_from_the_definition() {
    use clap::{Args as _, FromArgMatches as _};
    let cmd = AlignScoreConfig::augment_args(clap::Command::new("t"));
    cmd.clone().debug_assert();
    let parse = |args: &[&str]| {
        let m = cmd.clone().try_get_matches_from(std::iter::once("t").chain(args.iter().copied())).unwrap();
        AlignScoreConfig::from_arg_matches(&m).unwrap()
    };
    assert_eq!(parse(&[]), AlignScoreConfig::default());
    let c = parse(&["--alignscore-model", "m", "--alignscore-mode", "reg_sp", "--alignscore-words-per-chunk", "200", "--max-length", "256"]);
    assert_eq!(
        c,
        AlignScoreConfig { model: Some(PathBuf::from("m")), mode: Mode::RegSp, words_per_chunk: 200, max_length: Some(256) }
    );
    for m in Mode::ALL {
        assert_eq!(parse(&["--alignscore-mode", m.as_str()]).mode, m);
    }
    for a in cmd.get_arguments() {
        let id = a.get_id().as_str();
        let field = id.strip_prefix("alignscore.").unwrap_or_else(|| panic!("{id}: not under alignscore."));
        assert!(serde_json::to_value(AlignScoreConfig::default()).unwrap().get(field).is_some(), "{id}");
    }
}
