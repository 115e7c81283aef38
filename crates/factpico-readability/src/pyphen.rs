//! Port of Pyphen's Liang hyphenation (`pyphen/__init__.py`, `HyphDict` and
//! `Pyphen.positions`, pyphen 0.18.1; identical in 0.11.0 – 0.18.1) with the embedded
//! `hyph_en_US.dic` from pyphen 0.18.1 (sha256 `486fb684…cba7d`, byte-identical in pyphen
//! 0.11.0 – 0.18.1).
//!
//! textstat counts a word's syllables as `len(Pyphen(lang="en_US").positions(word)) + 1`
//! with Pyphen's defaults `left = 2`, `right = 2` (the `.dic` header's
//! `LEFTHYPHENMIN 2 / RIGHTHYPHENMIN 3` is ignored by Pyphen). Patterns are parsed exactly as
//! `HyphDict.__init__` does (`^^hh` escapes, `/…=…` non-standard alternatives, the
//! `(\d?)(\D?)` tokenisation, all-zero patterns skipped, later duplicates win) and stored in a
//! dense character trie, so a word costs one trie walk per start position instead of Pyphen's
//! `maxlen` dictionary probes. All lengths are in Unicode code points, like Python `len`.

use factpico_text::python::{for_each_lower, strip};
use std::collections::BTreeMap;
use std::sync::OnceLock;

/// The `hyph_en_US.dic` of pyphen 0.18.1, byte for byte (licence: `data/LICENSE-hyph_en_US.txt`).
pub const HYPH_EN_US_DIC: &str = include_str!("../data/hyph_en_US.dic");

/// Pyphen version whose `hyph_en_US.dic` and algorithm this module reproduces.
pub const PYPHEN_VERSION: &str = "0.18.1";

const NO_PATTERN: u32 = u32::MAX;
/// Symbol of a character that occurs in no pattern: a trie walk stops there.
const NO_SYMBOL: u8 = u8::MAX;

#[derive(Debug, Clone, Copy)]
struct Pattern {
    /// Pyphen's `start`: offset of the first non-zero value.
    offset: u32,
    /// Range into `HyphDict::values`.
    start: u32,
    len: u32,
}

/// Parsed hyphenation patterns (Pyphen's `HyphDict`), stored as a dense character trie over
/// the dictionary's own alphabet (35 symbols and 15 268 nodes for en_US).
///
/// Build one with [`HyphDict::parse`] or use the embedded en_US dictionary via
/// [`HyphDict::en_us`]. Immutable and `Sync`.
#[derive(Debug, Clone)]
pub struct HyphDict {
    /// Symbol of each ASCII character (`NO_SYMBOL` if absent from all patterns).
    ascii_symbols: [u8; 128],
    /// Symbols of the non-ASCII pattern characters, sorted by char.
    other_symbols: Vec<(char, u8)>,
    /// Alphabet size.
    alpha: usize,
    /// `transitions[node * alpha + symbol]`: child node, 0 = none (the root is never a child).
    transitions: Vec<u32>,
    /// Pattern index per node, or `NO_PATTERN`.
    node_pattern: Vec<u32>,
    patterns: Vec<Pattern>,
    values: Vec<u8>,
    maxlen: usize,
}

/// Python's `re.compile(r'\^{2}([0-9a-f]{2})').sub(lambda m: chr(int(m[1], 16)), s)`.
fn replace_hex_escapes(s: &str) -> String {
    let chars: Vec<char> = s.chars().collect();
    let mut out = String::with_capacity(s.len());
    let is_hex = |c: char| c.is_ascii_digit() || ('a'..='f').contains(&c);
    let mut k = 0;
    while k < chars.len() {
        if k + 3 < chars.len()
            && chars[k] == '^'
            && chars[k + 1] == '^'
            && is_hex(chars[k + 2])
            && is_hex(chars[k + 3])
        {
            let hi = chars[k + 2].to_digit(16).unwrap_or(0);
            let lo = chars[k + 3].to_digit(16).unwrap_or(0);
            if let Some(c) = char::from_u32(hi * 16 + lo) {
                out.push(c);
            }
            k += 4;
        } else {
            out.push(chars[k]);
            k += 1;
        }
    }
    out
}

/// Python's `re.compile(r'(\d?)(\D?)').findall(pattern)` followed by
/// `tags, values = zip(*[(string, int(i or '0')) ...])`: returns the key (`''.join(tags)`)
/// and the values. Digits are the ASCII/Unicode decimal digits Python's `\d` accepts.
fn tokenize(pattern: &str) -> (String, Vec<u8>) {
    let chars: Vec<char> = pattern.chars().collect();
    let digit = |c: char| c.to_digit(10).map(|d| d as u8);
    let mut key = String::new();
    let mut values = Vec::with_capacity(chars.len() + 2);
    let mut p = 0;
    loop {
        if p == chars.len() {
            // the final empty match of findall
            values.push(0);
            break;
        }
        let mut value = 0;
        if let Some(d) = digit(chars[p]) {
            value = d;
            p += 1;
        }
        if p < chars.len() && digit(chars[p]).is_none() {
            key.push(chars[p]);
            p += 1;
        }
        values.push(value);
    }
    (key, values)
}

impl HyphDict {
    /// Parses a hunspell/Hyphen `.dic` text the way Pyphen's `HyphDict.__init__` does.
    ///
    /// The first line (the encoding) is skipped; each further `\n`-separated line is
    /// stripped; empty lines and lines starting with `%`, `#`, `LEFTHYPHENMIN`,
    /// `RIGHTHYPHENMIN`, `COMPOUNDLEFTHYPHENMIN`, `COMPOUNDRIGHTHYPHENMIN` are ignored.
    /// For a non-standard pattern (`/` and `=` present) only the part before `/` is kept:
    /// the replacement data does not change which positions are break points. Never fails:
    /// a text without patterns gives an empty dictionary (no break points).
    pub fn parse(text: &str) -> Self {
        const IGNORED: [&str; 6] = [
            "%",
            "#",
            "LEFTHYPHENMIN",
            "RIGHTHYPHENMIN",
            "COMPOUNDLEFTHYPHENMIN",
            "COMPOUNDRIGHTHYPHENMIN",
        ];
        let mut map: BTreeMap<String, (u32, Vec<u8>)> = BTreeMap::new();
        for line in text.split('\n').skip(1) {
            let line = strip(line);
            if line.is_empty() || IGNORED.iter().any(|p| line.starts_with(p)) {
                continue;
            }
            let mut pattern = replace_hex_escapes(line);
            if pattern.contains('/') && pattern.contains('=') {
                if let Some(slash) = pattern.find('/') {
                    pattern.truncate(slash);
                }
            }
            let (key, values) = tokenize(&pattern);
            let Some(start) = values.iter().position(|&v| v != 0) else {
                continue; // only zeros: skipped
            };
            let end = values.iter().rposition(|&v| v != 0).map_or(start, |e| e + 1);
            map.insert(key, (start as u32, values[start..end].to_vec()));
        }
        Self::from_patterns(map)
    }

    fn from_patterns(map: BTreeMap<String, (u32, Vec<u8>)>) -> Self {
        let mut chars: Vec<char> = map.keys().flat_map(|k| k.chars()).collect();
        chars.sort_unstable();
        chars.dedup();
        // More than 255 distinct pattern characters would need wider symbols; no hunspell
        // dictionary comes close (en_US: 35). Extra characters are dropped (never matched).
        chars.truncate(usize::from(NO_SYMBOL));
        let mut ascii_symbols = [NO_SYMBOL; 128];
        let mut other_symbols = Vec::new();
        for (i, &c) in chars.iter().enumerate() {
            if c.is_ascii() {
                ascii_symbols[c as usize] = i as u8;
            } else {
                other_symbols.push((c, i as u8));
            }
        }
        let alpha = chars.len().max(1);
        let mut dict = HyphDict {
            ascii_symbols,
            other_symbols,
            alpha,
            transitions: vec![0; alpha],
            node_pattern: vec![NO_PATTERN],
            patterns: Vec::with_capacity(map.len()),
            values: Vec::new(),
            maxlen: 0,
        };
        'keys: for (key, (offset, vals)) in map {
            dict.maxlen = dict.maxlen.max(key.chars().count());
            let mut node = 0usize;
            for c in key.chars() {
                let sym = dict.symbol(c);
                if sym == NO_SYMBOL {
                    continue 'keys;
                }
                let slot = node * alpha + usize::from(sym);
                node = match dict.transitions[slot] {
                    0 => {
                        let n = dict.node_pattern.len();
                        dict.node_pattern.push(NO_PATTERN);
                        dict.transitions.resize(dict.transitions.len() + alpha, 0);
                        dict.transitions[slot] = n as u32;
                        n
                    }
                    n => n as usize,
                };
            }
            dict.node_pattern[node] = dict.patterns.len() as u32;
            let start = dict.values.len() as u32;
            dict.patterns.push(Pattern { offset, start, len: vals.len() as u32 });
            dict.values.extend_from_slice(&vals);
        }
        dict
    }

    /// The embedded en_US dictionary (pyphen 0.18.1 `hyph_en_US.dic`), parsed once.
    pub fn en_us() -> &'static HyphDict {
        static DICT: OnceLock<HyphDict> = OnceLock::new();
        DICT.get_or_init(|| HyphDict::parse(HYPH_EN_US_DIC))
    }

    /// Number of distinct patterns (Pyphen's `len(HyphDict.patterns)`).
    pub fn pattern_count(&self) -> usize {
        self.patterns.len()
    }

    /// Longest pattern key in code points (Pyphen's `HyphDict.maxlen`).
    pub fn maxlen(&self) -> usize {
        self.maxlen
    }

    /// Alphabet symbol of `c`, or `NO_SYMBOL`.
    #[inline]
    fn symbol(&self, c: char) -> u8 {
        if c.is_ascii() {
            self.ascii_symbols[c as usize]
        } else {
            self.other_symbols
                .binary_search_by_key(&c, |e| e.0)
                .map_or(NO_SYMBOL, |i| self.other_symbols[i].1)
        }
    }

    /// Fills `references` (Pyphen's list of the same name, length `pointed.len() + 1`) for
    /// the already lower-cased, dot-framed word `pointed` = `"." + word + "."`, given as
    /// alphabet symbols.
    fn references(&self, pointed: &[u8], references: &mut Vec<u8>) {
        references.clear();
        references.resize(pointed.len() + 1, 0);
        // Python: for i in range(len(pointed_word) - 1), all substrings up to maxlen; a
        // substring is a key only if every prefix is a trie node.
        for i in 0..pointed.len().saturating_sub(1) {
            let mut node = 0usize;
            for &sym in &pointed[i..] {
                if sym == NO_SYMBOL {
                    break;
                }
                node = self.transitions[node * self.alpha + usize::from(sym)] as usize;
                if node == 0 {
                    break;
                }
                let pid = self.node_pattern[node];
                if pid != NO_PATTERN {
                    let p = self.patterns[pid as usize];
                    let vals = &self.values[p.start as usize..(p.start + p.len) as usize];
                    let at = i + p.offset as usize;
                    for (r, &v) in references[at..at + vals.len()].iter_mut().zip(vals) {
                        *r = (*r).max(v);
                    }
                }
            }
        }
    }

    /// Pyphen's `HyphDict.positions(word)`: every position (in code points of
    /// `word.lower()`) whose Liang value is odd, without the left/right limits. Can contain
    /// positions 0 and `len(word)`.
    pub fn positions(&self, word: &str) -> Vec<usize> {
        let mut pointed = vec![self.symbol('.')];
        for c in word.chars() {
            for_each_lower(c, |l| pointed.push(self.symbol(l)));
        }
        pointed.push(self.symbol('.'));
        let mut refs = Vec::new();
        self.references(&pointed, &mut refs);
        refs.iter()
            .enumerate()
            .filter(|(_, &r)| r % 2 == 1)
            .filter_map(|(i, _)| i.checked_sub(1))
            .collect()
    }
}

/// Pyphen's `Pyphen(lang=..., left, right)`: a dictionary plus the minimum lengths of the
/// first and last syllable. textstat uses [`Hyphenator::en_us`] (`left = right = 2`).
#[derive(Debug, Clone, Copy)]
pub struct Hyphenator {
    dict: &'static HyphDict,
    left: usize,
    right: usize,
}

impl Default for Hyphenator {
    fn default() -> Self {
        Self::en_us()
    }
}

/// Reusable buffers for [`Hyphenator::count_breaks_lowered`].
#[derive(Debug, Default)]
pub(crate) struct Scratch {
    pointed: Vec<u8>,
    references: Vec<u8>,
}

impl Hyphenator {
    /// `Pyphen(lang="en_US")` with Pyphen's defaults `left = 2`, `right = 2`, as textstat
    /// creates it.
    pub fn en_us() -> Self {
        Self { dict: HyphDict::en_us(), left: 2, right: 2 }
    }

    /// A hyphenator over `dict` with explicit limits (Pyphen's `left`, `right`).
    pub fn new(dict: &'static HyphDict, left: usize, right: usize) -> Self {
        Self { dict, left, right }
    }

    /// Pyphen's `Pyphen.positions(word)`: break positions `p` (code-point offsets) with
    /// `left <= p <= len(word) - right`, ascending. `len(word)` counts the code points of
    /// `word` as given (before Pyphen's internal `lower()`), as Pyphen does.
    pub fn positions(&self, word: &str) -> Vec<usize> {
        let len = word.chars().count() as i64;
        let right = len - self.right as i64;
        self.dict
            .positions(word)
            .into_iter()
            .filter(|&p| self.left as i64 <= p as i64 && p as i64 <= right)
            .collect()
    }

    /// textstat's per-word Pyphen syllable count: `len(positions(word)) + 1` (≥ 1).
    pub fn syllables(&self, word: &str) -> usize {
        self.positions(word).len() + 1
    }

    /// Number of break points of an already lower-cased word given as code points (Python's
    /// `lower()` is idempotent, so Pyphen's internal `lower()` is a no-op here).
    pub(crate) fn count_breaks_lowered(&self, word: &[char], scratch: &mut Scratch) -> usize {
        let len = word.len();
        // positions p satisfy left <= p <= len - right; p = index - 1 in `references`.
        if len < self.right || len - self.right < self.left {
            return 0;
        }
        let dot = self.dict.symbol('.');
        scratch.pointed.clear();
        scratch.pointed.push(dot);
        scratch.pointed.extend(word.iter().map(|&c| self.dict.symbol(c)));
        scratch.pointed.push(dot);
        self.dict.references(&scratch.pointed, &mut scratch.references);
        let (lo, hi) = (self.left + 1, len - self.right + 1);
        scratch.references[lo..=hi].iter().filter(|&&r| r % 2 == 1).count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokenize_matches_python_findall() {
        // re.findall(r'(\d?)(\D?)', 'a1b') -> [('', 'a'), ('1', 'b'), ('', '')]
        assert_eq!(tokenize("a1b"), ("ab".to_owned(), vec![0, 1, 0]));
        // 'ab1' -> [('', 'a'), ('', 'b'), ('1', ''), ('', '')]
        assert_eq!(tokenize("ab1"), ("ab".to_owned(), vec![0, 0, 1, 0]));
        // '.a2ch4' -> ., a, 2c, h, 4'', ''
        assert_eq!(tokenize(".a2ch4"), (".ach".to_owned(), vec![0, 0, 2, 0, 4, 0]));
        // 'a12b' -> [('', 'a'), ('1', ''), ('2', 'b'), ('', '')]
        assert_eq!(tokenize("a12b"), ("ab".to_owned(), vec![0, 1, 2, 0]));
    }

    #[test]
    fn hex_escapes_and_alternatives() {
        assert_eq!(replace_hex_escapes("a^^e9b^^zz"), "a\u{e9}b^^zz");
        let d = HyphDict::parse("UTF-8\n% comment\nLEFTHYPHENMIN 1\n\n  a1b  \nc1d/c=d,1,1\nx0y\n");
        assert_eq!(d.pattern_count(), 2);
        assert_eq!(d.positions("ab"), vec![1]);
        assert_eq!(d.positions("cd"), vec![1]);
        assert_eq!(d.positions("xy"), Vec::<usize>::new());
    }

    #[test]
    fn later_duplicate_wins_and_zero_patterns_do_not_override() {
        let d = HyphDict::parse("UTF-8\na1b\na3b\na0b\n");
        let refs = {
            let mut r = Vec::new();
            let syms: Vec<u8> = ".ab.".chars().map(|c| d.symbol(c)).collect();
            d.references(&syms, &mut r);
            r
        };
        assert_eq!(refs, vec![0, 0, 3, 0, 0]);
    }

    #[test]
    fn en_us_dictionary_loads() {
        let d = HyphDict::en_us();
        // Pyphen 0.18.1: len(HyphDict.patterns) == 11015, HyphDict.maxlen == 28.
        assert_eq!(d.pattern_count(), 11_015);
        assert_eq!(d.maxlen(), 28);
    }

    #[test]
    fn known_pyphen_positions() {
        let h = Hyphenator::en_us();
        // Pyphen 0.18.1: Pyphen(lang='en_US').positions(...)
        assert_eq!(h.positions("hyphenation"), vec![2, 6]);
        assert_eq!(h.syllables("study"), 1);
        assert_eq!(h.syllables("adults"), 1);
        assert_eq!(h.syllables("inhaler"), 2);
        assert_eq!(h.syllables("a"), 1);
        let mut s = Scratch::default();
        let w: Vec<char> = "hyphenation".chars().collect();
        assert_eq!(h.count_breaks_lowered(&w, &mut s), 2);
    }
}
