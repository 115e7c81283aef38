//! The MiniCheck engine (feature `engine`): [`MiniCheck`] over ONNX Runtime (see the crate docs).
use std::cell::RefCell;
use std::collections::HashMap;
use std::ops::Range;
use std::path::{Path, PathBuf};

use factpico_runtime::sequence::SequenceClassifier;
use factpico_runtime::{max_first, softmax, ModelManifest, SessionOptions, MANIFEST_FILE};
use factpico_text::{Punkt, SentenceSplitter, Span, TokenBudgetChunking, WhitespaceWordCounter};
use serde::{Deserialize, Serialize};

use crate::encoding;
use crate::{Aggregation, ChunkUnit, ClaimMode, Variant};

/// Errors of the MiniCheck metric.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Model loading, tokenisation or inference failed.
    #[error("MiniCheck: {context}")]
    Runtime {
        /// What was being done.
        context: &'static str,
        /// The runtime's error (names the file at fault and what to do).
        #[source]
        source: factpico_runtime::Error,
    },
    /// Tokenisation with the model's `tokenizer.json` failed.
    #[error("MiniCheck: {context}")]
    Tokenizer {
        /// What was being done.
        context: &'static str,
        /// The tokenizer's error.
        #[source]
        source: tokenizers::Error,
    },
    /// The model directory is not a MiniCheck export.
    #[error("MiniCheck: {path} is not a MiniCheck model directory: {reason}")]
    InvalidModel {
        /// The directory or manifest at fault.
        path: PathBuf,
        /// What is wrong and how to fix it.
        reason: String,
    },
    /// The options are invalid or do not fit the model.
    #[error("invalid MiniCheck option: {0}")]
    InvalidOption(String),
}

/// `Result` with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

fn rt(context: &'static str) -> impl FnOnce(factpico_runtime::Error) -> Error {
    move |source| Error::Runtime { context, source }
}

/// The `minicheck` section of a MiniCheck model directory's `factpico.json`, written by
/// `onnx/export_minicheck.py` (what the export holds; the user's options are
/// [`MiniCheckConfig`](crate::MiniCheckConfig)).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MiniCheckModelConfig {
    /// Which checker the graph is.
    pub variant: Variant,
    /// Text between chunk and claim: the tokenizer's `eos_token` (`</s>` for RoBERTa and T5,
    /// `[SEP]` for DeBERTa-v3), recognised as a special token by the tokenizer.
    pub separator: String,
    /// Text put before every input (`"predict: "` for Flan-T5, empty otherwise).
    #[serde(default)]
    pub prefix: String,
    /// Index of "supported" in the softmax over the graph's 2 outputs (1).
    pub support_index: usize,
    /// Flan-T5: the vocabulary ids whose first-step logits the graph outputs, in output order
    /// (`[3, 209]`: unsupported, supported). Informative.
    #[serde(default)]
    pub label_token_ids: Option<Vec<u32>>,
}

impl std::str::FromStr for ClaimMode {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "whole" => Ok(ClaimMode::Whole),
            "sentences" => Ok(ClaimMode::Sentences),
            _ => Err(Error::InvalidOption(format!("unknown claim mode {s:?} (whole, sentences)"))),
        }
    }
}

impl std::str::FromStr for Aggregation {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "min" => Ok(Aggregation::Min),
            "mean" => Ok(Aggregation::Mean),
            _ => Err(Error::InvalidOption(format!("unknown aggregation {s:?} (min, mean)"))),
        }
    }
}

/// Options of [`MiniCheck::try_new`]. `Default` = the reference's settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MiniCheckOptions {
    /// Whole claim (reference) or per sentence.
    pub claim: ClaimMode,
    /// Aggregation over claim sentences ([`ClaimMode::Sentences`] only).
    pub aggregation: Aggregation,
    /// Chunk size in the variant's unit ([`Variant::chunk_unit`]); `None` = the reference's
    /// default (400 tokens, 500 words for Flan-T5). At least 1.
    pub chunk_size: Option<usize>,
    /// Maximum input length in tokens, special tokens included (the reference's
    /// `max_model_len`); `None` = the manifest's (the reference's default for the variant).
    /// At most the manifest's.
    pub max_length: Option<usize>,
    /// Sequences per ONNX Runtime batch (length-sorted, padded to the longest of the batch).
    /// Does not change scores beyond float noise (≤ 1e-5). Default 1: MiniCheck's inputs are
    /// long (a 400-token chunk and the claim), so one sequence already fills the matrix units,
    /// and larger batches only add padding and activation memory. Measured on the full-size
    /// replicas, 20 real pairs, 2 threads (BENCHMARKS.md, MiniCheck): RoBERTa-L 65.4 CPU s /
    /// 1,308 MB peak at 1 against 68.4 s / 1,409 MB at 4; DeBERTa-v3-L 126 s / 1,754 MB at 1,
    /// 137 s / 2,059 MB at 2, 153 s / 2,720 MB at 4 (the reference: 2,558 MB).
    pub batch_size: usize,
    /// ONNX Runtime intra-op threads; 0 = ONNX Runtime's default.
    pub threads: usize,
    /// Further session settings; its `intra_threads` is replaced by `threads`.
    pub session: SessionOptions,
}

impl Default for MiniCheckOptions {
    fn default() -> Self {
        MiniCheckOptions {
            claim: ClaimMode::Whole,
            aggregation: Aggregation::Min,
            chunk_size: None,
            max_length: None,
            batch_size: 1,
            threads: 0,
            session: SessionOptions::default(),
        }
    }
}

/// Why a row has no score.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NullReason {
    /// The document gave no non-empty chunk (empty or whitespace-only): there is nothing to
    /// take the max over (the reference raises an error).
    EmptyDocument,
    /// [`ClaimMode::Sentences`]: the claim has no sentence (empty or whitespace-only).
    NoClaimSentence,
}

impl std::fmt::Display for NullReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NullReason::EmptyDocument => f.write_str("document is empty or whitespace-only (no chunk)"),
            NullReason::NoClaimSentence => f.write_str("claim has no sentence (empty or whitespace-only)"),
        }
    }
}

/// Something the caller may want to know about a scored row.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Warning {
    /// Inputs `chunk + separator + claim` were cut from the end to the model length, as the
    /// reference does (`truncation=True`): the claim loses its end first; when more tokens
    /// than the claim has are dropped, the chunk loses its end too.
    Truncated {
        /// Claim index (0 in the whole-claim mode, else the sentence index).
        claim: usize,
        /// Number of chunks whose input was cut.
        chunks: usize,
        /// Most tokens dropped from one input.
        max_dropped_tokens: usize,
        /// Tokens of the claim on its own (no special tokens).
        claim_tokens: usize,
    },
}

impl std::fmt::Display for Warning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Warning::Truncated { claim, chunks, max_dropped_tokens, claim_tokens } => write!(
                f,
                "claim {claim}: {chunks} chunk+claim input(s) cut to the model length, up to {max_dropped_tokens} \
                 tokens dropped from the end (the claim has {claim_tokens} tokens){}",
                if max_dropped_tokens >= claim_tokens { ": the claim was not seen at all" } else { "" }
            ),
        }
    }
}

/// One document chunk.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChunkInfo {
    /// Byte range in the document from its first sentence's start to its last sentence's end.
    pub span: Span,
    /// Indices of its sentences among the document's sentences.
    pub sentences: Range<usize>,
}

/// The check of one claim (the whole claim, or one sentence of it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClaimScore {
    /// Byte span in the claim text (the whole text in [`ClaimMode::Whole`]).
    pub span: Span,
    /// Max over chunks of P(supported), in \[0, 1\].
    pub score: f64,
    /// `score > 0.5`.
    pub supported: bool,
    /// Index of the chunk giving the max (first on ties).
    pub best_chunk: usize,
    /// P(supported) per chunk, chunk order (the reference's `support_prob_per_chunk`).
    pub chunk_scores: Vec<f64>,
}

/// MiniCheck's result for one (document, claim) row.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MiniCheckOutput {
    /// P(supported) in \[0, 1\]: the max over chunks (whole claim), or the min / mean over
    /// sentences of it; `None` with [`MiniCheckOutput::null_reason`] when undefined.
    pub score: Option<f64>,
    /// `score > 0.5` (the reference's `pred_label` = 1); `None` when `score` is.
    pub supported: Option<bool>,
    /// Why `score` is `None`.
    pub null_reason: Option<NullReason>,
    /// Claim mode used.
    pub claim_mode: ClaimMode,
    /// Aggregation used (meaningful in [`ClaimMode::Sentences`]).
    pub aggregation: Aggregation,
    /// One entry per checked claim piece.
    pub claims: Vec<ClaimScore>,
    /// Document chunks.
    pub chunks: Vec<ChunkInfo>,
    /// Truncation warnings.
    pub warnings: Vec<Warning>,
}

/// A loaded MiniCheck checker (`Send + Sync`).
#[derive(Debug)]
pub struct MiniCheck {
    clf: SequenceClassifier,
    config: MiniCheckModelConfig,
    chunking: TokenBudgetChunking,
    max_length: usize,
    claim: ClaimMode,
    aggregation: Aggregation,
    batch_size: usize,
    punkt: Punkt,
}

#[derive(Deserialize)]
struct ManifestSection {
    minicheck: Option<MiniCheckModelConfig>,
}

const EXPORT_HINT: &str = "export the checkpoint with `python onnx/export_minicheck.py --variant \
    roberta-large|deberta-v3-large|flan-t5-large --model CHECKPOINT --out DIR` (onnx/README.md)";

/// Reads the `minicheck` section of `<dir>/factpico.json`.
///
/// # Errors
/// [`Error::InvalidModel`] when the manifest is missing, unreadable or has no valid section.
pub fn read_config(dir: &Path) -> Result<MiniCheckModelConfig> {
    let path = dir.join(MANIFEST_FILE);
    let text = std::fs::read_to_string(&path).map_err(|e| Error::InvalidModel {
        path: path.clone(),
        reason: format!("cannot read the manifest ({e}); {EXPORT_HINT}"),
    })?;
    let section: ManifestSection = serde_json::from_str(&text)
        .map_err(|e| Error::InvalidModel { path: path.clone(), reason: format!("bad `minicheck` section ({e})") })?;
    section.minicheck.ok_or_else(|| Error::InvalidModel {
        path,
        reason: format!("the manifest has no `minicheck` section; {EXPORT_HINT}"),
    })
}

/// One (chunk, claim piece) input of a row.
struct Job {
    row: usize,
    claim: usize,
    chunk: usize,
    truncated: usize,
}

/// Per-row bookkeeping between encoding and aggregation.
struct RowPlan {
    chunks: Vec<ChunkInfo>,
    claims: Vec<Span>,
    null: Option<NullReason>,
}

impl MiniCheck {
    /// Loads a MiniCheck model directory (`model.onnx` with a 2-wide `logits` output,
    /// `tokenizer.json`, `factpico.json` with a `minicheck` section).
    ///
    /// # Errors
    /// [`Error::Runtime`] for a missing/invalid directory or ONNX Runtime library;
    /// [`Error::InvalidModel`] when the manifest has no `minicheck` section;
    /// [`Error::InvalidOption`] for a zero batch or chunk size or a `max_length` outside
    /// what the model accepts.
    pub fn try_new(model_dir: impl AsRef<Path>, options: MiniCheckOptions) -> Result<Self> {
        let dir = model_dir.as_ref();
        if options.batch_size == 0 {
            return Err(Error::InvalidOption("batch_size must be at least 1".into()));
        }
        if options.chunk_size == Some(0) {
            return Err(Error::InvalidOption("chunk_size must be at least 1".into()));
        }
        // Validate the section before the (slow) session creation.
        let config = read_config(dir)?;
        let session = options.session.clone().intra_threads(options.threads);
        let clf = SequenceClassifier::load(dir, &session).map_err(rt("loading the model"))?;
        let manifest_max = clf.manifest().max_length;
        let max_length = options.max_length.unwrap_or(manifest_max);
        if max_length > manifest_max || max_length <= encoding::special_tokens(clf.tokenizer()) + 1 {
            return Err(Error::InvalidOption(format!(
                "max_length {max_length} must be in {}..={manifest_max} for this model",
                encoding::special_tokens(clf.tokenizer()) + 2
            )));
        }
        if config.support_index > 1 {
            return Err(Error::InvalidModel {
                path: dir.join(MANIFEST_FILE),
                reason: format!("support_index {} is not 0 or 1", config.support_index),
            });
        }
        let chunking = TokenBudgetChunking {
            max_tokens: options.chunk_size.unwrap_or_else(|| config.variant.default_chunk_size()),
            split_newlines: true,
        };
        Ok(MiniCheck {
            clf,
            config,
            chunking,
            max_length,
            claim: options.claim,
            aggregation: options.aggregation,
            batch_size: options.batch_size,
            punkt: Punkt::english(),
        })
    }

    /// The `minicheck` section of the manifest.
    pub fn config(&self) -> &MiniCheckModelConfig {
        &self.config
    }
    /// The checker.
    pub fn variant(&self) -> Variant {
        self.config.variant
    }
    /// Chunk size in [`Variant::chunk_unit`] units.
    pub fn chunk_size(&self) -> usize {
        self.chunking.max_tokens
    }
    /// Maximum input length in tokens, special tokens included.
    pub fn max_length(&self) -> usize {
        self.max_length
    }
    /// Claim mode.
    pub fn claim_mode(&self) -> ClaimMode {
        self.claim
    }
    /// Aggregation over sentences.
    pub fn aggregation(&self) -> Aggregation {
        self.aggregation
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

    /// The document's chunks as the reference builds them (step 2 of the crate docs):
    /// `(chunk text, info)` in order; empty for an empty or whitespace-only document.
    ///
    /// # Errors
    /// [`Error::Tokenizer`] when tokenisation fails (token-counted variants).
    pub fn chunks(&self, document: &str) -> Result<Vec<(String, ChunkInfo)>> {
        let chunks = match self.config.variant.chunk_unit() {
            ChunkUnit::Words => self.chunking.chunks(&self.punkt, &WhitespaceWordCounter, document),
            ChunkUnit::Tokens => {
                let failed: RefCell<Option<Error>> = RefCell::new(None);
                let cap = self.max_length;
                let counter = |s: &str| match encoding::count_tokens(self.clf.tokenizer(), s) {
                    Ok(n) => n.min(cap),
                    Err(e) => {
                        failed.borrow_mut().get_or_insert(e);
                        0
                    }
                };
                let chunks = self.chunking.chunks(&self.punkt, &counter, document);
                if let Some(e) = failed.into_inner() {
                    return Err(e);
                }
                chunks
            }
        };
        Ok(chunks
            .into_iter()
            .map(|c| {
                let start = c.spans.first().map_or(0, |s| s.start);
                let end = c.spans.last().map_or(0, |s| s.end);
                (c.text, ChunkInfo { span: Span::new(start, end), sentences: c.sentences })
            })
            .collect())
    }

    /// The model input of one (chunk, claim) pair: `prefix + chunk + separator + claim`.
    pub fn input_text(&self, chunk: &str, claim: &str) -> String {
        format!("{}{chunk}{}{claim}", self.config.prefix, self.config.separator)
    }

    /// Scores one (document, claim) row.
    ///
    /// # Errors
    /// [`Error::Tokenizer`] when tokenisation fails, [`Error::Runtime`] when inference fails.
    pub fn score(&self, document: &str, claim: &str) -> Result<MiniCheckOutput> {
        let mut v = self.score_batch(&[(document, claim)])?;
        v.pop().ok_or_else(|| Error::InvalidOption("internal: no output".into()))
    }

    /// Scores many (document, claim) rows, running all their (chunk, claim) inputs in shared
    /// length-sorted batches. Results equal [`MiniCheck::score`] per row (≤ 1e-5).
    ///
    /// # Errors
    /// [`Error::Tokenizer`] when tokenisation fails, [`Error::Runtime`] when inference fails.
    pub fn score_batch(&self, rows: &[(&str, &str)]) -> Result<Vec<MiniCheckOutput>> {
        let mut doc_chunks: HashMap<&str, Vec<(String, ChunkInfo)>> = HashMap::new();
        let mut plans = Vec::with_capacity(rows.len());
        let mut jobs: Vec<Job> = Vec::new();
        let mut ids: Vec<Vec<u32>> = Vec::new();
        for (row, &(document, claim)) in rows.iter().enumerate() {
            if !doc_chunks.contains_key(document) {
                let c = self.chunks(document)?;
                doc_chunks.insert(document, c);
            }
            let chunks = &doc_chunks[document];
            let claims = match self.claim {
                ClaimMode::Whole => vec![Span::new(0, claim.len())],
                ClaimMode::Sentences => self.punkt.split(claim),
            };
            let null = if chunks.is_empty() {
                Some(NullReason::EmptyDocument)
            } else if claims.is_empty() {
                Some(NullReason::NoClaimSentence)
            } else {
                None
            };
            if null.is_none() {
                for (j, span) in claims.iter().enumerate() {
                    let piece = span.get(claim).unwrap_or_default();
                    for (i, (text, _)) in chunks.iter().enumerate() {
                        let enc = encoding::encode(self.clf.tokenizer(), &self.input_text(text, piece), self.max_length)?;
                        jobs.push(Job { row, claim: j, chunk: i, truncated: enc.truncated });
                        ids.push(enc.ids);
                    }
                }
            }
            plans.push(RowPlan { chunks: chunks.iter().map(|(_, c)| c.clone()).collect(), claims, null });
        }
        let refs: Vec<&[u32]> = ids.iter().map(Vec::as_slice).collect();
        let logits = self.clf.run(&refs, self.batch_size).map_err(rt("running the model"))?;
        let mut probs: Vec<Vec<Vec<f64>>> =
            plans.iter().map(|p| vec![vec![f64::NAN; p.chunks.len()]; p.claims.len()]).collect();
        let mut cut: Vec<Vec<(usize, usize)>> = plans.iter().map(|p| vec![(0, 0); p.claims.len()]).collect();
        for (job, row) in jobs.iter().zip(&logits) {
            if row.len() != 2 {
                return Err(Error::InvalidModel {
                    path: self.clf.model_dir().model_path(),
                    reason: format!("the graph output has {} values per input; MiniCheck needs 2", row.len()),
                });
            }
            probs[job.row][job.claim][job.chunk] = f64::from(softmax(row)[self.config.support_index]);
            if job.truncated > 0 {
                let c = &mut cut[job.row][job.claim];
                c.0 += 1;
                c.1 = c.1.max(job.truncated);
            }
        }
        let mut out = Vec::with_capacity(rows.len());
        for (row, plan) in plans.into_iter().enumerate() {
            let claim_text = rows[row].1;
            if let Some(reason) = plan.null {
                out.push(MiniCheckOutput {
                    score: None,
                    supported: None,
                    null_reason: Some(reason),
                    claim_mode: self.claim,
                    aggregation: self.aggregation,
                    claims: Vec::new(),
                    chunks: plan.chunks,
                    warnings: Vec::new(),
                });
                continue;
            }
            let mut claims = Vec::with_capacity(plan.claims.len());
            let mut warnings = Vec::new();
            for (j, span) in plan.claims.iter().enumerate() {
                let scores = std::mem::take(&mut probs[row][j]);
                let (best_chunk, score) = max_first(&scores);
                claims.push(ClaimScore { span: *span, score, supported: score > 0.5, best_chunk, chunk_scores: scores });
                let (n_cut, dropped) = cut[row][j];
                if n_cut > 0 {
                    let claim_tokens = encoding::count_tokens(self.clf.tokenizer(), span.get(claim_text).unwrap_or_default())?;
                    warnings.push(Warning::Truncated { claim: j, chunks: n_cut, max_dropped_tokens: dropped, claim_tokens });
                }
            }
            let score = match (self.claim, self.aggregation) {
                (ClaimMode::Whole, _) | (ClaimMode::Sentences, Aggregation::Min) => {
                    claims.iter().map(|c| c.score).fold(f64::INFINITY, f64::min)
                }
                (ClaimMode::Sentences, Aggregation::Mean) => {
                    claims.iter().map(|c| c.score).sum::<f64>() / claims.len() as f64
                }
            };
            out.push(MiniCheckOutput {
                score: Some(score),
                supported: Some(score > 0.5),
                null_reason: None,
                claim_mode: self.claim,
                aggregation: self.aggregation,
                claims,
                chunks: plan.chunks,
                warnings,
            });
        }
        Ok(out)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn checker_is_send_and_sync() {
        fn assert_send_sync<T: Send + Sync>() {}
        assert_send_sync::<MiniCheck>();
        assert_send_sync::<MiniCheckOutput>();
    }

    #[test]
    fn variants_follow_the_reference_defaults() {
        assert_eq!(Variant::RobertaLarge.default_chunk_size(), 400);
        assert_eq!(Variant::DebertaV3Large.default_chunk_size(), 400);
        assert_eq!(Variant::FlanT5Large.default_chunk_size(), 500);
        assert_eq!(Variant::FlanT5Large.chunk_unit(), ChunkUnit::Words);
        assert_eq!(Variant::DebertaV3Large.chunk_unit(), ChunkUnit::Tokens);
        assert_eq!(Variant::RobertaLarge.default_max_length(), 512);
        assert_eq!(Variant::FlanT5Large.default_max_length(), 2048);
        for v in Variant::ALL {
            assert_eq!(serde_json::to_string(&v).unwrap(), format!("\"{}\"", v.as_str()));
            assert!(v.checkpoint().starts_with("lytang/MiniCheck-"));
        }
    }

    #[test]
    fn modes_parse_and_default_to_the_reference() {
        assert_eq!("whole".parse::<ClaimMode>().unwrap(), ClaimMode::Whole);
        assert_eq!("sentences".parse::<ClaimMode>().unwrap(), ClaimMode::Sentences);
        assert_eq!("mean".parse::<Aggregation>().unwrap(), Aggregation::Mean);
        assert!("max".parse::<Aggregation>().is_err());
        assert!("sentence".parse::<ClaimMode>().is_err());
        let d = MiniCheckOptions::default();
        assert_eq!((d.claim, d.aggregation, d.chunk_size, d.max_length), (ClaimMode::Whole, Aggregation::Min, None, None));
    }

    #[test]
    fn config_section_is_required_and_parsed() {
        let dir = std::env::temp_dir().join(format!("factpico-minicheck-cfg-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join(MANIFEST_FILE), r#"{"schema_version": 1}"#).unwrap();
        let e = read_config(&dir).unwrap_err().to_string();
        assert!(e.contains("no `minicheck` section") && e.contains("export_minicheck.py"), "{e}");
        std::fs::write(
            dir.join(MANIFEST_FILE),
            r#"{"minicheck": {"variant": "flan-t5-large", "separator": "</s>", "prefix": "predict: ",
                "support_index": 1, "label_token_ids": [3, 209]}}"#,
        )
        .unwrap();
        let c = read_config(&dir).unwrap();
        assert_eq!(c.variant, Variant::FlanT5Large);
        assert_eq!(c.label_token_ids, Some(vec![3, 209]));
        std::fs::write(dir.join(MANIFEST_FILE), r#"{"minicheck": {"variant": "t5-xl"}}"#).unwrap();
        assert!(read_config(&dir).unwrap_err().to_string().contains("bad `minicheck` section"));
        std::fs::remove_dir_all(&dir).ok();
        let missing = read_config(Path::new("/nonexistent/minicheck")).unwrap_err().to_string();
        assert!(missing.contains("cannot read the manifest"), "{missing}");
    }

    #[test]
    fn warning_says_when_the_claim_was_lost() {
        let w = Warning::Truncated { claim: 0, chunks: 2, max_dropped_tokens: 30, claim_tokens: 12 };
        assert!(w.to_string().contains("not seen at all"));
        let w = Warning::Truncated { claim: 1, chunks: 1, max_dropped_tokens: 3, claim_tokens: 12 };
        assert!(!w.to_string().contains("not seen"));
    }
}
