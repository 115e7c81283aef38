//! Shared by the QuestEval golden tests (`tests/qa_questeval.rs`, `tests/qa_optional.rs`):
//! rebuilding the reference's spaCy answers from the offsets stored in the goldens.
#![allow(dead_code, clippy::unwrap_used, clippy::panic)]

use factpico_qa::{AnswerCandidate, AnswerKind, AnswerProvenance, Answers};
use serde_json::Value;

/// Lower-case hex sha256 of a string.
pub fn sha256(s: &str) -> String {
    use sha2::Digest;
    hex::encode(sha2::Sha256::digest(s.as_bytes()))
}

/// Byte offset of every code point of `text`, plus `text.len()` (Python offsets → Rust).
pub fn cp_to_byte(text: &str) -> Vec<usize> {
    let mut v: Vec<usize> = text.char_indices().map(|(i, _)| i).collect();
    v.push(text.len());
    v
}

/// Rebuilds the reference's answers of one text from the stored offsets (its first-5-sentence
/// text, entities then noun chunks), checked against the stored hash when there is one.
pub fn answers(text: &str, g: &Value) -> Answers {
    let cp = cp_to_byte(text);
    let sentences: Vec<std::ops::Range<usize>> = g["sentences"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| cp[s[0].as_u64().unwrap() as usize]..cp[s[1].as_u64().unwrap() as usize])
        .collect();
    let text5 = sentences.iter().map(|r| &text[r.clone()]).collect::<Vec<_>>().join(" ");
    let cp5 = cp_to_byte(&text5);
    let mut candidates = Vec::new();
    let mut strings = Vec::new();
    for (key, kind) in [("ner", AnswerKind::Entity(String::new())), ("noun", AnswerKind::NounChunk)] {
        for a in g[key].as_array().unwrap() {
            let s = text5[cp5[a[0].as_u64().unwrap() as usize]..cp5[a[1].as_u64().unwrap() as usize]].to_owned();
            strings.push(s.clone());
            candidates.push(AnswerCandidate { text: s, span: None, sentence: 0..0, kind: kind.clone() });
        }
        if key == "ner" {
            strings.push("\u{1e}".into());
        }
    }
    if let Some(h) = g.get("answers_sha256") {
        assert_eq!(sha256(&strings.join("\u{1f}")), h.as_str().unwrap(), "rebuilt answers differ");
    }
    Answers { candidates, sentences, provenance: AnswerProvenance::Provided }
}
