"""Python side of ``cargo xtask bench summac`` (not a test; writes under bench-out/summac).

* ``pairs --out F --n N``: the first N InfoLossQA pairs of ``tests/goldens/corpus.py`` as
  JSON ``[[id, document, summary], ...]`` (kept under the gitignored bench-out/).
* ``prepare --size base|xlarge --out DIR``: a random ALBERT with the shape of SummaC's
  ``vitc-base`` / ``vitc`` NLI model (``random_summac.py albert``, SentencePiece trained on the
  real texts), exported by our path (``export_summac.py nli``) to DIR/onnx-<size>, plus random
  SummaC-Conv weights (percentile bins, ``e``, mean) as ``.bin`` and converted JSON; and the
  MiniLM NLI asset rebuilt as a PyTorch checkpoint (``gen_summac.minilm_checkpoint``).
* ``reference --model CKPT --ent I --con J --conv-bin B --pairs F --out J``: the unmodified
  reference (summac 0.0.4, PyTorch CPU, ``SummaCZS.score`` with batch 128 as its README,
  then ``SummaCConv.score`` on the same imager's cached images), model registered in
  ``model_map`` at run time; timing excludes model loading (one warm-up pair first).
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

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT / "tests" / "goldens"))


def ilq_pairs(n):
    import corpus
    return [p for p in corpus.pairs() if p[0].startswith("ilq:")][:n]


def cmd_pairs(args):
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps([list(p) for p in ilq_pairs(args.n)]), encoding="utf-8")


def cmd_prepare(args):
    import corpus
    out = args.out
    out.mkdir(parents=True, exist_ok=True)
    ckpt = out / f"albert-{args.size}"
    if not (ckpt / "config.json").exists():
        texts = out / "tokenizer_corpus.txt"
        texts.write_text("\n".join(t.replace("\n", " ") for _, t in corpus.texts()), encoding="utf-8")
        subprocess.run([sys.executable, str(HERE / "random_summac.py"), "albert", "--size", args.size, "--out",
                        str(ckpt), "--corpus", str(texts), "--vocab-size", "30000"], check=True)
    onnx_dir = out / f"onnx-{args.size}"
    if not (onnx_dir / "model.onnx").exists():
        subprocess.run([sys.executable, str(HERE / "export_summac.py"), "nli", "--model", str(ckpt), "--out",
                        str(onnx_dir), "--checkpoint-name", f"random ALBERT-{args.size} (benchmark only)"], check=True)
    if not (out / "conv.json").exists():
        subprocess.run([sys.executable, str(HERE / "random_summac.py"), "conv", "--out", str(out / "conv.bin"),
                        "--full-size", "23"], check=True)
        subprocess.run([sys.executable, str(HERE / "export_summac.py"), "conv", "--bin", str(out / "conv.bin"),
                        "--out", str(out / "conv.json"), "--origin", "random benchmark weights"], check=True)
    if not (out / "minilm-torch" / "config.json").exists():
        import gen_summac
        d = gen_summac.minilm_checkpoint(corpus.shared_root() / "models" / "minilm-nli", out / "minilm-torch")
        print(f"MiniLM rebuilt: max |torch - ORT| = {d:.3g}")


def cmd_reference(args):
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    import torch
    torch.set_num_threads(args.threads)
    import gen_alignscore
    tmp = tempfile.mkdtemp(prefix="nltk-data-")
    gen_alignscore.install_punkt_tab(Path(tmp))
    import nltk
    nltk.data.path.insert(0, tmp)
    from summac import model_summac as ms
    ms.model_map["factpico-bench"] = {"model_card": str(args.model), "entailment_idx": args.ent,
                                      "contradiction_idx": args.con}
    pairs = json.loads(args.pairs.read_text("utf-8"))
    docs, sums = [p[1] for p in pairs], [p[2] for p in pairs]
    zs = ms.SummaCZS(granularity="sentence", model_name="factpico-bench", device="cpu", imager_load_cache=False)
    conv = ms.SummaCConv(models=["factpico-bench"], bins="percentile", granularity="sentence", nli_labels="e",
                         device="cpu", start_file=str(args.conv_bin), agg="mean", imager_load_cache=False)
    conv.imagers = [zs.imager]
    zs.score(["The trial enrolled adults with asthma."], ["Adults with asthma took part."])  # loads the model
    zs.imager.cache = {}
    t0, c0 = time.perf_counter(), time.process_time()
    out = zs.score(docs, sums, batch_size=128)
    conv_scores = conv.score(docs, sums)["scores"]
    secs, cpu = time.perf_counter() - t0, time.process_time() - c0
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    n_pairs = int(sum(img.shape[1] * img.shape[2] for img in out["images"]))
    args.out.write_text(json.dumps({"seconds": secs, "cpu_seconds": cpu, "rows": len(pairs), "nli_pairs": n_pairs,
                                    "peak_rss_mb": rss_mb, "threads": args.threads,
                                    "zs": [float(s) for s in out["scores"]], "conv": conv_scores}), "utf-8")
    print(f"reference: {len(pairs)} rows ({n_pairs} NLI pairs) in {secs:.1f} s (CPU {cpu:.1f} s), "
          f"peak RSS {rss_mb:.0f} MB")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("pairs")
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--n", type=int, default=20)
    p = sub.add_parser("prepare")
    p.add_argument("--size", choices=["base", "xlarge"], default="xlarge")
    p.add_argument("--out", type=Path, required=True)
    p = sub.add_parser("reference")
    p.add_argument("--model", type=Path, required=True)
    p.add_argument("--ent", type=int, required=True)
    p.add_argument("--con", type=int, required=True)
    p.add_argument("--conv-bin", type=Path, required=True)
    p.add_argument("--pairs", type=Path, required=True)
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    {"pairs": cmd_pairs, "prepare": cmd_prepare, "reference": cmd_reference}[args.cmd](args)


if __name__ == "__main__":
    main()
