#!/usr/bin/env python3
"""Peak RSS of the Python API at scale (issues 20 and 23, BENCHMARKS.md "Scale"): each mode
runs in this process, which must be fresh; prints one JSON line.

    python tests/scale/python_rss.py score 100000        # Scorer(["rougeL"]).score of N pairs
    python tests/scale/python_rss.py iter 1000000        # Scorer(["rougeL"]).iter_score, 10,000 a batch

Pairs are the 12 fixture pairs (fixtures/pairs.jsonl) cycled to N, generated lazily for `iter`
(a generator: nothing but the current batch is held); `score` holds the N input texts and rows,
as a user's list would.
"""

from __future__ import annotations

import json
import resource
import sys
import time
from pathlib import Path

import factpico

REPO = Path(__file__).resolve().parents[2]


def main() -> int:
    mode, n = sys.argv[1], int(sys.argv[2])
    pairs = [json.loads(l) for l in (REPO / "fixtures/pairs.jsonl").read_text(encoding="utf-8").splitlines() if l.strip()]
    scorer = factpico.Scorer(["rougeL"])
    t0 = time.perf_counter()
    if mode == "score":
        src = [pairs[i % len(pairs)]["source"] for i in range(n)]
        summ = [pairs[i % len(pairs)]["summary"] for i in range(n)]
        rows = scorer.score(src, summ)
        count = len(rows)
    elif mode == "iter":
        count = 0
        src = (pairs[i % len(pairs)]["source"] for i in range(n))
        summ = (pairs[i % len(pairs)]["summary"] for i in range(n))
        for batch in scorer.iter_score(src, summ, batch_size=10_000):
            count += len(batch)
    else:
        sys.exit(f"unknown mode {mode}")
    wall = time.perf_counter() - t0
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"mode": mode, "pairs": n, "rows": count, "wall_s": round(wall, 1), "peak_rss_mb": round(peak_mb)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
