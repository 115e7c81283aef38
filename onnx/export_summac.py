"""Exports SummaC's released models (tingofurro/summac @ c1f3da9, ``model_summac.py``) to the
files factpico's ``factpico-summac`` crate reads.

* ``nli --model M --summac-model vitc --out DIR``: the NLI model behind one of SummaC's
  ``model_map`` names (default ``vitc`` = ``tals/albert-xlarge-vitaminc-mnli``, an ALBERT
  with a SentencePiece tokenizer) -> a factpico model directory, through ``export_hf.py``
  (ONNX graph with inputs ``input_ids``, ``token_type_ids``, ``attention_mask``; the fast
  tokenizer's ``tokenizer.json``, converted from ``spiece.model`` by transformers exactly as
  the reference's ``AutoTokenizer`` does). The manifest's labels are then renamed after the
  reference's label indices (``model_map``: ``vitc`` entailment 0, contradiction 1), the
  model's own ``id2label`` kept under ``summac.original_labels``. Prints a check that the
  saved ``tokenizer.json`` encodes sample pairs exactly as ``AutoTokenizer`` does.
* ``conv --bin F --out J``: a SummaC-Conv weight file as the reference saves and loads it
  (``torch.save`` of the ``state_dict`` of ``mlp`` = ``Linear(n_labels * n_bins, 1)`` and
  ``layer_final`` = ``Linear(3, 2)``; the released ``summac_conv_vitc_sent_perc_e.bin``) ->
  the JSON weight file of ``factpico_summac::ConvHead`` (format ``factpico-summac-conv`` 1),
  with the settings the weights were trained with (defaults: the released file's, i.e.
  ``--bins percentile --nli-labels e --agg mean --models vitc --granularity sentence``).
  Weights are written as the exact float32 values.

    python onnx/export_summac.py nli --model tals/albert-xlarge-vitaminc-mnli --out ~/.cache/factpico/models/summac-vitc
    python onnx/export_summac.py conv --bin summac_conv_vitc_sent_perc_e.bin --out summac_conv_vitc.json
"""
import argparse
import json
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import common  # noqa: E402

# SummaC's model_map (model_summac.py:5-15): label indices of each NLI model.
MODEL_MAP = {
    "snli-base": ("boychaboy/SNLI_roberta-base", 0, 2),
    "snli-large": ("boychaboy/SNLI_roberta-large", 0, 2),
    "mnli-base": ("microsoft/deberta-base-mnli", 2, 0),
    "mnli": ("roberta-large-mnli", 2, 0),
    "anli": ("ynie/roberta-large-snli_mnli_fever_anli_R1_R2_R3-nli", 0, 2),
    "vitc-base": ("tals/albert-base-vitaminc-mnli", 0, 1),
    "vitc": ("tals/albert-xlarge-vitaminc-mnli", 0, 1),
    "vitc-only": ("tals/albert-xlarge-vitaminc", 0, 1),
}

# bins='percentile' of SummaCConv (model_summac.py:226-230).
PERCENTILE = [0.0, 0.01, 0.02, 0.03, 0.04, 0.07, 0.13, 0.37, 0.90, 0.91, 0.92, 0.93, 0.94, 0.95, 0.955, 0.96,
              0.965, 0.97, 0.975, 0.98, 0.985, 0.99, 0.995, 1.0]


def bin_edges(name: str):
    """The reference's edges for ``percentile`` or ``even<N>`` (``list(np.arange(0, 1, 1/N)) + [1.0]``)."""
    import numpy as np
    if name == "percentile":
        return list(PERCENTILE)
    if name.startswith("even"):
        n = int(name[4:])
        return [float(x) for x in np.arange(0, 1, 1 / n)] + [1.0]
    raise SystemExit(f"unknown bins {name!r} (percentile or even<N>)")


def cmd_nli(args):
    card, ent, con = MODEL_MAP[args.summac_model]
    model = args.model or card
    cmd = [sys.executable, str(HERE / "export_hf.py"), "--model", model, "--out", str(args.out)]
    subprocess.run(cmd, check=True)
    mpath = args.out / "factpico.json"
    manifest = json.loads(mpath.read_text("utf-8"))
    original = manifest["labels"]["logits"]
    if len(original) != 3:
        raise SystemExit(f"{model}: {len(original)} labels; SummaC needs a 3-way NLI model")
    neutral = ({0, 1, 2} - {ent, con}).pop()
    names = [None] * 3
    names[ent], names[con], names[neutral] = "entailment", "contradiction", "neutral"
    manifest["labels"]["logits"] = names
    manifest["task"] = "nli"
    if args.checkpoint_name:
        manifest["source"]["checkpoint"] = args.checkpoint_name
    manifest["summac"] = {"model_name": args.summac_model, "model_card": card, "entailment_idx": ent,
                          "contradiction_idx": con, "original_labels": original,
                          "max_input_length": 500}
    common.write_manifest(args.out, **{k: v for k, v in manifest.items() if k != "schema_version"})

    # The saved tokenizer.json must encode pairs as the reference's AutoTokenizer does.
    from tokenizers import Tokenizer
    from transformers import AutoTokenizer
    ref = AutoTokenizer.from_pretrained(model)
    ours = Tokenizer.from_file(str(args.out / "tokenizer.json"))
    texts = common.SAMPLE_PAIRS + [("The ``quoted'' café — naïve résumé ½ ﬁ.", "Ｆｕｌｌｗｉｄｔｈ  spaces\tand\nnewlines")]
    for p, h in texts:
        want = ref(p, h)["input_ids"]
        got = ours.encode(p, h).ids
        if want != got:
            raise SystemExit(f"tokenizer.json differs from AutoTokenizer on {(p, h)!r}: {got} vs {want}")
    print(f"{args.out}: labels {original} -> {names} (SummaC {args.summac_model}: entailment {ent}, "
          f"contradiction {con}); tokenizer.json = AutoTokenizer on {len(texts)} sample pairs")


def cmd_conv(args):
    import torch
    sd = torch.load(str(args.bin), map_location="cpu", weights_only=True)
    want = {"mlp.weight", "mlp.bias", "layer_final.weight", "layer_final.bias"}
    if set(sd) != want:
        raise SystemExit(f"{args.bin}: keys {sorted(sd)}; a SummaCConv state_dict has {sorted(want)}")
    edges = bin_edges(args.bins)
    labels = args.nli_labels
    if not labels or any(c not in "ecn" for c in labels) or len(set(labels)) != len(labels):
        raise SystemExit(f"--nli-labels {labels!r}: a subset of 'ecn'")
    full = len(labels) * (len(edges) - 1)
    if tuple(sd["mlp.weight"].shape) != (1, full) or tuple(sd["layer_final.weight"].shape) != (2, 3):
        raise SystemExit(f"{args.bin}: mlp.weight {tuple(sd['mlp.weight'].shape)}, layer_final.weight "
                         f"{tuple(sd['layer_final.weight'].shape)}; with --bins {args.bins} and --nli-labels "
                         f"{labels} they must be (1, {full}) and (2, 3)")

    def lin(prefix):
        w = sd[f"{prefix}.weight"].to(torch.float32)
        b = sd[f"{prefix}.bias"].to(torch.float32)
        return {"weight": [[float(x) for x in row] for row in w.tolist()], "bias": [float(x) for x in b.tolist()]}

    out = {
        "format": "factpico-summac-conv",
        "version": 1,
        "bins": edges,
        "bins_name": args.bins,
        "nli_labels": labels,
        "agg": args.agg,
        "models": args.models,
        "granularity": args.granularity,
        "mlp": lin("mlp"),
        "layer_final": lin("layer_final"),
        "source": {"file": args.bin.name, "sha256": common.sha256_file(args.bin), "origin": args.origin},
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    # float32 -> JSON -> float32 is exact: check it.
    back = json.loads(args.out.read_text("utf-8"))
    for prefix in ("mlp", "layer_final"):
        w = torch.tensor(back[prefix]["weight"], dtype=torch.float32)
        if not torch.equal(w, sd[f"{prefix}.weight"].to(torch.float32)):
            raise SystemExit("weights did not round-trip exactly")
    print(f"wrote {args.out}: {args.bins} bins ({len(edges) - 1}), labels {labels}, agg {args.agg}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    n = sub.add_parser("nli", help="NLI model -> factpico model directory")
    n.add_argument("--summac-model", choices=sorted(MODEL_MAP), default="vitc")
    n.add_argument("--model", help="hub id or local directory (default: the model_map card)")
    n.add_argument("--out", type=Path, required=True)
    n.add_argument("--checkpoint-name", help="recorded as source.checkpoint instead of --model (no local paths)")
    c = sub.add_parser("conv", help="SummaC-Conv .bin -> factpico JSON weight file")
    c.add_argument("--bin", type=Path, required=True)
    c.add_argument("--out", type=Path, required=True)
    c.add_argument("--bins", default="percentile")
    c.add_argument("--nli-labels", default="e")
    c.add_argument("--agg", choices=["mean", "min", "max", "all"], default="mean")
    c.add_argument("--models", nargs="+", default=["vitc"])
    c.add_argument("--granularity", default="sentence")
    c.add_argument("--origin", default="https://github.com/tingofurro/summac/raw/master/summac_conv_vitc_sent_perc_e.bin")
    args = ap.parse_args()
    {"nli": cmd_nli, "conv": cmd_conv}[args.cmd](args)


if __name__ == "__main__":
    main()
