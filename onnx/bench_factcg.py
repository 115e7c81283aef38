"""Speed of ``factpico score --metrics factcg`` against the unmodified reference
(``derenlei/FactCG`` ``factcg/inference.py``, ``Inferencer(use_hf_ckpt=True).eval``) on a
full-size random replica (DeBERTa-v3-large shape with the 2-label head:
``onnx/random_minicheck.py --variant deberta-v3-large --size full``, exported by
``onnx/export_factcg.py``), on the first ``--n`` real InfoLossQA pairs (``../shared``), CPU
only, ``--threads`` threads on both sides, batches of ``--batch-size`` chunk inputs on both
sides.

* reference: loaded as ``tests/goldens/gen_factcg.py`` does (``--factcg-repo`` = a checkout of
  ``derenlei/FactCG``; the replica laid out as the hub cache entry of
  ``yaxili96/FactCG-DeBERTa-v3-Large`` under the reference's ``./cache``, ``HF_HUB_OFFLINE``);
  one ``eval(docs, claims)`` over all pairs (its own chunking, batching and padding to the
  batch's longest input); seconds and CPU seconds of that call (model load excluded);
* factpico: the ``factpico`` binary (``--factpico``), wall and CPU seconds of the whole process
  (model load **included**), from ``getrusage(RUSAGE_CHILDREN)``.

Prints one JSON object: both timings, the ratio (reference / factpico), max |Δ| of the
scores, chunk and token counts, the machine's load average before and after. Nothing is
written under the repository; the temporary directory (inputs, outputs, the replica's hub-cache
copy) is deleted at the end.

    python onnx/bench_factcg.py --replica DIR --export DIR --factcg-repo FACTCG_CHECKOUT \\
        --factpico target/debug/factpico --n 20
"""
import argparse
import json
import os
import resource
import shutil
import subprocess
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


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--replica", type=Path, required=True, help="full-size replica checkpoint directory")
    ap.add_argument("--export", type=Path, required=True, help="its factpico model directory")
    ap.add_argument("--factcg-repo", type=Path, required=True, help="checkout of derenlei/FactCG")
    ap.add_argument("--factpico", type=Path, required=True)
    ap.add_argument("--n", type=int, default=20)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--batch-size", type=int, default=4)
    args = ap.parse_args()
    replica, repo, factpico = args.replica.resolve(), args.factcg_repo.resolve(), args.factpico.resolve()
    load0 = os.getloadavg()
    pairs = [(i, s, c) for i, s, c in corpus.pairs() if i.startswith("ilq:")][: args.n]
    tmp = Path(tempfile.mkdtemp(prefix="factpico-factcg-bench-"))
    inp = tmp / "in.jsonl"
    inp.write_text("".join(json.dumps({"id": i, "source": s, "summary": c}) + "\n" for i, s, c in pairs), "utf-8")

    # factpico first (the reference's torch import does not share the process).
    out = tmp / "out.jsonl"
    r0, t0 = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
    subprocess.run([str(factpico), "score", str(inp), "-q", "-o", str(out), "--metrics", "factcg", "--factcg-model",
                    str(args.export.resolve()), "--threads", str(args.threads), "--batch-size", str(args.batch_size)],
                   check=True)
    fp_secs = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    fp_cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    fp_rss = r1.ru_maxrss / 1024
    fp_scores = {json.loads(l)["id"]: json.loads(l)["scores"]["factcg"] for l in out.read_text("utf-8").splitlines()}

    from gen_factcg import load_inferencer_class, make_hub_cache
    from gen_punkt import install_punkt_tab
    install_punkt_tab(tmp / "nltk_data")
    os.environ["NLTK_DATA"] = str(tmp / "nltk_data")
    import nltk
    nltk.data.path.insert(0, str(tmp / "nltk_data"))
    make_hub_cache(tmp / "cache", replica)
    os.chdir(tmp)  # the reference reads cache_dir="./cache"
    import torch
    torch.set_num_threads(args.threads)
    Inferencer = load_inferencer_class(repo)
    inf = Inferencer(use_hf_ckpt=True, batch_size=args.batch_size, verbose=False)
    docs, claims = [s for _, s, _ in pairs], [c for _, _, c in pairs]
    t0, c0 = time.perf_counter(), time.process_time()
    scores, _ = inf.eval(docs, claims)
    ref_secs, ref_cpu = time.perf_counter() - t0, time.process_time() - c0
    ref_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    ref = [float(x) for x in scores]

    # Sizes (outside the timings): chunk inputs and their token counts.
    from factcg.utils import INSTRUCTION_TEMPLATE
    n_tokens = []
    for doc, claim in zip(docs, claims):
        for chunk in inf.chunking_src(doc):
            text = INSTRUCTION_TEMPLATE.format(text_a=chunk, text_b=claim)
            n_tokens.append(len(inf.tokenizer(text, max_length=2048, truncation=True)["input_ids"]))
    diff = max(abs(fp_scores[i] - r) for (i, _, _), r in zip(pairs, ref))
    os.chdir(ROOT)
    shutil.rmtree(tmp, ignore_errors=True)  # the hub-cache copy of the replica (1.7 GB at full size)
    from importlib import metadata
    print(json.dumps({
        "pairs": len(pairs), "chunk_inputs": len(n_tokens), "threads": args.threads, "batch_size": args.batch_size,
        "params": sum(p.numel() for p in inf.model.parameters()),
        "tokens_mean": round(sum(n_tokens) / len(n_tokens), 1), "tokens_max": max(n_tokens),
        "reference": {"seconds": round(ref_secs, 2), "cpu_seconds": round(ref_cpu, 2), "peak_rss_mb": round(ref_rss)},
        "factpico": {"seconds": round(fp_secs, 2), "cpu_seconds": round(fp_cpu, 2), "peak_rss_mb": round(fp_rss),
                     "includes_model_load": True},
        "cpu_ratio_reference_over_factpico": round(ref_cpu / fp_cpu, 2),
        "wall_ratio_reference_over_factpico": round(ref_secs / fp_secs, 2),
        "max_abs_diff": diff, "score_range": [min(ref), max(ref)],
        "loadavg_before": load0, "loadavg_after": os.getloadavg(),
        "versions": {k: metadata.version(k) for k in ("torch", "transformers", "tokenizers", "nltk")},
    }, indent=1))


if __name__ == "__main__":
    main()
