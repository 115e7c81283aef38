"""Builds the test fixtures of ``crates/factpico-convert`` (``fixtures/checkpoints/``), offline.

Run in the reference venv (``FACTPICO_REF_PYTHON``, onnx/README.md: torch, transformers,
pytorch-lightning 1.9.5, the authors' ``alignscore``):

    "$FACTPICO_REF_PYTHON" onnx/convert_fixtures.py --out fixtures/checkpoints

Writes:

* ``alignscore-tiny/AlignScore-tiny.ckpt``: a checkpoint written by a real PyTorch-Lightning
  ``Trainer.save_checkpoint`` of the authors' ``BERTAlignModel`` after one ``fit`` step at
  learning rate 0 (so it holds optimizer state, LR-scheduler state, loop state, callback state
  and the ``AttributeDict`` hyper-parameters, like the published checkpoints), with the random
  weights of ``onnx/random_alignscore.py --size tiny``.
* ``alignscore-tiny/roberta-tiny/``: its backbone directory (``config.json``, ``vocab.json``,
  ``merges.txt``; the random backbone weights are not needed by a converter and are dropped).
* ``alignscore-tiny/export/``: ``onnx/export_alignscore.py`` run on that checkpoint (the torch
  export the Rust conversion is compared with).
* ``alignscore-tiny/AlignScore-tiny-hostile.ckpt``: the same checkpoint with Lightning's
  ``AttributeDict`` hyper-parameters and entries whose unpickling calls ``os.system`` /
  ``builtins.eval`` to create ``/tmp/factpico-convert-fixture-pwned`` (security test).
* ``minicheck-roberta-tiny/``: ``onnx/random_minicheck.py --variant roberta-large --size tiny``
  (``config.json``, ``model.safetensors``, ``vocab.json``, ``merges.txt``) plus the same weights
  as ``pytorch_model.bin`` (``torch.save`` zip format), and ``export/`` = ``onnx/export_minicheck.py``.
* ``dtypes.pt`` + ``dtypes.json``: small tensors in fp32 / fp16 / bf16, transposed (non-contiguous)
  views, views with a storage offset, and two tensors sharing one storage; the JSON holds each
  tensor's shape and values as float64 (from torch) for the reader's tests.
"""
import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import torch

HERE = Path(__file__).resolve().parent
PY = sys.executable


def run(*args):
    print("+", " ".join(str(a) for a in args), flush=True)
    subprocess.run([str(a) for a in args], check=True)


def alignscore(out: Path, corpus: Path, tmp: Path):
    import pytorch_lightning as pl
    from alignscore.model import BERTAlignModel

    run(PY, HERE / "random_alignscore.py", "--size", "tiny", "--out", tmp, "--corpus", corpus)
    backbone = tmp / "roberta-tiny"
    raw = torch.load(tmp / "AlignScore-tiny.ckpt", map_location="cpu", weights_only=True)["state_dict"]

    pl.seed_everything(7)
    model = BERTAlignModel(model=str(backbone), using_pretrained=True, learning_rate=0.0, weight_decay=0.1,
                           adam_epsilon=1e-6, warmup_steps_portion=0.1)
    model.load_state_dict(raw, strict=True)
    ids = torch.tensor([[0, 10, 11, 12, 2, 2, 13, 14, 2], [0, 20, 21, 2, 2, 22, 2, 1, 1]])
    mask = (ids != 1).long()
    batch = {"input_ids": ids, "attention_mask": mask, "mlm_label": torch.full_like(ids, -100),
             "align_label": torch.tensor([1, 0]), "tri_label": torch.tensor([0, 2]),
             "reg_label": torch.tensor([0.7, -100.0])}
    ckpt_cb = pl.callbacks.ModelCheckpoint(dirpath=str(tmp / "cb"), save_top_k=0)
    trainer = pl.Trainer(max_steps=1, accelerator="cpu", devices=1, logger=False, callbacks=[ckpt_cb],
                         enable_progress_bar=False, enable_model_summary=False, num_sanity_val_steps=0)
    rows = [{k: v[i] for k, v in batch.items()} for i in range(2)]
    trainer.fit(model, train_dataloaders=torch.utils.data.DataLoader(rows, batch_size=2))
    dst = out / "alignscore-tiny"
    shutil.rmtree(dst, ignore_errors=True)
    (dst / "roberta-tiny").mkdir(parents=True)
    trainer.save_checkpoint(str(dst / "AlignScore-tiny.ckpt"))
    after = model.state_dict()
    for k, v in raw.items():  # learning rate 0: the weights are the random ones
        assert torch.equal(after[k], v), k
    for f in ("config.json", "vocab.json", "merges.txt"):
        shutil.copy(backbone / f, dst / "roberta-tiny" / f)
    ck = torch.load(dst / "AlignScore-tiny.ckpt", map_location="cpu", weights_only=False)
    print("ckpt keys:", sorted(ck))
    run(PY, HERE / "export_alignscore.py", "--ckpt", dst / "AlignScore-tiny.ckpt", "--backbone", backbone,
        "--out", dst / "export", "--checkpoint-name", "AlignScore-tiny.ckpt")


class _Hostile:
    """Pickles as ``os.system(command)``: a loader that calls globals runs the command."""

    def __init__(self, command):
        self.command = command

    def __reduce__(self):
        import os
        return (os.system, (self.command,))


HOSTILE_MARKER = "/tmp/factpico-convert-fixture-pwned"


def hostile(out: Path):
    """``AlignScore-tiny-hostile.ckpt``: the Lightning checkpoint with its hyper-parameters as
    Lightning's ``AttributeDict`` and a callback entry whose unpickling calls
    ``os.system("touch /tmp/factpico-convert-fixture-pwned")`` (and ``builtins.eval``): the same
    state dict, so a safe reader converts it identically and never creates the marker."""
    import builtins
    from pytorch_lightning.utilities.parsing import AttributeDict
    dst = out / "alignscore-tiny"
    ck = torch.load(dst / "AlignScore-tiny.ckpt", map_location="cpu", weights_only=False)
    ck["optimizer_states"] = []  # keeps the fixture small; the clean checkpoint has them
    ck["hyper_parameters"] = AttributeDict(ck["hyper_parameters"])
    ck["callbacks"]["evil"] = _Hostile(f"touch {HOSTILE_MARKER}")

    class _Eval:
        def __reduce__(self):
            return (builtins.eval, (f"open({HOSTILE_MARKER!r}, 'w')",))

    ck["loops"]["evil_eval"] = _Eval()
    torch.save(ck, dst / "AlignScore-tiny-hostile.ckpt")


def minicheck(out: Path, corpus: Path):
    dst = out / "minicheck-roberta-tiny"
    shutil.rmtree(dst, ignore_errors=True)
    run(PY, HERE / "random_minicheck.py", "--variant", "roberta-large", "--size", "tiny", "--out", dst,
        "--corpus", corpus)
    from safetensors.torch import load_file
    sd = load_file(str(dst / "model.safetensors"))
    torch.save(sd, dst / "pytorch_model.bin")
    for f in list(dst.iterdir()):
        if f.name not in ("config.json", "model.safetensors", "pytorch_model.bin", "vocab.json", "merges.txt"):
            f.unlink()
    run(PY, HERE / "export_minicheck.py", "--variant", "roberta-large", "--model", dst, "--out", dst / "export",
        "--checkpoint-name", "minicheck-roberta-tiny")


def dtypes(out: Path):
    g = torch.Generator().manual_seed(3)
    base = torch.randn(4, 6, generator=g)
    shared = torch.randn(20, generator=g)
    tensors = {
        "f32": base.clone(),
        "f16": base.clone().half(),
        "bf16": base.clone().bfloat16(),
        "f32_t": base.clone().t(),               # non-contiguous: strides (1, 6)
        "f16_t": base.clone().half().t(),
        "view_offset": shared[5:17].view(3, 4),  # storage offset 5
        "view_step": shared[1::3],               # stride 3, offset 1
        "scalar": torch.tensor(2.5),
        "empty": torch.zeros(0, 3),
    }
    sd = {"state_dict": tensors, "epoch": 3, "note": "dtypes fixture"}
    torch.save(sd, out / "dtypes.pt")
    ref = {k: {"shape": list(v.shape), "values": v.double().flatten().tolist()} for k, v in tensors.items()}
    (out / "dtypes.json").write_text(json.dumps(ref, indent=1) + "\n", encoding="utf-8")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--corpus", type=Path, default=HERE / "tiny_tokenizer_corpus.txt")
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        alignscore(args.out.resolve(), args.corpus.resolve(), Path(tmp))
    hostile(args.out.resolve())
    minicheck(args.out.resolve(), args.corpus.resolve())
    dtypes(args.out.resolve())


if __name__ == "__main__":
    main()
