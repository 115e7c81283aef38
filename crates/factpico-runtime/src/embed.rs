//! Token embeddings: the per-token hidden states of an encoder cut after a given layer —
//! what `bert_score` 0.3.9 feeds its greedy cosine matching (`bert_score/utils.py`
//! `get_model` keeps `model.encoder.layer[:num_layers]`, `bert_encode` returns the last
//! hidden state).
//!
//! A token-embedding model directory (written by `onnx/export_embedding.py`) holds
//! `model.onnx` (inputs `input_ids`, `attention_mask`; output `last_hidden_state`
//! `[batch, sequence, hidden]`), `tokenizer.json` and a `factpico.json` with task
//! `token-embedding` and an `embedding` section ([`EmbeddingConfig`]: the layer, the hidden
//! size, the `[CLS]`/`[SEP]` ids).
//!
//! ```no_run
//! use factpico_runtime::embed::TokenEmbedder;
//! use factpico_runtime::SessionOptions;
//! let m = TokenEmbedder::load("models/mbert-l9", &SessionOptions::default())?;
//! let ids = m.encode("240 adults")?.ids;
//! let e = m.embed(&[ids.as_slice()], 64)?;
//! assert_eq!(e[0].len(), ids.len());
//! # Ok::<(), factpico_runtime::Error>(())
//! ```
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::manifest::{ModelManifest, ModelTask, MANIFEST_FILE};
use crate::model::ModelDir;
use crate::sequence::{EncodedSequence, Runner, SingleEncoder};
use crate::session::SessionOptions;

const HINT: &str = "export it with `python onnx/export_embedding.py CHECKPOINT OUT_DIR --layer N` (see onnx/README.md)";

/// The `embedding` section of `factpico.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EmbeddingConfig {
    /// Graph output holding the hidden states (`last_hidden_state`).
    pub output: String,
    /// Encoder layers kept (bert_score `num_layers`; 9 for `bert-base-multilingual-cased`).
    pub layer: usize,
    /// Layers of the original checkpoint, informative.
    #[serde(default)]
    pub num_hidden_layers: Option<usize>,
    /// Width of one token vector.
    pub hidden_size: usize,
    /// Id of the classification token (`[CLS]`); bert_score gives it idf weight 0.
    pub cls_token_id: u32,
    /// Id of the separator token (`[SEP]`); bert_score gives it idf weight 0.
    pub sep_token_id: u32,
}

#[derive(Deserialize)]
struct ManifestWithEmbedding {
    embedding: Option<EmbeddingConfig>,
}

/// Hidden states of one sequence: `len()` rows of `hidden_size()` floats, row-major.
#[derive(Debug, Clone, PartialEq)]
pub struct TokenEmbeddings {
    hidden: usize,
    data: Vec<f32>,
}

impl TokenEmbeddings {
    /// Builds from row-major data (`data.len()` must be a multiple of `hidden_size`).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when `hidden_size` is 0 or does not divide `data.len()`.
    pub fn new(hidden_size: usize, data: Vec<f32>) -> Result<Self> {
        if hidden_size == 0 || !data.len().is_multiple_of(hidden_size) {
            return Err(Error::InvalidArgument(format!(
                "{} floats are not rows of hidden size {hidden_size}",
                data.len()
            )));
        }
        Ok(Self { hidden: hidden_size, data })
    }
    /// Number of tokens.
    pub fn len(&self) -> usize {
        self.data.len() / self.hidden
    }
    /// True when there is no token.
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }
    /// Width of one token vector.
    pub fn hidden_size(&self) -> usize {
        self.hidden
    }
    /// The vector of token `i` (panics-free: `None` past the end).
    pub fn row(&self, i: usize) -> Option<&[f32]> {
        self.data.get(i * self.hidden..(i + 1) * self.hidden)
    }
    /// Iterates over the token vectors.
    pub fn rows(&self) -> std::slice::ChunksExact<'_, f32> {
        self.data.chunks_exact(self.hidden)
    }
    /// All values, row-major `[len, hidden]`.
    pub fn as_slice(&self) -> &[f32] {
        &self.data
    }
}

/// A loaded token-embedding model. `Send + Sync`. Outputs do not depend on batch
/// composition beyond float noise: padding is masked.
#[derive(Debug)]
pub struct TokenEmbedder {
    dir: ModelDir,
    enc: SingleEncoder,
    runner: Runner,
    config: EmbeddingConfig,
}

impl TokenEmbedder {
    /// Opens and loads a token-embedding model directory.
    ///
    /// # Errors
    /// [`Error::MissingFile`]; [`Error::InvalidModel`] when the task is not
    /// `token-embedding`, the `embedding` section is missing, or the graph lacks the inputs
    /// or the output; ONNX Runtime library errors.
    pub fn load(dir: impl AsRef<Path>, options: &SessionOptions) -> Result<Self> {
        let dir = ModelDir::open(dir)?;
        let mpath = dir.path().join(MANIFEST_FILE);
        if dir.manifest().task != ModelTask::TokenEmbedding {
            return Err(Error::InvalidModel {
                path: mpath,
                reason: format!("task is {}, not token-embedding; {HINT}", dir.manifest().task),
            });
        }
        let text = std::fs::read_to_string(&mpath).map_err(|e| Error::io(&mpath, e))?;
        let config = serde_json::from_str::<ManifestWithEmbedding>(&text)
            .map_err(|e| Error::InvalidModel { path: mpath.clone(), reason: format!("bad embedding section ({e})") })?
            .embedding
            .ok_or_else(|| Error::InvalidModel { path: mpath.clone(), reason: format!("no `embedding` section; {HINT}") })?;
        if config.hidden_size == 0 {
            return Err(Error::InvalidModel { path: mpath, reason: "embedding.hidden_size is 0".into() });
        }
        let enc = SingleEncoder::load(&dir)?;
        let (runner, output) = Runner::load(&dir, options, Some(&config.output))?;
        runner.check_vocabulary(enc.tokenizer().get_vocab_size(false), &output, &dir.tokenizer_path())?;
        Ok(Self { dir, enc, runner, config })
    }

    /// The manifest.
    pub fn manifest(&self) -> &ModelManifest {
        self.dir.manifest()
    }
    /// The model directory (path, sha256 of `model.onnx`).
    pub fn model_dir(&self) -> &ModelDir {
        &self.dir
    }
    /// The `embedding` section (layer, hidden size, special ids).
    pub fn config(&self) -> &EmbeddingConfig {
        &self.config
    }
    /// Maximum ids per sequence, special tokens included (the tokenizer's
    /// `model_max_length` at export).
    pub fn max_length(&self) -> usize {
        self.manifest().max_length
    }

    /// Tokenises one text as `tokenizer.encode(text, add_special_tokens=True,
    /// max_length=max_length, truncation=True)`: special tokens added, text tokens cut from
    /// the right. The text is used as given (bert_score strips it first; callers do).
    ///
    /// # Errors
    /// [`Error::Tokenizer`].
    pub fn encode(&self, text: &str) -> Result<EncodedSequence> {
        self.enc.encode(text)
    }

    /// Hidden states of each sequence (1..=`max_length` ids), in input order; sequences are
    /// run in batches of at most `batch_size`, longest first, padded and masked.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for `batch_size == 0` or a sequence of bad length;
    /// [`Error::Ort`] when the run fails or the output is not `[batch, sequence, hidden]`.
    pub fn embed(&self, seqs: &[&[u32]], batch_size: usize) -> Result<Vec<TokenEmbeddings>> {
        let h = self.config.hidden_size;
        let mut out: Vec<Option<TokenEmbeddings>> = vec![None; seqs.len()];
        let output = self.config.output.clone();
        self.runner.run(seqs, batch_size, &output, |i, tail, row| {
            if tail.len() != 2 || tail[1] != h as i64 {
                return Err(Error::ort(
                    format!("reading {output:?}"),
                    format!("row shape {tail:?}, expected [sequence, {h}]"),
                ));
            }
            let n = seqs[i].len();
            let data = row.get(..n * h).ok_or_else(|| {
                Error::ort(format!("reading {output:?}"), format!("row of {} floats, expected ≥ {}", row.len(), n * h))
            })?;
            out[i] = Some(TokenEmbeddings { hidden: h, data: data.to_vec() });
            Ok(())
        })?;
        out.into_iter()
            .map(|o| o.ok_or_else(|| Error::ort("collecting outputs", "a sequence produced no output")))
            .collect()
    }
}
