//! Runs `examples/custom_metric.rs` (an external metric added through `Scorer::builder`) on
//! the bundled fixtures and checks what it computes.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs, dead_code)]

#[path = "../examples/custom_metric.rs"]
mod example;

#[test]
fn custom_metric_example_scores_the_fixtures() {
    let pairs = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/pairs.jsonl");
    let scored = example::score_file(pairs.to_str().unwrap()).unwrap();
    assert_eq!(scored.len(), 12);
    for (_, r) in &scored {
        // Built-in and custom columns side by side; the custom one is a value or a documented null.
        assert!(r.score("rougeL").is_some() && r.score("delta_fkgl").is_some());
        assert!(r.score("numbers_supported").is_some() || r.nulls.contains_key("numbers_supported"), "{r:?}");
        // Rows reference the run's provenance (which names the custom metric) by its hash.
        assert!(r.provenance.is_null());
        assert_eq!(r.run.as_deref().map(str::len), Some(16));
        assert_eq!(r.run, scored[0].1.run);
    }
    let mean = |sys: &str| {
        let v: Vec<f64> =
            scored.iter().filter(|(s, _)| s == sys).filter_map(|(_, r)| r.score("numbers_supported")).collect();
        v.iter().sum::<f64>() / v.len() as f64
    };
    // fx04 changes "p=0.001" into another number: the unfaithful system scores lower.
    let (faithful, unfaithful) = (mean("faithful"), mean("unfaithful"));
    assert!(faithful > unfaithful, "{faithful} vs {unfaithful}");
    let fx04 = &scored.iter().find(|(_, r)| r.id.as_deref() == Some("fx04")).unwrap().1;
    assert_eq!(fx04.score("numbers_supported"), Some(0.0));
    eprintln!(
        "custom metric example: 12 rows, mean numbers_supported faithful {faithful:.3} vs unfaithful {unfaithful:.3}"
    );
}
