"""``factpico.textstat`` against textstat 0.7.3 (installed in the test venv) and the committed
textstat 0.7.8 goldens: identical values on the 600 real texts, the fixtures and edge cases."""

from __future__ import annotations

import json
import pickle
from pathlib import Path

import pytest

from factpico import textstat as ft

textstat = pytest.importorskip("textstat")

EDGE = ["", " ", "Hello.", "Hello", "...", "It's 3.5 mg/kg — twice daily!", "Don't stop.\n\nNew line here.", "a" * 200, "Dr. Smith et al. found 12.5% (95% CI 1.2–3.4)."]


def test_reference_version() -> None:
    import importlib.metadata

    assert importlib.metadata.version("textstat") == "0.7.3"


def test_identical_to_textstat_073(fixture_pairs, real_pairs, report) -> None:
    texts = [t for p in list(real_pairs) + list(fixture_pairs) for t in (p["source"], p["summary"])] + EDGE
    for t in texts:
        assert ft.flesch_kincaid_grade(t) == textstat.flesch_kincaid_grade(t), t[:80]
        assert ft.flesch_reading_ease(t) == textstat.flesch_reading_ease(t), t[:80]
        assert ft.lexicon_count(t) == textstat.lexicon_count(t), t[:80]
        assert ft.sentence_count(t) == textstat.sentence_count(t), t[:80]
        assert ft.syllable_count(t) == textstat.syllable_count(t), t[:80]
    batch = ft.textstat.flesch_batch(texts)
    assert batch == [(ft.flesch_kincaid_grade(t), ft.flesch_reading_ease(t)) for t in texts]
    report.append(f"textstat drop-in vs textstat 0.7.3: {len(texts)} texts, FKGL/FRE/counts identical")


def test_identical_to_textstat_078_goldens(repo: Path, real_pairs, fixture_pairs) -> None:
    golden = json.loads((repo / "tests/goldens/readability_textstat078.json").read_text(encoding="utf-8"))
    # Golden text ids: "<pair id>:<side>" for the real pairs, "fixture:<pair id>:<side>" for the fixtures.
    texts = {f"{p['id']}:{side}": p[side] for p in real_pairs for side in ("source", "summary")}
    texts.update({f"fixture:{p['id']}:{side}": p[side] for p in fixture_pairs for side in ("source", "summary")})
    n = 0
    for tid, want in golden["texts"].items():
        t = texts[tid]
        assert ft.textstat_078.flesch_kincaid_grade(t) == want["fkgl"], tid
        assert ft.textstat_078.flesch_reading_ease(t) == want["fre"], tid
        n += 1
    assert n >= 600


def test_identical_to_the_cli_columns(cli, fixture_pairs) -> None:
    for flag, ts in (("textstat073", ft.textstat), ("textstat078", ft.textstat_078)):
        rows = cli.score(fixture_pairs, ["--metrics", "fkgl,fre", "--fk-family", flag], name=f"fk-{flag}")
        for p, r in zip(fixture_pairs, rows):
            if r.get("nulls"):
                continue
            assert r["scores"]["fkgl_source"] == ts.flesch_kincaid_grade(p["source"])
            assert r["scores"]["fkgl_summary"] == ts.flesch_kincaid_grade(p["summary"])
            assert r["scores"]["fre_summary"] == ts.flesch_reading_ease(p["summary"])


def test_api_details() -> None:
    assert ft.textstat.family == "textstat073" and ft.textstat_078.family == "textstat078_cmudict"
    assert pickle.loads(pickle.dumps(ft.Textstat("0.7.8"))).family == "textstat078_cmudict"
    with pytest.raises(ValueError, match="0.9"):
        ft.Textstat("0.9")
    for bad in (None, 1.5, ["text"]):
        with pytest.raises(TypeError):
            ft.flesch_kincaid_grade(bad)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        ft.textstat.flesch_batch("one string")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"texts\[1\]"):
        ft.textstat.flesch_batch(["ok", None])  # type: ignore[list-item]
    assert ft.textstat.flesch_batch([]) == []
