//! Converts a checkpoint without torch (no CLI dependency; plain arguments).
//!
//! ```text
//! cargo run --release -p factpico-convert --example convert -- alignscore AlignScore-large.ckpt ROBERTA_LARGE_DIR OUT
//! cargo run --release -p factpico-convert --example convert -- roberta-seq-cls MINICHECK_ROBERTA_DIR OUT
//! ```
//! `ROBERTA_LARGE_DIR` holds `config.json`, `vocab.json`, `merges.txt`; add `--overwrite` to
//! replace an existing model directory.
use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let overwrite = args.iter().any(|a| a == "--overwrite");
    args.retain(|a| a != "--overwrite");
    let opts = factpico_convert::ConvertOptions { overwrite, ..Default::default() };
    let t = std::time::Instant::now();
    let res = match args.iter().map(String::as_str).collect::<Vec<_>>().as_slice() {
        ["alignscore", ckpt, backbone, out] => factpico_convert::convert_alignscore(
            &PathBuf::from(ckpt),
            &PathBuf::from(backbone),
            &PathBuf::from(out),
            &opts,
        ),
        ["roberta-seq-cls", dir, out] => {
            factpico_convert::convert_roberta_sequence_classification(&PathBuf::from(dir), None, &PathBuf::from(out), &opts)
        }
        _ => {
            eprintln!("usage: convert alignscore CKPT BACKBONE_DIR OUT | convert roberta-seq-cls MODEL_DIR OUT [--overwrite]");
            return ExitCode::from(2);
        }
    };
    match res {
        Ok(r) => {
            println!(
                "wrote {}: {} weights, {} parameters from {} ({:?}, sha256 {}) in {:.2} s; ignored keys: {}; globals never called: {:?}",
                r.out.display(),
                r.weights,
                r.parameters,
                r.checkpoint.display(),
                r.format,
                r.checkpoint_sha256,
                t.elapsed().as_secs_f64(),
                r.ignored_keys.len(),
                r.ignored_globals
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            let mut msg = format!("error: {e}");
            let mut src = std::error::Error::source(&e);
            while let Some(s) = src {
                msg.push_str(&format!(": {s}"));
                src = s.source();
            }
            eprintln!("{msg}");
            ExitCode::FAILURE
        }
    }
}
