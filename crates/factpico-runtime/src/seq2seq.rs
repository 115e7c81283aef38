//! Encoder–decoder generation over optimum-style ONNX exports (T5 and BART families).
//!
//! A seq2seq model directory (written by `onnx/export_seq2seq.py`) holds
//! `encoder_model.onnx` and either `decoder_model.onnx` + `decoder_with_past_model.onnx`
//! (layout `split`) or `decoder_model_merged.onnx` (layout `merged`), a `tokenizer.json` and
//! a `factpico.json` whose `task` is `seq2seq` and whose `seq2seq` section gives the decoder
//! start / EOS / pad ids, the family and (for QuestEval's QA model) the "unanswerable" id.
//!
//! [`Seq2SeqModel`] runs the encoder once per batch of sources and implements
//! [`crate::generate::DecoderStep`] with key/value-cache reuse ([`OrtDecoder`]), so the
//! searches of [`crate::generate`] (greedy, Hugging Face beam, AllenNLP beam) run on it.
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde::{Deserialize, Serialize};
use tokenizers::Tokenizer;

use crate::error::{Error, Result};
use crate::generate::allennlp::{allennlp_beam_search, AllenNlpBeamConfig, AllenNlpBeamOutput};
use crate::generate::beam::{hf_beam_search, BeamConfig, BeamOutput};
use crate::generate::{greedy, DecoderStep, GreedyConfig, GreedyOutput, Hyp};
use crate::manifest::{ModelManifest, ModelTask, MANIFEST_FILE};
use crate::session::{build_session, lock, SessionOptions};

/// Which decoder graphs a directory holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DecoderLayout {
    /// `decoder_model.onnx` (first step) + `decoder_with_past_model.onnx` (later steps).
    Split,
    /// `decoder_model_merged.onnx` with a `use_cache_branch` input.
    Merged,
}

/// Generation defaults recorded from the checkpoint's `generation_config.json` (informative;
/// the presets set their own).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct GenerationDefaults {
    /// `max_length` (decoder length including the start token).
    #[serde(default)]
    pub max_length: Option<usize>,
    /// `num_beams`.
    #[serde(default)]
    pub num_beams: Option<usize>,
    /// `length_penalty`.
    #[serde(default)]
    pub length_penalty: Option<f64>,
    /// `forced_bos_token_id`.
    #[serde(default)]
    pub forced_bos_token_id: Option<u32>,
    /// `forced_eos_token_id`.
    #[serde(default)]
    pub forced_eos_token_id: Option<u32>,
}

/// The `seq2seq` section of `factpico.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Seq2SeqConfig {
    /// Hugging Face `model_type` (`t5`, `bart`, ...).
    pub family: String,
    /// Decoder graph layout.
    pub layout: DecoderLayout,
    /// Role the model was exported for (`qg`, `qa`, `weighter`), informative.
    #[serde(default)]
    pub role: Option<String>,
    /// Logits width.
    pub vocab_size: usize,
    /// Token fed at decoder position 0 by Hugging Face `generate` (T5: 0, BART: 2).
    pub decoder_start_token_id: u32,
    /// Beginning-of-sequence token (BART `<s>` = 0), if any.
    #[serde(default)]
    pub bos_token_id: Option<u32>,
    /// End-of-sequence token.
    pub eos_token_id: u32,
    /// Padding token.
    pub pad_token_id: u32,
    /// Decoder layers (from the config; the graph is authoritative).
    #[serde(default)]
    pub num_decoder_layers: Option<usize>,
    /// Attention heads of the decoder.
    #[serde(default)]
    pub num_heads: Option<usize>,
    /// Per-head dimension.
    #[serde(default)]
    pub head_dim: Option<usize>,
    /// QuestEval QA models: id of the "unanswerable" token (73 for `t5-qa_squad2neg-en`).
    #[serde(default)]
    pub unanswerable_token_id: Option<u32>,
    /// QuestEval QG models: the task prefix (`sv1`).
    #[serde(default)]
    pub qg_prefix: Option<String>,
    /// Checkpoint generation defaults.
    #[serde(default)]
    pub generation: GenerationDefaults,
}

#[derive(Deserialize)]
struct ManifestWithSeq2Seq {
    seq2seq: Option<Seq2SeqConfig>,
}

/// A source sequence after tokenisation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EncodedSource {
    /// Token ids with the model's special tokens (T5: trailing `</s>`; BART: `<s> … </s>`),
    /// at most the manifest's `max_length` long.
    pub ids: Vec<u32>,
    /// Whether tokens were cut (from the right, like `truncation=True`).
    pub truncated: bool,
}

/// A loaded seq2seq model: encoder + decoder sessions and the tokenizer.
pub struct Seq2SeqModel {
    dir: PathBuf,
    manifest: ModelManifest,
    config: Seq2SeqConfig,
    tokenizer: Tokenizer,
    encoder: Mutex<ort::session::Session>,
    decoder: Mutex<ort::session::Session>,
    decoder_past: Option<Mutex<ort::session::Session>>,
    layers: usize,
    heads: usize,
    head_dim: usize,
    d_model: usize,
}

impl std::fmt::Debug for Seq2SeqModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Seq2SeqModel").field("dir", &self.dir).field("config", &self.config).finish_non_exhaustive()
    }
}


fn static_dim(dims: &[i64], i: usize) -> Option<usize> {
    dims.get(i).copied().filter(|&d| d > 0).map(|d| d as usize)
}

const HINT: &str = "export it with `python onnx/export_seq2seq.py CHECKPOINT OUT_DIR` (see onnx/README.md)";

impl Seq2SeqModel {
    /// Opens and loads a seq2seq model directory.
    ///
    /// # Errors
    /// [`Error::MissingFile`] for a missing directory, graph, tokenizer or manifest;
    /// [`Error::InvalidModel`] when the manifest's task is not `seq2seq`, its `seq2seq` section
    /// is missing, or the graphs lack the expected inputs/outputs; ONNX Runtime errors.
    pub fn load(dir: impl AsRef<Path>, options: &SessionOptions) -> Result<Self> {
        let dir = dir.as_ref().to_path_buf();
        if !dir.is_dir() {
            return Err(Error::MissingFile { what: "seq2seq model directory", path: dir, hint: HINT.into() });
        }
        let mpath = dir.join(MANIFEST_FILE);
        if !mpath.is_file() {
            return Err(Error::MissingFile { what: "manifest factpico.json", path: mpath, hint: HINT.into() });
        }
        let manifest = ModelManifest::from_file(&mpath)?;
        if manifest.task != ModelTask::Seq2seq {
            return Err(Error::InvalidModel {
                path: mpath,
                reason: format!("task is {}, not seq2seq; this directory is not a generation model (onnx/export_seq2seq.py)", manifest.task),
            });
        }
        let text = std::fs::read_to_string(&mpath).map_err(|e| Error::io(&mpath, e))?;
        let config = serde_json::from_str::<ManifestWithSeq2Seq>(&text)
            .map_err(|e| Error::InvalidModel { path: mpath.clone(), reason: format!("bad seq2seq section ({e})") })?
            .seq2seq
            .ok_or_else(|| Error::InvalidModel {
                path: mpath.clone(),
                reason: format!("no `seq2seq` section; {HINT}"),
            })?;
        let file = |name: &str| -> Result<PathBuf> {
            let p = dir.join(name);
            if p.is_file() {
                Ok(p)
            } else {
                Err(Error::MissingFile { what: "ONNX graph", path: p, hint: HINT.into() })
            }
        };
        let tok_path = dir.join("tokenizer.json");
        if !tok_path.is_file() {
            return Err(Error::MissingFile { what: "tokenizer.json", path: tok_path, hint: HINT.into() });
        }
        let tokenizer = crate::model::load_tokenizer(&tok_path)?;
        let encoder = build_session(&file("encoder_model.onnx")?, options)?;
        let (decoder, decoder_past) = match config.layout {
            DecoderLayout::Split => (
                build_session(&file("decoder_model.onnx")?, options)?,
                Some(build_session(&file("decoder_with_past_model.onnx")?, options)?),
            ),
            DecoderLayout::Merged => (build_session(&file("decoder_model_merged.onnx")?, options)?, None),
        };
        let d_model = encoder
            .outputs()
            .iter()
            .find(|o| o.name() == "last_hidden_state")
            .and_then(|o| match o.dtype() {
                ort::value::ValueType::Tensor { shape, .. } => static_dim(shape, 2),
                _ => None,
            })
            .ok_or_else(|| Error::InvalidModel {
                path: dir.join("encoder_model.onnx"),
                reason: "no last_hidden_state output with a static hidden size".into(),
            })?;
        let past_graph = decoder_past.as_ref().unwrap_or(&decoder);
        let mut layers = 0;
        let mut heads = config.num_heads;
        let mut head_dim = config.head_dim;
        for i in past_graph.inputs() {
            if let Some(rest) = i.name().strip_prefix("past_key_values.") {
                if rest.ends_with(".decoder.key") {
                    layers += 1;
                    if let ort::value::ValueType::Tensor { shape, .. } = i.dtype() {
                        heads = static_dim(shape, 1).or(heads);
                        head_dim = static_dim(shape, 3).or(head_dim);
                    }
                }
            }
        }
        let (heads, head_dim) = match (heads, head_dim) {
            (Some(h), Some(d)) if layers > 0 => (h, d),
            _ => {
                return Err(Error::InvalidModel {
                    path: dir.clone(),
                    reason: "the decoder graph has no past_key_values.*.decoder.key inputs with known shapes; \
                             export with task text2text-generation-with-past"
                        .into(),
                })
            }
        };
        let vocab = tokenizer.get_vocab_size(false);
        let model = Seq2SeqModel {
            dir,
            manifest,
            config,
            tokenizer,
            encoder: Mutex::new(encoder),
            decoder: Mutex::new(decoder),
            decoder_past: decoder_past.map(Mutex::new),
            layers,
            heads,
            head_dim,
            d_model,
        };
        model.check_vocabulary(vocab, &tok_path)?;
        Ok(model)
    }

    /// Refuses a tokenizer whose ids the graphs cannot embed (another model's tokenizer): the
    /// encoder runs one source made of the tokenizer's highest base-vocabulary id, and the
    /// decoder one first step fed that id, which fail when an embedding table has fewer rows.
    /// Checked at load so that the mismatch is one clear error, not a raw ONNX Runtime message
    /// on every row.
    fn check_vocabulary(&self, vocab: usize, tokenizer: &Path) -> Result<()> {
        use crate::generate::{DecoderStep, Hyp};
        let Some(last) = vocab.checked_sub(1).and_then(|v| u32::try_from(v).ok()) else { return Ok(()) };
        let probe = || -> Result<()> {
            let mut d = self.decoder(&[&[last]])?;
            d.start()?;
            d.step(&[Hyp { row: 0, parent: None, token: last }])?;
            Ok(())
        };
        probe().map_err(|e| crate::sequence::vocabulary_error(&self.dir, tokenizer, vocab, &e))
    }

    /// The model directory.
    pub fn path(&self) -> &Path {
        &self.dir
    }
    /// The manifest.
    pub fn manifest(&self) -> &ModelManifest {
        &self.manifest
    }
    /// The `seq2seq` section of the manifest.
    pub fn config(&self) -> &Seq2SeqConfig {
        &self.config
    }
    /// Id of a token string (added tokens included), if it is in the vocabulary.
    pub fn token_to_id(&self, token: &str) -> Option<u32> {
        self.tokenizer.token_to_id(token)
    }

    /// Tokenises `text` with the model's special tokens and right truncation to the
    /// manifest's `max_length` (Hugging Face `tokenizer(text, max_length=…, truncation=True)`).
    ///
    /// T5 family: the slow `T5Tokenizer` semantics QuestEval relies on — the text's pieces
    /// are cut to `max_length − 1` and `</s>` is appended only if the sequence does not
    /// already end with it (a text ending in a literal `</s>` gets no second one). Other
    /// families: the tokenizer's post-processor adds its special tokens after cutting the
    /// text to fit.
    ///
    /// # Errors
    /// [`Error::Tokenizer`].
    pub fn encode(&self, text: &str) -> Result<EncodedSource> {
        let max = self.manifest.max_length;
        let mut enc = self.tokenizer.encode(text, false).map_err(|e| Error::tok("encoding a source", e))?;
        if matches!(self.config.family.as_str(), "t5" | "mt5") {
            let eos = self.config.eos_token_id;
            let mut ids = enc.get_ids().to_vec();
            let truncated = ids.len() > max.saturating_sub(1);
            ids.truncate(max.saturating_sub(1));
            if ids.last() != Some(&eos) {
                ids.push(eos);
            }
            return Ok(EncodedSource { ids, truncated });
        }
        let n_special = self.tokenizer.get_post_processor().map_or(0, |p| tokenizers::PostProcessor::added_tokens(p, false));
        let budget = max.saturating_sub(n_special);
        let truncated = enc.len() > budget;
        if truncated {
            enc.truncate(budget, 0, tokenizers::TruncationDirection::Right);
        }
        let enc = self.tokenizer.post_process(enc, None, true).map_err(|e| Error::tok("adding special tokens", e))?;
        Ok(EncodedSource { ids: enc.get_ids().to_vec(), truncated })
    }

    /// Decodes ids with the tokenizer's decoder. `skip_special_tokens` drops special tokens
    /// (`<pad>`, `</s>`, ...); no clean-up is applied (see [`clean_up_tokenization`]).
    ///
    /// # Errors
    /// [`Error::Tokenizer`].
    pub fn decode(&self, ids: &[u32], skip_special_tokens: bool) -> Result<String> {
        self.tokenizer.decode(ids, skip_special_tokens).map_err(|e| Error::tok("decoding", e))
    }

    /// Decodes like Hugging Face `tokenizer.decode(ids, skip_special_tokens, clean_up_tokenization_spaces)`
    /// with the tokenizer the references used: for the T5 family the slow `T5Tokenizer`,
    /// whose `convert_tokens_to_string` strips the result (Python `str.strip()`); then the
    /// optional [`clean_up_tokenization`].
    ///
    /// # Errors
    /// [`Error::Tokenizer`].
    pub fn decode_hf(&self, ids: &[u32], skip_special_tokens: bool, clean_up: bool) -> Result<String> {
        let mut text = self.decode(ids, skip_special_tokens)?;
        if matches!(self.config.family.as_str(), "t5" | "mt5") {
            text = python_strip(&text).to_owned();
        }
        Ok(if clean_up { clean_up_tokenization(&text) } else { text })
    }

    /// Runs the encoder on a batch of sources (padded to the longest) and returns a decoder
    /// ready for a search over these rows.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for an empty source; ONNX Runtime errors.
    pub fn decoder(&self, sources: &[&[u32]]) -> Result<OrtDecoder<'_>> {
        let rows = sources.len();
        if sources.iter().any(|s| s.is_empty()) {
            return Err(Error::InvalidArgument("a source sequence has no tokens".into()));
        }
        let enc_len = sources.iter().map(|s| s.len()).max().unwrap_or(0);
        let pad = i64::from(self.config.pad_token_id);
        let mut ids = vec![pad; rows * enc_len];
        let mut mask = vec![0i64; rows * enc_len];
        for (r, s) in sources.iter().enumerate() {
            for (j, &t) in s.iter().enumerate() {
                ids[r * enc_len + j] = i64::from(t);
                mask[r * enc_len + j] = 1;
            }
        }
        let hidden = if rows == 0 {
            Vec::new()
        } else {
            let t_ids = tensor_i64(vec![rows, enc_len], ids)?;
            let t_mask = tensor_i64(vec![rows, enc_len], mask.clone())?;
            let mut enc = lock(&self.encoder);
            let out = enc
                .run(vec![("input_ids".to_owned(), t_ids), ("attention_mask".to_owned(), t_mask)])
                .map_err(|e| Error::ort("running the encoder", e))?;
            let v = out
                .get("last_hidden_state")
                .ok_or_else(|| Error::ort("running the encoder", "no last_hidden_state output"))?;
            let (_, data) = v.try_extract_tensor::<f32>().map_err(|e| Error::ort("reading the encoder output", e))?;
            if data.len() != rows * enc_len * self.d_model {
                return Err(Error::ort("reading the encoder output", "unexpected shape"));
            }
            data.to_vec()
        };
        Ok(OrtDecoder {
            model: self,
            enc_len,
            hidden,
            mask,
            self_kv: Vec::new(),
            cross_kv: Vec::new(),
            n: 0,
            past_len: 0,
        })
    }

    /// Greedy generation (see [`crate::generate::greedy`]) over `sources`, `batch_size` rows
    /// per encoder/decoder batch (sources are length-sorted first; results in input order).
    ///
    /// # Errors
    /// See [`Seq2SeqModel::decoder`] and [`crate::generate::greedy`].
    pub fn generate_greedy(
        &self,
        sources: &[&[u32]],
        config: &GreedyConfig,
        batch_size: usize,
    ) -> Result<Vec<GreedyOutput>> {
        self.batched(sources, batch_size, |dec, n| greedy(dec, n, config))
    }

    /// Hugging Face beam search (see [`crate::generate::beam::hf_beam_search`]).
    ///
    /// # Errors
    /// See [`Seq2SeqModel::decoder`] and the search.
    pub fn generate_beam(&self, sources: &[&[u32]], config: &BeamConfig, batch_size: usize) -> Result<Vec<BeamOutput>> {
        self.batched(sources, batch_size, |dec, n| hf_beam_search(dec, n, config))
    }

    /// AllenNLP beam search (see [`crate::generate::allennlp::allennlp_beam_search`]).
    ///
    /// # Errors
    /// See [`Seq2SeqModel::decoder`] and the search.
    pub fn generate_allennlp(
        &self,
        sources: &[&[u32]],
        config: &AllenNlpBeamConfig,
        batch_size: usize,
    ) -> Result<Vec<AllenNlpBeamOutput>> {
        self.batched(sources, batch_size, |dec, n| allennlp_beam_search(dec, n, config))
    }

    fn batched<T, F>(&self, sources: &[&[u32]], batch_size: usize, mut f: F) -> Result<Vec<T>>
    where
        F: FnMut(&mut OrtDecoder<'_>, usize) -> Result<Vec<T>>,
    {
        if batch_size == 0 {
            return Err(Error::InvalidArgument("batch_size must be at least 1".into()));
        }
        let mut order: Vec<usize> = (0..sources.len()).collect();
        order.sort_by_key(|&i| sources[i].len());
        let mut out: Vec<Option<T>> = (0..sources.len()).map(|_| None).collect();
        for chunk in order.chunks(batch_size) {
            let batch: Vec<&[u32]> = chunk.iter().map(|&i| sources[i]).collect();
            let mut dec = self.decoder(&batch)?;
            let res = f(&mut dec, batch.len())?;
            for (k, r) in res.into_iter().enumerate() {
                out[chunk[k]] = Some(r);
            }
        }
        out.into_iter()
            .map(|o| o.ok_or_else(|| Error::InvalidArgument("search returned too few rows".into())))
            .collect()
    }
}

fn tensor_i64(shape: Vec<usize>, data: Vec<i64>) -> Result<ort::value::DynValue> {
    Ok(ort::value::Tensor::from_array((shape, data)).map_err(|e| Error::ort("creating a tensor", e))?.into_dyn())
}

fn tensor_f32(shape: Vec<usize>, data: Vec<f32>) -> Result<ort::value::DynValue> {
    Ok(ort::value::Tensor::from_array((shape, data)).map_err(|e| Error::ort("creating a tensor", e))?.into_dyn())
}

/// Decoder state over the rows of one encoder batch: implements [`DecoderStep`] with
/// key/value-cache reuse. Created by [`Seq2SeqModel::decoder`].
pub struct OrtDecoder<'m> {
    model: &'m Seq2SeqModel,
    enc_len: usize,
    /// Encoder output, `rows × enc_len × d_model`.
    hidden: Vec<f32>,
    /// Encoder attention mask, `rows × enc_len`.
    mask: Vec<i64>,
    /// Per layer (key, value) self-attention cache, `n × heads × past_len × head_dim`.
    self_kv: Vec<(Vec<f32>, Vec<f32>)>,
    /// Per layer (key, value) cross-attention cache, `n × heads × enc_len × head_dim`.
    cross_kv: Vec<(Vec<f32>, Vec<f32>)>,
    n: usize,
    past_len: usize,
}

impl std::fmt::Debug for OrtDecoder<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OrtDecoder").field("enc_len", &self.enc_len).field("n", &self.n).finish_non_exhaustive()
    }
}

impl OrtDecoder<'_> {
    fn gather_mask(&self, hyps: &[Hyp]) -> Vec<i64> {
        let l = self.enc_len;
        let mut m = Vec::with_capacity(hyps.len() * l);
        for h in hyps {
            m.extend_from_slice(&self.mask[h.row * l..(h.row + 1) * l]);
        }
        m
    }

    fn gather_hidden(&self, hyps: &[Hyp]) -> Vec<f32> {
        let k = self.enc_len * self.model.d_model;
        let mut m = Vec::with_capacity(hyps.len() * k);
        for h in hyps {
            m.extend_from_slice(&self.hidden[h.row * k..(h.row + 1) * k]);
        }
        m
    }

    fn read_logits(&self, out: &ort::session::SessionOutputs<'_>, n: usize) -> Result<Vec<f32>> {
        let v = out.get("logits").ok_or_else(|| Error::ort("running the decoder", "no logits output"))?;
        let (shape, data) = v.try_extract_tensor::<f32>().map_err(|e| Error::ort("reading logits", e))?;
        let vocab = self.model.config.vocab_size;
        // [n, seq, vocab]: keep the last position.
        let seq = shape.get(1).copied().unwrap_or(1).max(1) as usize;
        if data.len() != n * seq * vocab {
            return Err(Error::ort(
                "reading logits",
                format!("shape {:?} does not match {n} hypotheses × vocabulary {vocab}", &shape[..]),
            ));
        }
        let mut logits = Vec::with_capacity(n * vocab);
        for i in 0..n {
            let off = (i * seq + seq - 1) * vocab;
            logits.extend_from_slice(&data[off..off + vocab]);
        }
        Ok(logits)
    }

    fn read_kv(out: &ort::session::SessionOutputs<'_>, name: &str) -> Result<(Vec<usize>, Vec<f32>)> {
        let v = out.get(name).ok_or_else(|| Error::ort("running the decoder", format!("no output {name:?}")))?;
        let (shape, data) = v.try_extract_tensor::<f32>().map_err(|e| Error::ort(format!("reading {name}"), e))?;
        Ok((shape.iter().map(|&d| d.max(0) as usize).collect(), data.to_vec()))
    }
}

fn gather_rows(src: &[f32], per: usize, parents: &[usize]) -> Vec<f32> {
    let mut out = Vec::with_capacity(parents.len() * per);
    for &p in parents {
        out.extend_from_slice(&src[p * per..(p + 1) * per]);
    }
    out
}

impl DecoderStep for OrtDecoder<'_> {
    fn vocab_size(&self) -> usize {
        self.model.config.vocab_size
    }

    fn start(&mut self) -> Result<()> {
        self.self_kv.clear();
        self.cross_kv.clear();
        self.n = 0;
        self.past_len = 0;
        Ok(())
    }

    fn step(&mut self, hyps: &[Hyp]) -> Result<Vec<f32>> {
        let n = hyps.len();
        if n == 0 {
            return Ok(Vec::new());
        }
        let rows = self.mask.len() / self.enc_len.max(1);
        if hyps.iter().any(|h| h.row >= rows) {
            return Err(Error::InvalidArgument("hypothesis row out of range".into()));
        }
        let first = hyps[0].parent.is_none();
        if hyps.iter().any(|h| h.parent.is_none() != first) {
            return Err(Error::InvalidArgument("mixed first-step and cached hypotheses in one step".into()));
        }
        let m = self.model;
        let (layers, heads, hd) = (m.layers, m.heads, m.head_dim);
        let ids: Vec<i64> = hyps.iter().map(|h| i64::from(h.token)).collect();
        let mut inputs: Vec<(String, ort::value::DynValue)> = vec![
            ("encoder_attention_mask".to_owned(), tensor_i64(vec![n, self.enc_len], self.gather_mask(hyps))?),
            ("input_ids".to_owned(), tensor_i64(vec![n, 1], ids)?),
        ];
        let merged = m.decoder_past.is_none();
        let parents: Vec<usize> = hyps.iter().filter_map(|h| h.parent).collect();
        if parents.iter().any(|&p| p >= self.n) {
            return Err(Error::InvalidArgument(format!("parent index out of range (previous step had {})", self.n)));
        }
        let self_per = heads * self.past_len * hd;
        let cross_per = heads * self.enc_len * hd;
        let mut new_cross: Vec<(Vec<f32>, Vec<f32>)> = Vec::new();
        if first {
            inputs.push((
                "encoder_hidden_states".to_owned(),
                tensor_f32(vec![n, self.enc_len, m.d_model], self.gather_hidden(hyps))?,
            ));
            if merged {
                for l in 0..layers {
                    for kind in ["decoder.key", "decoder.value", "encoder.key", "encoder.value"] {
                        inputs.push((format!("past_key_values.{l}.{kind}"), tensor_f32(vec![n, heads, 0, hd], Vec::new())?));
                    }
                }
                inputs.push((
                    "use_cache_branch".to_owned(),
                    ort::value::Tensor::from_array((vec![1usize], vec![false]))
                        .map_err(|e| Error::ort("creating a tensor", e))?
                        .into_dyn(),
                ));
            }
        } else {
            if merged {
                inputs.push((
                    "encoder_hidden_states".to_owned(),
                    tensor_f32(vec![n, self.enc_len, m.d_model], self.gather_hidden(hyps))?,
                ));
            }
            for l in 0..layers {
                let (sk, sv) = &self.self_kv[l];
                let (ck, cv) = &self.cross_kv[l];
                let gk = gather_rows(ck, cross_per, &parents);
                let gv = gather_rows(cv, cross_per, &parents);
                inputs.push((
                    format!("past_key_values.{l}.decoder.key"),
                    tensor_f32(vec![n, heads, self.past_len, hd], gather_rows(sk, self_per, &parents))?,
                ));
                inputs.push((
                    format!("past_key_values.{l}.decoder.value"),
                    tensor_f32(vec![n, heads, self.past_len, hd], gather_rows(sv, self_per, &parents))?,
                ));
                inputs.push((format!("past_key_values.{l}.encoder.key"), tensor_f32(vec![n, heads, self.enc_len, hd], gk.clone())?));
                inputs.push((format!("past_key_values.{l}.encoder.value"), tensor_f32(vec![n, heads, self.enc_len, hd], gv.clone())?));
                new_cross.push((gk, gv));
            }
            if merged {
                inputs.push((
                    "use_cache_branch".to_owned(),
                    ort::value::Tensor::from_array((vec![1usize], vec![true]))
                        .map_err(|e| Error::ort("creating a tensor", e))?
                        .into_dyn(),
                ));
            }
        }
        let session = if first || merged { &m.decoder } else { m.decoder_past.as_ref().unwrap_or(&m.decoder) };
        let mut sess = lock(session);
        let out = sess.run(inputs).map_err(|e| Error::ort("running the decoder", e))?;
        let logits = self.read_logits(&out, n)?;
        let mut self_kv = Vec::with_capacity(layers);
        for l in 0..layers {
            let (shape, k) = Self::read_kv(&out, &format!("present.{l}.decoder.key"))?;
            let (_, v) = Self::read_kv(&out, &format!("present.{l}.decoder.value"))?;
            if l == 0 {
                self.past_len = shape.get(2).copied().unwrap_or(0);
            }
            self_kv.push((k, v));
        }
        if first {
            for l in 0..layers {
                let (_, k) = Self::read_kv(&out, &format!("present.{l}.encoder.key"))?;
                let (_, v) = Self::read_kv(&out, &format!("present.{l}.encoder.value"))?;
                new_cross.push((k, v));
            }
        }
        drop(out);
        drop(sess);
        self.self_kv = self_kv;
        self.cross_kv = new_cross;
        self.n = n;
        Ok(logits)
    }
}

/// Python `str.isspace()` for one character: Unicode White_Space plus the information
/// separators U+001C–U+001F.
pub fn is_python_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// Python `str.strip()` (no argument).
pub fn python_strip(s: &str) -> &str {
    s.trim_matches(is_python_space)
}

/// Hugging Face `clean_up_tokenization` (transformers `tokenization_utils_base.py`, the same in
/// 3.0.2 and 4.46.3): removes the space before `.`, `?`, `!`, `,` and English contractions
/// (`n't`, `'m`, `'s`, `'ve`, `'re`) and turns `" ' "` into `'`.
pub fn clean_up_tokenization(s: &str) -> String {
    s.replace(" .", ".")
        .replace(" ?", "?")
        .replace(" !", "!")
        .replace(" ,", ",")
        .replace(" ' ", "'")
        .replace(" n't", "n't")
        .replace(" 'm", "'m")
        .replace(" 's", "'s")
        .replace(" 've", "'ve")
        .replace(" 're", "'re")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clean_up_matches_hf() {
        assert_eq!(clean_up_tokenization("What is it ? It is n't , he 's ."), "What is it? It isn't, he's.");
        assert_eq!(clean_up_tokenization("a ' b"), "a'b");
    }

    #[test]
    fn python_strip_includes_separators() {
        assert_eq!(python_strip("\u{1e} a b\u{1f}\n"), "a b");
        assert_eq!(python_strip("\u{a0}x"), "x");
    }

    #[test]
    fn gather_rows_copies_parents() {
        let src = vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
        assert_eq!(gather_rows(&src, 2, &[2, 0, 0]), vec![5.0, 6.0, 1.0, 2.0, 1.0, 2.0]);
    }
}
