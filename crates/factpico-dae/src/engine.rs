//! The metric itself (feature `engine`): parses, arc models, aggregation.

use std::ops::Range;
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use factpico_nlp::ptb::ptb_words;
use factpico_nlp::sidecar::{SidecarConfig, SpacySidecar};
use factpico_nlp::{ArcSource, Doc, Parse, ParseMode};
use factpico_runtime::dae::{ArcBatchItem, DaeArcModel};
use factpico_runtime::SessionOptions;
use serde::{Deserialize, Serialize};

pub use crate::encode::{Features, WordArc, WordPieces};
pub use crate::select::Unit;
pub use crate::zeroshot::{ArcProbability, HypothesisSpan};
use crate::{encode, select, zeroshot, MultiSentence};

/// Errors of this crate.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Parsing failed (sidecar, CoNLL-U, alignment...).
    #[error(transparent)]
    Nlp(#[from] factpico_nlp::Error),
    /// Model loading or inference failed.
    #[error(transparent)]
    Runtime(#[from] factpico_runtime::Error),
    /// The AlignScore premise ranker failed.
    #[error(transparent)]
    AlignScore(#[from] factpico_alignscore::Error),
    /// The summary alone does not fit the model: `len(tokens_b)` (summary pieces + 2
    /// `[SEP]`) exceeds `max_length - 2`, where the reference's truncation would need to cut
    /// more than the whole article including `[CLS]` and its positions would be wrong.
    #[error("DAE input encoding: summary needs {summary_pieces} wordpieces with its [SEP]s; more than {max_length} - 2 cannot be encoded")]
    SummaryTooLong {
        /// `len(tokens_b)` (summary pieces + 2 `[SEP]`).
        summary_pieces: usize,
        /// The length limit.
        max_length: usize,
    },
    /// An arc refers to a word index outside the summary.
    #[error("DAE input encoding: arc {index} refers to word {word}, but the summary has {n_words} words")]
    ArcOutOfRange {
        /// Arc index.
        index: usize,
        /// Offending word index.
        word: usize,
        /// Number of summary words.
        n_words: usize,
    },
    /// The wordpiece tokenizer failed (its message).
    #[error("DAE input encoding: tokenizer: {0}")]
    Tokenizer(String),
    /// Invalid options or inputs.
    #[error("invalid DAE option: {0}")]
    InvalidOption(String),
}

/// Result alias of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Which model produces per-arc probabilities.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DaeModel {
    /// A DAE-2021 `ElectraDependencyModel` directory exported by `onnx/export_dae.py`.
    Electra(PathBuf),
    /// Any NLI cross-encoder directory (task `nli`, an `entailment` label), zero-shot.
    ZeroShotNli(PathBuf),
}

/// How per-arc probabilities become the summary score.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Aggregation {
    /// `min_i p_i` (FactPICO). Range [0, 1].
    #[default]
    Min,
    /// `mean_i p_i` (DAE-2020 `evaluate_factuality.py:94-98`). Range [0, 1].
    Mean,
    /// DAE-2021's sentence label: 1 iff every arc's argmax is class 1 (entailed), else 0
    /// (`evaluate_generated_outputs.py:73-93`; a logit tie counts as not entailed).
    ReferenceLabel,
}

/// Options of [`Dae`]. Build with [`DaeOptions::new`] (defaults below) and adjust fields.
#[derive(Clone)]
pub struct DaeOptions {
    /// The model.
    pub model: DaeModel,
    /// Aggregation for [`DaeOutput::score`] (default min). All three are reported anyway.
    pub aggregation: Aggregation,
    /// Multi-sentence handling (default [`MultiSentence::PerSentence`], see `docs/dae.md`).
    pub multi_sentence: MultiSentence,
    /// Arcs scored per unit (reference: 20).
    pub max_arcs: usize,
    /// Wordpiece budget of the ELECTRA input (reference: 512).
    pub max_length: usize,
    /// Examples per ONNX Runtime batch (ELECTRA) / pairs per batch (zero-shot). Default 8.
    pub batch_size: usize,
    /// ONNX Runtime session options.
    pub session: SessionOptions,
    /// Where parses come from when [`Dae::score`] gets none: `None` = a spaCy sidecar with
    /// [`SidecarConfig::default`], started on first use; or a CoNLL-U / JSON-arcs source.
    pub parser: Option<Arc<dyn ArcSource>>,
    /// Zero-shot: how an arc becomes a hypothesis (default [`HypothesisSpan::PredicateSpan`]).
    pub hypothesis: HypothesisSpan,
    /// Zero-shot: which NLI probability is the arc probability (default `1 - P(contradiction)`).
    pub arc_probability: ArcProbability,
    /// Zero-shot: whitespace words per source chunk (AlignScore-style chunking). Default 150
    /// (fits a 256-token NLI model).
    pub chunk_words: usize,
    /// Zero-shot: an AlignScore model directory that picks each sentence's premise chunk
    /// (its `nli_sp` best chunk per summary sentence, same chunking). `None` (default): the
    /// NLI model itself ranks the chunks.
    pub premise_ranker: Option<PathBuf>,
}

impl std::fmt::Debug for DaeOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DaeOptions")
            .field("model", &self.model)
            .field("aggregation", &self.aggregation)
            .field("multi_sentence", &self.multi_sentence)
            .field("max_arcs", &self.max_arcs)
            .field("max_length", &self.max_length)
            .field("batch_size", &self.batch_size)
            .field("parser", &self.parser.as_ref().map(|p| p.name().to_owned()))
            .field("hypothesis", &self.hypothesis)
            .field("arc_probability", &self.arc_probability)
            .field("chunk_words", &self.chunk_words)
            .field("premise_ranker", &self.premise_ranker)
            .finish_non_exhaustive()
    }
}

impl DaeOptions {
    /// Defaults: min aggregation, per-sentence, 20 arcs, 512 wordpieces, batch 8, default
    /// session options, spaCy sidecar, predicate-span hypotheses scored `1 - P(contradiction)`,
    /// 150-word chunks.
    pub fn new(model: DaeModel) -> Self {
        Self {
            model,
            aggregation: Aggregation::default(),
            multi_sentence: MultiSentence::default(),
            max_arcs: 20,
            max_length: 512,
            batch_size: 8,
            session: SessionOptions::default(),
            parser: None,
            hypothesis: HypothesisSpan::default(),
            arc_probability: ArcProbability::default(),
            chunk_words: 150,
            premise_ranker: None,
        }
    }
}

/// One scored arc.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ArcScore {
    /// Relation as mapped (`nsubj`, `nmod:in`, spaCy collapsed `prep:in`...).
    pub relation: String,
    /// Head word as it appears in the summary.
    pub head: String,
    /// Child (dependent) word as it appears in the summary.
    pub child: String,
    /// Byte span of the head in the summary.
    pub head_span: Range<usize>,
    /// Byte span of the child in the summary.
    pub child_span: Range<usize>,
    /// Sentence index (per-sentence mode) or 0.
    pub sentence: usize,
    /// P(entailed) in [0, 1].
    pub probability: f64,
    /// Whether the arc's argmax is "entailed" (ELECTRA: logit 1 > logit 0; zero-shot: the
    /// NLI argmax is the entailment label).
    pub entailed: bool,
    /// Zero-shot only: the hypothesis text checked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hypothesis: Option<String>,
}

/// Why a summary has no score.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NullReason {
    /// The summary is empty or whitespace.
    EmptySummary,
    /// No arc survives the ignore list (one-word or punctuation-only summary). The reference
    /// drops such examples (`train_utils.py:327-329`).
    NoKeptArcs,
    /// Every kept arc touches a word with no wordpiece.
    NoWordpieces,
    /// In [`MultiSentence::SingleParse`], the summary alone exceeds the wordpiece budget.
    SummaryTooLong,
}

/// Result for one (source, summary) pair. Serde-serialisable.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DaeOutput {
    /// The score under the configured [`Aggregation`]; `None` with [`DaeOutput::null_reason`].
    pub score: Option<f64>,
    /// `min_i p_i`.
    pub min: Option<f64>,
    /// `mean_i p_i`.
    pub mean: Option<f64>,
    /// Reference binary label (1 iff every arc is entailed).
    pub label: Option<u8>,
    /// Scored arcs in order (units in order, reference arc order within a unit).
    pub arcs: Vec<ArcScore>,
    /// Arcs kept by the ignore list before the per-unit cap.
    pub n_arcs_kept: usize,
    /// Arcs not scored because head or child has no wordpiece.
    pub n_arcs_skipped: usize,
    /// Largest number of article wordpieces cut by truncation over the units.
    pub truncated_wordpieces: usize,
    /// Why `score` is `None`.
    pub null_reason: Option<NullReason>,
}

/// One item of [`Dae::score_batch`].
#[derive(Debug, Clone, Copy)]
pub struct DaeInput<'a> {
    /// Row id (pre-parsed sources look the summary's parse up by it).
    pub id: &'a str,
    /// Source document (article / abstract).
    pub source: &'a str,
    /// Summary.
    pub summary: &'a str,
    /// The summary's parse, if already available.
    pub arcs: Option<&'a Parse>,
}

enum Scorer {
    Electra(Box<DaeArcModel>),
    ZeroShot(Box<zeroshot::ZeroShot>),
}

/// The DAE metric. `Send + Sync`.
pub struct Dae {
    opts: DaeOptions,
    scorer: Scorer,
    parser: OnceLock<Arc<dyn ArcSource>>,
}

impl std::fmt::Debug for Dae {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Dae").field("opts", &self.opts).finish_non_exhaustive()
    }
}

/// The runtime's word-level WordPiece tokenizer is the production [`WordPieces`].
impl WordPieces for factpico_runtime::dae::DaeTokenizer {
    fn word_pieces(&self, word: &str) -> Result<Vec<u32>, String> {
        factpico_runtime::dae::DaeTokenizer::word_pieces(self, word).map_err(|e| e.to_string())
    }
    fn cls_id(&self) -> u32 {
        factpico_runtime::dae::DaeTokenizer::cls_id(self)
    }
    fn sep_id(&self) -> u32 {
        factpico_runtime::dae::DaeTokenizer::sep_id(self)
    }
}

impl Dae {
    /// Loads the model (the parser starts lazily).
    ///
    /// # Errors
    /// [`Error::InvalidOption`] for `max_arcs == 0`, `batch_size == 0`, `max_length < 8`;
    /// [`Error::Runtime`] for model loading failures.
    pub fn try_new(opts: DaeOptions) -> Result<Self> {
        if opts.max_arcs == 0 || opts.batch_size == 0 || opts.max_length < 8 || opts.chunk_words == 0 {
            return Err(Error::InvalidOption(format!(
                "max_arcs ({}), batch_size ({}) and chunk_words ({}) must be >= 1, max_length ({}) >= 8",
                opts.max_arcs, opts.batch_size, opts.chunk_words, opts.max_length
            )));
        }
        let scorer = match &opts.model {
            DaeModel::Electra(dir) => {
                let m = DaeArcModel::load(dir, &opts.session)?;
                if opts.max_length > m.manifest().max_length {
                    return Err(Error::InvalidOption(format!(
                        "max_length {} exceeds the model's {}",
                        opts.max_length,
                        m.manifest().max_length
                    )));
                }
                Scorer::Electra(Box::new(m))
            }
            DaeModel::ZeroShotNli(dir) => Scorer::ZeroShot(Box::new(zeroshot::ZeroShot::load(dir, &opts)?)),
        };
        let parser = OnceLock::new();
        if let Some(p) = &opts.parser {
            let _ = parser.set(Arc::clone(p));
        }
        Ok(Self { opts, scorer, parser })
    }

    /// The options.
    pub fn options(&self) -> &DaeOptions {
        &self.opts
    }

    /// The parse mode summaries must be parsed with for the configured
    /// [`MultiSentence`] (`OneSentence` for `SingleParse`, `Full` otherwise). Use it when
    /// pre-parsing with a sidecar yourself.
    pub fn parse_mode(&self) -> ParseMode {
        match self.opts.multi_sentence {
            MultiSentence::SingleParse => ParseMode::OneSentence,
            MultiSentence::PerSentence => ParseMode::Full,
        }
    }

    fn parser(&self) -> Arc<dyn ArcSource> {
        Arc::clone(self.parser.get_or_init(|| Arc::new(SpacySidecar::new(SidecarConfig::default()))))
    }

    /// Scores one pair. `arcs`: the summary's parse (else the configured parser runs, with
    /// row id `""`).
    ///
    /// # Errors
    /// Parser, encoding and model errors. Degenerate summaries are not errors: they give
    /// `score: None` with a [`NullReason`].
    pub fn score(&self, source: &str, summary: &str, arcs: Option<&Parse>) -> Result<DaeOutput> {
        let mut v = self.score_batch(&[DaeInput { id: "", source, summary, arcs }])?;
        v.pop().ok_or_else(|| Error::InvalidOption("internal: empty batch result".into()))
    }

    /// Scores many pairs; summaries without a parse are parsed in one batch by the configured
    /// parser (looked up by [`DaeInput::id`] for pre-parsed sources).
    ///
    /// # Errors
    /// As [`Dae::score`].
    pub fn score_batch(&self, items: &[DaeInput<'_>]) -> Result<Vec<DaeOutput>> {
        // 1. parses
        let need: Vec<usize> =
            (0..items.len()).filter(|&i| items[i].arcs.is_none() && !items[i].summary.trim().is_empty()).collect();
        let mut parsed: Vec<Option<Parse>> = vec![None; items.len()];
        if !need.is_empty() {
            let docs: Vec<Doc<'_>> = need.iter().map(|&i| Doc { id: items[i].id, text: items[i].summary }).collect();
            let ps = self.parser().parse(&docs, self.parse_mode())?;
            for (&i, p) in need.iter().zip(ps) {
                parsed[i] = Some(p);
            }
        }
        // 2. units
        let mut per_item: Vec<Vec<Unit>> = Vec::with_capacity(items.len());
        for (i, it) in items.iter().enumerate() {
            let p = it.arcs.or(parsed[i].as_ref());
            per_item.push(match p {
                Some(p) if !it.summary.trim().is_empty() => {
                    select::units(p, it.summary, self.opts.multi_sentence, self.opts.max_arcs)
                }
                _ => Vec::new(),
            });
        }
        // 3. probabilities
        let scored: Vec<Vec<UnitScores>> = match &self.scorer {
            Scorer::Electra(m) => self.electra_scores(m, items, &per_item)?,
            Scorer::ZeroShot(z) => {
                let parses: Vec<Option<&Parse>> =
                    items.iter().enumerate().map(|(i, it)| it.arcs.or(parsed[i].as_ref())).collect();
                z.score(items, &parses, &per_item, &self.opts)?
            }
        };
        // 4. outputs
        Ok(items
            .iter()
            .enumerate()
            .map(|(i, it)| {
                let p = it.arcs.or(parsed[i].as_ref());
                self.output(it, p, &per_item[i], &scored[i])
            })
            .collect())
    }

    fn electra_scores(&self, m: &DaeArcModel, items: &[DaeInput<'_>], units: &[Vec<Unit>]) -> Result<Vec<Vec<UnitScores>>> {
        let pieces = m.tokenizer();
        let mut out: Vec<Vec<UnitScores>> = units.iter().map(|u| vec![UnitScores::default(); u.len()]).collect();
        let mut feats: Vec<(usize, usize, Features)> = Vec::new();
        for (i, us) in units.iter().enumerate() {
            if us.iter().all(|u| u.word_arcs.is_empty()) {
                continue;
            }
            let article: Vec<String> = ptb_words(items[i].source).into_iter().map(|w| w.to_lowercase()).collect();
            for (k, u) in us.iter().enumerate() {
                if u.word_arcs.is_empty() {
                    continue;
                }
                match encode::encode(pieces, &article, &u.words, &u.word_arcs, self.opts.max_length) {
                    Ok(f) => feats.push((i, k, f)),
                    Err(Error::SummaryTooLong { .. }) => out[i][k].too_long = true,
                    Err(e) => return Err(e),
                }
            }
        }
        let mut order: Vec<usize> = (0..feats.len()).collect();
        order.sort_by_key(|&j| feats[j].2.input_ids.len());
        for batch in order.chunks(self.opts.batch_size) {
            let batch: Vec<usize> = batch.iter().copied().filter(|&j| !feats[j].2.child_pos.is_empty()).collect();
            let items: Vec<ArcBatchItem<'_>> = batch
                .iter()
                .map(|&j| ArcBatchItem {
                    input_ids: &feats[j].2.input_ids,
                    child_pos: &feats[j].2.child_pos,
                    head_pos: &feats[j].2.head_pos,
                })
                .collect();
            let logits = m.run(&items)?;
            for (&j, lg) in batch.iter().zip(logits) {
                let (i, k, f) = &feats[j];
                let s = &mut out[*i][*k];
                for (&a, l) in f.arc_index.iter().zip(lg) {
                    let p = factpico_runtime::softmax(&l);
                    s.arcs.push((a, f64::from(p[1]), l[1] > l[0], None));
                }
            }
        }
        for (i, k, f) in &feats {
            out[*i][*k].skipped = f.skipped_arcs.len();
            out[*i][*k].truncated = f.truncated;
        }
        Ok(out)
    }

    fn output(&self, it: &DaeInput<'_>, parse: Option<&Parse>, units: &[Unit], scores: &[UnitScores]) -> DaeOutput {
        let mut arcs = Vec::new();
        let (mut kept, mut skipped, mut trunc, mut too_long) = (0, 0, 0, false);
        for (u, s) in units.iter().zip(scores) {
            kept += u.n_kept;
            skipped += s.skipped;
            trunc = trunc.max(s.truncated);
            too_long |= s.too_long;
            let Some(p) = parse else { continue };
            for (a, prob, entailed, hyp) in &s.arcs {
                let arc = &u.arcs[*a];
                let (h, c) = (&p.tokens[arc.head], &p.tokens[arc.child]);
                arcs.push(ArcScore {
                    relation: arc.relation.clone(),
                    head: it.summary.get(h.span.clone()).unwrap_or(&h.text).to_owned(),
                    child: it.summary.get(c.span.clone()).unwrap_or(&c.text).to_owned(),
                    head_span: h.span.clone(),
                    child_span: c.span.clone(),
                    sentence: u.sentence.unwrap_or(0),
                    probability: *prob,
                    entailed: *entailed,
                    hypothesis: hyp.clone(),
                });
            }
        }
        let null_reason = if it.summary.trim().is_empty() {
            Some(NullReason::EmptySummary)
        } else if kept == 0 {
            Some(NullReason::NoKeptArcs)
        } else if too_long && arcs.is_empty() {
            Some(NullReason::SummaryTooLong)
        } else if arcs.is_empty() {
            Some(NullReason::NoWordpieces)
        } else {
            None
        };
        let (min, mean, label) = if arcs.is_empty() {
            (None, None, None)
        } else {
            let ps: Vec<f64> = arcs.iter().map(|a| a.probability).collect();
            (
                Some(ps.iter().copied().fold(f64::INFINITY, f64::min)),
                Some(ps.iter().sum::<f64>() / ps.len() as f64),
                Some(u8::from(arcs.iter().all(|a| a.entailed))),
            )
        };
        let score = match self.opts.aggregation {
            Aggregation::Min => min,
            Aggregation::Mean => mean,
            Aggregation::ReferenceLabel => label.map(f64::from),
        };
        DaeOutput {
            score,
            min,
            mean,
            label,
            arcs,
            n_arcs_kept: kept,
            n_arcs_skipped: skipped,
            truncated_wordpieces: trunc,
            null_reason,
        }
    }
}

/// Per-unit model results: `(arc index in unit, probability, entailed, hypothesis)`.
#[derive(Debug, Clone, Default)]
pub(crate) struct UnitScores {
    pub(crate) arcs: Vec<(usize, f64, bool, Option<String>)>,
    pub(crate) skipped: usize,
    pub(crate) truncated: usize,
    pub(crate) too_long: bool,
}
