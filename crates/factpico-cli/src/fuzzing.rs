//! Fuzz harnesses (`cargo xtask fuzz`, libFuzzer) of the input readers, shared with the
//! regression test that replays the committed corpus seeds and crash reproducers
//! (`tests/fuzz_corpus.rs`, part of `cargo xtask test`). Each harness reads one input to the
//! end and panics only when an invariant of the reader is broken:
//!
//! * input readers (JSONL, JSON array, CSV, TSV): reading terminates, record numbers are
//!   1, 2, 3, ... without gaps, at most one record more than the input has bytes, every
//!   readable record has a non-empty id, every unreadable one a non-empty message;
//! * arc readers (CoNLL-U, JSON arcs / CoreNLP JSON): a file is parsed or refused with an
//!   error; a document aligned to a text yields tokens whose byte spans lie inside the text
//!   on character boundaries, heads and sentences that index existing tokens.
//!
//! The first byte of a reader input picks options (id derivation on/off, TSV quoting, an `evidence`
//! side-input field), the
//! rest is the file. An arc-reader input is `FILE 0x00 0x00 TEXT`.

#![doc(hidden)]

use std::io::Cursor;

use crate::input::{self, DeriveId, FieldMap, Format};

fn fields(flags: u8) -> FieldMap {
    FieldMap {
        id: "id".into(),
        id_explicit: flags & 1 != 0 && flags & 2 == 0,
        source: "source".into(),
        summary: "summary".into(),
        system: "system".into(),
        derive_id: (flags & 2 != 0).then(|| DeriveId { field: "source".into(), prefix: "sh_".into(), hex_len: 12 }),
        tsv_quotes: flags & 4 != 0,
        delimiter: None,
        extras: if flags & 8 != 0 {
            vec![input::ExtraField { name: "evidence".into(), field: "evidence".into(), explicit: false }]
        } else {
            Vec::new()
        },
    }
}

/// Reads `data` as a file of `format` to the end, checking the invariants above.
pub fn read_input(format: Format, data: &[u8]) {
    let Some((&flags, file)) = data.split_first() else { return };
    let Ok(records) = input::from_reader(Box::new(Cursor::new(file.to_vec())), format, &fields(flags)) else {
        return; // a header that cannot be used is a clear error, not a record
    };
    for (expected, rec) in (1u64..).zip(records) {
        assert!(expected <= file.len() as u64 + 1, "more records than bytes");
        match rec {
            Ok(r) => {
                assert_eq!(r.row, expected, "record numbers must have no gaps");
                assert!(!r.id.is_empty(), "a readable record without an id");
            }
            Err(e) => {
                assert_eq!(e.row, expected, "record numbers must have no gaps");
                assert!(!e.message.is_empty(), "an unreadable record without a message");
            }
        }
    }
}

fn split_arcs(data: &[u8]) -> (String, String) {
    let cut = data.windows(2).position(|w| w == [0, 0]);
    let (file, text) = match cut {
        Some(i) => (&data[..i], &data[i + 2..]),
        None => (data, &b""[..]),
    };
    (String::from_utf8_lossy(file).into_owned(), String::from_utf8_lossy(text).into_owned())
}

fn check_parse(text: &str, p: &factpico_nlp::Parse) {
    let n = p.tokens.len();
    for t in &p.tokens {
        assert!(t.span.start <= t.span.end && t.span.end <= text.len(), "token span outside the text");
        assert!(text.is_char_boundary(t.span.start) && text.is_char_boundary(t.span.end), "token span inside a character");
        assert!(t.head.is_none_or(|h| h < n), "head index out of range");
        assert!(t.sentence < p.sentences.len().max(1), "sentence index out of range");
    }
    for s in &p.sentences {
        assert!(s.tokens.start <= s.tokens.end && s.tokens.end <= n, "sentence token range out of range");
        assert!(s.span.start <= s.span.end && s.span.end <= text.len(), "sentence span outside the text");
    }
    for a in p.basic_arcs().iter().chain(p.enhanced.iter().flatten()) {
        assert!(a.child < n && a.head.is_none_or(|h| h < n), "arc index out of range");
    }
}

/// Parses `FILE 0x00 0x00 TEXT` as CoNLL-U and aligns every document to TEXT.
pub fn read_conllu(data: &[u8]) {
    let (file, text) = split_arcs(data);
    let Ok(src) = factpico_nlp::conllu::ConlluSource::from_str(&file) else { return };
    for id in src.ids().to_vec() {
        if let Ok(p) = src.parse_doc(&id, &text) {
            check_parse(&text, &p);
        }
    }
}

/// Parses `FILE 0x00 0x00 TEXT` as JSON arcs / CoreNLP JSON and aligns every document to TEXT.
pub fn read_json_arcs(data: &[u8]) {
    let (file, text) = split_arcs(data);
    let Ok(src) = factpico_nlp::json_arcs::JsonArcsSource::from_str(&file) else { return };
    let ids = file.lines().filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok()?.get("id")?.as_str().map(str::to_owned));
    for id in ids {
        if let Ok(p) = src.parse_doc(&id, &text) {
            check_parse(&text, &p);
        }
    }
}
