#!/usr/bin/env python3
"""Tables of issue 24's Shaib 2023 measurement (docs/meta-eval.md) from the outputs of
docs/llm-shaib.sh (stdlib only; runs ``factpico meta-eval``).

For each variant whose output ``D/shaib100.<variant>.jsonl`` exists (``ro``, ``pub``, ``rf``,
``s5``, ``mc``, and the 30-row ``ro30``, ``pub30``, ``rf30``, ``mc30``): ``factpico meta-eval`` of its sampled and probability-weighted P, I, O and
P/I/O-mean columns against the experts' ``population_mean``, ``intervention_mean``,
``outcome_mean`` and ``avg_pio`` (``derived_human_avg_plain.csv``; 1,000 bootstrap resamples,
seed 0), then one Markdown table of the matching (column, aspect) pairs, and one of parse rates,
requests, tokens and wall time per variant (the wall time from ``D/shaib100.times.tsv``).

Usage:
  python3 docs/llm-shaib-tables.py [D=.factpico/llm] [FACTPICO=target/debug/factpico]
"""
import collections
import csv
import json
import os
import subprocess
import sys

D = sys.argv[1] if len(sys.argv) > 1 else ".factpico/llm"
FACTPICO = sys.argv[2] if len(sys.argv) > 2 else "target/debug/factpico"
RATINGS = "../shared/data/shaib2023/derived_human_avg_plain.csv"
VARIANTS = [
    ("ro", "rating-only prompts, one token"),
    ("pub", "published prompts, rating then rationale"),
    ("rf", "published prompts, rationale first"),
    ("s5", "rating-only, 5 samples at T 0.7 (30 rows)"),
    ("mc", "Bespoke-MiniCheck protocol"),
    ("ro30", "rating-only prompts, one token (30 rows)"),
    ("pub30", "published prompts, rating then rationale (30 rows)"),
    ("rf30", "published prompts, rationale first (30 rows)"),
    ("mc30", "Bespoke-MiniCheck protocol (30 rows)"),
    ("rf56", "published prompts, rationale first (first 56 rows: rf stopped)"),
    ("models", "context: ROUGE-L and AlignScore-style (MiniLM)"),
    ("models30", "context: ROUGE-L and AlignScore-style (MiniLM) (30 rows)"),
]
ASPECT = {"population": "population_mean", "intervention": "intervention_mean", "outcome": "outcome_mean", "pio": "avg_pio"}


def rows(path):
    return [json.loads(line) for line in open(path, encoding="utf-8") if line.strip()]


def columns(v, rs):
    if v.startswith("models"):
        return [(c, a) for c in ("rougeL", "alignscore") for a in ASPECT.values()]
    if v.startswith("mc"):
        cols = sorted({c for r in rs for c in r["scores"] if c.startswith("llm_minicheck")})
        return [(c, a) for c in cols for a in ASPECT.values()]  # one summary-level score, against each aspect
    out = []
    for el, aspect in ASPECT.items():
        for suffix in ("", "_weighted"):
            out.append((f"llm_{el}{suffix}", aspect))
    return out


def meta_eval(v, cols):
    metrics = ",".join(dict.fromkeys(c for c, _ in cols))
    aspects = ",".join(dict.fromkeys(a for _, a in cols))
    name = f"shaib100-{v}"
    cmd = [FACTPICO, "meta-eval", "--scores", f"{D}/shaib100.{v}.jsonl", "--ratings", RATINGS, "--ratings-id", "doc_id",
           "--allow-missing", "--aspects", aspects, "--metrics", metrics, "--human-range", "1,4", "--bootstrap", "1000",
           "--seed", "0", "--out-dir", D, "--name", name, "--format", "csv,md", "-q"]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return {(r["metric"], r["aspect"]): r for r in csv.DictReader(open(f"{D}/{name}.csv", encoding="utf-8")) if r["level"] == "instance"}


def f3(x):
    return f"{float(x):.3f}" if x not in ("", None) else "—"


def main():
    times = {}
    if os.path.exists(f"{D}/shaib100.times.tsv"):
        for line in open(f"{D}/shaib100.times.tsv", encoding="utf-8"):
            v, secs, rc, load = line.rstrip("\n").split("\t")
            times[v] = (int(secs), rc, load)  # the last run of a variant wins (a re-run from the cache is fast)
    agree, usage = [], []
    for v, label in VARIANTS:
        path = f"{D}/shaib100.{v}.jsonl"
        if not os.path.exists(path):
            continue
        rs = rows(path)
        cols = columns(v, rs)
        cells = meta_eval(v, cols)
        for c, a in cols:
            r = cells.get((c, a))
            if r is None:
                continue
            tau = f3(r["kendall_tau_b"])
            if r.get("kendall_tau_b_lo"):
                tau += f" [{f3(r['kendall_tau_b_lo'])}, {f3(r['kendall_tau_b_hi'])}]"
            elif r["null_reason"]:
                tau += f" ({r['null_reason'].split(';')[0]})"
            agree.append(f"| {v} | `{c}` | `{a}` | {r['n']} | {tau} | {f3(r['acc_eq'])} | {f3(r['acc_eq_tie_baseline'])} |")
        if v.startswith("models"):
            continue  # context columns: no requests
        # parse rates and tokens from the details
        replies = parsed = na = 0
        dist = collections.Counter()
        prompt = completion = 0
        for r in rs:
            m = (r.get("details") or {}).get("llm_minicheck") or {}
            for c in m.get("claims") or []:  # Bespoke-MiniCheck: one check per (chunk, claim)
                for k in c.get("checks") or []:
                    replies += 1
                    if k.get("support") is not None:
                        parsed += 1
                        dist[k.get("token")] += 1
                    u = k.get("usage") or {}
                    prompt += u.get("prompt_tokens", 0)
                    completion += u.get("completion_tokens", 0)
            d = (r.get("details") or {}).get("llm") or {}
            for e in (d.get("elements") or {}).values():
                for s in e.get("samples") or [e]:
                    if (s.get("null_reason") or "").startswith(("not requested", "incomplete")) or "reply" not in s:
                        continue
                    replies += 1
                    if s.get("rating") is not None:
                        parsed += 1
                        dist[s["rating"]] += 1
                    na += s.get("rating") == 5
                    u = s.get("usage") or {}
                    prompt += u.get("prompt_tokens", 0)
                    completion += u.get("completion_tokens", 0)
        secs, rc, load = times.get(v, ("—", "—", "—"))
        ratings = ", ".join(f"{k!s} ×{n}" for k, n in sorted(dist.items(), key=lambda kv: str(kv[0])))
        usage.append(f"| {v}: {label} | {len(rs)} | {replies} | {parsed} | {na} | {ratings} | {prompt:,} + {completion:,} | {secs} s (exit {rc}; load {load}) |")
    print("| variant | column | aspect | n | τ_b [95% CI] | acc_eq | base |")
    print("|---|---|---|---:|---|---:|---:|")
    print("\n".join(agree))
    print()
    print("| variant | rows | rating replies (MiniCheck: checks) | parsed | N/A | prompt ratings (MiniCheck: first token) | tokens (prompt + completion, as the server reported them) | wall (last run) |")
    print("|---|---:|---:|---:|---:|---|---:|---|")
    print("\n".join(usage))


if __name__ == "__main__":
    main()
