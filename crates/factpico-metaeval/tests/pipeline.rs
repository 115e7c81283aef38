//! End-to-end tests of the meta-evaluation pipeline on small self-written
//! files: joining, directions, levels, nulls, outputs and plots.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use std::path::{Path, PathBuf};

use factpico_metaeval::plot::{PlotFormat, PlotOptions};
use factpico_metaeval::{
    evaluate, join, run, BootstrapOptions, Direction, DirectionSource, Error, EvalOptions, Format, JoinOptions, Level,
    LevelNull, Levels, OutputFormat, RunOptions, Side, Table,
};

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

fn s(v: &[&str]) -> Vec<String> {
    v.iter().map(|x| (*x).to_owned()).collect()
}

/// factpico-score-like JSONL: 6 items × 3 systems; `good` rises with the
/// human score, `fk` (a lower-is-better registry column) falls with it.
fn three_system_files(dir: &Path) -> (PathBuf, PathBuf) {
    let mut scores = String::new();
    let mut ratings = String::from("doc,system,human\n");
    let systems = ["A", "B", "C"];
    for (si, sys) in systems.iter().enumerate() {
        for item in 0..6 {
            let h = 1.0 + ((item + si) % 4) as f64; // 1..4
            let good = h / 10.0 + 0.01 * item as f64;
            let fk = 20.0 - 2.0 * h;
            scores.push_str(&format!(
                "{{\"row\":{},\"id\":\"d{item}\",\"system\":\"{sys}\",\"scores\":{{\"good\":{good},\"fkgl_summary\":{fk}}},\"provenance\":{{}}}}\n",
                si * 6 + item + 1
            ));
            ratings.push_str(&format!("d{item},{sys},{h}\n"));
        }
    }
    (write(dir, "scores.jsonl", &scores), write(dir, "ratings.csv", &ratings))
}

fn base_opts(scores: PathBuf, ratings: PathBuf) -> RunOptions {
    RunOptions {
        scores,
        scores_format: None,
        ratings,
        ratings_format: None,
        metrics: s(&["good", "fkgl_summary"]),
        aspects: s(&["human"]),
        join: JoinOptions { ratings_id: "doc".into(), ..JoinOptions::default() },
        eval: EvalOptions::default(),
        formats: vec![OutputFormat::Md, OutputFormat::Csv, OutputFormat::Json],
        out_dir: None,
        stem: "meta-eval".into(),
        plots: None,
    }
}

#[test]
fn lower_is_better_metrics_are_negated_so_agreement_is_positive() {
    let dir = tempfile::tempdir().unwrap();
    let (sc, ra) = three_system_files(dir.path());
    let out = run(&base_opts(sc, ra)).unwrap();
    let r = &out.result;
    let fk = r.directions.iter().find(|d| d.metric == "fkgl_summary").unwrap();
    assert_eq!((fk.direction, fk.source), (Direction::LowerIsBetter, DirectionSource::Registry));
    let good = r.directions.iter().find(|d| d.metric == "good").unwrap();
    assert_eq!(good.source, DirectionSource::Assumed);
    // fk = 20 − 2h is a perfect decreasing function of h: after negation τ_b = +1.
    let c = r.cell(Level::Instance, "fkgl_summary", "human").unwrap();
    assert_eq!(c.stats.unwrap().kendall_tau_b.statistic, Some(1.0));
    assert_eq!(c.stats.unwrap().pairwise_accuracy.accuracy, Some(1.0));
    assert_eq!(c.n, 18);
    // overriding the direction flips the sign
    let mut o = base_opts(dir.path().join("scores.jsonl"), dir.path().join("ratings.csv"));
    o.eval.directions = factpico_metaeval::parse_overrides(&["fkgl_summary=higher"]).unwrap();
    let flipped = run(&o).unwrap();
    let c = flipped.result.cell(Level::Instance, "fkgl_summary", "human").unwrap();
    assert_eq!(c.stats.unwrap().kendall_tau_b.statistic, Some(-1.0));
    assert!(out.markdown.contains("Lower-is-better metrics (`fkgl_summary`) were negated first"));
}

#[test]
fn system_level_needs_three_systems() {
    let dir = tempfile::tempdir().unwrap();
    let (sc, ra) = three_system_files(dir.path());
    let out = run(&base_opts(sc, ra)).unwrap();
    let r = &out.result;
    assert!(r.join.key_includes_system);
    assert_eq!((r.n_items, r.n_systems), (6, 3));
    let sys = r.cell(Level::System, "fkgl_summary", "human").unwrap();
    assert_eq!(sys.n, 3);
    assert!(sys.stats.is_some() && sys.null.is_none());
    assert_eq!(r.system_means.len(), 2);
    // per-system means are on the metric's own scale (not negated)
    assert!(r.system_means[1].means.iter().all(|m| m.metric_mean > 0.0));

    // drop system C from both files → 2 systems → documented null
    let keep = |p: &Path| {
        let t = std::fs::read_to_string(p).unwrap();
        t.lines().filter(|l| !l.contains("\"C\"") && !l.ends_with(",C,1") && !l.contains(",C,")).collect::<Vec<_>>().join("\n") + "\n"
    };
    let sc2 = write(dir.path(), "s2.jsonl", &keep(&dir.path().join("scores.jsonl")));
    let ra2 = write(dir.path(), "r2.csv", &keep(&dir.path().join("ratings.csv")));
    let out = run(&base_opts(sc2, ra2)).unwrap();
    let sys = out.result.cell(Level::System, "good", "human").unwrap();
    assert!(sys.stats.is_none());
    match &sys.null {
        Some(LevelNull::Stats { reason }) => assert!(reason.to_string().contains("too few systems with a value for system level (2 < 3)"), "{reason}"),
        other => panic!("expected a too-few-systems null, got {other:?}"),
    }
    assert!(out.markdown.contains("Not computed: too few systems with a value for system level (2 < 3)"), "{}", out.markdown);
}

#[test]
fn no_system_column_is_a_documented_null_and_nan_null_rows_are_excluded_and_counted() {
    let dir = tempfile::tempdir().unwrap();
    let scores = write(
        dir.path(),
        "s.jsonl",
        concat!(
            "{\"id\":\"a\",\"scores\":{\"m\":0.1}}\n",
            "{\"id\":\"b\",\"scores\":{\"m\":null},\"nulls\":{\"m\":\"empty summary\"}}\n",
            "{\"id\":\"c\",\"scores\":{\"m\":0.3}}\n",
            "{\"id\":\"d\",\"scores\":{},\"skipped\":\"malformed row\"}\n",
            "{\"id\":null,\"scores\":{},\"skipped\":\"unreadable\"}\n",
            "{\"id\":\"e\",\"scores\":{\"m\":0.5}}\n",
            "{\"id\":\"f\",\"scores\":{\"m\":0.6}}\n",
        ),
    );
    let ratings = write(dir.path(), "r.csv", "id,h\na,1\nb,2\nc,2\nd,3\ne,NaN\nf,4\n");
    let mut o = base_opts(scores, ratings);
    o.join = JoinOptions::default();
    o.metrics = s(&["m"]);
    o.aspects = s(&["h"]);
    let out = run(&o).unwrap();
    let r = &out.result;
    assert_eq!((r.join.scores_rows, r.join.scores_dropped, r.join.scores_skipped, r.join.joined), (6, 1, 1, 6));
    let inst = r.cell(Level::Instance, "m", "h").unwrap();
    assert_eq!((inst.n, inst.n_excluded), (3, 3)); // b (null), d (skipped), e (NaN human)
    assert_eq!(inst.stats.unwrap().kendall_tau_b.statistic, Some(1.0));
    let miss = &r.join.missing["m"];
    assert_eq!(miss.n_missing, 2);
    assert_eq!(miss.reasons["empty summary"], 1);
    assert_eq!(miss.reasons["row skipped: malformed row"], 1);
    assert_eq!(r.join.missing["h"].n_missing, 1);
    let sys = r.cell(Level::System, "m", "h").unwrap();
    assert_eq!(sys.null, Some(LevelNull::NoSystemColumn));
    assert!(out.markdown.contains("`m` 2 (empty summary ×1; row skipped: malformed row ×1)"), "{}", out.markdown);
    assert!(out.markdown.contains("1 unreadable rows without an id dropped; 1 skipped rows kept"), "{}", out.markdown);
}

#[test]
fn outputs_are_written_and_agree() {
    let dir = tempfile::tempdir().unwrap();
    let (sc, ra) = three_system_files(dir.path());
    let mut o = base_opts(sc, ra);
    o.out_dir = Some(dir.path().join("out"));
    o.eval.bootstrap = Some(BootstrapOptions { n_resamples: 50, confidence_level: 0.9, seed: 7 });
    let out = run(&o).unwrap();
    assert_eq!(out.written.len(), 3);
    let md = std::fs::read_to_string(dir.path().join("out/meta-eval.md")).unwrap();
    assert_eq!(md, out.markdown);
    assert!(md.contains("90% percentile bootstrap intervals, resampling items (B = 50, seed 7)"));
    let csv = std::fs::read_to_string(dir.path().join("out/meta-eval.csv")).unwrap();
    let mut rdr = csv::Reader::from_reader(csv.as_bytes());
    let header = rdr.headers().unwrap().clone();
    assert!(header.iter().any(|h| h == "kendall_tau_b_lo"));
    let rows: Vec<csv::StringRecord> = rdr.records().map(Result::unwrap).collect();
    assert_eq!(rows.len(), 4); // 2 levels × 2 metrics × 1 aspect
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("out/meta-eval.json")).unwrap()).unwrap();
    assert_eq!(json["cells"].as_array().unwrap().len(), 4);
    let tau_json = json["cells"][0]["stats"]["kendall_tau_b"]["statistic"].as_f64().unwrap();
    let tau_csv: f64 = rows[0][header.iter().position(|h| h == "kendall_tau_b").unwrap()].parse().unwrap();
    assert_eq!(tau_json, tau_csv);
    // same seed → same intervals
    let again = run(&o).unwrap();
    assert_eq!(again.markdown, out.markdown);
}

#[test]
fn join_errors_surface_through_run() {
    let dir = tempfile::tempdir().unwrap();
    let (sc, _) = three_system_files(dir.path());
    let ratings = write(dir.path(), "r.csv", "doc,system,human\nd0,A,1\nzz,A,2\n");
    let e = run(&base_opts(sc.clone(), ratings.clone())).unwrap_err();
    let Error::Unjoined(u) = &e else { panic!("{e}") };
    assert_eq!((u.scores_only, u.ratings_only), (17, 1));
    assert_eq!(u.scores_examples.len(), 5);
    let mut o = base_opts(sc, ratings);
    o.join.allow_missing = true;
    let out = run(&o).unwrap();
    assert_eq!(out.result.join.joined, 1);
    assert!(out.markdown.contains("Not joined (missing ids allowed): 17 scores rows"));
}

#[test]
fn plots_render_as_valid_svg_and_png() {
    let dir = tempfile::tempdir().unwrap();
    // with systems
    let (sc, ra) = three_system_files(dir.path());
    let mut o = base_opts(sc, ra);
    o.plots = Some(PlotOptions::new(dir.path().join("img")));
    let out = run(&o).unwrap();
    assert_eq!(out.written.len(), 4);
    // without systems (item-level scatter with jitter)
    let scores = write(dir.path(), "flat.csv", "id,good\na,0.1\nb,0.2\nc,0.4\nd,0.3\n");
    let ratings = write(dir.path(), "flat_r.csv", "id,human\na,1\nb,2\nc,4\nd,4\n");
    let mut o = base_opts(scores, ratings);
    o.join = JoinOptions::default();
    o.metrics = s(&["good"]);
    o.plots = Some(PlotOptions {
        dir: dir.path().join("img2"),
        formats: vec![PlotFormat::Png, PlotFormat::Svg],
        aspects: Some(s(&["human"])),
        seed: 3,
    });
    let out2 = run(&o).unwrap();
    for p in out.written.iter().chain(&out2.written) {
        let bytes = std::fs::read(p).unwrap();
        assert!(bytes.len() > 1000, "{} is only {} bytes", p.display(), bytes.len());
        match p.extension().and_then(|e| e.to_str()) {
            Some("png") => assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n", "{}", p.display()),
            Some("svg") => {
                let text = String::from_utf8(bytes).unwrap();
                assert!(text.starts_with("<svg") && text.trim_end().ends_with("</svg>"), "{}", p.display());
                assert!(text.contains("<text"), "no text in {}", p.display());
            }
            other => panic!("unexpected file {other:?}"),
        }
    }
    let svg = std::fs::read_to_string(dir.path().join("img2/scatter_human.svg")).unwrap();
    assert!(svg.contains("one point per summary"));
    let svg = std::fs::read_to_string(dir.path().join("img/distribution_human.svg")).unwrap();
    assert!(svg.contains("KL(human"));
    // an aspect that was not evaluated is an error
    let mut bad = o.clone();
    bad.plots = Some(PlotOptions { aspects: Some(s(&["nope"])), ..PlotOptions::new(dir.path().join("img3")) });
    assert!(matches!(run(&bad), Err(Error::InvalidOption { .. })));
}

#[test]
fn evaluate_directly_on_a_join() {
    let sc = Table::parse("id,x\na,3\nb,2\nc,1\n", Path::new("s.csv"), Side::Scores, Format::Csv).unwrap();
    let ra = Table::parse("id,h\na,1\nb,2\nc,3\n", Path::new("r.csv"), Side::Ratings, Format::Csv).unwrap();
    let j = join(&sc, &ra, &s(&["x"]), &s(&["h"]), &JoinOptions::default()).unwrap();
    let opts = EvalOptions {
        levels: Levels::Instance,
        directions: factpico_metaeval::parse_overrides(&["x=lower"]).unwrap(),
        ..EvalOptions::default()
    };
    let r = evaluate(&j, &s(&["x"]), &s(&["h"]), &opts).unwrap();
    assert_eq!(r.cells.len(), 1);
    assert_eq!(r.cells[0].stats.unwrap().spearman_rho.statistic, Some(1.0));
    let bad = EvalOptions { human_range: Some((4.0, 1.0)), ..EvalOptions::default() };
    assert!(matches!(evaluate(&j, &s(&["x"]), &s(&["h"]), &bad), Err(Error::InvalidOption { .. })));
}

#[test]
fn lower_is_better_aspects_are_negated_and_overrides_are_checked() {
    let sc = Table::parse("id,x\na,1\nb,2\nc,3\nd,4\n", Path::new("s.csv"), Side::Scores, Format::Csv).unwrap();
    let ra = Table::parse("id,errors\na,3\nb,2\nc,2\nd,0\n", Path::new("r.csv"), Side::Ratings, Format::Csv).unwrap();
    let j = join(&sc, &ra, &s(&["x"]), &s(&["errors"]), &JoinOptions::default()).unwrap();
    let plain = evaluate(&j, &s(&["x"]), &s(&["errors"]), &EvalOptions::default()).unwrap();
    let tau = plain.cells[0].stats.unwrap().kendall_tau_b.statistic.unwrap();
    assert!(tau < -0.9, "{tau}");
    let mut opts = EvalOptions::default();
    opts.aspect_directions.insert("errors".into(), Direction::LowerIsBetter);
    let r = evaluate(&j, &s(&["x"]), &s(&["errors"]), &opts).unwrap();
    assert_eq!(r.cells[0].stats.unwrap().kendall_tau_b.statistic, Some(-tau));
    let md = factpico_metaeval::markdown(&r);
    assert!(md.contains("human aspects where lower is better: `errors`"), "{md}");
    assert!(md.contains("Lower-is-better human aspects (`errors`) were negated first"), "{md}");
    let mut bad = EvalOptions::default();
    bad.aspect_directions.insert("nope".into(), Direction::LowerIsBetter);
    assert!(evaluate(&j, &s(&["x"]), &s(&["errors"]), &bad).unwrap_err().to_string().contains("`nope` is not one of"));
    let bad = EvalOptions { directions: factpico_metaeval::parse_overrides(&["y=lower"]).unwrap(), ..EvalOptions::default() };
    assert!(matches!(evaluate(&j, &s(&["x"]), &s(&["errors"]), &bad), Err(Error::InvalidOption { option: "directions", .. })));
}

#[test]
fn declared_human_range_follows_the_aspect_direction_and_is_checked() {
    let sc = Table::parse("id,x\na,1\nb,2\nc,3\nd,4\n", Path::new("s.csv"), Side::Scores, Format::Csv).unwrap();
    let ra = Table::parse("id,errors\na,3\nb,2\nc,1\nd,0\n", Path::new("r.csv"), Side::Ratings, Format::Csv).unwrap();
    let j = join(&sc, &ra, &s(&["x"]), &s(&["errors"]), &JoinOptions::default()).unwrap();
    let mut opts = EvalOptions { human_range: Some((0.0, 4.0)), ..EvalOptions::default() };
    opts.aspect_directions.insert("errors".into(), Direction::LowerIsBetter);
    let r = evaluate(&j, &s(&["x"]), &s(&["errors"]), &opts).unwrap();
    // errors 3,2,1,0 → negated −3..0 on the scale [−4, 0] → 0.25, 0.5, 0.75, 1: mean 0.625
    let fit = r.kl[0].kl.human_fit.unwrap();
    assert!((fit.mean - 0.625).abs() < 1e-12, "{fit:?}");
    let opts = EvalOptions { human_range: Some((0.0, 2.0)), ..EvalOptions::default() };
    let e = evaluate(&j, &s(&["x"]), &s(&["errors"]), &opts).unwrap_err();
    assert!(e.to_string().contains("aspect `errors` has the value 3 outside the declared scale"), "{e}");
}
