"""The SummaC (ZS, Conv) and MiniCheck drop-ins: the references' constructor arguments and
``score`` signatures, scores equal to the native ``Scorer``'s on the fixture models (options as
``fixtures/units/*.json`` use them), model names through the catalogue, clear errors."""

from __future__ import annotations

import math
import pickle

import pytest

import factpico
from conftest import model_dir
from factpico.minicheck import MiniCheck
from factpico.summac import SummaCConv, SummaCZS

NLI = str(model_dir("summac-albert-tiny"))
CONV = str(model_dir("summac-conv-tiny") / "perc-e.json")
MC = str(model_dir("minicheck-roberta-large-tiny"))


def _pairs(fixture_pairs, n=8):
    return [p["source"] for p in fixture_pairs[:n]], [p["summary"] for p in fixture_pairs[:n]]


def _native(metric: str, **options):
    return factpico.Scorer([metric], **options)


def test_summac_zs_equals_the_native_scorer(fixture_pairs) -> None:
    src, summ = _pairs(fixture_pairs)
    for granularity, op1, op2 in (("sentence", "max", "mean"), ("paragraph", "mean", "min"), ("document-sentence", "min", "max")):
        doc, _, s = granularity.partition("-")
        section = {"model": NLI, "granularity": s or doc, "zs_op1": op1, "zs_op2": op2}
        if s:
            section["document_granularity"] = doc
        want = [r["scores"]["summac_zs"] for r in _native("summac_zs", summac=section).score(src, summ)]
        got = SummaCZS(model_name=NLI, granularity=granularity, op1=op1, op2=op2, device="cpu").score(src, summ)
        assert set(got) == {"scores"}
        assert got["scores"] == want, granularity
        assert all(-1.0 <= v <= 1.0 for v in got["scores"])
    ent = SummaCZS(model_name=NLI, granularity="sentence", use_con=False).score(src, summ)["scores"]
    want = [r["scores"]["summac_zs"] for r in _native("summac_zs", summac={"model": NLI, "zs_labels": "entailment"}).score(src, summ)]
    assert ent == want


def test_summac_conv_equals_the_native_scorer(fixture_pairs) -> None:
    src, summ = _pairs(fixture_pairs)
    want = [r["scores"]["summac_conv"] for r in _native("summac_conv", summac={"model": NLI, "conv_weights": CONV}).score(src, summ)]
    conv = SummaCConv(models=[NLI], bins="percentile", granularity="sentence", nli_labels="e", device="cpu", start_file=CONV, agg="mean")
    got = conv.score(src, summ)
    assert got == {"scores": want}
    assert all(0.0 < v < 1.0 for v in want)
    again = pickle.loads(pickle.dumps(conv)).score(src[:2], summ[:2])
    assert again["scores"] == want[:2]


def test_minicheck_equals_the_native_scorer(fixture_pairs) -> None:
    src, summ = _pairs(fixture_pairs)
    mc = MiniCheck(model_name=MC, device="cpu", cache_dir=None)
    labels, probs, chunks, per_chunk = mc.score(docs=src, claims=summ)
    rows = _native("minicheck", minicheck={"model": MC}).score(src, summ)
    assert probs == [r["scores"]["minicheck"] for r in rows]
    assert labels == [int(r["scores"]["minicheck_label"]) for r in rows]
    assert all(isinstance(l, int) for l in labels)
    for doc, cs, ps, p in zip(src, chunks, per_chunk, probs):
        assert len(cs) == len(ps) >= 1
        assert max(ps) == pytest.approx(p, abs=1e-12)
        assert all(c and c in doc for c in cs)
    # the reference's per-call chunk size: a smaller chunk gives more chunks, as the native option
    small = mc.score(docs=src, claims=summ, chunk_size=20)
    rows = _native("minicheck", minicheck={"model": MC, "chunk_size": 20}).score(src, summ)
    assert small[1] == [r["scores"]["minicheck"] for r in rows]
    assert sum(map(len, small[2])) > sum(map(len, chunks))
    assert mc.score(docs=src, claims=summ, chunk_size=0)[1] == probs  # not a positive int: the default
    with pytest.warns(UserWarning, match="no text"):
        out = mc.score(docs=["", src[0]], claims=["A claim.", summ[0]])
    assert math.isnan(out[1][0]) and out[0][0] == 0 and out[2][0] == [] and out[1][1] == probs[0]
    assert mc.score(docs=[], claims=[]) == ([], [], [], [])


def test_names_resolve_through_the_catalogue(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("FACTPICO_HOME", str(tmp_path))
    for make, name in (
        (lambda: SummaCZS(model_name="vitc", granularity="sentence"), "summac-vitc"),
        (lambda: SummaCZS(), "summac-mnli"),  # the reference's defaults: mnli, paragraph
        (lambda: SummaCConv(models=["vitc"], start_file="default"), "summac-vitc"),
        (lambda: MiniCheck(model_name="roberta-large"), "minicheck-roberta-large"),
        (lambda: MiniCheck(), "minicheck-flan-t5-large"),
    ):
        with pytest.raises(Exception, match=f"factpico models pull {name}"):
            make()
    # a catalogue name that is installed (a link to the fixture) loads it
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "summac-vitc").symlink_to(model_dir("summac-albert-tiny"))
    by_name = SummaCZS(model_name="vitc", granularity="sentence").score(["The drug lowered pressure."], ["Pressure fell."])
    by_dir = SummaCZS(model_name=NLI, granularity="sentence").score(["The drug lowered pressure."], ["Pressure fell."])
    assert by_name == by_dir


def test_bad_arguments_are_clear_errors() -> None:
    with pytest.raises(ValueError, match="granularity"):
        SummaCZS(model_name=NLI, granularity="words")
    with pytest.raises(ValueError, match="op1"):
        SummaCZS(model_name=NLI, op1="median")
    with pytest.raises(ValueError, match="nothing to score"):
        SummaCZS(model_name=NLI, use_ent=False, use_con=False)
    with pytest.raises(ValueError, match="neither a model directory nor a SummaC model name"):
        SummaCZS(model_name="gpt-4")
    with pytest.raises(TypeError, match="unexpected keyword argument"):
        SummaCZS(model_name=NLI, max_doc_sent=10)
    with pytest.raises(ValueError, match="device"):
        SummaCZS(model_name=NLI, device="tpu")
    with pytest.raises(ValueError, match="one NLI model"):
        SummaCConv(models=["mnli", "anli", "vitc"], start_file=CONV)
    with pytest.raises(TypeError, match="list of model names"):
        SummaCConv(models="vitc", start_file=CONV)
    with pytest.raises(ValueError, match="untrained random weights"):
        SummaCConv(models=[NLI], start_file=None)
    with pytest.raises(ValueError, match="trained with bins='percentile'"):
        SummaCConv(models=[NLI], bins="even50", start_file=CONV)
    with pytest.raises(ValueError, match="released weights"):
        SummaCConv(models=[NLI], nli_labels="ec", start_file="default")
    with pytest.raises(ValueError, match="not a SummaC-Conv weight file"):
        SummaCConv(models=[NLI], start_file=str(model_dir("summac-albert-tiny") / "model.onnx"))
    with pytest.raises(ValueError, match="Bespoke-MiniCheck-7B"):
        MiniCheck(model_name="Bespoke-MiniCheck-7B")
    with pytest.raises(ValueError, match="model_name must be one of"):
        MiniCheck(model_name="gpt-4")
    with pytest.raises(ValueError, match="vLLM"):
        MiniCheck(model_name=MC, tensor_parallel_size=2)
    with pytest.raises(ValueError, match="max_model_len"):
        MiniCheck(model_name=MC, max_model_len=0)
    with pytest.raises(TypeError, match="docs must be a list"):
        MiniCheck(model_name=MC).score(docs="a document", claims=["x"])  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="same length"):
        MiniCheck(model_name=MC).score(docs=["a", "b"], claims=["x"])
    with pytest.raises(TypeError, match="generateds must be a list"):
        SummaCZS(model_name=NLI).score(["a"], "x")  # type: ignore[arg-type]
