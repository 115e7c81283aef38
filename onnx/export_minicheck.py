"""Exports a MiniCheck checkpoint (Liyan06/MiniCheck, ``Inferencer``) to a factpico model
directory read by ``crates/factpico-minicheck``:

* ``model.onnx``: int64 inputs ``input_ids``, ``attention_mask`` (and ``token_type_ids`` where
  the tokenizer produces them), ``[batch, sequence]``, dynamic; output ``logits``
  ``[batch, 2]`` — index 1 = "supported" after a softmax.
  - ``roberta-large`` / ``deberta-v3-large``: the checkpoint loaded exactly as the reference
    does (``AutoConfig(num_labels=2, finetuning_task="text-classification")`` +
    ``AutoModelForSequenceClassification``), its 2 logits.
  - ``flan-t5-large``: ``AutoModelForSeq2SeqLM`` run for **one decoder step** with
    ``decoder_input_ids = [[0]]`` inside the graph; the output is the logits of vocabulary ids
    3 and 209 at that step (``inference.py:199-206``). Encoder and one decoder step in one
    graph: no key/value cache, no generation loop.
  The weights are in one ``model.onnx.data`` file beside ``model.onnx`` (ONNX external data,
  memory-mapped by ONNX Runtime: ``common.torch_export``).
* ``tokenizer.json``: ``AutoTokenizer.from_pretrained(model, use_fast=True)`` — the tokenizer
  the reference runs (for DeBERTa-v3 converted from ``spm.model`` here exactly as at the
  reference's load time), padding and truncation disabled.
* ``factpico.json``: task ``sequence-classification``, ``max_length`` = the reference's
  ``max_model_len`` (512 RoBERTa, 2048 DeBERTa/Flan-T5; ``--max-length`` to change), and a
  ``minicheck`` section: ``variant``, ``separator`` (= ``tokenizer.eos_token``, put between
  chunk and claim), ``prefix`` (``"predict: "`` for Flan-T5), ``support_index`` 1,
  ``label_token_ids`` (Flan-T5).

Prints max |torch - ONNX Runtime| over sample inputs of several lengths (fails above 1e-3).

    python onnx/export_minicheck.py --variant roberta-large --model lytang/MiniCheck-RoBERTa-Large --out DIR
    python onnx/export_minicheck.py --variant flan-t5-large --model /path/to/checkpoint --out DIR
"""
import argparse
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402

CHECKPOINTS = {
    "roberta-large": "lytang/MiniCheck-RoBERTa-Large",
    "deberta-v3-large": "lytang/MiniCheck-DeBERTa-v3-Large",
    "flan-t5-large": "lytang/MiniCheck-Flan-T5-Large",
}
MAX_MODEL_LEN = {"roberta-large": 512, "deberta-v3-large": 2048, "flan-t5-large": 2048}
T5_LABEL_IDS = [3, 209]  # inference.py: "3 for no support and 209 for support"


class ClassifierWrapper(torch.nn.Module):
    def __init__(self, model, names):
        super().__init__()
        self.model, self.names = model, names

    def forward(self, *tensors):
        return self.model(**dict(zip(self.names, tensors))).logits


class T5FirstStep(torch.nn.Module):
    """Encoder + one decoder step from the start token 0; logits of the two label tokens."""

    def __init__(self, model):
        super().__init__()
        self.model = model
        self.register_buffer("label_ids", torch.tensor(T5_LABEL_IDS, dtype=torch.long), persistent=False)

    def forward(self, input_ids, attention_mask):
        decoder_input_ids = torch.zeros_like(input_ids[:, :1])
        out = self.model(input_ids=input_ids, attention_mask=attention_mask, decoder_input_ids=decoder_input_ids,
                         use_cache=False, return_dict=True)
        return torch.index_select(out.logits[:, 0, :], 1, self.label_ids)


def sample_texts(tok, prefix):
    """MiniCheck inputs (prefix + chunk + eos + claim) of several lengths."""
    sep = tok.eos_token
    out = [prefix + p + sep + h for p, h in common.SAMPLE_PAIRS]
    long_doc = " ".join(p for p, _ in common.SAMPLE_PAIRS) * 6
    out.append(prefix + long_doc + sep + "The drug was safe and lowered HbA1c.")
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--variant", choices=sorted(CHECKPOINTS), required=True)
    ap.add_argument("--model", help="hub id or local checkpoint directory (default: the released checkpoint)")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--max-length", type=int, default=None, help="default: the reference's max_model_len")
    ap.add_argument("--checkpoint-name", default=None, help="source.checkpoint recorded in the manifest")
    ap.add_argument("--opset", type=int, default=17)
    args = ap.parse_args()

    from transformers import AutoConfig, AutoModelForSeq2SeqLM, AutoModelForSequenceClassification, AutoTokenizer

    model_id = args.model or CHECKPOINTS[args.variant]
    args.out.mkdir(parents=True, exist_ok=True)
    tok = AutoTokenizer.from_pretrained(model_id, use_fast=True)
    if not tok.is_fast:
        raise SystemExit(f"{model_id}: no fast tokenizer could be built (install sentencepiece and protobuf)")
    t5 = args.variant == "flan-t5-large"
    prefix = "predict: " if t5 else ""
    if t5:
        model = AutoModelForSeq2SeqLM.from_pretrained(model_id).eval()
        names = ["input_ids", "attention_mask"]
        wrapped = T5FirstStep(model).eval()
        labels = ["unsupported (token 3)", "supported (token 209)"]
    else:
        config = AutoConfig.from_pretrained(model_id, num_labels=2, finetuning_task="text-classification")
        config.problem_type = "single_label_classification"
        model = AutoModelForSequenceClassification.from_pretrained(model_id, config=config,
                                                                   attn_implementation="eager").eval()
        names = [n for n in tok.model_input_names if n in ("input_ids", "attention_mask", "token_type_ids")]
        wrapped = ClassifierWrapper(model, names).eval()
        labels = ["unsupported", "supported"]

    texts = sample_texts(tok, prefix)
    enc = tok(texts[:3], truncation=True, padding=True, return_tensors="pt")
    inputs = tuple(enc[n] for n in names)
    dyn = {n: {0: "batch", 1: "sequence"} for n in names}
    dyn["logits"] = {0: "batch"}
    common.torch_export(wrapped, inputs, args.out, input_names=names, output_names=["logits"],
                        dynamic_axes=dyn, opset_version=args.opset, do_constant_folding=True)
    wrapped.eval()
    common.save_tokenizer_json(tok, args.out)

    import onnxruntime as ort
    sess = ort.InferenceSession(str(args.out / "model.onnx"), providers=["CPUExecutionProvider"])
    graph_inputs = [i.name for i in sess.get_inputs()]  # an unused input may be pruned by the export
    diff = 0.0
    for batch in (texts[:2], texts[2:], texts[-1:]):
        e = tok(batch, truncation=True, max_length=512, padding=True, return_tensors="pt")
        with torch.no_grad():
            ref = wrapped(*(e[n] for n in names)).numpy()
        got = sess.run(["logits"], {n: e[n].numpy() for n in graph_inputs})[0]
        diff = max(diff, common.max_abs_diff(ref, got))

    max_length = args.max_length or MAX_MODEL_LEN[args.variant]
    section = {"variant": args.variant, "separator": tok.eos_token, "prefix": prefix, "support_index": 1}
    if t5:
        section["label_token_ids"] = T5_LABEL_IDS
    common.write_manifest(
        args.out,
        architecture=model.config.model_type,
        task="sequence-classification",
        inputs=graph_inputs,
        outputs=["logits"],
        labels={"logits": labels},
        max_length=max_length,
        pair_template="",
        truncation={"strategy": "longest_first", "side": "right", "fallback": None},
        pad_token_id=int(tok.pad_token_id or 0),
        source={"checkpoint": args.checkpoint_name or str(model_id), "sha256": None},
        exporter=common.exporter_info("export_minicheck.py"),
        minicheck=section,
    )
    print(f"exported {args.variant} to {args.out}: max |torch - ORT| = {diff:.3g}")
    if diff > 1e-3:
        raise SystemExit(f"parity check failed: {diff}")


if __name__ == "__main__":
    main()
