//! `cargo xtask ort`: installs the ONNX Runtime library into `$FACTPICO_HOME/ort` (the same
//! function as `factpico setup ort`), and the test-time preparation used by `cargo xtask test`.
use std::path::PathBuf;

use anyhow::Result;

/// `cargo xtask ort`: fetch onnxruntime from PyPI (if absent) and print the library path.
pub fn setup() -> Result<()> {
    let home = factpico_runtime::factpico_home();
    let lib = factpico_runtime::setup_ort(&home)?;
    println!("{}", lib.display());
    eprintln!("ONNX Runtime ready: export ORT_DYLIB_PATH={} (or leave it unset: factpico looks in {}/ort)", lib.display(), home.display());
    Ok(())
}

/// True when tests must not skip for lack of ONNX Runtime (`FACTPICO_REQUIRE_ORT=1`, or
/// `FACTPICO_REQUIRE_SHARED=1` as set by `.ci/run`).
pub fn ort_required() -> bool {
    let on = |k: &str| std::env::var(k).is_ok_and(|v| v == "1");
    on("FACTPICO_REQUIRE_ORT") || on("FACTPICO_REQUIRE_SHARED")
}

/// Before `cargo test`: make sure the ONNX Runtime library is available, fetching it with
/// [`factpico_runtime::setup_ort`] when absent. Returns the library to pass to the tests as
/// `ORT_DYLIB_PATH`, or `None` (tests that need it then skip with a message, unless required).
pub fn prepare_for_tests() -> Result<Option<PathBuf>> {
    let home = factpico_runtime::factpico_home();
    match factpico_runtime::find_ort_library(&home) {
        Ok(p) => return Ok(Some(p)),
        Err(e) if std::env::var_os("ORT_DYLIB_PATH").is_some_and(|v| !v.is_empty()) => {
            // An explicit but broken ORT_DYLIB_PATH is a configuration error: say so.
            anyhow::bail!("{e}");
        }
        Err(_) => {}
    }
    eprintln!("xtask: ONNX Runtime not found; fetching onnxruntime=={} from PyPI into {}/ort", factpico_runtime::ORT_VERSION, home.display());
    match factpico_runtime::setup_ort(&home) {
        Ok(p) => Ok(Some(p)),
        Err(e) if ort_required() => Err(e.into()),
        Err(e) => {
            eprintln!("xtask: WARNING: {e}\nxtask: tests that need ONNX Runtime will SKIP");
            Ok(None)
        }
    }
}
