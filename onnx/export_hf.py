"""Exports any Hugging Face sequence-classification model (e.g. an NLI cross-encoder) to a
factpico model directory: ``model.onnx`` (inputs = the tokenizer's ``model_input_names``,
int64 ``[batch, sequence]``; output ``logits`` ``[batch, num_labels]``), ``tokenizer.json``
(padding/truncation disabled) and ``factpico.json`` (labels in ``id2label`` order; task
``nli`` when a label contains "entail"; truncation ``longest_first`` as transformers'
``truncation=True``). Prints the max |torch - ONNX Runtime| over a few sample pairs.

    python onnx/export_hf.py --model cross-encoder/nli-deberta-v3-base --out ~/.cache/factpico/models/nli

``--lerc`` (QAFactEval's LERC-QuIP regressor ``quip-512-mocha``, ``cargo xtask models
qafacteval-lerc``): requires one output value and that the markers ``<q>``, ``<r>``, ``<c>`` of
``lerc_quip.py`` are plain text in the tokenizer (as factpico feeds them; an added token would
be split out with whitespace stripping by QAFactEval's transformers 3.0.2 tokenizer, which
the exported tokenizer would not reproduce).
"""
import argparse
import sys
from pathlib import Path

import torch
from transformers import AutoModelForSequenceClassification, AutoTokenizer

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402


class Wrapper(torch.nn.Module):
    def __init__(self, model, names):
        super().__init__()
        self.model, self.names = model, names

    def forward(self, *tensors):
        return self.model(**dict(zip(self.names, tensors))).logits


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", required=True, help="hub id or local directory")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--max-length", type=int, default=None, help="default: tokenizer.model_max_length, max 512")
    ap.add_argument("--opset", type=int, default=17)
    ap.add_argument("--checkpoint-name", default=None, help="name/URL recorded in the manifest (default: --model)")
    ap.add_argument("--lerc", action="store_true", help="check the LERC-QuIP layout (1 output, plain-text markers)")
    args = ap.parse_args()

    args.out.mkdir(parents=True, exist_ok=True)
    tok = AutoTokenizer.from_pretrained(args.model, use_fast=True)
    model = AutoModelForSequenceClassification.from_pretrained(args.model, attn_implementation="eager").eval()
    if args.lerc:
        if model.config.num_labels != 1:
            raise SystemExit(f"--lerc: {args.model} has {model.config.num_labels} outputs; LERC-QuIP has 1")
        added = [t.content for t in tok.backend_tokenizer.get_added_tokens_decoder().values() if not t.special]
        marked = [m for m in ("<q>", "<r>", "<c>") if m in added]
        if marked:
            raise SystemExit(f"--lerc: {marked} are added tokens of this tokenizer; factpico feeds LERC-QuIP's markers "
                             f"as plain text (QAFactEval's transformers 3.0.2 tokenizer would strip the spaces around "
                             f"added tokens) -- not supported")
    names = [n for n in tok.model_input_names if n in ("input_ids", "attention_mask", "token_type_ids")]
    enc = tok([p for p, _ in common.SAMPLE_PAIRS], [h for _, h in common.SAMPLE_PAIRS], truncation=True,
              padding=True, return_tensors="pt")
    inputs = tuple(enc[n] for n in names)
    dyn = {n: {0: "batch", 1: "sequence"} for n in names}
    dyn["logits"] = {0: "batch"}
    # A fresh Module is in training mode, and torch.onnx.export restores that mode on the
    # wrapped model afterwards (dropout would then be on in the parity check below).
    wrapped = Wrapper(model, names).eval()
    common.torch_export(wrapped, inputs, args.out, input_names=names,
                        output_names=["logits"], dynamic_axes=dyn, opset_version=args.opset, do_constant_folding=True)
    common.save_tokenizer_json(tok, args.out)

    import onnxruntime as ort
    sess = ort.InferenceSession(str(args.out / "model.onnx"), providers=["CPUExecutionProvider"])
    with torch.no_grad():
        ref = wrapped(*inputs).numpy()
    got = sess.run(["logits"], {n: enc[n].numpy() for n in names})[0]
    diff = common.max_abs_diff(ref, got)

    cfg = model.config
    labels = [cfg.id2label[i] for i in range(cfg.num_labels)]
    max_length = args.max_length or (int(tok.model_max_length) if tok.model_max_length < 100_000 else 512)
    common.write_manifest(
        args.out,
        architecture=cfg.model_type,
        task="nli" if any("entail" in l.lower() for l in labels) else "sequence-classification",
        inputs=names,
        outputs=["logits"],
        labels={"logits": labels},
        max_length=min(max_length, 512),
        pair_template="",
        truncation={"strategy": "longest_first", "side": "right", "fallback": None},
        pad_token_id=int(tok.pad_token_id or 0),
        source={"checkpoint": args.checkpoint_name or str(args.model), "sha256": common.weights_sha256(args.model)},
        exporter=common.exporter_info("export_hf.py"),
    )
    print(f"exported {args.out}: labels {labels}, max |torch - ORT| = {diff:.3g}")
    if diff > 1e-3:
        raise SystemExit(f"parity check failed: {diff}")


if __name__ == "__main__":
    main()
