//! Parity of `factpico-stats` with its Python references (scipy, the
//! mt-metrics-eval authors' tie calibration, statsmodels), using the
//! goldens written by `tests/goldens/gen_stats.py`:
//! * `stats.json` — synthetic inputs and reference outputs (always run);
//! * `stats_real.json` — statistics of the Shaib et al. (2023) human rating
//!   columns against each other (needs `../shared`, else a visible SKIP).
//!
//! Tolerances: statistics 1e-12, p-values 1e-10 (absolute), pairwise
//! accuracy and its ε exactly.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use factpico_stats::{
    correlation_p_value, kendall_tau_b, kendall_tau_b_with, kl_divergence_gaussian, meta_evaluate,
    pairwise_accuracy, pairwise_accuracy_tie_calibrated, pearson_r, randolph_kappa, spearman_rho,
    Correlation, KendallPValue, KlOptions, LevelStatistics, NullReason, PValueMethod,
    PairwiseAccuracy,
};
use serde_json::Value;

const TOL_STAT: f64 = 1e-12;
const TOL_P: f64 = 1e-10;

fn floats(v: &Value) -> Vec<f64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap_or(f64::NAN))
        .collect()
}

fn f(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

#[derive(Default)]
struct Worst {
    stat: f64,
    p: f64,
    p_rel: f64,
    p_rel_at: String,
    p_at: String,
    compared: usize,
}

impl Worst {
    fn stat(&mut self, what: &str, ours: f64, want: f64) {
        let d = (ours - want).abs();
        assert!(
            d <= TOL_STAT,
            "{what}: ours {ours:e} vs reference {want:e} (|Δ| = {d:e})"
        );
        self.stat = self.stat.max(d);
        self.compared += 1;
    }
    fn p(&mut self, what: &str, ours: f64, want: f64) {
        let d = (ours - want).abs();
        assert!(
            d <= TOL_P,
            "{what}: p ours {ours:e} vs reference {want:e} (|Δ| = {d:e})"
        );
        if d > self.p {
            self.p = d;
            self.p_at = format!("{what} (p = {want:.3e})");
        }
        if want > 1e-300 && d / want > self.p_rel {
            self.p_rel = d / want;
            self.p_rel_at = format!("{what} (p = {want:.3e})");
        }
        self.compared += 1;
    }
}

/// Checks a correlation against a scipy golden (`{statistic, p_value}` or null).
fn check_corr(w: &mut Worst, what: &str, ours: &Correlation, gold: &Value, n: usize) {
    if n < 3 {
        assert_eq!(
            ours.null_reason,
            Some(NullReason::TooFewObservations { n, required: 3 }),
            "{what}: n = {n} must be a documented null"
        );
        eprintln!("  {what}: n = {n} → null (scipy reports {gold})");
        return;
    }
    if gold.is_null() || gold["statistic"].is_null() {
        assert!(
            matches!(ours.null_reason, Some(NullReason::ConstantInput { .. })),
            "{what}: scipy gives NaN, expected a ConstantInput null, got {ours:?}"
        );
        return;
    }
    w.stat(what, ours.statistic.unwrap(), f(&gold["statistic"]));
    w.p(what, ours.p_value.unwrap(), f(&gold["p_value"]));
}

fn check_acc(what: &str, ours: &PairwiseAccuracy, gold: &Value, n: usize) {
    if n < 3 {
        assert!(ours.accuracy.is_none(), "{what}: n = {n} must be null");
        return;
    }
    assert_eq!(
        ours.accuracy.unwrap(),
        f(&gold["accuracy"]),
        "{what}: accuracy"
    );
    assert_eq!(
        ours.epsilon.unwrap(),
        f(&gold["epsilon"]),
        "{what}: epsilon"
    );
}

fn check_level(w: &mut Worst, what: &str, ours: &LevelStatistics, gold: &Value, n: usize) {
    check_corr(
        w,
        &format!("{what}/kendall"),
        &ours.kendall_tau_b,
        &gold["kendall"],
        n,
    );
    check_corr(
        w,
        &format!("{what}/spearman"),
        &ours.spearman_rho,
        &gold["spearman"],
        n,
    );
    check_corr(
        w,
        &format!("{what}/pearson"),
        &ours.pearson_r,
        &gold["pearson"],
        n,
    );
    check_acc(
        &format!("{what}/acc_eq"),
        &ours.pairwise_accuracy,
        &gold["acc_eq"],
        n,
    );
}

fn check_kl(w: &mut Worst, what: &str, metric: &[f64], human: &[f64], gold: &Value) {
    let ours = kl_divergence_gaussian(metric, human, &KlOptions::default()).unwrap();
    if gold.is_null() {
        assert!(ours.kl.is_none(), "{what}: KL should be null, got {ours:?}");
        return;
    }
    let kl = ours.kl.unwrap();
    w.stat(&format!("{what}/kl"), kl, f(&gold["kl"]));
    let quad = f(&gold["kl_quad"]);
    assert!(
        (kl - quad).abs() <= 1e-9 * quad.abs().max(1.0),
        "{what}: KL {kl} vs quadrature {quad}"
    );
    let (hf, mf) = (ours.human_fit.unwrap(), ours.metric_fit.unwrap());
    w.stat(
        &format!("{what}/human_fit.mean"),
        hf.mean,
        f(&gold["human_fit"][0]),
    );
    w.stat(
        &format!("{what}/human_fit.sd"),
        hf.sd,
        f(&gold["human_fit"][1]),
    );
    w.stat(
        &format!("{what}/metric_fit.mean"),
        mf.mean,
        f(&gold["metric_fit"][0]),
    );
    w.stat(
        &format!("{what}/metric_fit.sd"),
        mf.sd,
        f(&gold["metric_fit"][1]),
    );
}

#[test]
fn vectors_match_scipy_and_mt_metrics_eval() {
    let g = common::golden("stats.json");
    let mut w = Worst::default();
    let cases = g["vectors"].as_array().unwrap();
    for c in cases {
        let name = c["name"].as_str().unwrap();
        let (m, h) = (floats(&c["metric"]), floats(&c["human"]));
        let n = c["n"].as_u64().unwrap() as usize;
        let kt = kendall_tau_b(&m, &h).unwrap();
        assert_eq!(
            (kt.n, kt.n_excluded),
            (n, c["n_excluded"].as_u64().unwrap() as usize),
            "{name}"
        );
        check_corr(&mut w, &format!("{name}/kendall"), &kt, &c["kendall"], n);
        if kt.statistic.is_some() {
            let want = match c["kendall"]["method"].as_str().unwrap() {
                "kendall_exact" => PValueMethod::KendallExact,
                _ => PValueMethod::KendallAsymptotic,
            };
            assert_eq!(
                kt.p_value_method,
                Some(want),
                "{name}: Kendall p-value method"
            );
        }
        let ka = kendall_tau_b_with(&m, &h, KendallPValue::Asymptotic).unwrap();
        check_corr(
            &mut w,
            &format!("{name}/kendall_asymptotic"),
            &ka,
            &c["kendall_asymptotic"],
            n,
        );
        check_corr(
            &mut w,
            &format!("{name}/spearman"),
            &spearman_rho(&m, &h).unwrap(),
            &c["spearman"],
            n,
        );
        check_corr(
            &mut w,
            &format!("{name}/pearson"),
            &pearson_r(&m, &h).unwrap(),
            &c["pearson"],
            n,
        );
        let acc = pairwise_accuracy_tie_calibrated(&m, &h).unwrap();
        check_acc(&format!("{name}/acc_eq"), &acc, &c["acc_eq"], n);
        for fx in c["acc_fixed"].as_array().unwrap() {
            let eps = f(&fx["epsilon"]);
            let ours = pairwise_accuracy(&m, &h, eps).unwrap();
            if n >= 3 {
                assert_eq!(
                    ours.accuracy.unwrap(),
                    f(&fx["accuracy"]),
                    "{name}: acc at ε = {eps}"
                );
            }
        }
        check_kl(&mut w, name, &m, &h, &c["kl"]);
    }
    eprintln!(
        "stats parity: {} vector cases, {} values compared; max |Δ| statistic {:.2e}, p-value {:.2e} (max relative {:.2e} at {})",
        cases.len(),
        w.compared,
        w.stat,
        w.p,
        w.p_rel,
        w.p_rel_at
    );
}

#[test]
fn systems_match_reference() {
    let g = common::golden("stats.json");
    let mut w = Worst::default();
    let cases = g["systems"].as_array().unwrap();
    for c in cases {
        let name = c["name"].as_str().unwrap();
        let items: Vec<&str> = c["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        let systems: Vec<&str> = c["systems"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        let (m, h) = (floats(&c["metric"]), floats(&c["human"]));
        let r = meta_evaluate(&items, &systems, &m, &h).unwrap();
        assert_eq!(
            r.n_excluded,
            c["n_excluded"].as_u64().unwrap() as usize,
            "{name}"
        );
        let ids: Vec<&str> = c["system_ids"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        assert_eq!(
            r.system_means
                .iter()
                .map(|s| s.system.as_str())
                .collect::<Vec<_>>(),
            ids,
            "{name}"
        );
        for (s, (gm, gh)) in r.system_means.iter().zip(
            floats(&c["system_metric_means"])
                .into_iter()
                .zip(floats(&c["system_human_means"])),
        ) {
            assert_eq!(
                (s.metric_mean, s.human_mean),
                (gm, gh),
                "{name}: means of {}",
                s.system
            );
        }
        let n_inst = r.instance.kendall_tau_b.n;
        check_level(
            &mut w,
            &format!("{name}/instance"),
            &r.instance,
            &c["instance"],
            n_inst,
        );
        if c["system"].is_null() {
            assert!(
                r.system.is_none(),
                "{name}: fewer than 3 systems must be null"
            );
            assert!(matches!(
                r.system_null_reason,
                Some(NullReason::TooFewSystems { .. })
            ));
        } else {
            let sys = r.system.as_ref().unwrap();
            check_level(
                &mut w,
                &format!("{name}/system"),
                sys,
                &c["system"],
                ids.len(),
            );
        }
    }
    eprintln!(
        "stats parity: {} system-level cases, {} values compared; max |Δ| statistic {:.2e}, p {:.2e}",
        cases.len(),
        w.compared,
        w.stat,
        w.p
    );
}

fn ratings(v: &Value) -> Vec<Vec<Option<i64>>> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|row| row.as_array().unwrap().iter().map(Value::as_i64).collect())
        .collect()
}

#[test]
fn randolph_kappa_matches_statsmodels() {
    let g = common::golden("stats.json");
    let mut w = Worst::default();
    let cases = g["kappa"].as_array().unwrap();
    let mut with_statsmodels = 0;
    for c in cases {
        let name = c["name"].as_str().unwrap();
        let k = c["n_categories"].as_u64().unwrap() as usize;
        let r = randolph_kappa(&ratings(&c["ratings"]), k).unwrap();
        w.stat(name, r.kappa.unwrap(), f(&c["ours"]["kappa"]));
        w.stat(
            name,
            r.observed_agreement.unwrap(),
            f(&c["ours"]["observed_agreement"]),
        );
        assert_eq!(
            r.n_items as u64,
            c["ours"]["n_items"].as_u64().unwrap(),
            "{name}"
        );
        if !c["statsmodels"].is_null() {
            w.stat(
                &format!("{name} (statsmodels)"),
                r.kappa.unwrap(),
                f(&c["statsmodels"]),
            );
            with_statsmodels += 1;
        }
    }
    eprintln!(
        "stats parity: {} kappa cases ({with_statsmodels} also against statsmodels), max |Δ| {:.2e}",
        cases.len(),
        w.stat
    );
}

#[test]
fn correlation_p_values_match_scipy_grid() {
    let g = common::golden("stats.json");
    let mut w = Worst::default();
    let rows = g["pvalue_grid"].as_array().unwrap();
    for row in rows {
        let n = row["n"].as_u64().unwrap() as usize;
        let r = f(&row["r"]);
        let p = correlation_p_value(r, n).unwrap();
        w.p(&format!("pearson n={n} r={r}"), p, f(&row["pearson_p"]));
        w.p(&format!("student-t n={n} r={r}"), p, f(&row["student_t_p"]));
    }
    eprintln!(
        "stats parity: {} (n, r) grid points × 2 references; max |Δ| p {:.2e} at {}, max relative {:.2e} at {}",
        rows.len(),
        w.p,
        w.p_at,
        w.p_rel,
        w.p_rel_at
    );
}

#[test]
fn real_shaib2023_columns() {
    let test = "stats_parity::real_shaib2023_columns";
    let Some(path) = common::require_shared(test, "data/shaib2023/derived_human_avg_plain.csv")
    else {
        return;
    };
    let g = common::golden("stats_real.json");
    let mut rdr = csv::Reader::from_path(&path).unwrap();
    let headers = rdr.headers().unwrap().clone();
    let records: Vec<csv::StringRecord> = rdr.records().map(Result::unwrap).collect();
    assert_eq!(records.len() as u64, g["n_rows"].as_u64().unwrap());
    let column = |name: &str| -> Vec<f64> {
        let i = headers.iter().position(|h| h == name).unwrap();
        records
            .iter()
            .map(|r| r.get(i).unwrap().parse::<f64>().unwrap_or(f64::NAN))
            .collect()
    };
    let mut w = Worst::default();
    let pairs = g["pairs"].as_array().unwrap();
    for p in pairs {
        let (mc, hc) = (p["metric"].as_str().unwrap(), p["human"].as_str().unwrap());
        let what = format!("{mc}~{hc}");
        let (m, h) = (column(mc), column(hc));
        let n = p["n"].as_u64().unwrap() as usize;
        let kt = kendall_tau_b(&m, &h).unwrap();
        assert_eq!(kt.n, n, "{what}");
        check_corr(&mut w, &format!("{what}/kendall"), &kt, &p["kendall"], n);
        check_corr(
            &mut w,
            &format!("{what}/spearman"),
            &spearman_rho(&m, &h).unwrap(),
            &p["spearman"],
            n,
        );
        check_corr(
            &mut w,
            &format!("{what}/pearson"),
            &pearson_r(&m, &h).unwrap(),
            &p["pearson"],
            n,
        );
        check_acc(
            &format!("{what}/acc_eq"),
            &pairwise_accuracy_tie_calibrated(&m, &h).unwrap(),
            &p["acc_eq"],
            n,
        );
        check_kl(&mut w, &what, &m, &h, &p["kl"]);
    }
    let mut kappas = 0;
    for (el, gold) in g["randolph_k4"].as_object().unwrap() {
        let i = headers
            .iter()
            .position(|h| h == format!("{el}_ratings"))
            .unwrap();
        let rows: Vec<Vec<Option<u8>>> = records
            .iter()
            .map(|r| {
                r.get(i)
                    .unwrap()
                    .split('|')
                    .map(|v| v.parse::<u8>().ok())
                    .collect()
            })
            .collect();
        let r = randolph_kappa(&rows, 4).unwrap();
        w.stat(&format!("kappa {el}"), r.kappa.unwrap(), f(&gold["kappa"]));
        assert_eq!(r.n_items as u64, gold["n_items"].as_u64().unwrap());
        kappas += 1;
    }
    eprintln!(
        "stats parity (real, Shaib 2023, {} documents): {} column pairs, {kappas} kappas, {} values compared; max |Δ| statistic {:.2e}, p {:.2e}",
        records.len(),
        pairs.len(),
        w.compared,
        w.stat,
        w.p
    );
}
