#!/usr/bin/env python3
"""Markdown tables of docs/llm.md's real-data section from factpico's own outputs (stdlib only):

* ``parse SCORES.jsonl [METRIC ...]``: per metric (default ``llm`` and ``llm_pipeline``, those
  present), the rating replies of ``details.<metric>.elements`` and ``.evidence``: how many
  parsed (a rating on the scale, N/A included), how many did not (null reason other than N/A /
  not requested / request failed), how many failed as requests, and the prompt-scale rating
  distribution.
* ``agreement META_EVAL.csv``: the instance-level rows of ``factpico meta-eval``'s CSV where the
  metric's element matches the aspect (``<m>_population`` × ``population_mean``, …,
  ``<m>_avg`` × ``avg_pio``): n, Kendall τ_b, Spearman ρ, tie-calibrated pairwise accuracy and
  its all-ties baseline.

Usage:
  python3 docs/llm-tables.py parse .factpico/llm/shaib_40.llm.jsonl
  python3 docs/llm-tables.py agreement .factpico/llm/smollm2-full-40.csv
"""
import collections
import csv
import json
import sys

NOT_REPLIES = ("not requested", "no evidence spans", "incomplete")


def parse(path, metrics):
    rows = [json.loads(line) for line in open(path, encoding="utf-8") if line.strip()]
    metrics = metrics or [m for m in ("llm", "llm_pipeline") if any(m in r.get("details", {}) for r in rows)]
    print("| metric | rating replies | parsed (N/A incl.) | N/A | not parsed | request failed | prompt ratings |")
    print("|---|---:|---:|---:|---:|---:|---|")
    for m in metrics:
        total = parsed = na = bad = failed = 0
        dist = collections.Counter()
        for r in rows:
            d = r.get("details", {}).get(m) or {}
            items = list((d.get("elements") or {}).values()) + list(d.get("evidence") or [])
            for e in items:
                reason = e.get("null_reason") or ""
                if reason.startswith(NOT_REPLIES):
                    continue
                total += 1
                if reason.startswith("request failed"):
                    failed += 1
                elif reason.startswith("N/A"):
                    parsed += 1
                    na += 1
                    dist["N/A"] += 1
                elif e.get("rating") is not None:
                    parsed += 1
                    dist[str(e["rating"])] += 1
                else:
                    bad += 1
        shown = ", ".join(f"{k} ×{v}" for k, v in sorted(dist.items()))
        print(f"| `{m}` | {total} | {parsed} | {na} | {bad} | {failed} | {shown} |")


def agreement(path):
    suffix = {"population": "population_mean", "intervention": "intervention_mean", "comparator": "comparator_mean",
              "outcome": "outcome_mean", "avg": "avg_pio"}
    print("| metric | aspect | n | τ_b | ρ | acc_eq | all-ties base |")
    print("|---|---|---:|---:|---:|---:|---:|")
    fmt = lambda v: f"{float(v):.3f}" if v not in ("", None) else "—"  # noqa: E731
    for r in csv.DictReader(open(path, encoding="utf-8")):
        if r["level"] != "instance":
            continue
        element = r["metric"].rsplit("_", 1)[-1]
        if suffix.get(element) != r["aspect"]:
            continue
        note = f" ({r['null_reason'].split(';')[0]})" if r["null_reason"] and not r["kendall_tau_b"] else ""
        print(f"| `{r['metric']}` | `{r['aspect']}` | {r['n']} | {fmt(r['kendall_tau_b'])}{note} | {fmt(r['spearman_rho'])} | "
              f"{fmt(r['acc_eq'])} | {fmt(r['acc_eq_tie_baseline'])} |")


if __name__ == "__main__":
    if len(sys.argv) < 3 or sys.argv[1] not in ("parse", "agreement"):
        sys.exit(__doc__)
    if sys.argv[1] == "parse":
        parse(sys.argv[2], sys.argv[3:])
    else:
        agreement(sys.argv[2])
