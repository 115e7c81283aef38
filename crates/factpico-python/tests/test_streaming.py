"""Scale in Python (issue 23, class 12): ``Scorer.iter_score`` scores pairs read lazily from
iterables, one batch in memory, with the rows ``Scorer.score`` gives; a long ``Scorer.score``
call stops on Ctrl-C (``KeyboardInterrupt`` after the block in progress) instead of ignoring
it until it returns."""

from __future__ import annotations

import signal
import subprocess
import sys
import time

import pytest

import factpico


def _gen(values):
    # A generator: no len(), read once.
    yield from values


def test_iter_score_batches_equal_score(real_pairs) -> None:
    scorer = factpico.Scorer(["rougeL", "fkgl"])
    src = [p["source"] for p in real_pairs]
    summ = [p["summary"] for p in real_pairs]
    ids = [p["id"] for p in real_pairs]
    whole = scorer.score(src, summ, ids=ids)
    batches = list(scorer.iter_score(_gen(src), _gen(summ), ids=_gen(ids), batch_size=64))
    assert [len(b) for b in batches] == [64, 64, 64, 64, 44]
    flat = [r for b in batches for r in b]
    assert flat == whole
    assert all(r["provenance"] is flat[0]["provenance"] for r in flat), "one shared provenance"
    # Default ids and row numbers run over the whole stream.
    flat = [r for b in scorer.iter_score(src[:10], summ[:10], batch_size=3) for r in b]
    assert [r["id"] for r in flat] == [f"row-{i}" for i in range(1, 11)]
    assert [r["row"] for r in flat] == list(range(1, 11))
    assert [r["scores"] for r in flat] == [r["scores"] for r in scorer.score(src[:10], summ[:10])]


def test_iter_score_bad_input() -> None:
    scorer = factpico.Scorer(["rougeL"])
    with pytest.raises(TypeError, match="single str"):
        scorer.iter_score("abc", ["x"])
    with pytest.raises(TypeError, match="arbitrary"):
        scorer.iter_score({"a", "b"}, ["x", "y"])
    with pytest.raises(ValueError, match="batch_size must be >= 1"):
        scorer.iter_score(["a"], ["b"], batch_size=0)
    with pytest.raises(TypeError, match="unexpected per-row input 'foo'"):
        scorer.iter_score(["a"], ["b"], foo=[1])
    # Item errors name the index in the whole stream; batches before were yielded.
    it = scorer.iter_score(_gen(["a", "b", "c", None]), _gen(["x", "y", "z", "w"]), batch_size=2)
    assert len(next(it)) == 2
    with pytest.raises(TypeError, match=r"sources\[3\] is None"):
        next(it)
    it = scorer.iter_score(_gen(["a", "b", "c"]), _gen(["x", "y"]), batch_size=2)
    assert len(next(it)) == 2
    with pytest.raises(ValueError, match="summaries has 2 items but sources has more"):
        next(it)


def test_ctrl_c_interrupts_a_long_score_call(tmp_path) -> None:
    code = (
        "import factpico, sys\n"
        "s = factpico.Scorer(['rougeL', 'fkgl'])\n"
        "n = 3_000_000\n"
        "src = ['Aspirin reduced pain in 40 adults with migraine compared with placebo.'] * n\n"
        "summ = ['Aspirin helped adults with migraine pain.'] * n\n"
        "print('ready', flush=True)\n"
        "try:\n"
        "    s.score(src, summ)\n"
        "    print('finished', flush=True)\n"
        "except KeyboardInterrupt:\n"
        "    print('interrupted', flush=True)\n"
        "    sys.exit(7)\n"
    )
    p = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert p.stdout.readline().strip() == "ready"
        time.sleep(3)
        assert p.poll() is None, "the call ended before Ctrl-C: make it longer"
        sent = time.monotonic()
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=60)
        waited = time.monotonic() - sent
    finally:
        if p.poll() is None:
            p.kill()
    assert p.returncode == 7 and "interrupted" in out, (p.returncode, out, err[-2000:])
    # Generous bound (a block of 256 pairs of rougeL takes milliseconds; the call as a whole
    # takes minutes): the point is that the call does not run to its end.
    assert waited < 30, waited
