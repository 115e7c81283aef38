#!/usr/bin/env python3
"""Writes a large score file for the scale measurements of BENCHMARKS.md (issue 23, class 11):
N rows made from the rows of a real `factpico score` output (TEMPLATE, schema 3, with its
`TEMPLATE.provenance.json`), cycled with unique ids (`<id>-<k>`) and, with --jitter, score
values moved by a deterministic amount, so that `factpico diff` has drift to report. The
provenance file is copied beside OUT. Streams: memory does not grow with N.

    python3 tests/scale/make_score_file.py TEMPLATE.jsonl OUT.jsonl --rows 1000000 [--jitter 1e-6] [--ratings R.csv]
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("template")
    ap.add_argument("out")
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--jitter", type=float, default=0.0, help="add k*JITTER to every value of row k modulo 7")
    ap.add_argument("--ratings", help="also write a ratings CSV (id, system, a 1-4 rating `human`) joining every row")
    a = ap.parse_args()
    rows = [json.loads(l) for l in open(a.template, encoding="utf-8") if l.strip()]
    if not rows or "run" not in rows[0]:
        sys.exit(f"{a.template}: not a schema-3 score file (rows with `run`)")
    shutil.copyfile(a.template + ".provenance.json", a.out + ".provenance.json")
    ratings = open(a.ratings, "w", encoding="utf-8") if a.ratings else None
    if ratings:
        ratings.write("id,system,human\n")
    with open(a.out, "w", encoding="utf-8") as f:
        for k in range(a.rows):
            r = dict(rows[k % len(rows)])
            r["id"] = f"{r['id']}-{k}"
            r["row"] = k + 1
            if a.jitter:
                r["scores"] = {c: (v + (k % 7) * a.jitter if isinstance(v, (int, float)) else v) for c, v in r["scores"].items()}
            f.write(json.dumps(r, ensure_ascii=False, separators=(",", ":")) + "\n")
            if ratings:
                ratings.write(f"{r['id']},{r.get('system') or ''},{1 + (k * 7919) % 4}\n")
    if ratings:
        ratings.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
