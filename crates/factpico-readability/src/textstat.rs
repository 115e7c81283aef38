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
//! Python regexes are reproduced exactly, including Unicode `\w`, `\s` and `\b`.

use crate::cmudict;
use crate::pychar::{for_each_lower, is_space, is_word};
use crate::pyphen::{Hyphenator, Scratch};
use crate::{TextCounts, TextstatFamily};

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
    } else if is_word(c) {
        Class::Keep
    } else {
        Class::Drop
    }
}

/// textstat 0.7.8 `RE_NONCONTRACTION_APOSTROPHE = r"\'(?![tsd]|ve|ll|re)"`: an ASCII
/// apostrophe survives when the text right after it starts with `t`, `s`, `d`, `ve`, `ll`
/// or `re` (case-sensitive, no word-boundary check).
#[inline]
fn keeps_apostrophe(rest: &str) -> bool {
    let b = rest.as_bytes();
    matches!(b.first(), Some(b't' | b's' | b'd'))
        || rest.starts_with("ve")
        || rest.starts_with("ll")
        || rest.starts_with("re")
}

/// Class of the character `c` at byte `i` of `s` under 0.7.8's `remove_punctuation`.
#[inline]
fn class_078(s: &str, i: usize, c: char) -> Class {
    if c == '\'' {
        if keeps_apostrophe(&s[i + 1..]) {
            Class::Keep
        } else {
            Class::Drop
        }
    } else {
        class_073(c)
    }
}

/// Number of whitespace-separated tokens left after punctuation removal: 0.7.3
/// `lexicon_count(text)` / 0.7.8 `count_words(text)`.
pub(crate) fn count_words(family: TextstatFamily, s: &str) -> usize {
    let mut n = 0;
    let mut in_word = false;
    for (i, c) in s.char_indices() {
        let class = match family {
            TextstatFamily::Textstat073 => class_073(c),
            TextstatFamily::Textstat078Cmudict => class_078(s, i, c),
        };
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
/// terminator and then over all consecutive terminators.
pub(crate) fn for_each_fragment(text: &str, mut f: impl FnMut(&str)) {
    let bytes_len = text.len();
    let mut prev_word = false;
    let mut i = 0;
    while i < bytes_len {
        let Some(c) = text[i..].chars().next() else { break };
        let cur_word = is_word(c);
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
            prev_word = is_word(last);
            i = j;
            continue;
        }
        prev_word = cur_word;
        i += c.len_utf8();
    }
}

/// 0.7.3 `sentence_count` / 0.7.8 `count_sentences`: fragments minus those with ≤ 2 words,
/// at least 1 (0.7.8: 0 for `""`).
pub(crate) fn count_sentences(family: TextstatFamily, text: &str) -> usize {
    if family == TextstatFamily::Textstat078Cmudict && text.is_empty() {
        return 0;
    }
    let mut fragments = 0usize;
    let mut ignored = 0usize;
    for_each_fragment(text, |frag| {
        fragments += 1;
        if count_words(family, frag) <= 2 {
            ignored += 1;
        }
    });
    (fragments - ignored).max(1)
}

/// 0.7.3 `syllable_count` / 0.7.8 `count_syllables(text, "en_US")`.
pub(crate) fn count_syllables(family: TextstatFamily, hyph: &Hyphenator, text: &str) -> usize {
    let mut scratch = Scratch::default();
    let mut word: Vec<char> = Vec::with_capacity(32);
    let mut key = String::with_capacity(64);
    let mut total = 0usize;
    let mut finish = |word: &mut Vec<char>, key: &mut String| {
        if word.is_empty() {
            return;
        }
        total += match family {
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
    match family {
        TextstatFamily::Textstat073 => {
            // text.lower() first, then remove punctuation on the lowered characters.
            for c in text.chars() {
                for_each_lower(c, |l| match class_073(l) {
                    Class::Space => finish(&mut word, &mut key),
                    Class::Keep => word.push(l),
                    Class::Drop => {}
                });
            }
        }
        TextstatFamily::Textstat078Cmudict => {
            // remove punctuation on the original text, then lower().
            for (i, c) in text.char_indices() {
                match class_078(text, i, c) {
                    Class::Space => finish(&mut word, &mut key),
                    Class::Keep => for_each_lower(c, |l| word.push(l)),
                    Class::Drop => {}
                }
            }
        }
    }
    finish(&mut word, &mut key);
    total
}

/// All three counts of one text.
pub(crate) fn counts(family: TextstatFamily, hyph: &Hyphenator, text: &str) -> TextCounts {
    TextCounts {
        sentences: count_sentences(family, text),
        words: count_words(family, text),
        syllables: count_syllables(family, hyph, text),
    }
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

    #[test]
    fn words_and_apostrophes() {
        use TextstatFamily::*;
        assert_eq!(count_words(Textstat073, "low-dose didn't n=1,234"), 3);
        assert_eq!(count_words(Textstat073, " - ' . "), 0);
        assert_eq!(count_words(Textstat078Cmudict, "' 's 'x"), 2);
        assert_eq!(count_words(Textstat078Cmudict, "x ' y"), 2);
        assert!(keeps_apostrophe("t"));
        assert!(keeps_apostrophe("ve"));
        assert!(!keeps_apostrophe("T"));
        assert!(!keeps_apostrophe("v"));
        assert!(!keeps_apostrophe(""));
    }

    #[test]
    fn syllables_by_family() {
        use TextstatFamily::*;
        let h = Hyphenator::en_us();
        let t = "The study looked at 120 adults with mild asthma. People who used the new inhaler had fewer attacks. It didn't cause serious side effects.";
        assert_eq!(count_syllables(Textstat073, &h, t), 33);
        assert_eq!(count_syllables(Textstat078Cmudict, &h, t), 36);
        assert_eq!(count_syllables(Textstat073, &h, ""), 0);
        assert_eq!(count_syllables(Textstat078Cmudict, &h, "hmm"), 0);
    }
}
