//! factpico-rouge against the unmodified Python reference (rouge-score 0.1.2 + nltk's
//! PorterStemmer), goldens from `tests/goldens/gen_rouge.py`:
//! `rouge_pairs.json`, `rouge_stemmer.json`, `rouge_unicode.json`.
//!
//! Scores must agree within 1e-12; exact (bit-identical) agreement is expected and the
//! number of inexact values is printed and asserted to be zero as well.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod common;

use factpico_rouge::{tokenize, RougeL, RougeLScores, RougeOptions, Score};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

const TOL: f64 = 1e-12;

fn scorers() -> [(&'static str, RougeL); 2] {
    [
        ("stem", RougeL::new(RougeOptions { use_stemmer: true })),
        ("nostem", RougeL::new(RougeOptions { use_stemmer: false })),
    ]
}

#[derive(Default)]
struct Tally {
    values: usize,
    inexact: usize,
    max_abs_diff: f64,
}

impl Tally {
    /// Compares one Score with a golden `[precision, recall, fmeasure]`.
    fn check(&mut self, what: &str, got: Score, want: &Value) {
        let want: Vec<f64> = want
            .as_array()
            .unwrap_or_else(|| panic!("{what}: golden is not an array"))
            .iter()
            .map(|v| v.as_f64().unwrap())
            .collect();
        assert_eq!(want.len(), 3, "{what}");
        for (name, g, w) in [
            ("P", got.precision, want[0]),
            ("R", got.recall, want[1]),
            ("F", got.fmeasure, want[2]),
        ] {
            let d = (g - w).abs();
            assert!(
                d <= TOL,
                "{what} {name}: got {g:?}, reference {w:?} (|Δ| = {d:e})"
            );
            self.values += 1;
            if g.to_bits() != w.to_bits() {
                self.inexact += 1;
                self.max_abs_diff = self.max_abs_diff.max(d);
            }
        }
    }

    fn check_pair(&mut self, what: &str, got: RougeLScores, want: &Value) {
        self.check(&format!("{what} rougeL"), got.rouge_l, &want["rougeL"]);
        self.check(
            &format!("{what} rougeLsum"),
            got.rouge_lsum,
            &want["rougeLsum"],
        );
    }

    fn finish(&self, test: &str, items: usize) {
        eprintln!(
            "{test}: {items} pairs, {} values compared, {} not bit-identical (max |Δ| {:e})",
            self.values, self.inexact, self.max_abs_diff
        );
        assert!(self.values > 0, "{test}: nothing compared");
        assert_eq!(self.inexact, 0, "{test}: expected bit-identical floats");
    }
}

fn reference_versions(doc: &Value) {
    assert_eq!(
        doc["reference"]["rouge-score"], "0.1.2",
        "goldens must come from rouge-score 0.1.2"
    );
}

#[test]
fn rouge_real_pairs_match_rouge_score() {
    let test = "rouge_real_pairs_match_rouge_score";
    let Some(pairs) = common::real_pairs(test) else {
        return;
    };
    let gold = common::golden("rouge_pairs.json");
    reference_versions(&gold);
    let rows = gold["real"].as_array().unwrap();
    assert_eq!(rows.len(), pairs.len());
    let mut tally = Tally::default();
    for (key, scorer) in scorers() {
        for (p, g) in pairs.iter().zip(rows) {
            assert_eq!(
                g["id"],
                p.id.as_str(),
                "golden order differs from corpus order"
            );
            tally.check_pair(
                &format!("{} {key}", p.id),
                scorer.score(&p.source, &p.summary),
                &g[key],
            );
        }
    }
    tally.finish(test, pairs.len());
}

#[test]
fn rouge_real_sentence_lists_match_rouge_score() {
    // rouge-score's split_summaries=True path with the sentence splitter replaced by
    // `text.split(sep)` (empty pieces included: the scorer must drop them).
    let test = "rouge_real_sentence_lists_match_rouge_score";
    let Some(pairs) = common::real_pairs(test) else {
        return;
    };
    let gold = common::golden("rouge_pairs.json");
    let sep = gold["sentence_separator"].as_str().unwrap();
    let rows = gold["real_sentences"].as_array().unwrap();
    let whole = gold["real"].as_array().unwrap();
    assert_eq!(rows.len(), pairs.len());
    let mut tally = Tally::default();
    for (key, scorer) in scorers() {
        for ((p, g), w) in pairs.iter().zip(rows).zip(whole) {
            assert_eq!(g["id"], p.id.as_str());
            let t: Vec<&str> = p.source.split(sep).collect();
            let s: Vec<&str> = p.summary.split(sep).collect();
            let got = scorer.score_sentences(&t, &s);
            tally.check(
                &format!("{} {key} sentences rougeLsum", p.id),
                got.rouge_lsum,
                &g[key],
            );
            // splitting at separators leaves the whole-text token sequence unchanged
            tally.check(
                &format!("{} {key} sentences rougeL", p.id),
                got.rouge_l,
                &w[key]["rougeL"],
            );
        }
    }
    tally.finish(test, pairs.len());
}

#[test]
fn rouge_fixture_pairs_match_rouge_score() {
    let test = "rouge_fixture_pairs_match_rouge_score";
    let pairs = common::fixture_pairs();
    let gold = common::golden("rouge_pairs.json");
    let rows = gold["fixtures"].as_array().unwrap();
    assert_eq!(rows.len(), pairs.len());
    let mut tally = Tally::default();
    for (key, scorer) in scorers() {
        for (p, g) in pairs.iter().zip(rows) {
            assert_eq!(g["id"], p.id.as_str());
            tally.check_pair(
                &format!("{} {key}", p.id),
                scorer.score(&p.source, &p.summary),
                &g[key],
            );
        }
    }
    tally.finish(test, pairs.len());
}

#[test]
fn rouge_inline_pairs_match_rouge_score() {
    // spec worked examples, hand-written tricky pairs, seeded random multi-line pairs
    let test = "rouge_inline_pairs_match_rouge_score";
    let gold = common::golden("rouge_pairs.json");
    let sep = gold["sentence_separator"].as_str().unwrap();
    let rows = gold["inline"].as_array().unwrap();
    let mut tally = Tally::default();
    for (key, scorer) in scorers() {
        for g in rows {
            let id = g["id"].as_str().unwrap();
            let (t, p) = (
                g["target"].as_str().unwrap(),
                g["prediction"].as_str().unwrap(),
            );
            tally.check_pair(&format!("{id} {key}"), scorer.score(t, p), &g[key]);
            // the prepared-text path must agree with `score`
            let prepared =
                scorer.score_tokenized(&scorer.tokenize_text(t), &scorer.tokenize_text(p));
            tally.check_pair(&format!("{id} {key} prepared"), prepared, &g[key]);
            let ts: Vec<&str> = t.split(sep).collect();
            let ps: Vec<&str> = p.split(sep).collect();
            let got = scorer.score_sentences(&ts, &ps);
            tally.check(
                &format!("{id} {key} sentences"),
                got.rouge_lsum,
                &g["sentences"][key],
            );
        }
    }
    assert!(rows.len() >= 400, "inline set shrank: {}", rows.len());
    tally.finish(test, rows.len());
}

#[test]
fn porter_stemmer_matches_nltk_on_word_list() {
    let gold = common::golden("rouge_stemmer.json");
    reference_versions(&gold);
    let words = gold["words"].as_object().unwrap();
    let mut compared = 0;
    let mut stemmed_differently = 0;
    for (word, stem) in words {
        let stem = stem.as_str().unwrap();
        // rouge-score stems only tokens longer than 3 characters
        let want = if word.len() > 3 { stem } else { word.as_str() };
        assert_eq!(tokenize(word, true), [want], "stem of {word:?}");
        compared += 1;
        stemmed_differently += usize::from(want != word);
    }
    eprintln!(
        "porter word list: {compared} words compared ({stemmed_differently} changed by stemming)"
    );
    assert!(compared > 10_000 && stemmed_differently > 5_000);
}

fn h16(s: &str) -> String {
    use sha2::Digest;
    hex::encode(sha2::Sha256::digest(s.as_bytes()))[..16].to_owned()
}

#[test]
fn porter_stemmer_matches_nltk_on_corpus_tokens() {
    let test = "porter_stemmer_matches_nltk_on_corpus_tokens";
    let Some(texts) = common::real_texts(test) else {
        return;
    };
    let gold = common::golden("rouge_stemmer.json");
    let hashed: BTreeMap<&str, &str> = gold["corpus"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str().unwrap()))
        .collect();
    let mut seen = BTreeSet::new();
    for (_, text) in &texts {
        for token in tokenize(text, false) {
            if token.len() > 3 && !seen.contains(&token) {
                let key = h16(&token);
                let want = hashed
                    .get(key.as_str())
                    .unwrap_or_else(|| panic!("token hash {key} not in golden"));
                let got = tokenize(&token, true);
                assert_eq!(got.len(), 1, "token hash {key}");
                assert_eq!(h16(&got[0]), *want, "stem differs for token hash {key}");
                seen.insert(token);
            }
        }
    }
    eprintln!(
        "porter corpus: {} distinct tokens (len > 3) compared by hash",
        seen.len()
    );
    assert_eq!(
        seen.len(),
        hashed.len(),
        "distinct-token sets differ between Rust and Python tokenizers"
    );
}

#[test]
fn lowercasing_of_every_code_point_matches_python() {
    let gold = common::golden("rouge_unicode.json");
    // non-ASCII code points whose Python lower() contains [a-z0-9], with that string
    let special: BTreeMap<u32, String> = gold["code_points"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["code_point"].as_u64().unwrap() as u32,
                r["lower"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert!(!special.is_empty());
    // rouge-score: Python lower(), then runs of [^a-z0-9] are separators. Expected
    // tokens of "x<c>x", space-joined.
    let expected = |c: char| -> String {
        if c.is_ascii_alphanumeric() {
            format!("x{}x", c.to_ascii_lowercase())
        } else if let Some(lowered) = special.get(&(c as u32)) {
            format!("x{lowered}x")
                .split(|ch: char| !(ch.is_ascii_lowercase() || ch.is_ascii_digit()))
                .filter(|s| !s.is_empty())
                .collect::<Vec<_>>()
                .join(" ")
        } else {
            "x x".to_owned()
        }
    };
    // "x<c>x" for every code point, 8192 per text (a space keeps them independent);
    // on a mismatch, the offending code point is found one by one.
    let all: Vec<char> = (0u32..0x11_0000).filter_map(char::from_u32).collect();
    let mut compared = 0;
    for chunk in all.chunks(8192) {
        let mut text = String::with_capacity(chunk.len() * 8);
        let mut want = String::with_capacity(chunk.len() * 8);
        for &c in chunk {
            text.push('x');
            text.push(c);
            text.push_str("x ");
            if !want.is_empty() {
                want.push(' ');
            }
            want.push_str(&expected(c));
        }
        if tokenize(&text, false).join(" ") != want {
            for &c in chunk {
                assert_eq!(
                    tokenize(&format!("x{c}x"), false).join(" "),
                    expected(c),
                    "U+{:04X}",
                    c as u32
                );
            }
        }
        compared += chunk.len();
    }
    assert_eq!(
        compared,
        0x11_0000 - 0x800,
        "every non-surrogate code point"
    );
    eprintln!(
        "unicode: {compared} code points compared ({} with non-ASCII → ASCII lowercase)",
        special.len()
    );
}
