//! Embeds factpico in a Rust program: score a few (abstract, summary) pairs
//! with the default model-free metrics and print each report as JSON.
//!
//! Run: `cargo run --example score_pairs`
use factpico::{Scorer, ScorerOptions};

fn main() -> Result<(), factpico::Error> {
    let abstract_text = "We randomly assigned 240 adults with moderate asthma to budesonide–formoterol \
        or placebo for 12 weeks. Severe exacerbations were less frequent with budesonide–formoterol \
        (rate ratio 0.64; 95% CI 0.48–0.85; p=0.002).";
    let faithful = "Researchers studied 240 adults with asthma. Those using the real inhaler had fewer severe attacks.";
    let unfaithful = "Researchers studied children with mild asthma. The inhaler caused more attacks.";

    // Default metrics: ROUGE-L (rouge-score 0.1.2, stemming on) and FKGL/ΔFK (textstat 0.7.3).
    let scorer = Scorer::try_new(ScorerOptions::default())?;
    let reports = scorer.score_batch(&[(abstract_text, faithful), (abstract_text, unfaithful)]);
    for (name, r) in ["faithful", "unfaithful"].iter().zip(&reports) {
        println!(
            "{name:>10}: rougeL = {:.4}, ΔFK = {:+.1}",
            r.score("rougeL").unwrap_or(f64::NAN),
            r.score("delta_fkgl").unwrap_or(f64::NAN)
        );
    }
    // Full row, as `factpico score` writes it.
    println!("{}", serde_json::to_string_pretty(&reports[0]).unwrap_or_default());
    Ok(())
}
