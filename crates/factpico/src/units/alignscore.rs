//! Unit `alignscore`: AlignScore (metric `alignscore`; cargo feature `alignscore`): summary
//! sentences against Punkt chunks of the abstract, max over chunks, mean over sentences.

use factpico_alignscore::AlignScoreConfig;
use serde::Deserialize;

use super::MetricUnit;
use crate::explain::{ExplainBlock, SentenceSupport, Side, TextSpan};
use crate::metric::{ColumnInfo, Direction, Metric, MetricInfo};
use crate::session::RuntimeOptions;
use crate::Result;

/// AlignScore registry entry.
pub static ALIGNSCORE: MetricInfo = MetricInfo::new(
    "alignscore",
    "AlignScore: summary sentences vs Punkt chunks of the abstract; max over chunks, mean over sentences",
    "yuh-zha/AlignScore a0936d5, src/alignscore/inference.py (nli_sp default; bin_sp, reg_sp, nli, bin, reg)",
    &[ColumnInfo::new(
        "alignscore",
        "AlignScore (nli_sp: mean over summary sentences of max over chunks of P(aligned)); reg modes are unbounded",
        Direction::HigherIsBetter,
    )
    .range(Some(0.0), Some(1.0))
    .primary()],
)
.model("alignscore");

/// The `alignscore` unit.
pub struct AlignScore;

impl MetricUnit for AlignScore {
    type Options = AlignScoreConfig;
    const METRICS: &'static [&'static MetricInfo] = &[&ALIGNSCORE];
    const COMPILED_IN: bool = cfg!(feature = "alignscore");

    fn build(
        metric: &'static MetricInfo,
        options: &AlignScoreConfig,
        runtime: &RuntimeOptions,
    ) -> Result<Box<dyn Metric>> {
        #[cfg(feature = "alignscore")]
        {
            let _ = metric;
            imp::build(options, runtime)
        }
        #[cfg(not(feature = "alignscore"))]
        {
            let _ = (options, runtime);
            Err(super::feature_disabled(metric))
        }
    }

    /// Split modes: one [`SentenceSupport`] per summary sentence with its best chunk as
    /// evidence. Non-split modes: the whole context as one chunk.
    fn explain(_metric: &'static MetricInfo, detail: &serde_json::Value) -> Vec<ExplainBlock> {
        let Ok(d) = serde_json::from_value::<Detail>(detail.clone()) else {
            return crate::explain::generic(detail);
        };
        let chunk = |i: usize| d.chunks.get(i).and_then(|c| TextSpan::new(Side::Source, c.span.start, c.span.end));
        let sentences: Vec<SentenceSupport> = d
            .sentences
            .iter()
            .map(|s| SentenceSupport {
                span: TextSpan::new(Side::Summary, s.span.start, s.span.end),
                score: Some(s.score),
                label: None,
                evidence: chunk(s.best_chunk),
                evidence_score: None,
                note: None,
            })
            .collect();
        let mut blocks = Vec::new();
        if !sentences.is_empty() {
            blocks.push(ExplainBlock::SentenceSupport {
                title: format!("{}: summary sentences, max over {} abstract chunks", d.mode, d.chunks.len()),
                sentences,
            });
        } else {
            blocks.push(ExplainBlock::Table {
                title: format!("{}: whole abstract vs whole summary", d.mode),
                rows: vec![("chunks".into(), d.chunks.len().to_string())],
            });
        }
        blocks
    }
}

/// The part of `factpico_alignscore::AlignScoreOutput`'s JSON the explanation reads.
#[derive(Deserialize)]
struct Detail {
    mode: String,
    #[serde(default)]
    sentences: Vec<DetailSentence>,
    #[serde(default)]
    chunks: Vec<DetailChunk>,
}

#[derive(Deserialize)]
struct DetailSpan {
    start: usize,
    end: usize,
}

#[derive(Deserialize)]
struct DetailSentence {
    span: DetailSpan,
    score: f64,
    best_chunk: usize,
}

#[derive(Deserialize)]
struct DetailChunk {
    span: DetailSpan,
}

#[cfg(feature = "alignscore")]
mod imp {
    use factpico_alignscore::{AlignScore, AlignScoreOptions, AlignScoreOutput};

    use super::{AlignScoreConfig, ALIGNSCORE};
    use crate::metric::{Metric, MetricInfo, MetricOutput, Pair};
    use crate::session::RuntimeOptions;
    use crate::units::onnx::resolve_model_dir;
    use crate::{Error, Result};

    /// Builds AlignScore: model directory (default `$FACTPICO_HOME/models/alignscore-base`),
    /// mode, words per chunk, maximum length, batch size, threads, device.
    pub(super) fn build(options: &AlignScoreConfig, runtime: &RuntimeOptions) -> Result<Box<dyn Metric>> {
        let dir = resolve_model_dir("alignscore", "alignscore.model", options.model.as_deref(), "alignscore-base")?;
        let mut o = AlignScoreOptions {
            mode: options.mode,
            max_length: options.max_length,
            ..AlignScoreOptions::default()
        };
        o.words_per_chunk = options.words_per_chunk;
        if let Some(b) = runtime.batch_size {
            o.batch_size = b;
        }
        o.session = runtime.session();
        o.threads = runtime.threads.unwrap_or(0);
        let scorer = AlignScore::try_new(&dir, o).map_err(|e| Error::init("alignscore", e))?;
        let sha = scorer.model_sha256().map_err(|e| Error::init("alignscore", e))?.to_owned();
        let provenance = serde_json::json!({
            "reference": format!("yuh-zha/AlignScore a0936d5, src/alignscore/inference.py ({})", scorer.mode().as_str()),
            "model_dir": dir,
            "model_sha256": sha,
            "mode": scorer.mode().as_str(),
            "max_length": scorer.max_length(),
            "words_per_chunk": scorer.words_per_chunk(),
            "architecture": scorer.manifest().architecture,
        });
        Ok(Box::new(AlignScoreMetric { scorer, provenance }))
    }

    struct AlignScoreMetric {
        scorer: AlignScore,
        provenance: serde_json::Value,
    }

    fn to_output(o: AlignScoreOutput) -> MetricOutput {
        let mut out = MetricOutput::default();
        out.set_score("alignscore", o.score, o.null_reason.as_ref().map(ToString::to_string), None);
        out.warnings = o.warnings.iter().map(ToString::to_string).collect();
        out.detail = serde_json::to_value(&o).ok();
        out
    }

    impl Metric for AlignScoreMetric {
        fn info(&self) -> &'static MetricInfo {
            &ALIGNSCORE
        }

        fn provenance(&self) -> serde_json::Value {
            self.provenance.clone()
        }

        fn score(&self, pair: &Pair<'_>) -> Result<MetricOutput> {
            self.scorer.score(pair.source, pair.summary).map(to_output).map_err(|e| Error::metric("alignscore", e))
        }

        /// All (chunk, sentence) pairs of all rows go through the model together.
        fn score_batch(&self, pairs: &[Pair<'_>]) -> Result<Vec<Result<MetricOutput>>> {
            let rows: Vec<(&str, &str)> = pairs.iter().map(|p| (p.source, p.summary)).collect();
            let outs = self.scorer.score_batch(&rows).map_err(|e| Error::metric("alignscore", e))?;
            Ok(outs.into_iter().map(|o| Ok(to_output(o))).collect())
        }
    }}
