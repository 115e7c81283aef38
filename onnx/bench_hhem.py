"""Speed of ``factpico score --metrics hhem`` against the unmodified reference
(``modeling_hhem_v2.py``'s ``predict``) on a full-size random replica (flan-t5-base's encoder:
``onnx/random_hhem.py --size full``, exported by ``onnx/export_hhem.py``), on the first
``--n`` real InfoLossQA pairs (``../shared``), CPU only, ``--threads`` threads on both sides,
batches of ``--batch-size`` on both sides.

* reference: loaded as ``tests/goldens/gen_hhem.py`` does (``--reference`` = a public copy of
  ``modeling_hhem_v2.py``; ``foundation`` pointed at the replica's ``flan-t5-base/``);
  ``predict`` over the pairs in batches; seconds and CPU seconds of scoring (model load
  excluded);
* factpico: the ``factpico`` binary (``--factpico``), ``--hhem-max-length 8192`` (the replica's
  small vocabulary makes inputs longer than real flan-t5 tokens), wall and CPU seconds of the
  whole process (model load **included**), from ``getrusage(RUSAGE_CHILDREN)``.

Prints one JSON object: both timings, the ratio (reference CPU / factpico CPU), max |Δ| of the
scores, the machine's load average before and after. Nothing is written under the repository.

    python onnx/bench_hhem.py --replica DIR --export DIR --reference modeling_hhem_v2.py \\
        --factpico target/release/factpico --n 20
"""
import argparse
import json
import os
import resource
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
    ap.add_argument("--replica", type=Path, required=True)
    ap.add_argument("--export", type=Path, required=True)
    ap.add_argument("--reference", type=Path, required=True)
    ap.add_argument("--factpico", type=Path, required=True)
    ap.add_argument("--n", type=int, default=20)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--batch-size", type=int, default=4)
    args = ap.parse_args()
    load0 = os.getloadavg()
    pairs = [(i, s, c) for i, s, c in corpus.pairs() if i.startswith("ilq:")][: args.n]
    tmp = Path(tempfile.mkdtemp(prefix="factpico-hhem-bench-"))
    inp = tmp / "in.jsonl"
    inp.write_text("".join(json.dumps({"id": i, "source": s, "summary": c}) + "\n" for i, s, c in pairs), "utf-8")

    # factpico first (the reference's torch import does not share the process).
    out = tmp / "out.jsonl"
    r0, t0 = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
    subprocess.run([str(args.factpico), "score", str(inp), "-q", "-o", str(out), "--metrics", "hhem", "--hhem-model",
                    str(args.export), "--hhem-max-length", "8192", "--threads", str(args.threads), "--batch-size",
                    str(args.batch_size)], check=True)
    fp_secs = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    fp_cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    fp_scores = {json.loads(l)["id"]: json.loads(l)["scores"]["hhem"] for l in out.read_text("utf-8").splitlines()}

    import torch
    torch.set_num_threads(args.threads)
    from gen_hhem import load_reference
    Config, Model = load_reference(args.reference.resolve())
    config = Config.from_pretrained(str(args.replica))
    config.foundation = str(args.replica / "flan-t5-base")
    model = Model.from_pretrained(str(args.replica), config=config).eval()
    t0, c0 = time.perf_counter(), time.process_time()
    ref = []
    for k in range(0, len(pairs), args.batch_size):
        ref.extend(float(x) for x in model.predict([(s, c) for _, s, c in pairs[k:k + args.batch_size]]))
    ref_secs, ref_cpu = time.perf_counter() - t0, time.process_time() - c0
    tok = model.tokenzier
    n_tokens = [len(tok([model.prompt.format(text1=s, text2=c)])["input_ids"][0]) for _, s, c in pairs]
    diff = max(abs(fp_scores[i] - r) for (i, _, _), r in zip(pairs, ref))
    print(json.dumps({
        "pairs": len(pairs), "threads": args.threads, "batch_size": args.batch_size,
        "tokens_mean": sum(n_tokens) / len(n_tokens), "tokens_max": max(n_tokens),
        "reference": {"seconds": round(ref_secs, 2), "cpu_seconds": round(ref_cpu, 2)},
        "factpico": {"seconds": round(fp_secs, 2), "cpu_seconds": round(fp_cpu, 2), "includes_model_load": True},
        "cpu_ratio_reference_over_factpico": round(ref_cpu / fp_cpu, 2),
        "wall_ratio_reference_over_factpico": round(ref_secs / fp_secs, 2),
        "max_abs_diff": diff, "loadavg_before": load0, "loadavg_after": os.getloadavg(),
        "versions": {"torch": torch.__version__},
    }, indent=1))


if __name__ == "__main__":
    main()
