"""The tabular form of scored rows: a ``pyarrow.Table``.

Why Arrow rather than pandas: a score that is a documented null stays a null (pandas turns
it into NaN, indistinguishable from a model's NaN); column types are exact (``float64``,
``string``); the table goes to Ray Data, Spark, polars or DuckDB without a copy; each score
column carries its range, direction and reference as field metadata; and pandas is one call
away (``table.to_pandas()``).
"""

from __future__ import annotations

import json
from typing import Any, Dict, List, Optional, Sequence

#: The non-score columns of the table, in order. ``nulls``, ``warnings``, ``errors``,
#: ``details`` and ``sentences`` hold the row's JSON (null when empty).
BASE_COLUMNS = ("row", "id", "system", "input_sha256")
JSON_COLUMNS = ("nulls", "warnings", "errors", "details", "sentences")
#: String columns after the JSON ones (``skipped``: why an unreadable record was skipped, by
#: ``factpico score``; ``run``: the provenance hash), in :func:`to_table`'s tables and the
#: Parquet files ``factpico score -o OUT.parquet`` writes.
TAIL_COLUMNS = ("skipped", "run")


def _pyarrow():
    try:
        import pyarrow
    except ImportError:
        raise ImportError("the tabular form needs pyarrow: pip install 'factpico[arrow]' (or pyarrow)") from None
    return pyarrow


def columns_dict(rows: Sequence[Dict[str, Any]], columns: Sequence[str]) -> Dict[str, List[Any]]:
    """Rows -> plain column lists (what :func:`to_table` builds its table from)."""
    out: Dict[str, List[Any]] = {c: [] for c in (*BASE_COLUMNS, *columns, *JSON_COLUMNS, *TAIL_COLUMNS)}
    for r in rows:
        for c in BASE_COLUMNS:
            out[c].append(r.get(c))
        scores = r.get("scores", {})
        for c in columns:
            out[c].append(scores.get(c))
        for c in JSON_COLUMNS:
            v = r.get(c)
            out[c].append(json.dumps(v, ensure_ascii=False) if v else None)
        for c in TAIL_COLUMNS:
            out[c].append(r.get(c))
    return out


def to_table(rows: Sequence[Dict[str, Any]], columns: Sequence[str], provenance: Optional[Dict[str, Any]] = None):
    """Rows of :meth:`factpico.Scorer.score` as a ``pyarrow.Table``.

    Columns: ``row`` (int64), ``id``, ``system``, ``input_sha256`` (string), one ``float64``
    column per score (null = documented null, reason in ``nulls``), then ``nulls``,
    ``warnings``, ``errors``, ``details``, ``sentences`` as JSON text (null when empty), then
    ``skipped`` and ``run`` (string; the layout of ``factpico score -o OUT.parquet``). Score
    fields carry ``description``, ``min``, ``max``, ``direction`` and ``reference`` metadata;
    the schema carries the scorer's ``provenance`` (JSON) under ``factpico.provenance``.
    :func:`rows_from_table` turns it back into the rows (provenance included).
    """
    pa = _pyarrow()
    from ._scorer import metrics

    info: Dict[str, Dict[str, Any]] = {}
    for m in metrics():
        for c in m["columns"]:
            info[c["name"]] = {**c, "reference": m["reference"]}
    data = columns_dict(rows, columns)
    fields = [
        pa.field("row", pa.int64()),
        pa.field("id", pa.string()),
        pa.field("system", pa.string()),
        pa.field("input_sha256", pa.string()),
    ]
    for c in columns:
        meta = {k: json.dumps(v) if not isinstance(v, str) else v for k, v in info.get(c, {}).items() if k != "name"}
        fields.append(pa.field(c, pa.float64(), metadata=meta or None))
    fields += [pa.field(c, pa.string()) for c in (*JSON_COLUMNS, *TAIL_COLUMNS)]
    schema = pa.schema(fields, metadata={"factpico.provenance": json.dumps(provenance)} if provenance else None)
    return pa.Table.from_pydict(data, schema=schema)


def _missing(v: Any) -> bool:
    """None, NaN, or pandas' NA/NaT."""
    return v is None or (isinstance(v, float) and v != v) or type(v).__name__ in ("NAType", "NaTType")


def rows_from_table(table, columns: Optional[Sequence[str]] = None) -> List[Dict[str, Any]]:
    """The rows of a table made by :func:`to_table` (or a pandas DataFrame / list of dicts with
    its columns, e.g. the output of ``factpico.ray`` or ``factpico.spark``), as
    :meth:`factpico.Scorer.score` returned them. ``provenance`` is restored from the schema
    metadata when present (one dict shared by the rows). ``columns``: the score columns
    (default: every column that is not one of the base, JSON or tail columns). Reads the
    Parquet files of ``factpico score -o OUT.parquet`` too
    (``rows_from_table(pyarrow.parquet.read_table(path))``)."""
    meta = getattr(getattr(table, "schema", None), "metadata", None) or {}
    provenance = json.loads(meta[b"factpico.provenance"]) if b"factpico.provenance" in meta else None
    if hasattr(table, "to_pylist"):
        records = table.to_pylist()
    elif hasattr(table, "to_dict"):
        records = table.to_dict("records")
    else:
        records = list(table)
    rows = []
    base = set(BASE_COLUMNS) | set(JSON_COLUMNS) | set(TAIL_COLUMNS)
    for raw in records:
        rec = {k: (None if _missing(v) else v) for k, v in raw.items()}
        row: Dict[str, Any] = {}
        if rec.get("row") is not None:
            row["row"] = int(rec["row"])
        row["id"] = rec.get("id")
        if rec.get("input_sha256") is not None:
            row["input_sha256"] = rec["input_sha256"]
        if rec.get("system") is not None:
            row["system"] = rec["system"]
        names = columns if columns is not None else [k for k in rec if k not in base]
        row["scores"] = {k: (None if rec.get(k) is None else float(rec[k])) for k in names}
        for c in JSON_COLUMNS:
            if rec.get(c):
                row[c] = json.loads(rec[c])
        for c in TAIL_COLUMNS:
            if rec.get(c) is not None:
                row[c] = rec[c]
        if row.get("skipped") is not None and all(v is None for v in row["scores"].values()):
            del row["scores"]
        if provenance is not None:
            row["provenance"] = provenance
        rows.append(row)
    return rows
