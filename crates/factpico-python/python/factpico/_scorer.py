"""``factpico.Scorer``: any set of factpico metrics on (source, summary) pairs."""

from __future__ import annotations

import itertools
import json
import os
import warnings
from collections.abc import Mapping
from typing import Any, Dict, Iterable, Iterator, List, Optional, Sequence, Tuple

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


def _canonical(name: str) -> Optional[Dict[str, Any]]:
    for m in metrics():
        if name == m["name"] or name in m.get("aliases", ()):
            return m
    return None


def _needs_model(names: Iterable[str]) -> bool:
    return any((_canonical(n) or {}).get("needs_model", False) for n in names)


# Fields a section accepts but never records (so absent from ``default_options()``, the
# recorded form): the LLM evaluators' transport and cache settings (``llm.runtime``: ``client``
# with ``concurrency``, ``timeout_s``, ``retries``...; ``cache``; ``no_cache``), which change no
# result and stay out of the provenance. Their own fields are checked by the native side.
_UNRECORDED_FIELDS: Dict[str, Tuple[str, ...]] = {"llm": ("runtime",)}

# Fields recorded only when set (absent from ``default_options()`` so that the provenance of a run
# that does not use them is unchanged): the LLM evaluators' second-step options (weighted
# ratings, prompt variant, rationale first, samples) and llm_minicheck's chunk size. The native
# side checks their values.
_OPTIONAL_FIELDS: Dict[str, Tuple[str, ...]] = {
    "llm": ("logprobs", "prompt", "rationale_first", "samples", "minicheck_chunk_size"),
}


def _check_options(options: Dict[str, Any]) -> None:
    """Unknown option names raise ``ValueError`` naming the valid fields of their section (the
    native side's serde error names the field but not its section)."""
    defaults = default_options()
    for key, value in options.items():
        if key not in defaults:
            raise ValueError(
                f"unknown Scorer option {key!r}; the options are: {', '.join(defaults)} "
                f"(see factpico.default_options())"
            )
        if isinstance(defaults[key], dict):
            if not isinstance(value, Mapping):
                raise TypeError(
                    f"Scorer option {key!r} must be a dict with fields {', '.join(defaults[key])}, "
                    f"got {type(value).__name__}"
                )
            accepted = list(defaults[key]) + list(_OPTIONAL_FIELDS.get(key, ())) + list(_UNRECORDED_FIELDS.get(key, ()))
            for field in value:
                if field not in accepted:
                    raise ValueError(
                        f"unknown field {field!r} in Scorer option {key!r}; its fields are: "
                        f"{', '.join(accepted)}"
                    )


class Scorer:
    """Scores plain-language summaries against their sources with factpico's metrics, exactly as
    ``factpico score`` does (same options, same rows, same values).

    Args:
        metrics: metric names (``factpico.metrics()``; e.g. ``["rougeL", "fkgl", "alignscore"]``),
            or one comma-separated string. Default ``["rougeL", "fkgl"]`` (the model-free ones).
        **options: the sections of factpico's ``ScorerOptions`` (the JSON form ``factpico
            score`` records in ``provenance.options``; :func:`default_options` lists every field
            with its default): ``runtime`` (``{"batch_size": 8, "threads": 2, "device": "cpu" |
            "cuda" | "cuda:N"}``, shared by the model-based metrics), one section per metric unit
            — ``rouge`` (``{"use_stemmer": True}``), ``readability`` (``{"family":
            "textstat073" | "textstat078_cmudict"}``), ``alignscore`` (``{"model": DIR, "mode":
            "nli_sp", "max_length": 256, "words_per_chunk": 350}``), ``dae`` (``{"model": DIR}``
            or ``{"nli_model": DIR}``, ``"arcs"``, ``"parser"``, ``"multi_sentence"``), ``qa``
            (``{"questeval_qg_model": DIR, "questeval_qa_model": DIR, "bertscore_model": DIR,
            ...}``), ``llm`` (``{"base_url": URL, "model": NAME, ..., "runtime": {"client":
            {"concurrency": 8, "timeout_s": 120, "retries": 5, ...}, "cache": PATH, "no_cache":
            False}}``; ``runtime`` changes no result, so it is not recorded in :attr:`options`
            or the provenance) — and ``sentence_spans`` (bool). Absent fields keep their defaults. Paths may
            be ``str`` or ``pathlib.Path``. An unknown option or field raises ``ValueError``
            listing the valid ones.

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
            if not config["metrics"]:
                # as `factpico score --metrics ""`: a scorer that computes nothing is a mistake
                raise ValueError("no metric selected: metrics is empty; name at least one (factpico.metrics() lists them)")
        _check_options(config)
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
        """The complete options (defaults filled in), as recorded in each row's provenance
        (without ``llm.runtime``, which is applied but never recorded)."""
        return json.loads(json.dumps(self._options))

    @property
    def provenance(self) -> Dict[str, Any]:
        """Engine version, output schema version, options and, per metric, its reference and
        model sha256 (a copy of the object every row of :meth:`score` shares; each row's
        ``run`` is its hash)."""
        return json.loads(json.dumps(self._shared_provenance()))

    def _shared_provenance(self) -> Dict[str, Any]:
        """The one provenance object the rows of :meth:`score` reference (never copied per row)."""
        if self._provenance is None:
            self._provenance = json.loads(self._native.provenance_json())
        return self._provenance

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
            **per_row_inputs: per-row side inputs of the selected metrics (lists of n values,
                each JSON-serialisable or ``None`` for "absent on this row"), named as the
                metrics declare them (:attr:`row_inputs`; ``factpico score`` reads them from the
                input field of that name). They reach the metric as the row's extras and enter
                ``input_sha256`` as on the command line. DAE's pre-parsed arcs are not a per-row
                input but the ``dae.arcs`` file, keyed by ``ids``.

        Returns:
            One dict per pair, in order, identical to the rows ``factpico score`` writes:
            ``row`` (1-based), ``id``, ``input_sha256``, ``system`` (when given), ``scores``
            (column -> float, or ``None`` for a documented null), ``nulls`` (column -> reason),
            ``warnings`` / ``errors`` (``{"metric", "message"}``), ``sentences`` (byte spans of
            the Punkt sentences, only with ``sentence_spans=True``), ``details`` (per metric:
            per sentence / arc / question), ``run`` (the hash of the scorer's provenance) and
            ``provenance``: one dict shared by all the rows of the call (output schema 3; not a
            copy per row: do not modify it, or copy it first), as the CLI's provenance file
            except ``provenance.input``, which describes how ``factpico score`` read its input
            file (so the CLI's ``run`` differs). Empty ``nulls``/``warnings``/``errors``/
            ``details`` are omitted.
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
        extras_json = self._extras_json(per_row_inputs, n) if per_row_inputs else None
        if n == 0:
            return []
        rows = json.loads(self._native.score_json(src, summ, id_list, sys_list, extras_json))
        provenance = self._shared_provenance()
        for r in rows:
            r["provenance"] = provenance
        return rows

    def iter_score(
        self,
        sources: Iterable[str],
        summaries: Iterable[str],
        ids: Optional[Iterable[str]] = None,
        systems: Optional[Iterable[Optional[str]]] = None,
        batch_size: int = 4096,
        **per_row_inputs: Iterable[Any],
    ) -> Iterator[List[Dict[str, Any]]]:
        """Scores pairs as they are read from iterables (generators, file readers, Arrow
        batches...), yielding the rows one batch at a time: memory holds one batch, however
        many pairs there are.

        Args:
            sources, summaries, ids, systems, **per_row_inputs: as :meth:`score`, but any
                iterables, read lazily, ``batch_size`` items at a time.
            batch_size: pairs per yielded batch (>= 1).

        Yields:
            Lists of at most ``batch_size`` rows, in input order; the rows are those
            :meth:`score` returns for the same pairs (``row`` numbered from 1 over the whole
            stream, default ids ``row-<n>``), sharing one provenance dict.

        Raises:
            TypeError: an argument that is not an iterable of the right items (at call time
                for the argument, when its batch is read for an item); a bare ``str``.
            ValueError: ``batch_size`` < 1; iterables of different lengths (when the shorter
                one ends: the batches before were yielded).
            KeyboardInterrupt: Ctrl-C, after the block of 256 pairs in progress.
        """
        size = _validate.positive_int("batch_size", batch_size)
        streams: Dict[str, Iterable[Any]] = {
            "sources": _validate.stream("sources", sources),
            "summaries": _validate.stream("summaries", summaries),
        }
        if ids is not None:
            streams["ids"] = _validate.stream("ids", ids)
        if systems is not None:
            streams["systems"] = _validate.stream("systems", systems)
        accepted = self.row_inputs
        for name, values in per_row_inputs.items():
            if name not in accepted:
                known = ", ".join(accepted) if accepted else "none"
                raise TypeError(f"unexpected per-row input {name!r}: the selected metrics {self.metrics} accept {known}")
            streams[name] = _validate.stream(name, values)
        return self._iter_batches(streams, int(size or 1))

    def _iter_batches(self, streams: Dict[str, Iterable[Any]], size: int) -> Iterator[List[Dict[str, Any]]]:
        names = list(streams)
        end = object()
        rows_iter = itertools.zip_longest(*(iter(v) for v in streams.values()), fillvalue=end)
        first = 1
        while True:
            batch = list(itertools.islice(rows_iter, size))
            if not batch:
                return
            cols = {name: [r[k] for r in batch] for k, name in enumerate(names)}
            for name, values in cols.items():
                if any(v is end for v in values):
                    n = first - 1 + values.index(end)
                    longer = [o for o, vs in cols.items() if vs[values.index(end)] is not end]
                    raise ValueError(f"{name} has {n} items but {longer[0]} has more; they must have the same length")
            n = len(batch)
            offset = first - 1
            _validate.items("sources", cols["sources"], offset)
            _validate.items("summaries", cols["summaries"], offset)
            id_list = cols.get("ids") or [f"row-{first + i}" for i in range(n)]
            if "ids" in cols:
                _validate.items("ids", id_list, offset)
            sys_list = cols.get("systems") or [None] * n
            _validate.items("systems", sys_list, offset, optional=True)
            extras = {k: v for k, v in cols.items() if k not in ("sources", "summaries", "ids", "systems")}
            extras_json = self._extras_json(extras, n) if extras else None
            rows = json.loads(self._native.score_json(cols["sources"], cols["summaries"], id_list, sys_list, extras_json, first))
            provenance = self._shared_provenance()
            for r in rows:
                r["provenance"] = provenance
            first += n
            yield rows

    @property
    def row_inputs(self) -> Dict[str, str]:
        """The per-row side inputs the selected metrics read (name -> description): the keyword
        arguments :meth:`score` accepts besides the texts."""
        return dict(self._native.row_inputs())

    def _extras_json(self, per_row_inputs: Dict[str, Any], n: int) -> str:
        accepted = self.row_inputs
        unknown = sorted(set(per_row_inputs) - set(accepted))
        if unknown:
            known = ", ".join(accepted) if accepted else "none"
            raise TypeError(
                f"unexpected per-row input(s) {unknown}: the selected metrics {self.metrics} accept {known}"
            )
        columns: Dict[str, List[Any]] = {}
        for name, values in per_row_inputs.items():
            if values is None or isinstance(values, (str, bytes, bytearray, Mapping)):
                raise TypeError(f"per-row input {name!r} must be a list of n={n} values, got {type(values).__name__}")
            if hasattr(values, "to_pylist"):
                values = values.to_pylist()
            columns[name] = list(values)
            _validate.same_length(name, len(columns[name]), "sources", n)
        rows = [{k: v[i] for k, v in columns.items() if v[i] is not None} for i in range(n)]
        try:
            return json.dumps(rows, default=_json_default, ensure_ascii=False)
        except (TypeError, ValueError) as e:
            raise TypeError(f"per-row inputs must be JSON-serialisable: {e}") from None

    def explain(self, row: Dict[str, Any], source: Optional[str] = None, summary: Optional[str] = None) -> List[Dict[str, Any]]:
        """The explanation of an output row (see :func:`factpico.explain`)."""
        return explain(row, source, summary)

    def explain_text(self, row: Dict[str, Any], source: Optional[str] = None, summary: Optional[str] = None) -> str:
        """The explanation of an output row as ``factpico score --explain`` prints it (see
        :func:`factpico.explain_text`)."""
        return explain_text(row, source, summary)

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


def _row_json(row: Any) -> str:
    if not isinstance(row, Mapping):
        raise TypeError(f"row must be a dict (a row of Scorer.score or a line of factpico score's output), got {type(row).__name__}")
    if "scores" not in row and "skipped" not in row:
        keys = ", ".join(sorted(map(str, row))[:8]) or "none"
        raise ValueError(f"not a factpico output row: it has neither `scores` nor `skipped` (its keys: {keys})")
    try:
        return json.dumps(row, default=_json_default)
    except (TypeError, ValueError) as e:
        raise TypeError(f"row is not JSON-serialisable: {e}") from None


def _add_span_texts(value: Any, texts: Dict[str, bytes]) -> None:
    """Adds ``text`` (the quoted characters) to every byte span ``{side, start, end}``."""
    if isinstance(value, dict):
        side, start, end = value.get("side"), value.get("start"), value.get("end")
        if side in texts and isinstance(start, int) and isinstance(end, int) and 0 <= start <= end <= len(texts[side]):
            value["text"] = texts[side][start:end].decode("utf-8", errors="replace")
        for v in value.values():
            _add_span_texts(v, texts)
    elif isinstance(value, list):
        for v in value:
            _add_span_texts(v, texts)


def explain(row: Dict[str, Any], source: Optional[str] = None, summary: Optional[str] = None) -> List[Dict[str, Any]]:
    """Why a row scored as it did, computed from the row alone (its ``scores``, ``nulls`` and
    ``details``; no model is loaded), exactly as ``factpico score --explain`` and ``factpico
    report`` render it.

    Args:
        row: a row of :meth:`Scorer.score` or a parsed line of ``factpico score``'s output.
        source, summary: the row's texts; when both are given, every span gets a ``text`` key
            with the characters it covers.

    Returns:
        One dict per metric of the row: ``metric``, ``scores`` (``[column, value]`` pairs in
        registry order), ``nulls`` (``[column, reason]`` pairs) and ``blocks``, each a dict with
        a ``kind``: ``sentence_support`` (``title``, ``sentences``: per summary sentence its
        ``span``, ``score``, ``label``, best ``evidence`` span and ``evidence_score``), ``arcs``
        (``title``, ``arcs``: relation, head/child spans, probability; lowest first),
        ``questions`` (``title``, ``questions`` with answers on both texts), ``ratings``,
        ``table`` (``title``, ``rows`` of ``[key, value]`` strings) or ``text``. Spans are
        ``{"side": "source" | "summary", "start", "end"}`` UTF-8 byte offsets.

    Raises:
        TypeError: ``row`` is not a dict; ValueError: it is not a factpico row.
    """
    out: List[Dict[str, Any]] = json.loads(_native.explain_json(_row_json(row)))
    if source is not None and summary is not None:
        _add_span_texts(out, {"source": _validate.text("source", source).encode("utf-8"), "summary": _validate.text("summary", summary).encode("utf-8")})
    return out


def explain_text(row: Dict[str, Any], source: Optional[str] = None, summary: Optional[str] = None) -> str:
    """The row's explanation as plain text, exactly as ``factpico score --explain`` prints it
    (with ``source`` and ``summary``, spans are quoted from the texts; else shown as byte
    ranges)."""
    if (source is None) != (summary is None):
        raise TypeError("give both source and summary, or neither")
    if source is not None and summary is not None:
        source, summary = _validate.text("source", source), _validate.text("summary", summary)
    return str(_native.explain_text(_row_json(row), source, summary))
