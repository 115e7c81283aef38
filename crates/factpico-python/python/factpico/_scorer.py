"""``factpico.Scorer``: any set of factpico metrics on (source, summary) pairs."""

from __future__ import annotations

import json
import os
import warnings
from typing import Any, Dict, Iterable, List, Optional, Sequence

from . import _native, _ort, _validate

_REGISTRY: Optional[List[Dict[str, Any]]] = None


def metrics() -> List[Dict[str, Any]]:
    """Every metric of this build: ``name``, ``description``, ``reference`` (the Python package /
    repository, version and file it reproduces), ``needs_model``, ``feature`` and ``columns``
    (each with ``name``, ``description``, ``min``/``max`` (``None`` = unbounded), ``direction``
    (``higher_is_better`` / ``lower_is_better``) and ``primary``). The same registry as
    ``factpico metrics`` prints."""
    global _REGISTRY
    if _REGISTRY is None:
        _REGISTRY = json.loads(_native.metrics_json())
    return json.loads(json.dumps(_REGISTRY))


def default_options() -> Dict[str, Any]:
    """Every ``Scorer`` option with its default value (the JSON form of factpico's
    ``ScorerOptions``). Pass any of its top-level keys to ``Scorer(**options)``."""
    return json.loads(_native.default_options_json())


def _json_default(value: Any) -> Any:
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    raise TypeError(f"option value {value!r} of type {type(value).__name__} is not a str, number, bool, list, dict or path")


def _needs_model(names: Iterable[str]) -> bool:
    known = {m["name"]: m for m in metrics()}
    aliases = {"rougel": "rougeL", "rouge-l": "rougeL", "rouge_l": "rougeL", "rougeLsum": "rougeL", "fk": "fkgl", "flesch_kincaid": "fkgl"}
    return any(known.get(aliases.get(n, n), {}).get("needs_model", False) for n in names)


class Scorer:
    """Scores plain-language summaries against their sources with factpico's metrics, exactly as
    ``factpico score`` does (same options, same rows, same values).

    Args:
        metrics: metric names (``factpico.metrics()``; e.g. ``["rougeL", "fkgl", "alignscore"]``),
            or one comma-separated string. Default ``["rougeL", "fkgl"]`` (the model-free ones).
        **options: factpico's ``ScorerOptions`` fields, as in :func:`default_options`; today
            ``rouge`` (``{"use_stemmer": True}``), ``readability`` (``{"family":
            "textstat073" | "textstat078_cmudict"}``), ``sentence_spans`` (bool) and ``models``
            (``{"alignscore_model": DIR, "max_length": 256, "threads": 2, ...}``: model
            directories, modes, batch size, ONNX Runtime threads). Paths may be ``str`` or
            ``pathlib.Path``. Unknown names raise ``ValueError`` listing the known ones.

    Raises:
        ValueError: unknown metric or option, an option of the wrong type or value.
        FileNotFoundError: a model directory that does not exist.
        ImportError: a model-based metric without a usable ``onnxruntime`` wheel.
        RuntimeError: ONNX Runtime or a model failed to load.

    Picklable (re-created from its options in the receiving process, models included) and
    fork-safe (a scorer used in a forked child re-creates its models there on first use). Work
    runs with the GIL released, on ``factpico.get_num_threads()`` threads.
    """

    def __init__(self, metrics: Optional[Sequence[str]] = None, **options: Any) -> None:
        config: Dict[str, Any] = dict(options)
        if metrics is not None:
            config["metrics"] = _validate.names("metrics", metrics)
        self._config = config
        chosen = config.get("metrics", default_options()["metrics"])
        if isinstance(chosen, (list, tuple)) and _needs_model(chosen):
            _ort.ensure_loaded()
        try:
            options_json = json.dumps(config, default=_json_default)
        except (TypeError, ValueError) as e:
            raise TypeError(f"Scorer options: {e}") from None
        self._native = _native.Scorer(options_json)
        self._options: Dict[str, Any] = json.loads(self._native.options_json())
        self._provenance: Optional[Dict[str, Any]] = None

    # -- pickling: the options travel, the models are loaded again on the other side --------
    def __getstate__(self) -> Dict[str, Any]:
        return {"config": self._config}

    def __setstate__(self, state: Dict[str, Any]) -> None:
        config = dict(state["config"])
        metrics = config.pop("metrics", None)
        self.__init__(metrics, **config)  # type: ignore[misc]

    def __repr__(self) -> str:
        return f"factpico.Scorer(metrics={self.metrics!r})"

    @property
    def metrics(self) -> List[str]:
        """The selected metrics, in order."""
        return list(self._native.metric_names())

    @property
    def columns(self) -> List[str]:
        """The output columns (``scores`` keys), in metric order."""
        return list(self._native.columns())

    @property
    def options(self) -> Dict[str, Any]:
        """The complete options (defaults filled in), as recorded in each row's provenance."""
        return json.loads(json.dumps(self._options))

    @property
    def provenance(self) -> Dict[str, Any]:
        """Engine version, output schema version, options and, per metric, its reference and
        model sha256: the ``provenance`` object of every row."""
        if self._provenance is None:
            self._provenance = json.loads(self._native.provenance_json())
        return json.loads(json.dumps(self._provenance))

    def score(
        self,
        sources: Sequence[str],
        summaries: Sequence[str],
        ids: Optional[Sequence[str]] = None,
        systems: Optional[Sequence[Optional[str]]] = None,
        **per_row_inputs: Sequence[Any],
    ) -> List[Dict[str, Any]]:
        """Scores ``summaries[i]`` against ``sources[i]`` (the abstract: premise, reference,
        target) for every i.

        Args:
            sources: n abstracts (any iterable of ``str``: list, tuple, pandas Series, ...).
            summaries: n plain-language summaries.
            ids: n row ids (default ``"row-1"`` … ``"row-n"``, as ``factpico score`` names rows
                without an id field). Metrics with per-row side inputs keyed by id (DAE's
                pre-parsed arcs) find them by these ids.
            systems: n generating-system names (or ``None`` items), recorded in each row.
            **per_row_inputs: per-row side inputs of the selected metrics (lists of n values),
                named as the metrics declare them. The metrics of this build declare none yet
                (DAE's arcs come from the ``models.dae_arcs`` file, keyed by id).

        Returns:
            One dict per pair, in order, identical to the rows ``factpico score`` writes:
            ``row`` (1-based), ``id``, ``input_sha256``, ``system`` (when given), ``scores``
            (column -> float, or ``None`` for a documented null), ``nulls`` (column -> reason),
            ``warnings`` / ``errors`` (``{"metric", "message"}``), ``sentences`` (byte spans of
            the Punkt sentences), ``details`` (per metric: per sentence / arc / question) and
            ``provenance``. Empty ``nulls``/``warnings``/``errors``/``details`` are omitted.
            An empty input gives ``[]``.

        Raises:
            TypeError: a non-list argument, a bare ``str``, ``None`` or a non-str item.
            ValueError: lists of different lengths.
        """
        src = _validate.texts("sources", sources)
        summ = _validate.texts("summaries", summaries)
        n = len(src)
        _validate.same_length("summaries", len(summ), "sources", n)
        if ids is None:
            id_list = [f"row-{i}" for i in range(1, n + 1)]
        else:
            id_list = _validate.texts("ids", ids)
            _validate.same_length("ids", len(id_list), "sources", n)
            if len(set(id_list)) != n:
                warnings.warn(
                    "ids repeat; they should be unique to join rows with ratings or per-row inputs",
                    UserWarning,
                    stacklevel=2,
                )
        sys_list = _validate.optional_texts("systems", systems, n)
        if per_row_inputs:
            raise TypeError(
                f"unexpected per-row input(s) {sorted(per_row_inputs)}: the selected metrics "
                f"{self.metrics} accept none"
            )
        if n == 0:
            return []
        return json.loads(self._native.score_json(src, summ, id_list, sys_list))

    def score_table(
        self,
        sources: Sequence[str],
        summaries: Sequence[str],
        ids: Optional[Sequence[str]] = None,
        systems: Optional[Sequence[Optional[str]]] = None,
        **per_row_inputs: Sequence[Any],
    ) -> "pyarrow.Table":  # type: ignore[name-defined]  # noqa: F821
        """As :meth:`score`, as a ``pyarrow.Table`` (see :func:`factpico.to_table`): one row per
        pair, a nullable ``float64`` column per score, JSON text columns for the rest.
        Needs ``pyarrow`` (``pip install factpico[arrow]``)."""
        from ._table import to_table

        rows = self.score(sources, summaries, ids, systems, **per_row_inputs)
        return to_table(rows, self.columns, provenance=self.provenance)
