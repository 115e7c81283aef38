#!/usr/bin/env python3
"""Exports the first N layers of a Hugging Face BERT-like encoder as a token-embedding model
directory: what ``bert_score`` 0.3.9 (``bert_score/utils.py`` ``get_model`` +
``bert_encode``) computes for ``num_layers=N``, ``all_layers=False``.

Output:
    model.onnx      inputs input_ids, attention_mask (int64, [batch, sequence]; token type
                    ids are not fed, as in bert_score: they default to 0 inside the graph);
                    output last_hidden_state (float32, [batch, sequence, hidden]) = the output
                    of encoder layer N (the model's layers N+1.. are dropped, like
                    ``model.encoder.layer = model.encoder.layer[:N]``)
    tokenizer.json  the fast tokenizer (padding/truncation cleared); checked to give the same
                    ids as the slow tokenizer bert_score loads (``use_fast=False``) on sample
                    strings
    factpico.json   task "token-embedding" + an "embedding" section: output name, layer N,
                    the checkpoint's layer count, hidden size, [CLS]/[SEP] ids (bert_score
                    gives them idf weight 0)

``max_length`` = the tokenizer's ``model_max_length`` (bert_score truncates to it), capped
by ``max_position_embeddings``.

Usage:
    python onnx/export_embedding.py CHECKPOINT OUT_DIR [--layer N]

``--layer`` defaults to bert_score 0.3.9's ``model2layers`` value for the few model names
listed below (``bert-base-multilingual-cased``: 9, QuestEval's BERTScore model). Only
WordPiece (BERT-family) tokenizers are accepted: bert_score encodes GPT-2/RoBERTa-family
tokenizers with ``add_prefix_space=True``, which factpico does not reproduce.

Example (QuestEval's BERTScore model, where the hub is reachable):
    python onnx/export_embedding.py bert-base-multilingual-cased ~/.cache/factpico/models/mbert-l9
"""
import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402

# bert_score 0.3.9 `model2layers` for the BERT-family names factpico users are likely to need.
MODEL2LAYERS = {
    "bert-base-multilingual-cased": 9,
    "bert-base-uncased": 9,
    "bert-large-uncased": 18,
    "bert-base-cased": 9,
    "bert-large-cased": 17,
}

SAMPLE_TEXTS = [
    "Metformin reduced HbA1c by 1.2% in 300 adults.",
    "unanswerable",
    "budesonide–formoterol (n=121) vs. placebo; 95% CI 0.48–0.85",
    "Café naïve résumé — µg/kg ≥ 5 β-agonist 漢字 テスト",
    "a",
]


def export(checkpoint, out_dir, layer=None, opset=17, checkpoint_name=None):
    import numpy as np
    import torch
    from transformers import AutoConfig, AutoModel, AutoTokenizer, PreTrainedTokenizerFast
    from transformers import GPT2Tokenizer, GPT2TokenizerFast

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    name = (checkpoint_name or str(checkpoint)).rstrip("/").split("/")[-1]
    if layer is None:
        if name not in MODEL2LAYERS:
            raise SystemExit(f"--layer is required for {checkpoint} (known defaults: {sorted(MODEL2LAYERS)})")
        layer = MODEL2LAYERS[name]
    cfg = AutoConfig.from_pretrained(checkpoint)
    slow = AutoTokenizer.from_pretrained(checkpoint, use_fast=False)
    fast = AutoTokenizer.from_pretrained(checkpoint, use_fast=True)
    if isinstance(slow, GPT2Tokenizer) or isinstance(fast, GPT2TokenizerFast):
        raise SystemExit("GPT-2/RoBERTa-family tokenizers are not supported (bert_score adds a prefix space)")
    if not isinstance(fast, PreTrainedTokenizerFast):
        raise SystemExit("no fast tokenizer could be built for this checkpoint")
    for t in SAMPLE_TEXTS:
        a = slow.encode(t, add_special_tokens=True)
        b = fast.encode(t, add_special_tokens=True)
        if a != b:
            raise SystemExit(f"slow and fast tokenizers disagree on {t!r}: {a} vs {b}")

    model = AutoModel.from_pretrained(checkpoint).eval()
    if hasattr(model, "decoder") and hasattr(model, "encoder"):
        model = model.encoder
    if not (hasattr(model, "encoder") and hasattr(model.encoder, "layer")):
        raise SystemExit(f"{cfg.model_type}: only BERT-like encoders (model.encoder.layer) are supported")
    n_layers = len(model.encoder.layer)
    if not 0 <= layer <= n_layers:
        raise SystemExit(f"--layer {layer} outside 0..{n_layers}")
    model.encoder.layer = torch.nn.ModuleList(list(model.encoder.layer[:layer]))

    class Wrap(torch.nn.Module):
        def __init__(self, m):
            super().__init__()
            self.m = m

        def forward(self, input_ids, attention_mask):
            return self.m(input_ids, attention_mask=attention_mask)[0]

    wrapped = Wrap(model).eval()
    enc = fast(SAMPLE_TEXTS, padding=True, return_tensors="pt")
    names = ["input_ids", "attention_mask"]
    dyn = {n: {0: "batch", 1: "sequence"} for n in names}
    dyn["last_hidden_state"] = {0: "batch", 1: "sequence"}
    common.torch_export(wrapped, (enc["input_ids"], enc["attention_mask"]), out,
                        input_names=names, output_names=["last_hidden_state"], dynamic_axes=dyn,
                        opset_version=opset, do_constant_folding=True)
    import onnxruntime as ort
    sess = ort.InferenceSession(str(out / "model.onnx"), providers=["CPUExecutionProvider"])
    with torch.no_grad():
        ref = wrapped(enc["input_ids"], enc["attention_mask"]).numpy()
    got = sess.run(["last_hidden_state"], {n: enc[n].numpy() for n in names})[0]
    mask = enc["attention_mask"].numpy().astype(bool)
    diff = float(np.max(np.abs(ref[mask] - got[mask])))
    if diff > 1e-4:
        raise SystemExit(f"parity check failed: max |torch - ORT| = {diff}")

    common.save_tokenizer_json(fast, out)
    max_length = int(slow.model_max_length) if slow.model_max_length < 100_000 else 512
    max_length = min(max_length, int(getattr(cfg, "max_position_embeddings", max_length)))
    manifest = common.write_manifest(
        out,
        architecture=cfg.model_type,
        task="token-embedding",
        inputs=names,
        outputs=["last_hidden_state"],
        labels={},
        max_length=max_length,
        pair_template="",
        truncation={"strategy": "longest_first", "side": "right", "fallback": None},
        pad_token_id=int(fast.pad_token_id or 0),
        source={"checkpoint": checkpoint_name or str(checkpoint), "sha256": common.weights_sha256(checkpoint)},
        exporter=common.exporter_info("export_embedding.py"),
        embedding={
            "output": "last_hidden_state",
            "layer": int(layer),
            "num_hidden_layers": int(n_layers),
            "hidden_size": int(cfg.hidden_size),
            "cls_token_id": int(fast.cls_token_id),
            "sep_token_id": int(fast.sep_token_id),
            "max_abs_diff_vs_torch": diff,
        },
    )
    print(f"exported {out}: layer {layer}/{n_layers}, hidden {cfg.hidden_size}, max |torch - ORT| = {diff:.3g}")
    return manifest


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("checkpoint", help="hub id or local directory")
    ap.add_argument("out_dir", type=Path)
    ap.add_argument("--layer", type=int, default=None, help="encoder layers kept (bert_score num_layers)")
    ap.add_argument("--opset", type=int, default=17)
    ap.add_argument("--checkpoint-name", help="name recorded in the manifest; also picks the default --layer")
    a = ap.parse_args()
    export(a.checkpoint, a.out_dir, a.layer, a.opset, checkpoint_name=a.checkpoint_name)


if __name__ == "__main__":
    main()
