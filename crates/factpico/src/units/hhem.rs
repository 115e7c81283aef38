//! Unit `hhem`: Vectara HHEM-2.1-Open (metric `hhem`; cargo feature `hhem`): the abstract and
//! the summary substituted into HHEM's prompt template, the flan-t5-base encoder with its
//! 2-label token-classification head, P(consistent) = softmax of the logits at position 0,
//! index 1. See `crates/factpico-hhem` and `docs/hhem.md`.

use factpico_hhem::HhemConfig;
use serde::Deserialize;

use super::MetricUnit;
use crate::explain::{ExplainBlock, SentenceSupport, Side, TextSpan};
use crate::metric::{ColumnInfo, Direction::HigherIsBetter as Hi, Metric, MetricInfo};
use crate::session::RuntimeOptions;
use crate::Result;

/// HHEM registry entry.
pub static HHEM: MetricInfo = MetricInfo::new(
    "hhem",
    "Vectara HHEM-2.1-Open: abstract and summary in HHEM's prompt template, flan-t5-base encoder + token-classification head; P(consistent) at position 0",
    "vectara/hallucination_evaluation_model, modeling_hhem_v2.py (HHEMv2ForSequenceClassification.predict) + configuration_hhem_v2.py; whole premise, whole hypothesis, no truncation (2048-token limit by default)",
    &[
        ColumnInfo::new(
            "hhem",
            "P(summary consistent with the abstract): softmax at position 0, index 1 (max over premise chunks in the chunked mode; min / mean over summary sentences in the sentence mode)",
            Hi,
        )
        .range(Some(0.0), Some(1.0))
        .primary(),
        ColumnInfo::new("hhem_label", "binary label: 1 iff hhem >= threshold (default 0.5, the model card's)", Hi)
            .range(Some(0.0), Some(1.0)),
    ],
)
.aliases(&["hhem-2.1-open", "vectara-hhem"])
.model("hhem");

/// The `hhem` unit.
pub struct Hhem;

impl MetricUnit for Hhem {
    type Options = HhemConfig;
    const METRICS: &'static [&'static MetricInfo] = &[&HHEM];
    const COMPILED_IN: bool = cfg!(feature = "hhem");

    fn build(metric: &'static MetricInfo, options: &HhemConfig, runtime: &RuntimeOptions) -> Result<Box<dyn Metric>> {
        #[cfg(feature = "hhem")]
        {
            let _ = metric;
            imp::build(options, runtime)
        }
        #[cfg(not(feature = "hhem"))]
        {
            let _ = (options, runtime);
            Err(super::feature_disabled(metric))
        }
    }

    /// One [`SentenceSupport`] per checked claim (the whole summary, or each summary sentence)
    /// with the abstract chunk giving its maximum as evidence, then a table of every chunk's
    /// probability per claim. A row without a score explains why.
    fn explain(_metric: &'static MetricInfo, detail: &serde_json::Value) -> Vec<ExplainBlock> {
        let Ok(d) = serde_json::from_value::<Detail>(detail.clone()) else {
            return crate::explain::generic(detail);
        };
        if d.claims.is_empty() {
            let why = d.null_reason.as_deref().unwrap_or("no claim was checked").replace('_', " ");
            return vec![ExplainBlock::Table {
                title: "HHEM: no score".into(),
                rows: vec![("reason".into(), why), ("chunks".into(), d.chunks.len().to_string())],
            }];
        }
        let threshold = d.threshold.unwrap_or(0.5);
        let sentences = d
            .claims
            .iter()
            .map(|c| SentenceSupport {
                span: TextSpan::new(Side::Summary, c.span.start, c.span.end),
                score: Some(c.score),
                label: Some(if c.score >= threshold { "consistent" } else { "hallucinated" }.to_owned()),
                evidence: d
                    .chunks
                    .get(c.best_chunk)
                    .filter(|k| k.span.end > k.span.start)
                    .and_then(|k| TextSpan::new(Side::Source, k.span.start, k.span.end)),
                evidence_score: None,
                note: None,
            })
            .collect();
        let how = match d.claim_mode.as_deref() {
            Some("sentences") => format!("per summary sentence, {} over sentences", d.aggregation.as_deref().unwrap_or("min")),
            _ => "whole summary".to_owned(),
        };
        let premise = match d.premise_mode.as_deref() {
            Some("chunked") => format!("max over {} abstract chunks", d.chunks.len()),
            _ => "whole abstract".to_owned(),
        };
        let mut rows = Vec::new();
        for (j, c) in d.claims.iter().enumerate() {
            for (i, p) in c.chunk_scores.iter().enumerate() {
                let chunk = d.chunks.get(i).map_or_else(String::new, |k| {
                    format!("bytes {}..{}, {} tokens", k.span.start, k.span.end, k.tokens)
                });
                rows.push((format!("claim {j}, chunk {i}"), format!("{p:.4} ({chunk})")));
            }
        }
        vec![
            ExplainBlock::SentenceSupport {
                title: format!("HHEM-2.1-Open ({how}, {premise}), threshold {threshold}"),
                sentences,
            },
            ExplainBlock::Table { title: "HHEM: P(consistent) per chunk".into(), rows },
        ]
    }
}

/// The part of the row detail (`factpico_hhem::HhemOutput` + `threshold`, `premise_mode`,
/// `claim_mode`, `aggregation`) the explanation reads.
#[derive(Deserialize)]
struct Detail {
    #[serde(default)]
    threshold: Option<f64>,
    #[serde(default)]
    null_reason: Option<String>,
    #[serde(default)]
    premise_mode: Option<String>,
    #[serde(default)]
    claim_mode: Option<String>,
    #[serde(default)]
    aggregation: Option<String>,
    #[serde(default)]
    claims: Vec<DetailClaim>,
    #[serde(default)]
    chunks: Vec<DetailChunk>,
}

#[derive(Deserialize)]
struct DetailSpan {
    start: usize,
    end: usize,
}

#[derive(Deserialize)]
struct DetailClaim {
    span: DetailSpan,
    score: f64,
    best_chunk: usize,
    #[serde(default)]
    chunk_scores: Vec<f64>,
}

#[derive(Deserialize)]
struct DetailChunk {
    span: DetailSpan,
    #[serde(default)]
    tokens: usize,
}

#[cfg(feature = "hhem")]
mod imp {
    use factpico_hhem::{Hhem, HhemOptions, HhemOutput};

    use super::{HhemConfig, HHEM};
    use crate::metric::{Metric, MetricInfo, MetricOutput, Pair};
    use crate::session::RuntimeOptions;
    use crate::units::onnx::resolve_model_dir;
    use crate::{Error, Result};

    /// Builds HHEM: model directory (default `$FACTPICO_HOME/models/hhem-2.1-open`), premise and
    /// claim modes, aggregation, threshold, limits, batch size (default 4), threads, device.
    pub(super) fn build(options: &HhemConfig, runtime: &RuntimeOptions) -> Result<Box<dyn Metric>> {
        let name = HHEM.name;
        let dir = resolve_model_dir(name, "hhem.model", options.model.as_deref(), "hhem-2.1-open")?;
        let defaults = HhemOptions::default();
        let mut o = HhemOptions {
            premise: options.premise,
            chunk_tokens: options.chunk_tokens.unwrap_or(defaults.chunk_tokens),
            claim: options.claim,
            aggregation: options.aggregation,
            threshold: options.threshold.unwrap_or(defaults.threshold),
            max_length: options.max_length,
            ..defaults
        };
        if let Some(b) = runtime.batch_size {
            o.batch_size = b;
        }
        o.session = runtime.session();
        o.threads = runtime.threads.unwrap_or(0);
        let checker = Hhem::try_new(&dir, o).map_err(|e| Error::init(name, e))?;
        let sha = checker.model_sha256().map_err(|e| Error::init(name, e))?.to_owned();
        let opts = checker.options();
        let provenance = serde_json::json!({
            "reference": HHEM.reference,
            "model_dir": dir,
            "model_sha256": sha,
            "checkpoint": checker.manifest().source,
            "prompt": checker.prompt(),
            "premise": opts.premise,
            "chunk_tokens": opts.chunk_tokens,
            "claim": opts.claim,
            "aggregation": opts.aggregation,
            "threshold": opts.threshold,
            "max_length": checker.max_length(),
        });
        Ok(Box::new(HhemMetric { checker, provenance }))
    }

    struct HhemMetric {
        checker: Hhem,
        provenance: serde_json::Value,
    }

    fn to_output(o: HhemOutput, checker: &Hhem) -> MetricOutput {
        let opts = checker.options();
        let mut out = MetricOutput::default();
        let threshold = opts.threshold;
        out.set_score("hhem", o.score, o.null_reason.as_ref().map(ToString::to_string), Some(("hhem_label", &|v| v >= threshold)));
        out.detail = serde_json::to_value(&o).ok().map(|mut d| {
            d["threshold"] = serde_json::json!(opts.threshold);
            d["premise_mode"] = serde_json::json!(opts.premise);
            d["claim_mode"] = serde_json::json!(opts.claim);
            d["aggregation"] = serde_json::json!(opts.aggregation);
            d
        });
        out
    }

    impl Metric for HhemMetric {
        fn info(&self) -> &'static MetricInfo {
            &HHEM
        }

        fn provenance(&self) -> serde_json::Value {
            self.provenance.clone()
        }

        fn score(&self, pair: &Pair<'_>) -> Result<MetricOutput> {
            self.checker
                .score(pair.source, pair.summary)
                .map(|o| to_output(o, &self.checker))
                .map_err(|e| Error::metric(HHEM.name, e))
        }

        /// All rows' inputs go through the model in shared batches; a row over the length
        /// limit is that row's error.
        fn score_batch(&self, pairs: &[Pair<'_>]) -> Result<Vec<Result<MetricOutput>>> {
            let rows: Vec<(&str, &str)> = pairs.iter().map(|p| (p.source, p.summary)).collect();
            let outs = self.checker.score_batch(&rows).map_err(|e| Error::metric(HHEM.name, e))?;
            Ok(outs
                .into_iter()
                .map(|o| o.map(|o| to_output(o, &self.checker)).map_err(|e| Error::metric(HHEM.name, e)))
                .collect())
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]
    use super::*;

    /// The explanation reads a detail as the metric writes it, without the model.
    #[test]
    fn explanation_from_the_detail_alone() {
        let detail = serde_json::json!({
            "threshold": 0.5, "score": 0.3, "consistent": false, "null_reason": null,
            "premise_mode": "chunked", "claim_mode": "sentences", "aggregation": "min",
            "claims": [
                {"span": {"start": 0, "end": 10}, "score": 0.9, "best_chunk": 1, "chunk_scores": [0.2, 0.9], "max_tokens": 40},
                {"span": {"start": 11, "end": 30}, "score": 0.3, "best_chunk": 0, "chunk_scores": [0.3, 0.1], "max_tokens": 41}
            ],
            "chunks": [{"span": {"start": 0, "end": 50}, "tokens": 12}, {"span": {"start": 51, "end": 90}, "tokens": 9}]
        });
        let blocks = Hhem::explain(&HHEM, &detail);
        let [ExplainBlock::SentenceSupport { title, sentences }, ExplainBlock::Table { rows, .. }] = blocks.as_slice() else {
            panic!("{blocks:?}")
        };
        assert!(title.contains("min over sentences") && title.contains("max over 2 abstract chunks"), "{title}");
        assert_eq!(sentences[0].evidence, TextSpan::new(Side::Source, 51, 90));
        assert_eq!(sentences[0].label.as_deref(), Some("consistent"));
        assert_eq!(sentences[1].evidence, TextSpan::new(Side::Source, 0, 50));
        assert_eq!(sentences[1].label.as_deref(), Some("hallucinated"));
        assert_eq!(rows.len(), 4);
        assert_eq!(rows[1], ("claim 0, chunk 1".to_owned(), "0.9000 (bytes 51..90, 9 tokens)".to_owned()));
        let null = serde_json::json!({"score": null, "null_reason": "no_claim_sentence", "claims": [], "chunks": []});
        let blocks = Hhem::explain(&HHEM, &null);
        let [ExplainBlock::Table { rows, .. }] = blocks.as_slice() else { panic!("{blocks:?}") };
        assert_eq!(rows[0], ("reason".to_owned(), "no claim sentence".to_owned()));
    }

    #[test]
    fn columns_have_range_and_direction() {
        let [score, label] = HHEM.columns else { panic!("two columns") };
        assert!(score.primary && score.name == "hhem" && label.name == "hhem_label");
        for c in HHEM.columns {
            assert_eq!((c.min, c.max), (Some(0.0), Some(1.0)));
        }
    }
}
