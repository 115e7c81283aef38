//! Sanity test of the real-data corpus loader that every golden test uses.
mod common;

#[test]
fn real_corpus_has_300_pairs_with_unique_ids() {
    let Some(pairs) = common::real_pairs("real_corpus_has_300_pairs_with_unique_ids") else { return };
    let ids: std::collections::BTreeSet<_> = pairs.iter().map(|p| p.id.clone()).collect();
    eprintln!("corpus: {} pairs", pairs.len());
    assert_eq!(pairs.len(), 300);
    assert_eq!(ids.len(), 300, "pair ids must be unique");
    assert!(pairs.iter().all(|p| !p.source.trim().is_empty() && !p.summary.trim().is_empty()));
}
