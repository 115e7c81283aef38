//! `factpico meta-eval`'s argument parser (`factpico_cli::MetaEvalArgs`, moved out of the
//! `factpico-metaeval` library): arguments parse, run the library, and errors name the flags.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use factpico_cli::MetaEvalArgs;
use factpico_metaeval::{DirectionSource, Level};

#[test]
fn cli_arguments_parse_and_run() {
    let dir = tempfile::tempdir().unwrap();
    // 3 systems x 6 items; `good` follows the rating, `fkgl_summary` falls with it
    let (mut scores, mut ratings) = (String::new(), String::from("doc,system,human\n"));
    for (si, sys) in ["A", "B", "C"].iter().enumerate() {
        for item in 0..6 {
            let h = 1.0 + ((item + si) % 4) as f64;
            scores.push_str(&format!(
                "{{\"row\":{},\"id\":\"d{item}\",\"system\":\"{sys}\",\"scores\":{{\"good\":{},\"fkgl_summary\":{}}}}}\n",
                si * 6 + item + 1,
                h / 10.0 + 0.01 * item as f64,
                20.0 - 2.0 * h
            ));
            ratings.push_str(&format!("d{item},{sys},{h}\n"));
        }
    }
    let (sc, ra) = (dir.path().join("scores.jsonl"), dir.path().join("ratings.csv"));
    std::fs::write(&sc, scores).unwrap();
    std::fs::write(&ra, ratings).unwrap();
    let o_dir = dir.path().join("o");
    let args = [
        "--scores", sc.to_str().unwrap(), "--ratings", ra.to_str().unwrap(), "--ratings-id", "doc", "--aspects", "human",
        "--metrics", "good,fkgl_summary", "--direction", "good=lower", "--level", "system", "--format", "csv",
        "--out-dir", o_dir.to_str().unwrap(), "--name", "x",
    ];
    let a = MetaEvalArgs::try_parse_args(args).unwrap();
    let out = a.execute().unwrap();
    assert_eq!(out.written, vec![dir.path().join("o/x.csv")]);
    let r = out.result.unwrap();
    assert!(r.cells.iter().all(|c| c.level == Level::System));
    assert_eq!(r.directions[0].source, DirectionSource::Override);
    assert!(MetaEvalArgs::try_parse_args(["--ratings", "r.csv", "--level", "sideways"]).is_err());
    let e = MetaEvalArgs::try_parse_args(["--ratings", "r.csv"]).unwrap().execute().unwrap_err();
    assert!(e.to_string().contains("--scores FILE is required"), "{e}");
}
