//! AlignScore through the [`Metric`] trait (feature `alignscore`).

use factpico_alignscore::{AlignScore, AlignScoreOptions, AlignScoreOutput, Mode};

use crate::metric::{Metric, MetricInfo, MetricOutput, Pair};
use crate::neural::{default_model_dir, init_error, ALIGNSCORE};
use crate::{Error, Result, ScorerOptions};

/// Builds AlignScore from `options.models`: model directory (default
/// `$FACTPICO_HOME/models/alignscore-base`), mode, batch size, threads.
pub(super) fn build(options: &ScorerOptions) -> Result<Box<dyn Metric>> {
    let m = &options.models;
    let dir = m.alignscore_model.clone().unwrap_or_else(|| default_model_dir("alignscore-base"));
    if !dir.exists() {
        return Err(Error::MissingOption {
            metric: "alignscore".into(),
            what: format!(
                "a model directory: {} does not exist. Pass --alignscore-model DIR (an exported AlignScore \
                 checkpoint or any NLI cross-encoder directory), or run `cargo xtask models alignscore-base` \
                 where the model hub is reachable (see docs/alignscore.md)",
                dir.display()
            ),
        });
    }
    let mut o = AlignScoreOptions::default();
    if let Some(mode) = &m.alignscore_mode {
        o.mode = mode.parse::<Mode>().map_err(|e| init_error("alignscore", e))?;
    }
    if let Some(b) = m.batch_size {
        o.batch_size = b;
    }
    o.max_length = m.max_length;
    if let Some(w) = m.alignscore_words_per_chunk {
        o.words_per_chunk = w;
    }
    if let Some(t) = m.threads {
        o.threads = t;
    }
    let scorer = AlignScore::try_new(&dir, o).map_err(|e| init_error("alignscore", e))?;
    let sha = scorer.model_sha256().map_err(|e| init_error("alignscore", e))?.to_owned();
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
    match o.score {
        Some(v) if v.is_finite() => out.set("alignscore", v),
        Some(_) => out.set_null("alignscore", "non-finite model output"),
        None => out.set_null(
            "alignscore",
            o.null_reason.map_or_else(|| "no score".to_owned(), |r| r.to_string()),
        ),
    }
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

    fn score(&self, source: &str, summary: &str) -> Result<MetricOutput> {
        self.scorer
            .score(source, summary)
            .map(to_output)
            .map_err(|e| Error::Metric { metric: "alignscore".into(), message: e.to_string() })
    }

    /// All (chunk, sentence) pairs of all rows go through the model together.
    fn score_batch(&self, pairs: &[Pair<'_>]) -> Vec<Result<MetricOutput>> {
        let rows: Vec<(&str, &str)> = pairs.iter().map(|p| (p.source, p.summary)).collect();
        match self.scorer.score_batch(&rows) {
            Ok(outs) => outs.into_iter().map(|o| Ok(to_output(o))).collect(),
            // A batch failure: retry row by row so one bad row does not take the others down.
            Err(_) => pairs.iter().map(|p| self.score(p.source, p.summary)).collect(),
        }
    }
}
