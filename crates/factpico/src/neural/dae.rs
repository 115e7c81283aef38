//! DAE-style arc entailment through the [`Metric`] trait (feature `dae`).

use factpico_dae::{Dae, DaeInput, DaeModel, DaeOptions, DaeOutput, MultiSentence};

use crate::metric::{Metric, MetricInfo, MetricOutput, Pair};
use crate::neural::{init_error, DAE};
use crate::{Error, Result, ScorerOptions};

/// Builds DAE from `options.models`: exactly one of `dae_model` (ELECTRA arc model) or
/// `dae_nli_model` (zero-shot NLI); arcs from `dae_arcs` or the spaCy sidecar.
pub(super) fn build(options: &ScorerOptions) -> Result<Box<dyn Metric>> {
    let m = &options.models;
    let model = match (&m.dae_model, &m.dae_nli_model) {
        (Some(d), None) => DaeModel::Electra(d.clone()),
        (None, Some(d)) => DaeModel::ZeroShotNli(d.clone()),
        (Some(_), Some(_)) => {
            return Err(init_error("dae", "give either --dae-model (ELECTRA arc model) or --dae-nli-model (zero-shot NLI), not both"))
        }
        (None, None) => {
            return Err(Error::MissingOption {
                metric: "dae".into(),
                what: "a model: --dae-model DIR (an ELECTRA DAE checkpoint exported with onnx/export_dae.py) or \
                       --dae-nli-model DIR (any NLI cross-encoder, zero-shot DAE-style variant; see docs/dae.md)"
                    .into(),
            })
        }
    };
    let (DaeModel::Electra(dir) | DaeModel::ZeroShotNli(dir)) = &model;
    if !dir.exists() {
        return Err(init_error("dae", format!("model directory {} does not exist", dir.display())));
    }
    let mut o = DaeOptions::new(model.clone());
    match (m.dae_parser.as_deref(), &m.dae_arcs) {
        (None | Some("spacy"), None) => {}
        (None | Some("conllu" | "json"), Some(path)) => {
            o.parser = Some(factpico_nlp::open_arcs(path).map_err(|e| init_error("dae", e))?);
        }
        (Some("spacy"), Some(_)) => return Err(init_error("dae", "--parser spacy and --arcs FILE exclude each other")),
        (Some(p @ ("conllu" | "json")), None) => {
            return Err(init_error("dae", format!("--parser {p} needs --arcs FILE with the pre-parsed arcs")))
        }
        (Some(other), _) => return Err(init_error("dae", format!("unknown parser {other:?} (spacy, conllu, json)"))),
    }
    if o.parser.is_none() {
        // Arcs from the spaCy sidecar: fail now, not on every row, when it cannot start.
        let sidecar = factpico_nlp::sidecar::SpacySidecar::new(factpico_nlp::sidecar::SidecarConfig::default());
        let python = sidecar.resolve_python().map_err(|e| init_error("dae", e))?;
        if !python.exists() {
            return Err(init_error("dae", format!("the spaCy sidecar interpreter {} does not exist; run `cargo xtask sidecar` or pass --arcs FILE", python.display())));
        }
    }
    if let Some(ms) = m.dae_multi_sentence.as_deref() {
        o.multi_sentence = match ms {
            "per-sentence" => MultiSentence::PerSentence,
            "single-parse" => MultiSentence::SingleParse,
            other => return Err(init_error("dae", format!("unknown multi-sentence mode {other:?} (per-sentence, single-parse)"))),
        };
    }
    if let Some(b) = m.batch_size {
        o.batch_size = b;
    }
    if let Some(t) = m.threads {
        o.session = o.session.intra_threads(t);
    }
    let sha = factpico_runtime::ModelDir::open(dir)
        .and_then(|d| d.model_sha256().map(str::to_owned))
        .map_err(|e| init_error("dae", e))?;
    let provenance = serde_json::json!({
        "reference": DAE.reference,
        "model": model,
        "model_sha256": sha,
        "multi_sentence": o.multi_sentence,
        "max_arcs": o.max_arcs,
        "aggregation": "min",
        "arcs": m.dae_arcs.as_ref().map_or_else(|| "spacy sidecar (en_core_web_sm 3.8.0)".to_owned(), |p| p.display().to_string()),
    });
    let dae = Dae::try_new(o).map_err(|e| init_error("dae", e))?;
    Ok(Box::new(DaeMetric { dae, provenance }))
}

struct DaeMetric {
    dae: Dae,
    provenance: serde_json::Value,
}

fn to_output(o: DaeOutput) -> MetricOutput {
    let mut out = MetricOutput::default();
    let reason = o.null_reason.map_or_else(|| "no score".to_owned(), |r| {
        serde_json::to_value(r).ok().and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_default()
    });
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
        out.warnings.push(format!("{} kept arcs beyond the per-unit cap or without wordpieces were not scored", o.n_arcs_skipped));
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

    fn score(&self, source: &str, summary: &str) -> Result<MetricOutput> {
        self.score_batch(&[Pair { id: "", source, summary }])
            .pop()
            .unwrap_or_else(|| Err(Error::Metric { metric: "dae".into(), message: "no output".into() }))
    }

    /// Parses every summary of the batch in one sidecar request and batches the model runs.
    fn score_batch(&self, pairs: &[Pair<'_>]) -> Vec<Result<MetricOutput>> {
        let items: Vec<DaeInput<'_>> =
            pairs.iter().map(|p| DaeInput { id: p.id, source: p.source, summary: p.summary, arcs: None }).collect();
        match self.dae.score_batch(&items) {
            Ok(outs) => outs.into_iter().map(|o| Ok(to_output(o))).collect(),
            Err(batch_err) if pairs.len() > 1 => items
                .iter()
                .map(|it| {
                    self.dae
                        .score_batch(std::slice::from_ref(it))
                        .map_err(|e| Error::Metric { metric: "dae".into(), message: e.to_string() })
                        .and_then(|mut v| {
                            v.pop().map(to_output).ok_or_else(|| Error::Metric {
                                metric: "dae".into(),
                                message: format!("no output (batch error: {batch_err})"),
                            })
                        })
                })
                .collect(),
            Err(e) => vec![Err(Error::Metric { metric: "dae".into(), message: e.to_string() })],
        }
    }
}
