//! CPython 3.11 character semantics (Unicode 14.0.0), for code that must split,
//! strip, classify and lower-case text exactly as a Python reference does.
//!
//! Rust's `char` methods follow the Unicode version of the Rust toolchain and
//! differ from Python even where versions agree (`str.isspace()` includes
//! U+001C..U+001F; `re` `\w` includes every character with a numeric value
//! such as `²` or `½`). Everything here follows tables computed by CPython
//! 3.11.7 itself over every code point ([`UNIDATA_VERSION`],
//! [`PYTHON_VERSION`]); the `regex`-module classes follow that module
//! ([`REGEX_VERSION`]), which bundles its own, newer Unicode data.
//! `tools/gen_data.py` regenerates the tables and checks the ASCII fast paths
//! below against Python.
//!
//! | here | Python | used by |
//! |---|---|---|
//! | [`is_space`] | `c.isspace()` = `re` `\s` | `str.split()`, `str.strip()`, textstat |
//! | [`split`], [`strip`], [`rstrip`] | `s.split()`, `s.strip()`, `s.rstrip()` | word counts, Punkt, AlignScore chunks, Pyphen |
//! | [`is_re_word`] | `re` `\w` (str pattern) = `c.isalnum() or c == "_"` | textstat |
//! | [`lower`], [`for_each_lower`] | `s.lower()` (full mapping, `İ` → `i̇`) | textstat, Pyphen |
//! | [`is_upper`], [`is_lower`] | `c.isupper()`, `c.islower()` | Punkt |
//! | [`is_regex_digit`], [`is_regex_word_not_digit`], [`is_regex_space`] | third-party `regex` module `\d`, `[^\W\d]`, `\s` ([`REGEX_VERSION`]) | Punkt (NLTK >= 3.10) |
//!
//! All predicates answer ASCII with a `match`/comparison and look other
//! characters up by binary search in sorted range tables (whitespace: Rust's
//! `White_Space` bitmap, tested equal to Python's table), so they are `O(1)`
//! for ASCII and `O(log n)` otherwise, without allocation.
//!
//! ```
//! use factpico_text::python;
//!
//! assert!(python::is_space('\u{1c}') && !'\u{1c}'.is_whitespace());
//! assert_eq!(python::split(" a\u{1f}b\u{a0}c ").collect::<Vec<_>>(), ["a", "b", "c"]);
//! assert!(python::is_re_word('²') && !python::is_re_word('-'));
//! assert_eq!(python::lower("İSTANBUL"), "i\u{307}stanbul");
//! assert!(python::is_upper('\u{212a}') && !python::is_regex_digit('²'));
//! ```

#[rustfmt::skip]
mod tables;

use std::cmp::Ordering;

pub use tables::{PYTHON_VERSION, REGEX_VERSION, UNIDATA_VERSION};

/// Whether `cp` lies in one of the sorted, disjoint, inclusive `ranges`.
#[inline]
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

/// The lookup strategy of every table-backed predicate: ASCII by `ascii` (a
/// comparison the generator checks against Python), everything else by
/// binary search in `table`.
#[inline]
fn ascii_or_table(c: char, ascii: impl FnOnce(char) -> bool, table: &[(u32, u32)]) -> bool {
    if c.is_ascii() {
        ascii(c)
    } else {
        in_ranges(table, c as u32)
    }
}

// ---------------------------------------------------------------------------
// Whitespace: str.isspace(), str.split(), str.strip()
// ---------------------------------------------------------------------------

/// Python `c.isspace()` — also `re` `\s` and what `str.split()` / `str.strip()`
/// with no argument split on and strip. 29 code points: Unicode `White_Space`
/// (which Rust's [`char::is_whitespace`] tests, U+0085 included) plus the four
/// information separators U+001C..=U+001F. Re-exported as
/// [`crate::is_python_whitespace`].
///
/// Non-ASCII characters are answered by [`char::is_whitespace`] (a bitmap
/// lookup, faster than a range table); the tests check that this equals
/// Python's table for every code point.
#[inline]
pub fn is_space(c: char) -> bool {
    if c.is_ascii() {
        matches!(c, '\t'..='\r' | '\x1c'..='\x20')
    } else {
        c.is_whitespace()
    }
}

/// Python `text.split()` (no argument): the maximal runs of non-[`is_space`]
/// characters, in order, as sub-slices of `text`. Never yields an empty
/// string; yields nothing for an empty or whitespace-only text. Re-exported
/// as [`crate::words`].
#[inline]
pub fn split(text: &str) -> impl Iterator<Item = &str> + '_ {
    text.split(is_space).filter(|w| !w.is_empty())
}

/// Python `text.strip()` (no argument): `text` without leading and trailing
/// [`is_space`] characters. Re-exported as [`crate::python_strip`].
#[inline]
pub fn strip(text: &str) -> &str {
    text.trim_matches(is_space)
}

/// Python `text.rstrip()` (no argument): `text` without trailing [`is_space`]
/// characters. Re-exported as [`crate::python_rstrip`].
#[inline]
pub fn rstrip(text: &str) -> &str {
    text.trim_end_matches(is_space)
}

// ---------------------------------------------------------------------------
// The standard library `re` module (str patterns) and str.lower()
// ---------------------------------------------------------------------------

/// Python `re` `\w` in a str pattern (the default, Unicode): `c.isalnum() or
/// c == "_"` — Unicode letters, every character with a numeric value (`²`,
/// `½`, `Ⅻ`, `①`, `١`) and the underscore; not combining marks (U+0307) or
/// connector punctuation other than `_`. `re`'s `\b` is the boundary between
/// this class and its complement.
#[inline]
pub fn is_re_word(c: char) -> bool {
    ascii_or_table(c, |c| c.is_ascii_alphanumeric() || c == '_', tables::RE_WORD)
}

/// Calls `f` with each character of Python's `c.lower()`, in order: one
/// character, or several for the full case mappings (`İ` U+0130 gives `i` +
/// U+0307). `Σ` gives `σ`: Python's context-dependent final-sigma rule (`ς`
/// at the end of a word) is not applied, see [`lower`]. Never produces an
/// [`is_space`] character.
#[inline]
pub fn for_each_lower(c: char, mut f: impl FnMut(char)) {
    if c.is_ascii() {
        f(c.to_ascii_lowercase());
        return;
    }
    match tables::PY_LOWER_MAP.binary_search_by_key(&(c as u32), |&(cp, _)| cp) {
        Ok(i) => tables::PY_LOWER_MAP[i].1.chars().for_each(f),
        Err(_) => f(c),
    }
}

/// Python `s.lower()`, character by character ([`for_each_lower`]).
///
/// Equal to Python except for `Σ` (U+03A3) at the end of a cased word, which
/// Python lower-cases to the final form `ς` and this function to `σ`.
pub fn lower(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        for_each_lower(c, |l| out.push(l));
    }
    out
}

/// Python `c.isupper()` for a one-character string: `c` is upper-case
/// (`Lu`, or `Other_Uppercase` such as `Ⓐ`) and not title-case (`ǅ` is
/// neither upper nor lower).
#[inline]
pub fn is_upper(c: char) -> bool {
    ascii_or_table(c, |c| c.is_ascii_uppercase(), tables::PY_UPPER)
}

/// Python `c.islower()` for a one-character string: `c` is lower-case (`Ll`,
/// or `Other_Lowercase` such as `ª` or `ʰ`).
#[inline]
pub fn is_lower(c: char) -> bool {
    ascii_or_table(c, |c| c.is_ascii_lowercase(), tables::PY_LOWER)
}

// ---------------------------------------------------------------------------
// The third-party `regex` module (what NLTK >= 3.10 compiles its patterns with)
// ---------------------------------------------------------------------------

/// `regex` module `\d` (str pattern): decimal digits (`Nd` in the `regex`
/// module's own Unicode data, which is newer than Python's 14.0.0, so it also
/// has digits such as U+10D40..U+10D49), e.g. `٣` or `०`, but not `²` or `½`.
#[inline]
pub fn is_regex_digit(c: char) -> bool {
    ascii_or_table(c, |c| c.is_ascii_digit(), tables::REGEX_DIGIT)
}

/// `regex` module `[^\W\d]` (str pattern): a `regex` word character that is
/// not a decimal digit (alphabetic characters, marks, connector punctuation
/// such as `_` or `‿`, and U+200C/U+200D), per the `regex` module's own
/// Unicode data. `regex`'s `\w` follows Unicode's definition and differs from
/// `re`'s ([`is_re_word`]): combining marks are word characters here.
#[inline]
pub fn is_regex_word_not_digit(c: char) -> bool {
    ascii_or_table(c, |c| c.is_ascii_alphabetic() || c == '_', tables::REGEX_WORD_NOT_DIGIT)
}

/// `regex` module `\s` (str pattern): Unicode `White_Space`, i.e. Rust's
/// [`char::is_whitespace`]. Unlike `re` `\s` / [`is_space`] it excludes
/// U+001C..=U+001F (the generator and the tests check both facts).
#[inline]
pub fn is_regex_space(c: char) -> bool {
    c.is_whitespace()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all_chars() -> impl Iterator<Item = char> {
        (0u32..0x11_0000).filter_map(char::from_u32)
    }

    fn sorted_disjoint(t: &[(u32, u32)]) -> bool {
        t.iter().all(|&(lo, hi)| lo <= hi) && t.windows(2).all(|w| w[0].1 + 1 < w[1].0)
    }

    #[test]
    fn versions_are_cpython_3_11() {
        assert_eq!(UNIDATA_VERSION, "14.0.0");
        assert!(PYTHON_VERSION.starts_with("3.11."), "{PYTHON_VERSION}");
        assert!(!REGEX_VERSION.is_empty());
    }

    #[test]
    fn tables_are_sorted_disjoint_and_maximal() {
        for t in [
            tables::PY_SPACE,
            tables::PY_UPPER,
            tables::PY_LOWER,
            tables::RE_WORD,
            tables::REGEX_DIGIT,
            tables::REGEX_WORD_NOT_DIGIT,
        ] {
            assert!(sorted_disjoint(t));
        }
        assert!(tables::PY_LOWER_MAP.windows(2).all(|w| w[0].0 < w[1].0));
        assert!(tables::PY_LOWER_MAP.iter().all(|&(cp, s)| cp >= 0x80 && !s.is_empty()));
    }

    /// The ASCII fast paths agree with the tables generated by Python (which
    /// include the ASCII ranges).
    #[test]
    fn ascii_fast_paths_agree_with_python_tables() {
        for c in (0u8..0x80).map(char::from) {
            let cp = c as u32;
            assert_eq!(is_space(c), in_ranges(tables::PY_SPACE, cp), "{c:?}");
            assert_eq!(is_upper(c), in_ranges(tables::PY_UPPER, cp), "{c:?}");
            assert_eq!(is_lower(c), in_ranges(tables::PY_LOWER, cp), "{c:?}");
            assert_eq!(is_re_word(c), in_ranges(tables::RE_WORD, cp), "{c:?}");
            assert_eq!(is_regex_digit(c), in_ranges(tables::REGEX_DIGIT, cp), "{c:?}");
            assert_eq!(is_regex_word_not_digit(c), in_ranges(tables::REGEX_WORD_NOT_DIGIT, cp), "{c:?}");
        }
    }

    /// `is_space` (ASCII match + Rust's `White_Space`) is Python's table, for every character.
    #[test]
    fn space_equals_python_table_for_every_char() {
        for c in all_chars() {
            assert_eq!(is_space(c), in_ranges(tables::PY_SPACE, c as u32), "{c:?}");
        }
    }

    #[test]
    fn python_whitespace_set_has_29_code_points() {
        assert_eq!(all_chars().filter(|&c| is_space(c)).count(), 29);
        assert!(is_space('\u{85}'));
        assert!(is_space('\u{1c}'));
        assert!(!is_space('\u{200b}'), "zero-width space is not whitespace");
        assert!(!is_space('\u{180e}'));
        for c in [' ', '\t', '\n', '\r', '\x0b', '\x0c', '\x1c', '\x1f', '\u{85}', '\u{a0}', '\u{2028}', '\u{3000}'] {
            assert!(is_space(c), "{c:?}");
        }
        for c in ['\u{200b}', '\u{feff}', 'a', '\u{180e}'] {
            assert!(!is_space(c), "{c:?}");
        }
    }

    /// `regex` `\s` is `str.isspace()` minus U+001C..=U+001F, for every character.
    #[test]
    fn regex_space_is_python_space_without_separators() {
        for c in all_chars() {
            let separator = ('\u{1c}'..='\u{1f}').contains(&c);
            assert_eq!(is_regex_space(c), is_space(c) && !separator, "{c:?}");
        }
    }

    #[test]
    fn split_matches_python() {
        assert_eq!(split("  a\tb\u{1f}c\u{a0}d\n\ne \u{200b} ").collect::<Vec<_>>(), vec!["a", "b", "c", "d", "e", "\u{200b}"]);
        assert_eq!(split("").count(), 0);
        assert_eq!(split(" \n\t\u{3000} ").count(), 0);
        assert_eq!(split("one").count(), 1);
        assert_eq!(split("p < 0.05.").count(), 3);
        assert_eq!(crate::word_count("a\u{1c}b\u{2028}c\u{200b}"), 3);
        assert_eq!(crate::word_count(" \n\t\u{3000} "), 0);
    }

    #[test]
    fn strip_matches_python() {
        assert_eq!(strip("\u{1c} a b \u{85}"), "a b");
        assert_eq!(rstrip(" a b \u{2029}"), " a b");
        assert_eq!(strip("   "), "");
        assert_eq!(rstrip("\u{1f}x\u{1f}"), "\u{1f}x");
    }

    #[test]
    fn re_word_class_matches_python_examples() {
        for c in ['a', 'Z', '0', '_', 'é', 'ß', 'β', '²', '½', 'Ⅻ', '①', '数', '١', 'ﬁ'] {
            assert!(is_re_word(c), "{c:?} is \\w in Python");
        }
        for c in ['-', '\'', '’', '.', ' ', '\u{200b}', '\u{307}', '😀', '≥', '—'] {
            assert!(!is_re_word(c), "{c:?} is not \\w in Python");
        }
        // U+00B5 MICRO SIGN is a letter (Ll) in Python.
        assert!(is_re_word('µ'));
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
    fn lower_never_produces_space() {
        for &(cp, s) in tables::PY_LOWER_MAP {
            assert!(s.chars().all(|c| !is_space(c)), "{cp:x}");
        }
    }

    #[test]
    fn case_and_regex_classes_follow_python_and_regex() {
        assert!(is_upper('\u{130}') && is_upper('\u{212a}') && !is_upper('\u{1c89}'));
        assert!(is_lower('\u{df}') && is_lower('\u{295}'));
        assert!(!is_upper('\u{1c5}') && !is_lower('\u{1c5}'), "title-case ǅ is neither");
        assert!(is_regex_digit('\u{966}') && !is_regex_digit('\u{b2}') && !is_regex_digit('\u{bd}'));
        assert!(is_regex_word_not_digit('\u{3b2}') && is_regex_word_not_digit('_') && !is_regex_word_not_digit('5'));
        assert!(!is_regex_word_not_digit('-') && !is_regex_word_not_digit('\u{2013}'));
        assert!(is_regex_space('\u{85}') && !is_regex_space('\u{1c}') && is_space('\u{1c}'));
    }
}
