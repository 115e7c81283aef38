//! SummaC's text chunks: the `granularity` of `SummaCImager.split_text`
//! (`model_summac.py:67-95`), with byte spans into the original text and the reference's
//! minimum-length filter made explicit.
use factpico_text::{python_strip, Punkt, SentenceSplitter, Span};
use serde::{Deserialize, Serialize};

use crate::{Error, Granularity, Result};

impl Granularity {
    /// All granularities, in the reference's naming order.
    pub const ALL: [Granularity; 5] =
        [Granularity::Paragraph, Granularity::Sentence, Granularity::Document, Granularity::TwoSentences, Granularity::Mixed];

    /// The reference's name (`sentence`, `paragraph`, `2sents`, `document`, `mixed`).
    pub fn as_str(self) -> &'static str {
        match self {
            Granularity::Sentence => "sentence",
            Granularity::Paragraph => "paragraph",
            Granularity::TwoSentences => "2sents",
            Granularity::Document => "document",
            Granularity::Mixed => "mixed",
        }
    }
}

impl std::fmt::Display for Granularity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for Granularity {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        Granularity::ALL.into_iter().find(|g| g.as_str() == s).ok_or_else(|| {
            Error::InvalidOption(format!("unknown granularity {s:?} (sentence, paragraph, 2sents, document, mixed)"))
        })
    }
}

/// The granularity of each side: the reference's `granularity` string, `"sentence"` for
/// both sides or `"<document>-<summary>"` (e.g. `"paragraph-sentence"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub struct Granularities {
    /// Premise side (the source document).
    pub document: Granularity,
    /// Hypothesis side (the summary).
    pub summary: Granularity,
}

impl Granularities {
    /// The same granularity on both sides.
    pub const fn both(g: Granularity) -> Self {
        Granularities { document: g, summary: g }
    }
}

impl std::fmt::Display for Granularities {
    /// The reference's spelling: `sentence`, or `paragraph-sentence` when the sides differ.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.document == self.summary {
            write!(f, "{}", self.document)
        } else {
            write!(f, "{}-{}", self.document, self.summary)
        }
    }
}

impl std::str::FromStr for Granularities {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        let parts: Vec<&str> = s.split('-').collect();
        match parts.as_slice() {
            [g] => Ok(Granularities::both(g.parse()?)),
            [d, g] => Ok(Granularities { document: d.parse()?, summary: g.parse()? }),
            _ => Err(Error::InvalidOption(format!("granularity {s:?}: at most two parts, `<document>-<summary>`"))),
        }
    }
}

/// One chunk of a text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Chunk {
    /// The text given to the NLI model. Equal to the spanned text except for `2sents`
    /// windows (two sentences joined by one space).
    pub text: String,
    /// Byte span in the original text (first byte of the first sentence to the last byte
    /// of the last one).
    pub span: Span,
}

/// A text cut into chunks, with the chunks the length filter removed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Chunked {
    /// Kept chunks, in reference order.
    pub chunks: Vec<Chunk>,
    /// Spans of the sentences / paragraphs dropped because they have `min_chars` characters
    /// or fewer (for `mixed`: sentences first, then paragraphs).
    pub dropped: Vec<Span>,
}

/// Byte offset of `part` inside `text` (`part` must be a sub-slice of `text`).
fn offset_in(text: &str, part: &str) -> usize {
    (part.as_ptr() as usize).saturating_sub(text.as_ptr() as usize)
}

/// Python `len(s)`: the number of code points.
pub(crate) fn py_len(s: &str) -> usize {
    s.chars().count()
}

/// `split_sentences`: Punkt sentences with more than `min_chars` characters.
fn sentences(punkt: &Punkt, text: &str, min_chars: usize) -> Chunked {
    let mut out = Chunked::default();
    for span in punkt.split(text) {
        let s = &text[span.range()];
        if py_len(s) > min_chars {
            out.chunks.push(Chunk { text: s.to_owned(), span });
        } else {
            out.dropped.push(span);
        }
    }
    out
}

/// `split_paragraphs`: pieces between `"\n\n"` (or `"\n"` when there is no `"\n\n"`),
/// stripped, with more than `min_chars` characters.
fn paragraphs(text: &str, min_chars: usize) -> Chunked {
    let sep = if text.contains("\n\n") { "\n\n" } else { "\n" };
    let mut out = Chunked::default();
    for piece in text.split(sep) {
        let p = python_strip(piece);
        let start = offset_in(text, p);
        let span = Span::new(start, start + p.len());
        if py_len(p) > min_chars {
            out.chunks.push(Chunk { text: p.to_owned(), span });
        } else if !p.is_empty() {
            out.dropped.push(span);
        }
    }
    out
}

/// Cuts `text` into chunks at `granularity`, dropping chunks of `min_chars` characters or
/// fewer (the reference: `len(chunk) > 10`; `document` is never filtered).
pub fn split_text(punkt: &Punkt, text: &str, granularity: Granularity, min_chars: usize) -> Chunked {
    match granularity {
        Granularity::Document => {
            Chunked { chunks: vec![Chunk { text: text.to_owned(), span: Span::new(0, text.len()) }], dropped: Vec::new() }
        }
        Granularity::Sentence => sentences(punkt, text, min_chars),
        Granularity::Paragraph => paragraphs(text, min_chars),
        Granularity::TwoSentences => {
            let s = sentences(punkt, text, min_chars);
            let chunks = (0..s.chunks.len())
                .map(|i| {
                    let win = &s.chunks[i..(i + 2).min(s.chunks.len())];
                    let text = win.iter().map(|c| c.text.as_str()).collect::<Vec<_>>().join(" ");
                    let span = Span::new(win[0].span.start, win[win.len() - 1].span.end);
                    Chunk { text, span }
                })
                .collect();
            Chunked { chunks, dropped: s.dropped }
        }
        Granularity::Mixed => {
            let mut s = sentences(punkt, text, min_chars);
            let p = paragraphs(text, min_chars);
            s.chunks.extend(p.chunks);
            s.dropped.extend(p.dropped);
            s
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(c: &Chunked) -> Vec<&str> {
        c.chunks.iter().map(|c| c.text.as_str()).collect()
    }

    #[test]
    fn granularity_names_round_trip() {
        for g in Granularity::ALL {
            assert_eq!(g.as_str().parse::<Granularity>().ok(), Some(g));
            assert_eq!(serde_json::to_value(g).ok(), Some(serde_json::Value::String(g.as_str().into())));
        }
        let gs: Granularities = "paragraph-sentence".parse().unwrap_or_default();
        assert_eq!(gs, Granularities { document: Granularity::Paragraph, summary: Granularity::Sentence });
        assert_eq!(gs.to_string(), "paragraph-sentence");
        assert_eq!(Granularities::both(Granularity::Sentence).to_string(), "sentence");
        assert!("sentence-paragraph-document".parse::<Granularities>().is_err());
        assert!("sentences".parse::<Granularities>().is_err());
    }

    #[test]
    fn sentences_drop_ten_characters_or_fewer_counted_in_code_points() {
        let p = Punkt::english();
        // "It works." = 9 chars, "ßßßßßßßßßßß." = 12 chars but 23 bytes; "Exactly 10" + "." = 11.
        let text = "It works. The drug lowered blood pressure. Tiny one. Abcdefghi. Exactly ten.";
        let c = split_text(&p, text, Granularity::Sentence, 10);
        assert_eq!(texts(&c), ["The drug lowered blood pressure.", "Exactly ten."]);
        assert_eq!(c.dropped.len(), 3);
        assert_eq!(&text[c.dropped[0].range()], "It works.");
        let c0 = split_text(&p, text, Granularity::Sentence, 0);
        assert_eq!(c0.chunks.len(), 5);
        assert!(c0.dropped.is_empty());
        // 9 two-byte characters and a full stop: 19 bytes, but 10 characters -> dropped.
        let c = split_text(&p, "ééééééééé.", Granularity::Sentence, 10);
        assert!(c.chunks.is_empty());
    }

    #[test]
    fn paragraphs_follow_python_split_and_strip() {
        let p = Punkt::english();
        let text = "  First paragraph here.\nstill first.\n\n  short \n\nThird paragraph is long enough.  ";
        let c = split_text(&p, text, Granularity::Paragraph, 10);
        assert_eq!(texts(&c), ["First paragraph here.\nstill first.", "Third paragraph is long enough."]);
        for ch in &c.chunks {
            assert_eq!(&text[ch.span.range()], ch.text);
        }
        assert_eq!(&text[c.dropped[0].range()], "short");
        // No blank line: single newlines separate.
        let c = split_text(&p, "Line one is long.\nLine two is long.", Granularity::Paragraph, 10);
        assert_eq!(texts(&c), ["Line one is long.", "Line two is long."]);
    }

    #[test]
    fn two_sentence_windows_and_mixed_and_document() {
        let p = Punkt::english();
        let text = "The first sentence. The second sentence. Short. The third sentence.";
        let c = split_text(&p, text, Granularity::TwoSentences, 10);
        assert_eq!(
            texts(&c),
            [
                "The first sentence. The second sentence.",
                "The second sentence. The third sentence.",
                "The third sentence."
            ]
        );
        assert_eq!(&text[c.chunks[1].span.range()], "The second sentence. Short. The third sentence.");
        let m = split_text(&p, text, Granularity::Mixed, 10);
        assert_eq!(m.chunks.len(), 4);
        assert_eq!(m.chunks[3].text, text);
        let d = split_text(&p, "", Granularity::Document, 10);
        assert_eq!(texts(&d), [""]);
    }
}
