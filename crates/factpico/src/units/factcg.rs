//! Unit `factcg`: FactCG-DeBERTa-v3-Large (metric `factcg`; cargo feature `factcg`): the
//! abstract cut by FactCG's `chunking_src` (550 NLTK `word_tokenize` tokens), each chunk put
//! with the summary into FactCG's instruction template and classified by the DeBERTa-v3
//! checker, P(supported) = max over chunks. See `crates/factpico-factcg`.

use factpico_factcg::FactCgConfig;
use serde::Deserialize;

use super::MetricUnit;
use crate::explain::{ExplainBlock, SentenceSupport, Side, TextSpan};
use crate::metric::{ColumnInfo, Direction::HigherIsBetter as Hi, Metric, MetricInfo};
use crate::session::RuntimeOptions;
use crate::Result;

/// FactCG registry entry.
pub static FACTCG: MetricInfo = MetricInfo::new(
    "factcg",
    "FactCG-DeBERTa-v3-Large: the summary checked against word_tokenize-packed chunks of the abstract in FactCG's instruction template; P(supported) = max over chunks",
    "derenlei/FactCG 49748b9, factcg/inference.py (Inferencer, use_hf_ckpt=True) + factcg/utils.py 4eb1537 (INSTRUCTION_TEMPLATE); whole-claim default",
    &[
        ColumnInfo::new(
            "factcg",
            "P(summary supported by the abstract): max over chunks (whole claim), or the min / mean over summary sentences of it",
            Hi,
        )
        .range(Some(0.0), Some(1.0))
        .primary(),
        ColumnInfo::new("factcg_label", "binary label: 1 iff factcg > threshold (default 0.5, the README's fixed setting)", Hi)
            .range(Some(0.0), Some(1.0)),
    ],
)
.aliases(&["fact-cg"])
.model("factcg");

/// The `factcg` unit.
pub struct FactCg;

impl MetricUnit for FactCg {
    type Options = FactCgConfig;
    const METRICS: &'static [&'static MetricInfo] = &[&FACTCG];
    const COMPILED_IN: bool = cfg!(feature = "factcg");

    fn build(metric: &'static MetricInfo, options: &FactCgConfig, runtime: &RuntimeOptions) -> Result<Box<dyn Metric>> {
        #[cfg(feature = "factcg")]
        {
            let _ = metric;
            imp::build(options, runtime)
        }
        #[cfg(not(feature = "factcg"))]
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
                title: "FactCG: no score".into(),
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
                label: Some(if c.score > threshold { "supported" } else { "unsupported" }.to_owned()),
                evidence: d
                    .chunks
                    .get(c.best_chunk)
                    .filter(|k| k.span.end > k.span.start)
                    .and_then(|k| TextSpan::new(Side::Source, k.span.start, k.span.end)),
                evidence_score: None,
                note: (c.truncated_chunks > 0).then(|| {
                    format!(
                        "{} chunk input(s) over the model length: their end (the summary and the answer options) was cut",
                        c.truncated_chunks
                    )
                }),
            })
            .collect();
        let how = match d.claim_mode.as_deref() {
            Some("sentences") => format!("per summary sentence, {} over sentences", d.aggregation.as_deref().unwrap_or("min")),
            _ => "whole summary".to_owned(),
        };
        let mut rows = Vec::new();
        for (j, c) in d.claims.iter().enumerate() {
            for (i, p) in c.chunk_scores.iter().enumerate() {
                let chunk = d.chunks.get(i).map_or_else(String::new, |k| {
                    if k.span.end > k.span.start {
                        format!("bytes {}..{}", k.span.start, k.span.end)
                    } else {
                        "empty chunk (the reference's, before an over-long first sentence)".to_owned()
                    }
                });
                rows.push((format!("claim {j}, chunk {i}"), format!("{p:.4} ({chunk})")));
            }
        }
        vec![
            ExplainBlock::SentenceSupport {
                title: format!("FactCG ({how}): max over {} abstract chunks, threshold {threshold}", d.chunks.len()),
                sentences,
            },
            ExplainBlock::Table { title: "FactCG: P(supported) per chunk".into(), rows },
        ]
    }
}

/// The part of the row detail (`factpico_factcg::FactCgOutput` + `threshold`, `claim_mode`,
/// `aggregation`) the explanation reads.
#[derive(Deserialize)]
struct Detail {
    #[serde(default)]
    threshold: Option<f64>,
    #[serde(default)]
    null_reason: Option<String>,
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
    #[serde(default)]
    truncated_chunks: usize,
}

#[derive(Deserialize)]
struct DetailChunk {
    span: DetailSpan,
}

#[cfg(feature = "factcg")]
mod imp {
    use factpico_factcg::{FactCg, FactCgOptions, FactCgOutput};

    use super::{FactCgConfig, FACTCG};
    use crate::metric::{Metric, MetricInfo, MetricOutput, Pair};
    use crate::session::RuntimeOptions;
    use crate::units::onnx::resolve_model_dir;
    use crate::{Error, Result};

    /// Builds FactCG: model directory (default `$FACTPICO_HOME/models/factcg-deberta-v3-large`),
    /// claim mode, aggregation, threshold, chunk size, batch size (default 4), threads, device.
    pub(super) fn build(options: &FactCgConfig, runtime: &RuntimeOptions) -> Result<Box<dyn Metric>> {
        let name = FACTCG.name;
        let dir = resolve_model_dir(name, "factcg.model", options.model.as_deref(), "factcg-deberta-v3-large")?;
        let defaults = FactCgOptions::default();
        let mut o = FactCgOptions {
            claim: options.claim,
            aggregation: options.aggregation,
            threshold: options.threshold.unwrap_or(defaults.threshold),
            chunk_size: options.chunk_size.unwrap_or(defaults.chunk_size),
            ..defaults
        };
        if let Some(b) = runtime.batch_size {
            o.batch_size = b;
        }
        o.session = runtime.session();
        o.threads = runtime.threads.unwrap_or(0);
        let checker = FactCg::try_new(&dir, o).map_err(|e| Error::init(name, e))?;
        let sha = checker.model_sha256().map_err(|e| Error::init(name, e))?.to_owned();
        let opts = checker.options();
        let provenance = serde_json::json!({
            "reference": FACTCG.reference,
            "model_dir": dir,
            "model_sha256": sha,
            "checkpoint": checker.manifest().source,
            "claim": opts.claim,
            "aggregation": opts.aggregation,
            "threshold": opts.threshold,
            "chunk_size": opts.chunk_size,
            "chunk_unit": "nltk word_tokenize tokens",
            "max_length": checker.max_length(),
        });
        Ok(Box::new(FactCgMetric { checker, provenance }))
    }

    struct FactCgMetric {
        checker: FactCg,
        provenance: serde_json::Value,
    }

    fn to_output(o: FactCgOutput, checker: &FactCg) -> MetricOutput {
        let opts = checker.options();
        let mut out = MetricOutput::default();
        let threshold = opts.threshold;
        out.set_score("factcg", o.score, o.null_reason.as_ref().map(ToString::to_string), Some(("factcg_label", &|v| v > threshold)));
        let cut: usize = o.claims.iter().map(|c| c.truncated_chunks).sum();
        if cut > 0 {
            out.warnings.push(format!(
                "{cut} chunk input(s) exceeded {} tokens and were cut from the end, as the reference does: \
                 the summary and the answer options were lost first",
                checker.max_length()
            ));
        }
        out.detail = serde_json::to_value(&o).ok().map(|mut d| {
            d["threshold"] = serde_json::json!(opts.threshold);
            d["claim_mode"] = serde_json::json!(opts.claim);
            d["aggregation"] = serde_json::json!(opts.aggregation);
            d
        });
        out
    }

    impl Metric for FactCgMetric {
        fn info(&self) -> &'static MetricInfo {
            &FACTCG
        }

        fn provenance(&self) -> serde_json::Value {
            self.provenance.clone()
        }

        fn score(&self, pair: &Pair<'_>) -> Result<MetricOutput> {
            self.checker
                .score(pair.source, pair.summary)
                .map(|o| to_output(o, &self.checker))
                .map_err(|e| Error::metric(FACTCG.name, e))
        }

        /// All (chunk, claim) inputs of all rows go through the model in shared batches.
        fn score_batch(&self, pairs: &[Pair<'_>]) -> Result<Vec<Result<MetricOutput>>> {
            let rows: Vec<(&str, &str)> = pairs.iter().map(|p| (p.source, p.summary)).collect();
            let outs = self.checker.score_batch(&rows).map_err(|e| Error::metric(FACTCG.name, e))?;
            Ok(outs.into_iter().map(|o| Ok(to_output(o, &self.checker))).collect())
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
            "threshold": 0.5, "score": 0.3, "supported": false, "null_reason": null,
            "claim_mode": "sentences", "aggregation": "min",
            "claims": [
                {"span": {"start": 0, "end": 10}, "score": 0.9, "best_chunk": 1, "chunk_scores": [0.2, 0.9], "truncated_chunks": 0},
                {"span": {"start": 11, "end": 30}, "score": 0.3, "best_chunk": 0, "chunk_scores": [0.3, 0.1], "truncated_chunks": 1}
            ],
            "chunks": [{"span": {"start": 0, "end": 0}, "sentences": {"start": 0, "end": 0}},
                       {"span": {"start": 0, "end": 90}, "sentences": {"start": 0, "end": 1}}]
        });
        let blocks = FactCg::explain(&FACTCG, &detail);
        let [ExplainBlock::SentenceSupport { title, sentences }, ExplainBlock::Table { rows, .. }] = blocks.as_slice() else {
            panic!("{blocks:?}")
        };
        assert!(title.contains("min over sentences") && title.contains("2 abstract chunks"), "{title}");
        assert_eq!(sentences[0].evidence, TextSpan::new(Side::Source, 0, 90));
        assert_eq!(sentences[0].label.as_deref(), Some("supported"));
        assert_eq!(sentences[0].note, None);
        // The best chunk of claim 1 is the reference's empty first chunk: no evidence span.
        assert_eq!(sentences[1].evidence, None);
        assert_eq!(sentences[1].label.as_deref(), Some("unsupported"));
        assert!(sentences[1].note.as_deref().unwrap().contains("1 chunk input(s)"));
        assert_eq!(rows.len(), 4);
        assert_eq!(rows[1], ("claim 0, chunk 1".to_owned(), "0.9000 (bytes 0..90)".to_owned()));
        assert!(rows[2].1.starts_with("0.3000 (empty chunk"), "{:?}", rows[2]);
        let null = serde_json::json!({"score": null, "null_reason": "no_chunk", "claims": [], "chunks": []});
        let blocks = FactCg::explain(&FACTCG, &null);
        let [ExplainBlock::Table { rows, .. }] = blocks.as_slice() else { panic!("{blocks:?}") };
        assert_eq!(rows[0], ("reason".to_owned(), "no chunk".to_owned()));
    }

    #[test]
    fn columns_have_range_and_direction() {
        let [score, label] = FACTCG.columns else { panic!("two columns") };
        assert!(score.primary && score.name == "factcg" && label.name == "factcg_label");
        for c in FACTCG.columns {
            assert_eq!((c.min, c.max), (Some(0.0), Some(1.0)));
        }
    }
}
