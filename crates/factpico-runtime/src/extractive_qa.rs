//! Extractive (span) question answering with SQuAD v2 feature building and post-processing,
//! as QAEval/QAFactEval run it (`qaeval/answering/model.py`, `qaeval/answering/utils.py`
//! `compute_predictions_logits_with_null`, over transformers'
//! `squad_convert_example_to_features`, `_get_best_indexes`, `get_final_text`,
//! `_compute_softmax`).
//!
//! * Context → whitespace `doc_tokens` (space, `\t`, `\r`, `\n`, U+202F); each doc token →
//!   WordPiece sub-tokens; question → WordPiece, cut to `max_query_length`.
//! * Windows `[CLS] question [SEP] doc_span [SEP]`, padded to `max_seq_length` (the padded
//!   positions' logits take part in the top-`n_best` index selection, as in the reference);
//!   window `k` starts at doc sub-token `k × doc_stride`, length
//!   `min(remaining, max_seq_length − |question| − 3)`; "max context" per sub-token.
//! * Candidates: top-`n_best` starts × top-`n_best` ends per window, inside the document,
//!   start has max context, `end ≥ start`, length ≤ `max_answer_length`; plus the null
//!   candidate from the window with the *minimum* `start[0] + end[0]`; sorted by
//!   `start + end` (stable); texts mapped back with `get_final_text`; duplicates skipped.
//! * `probability` / `null_probability` are a softmax over the n-best list (not over all
//!   spans); the prediction is the best non-null text even when the null wins.
//!
//! Deviation: the sub-token text of a span is joined like the slow `BertTokenizer`
//! (`" ".join(tokens).replace(" ##", "")`, the tokenizer QAEval loads with transformers
//! 3.0.2); character offsets are located by substring search instead of `edlib` (they do
//! not affect scores).
use std::collections::HashMap;
use std::path::Path;
use std::sync::Mutex;

use serde::{Deserialize, Serialize};
use tokenizers::Tokenizer;
use unicode_normalization::UnicodeNormalization;

use crate::error::{Error, Result};
use crate::manifest::{ModelManifest, ModelTask, MANIFEST_FILE};
use crate::model::ModelDir;
use crate::session::{build_session, lock, SessionOptions};

/// SQuAD feature and post-processing settings (the `qa` section of `factpico.json`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExtractiveQaConfig {
    /// Window length in sub-tokens, special tokens included (QAEval: 384).
    pub max_seq_length: usize,
    /// Stride between window starts in document sub-tokens (QAEval: 128).
    pub doc_stride: usize,
    /// Question sub-tokens kept (QAEval: 64).
    pub max_query_length: usize,
    /// Lower-case in `get_final_text`'s basic tokenisation (QAEval forces `True`).
    pub do_lower_case: bool,
    /// Candidates per side and n-best list size (QAEval: 20).
    #[serde(default = "default_n_best")]
    pub n_best_size: usize,
    /// Longest answer in sub-tokens (QAEval: 30).
    #[serde(default = "default_max_answer")]
    pub max_answer_length: usize,
}

fn default_n_best() -> usize {
    20
}
fn default_max_answer() -> usize {
    30
}

impl Default for ExtractiveQaConfig {
    /// QAEval's settings.
    fn default() -> Self {
        Self {
            max_seq_length: 384,
            doc_stride: 128,
            max_query_length: 64,
            do_lower_case: true,
            n_best_size: 20,
            max_answer_length: 30,
        }
    }
}

#[derive(Deserialize)]
struct ManifestWithQa {
    qa: Option<ExtractiveQaConfig>,
}

/// One n-best entry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NBestEntry {
    /// Answer text (`""` = the null answer, `"empty"` = the reference's filler).
    pub text: String,
    /// Softmax over the n-best list of `start_logit + end_logit`.
    pub probability: f64,
    /// Start logit.
    pub start_logit: f32,
    /// End logit.
    pub end_logit: f32,
}

/// The answer to one (question, context) pair.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct QaPrediction {
    /// Best non-null answer text (QAEval's `prediction`), possibly `"empty"` when the model
    /// produced no valid span.
    pub text: String,
    /// Its probability in the n-best softmax, `[0, 1]`.
    pub probability: f64,
    /// Probability of the null answer in the n-best softmax, `[0, 1]`.
    pub null_probability: f64,
    /// Byte span of `text` in the context, when it could be located.
    pub span: Option<(usize, usize)>,
    /// The n-best list in rank order.
    pub n_best: Vec<NBestEntry>,
}

impl QaPrediction {
    /// QAEval's `is_answered`: `probability > null_probability` (ties are unanswered).
    pub fn is_answered(&self) -> bool {
        self.probability > self.null_probability
    }
}

/// A context split into whitespace tokens and WordPiece sub-tokens (reused across questions).
#[derive(Debug, Clone)]
struct PreparedContext {
    /// Byte ranges of the whitespace-separated doc tokens.
    doc_tokens: Vec<(usize, usize)>,
    sub_ids: Vec<u32>,
    sub_tokens: Vec<String>,
    tok_to_orig: Vec<usize>,
}

/// A loaded extractive QA model (`model.onnx` with `start_logits`/`end_logits`).
pub struct ExtractiveQaModel {
    dir: ModelDir,
    tokenizer: Tokenizer,
    config: ExtractiveQaConfig,
    session: Mutex<ort::session::Session>,
    input_names: Vec<String>,
    cls: u32,
    sep: u32,
    pad: u32,
}

impl std::fmt::Debug for ExtractiveQaModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ExtractiveQaModel").field("dir", &self.dir.path()).field("config", &self.config).finish_non_exhaustive()
    }
}


/// QAEval `_is_whitespace`.
fn is_squad_ws(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\r' | '\n' | '\u{202F}')
}

impl ExtractiveQaModel {
    /// Loads a model directory written by `onnx/export_qa.py` (task `extractive-qa`).
    ///
    /// # Errors
    /// [`Error::MissingFile`], [`Error::InvalidModel`] (wrong task, no `[CLS]`/`[SEP]`,
    /// missing outputs), ONNX Runtime errors.
    pub fn load(dir: impl AsRef<Path>, options: &SessionOptions) -> Result<Self> {
        let dir = ModelDir::open(dir)?;
        let mpath = dir.path().join(MANIFEST_FILE);
        let manifest: &ModelManifest = dir.manifest();
        if manifest.task != ModelTask::ExtractiveQa {
            return Err(Error::InvalidModel {
                path: mpath,
                reason: format!("task is {}, not extractive-qa (onnx/export_qa.py)", manifest.task),
            });
        }
        let config = if mpath.is_file() {
            let text = std::fs::read_to_string(&mpath).map_err(|e| Error::io(&mpath, e))?;
            serde_json::from_str::<ManifestWithQa>(&text)
                .map_err(|e| Error::InvalidModel { path: mpath.clone(), reason: format!("bad qa section ({e})") })?
                .qa
                .unwrap_or_default()
        } else {
            ExtractiveQaConfig::default()
        };
        if config.max_seq_length < config.max_query_length + 4 || config.doc_stride == 0 || config.n_best_size == 0 {
            return Err(Error::InvalidModel {
                path: mpath,
                reason: format!("inconsistent qa settings {config:?}"),
            });
        }
        let tok_path = dir.tokenizer_path();
        let tokenizer = crate::model::load_tokenizer(&tok_path)?;
        let id = |t: &str| {
            tokenizer.token_to_id(t).ok_or_else(|| Error::InvalidModel {
                path: tok_path.clone(),
                reason: format!("the vocabulary has no {t} token (only BERT-style [CLS] q [SEP] c [SEP] models are supported)"),
            })
        };
        let (cls, sep, pad) = (id("[CLS]")?, id("[SEP]")?, id("[PAD]")?);
        let session = build_session(&dir.model_path(), options)?;
        let input_names: Vec<String> = session.inputs().iter().map(|i| i.name().to_owned()).collect();
        let outs: Vec<&str> = session.outputs().iter().map(|o| o.name()).collect();
        if !outs.contains(&"start_logits") || !outs.contains(&"end_logits") {
            return Err(Error::InvalidModel {
                path: dir.model_path(),
                reason: format!("outputs {outs:?} lack start_logits/end_logits; export with onnx/export_qa.py"),
            });
        }
        let vocab = tokenizer.get_vocab_size(false);
        let model = Self { dir, tokenizer, config, session: Mutex::new(session), input_names, cls, sep, pad };
        // A tokenizer with ids the graph cannot embed (another model's tokenizer) is one
        // clear error here, not a raw ONNX Runtime message on every row.
        if let Some(last) = vocab.checked_sub(1).and_then(|v| u32::try_from(v).ok()) {
            model
                .logits(&[(&[cls, last, sep], &[0, 0, 0])])
                .map_err(|e| crate::sequence::vocabulary_error(&model.dir.model_path(), &tok_path, vocab, &e))?;
        }
        Ok(model)
    }

    /// Start and end logits of one batch of windows (`(ids, token type ids)`, each at most
    /// `max_seq_length` long), padded to `max_seq_length` like the reference: one
    /// `(start, end)` pair of `max_seq_length` logits per window.
    fn logits(&self, windows: &[(&[u32], &[u32])]) -> Result<Vec<(Vec<f32>, Vec<f32>)>> {
        let l = self.config.max_seq_length;
        let b = windows.len();
        let mut ids = vec![i64::from(self.pad); b * l];
        let mut mask = vec![0i64; b * l];
        let mut types = vec![0i64; b * l];
        for (r, (w_ids, w_types)) in windows.iter().enumerate() {
            for (j, (&t, &ty)) in w_ids.iter().zip(w_types.iter()).take(l).enumerate() {
                ids[r * l + j] = i64::from(t);
                mask[r * l + j] = 1;
                types[r * l + j] = i64::from(ty);
            }
        }
        let mut inputs: Vec<(String, ort::value::DynValue)> = Vec::new();
        for name in &self.input_names {
            let data = match name.as_str() {
                "input_ids" => ids.clone(),
                "attention_mask" => mask.clone(),
                "token_type_ids" => types.clone(),
                other => {
                    return Err(Error::InvalidModel {
                        path: self.dir.model_path(),
                        reason: format!("unsupported graph input {other:?}"),
                    })
                }
            };
            let t = ort::value::Tensor::from_array((vec![b, l], data)).map_err(|e| Error::ort("creating a tensor", e))?;
            inputs.push((name.clone(), t.into_dyn()));
        }
        let mut sess = lock(&self.session);
        let out = sess.run(inputs).map_err(|e| Error::ort("running the QA model", e))?;
        let get = |name: &str| -> Result<Vec<f32>> {
            let v = out.get(name).ok_or_else(|| Error::ort("QA outputs", format!("no {name}")))?;
            let (_, d) = v.try_extract_tensor::<f32>().map_err(|e| Error::ort("reading QA logits", e))?;
            if d.len() != b * l {
                return Err(Error::ort("reading QA logits", "unexpected shape"));
            }
            Ok(d.to_vec())
        };
        let (s, e) = (get("start_logits")?, get("end_logits")?);
        Ok((0..b).map(|r| (s[r * l..(r + 1) * l].to_vec(), e[r * l..(r + 1) * l].to_vec())).collect())
    }

    /// The SQuAD settings in use.
    pub fn config(&self) -> &ExtractiveQaConfig {
        &self.config
    }

    /// The model directory.
    pub fn model_dir(&self) -> &ModelDir {
        &self.dir
    }

    fn wordpieces(&self, text: &str) -> Result<(Vec<u32>, Vec<String>)> {
        let enc = self.tokenizer.encode(text, false).map_err(|e| Error::tok("encoding for QA", e))?;
        Ok((enc.get_ids().to_vec(), enc.get_tokens().to_vec()))
    }

    fn prepare(&self, context: &str) -> Result<PreparedContext> {
        let mut doc_tokens: Vec<(usize, usize)> = Vec::new();
        let mut prev_ws = true;
        for (i, c) in context.char_indices() {
            if is_squad_ws(c) {
                prev_ws = true;
            } else {
                if prev_ws {
                    doc_tokens.push((i, i + c.len_utf8()));
                } else if let Some(last) = doc_tokens.last_mut() {
                    last.1 = i + c.len_utf8();
                }
                prev_ws = false;
            }
        }
        let mut sub_ids = Vec::new();
        let mut sub_tokens = Vec::new();
        let mut tok_to_orig = Vec::new();
        for (i, &(s, e)) in doc_tokens.iter().enumerate() {
            let (ids, toks) = self.wordpieces(&context[s..e])?;
            for (id, t) in ids.into_iter().zip(toks) {
                sub_ids.push(id);
                sub_tokens.push(t);
                tok_to_orig.push(i);
            }
        }
        Ok(PreparedContext { doc_tokens, sub_ids, sub_tokens, tok_to_orig })
    }

    /// Answers each `(question, context)` pair. Windows are run `batch_size` at a time;
    /// contexts shared by several questions are tokenised once.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for `batch_size == 0`; tokenizer and ONNX Runtime errors.
    pub fn answer(&self, pairs: &[(&str, &str)], batch_size: usize) -> Result<Vec<QaPrediction>> {
        if batch_size == 0 {
            return Err(Error::InvalidArgument("batch_size must be at least 1".into()));
        }
        let cfg = &self.config;
        let mut contexts: HashMap<&str, PreparedContext> = HashMap::new();
        for (_, c) in pairs {
            if !contexts.contains_key(c) {
                contexts.insert(c, self.prepare(c)?);
            }
        }
        // Build every window of every pair.
        struct Window {
            pair: usize,
            ids: Vec<u32>,
            type_ids: Vec<u32>,
            /// token index -> doc sub-token index (document part only)
            doc_offset: usize,
            start: usize,
            len: usize,
        }
        let mut windows: Vec<Window> = Vec::new();
        let mut windows_of: Vec<Vec<usize>> = vec![Vec::new(); pairs.len()];
        for (p, (q, c)) in pairs.iter().enumerate() {
            let ctx = &contexts[c];
            let (mut qids, _) = self.wordpieces(q)?;
            qids.truncate(cfg.max_query_length);
            let n = ctx.sub_ids.len();
            let max_doc = cfg.max_seq_length - qids.len() - 3;
            let mut k = 0usize;
            while k * cfg.doc_stride < n {
                let start = k * cfg.doc_stride;
                let len = (n - start).min(max_doc);
                let mut ids = Vec::with_capacity(cfg.max_seq_length);
                ids.push(self.cls);
                ids.extend_from_slice(&qids);
                ids.push(self.sep);
                let doc_offset = ids.len();
                ids.extend_from_slice(&ctx.sub_ids[start..start + len]);
                ids.push(self.sep);
                let mut type_ids = vec![0u32; doc_offset];
                type_ids.resize(ids.len(), 1);
                windows_of[p].push(windows.len());
                windows.push(Window { pair: p, ids, type_ids, doc_offset, start, len });
                if start + max_doc >= n {
                    break;
                }
                k += 1;
            }
        }
        // Run the model, padded to max_seq_length like the reference.
        let mut logits: Vec<(Vec<f32>, Vec<f32>)> = Vec::with_capacity(windows.len());
        for chunk in windows.chunks(batch_size) {
            let seqs: Vec<(&[u32], &[u32])> = chunk.iter().map(|w| (w.ids.as_slice(), w.type_ids.as_slice())).collect();
            logits.extend(self.logits(&seqs)?);
        }
        // Post-process each pair.
        let mut out = Vec::with_capacity(pairs.len());
        for (p, (_, c)) in pairs.iter().enumerate() {
            let ctx = &contexts[c];
            let feats: Vec<Feature<'_>> = windows_of[p]
                .iter()
                .map(|&w| {
                    let win = &windows[w];
                    debug_assert_eq!(win.pair, p);
                    Feature {
                        n_tokens: win.ids.len(),
                        doc_offset: win.doc_offset,
                        start: win.start,
                        len: win.len,
                        start_logits: &logits[w].0,
                        end_logits: &logits[w].1,
                    }
                })
                .collect();
            out.push(postprocess(c, ctx, &feats, cfg));
        }
        Ok(out)
    }
}

struct Feature<'a> {
    n_tokens: usize,
    doc_offset: usize,
    start: usize,
    len: usize,
    start_logits: &'a [f32],
    end_logits: &'a [f32],
}

/// transformers `_get_best_indexes`: indices of the `n` largest values (stable on ties).
fn best_indexes(logits: &[f32], n: usize) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..logits.len()).collect();
    idx.sort_by(|&a, &b| logits[b].total_cmp(&logits[a]));
    idx.truncate(n);
    idx
}

/// transformers `_new_check_is_max_context`.
fn is_max_context(feats: &[Feature<'_>], cur: usize, position: usize) -> bool {
    let mut best: Option<(f64, usize)> = None;
    for (i, f) in feats.iter().enumerate() {
        let end = f.start + f.len - 1;
        if position < f.start || position > end {
            continue;
        }
        let left = position - f.start;
        let right = end - position;
        let score = left.min(right) as f64 + 0.01 * f.len as f64;
        if best.is_none_or(|(b, _)| score > b) {
            best = Some((score, i));
        }
    }
    best.map(|(_, i)| i) == Some(cur)
}

/// transformers `_compute_softmax` (f64).
fn softmax64(scores: &[f64]) -> Vec<f64> {
    let max = scores.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let exps: Vec<f64> = scores.iter().map(|s| (s - max).exp()).collect();
    let total: f64 = exps.iter().sum();
    exps.into_iter().map(|e| e / total).collect()
}

fn postprocess(context: &str, ctx: &PreparedContext, feats: &[Feature<'_>], cfg: &ExtractiveQaConfig) -> QaPrediction {
    struct Prelim {
        feat: usize,
        start: usize,
        end: usize,
        s: f32,
        e: f32,
    }
    let mut prelim: Vec<Prelim> = Vec::new();
    let mut score_null = 1_000_000f64;
    let (mut null_feat, mut null_s, mut null_e) = (0usize, 0f32, 0f32);
    for (fi, f) in feats.iter().enumerate() {
        let starts = best_indexes(f.start_logits, cfg.n_best_size);
        let ends = best_indexes(f.end_logits, cfg.n_best_size);
        let null = f64::from(f.start_logits[0]) + f64::from(f.end_logits[0]);
        if null < score_null {
            score_null = null;
            null_feat = fi;
            null_s = f.start_logits[0];
            null_e = f.end_logits[0];
        }
        let in_doc = |i: usize| i >= f.doc_offset && i < f.doc_offset + f.len;
        for &si in &starts {
            for &ei in &ends {
                if si >= f.n_tokens || ei >= f.n_tokens || !in_doc(si) || !in_doc(ei) {
                    continue;
                }
                if !is_max_context(feats, fi, f.start + si - f.doc_offset) {
                    continue;
                }
                if ei < si || ei - si + 1 > cfg.max_answer_length {
                    continue;
                }
                prelim.push(Prelim { feat: fi, start: si, end: ei, s: f.start_logits[si], e: f.end_logits[ei] });
            }
        }
    }
    prelim.push(Prelim { feat: null_feat, start: 0, end: 0, s: null_s, e: null_e });
    // Python sorted(reverse=True) is stable.
    prelim.sort_by(|a, b| (f64::from(b.s) + f64::from(b.e)).total_cmp(&(f64::from(a.s) + f64::from(a.e))));

    struct NB {
        text: String,
        s: f32,
        e: f32,
        doc: Option<(usize, usize)>,
    }
    let mut seen: Vec<String> = Vec::new();
    let mut nbest: Vec<NB> = Vec::new();
    for p in &prelim {
        if nbest.len() >= cfg.n_best_size {
            break;
        }
        if p.start > 0 {
            let f = &feats[p.feat];
            let sub_start = f.start + p.start - f.doc_offset;
            let sub_end = f.start + p.end - f.doc_offset;
            let tok_text = ctx.sub_tokens[sub_start..=sub_end].join(" ").replace(" ##", "");
            let tok_text = tok_text.split_whitespace().collect::<Vec<_>>().join(" ");
            let (od_s, od_e) = (ctx.tok_to_orig[sub_start], ctx.tok_to_orig[sub_end]);
            let orig_text =
                ctx.doc_tokens[od_s..=od_e].iter().map(|&(s, e)| &context[s..e]).collect::<Vec<_>>().join(" ");
            let final_text = get_final_text(&tok_text, &orig_text, cfg.do_lower_case);
            if seen.contains(&final_text) {
                continue;
            }
            seen.push(final_text.clone());
            nbest.push(NB { text: final_text, s: p.s, e: p.e, doc: Some((od_s, od_e)) });
        } else {
            seen.push(String::new());
            nbest.push(NB { text: String::new(), s: p.s, e: p.e, doc: None });
        }
    }
    if !seen.iter().any(String::is_empty) {
        nbest.push(NB { text: String::new(), s: null_s, e: null_e, doc: None });
    }
    if nbest.len() == 1 {
        nbest.insert(0, NB { text: "empty".into(), s: 0.0, e: 0.0, doc: None });
    }
    let scores: Vec<f64> = nbest.iter().map(|n| f64::from(n.s) + f64::from(n.e)).collect();
    let probs = softmax64(&scores);
    let best = nbest.iter().position(|n| !n.text.is_empty()).unwrap_or(0);
    let null_probability = nbest.iter().zip(&probs).filter(|(n, _)| n.text.is_empty()).map(|(_, p)| *p).next_back().unwrap_or(0.0);
    let span = nbest[best].doc.and_then(|(a, b)| {
        let (s, e) = (ctx.doc_tokens[a].0, ctx.doc_tokens[b].1);
        let text = &nbest[best].text;
        context[s..e].find(text.as_str()).map(|off| (s + off, s + off + text.len()))
    });
    QaPrediction {
        text: nbest[best].text.clone(),
        probability: probs[best],
        null_probability,
        span,
        n_best: nbest
            .iter()
            .zip(&probs)
            .map(|(n, p)| NBestEntry { text: n.text.clone(), probability: *p, start_logit: n.s, end_logit: n.e })
            .collect(),
    }
}

/// transformers `BasicTokenizer(do_lower_case).tokenize` joined by spaces (4.46.3: clean
/// text, CJK spacing, NFC, whitespace split, lower-case + accent stripping, punctuation split).
fn basic_tokenize(text: &str, lower: bool) -> String {
    use unicode_categories::UnicodeCategories;
    let mut cleaned = String::with_capacity(text.len());
    for c in text.chars() {
        if c == '\0' || c == '\u{FFFD}' || (c.is_other_control() || c.is_other_format()) && !matches!(c, '\t' | '\n' | '\r') {
            continue;
        }
        if matches!(c, ' ' | '\t' | '\n' | '\r') || c.is_separator_space() {
            cleaned.push(' ');
        } else if is_cjk(c) {
            cleaned.push(' ');
            cleaned.push(c);
            cleaned.push(' ');
        } else {
            cleaned.push(c);
        }
    }
    let nfc: String = cleaned.nfc().collect();
    let mut out: Vec<String> = Vec::new();
    for tok in nfc.split_whitespace() {
        let tok: String = if lower {
            tok.to_lowercase().nfd().filter(|c| !c.is_mark_nonspacing()).collect()
        } else {
            tok.to_owned()
        };
        let mut cur = String::new();
        for c in tok.chars() {
            if is_bert_punct(c) {
                if !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
                out.push(c.to_string());
            } else {
                cur.push(c);
            }
        }
        if !cur.is_empty() {
            out.push(cur);
        }
    }
    out.join(" ").split_whitespace().collect::<Vec<_>>().join(" ")
}

fn is_bert_punct(c: char) -> bool {
    use unicode_categories::UnicodeCategories;
    let cp = c as u32;
    (33..=47).contains(&cp) || (58..=64).contains(&cp) || (91..=96).contains(&cp) || (123..=126).contains(&cp) || c.is_punctuation()
}

fn is_cjk(c: char) -> bool {
    let cp = c as u32;
    (0x4E00..=0x9FFF).contains(&cp)
        || (0x3400..=0x4DBF).contains(&cp)
        || (0x20000..=0x2A6DF).contains(&cp)
        || (0x2A700..=0x2B73F).contains(&cp)
        || (0x2B740..=0x2B81F).contains(&cp)
        || (0x2B820..=0x2CEAF).contains(&cp)
        || (0xF900..=0xFAFF).contains(&cp)
        || (0x2F800..=0x2FA1F).contains(&cp)
}

/// transformers `squad_metrics.get_final_text`: projects the normalised sub-token text back
/// onto the original whitespace-token text (character positions, like Python strings).
pub fn get_final_text(pred_text: &str, orig_text: &str, do_lower_case: bool) -> String {
    fn strip_spaces(chars: &[char]) -> (Vec<char>, Vec<usize>) {
        let mut ns = Vec::new();
        let mut map = Vec::new();
        for (i, &c) in chars.iter().enumerate() {
            if c == ' ' {
                continue;
            }
            map.push(i);
            ns.push(c);
        }
        (ns, map)
    }
    let tok_text: Vec<char> = basic_tokenize(orig_text, do_lower_case).chars().collect();
    let pred: Vec<char> = pred_text.chars().collect();
    let orig: Vec<char> = orig_text.chars().collect();
    let Some(start) = find_chars(&tok_text, &pred) else {
        return orig_text.to_owned();
    };
    if pred.is_empty() {
        return orig_text.to_owned();
    }
    let end = start + pred.len() - 1;
    let (orig_ns, orig_map) = strip_spaces(&orig);
    let (tok_ns, tok_map) = strip_spaces(&tok_text);
    if orig_ns.len() != tok_ns.len() {
        return orig_text.to_owned();
    }
    let tok_s_to_ns: HashMap<usize, usize> = tok_map.iter().enumerate().map(|(i, &t)| (t, i)).collect();
    let Some(os) = tok_s_to_ns.get(&start).and_then(|&ns| orig_map.get(ns)) else {
        return orig_text.to_owned();
    };
    let Some(oe) = tok_s_to_ns.get(&end).and_then(|&ns| orig_map.get(ns)) else {
        return orig_text.to_owned();
    };
    orig[*os..=*oe].iter().collect()
}

fn find_chars(hay: &[char], needle: &[char]) -> Option<usize> {
    if needle.is_empty() {
        return Some(0);
    }
    if needle.len() > hay.len() {
        return None;
    }
    (0..=hay.len() - needle.len()).find(|&i| hay[i..i + needle.len()] == *needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn final_text_restores_case_and_punctuation() {
        assert_eq!(get_final_text("steve smith", "Steve Smith's", true), "Steve Smith");
        assert_eq!(get_final_text("240", "(n=240)", true), "240");
        assert_eq!(get_final_text("zzz", "Abc", true), "Abc");
        assert_eq!(basic_tokenize("Café, (n=240)!", true), "cafe , ( n = 240 ) !");
    }

    #[test]
    fn softmax_and_best_indexes() {
        let p = softmax64(&[0.0, 0.0]);
        assert_eq!(p, vec![0.5, 0.5]);
        assert_eq!(best_indexes(&[1.0, 3.0, 3.0, 0.0], 2), vec![1, 2]);
    }
}
