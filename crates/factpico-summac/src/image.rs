//! The NLI image (`SummaCImager.build_image(s)`, `model_summac.py:110-192`): for every
//! (document chunk i, summary chunk j) pair one NLI forward pass, premise = document chunk,
//! hypothesis = summary chunk, giving `[P(entailment), P(contradiction), P(neutral)]`.
use std::path::Path;

use factpico_runtime::{
    softmax, EncodedPair, ModelManifest, PairClassifier, Segment, SessionOptions, TruncationConfig, TruncationSide,
    TruncationStrategy,
};
use factpico_text::{Punkt, Span};
use serde::{Deserialize, Serialize};

use crate::chunking::{split_text, Chunked, Granularities};
use crate::{Error, Result};

/// The reference's cuts, each reported in the row's warnings when it applies.
/// [`Limits::default`] = [`Limits::reference`]; [`Limits::lifted`] removes every cut the
/// model allows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Limits {
    /// Chunks with this many characters (Unicode code points) or fewer are dropped
    /// (reference: `len(chunk) > 10`, so 10). Not applied at `document` granularity.
    pub min_chunk_chars: usize,
    /// Document chunks beyond this many are ignored (reference: `max_doc_sents = 100`);
    /// `None`: no cap.
    pub max_document_chunks: Option<usize>,
    /// Tokens per (premise, hypothesis) pair, special tokens included, cut `longest_first`
    /// as transformers' `truncation=True` does (reference: `max_length=500`; its legacy
    /// `truncation_strategy="only_first"` keyword is ignored by transformers). Capped by the
    /// model's own maximum (the manifest's `max_length`).
    pub max_pair_tokens: usize,
    /// SummaC-Conv uses the histograms of the first this-many summary chunks (reference:
    /// `n_rows = 10`); `None`: all of them.
    pub conv_rows: Option<usize>,
    /// What a row with no (document chunk, summary chunk) pair scores (an empty summary, or
    /// only short sentences on one side).
    pub no_pairs: NoPairs,
}

/// Score of a row whose image has no pair.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NoPairs {
    /// As the reference: the image is `zeros(3, 1, 1)`, so SummaC-ZS gives 0 and SummaC-Conv
    /// the value of its layers on one all-zero-probability row; a warning says so.
    #[default]
    Reference,
    /// No score (`None`, with a null reason).
    Null,
}

impl Default for Limits {
    fn default() -> Self {
        Self::reference()
    }
}

impl Limits {
    /// The reference's behaviour: 10 characters, 100 document chunks, 500 tokens, 10 Conv
    /// rows, 0 for rows without pairs.
    pub const fn reference() -> Self {
        Limits {
            min_chunk_chars: 10,
            max_document_chunks: Some(100),
            max_pair_tokens: 500,
            conv_rows: Some(10),
            no_pairs: NoPairs::Reference,
        }
    }

    /// No cut: only empty chunks are dropped, all document chunks and all summary rows are
    /// used, pairs are cut only at the model's own maximum length, and a row without pairs
    /// has no score.
    pub const fn lifted() -> Self {
        Limits {
            min_chunk_chars: 0,
            max_document_chunks: None,
            max_pair_tokens: usize::MAX,
            conv_rows: None,
            no_pairs: NoPairs::Null,
        }
    }
}

/// Which side of the pair a chunk comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Side {
    /// The source document (premises).
    Document,
    /// The summary (hypotheses).
    Summary,
}

impl std::fmt::Display for Side {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Side::Document => "document",
            Side::Summary => "summary",
        })
    }
}

/// A cut or an edge case that changed what was scored. Every cut the reference makes
/// silently is reported here, so a summary whose only error sits in a dropped sentence
/// never scores as clean without a word.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Warning {
    /// Chunks of `min_chars` characters or fewer were not scored (reference: `len > 10`).
    /// On the summary side those sentences are not checked at all.
    ChunksDropped {
        /// Which text.
        side: Side,
        /// Byte spans of the dropped sentences / paragraphs.
        spans: Vec<Span>,
        /// The threshold in characters.
        min_chars: usize,
    },
    /// Only the first `kept` of `total` document chunks were used as premises
    /// (reference: `max_doc_sents = 100`); evidence after them is not seen.
    DocumentCut {
        /// Chunks used.
        kept: usize,
        /// Chunks after the length filter.
        total: usize,
    },
    /// Pairs with this summary chunk were cut to `max_length` tokens (`longest_first`).
    PairsTruncated {
        /// Summary chunk index (among the kept chunks).
        summary_chunk: usize,
        /// Pairs cut (over the document chunks).
        pairs: usize,
        /// Largest number of premise tokens removed from one pair.
        max_dropped_premise: usize,
        /// Largest number of hypothesis tokens removed from one pair.
        max_dropped_hypothesis: usize,
        /// The limit, special tokens included.
        max_length: usize,
    },
    /// SummaC-Conv used only the first `used` of `total` summary chunks (reference:
    /// `n_rows = 10`); the rest does not affect its score.
    ConvRowsCut {
        /// Rows used.
        used: usize,
        /// Summary chunks.
        total: usize,
    },
    /// There was no (document chunk, summary chunk) pair; the score is the reference's
    /// value for its `zeros(3, 1, 1)` image (SummaC-ZS: 0), not evidence of anything.
    NoPairs {
        /// The side(s) without any chunk.
        empty: Vec<Side>,
    },
}

impl std::fmt::Display for Warning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Warning::ChunksDropped { side, spans, min_chars } => write!(
                f,
                "{} {side} chunk(s) of {min_chars} characters or fewer not scored (bytes {})",
                spans.len(),
                spans.iter().map(|s| format!("{}..{}", s.start, s.end)).collect::<Vec<_>>().join(", ")
            ),
            Warning::DocumentCut { kept, total } => {
                write!(f, "document cut to its first {kept} of {total} chunks; later evidence is not seen")
            }
            Warning::PairsTruncated { summary_chunk, pairs, max_dropped_premise, max_dropped_hypothesis, max_length } => {
                write!(
                    f,
                    "summary chunk {summary_chunk}: {pairs} pair(s) cut to {max_length} tokens (up to {max_dropped_premise} \
                     premise and {max_dropped_hypothesis} hypothesis tokens dropped)"
                )
            }
            Warning::ConvRowsCut { used, total } => {
                write!(f, "SummaC-Conv used the first {used} of {total} summary chunks; the others do not count")
            }
            Warning::NoPairs { empty } => write!(
                f,
                "no pair to score ({} without a chunk); the score is the reference's value for an empty image",
                empty.iter().map(Side::to_string).collect::<Vec<_>>().join(" and ")
            ),
        }
    }
}

/// Options of [`Summac::try_new`]. `Default` = the reference on CPU (`sentence` granularity
/// as in the README and the released Conv weights; the reference class default is
/// `paragraph`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SummacOptions {
    /// Chunking of each side (default `sentence`).
    pub granularity: Granularities,
    /// The cuts (default: the reference's).
    pub limits: Limits,
    /// Index of the entailment label in the model's logits; `None`: the label whose name
    /// contains "entail" (the reference's `model_map` gives it per model: `vitc` 0, `mnli` 2).
    pub entailment_index: Option<usize>,
    /// Index of the contradiction label; `None`: the label whose name contains "contra".
    pub contradiction_index: Option<usize>,
    /// Pairs per ONNX Runtime batch (length-sorted, padded to the longest of each batch).
    /// Does not change scores beyond float noise (≤ 1e-5). Default 32.
    pub batch_size: usize,
    /// ONNX Runtime intra-op threads; 0 = ONNX Runtime's default.
    pub threads: usize,
    /// Further session settings; its `intra_threads` is replaced by `threads`.
    pub session: SessionOptions,
}

impl Default for SummacOptions {
    fn default() -> Self {
        SummacOptions {
            granularity: Granularities::default(),
            limits: Limits::reference(),
            entailment_index: None,
            contradiction_index: None,
            batch_size: 32,
            threads: 0,
            session: SessionOptions::default(),
        }
    }
}

/// The NLI image of one (document, summary) row: probabilities for every (document chunk,
/// summary chunk) pair, plus the chunks and the cuts made.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Image {
    /// Document chunks used as premises (after the length filter and the document cut).
    pub document_chunks: Vec<Chunk>,
    /// Summary chunks used as hypotheses (after the length filter).
    pub summary_chunks: Vec<Chunk>,
    /// `P(entailment)`, row-major `[document chunk][summary chunk]`. For a row without
    /// pairs under [`NoPairs::Reference`]: one 0 (the reference's `zeros(3, 1, 1)`).
    pub entailment: Vec<f32>,
    /// `P(contradiction)`, same layout.
    pub contradiction: Vec<f32>,
    /// `P(neutral)`, same layout.
    pub neutral: Vec<f32>,
    /// Rows (document side) of the probability matrices.
    pub n_document: usize,
    /// Columns (summary side) of the probability matrices.
    pub n_summary: usize,
    /// True when the image is the reference's `zeros(3, 1, 1)` stand-in for a row without
    /// pairs ([`NoPairs::Reference`]) — or, under [`NoPairs::Null`], when it is empty.
    pub no_pairs: bool,
    /// Cuts and edge cases (SummaC-Conv adds its row cut when it scores).
    pub warnings: Vec<Warning>,
}

pub use crate::chunking::Chunk;

impl Image {
    /// `P(label)` of channel `c` (0 entailment, 1 contradiction, 2 neutral — the reference's
    /// image order) at (document chunk `i`, summary chunk `j`).
    pub fn at(&self, c: usize, i: usize, j: usize) -> f32 {
        let m = match c {
            0 => &self.entailment,
            1 => &self.contradiction,
            _ => &self.neutral,
        };
        m.get(i * self.n_summary + j).copied().unwrap_or(0.0)
    }

    /// Column `j` of channel `c`: the values over the document chunks.
    pub fn column(&self, c: usize, j: usize) -> Vec<f32> {
        (0..self.n_document).map(|i| self.at(c, i, j)).collect()
    }
}

/// SummaC's imager over an NLI model directory: chunks both texts and runs the NLI model on
/// every (document chunk, summary chunk) pair. SummaC-ZS ([`crate::ZsOptions`]) and
/// SummaC-Conv ([`crate::ConvHead`]) are functions of its [`Image`]s. `Send + Sync`.
#[derive(Debug)]
pub struct Summac {
    clf: PairClassifier,
    punkt: Punkt,
    granularity: Granularities,
    limits: Limits,
    max_length: usize,
    labels: [usize; 3],
    batch_size: usize,
}

const TRUNCATION: TruncationConfig =
    TruncationConfig { strategy: TruncationStrategy::LongestFirst, side: TruncationSide::Right, fallback: None };

impl Summac {
    /// Loads an NLI model directory (`model.onnx`, `tokenizer.json`, `factpico.json` or a
    /// Hugging Face `config.json`; e.g. `onnx/export_summac.py nli` of `vitc`, or the MiniLM
    /// NLI test asset).
    ///
    /// # Errors
    /// [`Error::Runtime`] for a missing/invalid model or ONNX Runtime library;
    /// [`Error::InvalidOption`] for a zero batch size, a model without three labels, label
    /// indices that cannot be found or coincide, or a token limit that leaves no room for text.
    pub fn try_new(model_dir: impl AsRef<Path>, options: SummacOptions) -> Result<Self> {
        if options.batch_size == 0 {
            return Err(Error::InvalidOption("batch_size must be at least 1".into()));
        }
        let session = options.session.clone().intra_threads(options.threads);
        let clf = PairClassifier::load(model_dir, &session)?;
        let labels = resolve_labels(clf.manifest(), options.entailment_index, options.contradiction_index)?;
        let max_length = options.limits.max_pair_tokens.min(clf.manifest().max_length);
        if max_length <= clf.special_tokens_in_pair() {
            return Err(Error::InvalidOption(format!(
                "max_pair_tokens {max_length} leaves no room for text ({} special tokens)",
                clf.special_tokens_in_pair()
            )));
        }
        Ok(Summac {
            clf,
            punkt: Punkt::english(),
            granularity: options.granularity,
            limits: options.limits,
            max_length,
            labels,
            batch_size: options.batch_size,
        })
    }

    /// The granularities in use.
    pub fn granularity(&self) -> Granularities {
        self.granularity
    }
    /// The cuts in use.
    pub fn limits(&self) -> &Limits {
        &self.limits
    }
    /// Tokens per pair actually applied: `min(limits.max_pair_tokens, manifest max_length)`.
    pub fn max_length(&self) -> usize {
        self.max_length
    }
    /// `[entailment, contradiction, neutral]` indices into the model's logits.
    pub fn label_indices(&self) -> [usize; 3] {
        self.labels
    }
    /// The model's manifest (provenance).
    pub fn manifest(&self) -> &ModelManifest {
        self.clf.manifest()
    }
    /// sha256 of `model.onnx` (computed once), for provenance.
    ///
    /// # Errors
    /// [`Error::Runtime`] when the file cannot be read.
    pub fn model_sha256(&self) -> Result<&str> {
        Ok(self.clf.model_dir().model_sha256()?)
    }
    /// The underlying pair classifier (work counters).
    pub fn classifier(&self) -> &PairClassifier {
        &self.clf
    }

    /// Chunks of one text at `granularity` with the length filter, for inspection.
    pub fn chunks(&self, text: &str, side: Side) -> Chunked {
        let g = match side {
            Side::Document => self.granularity.document,
            Side::Summary => self.granularity.summary,
        };
        split_text(&self.punkt, text, g, self.limits.min_chunk_chars)
    }

    /// Builds the images of many (document, summary) rows, batching all their pairs together
    /// (as the reference's `build_images`).
    ///
    /// # Errors
    /// [`Error::Runtime`] when tokenisation or inference fails.
    pub fn images(&self, rows: &[(&str, &str)]) -> Result<Vec<Image>> {
        let mut images = Vec::with_capacity(rows.len());
        let mut encoded: Vec<EncodedPair> = Vec::new();
        let mut firsts = Vec::with_capacity(rows.len());
        for (document, summary) in rows {
            let img = self.prepare(document, summary)?;
            firsts.push(encoded.len());
            if !img.no_pairs {
                // Each chunk is tokenised once and reused in all its pairs.
                let docs = img.document_chunks.iter().map(|c| self.clf.segment(&c.text)).collect::<Result<Vec<_>, _>>()?;
                let sums = img.summary_chunks.iter().map(|c| self.clf.segment(&c.text)).collect::<Result<Vec<_>, _>>()?;
                let pairs: Vec<(&Segment, &Segment)> =
                    docs.iter().flat_map(|d| sums.iter().map(move |s| (d, s))).collect();
                encoded.extend(self.clf.encode_group(&pairs, self.max_length, &TRUNCATION)?);
            }
            images.push(img);
        }
        let outputs = self.clf.run(&encoded, self.batch_size)?;
        let out_name = self.clf.output_names().first().cloned().unwrap_or_default();
        for (img, &first) in images.iter_mut().zip(&firsts) {
            if img.no_pairs {
                continue;
            }
            let (nd, ns) = (img.n_document, img.n_summary);
            let mut trunc: Vec<(usize, usize, usize)> = vec![(0, 0, 0); ns];
            for k in 0..nd * ns {
                let logits = outputs[first + k]
                    .get(&out_name)
                    .ok_or_else(|| Error::InvalidOption(format!("the model has no output {out_name:?}")))?;
                if logits.len() <= self.labels.iter().copied().max().unwrap_or(0) {
                    return Err(Error::InvalidOption(format!(
                        "the model gives {} logits per pair; 3 NLI labels are needed",
                        logits.len()
                    )));
                }
                let p = softmax(logits);
                img.entailment[k] = p[self.labels[0]];
                img.contradiction[k] = p[self.labels[1]];
                img.neutral[k] = p[self.labels[2]];
                let t = encoded[first + k].truncation;
                if t.dropped() > 0 {
                    let e = &mut trunc[k % ns];
                    e.0 += 1;
                    e.1 = e.1.max(t.dropped_premise);
                    e.2 = e.2.max(t.dropped_hypothesis);
                }
            }
            for (j, (pairs, dp, dh)) in trunc.into_iter().enumerate() {
                if pairs > 0 {
                    img.warnings.push(Warning::PairsTruncated {
                        summary_chunk: j,
                        pairs,
                        max_dropped_premise: dp,
                        max_dropped_hypothesis: dh,
                        max_length: self.max_length,
                    });
                }
            }
        }
        Ok(images)
    }

    /// The image of one row.
    ///
    /// # Errors
    /// As [`Summac::images`].
    pub fn image(&self, document: &str, summary: &str) -> Result<Image> {
        let mut v = self.images(&[(document, summary)])?;
        v.pop().ok_or_else(|| Error::InvalidOption("internal: no image".into()))
    }

    /// Chunks one row, applies the filters and the document cut, allocates the image.
    fn prepare(&self, document: &str, summary: &str) -> Result<Image> {
        let mut warnings = Vec::new();
        let min = self.limits.min_chunk_chars;
        let mut doc = self.chunks(document, Side::Document);
        let sum = self.chunks(summary, Side::Summary);
        for (side, c) in [(Side::Document, &doc), (Side::Summary, &sum)] {
            if !c.dropped.is_empty() {
                warnings.push(Warning::ChunksDropped { side, spans: c.dropped.clone(), min_chars: min });
            }
        }
        if let Some(cap) = self.limits.max_document_chunks {
            if doc.chunks.len() > cap {
                warnings.push(Warning::DocumentCut { kept: cap, total: doc.chunks.len() });
                doc.chunks.truncate(cap);
            }
        }
        let Chunked { chunks: document_chunks, .. } = doc;
        let Chunked { chunks: summary_chunks, .. } = sum;
        let (nd, ns) = (document_chunks.len(), summary_chunks.len());
        if nd == 0 || ns == 0 {
            let mut empty = Vec::new();
            if nd == 0 {
                empty.push(Side::Document);
            }
            if ns == 0 {
                empty.push(Side::Summary);
            }
            warnings.push(Warning::NoPairs { empty });
            let k = usize::from(self.limits.no_pairs == NoPairs::Reference);
            return Ok(Image {
                document_chunks,
                summary_chunks,
                entailment: vec![0.0; k],
                contradiction: vec![0.0; k],
                neutral: vec![0.0; k],
                n_document: k,
                n_summary: k,
                no_pairs: true,
                warnings,
            });
        }
        Ok(Image {
            document_chunks,
            summary_chunks,
            entailment: vec![0.0; nd * ns],
            contradiction: vec![0.0; nd * ns],
            neutral: vec![0.0; nd * ns],
            n_document: nd,
            n_summary: ns,
            no_pairs: false,
            warnings,
        })
    }
}

/// `[entailment, contradiction, neutral]` label indices of the model's first output.
fn resolve_labels(m: &ModelManifest, ent: Option<usize>, con: Option<usize>) -> Result<[usize; 3]> {
    let out = m.outputs.first().map(String::as_str).unwrap_or("logits");
    let n = m.labels_of(out).map_or(3, <[String]>::len);
    if n != 3 {
        return Err(Error::InvalidOption(format!(
            "SummaC needs a 3-way NLI model; output {out:?} has {n} labels ({:?})",
            m.labels_of(out).unwrap_or_default()
        )));
    }
    let find = |given: Option<usize>, needle: &str, what: &str| -> Result<usize> {
        given.or_else(|| m.label_index(out, needle)).ok_or_else(|| {
            Error::InvalidOption(format!(
                "no {what} label among {:?}; give its index (the reference's model_map entry: vitc entailment 0 \
                 contradiction 1, mnli 2 and 0, anli 0 and 2)",
                m.labels_of(out).unwrap_or_default()
            ))
        })
    };
    let e = find(ent, "entail", "entailment")?;
    let c = find(con, "contra", "contradiction")?;
    if e >= 3 || c >= 3 || e == c {
        return Err(Error::InvalidOption(format!(
            "entailment index {e} and contradiction index {c} must be distinct and below 3"
        )));
    }
    Ok([e, c, 3 - e - c])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn manifest(labels: &[&str]) -> ModelManifest {
        let v = serde_json::json!({
            "schema_version": 1, "architecture": "albert", "task": "nli", "inputs": ["input_ids"],
            "outputs": ["logits"], "labels": {"logits": labels}, "max_length": 512,
            "truncation": {"strategy": "longest_first"}, "pad_token_id": 0
        });
        serde_json::from_value(v).unwrap_or_else(|e| unreachable!("{e}"))
    }

    #[test]
    fn labels_from_names_or_indices() {
        let m = manifest(&["entailment", "neutral", "contradiction"]);
        assert_eq!(resolve_labels(&m, None, None).ok(), Some([0, 2, 1]));
        let m = manifest(&["entailment", "contradiction", "neutral"]);
        assert_eq!(resolve_labels(&m, None, None).ok(), Some([0, 1, 2]));
        let m = manifest(&["SUPPORTS", "REFUTES", "NOT ENOUGH INFO"]);
        assert!(resolve_labels(&m, None, None).is_err());
        assert_eq!(resolve_labels(&m, Some(0), Some(1)).ok(), Some([0, 1, 2]));
        assert!(resolve_labels(&m, Some(1), Some(1)).is_err());
        let m = manifest(&["not_aligned", "aligned"]);
        assert!(resolve_labels(&m, Some(0), Some(1)).is_err());
    }

    #[test]
    fn limits_presets() {
        assert_eq!(Limits::default(), Limits::reference());
        assert_eq!(Limits::reference().min_chunk_chars, 10);
        assert_eq!(Limits::lifted().conv_rows, None);
    }
}
