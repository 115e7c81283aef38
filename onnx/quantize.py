"""Dynamic int8 quantisation of a factpico model directory.

``onnxruntime.quantization.quantize_dynamic(weight_type=QInt8)`` on ``model.onnx``; copies
``tokenizer.json`` and the manifest (``factpico.json``, or ``config.json`` for inferred
directories), recording the quantisation in ``exporter``.

    python onnx/quantize.py --model-dir alignscore-base --out alignscore-base-int8
"""
import argparse
import json
import shutil
import sys
from pathlib import Path

from onnxruntime.quantization import QuantType, quantize_dynamic

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model-dir", type=Path, required=True)
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    src = args.model_dir / "model.onnx"
    # The int8 graph is written next to the fp32 one first when the source holds both.
    quantize_dynamic(str(src), str(args.out / "model.onnx"), weight_type=QuantType.QInt8)
    shutil.copy(args.model_dir / "tokenizer.json", args.out / "tokenizer.json")
    manifest = args.model_dir / "factpico.json"
    if manifest.exists():
        m = json.loads(manifest.read_text("utf-8"))
        m["exporter"] = {
            "name": m.get("exporter", {}).get("name", "") + " + onnx/quantize.py (dynamic int8)",
            "version": common.exporter_info("quantize.py")["version"],
        }
        m.setdefault("source", {})["checkpoint"] = m.get("source", {}).get("checkpoint", "") + " [int8]"
        (args.out / "factpico.json").write_text(json.dumps(m, indent=2) + "\n", encoding="utf-8")
    else:
        for extra in ("config.json", "tokenizer_config.json"):
            if (args.model_dir / extra).exists():
                shutil.copy(args.model_dir / extra, args.out / extra)
    print(f"quantized {src} -> {args.out / 'model.onnx'} "
          f"({src.stat().st_size / 1e6:.1f} MB -> {(args.out / 'model.onnx').stat().st_size / 1e6:.1f} MB)")


if __name__ == "__main__":
    main()
