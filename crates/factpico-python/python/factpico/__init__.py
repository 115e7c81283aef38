"""factpico: factuality and readability metrics for plain-language summaries of medical
evidence (RCT abstracts), computed by a Rust engine that reproduces the Python references.

Quick start::

    import factpico
    scorer = factpico.Scorer(metrics=["rougeL", "fkgl"])
    rows = scorer.score(sources=[abstract], summaries=[summary])
    print(rows[0]["scores"])   # {'rougeL': ..., 'delta_fkgl': ..., ...}

* :class:`Scorer` — any factpico metrics, rows identical to ``factpico score``'s;
  :func:`explain` / :func:`explain_text` — why a row scored as it did (``--explain``).
* Drop-in replacements (change the import, keep the call): ``factpico.rouge_score.rouge_scorer``
  (rouge-score 0.1.2), ``factpico.textstat`` (textstat 0.7.3 / 0.7.8 Flesch formulas),
  ``factpico.alignscore.AlignScore`` (yuh-zha/AlignScore), ``factpico.questeval.QuestEval``
  (questeval 0.2.4), ``factpico.summac.SummaCZS`` / ``SummaCConv`` (tingofurro/summac),
  ``factpico.minicheck.MiniCheck`` (Liyan06/MiniCheck), and ``factpico.dae.DAE`` (DAE-2021,
  which has no Python API of its own).
* Models by name: ``factpico.models`` (``list``, ``pull``, ``path``; ``docs/models.md``).
* Scale-out: ``factpico.ray`` (Ray Data actor pool) and ``factpico.spark`` (``mapInPandas``).
"""

from __future__ import annotations

from typing import Any, Dict, Optional

from . import _native, models
from ._ort import ORT_VERSION
from ._ort import info as ort_info
from ._scorer import Scorer, default_options, explain, explain_text, metrics
from ._table import rows_from_table, to_table

#: The package version (= the factpico Rust crates' version).
__version__: str = _native.__version__
#: Version of the output row schema (``provenance.schema_version``; 3: rows reference the
#: provenance, stored once, by its hash ``run``).
SCHEMA_VERSION: int = _native.SCHEMA_VERSION


def set_num_threads(n: int) -> None:
    """Sets how many threads factpico uses in this process for its own parallel work (pairs in
    parallel; ``0`` = all cores, the default). ONNX Runtime's threads are the ``threads`` option
    of each model-based metric. Ray and Spark workers set it to their CPU share."""
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise ValueError(f"set_num_threads needs an int >= 0, got {n!r}")
    _native.set_num_threads(n)


def get_num_threads() -> int:
    """The number of threads factpico uses in this process (see :func:`set_num_threads`)."""
    return int(_native.get_num_threads())


def input_sha256(source: str, summary: str, extras: Optional[Dict[str, Any]] = None) -> str:
    """The ``input_sha256`` of a row, as ``factpico score`` records it: the first 16 hex digits
    of sha256(source ‖ 0x00 ‖ summary), or, for a row with per-row side inputs ``extras``
    (name -> JSON value), of sha256(source ‖ 0x00 ‖ summary ‖ 0x00 ‖ compact JSON of
    ``extras`` with sorted keys)."""
    import json

    blob = json.dumps(extras, ensure_ascii=False) if extras else None
    return str(_native.input_sha256(source, summary, blob))


__all__ = [
    "Scorer",
    "models",
    "metrics",
    "default_options",
    "to_table",
    "rows_from_table",
    "set_num_threads",
    "get_num_threads",
    "input_sha256",
    "explain",
    "explain_text",
    "ort_info",
    "ORT_VERSION",
    "SCHEMA_VERSION",
    "__version__",
]
