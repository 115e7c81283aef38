//! Model directories: `model.onnx` + `tokenizer.json` + `factpico.json` (or a Hugging Face
//! `config.json`, from which the manifest is inferred).
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use sha2::Digest;

use crate::error::{Error, Result};
use crate::manifest::{ModelManifest, MANIFEST_FILE};

/// Loads a `tokenizer.json` with its padding and truncation settings removed: exported files
/// may force them (e.g. to 128), and factpico pads and truncates itself, per model type.
pub(crate) fn load_tokenizer(path: &Path) -> Result<tokenizers::Tokenizer> {
    let mut tokenizer = tokenizers::Tokenizer::from_file(path).map_err(|e| Error::InvalidModel {
        path: path.to_path_buf(),
        reason: format!("not a Hugging Face tokenizers file ({e}); re-export the model"),
    })?;
    tokenizer.with_padding(None);
    tokenizer.with_truncation(None).map_err(|e| Error::tok("disabling tokenizer.json truncation", e))?;
    Ok(tokenizer)
}

/// File name of the ONNX graph inside a model directory.
pub const MODEL_FILE: &str = "model.onnx";
/// File name of the Hugging Face `tokenizers` file inside a model directory.
pub const TOKENIZER_FILE: &str = "tokenizer.json";

const EXPORT_HINT: &str = "A model directory holds model.onnx, tokenizer.json and factpico.json \
    (or a Hugging Face config.json). Create one with the onnx/ exporter of its kind \
    (onnx/README.md): export_alignscore.py (AlignScore), export_hf.py (NLI or LERC-QuIP \
    classifiers), export_dae.py (DAE), export_seq2seq.py (T5/BART QG and QA), export_qa.py \
    (extractive QA), export_embedding.py (BERTScore), or `cargo xtask models alignscore-base`";

/// An opened (not yet loaded into ONNX Runtime) model directory.
///
/// Cheap to open: reads only the manifest / config. The sha256 of `model.onnx` is computed on
/// first request and cached ([`ModelDir::model_sha256`]).
#[derive(Debug)]
pub struct ModelDir {
    path: PathBuf,
    manifest: ModelManifest,
    inferred: bool,
    sha256: OnceLock<String>,
}

impl ModelDir {
    /// Opens `path`, checking that the directory, `model.onnx`, `tokenizer.json` and a manifest
    /// (`factpico.json`, else `config.json` for inference) exist, and parsing the manifest.
    ///
    /// # Errors
    /// [`Error::MissingFile`] naming the missing file and how to create it;
    /// [`Error::InvalidModel`] for an unreadable manifest/config or an empty `model.onnx`.
    pub fn open(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref().to_path_buf();
        if path.is_file() {
            let hint = match path.parent().filter(|d| !d.as_os_str().is_empty()) {
                Some(dir) => format!("pass the model directory that holds it ({}), not the file", dir.display()),
                None => "pass the model directory that holds it, not the file".to_owned(),
            };
            return Err(Error::MissingFile { what: "model directory (this is a file)", path, hint });
        }
        if !path.is_dir() {
            return Err(Error::MissingFile { what: "model directory", path, hint: EXPORT_HINT.into() });
        }
        for (what, file) in [("model file", MODEL_FILE), ("tokenizer file", TOKENIZER_FILE)] {
            let p = path.join(file);
            if !p.is_file() {
                return Err(Error::MissingFile { what, path: p, hint: EXPORT_HINT.into() });
            }
        }
        let model = path.join(MODEL_FILE);
        let len = std::fs::metadata(&model).map_err(|e| Error::io(&model, e))?.len();
        if len < 16 {
            return Err(Error::InvalidModel {
                path: model,
                reason: format!("the file is {len} bytes long, not an ONNX model; re-export it"),
            });
        }
        let mpath = path.join(MANIFEST_FILE);
        let (manifest, inferred) = if mpath.is_file() {
            (ModelManifest::from_file(&mpath)?, false)
        } else if path.join("config.json").is_file() {
            (ModelManifest::infer_from_hf_config(&path)?, true)
        } else {
            return Err(Error::MissingFile {
                what: "manifest (factpico.json or config.json)",
                path: mpath,
                hint: EXPORT_HINT.into(),
            });
        };
        Ok(ModelDir { path, manifest, inferred, sha256: OnceLock::new() })
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        &self.path
    }
    /// `<dir>/model.onnx`.
    pub fn model_path(&self) -> PathBuf {
        self.path.join(MODEL_FILE)
    }
    /// `<dir>/tokenizer.json`.
    pub fn tokenizer_path(&self) -> PathBuf {
        self.path.join(TOKENIZER_FILE)
    }
    /// The manifest (read from `factpico.json` or inferred; completed with graph input/output
    /// names once loaded by a [`crate::PairClassifier`]).
    pub fn manifest(&self) -> &ModelManifest {
        &self.manifest
    }
    pub(crate) fn manifest_mut(&mut self) -> &mut ModelManifest {
        &mut self.manifest
    }
    /// True when the manifest was inferred from `config.json` (no `factpico.json`).
    pub fn manifest_is_inferred(&self) -> bool {
        self.inferred
    }

    /// Lower-case hex sha256 of the graph, computed once (about 0.3 s per 100 MB) and cached:
    /// of `model.onnx` alone, or, when the weights are ONNX external data in
    /// `model.onnx.data` (`factpico-convert`, graphs over 2 GB), of the bytes of `model.onnx`
    /// followed by the bytes of `model.onnx.data` — so a change of either file changes it.
    ///
    /// # Errors
    /// [`Error::Io`] when a file cannot be read.
    pub fn model_sha256(&self) -> Result<&str> {
        if let Some(s) = self.sha256.get() {
            return Ok(s);
        }
        let data = self.path.join(MODEL_DATA_FILE);
        let hex = if data.is_file() {
            files_sha256(&[&self.model_path(), &data])?
        } else {
            file_sha256(&self.model_path())?
        };
        Ok(self.sha256.get_or_init(|| hex))
    }
}

/// File name of the ONNX external-data file beside `model.onnx` (weights of converted or
/// over-2-GB graphs); covered by [`ModelDir::model_sha256`].
pub const MODEL_DATA_FILE: &str = "model.onnx.data";

/// sha256 of the concatenated bytes of `paths`, streamed.
fn files_sha256(paths: &[&Path]) -> Result<String> {
    let mut h = sha2::Sha256::new();
    let mut buf = vec![0u8; 1 << 20];
    for path in paths {
        let mut f = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
        loop {
            let n = f.read(&mut buf).map_err(|e| Error::io(path, e))?;
            if n == 0 {
                break;
            }
            h.update(&buf[..n]);
        }
    }
    Ok(hex::encode(h.finalize()))
}

/// Lower-case hex sha256 of a file, streamed in 1 MiB blocks.
///
/// # Errors
/// [`Error::Io`] naming the file when it cannot be read.
pub fn file_sha256(path: &Path) -> Result<String> {
    let mut f = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
    let mut h = sha2::Sha256::new();
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = f.read(&mut buf).map_err(|e| Error::io(path, e))?;
        if n == 0 {
            break;
        }
        h.update(&buf[..n]);
    }
    Ok(hex::encode(h.finalize()))
}

/// sha256 of every `*.onnx` file of a model directory, by file name (sorted), for
/// provenance of multi-graph exports (seq2seq encoder/decoder graphs).
///
/// # Errors
/// [`Error::Io`] when the directory or a file cannot be read.
pub fn onnx_files_sha256(dir: &Path) -> Result<std::collections::BTreeMap<String, String>> {
    let mut out = std::collections::BTreeMap::new();
    for entry in std::fs::read_dir(dir).map_err(|e| Error::io(dir, e))? {
        let path = entry.map_err(|e| Error::io(dir, e))?.path();
        if path.extension().is_some_and(|e| e == "onnx") {
            let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            out.insert(name, file_sha256(&path)?);
        }
    }
    Ok(out)
}
