"""Downloads a public AlignScore checkpoint and its backbone tokenizer/config from the
Hugging Face hub, then exports them with ``export_alignscore.py`` (optionally also an int8
copy with ``quantize.py``).

    python onnx/fetch_alignscore.py --variant base --out ~/.cache/factpico/models/alignscore-base
"""
import argparse
import subprocess
import sys
from pathlib import Path

from huggingface_hub import hf_hub_download

HERE = Path(__file__).resolve().parent


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--variant", choices=["base", "large"], required=True)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--int8", action="store_true", help="also write <out>-int8")
    args = ap.parse_args()
    ckpt = hf_hub_download("yzha/AlignScore", f"AlignScore-{args.variant}.ckpt")
    backbone = f"roberta-{args.variant}"
    subprocess.run([sys.executable, str(HERE / "export_alignscore.py"), "--ckpt", ckpt, "--backbone", backbone,
                    "--out", str(args.out), "--checkpoint-name",
                    f"https://huggingface.co/yzha/AlignScore/resolve/main/AlignScore-{args.variant}.ckpt"],
                   check=True)
    if args.int8:
        subprocess.run([sys.executable, str(HERE / "quantize.py"), "--model-dir", str(args.out),
                        "--out", f"{args.out}-int8"], check=True)


if __name__ == "__main__":
    main()
