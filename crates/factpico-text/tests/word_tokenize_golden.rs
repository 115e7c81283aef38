//! `factpico_text::word_tokenize` / `TreebankWordTokenizer` against NLTK 3.10.4
//! `word_tokenize` and `NLTKWordTokenizer().tokenize` (golden file
//! `tests/goldens/word_tokenize.json`, produced by `tests/goldens/gen_word_tokenize.py`
//! with unmodified NLTK): every fixture text (tokens verbatim), the hand-written
//! hostile strings and seeded random strings (tokens verbatim, also through the
//! tokenizer alone on the whole string), and the 600 real texts of `../shared`
//! (token count and hash).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]
#[path = "../../../tests/common/mod.rs"]
mod common;

use factpico_text::{word_tokenize, TreebankWordTokenizer};
use serde_json::Value;
use sha2::{Digest, Sha256};

fn strings(v: &Value) -> Vec<String> {
    v.as_array().expect("token list").iter().map(|t| t.as_str().expect("token").to_owned()).collect()
}

fn sha16(tokens: &[String]) -> String {
    hex::encode(Sha256::digest(tokens.join(" ").as_bytes()))[..16].to_owned()
}

/// First differing token with a little context.
fn diff(want: &[String], got: &[String]) -> String {
    let i = want.iter().zip(got).position(|(a, b)| a != b).unwrap_or(want.len().min(got.len()));
    let lo = i.saturating_sub(3);
    format!(
        "{} NLTK tokens, {} ours; first difference at token {i}\n    nltk: {:?}\n    ours: {:?}",
        want.len(),
        got.len(),
        &want[lo..(i + 4).min(want.len())],
        &got[lo..(i + 4).min(got.len())]
    )
}

fn report(what: &str, n: usize, errs: &[String]) {
    eprintln!("word_tokenize_golden {what}: compared {n} texts; {} mismatches", errs.len());
    for e in errs.iter().take(15) {
        eprintln!("{e}");
    }
    assert!(errs.is_empty(), "{what}: {} mismatches against NLTK (see stderr)", errs.len());
}

#[test]
fn word_tokenize_matches_nltk_on_fixtures() {
    let golden = common::golden("word_tokenize.json");
    let recs = golden["fixtures"].as_object().expect("fixtures");
    let texts = common::fixture_texts();
    assert_eq!(recs.len(), texts.len(), "fixtures changed; rerun gen_word_tokenize.py");
    let mut errs = Vec::new();
    for (id, text) in &texts {
        let want = strings(recs.get(id).unwrap_or_else(|| panic!("{id} missing; rerun gen_word_tokenize.py")));
        let got = word_tokenize(text);
        if got != want {
            errs.push(format!("{id}: {}", diff(&want, &got)));
        }
    }
    report("fixtures", texts.len(), &errs);
}

#[test]
fn word_tokenize_matches_nltk_on_handwritten_strings() {
    let golden = common::golden("word_tokenize.json");
    let recs = golden["handwritten"].as_array().expect("handwritten");
    assert!(recs.len() >= 50);
    let mut errs = Vec::new();
    for rec in recs {
        let id = rec["id"].as_str().expect("id");
        let text = rec["text"].as_str().expect("text");
        let (want, got) = (strings(&rec["tokens"]), word_tokenize(text));
        if got != want {
            errs.push(format!("{id} {text:?} word_tokenize: {}", diff(&want, &got)));
        }
        let (want, got) = (strings(&rec["line"]), TreebankWordTokenizer.tokenize(text));
        if got != want {
            errs.push(format!("{id} {text:?} tokenize(line): {}", diff(&want, &got)));
        }
    }
    report("handwritten", recs.len(), &errs);
}

#[test]
fn word_tokenize_matches_nltk_on_synthetic_strings() {
    let golden = common::golden("word_tokenize.json");
    let rows = golden["synthetic"].as_array().expect("synthetic");
    assert_eq!(rows.len(), 1500);
    let mut errs = Vec::new();
    for (i, row) in rows.iter().enumerate() {
        let text = row[0].as_str().expect("text");
        let (want, got) = (strings(&row[1]), word_tokenize(text));
        if got != want {
            errs.push(format!("synthetic[{i}] {text:?} word_tokenize: {}", diff(&want, &got)));
        }
        let (want, got) = (strings(&row[2]), TreebankWordTokenizer.tokenize(text));
        if got != want {
            errs.push(format!("synthetic[{i}] {text:?} tokenize(line): {}", diff(&want, &got)));
        }
    }
    report("synthetic", rows.len(), &errs);
}

#[test]
fn word_tokenize_matches_nltk_on_real_texts() {
    let Some(texts) = common::real_texts("word_tokenize_matches_nltk_on_real_texts") else { return };
    let golden = common::golden("word_tokenize.json");
    let recs = golden["real"].as_object().expect("real");
    assert_eq!(recs.len(), texts.len(), "golden and corpus disagree on the number of texts; rerun the generator");
    assert_eq!(texts.len(), 600);
    let mut errs = Vec::new();
    let mut n_tokens = 0;
    for (id, text) in &texts {
        let rec = recs.get(id).unwrap_or_else(|| panic!("{id} missing from word_tokenize.json"));
        let want_n = rec[0].as_u64().expect("count") as usize;
        n_tokens += want_n;
        let got = word_tokenize(text);
        if got.len() != want_n || sha16(&got) != rec[1].as_str().expect("hash") {
            errs.push(format!("{id}: NLTK {want_n} tokens, ours {} (hash differs)", got.len()));
        }
    }
    eprintln!("word_tokenize_golden real: {n_tokens} NLTK tokens");
    report("real", texts.len(), &errs);
}

#[test]
fn golden_records_its_reference_versions() {
    let golden = common::golden("word_tokenize.json");
    assert_eq!(golden["nltk"].as_str(), Some("3.10.4"));
    assert_eq!(golden["regex"].as_str(), Some(factpico_text::python::REGEX_VERSION));
}
