#!/usr/bin/env python3
"""Downloads one source of a published model for ``cargo xtask models NAME`` into the layout
``--from DIR`` expects (the same export then runs on it).

    python onnx/fetch.py hub REPO --dest DIR --files F1 F2 ...
        files of a Hugging Face hub repository (revision main; files the repository lacks are
        skipped, the caller checks the required ones) via huggingface_hub, honouring
        HF_ENDPOINT / HF_TOKEN as huggingface_hub does
    python onnx/fetch.py archive URL --root FOLDER --dest DIR
        a .tar.gz from a direct URL; the files of its top folder FOLDER go to DIR

Runs only where the sources answered (xtask checks them first with a 5 s timeout).
"""
import argparse
import shutil
import sys
import tarfile
import tempfile
import urllib.request
from pathlib import Path


def hub(repo, files, dest):
    from huggingface_hub import snapshot_download
    dest.mkdir(parents=True, exist_ok=True)
    snapshot_download(repo_id=repo, allow_patterns=list(files), local_dir=str(dest))
    got = [f for f in files if (dest / f).exists()]
    print(f"fetch: {repo}: {', '.join(got)} -> {dest}")


def archive(url, root, dest):
    dest.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "archive.tar.gz"
        with urllib.request.urlopen(url, timeout=60) as r, open(path, "wb") as f:
            shutil.copyfileobj(r, f, length=1 << 20)
        with tarfile.open(path, "r:*") as tar:
            members = [m for m in tar.getmembers() if m.isfile() and Path(m.name).parts[:1] == (root,)]
            if not members:
                raise SystemExit(f"{url}: no folder {root}/ in the archive")
            for m in members:
                rel = Path(*Path(m.name).parts[1:])
                if ".." in rel.parts:
                    raise SystemExit(f"{url}: unsafe member {m.name}")
                target = dest / rel
                target.parent.mkdir(parents=True, exist_ok=True)
                with tar.extractfile(m) as src, open(target, "wb") as out:
                    shutil.copyfileobj(src, out, length=1 << 20)
    print(f"fetch: {url} ({root}/) -> {dest}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="kind", required=True)
    h = sub.add_parser("hub")
    h.add_argument("repo")
    h.add_argument("--dest", type=Path, required=True)
    h.add_argument("--files", nargs="+", required=True)
    a = sub.add_parser("archive")
    a.add_argument("url")
    a.add_argument("--root", required=True)
    a.add_argument("--dest", type=Path, required=True)
    args = ap.parse_args()
    if args.kind == "hub":
        hub(args.repo, args.files, args.dest)
    else:
        archive(args.url, args.root, args.dest)


if __name__ == "__main__":
    sys.exit(main())
