"""The Python package's benchmarks (``cargo xtask bench python``; not tests). One run, same
inputs, ratios. Prints a Markdown section for BENCHMARKS.md and writes JSON to ``--out``.

Sections:
* ``rouge``: ROUGE-L/Lsum (stemmer on) of the 300 real pairs: factpico's drop-in vs rouge-score
  0.1.2 and vs rouge-score-rs 0.2.1 (the Python face of the same ``rougers`` core, so that ratio
  is the binding's overhead), per call and batched.
* ``textstat``: FKGL + FRE of the 600 real texts, factpico's drop-in vs textstat 0.7.3.
* ``overhead``: ns per call of tiny calls from Python, against the Rust API's ns per call
  (``--rust-json``, from ``examples/call_overhead.rs``).
* ``ray``: rows/s of ``factpico.ray.score`` with 1 and 2 actors (1 CPU each) on a local Ray
  cluster (``num_cpus=2``), AlignScore with the shared MiniLM NLI model (a real model).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any, Callable, Dict, List

REPO = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(REPO / "tests" / "goldens"))
import corpus  # noqa: E402

TARGET = "The drug lowered blood pressure in adults."
PREDICTION = "Blood pressure fell in adults."


def best(f: Callable[[], Any], repeat: int) -> float:
    """Best wall time of ``repeat`` runs of ``f``, seconds."""
    out = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        f()
        out = min(out, time.perf_counter() - t)
    return out


def bench_rouge(pairs: List[Any], repeat: int) -> Dict[str, Any]:
    from rouge_score import rouge_scorer as ref
    from rouge_score_rs import rouge_scorer as rs

    from factpico.rouge_score import rouge_scorer as fp

    types = ["rougeL", "rougeLsum"]
    scorers = {"rouge-score": ref.RougeScorer(types, use_stemmer=True), "rouge-score-rs": rs.RougeScorer(types, use_stemmer=True), "factpico": fp.RougeScorer(types, use_stemmer=True)}
    src = [p[1] for p in pairs]
    summ = [p[2] for p in pairs]
    results = {name: [s.score(t, p) for t, p in zip(src, summ)] for name, s in scorers.items()}
    for name in ("rouge-score-rs", "factpico"):
        assert [{k: tuple(v) for k, v in r.items()} for r in results[name]] == [{k: tuple(v) for k, v in r.items()} for r in results["rouge-score"]], name
    t = {name: best(lambda s=s: [s.score(a, b) for a, b in zip(src, summ)], repeat if name != "rouge-score" else max(1, repeat // 2)) for name, s in scorers.items()}
    t["rouge-score-rs batch"] = best(lambda: scorers["rouge-score-rs"].score_batch(src, summ), repeat)
    t["factpico batch"] = best(lambda: scorers["factpico"].score_batch(src, summ), repeat)
    return {"pairs": len(pairs), "seconds": t}


def bench_textstat(pairs: List[Any], repeat: int) -> Dict[str, Any]:
    import textstat

    from factpico import textstat as ft

    texts = [t for p in pairs for t in (p[1], p[2])]
    for x in texts:
        assert (ft.flesch_kincaid_grade(x), ft.flesch_reading_ease(x)) == (textstat.flesch_kincaid_grade(x), textstat.flesch_reading_ease(x))

    def ref() -> None:
        for x in texts:
            textstat.flesch_kincaid_grade(x)
            textstat.flesch_reading_ease(x)

    def ours() -> None:
        for x in texts:
            ft.flesch_kincaid_grade(x)
            ft.flesch_reading_ease(x)

    # textstat memoises per text (lru_cache, 128 entries); 600 distinct texts in a cycle never hit it.
    t = {"textstat 0.7.3": best(ref, max(1, repeat // 2)), "factpico": best(ours, repeat), "factpico batch": best(lambda: ft.textstat.flesch_batch(texts), repeat)}
    return {"texts": len(texts), "seconds": t}


def bench_overhead(rust: Dict[str, float]) -> Dict[str, Any]:
    import factpico
    from factpico import textstat as ft
    from factpico.rouge_score import rouge_scorer as fp

    rouge = fp.RougeScorer(["rougeL"], use_stemmer=True)
    scorer = factpico.Scorer(metrics=["rougeL"], sentence_spans=False)

    def per_call(n: int, f: Callable[[], Any]) -> float:
        return best(lambda: [f() for _ in range(n)], 5) / n * 1e9

    py = {
        "rouge_score": per_call(100_000, lambda: rouge.score(TARGET, PREDICTION)),
        "flesch_kincaid_grade": per_call(100_000, lambda: ft.flesch_kincaid_grade(TARGET)),
        "scorer_score_1_pair": per_call(20_000, lambda: scorer.score([TARGET], [PREDICTION])),
    }
    return {"python_ns": py, "rust_ns": rust, "overhead_ns": {k: py[k] - rust.get(k, float("nan")) for k in py}}


def bench_ray(pairs: List[Any], model: Path, rows: int, batch_size: int) -> Dict[str, Any]:
    import ray

    import factpico.ray as fray

    os.environ.setdefault("RAY_AUTH_MODE", "disabled")
    items = [{"id": f"{p[0]}#{k}", "source": p[1], "summary": p[2]} for k in range(rows // len(pairs) + 1) for p in pairs][:rows]
    options = {"alignscore": {"model": str(model), "max_length": 256, "words_per_chunk": 150}}
    out: Dict[str, Any] = {"rows": rows, "batch_size": batch_size, "metric": "alignscore (MiniLM NLI, max_length 256)"}
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    try:
        for actors in (1, 2):
            ds = ray.data.from_items(items)
            # Timed end to end: actor start and model load (once per actor) are included.
            t = time.perf_counter()
            n = fray.score(ds, metrics=["alignscore"], num_actors=actors, num_cpus_per_actor=1, batch_size=batch_size, **options).count()
            dt = time.perf_counter() - t
            assert n == rows
            out[f"{actors}_actor_seconds"] = dt
            out[f"{actors}_actor_rows_per_s"] = rows / dt
    finally:
        ray.shutdown()
    return out


def bench_alignscore(model: Path, pairs_json: Path, reference_json: Path) -> Dict[str, Any]:
    """factpico's AlignScore drop-in on the pairs the unmodified reference ran on (same random
    RoBERTa-base-shaped checkpoint, exported), 2 threads as the reference."""
    import factpico
    from factpico.alignscore import AlignScore

    pairs = json.loads(pairs_json.read_text(encoding="utf-8"))
    ref = json.loads(reference_json.read_text(encoding="utf-8"))
    factpico.set_num_threads(2)
    scorer = AlignScore(ckpt_path=model, batch_size=2, threads=2, evaluation_mode="nli_sp")
    t0, c0 = time.perf_counter(), time.process_time()
    scores = scorer.score(contexts=[p[1] for p in pairs], claims=[p[2] for p in pairs])
    secs, cpu = time.perf_counter() - t0, time.process_time() - c0
    diffs = [abs(a - b) for a, b in zip(scores, ref["scores"]) if b is not None]
    import resource

    return {
        "pairs": len(pairs), "seconds": secs, "cpu_seconds": cpu, "pairs_per_s": len(pairs) / secs,
        "reference_seconds": ref["seconds"], "reference_cpu_seconds": ref["cpu_seconds"], "reference_pairs_per_s": ref["pairs_per_s"],
        "max_abs_diff": max(diffs), "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "reference_peak_rss_mb": ref["peak_rss_mb"], "scores": [float(x) if x == x else None for x in scores],
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("sections", nargs="*", default=["rouge", "textstat", "overhead", "ray"])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--rust-json", default="{}")
    ap.add_argument("--ray-rows", type=int, default=int(os.environ.get("FACTPICO_BENCH_RAY_ROWS", "300")))
    # Batches per actor decide the 2-actor balance: 12+ batches keep the idle tail short.
    ap.add_argument("--ray-batch-size", type=int, default=None, help="rows per Ray batch (default: rows / 12, at least 1)")
    ap.add_argument("--out", type=Path)
    ap.add_argument("--alignscore-model", type=Path)
    ap.add_argument("--alignscore-pairs", type=Path)
    ap.add_argument("--alignscore-reference", type=Path)
    a = ap.parse_args()
    pairs = list(corpus.pairs())
    load = os.getloadavg()
    res: Dict[str, Any] = {"load_average_at_start": load, "cpus": os.cpu_count()}

    def section(name: str, f: Callable[[], Dict[str, Any]]) -> None:
        # Each finished section is saved (and its Markdown printed to stderr) at once, so a
        # section that stalls or is interrupted never costs the ones measured before it.
        t = time.perf_counter()
        res[name] = f()
        res["load_average_at_end"] = os.getloadavg()
        if a.out:
            tmp = a.out.with_suffix(".json.partial")
            tmp.write_text(json.dumps(res, indent=2))
            os.replace(tmp, a.out)
        print(f"bench.py: section {name} done in {time.perf_counter() - t:.0f}s", file=sys.stderr, flush=True)
        print(markdown(res, only=name), file=sys.stderr, flush=True)

    if "rouge" in a.sections:
        section("rouge", lambda: bench_rouge(pairs, a.repeat))
    if "textstat" in a.sections:
        section("textstat", lambda: bench_textstat(pairs, a.repeat))
    if "overhead" in a.sections:
        section("overhead", lambda: bench_overhead(json.loads(a.rust_json)))
    if a.alignscore_model:
        section("alignscore", lambda: bench_alignscore(a.alignscore_model, a.alignscore_pairs, a.alignscore_reference))
    if "ray" in a.sections:
        section("ray", lambda: bench_ray(pairs, corpus.shared_root() / "models" / "minilm-nli", a.ray_rows, a.ray_batch_size or max(1, a.ray_rows // 12)))
    res["load_average_at_end"] = os.getloadavg()
    print(markdown(res))


def markdown(r: Dict[str, Any], only: str = "") -> str:
    """The Markdown of the measured sections (of section ``only`` when given)."""
    if only:
        r = {k: v for k, v in r.items() if k in ("load_average_at_start", "load_average_at_end", "cpus", only)}
    lines = [f"Load average at start / end: {r['load_average_at_start'][0]:.1f} / {r['load_average_at_end'][0]:.1f} on {r['cpus']} CPUs.", ""]
    if "rouge" in r:
        t = r["rouge"]["seconds"]
        lines += [
            f"ROUGE-L + ROUGE-Lsum, stemmer on, {r['rouge']['pairs']} real pairs (values identical across the three):", "",
            "| implementation | seconds | vs rouge-score | vs rouge-score-rs (same core) |", "|---|---:|---:|---:|",
        ]
        for k in ("rouge-score", "rouge-score-rs", "factpico", "rouge-score-rs batch", "factpico batch"):
            lines.append(f"| {k} | {t[k]:.4f} | {t['rouge-score'] / t[k]:.1f}x faster | {t[k] / t['rouge-score-rs' if 'batch' not in k else 'rouge-score-rs batch']:.2f}x the time |")
        lines.append("")
    if "textstat" in r:
        t = r["textstat"]["seconds"]
        lines += [f"FKGL + FRE of {r['textstat']['texts']} real texts (values identical):", "", "| implementation | seconds | vs textstat |", "|---|---:|---:|"]
        for k in ("textstat 0.7.3", "factpico", "factpico batch"):
            lines.append(f"| {k} | {t[k]:.4f} | {t['textstat 0.7.3'] / t[k]:.1f}x faster |")
        lines.append("")
    if "overhead" in r:
        o = r["overhead"]
        lines += ["Per call, tiny inputs (ns):", "", "| call | Python | Rust API | binding overhead |", "|---|---:|---:|---:|"]
        for k, v in o["python_ns"].items():
            lines.append(f"| {k} | {v:.0f} | {o['rust_ns'].get(k, float('nan')):.0f} | {o['overhead_ns'][k]:.0f} |")
        lines.append("")
    if "alignscore" in r:
        a = r["alignscore"]
        lines += [
            f"AlignScore nli_sp, random RoBERTa-base-shaped checkpoint, first {a['pairs']} real pairs, 2 threads each:", "",
            "| implementation | seconds | CPU seconds | pairs/s | peak RSS MB |", "|---|---:|---:|---:|---:|",
            f"| reference (alignscore, PyTorch CPU, batch 32) | {a['reference_seconds']:.1f} | {a['reference_cpu_seconds']:.1f} | {a['reference_pairs_per_s']:.3f} | {a['reference_peak_rss_mb']:.0f} |",
            f"| factpico Python API (`factpico.alignscore.AlignScore`, batch 2) | {a['seconds']:.1f} | {a['cpu_seconds']:.1f} | {a['pairs_per_s']:.3f} | {a['peak_rss_mb']:.0f} |",
            "", f"Speed-up {a['pairs_per_s'] / a['reference_pairs_per_s']:.2f}x wall, {a['reference_cpu_seconds'] / a['cpu_seconds']:.2f}x CPU; max |score difference| {a['max_abs_diff']:.1e}.", "",
        ]
    if "ray" in r:
        y = r["ray"]
        lines += [
            f"Ray Data, {y['rows']} rows in batches of {y.get('batch_size', 25)}, {y['metric']}, 1 CPU per actor (times include actor start and model load):", "",
            f"| actors | seconds | rows/s |", "|---:|---:|---:|",
            f"| 1 | {y['1_actor_seconds']:.1f} | {y['1_actor_rows_per_s']:.2f} |",
            f"| 2 | {y['2_actor_seconds']:.1f} | {y['2_actor_rows_per_s']:.2f} |",
            "", f"Scaling 1 -> 2 actors: {y['2_actor_rows_per_s'] / y['1_actor_rows_per_s']:.2f}x.",
        ]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
