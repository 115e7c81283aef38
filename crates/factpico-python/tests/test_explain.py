"""Explanations and per-row side inputs through the Python API: ``factpico.explain`` /
``explain_text`` render a row exactly as ``factpico score --explain`` does, from the row alone."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any, Dict, List

import pytest

import factpico
from conftest import ALIGN, cli_model_args, model_dir


def _texts(pairs: List[Dict[str, Any]]):
    return [p["source"] for p in pairs], [p["summary"] for p in pairs], [p["id"] for p in pairs]


def test_explain_text_equals_cli_explain(cli, fixture_pairs, repo: Path) -> None:
    metrics = ["alignscore", "dae", "rougeL", "fkgl"]
    opts = {**ALIGN, "dae": {"model": str(model_dir("dae-tiny")), "arcs": str(repo / "tests/goldens/dae_fixtures.conllu")}}
    from test_scorer_cli import _dae_rows

    pairs = _dae_rows(repo)  # the rows the pre-parsed arcs cover
    src, summ, ids = _texts(pairs)
    scorer = factpico.Scorer(metrics=metrics, **opts)
    rows = scorer.score(src, summ, ids=ids)
    theirs, stdout = cli.score_with_stdout(pairs, ["--metrics", ",".join(metrics), "--explain", *cli_model_args(opts)], name="explain")
    ours = "".join(factpico.explain_text(r, s, m) for r, s, m in zip(rows, src, summ))
    # The CLI prints the explanations, then its per-system summary table.
    explained = stdout[: stdout.index("| system | rows |")].rstrip("\n") + "\n"
    assert ours == explained and "-- alignscore:" in ours and "-- dae:" in ours
    # From a row read back from the CLI's output file: the same text.
    assert "".join(scorer.explain_text(r, s, m) for r, s, m in zip(theirs, src, summ)) == explained


def test_explain_blocks_from_the_row_alone(fixture_pairs) -> None:
    src, summ, ids = _texts(fixture_pairs[:3])
    rows = factpico.Scorer(metrics=["alignscore", "rougeL"], sentence_spans=True, **ALIGN).score(src, summ, ids=ids)
    ex = factpico.explain(rows[0], src[0], summ[0])
    by = {m["metric"]: m for m in ex}
    assert set(by) == {"alignscore", "rougeL"}
    assert by["alignscore"]["scores"] == [["alignscore", rows[0]["scores"]["alignscore"]]]
    support = [b for b in by["alignscore"]["blocks"] if b["kind"] == "sentence_support"]
    assert support and len(support[0]["sentences"]) == len(rows[0]["sentences"]["summary"])
    # Spans are UTF-8 byte offsets; with the texts, each carries the text it covers.
    first = support[0]["sentences"][0]
    start, end = first["span"]["start"], first["span"]["end"]
    assert first["span"]["text"] == summ[0].encode("utf-8")[start:end].decode("utf-8")
    assert first["evidence"]["text"] in src[0]
    # Without the texts: the same blocks, no text keys.
    bare = factpico.explain(rows[0])
    assert '"text": ' not in json.dumps([b for m in bare for b in m["blocks"] if b["kind"] != "text"])
    bare_support = [b for m in bare if m["metric"] == "alignscore" for b in m["blocks"] if b["kind"] == "sentence_support"]
    assert bare_support[0]["sentences"][0]["span"] == {k: v for k, v in first["span"].items() if k != "text"}


def test_explain_bad_input() -> None:
    with pytest.raises(TypeError, match="row must be a dict"):
        factpico.explain("not a row")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="not a factpico output row"):
        factpico.explain({"scores": "high"})
    with pytest.raises(TypeError, match="both source and summary"):
        factpico.explain_text({"id": "x", "scores": {}}, source="only one")
    assert factpico.explain({"id": "x", "scores": {}}) == []
    # a dict that is not a row at all is refused, as the docstring promises
    for not_a_row in ({"foo": 1}, {}, {"id": "x"}):
        with pytest.raises(ValueError, match="not a factpico output row"):
            factpico.explain(not_a_row)
        with pytest.raises(ValueError, match="not a factpico output row"):
            factpico.explain_text(not_a_row)


def test_per_row_inputs_are_checked_against_the_metrics() -> None:
    scorer = factpico.Scorer(metrics=["rougeL"])
    assert scorer.row_inputs == {}
    with pytest.raises(TypeError, match=r"unexpected per-row input\(s\) \['evidence'\]: the selected metrics \['rougeL'\] accept none"):
        scorer.score(["a b"], ["a"], evidence=[["a"]])


def test_input_sha256_matches_the_cli_rule() -> None:
    # sha256(source ‖ 0x00 ‖ summary)[:16 hex]; with side inputs ‖ 0x00 ‖ compact sorted JSON.
    assert factpico.input_sha256("abc", "de") == hashlib.sha256(b"abc\x00de").hexdigest()[:16] == "e0d078a7ea89a004"
    extras = {"z": 1, "evidence": ["x", "é"]}
    blob = json.dumps(extras, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
    assert factpico.input_sha256("abc", "de", extras) == hashlib.sha256(b"abc\x00de\x00" + blob).hexdigest()[:16]
    assert factpico.input_sha256("abc", "de", {}) == "e0d078a7ea89a004"
