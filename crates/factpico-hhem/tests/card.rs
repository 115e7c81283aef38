//! The model card's 7 published pairs against its published scores (4 decimals; |Δ| ≤ 5e-5),
//! with the real weights only: `FACTPICO_HHEM_MODEL=<dir>` (an HHEM directory exported by
//! `onnx/export_hhem.py` from `vectara/hallucination_evaluation_model`, e.g. `factpico models
//! pull hhem-2.1-open`). Without it the test prints a visible SKIP line.
//!
//! Pairs and scores: the model card of `vectara/hallucination_evaluation_model` (Apache-2.0),
//! also the `test_prediction` of a public transformers port; see THIRD_PARTY.md.
#![allow(missing_docs, clippy::unwrap_used, clippy::panic)]

use factpico_hhem::{Hhem, HhemOptions};

const PAIRS: [(&str, &str); 7] = [
    ("The capital of France is Berlin.", "The capital of France is Paris."),
    ("I am in California", "I am in United States."),
    ("I am in United States", "I am in California."),
    ("A person on a horse jumps over a broken down airplane.", "A person is outdoors, on a horse."),
    ("A boy is jumping on skateboard in the middle of a red bridge.", "The boy skates down the sidewalk on a red bridge"),
    (
        "A man with blond-hair, and a brown shirt drinking out of a public water fountain.",
        "A blond man wearing a brown shirt is reading a book.",
    ),
    ("Mark Wahlberg was a fan of Manny.", "Manny was a fan of Mark Wahlberg."),
];
const CARD: [f64; 7] = [0.0111, 0.6474, 0.1290, 0.8969, 0.1846, 0.0050, 0.0543];

#[test]
fn card_pairs_match_the_published_scores() {
    let Some(dir) = std::env::var_os("FACTPICO_HHEM_MODEL") else {
        eprintln!(
            "SKIP hhem card test: set FACTPICO_HHEM_MODEL to an HHEM-2.1-Open model directory (real weights) to compare \
             the model card's 7 scores"
        );
        return;
    };
    let h = Hhem::try_new(&dir, HhemOptions::default()).unwrap();
    let outs = h.score_batch(&PAIRS).unwrap();
    let mut max_d = 0f64;
    for ((pair, out), want) in PAIRS.iter().zip(outs).zip(CARD) {
        let got = out.unwrap().score.unwrap();
        let d = (got - want).abs();
        assert!(d <= 5e-5, "{pair:?}: factpico {got:.6} vs card {want}");
        max_d = max_d.max(d);
    }
    eprintln!("hhem card: 7 pairs, max |Δ| vs the card's 4 decimals = {max_d:.2e}");
}
