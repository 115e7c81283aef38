//! Aligning pre-parsed token forms back to the original text to recover byte spans.
//!
//! Parsers such as CoreNLP rewrite tokens (`(` → `-LRB-`, `"` → ``` `` ```, lower-cased
//! input, `1\/2`), and users may have parsed the lower-cased PTB form of the summary
//! (as the DAE README asks). [`Aligner`] walks the text left to right: it skips whitespace,
//! then accepts the first candidate of [`crate::ptb::unescape_candidates`] that matches at
//! the cursor, comparing characters case-insensitively, treating any whitespace as equal to
//! any whitespace and `'`/`’`/`‘` as equal. A token found nowhere at the cursor is an error.

use std::ops::Range;

use crate::ptb::unescape_candidates;

/// Left-to-right token aligner over one text.
#[derive(Debug)]
pub struct Aligner<'a> {
    text: &'a str,
    cursor: usize,
}

fn fold(c: char) -> char {
    match c {
        '’' | '‘' | '′' => '\'',
        c if c.is_whitespace() => ' ',
        c => c,
    }
}

fn chars_eq(a: char, b: char) -> bool {
    let (a, b) = (fold(a), fold(b));
    a == b || a.to_lowercase().eq(b.to_lowercase())
}

/// Byte end of `cand` matched at byte `pos` of `text`, if it matches.
fn match_at(text: &str, pos: usize, cand: &str) -> Option<usize> {
    let rest = text.get(pos..)?;
    let mut it = rest.char_indices();
    for c in cand.chars() {
        let (_, t) = it.next()?;
        if !chars_eq(c, t) {
            return None;
        }
    }
    Some(it.next().map_or(text.len(), |(i, _)| pos + i))
}

impl<'a> Aligner<'a> {
    /// A new aligner at the start of `text`.
    pub fn new(text: &'a str) -> Self {
        Self { text, cursor: 0 }
    }

    /// Current byte offset.
    pub fn cursor(&self) -> usize {
        self.cursor
    }

    /// Whether whitespace separates the cursor from the next non-space character.
    pub fn at_space(&self) -> bool {
        self.text[self.cursor..].chars().next().is_some_and(char::is_whitespace)
    }

    /// Finds `form` at the cursor (after whitespace) and advances past it.
    ///
    /// # Errors
    /// A message naming the form and the byte offset when no candidate matches.
    pub fn next(&mut self, form: &str) -> Result<Range<usize>, String> {
        let rest = &self.text[self.cursor..];
        let skip = rest.len() - rest.trim_start().len();
        let start = self.cursor + skip;
        if form.is_empty() {
            return Err("empty token form".into());
        }
        for cand in unescape_candidates(form) {
            if let Some(end) = match_at(self.text, start, &cand) {
                self.cursor = end;
                return Ok(start..end);
            }
        }
        let near: String = self.text[start..].chars().take(20).collect();
        Err(format!("token {form:?} not found at byte {start} of the text (text there: {near:?})"))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn aligns_escaped_and_lowercased_forms() {
        let text = "The drug (ABC) “worked” don’t";
        let mut a = Aligner::new(text);
        let forms = ["the", "drug", "-LRB-", "abc", "-RRB-", "``", "worked", "''", "do", "n't"];
        let spans: Vec<_> = forms.iter().map(|f| a.next(f).unwrap()).collect();
        let got: Vec<&str> = spans.iter().map(|s| &text[s.clone()]).collect();
        assert_eq!(got, ["The", "drug", "(", "ABC", ")", "“", "worked", "”", "do", "n’t"]);
    }

    #[test]
    fn missing_token_is_an_error() {
        let mut a = Aligner::new("alpha beta");
        a.next("alpha").unwrap();
        let e = a.next("gamma").unwrap_err();
        assert!(e.contains("gamma") && e.contains("byte 6"), "{e}");
    }
}
