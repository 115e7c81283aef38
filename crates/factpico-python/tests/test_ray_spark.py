"""Scale-out: Ray Data on a local cluster (2 CPUs, an actor pool) over 2,100 rows, and Spark's
``mapInPandas`` on ``local[2]`` — both with a model-based metric, output identical to the CLI's,
ids preserved."""

from __future__ import annotations

import json
import os
import shutil
import sys
import threading
import time
from pathlib import Path
from typing import Any, Dict, List

import pytest

import factpico
from conftest import ALIGN, N_REPEATED, comparable, shared_required
from conftest import ALIGN_METRICS as METRICS


def _same_as_cli(ours: List[Dict[str, Any]], theirs: List[Dict[str, Any]], what: str) -> None:
    """Rows equal the CLI's by id, except ``row`` (position in a file) and ``provenance``
    (constant; checked separately)."""
    def strip(r: Dict[str, Any]) -> Dict[str, Any]:
        r = comparable(r)
        r.pop("row", None)
        r.pop("provenance", None)
        return r

    by_id = {r["id"]: strip(r) for r in ours}
    assert len(by_id) == len(ours) == len(theirs), f"{what}: {len(ours)} rows ({len(by_id)} ids) vs the CLI's {len(theirs)}"
    for t in theirs:
        assert t["id"] in by_id, f"{what}: id {t['id']} lost"
        assert by_id[t["id"]] == strip(t), f"{what}: row {t['id']} differs from the CLI's"


class PeakRss:
    """Peak total RSS of this process and all its descendants (the local Ray cluster)."""

    def __init__(self) -> None:
        import psutil

        self.psutil = psutil
        self.peak = 0
        self._stop = threading.Event()
        self._t = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        me = self.psutil.Process()
        while not self._stop.is_set():
            total = 0
            for p in [me, *me.children(recursive=True)]:
                try:
                    total += p.memory_info().rss
                except self.psutil.Error:
                    pass
            self.peak = max(self.peak, total)
            time.sleep(0.2)

    def __enter__(self) -> "PeakRss":
        self._t.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stop.set()
        self._t.join()


def test_ray_data_actor_pool_2100_rows(align_rows, align_cli, report) -> None:
    ray = pytest.importorskip("ray")
    import factpico.ray as fray

    rows, theirs = align_rows[:N_REPEATED], align_cli[:N_REPEATED]
    assert len(rows) == len({r["id"] for r in rows}) == 2100
    os.environ["RAY_AUTH_MODE"] = "disabled"
    token = Path.home() / ".ray" / "auth_token"
    had_token = token.exists()
    t0 = time.perf_counter()
    try:
        with PeakRss() as mem:
            ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
            ds = ray.data.from_items(rows)
            out = fray.score(ds, metrics=METRICS, num_actors=2, num_cpus_per_actor=1, batch_size=150, **ALIGN)
            records = out.take_all()
            ray.shutdown()
    finally:
        if ray.is_initialized():
            ray.shutdown()
        if token.exists() and not had_token:
            token.unlink()
    elapsed = time.perf_counter() - t0
    ours = factpico.rows_from_table(records)
    _same_as_cli(ours, theirs, "Ray Data")
    # The constant provenance of the actors' scorer equals the CLI's.
    prov = factpico.Scorer(metrics=METRICS, runtime={"threads": 1}, **ALIGN).provenance
    cli_prov = {k: v for k, v in theirs[0]["provenance"].items() if k != "input"}
    assert prov["metrics"] == cli_prov["metrics"] and prov["engine"] == cli_prov["engine"]
    report.append(
        f"Ray Data: {len(rows)} rows, 2 actors x 1 CPU, {','.join(METRICS)} (alignscore tiny fixture): rows identical "
        f"to the CLI's, ids preserved; {elapsed:.0f}s incl. cluster start; peak RSS of driver + cluster {mem.peak / 2**20:.0f} MiB"
    )


def _java() -> bool:
    return shutil.which("java") is not None


def test_spark_map_in_pandas_local2(align_rows, align_cli, report) -> None:
    pytest.importorskip("pyspark")
    if not _java():
        if shared_required():
            pytest.fail("java not found: the Spark test needs Java 17 (.ci/run installs openjdk-17-jre-headless)")
        pytest.skip("SKIP: java not found (apt-get install openjdk-17-jre-headless)")
    import pandas as pd
    from pyspark.sql import SparkSession

    import factpico.spark as fspark

    rows = align_rows[:300] + align_rows[N_REPEATED:]
    theirs = align_cli[:300] + align_cli[N_REPEATED:]
    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
    t0 = time.perf_counter()
    spark = (
        SparkSession.builder.master("local[2]")
        .appName("factpico-test")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.execution.arrow.pyspark.enabled", "true")
        .config("spark.sql.execution.arrow.maxRecordsPerBatch", "64")
        .getOrCreate()
    )
    try:
        df = spark.createDataFrame(pd.DataFrame(rows)).repartition(4)
        scored = fspark.score(df, metrics=METRICS, **ALIGN)
        out = scored.toPandas()
    finally:
        spark.stop()
    elapsed = time.perf_counter() - t0
    records = [{k: (None if isinstance(v, float) and v != v else v) for k, v in rec.items()} for rec in out.to_dict("records")]
    for rec in records:
        if rec.get("row") is not None:
            rec["row"] = int(rec["row"])
    ours = factpico.rows_from_table(records)
    _same_as_cli(ours, theirs, "Spark mapInPandas")
    assert list(out.columns)[:4] == ["row", "id", "system", "input_sha256"]
    report.append(f"Spark local[2] mapInPandas: {len(rows)} rows, {','.join(METRICS)}: rows identical to the CLI's; {elapsed:.0f}s incl. start-up")
