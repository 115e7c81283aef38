//! JSON-arcs reader: schema, alignment, byte offsets, errors.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use factpico_nlp::json_arcs::JsonArcsSource;
use factpico_nlp::labels::dae_arcs;
use factpico_nlp::{Error, LabelScheme};

fn one_line(s: &str) -> String {
    s.replace('\n', " ")
}

const TEXT: &str = "The drug lowered “BP” in adults.";

#[test]
fn plain_tokens_are_aligned_and_arcs_keep_order() {
    let src = JsonArcsSource::from_str(&one_line(
        r#"{"id": "a", "tokens": ["the", "drug", "lowered", "``", "bp", "''", "in", "adults", "."],
            "arcs": [{"head": 1, "child": 0, "relation": "det"}, {"head": 2, "child": 1, "relation": "nsubj"},
                     {"head": null, "child": 2, "relation": "root"}, {"head": 2, "child": 4, "relation": "dobj"},
                     {"head": 7, "child": 6, "relation": "case"}, {"head": 2, "child": 7, "relation": "nmod:in"},
                     {"head": -1, "child": 8, "relation": "punct"}],
            "entities": [{"start_token": 4, "end_token": 5, "label": "ORG"}]}"#,
    ))
    .unwrap();
    assert_eq!(src.len(), 1);
    let p = src.parse_doc("a", TEXT).unwrap();
    assert_eq!(p.scheme, LabelScheme::Ud);
    assert_eq!(&TEXT[p.tokens[3].span.clone()], "“");
    assert_eq!(&TEXT[p.entities[0].span.clone()], "BP");
    let arcs: Vec<(usize, usize)> = dae_arcs(&p).iter().map(|a| (a.head, a.child)).collect();
    assert_eq!(arcs, [(2, 1), (2, 4), (2, 7)]);
}

#[test]
fn explicit_offsets_and_spacy_scheme() {
    let src = JsonArcsSource::from_str(&one_line(
        r#"{"id": "b", "scheme": "spacy", "tokens": [{"text": "It", "start": 0, "end": 2, "tag": "PRP"},
            {"text": "works", "start": 3, "end": 8, "sentence": 0}, {"text": ".", "start": 8, "end": 9, "sentence": 1}],
            "arcs": [{"head": 1, "child": 0, "relation": "nsubj"}, {"head": null, "child": 1, "relation": "ROOT"},
                     {"head": 1, "child": 2, "relation": "punct"}]}"#,
    ))
    .unwrap();
    let p = src.parse_doc("b", "It works.").unwrap();
    assert_eq!(p.scheme, LabelScheme::Spacy);
    assert_eq!(p.sentences.len(), 2);
    assert_eq!(p.tokens[0].tag, "PRP");
    assert_eq!(p.tokens[0].head, Some(1));
    assert_eq!(dae_arcs(&p).len(), 1);
}

#[test]
fn errors_name_the_line() {
    let e = JsonArcsSource::from_str("\n{\"id\": \"a\", \"tokens\": [\"x\"], \"arcs\": [{\"head\": 3, \"child\": 0, \"relation\": \"dep\"}]}").unwrap_err();
    assert!(matches!(e, Error::JsonArcs { line: 2, .. }), "{e}");
    let e = JsonArcsSource::from_str("{\"id\": \"a\", \"tokens\": [\"x\"]}").unwrap_err();
    assert!(e.to_string().contains("arcs"), "{e}");
    let e = JsonArcsSource::from_str("{not json").unwrap_err();
    assert!(matches!(e, Error::JsonArcs { line: 1, .. }));
    let src = JsonArcsSource::from_str("{\"id\": \"a\", \"tokens\": [{\"text\": \"x\", \"start\": 0, \"end\": 9}], \"arcs\": []}").unwrap();
    assert!(matches!(src.parse_doc("a", "x").unwrap_err(), Error::Alignment { .. }));
    assert!(matches!(src.parse_doc("zz", "x").unwrap_err(), Error::MissingDocument(_)));
}

#[test]
fn corenlp_server_json_keeps_server_order() {
    // shape of a CoreNLP 3.9.1 server response (isOneSentence), abridged
    let rec = r#"{"id": "c", "corenlp": {"sentences": [{"index": 0, "tokens": [
        {"index": 1, "word": "-LRB-", "originalText": "(", "pos": "-LRB-", "lemma": "-lrb-"},
        {"index": 2, "word": "drugs", "originalText": "Drugs", "pos": "NNS"},
        {"index": 3, "word": "-RRB-", "originalText": ")", "pos": "-RRB-"},
        {"index": 4, "word": "work", "originalText": "work", "pos": "VBP"},
        {"index": 5, "word": "in", "originalText": "in", "pos": "IN"},
        {"index": 6, "word": "mice", "originalText": "mice", "pos": "NNS"}],
      "basicDependencies": [{"dep": "ROOT", "governor": 0, "dependent": 4}],
      "enhancedDependencies": [
        {"dep": "ROOT", "governor": 0, "governorGloss": "ROOT", "dependent": 4, "dependentGloss": "work"},
        {"dep": "punct", "governor": 2, "dependent": 1},
        {"dep": "nsubj", "governor": 4, "dependent": 2},
        {"dep": "punct", "governor": 2, "dependent": 3},
        {"dep": "case", "governor": 6, "dependent": 5},
        {"dep": "nmod:in", "governor": 4, "dependent": 6}]}]}}"#;
    let src = JsonArcsSource::from_str(&one_line(rec)).unwrap();
    let text = "(Drugs) work in mice";
    let p = src.parse_doc("c", text).unwrap();
    assert_eq!(p.tokens[0].text, "-LRB-");
    assert_eq!(&text[p.tokens[0].span.clone()], "(");
    assert_eq!(p.tokens[1].tag, "NNS");
    let arcs: Vec<(usize, usize, String)> = dae_arcs(&p).into_iter().map(|a| (a.head, a.child, a.relation)).collect();
    assert_eq!(arcs, [(3, 1, "nsubj".to_owned()), (3, 5, "nmod:in".to_owned())]);
    let e = JsonArcsSource::from_str(r#"{"id": "c", "corenlp": {"sentences": [{"tokens": [{"word": "a"}], "enhancedDependencies": [{"dep": "x", "governor": 0, "dependent": 3}]}]}}"#).unwrap_err();
    assert!(matches!(e, Error::JsonArcs { line: 1, .. }), "{e}");
}
