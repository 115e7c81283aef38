//! Property tests of the seeded resampling procedures and API invariants.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use factpico_stats::{
    bootstrap_ci, bootstrap_ci_by_item, bootstrap_ci_with, kendall_tau_b, meta_evaluate,
    pair_counts, pairwise_accuracy, pairwise_accuracy_tie_calibrated, permutation_test,
    randolph_kappa, BootstrapOptions, Level, NullReason, PermutationOptions, Statistic,
};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;

/// `n` human scores on 1..=4 and a metric = 0.3·human + N(0, noise) (Box–Muller).
fn data(n: usize, noise: f64, seed: u64) -> (Vec<f64>, Vec<f64>) {
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let mut normal = move || {
        let (u, v): (f64, f64) = (rng.random::<f64>().max(1e-300), rng.random::<f64>());
        (
            (-2.0 * u.ln()).sqrt() * (2.0 * std::f64::consts::PI * v).cos(),
            rng.random_range(1..=4),
        )
    };
    let mut m = Vec::with_capacity(n);
    let mut h = Vec::with_capacity(n);
    for _ in 0..n {
        let (z, score) = normal();
        let hv = f64::from(score);
        h.push(hv);
        m.push(0.3 * hv + noise * z);
    }
    (m, h)
}

#[test]
fn bootstrap_is_deterministic_and_covers_the_estimate() {
    let (m, h) = data(150, 0.4, 7);
    for stat in [
        Statistic::KendallTauB,
        Statistic::SpearmanRho,
        Statistic::PearsonR,
        Statistic::PairwiseAccuracy,
    ] {
        // acc_eq is O(n² log n) per resample: fewer resamples keep debug tests fast
        let b_count = if stat == Statistic::PairwiseAccuracy {
            40
        } else {
            300
        };
        let opts = BootstrapOptions {
            n_resamples: b_count,
            confidence_level: 0.95,
            seed: 42,
        };
        let a = bootstrap_ci(&m, &h, stat, &opts).unwrap();
        let b = bootstrap_ci(&m, &h, stat, &opts).unwrap();
        assert_eq!(a, b, "{stat:?}: same seed must give the same interval");
        let (lo, hi, est) = (a.lower.unwrap(), a.upper.unwrap(), a.estimate.unwrap());
        assert!(
            lo <= est && est <= hi,
            "{stat:?}: {lo} ≤ {est} ≤ {hi} violated"
        );
        assert!(
            hi - lo > 0.0 && hi - lo < 0.5,
            "{stat:?}: implausible width {}",
            hi - lo
        );
        let c = bootstrap_ci(&m, &h, stat, &BootstrapOptions { seed: 43, ..opts }).unwrap();
        assert_ne!(
            (a.lower, a.upper),
            (c.lower, c.upper),
            "{stat:?}: seed must matter"
        );
    }
}

#[test]
fn bootstrap_interval_narrows_with_more_data() {
    let opts = BootstrapOptions {
        n_resamples: 200,
        seed: 1,
        ..Default::default()
    };
    let width = |n| {
        let (m, h) = data(n, 0.4, 11);
        let ci = bootstrap_ci(&m, &h, Statistic::KendallTauB, &opts).unwrap();
        ci.upper.unwrap() - ci.lower.unwrap()
    };
    let (w100, w1600) = (width(100), width(1600));
    // the width scales like 1/√n: ×4 narrower expected; require ×2.5
    assert!(w1600 * 2.5 < w100, "width n=100 {w100}, n=1600 {w1600}");
}

#[test]
fn bootstrap_counts_exclusions_and_undefined_resamples() {
    // 4 complete rows, 1 excluded; many resamples of 4 draw a constant vector
    let m = [1.0, 2.0, 3.0, 4.0, f64::NAN];
    let h = [1.0, 2.0, 2.0, 4.0, 1.0];
    let ci = bootstrap_ci(&m, &h, Statistic::PearsonR, &BootstrapOptions::default()).unwrap();
    assert_eq!((ci.n, ci.n_excluded), (4, 1));
    assert!(ci.n_resamples_undefined > 0 && ci.n_resamples_undefined < ci.n_resamples);
    // generic form: bootstrap of a mean of 0..10 covers 4.5
    let v: Vec<f64> = (0..10).map(f64::from).collect();
    let ci = bootstrap_ci_with(v.len(), &BootstrapOptions::default(), |idx| {
        Ok(Some(
            idx.iter().map(|&i| v[i]).sum::<f64>() / idx.len() as f64,
        ))
    })
    .unwrap();
    assert_eq!(ci.estimate, Some(4.5));
    assert!(ci.lower.unwrap() < 4.5 && 4.5 < ci.upper.unwrap());
}

fn grouped(
    n_items: usize,
    n_sys: usize,
    seed: u64,
) -> (Vec<String>, Vec<String>, Vec<f64>, Vec<f64>) {
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let (mut it, mut sy, mut m, mut h) = (vec![], vec![], vec![], vec![]);
    for s in 0..n_sys {
        for i in 0..n_items {
            it.push(format!("doc{i}"));
            sy.push(format!("sys{s}"));
            let q = s as f64 + rng.random::<f64>();
            h.push(q);
            m.push(q + rng.random::<f64>());
        }
    }
    (it, sy, m, h)
}

#[test]
fn item_bootstrap_at_both_levels() {
    let (it, sy, m, h) = grouped(30, 4, 3);
    let opts = BootstrapOptions {
        n_resamples: 200,
        seed: 5,
        ..Default::default()
    };
    let inst = bootstrap_ci_by_item(
        &it,
        &sy,
        &m,
        &h,
        Statistic::KendallTauB,
        Level::Instance,
        &opts,
    )
    .unwrap();
    assert_eq!(inst.n, 30, "resampling unit is the item");
    let full = kendall_tau_b(&m, &h).unwrap().statistic.unwrap();
    assert_eq!(inst.estimate, Some(full));
    assert!(inst.lower.unwrap() <= full && full <= inst.upper.unwrap());
    let sys =
        bootstrap_ci_by_item(&it, &sy, &m, &h, Statistic::PearsonR, Level::System, &opts).unwrap();
    let me = meta_evaluate(&it, &sy, &m, &h).unwrap();
    assert_eq!(sys.estimate, me.system.unwrap().pearson_r.statistic);
    assert_eq!(
        sys,
        bootstrap_ci_by_item(&it, &sy, &m, &h, Statistic::PearsonR, Level::System, &opts).unwrap()
    );
    // two systems: the system level is undefined in every resample
    let (it, sy, m, h) = grouped(10, 2, 3);
    let ci = bootstrap_ci_by_item(
        &it,
        &sy,
        &m,
        &h,
        Statistic::KendallTauB,
        Level::System,
        &opts,
    )
    .unwrap();
    assert_eq!(ci.null_reason, Some(NullReason::NoDefinedResamples));
    assert_eq!(ci.estimate, None);
}

#[test]
fn permutation_test_detects_a_clearly_better_metric() {
    let (good, h) = data(80, 0.2, 21);
    let mut rng = ChaCha20Rng::seed_from_u64(99);
    let noise: Vec<f64> = (0..80).map(|_| rng.random::<f64>()).collect();
    for stat in [
        Statistic::KendallTauB,
        Statistic::PearsonR,
        Statistic::PairwiseAccuracy,
    ] {
        let r_count = if stat == Statistic::PairwiseAccuracy {
            60
        } else {
            300
        };
        let opts = PermutationOptions {
            n_permutations: r_count,
            seed: 8,
        };
        let t = permutation_test(&good, &noise, &h, stat, &opts).unwrap();
        assert!(t.delta.unwrap() > 0.0);
        // no permutation reached δ: p = 1/(1+R)
        assert_eq!(t.p_value.unwrap(), 1.0 / (1.0 + r_count as f64), "{stat:?}");
        // reversed roles: A is the worse metric → p large
        let r = permutation_test(&noise, &good, &h, stat, &opts).unwrap();
        assert!(
            r.p_value.unwrap() > 0.9,
            "{stat:?}: reversed p = {:?}",
            r.p_value
        );
        assert_eq!(
            t,
            permutation_test(&good, &noise, &h, stat, &opts).unwrap(),
            "deterministic"
        );
    }
}

#[test]
fn permutation_p_values_are_roughly_uniform_under_the_null() {
    // A and B are exchangeable (same noise level) in each simulation.
    let sims = 120;
    let mut ps = Vec::with_capacity(sims);
    for s in 0..sims as u64 {
        let (a, h) = data(40, 0.5, 1000 + s);
        let mut rng = ChaCha20Rng::seed_from_u64(5000 + s);
        let b: Vec<f64> = h
            .iter()
            .map(|&x| {
                let (u, v): (f64, f64) = (rng.random::<f64>().max(1e-300), rng.random::<f64>());
                0.3 * x + 0.5 * (-2.0 * u.ln()).sqrt() * (2.0 * std::f64::consts::PI * v).cos()
            })
            .collect();
        let t = permutation_test(
            &a,
            &b,
            &h,
            Statistic::KendallTauB,
            &PermutationOptions {
                n_permutations: 49,
                seed: s,
            },
        )
        .unwrap();
        ps.push(t.p_value.unwrap());
    }
    let mean = ps.iter().sum::<f64>() / sims as f64;
    let below_05 = ps.iter().filter(|&&p| p <= 0.05).count() as f64 / sims as f64;
    let below_50 = ps.iter().filter(|&&p| p <= 0.5).count() as f64 / sims as f64;
    eprintln!("H0 simulation: mean p {mean:.3}, P(p ≤ .05) {below_05:.3}, P(p ≤ .5) {below_50:.3}");
    assert!((0.38..=0.62).contains(&mean), "mean p {mean}");
    assert!(below_05 <= 0.12, "P(p ≤ 0.05) = {below_05}");
    assert!((0.35..=0.65).contains(&below_50), "P(p ≤ 0.5) = {below_50}");
}

#[test]
fn permutation_nulls() {
    let t = permutation_test(
        &[1.0, 2.0],
        &[2.0, 1.0],
        &[1.0, 2.0],
        Statistic::KendallTauB,
        &PermutationOptions::default(),
    )
    .unwrap();
    assert_eq!(
        t.null_reason,
        Some(NullReason::TooFewObservations { n: 2, required: 3 })
    );
    let t = permutation_test(
        &[1.0, 1.0, 1.0],
        &[2.0, 1.0, 3.0],
        &[1.0, 2.0, 3.0],
        Statistic::KendallTauB,
        &PermutationOptions::default(),
    )
    .unwrap();
    assert!(matches!(
        t.null_reason,
        Some(NullReason::ConstantInput { .. })
    ));
}

#[test]
fn calibrated_accuracy_dominates_every_fixed_epsilon() {
    let (m, h) = data(60, 0.3, 17);
    let best = pairwise_accuracy_tie_calibrated(&m, &h).unwrap();
    let acc = best.accuracy.unwrap();
    let at = pairwise_accuracy(&m, &h, best.epsilon.unwrap()).unwrap();
    assert_eq!(
        at.accuracy,
        Some(acc),
        "re-evaluating at the chosen ε reproduces acc_eq"
    );
    assert_eq!(at.counts, best.counts);
    for k in 0..200 {
        let eps = f64::from(k) * 0.01;
        let a = pairwise_accuracy(&m, &h, eps).unwrap().accuracy.unwrap();
        assert!(a <= acc, "ε = {eps}: {a} > calibrated {acc}");
    }
    // human scores have ties, so calibrating must help here
    assert!(acc > pairwise_accuracy(&m, &h, 0.0).unwrap().accuracy.unwrap());
}

#[test]
fn pair_counts_sum_and_scale_to_large_n() {
    let (m, h) = data(100_000, 0.5, 3); // O(n log n): fast even unoptimised
    let c = pair_counts(&m, &h).unwrap();
    assert_eq!(c.n_pairs(), 100_000 * 99_999 / 2);
    let k = kendall_tau_b(&m, &h).unwrap();
    assert!(k.statistic.unwrap() > 0.3 && k.p_value.unwrap() < 1e-100);
}

#[test]
fn results_serialise_with_nulls() {
    let r = meta_evaluate(
        &["a", "b", "c"],
        &["s", "s", "s"],
        &[0.1, 0.2, 0.3],
        &[1.0, 1.0, 2.0],
    )
    .unwrap();
    let v = serde_json::to_value(&r).unwrap();
    assert_eq!(v["system"], serde_json::Value::Null);
    assert_eq!(v["system_null_reason"]["kind"], "too_few_systems");
    assert_eq!(
        v["instance"]["kendall_tau_b"]["p_value_method"],
        "kendall_asymptotic"
    );
    let k = randolph_kappa(&[[Some(1), Some(1)], [Some(1), Some(2)]], 2).unwrap();
    let kv = serde_json::to_value(k).unwrap();
    assert_eq!(kv["kappa"], 0.0);
}
