//! Byte spans of sentences in the original text.

use std::ops::Range;

/// A half-open byte range `start..end` into the text it was computed from.
///
/// Spans produced by this crate always lie on UTF-8 character boundaries, so
/// `&text[span.range()]` never panics for the text they came from, and for
/// [`Punkt`](crate::Punkt) it is exactly the sentence string NLTK returns
/// (NLTK's `span_tokenize` gives character offsets; these are the same
/// positions in bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
#[derive(serde::Serialize, serde::Deserialize)]
pub struct Span {
    /// Byte offset of the first byte.
    pub start: usize,
    /// Byte offset one past the last byte.
    pub end: usize,
}

impl Span {
    /// Creates the span `start..end` (bytes).
    pub const fn new(start: usize, end: usize) -> Self {
        Self { start, end }
    }

    /// The span as a `Range<usize>`, for slicing.
    pub const fn range(&self) -> Range<usize> {
        self.start..self.end
    }

    /// Length in bytes (0 when `end <= start`).
    pub const fn len(&self) -> usize {
        self.end.saturating_sub(self.start)
    }

    /// True when the span covers no byte.
    pub const fn is_empty(&self) -> bool {
        self.end <= self.start
    }

    /// The covered text, or `None` when the span is out of bounds or not on
    /// character boundaries of `text` (i.e. it was computed from another text).
    pub fn get<'a>(&self, text: &'a str) -> Option<&'a str> {
        text.get(self.range())
    }
}

impl From<Range<usize>> for Span {
    fn from(r: Range<usize>) -> Self {
        Self::new(r.start, r.end)
    }
}

impl From<Span> for Range<usize> {
    fn from(s: Span) -> Self {
        s.range()
    }
}
