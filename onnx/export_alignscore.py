"""Exports an AlignScore checkpoint (PyTorch-Lightning ``.ckpt`` of ``BERTAlignModel``) to a
factpico model directory.

Reference: yuh-zha/AlignScore @ a0936d5, ``src/alignscore/model.py`` (RoBERTa *with pooler*,
``bin_layer`` / ``tri_layer`` / ``reg_layer`` on ``pooler_output``; dropout inactive at eval)
and ``inference.py`` (tokenizer = the backbone's, pairs truncated ``only_first`` to
``model_max_length``, falling back to ``longest_first``).

Output directory: ``model.onnx`` (inputs ``input_ids``, ``attention_mask`` int64
``[batch, sequence]``; outputs ``tri_logits`` ``[batch, 3]``, ``bin_logits`` ``[batch, 2]``,
``reg`` ``[batch, 1]``: raw values, softmax is applied by factpico), ``tokenizer.json``
(the backbone tokenizer, padding/truncation disabled), ``factpico.json``.

Every weight comes from the checkpoint (``mlm_head`` is dropped; a stale
``embeddings.position_ids`` buffer is ignored); loading is strict, so a checkpoint without the
pooler or a head fails loudly instead of silently using the pretrained backbone's weights.
Prints the max |torch - ONNX Runtime| over a few sample pairs.

    python onnx/export_alignscore.py --ckpt AlignScore-base.ckpt --backbone roberta-base \
        --out ~/.cache/factpico/models/alignscore-base
"""
import argparse
import sys
from pathlib import Path

import numpy as np
import torch
from torch import nn
from transformers import AutoConfig, AutoTokenizer, RobertaModel

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402


class AlignScoreOnnx(nn.Module):
    """BERTAlignModel's inference path: RoBERTa + pooler -> tri / bin / reg heads."""

    def __init__(self, config):
        super().__init__()
        self.base_model = RobertaModel(config, add_pooling_layer=True)
        h = config.hidden_size
        self.bin_layer = nn.Linear(h, 2)
        self.tri_layer = nn.Linear(h, 3)
        self.reg_layer = nn.Linear(h, 1)

    def forward(self, input_ids, attention_mask):
        pooled = self.base_model(input_ids=input_ids, attention_mask=attention_mask).pooler_output
        return self.tri_layer(pooled), self.bin_layer(pooled), self.reg_layer(pooled)


def load_model(ckpt: Path, backbone: str) -> "AlignScoreOnnx":
    config = AutoConfig.from_pretrained(backbone)
    if config.model_type not in ("roberta",):
        raise SystemExit(f"backbone {backbone} is {config.model_type}; AlignScore checkpoints use roberta")
    config._attn_implementation = "eager"
    model = AlignScoreOnnx(config)
    sd = common.load_lightning_state_dict(ckpt)
    keep = {}
    for k, v in sd.items():
        if k.startswith("mlm_head.") or k.endswith("embeddings.position_ids"):
            continue
        keep[k] = v
    missing, unexpected = model.load_state_dict(keep, strict=False)
    if missing or unexpected:
        raise SystemExit(f"{ckpt}: checkpoint does not match the AlignScore architecture; "
                         f"missing {missing[:8]}, unexpected {unexpected[:8]}")
    return model.eval()


def export(model, out: Path, opset: int) -> None:
    ids = torch.tensor([[0, 100, 200, 2, 2, 300, 2], [0, 150, 2, 2, 250, 2, 1]], dtype=torch.long)
    mask = (ids != 1).long()
    common.torch_export(
        model, (ids, mask), out,
        input_names=["input_ids", "attention_mask"],
        output_names=["tri_logits", "bin_logits", "reg"],
        dynamic_axes={"input_ids": {0: "batch", 1: "sequence"}, "attention_mask": {0: "batch", 1: "sequence"},
                      "tri_logits": {0: "batch"}, "bin_logits": {0: "batch"}, "reg": {0: "batch"}},
        opset_version=opset, do_constant_folding=True,
    )


def parity(model, tok, out: Path, max_length: int) -> float:
    import onnxruntime as ort
    sess = ort.InferenceSession(str(out / "model.onnx"), providers=["CPUExecutionProvider"])
    prem = [p for p, _ in common.SAMPLE_PAIRS]
    hyp = [h for _, h in common.SAMPLE_PAIRS]
    enc = tok(prem, hyp, truncation="only_first", padding="longest", max_length=max_length, return_tensors="pt")
    with torch.no_grad():
        ref = model(enc["input_ids"], enc["attention_mask"])
    got = sess.run(None, {"input_ids": enc["input_ids"].numpy(), "attention_mask": enc["attention_mask"].numpy()})
    return max(common.max_abs_diff(r.numpy(), g) for r, g in zip(ref, got))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ckpt", type=Path, required=True, help="AlignScore-base.ckpt / AlignScore-large.ckpt")
    ap.add_argument("--backbone", required=True,
                    help="backbone id or directory with config + tokenizer (roberta-base / roberta-large)")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--checkpoint-name", default=None, help="name/URL recorded in the manifest")
    ap.add_argument("--opset", type=int, default=17)
    args = ap.parse_args()

    args.out.mkdir(parents=True, exist_ok=True)
    model = load_model(args.ckpt, args.backbone)
    tok = AutoTokenizer.from_pretrained(args.backbone, use_fast=True)
    max_length = int(tok.model_max_length) if tok.model_max_length < 100_000 else 512
    max_length = min(max_length, model.base_model.config.max_position_embeddings - 2)
    export(model, args.out, args.opset)
    common.save_tokenizer_json(tok, args.out)
    diff = parity(model, tok, args.out, max_length)
    cfg = model.base_model.config
    common.write_manifest(
        args.out,
        architecture=cfg.model_type,
        task="alignscore",
        inputs=["input_ids", "attention_mask"],
        outputs=["tri_logits", "bin_logits", "reg"],
        labels={"tri_logits": ["aligned", "neutral", "contradiction"],
                "bin_logits": ["not_aligned", "aligned"],
                "reg": ["alignment"]},
        max_length=max_length,
        pair_template="<s> A </s></s> B </s>",
        truncation={"strategy": "only_first", "side": "right", "fallback": "longest_first"},
        pad_token_id=int(cfg.pad_token_id),
        source={"checkpoint": args.checkpoint_name or args.ckpt.name, "sha256": common.sha256_file(args.ckpt)},
        exporter=common.exporter_info("export_alignscore.py"),
    )
    print(f"exported {args.out}: checkpoint read via {common.LOAD_PATH.get(str(args.ckpt), '?')} loading, "
          f"max |torch - ORT| = {diff:.3g} over {len(common.SAMPLE_PAIRS)} sample pairs")
    if not np.isfinite(diff) or diff > 1e-3:
        raise SystemExit(f"parity check failed: max |torch - ORT| = {diff}")


if __name__ == "__main__":
    main()
