"""factpico on Spark: ``DataFrame.mapInPandas`` with one scorer per Python worker task.

::

    from pyspark.sql import SparkSession
    import factpico.spark

    spark = SparkSession.builder.master("local[2]").getOrCreate()
    df = spark.read.json("pairs.jsonl")                      # id, source, summary[, system]
    scored = factpico.spark.score(df, metrics=["rougeL", "fkgl"])
    scored.write.parquet("scores/")

which is this ``mapInPandas`` call::

    fn = factpico.spark.pandas_scorer(metrics=["rougeL", "fkgl"])
    scored = df.select("id", "source", "summary").mapInPandas(fn, factpico.spark.output_schema(["rougeL", "fkgl"]))

Spark forks its Python workers; each task builds its :class:`factpico.Scorer` once, inside the
function, for all of its batches (models load once per task, never in the driver). Output
columns are those of :func:`factpico.to_table`.
"""

from __future__ import annotations

from typing import Any, Callable, Iterator, List, Optional, Sequence

from ._scorer import default_options, metrics as registry
from ._table import BASE_COLUMNS, JSON_COLUMNS, columns_dict

_ALIASES = {"rougel": "rougeL", "rouge-l": "rougeL", "rouge_l": "rougeL", "rougeLsum": "rougeL", "fk": "fkgl", "flesch_kincaid": "fkgl"}


def score_columns(metrics: Optional[Sequence[str]] = None) -> List[str]:
    """The score columns of ``metrics`` (default metrics when ``None``), in the order a
    :class:`factpico.Scorer` writes them; computed from the registry, without loading models.

    Raises:
        ValueError: an unknown metric.
    """
    chosen = list(metrics) if metrics is not None else default_options()["metrics"]
    known = {m["name"]: m for m in registry()}
    out: List[str] = []
    seen = set()
    for name in chosen:
        canon = _ALIASES.get(name, name)
        if canon not in known:
            raise ValueError(f"unknown metric {name!r}; available metrics: {', '.join(known)}")
        if canon in seen:
            continue
        seen.add(canon)
        out += [c["name"] for c in known[canon]["columns"]]
    return out


def output_schema(metrics: Optional[Sequence[str]] = None) -> str:
    """The Spark DDL schema of :func:`pandas_scorer`'s output for ``metrics``."""
    cols = ["`row` BIGINT", "`id` STRING", "`system` STRING", "`input_sha256` STRING"]
    cols += [f"`{c}` DOUBLE" for c in score_columns(metrics)]
    cols += [f"`{c}` STRING" for c in JSON_COLUMNS]
    return ", ".join(cols)


def pandas_scorer(
    metrics: Optional[Sequence[str]] = None,
    *,
    id_column: str = "id",
    source_column: str = "source",
    summary_column: str = "summary",
    system_column: Optional[str] = "system",
    num_threads: int = 1,
    **options: Any,
) -> Callable[[Iterator[Any]], Iterator[Any]]:
    """A function for ``DataFrame.mapInPandas(fn, output_schema(metrics))``: builds one
    :class:`factpico.Scorer` (``metrics``, ``**options``) per task and scores each pandas batch.
    ``num_threads`` limits factpico's and ONNX Runtime's threads per task (Spark runs one task
    per core by default)."""
    metric_list = list(metrics) if metrics is not None else None
    cols = score_columns(metric_list)

    def run(batches: Iterator[Any]) -> Iterator[Any]:
        import pandas as pd

        from . import _native
        from ._scorer import Scorer

        _native.set_num_threads(num_threads)
        opts = dict(options)
        runtime = dict(opts.pop("runtime", None) or {})
        runtime.setdefault("threads", num_threads)
        scorer = Scorer(metric_list, runtime=runtime, **opts)
        for pdf in batches:
            ids = pdf[id_column].tolist() if id_column in pdf.columns else None
            systems = None
            if system_column and system_column in pdf.columns:
                systems = [None if s is None or s != s else s for s in pdf[system_column].tolist()]
            rows = scorer.score(pdf[source_column].tolist(), pdf[summary_column].tolist(), ids=ids, systems=systems)
            data = columns_dict(rows, cols)
            data["row"] = pdf["row"].tolist() if "row" in pdf.columns else [None] * len(rows)
            frame = pd.DataFrame({c: data[c] for c in (*BASE_COLUMNS, *cols, *JSON_COLUMNS)})
            frame["row"] = frame["row"].astype("Int64")
            for c in cols:
                frame[c] = frame[c].astype("float64")
            yield frame

    return run


def score(df: Any, metrics: Optional[Sequence[str]] = None, **kwargs: Any) -> Any:
    """``df.mapInPandas(pandas_scorer(metrics, **kwargs), output_schema(metrics))``: the scored
    Spark DataFrame (lazy)."""
    return df.mapInPandas(pandas_scorer(metrics, **kwargs), output_schema(metrics))


__all__ = ["pandas_scorer", "output_schema", "score_columns", "score"]
