//! CoNLL-U reader: comments, multiword tokens, empty nodes, enhanced DEPS, SpaceAfter=No,
//! byte-offset reconstruction, malformed input.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use factpico_nlp::conllu::ConlluSource;
use factpico_nlp::labels::dae_arcs;
use factpico_nlp::{ArcSource, Doc, Error, ParseMode};

fn sample() -> ConlluSource {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/sample.conllu");
    ConlluSource::from_path(&p).unwrap()
}

const R1: &str = "The drug (ABC) didn't lower blood pressure in adults.";

#[test]
fn reads_documents_and_rebuilds_byte_offsets() {
    let src = sample();
    assert_eq!(src.ids(), ["r1", "r2"]);
    let p = src.parse_doc("r1", R1).unwrap();
    assert_eq!(p.tokens.len(), 13, "empty node 10.1 is not a token");
    let surf: Vec<&str> = p.tokens.iter().map(|t| &R1[t.span.clone()]).collect();
    assert_eq!(
        surf,
        ["The", "drug", "(", "ABC", ")", "didn't", "didn't", "lower", "blood", "pressure", "in", "adults", "."]
    );
    assert!(!p.tokens[2].space_after && p.tokens[4].space_after);
    assert_eq!(p.tokens[1].head, Some(7));
    assert_eq!(p.tokens[7].head, None);
    assert_eq!(p.sentences.len(), 1);
    assert_eq!(p.sentences[0].span, 0..R1.len());
}

#[test]
fn enhanced_graph_is_used_and_exact_ignore_list_applies() {
    let p = sample().parse_doc("r1", R1).unwrap();
    let e = p.enhanced.as_ref().unwrap();
    // the DEPS arc to the empty node 10.1 is dropped; the root arc is kept in the graph
    assert!(e.iter().any(|a| a.relation == "nmod:in" && a.head == Some(7) && a.child == 11));
    assert!(!e.iter().any(|a| a.relation == "obl"));
    let arcs = dae_arcs(&p);
    let kept: Vec<(usize, usize, &str)> = arcs.iter().map(|a| (a.head, a.child, a.relation.as_str())).collect();
    assert_eq!(
        kept,
        [(7, 1, "nsubj"), (1, 3, "appos"), (7, 6, "neg"), (9, 8, "compound"), (7, 9, "dobj"), (7, 11, "nmod:in")]
    );
}

#[test]
fn mixed_deps_and_multiple_sentences() {
    let p = sample().parse_doc("r2", "It worked. Good.").unwrap();
    assert_eq!(p.sentences.len(), 2);
    assert_eq!(p.sentences[1].tokens, 3..5);
    assert_eq!(p.tokens[4].head, Some(3), "heads are re-based per sentence");
    let e = p.enhanced.as_ref().unwrap();
    assert!(e.iter().any(|a| a.child == 4 && a.head == Some(3) && a.relation == "punct"), "basic arc fills missing DEPS");
    let one = p.sentence_parse(1).unwrap();
    assert_eq!(one.tokens.len(), 2);
    assert_eq!(one.tokens[1].head, Some(0));
}

#[test]
fn trait_lookup_and_missing_document() {
    let src = sample();
    let got = src.parse(&[Doc { id: "r2", text: "It worked. Good." }], ParseMode::Full).unwrap();
    assert_eq!(got.len(), 1);
    let e = src.parse(&[Doc { id: "nope", text: "x" }], ParseMode::Full).unwrap_err();
    assert!(matches!(e, Error::MissingDocument(ref id) if id == "nope"), "{e}");
}

#[test]
fn text_mismatch_names_the_line() {
    let e = sample().parse_doc("r1", "The drug was fine.").unwrap_err();
    let msg = e.to_string();
    assert!(msg.contains("CoNLL-U line 6") && msg.contains("-lrb-"), "{msg}");
}

fn bad(text: &str) -> (usize, String) {
    match ConlluSource::from_str(text).unwrap_err() {
        Error::Conllu { line, message } => (line, message),
        e => panic!("wrong error {e}"),
    }
}

#[test]
fn malformed_lines_are_errors_with_line_numbers() {
    let ok = "# newdoc id = a\n1\tA\ta\tX\tX\t_\t0\troot\t_\t_\n";
    assert!(ConlluSource::from_str(ok).is_ok());
    let (l, m) = bad("# newdoc id = a\n1\tA\ta\tX\tX\t_\t0\troot\t_\n");
    assert_eq!(l, 2);
    assert!(m.contains("10 tab-separated columns"), "{m}");
    let (l, m) = bad("# newdoc id = a\n1\tA\ta\tX\tX\t_\t0\troot\t_\t_\n3\tB\tb\tX\tX\t_\t1\tdep\t_\t_\n");
    assert_eq!(l, 3);
    assert!(m.contains("out of sequence"), "{m}");
    let (l, m) = bad("# newdoc id = a\n1\tA\ta\tX\tX\t_\tx\troot\t_\t_\n");
    assert_eq!((l, m.contains("HEAD")), (2, true));
    let (l, m) = bad("# newdoc id = a\n1\tA\ta\tX\tX\t_\t5\troot\t_\t_\n");
    assert_eq!(l, 2);
    assert!(m.contains("outside the sentence"), "{m}");
    let (l, m) = bad("# newdoc id = a\n1\tA\ta\tX\tX\t_\t0\troot\t0root\t_\n");
    assert_eq!((l, m.contains("DEPS")), (2, true));
    let (l, m) = bad("1\tA\ta\tX\tX\t_\t0\troot\t_\t_\n");
    assert_eq!(l, 1);
    assert!(m.contains("newdoc"), "{m}");
    let (l, _) = bad("# newdoc id = a\n\n# newdoc id = a\n");
    assert_eq!(l, 3);
    let (l, m) = bad("# newdoc id = a\n1-3\tABC\t_\t_\t_\t_\t_\t_\t_\t_\n1\tA\ta\tX\tX\t_\t0\troot\t_\t_\n");
    assert_eq!(l, 2);
    assert!(m.contains("multiword"), "{m}");
    let (l, _) = bad("# newdoc id = a\nx.1\tA\ta\tX\tX\t_\t_\t_\t_\t_\n");
    assert_eq!(l, 2);
}

#[test]
fn open_arcs_picks_the_reader_by_extension() {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/sample.conllu");
    let src = factpico_nlp::open_arcs(&p).unwrap();
    assert_eq!(src.name(), "conllu");
    let e = factpico_nlp::open_arcs(std::path::Path::new("x.txt")).err().unwrap();
    assert!(e.to_string().contains(".conllu"), "{e}");
}
