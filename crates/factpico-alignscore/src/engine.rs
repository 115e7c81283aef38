//! The AlignScore engine (feature `engine`): [`AlignScore`] over ONNX Runtime (see the crate docs).
use std::collections::HashMap;
use std::ops::Range;
use std::path::Path;

use factpico_runtime::{
    softmax, EncodedPair, ModelManifest, ModelTask, PairClassifier, Segment, SessionOptions, TruncationConfig,
    TruncationSide, TruncationStrategy,
};
use factpico_text::{AlignScoreChunking, Punkt, SentenceSplitter, Span};
use serde::{Deserialize, Serialize};

use crate::Mode;

/// Errors of the AlignScore metric.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Model loading, tokenisation or inference failed (message says which file / what to do).
    #[error(transparent)]
    Runtime(#[from] factpico_runtime::Error),
    /// The options are invalid or do not fit the model.
    #[error("invalid AlignScore option: {0}")]
    InvalidOption(String),
}

/// `Result` with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl std::str::FromStr for Mode {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        Mode::ALL
            .into_iter()
            .find(|m| m.as_str() == s)
            .ok_or_else(|| Error::InvalidOption(format!("unknown mode {s:?} (nli_sp, bin_sp, reg_sp, nli, bin, reg)")))
    }
}

/// Options of [`AlignScore::try_new`]. `Default` = the reference's settings on CPU.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AlignScoreOptions {
    /// Evaluation mode (default `nli_sp`).
    pub mode: Mode,
    /// Pairs per ONNX Runtime batch (padded to the longest pair of the batch, length-sorted).
    /// Does not change scores (fp32 graphs, ≤ 1e-5; dynamic-int8 graphs compute activation
    /// scales per batch, so their scores move slightly with batch composition). Default 2: on CPU, larger batches bought no speed for
    /// ~500-token pairs (RoBERTa-base graph, 100 real pairs: 531 CPU s at 2 vs 542 at 8) but
    /// raised peak memory (586 MB vs 986 MB, model 384 MB; BENCHMARKS.md). Raise it for CUDA.
    pub batch_size: usize,
    /// ONNX Runtime intra-op threads; 0 = ONNX Runtime's default (all physical cores).
    pub threads: usize,
    /// Maximum pair length in tokens, special tokens included; `None` = the manifest's
    /// (512 for AlignScore exports).
    pub max_length: Option<usize>,
    /// Whitespace words per intended chunk (reference: 350).
    pub words_per_chunk: usize,
    /// Size of the tokenisation groups that fall back to `longest_first` together (the
    /// reference's `batch_size`, default 32). Only matters when a claim sentence alone exceeds
    /// the model limit.
    pub fallback_group: usize,
    /// Further session settings (optimisation level, execution provider, spinning, pool
    /// size); its `intra_threads` is replaced by `threads`.
    pub session: SessionOptions,
}

impl Default for AlignScoreOptions {
    fn default() -> Self {
        AlignScoreOptions {
            mode: Mode::NliSp,
            batch_size: 2,
            threads: 0,
            max_length: None,
            words_per_chunk: 350,
            fallback_group: 32,
            session: SessionOptions::default(),
        }
    }
}

/// Why a row has no score.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NullReason {
    /// The claim has no sentence (empty or whitespace-only) in a split mode: the mean over
    /// zero claim sentences is undefined (the reference raises an error).
    NoClaimSentence,
}

impl std::fmt::Display for NullReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NullReason::NoClaimSentence => f.write_str("claim has no sentence (empty or whitespace-only)"),
        }
    }
}

/// Something the caller may want to know about a scored row.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Warning {
    /// A chunk (split modes) or the whole context (non-split modes) was cut to fit the model;
    /// `dropped_tokens` is the largest number removed over the claim sentences it was paired with.
    ContextTruncated {
        /// Chunk index (0 in non-split modes).
        chunk: usize,
        /// Tokens removed from the end of the chunk.
        dropped_tokens: usize,
    },
    /// A claim sentence (or the whole claim in non-split modes) is longer than the model
    /// limit on its own: as the reference, its tokenisation group was cut `longest_first`,
    /// which also cuts the claim.
    ClaimTooLong {
        /// Claim sentence index (0 in non-split modes).
        sentence: usize,
        /// Its length in tokens (no special tokens).
        tokens: usize,
        /// The model limit, special tokens included.
        max_length: usize,
    },
    /// Claim tokens were removed by the `longest_first` fallback (the sentence or another one
    /// of its tokenisation group was too long).
    ClaimTruncated {
        /// Claim sentence index.
        sentence: usize,
        /// Largest number of its tokens removed over the chunks.
        dropped_tokens: usize,
    },
}

impl std::fmt::Display for Warning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Warning::ContextTruncated { chunk, dropped_tokens } => {
                write!(f, "context chunk {chunk} truncated: {dropped_tokens} tokens dropped")
            }
            Warning::ClaimTooLong { sentence, tokens, max_length } => write!(
                f,
                "claim sentence {sentence} has {tokens} tokens, over the model limit of {max_length}: scored with longest_first truncation as the reference does"
            ),
            Warning::ClaimTruncated { sentence, dropped_tokens } => {
                write!(f, "claim sentence {sentence} truncated: {dropped_tokens} tokens dropped")
            }
        }
    }
}

/// One claim sentence's score (split modes).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SentenceScore {
    /// Byte span of the sentence in the claim.
    pub span: Span,
    /// Max over chunks of the per-pair value.
    pub score: f64,
    /// Index of the chunk giving the max (first one on ties, as `torch.max`... first max).
    pub best_chunk: usize,
}

/// One context chunk (split modes), or the whole context (non-split modes).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChunkInfo {
    /// Byte range in the context, from its first sentence's start to its last sentence's end
    /// (the chunk text is those sentences joined with one space).
    pub span: Span,
    /// Indices of its sentences in the context's Punkt sentences.
    pub sentences: Range<usize>,
}

/// The AlignScore of one (context, claim) row.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AlignScoreOutput {
    /// The score: in \[0, 1\] for `nli`/`bin` modes, unbounded for `reg`; `None` with
    /// [`AlignScoreOutput::null_reason`] when undefined.
    pub score: Option<f64>,
    /// Why `score` is `None`.
    pub null_reason: Option<NullReason>,
    /// Mode used.
    pub mode: Mode,
    /// Per claim sentence (split modes; empty in non-split modes).
    pub sentences: Vec<SentenceScore>,
    /// Context chunks (split modes) or one entry for the whole context (non-split modes).
    pub chunks: Vec<ChunkInfo>,
    /// Truncation and length warnings.
    pub warnings: Vec<Warning>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Head {
    Softmax { output: String, index: usize },
    Raw { output: String, index: usize },
}

/// AlignScore over a model directory (an AlignScore export, or a generic NLI model).
/// `Send + Sync`; see [`factpico_runtime::SessionOptions`] for the threading model.
#[derive(Debug)]
pub struct AlignScore {
    clf: PairClassifier,
    mode: Mode,
    max_length: usize,
    batch_size: usize,
    fallback_group: usize,
    chunking: AlignScoreChunking,
    punkt: Punkt,
}

const TRUNCATION: TruncationConfig = TruncationConfig {
    strategy: TruncationStrategy::OnlyFirst,
    side: TruncationSide::Right,
    fallback: Some(TruncationStrategy::LongestFirst),
};

/// One row prepared for the model.
struct Prepared {
    chunks: Vec<ChunkInfo>,
    sent_spans: Vec<Span>,
    /// Pairs, row-major (chunk, sentence); in non-split modes one pair.
    first_pair: usize,
    n_pairs: usize,
}

impl AlignScore {
    /// Loads a model directory (`model.onnx`, `tokenizer.json`, `factpico.json` or a Hugging
    /// Face `config.json`) with `options`.
    ///
    /// # Errors
    /// [`Error::Runtime`] for a missing/invalid model directory or ONNX Runtime library;
    /// [`Error::InvalidOption`] for zero sizes, a `max_length` above the manifest's, or a mode
    /// the model has no head for (bin/reg modes need an AlignScore export).
    pub fn try_new(model_dir: impl AsRef<Path>, options: AlignScoreOptions) -> Result<Self> {
        if options.batch_size == 0 || options.fallback_group == 0 {
            return Err(Error::InvalidOption("batch_size and fallback_group must be at least 1".into()));
        }
        let chunking =
            AlignScoreChunking::new(options.words_per_chunk).map_err(|e| Error::InvalidOption(e.to_string()))?;
        let session = options.session.clone().intra_threads(options.threads);
        let clf = PairClassifier::load(model_dir, &session)?;
        resolve_head(clf.manifest(), options.mode)?;
        let manifest_max = clf.manifest().max_length;
        let max_length = options.max_length.unwrap_or(manifest_max);
        if max_length > manifest_max || max_length <= clf.special_tokens_in_pair() {
            return Err(Error::InvalidOption(format!(
                "max_length {max_length} must be in {}..={manifest_max} for this model",
                clf.special_tokens_in_pair() + 1
            )));
        }
        Ok(AlignScore {
            clf,
            mode: options.mode,
            max_length,
            batch_size: options.batch_size,
            fallback_group: options.fallback_group,
            chunking,
            punkt: Punkt::english(),
        })
    }

    /// The mode in use.
    pub fn mode(&self) -> Mode {
        self.mode
    }
    /// The maximum pair length in tokens.
    pub fn max_length(&self) -> usize {
        self.max_length
    }
    /// Whitespace words per intended context chunk (reference: 350).
    pub fn words_per_chunk(&self) -> usize {
        self.chunking.words_per_chunk.get()
    }
    /// The model's manifest (provenance: `source`, `exporter`).
    pub fn manifest(&self) -> &ModelManifest {
        self.clf.manifest()
    }
    /// sha256 of `model.onnx` (computed once, cached), for provenance columns.
    ///
    /// # Errors
    /// [`Error::Runtime`] when the file cannot be read.
    pub fn model_sha256(&self) -> Result<&str> {
        Ok(self.clf.model_dir().model_sha256()?)
    }
    /// The underlying pair classifier (for statistics such as forward time).
    pub fn classifier(&self) -> &PairClassifier {
        &self.clf
    }

    /// Scores one (context, claim) row.
    ///
    /// # Errors
    /// [`Error::Runtime`] when tokenisation or inference fails.
    pub fn score(&self, context: &str, claim: &str) -> Result<AlignScoreOutput> {
        let mut v = self.score_batch(&[(context, claim)])?;
        v.pop().ok_or_else(|| Error::InvalidOption("internal: no output".into()))
    }

    /// Scores many rows, batching all their (chunk, sentence) pairs together for throughput.
    /// Results equal [`AlignScore::score`] per row (≤ 1e-5), except in the non-split modes,
    /// where — exactly as the reference's `score(contexts, claims)` — consecutive groups of
    /// `fallback_group` rows share the `longest_first` fallback when one claim alone exceeds
    /// the model limit.
    ///
    /// # Errors
    /// [`Error::Runtime`] when tokenisation or inference fails.
    pub fn score_batch(&self, rows: &[(&str, &str)]) -> Result<Vec<AlignScoreOutput>> {
        let mut v = self.score_batch_modes(rows, &[self.mode])?;
        v.pop().ok_or_else(|| Error::InvalidOption("internal: no output".into()))
    }

    /// Scores many rows in several modes at once: the split modes share one model pass (the
    /// three heads come out of the same forward), and so do the non-split ones. Returns one
    /// vector of outputs per requested mode, in `modes` order.
    ///
    /// # Errors
    /// [`Error::InvalidOption`] when the model has no head for a mode (bin/reg need an
    /// AlignScore export); [`Error::Runtime`] when tokenisation or inference fails.
    pub fn score_batch_modes(&self, rows: &[(&str, &str)], modes: &[Mode]) -> Result<Vec<Vec<AlignScoreOutput>>> {
        let heads = modes.iter().map(|&m| resolve_head(self.clf.manifest(), m)).collect::<Result<Vec<_>>>()?;
        let mut cache: HashMap<String, Segment> = HashMap::new();
        let mut passes: Vec<Option<Pass>> = vec![None, None];
        for (k, split) in [true, false].into_iter().enumerate() {
            if modes.iter().any(|m| m.is_split() == split) {
                let (prepared, encoded) = self.prepare(rows, split, &mut cache)?;
                let outputs = self.clf.run(&encoded, self.batch_size)?;
                passes[k] = Some(Pass { prepared, encoded, outputs });
            }
        }
        let mut all = Vec::with_capacity(modes.len());
        for (&mode, head) in modes.iter().zip(&heads) {
            let pass = passes[usize::from(!mode.is_split())]
                .as_ref()
                .ok_or_else(|| Error::InvalidOption("internal: missing pass".into()))?;
            all.push(self.aggregate(rows, pass, mode, head, &mut cache)?);
        }
        Ok(all)
    }

    fn segment(&self, text: &str, cache: &mut HashMap<String, Segment>) -> Result<Segment> {
        if let Some(s) = cache.get(text) {
            return Ok(s.clone());
        }
        let s = self.clf.segment(text)?;
        cache.insert(text.to_owned(), s.clone());
        Ok(s)
    }

    /// Chunks, splits and tokenises the rows; returns per-row bookkeeping and all pairs.
    fn prepare(
        &self,
        rows: &[(&str, &str)],
        split: bool,
        cache: &mut HashMap<String, Segment>,
    ) -> Result<(Vec<Prepared>, Vec<EncodedPair>)> {
        let mut prepared = Vec::with_capacity(rows.len());
        let mut encoded: Vec<EncodedPair> = Vec::new();
        if split {
            for (context, claim) in rows {
                let chunks = self.chunking.chunks(&self.punkt, context);
                let sent_spans = self.punkt.split(claim);
                let chunk_infos = chunks.iter().map(chunk_info).collect::<Vec<_>>();
                let first_pair = encoded.len();
                if sent_spans.is_empty() {
                    prepared.push(Prepared { chunks: chunk_infos, sent_spans, first_pair, n_pairs: 0 });
                    continue;
                }
                let chunk_segs = chunks.iter().map(|c| self.segment(&c.text, cache)).collect::<Result<Vec<_>>>()?;
                let sent_segs = sent_spans
                    .iter()
                    .map(|s| self.segment(s.get(claim).unwrap_or_default(), cache))
                    .collect::<Result<Vec<_>>>()?;
                let mut pairs = Vec::with_capacity(chunk_segs.len() * sent_segs.len());
                for c in &chunk_segs {
                    for s in &sent_segs {
                        pairs.push((c, s));
                    }
                }
                // The reference tokenises each example's pairs in mini-batches of batch_size:
                // those are the groups that fall back to longest_first together.
                for group in pairs.chunks(self.fallback_group) {
                    encoded.extend(self.clf.encode_group(group, self.max_length, &TRUNCATION)?);
                }
                prepared.push(Prepared { chunks: chunk_infos, sent_spans, first_pair, n_pairs: pairs.len() });
            }
        } else {
            let mut segs = Vec::with_capacity(rows.len());
            for (context, claim) in rows {
                segs.push((self.segment(context, cache)?, self.segment(claim, cache)?));
            }
            // The reference's `inference(contexts, claims)` tokenises consecutive rows in
            // mini-batches of batch_size.
            for group in segs.chunks(self.fallback_group) {
                let pairs: Vec<(&Segment, &Segment)> = group.iter().map(|(a, b)| (a, b)).collect();
                encoded.extend(self.clf.encode_group(&pairs, self.max_length, &TRUNCATION)?);
            }
            for (k, (context, _)) in rows.iter().enumerate() {
                prepared.push(Prepared {
                    chunks: vec![ChunkInfo { span: Span::new(0, context.len()), sentences: 0..0 }],
                    sent_spans: Vec::new(),
                    first_pair: k,
                    n_pairs: 1,
                });
            }
        }
        Ok((prepared, encoded))
    }

    /// Per-row scores of one mode from a finished pass.
    fn aggregate(
        &self,
        rows: &[(&str, &str)],
        pass: &Pass,
        mode: Mode,
        head: &Head,
        cache: &mut HashMap<String, Segment>,
    ) -> Result<Vec<AlignScoreOutput>> {
        let specials = self.clf.special_tokens_in_pair();
        let mut result = Vec::with_capacity(rows.len());
        for (row, p) in pass.prepared.iter().enumerate() {
            let pairs = &pass.encoded[p.first_pair..p.first_pair + p.n_pairs];
            let vals = pass.outputs[p.first_pair..p.first_pair + p.n_pairs]
                .iter()
                .map(|o| head_value(head, o))
                .collect::<Result<Vec<f32>>>()?;
            let mut warnings = Vec::new();
            let claim = rows[row].1;
            if !mode.is_split() {
                let e = &pairs[0];
                let tokens = self.segment(claim, cache)?.len();
                if tokens + specials > self.max_length {
                    warnings.push(Warning::ClaimTooLong { sentence: 0, tokens, max_length: self.max_length });
                }
                if e.truncation.dropped_premise > 0 {
                    warnings.push(Warning::ContextTruncated { chunk: 0, dropped_tokens: e.truncation.dropped_premise });
                }
                if e.truncation.dropped_hypothesis > 0 {
                    warnings
                        .push(Warning::ClaimTruncated { sentence: 0, dropped_tokens: e.truncation.dropped_hypothesis });
                }
                result.push(AlignScoreOutput {
                    score: Some(f64::from(vals[0])),
                    null_reason: None,
                    mode,
                    sentences: Vec::new(),
                    chunks: p.chunks.clone(),
                    warnings,
                });
                continue;
            }
            let n_sent = p.sent_spans.len();
            let n_chunk = p.chunks.len();
            if n_sent == 0 {
                result.push(AlignScoreOutput {
                    score: None,
                    null_reason: Some(NullReason::NoClaimSentence),
                    mode,
                    sentences: Vec::new(),
                    chunks: p.chunks.clone(),
                    warnings,
                });
                continue;
            }
            let mut sentences = Vec::with_capacity(n_sent);
            for (j, span) in p.sent_spans.iter().enumerate() {
                let mut best = (f32::NEG_INFINITY, 0usize);
                for i in 0..n_chunk {
                    let v = vals[i * n_sent + j];
                    if v > best.0 || (v.is_nan() && !best.0.is_nan()) {
                        best = (v, i);
                    }
                }
                sentences.push(SentenceScore { span: *span, score: f64::from(best.0), best_chunk: best.1 });
            }
            for (j, span) in p.sent_spans.iter().enumerate() {
                let tokens = self.segment(span.get(claim).unwrap_or_default(), cache)?.len();
                if tokens + specials > self.max_length {
                    warnings.push(Warning::ClaimTooLong { sentence: j, tokens, max_length: self.max_length });
                }
            }
            for i in 0..n_chunk {
                let dropped = (0..n_sent).map(|j| pairs[i * n_sent + j].truncation.dropped_premise).max().unwrap_or(0);
                if dropped > 0 {
                    warnings.push(Warning::ContextTruncated { chunk: i, dropped_tokens: dropped });
                }
            }
            for j in 0..n_sent {
                let dropped =
                    (0..n_chunk).map(|i| pairs[i * n_sent + j].truncation.dropped_hypothesis).max().unwrap_or(0);
                if dropped > 0 {
                    warnings.push(Warning::ClaimTruncated { sentence: j, dropped_tokens: dropped });
                }
            }
            // torch: float32 mean of the per-sentence maxima.
            let mean = sentences.iter().map(|s| s.score as f32).sum::<f32>() / n_sent as f32;
            result.push(AlignScoreOutput {
                score: Some(f64::from(mean)),
                null_reason: None,
                mode,
                sentences,
                chunks: p.chunks.clone(),
                warnings,
            });
        }
        Ok(result)
    }
}

struct Pass {
    prepared: Vec<Prepared>,
    encoded: Vec<EncodedPair>,
    outputs: Vec<factpico_runtime::PairOutput>,
}

fn head_value(head: &Head, o: &factpico_runtime::PairOutput) -> Result<f32> {
    let (output, index, soft) = match head {
        Head::Softmax { output, index } => (output, *index, true),
        Head::Raw { output, index } => (output, *index, false),
    };
    let row = o.get(output).ok_or_else(|| Error::InvalidOption(format!("model has no output {output:?}")))?;
    let v = if soft { softmax(row).get(index).copied() } else { row.get(index).copied() };
    v.ok_or_else(|| Error::InvalidOption(format!("output {output:?} has no index {index}")))
}

fn chunk_info(c: &factpico_text::Chunk) -> ChunkInfo {
    let start = c.spans.first().map_or(0, |s| s.start);
    let end = c.spans.last().map_or(0, |s| s.end);
    ChunkInfo { span: Span::new(start, end), sentences: c.sentences.clone() }
}

fn resolve_head(m: &ModelManifest, mode: Mode) -> Result<Head> {
    let has = |name: &str| m.outputs.iter().any(|o| o == name);
    if m.task == ModelTask::Alignscore || (has("tri_logits") && has("bin_logits") && has("reg")) {
        return Ok(match mode {
            Mode::NliSp | Mode::Nli => Head::Softmax { output: "tri_logits".into(), index: 0 },
            Mode::BinSp | Mode::Bin => Head::Softmax { output: "bin_logits".into(), index: 1 },
            Mode::RegSp | Mode::Reg => Head::Raw { output: "reg".into(), index: 0 },
        });
    }
    let output = m.outputs.first().cloned().unwrap_or_else(|| "logits".into());
    let Some(index) = m.label_index(&output, "entail") else {
        return Err(Error::InvalidOption(format!(
            "model task {} has neither AlignScore heads (tri_logits, bin_logits, reg) nor an `entailment` label on {output:?}",
            m.task
        )));
    };
    match mode {
        Mode::NliSp | Mode::Nli => Ok(Head::Softmax { output, index }),
        _ => Err(Error::InvalidOption(format!(
            "mode {mode} needs an AlignScore export (bin/reg heads); this NLI model supports nli_sp and nli"
        ))),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn scorer_is_send_and_sync() {
        fn assert_send_sync<T: Send + Sync>() {}
        assert_send_sync::<AlignScore>();
        assert_send_sync::<AlignScoreOutput>();
    }

    #[test]
    fn modes_round_trip() {
        for m in Mode::ALL {
            assert_eq!(m.as_str().parse::<Mode>().unwrap(), m);
            assert_eq!(serde_json::to_string(&m).unwrap(), format!("\"{}\"", m.as_str()));
        }
        assert!("nli-sp".parse::<Mode>().is_err());
        assert_eq!(Mode::default(), Mode::NliSp);
        assert!(Mode::RegSp.is_split() && !Mode::Reg.is_split());
    }

    fn manifest(task: ModelTask, outputs: &[&str], labels: &[&str]) -> ModelManifest {
        let mut m: ModelManifest = serde_json::from_value(serde_json::json!({
            "schema_version": 1, "architecture": "bert", "task": task, "max_length": 256,
            "truncation": {"strategy": "longest_first"}, "pad_token_id": 0,
            "outputs": outputs,
        }))
        .unwrap();
        m.labels.insert(outputs[0].to_owned(), labels.iter().map(|s| (*s).to_owned()).collect());
        m
    }

    #[test]
    fn heads_per_mode_and_model_kind() {
        let a = manifest(ModelTask::Alignscore, &["tri_logits", "bin_logits", "reg"], &["aligned", "neutral", "contradiction"]);
        assert_eq!(resolve_head(&a, Mode::NliSp).unwrap(), Head::Softmax { output: "tri_logits".into(), index: 0 });
        assert_eq!(resolve_head(&a, Mode::Bin).unwrap(), Head::Softmax { output: "bin_logits".into(), index: 1 });
        assert_eq!(resolve_head(&a, Mode::RegSp).unwrap(), Head::Raw { output: "reg".into(), index: 0 });
        // MNLI-style label order: entailment last.
        let n = manifest(ModelTask::Nli, &["logits"], &["contradiction", "neutral", "entailment"]);
        assert_eq!(resolve_head(&n, Mode::Nli).unwrap(), Head::Softmax { output: "logits".into(), index: 2 });
        assert!(resolve_head(&n, Mode::BinSp).is_err());
        let x = manifest(ModelTask::SequenceClassification, &["logits"], &["negative", "positive"]);
        assert!(resolve_head(&x, Mode::NliSp).unwrap_err().to_string().contains("entailment"));
    }
}
