//! The counting rules of the two textstat families (sentences, words, syllables).
//!
//! * Family 0.7.3 — `textstat/textstat.py` at 0.7.3: `remove_punctuation` with
//!   `__rm_apostrophe = True` (`re.sub(r"[^\w\s]", "", text)`), `lexicon_count`
//!   (`len(remove_punctuation(text).split())`), `syllable_count` (`text.lower()`, remove
//!   punctuation, `split()`, Pyphen per word), `sentence_count`.
//! * Family 0.7.8 — `textstat/backend/` at 0.7.8: `transformations.remove_punctuation(text,
//!   rm_apostrophe=False)` (drop ASCII `'` not followed by `[tsd]|ve|ll|re`, then
//!   `[^\w\s']`), `selections.list_words` (remove punctuation, then `lower()`, then `split()`),
//!   `counts.count_words`, `counts.count_sentences` (`""` → 0), `counts.count_syllables`
//!   (cmudict first pronunciation, Pyphen fallback).
//!
//! Everything is computed in one or two streaming passes over the text without regexes; the
//! Python regexes are reproduced exactly, including Unicode `\w`, `\s` and `\b`
//! ([`factpico_text::python`]). `lower()` there maps `Σ` to `σ` everywhere; Python's
//! final-sigma rule (`ς`) cannot change any count here (both are one `\w` character absent
//! from both dictionaries).

use crate::cmudict;
use crate::pyphen::{Hyphenator, Scratch};
use crate::{TextCounts, TextstatFamily};
use factpico_text::python::{for_each_lower, is_re_word, is_space};

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Class {
    /// Python whitespace: separates words.
    Space,
    /// Kept by `remove_punctuation`: part of a word.
    Keep,
    /// Deleted by `remove_punctuation`: transparent.
    Drop,
}

#[inline]
fn class_073(c: char) -> Class {
    if is_space(c) {
        Class::Space
    } else if is_re_word(c) {
        Class::Keep
    } else {
        Class::Drop
    }
}

/// `class_073` of every ASCII character.
const ASCII_CLASS: [Class; 128] = {
    let mut t = [Class::Drop; 128];
    let mut b = 0;
    while b < 128 {
        let c = b as u8 as char;
        t[b] = if matches!(c, '\t'..='\r' | '\x1c'..='\x20') {
            Class::Space
        } else if c.is_ascii_alphanumeric() || c == '_' {
            Class::Keep
        } else {
            Class::Drop
        };
        b += 1;
    }
    t
};

/// textstat 0.7.8 `RE_NONCONTRACTION_APOSTROPHE = r"\'(?![tsd]|ve|ll|re)"`: an ASCII
/// apostrophe survives when the text right after it starts with `t`, `s`, `d`, `ve`, `ll`
/// or `re` (case-sensitive, no word-boundary check).
#[inline]
fn keeps_apostrophe(rest: &[u8]) -> bool {
    matches!(rest.first(), Some(b't' | b's' | b'd'))
        || rest.starts_with(b"ve")
        || rest.starts_with(b"ll")
        || rest.starts_with(b"re")
}

/// The characters of a text with their class under the family's `remove_punctuation`
/// (0.7.8: ASCII apostrophes classified by their look-ahead in this text).
struct Classified<'a> {
    text: &'a str,
    pos: usize,
    family: TextstatFamily,
}

impl<'a> Classified<'a> {
    fn new(family: TextstatFamily, text: &'a str) -> Self {
        Classified { text, pos: 0, family }
    }
}

impl Iterator for Classified<'_> {
    type Item = (Class, char);

    #[inline]
    fn next(&mut self) -> Option<(Class, char)> {
        let bytes = self.text.as_bytes();
        let &b = bytes.get(self.pos)?;
        if b < 0x80 {
            self.pos += 1;
            let class = if b == b'\'' && self.family == TextstatFamily::Textstat078Cmudict {
                if keeps_apostrophe(&bytes[self.pos..]) {
                    Class::Keep
                } else {
                    Class::Drop
                }
            } else {
                ASCII_CLASS[usize::from(b)]
            };
            return Some((class, b as char));
        }
        let c = self.text[self.pos..].chars().next()?;
        self.pos += c.len_utf8();
        Some((class_073(c), c))
    }
}

/// Number of whitespace-separated tokens left after punctuation removal: 0.7.3
/// `lexicon_count(text)` / 0.7.8 `count_words(text)` (reference for the one-pass counters,
/// used by the tests).
#[cfg(test)]
pub(crate) fn count_words(family: TextstatFamily, s: &str) -> usize {
    let mut n = 0;
    let mut in_word = false;
    for (class, _) in Classified::new(family, s) {
        match class {
            Class::Space => in_word = false,
            Class::Keep => {
                if !in_word {
                    n += 1;
                    in_word = true;
                }
            }
            Class::Drop => {}
        }
    }
    n
}

#[inline]
fn is_terminator(c: char) -> bool {
    matches!(c, '.' | '!' | '?')
}

/// Calls `f` with every match of `re.findall(r"\b[^.!?]+[.!?]*", text, re.UNICODE)`, in
/// order. A match starts at a Unicode word boundary (Python `\w` on one side only, text ends
/// counting as non-word) at a character other than `.`, `!`, `?`; it runs to the next
/// terminator and then over all consecutive terminators. (Reference for the one-pass
/// [`count_sentences`], used by the tests.)
#[cfg(test)]
pub(crate) fn for_each_fragment(text: &str, mut f: impl FnMut(&str)) {
    let bytes_len = text.len();
    let mut prev_word = false;
    let mut i = 0;
    while i < bytes_len {
        let Some(c) = text[i..].chars().next() else { break };
        let cur_word = is_re_word(c);
        if cur_word != prev_word && !is_terminator(c) {
            let mut j = i;
            let mut last = c;
            let mut rest = text[i..].char_indices();
            let mut seen_term = false;
            for (k, d) in rest.by_ref() {
                if is_terminator(d) {
                    seen_term = true;
                } else if seen_term {
                    j = i + k;
                    break;
                }
                last = d;
                j = i + k + d.len_utf8();
            }
            f(&text[i..j]);
            prev_word = is_re_word(last);
            i = j;
            continue;
        }
        prev_word = cur_word;
        i += c.len_utf8();
    }
}

/// 0.7.3 `sentence_count` / 0.7.8 `count_sentences`: fragments minus those with ≤ 2 words,
/// at least 1 (0.7.8: 0 for `""`).
///
/// One pass that merges [`for_each_fragment`] with [`count_words`] of each fragment: the word
/// state restarts at every fragment, characters between fragments are not counted. A 0.7.8
/// apostrophe's look-ahead sees the same characters in the fragment as in the whole text,
/// because a fragment ends either at the end of the text or after a `.`/`!`/`?`.
pub(crate) fn count_sentences(family: TextstatFamily, text: &str) -> usize {
    if family == TextstatFamily::Textstat078Cmudict && text.is_empty() {
        return 0;
    }
    let (mut fragments, mut ignored) = (0usize, 0usize);
    let (mut in_fragment, mut seen_terminator) = (false, false);
    let (mut words, mut in_word) = (0usize, false);
    let mut prev_word = false;
    for (class, c) in Classified::new(family, text) {
        let terminator = is_terminator(c);
        if in_fragment && !terminator && seen_terminator {
            // the fragment ended before `c`
            in_fragment = false;
            ignored += usize::from(words <= 2);
        }
        // Python `\w` (a kept 0.7.8 apostrophe is not a word character)
        let cur_word = class == Class::Keep && c != '\'';
        if !in_fragment && cur_word != prev_word && !terminator {
            in_fragment = true;
            seen_terminator = false;
            fragments += 1;
            words = 0;
            in_word = false;
        }
        if in_fragment {
            seen_terminator |= terminator;
            match class {
                Class::Space => in_word = false,
                Class::Keep => {
                    words += usize::from(!in_word);
                    in_word = true;
                }
                Class::Drop => {}
            }
        }
        prev_word = cur_word;
    }
    if in_fragment {
        ignored += usize::from(words <= 2);
    }
    (fragments - ignored).max(1)
}

/// Words and syllables in one pass: (0.7.3 `lexicon_count`, `syllable_count`) /
/// (0.7.8 `count_words`, `count_syllables(text, "en_US")`).
///
/// 0.7.3 counts syllables on `text.lower()` with punctuation removed afterwards, and words on
/// the unlowered text, so the two token streams are tracked separately. 0.7.8 lowers after
/// removing punctuation; lowering never creates or removes whitespace, so its words are the
/// syllable tokens.
pub(crate) fn count_words_and_syllables(
    family: TextstatFamily,
    hyph: &Hyphenator,
    text: &str,
) -> (usize, usize) {
    let mut scratch = Scratch::default();
    let mut word: Vec<char> = Vec::with_capacity(32);
    let mut key = String::with_capacity(64);
    let (mut syllables, mut tokens) = (0usize, 0usize);
    let mut finish = |word: &mut Vec<char>, key: &mut String| {
        if word.is_empty() {
            return;
        }
        tokens += 1;
        syllables += match family {
            TextstatFamily::Textstat073 => hyph.count_breaks_lowered(word, &mut scratch) + 1,
            TextstatFamily::Textstat078Cmudict => {
                key.clear();
                key.extend(word.iter());
                match cmudict::syllables(key) {
                    Some(n) => n,
                    None => hyph.count_breaks_lowered(word, &mut scratch) + 1,
                }
            }
        };
        word.clear();
    };
    let mut lexicon = 0usize;
    let mut in_lexicon_word = false;
    for (class, c) in Classified::new(family, text) {
        match family {
            TextstatFamily::Textstat073 => {
                match class {
                    Class::Space => in_lexicon_word = false,
                    Class::Keep => {
                        lexicon += usize::from(!in_lexicon_word);
                        in_lexicon_word = true;
                    }
                    Class::Drop => {}
                }
                // text.lower() first, then remove punctuation on the lowered characters.
                if c.is_ascii() {
                    match class {
                        Class::Space => finish(&mut word, &mut key),
                        Class::Keep => word.push(c.to_ascii_lowercase()),
                        Class::Drop => {}
                    }
                } else {
                    for_each_lower(c, |l| match class_073(l) {
                        Class::Space => finish(&mut word, &mut key),
                        Class::Keep => word.push(l),
                        Class::Drop => {}
                    });
                }
            }
            TextstatFamily::Textstat078Cmudict => match class {
                // remove punctuation on the original text, then lower().
                Class::Space => finish(&mut word, &mut key),
                Class::Keep => for_each_lower(c, |l| word.push(l)),
                Class::Drop => {}
            },
        }
    }
    finish(&mut word, &mut key);
    let words = match family {
        TextstatFamily::Textstat073 => lexicon,
        TextstatFamily::Textstat078Cmudict => tokens,
    };
    (words, syllables)
}

/// All three counts of one text.
pub(crate) fn counts(family: TextstatFamily, hyph: &Hyphenator, text: &str) -> TextCounts {
    let (words, syllables) = count_words_and_syllables(family, hyph, text);
    TextCounts { sentences: count_sentences(family, text), words, syllables }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frags(text: &str) -> Vec<String> {
        let mut out = Vec::new();
        for_each_fragment(text, |f| out.push(f.to_owned()));
        out
    }

    #[test]
    fn fragments_follow_python_findall() {
        // re.findall(r'\b[^.!?]+[.!?]*', ...) in Python 3.11
        assert_eq!(
            frags("Randomized trials (n=1,234) vs. placebo. CI 0.80-0.97). End"),
            vec!["Randomized trials (n=1,234) vs.", "placebo.", "CI 0.", "80-0.", "97).", "End"]
        );
        assert_eq!(frags(""), Vec::<String>::new());
        assert_eq!(frags("..."), Vec::<String>::new());
        assert_eq!(frags("Wait... what?! ok"), vec!["Wait...", "what?!", "ok"]);
        assert_eq!(frags(" (Hmm) x. "), vec!["Hmm) x."]);
        assert_eq!(frags("...and then"), vec!["and then"]);
        assert_eq!(frags("½ dose. ²x"), vec!["½ dose.", "²x"]);
    }

    /// `count_sentences` by the letter of textstat: findall, then `count_words` per fragment.
    fn count_sentences_reference(family: TextstatFamily, text: &str) -> usize {
        if family == TextstatFamily::Textstat078Cmudict && text.is_empty() {
            return 0;
        }
        let (mut n, mut ignored) = (0, 0);
        for_each_fragment(text, |f| {
            n += 1;
            ignored += usize::from(count_words(family, f) <= 2);
        });
        (n - ignored).max(1)
    }

    #[test]
    fn one_pass_sentences_equal_reference() {
        use TextstatFamily::*;
        let texts = [
            "",
            "Go.",
            "a.b c d. e f g! 'sorry' he's ok? x",
            "'s 't 've. 'll a b c 're.. ' ' ' x'",
            "Randomized trials (n=1,234) vs. placebo. CI 0.80-0.97). End of it all",
            " (Hmm) x y z. ...and then w v u?! ½ dose ok. ²x y z",
            "DON'T stop. We'll see what they've done!!! Really?",
            "\u{130}stanbul caf\u{e9} na\u{ef}ve. \u{3a3}\u{391}\u{3a3} one two three.",
        ];
        for t in texts {
            for f in [Textstat073, Textstat078Cmudict] {
                assert_eq!(count_sentences(f, t), count_sentences_reference(f, t), "{f} {t:?}");
            }
        }
    }

    #[test]
    fn words_and_apostrophes() {
        use TextstatFamily::*;
        assert_eq!(count_words(Textstat073, "low-dose didn't n=1,234"), 3);
        assert_eq!(count_words(Textstat073, " - ' . "), 0);
        assert_eq!(count_words(Textstat078Cmudict, "' 's 'x"), 2);
        assert_eq!(count_words(Textstat078Cmudict, "x ' y"), 2);
        assert!(keeps_apostrophe(b"t"));
        assert!(keeps_apostrophe(b"ve"));
        assert!(!keeps_apostrophe(b"T"));
        assert!(!keeps_apostrophe(b"v"));
        assert!(!keeps_apostrophe(b""));
        for b in 0u8..128 {
            assert_eq!(ASCII_CLASS[usize::from(b)], class_073(b as char), "{b}");
        }
    }

    #[test]
    fn syllables_by_family() {
        use TextstatFamily::*;
        let h = Hyphenator::en_us();
        let t = "The study looked at 120 adults with mild asthma. People who used the new inhaler had fewer attacks. It didn't cause serious side effects.";
        assert_eq!(count_words_and_syllables(Textstat073, &h, t), (24, 33));
        assert_eq!(count_words_and_syllables(Textstat078Cmudict, &h, t), (24, 36));
        assert_eq!(count_words_and_syllables(Textstat073, &h, ""), (0, 0));
        assert_eq!(count_words_and_syllables(Textstat078Cmudict, &h, "hmm"), (1, 0));
        // 0.7.3 syllables come from text.lower(): U+0130 lowers to "i" + U+0307 (dropped).
        assert_eq!(count_words_and_syllables(Textstat073, &h, "\u{130}\u{130}\u{130}\u{130}\u{130}"), (1, 3));
    }
}
