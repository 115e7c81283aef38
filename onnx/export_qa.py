#!/usr/bin/env python3
"""Export a Hugging Face extractive-QA checkpoint (BERT/ELECTRA/RoBERTa + span head) to a
factpico model directory.

Output:
    model.onnx      inputs input_ids, attention_mask[, token_type_ids] (int64, [batch, seq])
                    outputs start_logits, end_logits (float32, [batch, seq])
    tokenizer.json  fast tokenizer; padding/truncation cleared (factpico builds SQuAD windows)
    factpico.json   task "extractive-qa" + a "qa" section with the SQuAD feature settings

The "qa" section defaults to QAEval's settings (`qaeval/answering/model.py`): max_seq_length
384, doc_stride 128, max_query_length 64, n_best 20, max_answer_length 30, lower-casing
forced (`do_lower_case=True`), version-2 (null answer) post-processing.

Usage:
    python onnx/export_qa.py CHECKPOINT OUT_DIR [--max-seq-length 384] [--doc-stride 128]
        [--max-query-length 64] [--no-lower-case]

Example (QAFactEval's answering model, downloaded with its download_models.sh):
    python onnx/export_qa.py models/answering models/qafacteval-qa
"""
import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402
from common import weights_sha256  # noqa: E402


def export(checkpoint, out_dir, max_seq_length=384, doc_stride=128, max_query_length=64,
           do_lower_case=True, opset=14, checkpoint_name=None):
    import torch
    import transformers
    from transformers import AutoConfig, AutoModelForQuestionAnswering, AutoTokenizer

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    cfg = AutoConfig.from_pretrained(checkpoint)
    model = AutoModelForQuestionAnswering.from_pretrained(checkpoint).eval()
    tok = AutoTokenizer.from_pretrained(checkpoint, use_fast=True, do_lower_case=do_lower_case)
    enc = tok(["what is it?"], ["it is a test of the export."], return_tensors="pt")
    names = [n for n in ("input_ids", "attention_mask", "token_type_ids") if n in enc]

    class Wrap(torch.nn.Module):
        def __init__(self, m):
            super().__init__()
            self.m = m

        def forward(self, *args):
            kw = dict(zip(names, args))
            o = self.m(**kw)
            return o.start_logits, o.end_logits

    dyn = {n: {0: "batch", 1: "sequence"} for n in names}
    dyn.update({"start_logits": {0: "batch", 1: "sequence"}, "end_logits": {0: "batch", 1: "sequence"}})
    wrapped = Wrap(model).eval()  # a fresh Module is in training mode (dropout!)
    common.torch_export(wrapped, tuple(enc[n] for n in names), out,
                        input_names=names, output_names=["start_logits", "end_logits"],
                        dynamic_axes=dyn, opset_version=opset, do_constant_folding=True)
    # Check against torch.
    import numpy as np
    import onnxruntime as ort
    sess = ort.InferenceSession(str(out / "model.onnx"), providers=["CPUExecutionProvider"])
    with torch.no_grad():
        ref = wrapped.eval()(*[enc[n] for n in names])
    got = sess.run(None, {n: enc[n].numpy() for n in names})
    err = max(float(np.abs(got[i] - ref[i].detach().numpy()).max()) for i in range(2))
    assert err < 1e-4, f"ONNX differs from torch by {err}"

    bt = tok.backend_tokenizer
    bt.no_truncation()
    bt.no_padding()
    bt.save(str(out / "tokenizer.json"))
    manifest = {
        "schema_version": 1,
        "architecture": cfg.model_type,
        "task": "extractive-qa",
        "inputs": names,
        "outputs": ["start_logits", "end_logits"],
        "labels": {},
        "max_length": int(max_seq_length),
        "pair_template": "[CLS] question [SEP] context [SEP]",
        "truncation": {"strategy": "only_second", "side": "right", "fallback": None},
        "pad_token_id": int(tok.pad_token_id or 0),
        "source": {"checkpoint": checkpoint_name or str(checkpoint), "sha256": weights_sha256(checkpoint)},
        "exporter": {"name": "factpico onnx/export_qa.py",
                     "version": f"torch {torch.__version__}, transformers {transformers.__version__}"},
        "qa": {
            "max_seq_length": int(max_seq_length),
            "doc_stride": int(doc_stride),
            "max_query_length": int(max_query_length),
            "do_lower_case": bool(do_lower_case),
            "n_best_size": 20,
            "max_answer_length": 30,
            "cls_token_id": tok.cls_token_id,
            "sep_token_id": tok.sep_token_id,
            "pad_token_id": tok.pad_token_id,
            "max_abs_diff_vs_torch": err,
        },
    }
    (out / "factpico.json").write_text(json.dumps(manifest, indent=2) + "\n")
    return manifest


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("checkpoint")
    ap.add_argument("out_dir")
    ap.add_argument("--max-seq-length", type=int, default=384)
    ap.add_argument("--doc-stride", type=int, default=128)
    ap.add_argument("--max-query-length", type=int, default=64)
    ap.add_argument("--no-lower-case", action="store_true")
    ap.add_argument("--checkpoint-name", help="name/URL recorded in the manifest (default: CHECKPOINT)")
    a = ap.parse_args()
    export(a.checkpoint, a.out_dir, a.max_seq_length, a.doc_stride, a.max_query_length, not a.no_lower_case,
           checkpoint_name=a.checkpoint_name)


if __name__ == "__main__":
    main()
