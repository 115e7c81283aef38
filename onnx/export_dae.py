#!/usr/bin/env python3
"""Export a DAE-2021 checkpoint (Goyal & Durrett 2021, `ElectraDependencyModel`,
tagoyal/factuality-datasets `train_utils.py:152-196`) to a factpico model directory.

Checkpoint directory (a `save_pretrained` directory, e.g. the unzipped
`DAE_xsum_human_best_ckpt`): `config.json` (ElectraConfig), `pytorch_model.bin` or
`model.safetensors` with keys `electra.*` plus `dep_label_classifier.weight` [2, 2*hidden] and
`dep_label_classifier.bias` [2], and `vocab.txt` (uncased WordPiece).

Output:
    model.onnx      inputs  input_ids, attention_mask   int64 [batch, sequence]
                            child_pos, head_pos         int64 [batch, arcs] (positions in the sequence)
                    output  arc_logits                  float32 [batch, arcs, 2]  (class 1 = entailed)
                    = dep_label_classifier(concat(H[child_pos], H[head_pos])), H = ELECTRA last
                      hidden state with token_type_ids all zero (the reference passes none).
    tokenizer.json  fast uncased WordPiece tokenizer (ElectraTokenizerFast from vocab.txt),
                    padding/truncation cleared; factpico tokenizes word by word.
    factpico.json   task "dae", labels {"arc_logits": ["not_entailed", "entailed"]}, max_length 512.

Why the arc head is inside the graph: the gather + 1536->2 linear costs nothing, keeps the
weights in one file, and the graph returns [arcs, 2] instead of a [512, 768] hidden state per
example (less copying out of ONNX Runtime). Padding to 512 (as the reference does) is not
needed: attention masking makes the result independent of padding up to float rounding,
so factpico pads each batch to its longest example.

Also builds random-weight DAE checkpoints for tests and benchmarks (no download):
    python onnx/export_dae.py random --shape tiny --vocab-from TOKENIZER_JSON --vocab-size 3000 CKPT_DIR
    python onnx/export_dae.py random --shape base --vocab-from TOKENIZER_JSON CKPT_DIR
    python onnx/export_dae.py export CKPT_DIR OUT_DIR

Requires torch, transformers (tested 2.5.1 / 4.46.3), onnx, onnxruntime, safetensors.
"""
import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402
from common import weights_sha256  # noqa: E402

SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]


def dae_model_class():
    import torch
    from transformers import ElectraModel, ElectraPreTrainedModel

    class ElectraDependencyModel(ElectraPreTrainedModel):
        """Spec §3 (DAE-2021): e_i = [H[child_i]; H[head_i]], logits_i = W e_i + b."""

        def __init__(self, config):
            super().__init__(config)
            self.electra = ElectraModel(config)
            self.dep_label_classifier = torch.nn.Linear(2 * config.hidden_size, 2)
            self.post_init()

        def forward(self, input_ids, attention_mask, child_pos, head_pos):
            h = self.electra(input_ids, attention_mask=attention_mask).last_hidden_state
            d = h.shape[-1]
            c = torch.gather(h, 1, child_pos.unsqueeze(-1).expand(-1, -1, d))
            p = torch.gather(h, 1, head_pos.unsqueeze(-1).expand(-1, -1, d))
            return self.dep_label_classifier(torch.cat([c, p], dim=-1))

    return ElectraDependencyModel


SUPPORTED = ("ElectraDependencyModel (DAE-2021, tagoyal/factuality-datasets train_utils.py, model_type "
             "electra_dae, e.g. DAE_xsum_human_best_ckpt)")


def refuse_dae_2020(ckpt, cfg, sd):
    """DAE-2020 (tagoyal/dae-factuality `ElectraDAEModel`: a [2, 3*hidden] arc head over child,
    head and a second ELECTRA pass over the arc text, plus `importance_regression`) is not
    supported: say so instead of failing with a tensor size mismatch."""
    w = sd.get("dep_label_classifier.weight")
    archs = getattr(cfg, "architectures", None) or []
    is_2020 = ("ElectraDAEModel" in archs or any(k.startswith("importance_regression.") for k in sd)
               or (w is not None and tuple(w.shape) == (2, 3 * cfg.hidden_size)))
    if is_2020:
        shape = None if w is None else list(w.shape)
        raise SystemExit(f"{ckpt} is a DAE-2020 checkpoint (ElectraDAEModel of tagoyal/dae-factuality: "
                         f"dep_label_classifier {shape}, architectures {archs}), which factpico does not support "
                         f"(its arc representation needs a second ELECTRA pass over each arc's words). "
                         f"Supported: {SUPPORTED}.")


def load_checkpoint(ckpt):
    import torch
    from transformers import ElectraConfig

    ckpt = Path(ckpt)
    cfg = ElectraConfig.from_pretrained(ckpt)
    if (ckpt / "model.safetensors").exists():
        from safetensors.torch import load_file
        sd = load_file(str(ckpt / "model.safetensors"))
    else:
        sd = torch.load(ckpt / "pytorch_model.bin", map_location="cpu", weights_only=True)
    refuse_dae_2020(ckpt, cfg, sd)
    model = dae_model_class()(cfg)
    missing, unexpected = model.load_state_dict(sd, strict=False)
    # position_ids buffers differ between transformers versions; anything else is an error
    missing = [k for k in missing if not k.endswith("position_ids")]
    unexpected = [k for k in unexpected if not k.endswith("position_ids")]
    if missing or unexpected:
        raise SystemExit(f"checkpoint {ckpt} does not match ElectraDependencyModel: "
                         f"missing {missing[:5]}, unexpected {unexpected[:5]}. Supported: {SUPPORTED}.")
    return cfg, model.eval()


def make_tokenizer(ckpt):
    """Fast tokenizer from vocab.txt; `do_lower_case` from tokenizer_config.json when saved
    there (transformers 2.11 `save_pretrained` writes the init arguments), else True
    (ElectraTokenizer's default; the DAE backbone is uncased)."""
    from transformers import ElectraTokenizerFast
    lower = True
    tc = Path(ckpt) / "tokenizer_config.json"
    if tc.exists():
        lower = bool(json.loads(tc.read_text("utf-8")).get("do_lower_case", True))
    return ElectraTokenizerFast(vocab_file=str(Path(ckpt) / "vocab.txt"), do_lower_case=lower,
                                strip_accents=None, tokenize_chinese_chars=True)


def export(ckpt, out_dir, opset=17, check=True, checkpoint_name=None):
    import numpy as np
    import torch
    import transformers

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    cfg, model = load_checkpoint(ckpt)
    ids = torch.tensor([[2, 7, 8, 9, 3, 10, 11, 3, 0], [2, 7, 8, 3, 10, 3, 0, 0, 0]])
    mask = (torch.arange(9)[None, :] < torch.tensor([[8], [6]])).long()
    child = torch.tensor([[5, 6], [4, 4]])
    head = torch.tensor([[6, 5], [4, 1]])
    names = ["input_ids", "attention_mask", "child_pos", "head_pos"]
    common.torch_export(model, (ids, mask, child, head), out, input_names=names,
                        output_names=["arc_logits"],
                        dynamic_axes={"input_ids": {0: "batch", 1: "sequence"},
                                      "attention_mask": {0: "batch", 1: "sequence"},
                                      "child_pos": {0: "batch", 1: "arcs"},
                                      "head_pos": {0: "batch", 1: "arcs"},
                                      "arc_logits": {0: "batch", 1: "arcs"}},
                        opset_version=opset, do_constant_folding=True)
    err = None
    if check:
        import onnxruntime as ort
        sess = ort.InferenceSession(str(out / "model.onnx"), providers=["CPUExecutionProvider"])
        with torch.no_grad():
            ref = model(ids, mask, child, head).numpy()
        got = sess.run(None, {"input_ids": ids.numpy(), "attention_mask": mask.numpy(),
                              "child_pos": child.numpy(), "head_pos": head.numpy()})[0]
        err = float(np.abs(got - ref).max())
        assert err < 1e-4, f"ONNX differs from torch by {err}"
    tok = make_tokenizer(ckpt)
    bt = tok.backend_tokenizer
    bt.no_truncation()
    bt.no_padding()
    bt.save(str(out / "tokenizer.json"))
    manifest = {
        "schema_version": 1,
        "architecture": cfg.model_type,
        "task": "dae",
        "inputs": names,
        "outputs": ["arc_logits"],
        "labels": {"arc_logits": ["not_entailed", "entailed"]},
        "max_length": 512,
        "pair_template": "[CLS] article [SEP] summary [SEP] (word-level; article cut from its end)",
        "truncation": {"strategy": "only_first", "side": "right", "fallback": None},
        "pad_token_id": int(tok.pad_token_id),
        "source": {"checkpoint": checkpoint_name or str(Path(ckpt).name), "sha256": weights_sha256(ckpt)},
        "exporter": {"name": "factpico onnx/export_dae.py",
                     "version": f"torch {torch.__version__}, transformers {transformers.__version__}"},
    }
    (out / "factpico.json").write_text(json.dumps(manifest, indent=2) + "\n")
    return err


def reduced_vocab(tokenizer_json, size):
    """Specials, every ASCII/Latin/Greek/punctuation char and its ## form from the BERT
    uncased vocabulary, then the vocabulary in its own (frequency-like) order up to `size`."""
    vocab = json.loads(Path(tokenizer_json).read_text())["model"]["vocab"]
    order = [t for t, _ in sorted(vocab.items(), key=lambda kv: kv[1])]
    keep = list(SPECIALS)

    def small_char(s):
        return len(s) == 1 and ord(s) < 0x3000

    chars = [t for t in order if small_char(t) or (t.startswith("##") and small_char(t[2:]))]
    rest = [t for t in order if not t.startswith("[") and t not in chars]
    for t in chars + rest:
        if len(keep) >= size:
            break
        if t not in keep:
            keep.append(t)
    return keep


def make_random(ckpt, shape, tokenizer_json, vocab_size=None, seed=13, head_std=0.15):
    import torch
    from safetensors.torch import save_file
    from transformers import ElectraConfig

    full = json.loads(Path(tokenizer_json).read_text())["model"]["vocab"]
    if vocab_size:
        vocab = reduced_vocab(tokenizer_json, vocab_size)
    else:
        vocab = [t for t, _ in sorted(full.items(), key=lambda kv: kv[1])]
    if shape == "tiny":
        dims = dict(embedding_size=64, hidden_size=64, num_hidden_layers=2, num_attention_heads=2,
                    intermediate_size=128)
    elif shape == "base":  # google/electra-base-discriminator
        dims = dict(embedding_size=768, hidden_size=768, num_hidden_layers=12, num_attention_heads=12,
                    intermediate_size=3072)
    else:
        raise SystemExit(f"unknown shape {shape}")
    cfg = ElectraConfig(vocab_size=len(vocab), max_position_embeddings=512, type_vocab_size=2,
                        pad_token_id=vocab.index("[PAD]"), **dims)
    torch.manual_seed(seed)
    model = dae_model_class()(cfg).eval()
    with torch.no_grad():
        # a random head with std 0.02 gives p ~ 0.5 for every arc; widen it so that
        # per-arc probabilities spread over (0, 1) and parity tests can tell arcs apart
        model.dep_label_classifier.weight.normal_(0.0, head_std)
        model.dep_label_classifier.bias.zero_()
    out = Path(ckpt)
    out.mkdir(parents=True, exist_ok=True)
    cfg.architectures = ["ElectraDependencyModel"]
    cfg.save_pretrained(out)
    sd = {k: v.contiguous() for k, v in model.state_dict().items() if not k.endswith("position_ids")}
    save_file(sd, str(out / "model.safetensors"), metadata={"format": "pt"})
    (out / "vocab.txt").write_text("".join(t + "\n" for t in vocab))
    (out / "tokenizer_config.json").write_text(json.dumps({"do_lower_case": True, "model_max_length": 512,
                                                             "tokenizer_class": "ElectraTokenizer"}, indent=2) + "\n")
    return cfg


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    e = sub.add_parser("export", help="checkpoint dir -> factpico model dir")
    e.add_argument("checkpoint")
    e.add_argument("out_dir")
    e.add_argument("--opset", type=int, default=17)
    e.add_argument("--checkpoint-name", help="name recorded in the manifest (default: the folder name)")
    r = sub.add_parser("random", help="write a random-weight DAE checkpoint (tests, benchmarks)")
    r.add_argument("checkpoint")
    r.add_argument("--shape", choices=["tiny", "base"], default="tiny")
    r.add_argument("--vocab-from", required=True, help="a BERT-uncased tokenizer.json to take the vocabulary from")
    r.add_argument("--vocab-size", type=int, default=None, help="reduce the vocabulary to this many tokens")
    r.add_argument("--seed", type=int, default=13)
    a = ap.parse_args()
    if a.cmd == "export":
        err = export(a.checkpoint, a.out_dir, opset=a.opset, checkpoint_name=a.checkpoint_name)
        print(f"wrote {a.out_dir} (max |torch - onnxruntime| = {err:.2e})")
    else:
        cfg = make_random(a.checkpoint, a.shape, a.vocab_from, a.vocab_size, a.seed)
        print(f"wrote {a.checkpoint}: random {a.shape} ELECTRA DAE, vocab {cfg.vocab_size}")


if __name__ == "__main__":
    main()
