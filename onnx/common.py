"""Shared helpers of factpico's ONNX export scripts.

Writes factpico model directories: ``model.onnx`` + ``tokenizer.json`` + ``factpico.json``
(the manifest read by ``crates/factpico-runtime``, struct ``ModelManifest``).
"""
import hashlib
import json
import pickle
import sys
from pathlib import Path

import numpy as np

SCHEMA_VERSION = 1
EXPORTER_NAME = "factpico onnx/"
EXPORTER_VERSION = "0.1.0"


def sha256_file(path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def weights_sha256(checkpoint):
    """sha256 of a local Hugging Face checkpoint's weights file (None for hub ids / no file)."""
    for name in ("model.safetensors", "pytorch_model.bin"):
        p = Path(checkpoint) / name
        if p.is_file():
            return sha256_file(p)
    return None


def versions() -> dict:
    import onnx
    import onnxruntime
    import tokenizers
    import torch
    import transformers
    return {
        "python": sys.version.split()[0],
        "torch": torch.__version__,
        "transformers": transformers.__version__,
        "tokenizers": tokenizers.__version__,
        "onnx": onnx.__version__,
        "onnxruntime": onnxruntime.__version__,
    }


def exporter_info(script: str) -> dict:
    v = versions()
    return {
        "name": f"{EXPORTER_NAME}{script}",
        "version": f"{EXPORTER_VERSION} (torch {v['torch']}, transformers {v['transformers']}, onnx {v['onnx']})",
    }


MODEL_FILE = "model.onnx"
DATA_FILE = "model.onnx.data"  # crates/factpico-runtime MODEL_DATA_FILE


def torch_export(module, inputs, out_dir: Path, **kwargs) -> None:
    """``torch.onnx.export(module, inputs, ...)`` into ``out_dir`` as ``model.onnx`` (the graph)
    + ``model.onnx.data`` (every initializer over 1 KiB, ONNX external data).

    External data is the layout for every exported model, whatever its size: ONNX Runtime copies
    initializers embedded in ``model.onnx`` into its own buffers, while external data is
    memory-mapped, so pages never read (most of a word-embedding table) never become resident
    (RoBERTa-large: peak RSS 1,373 MB against 2,024 MB embedded; BENCHMARKS.md, MiniCheck).
    It is also the layout of ``factpico-convert`` and the only one for graphs over 2 GB.
    ``kwargs`` go to ``torch.onnx.export``; a stale ``model.onnx(.data)`` in ``out_dir`` is
    replaced, the temporary export directory removed.
    """
    import shutil

    import onnx
    import torch

    out_dir = Path(out_dir)
    tmp = out_dir / "_export"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    try:
        torch.onnx.export(module, inputs, str(tmp / MODEL_FILE), **kwargs)
        m = onnx.load(str(tmp / MODEL_FILE), load_external_data=True)
        for old in (MODEL_FILE, DATA_FILE):
            (out_dir / old).unlink(missing_ok=True)
        onnx.save_model(m, str(out_dir / MODEL_FILE), save_as_external_data=True, all_tensors_to_one_file=True,
                        location=DATA_FILE, size_threshold=1024)
        del m
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def save_tokenizer_json(hf_tokenizer, out_dir: Path) -> None:
    """Saves the fast tokenizer's backend as tokenizer.json with padding/truncation disabled."""
    backend = hf_tokenizer.backend_tokenizer
    backend.no_padding()
    backend.no_truncation()
    backend.save(str(out_dir / "tokenizer.json"))


def write_manifest(out_dir: Path, **fields) -> dict:
    manifest = {"schema_version": SCHEMA_VERSION, **fields}
    (out_dir / "factpico.json").write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    return manifest


class _Stub:
    """Stand-in for classes of training-only packages (pytorch_lightning, ...) in a pickle."""

    def __init__(self, *a, **k):
        pass

    def __setstate__(self, state):
        self.__dict__["_state"] = state

    def __call__(self, *a, **k):
        return self


class _LenientUnpickler(pickle.Unpickler):
    SAFE_PREFIXES = ("torch", "collections", "numpy", "builtins", "_codecs", "copyreg")

    def find_class(self, module, name):
        if module.split(".")[0] in self.SAFE_PREFIXES:
            return super().find_class(module, name)
        return type(name, (_Stub, dict), {"__module__": module})


LOAD_PATH: dict = {}
"""Which path :func:`load_lightning_state_dict` took per checkpoint (``weights_only`` / ``lenient``)."""


class _LenientPickleModule:
    Unpickler = _LenientUnpickler
    load = staticmethod(lambda f, **kw: _LenientUnpickler(f, **kw).load())
    __name__ = "factpico_lenient_pickle"


def load_lightning_state_dict(ckpt_path: Path, lenient: bool = False) -> dict:
    """Loads ``state_dict`` from a PyTorch-Lightning checkpoint without importing Lightning.

    Tries ``torch.load(weights_only=True)`` first; checkpoints that pickle Lightning objects
    (hyper-parameter containers, callbacks) are then read with an unpickler that replaces
    non-torch classes by inert stubs (tensors are still restored by torch). ``lenient=True``
    goes to the lenient unpickler directly (``cargo xtask replicas`` checks that both paths
    give the same tensors as Lightning's own loading)."""
    import torch
    ckpt = None
    if not lenient:
        try:
            ckpt = torch.load(ckpt_path, map_location="cpu", weights_only=True)
            LOAD_PATH[str(ckpt_path)] = "weights_only"
        except Exception:  # noqa: BLE001 - fall back to the lenient unpickler
            ckpt = None
    if ckpt is None:
        ckpt = torch.load(ckpt_path, map_location="cpu", weights_only=False, pickle_module=_LenientPickleModule)
        LOAD_PATH[str(ckpt_path)] = "lenient"
    if isinstance(ckpt, dict) and "state_dict" in ckpt:
        return ckpt["state_dict"]
    if isinstance(ckpt, dict) and all(hasattr(v, "shape") for v in ckpt.values()):
        return ckpt
    raise SystemExit(f"{ckpt_path}: no 'state_dict' in this checkpoint (is it an AlignScore .ckpt?)")


def max_abs_diff(a, b) -> float:
    return float(np.max(np.abs(np.asarray(a, dtype=np.float64) - np.asarray(b, dtype=np.float64))))


SAMPLE_PAIRS = [
    ("Metformin reduced HbA1c by 1.2% in 300 adults with type 2 diabetes compared with placebo.",
     "Metformin lowered HbA1c in adults with diabetes."),
    ("The trial enrolled 120 children. Asthma attacks were less frequent with the inhaler.",
     "Children using the inhaler had more asthma attacks."),
    ("No serious adverse events occurred.", "The drug was safe."),
    ("", "An empty premise."),
]
