"""The LLM evaluators' runtime options (``llm.runtime``: concurrency, timeouts, cache path) set
from Python: applied, refused by field name when wrong, never recorded. No LLM server is needed:
the cache is opened (created) before the server is asked for its model, and option errors come
before any connection."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

import factpico


def _closed_url() -> str:
    # a port nothing listens on: the server is "unreachable" at once
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


def test_cache_path_from_python_takes_effect(tmp_path: Path) -> None:
    cache = tmp_path / "sub" / "my-llm-cache.sqlite"
    with pytest.raises(RuntimeError, match="cannot reach the LLM server"):
        factpico.Scorer(["llm"], llm={"base_url": _closed_url(), "model": "m", "runtime": {"cache": cache, "client": {"retries": 0}}})
    assert cache.is_file(), "the cache was not opened at llm.runtime.cache"


def test_no_cache_from_python_takes_effect(tmp_path: Path) -> None:
    cache = tmp_path / "unused.sqlite"
    with pytest.raises(RuntimeError, match="cannot reach the LLM server"):
        factpico.Scorer(["llm"], llm={"base_url": _closed_url(), "model": "m", "runtime": {"cache": str(cache), "no_cache": True}})
    assert not cache.exists()


@pytest.mark.parametrize(
    "runtime, match",
    [
        ({"client": {"concurrency": 0}}, r"`llm\.runtime\.client\.concurrency` must be at least 1"),
        ({"client": {"timeout_s": -1}}, r"`llm\.runtime\.client\.timeout_s` must be a positive number of seconds"),
        ({"client": {"concurency": 4}}, r"unknown field `concurency`, expected one of .*`concurrency`"),
        ({"cahce": "x.sqlite"}, r"unknown field `cahce`"),
    ],
)
def test_bad_runtime_values_are_refused_by_field(runtime, match) -> None:
    with pytest.raises(ValueError, match=match) as e:
        factpico.Scorer(["llm"], llm={"base_url": _closed_url(), "model": "m", "runtime": runtime})
    assert "--llm" not in str(e.value), "a Python caller is told a CLI flag"


def test_missing_base_url_names_the_field() -> None:
    with pytest.raises(ValueError, match=r"`llm\.base_url` is required") as e:
        factpico.Scorer(["llm"], llm={"model": "m"})
    assert "--llm" not in str(e.value)


def test_runtime_is_not_recorded(tmp_path: Path) -> None:
    # a model-free scorer accepts (and ignores) the llm section; nothing of the runtime is recorded
    plain = factpico.Scorer(["rougeL"])
    tuned = factpico.Scorer(["rougeL"], llm={"runtime": {"client": {"concurrency": 16, "timeout_s": 5}, "cache": str(tmp_path / "c.sqlite")}})
    assert "runtime" not in tuned.options["llm"]
    assert tuned.options == plain.options
    assert tuned.provenance == plain.provenance
    with pytest.raises(ValueError, match="unknown field 'runtme' in Scorer option 'llm'; its fields are: .*runtime"):
        factpico.Scorer(["rougeL"], llm={"runtme": {}})


@pytest.mark.parametrize(
    "llm, match",
    [
        ({"samples": 3}, r"`llm\.samples` 3 needs a temperature above 0"),
        ({"samples": 0}, r"`llm\.samples` must be from 1 to 64"),
        ({"prompt": "rating-only", "rationale_first": True}, r"`llm\.rationale_first` cannot be combined with `llm\.prompt` rating-only"),
    ],
)
def test_second_step_options_are_checked_by_field(llm, match) -> None:
    # issue 24 items 1-3 from Python: the same checks as the CLI's, named by field
    with pytest.raises(ValueError, match=match) as e:
        factpico.Scorer(["llm"], llm={"base_url": _closed_url(), "model": "m", **llm})
    assert "--llm" not in str(e.value)


def test_second_step_options_are_recorded_only_when_set() -> None:
    plain = factpico.Scorer(["rougeL"])
    assert not {"logprobs", "prompt", "rationale_first", "samples"} & set(plain.options["llm"]), plain.options["llm"]
    set_ = factpico.Scorer(["rougeL"], llm={"logprobs": True, "prompt": "rating-only", "samples": 2, "temperature": 0.7})
    o = set_.options["llm"]
    assert (o["logprobs"], o["prompt"], o["samples"]) == (True, "rating-only", 2), o
    with pytest.raises(ValueError, match="chatty"):
        factpico.Scorer(["rougeL"], llm={"prompt": "chatty"})
