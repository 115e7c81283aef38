//! Linguistic annotations shared by factpico's DAE metric and its QA metrics.
//!
//! * [`Parse`]: one annotated text — tokens with **byte spans into the original text**,
//!   sentences, POS, basic dependency tree (heads/relations), optionally an enhanced
//!   dependency graph, named entities and noun chunks.
//! * [`ArcSource`]: anything that turns texts into [`Parse`]s. Implementations:
//!   [`conllu::ConlluSource`] (pre-parsed CoNLL-U, e.g. CoreNLP 3.9.1 enhanced UD for exact
//!   DAE parity), [`json_arcs::JsonArcsSource`] (a documented JSON-lines form any parser can
//!   emit) and [`sidecar::SpacySidecar`] (a spaCy `en_core_web_sm` 3.8.0 Python process).
//! * [`labels`]: which dependency arcs DAE scores — the reference ignore list of
//!   `tagoyal/factuality-datasets` `train_utils.py:45`, mapped onto each label scheme.
//! * [`ptb`]: PTB-style token normalisation (`(` → `-LRB-`, `"` → ``` `` ```/`''`, ...)
//!   approximating CoreNLP 3.9.1's `PTBTokenizer` for non-CoreNLP tokens.
#![forbid(unsafe_code)]

pub mod align;
pub mod conllu;
pub mod json_arcs;
pub mod labels;
pub mod ptb;
pub mod sidecar;

use std::ops::Range;

use serde::{Deserialize, Serialize};

pub use labels::{LabelScheme, ScoredArc};

/// Errors of this crate.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A CoNLL-U line could not be read. `line` is 1-based within the input.
    #[error("CoNLL-U line {line}: {message}")]
    Conllu {
        /// 1-based line number in the CoNLL-U input.
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// A JSON-arcs record could not be read. `line` is 1-based within the input.
    #[error("JSON arcs line {line}: {message}")]
    JsonArcs {
        /// 1-based line number in the JSON-lines input.
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// Pre-parsed tokens could not be located in the text they claim to annotate.
    #[error("document `{doc}`: {message}")]
    Alignment {
        /// The document id.
        doc: String,
        /// What could not be aligned.
        message: String,
    },
    /// A pre-parsed source has no parse for a requested document id.
    #[error("no parse for document id `{0}` in the pre-parsed input")]
    MissingDocument(String),
    /// Python (for the spaCy sidecar) could not be found or started.
    #[error("the spaCy sidecar needs Python: {message}\n{hint}")]
    PythonMissing {
        /// What was tried.
        message: String,
        /// How to fix it.
        hint: String,
    },
    /// The sidecar started but spaCy or the English model is not installed.
    #[error("the spaCy sidecar is not set up: {message}\n{hint}")]
    SidecarSetup {
        /// The sidecar's own report.
        message: String,
        /// How to fix it.
        hint: String,
    },
    /// The sidecar died, timed out or answered something unreadable (after one restart).
    #[error("spaCy sidecar failed: {0}")]
    Sidecar(String),
    /// The sidecar reported an error for a request.
    #[error("spaCy sidecar error ({kind}): {message}")]
    SidecarRequest {
        /// Machine-readable kind from the protocol (`bad_request`, `internal`, ...).
        kind: String,
        /// Human-readable message.
        message: String,
    },
    /// A pre-parsed arcs file whose format cannot be told from its extension.
    #[error("{path}: unknown arcs format: use a .conllu (CoNLL-U) or .jsonl (JSON arcs / CoreNLP JSON) file")]
    UnknownArcsFormat {
        /// The file.
        path: String,
    },
    /// I/O error reading an input file (the I/O error is the `source()`).
    #[error("cannot read {path}")]
    Io {
        /// The file.
        path: String,
        /// The underlying error.
        source: std::io::Error,
    },
}

/// Result alias of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// One token (a *syntactic word* in CoNLL-U terms) of a [`Parse`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Token {
    /// The token as the parser wrote it (CoNLL-U FORM, spaCy `token.text`). For CoreNLP
    /// this is already PTB-normalised (`-LRB-`, ``` `` ```...).
    pub text: String,
    /// Byte span in the original text. For multiword-token parts (CoNLL-U `1-2`) every part
    /// carries the span of the whole surface token.
    pub span: Range<usize>,
    /// Whether whitespace follows the token in the original text.
    pub space_after: bool,
    /// Universal POS tag (CoNLL-U UPOS, spaCy `pos_`); empty when unknown.
    pub pos: String,
    /// Language-specific tag (CoNLL-U XPOS, spaCy `tag_`, PTB tags); empty when unknown.
    pub tag: String,
    /// Lemma; empty when unknown.
    pub lemma: String,
    /// Basic-tree head as a token index into [`Parse::tokens`]; `None` for the root (or unknown).
    pub head: Option<usize>,
    /// Basic-tree relation to the head (`nsubj`, `ROOT`/`root`, ...); empty when unknown.
    pub dep: String,
    /// Index into [`Parse::sentences`].
    pub sentence: usize,
}

/// A dependency arc between two tokens of a [`Parse`] (indices into [`Parse::tokens`]).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Arc {
    /// Governor token index; `None` for the artificial ROOT.
    pub head: Option<usize>,
    /// Dependent token index.
    pub child: usize,
    /// Relation label exactly as the parser gave it (e.g. `nmod:in`, `prep`).
    pub relation: String,
}

/// A sentence: a contiguous token range and its byte span.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sentence {
    /// Token index range into [`Parse::tokens`].
    pub tokens: Range<usize>,
    /// Byte span in the original text (first token start .. last token end).
    pub span: Range<usize>,
}

/// A named entity or noun chunk: a contiguous token range with a byte span.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Mention {
    /// Token index range into [`Parse::tokens`].
    pub tokens: Range<usize>,
    /// Byte span in the original text.
    pub span: Range<usize>,
    /// Entity label (`ORG`, `CARDINAL`, ...) or, for noun chunks, `NP`.
    pub label: String,
    /// Token index of the syntactic root (noun chunks); `None` for entities.
    pub root: Option<usize>,
}

/// A full annotation of one text.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Parse {
    /// Tokens in text order.
    pub tokens: Vec<Token>,
    /// Sentences in text order; they partition `tokens`.
    pub sentences: Vec<Sentence>,
    /// Enhanced dependency graph (CoNLL-U DEPS column) when the source provided one, in
    /// CoreNLP's JSON order (by dependent index, then governor index). `None` = basic only.
    pub enhanced: Option<Vec<Arc>>,
    /// Named entities (empty when the source has none).
    pub entities: Vec<Mention>,
    /// Noun chunks (empty when the source has none).
    pub noun_chunks: Vec<Mention>,
    /// Label scheme of `dep`/`enhanced` relations; decides the DAE ignore mapping.
    pub scheme: LabelScheme,
}

impl Parse {
    /// The basic dependency tree as arcs, ordered by dependent index (root arcs included,
    /// with `head: None`).
    pub fn basic_arcs(&self) -> Vec<Arc> {
        self.tokens
            .iter()
            .enumerate()
            .filter(|(_, t)| !t.dep.is_empty())
            .map(|(i, t)| Arc { head: t.head, child: i, relation: t.dep.clone() })
            .collect()
    }

    /// The graph DAE reads: the enhanced graph when present (reference: CoreNLP
    /// `enhancedDependencies`), else the basic tree.
    pub fn dependency_arcs(&self) -> Vec<Arc> {
        match &self.enhanced {
            Some(e) => e.clone(),
            None => self.basic_arcs(),
        }
    }

    /// Index of the sentence holding token `i`, if `i` is in range.
    pub fn sentence_of(&self, i: usize) -> Option<usize> {
        self.tokens.get(i).map(|t| t.sentence)
    }

    /// Sub-parse of one sentence with token indices re-based to 0 (arcs leaving the sentence
    /// are dropped; entities/noun chunks inside it are kept). `None` when `s` is out of range.
    pub fn sentence_parse(&self, s: usize) -> Option<Parse> {
        let sent = self.sentences.get(s)?;
        let r = sent.tokens.clone();
        let off = r.start;
        let inside = |i: usize| r.contains(&i);
        let tokens = self.tokens[r.clone()]
            .iter()
            .map(|t| {
                let mut t = t.clone();
                t.head = t.head.filter(|h| inside(*h)).map(|h| h - off);
                t.sentence = 0;
                t
            })
            .collect();
        let enhanced = self.enhanced.as_ref().map(|arcs| {
            arcs.iter()
                .filter(|a| inside(a.child) && a.head.is_none_or(inside))
                .map(|a| Arc { head: a.head.map(|h| h - off), child: a.child - off, relation: a.relation.clone() })
                .collect()
        });
        let sub = |ms: &[Mention]| -> Vec<Mention> {
            ms.iter()
                .filter(|m| m.tokens.start >= r.start && m.tokens.end <= r.end)
                .map(|m| Mention {
                    tokens: m.tokens.start - off..m.tokens.end - off,
                    span: m.span.clone(),
                    label: m.label.clone(),
                    root: m.root.map(|x| x - off),
                })
                .collect()
        };
        Some(Parse {
            tokens,
            sentences: vec![Sentence { tokens: 0..r.len(), span: sent.span.clone() }],
            enhanced,
            entities: sub(&self.entities),
            noun_chunks: sub(&self.noun_chunks),
            scheme: self.scheme,
        })
    }
}

/// One document to annotate: a row id (used by pre-parsed sources to find its parse) and
/// the original text (byte spans refer to it).
#[derive(Debug, Clone, Copy)]
pub struct Doc<'a> {
    /// Row / document id (pre-parsed sources look parses up by it; the sidecar ignores it).
    pub id: &'a str,
    /// The original text.
    pub text: &'a str,
}

/// What an [`ArcSource`] should produce for each text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum ParseMode {
    /// Full annotation: tokens, sentences, POS, dependencies, entities, noun chunks.
    #[default]
    Full,
    /// Full annotation, but each text is parsed as **one** sentence (CoreNLP
    /// `ssplit.isOneSentence=True`, as the DAE reference does for summaries).
    OneSentence,
    /// Tokens (and sentences, when cheap) only; no POS/dependencies.
    TokensOnly,
}

/// A source of dependency parses. Implementations are interchangeable: DAE and the QA
/// metrics only see [`Parse`]s.
pub trait ArcSource: Send + Sync {
    /// Annotates each document; output `i` belongs to `docs[i]`.
    ///
    /// # Errors
    /// Source-specific: missing pre-parsed document, token/text misalignment, sidecar
    /// failures (see [`Error`]).
    fn parse(&self, docs: &[Doc<'_>], mode: ParseMode) -> Result<Vec<Parse>>;

    /// Short name for reports (`conllu`, `json-arcs`, `spacy`).
    fn name(&self) -> &str;
}

/// Opens a pre-parsed arcs file as an [`ArcSource`] keyed by row id: `.conllu`/`.conll` →
/// [`conllu::ConlluSource`], `.jsonl`/`.json` → [`json_arcs::JsonArcsSource`] (which also reads
/// CoreNLP server JSON records). This is what the CLI's `--arcs FILE` uses.
///
/// # Errors
/// [`Error::Io`], parse errors of the format, or an unknown extension (as [`Error::Io`] with
/// kind `InvalidInput`).
pub fn open_arcs(path: &std::path::Path) -> Result<std::sync::Arc<dyn ArcSource>> {
    let ext = path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase);
    match ext.as_deref() {
        Some("conllu" | "conll") => Ok(std::sync::Arc::new(conllu::ConlluSource::from_path(path)?)),
        Some("jsonl" | "json") => Ok(std::sync::Arc::new(json_arcs::JsonArcsSource::from_path(path)?)),
        _ => Err(Error::UnknownArcsFormat { path: path.display().to_string() }),
    }
}

/// Builds sentences from per-token sentence indices (tokens must be grouped in order).
pub(crate) fn sentences_from_tokens(tokens: &[Token]) -> Vec<Sentence> {
    let mut out: Vec<Sentence> = Vec::new();
    let mut current: Option<usize> = None;
    for (i, t) in tokens.iter().enumerate() {
        if current == Some(t.sentence) {
            if let Some(s) = out.last_mut() {
                s.tokens.end = i + 1;
                s.span.end = s.span.end.max(t.span.end);
            }
        } else {
            out.push(Sentence { tokens: i..i + 1, span: t.span.clone() });
            current = Some(t.sentence);
        }
    }
    out
}
