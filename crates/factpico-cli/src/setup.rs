//! `factpico setup ort`: install the ONNX Runtime shared library for the
//! model-based metrics, so users of an installed binary need no source tree.

use std::path::PathBuf;

use anyhow::Result;

/// What to set up.
#[derive(Debug, clap::Subcommand)]
pub enum SetupWhat {
    /// Download the ONNX Runtime library from the PyPI `onnxruntime` wheel (pip download, no
    /// venv) into $FACTPICO_HOME/ort (default ~/.cache/factpico/ort).
    Ort {
        /// Install into this FACTPICO_HOME instead of the default.
        #[arg(long)]
        home: Option<PathBuf>,
    },
}

/// Runs `factpico setup ...`.
///
/// # Errors
/// Download or unpack failure (the message says what to do instead), or a build without
/// model-based metrics (nothing to set up).
pub fn run(what: &SetupWhat) -> Result<i32> {
    match what {
        SetupWhat::Ort { home } => {
            let lib = factpico::setup_ort(home.as_deref())?;
            println!("ONNX Runtime library: {}", crate::term::path(&lib));
            println!("factpico finds it there; other programs can use ORT_DYLIB_PATH={}", crate::term::path(&lib));
            Ok(0)
        }
    }
}
