//! Unit `minicheck`: MiniCheck (metric `minicheck`; cargo feature `minicheck`): the abstract
//! cut into sentence-packed chunks, each chunk checked against the summary by one of the three
//! released encoder-sized checkers (RoBERTa-large, DeBERTa-v3-large, Flan-T5-large),
//! P(supported) = max over chunks. See `docs/minicheck.md`.

use factpico_minicheck::MiniCheckConfig;
use serde::Deserialize;

use super::MetricUnit;
use crate::explain::{ExplainBlock, SentenceSupport, Side, TextSpan};
use crate::metric::{ColumnInfo, Direction::HigherIsBetter as Hi, Metric, MetricInfo};
use crate::session::RuntimeOptions;
use crate::Result;

/// MiniCheck registry entry.
pub static MINICHECK: MetricInfo = MetricInfo::new(
    "minicheck",
    "MiniCheck: the summary checked against sentence-packed chunks of the abstract; P(supported) = max over chunks",
    "Liyan06/MiniCheck b58b9fa, minicheck/minicheck.py + minicheck/inference.py (Inferencer; whole-claim default)",
    &[
        ColumnInfo::new(
            "minicheck",
            "P(summary supported by the abstract): max over chunks (whole claim), or the min / mean over summary sentences of it",
            Hi,
        )
        .range(Some(0.0), Some(1.0))
        .primary(),
        ColumnInfo::new("minicheck_label", "reference binary label: 1 iff minicheck > 0.5", Hi).range(Some(0.0), Some(1.0)),
    ],
)
.aliases(&["mini-check"])
.model("minicheck");

/// The `minicheck` unit.
pub struct MiniCheck;

impl MetricUnit for MiniCheck {
    type Options = MiniCheckConfig;
    const METRICS: &'static [&'static MetricInfo] = &[&MINICHECK];
    const COMPILED_IN: bool = cfg!(feature = "minicheck");

    fn build(metric: &'static MetricInfo, options: &MiniCheckConfig, runtime: &RuntimeOptions) -> Result<Box<dyn Metric>> {
        #[cfg(feature = "minicheck")]
        {
            let _ = metric;
            imp::build(options, runtime)
        }
        #[cfg(not(feature = "minicheck"))]
        {
            let _ = (options, runtime);
            Err(super::feature_disabled(metric))
        }
    }

    /// One [`SentenceSupport`] per checked claim (the whole summary, or each summary
    /// sentence) with the abstract chunk giving its maximum as evidence; inputs cut to the
    /// model length get a note. A row without a score explains why.
    fn explain(_metric: &'static MetricInfo, detail: &serde_json::Value) -> Vec<ExplainBlock> {
        let Ok(d) = serde_json::from_value::<Detail>(detail.clone()) else {
            return crate::explain::generic(detail);
        };
        let checker = d.checker.as_deref().unwrap_or("MiniCheck");
        if d.claims.is_empty() {
            let why = d.null_reason.as_deref().unwrap_or("no claim was checked").replace('_', " ");
            return vec![ExplainBlock::Table {
                title: format!("{checker}: no score"),
                rows: vec![("reason".into(), why), ("chunks".into(), d.chunks.len().to_string())],
            }];
        }
        let sentences = d
            .claims
            .iter()
            .enumerate()
            .map(|(j, c)| {
                let note = d.warnings.iter().find(|w| w.claim == j).map(|w| {
                    format!(
                        "{} chunk+claim input(s) cut to the model length, up to {} of the claim's {} tokens dropped",
                        w.chunks, w.max_dropped_tokens, w.claim_tokens
                    )
                });
                SentenceSupport {
                    span: TextSpan::new(Side::Summary, c.span.start, c.span.end),
                    score: Some(c.score),
                    label: Some(if c.supported { "supported" } else { "unsupported" }.to_owned()),
                    evidence: d.chunks.get(c.best_chunk).and_then(|k| TextSpan::new(Side::Source, k.span.start, k.span.end)),
                    evidence_score: None,
                    note,
                }
            })
            .collect();
        let how = match d.claim_mode.as_str() {
            "sentences" => format!("per summary sentence, {} over sentences", d.aggregation),
            _ => "whole summary".to_owned(),
        };
        vec![ExplainBlock::SentenceSupport {
            title: format!("{checker} ({how}): max over {} abstract chunks", d.chunks.len()),
            sentences,
        }]
    }
}

/// The part of the row detail (`factpico_minicheck::MiniCheckOutput` + `checker`) the
/// explanation reads.
#[derive(Deserialize)]
struct Detail {
    #[serde(default)]
    checker: Option<String>,
    #[serde(default)]
    null_reason: Option<String>,
    #[serde(default)]
    claim_mode: String,
    #[serde(default)]
    aggregation: String,
    #[serde(default)]
    claims: Vec<DetailClaim>,
    #[serde(default)]
    chunks: Vec<DetailChunk>,
    #[serde(default)]
    warnings: Vec<DetailWarning>,
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
    supported: bool,
    best_chunk: usize,
}

#[derive(Deserialize)]
struct DetailChunk {
    span: DetailSpan,
}

#[derive(Deserialize)]
struct DetailWarning {
    claim: usize,
    chunks: usize,
    max_dropped_tokens: usize,
    claim_tokens: usize,
}

#[cfg(feature = "minicheck")]
mod imp {
    use factpico_minicheck::{MiniCheck, MiniCheckOptions, MiniCheckOutput, Variant};

    use super::{MiniCheckConfig, MINICHECK};
    use crate::metric::{Metric, MetricInfo, MetricOutput, Pair};
    use crate::session::RuntimeOptions;
    use crate::units::onnx::resolve_model_dir;
    use crate::{Error, Result};

    /// Builds MiniCheck: model directory (default `$FACTPICO_HOME/models/minicheck-<checker>`),
    /// checker check, claim mode, aggregation, chunk size, maximum length, batch size (default
    /// 1: `MiniCheckOptions::batch_size`), threads, device.
    pub(super) fn build(options: &MiniCheckConfig, runtime: &RuntimeOptions) -> Result<Box<dyn Metric>> {
        let name = MINICHECK.name;
        let default = format!("minicheck-{}", options.checker.unwrap_or_default().as_str());
        let dir = resolve_model_dir(name, "minicheck.model", options.model.as_deref(), &default)?;
        let mut o = MiniCheckOptions {
            claim: options.claim,
            aggregation: options.aggregation,
            chunk_size: options.chunk_size,
            max_length: options.max_length,
            ..MiniCheckOptions::default()
        };
        if let Some(b) = runtime.batch_size {
            o.batch_size = b;
        }
        o.session = runtime.session();
        o.threads = runtime.threads.unwrap_or(0);
        let checker = MiniCheck::try_new(&dir, o).map_err(|e| Error::init(name, e))?;
        if let Some(want) = options.checker {
            if want != checker.variant() {
                return Err(Error::init(
                    name,
                    format!(
                        "`minicheck.checker` {want} does not match the model directory {}, which holds the {} checker",
                        dir.display(),
                        checker.variant()
                    ),
                ));
            }
        }
        let sha = checker.model_sha256().map_err(|e| Error::init(name, e))?.to_owned();
        let provenance = serde_json::json!({
            "reference": MINICHECK.reference,
            "model_dir": dir,
            "model_sha256": sha,
            "checker": checker.variant(),
            "checkpoint": checker.manifest().source,
            "claim": checker.claim_mode(),
            "aggregation": checker.aggregation(),
            "chunk_size": checker.chunk_size(),
            "chunk_unit": checker.variant().chunk_unit(),
            "max_length": checker.max_length(),
        });
        Ok(Box::new(MiniCheckMetric { checker, provenance }))
    }

    struct MiniCheckMetric {
        checker: MiniCheck,
        provenance: serde_json::Value,
    }

    fn to_output(o: MiniCheckOutput, checker: Variant) -> MetricOutput {
        let mut out = MetricOutput::default();
        out.set_score("minicheck", o.score, o.null_reason.as_ref().map(ToString::to_string), Some(("minicheck_label", &|v| v > 0.5)));
        out.warnings = o.warnings.iter().map(ToString::to_string).collect();
        out.detail = serde_json::to_value(&o).ok().map(|mut d| {
            d["checker"] = serde_json::json!(checker.as_str());
            d
        });
        out
    }

    impl Metric for MiniCheckMetric {
        fn info(&self) -> &'static MetricInfo {
            &MINICHECK
        }

        fn provenance(&self) -> serde_json::Value {
            self.provenance.clone()
        }

        fn score(&self, pair: &Pair<'_>) -> Result<MetricOutput> {
            self.checker
                .score(pair.source, pair.summary)
                .map(|o| to_output(o, self.checker.variant()))
                .map_err(|e| Error::metric(MINICHECK.name, e))
        }

        /// All (chunk, claim) inputs of all rows go through the model in shared batches.
        fn score_batch(&self, pairs: &[Pair<'_>]) -> Result<Vec<Result<MetricOutput>>> {
            let rows: Vec<(&str, &str)> = pairs.iter().map(|p| (p.source, p.summary)).collect();
            let outs = self.checker.score_batch(&rows).map_err(|e| Error::metric(MINICHECK.name, e))?;
            Ok(outs.into_iter().map(|o| Ok(to_output(o, self.checker.variant()))).collect())
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]
    use super::*;

    /// The explanation reads a detail as the metric writes it (shape of
    /// `factpico_minicheck::MiniCheckOutput` + `checker`), without the model.
    #[test]
    fn explanation_from_the_detail_alone() {
        let detail = serde_json::json!({
            "checker": "flan-t5-large", "score": 0.3, "supported": false, "null_reason": null,
            "claim_mode": "sentences", "aggregation": "min",
            "claims": [
                {"span": {"start": 0, "end": 10}, "score": 0.9, "supported": true, "best_chunk": 1, "chunk_scores": [0.2, 0.9]},
                {"span": {"start": 11, "end": 30}, "score": 0.3, "supported": false, "best_chunk": 0, "chunk_scores": [0.3, 0.1]}
            ],
            "chunks": [{"span": {"start": 0, "end": 50}, "sentences": {"start": 0, "end": 2}},
                       {"span": {"start": 51, "end": 90}, "sentences": {"start": 2, "end": 3}}],
            "warnings": [{"kind": "truncated", "claim": 1, "chunks": 2, "max_dropped_tokens": 7, "claim_tokens": 12}]
        });
        let blocks = MiniCheck::explain(&MINICHECK, &detail);
        let [ExplainBlock::SentenceSupport { title, sentences }] = blocks.as_slice() else { panic!("{blocks:?}") };
        assert!(title.contains("flan-t5-large") && title.contains("min over sentences") && title.contains("2 abstract chunks"), "{title}");
        assert_eq!(sentences[0].evidence, TextSpan::new(Side::Source, 51, 90));
        assert_eq!(sentences[0].label.as_deref(), Some("supported"));
        assert_eq!(sentences[0].note, None);
        assert_eq!(sentences[1].span, TextSpan::new(Side::Summary, 11, 30));
        assert_eq!(sentences[1].evidence, TextSpan::new(Side::Source, 0, 50));
        assert!(sentences[1].note.as_deref().unwrap().contains("up to 7 of the claim's 12 tokens"), "{:?}", sentences[1].note);
        let null = serde_json::json!({"score": null, "null_reason": "empty_document", "claim_mode": "whole",
                                      "aggregation": "min", "claims": [], "chunks": [], "warnings": []});
        let blocks = MiniCheck::explain(&MINICHECK, &null);
        let [ExplainBlock::Table { rows, .. }] = blocks.as_slice() else { panic!("{blocks:?}") };
        assert_eq!(rows[0], ("reason".to_owned(), "empty document".to_owned()));
    }
}
