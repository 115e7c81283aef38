//! Unit `summac`: SummaC-ZS and SummaC-Conv (metrics `summac_zs`, `summac_conv`; cargo
//! feature `summac`), one NLI model over the (abstract sentence × summary sentence) image.
//! The two metrics of a scorer share one loaded model and, when both are selected, one image
//! pass per batch.


use serde::Deserialize;

use super::MetricUnit;
use crate::explain::{ExplainBlock, SentenceSupport, Side, TextSpan};
use crate::metric::{ColumnInfo, Direction, Metric, MetricInfo};
use crate::session::RuntimeOptions;
use crate::Result;

const REFERENCE: &str = "tingofurro/summac c1f3da9, summac/model_summac.py (PyPI summac 0.0.4)";

/// SummaC-ZS registry entry.
pub static SUMMAC_ZS: MetricInfo = MetricInfo::new(
    "summac_zs",
    "SummaC-ZS: NLI over (abstract sentence, summary sentence) pairs; mean over summary sentences of max P(entailment) - max P(contradiction)",
    REFERENCE,
    &[ColumnInfo::new(
        "summac_zs",
        "SummaC-ZS (mean over summary sentences of max over abstract sentences of P(ent) minus that of P(con))",
        Direction::HigherIsBetter,
    )
    .range(Some(-1.0), Some(1.0))
    .primary()],
)
.aliases(&["summaczs"])
.model("summac");

/// SummaC-Conv registry entry.
pub static SUMMAC_CONV: MetricInfo = MetricInfo::new(
    "summac_conv",
    "SummaC-Conv: per summary sentence a histogram of P(entailment) over abstract sentences, learned filter, mean, softmax",
    REFERENCE,
    &[ColumnInfo::new(
        "summac_conv",
        "SummaC-Conv (probability of 'consistent' from the learned layers over the first 10 summary sentences)",
        Direction::HigherIsBetter,
    )
    .range(Some(0.0), Some(1.0))
    .primary()],
)
.aliases(&["summacconv"])
.model("summac");

pub use factpico_summac::SummacConfig;

/// The `summac` unit.
pub struct Summac;

impl MetricUnit for Summac {
    type Options = SummacConfig;
    const METRICS: &'static [&'static MetricInfo] = &[&SUMMAC_ZS, &SUMMAC_CONV];
    const COMPILED_IN: bool = cfg!(feature = "summac");

    fn build(metric: &'static MetricInfo, options: &SummacConfig, runtime: &RuntimeOptions) -> Result<Box<dyn Metric>> {
        #[cfg(feature = "summac")]
        {
            imp::build(metric, options, runtime)
        }
        #[cfg(not(feature = "summac"))]
        {
            let _ = (options, runtime);
            Err(super::feature_disabled(metric))
        }
    }

    /// One [`SentenceSupport`] per summary sentence: SummaC-ZS with its best abstract
    /// sentence as evidence, SummaC-Conv with its row's filter value; sentences the
    /// reference's cuts left out get a note.
    fn explain(metric: &'static MetricInfo, detail: &serde_json::Value) -> Vec<ExplainBlock> {
        let Ok(d) = serde_json::from_value::<Detail>(detail.clone()) else {
            return crate::explain::generic(detail);
        };
        let summary = |s: &DetailSpan| TextSpan::new(Side::Summary, s.start, s.end);
        let mut sentences: Vec<(usize, SentenceSupport)> = Vec::new();
        let support = |span: &DetailSpan, score: Option<f64>, evidence: Option<TextSpan>, note: Option<String>| SentenceSupport {
            span: summary(span),
            score,
            label: None,
            evidence,
            evidence_score: None,
            note,
        };
        let title = if metric.name == SUMMAC_ZS.name {
            for c in &d.chunks {
                let note = Some(format!("max P(ent) {:.3}, max P(con) {:.3}", c.entailment, c.contradiction));
                let evidence = TextSpan::new(Side::Source, c.best_document_span.start, c.best_document_span.end);
                sentences.push((c.span.start, support(&c.span, Some(c.score), evidence, note)));
            }
            "SummaC-ZS: summary sentences, best abstract sentence by P(entailment)"
        } else {
            for r in &d.rows {
                sentences.push((r.span.start, support(&r.span, Some(r.value), None, Some("Conv row filter value".into()))));
            }
            for u in &d.unused {
                let note = Some("after the first rows: not used by SummaC-Conv (reference n_rows = 10)".into());
                sentences.push((u.start, support(u, None, None, note)));
            }
            "SummaC-Conv: summary sentences (row filter values)"
        };
        for w in &d.warnings {
            if w.kind == "chunks_dropped" && w.side.as_deref() == Some("summary") {
                for s in &w.spans {
                    let note = Some(format!("{} characters or fewer: not scored (reference)", w.min_chars.unwrap_or(10)));
                    sentences.push((s.start, support(s, None, None, note)));
                }
            }
        }
        sentences.sort_by_key(|(start, _)| *start);
        let mut blocks = Vec::new();
        if !sentences.is_empty() {
            blocks.push(ExplainBlock::SentenceSupport {
                title: title.into(),
                sentences: sentences.into_iter().map(|(_, s)| s).collect(),
            });
        }
        let other: Vec<(String, String)> = d
            .warnings
            .iter()
            .filter(|w| !(w.kind == "chunks_dropped" && w.side.as_deref() == Some("summary")))
            .map(|w| (w.kind.clone(), w.describe()))
            .collect();
        if !other.is_empty() {
            blocks.push(ExplainBlock::Table { title: "cuts and edge cases".into(), rows: other });
        }
        if blocks.is_empty() {
            blocks.push(ExplainBlock::Text { text: "no summary sentence was scored".into() });
        }
        blocks
    }

    fn option_metrics(field: &str) -> &'static [&'static str] {
        SummacConfig::field_metrics(field)
    }
}

/// The parts of `factpico_summac::{ZsOutput, ConvOutput}`'s JSON the explanation reads.
#[derive(Deserialize)]
struct Detail {
    #[serde(default)]
    chunks: Vec<DetailZsChunk>,
    #[serde(default)]
    rows: Vec<DetailConvRow>,
    #[serde(default)]
    unused: Vec<DetailSpan>,
    #[serde(default)]
    warnings: Vec<DetailWarning>,
}

#[derive(Deserialize)]
struct DetailSpan {
    start: usize,
    end: usize,
}

#[derive(Deserialize)]
struct DetailZsChunk {
    span: DetailSpan,
    entailment: f64,
    contradiction: f64,
    score: f64,
    best_document_span: DetailSpan,
}

#[derive(Deserialize)]
struct DetailConvRow {
    span: DetailSpan,
    value: f64,
}

#[derive(Deserialize)]
struct DetailWarning {
    kind: String,
    #[serde(default)]
    side: Option<String>,
    #[serde(default)]
    spans: Vec<DetailSpan>,
    #[serde(default)]
    min_chars: Option<usize>,
    #[serde(flatten)]
    rest: serde_json::Map<String, serde_json::Value>,
}

impl DetailWarning {
    /// A readable line for a cut other than the summary's dropped sentences.
    fn describe(&self) -> String {
        let n = |k: &str| self.rest.get(k).and_then(serde_json::Value::as_u64).unwrap_or_default();
        match self.kind.as_str() {
            "chunks_dropped" => format!(
                "{} abstract chunk(s) of {} characters or fewer not used as premises (bytes {})",
                self.spans.len(),
                self.min_chars.unwrap_or(10),
                self.spans.iter().map(|s| format!("{}..{}", s.start, s.end)).collect::<Vec<_>>().join(", ")
            ),
            "document_cut" => {
                format!("abstract cut to its first {} of {} chunks; later evidence is not seen", n("kept"), n("total"))
            }
            "pairs_truncated" => format!(
                "kept summary chunk {}: {} pair(s) cut to {} tokens (up to {} premise and {} hypothesis tokens dropped)",
                n("summary_chunk") + 1,
                n("pairs"),
                n("max_length"),
                n("max_dropped_premise"),
                n("max_dropped_hypothesis")
            ),
            "conv_rows_cut" => {
                format!("SummaC-Conv used the first {} of {} summary sentences", n("used"), n("total"))
            }
            "no_pairs" => format!(
                "no (abstract sentence, summary sentence) pair: {} without a sentence; the score is the reference's \
                 value for an empty image",
                self.rest.get("empty").map_or_else(String::new, ToString::to_string)
            ),
            _ => serde_json::to_string(&self.rest).unwrap_or_default(),
        }
    }
}

#[cfg(feature = "summac")]
mod imp {
    use std::collections::HashMap;
    use std::hash::{Hash, Hasher};
    use std::sync::{Arc, Mutex, OnceLock, Weak};

    use factpico_summac::{ConvHead, Cuts, Granularities, Image, Limits, Summac, SummacConfig, SummacOptions, ZsOptions};

    use super::{SUMMAC_CONV, SUMMAC_ZS};
    use crate::metric::{Metric, MetricInfo, MetricOutput, Pair};
    use crate::session::RuntimeOptions;
    use crate::units::onnx::resolve_model_dir;
    use crate::{Error, Result};

    /// The model and the images of the last batch, shared by the unit's two metrics.
    struct Shared {
        summac: Summac,
        /// Hash of the last batch's rows and its images, kept while the other metric of the
        /// unit has not read them.
        last: Mutex<Option<(u64, Arc<Vec<Image>>)>>,
    }

    impl Shared {
        fn images(self: &Arc<Self>, pairs: &[Pair<'_>]) -> factpico_summac::Result<Arc<Vec<Image>>> {
            let mut h = std::collections::hash_map::DefaultHasher::new();
            for p in pairs {
                (p.source, p.summary).hash(&mut h);
            }
            let key = h.finish();
            let mut last = self.last.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            if let Some((k, imgs)) = last.take() {
                if k == key {
                    return Ok(imgs);
                }
            }
            let rows: Vec<(&str, &str)> = pairs.iter().map(|p| (p.source, p.summary)).collect();
            let imgs = Arc::new(self.summac.images(&rows)?);
            // Another metric of the unit holds the model too: keep the images for it.
            if Arc::strong_count(self) > 1 {
                *last = Some((key, Arc::clone(&imgs)));
            }
            Ok(imgs)
        }
    }

    /// Models already loaded, by their settings: the unit's two metrics share one.
    fn shared(key: String, load: impl FnOnce() -> Result<Summac>) -> Result<Arc<Shared>> {
        static LOADED: OnceLock<Mutex<HashMap<String, Weak<Shared>>>> = OnceLock::new();
        let mut map = LOADED.get_or_init(Default::default).lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        map.retain(|_, w| w.strong_count() > 0);
        if let Some(s) = map.get(&key).and_then(Weak::upgrade) {
            return Ok(s);
        }
        let s = Arc::new(Shared { summac: load()?, last: Mutex::new(None) });
        map.insert(key, Arc::downgrade(&s));
        Ok(s)
    }

    /// Builds `summac_zs` or `summac_conv`: model directory (default
    /// `$FACTPICO_HOME/models/summac-vitc`), granularity, cuts, label indices, batch size,
    /// threads, device; Conv weights (default: the released ones).
    pub(super) fn build(
        metric: &'static MetricInfo,
        options: &SummacConfig,
        runtime: &RuntimeOptions,
    ) -> Result<Box<dyn Metric>> {
        let name = metric.name;
        let dir = resolve_model_dir(name, "summac.model", options.model.as_deref(), "summac-vitc")?;
        let mut o = SummacOptions {
            granularity: Granularities {
                document: options.document_granularity.unwrap_or(options.granularity),
                summary: options.granularity,
            },
            limits: match options.cuts {
                Cuts::Reference => Limits::reference(),
                Cuts::Lifted => Limits::lifted(),
            },
            entailment_index: options.entailment_index,
            contradiction_index: options.contradiction_index,
            session: runtime.session(),
            threads: runtime.threads.unwrap_or(0),
            ..SummacOptions::default()
        };
        if let Some(b) = runtime.batch_size {
            o.batch_size = b;
        }
        let key = format!("{:?}", (std::fs::canonicalize(&dir).unwrap_or_else(|_| dir.clone()), &o));
        let shared = shared(key, || Summac::try_new(&dir, o.clone()).map_err(|e| Error::init(name, e)))?;
        let s = &shared.summac;
        let sha = s.model_sha256().map_err(|e| Error::init(name, e))?.to_owned();
        let mut provenance = serde_json::json!({
            "reference": super::REFERENCE,
            "model_dir": dir,
            "model_sha256": sha,
            "architecture": s.manifest().architecture,
            "granularity": s.granularity().to_string(),
            "limits": s.limits(),
            "max_pair_tokens": s.max_length(),
            "label_indices": {"entailment": s.label_indices()[0], "contradiction": s.label_indices()[1]},
        });
        let kind = if metric.name == SUMMAC_ZS.name {
            let zs = ZsOptions { op1: options.zs_op1, op2: options.zs_op2, labels: options.zs_labels };
            provenance["zs"] = serde_json::json!(zs);
            Kind::Zs(zs)
        } else {
            let head = match &options.conv_weights {
                Some(p) => ConvHead::from_file(p),
                None => ConvHead::released_vitc(),
            }
            .map_err(|e| Error::init(name, e))?;
            provenance["conv"] = serde_json::json!({
                "weights": options.conv_weights.as_ref().map_or_else(|| "released (embedded)".to_owned(), |p| p.display().to_string()),
                "source": head.source(),
                "bins": head.bins_name(),
                "nli_labels": head.nli_labels(),
                "agg": head.agg(),
                "trained_for": head.models(),
            });
            Kind::Conv(Box::new(head))
        };
        Ok(Box::new(SummacMetric { info: metric, shared, kind, provenance }))
    }

    enum Kind {
        Zs(ZsOptions),
        Conv(Box<ConvHead>),
    }

    struct SummacMetric {
        info: &'static MetricInfo,
        shared: Arc<Shared>,
        kind: Kind,
        provenance: serde_json::Value,
    }

    fn to_output<W: ToString>(
        column: &str,
        score: Option<f64>,
        null: Option<String>,
        warnings: &[W],
        detail: serde_json::Value,
    ) -> MetricOutput {
        let mut out = MetricOutput::default();
        out.set_score(column, score, null, None);
        out.warnings = warnings.iter().map(ToString::to_string).collect();
        out.detail = Some(detail);
        out
    }

    impl SummacMetric {
        fn output(&self, img: &Image) -> MetricOutput {
            match &self.kind {
                Kind::Zs(o) => {
                    let z = o.score(img);
                    let detail = serde_json::to_value(&z).unwrap_or_default();
                    to_output(SUMMAC_ZS.name, z.score, z.null_reason.map(|r| r.to_string()), &z.warnings, detail)
                }
                Kind::Conv(h) => {
                    let c = h.score(img, self.shared.summac.limits());
                    let detail = serde_json::to_value(&c).unwrap_or_default();
                    to_output(SUMMAC_CONV.name, c.score, c.null_reason.map(|r| r.to_string()), &c.warnings, detail)
                }
            }
        }
    }

    impl Metric for SummacMetric {
        fn info(&self) -> &'static MetricInfo {
            self.info
        }

        fn provenance(&self) -> serde_json::Value {
            self.provenance.clone()
        }

        fn score(&self, pair: &Pair<'_>) -> Result<MetricOutput> {
            let mut v = self.score_batch(std::slice::from_ref(pair))?;
            v.pop().unwrap_or_else(|| Err(Error::metric(self.info.name, "no output")))
        }

        /// All (abstract sentence, summary sentence) pairs of all rows go through the model
        /// together; the unit's other metric reuses the images of the same batch.
        fn score_batch(&self, pairs: &[Pair<'_>]) -> Result<Vec<Result<MetricOutput>>> {
            let imgs = self.shared.images(pairs).map_err(|e| Error::metric(self.info.name, e))?;
            Ok(imgs.iter().map(|img| Ok(self.output(img))).collect())
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]
    use super::*;

    /// The explanation is built from the detail JSON alone, cut sentences noted.
    #[test]
    fn explanation_from_details_alone() {
        let zs = serde_json::json!({
            "score": 0.2, "null_reason": null,
            "chunks": [{"span": {"start": 10, "end": 40}, "entailment": 0.9, "contradiction": 0.1, "score": 0.8,
                        "best_document_chunk": 2, "best_document_span": {"start": 100, "end": 150}}],
            "warnings": [{"kind": "chunks_dropped", "side": "summary", "spans": [{"start": 0, "end": 9}], "min_chars": 10},
                         {"kind": "document_cut", "kept": 100, "total": 120}]
        });
        let blocks = Summac::explain(&SUMMAC_ZS, &zs);
        let ExplainBlock::SentenceSupport { sentences, .. } = &blocks[0] else { panic!("{blocks:?}") };
        assert_eq!(sentences.len(), 2);
        assert!(sentences[0].note.as_deref().unwrap_or_default().contains("not scored"));
        assert_eq!(sentences[1].evidence, TextSpan::new(Side::Source, 100, 150));
        let ExplainBlock::Table { rows, .. } = &blocks[1] else { panic!("{blocks:?}") };
        assert_eq!(rows[0], ("document_cut".to_owned(), "abstract cut to its first 100 of 120 chunks; later evidence is not seen".to_owned()));
        let conv = serde_json::json!({
            "score": 0.4, "null_reason": null,
            "rows": [{"span": {"start": 0, "end": 20}, "histogram": [1, 0], "value": -0.3}],
            "unused": [{"start": 21, "end": 40}],
            "warnings": [{"kind": "conv_rows_cut", "used": 1, "total": 2}]
        });
        let blocks = Summac::explain(&SUMMAC_CONV, &conv);
        let ExplainBlock::SentenceSupport { sentences, .. } = &blocks[0] else { panic!("{blocks:?}") };
        assert_eq!(sentences.len(), 2);
        assert!(sentences[1].note.as_deref().unwrap_or_default().contains("not used"));
    }
}
