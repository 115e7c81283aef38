"""Writes a full-size AlignScore-large replica for measuring ``factpico-convert`` (time, peak
RSS): ``AlignScore-large.ckpt`` (Lightning-style dict: ``state_dict`` with ``base_model.*``
incl. the pooler, ``mlm_head.*``, the three heads; roberta-large shapes, vocabulary 50,265;
random normal(0, 0.02) weights; a fake optimizer-state entry) and ``roberta-large/`` with its
``config.json`` plus the tiny fixture's ``vocab.json`` / ``merges.txt`` (the tokenizer's size
does not affect conversion cost). Weights are made tensor by tensor from the module shapes on
the meta device, so the script needs ~1.5 GB, not a model instance.

    python onnx/convert_bench_replica.py --out DIR
    cargo run --release -p factpico-convert --example convert -- alignscore DIR/AlignScore-large.ckpt DIR/roberta-large OUT
    python onnx/convert_bench_replica.py --out DIR --check OUT   # torch (export_alignscore.py's module) vs OUT under ORT
"""
import argparse
import shutil
from pathlib import Path

import torch
from transformers import RobertaConfig, RobertaForMaskedLM, RobertaModel

HERE = Path(__file__).resolve().parent


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--check", type=Path, default=None,
                    help="converted model directory: compare it under ONNX Runtime with the torch module on 2 inputs")
    args = ap.parse_args()
    if args.check:
        return check(args.out, args.check)
    cfg = RobertaConfig(vocab_size=50265, max_position_embeddings=514, type_vocab_size=1, pad_token_id=1,
                        bos_token_id=0, eos_token_id=2, layer_norm_eps=1e-5, hidden_size=1024,
                        num_hidden_layers=24, num_attention_heads=16, intermediate_size=4096)
    with torch.device("meta"):
        base = RobertaModel(cfg, add_pooling_layer=True)
        mlm = RobertaForMaskedLM(cfg).lm_head
    g = torch.Generator().manual_seed(0)
    state = {}
    for prefix, mod in (("base_model.", base), ("mlm_head.", mlm)):
        for k, v in mod.state_dict().items():
            if v.dtype.is_floating_point:
                state[prefix + k] = torch.empty(v.shape).normal_(0.0, 0.02, generator=g)
            else:
                state[prefix + k] = torch.zeros(v.shape, dtype=v.dtype)
    for name, n in (("bin_layer", 2), ("tri_layer", 3), ("reg_layer", 1)):
        state[f"{name}.weight"] = torch.empty(n, 1024).normal_(0.0, 0.02, generator=g)
        state[f"{name}.bias"] = torch.zeros(n)
    args.out.mkdir(parents=True, exist_ok=True)
    ckpt = {"epoch": 0, "global_step": 0, "state_dict": state,
            "optimizer_states": [{"state": {0: {"exp_avg": torch.zeros(8)}}}],
            "hyper_parameters": {"model": "roberta-large"}}
    torch.save(ckpt, args.out / "AlignScore-large.ckpt")
    bb = args.out / "roberta-large"
    bb.mkdir(exist_ok=True)
    cfg.save_pretrained(str(bb))
    fx = HERE.parent / "fixtures/checkpoints/alignscore-tiny/roberta-tiny"
    for f in ("vocab.json", "merges.txt"):
        shutil.copy(fx / f, bb / f)
    print("params", sum(v.numel() for v in state.values()))


def check(out: Path, model_dir: Path):
    import sys
    import numpy as np
    import onnxruntime as ort
    sys.path.insert(0, str(HERE))
    import export_alignscore
    m = export_alignscore.load_model(out / "AlignScore-large.ckpt", str(out / "roberta-large"))
    ids = torch.tensor([[0, 100, 200, 300, 2, 2, 400, 500, 2, 1, 1], [0, 7, 8, 9, 10, 11, 12, 2, 2, 13, 2]])
    mask = (ids != 1).long()
    with torch.no_grad():
        ref = [x.numpy() for x in m(ids, mask)]
    s = ort.InferenceSession(str(model_dir / "model.onnx"), providers=["CPUExecutionProvider"])
    got = s.run(None, {"input_ids": ids.numpy(), "attention_mask": mask.numpy()})
    print("max |torch - converted ORT| per output:", [float(np.abs(a - b).max()) for a, b in zip(ref, got)],
          "max |torch|:", [float(np.abs(a).max()) for a in ref])


if __name__ == "__main__":
    main()
