//! SummaC-Conv (`SummaCConv.compute_histogram` / `forward` / `score`,
//! `model_summac.py:209-333`): per summary chunk, a histogram of the document chunks'
//! probabilities (`np.histogram` over fixed bin edges), one learned linear filter over the
//! histogram (the "1-D convolution" of the paper), an aggregate over the first `n_rows`
//! summary chunks, a final `Linear(3 → 2)` and `softmax[1]`.
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::image::{Image, Limits, Warning};
use crate::zs::NullReason;
use crate::{Error, Result, Span};

/// The weight-file format tag (`onnx/export_summac.py conv` writes it).
pub const CONV_FORMAT: &str = "factpico-summac-conv";
/// The weight-file format version.
pub const CONV_FORMAT_VERSION: u32 = 1;

/// The reference's `bins='percentile'` edges (`model_summac.py:226-230`), used by the
/// released `summac_conv_vitc_sent_perc_e.bin`.
pub const PERCENTILE_BINS: [f64; 24] = [
    0.0, 0.01, 0.02, 0.03, 0.04, 0.07, 0.13, 0.37, 0.90, 0.91, 0.92, 0.93, 0.94, 0.95, 0.955, 0.96, 0.965, 0.97, 0.975,
    0.98, 0.985, 0.99, 0.995, 1.0,
];

/// The reference's `bins='even<n>'` edges: `list(np.arange(0, 1, 1/n)) + [1.0]`.
pub fn even_bins(n: usize) -> Vec<f64> {
    let step = 1.0 / n as f64;
    let mut v: Vec<f64> = (0..).map(|i| f64::from(i) * step).take_while(|&x| x < 1.0).collect();
    v.push(1.0);
    v
}

/// How the per-row filter outputs are aggregated into the 3 features of the final layer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ConvAgg {
    /// `[mean, mean, mean]` (the released weights).
    #[default]
    Mean,
    /// `[min, min, min]`.
    Min,
    /// `[max, max, max]`.
    Max,
    /// `[min, mean, max]`.
    All,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Linear {
    weight: Vec<Vec<f32>>,
    bias: Vec<f32>,
}

impl Linear {
    fn check(&self, rows: usize, cols: usize, what: &str) -> std::result::Result<(), String> {
        if self.weight.len() != rows || self.weight.iter().any(|r| r.len() != cols) || self.bias.len() != rows {
            return Err(format!("{what} must be weight [{rows}, {cols}] and bias [{rows}]"));
        }
        if self.weight.iter().flatten().chain(&self.bias).any(|x| !x.is_finite()) {
            return Err(format!("{what} has a non-finite value"));
        }
        Ok(())
    }
    /// `x @ weight.T + bias` in f32, as `torch.nn.Linear`.
    fn apply(&self, x: &[f32]) -> Vec<f32> {
        self.weight.iter().zip(&self.bias).map(|(w, b)| w.iter().zip(x).map(|(a, b)| a * b).sum::<f32>() + b).collect()
    }
}

/// Where a weight file came from.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct ConvSource {
    /// File the weights were converted from (e.g. `summac_conv_vitc_sent_perc_e.bin`).
    #[serde(default)]
    pub file: String,
    /// Its sha256.
    #[serde(default)]
    pub sha256: Option<String>,
    /// Where it is published, or how it was made.
    #[serde(default)]
    pub origin: String,
}

/// The weight file (JSON) written by `onnx/export_summac.py conv` from the reference's
/// `torch.save(state_dict)` file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct ConvFile {
    format: String,
    version: u32,
    bins: Vec<f64>,
    #[serde(default)]
    bins_name: String,
    nli_labels: String,
    agg: ConvAgg,
    /// The reference's `models` (NLI model names of the imagers); one is supported.
    #[serde(default)]
    models: Vec<String>,
    /// The granularity the weights were trained with (informative).
    #[serde(default)]
    granularity: String,
    mlp: Linear,
    layer_final: Linear,
    #[serde(default)]
    source: ConvSource,
}

/// SummaC-Conv's learned layers and settings, from a weight file. Scores [`Image`]s without
/// a model. `Send + Sync`.
#[derive(Debug, Clone, PartialEq)]
pub struct ConvHead {
    file: ConvFile,
    /// Image channels (0 entailment, 1 contradiction, 2 neutral) histogrammed, in order.
    channels: Vec<usize>,
    path: Option<PathBuf>,
}

/// One summary chunk's SummaC-Conv detail.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ConvRow {
    /// Byte span in the summary.
    pub span: Span,
    /// Counts per bin, channels concatenated (entailment first).
    pub histogram: Vec<u32>,
    /// The linear filter's output for the row.
    pub value: f64,
}

/// SummaC-Conv of one row.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ConvOutput {
    /// The score in (0, 1); `None` with `null_reason`.
    pub score: Option<f64>,
    /// Why `score` is `None`.
    pub null_reason: Option<NullReason>,
    /// The rows used (empty for a row without pairs).
    pub rows: Vec<ConvRow>,
    /// Byte spans of the summary chunks after the first `conv_rows` (not used).
    pub unused: Vec<Span>,
    /// The image's cuts plus Conv's own row cut.
    pub warnings: Vec<Warning>,
}

/// `np.histogram(values, bins=edges)` for increasing edges: bin k counts
/// `edges[k] <= x < edges[k+1]`, the last bin also `x == edges[last]`; values outside are
/// not counted (NumPy's `_search_sorted_inclusive`).
pub fn histogram(values: &[f64], edges: &[f64]) -> Vec<u32> {
    let n = edges.len().saturating_sub(1);
    let mut out = vec![0u32; n];
    if n == 0 {
        return out;
    }
    let last = edges[n];
    for &x in values {
        if x.is_nan() || x < edges[0] || x > last {
            continue;
        }
        // Number of edges <= x, minus one, is the bin; x == last goes to the last bin.
        let k = edges.partition_point(|&e| e <= x).saturating_sub(1).min(n - 1);
        out[k] += 1;
    }
    out
}

impl ConvHead {
    /// Parses a weight file's JSON text.
    ///
    /// # Errors
    /// [`Error::ConvWeights`] when the JSON is not a valid weight file (wrong format tag or
    /// version, bins not increasing, layer shapes that do not match the bins and labels,
    /// non-finite weights, more than one NLI model).
    pub fn from_json(text: &str) -> Result<Self> {
        Self::parse(text, None)
    }

    /// Reads a weight file.
    ///
    /// # Errors
    /// [`Error::Io`] when it cannot be read; as [`ConvHead::from_json`].
    pub fn from_file(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|source| Error::Io { path: path.to_path_buf(), source })?;
        Self::parse(&text, Some(path))
    }

    /// The released weights of the paper (`summac_conv_vitc_sent_perc_e.bin` of
    /// `tingofurro/summac`, Apache-2.0, converted by `onnx/export_summac.py conv`): `vitc`
    /// NLI model, `sentence` granularity, percentile bins, entailment only, mean. Use them
    /// with the `vitc` model (`tals/albert-xlarge-vitaminc-mnli`) exported by
    /// `onnx/export_summac.py nli`; with another NLI model the scores mean nothing.
    ///
    /// # Errors
    /// Never in practice (the embedded file is checked by the tests).
    pub fn released_vitc() -> Result<Self> {
        Self::from_json(include_str!("../data/summac_conv_vitc_sent_perc_e.json"))
    }

    fn parse(text: &str, path: Option<&Path>) -> Result<Self> {
        let bad = |reason: String| Error::ConvWeights {
            path: path.map_or_else(|| PathBuf::from("<json>"), Path::to_path_buf),
            reason,
        };
        let file: ConvFile = serde_json::from_str(text).map_err(|e| {
            bad(format!("not a SummaC-Conv weight file ({e}); convert the reference's .bin with onnx/export_summac.py conv"))
        })?;
        if file.format != CONV_FORMAT || file.version != CONV_FORMAT_VERSION {
            return Err(bad(format!(
                "format {:?} version {} (expected {CONV_FORMAT:?} {CONV_FORMAT_VERSION})",
                file.format, file.version
            )));
        }
        let increasing = file.bins.windows(2).all(|w| w[0] < w[1]) && file.bins.iter().all(|b| b.is_finite());
        if file.bins.len() < 2 || !increasing {
            return Err(bad("bins must be at least two strictly increasing edges".into()));
        }
        let mut channels = Vec::new();
        for (c, l) in ['e', 'c', 'n'].into_iter().enumerate() {
            if file.nli_labels.contains(l) {
                channels.push(c);
            }
        }
        if channels.is_empty()
            || file.nli_labels.chars().any(|c| !"ecn".contains(c))
            || file.nli_labels.len() != channels.len()
        {
            return Err(bad(format!("nli_labels {:?} must be a subset of \"ecn\"", file.nli_labels)));
        }
        if file.models.len() > 1 {
            return Err(bad(format!(
                "weights for {} NLI models ({:?}); factpico's SummaC-Conv runs one NLI model",
                file.models.len(),
                file.models
            )));
        }
        let full = channels.len() * (file.bins.len() - 1);
        file.mlp.check(1, full, "mlp").map_err(bad)?;
        file.layer_final.check(2, 3, "layer_final").map_err(bad)?;
        Ok(ConvHead { file, channels, path: path.map(Path::to_path_buf) })
    }

    /// Bin edges.
    pub fn bins(&self) -> &[f64] {
        &self.file.bins
    }
    /// The bins' name in the reference (`percentile`, `even50`), if recorded.
    pub fn bins_name(&self) -> &str {
        &self.file.bins_name
    }
    /// The reference's `nli_labels` (`e`, `ec`, ...).
    pub fn nli_labels(&self) -> &str {
        &self.file.nli_labels
    }
    /// Aggregation over rows.
    pub fn agg(&self) -> ConvAgg {
        self.file.agg
    }
    /// The NLI model(s) the weights were trained with (`["vitc"]` for the released file).
    pub fn models(&self) -> &[String] {
        &self.file.models
    }
    /// The granularity the weights were trained with, as recorded in the file.
    pub fn granularity(&self) -> &str {
        &self.file.granularity
    }
    /// Where the weights came from.
    pub fn source(&self) -> &ConvSource {
        &self.file.source
    }
    /// The file read, if any.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// The histogram row of summary chunk `j` (channels concatenated).
    fn row(&self, image: &Image, j: usize) -> Vec<u32> {
        let mut h = Vec::with_capacity(self.channels.len() * (self.file.bins.len() - 1));
        for &c in &self.channels {
            let col: Vec<f64> = image.column(c, j).into_iter().map(f64::from).collect();
            h.extend(histogram(&col, &self.file.bins));
        }
        h
    }

    /// Scores one image (no model needed). `limits.conv_rows` is the number of summary
    /// chunks used (reference: 10).
    pub fn score(&self, image: &Image, limits: &Limits) -> ConvOutput {
        let mut warnings = image.warnings.clone();
        if image.n_document == 0 || image.n_summary == 0 {
            return ConvOutput {
                score: None,
                null_reason: Some(NullReason::NoPairs),
                rows: Vec::new(),
                unused: Vec::new(),
                warnings,
            };
        }
        let n_rows = limits.conv_rows.map_or(image.n_summary, |r| r.min(image.n_summary));
        if n_rows < image.n_summary {
            warnings.push(Warning::ConvRowsCut { used: n_rows, total: image.n_summary });
        }
        let mut rows = Vec::with_capacity(n_rows);
        let mut values = Vec::with_capacity(n_rows);
        for j in 0..n_rows {
            let h = self.row(image, j);
            // torch.FloatTensor(histograms): counts as f32.
            let x: Vec<f32> = h.iter().map(|&c| c as f32).collect();
            let v = self.file.mlp.apply(&x)[0];
            // Rows whose histogram is all zero are not counted by the reference (seq_length);
            // a real row always counts every document chunk, so this never skips one.
            if h.iter().any(|&c| c > 0) {
                values.push(v);
            }
            if !image.no_pairs {
                rows.push(ConvRow { span: image.summary_chunks[j].span, histogram: h, value: f64::from(v) });
            }
        }
        let features = if values.is_empty() {
            [0.0f32; 3]
        } else {
            let mean = values.iter().sum::<f32>() / values.len() as f32;
            let min = values.iter().copied().fold(f32::INFINITY, f32::min);
            let max = values.iter().copied().fold(f32::NEG_INFINITY, f32::max);
            match self.file.agg {
                ConvAgg::Mean => [mean; 3],
                ConvAgg::Min => [min; 3],
                ConvAgg::Max => [max; 3],
                ConvAgg::All => [min, mean, max],
            }
        };
        let logits = self.file.layer_final.apply(&features);
        let p = factpico_runtime::softmax(&logits);
        let unused = image.summary_chunks.iter().skip(n_rows).map(|c| c.span).collect();
        ConvOutput { score: Some(f64::from(p[1])), null_reason: None, rows, unused, warnings }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn histogram_matches_numpy_edges() {
        let e = [0.0, 0.5, 0.9, 1.0];
        // numpy: np.histogram([0, 0.5, 0.49, 0.9, 0.95, 1.0, 1.2, -0.1], bins=[0,.5,.9,1]) -> [2, 1, 3]
        assert_eq!(histogram(&[0.0, 0.5, 0.49, 0.9, 0.95, 1.0, 1.2, -0.1], &e), [2, 1, 3]);
        assert_eq!(histogram(&[], &e), [0, 0, 0]);
        assert_eq!(histogram(&[0.0], &PERCENTILE_BINS)[0], 1);
        assert_eq!(histogram(&[0.9], &PERCENTILE_BINS)[8], 1);
        assert_eq!(histogram(&[0.8999999], &PERCENTILE_BINS)[7], 1);
    }

    #[test]
    fn even_bins_are_numpy_arange_plus_one() {
        let b = even_bins(50);
        assert_eq!(b.len(), 51);
        assert_eq!(b[1], 0.02);
        assert_eq!(b[3], 3.0 * 0.02);
        assert_eq!(b[50], 1.0);
        assert_eq!(even_bins(4), [0.0, 0.25, 0.5, 0.75, 1.0]);
    }

    fn head(agg: &str, labels: &str, bins: &[f64]) -> Result<ConvHead> {
        let full = labels.len() * (bins.len() - 1);
        let w: Vec<f32> = (0..full).map(|k| k as f32 * 0.1 - 0.5).collect();
        ConvHead::from_json(
            &serde_json::json!({
                "format": CONV_FORMAT, "version": 1, "bins": bins, "nli_labels": labels, "agg": agg,
                "mlp": {"weight": [w], "bias": [0.25]},
                "layer_final": {"weight": [[0.5, -0.5, 1.0], [-1.0, 2.0, 0.5]], "bias": [0.1, -0.1]}
            })
            .to_string(),
        )
    }

    #[test]
    fn weight_files_are_validated() {
        assert!(head("mean", "e", &[0.0, 0.5, 1.0]).is_ok());
        assert!(head("mean", "ec", &[0.0, 0.5, 1.0]).is_ok());
        assert!(head("mean", "x", &[0.0, 0.5, 1.0]).is_err());
        assert!(head("mean", "ee", &[0.0, 0.5, 1.0]).is_err());
        assert!(head("mean", "e", &[0.0, 0.5, 0.5, 1.0]).is_err());
        assert!(head("median", "e", &[0.0, 0.5, 1.0]).is_err());
        assert!(ConvHead::from_json("{}").is_err());
        let mut ok = head("mean", "e", &[0.0, 0.5, 1.0]).map(|h| h.file).unwrap_or_else(|e| unreachable!("{e}"));
        ok.mlp.weight[0].push(1.0);
        assert!(ConvHead::from_json(&serde_json::to_string(&ok).unwrap_or_default()).is_err());
    }

    #[test]
    fn conv_by_hand() {
        let h = head("all", "ec", &[0.0, 0.5, 1.0]).unwrap_or_else(|e| unreachable!("{e}"));
        // 2 document chunks x 1 summary chunk: ent [0.9, 0.2], con [0.1, 0.6].
        let img = Image {
            document_chunks: Vec::new(),
            summary_chunks: vec![crate::Chunk { text: String::new(), span: Span::new(0, 1) }],
            entailment: vec![0.9, 0.2],
            contradiction: vec![0.1, 0.6],
            neutral: vec![0.0, 0.2],
            n_document: 2,
            n_summary: 1,
            no_pairs: false,
            warnings: Vec::new(),
        };
        let out = h.score(&img, &Limits::reference());
        assert_eq!(out.rows[0].histogram, [1, 1, 1, 1]);
        // w = [-0.5, -0.4, -0.3, -0.2]: r = -1.4 + 0.25 = -1.15; features [-1.15; 3]
        let r = -1.15f32;
        let l0 = 0.5 * r - 0.5 * r + r + 0.1;
        let l1 = -r + 2.0 * r + 0.5 * r - 0.1;
        let want = (l1.exp() / (l0.exp() + l1.exp())) as f64;
        assert!((out.rows[0].value - f64::from(r)).abs() < 1e-6);
        assert!((out.score.unwrap_or(f64::NAN) - want).abs() < 1e-6);
    }
}
