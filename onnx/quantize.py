"""Dynamic int8 quantisation of a factpico model directory.

``onnxruntime.quantization.quantize_dynamic(weight_type=QInt8, per_channel=True)`` on
``model.onnx``; copies ``tokenizer.json`` and the manifest (``factpico.json``, or
``config.json`` for inferred directories), recording the quantisation in ``exporter``.

Per-channel weight scales are the default: on the shared MiniLM NLI model (AlignScore
``nli_sp``, max length 256, 300 real pairs) they halve the score drift against fp32 at the
same file size — mean / max abs(score diff) 0.034 / 0.209 per channel vs 0.077 / 0.437 per
tensor (BENCHMARKS.md, "int8 drift"). ``--per-tensor`` gives the old single-scale graph.
``--exclude-regex`` keeps matching MatMul/Gemm nodes in fp32 (measured: excluding the last
layer and heads of MiniLM changed little, 0.033; the first and last, 0.029).

Not for metric regression: per (chunk, sentence) pair the same graph drifts 0.053 mean / 0.61
max (Kendall tau_b 0.88), and no recipe of onnxruntime.quantization tried by
``int8_recipes.py`` reaches mean 0.01 / max 0.05 at 1.8x fp32 CPU time (BENCHMARKS.md, "int8
recipe frontier"; the best trade-off, 8 scan-chosen FFN MatMuls in fp32, is 0.017 / 0.17 at 1.54x).

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
    ap.add_argument("--per-tensor", action="store_true",
                    help="one scale per weight tensor (onnxruntime's default) instead of per output channel")
    ap.add_argument("--exclude-regex", default=None,
                    help="keep MatMul/Gemm nodes whose name matches this regex in fp32 (e.g. 'layer\\.11|pooler|classifier')")
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    src = args.model_dir / "model.onnx"
    # The int8 graph is written next to the fp32 one first when the source holds both.
    exclude = []
    if args.exclude_regex:
        import re

        import onnx
        pat = re.compile(args.exclude_regex)
        exclude = [n.name for n in onnx.load(str(src), load_external_data=False).graph.node
                   if n.op_type in ("MatMul", "Gemm") and pat.search(n.name)]
        print(f"keeping {len(exclude)} MatMul/Gemm nodes in fp32")
    per_channel = not args.per_tensor
    quantize_dynamic(str(src), str(args.out / "model.onnx"), weight_type=QuantType.QInt8,
                     per_channel=per_channel, nodes_to_exclude=exclude)
    mode = ("per-channel" if per_channel else "per-tensor") + (f", {len(exclude)} nodes fp32" if exclude else "")
    shutil.copy(args.model_dir / "tokenizer.json", args.out / "tokenizer.json")
    manifest = args.model_dir / "factpico.json"
    if manifest.exists():
        m = json.loads(manifest.read_text("utf-8"))
        m["exporter"] = {
            "name": m.get("exporter", {}).get("name", "") + f" + onnx/quantize.py (dynamic int8, {mode})",
            "version": common.exporter_info("quantize.py")["version"],
        }
        m.setdefault("source", {})["checkpoint"] = m.get("source", {}).get("checkpoint", "") + " [int8]"
        (args.out / "factpico.json").write_text(json.dumps(m, indent=2) + "\n", encoding="utf-8")
    else:
        for extra in ("config.json", "tokenizer_config.json"):
            if (args.model_dir / extra).exists():
                shutil.copy(args.model_dir / extra, args.out / extra)
    def size_mb(d: Path) -> float:  # the graph and its external data (common.DATA_FILE), if any
        return sum((d / f).stat().st_size for f in ("model.onnx", common.DATA_FILE) if (d / f).exists()) / 1e6

    print(f"quantized {src} -> {args.out / 'model.onnx'} ({size_mb(args.model_dir):.1f} MB -> {size_mb(args.out):.1f} MB)")


if __name__ == "__main__":
    main()
