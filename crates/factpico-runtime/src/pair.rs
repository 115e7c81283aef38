//! Sequence-pair classification: tokenisation with explicit truncation, dynamic padding,
//! length-bucketed batching, and a small pool of ONNX Runtime sessions.
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use tokenizers::utils::truncation::{truncate_encodings, TruncationDirection, TruncationError, TruncationParams};
use tokenizers::{Encoding, PostProcessor, Tokenizer};

use crate::error::{Error, Result};
use crate::manifest::{ModelManifest, TruncationConfig, TruncationSide, TruncationStrategy};
use crate::model::ModelDir;
use crate::session::{encoder_inputs, lock, InputRole, SessionOptions, SessionPool};

/// One tokenised text (no special tokens, no truncation), reusable in many pairs. Obtained
/// from [`PairClassifier::segment`].
#[derive(Debug, Clone)]
pub struct Segment {
    enc: Encoding,
}

impl Segment {
    /// Number of tokens (special tokens excluded).
    pub fn len(&self) -> usize {
        self.enc.get_ids().len()
    }
    /// True for a text that produced no token.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// What truncation did to one pair.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TruncationReport {
    /// Strategy that was applied; `None` when the pair fitted without truncation.
    pub strategy: Option<TruncationStrategy>,
    /// True when the pair's tokenisation group used the fallback strategy because the primary
    /// one was impossible for at least one pair of the group (AlignScore: a claim sentence
    /// longer than the model limit, `inference.py:180-182`).
    pub fell_back: bool,
    /// Premise (first sequence) tokens removed.
    pub dropped_premise: usize,
    /// Hypothesis (second sequence) tokens removed.
    pub dropped_hypothesis: usize,
}

impl TruncationReport {
    /// Total tokens removed.
    pub fn dropped(&self) -> usize {
        self.dropped_premise + self.dropped_hypothesis
    }
}

/// A tokenised (premise, hypothesis) pair with special tokens, ready to batch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EncodedPair {
    /// Token ids, special tokens included; length <= the max length used to encode.
    pub input_ids: Vec<i64>,
    /// Segment ids from the tokenizer's template (0 / 1 for BERT pairs; all 0 for RoBERTa).
    pub token_type_ids: Vec<i64>,
    /// What truncation did.
    pub truncation: TruncationReport,
}

impl EncodedPair {
    /// Number of tokens.
    pub fn len(&self) -> usize {
        self.input_ids.len()
    }
    /// True when there is no token (never for a pair template with special tokens).
    pub fn is_empty(&self) -> bool {
        self.input_ids.is_empty()
    }
}

/// The model outputs for one pair: for each graph output (manifest order), the row of that
/// output (e.g. 3 logits for `tri_logits`, 1 value for `reg`). Raw values: no softmax.
#[derive(Debug, Clone, PartialEq)]
pub struct PairOutput {
    names: Arc<[String]>,
    values: Vec<Vec<f32>>,
}

impl PairOutput {
    /// The row of output `name`, if the graph has that output.
    pub fn get(&self, name: &str) -> Option<&[f32]> {
        let i = self.names.iter().position(|n| n == name)?;
        self.values.get(i).map(Vec::as_slice)
    }
    /// Output names, graph order.
    pub fn names(&self) -> &[String] {
        &self.names
    }
}

/// Counters of the work done by a [`PairClassifier`] (for benchmarks and logging).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct RunStats {
    /// Wall-clock seconds spent inside `Session::run` (the raw ONNX Runtime forward pass,
    /// tensor creation and output copy included).
    pub forward_seconds: f64,
    /// Batches run.
    pub batches: u64,
    /// Pairs run.
    pub pairs: u64,
    /// Real (non-padding) tokens.
    pub tokens: u64,
    /// Tokens including padding.
    pub padded_tokens: u64,
}


/// A sequence-pair classifier over a model directory (NLI cross-encoder, AlignScore, ...).
///
/// `Send + Sync`: share it (e.g. in an `Arc`) between threads; see [`SessionOptions`] for the
/// threading model. Results do not depend on batch size or pair order beyond float noise
/// (≤ 1e-5): every batch is padded only to its longest pair and padding is masked.
#[derive(Debug)]
pub struct PairClassifier {
    dir: ModelDir,
    tokenizer: Tokenizer,
    n_added_pair: usize,
    inputs: Vec<(String, InputRole)>,
    outputs: Arc<[String]>,
    sessions: SessionPool,
    stats: Mutex<RunStats>,
}

impl PairClassifier {
    /// Opens and loads a model directory (see [`ModelDir::open`]), creating
    /// `options.sessions` ONNX Runtime sessions (initialising ONNX Runtime if needed).
    ///
    /// Validation: every graph input must be one of `input_ids`, `attention_mask`,
    /// `token_type_ids` (int64); the manifest's input names must equal the graph's; its output
    /// names must exist in the graph. An inferred manifest takes the names from the graph.
    ///
    /// # Errors
    /// [`Error::MissingFile`], [`Error::InvalidModel`] (naming the file), ONNX Runtime library
    /// errors ([`Error::OrtNotFound`], [`Error::OrtLibrary`]), [`Error::Tokenizer`].
    pub fn load(dir: impl AsRef<Path>, options: &SessionOptions) -> Result<Self> {
        let mut dir = ModelDir::open(dir)?;
        let tok_path = dir.tokenizer_path();
        let tokenizer = crate::model::load_tokenizer(&tok_path)?;
        let n_added_pair = tokenizer.get_post_processor().map_or(0, |p| p.added_tokens(true));

        let model_path = dir.model_path();
        let sessions = SessionPool::load(&model_path, options)?;
        let (inputs, graph_inputs, graph_outputs) = {
            let first = sessions.first();
            let graph_inputs: Vec<String> = first.inputs().iter().map(|o| o.name().to_owned()).collect();
            let graph_outputs: Vec<String> = first.outputs().iter().map(|o| o.name().to_owned()).collect();
            (encoder_inputs(&first, &model_path)?, graph_inputs, graph_outputs)
        };
        let inferred = dir.manifest_is_inferred();
        let manifest = dir.manifest_mut();
        if inferred {
            manifest.inputs = graph_inputs;
            manifest.outputs = graph_outputs.clone();
            if let Some(labels) = manifest.labels.remove("") {
                if let Some(first_out) = graph_outputs.first() {
                    manifest.labels.insert(first_out.clone(), labels);
                }
            }
        } else {
            let mut want = manifest.inputs.clone();
            let mut have = graph_inputs.clone();
            want.sort();
            have.sort();
            if want != have {
                return Err(Error::InvalidModel {
                    path: model_path,
                    reason: format!(
                        "factpico.json lists inputs {:?} but the graph has {:?}; the manifest does not belong to \
                         this model.onnx (re-export the directory)",
                        manifest.inputs, graph_inputs
                    ),
                });
            }
            for o in &manifest.outputs {
                if !graph_outputs.contains(o) {
                    return Err(Error::InvalidModel {
                        path: model_path,
                        reason: format!(
                            "factpico.json lists output {o:?} but the graph has {graph_outputs:?}; re-export the directory"
                        ),
                    });
                }
            }
        }
        let max_length = manifest.max_length;
        if max_length <= n_added_pair {
            return Err(Error::InvalidModel {
                path: dir.path().join(crate::manifest::MANIFEST_FILE),
                reason: format!("max_length {max_length} leaves no room for text"),
            });
        }
        let outputs: Arc<[String]> = dir.manifest().outputs.clone().into();
        let vocab = tokenizer.get_vocab_size(false);
        let clf = PairClassifier {
            dir,
            tokenizer,
            n_added_pair,
            inputs,
            outputs,
            sessions,
            stats: Mutex::new(RunStats::default()),
        };
        // Another model's tokenizer: one clear load error instead of a raw ONNX Runtime
        // message on every row (one sequence of the highest base-vocabulary id; the embedding
        // lookup fails when the table is smaller).
        if let Some(last) = vocab.checked_sub(1).and_then(|v| i64::try_from(v).ok()) {
            let probe = EncodedPair { input_ids: vec![last], token_type_ids: vec![0], truncation: TruncationReport::default() };
            clf.forward(&[&probe]).map_err(|e| crate::sequence::vocabulary_error(&model_path, &tok_path, vocab, &e))?;
            clf.reset_stats();
        }
        Ok(clf)
    }

    /// The (completed) manifest.
    pub fn manifest(&self) -> &ModelManifest {
        self.dir.manifest()
    }
    /// The model directory (path, lazily computed sha256 of `model.onnx`).
    pub fn model_dir(&self) -> &ModelDir {
        &self.dir
    }
    /// Graph output names in graph order.
    pub fn output_names(&self) -> &[String] {
        &self.outputs
    }
    /// Special tokens the pair template adds (4 for RoBERTa `<s> A </s></s> B </s>`, 3 for BERT).
    pub fn special_tokens_in_pair(&self) -> usize {
        self.n_added_pair
    }
    /// The underlying tokenizer (padding and truncation disabled).
    pub fn tokenizer(&self) -> &Tokenizer {
        &self.tokenizer
    }

    /// Tokenises one text without special tokens or truncation.
    ///
    /// # Errors
    /// [`Error::Tokenizer`].
    pub fn segment(&self, text: &str) -> Result<Segment> {
        let enc = self.tokenizer.encode(text, false).map_err(|e| Error::tok("encoding a text", e))?;
        Ok(Segment { enc })
    }

    /// Builds one pair with `strategy`; `Ok(None)` when that strategy cannot fit the pair.
    fn build(
        &self,
        premise: &Segment,
        hypothesis: &Segment,
        max_length: usize,
        strategy: TruncationStrategy,
        side: TruncationSide,
    ) -> Result<Option<EncodedPair>> {
        let params = TruncationParams {
            max_length: max_length - self.n_added_pair,
            strategy: match strategy {
                TruncationStrategy::OnlyFirst => tokenizers::TruncationStrategy::OnlyFirst,
                TruncationStrategy::OnlySecond => tokenizers::TruncationStrategy::OnlySecond,
                TruncationStrategy::LongestFirst => tokenizers::TruncationStrategy::LongestFirst,
            },
            stride: 0,
            direction: match side {
                TruncationSide::Right => TruncationDirection::Right,
                TruncationSide::Left => TruncationDirection::Left,
            },
        };
        let (n1, n2) = (premise.len(), hypothesis.len());
        let (e1, e2) = match truncate_encodings(premise.enc.clone(), Some(hypothesis.enc.clone()), &params) {
            Ok((e1, Some(e2))) => (e1, e2),
            Ok((_, None)) => return Err(Error::tok("truncating a pair", "second sequence lost")),
            Err(e) => {
                if matches!(e.downcast_ref::<TruncationError>(), Some(TruncationError::SequenceTooShort)) {
                    return Ok(None);
                }
                return Err(Error::tok("truncating a pair", e));
            }
        };
        let (d1, d2) = (n1 - e1.get_ids().len(), n2 - e2.get_ids().len());
        let enc = self
            .tokenizer
            .post_process(e1, Some(e2), true)
            .map_err(|e| Error::tok("adding special tokens", e))?;
        Ok(Some(EncodedPair {
            input_ids: enc.get_ids().iter().map(|&i| i64::from(i)).collect(),
            token_type_ids: enc.get_type_ids().iter().map(|&i| i64::from(i)).collect(),
            truncation: TruncationReport {
                strategy: (d1 + d2 > 0).then_some(strategy),
                fell_back: false,
                dropped_premise: d1,
                dropped_hypothesis: d2,
            },
        }))
    }

    /// Encodes a group of pairs to at most `max_length` tokens each (special tokens included)
    /// with Hugging Face batch-call semantics: when `truncation.strategy` is impossible for
    /// any pair of the group (e.g. `only_first` with a hypothesis that alone exceeds the
    /// limit), the **whole group** is encoded with `truncation.fallback` — exactly what
    /// `tokenizer(batch, truncation='only_first')` inside `try/except` does in AlignScore
    /// (`inference.py:176-183`, one group = one mini-batch of the reference).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when `max_length` leaves no room for text, or the strategy
    /// is impossible and there is no fallback; [`Error::Tokenizer`].
    pub fn encode_group(
        &self,
        pairs: &[(&Segment, &Segment)],
        max_length: usize,
        truncation: &TruncationConfig,
    ) -> Result<Vec<EncodedPair>> {
        if max_length <= self.n_added_pair {
            return Err(Error::InvalidArgument(format!(
                "max_length {max_length} leaves no room for text ({} special tokens)",
                self.n_added_pair
            )));
        }
        let attempt = |strategy| -> Result<Option<Vec<EncodedPair>>> {
            let mut out = Vec::with_capacity(pairs.len());
            for (p, h) in pairs {
                match self.build(p, h, max_length, strategy, truncation.side)? {
                    Some(e) => out.push(e),
                    None => return Ok(None),
                }
            }
            Ok(Some(out))
        };
        if let Some(v) = attempt(truncation.strategy)? {
            return Ok(v);
        }
        let Some(fallback) = truncation.fallback else {
            return Err(Error::InvalidArgument(format!(
                "{:?} truncation cannot fit a pair into {max_length} tokens and the manifest has no fallback",
                truncation.strategy
            )));
        };
        let mut v = attempt(fallback)?.ok_or_else(|| {
            Error::InvalidArgument(format!("fallback truncation {fallback:?} cannot fit a pair into {max_length} tokens"))
        })?;
        for e in &mut v {
            e.truncation.fell_back = true;
        }
        Ok(v)
    }

    /// Encodes each (premise, hypothesis) pair on its own with the manifest's `max_length` and
    /// truncation (each pair is its own fallback group).
    ///
    /// # Errors
    /// As [`PairClassifier::encode_group`].
    pub fn encode_pairs(&self, pairs: &[(&str, &str)]) -> Result<Vec<EncodedPair>> {
        let m = self.manifest();
        let mut out = Vec::with_capacity(pairs.len());
        for (p, h) in pairs {
            let (p, h) = (self.segment(p)?, self.segment(h)?);
            out.extend(self.encode_group(&[(&p, &h)], m.max_length, &m.truncation)?);
        }
        Ok(out)
    }

    /// Runs encoded pairs through the model in batches of at most `batch_size` pairs, sorted
    /// by length (longest first) and padded to the longest pair of each batch; returns the
    /// outputs in input order.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for `batch_size == 0`; [`Error::Ort`] when the run fails.
    pub fn run(&self, pairs: &[EncodedPair], batch_size: usize) -> Result<Vec<PairOutput>> {
        if batch_size == 0 {
            return Err(Error::InvalidArgument("batch_size must be at least 1".into()));
        }
        let mut order: Vec<usize> = (0..pairs.len()).collect();
        order.sort_by_key(|&i| (std::cmp::Reverse(pairs[i].len()), i));
        let mut out: Vec<Option<PairOutput>> = vec![None; pairs.len()];
        for chunk in order.chunks(batch_size) {
            let batch: Vec<&EncodedPair> = chunk.iter().map(|&i| &pairs[i]).collect();
            let rows = self.forward(&batch)?;
            for (&i, row) in chunk.iter().zip(rows) {
                out[i] = Some(row);
            }
        }
        out.into_iter()
            .map(|o| o.ok_or_else(|| Error::ort("collecting outputs", "a pair produced no output")))
            .collect()
    }

    /// Encodes (per the manifest) and runs pairs of texts. Convenience over
    /// [`PairClassifier::encode_pairs`] + [`PairClassifier::run`]; the truncation reports are
    /// returned alongside the outputs.
    ///
    /// # Errors
    /// As those two.
    pub fn classify(&self, pairs: &[(&str, &str)], batch_size: usize) -> Result<Vec<(PairOutput, TruncationReport)>> {
        let enc = self.encode_pairs(pairs)?;
        let outs = self.run(&enc, batch_size)?;
        Ok(outs.into_iter().zip(enc.iter().map(|e| e.truncation)).collect())
    }

    /// Work counters since load (or the last [`PairClassifier::reset_stats`]).
    pub fn stats(&self) -> RunStats {
        *lock(&self.stats)
    }
    /// Zeroes the work counters.
    pub fn reset_stats(&self) {
        *lock(&self.stats) = RunStats::default();
    }


    /// One padded batch through one session.
    fn forward(&self, batch: &[&EncodedPair]) -> Result<Vec<PairOutput>> {
        let b = batch.len();
        let l = batch.iter().map(|p| p.len()).max().unwrap_or(0).max(1);
        let pad = self.manifest().pad_token_id;
        let mut ids = vec![pad; b * l];
        let mut mask = vec![0i64; b * l];
        let mut types = vec![0i64; b * l];
        let mut tokens = 0u64;
        for (r, p) in batch.iter().enumerate() {
            let n = p.len();
            tokens += n as u64;
            ids[r * l..r * l + n].copy_from_slice(&p.input_ids);
            mask[r * l..r * l + n].fill(1);
            types[r * l..r * l + n].copy_from_slice(&p.token_type_ids);
        }
        let mut inputs: Vec<(String, ort::value::DynValue)> = Vec::with_capacity(self.inputs.len());
        let (mut ids_v, mut mask_v, mut types_v) = (Some(ids), Some(mask), Some(types));
        for (name, role) in &self.inputs {
            let v = match role {
                InputRole::Ids => ids_v.take(),
                InputRole::Mask => mask_v.take(),
                InputRole::TypeIds => types_v.take(),
            }
            .ok_or_else(|| Error::InvalidModel {
                path: self.dir.model_path(),
                reason: format!("graph input {name:?} appears twice"),
            })?;
            let t = ort::value::Tensor::from_array(([b, l], v)).map_err(|e| Error::ort("creating an input tensor", e))?;
            inputs.push((name.clone(), t.into_dyn()));
        }
        let t0 = Instant::now();
        let rows = {
            let mut session = self.sessions.take();
            let outputs = session.run(inputs).map_err(|e| Error::ort("running the model", e))?;
            let mut per_output: Vec<Vec<Vec<f32>>> = Vec::with_capacity(self.outputs.len());
            for name in self.outputs.iter() {
                let value = outputs.get(name.as_str()).ok_or_else(|| {
                    Error::ort("reading outputs", format!("the graph produced no output {name:?}"))
                })?;
                let (shape, data) = value
                    .try_extract_tensor::<f32>()
                    .map_err(|e| Error::ort(format!("reading output {name:?} as f32"), e))?;
                if shape.first().copied() != Some(b as i64) || data.len() % b != 0 {
                    return Err(Error::ort(
                        format!("reading output {name:?}"),
                        format!("shape {:?} does not start with the batch size {b}", &shape[..]),
                    ));
                }
                let k = data.len() / b;
                per_output.push(data.chunks(k.max(1)).map(<[f32]>::to_vec).collect());
            }
            per_output
        };
        let elapsed = t0.elapsed().as_secs_f64();
        {
            let mut s = lock(&self.stats);
            s.forward_seconds += elapsed;
            s.batches += 1;
            s.pairs += b as u64;
            s.tokens += tokens;
            s.padded_tokens += (b * l) as u64;
        }
        let mut out = Vec::with_capacity(b);
        for r in 0..b {
            out.push(PairOutput {
                names: Arc::clone(&self.outputs),
                values: rows.iter().map(|o| o[r].clone()).collect(),
            });
        }
        Ok(out)
    }
}
