//! [`Scorer`]: the configured set of metrics, applied to (source, summary) pairs.

use std::path::PathBuf;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::metric::{metric_info, metric_names, Metric, MetricOutput, Pair, Texts};
use crate::report::{Report, Sentences, Warning, SCHEMA_VERSION};
use crate::{Error, Result};

/// Options of a [`Scorer`]: which metrics, and each metric's options.
///
/// Serialisable: the options are recorded in every output row's provenance.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ScorerOptions {
    /// Metric names (see [`crate::registry`]); default `["rougeL", "fkgl"]` (the model-free ones).
    pub metrics: Vec<String>,
    /// ROUGE options (default: Porter stemming on, as rouge-score's `use_stemmer=True`).
    pub rouge: factpico_rouge::RougeOptions,
    /// Readability options (default: the textstat 0.7.3 family).
    pub readability: factpico_readability::ReadabilityOptions,
    /// Record the Punkt sentence spans of both texts in each report (default true).
    pub sentence_spans: bool,
    /// Options of the model-based metrics (used only when those metrics are requested).
    pub models: ModelOptions,
}

impl Default for ScorerOptions {
    fn default() -> Self {
        Self {
            metrics: vec!["rougeL".into(), "fkgl".into()],
            rouge: Default::default(),
            readability: Default::default(),
            sentence_spans: true,
            models: ModelOptions::default(),
        }
    }
}

/// Options of the model-based metrics. Present in every build so configurations
/// are portable; using them without the matching cargo feature is an
/// [`Error::FeatureDisabled`].
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ModelOptions {
    /// AlignScore (or NLI) model directory (feature `alignscore`).
    pub alignscore_model: Option<PathBuf>,
    /// AlignScore evaluation mode (`nli_sp` default, `bin_sp`, `reg_sp`, `nli`, `bin`, `reg`).
    pub alignscore_mode: Option<String>,
    /// AlignScore: whitespace words per intended context chunk (default 350, the
    /// reference's). Lower it for models shorter than 512 tokens, so that fewer chunks are
    /// truncated (counted in the row's warnings).
    pub alignscore_words_per_chunk: Option<usize>,
    /// DAE: an exported DAE-2021 ELECTRA arc model directory (feature `dae`).
    pub dae_model: Option<PathBuf>,
    /// DAE: an NLI cross-encoder directory for the zero-shot DAE-style variant (feature `dae`).
    pub dae_nli_model: Option<PathBuf>,
    /// DAE: pre-parsed arcs keyed by row id (`.conllu` CoNLL-U, `.jsonl` JSON arcs / CoreNLP JSON).
    pub dae_arcs: Option<PathBuf>,
    /// DAE: where arcs come from: `spacy` (sidecar, default without `dae_arcs`) or `conllu` /
    /// `json` (read from `dae_arcs`).
    pub dae_parser: Option<String>,
    /// DAE: `per-sentence` (default: every sentence parsed, up to 20 arcs each) or
    /// `single-parse` (reference-exact: one parse, first 20 arcs).
    pub dae_multi_sentence: Option<String>,
    /// QuestEval: T5 question-generation model directory (`onnx/export_seq2seq.py --qg-prefix sv1`).
    pub questeval_qg_model: Option<PathBuf>,
    /// QuestEval: T5 QA model directory with an "unanswerable" token (`--role qa`).
    pub questeval_qa_model: Option<PathBuf>,
    /// QuestEval: BERTScore token-embedding model directory (`onnx/export_embedding.py`;
    /// reference: `bert-base-multilingual-cased` layer 9). With it the `questeval`,
    /// `questeval_precision` and `questeval_recall` columns are computed (the reference's
    /// three components); without it they are null and only `questeval_f1*` are computed.
    pub bertscore_model: Option<PathBuf>,
    /// QAFactEval: BART question-generation model directory (`<m> … </m>` answer markers).
    pub qafacteval_qg_model: Option<PathBuf>,
    /// QAFactEval: LERC-QuIP regressor directory (`onnx/export_hf.py` on `quip-512-mocha`).
    /// With it the `qafacteval_lerc` (raw, ≈ 0–5) and `qafacteval_lerc_norm` (`[0, 1]`)
    /// columns are computed; without it they are null.
    pub lerc_model: Option<PathBuf>,
    /// QAFactEval and cloze: extractive (span) QA model directory (`onnx/export_qa.py`).
    pub extractive_qa_model: Option<PathBuf>,
    /// QA metrics: answer selection `auto` (default: spaCy sidecar when its Python is found,
    /// else rules), `spacy` or `rules` (pure Rust; no Python).
    pub qa_answers: Option<String>,
    /// Maximum pair length in tokens for AlignScore / NLI models (default: the model
    /// manifest's; use 256 for the shared MiniLM NLI asset, which was trained on 256).
    pub max_length: Option<usize>,
    /// Pairs per ONNX batch (default per metric).
    pub batch_size: Option<usize>,
    /// ONNX Runtime intra-op threads (default: all cores).
    pub threads: Option<usize>,
}

/// Applies the configured metrics to (source, summary) pairs.
///
/// Policy for degenerate input (documented null, not an error): when the source
/// or the summary is empty or whitespace-only, every column that depends on that text
/// ([`crate::Texts`]: all columns of both texts, such as ROUGE, ΔFK and the factuality
/// metrics, and the columns of that text alone, such as `fkgl_source`) is `null` with the
/// reason `"empty source"` / `"empty summary"`; when it has no alphanumeric character at
/// all (e.g. only punctuation), the reason is `"source has no words"` / `"summary has no
/// words"`. Columns of the other text alone keep their values (`fkgl_summary` of a row
/// with an empty abstract). A metric runs on such a pair only when it has columns of the
/// other text alone (the references return artefacts on degenerate text: textstat 0.7.3
/// gives −15.7, AlignScore NaN, DAE crashes), and its columns of the degenerate text are
/// then replaced by the null.
pub struct Scorer {
    metrics: Vec<Box<dyn Metric>>,
    options: ScorerOptions,
    provenance: serde_json::Value,
}

impl std::fmt::Debug for Scorer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Scorer").field("options", &self.options).finish_non_exhaustive()
    }
}

impl Scorer {
    /// Builds the metrics named in `options.metrics`.
    ///
    /// # Errors
    /// [`Error::UnknownMetric`] for a name not in the registry,
    /// [`Error::FeatureDisabled`] for a metric not compiled in,
    /// [`Error::MissingOption`] / [`Error::Init`] when a model cannot be loaded.
    pub fn try_new(options: ScorerOptions) -> Result<Self> {
        let mut metrics: Vec<Box<dyn Metric>> = Vec::new();
        let mut seen = std::collections::BTreeSet::new();
        for name in &options.metrics {
            let info = metric_info(name).ok_or_else(|| Error::UnknownMetric {
                name: name.clone(),
                available: metric_names(),
            })?;
            if !seen.insert(info.name) {
                continue;
            }
            metrics.push(crate::builtin::build(info, &options)?);
        }
        let models: serde_json::Map<String, serde_json::Value> =
            metrics.iter().map(|m| (m.info().name.to_owned(), m.provenance())).collect();
        let provenance = serde_json::json!({
            "engine": format!("factpico {}", crate::VERSION),
            "schema_version": SCHEMA_VERSION,
            "options": serde_json::to_value(&options).unwrap_or(serde_json::Value::Null),
            "metrics": models,
        });
        Ok(Self { metrics, options, provenance })
    }

    /// The options this scorer was built with.
    pub fn options(&self) -> &ScorerOptions {
        &self.options
    }

    /// The provenance object recorded in every report.
    pub fn provenance(&self) -> &serde_json::Value {
        &self.provenance
    }

    /// Names of all output columns, in metric order.
    pub fn columns(&self) -> Vec<&'static str> {
        self.metrics.iter().flat_map(|m| m.info().columns.iter().map(|c| c.name)).collect()
    }

    /// The metrics, in the requested order.
    pub fn metrics(&self) -> impl Iterator<Item = &dyn Metric> {
        self.metrics.iter().map(|m| m.as_ref())
    }

    /// Scores one pair (id and system left empty).
    pub fn score(&self, source: &str, summary: &str) -> Report {
        self.score_batch(&[(source, summary)]).pop().unwrap_or_default()
    }

    /// Scores many (source, summary) pairs, in parallel where metrics allow;
    /// one report per pair, in order (ids left empty).
    pub fn score_batch(&self, pairs: &[(&str, &str)]) -> Vec<Report> {
        let rows: Vec<Pair<'_>> = pairs.iter().map(|&(source, summary)| Pair { id: "", source, summary }).collect();
        self.score_pairs(&rows)
    }

    /// Scores many identified pairs; one report per pair, in order, with `id` set
    /// (empty ids stay `None`). Metrics with per-row side inputs (DAE's
    /// pre-parsed arcs) find them by id.
    pub fn score_pairs(&self, pairs: &[Pair<'_>]) -> Vec<Report> {
        let mut reports: Vec<Report> = pairs
            .par_iter()
            .map(|&Pair { id, source, summary }| Report {
                id: (!id.is_empty()).then(|| id.to_owned()),
                sentences: self
                    .options
                    .sentence_spans
                    .then(|| sentences(source, summary)),
                provenance: self.provenance.clone(),
                ..Report::default()
            })
            .collect();
        // Pairs that every metric can score (non-empty on both sides), and the degenerate
        // ones with why each side cannot be scored.
        let mut live: Vec<usize> = Vec::with_capacity(pairs.len());
        let mut partial: Vec<(usize, Option<&'static str>, Option<&'static str>)> = Vec::new();
        for (i, p) in pairs.iter().enumerate() {
            let (src, sum) = (degenerate(p.source, "source"), degenerate(p.summary, "summary"));
            if src.is_none() && sum.is_none() {
                live.push(i);
                continue;
            }
            partial.push((i, src, sum));
            let reasons: Vec<&str> = [src, sum].into_iter().flatten().collect();
            reports[i].warnings.push(Warning {
                metric: "input".into(),
                message: format!("{}: the columns that need this text are null", reasons.join(", ")),
            });
        }
        let live_pairs: Vec<Pair<'_>> = live.iter().map(|&i| pairs[i]).collect();
        for m in &self.metrics {
            let outs = m.score_batch(&live_pairs);
            for (&i, out) in live.iter().zip(outs) {
                merge(&mut reports[i], m.info().name, out);
            }
            for &(i, src, sum) in &partial {
                let info = m.info();
                // Why a column cannot be computed on this pair, if it cannot.
                let null_reason = |texts: Texts| match texts {
                    Texts::Both => src.or(sum),
                    Texts::Source => src,
                    Texts::Summary => sum,
                };
                let computable = info.columns.iter().any(|c| null_reason(c.texts).is_none());
                let mut out = if computable {
                    m.score_batch(&pairs[i..=i]).pop().unwrap_or_else(|| Ok(MetricOutput::default()))
                } else {
                    Ok(MetricOutput::default())
                };
                if let Ok(o) = &mut out {
                    for c in info.columns {
                        if let Some(r) = null_reason(c.texts) {
                            o.set_null(c.name, r);
                        }
                    }
                    if info.columns.iter().all(|c| null_reason(c.texts).is_some()) {
                        o.detail = None;
                        o.warnings.clear();
                    }
                }
                merge(&mut reports[i], info.name, out);
            }
        }
        reports
    }
}

/// Why a text cannot be scored, if it cannot.
fn degenerate(text: &str, side: &'static str) -> Option<&'static str> {
    if text.trim().is_empty() {
        Some(if side == "source" { "empty source" } else { "empty summary" })
    } else if !text.chars().any(char::is_alphanumeric) {
        Some(if side == "source" { "source has no words" } else { "summary has no words" })
    } else {
        None
    }
}

fn sentences(source: &str, summary: &str) -> Sentences {
    let spans = |t: &str| -> Vec<[usize; 2]> {
        factpico_text::Punkt::english().span_tokenize(t).into_iter().map(|s| [s.start, s.end]).collect()
    };
    Sentences { source: spans(source), summary: spans(summary) }
}

fn merge(report: &mut Report, metric: &str, out: Result<MetricOutput>) {
    match out {
        Ok(out) => {
            report.scores.extend(out.scores);
            report.nulls.extend(out.nulls);
            if let Some(d) = out.detail {
                report.details.insert(metric.to_owned(), d);
            }
            report.warnings.extend(
                out.warnings.into_iter().map(|message| Warning { metric: metric.to_owned(), message }),
            );
        }
        Err(e) => {
            if let Some(info) = metric_info(metric) {
                let null = MetricOutput::all_null(info, "metric failed (see errors)");
                report.scores.extend(null.scores);
                report.nulls.extend(null.nulls);
            }
            report.errors.push(Warning { metric: metric.to_owned(), message: e.to_string() });
        }
    }
}
