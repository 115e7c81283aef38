"""Shared helpers of the replica builders and reference checks (``cargo xtask replicas``).

Python 3.8-compatible: the DAE and QAFactEval scripts run in their references' own stacks
(transformers 2.11 / 3.0.2 on Python 3.8).
"""
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "goldens"))
sys.path.insert(0, str(ROOT / "onnx"))


def fixture_pairs():
    """(id, source, summary) of the self-written fixtures (fixtures/*.jsonl)."""
    import corpus
    return list(corpus.fixture_pairs())


def corpus_lines():
    """Self-written text for training the replicas' tokenizers: fixture texts and
    onnx/tiny_tokenizer_corpus.txt (never ../shared data)."""
    lines = [l for l in (ROOT / "onnx" / "tiny_tokenizer_corpus.txt").read_text("utf-8").splitlines() if l.strip()]
    for _pid, src, summ in fixture_pairs():
        for t in (src, summ):
            if t.strip():
                lines.append(t)
    return lines


def reference_source(env, default_name, path):
    """Text of `path` in a reference repository: `$env` is a checkout (work tree) or a git
    directory (read with `git show HEAD:path`). Nothing of it is copied into this repository."""
    repo = os.environ.get(env)
    if not repo:
        raise SystemExit(f"set {env} to a checkout (or git directory) of {default_name}")
    p = Path(repo) / path
    if p.is_file():
        return p.read_text("utf-8")
    return subprocess.run(["git", "--git-dir", repo, "show", f"HEAD:{path}"], check=True, capture_output=True,
                          text=True).stdout


def load_module_from_source(name, source, filename):
    """Executes reference source text as module `name` (unmodified)."""
    import types
    mod = types.ModuleType(name)
    mod.__file__ = filename
    sys.modules[name] = mod
    exec(compile(source, filename, "exec"), mod.__dict__)
    return mod


def write_json(path, obj):
    path = Path(path)
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps(obj, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    os.replace(str(tmp), str(path))


def versions(*names):
    try:
        from importlib import metadata
    except ImportError:  # pragma: no cover
        import importlib_metadata as metadata
    out = {"python": sys.version.split()[0]}
    for n in names:
        try:
            out[n] = metadata.version(n)
        except Exception:  # noqa: BLE001
            out[n] = None
    return out


def byte_offsets(text):
    """Code-point index -> UTF-8 byte offset table (len(text) + 1 entries)."""
    out, b = [], 0
    for ch in text:
        out.append(b)
        b += len(ch.encode("utf-8"))
    out.append(b)
    return out
