//! The HHEM engine (feature `engine`): [`Hhem`] over ONNX Runtime (see the crate docs).
use std::path::{Path, PathBuf};

use factpico_runtime::sequence::SequenceClassifier;
use factpico_runtime::{max_first, ModelManifest, SessionOptions, MANIFEST_FILE};
use factpico_text::{Punkt, SentenceSplitter, Span};
use serde::{Deserialize, Serialize};

use crate::{Aggregation, ClaimMode, PremiseMode, DEFAULT_CHUNK_TOKENS, DEFAULT_MAX_LENGTH};

/// Errors of the HHEM metric.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Model loading or inference failed.
    #[error("HHEM: {context}")]
    Runtime {
        /// What was being done.
        context: &'static str,
        /// The runtime's error (names the file at fault and what to do).
        #[source]
        source: factpico_runtime::Error,
    },
    /// Tokenisation with the model's `tokenizer.json` failed.
    #[error("HHEM: {context}")]
    Tokenizer {
        /// What was being done.
        context: &'static str,
        /// The tokenizer's error.
        #[source]
        source: tokenizers::Error,
    },
    /// The model directory is not an HHEM export.
    #[error("HHEM: {path} is not an HHEM model directory: {reason}")]
    InvalidModel {
        /// The directory or manifest at fault.
        path: PathBuf,
        /// What is wrong and how to fix it.
        reason: String,
    },
    /// The options are invalid or do not fit the model.
    #[error("invalid HHEM option: {0}")]
    InvalidOption(String),
    /// One model input of the row is longer than the length limit (the reference would run
    /// it untruncated; its attention memory grows with the square of the length).
    #[error(
        "HHEM: the prompt with premise and hypothesis is {tokens} tokens, over the limit of {max_length} \
         (raise max_length up to {limit}, or use the chunked premise mode)"
    )]
    TooLong {
        /// Tokens of the longest input of the row (special tokens included).
        tokens: usize,
        /// The limit in effect.
        max_length: usize,
        /// The most the model export accepts.
        limit: usize,
    },
}

/// `Result` with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

fn rt(context: &'static str) -> impl FnOnce(factpico_runtime::Error) -> Error {
    move |source| Error::Runtime { context, source }
}

fn tok(context: &'static str) -> impl FnOnce(tokenizers::Error) -> Error {
    move |source| Error::Tokenizer { context, source }
}

/// The released checkpoint.
pub const CHECKPOINT: &str = "vectara/hallucination_evaluation_model";

/// The reference's prompt (`HHEMv2Config.prompt`; `modeling_hhem_v2.py` /
/// `configuration_hhem_v2.py`, Apache-2.0). `{text1}` = premise, `{text2}` = hypothesis.
pub const PROMPT: &str = "<pad> Determine if the hypothesis is true given the premise?\n\nPremise: {text1}\n\nHypothesis: {text2}";

/// Options of [`Hhem::try_new`]. `Default` = the reference's behaviour with a 2048-token limit.
#[derive(Debug, Clone, PartialEq)]
pub struct HhemOptions {
    /// Whole premise (reference) or chunked.
    pub premise: PremiseMode,
    /// Chunk budget in model tokens ([`PremiseMode::Chunked`]); at least 1.
    pub chunk_tokens: usize,
    /// Whole hypothesis (reference) or per sentence.
    pub claim: ClaimMode,
    /// Aggregation over hypothesis sentences ([`ClaimMode::Sentences`] only).
    pub aggregation: Aggregation,
    /// Label threshold in \[0, 1\]: consistent = score ≥ threshold (default 0.5, the card's).
    pub threshold: f64,
    /// Length limit in tokens, special tokens included; `None` = [`DEFAULT_MAX_LENGTH`] (or the
    /// export's limit when lower). At most the export's `max_length`.
    pub max_length: Option<usize>,
    /// Sequences per ONNX Runtime batch (length-sorted, right-padded, masked). Does not change
    /// scores beyond float noise.
    pub batch_size: usize,
    /// ONNX Runtime intra-op threads; 0 = ONNX Runtime's default.
    pub threads: usize,
    /// Further session settings; its `intra_threads` is replaced by `threads`.
    pub session: SessionOptions,
}

impl Default for HhemOptions {
    fn default() -> Self {
        HhemOptions {
            premise: PremiseMode::Whole,
            chunk_tokens: DEFAULT_CHUNK_TOKENS,
            claim: ClaimMode::Whole,
            aggregation: Aggregation::Min,
            threshold: 0.5,
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
    /// [`PremiseMode::Chunked`]: the premise has no sentence.
    NoPremiseSentence,
    /// [`ClaimMode::Sentences`]: the hypothesis has no sentence.
    NoClaimSentence,
}

impl std::fmt::Display for NullReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NullReason::NoPremiseSentence => f.write_str("premise has no sentence to chunk (empty or whitespace-only)"),
            NullReason::NoClaimSentence => f.write_str("hypothesis has no sentence (empty or whitespace-only)"),
        }
    }
}

/// One premise chunk (the whole premise in [`PremiseMode::Whole`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChunkInfo {
    /// Byte range in the premise (from its first sentence's start to its last's end).
    pub span: Span,
    /// Model tokens of the chunk text alone (no template, no special tokens).
    pub tokens: usize,
}

/// The check of one hypothesis piece (the whole hypothesis, or one sentence of it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClaimScore {
    /// Byte span in the hypothesis.
    pub span: Span,
    /// Max over chunks of P(consistent), in \[0, 1\].
    pub score: f64,
    /// Index of the chunk giving the max (first on ties).
    pub best_chunk: usize,
    /// P(consistent) per chunk, chunk order.
    pub chunk_scores: Vec<f64>,
    /// Tokens of the longest model input of this piece (special tokens included).
    pub max_tokens: usize,
}

/// HHEM's result for one (premise, hypothesis) row.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HhemOutput {
    /// P(consistent) in \[0, 1\]; `None` with [`HhemOutput::null_reason`] when undefined.
    pub score: Option<f64>,
    /// `score >= threshold`; `None` when `score` is.
    pub consistent: Option<bool>,
    /// Why `score` is `None`.
    pub null_reason: Option<NullReason>,
    /// One entry per checked hypothesis piece.
    pub claims: Vec<ClaimScore>,
    /// Premise chunks (one, the whole premise, in the default mode).
    pub chunks: Vec<ChunkInfo>,
}

/// The `hhem` section of an HHEM model directory's `factpico.json` (what the export holds;
/// the user's options are [`HhemConfig`](crate::HhemConfig)).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HhemModelConfig {
    /// The prompt template (`{text1}` premise, `{text2}` hypothesis; `{{`/`}}` literal braces).
    pub prompt: String,
    /// Index of "consistent" in the softmax over the graph's 2 outputs (1).
    pub support_index: usize,
}

#[derive(Deserialize)]
struct ManifestSection {
    hhem: Option<HhemModelConfig>,
}

/// A parsed prompt template: literal pieces and slots.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Piece {
    Lit(String),
    Premise,
    Hypothesis,
}

/// Parses a Python `str.format` template with the fields `text1` and `text2`.
fn parse_prompt(prompt: &str) -> std::result::Result<Vec<Piece>, String> {
    let mut out = Vec::new();
    let mut lit = String::new();
    let mut it = prompt.char_indices().peekable();
    while let Some((i, c)) = it.next() {
        match c {
            '{' if it.peek().map(|p| p.1) == Some('{') => {
                it.next();
                lit.push('{');
            }
            '}' if it.peek().map(|p| p.1) == Some('}') => {
                it.next();
                lit.push('}');
            }
            '{' => {
                let rest = &prompt[i + 1..];
                let end = rest.find('}').ok_or_else(|| format!("unclosed '{{' at byte {i}"))?;
                let piece = match &rest[..end] {
                    "text1" => Piece::Premise,
                    "text2" => Piece::Hypothesis,
                    other => return Err(format!("unknown field {{{other}}} (only {{text1}} and {{text2}})")),
                };
                if !lit.is_empty() {
                    out.push(Piece::Lit(std::mem::take(&mut lit)));
                }
                out.push(piece);
                for _ in 0..=end {
                    it.next();
                }
            }
            '}' => return Err(format!("single '}}' at byte {i}")),
            c => lit.push(c),
        }
    }
    if !lit.is_empty() {
        out.push(Piece::Lit(lit));
    }
    Ok(out)
}

/// `prompt.format(text1=premise, text2=hypothesis)` (Python semantics: substituted values are
/// not re-read as templates).
///
/// # Errors
/// [`Error::InvalidOption`] when the template is malformed or has other fields.
///
/// ```
/// let t = factpico_hhem::format_prompt(factpico_hhem::PROMPT, "P {x}", "H").unwrap();
/// assert_eq!(t, "<pad> Determine if the hypothesis is true given the premise?\n\nPremise: P {x}\n\nHypothesis: H");
/// ```
pub fn format_prompt(prompt: &str, premise: &str, hypothesis: &str) -> Result<String> {
    let pieces = parse_prompt(prompt).map_err(|e| Error::InvalidOption(format!("prompt template: {e}")))?;
    Ok(render(&pieces, premise, hypothesis))
}

fn render(pieces: &[Piece], premise: &str, hypothesis: &str) -> String {
    let mut s = String::new();
    for p in pieces {
        match p {
            Piece::Lit(l) => s.push_str(l),
            Piece::Premise => s.push_str(premise),
            Piece::Hypothesis => s.push_str(hypothesis),
        }
    }
    s
}

/// Reads the `hhem` section of `<dir>/factpico.json`.
///
/// # Errors
/// [`Error::InvalidModel`] when the manifest is missing, unreadable, has no valid section, or
/// its prompt is malformed.
pub fn read_config(dir: &Path) -> Result<HhemModelConfig> {
    let path = dir.join(MANIFEST_FILE);
    let text = std::fs::read_to_string(&path)
        .map_err(|e| Error::InvalidModel { path: path.clone(), reason: format!("cannot read the manifest ({e})") })?;
    let section: ManifestSection = serde_json::from_str(&text)
        .map_err(|e| Error::InvalidModel { path: path.clone(), reason: format!("bad `hhem` section ({e})") })?;
    let config = section
        .hhem
        .ok_or_else(|| Error::InvalidModel { path: path.clone(), reason: "the manifest has no `hhem` section".into() })?;
    if config.support_index > 1 {
        return Err(Error::InvalidModel { path, reason: format!("support_index {} is not 0 or 1", config.support_index) });
    }
    if let Err(e) = parse_prompt(&config.prompt) {
        return Err(Error::InvalidModel { path, reason: format!("bad prompt template: {e}") });
    }
    Ok(config)
}

/// A loaded HHEM checker (`Send + Sync`).
#[derive(Debug)]
pub struct Hhem {
    clf: SequenceClassifier,
    config: HhemModelConfig,
    pieces: Vec<Piece>,
    max_length: usize,
    options: HhemOptions,
    punkt: Punkt,
}

impl Hhem {
    /// Loads an HHEM model directory (`model.onnx` with a `logits` output `[batch, 2]` = the
    /// token-classification logits at position 0, `tokenizer.json` (flan-t5's), `factpico.json`
    /// with an `hhem` section) written by `onnx/export_hhem.py`.
    ///
    /// # Errors
    /// [`Error::InvalidOption`] for a zero batch size or chunk budget, a threshold outside
    /// \[0, 1\] or a `max_length` over the export's; [`Error::InvalidModel`] when the manifest has
    /// no valid `hhem` section; [`Error::Runtime`] for a missing/invalid directory or ONNX
    /// Runtime library.
    pub fn try_new(model_dir: impl AsRef<Path>, options: HhemOptions) -> Result<Self> {
        let dir = model_dir.as_ref();
        if options.batch_size == 0 {
            return Err(Error::InvalidOption("batch_size must be at least 1".into()));
        }
        if options.chunk_tokens == 0 {
            return Err(Error::InvalidOption("chunk_tokens must be at least 1".into()));
        }
        if !(0.0..=1.0).contains(&options.threshold) {
            return Err(Error::InvalidOption(format!("threshold {} is not in [0, 1]", options.threshold)));
        }
        let config = read_config(dir)?;
        let pieces = parse_prompt(&config.prompt).map_err(Error::InvalidOption)?;
        let session = options.session.clone().intra_threads(options.threads);
        let clf = SequenceClassifier::load(dir, &session).map_err(rt("loading the model"))?;
        let limit = clf.manifest().max_length;
        let max_length = options.max_length.unwrap_or(DEFAULT_MAX_LENGTH.min(limit));
        if max_length > limit || max_length < 2 {
            return Err(Error::InvalidOption(format!("max_length {max_length} must be in 2..={limit} for this model")));
        }
        Ok(Hhem { clf, config, pieces, max_length, options, punkt: Punkt::english() })
    }

    /// The options in effect.
    pub fn options(&self) -> &HhemOptions {
        &self.options
    }
    /// Length limit in tokens, special tokens included.
    pub fn max_length(&self) -> usize {
        self.max_length
    }
    /// The prompt template in use (the manifest's).
    pub fn prompt(&self) -> &str {
        &self.config.prompt
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

    /// Token ids of one model input: `tokenizer(prompt.format(text1=premise,
    /// text2=hypothesis))` with special tokens (the trailing `</s>`), not truncated.
    ///
    /// # Errors
    /// [`Error::Tokenizer`].
    pub fn encode(&self, premise: &str, hypothesis: &str) -> Result<Vec<u32>> {
        let text = render(&self.pieces, premise, hypothesis);
        let enc = self.clf.tokenizer().encode(text, true).map_err(tok("encoding the prompt"))?;
        Ok(enc.get_ids().to_vec())
    }

    fn count_tokens(&self, text: &str) -> Result<usize> {
        let enc = self.clf.tokenizer().encode(text, false).map_err(tok("counting premise tokens"))?;
        Ok(enc.get_ids().len())
    }

    /// The premise's chunks: `[(whole premise)]` in [`PremiseMode::Whole`]; else Punkt
    /// sentences packed greedily while their summed token counts stay ≤ `chunk_tokens` (a
    /// longer sentence is a chunk of its own). Chunk text = the premise's bytes from the
    /// first sentence's start to the last one's end.
    ///
    /// # Errors
    /// [`Error::Tokenizer`].
    pub fn chunks(&self, premise: &str) -> Result<Vec<ChunkInfo>> {
        if self.options.premise == PremiseMode::Whole {
            return Ok(vec![ChunkInfo { span: Span::new(0, premise.len()), tokens: self.count_tokens(premise)? }]);
        }
        let mut out: Vec<ChunkInfo> = Vec::new();
        let mut cur: Option<ChunkInfo> = None;
        for s in self.punkt.split(premise) {
            let n = self.count_tokens(s.get(premise).unwrap_or_default())?;
            cur = match cur {
                Some(c) if c.tokens + n <= self.options.chunk_tokens => {
                    let span = Span::new(c.span.start, s.end);
                    let tokens = self.count_tokens(span.get(premise).unwrap_or_default())?;
                    if tokens <= self.options.chunk_tokens {
                        Some(ChunkInfo { span, tokens })
                    } else {
                        out.push(c);
                        Some(ChunkInfo { span: s, tokens: n })
                    }
                }
                Some(c) => {
                    out.push(c);
                    Some(ChunkInfo { span: s, tokens: n })
                }
                None => Some(ChunkInfo { span: s, tokens: n }),
            };
        }
        out.extend(cur);
        Ok(out)
    }

    /// Scores one (premise, hypothesis) row.
    ///
    /// # Errors
    /// [`Error::TooLong`] when an input is over the limit; [`Error::Tokenizer`],
    /// [`Error::Runtime`].
    pub fn score(&self, premise: &str, hypothesis: &str) -> Result<HhemOutput> {
        let mut v = self.score_batch(&[(premise, hypothesis)])?;
        v.pop().unwrap_or_else(|| Err(Error::InvalidOption("internal: no output".into())))
    }

    /// Scores many rows, running all their inputs in shared length-sorted batches. The outer
    /// error is a failure of the whole batch (tokenizer, runtime); a row whose input is over
    /// the length limit is that row's [`Error::TooLong`] and the other rows are scored.
    ///
    /// # Errors
    /// [`Error::Tokenizer`], [`Error::Runtime`], [`Error::InvalidModel`] when the graph does
    /// not output 2 values per input.
    pub fn score_batch(&self, rows: &[(&str, &str)]) -> Result<Vec<Result<HhemOutput>>> {
        struct Plan {
            chunks: Vec<ChunkInfo>,
            claims: Vec<Span>,
            outcome: std::result::Result<(), Option<NullReason>>,
            too_long: usize,
        }
        let mut plans = Vec::with_capacity(rows.len());
        let mut jobs: Vec<(usize, usize, usize)> = Vec::new();
        let mut ids: Vec<Vec<u32>> = Vec::new();
        for (row, &(premise, hypothesis)) in rows.iter().enumerate() {
            let chunks = self.chunks(premise)?;
            let claims = match self.options.claim {
                ClaimMode::Whole => vec![Span::new(0, hypothesis.len())],
                ClaimMode::Sentences => self.punkt.split(hypothesis),
            };
            let mut plan = Plan { chunks, claims, outcome: Ok(()), too_long: 0 };
            if plan.chunks.is_empty() {
                plan.outcome = Err(Some(NullReason::NoPremiseSentence));
            } else if plan.claims.is_empty() {
                plan.outcome = Err(Some(NullReason::NoClaimSentence));
            } else {
                let mut seqs = Vec::new();
                for (j, span) in plan.claims.iter().enumerate() {
                    let piece = span.get(hypothesis).unwrap_or_default();
                    for (i, c) in plan.chunks.iter().enumerate() {
                        let seq = self.encode(c.span.get(premise).unwrap_or_default(), piece)?;
                        plan.too_long = plan.too_long.max(seq.len());
                        seqs.push(((row, j, i), seq));
                    }
                }
                if plan.too_long > self.max_length {
                    plan.outcome = Err(None);
                } else {
                    for (job, seq) in seqs {
                        jobs.push(job);
                        ids.push(seq);
                    }
                }
            }
            plans.push(plan);
        }
        let refs: Vec<&[u32]> = ids.iter().map(Vec::as_slice).collect();
        let logits = self.clf.run(&refs, self.options.batch_size).map_err(rt("running the model"))?;
        let mut probs: Vec<Vec<Vec<f64>>> =
            plans.iter().map(|p| vec![vec![f64::NAN; p.chunks.len()]; p.claims.len()]).collect();
        let mut lens: Vec<Vec<usize>> = plans.iter().map(|p| vec![0; p.claims.len()]).collect();
        for ((&(row, j, i), out), seq) in jobs.iter().zip(&logits).zip(&ids) {
            let &[l0, l1] = out.as_slice() else {
                return Err(Error::InvalidModel {
                    path: self.clf.model_dir().model_path(),
                    reason: format!("the graph outputs {} values per input; HHEM needs 2", out.len()),
                });
            };
            let p1 = softmax2(f64::from(l0), f64::from(l1));
            probs[row][j][i] = if self.config.support_index == 1 { p1 } else { 1.0 - p1 };
            lens[row][j] = lens[row][j].max(seq.len());
        }
        let limit = self.manifest().max_length;
        let mut out = Vec::with_capacity(rows.len());
        for (row, plan) in plans.into_iter().enumerate() {
            match plan.outcome {
                Err(None) => {
                    out.push(Err(Error::TooLong { tokens: plan.too_long, max_length: self.max_length, limit }));
                    continue;
                }
                Err(Some(reason)) => {
                    out.push(Ok(HhemOutput {
                        score: None,
                        consistent: None,
                        null_reason: Some(reason),
                        claims: Vec::new(),
                        chunks: plan.chunks,
                    }));
                    continue;
                }
                Ok(()) => {}
            }
            let claims: Vec<ClaimScore> = plan
                .claims
                .iter()
                .enumerate()
                .map(|(j, span)| {
                    let chunk_scores = std::mem::take(&mut probs[row][j]);
                    let (best_chunk, score) = max_first(&chunk_scores);
                    ClaimScore { span: *span, score, best_chunk, chunk_scores, max_tokens: lens[row][j] }
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
            out.push(Ok(HhemOutput {
                score: Some(score),
                consistent: Some(score >= self.options.threshold),
                null_reason: None,
                claims,
                chunks: plan.chunks,
            }));
        }
        Ok(out)
    }
}

/// softmax([l0, l1])[1], computed stably in f64.
fn softmax2(l0: f64, l1: f64) -> f64 {
    1.0 / (1.0 + (l0 - l1).exp())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn checker_is_send_and_sync() {
        fn assert_send_sync<T: Send + Sync>() {}
        assert_send_sync::<Hhem>();
        assert_send_sync::<HhemOutput>();
    }

    #[test]
    fn prompt_is_substituted_like_python_format() {
        let t = format_prompt(PROMPT, "A {text2} }", "B").unwrap();
        assert_eq!(t, "<pad> Determine if the hypothesis is true given the premise?\n\nPremise: A {text2} }\n\nHypothesis: B");
        assert_eq!(format_prompt("{{x}} {text2}{text1}", "p", "h").unwrap(), "{x} hp");
        for bad in ["{x}", "{text1", "a } b", "{}"] {
            assert!(format_prompt(bad, "p", "h").is_err(), "{bad}");
        }
    }

    #[test]
    fn softmax_index_one() {
        assert!((softmax2(0.0, 0.0) - 0.5).abs() < 1e-15);
        assert!((softmax2(1.0, 3.0) - 1.0 / (1.0 + (-2f64).exp())).abs() < 1e-15);
        assert!(softmax2(-1000.0, 1000.0) == 1.0 && softmax2(1000.0, -1000.0) == 0.0);
    }

    #[test]
    fn options_are_validated_before_loading() {
        let dir = Path::new("/nonexistent/hhem");
        for o in [
            HhemOptions { batch_size: 0, ..Default::default() },
            HhemOptions { chunk_tokens: 0, ..Default::default() },
            HhemOptions { threshold: 1.5, ..Default::default() },
            HhemOptions { threshold: f64::NAN, ..Default::default() },
        ] {
            assert!(matches!(Hhem::try_new(dir, o), Err(Error::InvalidOption(_))));
        }
        assert!(matches!(Hhem::try_new(dir, HhemOptions::default()), Err(Error::InvalidModel { .. })));
    }

    #[test]
    fn config_section_is_required_and_checked() {
        let dir = std::env::temp_dir().join(format!("factpico-hhem-cfg-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join(MANIFEST_FILE), r#"{"factcg": {}}"#).unwrap();
        assert!(read_config(&dir).unwrap_err().to_string().contains("no `hhem` section"));
        std::fs::write(dir.join(MANIFEST_FILE), r#"{"hhem": {"prompt": "{text1}", "support_index": 2}}"#).unwrap();
        assert!(read_config(&dir).unwrap_err().to_string().contains("support_index 2"));
        std::fs::write(dir.join(MANIFEST_FILE), r#"{"hhem": {"prompt": "{premise}", "support_index": 1}}"#).unwrap();
        assert!(read_config(&dir).unwrap_err().to_string().contains("unknown field"));
        std::fs::write(dir.join(MANIFEST_FILE), r#"{"hhem": {"prompt": "{text1} {text2}", "support_index": 1}}"#).unwrap();
        assert_eq!(read_config(&dir).unwrap().support_index, 1);
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn too_long_error_says_what_to_do() {
        let e = Error::TooLong { tokens: 3000, max_length: 2048, limit: 16384 };
        let s = e.to_string();
        assert!(s.contains("3000 tokens") && s.contains("2048") && s.contains("chunked"), "{s}");
    }
}
