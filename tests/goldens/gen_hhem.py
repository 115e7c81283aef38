#!/usr/bin/env python3
"""Golden HHEM-2.1-Open scores from the unmodified reference implementation.

Reference: ``modeling_hhem_v2.py`` (+ ``configuration_hhem_v2.py`` where the copy keeps them
apart) as published with ``vectara/hallucination_evaluation_model``; the hub is unreachable and
its code is never copied into this repository, so the reference is read from a path given on
the command line (``--reference FILE``, or ``$HHEM_REFERENCE``): a public copy fetched to a
temporary directory (``docs/hhem.md`` names the copy, its sha256 and the differences between
copies). Its directory is imported as a package, so a copy that imports
``.configuration_hhem_v2`` works as one that defines ``HHEMv2Config`` inline.

The reference runs as published, with one documented workaround: its constructor calls
``AutoConfig.from_pretrained(config.foundation)`` and ``AutoTokenizer.from_pretrained(
config.foundation)`` with ``foundation = "google/flan-t5-base"`` (a hub id); offline, the config
read from the replica gets ``foundation = <replica>/flan-t5-base`` (the local folder with the
replica's T5 config and tokenizer) before ``HHEMv2ForSequenceClassification.from_pretrained(
replica, config=config)`` — the loader a real checkpoint takes. The loaded weights are checked
against ``model.safetensors`` (max |Δ| = 0). Scores are ``model.predict(pairs)`` in batches of
``--batch-size`` (the reference pads each batch; position 0 is unaffected).

    "$REF_VENV"/bin/python onnx/random_hhem.py --size tiny --out "$REPLICA" \\
        --corpus onnx/tiny_tokenizer_corpus.txt fixtures/pairs.jsonl fixtures/edge_cases.jsonl
    "$REF_VENV"/bin/python onnx/export_hhem.py --model "$REPLICA" --out fixtures/models/hhem-tiny \\
        --checkpoint-name "random-weight replica of vectara/hallucination_evaluation_model (onnx/random_hhem.py --size tiny)"
    "$REF_VENV"/bin/python tests/goldens/gen_hhem.py --replica "$REPLICA" --reference /tmp/hhem_ref/modeling_hhem_v2.py

Output ``tests/goldens/hhem.json``, per row (fixtures, the self-written ``EXTRA`` rows stored
verbatim, then the 200 real InfoLossQA pairs of ``corpus.py`` by id only — their texts are read
from ``../shared`` at test time):

* ``score``: ``predict([(premise, hypothesis)])`` (P(consistent));
* ``n_tokens`` and ``ids_sha256`` (sha256 of the comma-joined ids): the reference tokenizer's
  input for that row, so the test checks tokenisation exactly; ``ids`` in full for the
  fixtures and extra rows;
* ``sentences`` (fixture rows): ``nltk.sent_tokenize(hypothesis)``, each sentence scored by
  ``predict``; factpico's min / mean aggregation is computed from them.
"""
import argparse
import hashlib
import importlib
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

LONG = ("Adults with asthma were randomly assigned to an inhaled steroid or placebo for twelve weeks, and the "
        "rate of severe attacks was lower with the steroid than with placebo in both age groups. ")
EXTRA = [
    ("x_braces", "The {text2} arm {0} had {fewer} attacks }{.", "Attacks were {rare}."),
    ("x_pad_literal", "The <pad> token and </s> appear in this premise.", "Nothing <unk> here."),
    ("x_newlines", "BACKGROUND\nAsthma is common.\n\nRESULTS\nAttacks fell (p < 0.05).\nNo harms occurred.",
     "Attacks fell and there were no harms."),
    ("x_long_premise", LONG * 40, "Attacks were less frequent with the steroid."),
    ("x_unicode", "Patients (n = 120; age ≥ 65 y) received 5 µg/kg — placebo-controlled.", "Older patients got a small dose."),
]


def load_reference(path: Path):
    """Imports the reference's directory as a package and returns (config class, model class)."""
    pkg = types.ModuleType("hhem_reference")
    pkg.__path__ = [str(path.parent)]
    sys.modules["hhem_reference"] = pkg
    mod = importlib.import_module(f"hhem_reference.{path.stem}")  # the reference, unmodified
    return mod.HHEMv2Config, mod.HHEMv2ForSequenceClassification


def ids_sha(ids) -> str:
    return hashlib.sha256(",".join(str(i) for i in ids).encode()).hexdigest()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--replica", type=Path, required=True, help="replica checkpoint directory (onnx/random_hhem.py)")
    ap.add_argument("--reference", type=Path, default=os.environ.get("HHEM_REFERENCE"),
                    help="path of modeling_hhem_v2.py (a public copy; default $HHEM_REFERENCE)")
    ap.add_argument("--out", type=Path, default=HERE / "hhem.json")
    ap.add_argument("--batch-size", type=int, default=4)
    ap.add_argument("--real-limit", type=int, default=200)
    args = ap.parse_args()
    if not args.reference:
        raise SystemExit("give --reference PATH/modeling_hhem_v2.py (or set HHEM_REFERENCE)")
    replica, ref = args.replica.resolve(), args.reference.resolve()

    tmp = Path(tempfile.mkdtemp(prefix="factpico-hhem-"))
    install_punkt_tab(tmp / "nltk_data")
    import nltk
    nltk.data.path.insert(0, str(tmp / "nltk_data"))
    from nltk import sent_tokenize

    import torch
    from importlib import metadata
    from safetensors.torch import load_file
    torch.set_num_threads(2)
    Config, Model = load_reference(ref)
    config = Config.from_pretrained(str(replica))
    config.foundation = str(replica / "flan-t5-base")  # offline workaround (see the docstring)
    model = Model.from_pretrained(str(replica), config=config).eval()
    state = model.state_dict()
    wdiff = max(float((state[k] - v).abs().max()) for k, v in load_file(str(replica / "model.safetensors")).items())
    assert wdiff == 0.0, f"reference model weights differ from model.safetensors by {wdiff}"
    assert torch.equal(state["t5.transformer.encoder.embed_tokens.weight"], state["t5.transformer.shared.weight"])
    tok = model.tokenzier  # the reference's own tokenizer (attribute name as published)

    fixture_rows = list(corpus.fixture_pairs()) + EXTRA
    real_rows = [r for r in corpus.pairs() if r[0].startswith("ilq:")][: args.real_limit]
    all_rows = fixture_rows + real_rows
    scores = []
    for k in range(0, len(all_rows), args.batch_size):
        batch = all_rows[k:k + args.batch_size]
        scores.extend(float(x) for x in model.predict([(p, h) for _, p, h in batch]))
    rows = []
    for (rid, premise, hyp), score in zip(all_rows, scores):
        ids = tok([model.prompt.format(text1=premise, text2=hyp)])["input_ids"][0]
        row = {"id": rid, "score": score, "n_tokens": len(ids), "ids_sha256": ids_sha(ids)}
        if not rid.startswith("ilq:"):
            row["ids"] = ids
            sents = sent_tokenize(hyp)
            if sents:
                p = [float(x) for x in model.predict([(premise, s) for s in sents])]
                row["sentences"] = {"sentence_scores": p, "min": min(p), "mean": sum(p) / len(p)}
            else:
                row["sentences"] = {"sentence_scores": []}
        rows.append(row)
        print(rid, round(score, 5), len(ids), file=sys.stderr)
    golden = {
        "reference": "modeling_hhem_v2.py as published with vectara/hallucination_evaluation_model (public copy, see docs/hhem.md)",
        "reference_sha256": hashlib.sha256(ref.read_bytes()).hexdigest(),
        "versions": {k: metadata.version(k) for k in ("torch", "transformers", "tokenizers", "nltk")},
        "generator": "tests/goldens/gen_hhem.py",
        "model": "fixtures/models/hhem-tiny (random replica, onnx/random_hhem.py + onnx/export_hhem.py)",
        "replica_safetensors_sha256": hashlib.sha256((replica / "model.safetensors").read_bytes()).hexdigest(),
        "prompt": model.prompt,
        "batch_size": args.batch_size,
        "extra": [{"id": i, "source": s, "summary": c} for i, s, c in EXTRA],
        "rows": rows,
    }
    args.out.write_text(json.dumps(golden, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    shutil.rmtree(tmp, ignore_errors=True)
    print(f"wrote {args.out}: {len(rows)} rows ({len(real_rows)} real)")


if __name__ == "__main__":
    main()
