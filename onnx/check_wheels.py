#!/usr/bin/env python3
"""Which CPython versions can install a requirements file from wheels alone (Linux x86_64)?

For every ``name==version`` pin, lists the wheels PyPI has (PEP 691 JSON of the simple
index; no download) and prints, per CPython 3.8-3.14, whether every pin has a matching
wheel (``cpXY``, ``abi3`` from its minimum version, or ``py3-none-any``). This is how the
documented range of ``onnx/requirements.txt`` (Python 3.11–3.13) was checked; the xtask venv
recipes (``xtask/src/python.rs``) refuse interpreters outside their range.

    python3 onnx/check_wheels.py onnx/requirements.txt [--index https://pypi.org/simple]
"""
import argparse
import json
import re
import sys
import urllib.request

VERSIONS = [(3, m) for m in range(8, 15)]


def wheel_tags(index, name, version):
    req = urllib.request.Request(f"{index.rstrip('/')}/{name}/",
                                 headers={"Accept": "application/vnd.pypi.simple.v1+json"})
    data = json.load(urllib.request.urlopen(req, timeout=30))
    tags = []
    for f in data["files"]:
        fn = f["filename"]
        if not fn.endswith(".whl"):
            continue
        parts = fn[:-4].split("-")
        if parts[1] != version:
            continue
        py, abi, plat = parts[-3], parts[-2], parts[-1]
        if plat == "any" or ("linux" in plat and "x86_64" in plat):
            tags.append((py, abi))
    return tags


def supports(tags, v):
    cp = f"cp{v[0]}{v[1]}"
    for py, abi in tags:
        for p in py.split("."):
            if p == cp and abi in (cp, "abi3", "none"):
                return True
            m = re.fullmatch(r"cp3(\d+)", p)
            if abi == "abi3" and m and int(m.group(1)) <= v[1]:
                return True
            if p in ("py3", f"py{v[0]}{v[1]}") and abi == "none":
                return True
    return False


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("requirements")
    ap.add_argument("--index", default="https://pypi.org/simple")
    a = ap.parse_args()
    pins = []
    for line in open(a.requirements, encoding="utf-8"):
        line = line.split("#")[0].strip()
        if line and not line.startswith("-"):
            name, _, version = line.partition("==")
            pins.append((name.strip(), version.strip()))
    ok = {v: True for v in VERSIONS}
    print("pin".ljust(30) + " ".join(f"{v[0]}.{v[1]:<3}" for v in VERSIONS))
    for name, version in pins:
        tags = wheel_tags(a.index, name, version)
        row = []
        for v in VERSIONS:
            s = supports(tags, v)
            ok[v] &= s
            row.append(("yes" if s else "-").ljust(5))
        print(f"{name}=={version}".ljust(30) + " ".join(row))
    good = [f"{v[0]}.{v[1]}" for v in VERSIONS if ok[v]]
    print("installable from wheels on CPython:", ", ".join(good) or "none")
    return 0 if good else 1


if __name__ == "__main__":
    sys.exit(main())
