//! Behaviour beyond the reference: what each cut hides, what `Limits::lifted` changes, and
//! that scores do not depend on batching. Tiny random ALBERT fixture (no semantics needed:
//! these are mechanical properties).
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "../../../tests/common/mod.rs"]
mod common;
#[path = "../../../tests/alignscore_support/mod.rs"]
mod ort_support;

use factpico_summac::{
    ConvHead, Granularities, Limits, NoPairs, NullReason, Side, Summac, SummacOptions, Warning, ZsOptions,
};

const DOC: &str = "We randomly assigned 412 adults with migraine to drug Q or placebo for 16 weeks. Monthly \
    migraine days fell by 4.1 with drug Q and by 2.0 with placebo. Nausea was more common with drug Q (11% vs. 4%). \
    No deaths occurred. Adherence was high in both groups. Blood tests showed no liver damage.";
const ELEVEN: [&str; 11] = [
    "Researchers tested drug Q in adults with migraine.",
    "The study lasted about four months.",
    "People on drug Q had fewer migraine days.",
    "The placebo group also improved a little.",
    "More people felt sick on drug Q.",
    "Nobody died during the study.",
    "Most people took their pills.",
    "Blood tests stayed normal.",
    "Most volunteers were adults.",
    "Both groups were followed closely.",
    "Drug Q was compared with a dummy pill.",
];

fn summac(limits: Limits) -> Summac {
    let dir = common::workspace_root().join("fixtures/models/summac-albert-tiny");
    Summac::try_new(dir, SummacOptions { limits, threads: 2, ..SummacOptions::default() }).unwrap()
}

fn head() -> ConvHead {
    ConvHead::from_file(common::workspace_root().join("fixtures/models/summac-conv-tiny/perc-e.json")).unwrap()
}

fn summary_with(twelfth: &str) -> String {
    let mut s = ELEVEN.join(" ");
    s.push(' ');
    s.push_str(twelfth);
    s
}

/// A summary whose only difference sits in sentence 12: the reference's Conv cannot see it
/// and says so; lifted, Conv sees it; ZS sees it either way.
#[test]
fn an_error_in_sentence_twelve_is_reported_or_scored() {
    if !ort_support::ort_or_skip("an_error_in_sentence_twelve_is_reported_or_scored") {
        return;
    }
    let good = summary_with("Drug Q lowered migraine days in adults.");
    let bad = summary_with("Drug Q cured migraine for good in every child.");
    let head = head();
    for (limits, cut) in [(Limits::reference(), true), (Limits::lifted(), false)] {
        let s = summac(limits);
        let imgs = s.images(&[(DOC, &good), (DOC, &bad)]).unwrap();
        assert_eq!(imgs[0].n_summary, 12);
        let (cg, cb) = (head.score(&imgs[0], s.limits()), head.score(&imgs[1], s.limits()));
        let (zg, zb) = (ZsOptions::default().score(&imgs[0]), ZsOptions::default().score(&imgs[1]));
        assert_ne!(zg.score, zb.score, "ZS scores every summary sentence");
        if cut {
            assert_eq!(cg.score, cb.score, "reference Conv ignores sentence 12");
            for c in [&cg, &cb] {
                assert!(c.warnings.contains(&Warning::ConvRowsCut { used: 10, total: 12 }), "{:?}", c.warnings);
                assert_eq!(c.unused.len(), 2, "sentences 11 and 12 are listed as unused");
            }
            assert_eq!(&bad[cb.unused[1].range()], "Drug Q cured migraine for good in every child.");
        } else {
            assert_ne!(cg.score, cb.score, "lifted Conv scores sentence 12");
            assert_eq!(cg.rows.len(), 12);
            assert!(!cg.warnings.iter().any(|w| matches!(w, Warning::ConvRowsCut { .. })));
        }
        eprintln!(
            "sentence 12 {}: ZS {:.4} vs {:.4}, Conv {:.4} vs {:.4}",
            if cut { "reference" } else { "lifted" },
            zg.score.unwrap(),
            zb.score.unwrap(),
            cg.score.unwrap(),
            cb.score.unwrap()
        );
    }
}

#[test]
fn lifted_limits_keep_short_sentences_long_documents_and_give_null_for_no_pairs() {
    if !ort_support::ort_or_skip("lifted_limits_keep_short_sentences_long_documents_and_give_null_for_no_pairs") {
        return;
    }
    let long_doc: String = (0..130).map(|i| format!("Cohort {i} had {} adults with asthma.", 20 + i)).collect::<Vec<_>>().join(" ");
    let (r, l) = (summac(Limits::reference()), summac(Limits::lifted()));
    let summary = "It works. The drug helped adults with asthma. OK.";
    let ir = r.image(&long_doc, summary).unwrap();
    let il = l.image(&long_doc, summary).unwrap();
    assert_eq!((ir.n_document, ir.n_summary), (100, 1));
    assert_eq!((il.n_document, il.n_summary), (130, 3));
    assert!(ir.warnings.contains(&Warning::DocumentCut { kept: 100, total: 130 }));
    assert!(ir.warnings.iter().any(|w| matches!(w, Warning::ChunksDropped { side: Side::Summary, spans, .. } if spans.len() == 2)));
    assert!(il.warnings.is_empty(), "{:?}", il.warnings);
    // Rows without pairs: the reference's 0 (with a warning), or null.
    let zr = ZsOptions::default().score(&r.image(DOC, "").unwrap());
    assert_eq!(zr.score, Some(0.0));
    assert!(zr.warnings.contains(&Warning::NoPairs { empty: vec![Side::Summary] }));
    let zl = ZsOptions::default().score(&l.image(DOC, "").unwrap());
    assert_eq!((zl.score, zl.null_reason), (None, Some(NullReason::NoPairs)));
    let cl = head().score(&l.image("", "Some claim here.").unwrap(), l.limits());
    assert_eq!((cl.score, cl.null_reason), (None, Some(NullReason::NoPairs)));
    // Null for no pairs alone, other cuts as the reference.
    let n = summac(Limits { no_pairs: NoPairs::Null, ..Limits::reference() });
    assert_eq!(ZsOptions::default().score(&n.image(DOC, "It works.").unwrap()).score, None);
}

#[test]
fn scores_do_not_depend_on_batching_or_row_grouping() {
    if !ort_support::ort_or_skip("scores_do_not_depend_on_batching_or_row_grouping") {
        return;
    }
    let pairs = common::fixture_pairs();
    let rows: Vec<(&str, &str)> = pairs.iter().map(|p| (p.source.as_str(), p.summary.as_str())).collect();
    let dir = common::workspace_root().join("fixtures/models/summac-albert-tiny");
    let one = Summac::try_new(&dir, SummacOptions { batch_size: 1, threads: 1, ..SummacOptions::default() }).unwrap();
    let big = Summac::try_new(&dir, SummacOptions { batch_size: 256, threads: 2, ..SummacOptions::default() }).unwrap();
    let all = big.images(&rows).unwrap();
    let mut max = 0.0f32;
    for (k, row) in rows.iter().enumerate() {
        let single = one.image(row.0, row.1).unwrap();
        assert_eq!(single.entailment.len(), all[k].entailment.len());
        for (a, b) in single.entailment.iter().chain(&single.contradiction).zip(all[k].entailment.iter().chain(&all[k].contradiction)) {
            max = max.max((a - b).abs());
        }
    }
    eprintln!("batch 1 row by row vs batch 256 all rows: max |ΔP| = {max:.2e} over {} rows", rows.len());
    assert!(max <= 1e-5, "{max}");
}

#[test]
fn options_are_checked() {
    if !ort_support::ort_or_skip("options_are_checked") {
        return;
    }
    let dir = common::workspace_root().join("fixtures/models/summac-albert-tiny");
    let bad = |o: SummacOptions| Summac::try_new(&dir, o).err().map(|e| e.to_string()).unwrap_or_default();
    assert!(bad(SummacOptions { batch_size: 0, ..SummacOptions::default() }).contains("batch_size"));
    assert!(bad(SummacOptions { entailment_index: Some(1), ..SummacOptions::default() }).contains("distinct"));
    assert!(bad(SummacOptions { limits: Limits { max_pair_tokens: 3, ..Limits::reference() }, ..SummacOptions::default() })
        .contains("no room"));
    let s = Summac::try_new(&dir, SummacOptions::default()).unwrap();
    assert_eq!(s.label_indices(), [0, 1, 2], "vitc indices from the exported manifest");
    assert_eq!(s.max_length(), 500);
    assert_eq!(s.granularity(), Granularities::default());
    let missing = Summac::try_new(dir.join("nope"), SummacOptions::default()).unwrap_err().to_string();
    assert!(missing.contains("not found"), "{missing}");
}

#[test]
fn released_conv_weights_load() {
    let h = ConvHead::released_vitc().unwrap();
    assert_eq!(h.bins().len(), 24);
    assert_eq!(h.bins_name(), "percentile");
    assert_eq!((h.nli_labels(), h.models()), ("e", &["vitc".to_owned()][..]));
    assert_eq!(
        h.source().sha256.as_deref(),
        Some("cd880581f59bd47b8968c7f48d754cd617dfe9b256d8d76fdcbc0fa4a3b3c6fe"),
        "converted from summac_conv_vitc_sent_perc_e.bin of tingofurro/summac @ c1f3da9"
    );
}
