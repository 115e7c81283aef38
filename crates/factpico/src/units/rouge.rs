//! Unit `rouge`: ROUGE-L and ROUGE-Lsum (metric `rougeL`), target = abstract, prediction =
//! summary. Model-free, always compiled in.

use factpico_rouge::{RougeL, RougeOptions};

use super::MetricUnit;
use crate::metric::{ColumnInfo, Direction::HigherIsBetter as Hi, Metric, MetricInfo, MetricOutput, Pair};
use crate::session::RuntimeOptions;
use crate::Result;

/// ROUGE-L registry entry.
pub static ROUGE_L: MetricInfo = MetricInfo::new(
    "rougeL",
    "ROUGE-L (summary-as-one-sequence LCS) and ROUGE-Lsum (newline-split union LCS); target = abstract, prediction = summary",
    "Google rouge-score 0.1.2 (rouge_score/rouge_scorer.py), NLTK PorterStemmer NLTK_EXTENSIONS",
    &[
        ColumnInfo::new("rougeL", "ROUGE-L F-measure", Hi).range(Some(0.0), Some(1.0)).primary(),
        ColumnInfo::new("rougeL_precision", "ROUGE-L precision (LCS / summary tokens)", Hi).range(Some(0.0), Some(1.0)),
        ColumnInfo::new("rougeL_recall", "ROUGE-L recall (LCS / abstract tokens)", Hi).range(Some(0.0), Some(1.0)),
        ColumnInfo::new("rougeLsum", "ROUGE-Lsum F-measure (sentences split on newlines)", Hi).range(Some(0.0), Some(1.0)),
        ColumnInfo::new("rougeLsum_precision", "ROUGE-Lsum precision", Hi).range(Some(0.0), Some(1.0)),
        ColumnInfo::new("rougeLsum_recall", "ROUGE-Lsum recall", Hi).range(Some(0.0), Some(1.0)),
    ],
)
.aliases(&["rougel", "rouge-l", "rouge_l", "rougeLsum"]);

/// The `rouge` unit.
pub struct Rouge;

impl MetricUnit for Rouge {
    type Options = RougeOptions;
    const METRICS: &'static [&'static MetricInfo] = &[&ROUGE_L];

    fn build(
        _metric: &'static MetricInfo,
        options: &RougeOptions,
        _runtime: &RuntimeOptions,
    ) -> Result<Box<dyn Metric>> {
        Ok(Box::new(RougeMetric { scorer: RougeL::new(*options), options: *options }))
    }

    /// ROUGE writes no detail.
    fn explain(_metric: &'static MetricInfo, _detail: &serde_json::Value) -> Vec<crate::ExplainBlock> {
        Vec::new()
    }
}

struct RougeMetric {
    scorer: RougeL,
    options: RougeOptions,
}

impl Metric for RougeMetric {
    fn info(&self) -> &'static MetricInfo {
        &ROUGE_L
    }

    fn provenance(&self) -> serde_json::Value {
        serde_json::json!({ "options": self.options, "reference": ROUGE_L.reference })
    }

    fn score(&self, pair: &Pair<'_>) -> Result<MetricOutput> {
        let s = self.scorer.score_bounded(pair.source, pair.summary, factpico_rouge::LSUM_MAX_CELLS);
        let mut out = MetricOutput::default();
        // The reference value is kept, but say when it compares little of the text.
        for (side, text) in [("abstract", pair.source), ("summary", pair.summary)] {
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
