//! `factpico meta-eval`'s argument parser (`factpico_cli::MetaEvalArgs`, moved out of the
//! `factpico-metaeval` library): arguments parse, run the library, and errors name the flags
//! (the library names its options by field; `factpico_cli::for_meta_eval` translates).
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

    // The library names its options by field; the command line prints the flags.
    let with = |extra: &[&str]| {
        let mut a = args[..14].to_vec();
        a.extend_from_slice(extra);
        MetaEvalArgs::try_parse_args(a).unwrap().execute().unwrap_err().to_string()
    };
    let e = with(&["--human-range", "4,1"]);
    assert_eq!(e, "invalid option `human_range`: [4, 1] must be finite with lo < hi");
    assert_eq!(factpico_cli::for_meta_eval(&e), "invalid option --human-range: [4, 1] must be finite with lo < hi");
    let e = with(&["--direction", "other=lower"]);
    assert!(factpico_cli::for_meta_eval(&e).starts_with("invalid option --direction: `other` is not one of"), "{e}");
    let e = with(&["--lower-is-better-aspects", "other"]);
    assert!(factpico_cli::for_meta_eval(&e).starts_with("invalid option --lower-is-better-aspects: `other`"), "{e}");
    let e = with(&["--plots", dir.path().join("img").to_str().unwrap(), "--plot-aspects", "other"]);
    assert!(factpico_cli::for_meta_eval(&e).starts_with("invalid option --plot-aspects: `other`"), "{e}");
    let e = with(&["--format", "pdf"]);
    assert!(factpico_cli::for_meta_eval(&e).starts_with("invalid option --format: unknown format `pdf`"), "{e}");

    // The binary prints them so, errors and warnings: ids of one file only.
    std::fs::write(&ra, std::fs::read_to_string(&ra).unwrap() + "extra,A,2\n").unwrap();
    let bin = || std::process::Command::new(env!("CARGO_BIN_EXE_factpico"));
    let o = bin().arg("meta-eval").args(&args[..14]).output().unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("; set --allow-missing to evaluate the joined rows only"), "{stderr}");
    let o = bin().arg("meta-eval").args(&args[..14]).args(["--allow-missing", "--human-range", "1,4"]).output().unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("warning: 0 scores rows and 1 ratings rows did not join (--allow-missing)"), "{stderr}");
    let o = bin().arg("meta-eval").args(&args[..14]).args(["--human-range", "2,3", "--allow-missing"]).output().unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(stderr.contains("error: invalid option --human-range: aspect `human` has the value"), "{stderr}");
}
