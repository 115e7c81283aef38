//! `SequenceClassifier::count_tokens` / `encode_with_max_length` / `special_tokens` on the
//! committed RoBERTa fixture (`fixtures/models/lerc-tiny`, byte-level BPE, `<s> … </s>`).
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::PathBuf;

use factpico_runtime::sequence::SequenceClassifier;
use factpico_runtime::{Error, SessionOptions};

fn model() -> SequenceClassifier {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/models/lerc-tiny");
    SequenceClassifier::load(dir, &SessionOptions::default().intra_threads(1)).unwrap()
}

const TEXT: &str = "Adults with asthma used the inhaler twice a day for 12 weeks, and attacks fell by a third.";

#[test]
fn counts_tokens_without_special_tokens_or_truncation() {
    let m = model();
    assert_eq!(m.special_tokens(), 2);
    let n = m.count_tokens(TEXT).unwrap();
    let enc = m.encode(TEXT).unwrap();
    assert_eq!(enc.ids.len(), n + 2);
    assert_eq!(enc.truncated, 0);
    assert_eq!(m.count_tokens("").unwrap(), 0);
    // A literal special-token string is one token; a long text is not cut.
    assert_eq!(m.count_tokens(&format!("{TEXT}</s>{TEXT}")).unwrap(), 2 * n + 1);
    let long = TEXT.repeat(40);
    let n_long = m.count_tokens(&long).unwrap();
    assert!(n_long > 512, "{n_long}");
    assert_eq!(m.encode(&long).unwrap().truncated, n_long - 510);
}

#[test]
fn encodes_to_a_shorter_max_length_from_the_end() {
    let m = model();
    let text = format!("{TEXT}</s>The claim.");
    let full = m.encode(&text).unwrap();
    let n = full.ids.len();
    let cut = m.encode_with_max_length(&text, 10).unwrap();
    assert_eq!(cut.ids.len(), 10);
    assert_eq!(cut.truncated, n - 10);
    // <s> + the first 8 text tokens + </s>: the end of the text is what goes.
    assert_eq!(cut.ids[..9], full.ids[..9]);
    assert_eq!(cut.ids[9], 2);
    // The separator inside the text is the special token id 2, not its characters.
    let sep_at = full.ids[1..n - 1].iter().position(|&i| i == 2).unwrap();
    assert_eq!(m.count_tokens(TEXT).unwrap(), sep_at);
    // At the manifest's length it equals encode(); outside 3..=512 it is refused.
    assert_eq!(m.encode_with_max_length(&text, 512).unwrap(), full);
    for bad in [0, 2, 513] {
        let e = m.encode_with_max_length(&text, bad).unwrap_err();
        assert!(matches!(e, Error::InvalidArgument(_)), "{bad}: {e}");
        assert!(e.to_string().contains("3..=512"), "{e}");
    }
    // A cut sequence runs like any other.
    let rows = m.run(&[cut.ids.as_slice(), full.ids.as_slice()], 2).unwrap();
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0].len(), 1);
}
