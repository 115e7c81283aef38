"""Exports a FactCG checkpoint (derenlei/FactCG ``Inferencer``, ``use_hf_ckpt=True``: hub
``yaxili96/FactCG-DeBERTa-v3-Large``) to a factpico model directory read by
``crates/factpico-factcg``.

FactCG's checker is a ``DebertaV2ForSequenceClassification`` with 2 labels, loaded exactly as
MiniCheck's DeBERTa checker (``AutoConfig(num_labels=2, finetuning_task="text-classification")``,
``problem_type = "single_label_classification"``, ``AutoModelForSequenceClassification``,
``AutoTokenizer(use_fast=True)``), so the graph, ``tokenizer.json`` and the torch-vs-ORT check
are ``export_minicheck.py --variant deberta-v3-large``'s. This script runs that export, then
rewrites ``factpico.json`` for FactCG: a ``factcg`` section (``support_index`` 1: softmax
column 1 = supported), ``max_length`` 2048 (the reference's tokenizer call) and
``pad_token_id`` = the EOS id (the reference sets ``pad_token = eos_token``; padded positions
are masked either way).

    python onnx/export_factcg.py --model yaxili96/FactCG-DeBERTa-v3-Large --out DIR
"""
import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import export_minicheck  # noqa: E402

CHECKPOINT = "yaxili96/FactCG-DeBERTa-v3-Large"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", default=CHECKPOINT, help="hub id or local checkpoint directory")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--checkpoint-name", default=None, help="source.checkpoint recorded in the manifest")
    args = ap.parse_args()
    argv = ["export_minicheck.py", "--variant", "deberta-v3-large", "--model", args.model, "--out", str(args.out),
            "--max-length", "2048", "--checkpoint-name", args.checkpoint_name or args.model]
    saved, sys.argv = sys.argv, argv
    try:
        export_minicheck.main()
    finally:
        sys.argv = saved
    from transformers import AutoTokenizer
    tok = AutoTokenizer.from_pretrained(args.model, use_fast=True)
    path = args.out / "factpico.json"
    manifest = json.loads(path.read_text("utf-8"))
    manifest.pop("minicheck", None)
    manifest["factcg"] = {"support_index": 1}
    manifest["pad_token_id"] = int(tok.eos_token_id)
    manifest["exporter"]["name"] = "factpico onnx/export_factcg.py (export_minicheck.py deberta-v3-large)"
    path.write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    print(f"wrote the factcg manifest of {args.out}")


if __name__ == "__main__":
    main()
