#!/usr/bin/env python3
"""Python reference timings matching examples/stats_speed.rs (same shapes,
numpy-seeded data, so values differ slightly from the Rust run).

  $STATS_VENV/bin/python crates/factpico-stats/tools/bench.py \
      [--mtme-repo CHECKOUT]   # default $MTME_REPO: a checkout of google-research/mt-metrics-eval
"""
import argparse
import os
import statistics
import sys
import time

import numpy as np
import scipy.stats

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "tests", "goldens"))
from gen_stats import add_mtme_repo_argument, load_mtme  # noqa: E402


def bench(name, runs, fn):
    wall, cpu = [], []
    for _ in range(runs):
        t, c = time.perf_counter(), time.thread_time()
        value = fn()
        wall.append((time.perf_counter() - t) * 1e3)
        cpu.append((time.thread_time() - c) * 1e3)
    print(f"{name:<42} wall median {statistics.median(wall):9.2f} ms, CPU median {statistics.median(cpu):9.2f} ms  value {value}")


def main():
    ap = argparse.ArgumentParser()
    add_mtme_repo_argument(ap)
    args = ap.parse_args()
    mstats, _ = load_mtme(args.mtme_repo)
    rng = np.random.default_rng(1)
    h = rng.integers(1, 5, size=100_000).astype(float)
    m = 0.2 * h + rng.uniform(size=h.size)
    bench("scipy kendalltau n=100000", 11, lambda: scipy.stats.kendalltau(m, h).statistic)
    bench("scipy spearmanr n=100000", 11, lambda: scipy.stats.spearmanr(m, h).statistic)
    bench("scipy pearsonr n=100000", 11, lambda: scipy.stats.pearsonr(m, h).statistic)
    for k, runs in [(1000, 3), (3000, 1)]:
        bench(f"mt-metrics-eval KendallWithTiesOpt n={k}", runs,
              lambda: mstats.KendallWithTiesOpt(list(h[:k]), list(m[:k]), variant="acc23", sample_rate=1.0)[0])


if __name__ == "__main__":
    main()
