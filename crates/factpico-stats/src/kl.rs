//! KL divergence between Gaussian fits of normalised human and metric scores.

use serde::{Deserialize, Serialize};

use crate::data::{complete_pairs, mean, population_sd};
use crate::error::{Input, NullReason, Error};

/// Maps scores onto [0, 1] before the Gaussian fit.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Normalization {
    /// `(v − min) / (max − min)` with the observed minimum and maximum of
    /// the complete observations (default).
    #[default]
    ObservedMinMax,
    /// `(v − lo) / (hi − lo)` with a declared scale, e.g. `{lo: 1, hi: 4}`
    /// for FactPICO's expert ratings or `{lo: 0, hi: 1}` for a probability.
    Range {
        /// Lower end of the scale.
        lo: f64,
        /// Upper end of the scale (> `lo`).
        hi: f64,
    },
}

/// Options for [`kl_divergence_gaussian`].
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct KlOptions {
    /// Normalisation of the human scores.
    pub human: Normalization,
    /// Normalisation of the metric scores.
    pub metric: Normalization,
}

/// A normal distribution fitted by maximum likelihood (`ddof = 0`, as
/// `scipy.stats.norm.fit`), on the normalised scale.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct GaussianFit {
    /// Mean μ.
    pub mean: f64,
    /// Standard deviation σ > 0.
    pub sd: f64,
}

/// Result of [`kl_divergence_gaussian`].
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct KlDivergence {
    /// `KL(N_human ‖ N_metric)` in nats, ≥ 0.
    pub kl: Option<f64>,
    /// Fit to the normalised human scores.
    pub human_fit: Option<GaussianFit>,
    /// Fit to the normalised metric scores.
    pub metric_fit: Option<GaussianFit>,
    /// Complete pairs used.
    pub n: usize,
    /// Pairs excluded because either value was NaN or ±∞.
    pub n_excluded: usize,
    /// Why `kl` is `None` (fewer than 2 complete pairs, or a constant input,
    /// i.e. σ = 0 or an undefined min–max scale).
    pub null_reason: Option<NullReason>,
}

fn normalise(
    v: &[f64],
    how: Normalization,
    name: &'static str,
) -> Result<Option<Vec<f64>>, Error> {
    let (lo, hi) = match how {
        Normalization::ObservedMinMax => {
            let lo = v.iter().copied().fold(f64::INFINITY, f64::min);
            let hi = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            if lo >= hi {
                return Ok(None);
            }
            (lo, hi)
        }
        Normalization::Range { lo, hi } => {
            if !(lo.is_finite() && hi.is_finite() && lo < hi) {
                return Err(Error::InvalidParameter {
                    name,
                    reason: format!("range [{lo}, {hi}] must be finite with lo < hi"),
                });
            }
            if let Some(&bad) = v.iter().find(|&&x| x < lo || x > hi) {
                return Err(Error::OutOfRange {
                    input: name,
                    value: bad,
                    lo,
                    hi,
                });
            }
            (lo, hi)
        }
    };
    Ok(Some(v.iter().map(|&x| (x - lo) / (hi - lo)).collect()))
}

/// Closed-form `KL(N(μ₁, σ₁²) ‖ N(μ₂, σ₂²)) = ln(σ₂/σ₁) + (σ₁² + (μ₁−μ₂)²)/(2σ₂²) − ½`.
pub fn kl_normal(p: GaussianFit, q: GaussianFit) -> f64 {
    (q.sd / p.sd).ln() + (p.sd * p.sd + (p.mean - q.mean).powi(2)) / (2.0 * q.sd * q.sd) - 0.5
}

/// KL divergence between Gaussian fits of the normalised human and metric
/// score distributions, `KL(N_human ‖ N_metric)` in nats.
///
/// FactPICO (Joseph et al., ACL 2024, Appendix G / Table 11) compares the
/// *distributions* of each metric's scores and the experts' scores through
/// "standardized Gaussian fits". Z-scoring both sets would make both fits
/// N(0, 1) and the divergence identically 0, so the standardisation here is
/// a min–max rescaling onto [0, 1] (observed range by default, or a declared
/// scale via [`Normalization::Range`]), followed by a maximum-likelihood
/// normal fit (μ = mean, σ = population sd) to each set and the closed-form
/// KL above. The FactPICO release's own script is not available offline, so
/// this definition is ours; the parity test checks it against numerical
/// integration of `p ln(p/q)` with `scipy.integrate.quad` on
/// `scipy.stats.norm.fit` fits.
///
/// The two inputs are paired (scores of the same outputs): missing values
/// (NaN, ±∞) are excluded pairwise. Null when fewer than 2 complete pairs,
/// or when an input is constant (σ = 0, or a zero observed range).
///
/// # Errors
/// [`Error::LengthMismatch`]; [`Error::InvalidParameter`] for a
/// bad declared range; [`Error::OutOfRange`] when a score lies outside
/// its declared range.
pub fn kl_divergence_gaussian(
    metric: &[f64],
    human: &[f64],
    options: &KlOptions,
) -> Result<KlDivergence, Error> {
    let c = complete_pairs(metric, human, "metric", "human")?;
    let n = c.a.len();
    let null = |reason| KlDivergence {
        kl: None,
        human_fit: None,
        metric_fit: None,
        n,
        n_excluded: c.excluded,
        null_reason: Some(reason),
    };
    if n < 2 {
        return Ok(null(NullReason::TooFewObservations { n, required: 2 }));
    }
    let fit = |v: Vec<f64>| -> Option<GaussianFit> {
        let mu = mean(&v)?;
        let sd = population_sd(&v, mu);
        (sd > 0.0).then_some(GaussianFit { mean: mu, sd })
    };
    let Some(h) = normalise(&c.b, options.human, "human")? else {
        return Ok(null(NullReason::ConstantInput {
            input: Input::Human,
        }));
    };
    let Some(m) = normalise(&c.a, options.metric, "metric")? else {
        return Ok(null(NullReason::ConstantInput {
            input: Input::Metric,
        }));
    };
    let Some(hf) = fit(h) else {
        return Ok(null(NullReason::ConstantInput {
            input: Input::Human,
        }));
    };
    let Some(mf) = fit(m) else {
        return Ok(null(NullReason::ConstantInput {
            input: Input::Metric,
        }));
    };
    Ok(KlDivergence {
        kl: Some(kl_normal(hf, mf)),
        human_fit: Some(hf),
        metric_fit: Some(mf),
        n,
        n_excluded: c.excluded,
        null_reason: None,
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn closed_form_hand_worked() {
        // KL(N(0,1) ‖ N(1,2²)) = ln 2 + (1 + 1)/8 − 1/2 = ln 2 − 1/4
        let p = GaussianFit { mean: 0.0, sd: 1.0 };
        let q = GaussianFit { mean: 1.0, sd: 2.0 };
        assert!((kl_normal(p, q) - (std::f64::consts::LN_2 - 0.25)).abs() < 1e-15);
        assert_eq!(kl_normal(p, p), 0.0);
    }

    #[test]
    fn fits_on_normalised_scale() {
        // human [1,2,3,4] → [0, 1/3, 2/3, 1]: μ = 1/2, σ² = 5/36
        // metric [0, 0, 1, 1] → same values: μ = 1/2, σ = 1/2
        let r = kl_divergence_gaussian(
            &[0.0, 0.0, 1.0, 1.0],
            &[1.0, 2.0, 3.0, 4.0],
            &KlOptions::default(),
        )
        .unwrap();
        let hf = r.human_fit.unwrap();
        assert!((hf.mean - 0.5).abs() < 1e-15);
        assert!((hf.sd - (5.0f64 / 36.0).sqrt()).abs() < 1e-15);
        // KL = ln(0.5/σ_h) + σ_h²/(2·0.25) − 1/2
        let sh = (5.0f64 / 36.0).sqrt();
        let want = (0.5 / sh).ln() + sh * sh / 0.5 - 0.5;
        assert!((r.kl.unwrap() - want).abs() < 1e-15);
        // declared range: human on 1..4 gives the same as observed here
        let opts = KlOptions {
            human: Normalization::Range { lo: 1.0, hi: 4.0 },
            ..Default::default()
        };
        let r2 =
            kl_divergence_gaussian(&[0.0, 0.0, 1.0, 1.0], &[1.0, 2.0, 3.0, 4.0], &opts).unwrap();
        assert!((r2.kl.unwrap() - want).abs() < 1e-15);
    }

    #[test]
    fn nulls_and_errors() {
        let r = kl_divergence_gaussian(&[1.0, 2.0], &[3.0, 3.0], &KlOptions::default()).unwrap();
        assert_eq!(
            r.null_reason,
            Some(NullReason::ConstantInput {
                input: Input::Human
            })
        );
        let r = kl_divergence_gaussian(&[1.0], &[3.0], &KlOptions::default()).unwrap();
        assert_eq!(
            r.null_reason,
            Some(NullReason::TooFewObservations { n: 1, required: 2 })
        );
        let opts = KlOptions {
            human: Normalization::Range { lo: 1.0, hi: 4.0 },
            ..Default::default()
        };
        assert!(matches!(
            kl_divergence_gaussian(&[0.1, 0.2], &[1.0, 5.0], &opts),
            Err(Error::OutOfRange { value: 5.0, .. })
        ));
    }
}
