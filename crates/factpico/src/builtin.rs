//! Adapters from the metric crates to the [`Metric`] trait, and the factory
//! that builds a metric from its registry entry.

use crate::metric::{Metric, MetricInfo, MetricOutput, FKGL, FRE, ROUGE_L};
use crate::scorer::ScorerOptions;
use crate::{Error, Result};

/// Builds the metric described by `info` with the scorer's options.
pub(crate) fn build(info: &'static MetricInfo, options: &ScorerOptions) -> Result<Box<dyn Metric>> {
    match info.name {
        "rougeL" => Ok(Box::new(RougeMetric::new(options.rouge))),
        "fkgl" => Ok(Box::new(FkglMetric { readability: readability(options) })),
        "fre" => Ok(Box::new(FreMetric { readability: readability(options) })),
        other => crate::neural::build(other, info, options).unwrap_or_else(|| {
            Err(Error::FeatureDisabled {
                name: other.to_owned(),
                feature: info.feature.unwrap_or("?"),
            })
        }),
    }
}

fn readability(options: &ScorerOptions) -> factpico_readability::Readability {
    factpico_readability::Readability::new(options.readability)
}

/// ROUGE-L and ROUGE-Lsum (target = abstract, prediction = summary).
struct RougeMetric {
    scorer: factpico_rouge::RougeL,
    options: factpico_rouge::RougeOptions,
}

impl RougeMetric {
    fn new(options: factpico_rouge::RougeOptions) -> Self {
        Self { scorer: factpico_rouge::RougeL::new(options), options }
    }
}

impl Metric for RougeMetric {
    fn info(&self) -> &'static MetricInfo {
        &ROUGE_L
    }

    fn provenance(&self) -> serde_json::Value {
        serde_json::json!({ "options": self.options, "reference": ROUGE_L.reference })
    }

    fn score(&self, source: &str, summary: &str) -> Result<MetricOutput> {
        let s = self.scorer.score_bounded(source, summary, factpico_rouge::LSUM_MAX_CELLS);
        let mut out = MetricOutput::default();
        // The reference value is kept, but say when it compares little of the text.
        for (side, text) in [("abstract", source), ("summary", summary)] {
            let dropped = factpico_rouge::dropped_fraction(text);
            if dropped > 0.5 {
                out.warnings.push(format!(
                    "rouge-score's tokenizer keeps only ASCII letters and digits: {:.0}% of the {side}'s letters and digits \
                     were dropped (non-Latin script?), so ROUGE compares little of the text",
                    dropped * 100.0
                ));
            }
        }
        out.set("rougeL", s.rouge_l.fmeasure);
        out.set("rougeL_precision", s.rouge_l.precision);
        out.set("rougeL_recall", s.rouge_l.recall);
        match s.rouge_lsum {
            Ok(lsum) => {
                out.set("rougeLsum", lsum.fmeasure);
                out.set("rougeLsum_precision", lsum.precision);
                out.set("rougeLsum_recall", lsum.recall);
            }
            // Documented null: the LCS table would not fit (factpico_rouge::LSUM_MAX_CELLS).
            Err(too_large) => {
                for col in ["rougeLsum", "rougeLsum_precision", "rougeLsum_recall"] {
                    out.set_null(col, too_large.to_string());
                }
            }
        }
        Ok(out)
    }
}

/// Flesch-Kincaid grade of both texts and ΔFK.
struct FkglMetric {
    readability: factpico_readability::Readability,
}

impl Metric for FkglMetric {
    fn info(&self) -> &'static MetricInfo {
        &FKGL
    }

    fn provenance(&self) -> serde_json::Value {
        serde_json::json!({ "options": self.readability.options(), "reference": FKGL.reference })
    }

    fn score(&self, source: &str, summary: &str) -> Result<MetricOutput> {
        let src = self.readability.flesch_kincaid_grade(source);
        let sum = self.readability.flesch_kincaid_grade(summary);
        let mut out = MetricOutput::default();
        out.set("fkgl_source", src);
        out.set("fkgl_summary", sum);
        out.set("delta_fkgl", sum - src);
        Ok(out)
    }
}

/// Flesch reading ease of both texts.
struct FreMetric {
    readability: factpico_readability::Readability,
}

impl Metric for FreMetric {
    fn info(&self) -> &'static MetricInfo {
        &FRE
    }

    fn provenance(&self) -> serde_json::Value {
        serde_json::json!({ "options": self.readability.options(), "reference": FRE.reference })
    }

    fn score(&self, source: &str, summary: &str) -> Result<MetricOutput> {
        let src = self.readability.flesch_reading_ease(source);
        let sum = self.readability.flesch_reading_ease(summary);
        let mut out = MetricOutput::default();
        out.set("fre_source", src);
        out.set("fre_summary", sum);
        out.set("delta_fre", sum - src);
        Ok(out)
    }
}
