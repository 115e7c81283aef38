"""Bad input raises the usual Python exceptions with a message that names the problem; nothing
panics, nothing hangs."""

from __future__ import annotations

import pytest

import factpico
from conftest import model_dir


@pytest.fixture(scope="module")
def scorer() -> factpico.Scorer:
    return factpico.Scorer(metrics=["rougeL", "fkgl"])


@pytest.mark.parametrize(
    "sources, summaries, exc, match",
    [
        ("one abstract", ["a summary"], TypeError, "sources must be a list of str, got a single str"),
        (["abstract"], "summary", TypeError, "summaries must be a list of str, got a single str"),
        (None, ["a"], TypeError, "sources must be a list of str, got None"),
        (["a"], None, TypeError, "summaries must be a list of str, got None"),
        ([None], ["a"], TypeError, r"sources\[0\] is None"),
        (["a", 3], ["a", "b"], TypeError, r"sources\[1\] must be a str, got int"),
        (["a"], [b"bytes"], TypeError, r"summaries\[0\] must be a str, got bytes"),
        (["a", "b"], ["a"], ValueError, "sources has 2 items but summaries has 1"),
        ({"a": 1}, ["a"], TypeError, "got dict"),
        # unordered collections would pair sources and summaries arbitrarily
        ({"abstract"}, ["a"], TypeError, "sources is a set"),
        (["a"], frozenset(["s"]), TypeError, "summaries is a frozenset"),
        ({"x": 1}.keys(), ["a"], TypeError, "sources is a dict_keys"),
        (42, ["a"], TypeError, "got int"),
    ],
)
def test_scorer_rejects(scorer, sources, summaries, exc, match) -> None:
    with pytest.raises(exc, match=match):
        scorer.score(sources, summaries)


def test_scorer_edge_inputs(scorer) -> None:
    assert scorer.score([], []) == []
    assert scorer.score((), ()) == []
    # Any iterable of str works (tuples, generators).
    rows = scorer.score(("A b c.",), (s for s in ["A b."]))
    assert rows[0]["scores"]["rougeL"] > 0
    with pytest.raises(ValueError, match="ids has 1"):
        scorer.score(["a", "b"], ["a", "b"], ids=["x"])
    with pytest.raises(TypeError, match=r"ids\[0\] must be a str"):
        scorer.score(["a"], ["a"], ids=[1])
    with pytest.raises(TypeError, match=r"systems\[0\] must be a str or None"):
        scorer.score(["a"], ["a"], systems=[1])
    with pytest.raises(TypeError, match="per-row input"):
        scorer.score(["a"], ["a"], evidence=[["x"]])
    with pytest.warns(UserWarning, match="ids repeat"):
        scorer.score(["a", "b"], ["a", "b"], ids=["x", "x"])


@pytest.mark.parametrize("metrics", [[], (), "", " , "])
def test_scorer_with_no_metric_is_refused(metrics) -> None:
    # the CLI refuses `--metrics ""`; a scorer that computes nothing is a mistake, not a default
    with pytest.raises(ValueError, match="no metric selected"):
        factpico.Scorer(metrics=metrics)


def test_scorer_options_errors() -> None:
    with pytest.raises(ValueError, match="unknown metric `nosuch`; available metrics"):
        factpico.Scorer(metrics=["nosuch"])
    with pytest.raises(ValueError, match="unknown Scorer option 'colour'; the options are: metrics, sentence_spans, runtime, .*alignscore"):
        factpico.Scorer(colour="red")
    with pytest.raises(ValueError, match="unknown field 'modle' in Scorer option 'alignscore'; its fields are: model, mode, words_per_chunk, max_length"):
        factpico.Scorer(alignscore={"modle": "x"})
    with pytest.raises(ValueError, match="unknown field 'thread' in Scorer option 'runtime'; its fields are: batch_size, threads, device"):
        factpico.Scorer(runtime={"thread": 2})
    with pytest.raises(TypeError, match="Scorer option 'rouge' must be a dict with fields use_stemmer"):
        factpico.Scorer(rouge=True)
    with pytest.raises(ValueError, match="unknown variant `nli_xx`, expected one of `nli_sp`"):
        factpico.Scorer(alignscore={"mode": "nli_xx"})
    with pytest.raises(ValueError, match="device"):
        factpico.Scorer(runtime={"device": "tpu"})
    with pytest.raises(ValueError, match="invalid type"):
        factpico.Scorer(sentence_spans="yes")
    with pytest.raises(ValueError, match="unknown variant"):
        factpico.Scorer(readability={"family": "textstat099"})
    with pytest.raises(TypeError, match="not a str, number"):
        factpico.Scorer(alignscore={"model": object()})
    with pytest.raises(TypeError, match="metrics"):
        factpico.Scorer(metrics=[1, 2])
    with pytest.raises(ValueError, match="needs"):
        factpico.Scorer(metrics=["questeval"])


@pytest.mark.parametrize(
    "metric, models",
    [
        ("alignscore", {"alignscore": {"model": "no/such/model"}}),
        ("dae", {"dae": {"model": "no/such/model", "arcs": "tests/goldens/dae_fixtures.conllu"}}),
        ("questeval", {"qa": {"questeval_qg_model": "no/such/qg", "questeval_qa_model": str(model_dir("t5-tiny-qa")), "answers": "rules"}}),
    ],
)
def test_missing_model_directory_is_file_not_found(metric, models) -> None:
    with pytest.raises(FileNotFoundError, match="no/such"):
        factpico.Scorer(metrics=[metric], **models)


def test_alignscore_path_to_a_file_not_directory(tmp_path) -> None:
    f = tmp_path / "model.onnx"
    f.write_bytes(b"x")
    with pytest.raises((ValueError, FileNotFoundError, RuntimeError), match="model"):
        factpico.Scorer(metrics=["alignscore"], alignscore={"model": f})


def test_set_num_threads_validation() -> None:
    with pytest.raises(ValueError):
        factpico.set_num_threads(-1)
    with pytest.raises(ValueError):
        factpico.set_num_threads("2")  # type: ignore[arg-type]
