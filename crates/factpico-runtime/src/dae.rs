//! The DAE-2021 arc model (Goyal & Durrett 2021, `ElectraDependencyModel`,
//! `tagoyal/factuality-datasets` `train_utils.py:152-196`) as exported by
//! `onnx/export_dae.py`: word-level WordPiece access and per-arc logits.
//!
//! Graph contract (checked on load): inputs `input_ids`, `attention_mask` (int64
//! `[batch, sequence]`), `child_pos`, `head_pos` (int64 `[batch, arcs]`, sequence positions);
//! output `arc_logits` (float32 `[batch, arcs, 2]`, class 1 = entailed). The input encoding
//! itself (article/summary layout, truncation, last-wordpiece positions) lives in the
//! `factpico-dae` crate; this module only tokenizes words and runs padded batches.
use std::path::Path;
use std::sync::Mutex;
use std::time::Instant;

use tokenizers::Tokenizer;

use crate::error::{Error, Result};
use crate::manifest::{ModelManifest, ModelTask};
use crate::model::ModelDir;
use crate::session::{lock, SessionOptions, SessionPool};

/// Graph inputs of a DAE arc model, in export order.
pub const DAE_INPUTS: [&str; 4] = ["input_ids", "attention_mask", "child_pos", "head_pos"];
/// Graph output of a DAE arc model.
pub const DAE_OUTPUT: &str = "arc_logits";

/// One example of a batch: unpadded piece ids and the arc positions to read.
#[derive(Debug, Clone, Copy)]
pub struct ArcBatchItem<'a> {
    /// `[CLS] article [SEP] summary [SEP]` ids (length ≤ the manifest's `max_length`).
    pub input_ids: &'a [u32],
    /// Child positions (each < `input_ids.len()`).
    pub child_pos: &'a [usize],
    /// Head positions, same length as `child_pos`.
    pub head_pos: &'a [usize],
}

/// Work counters of a [`DaeArcModel`].
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct DaeRunStats {
    /// Seconds inside `Session::run` (tensor creation and output copy included).
    pub forward_seconds: f64,
    /// Batches run.
    pub batches: u64,
    /// Examples run.
    pub examples: u64,
    /// Arcs scored.
    pub arcs: u64,
    /// Real (non-padding) tokens.
    pub tokens: u64,
}

/// Word-level access to an ELECTRA/BERT WordPiece `tokenizer.json` (padding/truncation
/// disabled), as DAE's input encoding needs it.
#[derive(Debug, Clone)]
pub struct DaeTokenizer {
    tokenizer: Tokenizer,
    cls: u32,
    sep: u32,
}

impl DaeTokenizer {
    /// Loads a `tokenizer.json` with `[CLS]` and `[SEP]` tokens.
    ///
    /// # Errors
    /// [`Error::InvalidModel`] for an unreadable file or missing special tokens.
    pub fn from_file(path: impl AsRef<Path>) -> Result<Self> {
        let tok_path = path.as_ref().to_path_buf();
        let tokenizer = crate::model::load_tokenizer(&tok_path)?;
        let special = |t: &str| {
            tokenizer.token_to_id(t).ok_or_else(|| Error::InvalidModel {
                path: tok_path.clone(),
                reason: format!("the vocabulary has no {t} token (a DAE model needs an ELECTRA/BERT WordPiece vocabulary)"),
            })
        };
        let (cls, sep) = (special("[CLS]")?, special("[SEP]")?);
        Ok(Self { tokenizer, cls, sep })
    }

    /// WordPiece ids of one word, no special tokens: `ElectraTokenizer.tokenize(word)` then
    /// ids (uncased: lower-case, strip accents, split punctuation). Possibly empty.
    ///
    /// # Errors
    /// [`Error::Tokenizer`].
    pub fn word_pieces(&self, word: &str) -> Result<Vec<u32>> {
        let enc = self.tokenizer.encode(word, false).map_err(|e| Error::tok("encoding a word", e))?;
        Ok(enc.get_ids().to_vec())
    }

    /// Id of `[CLS]`.
    pub fn cls_id(&self) -> u32 {
        self.cls
    }

    /// Id of `[SEP]`.
    pub fn sep_id(&self) -> u32 {
        self.sep
    }

    /// The underlying tokenizer.
    pub fn tokenizer(&self) -> &Tokenizer {
        &self.tokenizer
    }
}

/// A loaded DAE arc model: its WordPiece tokenizer and a pool of ONNX Runtime sessions.
/// `Send + Sync`.
#[derive(Debug)]
pub struct DaeArcModel {
    dir: ModelDir,
    tokenizer: DaeTokenizer,
    sessions: SessionPool,
    stats: Mutex<DaeRunStats>,
}

impl DaeArcModel {
    /// Opens and loads a DAE model directory (`model.onnx`, `tokenizer.json`,
    /// `factpico.json` with task `dae`).
    ///
    /// # Errors
    /// [`Error::MissingFile`], [`Error::InvalidModel`] (wrong task, graph inputs/outputs not the
    /// DAE contract, tokenizer without `[CLS]`/`[SEP]`), ONNX Runtime library errors.
    pub fn load(dir: impl AsRef<Path>, options: &SessionOptions) -> Result<Self> {
        let dir = ModelDir::open(dir)?;
        if dir.manifest().task != ModelTask::Dae {
            return Err(Error::InvalidModel {
                path: dir.path().to_path_buf(),
                reason: format!(
                    "this is a {:?} model, not a DAE arc model; export a DAE checkpoint with onnx/export_dae.py",
                    dir.manifest().task
                ),
            });
        }
        let tokenizer = DaeTokenizer::from_file(dir.tokenizer_path())?;
        let model_path = dir.model_path();
        let sessions = SessionPool::load(&model_path, options)?;
        let first = sessions.first();
        let mut have: Vec<String> = first.inputs().iter().map(|o| o.name().to_owned()).collect();
        have.sort();
        let mut want: Vec<String> = DAE_INPUTS.iter().map(|s| (*s).to_owned()).collect();
        want.sort();
        if have != want {
            return Err(Error::InvalidModel {
                path: model_path,
                reason: format!("graph inputs {have:?}, expected {want:?}; export with onnx/export_dae.py"),
            });
        }
        if !first.outputs().iter().any(|o| o.name() == DAE_OUTPUT) {
            return Err(Error::InvalidModel {
                path: model_path,
                reason: format!("the graph has no {DAE_OUTPUT:?} output; export with onnx/export_dae.py"),
            });
        }
        drop(first);
        let model = Self {
            dir,
            tokenizer,
            sessions,
            stats: Mutex::new(DaeRunStats::default()),
        };
        // A tokenizer with ids the graph cannot embed (another model's tokenizer) is one clear
        // error here, not a raw ONNX Runtime message on every row: one arc over the
        // tokenizer's highest base-vocabulary id.
        let vocab = model.tokenizer.tokenizer().get_vocab_size(false);
        if let Some(last) = vocab.checked_sub(1).and_then(|v| u32::try_from(v).ok()) {
            let probe = ArcBatchItem { input_ids: &[last], child_pos: &[0], head_pos: &[0] };
            model
                .run(&[probe])
                .map_err(|e| crate::sequence::vocabulary_error(&model.dir.model_path(), &model.dir.tokenizer_path(), vocab, &e))?;
            *lock(&model.stats) = DaeRunStats::default();
        }
        Ok(model)
    }

    /// The manifest.
    pub fn manifest(&self) -> &ModelManifest {
        self.dir.manifest()
    }

    /// The model directory.
    pub fn model_dir(&self) -> &ModelDir {
        &self.dir
    }

    /// The word-level tokenizer.
    pub fn tokenizer(&self) -> &DaeTokenizer {
        &self.tokenizer
    }

    /// Work counters since load.
    pub fn stats(&self) -> DaeRunStats {
        *lock(&self.stats)
    }

    /// Runs one batch, padding ids to the longest example and arcs to the most arcs (padding
    /// arcs read position 0 and are discarded). Returns, per example, `[logit_0, logit_1]` per
    /// arc (raw logits; class 1 = entailed).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for inconsistent items (position out of range, length over
    /// `max_length`); ONNX Runtime errors.
    pub fn run(&self, items: &[ArcBatchItem<'_>]) -> Result<Vec<Vec<[f32; 2]>>> {
        let b = items.len();
        if b == 0 {
            return Ok(Vec::new());
        }
        let max_len = self.manifest().max_length;
        let l = items.iter().map(|i| i.input_ids.len()).max().unwrap_or(1).max(1);
        let a = items.iter().map(|i| i.child_pos.len()).max().unwrap_or(0);
        for (k, it) in items.iter().enumerate() {
            if it.input_ids.len() > max_len || it.child_pos.len() != it.head_pos.len() {
                return Err(Error::InvalidArgument(format!(
                    "DAE item {k}: {} ids (max {max_len}), {} child / {} head positions",
                    it.input_ids.len(),
                    it.child_pos.len(),
                    it.head_pos.len()
                )));
            }
            if let Some(p) = it.child_pos.iter().chain(it.head_pos).find(|p| **p >= it.input_ids.len()) {
                return Err(Error::InvalidArgument(format!(
                    "DAE item {k}: arc position {p} outside its {} ids",
                    it.input_ids.len()
                )));
            }
        }
        if a == 0 {
            return Ok(vec![Vec::new(); b]);
        }
        let pad = self.manifest().pad_token_id;
        let mut ids = vec![pad; b * l];
        let mut mask = vec![0i64; b * l];
        let mut child = vec![0i64; b * a];
        let mut head = vec![0i64; b * a];
        let mut tokens = 0u64;
        let mut arcs = 0u64;
        for (r, it) in items.iter().enumerate() {
            let n = it.input_ids.len();
            tokens += n as u64;
            arcs += it.child_pos.len() as u64;
            for (d, s) in ids[r * l..r * l + n].iter_mut().zip(it.input_ids) {
                *d = i64::from(*s);
            }
            mask[r * l..r * l + n].fill(1);
            for (j, (c, h)) in it.child_pos.iter().zip(it.head_pos).enumerate() {
                child[r * a + j] = *c as i64;
                head[r * a + j] = *h as i64;
            }
        }
        let t = |shape: [usize; 2], v: Vec<i64>| -> Result<ort::value::DynValue> {
            Ok(ort::value::Tensor::from_array((shape, v))
                .map_err(|e| Error::ort("creating an input tensor", e))?
                .into_dyn())
        };
        let inputs: Vec<(String, ort::value::DynValue)> = vec![
            ("input_ids".into(), t([b, l], ids)?),
            ("attention_mask".into(), t([b, l], mask)?),
            ("child_pos".into(), t([b, a], child)?),
            ("head_pos".into(), t([b, a], head)?),
        ];
        let t0 = Instant::now();
        let data: Vec<f32> = {
            let mut session = self.sessions.take();
            let outputs = session.run(inputs).map_err(|e| Error::ort("running the DAE model", e))?;
            let value = outputs
                .get(DAE_OUTPUT)
                .ok_or_else(|| Error::ort("reading outputs", format!("no output {DAE_OUTPUT:?}")))?;
            let (shape, data) =
                value.try_extract_tensor::<f32>().map_err(|e| Error::ort("reading arc_logits as f32", e))?;
            if shape.len() != 3 || shape[0] != b as i64 || shape[1] != a as i64 || shape[2] != 2 {
                return Err(Error::ort("reading arc_logits", format!("shape {:?}, expected [{b}, {a}, 2]", &shape[..])));
            }
            data.to_vec()
        };
        {
            let mut s = lock(&self.stats);
            s.forward_seconds += t0.elapsed().as_secs_f64();
            s.batches += 1;
            s.examples += b as u64;
            s.arcs += arcs;
            s.tokens += tokens;
        }
        Ok(items
            .iter()
            .enumerate()
            .map(|(r, it)| (0..it.child_pos.len()).map(|j| [data[(r * a + j) * 2], data[(r * a + j) * 2 + 1]]).collect())
            .collect())
    }
}
