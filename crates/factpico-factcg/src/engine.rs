//! The FactCG engine (feature `engine`): [`FactCg`] over ONNX Runtime (see the crate docs).
use std::collections::HashMap;
use std::path::{Path, PathBuf};

use factpico_runtime::sequence::{special_tokens, SequenceClassifier};
use factpico_runtime::{max_first, softmax, ModelManifest, SessionOptions, MANIFEST_FILE};
use factpico_text::{FactcgChunking, Punkt, SentenceSplitter, Span, WordTokenizeCounter};
use serde::{Deserialize, Serialize};
use tokenizers::utils::truncation::TruncationDirection;

use crate::{Aggregation, ClaimMode};

/// Errors of the FactCG metric.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Model loading or inference failed.
    #[error("FactCG: {context}")]
    Runtime {
        /// What was being done.
        context: &'static str,
        /// The runtime's error (names the file at fault and what to do).
        #[source]
        source: factpico_runtime::Error,
    },
    /// Tokenisation with the model's `tokenizer.json` failed.
    #[error("FactCG: {context}")]
    Tokenizer {
        /// What was being done.
        context: &'static str,
        /// The tokenizer's error.
        #[source]
        source: tokenizers::Error,
    },
    /// The model directory is not a FactCG export.
    #[error("FactCG: {path} is not a FactCG model directory: {reason}")]
    InvalidModel {
        /// The directory or manifest at fault.
        path: PathBuf,
        /// What is wrong and how to fix it.
        reason: String,
    },
    /// The options are invalid or do not fit the model.
    #[error("invalid FactCG option: {0}")]
    InvalidOption(String),
}

/// `Result` with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

fn rt(context: &'static str) -> impl FnOnce(factpico_runtime::Error) -> Error {
    move |source| Error::Runtime { context, source }
}

fn tok(context: &'static str) -> impl FnOnce(tokenizers::Error) -> Error {
    move |source| Error::Tokenizer { context, source }
}

/// The released checkpoint the reference loads (`inference.py`, `use_hf_ckpt=True`).
pub const CHECKPOINT: &str = "yaxili96/FactCG-DeBERTa-v3-Large";

/// The reference's `max_length` of the tokenizer call (`inference.py`, `tokenize`).
pub const MAX_LENGTH: usize = 2048;

/// Text of the instruction template before the claim (after the chunk).
/// Source: `derenlei/FactCG` `factcg/utils.py` @ 4eb1537 (MIT), `INSTRUCTION_TEMPLATE`.
const TEMPLATE_MIDDLE: &str = "\n\nChoose your answer: based on the paragraph above can we conclude that \"";
/// Text of the instruction template after the claim.
const TEMPLATE_END: &str = "\"?\n\nOPTIONS:\n- Yes\n- No\nI think the answer is ";

/// `INSTRUCTION_TEMPLATE.format(text_a=chunk, text_b=claim)`: the model input of one chunk.
///
/// ```
/// let t = factpico_factcg::instruction("Pain fell.", "It helped.");
/// assert_eq!(t, "Pain fell.\n\nChoose your answer: based on the paragraph above can we conclude \
///     that \"It helped.\"?\n\nOPTIONS:\n- Yes\n- No\nI think the answer is ");
/// ```
pub fn instruction(chunk: &str, claim: &str) -> String {
    format!("{chunk}{TEMPLATE_MIDDLE}{claim}{TEMPLATE_END}")
}

/// Options of [`FactCg::try_new`]. `Default` = the reference's settings.
#[derive(Debug, Clone, PartialEq)]
pub struct FactCgOptions {
    /// Whole claim (reference) or per sentence.
    pub claim: ClaimMode,
    /// Aggregation over claim sentences ([`ClaimMode::Sentences`] only).
    pub aggregation: Aggregation,
    /// Label threshold in \[0, 1\]: supported = score > threshold (default 0.5, the README's
    /// fixed setting; the paper's tuned thresholds are per dataset).
    pub threshold: f64,
    /// Chunk budget in `word_tokenize` tokens (default 550). At least 1.
    pub chunk_size: usize,
    /// Maximum input length in tokens, special tokens included (default 2048, the reference's);
    /// at most the manifest's.
    pub max_length: Option<usize>,
    /// Sequences per ONNX Runtime batch (length-sorted, padded to the longest of the batch).
    /// Does not change scores beyond float noise.
    pub batch_size: usize,
    /// ONNX Runtime intra-op threads; 0 = ONNX Runtime's default.
    pub threads: usize,
    /// Further session settings; its `intra_threads` is replaced by `threads`.
    pub session: SessionOptions,
}

impl Default for FactCgOptions {
    fn default() -> Self {
        FactCgOptions {
            claim: ClaimMode::Whole,
            aggregation: Aggregation::Min,
            threshold: 0.5,
            chunk_size: 550,
            max_length: None,
            batch_size: 4,
            threads: 0,
            session: SessionOptions::default(),
        }
    }
}

/// Why a row has no score.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NullReason {
    /// `chunking_src` gave no chunk (empty or whitespace-only document, or one whose sentences
    /// have no `word_tokenize` token): nothing to take the max over (the reference fails).
    NoChunk,
    /// [`ClaimMode::Sentences`]: the claim has no sentence.
    NoClaimSentence,
}

impl std::fmt::Display for NullReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NullReason::NoChunk => f.write_str("document gives no chunk (no word_tokenize token)"),
            NullReason::NoClaimSentence => f.write_str("claim has no sentence (empty or whitespace-only)"),
        }
    }
}

/// One document chunk.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChunkInfo {
    /// Byte range in the document from its first sentence's start to its last sentence's end
    /// (`0..0` for the reference's empty first chunk).
    pub span: Span,
    /// Indices of its sentences among the document's Punkt sentences.
    pub sentences: std::ops::Range<usize>,
}

/// The check of one claim (the whole claim, or one sentence of it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClaimScore {
    /// Byte span in the claim text (the whole text in [`ClaimMode::Whole`]).
    pub span: Span,
    /// Max over chunks of P(supported), in \[0, 1\].
    pub score: f64,
    /// Index of the chunk giving the max (first on ties; the reference's `best_chunk_id`).
    pub best_chunk: usize,
    /// P(supported) per chunk, chunk order.
    pub chunk_scores: Vec<f64>,
    /// Inputs cut to the model length (their end, i.e. the claim and options, dropped).
    pub truncated_chunks: usize,
}

/// FactCG's result for one (document, claim) row.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FactCgOutput {
    /// P(supported) in \[0, 1\]; `None` with [`FactCgOutput::null_reason`] when undefined.
    pub score: Option<f64>,
    /// `score > threshold`; `None` when `score` is.
    pub supported: Option<bool>,
    /// Why `score` is `None`.
    pub null_reason: Option<NullReason>,
    /// One entry per checked claim piece.
    pub claims: Vec<ClaimScore>,
    /// Document chunks.
    pub chunks: Vec<ChunkInfo>,
}

/// The `factcg` section of a FactCG model directory's `factpico.json` (what the export
/// holds; the user's options are [`FactCgConfig`](crate::FactCgConfig)).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FactCgModelConfig {
    /// Index of "supported" in the softmax over the graph's 2 outputs (1).
    pub support_index: usize,
}

#[derive(Deserialize)]
struct ManifestSection {
    factcg: Option<FactCgModelConfig>,
}

/// Reads the `factcg` section of `<dir>/factpico.json`.
///
/// # Errors
/// [`Error::InvalidModel`] when the manifest is missing, unreadable or has no valid section.
pub fn read_config(dir: &Path) -> Result<FactCgModelConfig> {
    let path = dir.join(MANIFEST_FILE);
    let text = std::fs::read_to_string(&path)
        .map_err(|e| Error::InvalidModel { path: path.clone(), reason: format!("cannot read the manifest ({e})") })?;
    let section: ManifestSection = serde_json::from_str(&text)
        .map_err(|e| Error::InvalidModel { path: path.clone(), reason: format!("bad `factcg` section ({e})") })?;
    let config = section
        .factcg
        .ok_or_else(|| Error::InvalidModel { path: path.clone(), reason: "the manifest has no `factcg` section".into() })?;
    if config.support_index > 1 {
        return Err(Error::InvalidModel { path, reason: format!("support_index {} is not 0 or 1", config.support_index) });
    }
    Ok(config)
}

/// A loaded FactCG checker (`Send + Sync`).
#[derive(Debug)]
pub struct FactCg {
    clf: SequenceClassifier,
    config: FactCgModelConfig,
    chunking: FactcgChunking,
    max_length: usize,
    options: FactCgOptions,
    punkt: Punkt,
}

impl FactCg {
    /// Loads a FactCG model directory (`model.onnx` with a 2-wide `logits` output,
    /// `tokenizer.json`, `factpico.json` with a `factcg` section).
    ///
    /// # Errors
    /// [`Error::InvalidOption`] for a zero batch or chunk size, a threshold outside \[0, 1\]
    /// or a `max_length` outside what the model accepts; [`Error::InvalidModel`] when the
    /// manifest has no `factcg` section; [`Error::Runtime`] for a missing/invalid directory or
    /// ONNX Runtime library.
    pub fn try_new(model_dir: impl AsRef<Path>, options: FactCgOptions) -> Result<Self> {
        let dir = model_dir.as_ref();
        if options.batch_size == 0 {
            return Err(Error::InvalidOption("batch_size must be at least 1".into()));
        }
        if options.chunk_size == 0 {
            return Err(Error::InvalidOption("chunk_size must be at least 1".into()));
        }
        if !(0.0..=1.0).contains(&options.threshold) {
            return Err(Error::InvalidOption(format!("threshold {} is not in [0, 1]", options.threshold)));
        }
        let config = read_config(dir)?;
        let session = options.session.clone().intra_threads(options.threads);
        let clf = SequenceClassifier::load(dir, &session).map_err(rt("loading the model"))?;
        let manifest_max = clf.manifest().max_length;
        let max_length = options.max_length.unwrap_or(MAX_LENGTH.min(manifest_max));
        let special = special_tokens(clf.tokenizer());
        if max_length > manifest_max || max_length <= special + 1 {
            return Err(Error::InvalidOption(format!(
                "max_length {max_length} must be in {}..={manifest_max} for this model",
                special + 2
            )));
        }
        Ok(FactCg {
            clf,
            config,
            chunking: FactcgChunking { max_tokens: options.chunk_size },
            max_length,
            options,
            punkt: Punkt::english(),
        })
    }

    /// The options in effect.
    pub fn options(&self) -> &FactCgOptions {
        &self.options
    }
    /// Maximum input length in tokens, special tokens included.
    pub fn max_length(&self) -> usize {
        self.max_length
    }
    /// The model's manifest (provenance: `source`, `exporter`).
    pub fn manifest(&self) -> &ModelManifest {
        self.clf.manifest()
    }
    /// sha256 of `model.onnx` (computed once, cached).
    ///
    /// # Errors
    /// [`Error::Runtime`] when the file cannot be read.
    pub fn model_sha256(&self) -> Result<&str> {
        self.clf.model_dir().model_sha256().map_err(rt("hashing model.onnx"))
    }

    /// The document's chunks as `chunking_src` builds them: `(chunk text, info)` in order.
    pub fn chunks(&self, document: &str) -> Vec<(String, ChunkInfo)> {
        self.chunking
            .chunks(&self.punkt, &WordTokenizeCounter, document)
            .into_iter()
            .map(|c| {
                let start = c.spans.first().map_or(0, |s| s.start);
                let end = c.spans.last().map_or(0, |s| s.end);
                (c.text, ChunkInfo { span: Span::new(start, end), sentences: c.sentences })
            })
            .collect()
    }

    /// Token ids of one model input (`[CLS] text [SEP]`, cut from the end to the model
    /// length) and the number of tokens cut.
    ///
    /// # Errors
    /// [`Error::Tokenizer`].
    pub fn encode(&self, text: &str) -> Result<(Vec<u32>, usize)> {
        let t = self.clf.tokenizer();
        let room = self.max_length.saturating_sub(special_tokens(t)).max(1);
        let mut enc = t.encode(text, false).map_err(tok("encoding a chunk and claim"))?;
        let cut = enc.get_ids().len().saturating_sub(room);
        if cut > 0 {
            enc.truncate(room, 0, TruncationDirection::Right);
        }
        let enc = t.post_process(enc, None, true).map_err(tok("adding special tokens"))?;
        Ok((enc.get_ids().to_vec(), cut))
    }

    /// Scores one (document, claim) row.
    ///
    /// # Errors
    /// [`Error::Tokenizer`] when tokenisation fails, [`Error::Runtime`] when inference fails.
    pub fn score(&self, document: &str, claim: &str) -> Result<FactCgOutput> {
        let mut v = self.score_batch(&[(document, claim)])?;
        v.pop().ok_or_else(|| Error::InvalidOption("internal: no output".into()))
    }

    /// Scores many (document, claim) rows, running all their (chunk, claim) inputs in shared
    /// length-sorted batches. Results equal [`FactCg::score`] per row within float noise.
    ///
    /// # Errors
    /// [`Error::Tokenizer`] when tokenisation fails, [`Error::Runtime`] when inference fails,
    /// [`Error::InvalidModel`] when the graph does not output 2 values per input.
    pub fn score_batch(&self, rows: &[(&str, &str)]) -> Result<Vec<FactCgOutput>> {
        struct Plan {
            chunks: Vec<ChunkInfo>,
            claims: Vec<Span>,
            null: Option<NullReason>,
        }
        let mut doc_chunks: HashMap<&str, Vec<(String, ChunkInfo)>> = HashMap::new();
        let mut plans = Vec::with_capacity(rows.len());
        // (row, claim, chunk, tokens cut)
        let mut jobs: Vec<(usize, usize, usize, usize)> = Vec::new();
        let mut ids: Vec<Vec<u32>> = Vec::new();
        for (row, &(document, claim)) in rows.iter().enumerate() {
            let chunks = doc_chunks.entry(document).or_insert_with(|| self.chunks(document));
            let claims = match self.options.claim {
                ClaimMode::Whole => vec![Span::new(0, claim.len())],
                ClaimMode::Sentences => self.punkt.split(claim),
            };
            let null = if chunks.is_empty() {
                Some(NullReason::NoChunk)
            } else if claims.is_empty() {
                Some(NullReason::NoClaimSentence)
            } else {
                None
            };
            if null.is_none() {
                for (j, span) in claims.iter().enumerate() {
                    let piece = span.get(claim).unwrap_or_default();
                    for (i, (text, _)) in chunks.iter().enumerate() {
                        let (seq, cut) = self.encode(&instruction(text, piece))?;
                        jobs.push((row, j, i, cut));
                        ids.push(seq);
                    }
                }
            }
            plans.push(Plan { chunks: chunks.iter().map(|(_, c)| c.clone()).collect(), claims, null });
        }
        let refs: Vec<&[u32]> = ids.iter().map(Vec::as_slice).collect();
        let logits = self.clf.run(&refs, self.options.batch_size).map_err(rt("running the model"))?;
        let mut probs: Vec<Vec<Vec<f64>>> =
            plans.iter().map(|p| vec![vec![f64::NAN; p.chunks.len()]; p.claims.len()]).collect();
        let mut cut: Vec<Vec<usize>> = plans.iter().map(|p| vec![0; p.claims.len()]).collect();
        for (&(row, j, i, n_cut), out) in jobs.iter().zip(&logits) {
            if out.len() != 2 {
                return Err(Error::InvalidModel {
                    path: self.clf.model_dir().model_path(),
                    reason: format!("the graph outputs {} values per input; FactCG needs 2", out.len()),
                });
            }
            probs[row][j][i] = f64::from(softmax(out)[self.config.support_index]);
            cut[row][j] += usize::from(n_cut > 0);
        }
        let threshold = self.options.threshold;
        let mut out = Vec::with_capacity(rows.len());
        for (row, plan) in plans.into_iter().enumerate() {
            if let Some(reason) = plan.null {
                out.push(FactCgOutput {
                    score: None,
                    supported: None,
                    null_reason: Some(reason),
                    claims: Vec::new(),
                    chunks: plan.chunks,
                });
                continue;
            }
            let claims: Vec<ClaimScore> = plan
                .claims
                .iter()
                .enumerate()
                .map(|(j, span)| {
                    let chunk_scores = std::mem::take(&mut probs[row][j]);
                    let (best_chunk, score) = max_first(&chunk_scores);
                    ClaimScore { span: *span, score, best_chunk, chunk_scores, truncated_chunks: cut[row][j] }
                })
                .collect();
            let score = match (self.options.claim, self.options.aggregation) {
                (ClaimMode::Whole, _) | (ClaimMode::Sentences, Aggregation::Min) => {
                    claims.iter().map(|c| c.score).fold(f64::INFINITY, f64::min)
                }
                (ClaimMode::Sentences, Aggregation::Mean) => {
                    claims.iter().map(|c| c.score).sum::<f64>() / claims.len() as f64
                }
            };
            out.push(FactCgOutput {
                score: Some(score),
                supported: Some(score > threshold),
                null_reason: None,
                claims,
                chunks: plan.chunks,
            });
        }
        Ok(out)
    }
}

/// Special tokens the single-sequence template adds (DeBERTa-v3 `[CLS] … [SEP]`: 2).
#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn checker_is_send_and_sync() {
        fn assert_send_sync<T: Send + Sync>() {}
        assert_send_sync::<FactCg>();
        assert_send_sync::<FactCgOutput>();
    }

    #[test]
    fn template_is_the_reference_string() {
        // factcg/utils.py @ 4eb1537: "{text_a}\n\nChoose your answer: based on the paragraph above
        // can we conclude that \"{text_b}\"?\n\nOPTIONS:\n- Yes\n- No\nI think the answer is "
        let t = instruction("A", "B");
        assert!(t.starts_with("A\n\nChoose your answer: based on the paragraph above can we conclude that \"B\"?"));
        assert!(t.ends_with("\"?\n\nOPTIONS:\n- Yes\n- No\nI think the answer is "));
        assert_eq!(instruction("", "").len(), TEMPLATE_MIDDLE.len() + TEMPLATE_END.len());
    }

    #[test]
    fn defaults_are_the_reference() {
        let d = FactCgOptions::default();
        assert_eq!((d.claim, d.threshold, d.chunk_size, d.max_length), (ClaimMode::Whole, 0.5, 550, None));
        assert_eq!(MAX_LENGTH, 2048);
    }

    #[test]
    fn options_are_validated_before_loading() {
        let dir = Path::new("/nonexistent/factcg");
        for o in [
            FactCgOptions { batch_size: 0, ..Default::default() },
            FactCgOptions { chunk_size: 0, ..Default::default() },
            FactCgOptions { threshold: 1.5, ..Default::default() },
            FactCgOptions { threshold: f64::NAN, ..Default::default() },
        ] {
            assert!(matches!(FactCg::try_new(dir, o), Err(Error::InvalidOption(_))));
        }
        assert!(matches!(FactCg::try_new(dir, FactCgOptions::default()), Err(Error::InvalidModel { .. })));
    }

    #[test]
    fn config_section_is_required() {
        let dir = std::env::temp_dir().join(format!("factpico-factcg-cfg-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join(MANIFEST_FILE), r#"{"minicheck": {}}"#).unwrap();
        assert!(read_config(&dir).unwrap_err().to_string().contains("no `factcg` section"));
        std::fs::write(dir.join(MANIFEST_FILE), r#"{"factcg": {"support_index": 2}}"#).unwrap();
        assert!(read_config(&dir).unwrap_err().to_string().contains("support_index 2"));
        std::fs::write(dir.join(MANIFEST_FILE), r#"{"factcg": {"support_index": 1}}"#).unwrap();
        assert_eq!(read_config(&dir).unwrap().support_index, 1);
        std::fs::remove_dir_all(&dir).ok();
    }
}
