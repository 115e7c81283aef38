//! `cargo xtask export ...` and `cargo xtask models ...`: the `onnx/` export pipeline.
use std::path::PathBuf;
use std::process::Command;

use anyhow::{bail, Result};
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

/// True when `url` answers within 5 seconds (checked with the system Python's urllib, so no
/// export venv is built just to find out the hub is unreachable).
fn reachable(url: &str) -> bool {
    let code = format!(
        "import urllib.request,sys\ntry:\n urllib.request.urlopen(urllib.request.Request({url:?}, method='HEAD'), timeout=5)\nexcept Exception as e:\n sys.exit(1)"
    );
    Command::new("python3").args(["-c", &code]).status().is_ok_and(|s| s.success())
}

/// `cargo xtask models alignscore-base|alignscore-large`.
pub fn models(name: &str, out: Option<PathBuf>, int8: bool) -> Result<()> {
    let variant = match name {
        "alignscore-base" => "base",
        "alignscore-large" => "large",
        _ => bail!("unknown model {name:?} (known: alignscore-base, alignscore-large)"),
    };
    let out = out.unwrap_or_else(|| factpico_runtime::default_models_dir().join(name));
    let url = format!("https://huggingface.co/yzha/AlignScore/resolve/main/AlignScore-{variant}.ckpt");
    if !reachable(&url) {
        bail!(
            "the Hugging Face hub is not reachable from here (checked {url} with a 5 s timeout).\n\
             Supply the files by hand:\n\
             1. On a machine with access, download\n   {url}\n   and the backbone tokenizer/config \
             directory of roberta-{variant} (https://huggingface.co/FacebookAI/roberta-{variant}: config.json, \
             tokenizer.json, vocab.json, merges.txt; the weights are not needed).\n\
             2. Copy them here, e.g. to ~/Downloads/AlignScore-{variant}.ckpt and ~/Downloads/roberta-{variant}/.\n\
             3. Run:\n   cargo xtask export alignscore --ckpt ~/Downloads/AlignScore-{variant}.ckpt \
             --backbone ~/Downloads/roberta-{variant} --out {} [--int8]",
            out.display()
        );
    }
    let py = export_python()?;
    let mut args = vec!["--variant".to_owned(), variant.to_owned(), "--out".to_owned(), s(&out)];
    if int8 {
        args.push("--int8".into());
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    run_script(&py, "onnx/fetch_alignscore.py", &args)?;
    eprintln!("models: {name} ready in {}", out.display());
    Ok(())
}
