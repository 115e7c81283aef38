//! Helpers shared by the `tests/alignscore_*.rs` tests: ONNX Runtime availability (skip or
//! fail) and the fixture model location.
#![allow(dead_code, missing_docs, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::PathBuf;

/// True when tests must not skip for lack of ONNX Runtime (`FACTPICO_REQUIRE_ORT=1`, or
/// `FACTPICO_REQUIRE_SHARED=1` as set by `.ci/run`).
pub fn ort_required() -> bool {
    let on = |k: &str| std::env::var(k).is_ok_and(|v| v == "1");
    on("FACTPICO_REQUIRE_ORT") || on("FACTPICO_REQUIRE_SHARED")
}

/// Initialises ONNX Runtime (`ORT_DYLIB_PATH` or `$FACTPICO_HOME/ort`). When it is not
/// available: panics if required, else prints a visible SKIP line and returns false.
pub fn ort_or_skip(test: &str) -> bool {
    match factpico_runtime::init_ort() {
        Ok(_) => true,
        Err(e) if ort_required() => panic!("{test}: ONNX Runtime is required but unavailable: {e}"),
        Err(e) => {
            eprintln!("SKIP {test}: ONNX Runtime unavailable ({e}); run `cargo xtask ort` or use `cargo xtask test`");
            false
        }
    }
}

/// The committed tiny AlignScore fixture model directory.
pub fn tiny_model() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/models/alignscore-tiny")
}
