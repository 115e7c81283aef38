//! The bounded-memory path of `run` (rows streamed, only the joined columns kept, issue 23
//! class 11) gives the same result as the whole-file tables of `Table::parse` + `join`, and
//! the same errors, on the repository's fixtures and on files with every kind of row.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use std::path::{Path, PathBuf};

use factpico_metaeval::{
    evaluate, join, render, run, EvalOptions, Format, JoinOptions, OutputFormat, RunOptions, Side, Table,
};

fn s(v: &[&str]) -> Vec<String> {
    v.iter().map(|x| (*x).to_owned()).collect()
}

fn repo(p: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").join(p)
}

fn opts(scores: PathBuf, ratings: PathBuf, metrics: &[&str], aspects: &[&str], join: JoinOptions) -> RunOptions {
    RunOptions {
        scores,
        scores_format: None,
        ratings,
        ratings_format: None,
        metrics: s(metrics),
        aspects: s(aspects),
        join,
        eval: EvalOptions::default(),
        formats: vec![OutputFormat::Json],
        out_dir: None,
        stem: "meta-eval".into(),
        plots: None,
    }
}

/// The result JSON (and error text) the old way: each file read whole into a `Table`.
fn whole(o: &RunOptions) -> Result<String, String> {
    let load = |p: &Path, side, f: Option<Format>| {
        let text = std::fs::read_to_string(p).unwrap();
        let f = f.or_else(|| Format::from_path(p)).unwrap();
        Table::parse(&text, p, side, f)
    };
    let sc = load(&o.scores, Side::Scores, o.scores_format).map_err(|e| e.to_string())?;
    let ra = load(&o.ratings, Side::Ratings, o.ratings_format).map_err(|e| e.to_string())?;
    let j = join(&sc, &ra, &o.metrics, &o.aspects, &o.join).map_err(|e| e.to_string())?;
    let r = evaluate(&j, &o.metrics, &o.aspects, &o.eval).map_err(|e| e.to_string())?;
    Ok(render(&r, OutputFormat::Json).unwrap() + &serde_json::to_string(&j).unwrap())
}

fn streamed(o: &RunOptions) -> Result<String, String> {
    let out = run(o).map_err(|e| e.to_string())?;
    let mut r = out.result;
    r.inputs = Default::default();
    Ok(render(&r, OutputFormat::Json).unwrap() + &serde_json::to_string(&out.joined).unwrap())
}

fn same(o: &RunOptions) -> Result<String, String> {
    let (a, b) = (whole(o), streamed(o));
    assert_eq!(a, b, "{o:?}");
    b
}

#[test]
fn fixtures_give_the_same_result() {
    let scores = tempfile::tempdir().unwrap();
    // a real `factpico score` output would need the binary; the fixture pairs' ratings with
    // a scores CSV made from them exercise CSV on both sides
    let ratings = repo("fixtures/pairs.ratings.csv");
    let text = std::fs::read_to_string(&ratings).unwrap();
    let mut sc = String::from("id,system,m1,m2\n");
    for (k, line) in text.lines().skip(1).enumerate() {
        let mut f = line.split(',');
        let (id, sys) = (f.next().unwrap(), f.next().unwrap());
        sc.push_str(&format!("{id},{sys},{},{}\n", (k * 7 % 5) as f64 / 4.0, if k == 3 { "NA".into() } else { format!("{}", k % 3) }));
    }
    let sp = scores.path().join("s.csv");
    std::fs::write(&sp, sc).unwrap();
    let r = same(&opts(sp, ratings, &["m1", "m2"], &["population", "avg_pico"], JoinOptions::default())).unwrap();
    assert!(r.contains("\"joined\":"), "{r}");
}

#[test]
fn factpico_rows_nulls_skips_drops_and_errors_are_kept() {
    let d = tempfile::tempdir().unwrap();
    let w = |name: &str, text: &str| {
        let p = d.path().join(name);
        std::fs::write(&p, text).unwrap();
        p
    };
    let scores = w(
        "s.jsonl",
        concat!(
            "{\"row\":1,\"id\":\"a\",\"system\":\"S\",\"scores\":{\"m\":0.5,\"k\":null},\"nulls\":{\"k\":\"empty summary\"},\"provenance\":{\"x\":[1,2]}}\r\n",
            "\n",
            "{\"row\":2,\"id\":null,\"skipped\":\"bad json\",\"scores\":{}}\n",
            "{\"row\":3,\"id\":\"b\",\"system\":\"S\",\"skipped\":\"too long\",\"scores\":{}}\n",
            "{\"row\":4,\"id\":\"c\",\"system\":\"S\",\"scores\":{\"m\":0.25,\"k\":2}}\n",
            "{\"row\":5,\"id\":\"d\",\"system\":\"S\",\"scores\":{\"m\":\"0.75\",\"k\":1}}\n",
            "{\"row\":6,\"id\":\"e\",\"system\":\"S\",\"scores\":{\"m\":\"oops\",\"k\":1}}\n",
        ),
    );
    let ratings = w("r.csv", "id,system,h\na,S,1\nb,S,2\nc,S,3\nd,S,4\n");
    let allow = JoinOptions { allow_missing: true, ..JoinOptions::default() };
    // `e` does not join: its non-numeric cell is not read
    let r = same(&opts(scores.clone(), ratings.clone(), &["m", "k"], &["h"], allow.clone())).unwrap();
    assert!(r.contains("empty summary") && r.contains("row skipped: too long"), "{r}");
    assert!(r.contains("\"scores_dropped\":1"), "{r}");
    // once it joins, the error names its row
    let ratings2 = w("r2.csv", "id,system,h\na,S,1\nb,S,2\nc,S,3\nd,S,4\ne,S,1\n");
    let e = same(&opts(scores.clone(), ratings2, &["m"], &["h"], JoinOptions::default())).unwrap_err();
    assert!(e.contains("row 6, column `m`: `oops`"), "{e}");
    // unjoined without `allow_missing`, missing columns, duplicates, a JSON array
    let e = same(&opts(scores.clone(), ratings.clone(), &["m"], &["h"], JoinOptions::default())).unwrap_err();
    assert!(e.contains("set `allow_missing`"), "{e}");
    let e = same(&opts(scores.clone(), ratings.clone(), &["zz"], &["h"], allow.clone())).unwrap_err();
    assert!(e.contains("has no column `zz`"), "{e}");
    let dup = w("dup.jsonl", "{\"id\":\"a\",\"m\":1}\n\n{\"id\":\"a\",\"m\":2}\n");
    let e = same(&opts(dup, ratings.clone(), &["m"], &["h"], allow.clone())).unwrap_err();
    assert!(e.contains("lines 1 and 3"), "{e}");
    let arr = w("a.json", "[{\"id\":\"a\",\"m\":1},{\"id\":\"c\",\"m\":\"2\"},{\"id\":\"d\",\"m\":null}]");
    same(&opts(arr, ratings.clone(), &["m"], &["h"], allow.clone())).unwrap();
    let bad = w("bad.jsonl", "{\"id\":\"a\",\"m\":1}\n[1]\n");
    let e = same(&opts(bad, ratings, &["m"], &["h"], allow)).unwrap_err();
    assert!(e.contains("bad.jsonl:2:"), "{e}");
}

#[test]
fn item_scatter_draws_at_most_the_cap_and_says_so() {
    use factpico_metaeval::plot::{scatter_svg, MAX_SCATTER_POINTS};
    let d = tempfile::tempdir().unwrap();
    let make = |n: usize| {
        let (mut sc, mut ra) = (String::from("id,m\n"), String::from("id,h\n"));
        for k in 0..n {
            sc.push_str(&format!("i{k},{}\n", (k * 37 % 101) as f64 / 100.0));
            ra.push_str(&format!("i{k},{}\n", 1 + k * 7919 % 4));
        }
        let (sp, rp) = (d.path().join(format!("s{n}.csv")), d.path().join(format!("r{n}.csv")));
        std::fs::write(&sp, sc).unwrap();
        std::fs::write(&rp, ra).unwrap();
        let out = run(&opts(sp, rp, &["m"], &["h"], JoinOptions::default())).unwrap();
        scatter_svg(&out.joined, &out.result, "h", 3).unwrap()
    };
    let circles = |svg: &str| svg.matches("<circle").count();
    let small = make(300);
    assert_eq!(circles(&small), 300);
    assert!(!small.contains("points drawn"));
    let n = MAX_SCATTER_POINTS + 1_500;
    let big = make(n);
    assert_eq!(circles(&big), MAX_SCATTER_POINTS);
    assert!(big.contains(&format!("({MAX_SCATTER_POINTS} of {n} points drawn)")), "caption");
    assert_eq!(big, make(n), "the drawn sample is seeded");
}

#[test]
fn system_means_on_the_raw_scale_are_the_means_of_the_raw_values() {
    use factpico_metaeval::Direction;
    let d = tempfile::tempdir().unwrap();
    let (mut sc, mut ra) = (String::from("id,system,fk,m\n"), String::from("id,system,err\n"));
    for k in 0..60 {
        let sys = ["A", "B", "C", "D"][k % 4];
        // system D averages to exactly zero in every column; others are signed fractions
        let v = if sys == "D" { [0.0, -0.0][k % 2] } else { (k as f64 - 30.0) / 7.0 };
        sc.push_str(&format!("i{k},{sys},{v},{}\n", v * 0.3));
        ra.push_str(&format!("i{k},{sys},{}\n", if sys == "D" { 0.0 } else { (k % 5) as f64 - 2.5 }));
    }
    let (sp, rp) = (d.path().join("s.csv"), d.path().join("r.csv"));
    std::fs::write(&sp, sc).unwrap();
    std::fs::write(&rp, ra).unwrap();
    let mut o = opts(sp, rp, &["fk", "m"], &["err"], JoinOptions::default());
    o.eval.directions.insert("fk".into(), Direction::LowerIsBetter);
    o.eval.aspect_directions.insert("err".into(), Direction::LowerIsBetter);
    let out = run(&o).unwrap();
    let j = &out.joined;
    for sm in &out.result.system_means {
        let direct = factpico_metaeval_direct(j, &sm.metric, &sm.aspect);
        let got: Vec<(String, u64, u64, usize)> =
            sm.means.iter().map(|s| (s.system.clone(), s.metric_mean.to_bits(), s.human_mean.to_bits(), s.n)).collect();
        assert_eq!(got, direct, "{} × {}", sm.metric, sm.aspect);
    }
}

fn factpico_metaeval_direct(j: &factpico_metaeval::Joined, metric: &str, aspect: &str) -> Vec<(String, u64, u64, usize)> {
    let systems = j.systems.as_ref().unwrap();
    let r = factpico_stats::meta_evaluate(&j.ids, systems, &j.metrics[metric], &j.aspects[aspect]).unwrap();
    r.system_means.iter().map(|s| (s.system.clone(), s.metric_mean.to_bits(), s.human_mean.to_bits(), s.n)).collect()
}
