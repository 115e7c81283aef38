"""``factpico.rouge_score.rouge_scorer`` against rouge-score 0.1.2 (installed in the test venv):
identical Score tuples for every variant, stemmer on and off, on the 300 real pairs and the
fixtures; and identical to the CLI's rougeL columns."""

from __future__ import annotations

import pickle

import pytest

from factpico.rouge_score import rouge_scorer, scoring

ref_scorer = pytest.importorskip("rouge_score.rouge_scorer")
TYPES = ["rouge1", "rouge2", "rouge3", "rougeL", "rougeLsum"]


def _pairs(fixture_pairs, real_pairs_or_none):
    pairs = list(fixture_pairs) + list(real_pairs_or_none or [])
    # Multi-line texts exercise rougeLsum's newline sentences.
    pairs.append({"id": "multi", "source": "Aspirin lowers the risk.\nIt causes bleeding.\n\nRarely.", "summary": "It lowers the risk\nof bleeding."})
    return pairs


@pytest.mark.parametrize("stem", [True, False])
def test_identical_to_rouge_score(fixture_pairs, real_pairs, stem: bool, report) -> None:
    ours = rouge_scorer.RougeScorer(TYPES, use_stemmer=stem)
    ref = ref_scorer.RougeScorer(TYPES, use_stemmer=stem)
    n = 0
    for p in _pairs(fixture_pairs, real_pairs):
        a, b = ours.score(p["source"], p["summary"]), ref.score(p["source"], p["summary"])
        assert list(a) == list(b)
        for t in TYPES:
            assert tuple(a[t]) == tuple(b[t]), f"{p['id']} {t}: {a[t]} vs rouge-score {b[t]}"
            assert a[t]._fields == b[t]._fields == ("precision", "recall", "fmeasure")
            n += 1
    report.append(f"rouge drop-in vs rouge-score 0.1.2 (stemmer {stem}): {n} Score tuples identical")


def test_score_multi_and_batch_match_rouge_score(fixture_pairs) -> None:
    ours = rouge_scorer.RougeScorer(TYPES, use_stemmer=True)
    ref = ref_scorer.RougeScorer(TYPES, use_stemmer=True)
    targets = [p["source"] for p in fixture_pairs[:5]]
    for p in fixture_pairs[:8]:
        a, b = ours.score_multi(targets, p["summary"]), ref.score_multi(targets, p["summary"])
        assert {k: tuple(v) for k, v in a.items()} == {k: tuple(v) for k, v in b.items()}
    batch = ours.score_batch([p["source"] for p in fixture_pairs], [p["summary"] for p in fixture_pairs])
    assert batch == [ours.score(p["source"], p["summary"]) for p in fixture_pairs]


def test_split_summaries_uses_nltk_identical_sentences(fixture_pairs, real_pairs) -> None:
    # rouge-score's split_summaries=True is rougeLsum over nltk.sent_tokenize's sentences, i.e.
    # its split_summaries=False over those sentences joined by newlines. factpico's Punkt is
    # NLTK's (tests/punkt_golden.rs), so the two must agree exactly.
    import factpico

    punkt = factpico.Scorer(metrics=["rougeL"])
    ours = rouge_scorer.RougeScorer(["rougeLsum"], use_stemmer=True, split_summaries=True)
    ref = ref_scorer.RougeScorer(["rougeLsum"], use_stemmer=True)
    pairs = (list(real_pairs) + list(fixture_pairs))[:120]
    rows = punkt.score([p["source"] for p in pairs], [p["summary"] for p in pairs])
    for p, r in zip(pairs, rows):
        if "\n" in p["source"] + p["summary"] or not r.get("sentences"):
            continue
        src_b, sum_b = p["source"].encode(), p["summary"].encode()
        src = "\n".join(src_b[a:b].decode() for a, b in r["sentences"]["source"])
        summ = "\n".join(sum_b[a:b].decode() for a, b in r["sentences"]["summary"])
        assert tuple(ours.score(p["source"], p["summary"])["rougeLsum"]) == tuple(ref.score(src, summ)["rougeLsum"]), p["id"]


def test_identical_to_the_cli_columns(cli, fixture_pairs) -> None:
    rows = cli.score(fixture_pairs, ["--metrics", "rougeL"], name="rouge")
    ours = rouge_scorer.RougeScorer(["rougeL", "rougeLsum"], use_stemmer=True)
    for p, r in zip(fixture_pairs, rows):
        if r.get("nulls"):
            continue  # factpico's documented nulls for empty text; the drop-in returns rouge-score's zeros
        s = ours.score(p["source"], p["summary"])
        assert (s["rougeL"].fmeasure, s["rougeL"].precision, s["rougeL"].recall) == (
            r["scores"]["rougeL"], r["scores"]["rougeL_precision"], r["scores"]["rougeL_recall"])
        assert s["rougeLsum"].fmeasure == r["scores"]["rougeLsum"]


def test_api_details() -> None:
    s = rouge_scorer.RougeScorer(["rougeL"])
    assert isinstance(s.score("a", "a")["rougeL"], scoring.Score)
    assert s.score("", "abc")["rougeL"] == scoring.Score(0.0, 0.0, 0.0)  # rouge-score's zeros
    again = pickle.loads(pickle.dumps(rouge_scorer.RougeScorer(["rouge2", "rougeL"], use_stemmer=True)))
    assert again.rouge_types == ["rouge2", "rougeL"] and again.score("the cats sat", "the cats sat")["rouge2"].fmeasure == 1.0
    with pytest.raises(ValueError, match="rouge0"):
        rouge_scorer.RougeScorer(["rouge0"])
    with pytest.raises(ValueError, match="tokenizer"):
        rouge_scorer.RougeScorer(["rougeL"], tokenizer=object())
    for bad in (None, 3, b"bytes"):
        with pytest.raises(TypeError):
            s.score(bad, "x")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        s.score_batch("abc", "abc")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="same length"):
        s.score_batch(["a", "b"], ["a"])
    with pytest.raises(ValueError, match="at least one target"):
        s.score_multi([], "a")
    assert s.score_batch([], []) == []


def test_bootstrap_aggregator_matches_rouge_score_when_seeded(fixture_pairs) -> None:
    import numpy as np
    from rouge_score import scoring as ref_scoring

    ours = rouge_scorer.RougeScorer(["rouge1", "rougeL"], use_stemmer=True)
    ref = ref_scorer.RougeScorer(["rouge1", "rougeL"], use_stemmer=True)
    agg, ref_agg = scoring.BootstrapAggregator(n_samples=200), ref_scoring.BootstrapAggregator(n_samples=200)
    for p in fixture_pairs:
        agg.add_scores(ours.score(p["source"], p["summary"]))
        ref_agg.add_scores(ref.score(p["source"], p["summary"]))
    np.random.seed(7)
    a = agg.aggregate()
    np.random.seed(7)
    b = ref_agg.aggregate()
    assert {k: tuple(tuple(s) for s in v) for k, v in a.items()} == {k: tuple(tuple(s) for s in v) for k, v in b.items()}
    assert a["rougeL"]._fields == ("low", "mid", "high")
    with pytest.raises(ValueError):
        scoring.BootstrapAggregator(confidence_interval=1.5)


def test_lone_surrogates_score_as_rouge_score_does() -> None:
    text = "Aspirin\udc80works in adults \ud800 with pain."
    ours = rouge_scorer.RougeScorer(["rouge1", "rougeLsum"]).score(text, "aspirin works")
    ref = ref_scorer.RougeScorer(["rouge1", "rougeLsum"]).score(text, "aspirin works")
    assert {k: tuple(v) for k, v in ours.items()} == {k: tuple(v) for k, v in ref.items()}
