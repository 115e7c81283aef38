"""Model-free benchmark: factpico (ROUGE-L + FKGL) vs the Python references in one run.

Run by `cargo xtask bench model-free`. Inputs: a JSONL of (id, source, summary)
rows (the 300 real pairs of ../shared, prepared by xtask, never committed) and
the path of a release `factpico` binary.

The reference side is the work factpico's `--metrics rougeL,fkgl` does, done by
the unmodified Python packages in one process: `rouge_score.RougeScorer(
['rougeL', 'rougeLsum'], use_stemmer=True).score(source, summary)` and
`textstat.flesch_kincaid_grade` (0.7.3) of both texts. Only the scoring loop is
timed (no JSON parsing, no output). The factpico side is the whole CLI process
(start-up, JSON parsing, scoring, JSONL output), so the ratio is conservative.
Both wall-clock and CPU time (user+sys, this process or the child) are
reported; the median of `--repeats` runs is used.
"""
import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time


def cpu_self():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def cpu_children():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pairs", required=True)
    ap.add_argument("--factpico", required=True)
    ap.add_argument("--out-dir", required=True)
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()

    import rouge_score
    import textstat
    import pyphen
    import nltk
    from importlib.metadata import version
    from rouge_score import rouge_scorer

    rows = [json.loads(l) for l in open(args.pairs, encoding="utf-8") if l.strip()]
    n = len(rows)
    scorer = rouge_scorer.RougeScorer(["rougeL", "rougeLsum"], use_stemmer=True)

    def reference():
        out = []
        for r in rows:
            s = scorer.score(r["source"], r["summary"])
            fs = textstat.flesch_kincaid_grade(r["summary"])
            fa = textstat.flesch_kincaid_grade(r["source"])
            out.append((s["rougeL"].fmeasure, fs - fa))
        return out

    reference()  # warm-up (imports, pyphen dictionary load)
    py_wall, py_cpu = [], []
    for _ in range(args.repeats):
        c0, t0 = cpu_self(), time.perf_counter()
        ref = reference()
        py_wall.append(time.perf_counter() - t0)
        py_cpu.append(cpu_self() - c0)

    py_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # kB -> MB, before any child runs
    results = {}
    for jobs in (1, 2):
        walls, cpus = [], []
        out = os.path.join(args.out_dir, f"factpico-j{jobs}.jsonl")
        cmd = [args.factpico, "score", args.pairs, "-o", out, "-q", "--metrics", "rougeL,fkgl",
               "--jobs", str(jobs)]
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)  # warm-up (page cache)
        for _ in range(args.repeats):
            c0, t0 = cpu_children(), time.perf_counter()
            subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
            walls.append(time.perf_counter() - t0)
            cpus.append(cpu_children() - c0)
        # Peak RSS from one more run under /usr/bin/time: RUSAGE_CHILDREN's ru_maxrss would
        # count this Python process's own pages (Linux keeps the high-water mark across the
        # fork + exec of subprocess), so it cannot measure a child smaller than its parent.
        with tempfile.NamedTemporaryFile("r") as tf:
            subprocess.run(["/usr/bin/time", "-f", "%M", "-o", tf.name] + cmd, check=True, stdout=subprocess.DEVNULL)
            rss = int(tf.read().split()[-1]) / 1024
        results[jobs] = (statistics.median(walls), statistics.median(cpus), out, rss)

    # Same numbers on both sides (sanity: the benchmark compares equal work).
    fp = [json.loads(l) for l in open(results[1][2], encoding="utf-8")]
    max_drl = max(abs(a["scores"]["rougeL"] - b[0]) for a, b in zip(fp, ref))
    max_dfk = max(abs(a["scores"]["delta_fkgl"] - b[1]) for a, b in zip(fp, ref))

    pw, pc = statistics.median(py_wall), statistics.median(py_cpu)
    report = {
        "pairs": n,
        "repeats": args.repeats,
        "python": {"wall_s": pw, "cpu_s": pc, "pairs_per_s": n / pw, "peak_rss_mb": py_rss},
        "factpico_jobs1": {"wall_s": results[1][0], "cpu_s": results[1][1], "pairs_per_s": n / results[1][0], "peak_rss_mb": results[1][3]},
        "factpico_jobs2": {"wall_s": results[2][0], "cpu_s": results[2][1], "pairs_per_s": n / results[2][0], "peak_rss_mb": results[2][3]},
        "ratio_wall_jobs1": pw / results[1][0],
        "ratio_wall_jobs2": pw / results[2][0],
        "ratio_cpu_jobs1": pc / results[1][1],
        "max_abs_diff_rougeL": max_drl,
        "max_abs_diff_delta_fkgl": max_dfk,
        "versions": {
            "python": platform.python_version(),
            "rouge-score": version("rouge-score"),
            "textstat": version("textstat"),
            "pyphen": version("pyphen"),
            "nltk": nltk.__version__,
        },
        "loadavg_1min": os.getloadavg()[0],
        "cpus": os.cpu_count(),
    }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    sys.exit(main())
