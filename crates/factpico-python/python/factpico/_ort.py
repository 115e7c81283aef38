"""ONNX Runtime for factpico's model-based metrics, loaded from the ``onnxruntime`` wheel.

factpico's Rust core loads ONNX Runtime dynamically. In Python the library comes from the
``onnxruntime`` wheel this package depends on (``onnxruntime/capi/libonnxruntime.so.<version>``),
so ``pip install factpico`` is all a user does. ``ORT_DYLIB_PATH`` (a library file) overrides it.
factpico needs ONNX Runtime's C API 31 (ONNX Runtime >= 1.31); it is tested with
``ORT_VERSION`` (the version ``factpico setup ort`` installs for the command-line tool).
"""

from __future__ import annotations

import importlib.util
import os
import re
import threading
from pathlib import Path
from typing import Dict, Optional, Tuple

from . import _native

#: The ONNX Runtime version factpico is tested with (the Rust side's pin).
ORT_VERSION: str = _native.ORT_VERSION
#: Oldest ONNX Runtime 1.x minor version factpico accepts (its ``ort`` build uses C API 31).
MIN_ORT_MINOR: int = _native.MIN_ORT_MINOR
_REQUIREMENT = f"onnxruntime>=1.{MIN_ORT_MINOR},<2"

_lock = threading.Lock()
_loaded: Optional[Dict[str, str]] = None


def _parse_version(text: str) -> Optional[Tuple[int, int, int]]:
    m = re.match(r"(\d+)\.(\d+)(?:\.(\d+))?", text)
    if not m:
        return None
    return int(m.group(1)), int(m.group(2)), int(m.group(3) or 0)


def _wheel_version(package_dir: Path) -> Optional[str]:
    """``onnxruntime.__version__`` read from the package's ``__init__.py`` (without importing it)."""
    try:
        text = (package_dir / "__init__.py").read_text(encoding="utf-8")
    except OSError:
        return None
    m = re.search(r"^__version__\s*=\s*[\"']([^\"']+)[\"']", text, re.MULTILINE)
    return m.group(1) if m else None


def find_library() -> Tuple[Path, str, str]:
    """Finds the ONNX Runtime library to load.

    Returns ``(path, version, source)`` where ``source`` is ``"ORT_DYLIB_PATH"`` or
    ``"onnxruntime wheel"``.

    Raises:
        ImportError: ``onnxruntime`` is not installed, its version is older than 1.31 (or not
            1.x), or its wheel has no shared library; the message says what to install.
    """
    env = os.environ.get("ORT_DYLIB_PATH")
    if env:
        m = re.search(r"onnxruntime[^/\\]*?(\d+\.\d+\.\d+)", Path(env).name)
        return Path(env), (m.group(1) if m else "unknown"), "ORT_DYLIB_PATH"
    spec = importlib.util.find_spec("onnxruntime")
    if spec is None or not spec.submodule_search_locations:
        raise ImportError(
            "factpico's model-based metrics need ONNX Runtime from the onnxruntime wheel, which is "
            f"not installed in this environment: pip install '{_REQUIREMENT}' "
            f"(tested with {ORT_VERSION}), or set ORT_DYLIB_PATH to a libonnxruntime library"
        )
    package_dir = Path(list(spec.submodule_search_locations)[0])
    capi = package_dir / "capi"
    candidates = sorted(
        p
        for pattern in ("libonnxruntime.so.*", "libonnxruntime.*.dylib", "onnxruntime.dll")
        for p in capi.glob(pattern)
        if "providers" not in p.name
    )
    version = _wheel_version(package_dir)
    if version is None and candidates:
        m = re.search(r"(\d+\.\d+\.\d+)", candidates[-1].name)
        version = m.group(1) if m else None
    parsed = _parse_version(version or "")
    if parsed is None or parsed[0] != 1 or parsed[1] < MIN_ORT_MINOR:
        raise ImportError(
            f"onnxruntime {version or '(unknown version)'} is installed at {package_dir}, but factpico "
            f"needs ONNX Runtime 1.{MIN_ORT_MINOR} or newer (C API {MIN_ORT_MINOR}; tested with "
            f"{ORT_VERSION}): pip install -U '{_REQUIREMENT}'"
        )
    if not candidates:
        raise ImportError(
            f"the onnxruntime {version} wheel at {package_dir} has no libonnxruntime shared library in "
            f"capi/; reinstall it (pip install --force-reinstall 'onnxruntime=={ORT_VERSION}') or set "
            "ORT_DYLIB_PATH to a libonnxruntime library"
        )
    return candidates[-1], version or "unknown", "onnxruntime wheel"


def ensure_loaded() -> Dict[str, str]:
    """Loads ONNX Runtime into this process once (see the module docs) and returns
    :func:`info`. Called by every class that runs a model, before it loads the model.

    Raises:
        ImportError: no usable ``onnxruntime`` (see :func:`find_library`).
        ValueError: the library file is not a usable ONNX Runtime library.
    """
    global _loaded
    with _lock:
        if _loaded is not None:
            return dict(_loaded)
        path, version, source = find_library()
        used = _native.init_ort(str(path))
        _loaded = {"path": used, "version": version, "source": source, "tested_version": ORT_VERSION}
        return dict(_loaded)


def info() -> Optional[Dict[str, str]]:
    """The ONNX Runtime library loaded in this process (``path``, ``version``, ``source``,
    ``tested_version``), or ``None`` before any model-based metric was created."""
    return dict(_loaded) if _loaded is not None else None
