"""Python side of ``cargo xtask bench minicheck``.

* ``pairs --n N --out PAIRS.json --corpus-out CORPUS.jsonl``: the first N real InfoLossQA
  (abstract, simplification) pairs as ``[[id, document, claim], ...]`` and all 200 pairs as a
  tokenizer-training corpus for the full-size random replicas (both under the gitignored
  ``bench-out/``; never committed).
* ``reference --variant V --ckpt DIR --pairs PAIRS.json --out OUT.json``: the unmodified
  reference (``MiniCheck(model_name=V, batch_size=16)``, its defaults, PyTorch CPU,
  2 threads) on a replica laid out as a hub cache (as ``tests/goldens/gen_minicheck.py``);
  prints scoring seconds (model load excluded), CPU seconds, peak RSS and the scores.
"""
import argparse
import json
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "goldens"))
import corpus  # noqa: E402


def cmd_pairs(args):
    rows = [(pid, s, c) for pid, s, c in corpus.pairs() if pid.startswith("ilq:")]
    args.out.write_text(json.dumps([list(r) for r in rows[: args.n]]), encoding="utf-8")
    with open(args.corpus_out, "w", encoding="utf-8") as f:
        for pid, s, c in rows:
            f.write(json.dumps({"id": pid, "source": s, "summary": c}) + "\n")


def cmd_reference(args):
    from gen_alignscore import install_punkt_tab
    from gen_minicheck import allow_deberta_device_map, make_hub_cache
    tmp = Path(tempfile.mkdtemp(prefix="factpico-minicheck-bench-"))
    install_punkt_tab(tmp / "nltk_data")
    (tmp / "nltk_data" / "tokenizers" / "punkt").mkdir(parents=True)
    os.environ["NLTK_DATA"] = str(tmp / "nltk_data")
    make_hub_cache(tmp / "hub", {args.variant: args.ckpt})
    import torch
    torch.set_num_threads(2)
    from minicheck.minicheck import MiniCheck
    allow_deberta_device_map()  # reference defect, see tests/goldens/gen_minicheck.py
    pairs = json.loads(args.pairs.read_text("utf-8"))
    mc = MiniCheck(model_name=args.variant, batch_size=16, cache_dir=str(tmp / "hub"))
    docs, claims = [p[1] for p in pairs], [p[2] for p in pairs]
    t0, c0 = time.perf_counter(), time.process_time()
    _, probs, _, _ = mc.score(docs=docs, claims=claims)
    secs, cpu = time.perf_counter() - t0, time.process_time() - c0
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    args.out.write_text(json.dumps({"variant": args.variant, "pairs": len(pairs), "seconds": secs, "cpu_seconds": cpu,
                                    "peak_rss_mb": rss, "scores": [float(p) for p in probs]}), encoding="utf-8")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("pairs")
    p.add_argument("--n", type=int, default=20)
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--corpus-out", type=Path, required=True)
    r = sub.add_parser("reference")
    r.add_argument("--variant", required=True)
    r.add_argument("--ckpt", type=Path, required=True)
    r.add_argument("--pairs", type=Path, required=True)
    r.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()
    {"pairs": cmd_pairs, "reference": cmd_reference}[args.cmd](args)


if __name__ == "__main__":
    main()
