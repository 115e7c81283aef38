"""Exports a Vectara HHEM-2.1-Open checkpoint (hub ``vectara/hallucination_evaluation_model``:
``config.json`` + ``model.safetensors``; foundation ``google/flan-t5-base``) to a factpico model
directory read by ``crates/factpico-hhem``.

The checkpoint is loaded the way the reference's ``HHEMv2ForSequenceClassification`` builds it
(``modeling_hhem_v2.py``): ``T5ForTokenClassification(AutoConfig.from_pretrained(foundation))``
(the T5 **encoder** + dropout + a 2-label linear classifier per token) with the weights of
``model.safetensors`` under the prefix ``t5.`` — read with ``safetensors`` (no pickle, and the
hub's Python files are never imported or run). The encoder's ``embed_tokens`` is the shared
embedding (stored once, as ``t5.transformer.shared.weight`` or the tied name, or twice with
equal tensors); every other key must match exactly. ``foundation`` is ``--foundation`` DIR, else ``<model>/flan-t5-base`` (the catalogue's
layout), else the config's ``foundation`` when it is a local directory; it supplies flan-t5's
T5 config and tokenizer, as in the reference's constructor.

* ``model.onnx``: int64 inputs ``input_ids``, ``attention_mask`` ``[batch, sequence]``
  (dynamic); output ``logits`` ``[batch, 2]`` = the token-classification logits at
  **position 0** only (``predict``'s ``logits[:, 0, :]``; the ``<pad>`` of the prompt).
* ``tokenizer.json``: ``AutoTokenizer.from_pretrained(foundation)`` (flan-t5's SentencePiece
  Unigram, ``</s>`` appended), padding and truncation disabled.
* ``factpico.json``: ``max_length`` = the export's limit (``--max-length``, default 8192; the
  metric's own default limit is 2048), ``pad_token_id`` 0, labels hallucinated / consistent,
  and an ``hhem`` section: ``prompt`` (the config's ``prompt`` when set, else the reference
  class's: ``HHEMv2Config.__init___`` is misspelt, so only the class attribute or a ``prompt``
  key of ``config.json`` take effect) and ``support_index`` 1.

Checks (fails above 1e-4): max |torch - ONNX Runtime| of P(consistent) over sample prompts of
several lengths, batched with padding; and that the tokenizer reads the prompt's literal
``<pad>`` as id 0 at position 0.

    python onnx/export_hhem.py --model DIR [--foundation DIR] --out DIR
"""
import argparse
import json
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402

CHECKPOINT = "vectara/hallucination_evaluation_model"
PROMPT = "<pad> Determine if the hypothesis is true given the premise?\n\nPremise: {text1}\n\nHypothesis: {text2}"
TIED = "transformer.encoder.embed_tokens.weight"


class FirstPosition(torch.nn.Module):
    """``T5ForTokenClassification`` logits at position 0."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, input_ids, attention_mask):
        return self.model(input_ids=input_ids, attention_mask=attention_mask).logits[:, 0, :]


def resolve_foundation(model_dir: Path, given, config: dict) -> Path:
    if given:
        return Path(given)
    if (model_dir / "flan-t5-base" / "config.json").is_file():
        return model_dir / "flan-t5-base"
    f = config.get("foundation")
    if f and Path(f).is_dir():
        return Path(f)
    raise SystemExit(f"{model_dir}: no foundation folder: pass --foundation DIR (google/flan-t5-base's config.json "
                     f"and tokenizer files), or put them in {model_dir / 'flan-t5-base'}")


def load_model(model_dir: Path, foundation: Path):
    from safetensors.torch import load_file
    from transformers import AutoConfig, T5ForTokenClassification
    model = T5ForTokenClassification(AutoConfig.from_pretrained(str(foundation)))
    state = load_file(str(model_dir / "model.safetensors"))
    bad = [k for k in state if not k.startswith("t5.")]
    if bad:
        raise SystemExit(f"{model_dir}/model.safetensors: keys outside t5.* ({bad[:3]}...): not an HHEMv2 checkpoint")
    state = {k[3:]: v for k, v in state.items()}
    if TIED in state and "transformer.shared.weight" not in state:  # embedding stored under its tied name only
        state["transformer.shared.weight"] = state[TIED]
    missing, unexpected = model.load_state_dict(state, strict=False)
    missing = [k for k in missing if k != TIED]
    if missing or unexpected:
        raise SystemExit(f"{model_dir}/model.safetensors does not fit T5ForTokenClassification({foundation}): "
                         f"missing {missing[:5]}, unexpected {unexpected[:5]}")
    if TIED in state and not torch.equal(state[TIED], state["transformer.shared.weight"]):
        raise SystemExit("t5.transformer.encoder.embed_tokens.weight differs from t5.transformer.shared.weight")
    return model.eval()


def sample_prompts(prompt: str):
    out = [prompt.format(text1=p, text2=h) for p, h in common.SAMPLE_PAIRS]
    long_doc = " ".join(p for p, _ in common.SAMPLE_PAIRS) * 6
    out.append(prompt.format(text1=long_doc, text2="The drug was safe and lowered HbA1c."))
    out.append(prompt.format(text1="", text2=""))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", type=Path, required=True, help="checkpoint directory (config.json + model.safetensors)")
    ap.add_argument("--foundation", default=None, help="flan-t5-base folder (config + tokenizer files)")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--max-length", type=int, default=8192, help="the export's length limit (tokens)")
    ap.add_argument("--checkpoint-name", default=None, help="source.checkpoint recorded in the manifest")
    ap.add_argument("--opset", type=int, default=17)
    args = ap.parse_args()

    from transformers import AutoTokenizer

    config = json.loads((args.model / "config.json").read_text("utf-8"))
    if config.get("model_type") != "HHEMv2":
        raise SystemExit(f"{args.model}/config.json: model_type {config.get('model_type')!r}, expected 'HHEMv2'")
    prompt = config.get("prompt") or PROMPT
    foundation = resolve_foundation(args.model, args.foundation, config)
    tok = AutoTokenizer.from_pretrained(str(foundation), use_fast=True)
    if not tok.is_fast:
        raise SystemExit(f"{foundation}: no fast tokenizer could be built (install sentencepiece and protobuf)")
    first = tok([prompt.format(text1="a", text2="b")])["input_ids"][0]
    if first[0] != tok.pad_token_id or tok.pad_token_id != 0:
        raise SystemExit(f"the prompt's literal <pad> is not token 0 at position 0 (ids {first[:5]})")
    model = load_model(args.model, foundation)
    wrapped = FirstPosition(model).eval()

    args.out.mkdir(parents=True, exist_ok=True)
    texts = sample_prompts(prompt)
    enc = tok(texts[:3], padding=True, return_tensors="pt")
    names = ["input_ids", "attention_mask"]
    common.torch_export(wrapped, (enc["input_ids"], enc["attention_mask"]), args.out, input_names=names,
                        output_names=["logits"], dynamic_axes={"input_ids": {0: "batch", 1: "sequence"},
                                                               "attention_mask": {0: "batch", 1: "sequence"},
                                                               "logits": {0: "batch"}},
                        opset_version=args.opset, do_constant_folding=True)
    common.save_tokenizer_json(tok, args.out)

    import onnxruntime as ort
    sess = ort.InferenceSession(str(args.out / "model.onnx"), providers=["CPUExecutionProvider"])
    diff = 0.0
    for batch in (texts[:2], texts[2:], texts[-2:-1]):
        e = tok(batch, padding=True, return_tensors="pt")
        with torch.no_grad():
            ref = torch.softmax(wrapped(e["input_ids"], e["attention_mask"]), -1)[:, 1].numpy()
        got = sess.run(["logits"], {n: e[n].numpy() for n in names})[0]
        got = torch.softmax(torch.from_numpy(got), -1)[:, 1].numpy()
        diff = max(diff, common.max_abs_diff(ref, got))

    common.write_manifest(
        args.out,
        architecture="t5",
        task="sequence-classification",
        inputs=names,
        outputs=["logits"],
        labels={"logits": ["hallucinated", "consistent"]},
        max_length=args.max_length,
        pair_template="",
        truncation={"strategy": "longest_first", "side": "right", "fallback": None},
        pad_token_id=int(tok.pad_token_id),
        source={"checkpoint": args.checkpoint_name or str(args.model), "sha256": common.weights_sha256(args.model)},
        exporter=common.exporter_info("export_hhem.py"),
        hhem={"prompt": prompt, "support_index": 1},
    )
    print(f"exported HHEM to {args.out}: max |torch - ORT| of P(consistent) = {diff:.3g}")
    if diff > 1e-4:
        raise SystemExit(f"parity check failed: {diff}")


if __name__ == "__main__":
    main()
