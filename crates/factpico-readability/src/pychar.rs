//! Python `str` character semantics used by textstat: `re` `\w` / `\b` (str patterns),
//! `str.isspace()` (= `re` `\s` and the separator of `str.split()`), and `str.lower()`.
//!
//! Tables come from Python itself (`tools/gen_data.py` → `pyunicode.rs`), so they follow
//! Python's Unicode database (see [`crate::PYTHON_UNICODE_VERSION`]) rather than Rust's.

use crate::pyunicode::{LOWER, SPACE, WORD};
use std::cmp::Ordering;

fn in_ranges(ranges: &[(u32, u32)], cp: u32) -> bool {
    ranges
        .binary_search_by(|&(lo, hi)| {
            if hi < cp {
                Ordering::Less
            } else if lo > cp {
                Ordering::Greater
            } else {
                Ordering::Equal
            }
        })
        .is_ok()
}

/// Python `re` `\w` for a str pattern: `c.isalnum() or c == "_"` (Unicode letters, all
/// characters with a numeric value such as `²`, `½`, `Ⅻ`, and the underscore).
#[inline]
pub(crate) fn is_word(c: char) -> bool {
    if c.is_ascii() {
        c.is_ascii_alphanumeric() || c == '_'
    } else {
        in_ranges(WORD, c as u32)
    }
}

/// Python `str.isspace()` (also `re` `\s` and what `str.split()` splits on). Unlike Rust's
/// `char::is_whitespace` it includes U+001C..U+001F.
#[inline]
pub(crate) fn is_space(c: char) -> bool {
    if c.is_ascii() {
        matches!(c, '\t'..='\r' | '\x1c'..='\x20')
    } else {
        in_ranges(SPACE, c as u32)
    }
}

/// Calls `f` with each character of Python's `c.lower()` (full case mapping: `İ` gives
/// `i` + U+0307). `Σ` maps to `σ`; Python's final-sigma rule (`ς`) is not applied, which
/// cannot change any count (both are one `\w` character absent from both dictionaries).
#[inline]
pub(crate) fn for_each_lower(c: char, mut f: impl FnMut(char)) {
    if c.is_ascii() {
        f(c.to_ascii_lowercase());
        return;
    }
    match LOWER.binary_search_by_key(&(c as u32), |&(cp, _)| cp) {
        Ok(i) => LOWER[i].1.chars().for_each(f),
        Err(_) => f(c),
    }
}

/// Python `s.lower()` (see [`for_each_lower`] for the sigma caveat).
#[cfg(test)]
pub(crate) fn lower(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        for_each_lower(c, |l| out.push(l));
    }
    out
}

/// Python `s.strip()` (whitespace per `str.isspace()`).
pub(crate) fn strip(s: &str) -> &str {
    s.trim_matches(is_space)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn word_class_matches_python_examples() {
        for c in ['a', 'Z', '0', '_', 'é', 'ß', 'β', '²', '½', 'Ⅻ', '①', '数', '١', 'ﬁ'] {
            assert!(is_word(c), "{c:?} is \\w in Python");
        }
        for c in ['-', '\'', '’', '.', ' ', '\u{200b}', '\u{307}', '😀', '≥', '—'] {
            assert!(!is_word(c), "{c:?} is not \\w in Python");
        }
        // U+00B5 MICRO SIGN is a letter (Ll) in Python.
        assert!(is_word('µ'));
    }

    #[test]
    fn space_class_matches_python() {
        for c in [' ', '\t', '\n', '\r', '\x0b', '\x0c', '\x1c', '\x1f', '\u{85}', '\u{a0}', '\u{2028}', '\u{3000}'] {
            assert!(is_space(c), "{c:?}");
        }
        for c in ['\u{200b}', '\u{feff}', 'a', '\u{180e}'] {
            assert!(!is_space(c), "{c:?}");
        }
    }

    #[test]
    fn lower_is_python_full_mapping() {
        assert_eq!(lower("İSTANBUL"), "i\u{307}stanbul");
        assert_eq!(lower("KELVIN\u{212a}"), "kelvink");
        assert_eq!(lower("ΣΑΣ"), "σασ");
        assert_eq!(lower("Straße ÅNGSTRÖM"), "straße ångström");
        assert_eq!(lower("Ⅻ"), "ⅻ");
    }

    #[test]
    fn lower_never_produces_space_and_tables_are_sorted() {
        for (cp, s) in LOWER {
            assert!(s.chars().all(|c| !is_space(c)), "{cp:x}");
        }
        assert!(LOWER.windows(2).all(|w| w[0].0 < w[1].0));
        assert!(WORD.windows(2).all(|w| w[0].1 < w[1].0));
        assert!(SPACE.windows(2).all(|w| w[0].1 < w[1].0));
    }
}
