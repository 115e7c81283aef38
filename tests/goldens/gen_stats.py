#!/usr/bin/env python3
"""Goldens for crates/factpico-stats, checked by tests/stats_parity.rs.

Writes tests/goldens/stats.json (synthetic cases: inputs and reference
outputs) and tests/goldens/stats_real.json (statistics only, keyed by column
names, for ../shared/data/shaib2023/derived_human_avg_plain.csv; no data).

References, run unmodified:
  * scipy.stats.kendalltau(x, y, variant='b') (method 'auto' and
    'asymptotic'), scipy.stats.spearmanr, scipy.stats.pearsonr;
  * tie-calibrated pairwise accuracy: the authors' code,
    google-research/mt-metrics-eval `mt_metrics_eval/stats.py`
    `KendallWithTiesOpt(gold, metric, variant='acc23', sample_rate=1.0)`
    (which calls `tau_optimization.py`) and `KendallVariants(...,
    variant='acc23', epsilon=e)`. The three module files (stats.py,
    tau_optimization.py, pce.py) are read at run time from the git mirror
    with `git show` into a temporary package and imported; nothing is
    vendored.
  * Randolph's kappa: statsmodels.stats.inter_rater.fleiss_kappa(table,
    method='randolph') for complete data, and a hand-written
    implementation of Randolph (2005) with per-item agreement (needed for
    missing ratings), cross-checked against statsmodels here.
  * KL between Gaussian fits: scipy.stats.norm.fit on min-max-normalised
    scores; the closed form, and scipy.integrate.quad of p*ln(p/q) as an
    independent check.

Usage (venv with numpy, scipy, statsmodels; see THIRD_PARTY/this header;
--mtme-repo defaults to $MTME_REPO, a checkout of google-research/mt-metrics-eval):
  $STATS_VENV/bin/python tests/goldens/gen_stats.py \
      [--mtme-repo CHECKOUT] [--shared ../shared]
"""

import argparse
import csv
import importlib
import itertools
import json
import math
import os
import platform
import subprocess
import sys
import tempfile
import warnings

import numpy as np
import scipy
import scipy.integrate
import scipy.special
import scipy.stats
import statsmodels
from statsmodels.stats.inter_rater import fleiss_kappa

HERE = os.path.dirname(os.path.abspath(__file__))
MTME_FILES = ["stats.py", "tau_optimization.py", "pce.py"]


def add_mtme_repo_argument(ap):
    """``--mtme-repo``: a checkout of google-research/mt-metrics-eval (default ``$MTME_REPO``;
    required when that is unset)."""
    ap.add_argument("--mtme-repo", default=os.environ.get("MTME_REPO"), required="MTME_REPO" not in os.environ,
                    help="a checkout of google-research/mt-metrics-eval (default $MTME_REPO)")


def load_mtme(repo):
    """Imports the authors' stats module from the git mirror (HEAD)."""
    commit = subprocess.check_output(["git", "-C", repo, "rev-parse", "HEAD"], text=True).strip()
    tmp = tempfile.mkdtemp(prefix="mtme_")
    pkg = os.path.join(tmp, "mt_metrics_eval")
    os.makedirs(pkg)
    open(os.path.join(pkg, "__init__.py"), "w").close()
    for f in MTME_FILES:
        src = subprocess.check_output(["git", "-C", repo, "show", f"HEAD:mt_metrics_eval/{f}"])
        with open(os.path.join(pkg, f), "wb") as fh:
            fh.write(src)
    sys.path.insert(0, tmp)
    return importlib.import_module("mt_metrics_eval.stats"), commit


def fnum(v):
    """JSON-safe float: NaN/inf -> None."""
    if v is None:
        return None
    v = float(v)
    return v if math.isfinite(v) else None


def complete(x, y):
    keep = [i for i in range(len(x)) if math.isfinite(x[i]) and math.isfinite(y[i])]
    return [x[i] for i in keep], [y[i] for i in keep], len(x) - len(keep)


def seq_mean(v):
    """Sequential-sum mean, the definition the Rust crate documents."""
    s = 0.0
    for a in v:
        s += a
    return s / len(v)


def scipy_corr(fn, x, y, **kw):
    if len(x) < 2:
        return None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            r = fn(x, y, **kw)
        except (ValueError, ZeroDivisionError):
            return None
    return {"statistic": fnum(r.statistic), "p_value": fnum(r.pvalue)}


def has_ties(v):
    return len(set(v)) < len(v)


def kendall_auto_method(x, y):
    """Which p-value scipy's method='auto' uses (mirrors scipy 1.17 logic)."""
    n = len(x)
    if has_ties(x) or has_ties(y):
        return "kendall_asymptotic"
    dis = sum(1 for i, j in itertools.combinations(range(n), 2) if (x[i] - x[j]) * (y[i] - y[j]) < 0)
    tot = n * (n - 1) // 2
    return "kendall_exact" if (n <= 33 or min(dis, tot - dis) <= 1) else "kendall_asymptotic"


def kl_reference(metric, human):
    """KL(N_h || N_m) of norm.fit on min-max-normalised scores; closed form and quad."""
    if len(metric) < 2:
        return None

    def mm(v):
        lo, hi = min(v), max(v)
        if lo >= hi:
            return None
        return [(a - lo) / (hi - lo) for a in v]

    h, m = mm(human), mm(metric)
    if h is None or m is None:
        return None
    mu_h, sd_h = scipy.stats.norm.fit(h)
    mu_m, sd_m = scipy.stats.norm.fit(m)
    closed = math.log(sd_m / sd_h) + (sd_h**2 + (mu_h - mu_m) ** 2) / (2 * sd_m**2) - 0.5
    p, q = scipy.stats.norm(mu_h, sd_h), scipy.stats.norm(mu_m, sd_m)
    quad, _ = scipy.integrate.quad(
        lambda t: p.pdf(t) * (p.logpdf(t) - q.logpdf(t)),
        mu_h - 40 * sd_h, mu_h + 40 * sd_h, points=[mu_h, mu_m], limit=500,
        epsabs=1e-14, epsrel=1e-12)
    assert abs(closed - quad) < 1e-9 * max(1.0, abs(closed)), (closed, quad)
    return {"kl": closed, "kl_quad": quad,
            "human_fit": [float(mu_h), float(sd_h)], "metric_fit": [float(mu_m), float(sd_m)]}


def vector_case(mstats, name, metric, human, fixed_eps=()):
    """All statistics of one (metric, human) pair. x = metric, y = human."""
    xc, yc, excluded = complete(metric, human)
    n = len(xc)
    out = {"name": name, "metric": [fnum(v) for v in metric], "human": [fnum(v) for v in human],
           "n": n, "n_excluded": excluded}
    out["kendall"] = scipy_corr(scipy.stats.kendalltau, xc, yc, variant="b")
    out["kendall_asymptotic"] = scipy_corr(scipy.stats.kendalltau, xc, yc, variant="b",
                                           method="asymptotic")
    if out["kendall"] is not None and n >= 2:
        out["kendall"]["method"] = kendall_auto_method(xc, yc)
    out["spearman"] = scipy_corr(scipy.stats.spearmanr, xc, yc)
    out["pearson"] = scipy_corr(scipy.stats.pearsonr, xc, yc)
    if n >= 2:
        acc, eps, _ = mstats.KendallWithTiesOpt(list(yc), list(xc), variant="acc23", sample_rate=1.0)
        out["acc_eq"] = {"accuracy": float(acc), "epsilon": float(eps)}
        out["acc_fixed"] = []
        for e in fixed_eps:
            a, _ = mstats.KendallVariants(np.array(yc), np.array(xc), variant="acc23", epsilon=e)
            out["acc_fixed"].append({"epsilon": e, "accuracy": float(a)})
    else:
        out["acc_eq"] = None
        out["acc_fixed"] = []
    out["kl"] = kl_reference(xc, yc)
    return out


def system_case(mstats, name, items, systems, metric, human):
    rows = {}
    for s, m, h in zip(systems, metric, human):
        if math.isfinite(m) and math.isfinite(h):
            rows.setdefault(s, ([], []))
            rows[s][0].append(m)
            rows[s][1].append(h)
    sys_ids = sorted(rows)
    mm = [seq_mean(rows[s][0]) for s in sys_ids]
    hm = [seq_mean(rows[s][1]) for s in sys_ids]
    out = {"name": name, "items": items, "systems": systems,
           "metric": [fnum(v) for v in metric], "human": [fnum(v) for v in human],
           "system_ids": sys_ids, "system_metric_means": mm, "system_human_means": hm,
           "n_excluded": sum(1 for m, h in zip(metric, human) if not (math.isfinite(m) and math.isfinite(h)))}
    inst = vector_case(mstats, name + "/instance", metric, human)
    out["instance"] = {k: inst[k] for k in ("kendall", "spearman", "pearson", "acc_eq")}
    if len(sys_ids) >= 3:
        sc = vector_case(mstats, name + "/system", mm, hm)
        out["system"] = {k: sc[k] for k in ("kendall", "spearman", "pearson", "acc_eq")}
    else:
        out["system"] = None
    return out


def randolph(ratings, k):
    """Randolph (2005) free-marginal kappa, P_i = sum_j n_ij(n_ij-1)/(r_i(r_i-1))."""
    ps = []
    for row in ratings:
        vals = [v for v in row if v is not None]
        r = len(vals)
        if r < 2:
            continue
        counts = {}
        for v in vals:
            counts[v] = counts.get(v, 0) + 1
        ps.append(sum(c * (c - 1) for c in counts.values()) / (r * (r - 1)))
    if not ps:
        return None
    po = sum(ps) / len(ps)
    return {"kappa": (po - 1 / k) / (1 - 1 / k), "observed_agreement": po, "n_items": len(ps)}


def kappa_case(name, ratings, k, categories):
    out = {"name": name, "ratings": ratings, "n_categories": k, "ours": randolph(ratings, k)}
    if all(v is not None for row in ratings for v in row) and len({len(r) for r in ratings}) == 1:
        table = np.array([[sum(1 for v in row if v == c) for c in categories] for row in ratings])
        sm = float(fleiss_kappa(table, method="randolph"))
        assert abs(sm - out["ours"]["kappa"]) < 1e-13, (name, sm, out["ours"])
        out["statsmodels"] = sm
    else:
        out["statsmodels"] = None
    return out


def pvalue_grid():
    rows = []
    for n in [3, 4, 5, 7, 10, 30, 100, 1000, 10_000, 100_000, 1_000_000]:
        a = n / 2 - 1
        for r in [0.0, 1e-4, 1e-3, 0.01, 0.03, 0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 0.9, 0.99, 0.999, 1.0]:
            p_beta = float(2 * scipy.special.betaincc(a, a, (abs(r) + 1) / 2))
            dof = n - 2
            with np.errstate(divide="ignore"):
                # as in scipy.stats.spearmanr
                t = r * np.sqrt((dof / ((np.float64(r) + 1.0) * (1.0 - np.float64(r)))).clip(0))
            p_t = float(2 * scipy.special.stdtr(dof, -abs(t)))
            rows.append({"n": n, "r": r, "pearson_p": p_beta, "student_t_p": p_t})
    return rows


def synthetic(mstats):
    rng = np.random.default_rng(20240611)
    cases = []

    def corr_pair(n, rho=0.5):
        x = rng.normal(size=n)
        y = rho * x + math.sqrt(1 - rho**2) * rng.normal(size=n)
        return x, y

    # tiny n
    cases.append(vector_case(mstats, "n1", [0.3], [2.0]))
    cases.append(vector_case(mstats, "n2", [0.3, 0.1], [2.0, 3.0]))
    cases.append(vector_case(mstats, "n3", [0.3, 0.1, 0.7], [2.0, 3.0, 4.0]))
    cases.append(vector_case(mstats, "n3_ties", [0.5, 0.5, 0.7], [2.0, 3.0, 3.0]))
    # continuous, exact Kendall p path (n <= 33, no ties)
    for n in [10, 20, 33]:
        x, y = corr_pair(n)
        cases.append(vector_case(mstats, f"continuous_n{n}", list(x), list(y), fixed_eps=[0.0, 0.1, 0.5]))
    # continuous, asymptotic path
    for n in [34, 100, 1000]:
        x, y = corr_pair(n, rho=0.3)
        x = np.round(x, 6)
        y = np.round(y, 6)
        cases.append(vector_case(mstats, f"continuous_n{n}", list(x), list(y), fixed_eps=[0.05]))
    # near-sorted n = 60: one discordant pair -> exact via min(dis, tot-dis) <= 1
    x = list(range(60))
    y = list(range(60))
    y[10], y[11] = y[11], y[10]
    cases.append(vector_case(mstats, "sorted_one_swap_n60", [float(v) for v in x], [float(v) for v in y]))
    # perfectly anti-sorted n = 40 -> exact, c = 0
    cases.append(vector_case(mstats, "antisorted_n40", [float(v) for v in range(40)],
                             [float(-v) for v in range(40)]))
    # human-like integer 1..4 scores with a continuous metric
    for n in [10, 100, 1000]:
        h = rng.integers(1, 5, size=n).astype(float)
        m = np.round(0.2 * h + rng.normal(scale=0.4, size=n), 4)
        cases.append(vector_case(mstats, f"human_1to4_n{n}", list(m), list(h), fixed_eps=[0.0, 0.05, 0.2]))
    # heavy ties on both sides
    for n in [10, 100, 1000]:
        h = rng.integers(1, 5, size=n).astype(float)
        m = np.round(rng.uniform(size=n) + 0.1 * h, 1)
        cases.append(vector_case(mstats, f"heavy_ties_n{n}", list(m), list(h), fixed_eps=[0.1]))
    # averaged human ratings (thirds), ceiling effect like Shaib/FactPICO
    h = np.clip(np.round(4 - np.abs(rng.normal(scale=0.5, size=100)) * 3) / 3, 1, 4)
    m = np.round(rng.beta(5, 1, size=100), 5)
    cases.append(vector_case(mstats, "ceiling_n100", list(m), list(h)))
    # missing values
    x, y = corr_pair(100)
    x = np.round(x, 5)
    y = np.round(y, 5)
    x[[3, 17, 50]] = np.nan
    y[[17, 20, 99]] = np.nan
    cases.append(vector_case(mstats, "nans_n100", list(x), list(y)))
    cases.append(vector_case(mstats, "nans_leave_2", [1.0, float("nan"), 3.0, 4.0], [2.0, 1.0, float("nan"), 5.0]))
    cases.append(vector_case(mstats, "nans_leave_3", [1.0, float("nan"), 3.0, 4.0, 0.5], [2.0, 1.0, float("nan"), 5.0, 1.0]))
    # constant inputs
    cases.append(vector_case(mstats, "constant_human", [0.1, 0.5, 0.3, 0.9], [3.0, 3.0, 3.0, 3.0]))
    cases.append(vector_case(mstats, "constant_metric", [0.5, 0.5, 0.5, 0.5], [1.0, 2.0, 3.0, 4.0]))
    # negative association, integer both
    h = rng.integers(1, 5, size=50).astype(float)
    m = (5 - h + rng.integers(-1, 2, size=50)).astype(float)
    cases.append(vector_case(mstats, "negative_integers_n50", list(m), list(h)))

    systems = []
    # 40 items x 4 systems
    for (n_items, n_sys, nan_rows, name) in [(40, 4, [], "items40_sys4"), (30, 2, [], "items30_sys2"),
                                             (20, 5, [3, 7, 44], "items20_sys5_nans"),
                                             (25, 3, [], "items25_sys3")]:
        items, syss, met, hum = [], [], [], []
        quality = rng.normal(size=n_sys)
        for s in range(n_sys):
            for i in range(n_items):
                items.append(f"doc{i:03d}")
                syss.append(f"sys{s}")
                q = quality[s] + rng.normal(scale=0.7)
                met.append(round(float(q + rng.normal(scale=0.5)), 6))
                hum.append(float(min(4, max(1, round(3 + q)))))
        for r in nan_rows:
            met[r] = float("nan")
        systems.append(system_case(mstats, name, items, syss, met, hum))

    kappas = []
    cats = [1, 2, 3, 4]
    kappas.append(kappa_case("worked_3x3", [[4, 4, 4], [4, 4, 3], [1, 2, 3]], 4, cats))
    for n_items, n_raters, k, p_missing, name in [(30, 3, 4, 0.0, "complete_30x3_k4"),
                                                  (50, 5, 3, 0.0, "complete_50x5_k3"),
                                                  (40, 3, 4, 0.15, "missing_40x3_k4"),
                                                  (25, 6, 5, 0.3, "missing_25x6_k5")]:
        truth = rng.integers(1, k + 1, size=n_items)
        rows = []
        for i in range(n_items):
            row = []
            for _ in range(n_raters):
                v = int(truth[i]) if rng.uniform() < 0.6 else int(rng.integers(1, k + 1))
                row.append(None if rng.uniform() < p_missing else v)
            rows.append(row)
        kappas.append(kappa_case(name, rows, k, list(range(1, k + 1))))
    return cases, systems, kappas


REAL_COLUMNS = ["population_mean", "intervention_mean", "outcome_mean", "avg_pio", "key_result_mean"]


def real(mstats, shared):
    path = os.path.join(shared, "data", "shaib2023", "derived_human_avg_plain.csv")
    if not os.path.exists(path):
        print(f"SKIP real data: {path} not found", file=sys.stderr)
        return None
    with open(path, newline="") as fh:
        rows = list(csv.DictReader(fh))
    col = {c: [float(r[c]) if r[c] != "" else float("nan") for r in rows] for c in REAL_COLUMNS}
    pairs = []
    for human, metric in itertools.permutations(REAL_COLUMNS, 2):
        c = vector_case(mstats, f"{metric}~{human}", col[metric], col[human])
        pairs.append({"metric": metric, "human": human, "n": c["n"], "n_excluded": c["n_excluded"],
                      **{k: c[k] for k in ("kendall", "kendall_asymptotic", "spearman", "pearson", "acc_eq", "kl")}})
    kap = {}
    for el in ["population", "intervention", "outcome"]:
        ratings = [[None if v == "NA" else int(v) for v in r[f"{el}_ratings"].split("|")] for r in rows]
        kap[el] = randolph(ratings, 4)
        kap[el]["n_items_total"] = len(ratings)
    return {"file": "data/shaib2023/derived_human_avg_plain.csv", "n_rows": len(rows),
            "columns": REAL_COLUMNS, "pairs": pairs, "randolph_k4": kap}


def main():
    ap = argparse.ArgumentParser()
    add_mtme_repo_argument(ap)
    ap.add_argument("--shared", default=os.path.join(HERE, "..", "..", "..", "shared"))
    args = ap.parse_args()
    mstats, commit = load_mtme(args.mtme_repo)
    versions = {"python": platform.python_version(), "numpy": np.__version__, "scipy": scipy.__version__,
                "statsmodels": statsmodels.__version__,
                "mt_metrics_eval": f"google-research/mt-metrics-eval@{commit} (stats.py, tau_optimization.py, pce.py)"}
    cases, systems, kappas = synthetic(mstats)
    doc = {"generator": "tests/goldens/gen_stats.py", "versions": versions,
           "tolerances": {"statistic": 1e-12, "p_value": 1e-10},
           "vectors": cases, "systems": systems, "kappa": kappas, "pvalue_grid": pvalue_grid()}
    with open(os.path.join(HERE, "stats.json"), "w") as fh:
        json.dump(doc, fh, separators=(",", ":"), allow_nan=False)
        fh.write("\n")
    r = real(mstats, args.shared)
    if r is not None:
        with open(os.path.join(HERE, "stats_real.json"), "w") as fh:
            json.dump({"generator": "tests/goldens/gen_stats.py", "versions": versions, **r}, fh, indent=1,
                      allow_nan=False)
            fh.write("\n")
    print(f"wrote {len(cases)} vector cases, {len(systems)} system cases, {len(kappas)} kappa cases"
          + ("" if r is None else f", {len(r['pairs'])} real column pairs"))


if __name__ == "__main__":
    main()
