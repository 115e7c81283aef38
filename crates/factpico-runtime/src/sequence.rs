//! Single-sequence models: one text per row (no pair template), tokenised with the model's
//! special tokens and cut from the right to the manifest's `max_length` — Hugging Face
//! `tokenizer(text, max_length=N, truncation=True)` for one sequence — dynamically padded,
//! run in length-sorted batches.
//!
//! * [`SequenceClassifier`]: a sequence-level head (`logits` `[batch, k]`), e.g. the
//!   LERC-QuIP regressor of QAFactEval (1 output) exported with `onnx/export_hf.py`.
//! * [`crate::embed::TokenEmbedder`] (per-token hidden states) shares the encoding and
//!   batching code.
use std::path::{Path, PathBuf};

use tokenizers::utils::truncation::TruncationDirection;
use tokenizers::{PostProcessor, Tokenizer};

use crate::error::{Error, Result};
use crate::manifest::ModelManifest;
use crate::model::ModelDir;
use crate::session::{encoder_inputs, InputRole, SessionOptions, SessionPool};

/// One tokenised text with special tokens, at most `max_length` ids long.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EncodedSequence {
    /// Token ids, special tokens included (BERT: `[CLS] … [SEP]`; RoBERTa: `<s> … </s>`).
    pub ids: Vec<u32>,
    /// Text tokens removed from the end to fit `max_length` (0 when it fitted).
    pub truncated: usize,
}

/// Special tokens the single-sequence template of `tokenizer` adds (RoBERTa `<s> … </s>`: 2;
/// DeBERTa-v3 `[CLS] … [SEP]`: 2; T5 `… </s>`: 1).
pub fn special_tokens(tokenizer: &Tokenizer) -> usize {
    tokenizer.get_post_processor().map_or(0, |p| p.added_tokens(false))
}

/// Tokeniser half of a single-sequence model (padding and truncation of `tokenizer.json`
/// disabled; factpico truncates itself).
#[derive(Debug)]
pub(crate) struct SingleEncoder {
    tokenizer: Tokenizer,
    n_added: usize,
    max_length: usize,
}

impl SingleEncoder {
    pub(crate) fn load(dir: &ModelDir) -> Result<Self> {
        let path = dir.tokenizer_path();
        let tokenizer = crate::model::load_tokenizer(&path)?;
        let n_added = special_tokens(&tokenizer);
        let max_length = dir.manifest().max_length;
        if max_length <= n_added {
            return Err(Error::InvalidModel {
                path: dir.path().join(crate::manifest::MANIFEST_FILE),
                reason: format!("max_length {max_length} leaves no room for text"),
            });
        }
        Ok(Self { tokenizer, n_added, max_length })
    }

    pub(crate) fn tokenizer(&self) -> &Tokenizer {
        &self.tokenizer
    }

    /// `tokenizer.encode(text, add_special_tokens=True, max_length, truncation=True)`.
    pub(crate) fn encode(&self, text: &str) -> Result<EncodedSequence> {
        let mut enc = self.tokenizer.encode(text, false).map_err(|e| Error::tok("encoding a text", e))?;
        let room = self.max_length - self.n_added;
        let n = enc.get_ids().len();
        let truncated = n.saturating_sub(room);
        if truncated > 0 {
            enc.truncate(room, 0, TruncationDirection::Right);
        }
        let enc = self.tokenizer.post_process(enc, None, true).map_err(|e| Error::tok("adding special tokens", e))?;
        Ok(EncodedSequence { ids: enc.get_ids().to_vec(), truncated })
    }
}

/// Session pool + input roles of a single-sequence graph.
#[derive(Debug)]
pub(crate) struct Runner {
    model_path: PathBuf,
    inputs: Vec<(String, InputRole)>,
    pad: i64,
    max_length: usize,
    sessions: SessionPool,
}

impl Runner {
    /// Loads the graph; every input must be `input_ids`, `attention_mask` or `token_type_ids`
    /// (fed zeros). The output read is `output` when given (it must exist), else `logits` when
    /// the graph has it, else the graph's first output; its name is returned.
    pub(crate) fn load(dir: &ModelDir, options: &SessionOptions, output: Option<&str>) -> Result<(Self, String)> {
        let model_path = dir.model_path();
        let sessions = SessionPool::load(&model_path, options)?;
        let first = sessions.first();
        let inputs = encoder_inputs(&first, &model_path)?;
        let outs: Vec<String> = first.outputs().iter().map(|o| o.name().to_owned()).collect();
        let output = match output {
            Some(o) if outs.iter().any(|n| n == o) => o.to_owned(),
            Some(o) => {
                return Err(Error::InvalidModel {
                    path: model_path,
                    reason: format!("the graph has no {o:?} output (it has {outs:?}); re-export the directory"),
                })
            }
            None if outs.iter().any(|n| n == "logits") => "logits".to_owned(),
            None => outs.first().cloned().ok_or_else(|| Error::InvalidModel {
                path: model_path.clone(),
                reason: "the graph has no output".into(),
            })?,
        };
        drop(first);
        let runner = Self {
            model_path,
            inputs,
            pad: dir.manifest().pad_token_id,
            max_length: dir.manifest().max_length,
            sessions,
        };
        Ok((runner, output))
    }

    /// Refuses a tokenizer whose ids the graph cannot embed (another model's tokenizer): runs
    /// one sequence made of the tokenizer's highest base-vocabulary id (`vocab - 1`), which
    /// fails when the graph's embedding table has fewer than `vocab` rows. Checked at load so
    /// that the mismatch is one clear error, not a raw ONNX Runtime message on every row.
    ///
    /// # Errors
    /// [`Error::InvalidModel`] naming the tokenizer, the vocabulary size and the runtime's
    /// message.
    pub(crate) fn check_vocabulary(&self, vocab: usize, output: &str, tokenizer: &Path) -> Result<()> {
        let Some(last) = vocab.checked_sub(1).and_then(|v| u32::try_from(v).ok()) else { return Ok(()) };
        self.run(&[&[last]], 1, output, |_, _, _| Ok(())).map_err(|e| vocabulary_error(&self.model_path, tokenizer, vocab, &e))
    }

    /// Checks lengths: every sequence non-empty and at most `max_length` ids.
    pub(crate) fn check(&self, seqs: &[&[u32]], batch_size: usize) -> Result<()> {
        if batch_size == 0 {
            return Err(Error::InvalidArgument("batch_size must be at least 1".into()));
        }
        for (k, s) in seqs.iter().enumerate() {
            if s.is_empty() || s.len() > self.max_length {
                return Err(Error::InvalidArgument(format!(
                    "sequence {k} has {} ids; 1..={} are accepted (encode texts with the model's encode())",
                    s.len(),
                    self.max_length
                )));
            }
        }
        Ok(())
    }

    /// Runs `seqs` in batches of at most `batch_size`, longest first, padded to the longest
    /// of each batch; calls `take(index, row_shape_tail, row_data)` for every sequence.
    pub(crate) fn run(
        &self,
        seqs: &[&[u32]],
        batch_size: usize,
        output: &str,
        mut take: impl FnMut(usize, &[i64], &[f32]) -> Result<()>,
    ) -> Result<()> {
        self.check(seqs, batch_size)?;
        let mut order: Vec<usize> = (0..seqs.len()).collect();
        order.sort_by_key(|&i| (std::cmp::Reverse(seqs[i].len()), i));
        for chunk in order.chunks(batch_size) {
            let b = chunk.len();
            let l = chunk.iter().map(|&i| seqs[i].len()).max().unwrap_or(1);
            let mut ids = vec![self.pad; b * l];
            let mut mask = vec![0i64; b * l];
            for (r, &i) in chunk.iter().enumerate() {
                let s = seqs[i];
                for (d, v) in ids[r * l..r * l + s.len()].iter_mut().zip(s) {
                    *d = i64::from(*v);
                }
                mask[r * l..r * l + s.len()].fill(1);
            }
            let mut feed: Vec<(String, ort::value::DynValue)> = Vec::with_capacity(self.inputs.len());
            for (name, role) in &self.inputs {
                let v = match role {
                    InputRole::Ids => ids.clone(),
                    InputRole::Mask => mask.clone(),
                    InputRole::TypeIds => vec![0i64; b * l],
                };
                let t = ort::value::Tensor::from_array(([b, l], v)).map_err(|e| Error::ort("creating an input tensor", e))?;
                feed.push((name.clone(), t.into_dyn()));
            }
            let mut session = self.sessions.take();
            let outputs = session.run(feed).map_err(|e| Error::ort("running the model", e))?;
            let value = outputs
                .get(output)
                .ok_or_else(|| Error::ort("reading outputs", format!("the graph produced no output {output:?}")))?;
            let (shape, data) =
                value.try_extract_tensor::<f32>().map_err(|e| Error::ort(format!("reading output {output:?} as f32"), e))?;
            if shape.first().copied() != Some(b as i64) || data.len() % b != 0 {
                return Err(Error::ort(
                    format!("reading output {output:?} of {}", self.model_path.display()),
                    format!("shape {:?} does not start with the batch size {b}", &shape[..]),
                ));
            }
            let per = data.len() / b;
            for (r, &i) in chunk.iter().enumerate() {
                take(i, &shape[1..], &data[r * per..(r + 1) * per])?;
            }
        }
        Ok(())
    }
}

/// A single-sequence classifier / regressor over a model directory (`model.onnx` with an
/// output `[batch, k]`, `tokenizer.json`, `factpico.json` or a Hugging Face `config.json`),
/// e.g. QAFactEval's LERC-QuIP (`AutoModelForSequenceClassification`, 1 output) exported
/// with `onnx/export_hf.py`. Texts are encoded one at a time with the tokenizer's
/// single-sequence template and cut from the right to the manifest's `max_length`.
///
/// `Send + Sync`. Results do not depend on the batch size beyond float noise (≤ 1e-5).
#[derive(Debug)]
pub struct SequenceClassifier {
    dir: ModelDir,
    enc: SingleEncoder,
    runner: Runner,
    output: String,
}

impl SequenceClassifier {
    /// Opens and loads a model directory. The output read is the manifest's first output
    /// (`logits` for `onnx/export_hf.py`); with an inferred manifest, `logits` if the graph has
    /// it, else the graph's first output.
    ///
    /// # Errors
    /// [`Error::MissingFile`], [`Error::InvalidModel`] (unsupported graph inputs, missing
    /// output, unreadable tokenizer), ONNX Runtime library errors.
    pub fn load(dir: impl AsRef<Path>, options: &SessionOptions) -> Result<Self> {
        let dir = ModelDir::open(dir)?;
        let enc = SingleEncoder::load(&dir)?;
        let (runner, output) = Runner::load(&dir, options, dir.manifest().outputs.first().map(String::as_str))?;
        runner.check_vocabulary(enc.tokenizer().get_vocab_size(false), &output, &dir.tokenizer_path())?;
        Ok(Self { dir, enc, runner, output })
    }

    /// The manifest.
    pub fn manifest(&self) -> &ModelManifest {
        self.dir.manifest()
    }
    /// The model directory (path, sha256 of `model.onnx`).
    pub fn model_dir(&self) -> &ModelDir {
        &self.dir
    }
    /// Name of the output read.
    pub fn output_name(&self) -> &str {
        &self.output
    }
    /// The underlying tokenizer (padding and truncation disabled).
    pub fn tokenizer(&self) -> &Tokenizer {
        self.enc.tokenizer()
    }

    /// Tokenises one text with special tokens, cut from the right to `max_length`.
    ///
    /// # Errors
    /// [`Error::Tokenizer`].
    pub fn encode(&self, text: &str) -> Result<EncodedSequence> {
        self.enc.encode(text)
    }

    /// Runs encoded sequences (each 1..=`max_length` ids) in batches of at most
    /// `batch_size`; returns the output row of each sequence, input order (raw values, no
    /// softmax).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for `batch_size == 0` or a sequence of bad length;
    /// [`Error::Ort`].
    pub fn run(&self, seqs: &[&[u32]], batch_size: usize) -> Result<Vec<Vec<f32>>> {
        let mut out: Vec<Vec<f32>> = vec![Vec::new(); seqs.len()];
        self.runner.run(seqs, batch_size, &self.output, |i, _, row| {
            out[i] = row.to_vec();
            Ok(())
        })?;
        Ok(out)
    }

    /// Encodes and runs texts; returns (output row, tokens truncated) per text.
    ///
    /// # Errors
    /// As [`SequenceClassifier::encode`] and [`SequenceClassifier::run`].
    pub fn classify(&self, texts: &[&str], batch_size: usize) -> Result<Vec<(Vec<f32>, usize)>> {
        let enc: Vec<EncodedSequence> = texts.iter().map(|t| self.encode(t)).collect::<Result<_>>()?;
        let refs: Vec<&[u32]> = enc.iter().map(|e| e.ids.as_slice()).collect();
        let rows = self.run(&refs, batch_size)?;
        Ok(rows.into_iter().zip(enc.iter().map(|e| e.truncated)).collect())
    }
}

/// The load error of a tokenizer whose highest id the graph at `model` cannot embed.
pub(crate) fn vocabulary_error(model: &Path, tokenizer: &Path, vocab: usize, e: &Error) -> Error {
    Error::InvalidModel {
        path: model.to_owned(),
        reason: format!(
            "the tokenizer {} has {vocab} ids but the graph cannot embed id {}: its embedding table is smaller, so the \
             tokenizer does not belong to this model (use the directory's own tokenizer.json, or re-export it) ({e})",
            tokenizer.display(),
            vocab - 1
        ),
    }
}
