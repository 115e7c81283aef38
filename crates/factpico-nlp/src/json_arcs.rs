//! Pre-parsed input as JSON lines ("JSON arcs"), one record per row, for any parser.
//!
//! # Schema (one JSON object per line; blank lines ignored)
//!
//! ```json
//! {"id": "fx01",
//!  "scheme": "ud",
//!  "tokens": ["The", "drug", "lowered", "pressure", "."],
//!  "arcs": [{"head": 1, "child": 0, "relation": "det"},
//!           {"head": 2, "child": 1, "relation": "nsubj"},
//!           {"head": null, "child": 2, "relation": "root"},
//!           {"head": 2, "child": 3, "relation": "dobj"},
//!           {"head": 2, "child": 4, "relation": "punct"}]}
//! ```
//!
//! * `id` (string, required): the row id the parse belongs to.
//! * `tokens` (required): either strings, or objects
//!   `{"text": str, "start": int?, "end": int?, "pos": str?, "tag": str?, "lemma": str?, "sentence": int?}`.
//!   `start`/`end` are **byte** offsets into the row's text (end exclusive); when absent the
//!   token is located by aligning `text` left to right (PTB escapes and case differences are
//!   accepted, see [`crate::align`]). `sentence` (0-based, non-decreasing) defaults to 0.
//! * `arcs` (required): `head` and `child` are 0-based token indices; `head` is `null` or
//!   `-1` for the root. **Order matters**: DAE scores the first 20 kept arcs in this order
//!   (CoreNLP order is by child, then head). The arcs form the graph DAE reads (enhanced or
//!   basic, as you choose); each token's basic head is taken from its first arc.
//! * `scheme` (optional, default `"ud"`): `"ud"` (exact reference ignore list) or `"spacy"`
//!   (ClearNLP labels; see [`crate::labels`]).
//! * `entities`, `noun_chunks` (optional): `[{"start_token": int, "end_token": int, "label": str}]`,
//!   token ranges end-exclusive.
//! * token objects may also carry `surface` (str): the text to find in the row's text when it
//!   differs from `text` (e.g. CoreNLP `originalText` vs its PTB `word`).
//!
//! # CoreNLP server JSON
//!
//! A record may instead be `{"id": "fx01", "corenlp": <the JSON a CoreNLP server returns>}`
//! (`outputFormat=json`, e.g. with the DAE reference's properties
//! `tokenize,ssplit,pos,depparse` and `ssplit.isOneSentence=true`). Tokens are the `word`s
//! (aligned via `originalText` when present), arcs are `enhancedDependencies` (else
//! `basicDependencies`) **in the server's order**, which is the order the reference scores
//! (spec §1), with governor/dependent indices made document-wide; scheme `ud`. This is the
//! exact-parity path for users who run CoreNLP 3.9.1.

use std::collections::HashMap;
use std::path::Path;

use serde::Deserialize;

use crate::align::Aligner;
use crate::{Arc, ArcSource, Doc, Error, LabelScheme, Mention, Parse, ParseMode, Result, Token};

#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum JsonToken {
    Plain(String),
    Full {
        text: String,
        #[serde(default)]
        surface: Option<String>,
        start: Option<usize>,
        end: Option<usize>,
        #[serde(default)]
        pos: String,
        #[serde(default)]
        tag: String,
        #[serde(default)]
        lemma: String,
        #[serde(default)]
        sentence: usize,
    },
}

#[derive(Debug, Deserialize)]
struct JsonArc {
    head: Option<i64>,
    child: usize,
    relation: String,
}

#[derive(Debug, Deserialize)]
struct JsonMention {
    start_token: usize,
    end_token: usize,
    #[serde(default)]
    label: String,
}

#[derive(Debug, Deserialize)]
struct CnToken {
    word: String,
    #[serde(rename = "originalText")]
    original: Option<String>,
    #[serde(default)]
    pos: String,
    #[serde(default)]
    lemma: String,
}

#[derive(Debug, Deserialize)]
struct CnDep {
    dep: String,
    governor: usize,
    dependent: usize,
}

#[derive(Debug, Deserialize)]
struct CnSentence {
    tokens: Vec<CnToken>,
    #[serde(rename = "enhancedDependencies")]
    enhanced: Option<Vec<CnDep>>,
    #[serde(rename = "basicDependencies")]
    basic: Option<Vec<CnDep>>,
}

#[derive(Debug, Deserialize)]
struct CnDoc {
    sentences: Vec<CnSentence>,
}

#[derive(Debug, Deserialize)]
struct CnRecord {
    id: String,
    corenlp: CnDoc,
}

impl CnRecord {
    fn into_record(self) -> std::result::Result<Record, String> {
        let mut tokens = Vec::new();
        let mut arcs = Vec::new();
        for (si, s) in self.corenlp.sentences.into_iter().enumerate() {
            let base = tokens.len();
            let n = s.tokens.len();
            let deps = s.enhanced.or(s.basic).unwrap_or_default();
            for d in deps {
                if d.dependent == 0 || d.dependent > n || d.governor > n {
                    return Err(format!("sentence {si}: dependency {}({}, {}) outside its {n} tokens", d.dep, d.governor, d.dependent));
                }
                arcs.push(JsonArc {
                    head: (d.governor > 0).then(|| (base + d.governor - 1) as i64),
                    child: base + d.dependent - 1,
                    relation: d.dep,
                });
            }
            for t in s.tokens {
                tokens.push(JsonToken::Full {
                    text: t.word,
                    surface: t.original,
                    start: None,
                    end: None,
                    pos: String::new(),
                    tag: t.pos,
                    lemma: t.lemma,
                    sentence: si,
                });
            }
        }
        Ok(Record { id: self.id, tokens, arcs, scheme: LabelScheme::Ud, entities: Vec::new(), noun_chunks: Vec::new() })
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Record {
    id: String,
    tokens: Vec<JsonToken>,
    arcs: Vec<JsonArc>,
    #[serde(default)]
    scheme: LabelScheme,
    #[serde(default)]
    entities: Vec<JsonMention>,
    #[serde(default)]
    noun_chunks: Vec<JsonMention>,
}

/// Pre-parsed JSON-lines input (schema in the module docs), keyed by row id.
#[derive(Debug, Default)]
pub struct JsonArcsSource {
    records: HashMap<String, (usize, Record)>,
}

fn err(line: usize, message: impl Into<String>) -> Error {
    Error::JsonArcs { line, message: message.into() }
}

impl JsonArcsSource {
    /// Reads a JSON-lines file. See [`JsonArcsSource::from_str`].
    ///
    /// # Errors
    /// I/O errors and every error of [`JsonArcsSource::from_str`].
    pub fn from_path(path: &Path) -> Result<Self> {
        let text = std::fs::read_to_string(path)
            .map_err(|source| Error::Io { path: path.display().to_string(), source })?;
        Self::from_str(&text)
    }

    /// Parses JSON-lines text.
    ///
    /// # Errors
    /// [`Error::JsonArcs`] naming the line for invalid JSON, a schema violation, an arc index
    /// outside the token list, non-decreasing `sentence` violations, or a repeated id.
    #[allow(clippy::should_implement_trait)]
    pub fn from_str(text: &str) -> Result<Self> {
        let mut records = HashMap::new();
        for (i, l) in text.lines().enumerate() {
            let line = i + 1;
            if l.trim().is_empty() {
                continue;
            }
            let v: serde_json::Value = serde_json::from_str(l).map_err(|e| err(line, e.to_string()))?;
            let r: Record = if v.get("corenlp").is_some() {
                let c: CnRecord = serde_json::from_value(v).map_err(|e| err(line, format!("CoreNLP record: {e}")))?;
                c.into_record().map_err(|e| err(line, e))?
            } else {
                serde_json::from_value(v).map_err(|e| err(line, e.to_string()))?
            };
            let n = r.tokens.len();
            for a in &r.arcs {
                if a.child >= n {
                    return Err(err(line, format!("arc child {} outside the {n} tokens", a.child)));
                }
                if let Some(h) = a.head {
                    if h < -1 || h >= n as i64 {
                        return Err(err(line, format!("arc head {h} outside the {n} tokens")));
                    }
                }
            }
            for m in r.entities.iter().chain(&r.noun_chunks) {
                if m.start_token >= m.end_token || m.end_token > n {
                    return Err(err(line, format!("bad mention token range {}..{}", m.start_token, m.end_token)));
                }
            }
            let mut last = 0;
            for t in &r.tokens {
                if let JsonToken::Full { sentence, .. } = t {
                    if *sentence < last {
                        return Err(err(line, "token `sentence` indices must be non-decreasing"));
                    }
                    last = *sentence;
                }
            }
            if records.contains_key(&r.id) {
                return Err(err(line, format!("row id {:?} appears twice", r.id)));
            }
            records.insert(r.id.clone(), (line, r));
        }
        Ok(Self { records })
    }

    /// Number of records.
    pub fn len(&self) -> usize {
        self.records.len()
    }

    /// Whether there are no records.
    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }

    /// Builds the [`Parse`] of row `id` against its original `text`.
    ///
    /// # Errors
    /// [`Error::MissingDocument`]; [`Error::Alignment`] for tokens not found in `text` or
    /// byte offsets outside it / not on char boundaries.
    pub fn parse_doc(&self, id: &str, text: &str) -> Result<Parse> {
        let (line, r) = self.records.get(id).ok_or_else(|| Error::MissingDocument(id.to_owned()))?;
        let aerr = |m: String| Error::Alignment { doc: id.to_owned(), message: format!("JSON arcs line {line}: {m}") };
        let mut aligner = Aligner::new(text);
        let mut tokens = Vec::with_capacity(r.tokens.len());
        let mut sent_ids = Vec::new();
        for t in &r.tokens {
            let (text_, surface, start, end, pos, tag, lemma, sentence) = match t {
                JsonToken::Plain(s) => (s, None, None, None, "", "", "", 0),
                JsonToken::Full { text, surface, start, end, pos, tag, lemma, sentence } => {
                    (text, surface.as_deref(), *start, *end, pos.as_str(), tag.as_str(), lemma.as_str(), *sentence)
                }
            };
            let span = match (start, end) {
                (Some(s), Some(e)) => {
                    if s > e || text.get(s..e).is_none() {
                        return Err(aerr(format!("token {text_:?}: byte span {s}..{e} is not a valid span of the text")));
                    }
                    s..e
                }
                _ => aligner.next(surface.unwrap_or(text_)).map_err(aerr)?,
            };
            sent_ids.push(sentence);
            tokens.push(Token {
                text: text_.clone(),
                space_after: text[span.end..].chars().next().is_some_and(char::is_whitespace),
                span,
                pos: pos.to_owned(),
                tag: tag.to_owned(),
                lemma: lemma.to_owned(),
                head: None,
                dep: String::new(),
                sentence: 0,
            });
        }
        // renumber sentences densely
        let mut k = 0;
        for i in 0..tokens.len() {
            if i > 0 && sent_ids[i] != sent_ids[i - 1] {
                k += 1;
            }
            tokens[i].sentence = k;
        }
        let arcs: Vec<Arc> = r
            .arcs
            .iter()
            .map(|a| Arc {
                head: a.head.filter(|h| *h >= 0).map(|h| h as usize),
                child: a.child,
                relation: a.relation.clone(),
            })
            .collect();
        for a in &arcs {
            let t = &mut tokens[a.child];
            if t.dep.is_empty() {
                t.head = a.head;
                t.dep = a.relation.clone();
            }
        }
        let mention = |m: &JsonMention, np: bool| Mention {
            tokens: m.start_token..m.end_token,
            span: tokens[m.start_token].span.start..tokens[m.end_token - 1].span.end,
            label: if np && m.label.is_empty() { "NP".into() } else { m.label.clone() },
            root: None,
        };
        let entities = r.entities.iter().map(|m| mention(m, false)).collect();
        let noun_chunks = r.noun_chunks.iter().map(|m| mention(m, true)).collect();
        let sentences = crate::sentences_from_tokens(&tokens);
        Ok(Parse { tokens, sentences, enhanced: Some(arcs), entities, noun_chunks, scheme: r.scheme })
    }
}

impl ArcSource for JsonArcsSource {
    /// Looks each document up by [`Doc::id`]; `mode` is ignored.
    fn parse(&self, docs: &[Doc<'_>], _mode: ParseMode) -> Result<Vec<Parse>> {
        docs.iter().map(|d| self.parse_doc(d.id, d.text)).collect()
    }

    fn name(&self) -> &str {
        "json-arcs"
    }
}
