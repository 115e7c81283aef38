//! Pre-parsed input in CoNLL-U (<https://universaldependencies.org/format.html>), keyed by
//! document (row) id.
//!
//! * Documents start with `# newdoc id = <row id>`; every sentence up to the next `newdoc`
//!   belongs to that row. Other comments (`# sent_id`, `# text`, ...) are accepted and ignored.
//! * Word lines have exactly 10 tab-separated columns: ID FORM LEMMA UPOS XPOS FEATS HEAD
//!   DEPREL DEPS MISC. IDs are `1, 2, ...` within a sentence; multiword-token ranges `1-2`
//!   give the surface form (their words share its byte span); empty nodes `8.1` are read
//!   and skipped (no surface text; enhanced arcs to or from them are dropped).
//! * DEPS (enhanced graph, `head:rel|head:rel`, `rel` may contain `:`) is used when any word
//!   of the document has one; otherwise HEAD/DEPREL. For CoreNLP 3.9.1 output written with
//!   enhanced dependencies this reproduces the reference's `enhancedDependencies` view.
//! * `SpaceAfter=No` in MISC is recorded; byte offsets are rebuilt by aligning each surface
//!   form to the summary text with [`crate::align::Aligner`] (PTB escapes such as `-LRB-`
//!   and lower-cased forms are matched).
//!
//! Malformed lines are errors naming the 1-based line number ([`crate::Error::Conllu`]).

use std::collections::HashMap;
use std::path::Path;

use crate::align::Aligner;
use crate::{Arc, ArcSource, Doc, Error, LabelScheme, Parse, ParseMode, Result, Token};

/// One syntactic word of a CoNLL-U sentence.
#[derive(Debug, Clone, PartialEq)]
pub struct Word {
    /// 1-based word index within its sentence.
    pub id: usize,
    /// FORM.
    pub form: String,
    /// LEMMA (`_` kept as given).
    pub lemma: String,
    /// UPOS.
    pub upos: String,
    /// XPOS.
    pub xpos: String,
    /// HEAD (0 = root); `None` when `_`.
    pub head: Option<usize>,
    /// DEPREL.
    pub deprel: String,
    /// Enhanced DEPS as `(head, relation)`; heads that are empty nodes are dropped.
    pub deps: Vec<(usize, String)>,
    /// Whether DEPS was given (not `_`).
    pub has_deps: bool,
    /// `false` when MISC has `SpaceAfter=No`.
    pub space_after: bool,
    /// Index into [`Sentence::multiword`] when this word is part of a multiword token.
    pub multiword: Option<usize>,
    /// 1-based line number of this word in the input.
    pub line: usize,
}

/// A multiword token `a-b` with its surface form.
#[derive(Debug, Clone, PartialEq)]
pub struct Multiword {
    /// First word id.
    pub first: usize,
    /// Last word id (inclusive).
    pub last: usize,
    /// Surface form.
    pub form: String,
    /// `false` when MISC has `SpaceAfter=No`.
    pub space_after: bool,
    /// 1-based line number.
    pub line: usize,
}

/// One CoNLL-U sentence.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Sentence {
    /// Words in id order.
    pub words: Vec<Word>,
    /// Multiword tokens.
    pub multiword: Vec<Multiword>,
}

/// A parsed CoNLL-U file: sentences grouped by `newdoc id`.
#[derive(Debug, Clone, Default)]
pub struct ConlluSource {
    docs: HashMap<String, Vec<Sentence>>,
    order: Vec<String>,
}

fn err(line: usize, message: impl Into<String>) -> Error {
    Error::Conllu { line, message: message.into() }
}

fn space_after(misc: &str) -> bool {
    !misc.split('|').any(|kv| kv == "SpaceAfter=No")
}

impl ConlluSource {
    /// Reads a CoNLL-U file. See [`ConlluSource::from_str`].
    ///
    /// # Errors
    /// I/O errors and every error of [`ConlluSource::from_str`].
    pub fn from_path(path: &Path) -> Result<Self> {
        let text = std::fs::read_to_string(path)
            .map_err(|source| Error::Io { path: path.display().to_string(), source })?;
        Self::from_str(&text)
    }

    /// Parses CoNLL-U text.
    ///
    /// # Errors
    /// [`Error::Conllu`] with the line number for: a word line without 10 tab-separated
    /// columns; a bad ID, HEAD or DEPS entry; non-consecutive word ids; a HEAD pointing
    /// outside the sentence; a multiword range not followed by its words; a sentence before
    /// any `# newdoc id = ...`; a document id given twice.
    #[allow(clippy::should_implement_trait)]
    pub fn from_str(text: &str) -> Result<Self> {
        let mut src = ConlluSource::default();
        let mut current: Option<String> = None;
        let mut sent = Sentence::default();
        let mut sent_line = 0usize;
        let flush = |src: &mut ConlluSource, sent: &mut Sentence, cur: &Option<String>, line: usize| -> Result<()> {
            if sent.words.is_empty() && sent.multiword.is_empty() {
                return Ok(());
            }
            let s = std::mem::take(sent);
            validate(&s, line)?;
            let id = cur.clone().ok_or_else(|| err(line, "sentence before any `# newdoc id = <row id>` comment"))?;
            src.docs.get_mut(&id).map(|v| v.push(s)).ok_or_else(|| err(line, "internal: unknown doc"))?;
            Ok(())
        };
        for (i, raw) in text.lines().enumerate() {
            let line = i + 1;
            let l = raw.trim_end_matches('\r');
            if l.trim().is_empty() {
                flush(&mut src, &mut sent, &current, sent_line)?;
                continue;
            }
            if let Some(c) = l.strip_prefix('#') {
                let c = c.trim();
                if let Some(rest) = c.strip_prefix("newdoc") {
                    if !sent.words.is_empty() {
                        return Err(err(line, "`# newdoc` inside a sentence (missing blank line?)"));
                    }
                    let id = rest.trim().strip_prefix("id").map(|r| r.trim_start().trim_start_matches('=').trim());
                    let id = match id {
                        Some(id) if !id.is_empty() => id.to_owned(),
                        _ => return Err(err(line, "`# newdoc` needs an id: `# newdoc id = <row id>`")),
                    };
                    if src.docs.contains_key(&id) {
                        return Err(err(line, format!("document id {id:?} appears twice")));
                    }
                    src.docs.insert(id.clone(), Vec::new());
                    src.order.push(id.clone());
                    current = Some(id);
                }
                continue;
            }
            if sent.words.is_empty() && sent.multiword.is_empty() {
                sent_line = line;
            }
            let cols: Vec<&str> = l.split('\t').collect();
            if cols.len() != 10 {
                return Err(err(line, format!("expected 10 tab-separated columns, found {}", cols.len())));
            }
            let id = cols[0];
            if let Some((a, b)) = id.split_once('-') {
                let (a, b) = (parse_id(a, line)?, parse_id(b, line)?);
                if b < a {
                    return Err(err(line, format!("bad multiword range {id:?}")));
                }
                sent.multiword.push(Multiword {
                    first: a,
                    last: b,
                    form: cols[1].to_owned(),
                    space_after: space_after(cols[9]),
                    line,
                });
                continue;
            }
            if id.contains('.') {
                // empty node: check syntax, then skip
                let (a, b) = id.split_once('.').unwrap_or((id, ""));
                parse_id_allow0(a, line)?;
                parse_id(b, line)?;
                continue;
            }
            let wid = parse_id(id, line)?;
            if wid != sent.words.len() + 1 {
                return Err(err(line, format!("word id {wid} out of sequence (expected {})", sent.words.len() + 1)));
            }
            let head = match cols[6] {
                "_" => None,
                h => Some(h.parse::<usize>().map_err(|_| err(line, format!("bad HEAD {h:?}")))?),
            };
            let (deps, has_deps) = parse_deps(cols[8], line)?;
            let multiword = sent.multiword.iter().position(|m| (m.first..=m.last).contains(&wid));
            sent.words.push(Word {
                id: wid,
                form: cols[1].to_owned(),
                lemma: cols[2].to_owned(),
                upos: cols[3].to_owned(),
                xpos: cols[4].to_owned(),
                head,
                deprel: cols[7].to_owned(),
                deps,
                has_deps,
                space_after: space_after(cols[9]),
                multiword,
                line,
            });
        }
        flush(&mut src, &mut sent, &current, sent_line)?;
        Ok(src)
    }

    /// Document ids in file order.
    pub fn ids(&self) -> &[String] {
        &self.order
    }

    /// Raw sentences of one document.
    pub fn sentences(&self, id: &str) -> Option<&[Sentence]> {
        self.docs.get(id).map(Vec::as_slice)
    }

    /// Builds the [`Parse`] of document `id` against its original `text`.
    ///
    /// # Errors
    /// [`Error::MissingDocument`]; [`Error::Alignment`] when a surface form is not found in
    /// `text` (message names the CoNLL-U line).
    pub fn parse_doc(&self, id: &str, text: &str) -> Result<Parse> {
        let sents = self.docs.get(id).ok_or_else(|| Error::MissingDocument(id.to_owned()))?;
        let mut aligner = Aligner::new(text);
        let mut tokens: Vec<Token> = Vec::new();
        let mut enhanced: Vec<Arc> = Vec::new();
        let mut any_deps = false;
        let align_err = |line: usize, m: String| Error::Alignment { doc: id.to_owned(), message: format!("CoNLL-U line {line}: {m}") };
        for (si, s) in sents.iter().enumerate() {
            let base = tokens.len();
            let mut mw_spans: Vec<Option<std::ops::Range<usize>>> = vec![None; s.multiword.len()];
            for w in &s.words {
                let (span, sp_after) = match w.multiword {
                    Some(m) => {
                        let mw = &s.multiword[m];
                        if mw_spans[m].is_none() {
                            mw_spans[m] = Some(aligner.next(&mw.form).map_err(|e| align_err(mw.line, e))?);
                        }
                        (mw_spans[m].clone().unwrap_or(0..0), mw.space_after)
                    }
                    None => (aligner.next(&w.form).map_err(|e| align_err(w.line, e))?, w.space_after),
                };
                let head = w.head.and_then(|h| (h > 0).then(|| base + h - 1));
                tokens.push(Token {
                    text: w.form.clone(),
                    span,
                    space_after: sp_after,
                    pos: blank(&w.upos),
                    tag: blank(&w.xpos),
                    lemma: blank(&w.lemma),
                    head,
                    dep: blank(&w.deprel),
                    sentence: si,
                });
                any_deps |= w.has_deps;
                // a word without DEPS contributes its basic arc, so mixed files stay complete
                let basic = [(w.head.unwrap_or(0), w.deprel.clone())];
                let arcs: &[(usize, String)] = if w.has_deps {
                    &w.deps
                } else if w.head.is_some() && w.deprel != "_" {
                    &basic
                } else {
                    &[]
                };
                for (h, rel) in arcs {
                    enhanced.push(Arc {
                        head: (*h > 0).then(|| base + h - 1),
                        child: base + w.id - 1,
                        relation: rel.clone(),
                    });
                }
            }
        }
        enhanced.sort_by_key(|a| (a.child, a.head.map_or(0, |h| h + 1)));
        let sentences = crate::sentences_from_tokens(&tokens);
        Ok(Parse {
            tokens,
            sentences,
            enhanced: any_deps.then_some(enhanced),
            entities: Vec::new(),
            noun_chunks: Vec::new(),
            scheme: LabelScheme::Ud,
        })
    }
}

fn blank(s: &str) -> String {
    if s == "_" { String::new() } else { s.to_owned() }
}

fn parse_id(s: &str, line: usize) -> Result<usize> {
    match s.parse::<usize>() {
        Ok(v) if v >= 1 => Ok(v),
        _ => Err(err(line, format!("bad ID {s:?}"))),
    }
}

fn parse_id_allow0(s: &str, line: usize) -> Result<usize> {
    s.parse::<usize>().map_err(|_| err(line, format!("bad ID {s:?}")))
}

fn parse_deps(s: &str, line: usize) -> Result<(Vec<(usize, String)>, bool)> {
    if s == "_" {
        return Ok((Vec::new(), false));
    }
    let mut out = Vec::new();
    for item in s.split('|') {
        let (h, rel) = item
            .split_once(':')
            .ok_or_else(|| err(line, format!("bad DEPS entry {item:?} (expected head:relation)")))?;
        if rel.is_empty() {
            return Err(err(line, format!("bad DEPS entry {item:?} (empty relation)")));
        }
        if h.contains('.') {
            // head is an empty node: no surface token, dropped
            let (a, b) = h.split_once('.').unwrap_or((h, ""));
            parse_id_allow0(a, line)?;
            parse_id(b, line)?;
            continue;
        }
        let h = h.parse::<usize>().map_err(|_| err(line, format!("bad DEPS head {h:?}")))?;
        out.push((h, rel.to_owned()));
    }
    Ok((out, true))
}

fn validate(s: &Sentence, first_line: usize) -> Result<()> {
    let n = s.words.len();
    for w in &s.words {
        if let Some(h) = w.head {
            if h > n {
                return Err(err(w.line, format!("HEAD {h} outside the sentence ({n} words)")));
            }
        }
        for (h, _) in &w.deps {
            if *h > n {
                return Err(err(w.line, format!("DEPS head {h} outside the sentence ({n} words)")));
            }
        }
    }
    for m in &s.multiword {
        if m.last > n {
            return Err(err(m.line, format!("multiword range {}-{} not followed by its words", m.first, m.last)));
        }
    }
    if n == 0 {
        return Err(err(first_line, "sentence without word lines"));
    }
    Ok(())
}

impl ArcSource for ConlluSource {
    /// Looks each document up by [`Doc::id`]; `mode` is ignored (the file is what it is).
    fn parse(&self, docs: &[Doc<'_>], _mode: ParseMode) -> Result<Vec<Parse>> {
        docs.iter().map(|d| self.parse_doc(d.id, d.text)).collect()
    }

    fn name(&self) -> &str {
        "conllu"
    }
}
