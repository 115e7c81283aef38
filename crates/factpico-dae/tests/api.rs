//! `Dae` API with the tiny fixture model and pre-parsed JSON arcs (no Python needed):
//! aggregations, documented nulls, batch independence, option and parser errors.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::PathBuf;
use std::sync::Arc;

use factpico_dae::{Aggregation, Dae, DaeInput, DaeModel, DaeOptions, Error, MultiSentence, NullReason};
use factpico_nlp::json_arcs::JsonArcsSource;
use factpico_nlp::sidecar::{SidecarConfig, SpacySidecar};
use factpico_nlp::ArcSource;

fn tiny() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/models/dae-tiny")
}

const SOURCE: &str = "In 300 adults, the drug lowered blood pressure by 8 mmHg compared with placebo.";
const SUMMARY: &str = "The drug lowered blood pressure. It was safe.";

fn arcs_jsonl() -> String {
    let long: Vec<String> = (0..600).map(|i| format!("\"w{}\"", i % 7)).collect();
    let long_arcs: Vec<String> = (1..600).map(|i| format!("{{\"head\": 0, \"child\": {i}, \"relation\": \"amod\"}}")).collect();
    [
        r#"{"id": "ok", "tokens": [{"text": "The", "sentence": 0}, {"text": "drug", "sentence": 0}, {"text": "lowered", "sentence": 0}, {"text": "blood", "sentence": 0}, {"text": "pressure", "sentence": 0}, {"text": ".", "sentence": 0}, {"text": "It", "sentence": 1}, {"text": "was", "sentence": 1}, {"text": "safe", "sentence": 1}, {"text": ".", "sentence": 1}], "arcs": [{"head": 1, "child": 0, "relation": "det"}, {"head": 2, "child": 1, "relation": "nsubj"}, {"head": null, "child": 2, "relation": "root"}, {"head": 4, "child": 3, "relation": "compound"}, {"head": 2, "child": 4, "relation": "dobj"}, {"head": 2, "child": 5, "relation": "punct"}, {"head": 8, "child": 6, "relation": "nsubj"}, {"head": 8, "child": 7, "relation": "cop"}, {"head": null, "child": 8, "relation": "root"}, {"head": 8, "child": 9, "relation": "punct"}]}"#.to_owned(),
        r#"{"id": "punct", "tokens": ["...", "?", "!"], "arcs": [{"head": null, "child": 0, "relation": "root"}, {"head": 0, "child": 1, "relation": "punct"}, {"head": 0, "child": 2, "relation": "punct"}]}"#.to_owned(),
        "{\"id\": \"nopiece\", \"tokens\": [\"\u{ad}\", \"\u{200b}\"], \"arcs\": [{\"head\": 0, \"child\": 1, \"relation\": \"amod\"}]}".to_owned(),
        format!("{{\"id\": \"long\", \"tokens\": [{}], \"arcs\": [{}]}}", long.join(", "), long_arcs.join(", ")),
    ]
    .join("\n")
}

fn long_summary() -> String {
    (0..600).map(|i| format!("w{}", i % 7)).collect::<Vec<_>>().join(" ")
}

fn dae_with(f: impl FnOnce(&mut DaeOptions)) -> Dae {
    let mut o = DaeOptions::new(DaeModel::Electra(tiny()));
    o.parser = Some(Arc::new(JsonArcsSource::from_str(&arcs_jsonl()).unwrap()));
    f(&mut o);
    Dae::try_new(o).unwrap()
}

fn input<'a>(id: &'a str, summary: &'a str) -> DaeInput<'a> {
    DaeInput { id, source: SOURCE, summary, arcs: None }
}

#[test]
fn aggregations_and_per_arc_output() {
    let per = dae_with(|_| {});
    let out = per.score_batch(&[input("ok", SUMMARY)]).unwrap().remove(0);
    assert_eq!(out.null_reason, None);
    // kept: nsubj, compound, dobj (sentence 0), nsubj (sentence 1); det/root/punct/cop ignored
    let rels: Vec<(&str, usize)> = out.arcs.iter().map(|a| (a.relation.as_str(), a.sentence)).collect();
    assert_eq!(rels, [("nsubj", 0), ("compound", 0), ("dobj", 0), ("nsubj", 1)]);
    let a = &out.arcs[2];
    assert_eq!((a.head.as_str(), a.child.as_str()), ("lowered", "pressure"));
    assert_eq!(&SUMMARY[a.child_span.clone()], "pressure");
    let ps: Vec<f64> = out.arcs.iter().map(|a| a.probability).collect();
    assert!(ps.iter().all(|p| (0.0..=1.0).contains(p)));
    let min = ps.iter().copied().fold(f64::INFINITY, f64::min);
    assert_eq!(out.score, Some(min));
    assert_eq!(out.min, Some(min));
    assert!((out.mean.unwrap() - ps.iter().sum::<f64>() / 4.0).abs() < 1e-12);
    assert_eq!(out.label, Some(u8::from(out.arcs.iter().all(|a| a.entailed))));
    for a in &out.arcs {
        assert_eq!(a.entailed, a.probability > 0.5, "argmax of two logits");
    }
    let mean = dae_with(|o| o.aggregation = Aggregation::Mean).score_batch(&[input("ok", SUMMARY)]).unwrap().remove(0);
    assert_eq!(mean.score, out.mean);
    let label = dae_with(|o| o.aggregation = Aggregation::ReferenceLabel).score_batch(&[input("ok", SUMMARY)]).unwrap().remove(0);
    assert_eq!(label.score, out.label.map(f64::from));
    let json = serde_json::to_value(&out).unwrap();
    assert_eq!(json["arcs"].as_array().unwrap().len(), 4);
    assert!(json["null_reason"].is_null());
    // single parse: one unit, same arcs here (already in reference order)
    let single = dae_with(|o| o.multi_sentence = MultiSentence::SingleParse);
    let s = single.score_batch(&[input("ok", SUMMARY)]).unwrap().remove(0);
    assert_eq!(s.arcs.len(), 4);
    assert!(s.arcs.iter().all(|a| a.sentence == 0));
}

#[test]
fn degenerate_inputs_are_documented_nulls() {
    let d = dae_with(|_| {});
    let long = long_summary();
    let out = d
        .score_batch(&[input("none", ""), input("none", "  \t\n"), input("punct", "... ? !"), input("nopiece", "\u{ad} \u{200b}")])
        .unwrap();
    let why: Vec<Option<NullReason>> = out.iter().map(|o| o.null_reason).collect();
    assert_eq!(
        why,
        [Some(NullReason::EmptySummary), Some(NullReason::EmptySummary), Some(NullReason::NoKeptArcs), Some(NullReason::NoWordpieces)]
    );
    assert!(out.iter().all(|o| o.score.is_none() && o.min.is_none() && o.label.is_none()));
    assert_eq!(out[3].n_arcs_skipped, 1);
    let single = dae_with(|o| o.multi_sentence = MultiSentence::SingleParse);
    let o = single.score_batch(&[input("long", &long)]).unwrap().remove(0);
    assert_eq!(o.null_reason, Some(NullReason::SummaryTooLong));
    assert_eq!(o.n_arcs_kept, 599);
}

#[test]
fn batches_match_single_calls() {
    let d = dae_with(|o| o.batch_size = 2);
    let items = [input("ok", SUMMARY), input("punct", "... ? !"), input("ok", SUMMARY), input("none", "")];
    let batch = d.score_batch(&items).unwrap();
    for (it, b) in items.iter().zip(&batch) {
        let one = d.score_batch(std::slice::from_ref(it)).unwrap().remove(0);
        assert_eq!(one.arcs.len(), b.arcs.len());
        for (x, y) in one.arcs.iter().zip(&b.arcs) {
            assert!((x.probability - y.probability).abs() < 1e-5, "{} vs {}", x.probability, y.probability);
        }
    }
}

#[test]
fn bad_options_and_missing_python_are_clear_errors() {
    let mut o = DaeOptions::new(DaeModel::Electra(tiny()));
    o.max_arcs = 0;
    assert!(matches!(Dae::try_new(o), Err(Error::InvalidOption(_))));
    let e = Dae::try_new(DaeOptions::new(DaeModel::Electra(PathBuf::from("/nonexistent/dae")))).unwrap_err();
    assert!(matches!(e, Error::Runtime(_)), "{e}");
    assert!(e.to_string().contains("/nonexistent/dae"), "{e}");
    let mut o = DaeOptions::new(DaeModel::Electra(tiny()));
    let sc: Arc<dyn ArcSource> = Arc::new(SpacySidecar::new(SidecarConfig {
        python: Some(PathBuf::from("/nonexistent/bin/python3")),
        ..SidecarConfig::default()
    }));
    o.parser = Some(sc);
    let d = Dae::try_new(o).unwrap();
    let e = d.score(SOURCE, SUMMARY, None).unwrap_err();
    let msg = e.to_string();
    assert!(msg.contains("needs Python") && msg.contains("cargo xtask sidecar"), "{msg}");
    // an empty summary never starts the parser
    assert_eq!(d.score(SOURCE, "", None).unwrap().null_reason, Some(NullReason::EmptySummary));
}
