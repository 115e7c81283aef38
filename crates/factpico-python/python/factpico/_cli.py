"""The ``factpico`` console script of the wheel: the whole command line (``factpico score``,
``models``, ``report``, ``diff``, ``meta-eval``, ``metrics``, ``setup``) without a repository
checkout or a Rust toolchain. The model-based metrics load ONNX Runtime from the
``onnxruntime`` wheel this package depends on (``ORT_DYLIB_PATH`` overrides it)."""

from __future__ import annotations

import os
import signal
import sys

from . import _native


def main() -> None:
    if not os.environ.get("ORT_DYLIB_PATH"):
        try:
            from ._ort import find_library

            os.environ["ORT_DYLIB_PATH"] = str(find_library()[0])
        except ImportError:
            pass  # the model-free commands need no ONNX Runtime; the others say what to install
    # `factpico models pull` of a `python-export` entry runs the export scripts this wheel ships
    # with this Python (torch from `pip install 'factpico[export]'`): no checkout needed.
    from .models import export_python, export_scripts

    os.environ["FACTPICO_EXPORT_SCRIPTS"] = export_scripts()
    os.environ["FACTPICO_EXPORT_PYTHON"] = export_python()
    # Ctrl-C ends the command as it ends the Rust binary (Python's handler would wait for the
    # native call to return).
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    sys.exit(_native.cli_main(["factpico", *sys.argv[1:]]))
