"""Picklable (re-created from options on the other side) and fork-safe (a scorer used before a
fork works in the forked children, models included); work runs with the GIL released."""

from __future__ import annotations

import multiprocessing as mp
import pickle
import threading
import time

import pytest

import factpico
from conftest import model_dir

ALIGN = {"alignscore": {"model": str(model_dir("alignscore-tiny"))}}
SRC = ["We randomly assigned 240 adults with asthma to an inhaler or placebo for 12 weeks.", "The drug lowered blood pressure."]
SUM = ["Researchers gave 240 adults with asthma an inhaler or a dummy inhaler.", "Blood pressure went down."]


def _score(scorer: factpico.Scorer):
    return scorer.score(SRC, SUM)


def test_pickle_round_trip_model_free_and_model_based() -> None:
    for scorer in (factpico.Scorer(metrics=["rougeL", "fre"], rouge={"use_stemmer": False}), factpico.Scorer(metrics=["alignscore", "fkgl"], **ALIGN)):
        again = pickle.loads(pickle.dumps(scorer))
        assert again.options == scorer.options and again.metrics == scorer.metrics
        assert _score(again) == _score(scorer)


def _child(scorer: factpico.Scorer):
    return _score(scorer)


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_multiprocessing_after_use_in_parent(method: str) -> None:
    scorer = factpico.Scorer(metrics=["alignscore", "rougeL"], **ALIGN)
    expected = _score(scorer)  # the parent's rayon pool and ONNX Runtime sessions now exist
    ctx = mp.get_context(method)
    with ctx.Pool(2) as pool:
        result = pool.map_async(_child, [scorer, scorer, scorer])
        got = result.get(timeout=180)  # a fork-unsafe scorer would hang here
    assert got == [expected] * 3


def test_fork_without_pickling_uses_the_inherited_object() -> None:
    scorer = factpico.Scorer(metrics=["alignscore"], **ALIGN)
    expected = _score(scorer)
    ctx = mp.get_context("fork")
    q = ctx.Queue()
    p = ctx.Process(target=lambda: q.put(_score(scorer)))
    p.start()
    got = q.get(timeout=180)
    p.join(timeout=60)
    assert p.exitcode == 0 and got == expected


def test_gil_is_released_during_scoring(real_pairs) -> None:
    scorer = factpico.Scorer(metrics=["rougeL", "fkgl"])
    src = [p["source"] for p in real_pairs] * 4
    summ = [p["summary"] for p in real_pairs] * 4
    factpico.set_num_threads(1)
    try:
        t0 = time.perf_counter()
        scorer.score(src, summ)
        alone = time.perf_counter() - t0
        done = threading.Event()
        ticks = 0

        def work() -> None:
            scorer.score(src, summ)
            done.set()

        th = threading.Thread(target=work)
        th.start()
        t1 = time.perf_counter()
        while not done.is_set():
            ticks += 1
        th.join()
        busy = time.perf_counter() - t1
    finally:
        factpico.set_num_threads(0)
    # With the GIL held for the call, this thread could not count during it (a few switch
    # intervals at most); released, it counts all along.
    rate = ticks / busy
    assert busy > 0.2 * alone and rate > 100_000, f"{ticks} ticks in {busy:.2f}s (call alone {alone:.2f}s)"
