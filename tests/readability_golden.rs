//! factpico-readability against the unmodified Python textstat (goldens written by
//! `tests/goldens/gen_readability.py` in a textstat 0.7.3 and a textstat 0.7.8 venv).
//!
//! * real corpus (600 texts, needs ../shared): FKGL, FRE and the three counts per family;
//! * fixtures and self-written strings (always): the same;
//! * ~3 500 words: Pyphen positions (port of `HyphDict.positions`) and textstat's per-word
//!   `syllable_count` of both families.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use factpico_readability::pyphen::{Hyphenator, PYPHEN_VERSION};
use factpico_readability::{cmudict, Readability, ReadabilityOptions, TextCounts, TextstatFamily};
use serde_json::Value;

const FAMILIES: [(TextstatFamily, &str); 2] = [
    (TextstatFamily::Textstat073, "readability_textstat073.json"),
    (TextstatFamily::Textstat078Cmudict, "readability_textstat078.json"),
];

fn scorer(family: TextstatFamily) -> Readability {
    Readability::new(ReadabilityOptions { family })
}

/// Compares one text; returns whether FKGL and FRE were bit-identical.
fn check(family: TextstatFamily, r: &Readability, id: &str, text: &str, want: &Value) -> bool {
    let got = r.analyze(text);
    let want_counts = TextCounts {
        sentences: want["sentences"].as_u64().unwrap() as usize,
        words: want["words"].as_u64().unwrap() as usize,
        syllables: want["syllables"].as_u64().unwrap() as usize,
    };
    assert_eq!(got.counts, want_counts, "{family} {id}: counts");
    let (fk, fre) = (want["fkgl"].as_f64().unwrap(), want["fre"].as_f64().unwrap());
    let exact = got.fkgl.to_bits() == fk.to_bits() && got.fre.to_bits() == fre.to_bits();
    match family {
        TextstatFamily::Textstat073 => {
            assert!(exact, "{family} {id}: fkgl {} vs {fk}, fre {} vs {fre}", got.fkgl, got.fre);
        }
        _ => {
            assert!((got.fkgl - fk).abs() <= 1e-9, "{family} {id}: fkgl {} vs {fk}", got.fkgl);
            assert!((got.fre - fre).abs() <= 1e-9, "{family} {id}: fre {} vs {fre}", got.fre);
        }
    }
    exact
}

fn check_meta(family: TextstatFamily, g: &Value) {
    let meta = &g["meta"];
    assert_eq!(meta["pyphen"], PYPHEN_VERSION, "{family}: pyphen version of the goldens");
    match family {
        TextstatFamily::Textstat073 => assert_eq!(meta["textstat"], "0.7.3"),
        _ => {
            assert_eq!(meta["textstat"], "0.7.8");
            assert_eq!(meta["cmudict"], cmudict::CMUDICT_VERSION);
        }
    }
}

#[test]
fn readability_real_corpus_matches_textstat() {
    let Some(texts) = common::real_texts("readability_real_corpus_matches_textstat") else { return };
    assert_eq!(texts.len(), 600);
    for (family, file) in FAMILIES {
        let g = common::golden(file);
        check_meta(family, &g);
        assert_eq!(g["n_real_texts"], 600, "{file} was generated without ../shared");
        let r = scorer(family);
        let (mut exact, mut totals) = (0, TextCounts::default());
        for (id, text) in &texts {
            let want = g["texts"].get(id).unwrap_or_else(|| panic!("{file}: no golden for {id}"));
            exact += usize::from(check(family, &r, id, text, want));
            let c = r.counts(text);
            totals.sentences += c.sentences;
            totals.words += c.words;
            totals.syllables += c.syllables;
        }
        eprintln!(
            "{family}: {} real texts compared (counts identical; FKGL+FRE bit-identical for {exact}); \
             totals: {} sentences, {} words, {} syllables",
            texts.len(),
            totals.sentences,
            totals.words,
            totals.syllables
        );
    }
}

#[test]
fn readability_fixtures_and_own_strings_match_textstat() {
    let fixtures = common::fixture_texts();
    for (family, file) in FAMILIES {
        let g = common::golden(file);
        check_meta(family, &g);
        let r = scorer(family);
        let mut exact = 0;
        for (id, text) in &fixtures {
            let key = format!("fixture:{id}");
            let want = g["texts"].get(&key).unwrap_or_else(|| panic!("{file}: no golden for {key}"));
            exact += usize::from(check(family, &r, &key, text, want));
        }
        let own = g["own"].as_array().unwrap();
        for o in own {
            exact += usize::from(check(family, &r, o["id"].as_str().unwrap(), o["text"].as_str().unwrap(), o));
        }
        eprintln!(
            "{family}: {} fixture texts + {} own strings compared (FKGL+FRE bit-identical for {exact})",
            fixtures.len(),
            own.len()
        );
        assert!(!fixtures.is_empty() && own.len() >= 40);
    }
}

#[test]
fn readability_pyphen_positions_match_pyphen() {
    let g = common::golden("readability_textstat073.json");
    let h = Hyphenator::en_us();
    let positions = g["pyphen_positions"].as_object().unwrap();
    let mut breaks = 0;
    for (word, want) in positions {
        let want: Vec<usize> = want.as_array().unwrap().iter().map(|v| v.as_u64().unwrap() as usize).collect();
        assert_eq!(h.positions(word), want, "Pyphen(lang='en_US').positions({word:?})");
        breaks += want.len();
    }
    eprintln!("pyphen {PYPHEN_VERSION}: {} words compared, {breaks} break points", positions.len());
    assert!(positions.len() > 3000);
}

#[test]
fn readability_word_syllables_match_textstat() {
    for (family, file) in FAMILIES {
        let g = common::golden(file);
        let r = scorer(family);
        let words = g["words"].as_object().unwrap();
        let mut total = 0;
        for (word, want) in words {
            let got = r.counts(word).syllables;
            assert_eq!(got as u64, want.as_u64().unwrap(), "{family}: syllable_count({word:?})");
            total += got;
        }
        eprintln!("{family}: {} words compared, {total} syllables", words.len());
        assert!(words.len() > 3000);
    }
}
