//! `cargo xtask export ...`: the `onnx/` export scripts on explicit paths (`cargo xtask models`
//! wraps them per published model).
use std::path::PathBuf;
use anyhow::Result;
use clap::Subcommand;

use crate::python::{export_python, run_script};

/// `cargo xtask export <what>`.
#[derive(Subcommand)]
pub enum Export {
    /// AlignScore Lightning checkpoint (.ckpt) -> model directory (tri_logits, bin_logits, reg).
    Alignscore {
        /// AlignScore-base.ckpt / AlignScore-large.ckpt.
        #[arg(long)]
        ckpt: PathBuf,
        /// Backbone id or local directory with config.json + tokenizer (roberta-base / roberta-large).
        #[arg(long)]
        backbone: String,
        /// Output model directory.
        #[arg(long)]
        out: PathBuf,
        /// Also write an int8 copy to <out>-int8.
        #[arg(long)]
        int8: bool,
    },
    /// Hugging Face sequence-classification (NLI) model -> model directory (logits).
    Hf {
        /// Hub id or local directory.
        #[arg(long)]
        model: String,
        /// Output model directory.
        #[arg(long)]
        out: PathBuf,
        /// Also write an int8 copy to <out>-int8.
        #[arg(long)]
        int8: bool,
    },
    /// Dynamic int8 quantisation of a model directory.
    Quantize {
        /// Source model directory.
        #[arg(long)]
        model_dir: PathBuf,
        /// Output model directory.
        #[arg(long)]
        out: PathBuf,
    },
}

fn s(p: &std::path::Path) -> String {
    p.to_string_lossy().into_owned()
}

fn int8_of(out: &std::path::Path) -> PathBuf {
    PathBuf::from(format!("{}-int8", out.display()))
}

/// Runs an export.
pub fn export(what: Export) -> Result<()> {
    let py = export_python()?;
    match what {
        Export::Alignscore { ckpt, backbone, out, int8 } => {
            run_script(&py, "onnx/export_alignscore.py", &["--ckpt", &s(&ckpt), "--backbone", &backbone, "--out", &s(&out)])?;
            if int8 {
                run_script(&py, "onnx/quantize.py", &["--model-dir", &s(&out), "--out", &s(&int8_of(&out))])?;
            }
        }
        Export::Hf { model, out, int8 } => {
            run_script(&py, "onnx/export_hf.py", &["--model", &model, "--out", &s(&out)])?;
            if int8 {
                run_script(&py, "onnx/quantize.py", &["--model-dir", &s(&out), "--out", &s(&int8_of(&out))])?;
            }
        }
        Export::Quantize { model_dir, out } => {
            run_script(&py, "onnx/quantize.py", &["--model-dir", &s(&model_dir), "--out", &s(&out)])?;
        }
    }
    Ok(())
}
