//! Facade errors keep their causes (`source()` chains down to the metric crate's and the
//! runtime's errors) and say what to do.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

#[cfg(feature = "alignscore")]
use std::error::Error as _;

#[cfg(feature = "alignscore")]
use factpico::error_chain;
use factpico::{Error, Scorer, ScorerOptions};

#[test]
fn unknown_metric_and_disabled_features_are_named() {
    let e = Scorer::try_new(ScorerOptions { metrics: vec!["bleurt".into()], ..ScorerOptions::default() }).unwrap_err();
    assert!(matches!(e, Error::UnknownMetric { .. }));
    assert!(e.to_string().contains("available metrics: rougeL, fkgl, fre, alignscore"), "{e}");
    #[cfg(not(feature = "alignscore"))]
    {
        let e = Scorer::try_new(ScorerOptions { metrics: vec!["alignscore".into()], ..ScorerOptions::default() })
            .unwrap_err();
        assert!(matches!(e, Error::FeatureDisabled { feature: "alignscore", .. }), "{e}");
    }
}

/// An AlignScore model directory without a model: `Init` whose source is the AlignScore
/// crate's error, whose chain reaches the runtime's (naming the missing file).
#[cfg(feature = "alignscore")]
#[test]
fn init_errors_keep_the_metric_crates_error_as_source() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/models");
    let mut o = ScorerOptions { metrics: vec!["alignscore".into()], ..ScorerOptions::default() };
    o.alignscore.model = Some(dir);
    let e = Scorer::try_new(o).unwrap_err();
    assert!(matches!(&e, Error::Init { metric, .. } if metric == "alignscore"), "{e:?}");
    assert_eq!(e.to_string(), "could not initialise metric `alignscore`");
    let cause = e.source().expect("a source");
    assert!(
        cause.downcast_ref::<factpico_alignscore::Error>().is_some(),
        "source is the AlignScore crate's error: {cause:?}"
    );
    let mut deepest = cause;
    while let Some(next) = deepest.source() {
        deepest = next;
    }
    let chain = error_chain(&e);
    assert!(chain.starts_with("could not initialise metric `alignscore`: "), "{chain}");
    assert!(chain.contains("fixtures/models"), "the chain names the directory: {chain}");
    eprintln!("chain: {chain}\ndeepest cause: {deepest}");
}

/// `--device cuda` on a machine whose ONNX Runtime has no CUDA provider (the CPU wheel) is a
/// clear `Init` error naming what is missing, with the runtime's error as its cause.
#[cfg(feature = "alignscore")]
#[test]
fn cuda_without_a_cuda_runtime_is_a_clear_error() {
    let model = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/models/alignscore-tiny");
    let mut o = ScorerOptions { metrics: vec!["alignscore".into()], ..ScorerOptions::default() };
    o.alignscore.model = Some(model);
    o.runtime.device = "cuda:0".parse().unwrap();
    let e = Scorer::try_new(o).unwrap_err();
    let chain = error_chain(&e);
    // The runtime's error, reached through the chain (AlignScore wraps it transparently).
    let mut runtime_error = None;
    let mut cur = e.source();
    while let Some(c) = cur {
        if let Some(r) = c.downcast_ref::<factpico_runtime::Error>() {
            runtime_error = Some(r);
        }
        if let Some(factpico_alignscore::Error::Runtime(r)) = c.downcast_ref::<factpico_alignscore::Error>() {
            runtime_error = Some(r);
        }
        cur = c.source();
    }
    match runtime_error {
        Some(factpico_runtime::Error::ExecutionProvider { provider: "CUDA", reason }) => {
            if cfg!(feature = "cuda") {
                assert!(reason.contains("onnxruntime-gpu") && reason.contains("ORT_DYLIB_PATH"), "{chain}");
            } else {
                assert!(reason.contains("cargo feature `cuda`"), "{chain}");
            }
        }
        // No ONNX Runtime library at all on this machine: that error comes first.
        Some(factpico_runtime::Error::OrtNotFound { .. }) => eprintln!("SKIP: no ONNX Runtime library ({chain})"),
        other => panic!("expected the CUDA execution-provider error, got {other:?}: {chain}"),
    }
    eprintln!("--device cuda: {chain}");
}
