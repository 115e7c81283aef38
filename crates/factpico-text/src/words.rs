//! Python-compatible whitespace handling: `str.split()`, `str.strip()`, word counts.
//!
//! Python's `str.isspace()` (and therefore `str.split()` / `str.strip()` with no
//! argument) treats 29 code points as whitespace: the 25 of Unicode's
//! `White_Space` property — which is what Rust's [`char::is_whitespace`] tests,
//! U+0085 included — plus the four information separators U+001C..=U+001F.
//! Rust's `str::split_whitespace` therefore differs from Python on those four.

/// Python's `str.isspace()` for one character: `char::is_whitespace` plus
/// U+001C..=U+001F (file, group, record and unit separators).
pub fn is_python_whitespace(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// Python's `text.split()` (no argument): maximal runs of non-whitespace, in
/// order, as sub-slices of `text`. Never yields an empty string.
pub fn words(text: &str) -> impl Iterator<Item = &str> + '_ {
    text.split(is_python_whitespace).filter(|w| !w.is_empty())
}

/// Python's `len(text.strip().split())`: the number of whitespace-separated
/// words (0 for an empty or whitespace-only text).
pub fn word_count(text: &str) -> usize {
    words(text).count()
}

/// Python's `text.strip()` (no argument).
pub fn python_strip(text: &str) -> &str {
    text.trim_matches(is_python_whitespace)
}

/// Python's `text.rstrip()` (no argument).
pub fn python_rstrip(text: &str) -> &str {
    text.trim_end_matches(is_python_whitespace)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_whitespace_set_has_29_code_points() {
        let n = (0u32..0x11_0000)
            .filter_map(char::from_u32)
            .filter(|&c| is_python_whitespace(c))
            .count();
        assert_eq!(n, 29);
        assert!(is_python_whitespace('\u{85}'));
        assert!(is_python_whitespace('\u{1c}'));
        assert!(!is_python_whitespace('\u{200b}'), "zero-width space is not whitespace");
        assert!(!is_python_whitespace('\u{180e}'));
    }

    #[test]
    fn split_matches_python() {
        assert_eq!(words("  a\tb\u{1f}c\u{a0}d\n\ne \u{200b} ").collect::<Vec<_>>(),
                   vec!["a", "b", "c", "d", "e", "\u{200b}"]);
        assert_eq!(word_count(""), 0);
        assert_eq!(word_count(" \n\t\u{3000} "), 0);
        assert_eq!(word_count("one"), 1);
        assert_eq!(word_count("p < 0.05."), 3);
    }

    #[test]
    fn strip_matches_python() {
        assert_eq!(python_strip("\u{1c} a b \u{85}"), "a b");
        assert_eq!(python_rstrip(" a b \u{2029}"), " a b");
        assert_eq!(python_strip("   "), "");
    }
}
