"""Models by name: the catalogue of published models factpico's metrics use, and the local
model store (``$FACTPICO_HOME/models``, default ``~/.cache/factpico/models``), as ``factpico
models`` on the command line (``docs/models.md``).

    import factpico
    factpico.models.pull("alignscore-base")          # download, verify, convert, install
    factpico.Scorer(["alignscore"])                  # the default model, now installed
    factpico.Scorer(["minicheck"], minicheck={"model": "minicheck-roberta-large", "checker": "roberta-large"})

Downloads use the Hugging Face hub protocol and honour ``HF_ENDPOINT``, ``HF_TOKEN`` (never
printed or stored), ``HF_HUB_OFFLINE`` and the Hugging Face cache (``HF_HOME`` /
``HF_HUB_CACHE``); an interrupted download resumes from the byte reached; every file is checked
against the sha256 the hub reports (and the catalogue's pin). AlignScore and MiniCheck-RoBERTa
checkpoints are converted without torch (a checkpoint reader that never runs pickled code).
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any, Dict, List

from . import _native, _validate


def list() -> List[Dict[str, Any]]:  # noqa: A001 - the command's name
    """Every catalogue entry: ``name``, ``metric``, ``option``, ``about``, ``licence``, ``size``,
    ``route`` (``rust``: converted without torch; ``python-export``: needs ``factpico[export]``;
    ``onnx``, ``pip``, ``refused``), ``refused`` (the reason, or ``None``), ``installed`` and
    ``path`` (the installed directory, or ``None``)."""
    return json.loads(_native.models_list_json())


def export_scripts() -> str:
    """The folder holding ``onnx/``, the export scripts this wheel ships
    (``factpico/_export/onnx/*.py``: the repository's ``onnx/`` files) for the catalogue's
    ``python-export`` routes. ``FACTPICO_EXPORT_SCRIPTS`` overrides it."""
    return os.environ.get("FACTPICO_EXPORT_SCRIPTS") or os.path.join(os.path.dirname(os.path.abspath(__file__)), "_export")


def export_python() -> str:
    """The Python that runs the export scripts: this one (where ``pip install
    'factpico[export]'`` puts torch, transformers and onnx); ``FACTPICO_EXPORT_PYTHON``
    overrides it."""
    return os.environ.get("FACTPICO_EXPORT_PYTHON") or sys.executable


def pull(name: str, *, int8: bool = False, force: bool = False, quiet: bool = True) -> str:
    """Downloads, verifies, converts and installs catalogue model ``name``; returns its
    directory. An installed model is not downloaded again (``force=True`` reinstalls).
    ``python-export`` entries are converted by the scripts this wheel ships, run by this Python
    (:func:`export_scripts`, :func:`export_python`): without torch they fail before any download
    with ``pip install 'factpico[export]'``.

    Raises:
        ValueError: an unknown name; RuntimeError: a download, verification or conversion
        failure (nothing is installed; a partial download is resumed by the next call).
    """
    return str(_native.models_pull(_validate.text("name", name), int8, force, quiet, export_python(), export_scripts()))


def import_files(name: str, directory: "os.PathLike[str] | str") -> str:
    """Installs catalogue model ``name`` from files already on disk (``directory`` laid out as
    the catalogue's ``place`` says, e.g. ``AlignScore-base.ckpt`` beside ``roberta-base/``);
    returns the installed directory."""
    return str(_native.models_import(_validate.text("name", name), os.fspath(directory), export_python(), export_scripts()))


def path(name: str) -> str:
    """The installed directory of catalogue model ``name``.

    Raises:
        FileNotFoundError: not installed (the message gives the pull call); ValueError: an
        unknown name.
    """
    return str(_native.models_path(_validate.text("name", name)))
