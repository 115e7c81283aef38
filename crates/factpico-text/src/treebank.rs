//! NLTK's word tokenizer: `nltk.word_tokenize` and the improved Treebank
//! tokenizer it applies to every Punkt sentence (`NLTKWordTokenizer`).
//!
//! Reference: NLTK 3.10.4, `nltk/tokenize/destructive.py`
//! (`NLTKWordTokenizer.tokenize`) and `nltk/tokenize/__init__.py`
//! (`word_tokenize`). The tokenizer is a fixed sequence of regular-expression
//! substitutions that pad punctuation with spaces, followed by Python
//! `str.split()`. Each substitution is reproduced here by a hand-written
//! scanner with exactly the regular expression's semantics (leftmost,
//! non-overlapping matches against the text *before* that substitution), and
//! with the character classes of the engine that compiles it:
//!
//! * NLTK 3.10 compiles the quote, punctuation, bracket and dash patterns
//!   through `nltk.redos`, i.e. with the third-party `regex` module: `\w`, `\d`
//!   and `\s` are [`python::is_regex_word_not_digit`] / [`python::is_regex_digit`]
//!   and [`python::is_regex_space`] (Unicode `White_Space`, *without*
//!   U+001C..U+001F); `(?i)` matches `s` with `ſ` (U+017F) as well;
//! * the `CONTRACTIONS2` / `CONTRACTIONS3` patterns are still compiled with
//!   the standard library `re`: `\b` is the boundary of [`python::is_re_word`],
//!   `\s` is [`python::is_space`], and `(?i)` matches `i` with `İ` (U+0130)
//!   and `ı` (U+0131), `s` with `ſ`;
//! * the final split is Python `str.split()` ([`python::split`]).
//!
//! Quirks of the reference that are reproduced (each covered by the goldens of
//! `tests/goldens/gen_word_tokenize.py`):
//!
//! * `"` becomes ```` `` ```` at the start of a sentence or after one of
//!   `` ([{<`` and a space, and `''` elsewhere; `“”‘’«»„` are kept as they are;
//! * only the *last* period of a sentence (followed by closing brackets/quotes
//!   and whitespace) is split off: `"U.S."` inside a sentence stays one token,
//!   and `"U.S."` at its end gives `U.S` and `.`;
//! * a comma or colon followed by a digit is not split (`1,000`, `10:30`),
//!   and of two adjacent ones (`",,"`) only the first is padded;
//! * runs of two or more periods are one token (`...`), the Unicode ellipsis
//!   `…` is not split from its word;
//! * U+001C..U+001F are not whitespace for the padding rules (`regex`'s `\s`)
//!   but are for the final `str.split()`, so `it's\x1c` stays one token.

use crate::{python, Punkt, SentenceSplitter};

/// NLTK's `NLTKWordTokenizer` (the "improved Treebank" word tokenizer) with
/// its default options (`convert_parentheses=False`).
///
/// It expects one sentence; [`word_tokenize`] applies it to every Punkt
/// sentence of a text. Tokens are owned strings because the tokenizer is
/// destructive: `"` is rewritten to ```` `` ```` or `''`.
///
/// ```
/// use factpico_text::TreebankWordTokenizer;
///
/// let t = TreebankWordTokenizer;
/// assert_eq!(
///     t.tokenize("\"We can't stop,\" she said; 1,000 U.S. adults (aged 18-65) came."),
///     ["``", "We", "ca", "n't", "stop", ",", "''", "she", "said", ";", "1,000", "U.S.",
///      "adults", "(", "aged", "18-65", ")", "came", "."]
/// );
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TreebankWordTokenizer;

/// `nltk.word_tokenize(text)` (English, `preserve_line=False`): the
/// [`TreebankWordTokenizer`] tokens of every [`Punkt`] sentence of `text`,
/// concatenated. Empty for an empty or whitespace-only text.
///
/// ```
/// assert_eq!(
///     factpico_text::word_tokenize("Pain fell by 2.1 points. Dr. Lee wasn't sure..."),
///     ["Pain", "fell", "by", "2.1", "points", ".", "Dr.", "Lee", "was", "n't", "sure", "..."]
/// );
/// ```
pub fn word_tokenize(text: &str) -> Vec<String> {
    word_tokenize_with(&Punkt::english(), text)
}

/// [`word_tokenize`] with a given sentence splitter (NLTK: English Punkt).
pub fn word_tokenize_with<S: SentenceSplitter + ?Sized>(splitter: &S, text: &str) -> Vec<String> {
    splitter
        .sentences(text)
        .into_iter()
        .flat_map(|s| TreebankWordTokenizer.tokenize(s))
        .collect()
}

/// Counts [`word_tokenize`] tokens: `len(nltk.word_tokenize(text))` (FactCG's
/// chunk budget). As a [`TokenCounter`](crate::TokenCounter) it counts the
/// tokens of one sentence (Punkt is run again on it, as the reference does).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WordTokenizeCounter;

impl crate::TokenCounter for WordTokenizeCounter {
    fn count_tokens(&self, text: &str) -> usize {
        word_tokenize(text).len()
    }
}

impl TreebankWordTokenizer {
    /// `NLTKWordTokenizer().tokenize(sentence)`: the tokens of one sentence.
    pub fn tokenize(&self, sentence: &str) -> Vec<String> {
        let mut t: Vec<char> = sentence.chars().collect();
        // STARTING_QUOTES
        t = sub(&t, starting_quote_marks);
        if t.first() == Some(&'"') {
            t.splice(0..1, ['`', '`']); // ^\" -> ``
        }
        t = sub(&t, |t, i| lit(t, i, "``").then(|| (i + 2, pad(&t[i..i + 2]))));
        t = sub(&t, open_then_double_quote);
        t = sub(&t, leading_apostrophe);
        // PUNCTUATION
        t = final_period(&t, true);
        t = sub(&t, |t, i| {
            (matches!(t[i], ':' | ',') && t.get(i + 1).is_some_and(|&c| !python::is_regex_digit(c)))
                .then(|| (i + 2, vec![' ', t[i], ' ', t[i + 1]]))
        });
        t = sub(&t, |t, i| {
            (matches!(t[i], ':' | ',') && at_dollar(t, i + 1)).then(|| (i + 1, vec![' ', t[i], ' ']))
        });
        t = sub(&t, |t, i| {
            let n = t[i..].iter().take_while(|&&c| c == '.').count();
            (n >= 2).then(|| (i + n, pad(&t[i..i + n])))
        });
        t = sub(&t, |t, i| pad_if(t, i, |c| matches!(c, ';' | '@' | '#' | '$' | '%' | '&')));
        t = sub(&t, |t, i| pad_if(t, i, |c| ('\u{2012}'..='\u{2015}').contains(&c)));
        t = final_period(&t, false);
        t = sub(&t, |t, i| pad_if(t, i, |c| matches!(c, '?' | '!')));
        t = sub(&t, |t, i| {
            (t[i] != '\'' && t.get(i + 1) == Some(&'\'') && t.get(i + 2) == Some(&' '))
                .then(|| (i + 3, vec![t[i], ' ', '\'', ' ']))
        });
        t = sub(&t, |t, i| pad_if(t, i, |c| c == '*'));
        // PARENS_BRACKETS, DOUBLE_DASHES
        t = sub(&t, |t, i| pad_if(t, i, |c| matches!(c, ']' | '[' | '(' | ')' | '{' | '}' | '<' | '>')));
        t = sub(&t, |t, i| lit(t, i, "--").then(|| (i + 2, vec![' ', '-', '-', ' '])));
        // " " + text + " "
        t.insert(0, ' ');
        t.push(' ');
        // ENDING_QUOTES
        t = sub(&t, |t, i| pad_if(t, i, |c| matches!(c, '»' | '”' | '’')));
        t = sub(&t, |t, i| lit(t, i, "''").then(|| (i + 2, " '' ".chars().collect())));
        t = sub(&t, |t, i| (t[i] == '"').then(|| (i + 1, " '' ".chars().collect())));
        t = sub(&t, |t, i| {
            let n = t[i..].iter().take_while(|&&c| python::is_regex_space(c)).count();
            (n > 0).then(|| (i + n, vec![' ']))
        });
        t = sub(&t, clitic_s_m_d);
        t = sub(&t, clitic_ll_re_ve_nt);
        // CONTRACTIONS2, CONTRACTIONS3 (standard library `re`, case-insensitive)
        for (a, b, lookahead_space) in CONTRACTIONS2 {
            t = sub(&t, |t, i| contraction2(t, i, a, b, *lookahead_space));
        }
        for b in ["is", "was"] {
            t = sub(&t, |t, i| contraction3(t, i, b));
        }
        let s: String = t.into_iter().collect();
        python::split(&s).map(str::to_owned).collect()
    }

    /// `len(self.tokenize(sentence))`.
    pub fn count(&self, sentence: &str) -> usize {
        self.tokenize(sentence).len()
    }
}

/// `regex.sub` with a pattern that never matches the empty string: at each
/// position, `matcher(text, i)` returns the end of the match starting there
/// and its replacement; unmatched characters are copied. Matches are tested
/// against the original `text`, so look-behinds see unreplaced text.
fn sub(text: &[char], mut matcher: impl FnMut(&[char], usize) -> Option<(usize, Vec<char>)>) -> Vec<char> {
    let mut out = Vec::with_capacity(text.len() + 8);
    let mut i = 0;
    while i < text.len() {
        match matcher(text, i) {
            Some((end, repl)) if end > i => {
                out.extend(repl);
                i = end;
            }
            _ => {
                out.push(text[i]);
                i += 1;
            }
        }
    }
    out
}

/// `" " + s + " "`.
fn pad(s: &[char]) -> Vec<char> {
    let mut v = Vec::with_capacity(s.len() + 2);
    v.push(' ');
    v.extend_from_slice(s);
    v.push(' ');
    v
}

/// A one-character class `[...]` replaced by `" \g<0> "`.
fn pad_if(t: &[char], i: usize, class: impl Fn(char) -> bool) -> Option<(usize, Vec<char>)> {
    class(t[i]).then(|| (i + 1, vec![' ', t[i], ' ']))
}

/// Whether `lit` occurs in `t` at `i`.
fn lit(t: &[char], i: usize, lit: &str) -> bool {
    (i..).zip(lit.chars()).all(|(k, c)| t.get(k) == Some(&c))
}

/// Python's `$` without MULTILINE: the end of the text, or just before a
/// final `"\n"`.
fn at_dollar(t: &[char], i: usize) -> bool {
    i == t.len() || (i + 1 == t.len() && t[i] == '\n')
}

fn is_regex_word(c: char) -> bool {
    python::is_regex_word_not_digit(c) || python::is_regex_digit(c)
}

/// `([«“‘„]|[`]+)` → `" \1 "`.
fn starting_quote_marks(t: &[char], i: usize) -> Option<(usize, Vec<char>)> {
    match t[i] {
        '«' | '“' | '‘' | '„' => Some((i + 1, vec![' ', t[i], ' '])),
        '`' => {
            let n = t[i..].iter().take_while(|&&c| c == '`').count();
            Some((i + n, pad(&t[i..i + n])))
        }
        _ => None,
    }
}

/// `([ \(\[{<])(\"|\'{2})` → ``"\1 `` "``.
fn open_then_double_quote(t: &[char], i: usize) -> Option<(usize, Vec<char>)> {
    if !matches!(t[i], ' ' | '(' | '[' | '{' | '<') {
        return None;
    }
    let end = if t.get(i + 1) == Some(&'"') {
        i + 2
    } else if lit(t, i + 1, "''") {
        i + 3
    } else {
        return None;
    };
    Some((end, vec![t[i], ' ', '`', '`', ' ']))
}

/// `regex` `(?i)` equivalence for the letters of the clitic look-ahead.
fn regex_ci(c: char, letter: char) -> bool {
    c.eq_ignore_ascii_case(&letter) || (letter == 's' && c == '\u{17f}')
}

/// Standard library `re` `(?i)` equivalence for the letters of the contractions.
fn re_ci(c: char, letter: char) -> bool {
    c.eq_ignore_ascii_case(&letter)
        || (letter == 's' && c == '\u{17f}')
        || (letter == 'i' && matches!(c, '\u{130}' | '\u{131}'))
}

/// `(?i)(?<!\w)(\')(?!(?:re|ve|ll|m|t|s|d|n)\b)(?=\w)` → `"\1 "` (`regex` module).
fn leading_apostrophe(t: &[char], i: usize) -> Option<(usize, Vec<char>)> {
    if t[i] != '\'' || (i > 0 && is_regex_word(t[i - 1])) || !t.get(i + 1).copied().is_some_and(is_regex_word) {
        return None;
    }
    let clitic = ["re", "ve", "ll", "m", "t", "s", "d", "n"].iter().any(|alt| {
        let n = alt.chars().count();
        alt.chars().enumerate().all(|(k, l)| t.get(i + 1 + k).is_some_and(|&c| regex_ci(c, l)))
            && !t.get(i + 1 + n).copied().is_some_and(is_regex_word)
    });
    (!clitic).then(|| (i + 1, vec!['\'', ' ']))
}

/// The two final-period rules of `PUNCTUATION`:
///
/// * `possessive`: `([^\.])(\.)([\]\)}>"\'»”’ ]*+)\s*$` → `"\1 \2 \3 "`;
/// * otherwise: `([^\.])(\.)([\]\)}>"\']*)\s*$` → `"\1 \2\3 "`.
///
/// Both match at most once (the match runs to the end of the text). A
/// candidate at `i` needs a non-period, a period, then a run of closing
/// characters and a run of `regex` whitespace reaching the end (giving a
/// closing character back to the whitespace run can never help, so the
/// possessive and greedy forms accept the same candidates; `$` before a final
/// `"\n"` is covered because `"\n"` is whitespace).
fn final_period(t: &[char], possessive: bool) -> Vec<char> {
    let closing = |c: char| {
        matches!(c, ']' | ')' | '}' | '>' | '"' | '\'') || (possessive && matches!(c, '»' | '”' | '’' | ' '))
    };
    let n = t.len();
    // Scan right to left: the suffix that is whitespace only, then the
    // candidates whose closing run ends where that suffix begins.
    let ws_from = n - t.iter().rev().take_while(|&&c| python::is_regex_space(c)).count();
    for i in 0..n.saturating_sub(1) {
        if t[i] == '.' || t[i + 1] != '.' {
            continue;
        }
        let j = i + 2;
        let k = j + t[j..].iter().take_while(|&&c| closing(c)).count();
        // After the closing run, whitespace must reach the end.
        if k >= ws_from {
            let mut out = Vec::with_capacity(n + 4);
            out.extend_from_slice(&t[..=i]);
            out.push(' ');
            out.push('.');
            if possessive {
                out.push(' ');
            }
            out.extend_from_slice(&t[j..k]);
            out.push(' ');
            return out;
        }
    }
    t.to_vec()
}

/// `([^' ])('[sS]|'[mM]|'[dD]|') ` → `"\1 \2 "`.
fn clitic_s_m_d(t: &[char], i: usize) -> Option<(usize, Vec<char>)> {
    if matches!(t[i], '\'' | ' ') || t.get(i + 1) != Some(&'\'') {
        return None;
    }
    let c2 = t.get(i + 2).copied();
    if c2.is_some_and(|c| matches!(c, 's' | 'S' | 'm' | 'M' | 'd' | 'D')) && t.get(i + 3) == Some(&' ') {
        return Some((i + 4, vec![t[i], ' ', '\'', t[i + 2], ' ']));
    }
    (c2 == Some(' ')).then(|| (i + 3, vec![t[i], ' ', '\'', ' ']))
}

/// `([^' ])('ll|'LL|'re|'RE|'ve|'VE|n't|N'T) ` → `"\1 \2 "`.
fn clitic_ll_re_ve_nt(t: &[char], i: usize) -> Option<(usize, Vec<char>)> {
    if matches!(t[i], '\'' | ' ') {
        return None;
    }
    ["'ll", "'LL", "'re", "'RE", "'ve", "'VE", "n't", "N'T"].iter().find_map(|alt| {
        (lit(t, i + 1, alt) && t.get(i + 4) == Some(&' ')).then(|| {
            let mut v = vec![t[i], ' '];
            v.extend_from_slice(&t[i + 1..i + 4]);
            v.push(' ');
            (i + 5, v)
        })
    })
}

/// `CONTRACTIONS2`: `(?i)\b(a)(b)\b` (or `(?=\s)` for "wanna") → `" \1 \2 "`.
const CONTRACTIONS2: &[(&str, &str, bool)] = &[
    ("can", "not", false),
    ("d", "'ye", false),
    ("gim", "me", false),
    ("gon", "na", false),
    ("got", "ta", false),
    ("lem", "me", false),
    ("more", "'n", false),
    ("wan", "na", true),
];

/// Case-insensitive (`re`) match of `word` at `i`; returns the end.
fn re_ci_at(t: &[char], i: usize, word: &str) -> Option<usize> {
    let n = word.chars().count();
    (i..).zip(word.chars()).all(|(k, l)| t.get(k).is_some_and(|&c| re_ci(c, l))).then_some(i + n)
}

fn contraction2(t: &[char], i: usize, a: &str, b: &str, lookahead_space: bool) -> Option<(usize, Vec<char>)> {
    // \b before a letter: start of text or a non-word character before it.
    if i > 0 && python::is_re_word(t[i - 1]) {
        return None;
    }
    let m = re_ci_at(t, i, a)?;
    let end = re_ci_at(t, m, b)?;
    let after = t.get(end).copied();
    let ok = if lookahead_space {
        after.is_some_and(python::is_space)
    } else {
        !after.is_some_and(python::is_re_word)
    };
    ok.then(|| {
        let mut v = vec![' '];
        v.extend_from_slice(&t[i..m]);
        v.push(' ');
        v.extend_from_slice(&t[m..end]);
        v.push(' ');
        (end, v)
    })
}

/// `CONTRACTIONS3`: `(?i) ('t)(is)\b` / `(?i) ('t)(was)\b` → `" \1 \2 "`.
fn contraction3(t: &[char], i: usize, b: &str) -> Option<(usize, Vec<char>)> {
    if t[i] != ' ' {
        return None;
    }
    let m = re_ci_at(t, i + 1, "'t")?;
    let end = re_ci_at(t, m, b)?;
    (!t.get(end).copied().is_some_and(python::is_re_word)).then(|| {
        let mut v = vec![' '];
        v.extend_from_slice(&t[i + 1..m]);
        v.push(' ');
        v.extend_from_slice(&t[m..end]);
        v.push(' ');
        (end, v)
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn tok(s: &str) -> Vec<String> {
        TreebankWordTokenizer.tokenize(s)
    }

    // Expected values: NLTK 3.10.4 `NLTKWordTokenizer().tokenize` (the
    // docstring example of destructive.py and runs of the reference venv).
    #[test]
    fn nltk_docstring_example() {
        let s = "Good muffins cost $3.88 (roughly 3,36 euros)\nin New York.  Please buy me\ntwo of them.\nThanks.";
        assert_eq!(
            tok(s),
            [
                "Good", "muffins", "cost", "$", "3.88", "(", "roughly", "3,36", "euros", ")", "in", "New", "York.",
                "Please", "buy", "me", "two", "of", "them.", "Thanks", "."
            ]
        );
    }

    #[test]
    fn contractions_and_quotes() {
        assert_eq!(tok("I can't, won't; gonna 'tis."), ["I", "ca", "n't", ",", "wo", "n't", ";", "gon", "na", "'", "tis", "."]);
        assert_eq!(tok("\"Hi\" he said."), ["``", "Hi", "''", "he", "said", "."]);
        assert_eq!(tok("U.S. adults."), ["U.S.", "adults", "."]);
        assert_eq!(tok("the U.S."), ["the", "U.S", "."]);
        assert_eq!(tok(""), Vec::<String>::new());
    }
}
