//! Torch-free conversion of RoBERTa checkpoints to factpico model directories.
//!
//! * [`convert_alignscore`]: an AlignScore PyTorch-Lightning `.ckpt` (`BERTAlignModel`) + its
//!   backbone's `config.json`, `vocab.json`, `merges.txt` → the directory
//!   `onnx/export_alignscore.py` writes (outputs `tri_logits`, `bin_logits`, `reg`).
//! * [`convert_roberta_sequence_classification`]: a `RobertaForSequenceClassification`
//!   checkpoint directory (MiniCheck-RoBERTa-L: `config.json`, `model.safetensors` or
//!   `pytorch_model.bin`, `vocab.json`, `merges.txt`) → the directory
//!   `onnx/export_minicheck.py --variant roberta-large` writes (output `logits`).
//!
//! A model directory holds `model.onnx` (opset 17; inputs `input_ids`, `attention_mask` int64
//! `[batch, sequence]`), `model.onnx.data` (the weights, ONNX external data), `tokenizer.json`
//! and `factpico.json`.
//!
//! **Security property**: reading a checkpoint never executes code. `torch.save` pickles are
//! interpreted by [`pickle`], which cannot call anything; only tensors reachable from the state
//! dict are used; sizes, lengths and shapes are bounded and checked. See `docs/convert.md`.
//!
//! Steps: [`checkpoint::Checkpoint`] (reader) → [`graph::write_model`] (ONNX builder) →
//! [`tokenizer::roberta_tokenizer`] → manifest; everything is written into a temporary
//! directory beside `out` and moved into place at the end, so a failed conversion leaves no
//! partial model behind.
use std::io::Read;
use std::path::{Path, PathBuf};

use serde::Serialize;
use sha2::Digest;

pub mod checkpoint;
mod error;
pub mod graph;
pub mod onnx;
pub mod pickle;
pub mod tokenizer;

pub use checkpoint::{Checkpoint, Format};
pub use error::{Error, Result};
pub use graph::{Head, RobertaConfig};

/// File name of the graph in a model directory.
pub const MODEL_FILE: &str = "model.onnx";
/// File name of the manifest in a model directory.
pub const MANIFEST_FILE: &str = "factpico.json";
/// File name of the tokenizer in a model directory.
pub const TOKENIZER_FILE: &str = "tokenizer.json";
/// `exporter.name` written to the manifest.
pub const EXPORTER_NAME: &str = "factpico-convert";

/// Options of a conversion.
#[derive(Debug, Clone, Default)]
pub struct ConvertOptions {
    /// `source.checkpoint` of the manifest (default: the checkpoint's file name).
    pub checkpoint_name: Option<String>,
    /// `max_length` of the manifest (default: 512, capped by `max_position_embeddings - pad - 1`).
    pub max_length: Option<usize>,
    /// Replace the files of an existing, non-empty output directory (default: refuse).
    pub overwrite: bool,
}

/// What a conversion did.
#[derive(Debug, Clone)]
pub struct Report {
    /// The written model directory.
    pub out: PathBuf,
    /// The checkpoint read.
    pub checkpoint: PathBuf,
    /// Its container format.
    pub format: Format,
    /// Lower-case hex sha256 of the checkpoint file (`source.sha256`).
    pub checkpoint_sha256: String,
    /// Number of checkpoint weights used.
    pub weights: usize,
    /// Number of f32 parameters written.
    pub parameters: usize,
    /// Checkpoint tensors deliberately not used (e.g. `mlm_head.*`).
    pub ignored_keys: Vec<String>,
    /// Globals named by the pickle that were never called (e.g. Lightning's `AttributeDict`).
    pub ignored_globals: Vec<String>,
    /// The encoder config.
    pub config: RobertaConfig,
}

#[derive(Serialize)]
struct Truncation {
    strategy: &'static str,
    side: &'static str,
    fallback: Option<&'static str>,
}

#[derive(Serialize)]
struct Source {
    checkpoint: String,
    sha256: Option<String>,
}

#[derive(Serialize)]
struct Exporter {
    name: &'static str,
    version: String,
}

#[derive(Serialize)]
struct MiniCheckSection {
    variant: &'static str,
    separator: &'static str,
    prefix: &'static str,
    support_index: usize,
}

/// `factpico.json`, with the fields and order `onnx/common.py::write_manifest` writes.
#[derive(Serialize)]
struct Manifest {
    schema_version: u32,
    architecture: &'static str,
    task: &'static str,
    inputs: Vec<&'static str>,
    outputs: Vec<&'static str>,
    labels: serde_json::Map<String, serde_json::Value>,
    max_length: usize,
    pair_template: &'static str,
    truncation: Truncation,
    pad_token_id: i64,
    source: Source,
    exporter: Exporter,
    #[serde(skip_serializing_if = "Option::is_none")]
    minicheck: Option<MiniCheckSection>,
}

fn exporter() -> Exporter {
    Exporter { name: EXPORTER_NAME, version: format!("{} (Rust, opset {})", env!("CARGO_PKG_VERSION"), graph::OPSET) }
}

fn labels(pairs: &[(&str, &[&str])]) -> serde_json::Map<String, serde_json::Value> {
    pairs.iter().map(|(k, v)| ((*k).to_owned(), serde_json::json!(v))).collect()
}

/// Lower-case hex sha256 of a file, streamed.
///
/// # Errors
/// [`Error::Io`].
pub fn file_sha256(path: &Path) -> Result<String> {
    let mut f = std::fs::File::open(path).map_err(|e| Error::io("read", path, e))?;
    let mut h = sha2::Sha256::new();
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = f.read(&mut buf).map_err(|e| Error::io("read", path, e))?;
        if n == 0 {
            break;
        }
        h.update(&buf[..n]);
    }
    Ok(hex::encode(h.finalize()))
}

fn default_max_length(cfg: &RobertaConfig, opts: &ConvertOptions) -> usize {
    let cap = cfg.max_position_embeddings.saturating_sub(cfg.pad_token_id as usize + 1);
    opts.max_length.unwrap_or(512).min(cap)
}

/// Converts an AlignScore checkpoint (PyTorch-Lightning `.ckpt` of `BERTAlignModel`, or any
/// `torch.save` / safetensors state dict with its keys) into the model directory `out`.
///
/// `backbone_dir` holds the backbone's `config.json`, `vocab.json` and `merges.txt`
/// (`roberta-base` / `roberta-large`). Every weight comes from the checkpoint: `base_model.*`
/// (embeddings, encoder, pooler), `tri_layer`, `bin_layer`, `reg_layer`; `mlm_head.*` and the
/// `embeddings.position_ids` / `token_type_ids` buffers are ignored; any other key, a missing
/// key or a shape that differs from the config is an error.
///
/// # Errors
/// Reader errors ([`Error::Format`], [`Error::Zip`], [`Error::Pickle`], [`Error::Tensor`]),
/// [`Error::Config`], [`Error::Mismatch`], [`Error::Tokenizer`], [`Error::Output`], [`Error::Io`].
pub fn convert_alignscore(ckpt: &Path, backbone_dir: &Path, out: &Path, opts: &ConvertOptions) -> Result<Report> {
    let cfg = RobertaConfig::from_file(&backbone_dir.join("config.json"))?;
    let tok = tokenizer::roberta_tokenizer(backbone_dir)?;
    let layout = graph::Layout {
        encoder_prefix: "base_model.",
        ignore_prefixes: vec!["mlm_head.".into()],
        ignore_suffixes: vec!["embeddings.position_ids", "embeddings.token_type_ids"],
    };
    let max_length = default_max_length(&cfg, opts);
    let manifest = |sha: &str| Manifest {
        schema_version: 1,
        architecture: "roberta",
        task: "alignscore",
        inputs: vec!["input_ids", "attention_mask"],
        outputs: Head::AlignScore.outputs(),
        labels: labels(&[
            ("tri_logits", &["aligned", "neutral", "contradiction"]),
            ("bin_logits", &["not_aligned", "aligned"]),
            ("reg", &["alignment"]),
        ]),
        max_length,
        pair_template: "<s> A </s></s> B </s>",
        truncation: Truncation { strategy: "only_first", side: "right", fallback: Some("longest_first") },
        pad_token_id: cfg.pad_token_id,
        source: Source { checkpoint: source_name(ckpt, opts), sha256: Some(sha.to_owned()) },
        exporter: exporter(),
        minicheck: None,
    };
    convert(ckpt, &cfg, Head::AlignScore, &layout, &tok, out, opts, manifest)
}

/// Converts a `RobertaForSequenceClassification` checkpoint with 2 labels (MiniCheck-RoBERTa-L)
/// into the model directory `out`, with the manifest `onnx/export_minicheck.py --variant
/// roberta-large` writes (task `sequence-classification`, `minicheck` section: separator
/// `</s>`, support index 1).
///
/// `model_dir` holds `config.json`, `vocab.json`, `merges.txt` and the weights:
/// `model.safetensors`, else `pytorch_model.bin` (or `weights` names the file). Weights are
/// `roberta.*` and `classifier.{dense,out_proj}.*`; `roberta.pooler.*` (unused by the
/// classifier) and position-id buffers are ignored.
///
/// # Errors
/// As [`convert_alignscore`]; [`Error::Mismatch`] when `classifier.out_proj` has other than 2 rows.
pub fn convert_roberta_sequence_classification(
    model_dir: &Path,
    weights: Option<&Path>,
    out: &Path,
    opts: &ConvertOptions,
) -> Result<Report> {
    let cfg = RobertaConfig::from_file(&model_dir.join("config.json"))?;
    let tok = tokenizer::roberta_tokenizer(model_dir)?;
    let ckpt = match weights {
        Some(w) => w.to_path_buf(),
        None => ["model.safetensors", "pytorch_model.bin"]
            .iter()
            .map(|f| model_dir.join(f))
            .find(|p| p.is_file())
            .ok_or_else(|| Error::Format {
                path: model_dir.to_path_buf(),
                reason: "no model.safetensors or pytorch_model.bin in the checkpoint directory".into(),
            })?,
    };
    let layout = graph::Layout {
        encoder_prefix: "roberta.",
        ignore_prefixes: vec!["roberta.pooler.".into()],
        ignore_suffixes: vec!["embeddings.position_ids", "embeddings.token_type_ids"],
    };
    let max_length = default_max_length(&cfg, opts);
    let manifest = |sha: &str| Manifest {
        schema_version: 1,
        architecture: "roberta",
        task: "sequence-classification",
        inputs: vec!["input_ids", "attention_mask"],
        outputs: vec!["logits"],
        labels: labels(&[("logits", &["unsupported", "supported"])]),
        max_length,
        pair_template: "",
        truncation: Truncation { strategy: "longest_first", side: "right", fallback: None },
        pad_token_id: cfg.pad_token_id,
        source: Source { checkpoint: source_name(&ckpt, opts), sha256: Some(sha.to_owned()) },
        exporter: exporter(),
        minicheck: Some(MiniCheckSection { variant: "roberta-large", separator: "</s>", prefix: "", support_index: 1 }),
    };
    convert(&ckpt, &cfg, Head::SequenceClassification { num_labels: 2 }, &layout, &tok, out, opts, manifest)
}

fn source_name(ckpt: &Path, opts: &ConvertOptions) -> String {
    opts.checkpoint_name.clone().unwrap_or_else(|| {
        ckpt.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| ckpt.display().to_string())
    })
}

#[allow(clippy::too_many_arguments)]
fn convert(
    ckpt_path: &Path,
    cfg: &RobertaConfig,
    head: Head,
    layout: &graph::Layout,
    tok: &tokenizers::Tokenizer,
    out: &Path,
    opts: &ConvertOptions,
    manifest: impl Fn(&str) -> Manifest,
) -> Result<Report> {
    let ckpt = Checkpoint::open(ckpt_path)?;
    let parent = prepare_out(out, opts)?;
    let tmp = tempfile::Builder::new()
        .prefix(".factpico-convert-")
        .tempdir_in(&parent)
        .map_err(|e| Error::io("create a temporary directory in", &parent, e))?;
    let g = graph::write_model(&ckpt, cfg, head, layout, tmp.path())?;
    let tpath = tmp.path().join(TOKENIZER_FILE);
    tok.save(&tpath, true).map_err(|e| Error::Tokenizer { dir: tpath.clone(), reason: e.to_string() })?;
    let sha = file_sha256(ckpt_path)?;
    let m = manifest(&sha);
    let mut text = serde_json::to_string_pretty(&m).map_err(|e| Error::Output { path: out.into(), reason: e.to_string() })?;
    text.push('\n');
    let mpath = tmp.path().join(MANIFEST_FILE);
    std::fs::write(&mpath, text).map_err(|e| Error::io("write", &mpath, e))?;
    install(tmp, out)?;
    Ok(Report {
        out: out.to_path_buf(),
        checkpoint: ckpt_path.to_path_buf(),
        format: ckpt.format(),
        checkpoint_sha256: sha,
        weights: g.weights,
        parameters: g.parameters,
        ignored_keys: g.ignored_keys,
        ignored_globals: ckpt.ignored_globals().to_vec(),
        config: cfg.clone(),
    })
}

/// Checks `out` (not a symlink, not a file; empty or absent, unless `overwrite`) and returns
/// its parent directory (created if needed).
fn prepare_out(out: &Path, opts: &ConvertOptions) -> Result<PathBuf> {
    let oerr = |reason: &str| Error::Output { path: out.to_path_buf(), reason: reason.to_owned() };
    if let Ok(meta) = std::fs::symlink_metadata(out) {
        if meta.file_type().is_symlink() {
            return Err(oerr("is a symbolic link; pass the real directory"));
        }
        if !meta.is_dir() {
            return Err(oerr("exists and is not a directory"));
        }
        let non_empty = std::fs::read_dir(out).map_err(|e| Error::io("read", out, e))?.next().is_some();
        if non_empty && !opts.overwrite {
            return Err(oerr("exists and is not empty; remove it or allow overwriting"));
        }
    }
    let parent = match out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    std::fs::create_dir_all(&parent).map_err(|e| Error::io("create", &parent, e))?;
    Ok(parent)
}

/// Moves the finished files into `out`: a rename of the whole directory when `out` is absent
/// or empty, else one rename per file (each atomic; a symlink at a target name is replaced,
/// never followed).
fn install(tmp: tempfile::TempDir, out: &Path) -> Result<()> {
    let files = [MODEL_FILE, graph::DATA_FILE, TOKENIZER_FILE, MANIFEST_FILE];
    let empty = std::fs::read_dir(out).map(|mut d| d.next().is_none()).unwrap_or(false);
    if !out.exists() || empty {
        if empty {
            std::fs::remove_dir(out).map_err(|e| Error::io("replace", out, e))?;
        }
        let p = tmp.keep();
        return std::fs::rename(&p, out).map_err(|e| {
            let _ = std::fs::remove_dir_all(&p);
            Error::io("move the converted model to", out, e)
        });
    }
    for f in files {
        let dst = out.join(f);
        std::fs::rename(tmp.path().join(f), &dst).map_err(|e| Error::io("write", &dst, e))?;
    }
    Ok(())
}
