//! Unit `dae`: DAE-style dependency-arc entailment (metric `dae`; cargo feature `dae`):
//! P(entailed) per summary arc with the DAE-2021 ELECTRA arc model or a zero-shot NLI
//! model; FactPICO takes the minimum.

use factpico_dae::DaeConfig;
use serde::Deserialize;

use super::MetricUnit;
use crate::explain::{Arc, ExplainBlock, Side, TextSpan};
use crate::metric::{ColumnInfo, Direction::HigherIsBetter as Hi, Metric, MetricInfo};
use crate::session::RuntimeOptions;
use crate::Result;

/// DAE registry entry.
pub static DAE: MetricInfo = MetricInfo::new(
    "dae",
    "DAE-style dependency-arc entailment: P(entailed) per summary arc; FactPICO takes the minimum",
    "tagoyal/factuality-datasets 80e1902 train_utils.py (ElectraDependencyModel); FactPICO min aggregation",
    &[
        ColumnInfo::new("dae", "minimum over scored arcs of P(arc entailed by the abstract)", Hi)
            .range(Some(0.0), Some(1.0))
            .primary(),
        ColumnInfo::new("dae_mean", "mean over scored arcs of P(arc entailed)", Hi).range(Some(0.0), Some(1.0)),
        ColumnInfo::new("dae_label", "reference binary label: 1 iff every arc's argmax is 'entailed'", Hi)
            .range(Some(0.0), Some(1.0)),
    ],
)
.model("dae");

/// The `dae` unit.
pub struct Dae;

impl MetricUnit for Dae {
    type Options = DaeConfig;
    const METRICS: &'static [&'static MetricInfo] = &[&DAE];
    const COMPILED_IN: bool = cfg!(feature = "dae");

    fn build(
        metric: &'static MetricInfo,
        options: &DaeConfig,
        runtime: &RuntimeOptions,
    ) -> Result<Box<dyn Metric>> {
        #[cfg(feature = "dae")]
        {
            let _ = metric;
            imp::build(options, runtime)
        }
        #[cfg(not(feature = "dae"))]
        {
            let _ = (options, runtime);
            Err(super::feature_disabled(metric))
        }
    }

    /// The scored arcs, lowest P(entailed) first.
    fn explain(_metric: &'static MetricInfo, detail: &serde_json::Value) -> Vec<ExplainBlock> {
        let Ok(d) = serde_json::from_value::<Detail>(detail.clone()) else {
            return crate::explain::generic(detail);
        };
        let span = |r: &Option<DetailRange>| r.as_ref().and_then(|r| TextSpan::new(Side::Summary, r.start, r.end));
        let mut arcs: Vec<Arc> = d
            .arcs
            .iter()
            .map(|a| Arc {
                relation: a.relation.clone(),
                head: a.head.clone(),
                child: a.child.clone(),
                head_span: span(&a.head_span),
                child_span: span(&a.child_span),
                probability: a.probability,
                entailed: a.entailed,
                hypothesis: a.hypothesis.clone(),
            })
            .collect();
        arcs.sort_by(|a, b| a.probability.unwrap_or(0.0).total_cmp(&b.probability.unwrap_or(0.0)));
        let mut blocks =
            vec![ExplainBlock::Arcs { title: "summary arcs, P(arc entailed by the abstract)".into(), arcs }];
        if d.n_arcs_skipped > 0 || d.truncated_wordpieces > 0 {
            blocks.push(ExplainBlock::Table {
                title: "not scored".into(),
                rows: vec![
                    ("arcs beyond the cap or without wordpieces".into(), d.n_arcs_skipped.to_string()),
                    ("article wordpieces cut".into(), d.truncated_wordpieces.to_string()),
                ],
            });
        }
        blocks
    }
}

/// The part of `factpico_dae::DaeOutput`'s JSON the explanation reads.
#[derive(Deserialize)]
struct Detail {
    #[serde(default)]
    arcs: Vec<DetailArc>,
    #[serde(default)]
    n_arcs_skipped: usize,
    #[serde(default)]
    truncated_wordpieces: usize,
}

#[derive(Deserialize)]
struct DetailRange {
    start: usize,
    end: usize,
}

#[derive(Deserialize)]
struct DetailArc {
    relation: String,
    head: String,
    child: String,
    head_span: Option<DetailRange>,
    child_span: Option<DetailRange>,
    probability: Option<f64>,
    entailed: Option<bool>,
    hypothesis: Option<String>,
}

#[cfg(feature = "dae")]
mod imp {
    use factpico_dae::{Dae, DaeConfig, DaeInput, DaeModel, DaeOptions, DaeOutput, DaeParser};

    use super::DAE;
    use crate::metric::{Metric, MetricInfo, MetricOutput, Pair};
    use crate::session::RuntimeOptions;
    use crate::units::onnx::{check_sidecar, model_sha256};
    use crate::units::onnx::resolve_model_dir;
    use crate::{Error, Result};

    /// Builds DAE: exactly one of `model` (ELECTRA arc model) or `nli_model` (zero-shot NLI);
    /// arcs from `arcs` or the spaCy sidecar.
    pub(super) fn build(m: &DaeConfig, runtime: &RuntimeOptions) -> Result<Box<dyn Metric>> {
        let model = match (&m.model, &m.nli_model) {
            (Some(d), None) => DaeModel::Electra(resolve_model_dir("dae", "dae.model", Some(d), "dae-xsum")?),
            (None, Some(d)) => DaeModel::ZeroShotNli(resolve_model_dir("dae", "dae.nli_model", Some(d), "dae-xsum")?),
            (Some(_), Some(_)) => {
                return Err(Error::init(
                    "dae",
                    "set either `dae.model` (ELECTRA arc model) or `dae.nli_model` (zero-shot NLI), not both",
                ))
            }
            (None, None) => {
                return Err(Error::MissingOption {
                    metric: "dae".into(),
                    what: "a model: `dae.model` (an ELECTRA DAE checkpoint exported with onnx/export_dae.py) or \
                           `dae.nli_model` (any NLI cross-encoder, zero-shot DAE-style variant; see docs/dae.md)"
                        .into(),
                })
            }
        };
        let (DaeModel::Electra(dir) | DaeModel::ZeroShotNli(dir)) = &model;
        let dir = dir.clone();
        let mut o = DaeOptions::new(model.clone());
        match (m.parser, &m.arcs) {
            (None | Some(DaeParser::Spacy), None) => {}
            (None | Some(DaeParser::Conllu | DaeParser::Json), Some(path)) => {
                o.parser = Some(factpico_nlp::open_arcs(path).map_err(|e| Error::init("dae", e))?);
            }
            (Some(DaeParser::Spacy), Some(_)) => {
                return Err(Error::init("dae", "`dae.parser` spacy and `dae.arcs` exclude each other"))
            }
            (Some(p @ (DaeParser::Conllu | DaeParser::Json)), None) => {
                let name = if p == DaeParser::Conllu { "conllu" } else { "json" };
                return Err(Error::init("dae", format!("`dae.parser` {name} needs `dae.arcs`: a file with the pre-parsed arcs")));
            }
        }
        if o.parser.is_none() {
            // Arcs from the spaCy sidecar: fail now, not on every row, when it cannot start.
            check_sidecar("dae", "set `dae.arcs` to a file of pre-parsed arcs")?;
        }
        o.multi_sentence = m.multi_sentence;
        if let Some(b) = runtime.batch_size {
            o.batch_size = b;
        }
        o.session = runtime.session();
        let sha = model_sha256("dae", &dir)?;
        let provenance = serde_json::json!({
            "reference": DAE.reference,
            "model": model,
            "model_sha256": sha,
            "multi_sentence": o.multi_sentence,
            "max_arcs": o.max_arcs,
            "aggregation": "min",
            "arcs": m.arcs.as_ref().map_or_else(|| "spacy sidecar (en_core_web_sm 3.8.0)".to_owned(), |p| p.display().to_string()),
        });
        let dae = Dae::try_new(o).map_err(|e| Error::init("dae", e))?;
        Ok(Box::new(DaeMetric { dae, provenance }))
    }

    struct DaeMetric {
        dae: Dae,
        provenance: serde_json::Value,
    }

    fn to_output(o: DaeOutput) -> MetricOutput {
        let mut out = MetricOutput::default();
        let reason = o.null_reason.map_or_else(
            || "no score".to_owned(),
            |r| serde_json::to_value(r).ok().and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_default(),
        );
        let mut put = |col: &str, v: Option<f64>| match v {
            Some(x) => out.set(col, x),
            None => out.set_null(col, reason.clone()),
        };
        put("dae", o.min);
        put("dae_mean", o.mean);
        put("dae_label", o.label.map(f64::from));
        if o.truncated_wordpieces > 0 {
            out.warnings.push(format!("{} article wordpieces cut to fit the model input", o.truncated_wordpieces));
        }
        if o.n_arcs_skipped > 0 {
            out.warnings.push(format!(
                "{} kept arcs beyond the per-unit cap or without wordpieces were not scored",
                o.n_arcs_skipped
            ));
        }
        out.detail = serde_json::to_value(&o).ok();
        out
    }

    impl Metric for DaeMetric {
        fn info(&self) -> &'static MetricInfo {
            &DAE
        }

        fn provenance(&self) -> serde_json::Value {
            self.provenance.clone()
        }

        fn score(&self, pair: &Pair<'_>) -> Result<MetricOutput> {
            let item = DaeInput { id: pair.id, source: pair.source, summary: pair.summary, arcs: None };
            let mut v = self.dae.score_batch(std::slice::from_ref(&item)).map_err(|e| Error::metric("dae", e))?;
            v.pop().map(to_output).ok_or_else(|| Error::metric("dae", "no output"))
        }

        /// Parses every summary of the batch in one sidecar request and batches the model runs.
        fn score_batch(&self, pairs: &[Pair<'_>]) -> Result<Vec<Result<MetricOutput>>> {
            let items: Vec<DaeInput<'_>> =
                pairs.iter().map(|p| DaeInput { id: p.id, source: p.source, summary: p.summary, arcs: None }).collect();
            let outs = self.dae.score_batch(&items).map_err(|e| Error::metric("dae", e))?;
            Ok(outs.into_iter().map(|o| Ok(to_output(o))).collect())
        }
    }
}
