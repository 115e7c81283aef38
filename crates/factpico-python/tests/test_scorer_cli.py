"""``factpico.Scorer`` gives the rows ``factpico score`` writes: same values (bit for bit), same
nulls, warnings, details and provenance — on the fixtures and on the 300 real pairs."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any, Dict, List

import pytest

import factpico
from conftest import ALIGN, ALIGN_METRICS, assert_rows_equal, cli_model_args, model_dir


def _score(pairs: List[Dict[str, str]], **kw: Any) -> List[Dict[str, Any]]:
    scorer = factpico.Scorer(**kw)
    return scorer.score(
        [p["source"] for p in pairs], [p["summary"] for p in pairs], ids=[p["id"] for p in pairs],
        systems=[p.get("system") for p in pairs],
    )


@pytest.mark.parametrize("family, flag", [("textstat073", "textstat073"), ("textstat078_cmudict", "textstat078")])
def test_model_free_metrics_on_fixtures(cli, fixture_pairs, family: str, flag: str) -> None:
    metrics = ["rougeL", "fkgl", "fre"]
    ours = _score(fixture_pairs, metrics=metrics, readability={"family": family})
    theirs = cli.score(fixture_pairs, ["--metrics", ",".join(metrics), "--fk-family", flag])
    assert_rows_equal(ours, theirs, f"fixtures, {family}")
    # The edge cases are in there: documented nulls with reasons.
    nulls = [r for r in ours if r.get("nulls")]
    assert nulls and all(set(r["nulls"]) == {c for c, v in r["scores"].items() if v is None} for r in nulls)


def test_systems_and_options_on_fixtures(cli, repo: Path) -> None:
    rows = [json.loads(l) for l in (repo / "fixtures" / "pairs.jsonl").read_text(encoding="utf-8").splitlines() if l.strip()]
    assert any(r.get("system") for r in rows)
    ours = _score(rows, metrics="rougeL", rouge={"use_stemmer": False}, sentence_spans=False)
    theirs = cli.score(rows, ["--metrics", "rougeL", "--rouge-stemmer", "false", "--no-sentences"])
    assert_rows_equal(ours, theirs, "fixtures, no stemmer, no sentences")
    assert all("sentences" not in r for r in ours) and ours[0]["system"] == rows[0]["system"]


def test_model_free_metrics_on_real_pairs(cli, real_pairs, report) -> None:
    ours = _score(real_pairs, metrics=["rougeL", "fkgl", "fre"])
    theirs = cli.score(real_pairs, ["--metrics", "rougeL,fkgl,fre"], name="real")
    assert_rows_equal(ours, theirs, "300 real pairs")
    report.append(f"Scorer vs CLI, rougeL+fkgl+fre: {len(ours)} real pairs, rows identical")


@pytest.mark.parametrize("mode", ["nli_sp", "bin_sp", "reg"])
def test_alignscore_fixture_model_on_fixtures(cli, fixture_pairs, mode: str) -> None:
    models = {"alignscore": {**ALIGN["alignscore"], "mode": mode}}
    ours = _score(fixture_pairs, metrics=["alignscore", "rougeL"], **models)
    theirs = cli.score(fixture_pairs, ["--metrics", "alignscore,rougeL", *cli_model_args(models)])
    assert_rows_equal(ours, theirs, f"fixtures, alignscore {mode}")
    assert any(r["scores"]["alignscore"] is not None for r in ours)
    assert "alignscore" in ours[0]["details"] and ours[0]["provenance"]["metrics"]["alignscore"]["model_sha256"]


def test_alignscore_fixture_model_on_real_pairs(align_rows, align_cli, report) -> None:
    ours = _score(align_rows[:300], metrics=ALIGN_METRICS, **ALIGN)
    assert_rows_equal(ours, align_cli[:300], "300 real pairs, alignscore")
    vals = [r["scores"]["alignscore"] for r in ours]
    assert all(v is not None and 0.0 <= v <= 1.0 for v in vals)
    report.append(f"Scorer vs CLI, {'+'.join(ALIGN_METRICS)} (alignscore tiny fixture): {len(ours)} real pairs, rows identical")


def test_alignscore_minilm_on_some_real_pairs(cli, real_pairs, minilm) -> None:
    models = {"alignscore": {"model": str(minilm), "max_length": 256, "words_per_chunk": 150}}
    pairs = real_pairs[:: 30]
    ours = _score(pairs, metrics=["alignscore"], **models)
    theirs = cli.score(pairs, ["--metrics", "alignscore", *cli_model_args(models)], name="minilm")
    assert_rows_equal(ours, theirs, "real pairs, MiniLM NLI")


QA = {"qa": {
    "questeval_qg_model": str(model_dir("t5-tiny-qg")),
    "questeval_qa_model": str(model_dir("t5-tiny-qa")),
    "qafacteval_qg_model": str(model_dir("bart-tiny")),
    "extractive_qa_model": str(model_dir("qa-tiny")),
    "bertscore_model": str(model_dir("bertscore-tiny")),
    "lerc_model": str(model_dir("lerc-tiny")),
    "answers": "rules",
}}


def test_qa_metrics_fixture_models_on_fixtures(cli, fixture_pairs) -> None:
    pairs = fixture_pairs[:6] + [p for p in fixture_pairs if not p["summary"].strip()][:1]
    ours = _score(pairs, metrics=["questeval", "qafacteval", "cloze"], **QA)
    theirs = cli.score(pairs, ["--metrics", "questeval,qafacteval,cloze", *cli_model_args(QA)], name="qa")
    assert_rows_equal(ours, theirs, "fixtures, QA metrics")
    assert any(r["scores"].get("questeval") is not None for r in ours)


def _dae_rows(repo: Path) -> List[Dict[str, str]]:
    golden = json.loads((repo / "tests/goldens/dae_fixtures.json").read_text(encoding="utf-8"))
    sources = {
        json.loads(l)["id"]: json.loads(l)["source"]
        for l in (repo / "fixtures/pairs.jsonl").read_text(encoding="utf-8").splitlines() if l.strip()
    }
    return [
        {"id": r["id"], "source": " ".join([sources[r["source_pair"]]] * r["source_repeat"]), "summary": r["summary"]}
        for r in golden["rows"] if r["mode"] == "reference"
    ]


@pytest.mark.parametrize("multi", ["single-parse", "per-sentence"])
def test_dae_with_conllu_arcs(cli, repo: Path, multi: str) -> None:
    rows = _dae_rows(repo)
    models = {"dae": {"model": str(model_dir("dae-tiny")), "arcs": str(repo / "tests/goldens/dae_fixtures.conllu"), "multi_sentence": multi}}
    ours = _score(rows, metrics=["dae"], **models)
    theirs = cli.score(rows, ["--metrics", "dae", *cli_model_args(models)], name="dae")
    assert_rows_equal(ours, theirs, f"DAE {multi}")
    assert all(r["scores"]["dae"] is not None and r["details"]["dae"]["arcs"] for r in ours)


def test_rows_keep_documented_nulls_and_json_floats() -> None:
    rows = factpico.Scorer(metrics=["rougeL", "fkgl"]).score(["", "A b c d."], ["Text here.", "..."])
    assert rows[0]["nulls"]["rougeL"] == "empty source" and rows[0]["scores"]["rougeL"] is None
    assert rows[1]["nulls"]["delta_fkgl"] == "summary has no words"
    assert rows[0]["id"] == "row-1" and rows[1]["row"] == 2
    assert rows[0]["input_sha256"] == factpico.input_sha256("", "Text here.")
    assert all(isinstance(v, float) and math.isfinite(v) for v in [factpico.Scorer().score(["A b."], ["A b."])[0]["scores"]["rougeL"]])


def test_score_table_round_trips_to_the_rows(fixture_pairs) -> None:
    pa = pytest.importorskip("pyarrow")
    scorer = factpico.Scorer(metrics=["rougeL", "fkgl"])
    args = ([p["source"] for p in fixture_pairs], [p["summary"] for p in fixture_pairs], [p["id"] for p in fixture_pairs])
    rows = scorer.score(*args)
    table = scorer.score_table(*args)
    assert isinstance(table, pa.Table) and table.num_rows == len(rows)
    assert table.schema.field("rougeL").type == pa.float64()
    assert table.schema.field("delta_fkgl").metadata[b"direction"] == b"lower_is_better"
    assert json.loads(table.schema.field("rougeL").metadata[b"max"]) == 1.0
    # Documented nulls stay nulls (not NaN).
    assert table.column("rougeL").null_count == sum(r["scores"]["rougeL"] is None for r in rows) > 0
    assert factpico.rows_from_table(table) == rows
    # pandas is one call away.
    frame = table.to_pandas()
    assert list(frame["id"]) == [p["id"] for p in fixture_pairs]


def test_cli_parquet_and_jsonl_outputs_read_with_pyarrow_polars_and_pandas(cli, repo: Path, report) -> None:
    """Issue 20: ``factpico score -o x.parquet`` holds the rows of ``-o x.jsonl`` (same scores,
    bit for bit, nulls, details), in the ``score_table`` layout with the provenance in the
    metadata; the JSONL is one row per line for pandas and polars, with its provenance once
    beside it."""
    import subprocess

    import pandas
    import polars
    import pyarrow.parquet as pq

    src = repo / "fixtures" / "pairs.jsonl"
    out = {ext: cli.tmp / f"x.{ext}" for ext in ("jsonl", "parquet")}
    for path in out.values():
        p = subprocess.run([str(cli.exe), "score", str(src), "-o", str(path), "-q"], env=cli.env, capture_output=True, text=True)
        assert p.returncode == 0, p.stderr
    lines = [json.loads(l) for l in out["jsonl"].read_text(encoding="utf-8").splitlines()]
    assert len(lines) == 12
    size = out["jsonl"].stat().st_size
    report.append(f"factpico score fixtures/pairs.jsonl -o x.jsonl: {size} bytes, {size // 12} bytes a row (schema 2: 2,222)")
    assert size // 12 <= 400
    assert len(pandas.read_json(out["jsonl"], lines=True)) == 12
    assert polars.read_ndjson(out["jsonl"]).height == 12
    provenance = json.loads(Path(f"{out['jsonl']}.provenance.json").read_text(encoding="utf-8"))
    assert provenance["schema_version"] == factpico.SCHEMA_VERSION == 3
    assert all(r["run"] == lines[0]["run"] for r in lines)

    table = pq.read_table(out["parquet"])
    assert json.loads(table.schema.metadata[b"factpico.provenance"]) == provenance
    columns = [c for c in table.column_names if c not in factpico._table.BASE_COLUMNS + factpico._table.JSON_COLUMNS + factpico._table.TAIL_COLUMNS]
    assert sorted(columns) == sorted(lines[0]["scores"])
    assert all(str(table.schema.field(c).type) == "double" for c in columns)
    back = factpico.rows_from_table(table)
    assert len({id(b["provenance"]) for b in back}) == 1 and back[0]["provenance"] == provenance
    for b in back:
        del b["provenance"]
    assert back == lines, "the Parquet rows differ from the JSONL rows"
    frame = polars.read_parquet(out["parquet"])
    assert frame.height == 12 and frame["id"].to_list() == [r["id"] for r in lines]
    for c in columns:
        assert frame[c].to_list() == [r["scores"][c] for r in lines], c


def test_rows_share_one_provenance_object() -> None:
    """Output schema 3: the rows of a call reference one provenance dict (no copy per row) and
    its hash ``run``; sentence spans only on request."""
    scorer = factpico.Scorer(["rougeL"])
    rows = scorer.score(["The trial enrolled 240 adults."] * 3, ["It enrolled 240 adults."] * 3)
    assert all(r["provenance"] is rows[0]["provenance"] for r in rows)
    assert rows[0]["provenance"] == scorer.provenance and scorer.provenance is not rows[0]["provenance"]
    assert len({r["run"] for r in rows}) == 1 and len(rows[0]["run"]) == 16
    assert "sentences" not in rows[0]
    spans = factpico.Scorer(["rougeL"], sentence_spans=True).score(["A. B."], ["C."])[0]["sentences"]
    assert spans == {"source": [[0, 2], [3, 5]], "summary": [[0, 2]]}
