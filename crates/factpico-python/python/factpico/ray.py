"""factpico on Ray Data: one scorer per actor, models loaded once per actor.

::

    import ray, factpico.ray
    ray.init()
    ds = ray.data.read_json("pairs.jsonl")                  # columns id, source, summary[, system]
    scored = factpico.ray.score(ds, metrics=["alignscore", "rougeL"], num_actors=8,
                                alignscore={"model": "/models/alignscore-base"})
    scored.write_parquet("scores/")

Each actor builds one :class:`factpico.Scorer` (loading the models once) and scores batches of
rows; factpico's threads and ONNX Runtime's intra-op threads are limited to the CPUs Ray gives
the actor (``num_cpus_per_actor``), so actors do not oversubscribe a node. Output rows are the
columns of :func:`factpico.to_table` (``id`` preserved, one ``float64`` column per score, JSON
columns for nulls, warnings, errors and details), plus any ``keep_columns`` of the input.
"""

from __future__ import annotations

import os
from typing import Any, List, Optional, Sequence

from . import _native
from ._scorer import Scorer
from ._table import BASE_COLUMNS, JSON_COLUMNS, columns_dict


def _actor_cpus() -> int:
    """CPUs Ray assigned to the current actor/task (1 if unknown)."""
    try:
        import ray

        cpus = ray.get_runtime_context().get_assigned_resources().get("CPU")
        if cpus:
            return max(1, int(round(cpus)))
    except Exception:  # not in a Ray worker
        pass
    return 1


class ScoreBatches:
    """Callable class for ``Dataset.map_batches(ScoreBatches, compute=ray.data.ActorPoolStrategy(...),
    batch_format="pyarrow", fn_constructor_kwargs={...})``: one :class:`factpico.Scorer` per
    actor.

    Args:
        metrics, **options: as :class:`factpico.Scorer`.
        id_column, source_column, summary_column: input column names (``id`` may be absent:
            ids are then ``row-<n>`` within each batch, which are *not* unique; give ids).
        system_column: input column with the generating system (optional).
        keep_columns: input columns copied to the output unchanged (e.g. ratings).
        num_threads: threads for factpico and ONNX Runtime in this actor (default: the CPUs Ray
            assigned to it).
    """

    def __init__(
        self,
        metrics: Optional[Sequence[str]] = None,
        *,
        id_column: str = "id",
        source_column: str = "source",
        summary_column: str = "summary",
        system_column: Optional[str] = "system",
        keep_columns: Sequence[str] = (),
        num_threads: Optional[int] = None,
        **options: Any,
    ) -> None:
        threads = num_threads or _actor_cpus()
        _native.set_num_threads(threads)
        runtime = dict(options.pop("runtime", None) or {})
        runtime.setdefault("threads", threads)
        self.scorer = Scorer(metrics, runtime=runtime, **options)
        self.columns = self.scorer.columns
        self.id_column, self.source_column, self.summary_column = id_column, source_column, summary_column
        self.system_column = system_column
        self.keep_columns = list(keep_columns)
        self.pid = os.getpid()

    def __call__(self, batch: Any) -> Any:
        import pyarrow as pa

        if not isinstance(batch, pa.Table):
            batch = pa.Table.from_pandas(batch) if hasattr(batch, "to_numpy") and hasattr(batch, "columns") else pa.table(batch)
        names = batch.column_names
        for c in (self.source_column, self.summary_column):
            if c not in names:
                raise ValueError(f"input has no column {c!r} (columns: {names})")
        ids = batch.column(self.id_column).to_pylist() if self.id_column in names else None
        systems = batch.column(self.system_column).to_pylist() if self.system_column and self.system_column in names else None
        rows = self.scorer.score(
            batch.column(self.source_column).to_pylist(),
            batch.column(self.summary_column).to_pylist(),
            ids=ids,
            systems=systems,
        )
        data = columns_dict(rows, self.columns)
        if "row" in names:
            data["row"] = batch.column("row").to_pylist()
        else:
            data["row"] = [None] * len(rows)
        out = {c: data[c] for c in (*BASE_COLUMNS, *self.columns, *JSON_COLUMNS)}
        for c in self.keep_columns:
            out[c] = batch.column(c)
        fields = [
            pa.field("row", pa.int64()),
            pa.field("id", pa.string()),
            pa.field("system", pa.string()),
            pa.field("input_sha256", pa.string()),
            *[pa.field(c, pa.float64()) for c in self.columns],
            *[pa.field(c, pa.string()) for c in JSON_COLUMNS],
        ]
        table = pa.Table.from_pydict({f.name: out[f.name] for f in fields}, schema=pa.schema(fields))
        for c in self.keep_columns:
            table = table.append_column(c, out[c])
        return table


def score(
    dataset: Any,
    metrics: Optional[Sequence[str]] = None,
    *,
    num_actors: int = 1,
    num_cpus_per_actor: int = 1,
    batch_size: int = 64,
    id_column: str = "id",
    source_column: str = "source",
    summary_column: str = "summary",
    system_column: Optional[str] = "system",
    keep_columns: Sequence[str] = (),
    **options: Any,
) -> Any:
    """Scores a Ray ``Dataset`` of (id, source, summary) rows on a pool of ``num_actors`` actors,
    each with ``num_cpus_per_actor`` CPUs and one :class:`factpico.Scorer` (``metrics`` and
    ``**options`` as there). Returns the lazy output ``Dataset`` (see the module docs); the rows
    carry the ids of the input. Scale out by raising ``num_actors`` as the cluster grows
    (throughput grows with actors until the CPUs are used; see BENCHMARKS.md)."""
    import ray.data

    return dataset.map_batches(
        ScoreBatches,
        fn_constructor_kwargs=dict(
            metrics=list(metrics) if metrics is not None else None,
            id_column=id_column,
            source_column=source_column,
            summary_column=summary_column,
            system_column=system_column,
            keep_columns=list(keep_columns),
            num_threads=num_cpus_per_actor,
            **options,
        ),
        batch_format="pyarrow",
        batch_size=batch_size,
        num_cpus=num_cpus_per_actor,
        compute=ray.data.ActorPoolStrategy(size=num_actors),
    )


def output_columns(metrics: Optional[Sequence[str]] = None) -> List[str]:
    """The output columns :func:`score` produces for ``metrics`` (without ``keep_columns``)."""
    from .spark import score_columns

    return [*BASE_COLUMNS, *score_columns(metrics), *JSON_COLUMNS]


__all__ = ["ScoreBatches", "score", "output_columns"]


