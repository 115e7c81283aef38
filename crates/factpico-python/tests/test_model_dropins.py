"""The drop-in classes of the model-based references (AlignScore, QuestEval, DAE) give the CLI's
values, keep the references' call shapes, and say clearly what they do not reproduce."""

from __future__ import annotations

import math
import pickle
from pathlib import Path

import pytest

from conftest import N_REPEATED, cli_model_args, model_dir
from factpico.alignscore import AlignScore
from factpico.dae import DAE
from factpico.questeval import QuestEval

TINY = str(model_dir("alignscore-tiny"))


def test_alignscore_equals_cli_on_real_pairs(align_rows, align_cli) -> None:
    pairs = align_rows[:300] + align_rows[N_REPEATED:]
    cli_rows = align_cli[:300] + align_cli[N_REPEATED:]
    scorer = AlignScore(model="roberta-base", batch_size=8, device="cpu", ckpt_path=TINY, evaluation_mode="nli_sp")
    with pytest.warns(UserWarning, match="returned as NaN"):  # the fixtures' empty texts
        ours = scorer.score(contexts=[p["source"] for p in pairs], claims=[p["summary"] for p in pairs])
    assert len(ours) == len(cli_rows) == len(pairs)
    for p, v, r in zip(pairs, ours, cli_rows):
        want = r["scores"]["alignscore"]
        assert r["id"] == p["id"] and ((math.isnan(v) and want is None) or v == want), p["id"]
    assert isinstance(ours, list) and all(isinstance(v, float) for v in ours)


def test_alignscore_modes_and_nulls() -> None:
    for mode in ("bin_sp", "reg_sp", "nli", "bin", "reg"):
        assert len(AlignScore(ckpt_path=TINY, evaluation_mode=mode).score(["The drug works."], ["It works."])) == 1
    with pytest.warns(UserWarning, match=r"1 of 2 pairs have no AlignScore \(1 × empty summary\)"):
        out = AlignScore(ckpt_path=TINY).score(contexts=["The drug works.", "The drug works."], claims=["It works.", ""])
    assert not math.isnan(out[0]) and math.isnan(out[1])
    # The reference's device reaches ONNX Runtime: the CPU-only onnxruntime wheel has no CUDA.
    with pytest.raises(RuntimeError, match="CUDA.*onnxruntime-gpu"):
        AlignScore("roberta-base", 32, "cuda:0", TINY)
    with pytest.raises(ValueError, match="device"):
        AlignScore(ckpt_path=TINY, device="tpu")
    assert AlignScore(ckpt_path=TINY, device=-1).scorer.options["runtime"]["device"] == "cpu"
    with pytest.raises(ValueError, match="evaluation_mode"):
        AlignScore(ckpt_path=TINY, evaluation_mode="nli-sp")
    with pytest.raises(FileNotFoundError, match="no/such/dir"):
        AlignScore(ckpt_path="no/such/dir")
    with pytest.raises(TypeError, match="contexts must be a list"):
        AlignScore(ckpt_path=TINY).score(contexts="one context", claims=["x"])  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="same length"):
        AlignScore(ckpt_path=TINY).score(contexts=["a", "b"], claims=["x"])
    assert AlignScore(ckpt_path=TINY).score(contexts=[], claims=[]) == []


def test_alignscore_pickles_with_its_options() -> None:
    s = AlignScore(ckpt_path=TINY, evaluation_mode="bin_sp", batch_size=4)
    t = pickle.loads(pickle.dumps(s))
    assert t.evaluation_mode == "bin_sp"
    args = (["The drug lowered pressure in adults."], ["Pressure fell."])
    assert t.score(*args) == s.score(*args)


QE = dict(qg_model=model_dir("t5-tiny-qg"), qa_model=model_dir("t5-tiny-qa"), answers="rules")


def test_questeval_without_bertscore_is_questeval_f1_with_a_warning(cli, fixture_pairs) -> None:
    pairs = fixture_pairs[:5]
    q = QuestEval(no_cuda=True, **QE)
    with pytest.warns(UserWarning, match="questeval_f1.*not comparable"):
        out = q.corpus_questeval(hypothesis=[p["summary"] for p in pairs], sources=[p["source"] for p in pairs])
    models = {"qa": {"questeval_qg_model": QE["qg_model"], "questeval_qa_model": QE["qa_model"], "answers": "rules"}}
    rows = cli.score(pairs, ["--metrics", "questeval", *cli_model_args(models)], name="qe")
    assert out["ex_level_scores"] == [r["scores"]["questeval_f1"] for r in rows]
    assert out["corpus_score"] == sum(out["ex_level_scores"]) / len(pairs)
    assert q.column == "questeval_f1"
    # Asked for explicitly: no warning.
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        QuestEval(list_scores=("answerability", "f1"), **QE).corpus_questeval(hypothesis=["It works."], sources=["The drug works."])


def test_questeval_with_bertscore_is_the_published_composition(cli, fixture_pairs) -> None:
    pairs = fixture_pairs[:5]
    q = QuestEval(bertscore_model=model_dir("bertscore-tiny"), **QE)
    assert q.column == "questeval" and q.list_scores == ("answerability", "bertscore", "f1")
    out = q.corpus_questeval(hypothesis=[p["summary"] for p in pairs], sources=[p["source"] for p in pairs])
    models = {"qa": {"questeval_qg_model": QE["qg_model"], "questeval_qa_model": QE["qa_model"], "bertscore_model": model_dir("bertscore-tiny"), "answers": "rules"}}
    rows = cli.score(pairs, ["--metrics", "questeval", *cli_model_args(models)], name="qe-bert")
    assert out["ex_level_scores"] == [r["scores"]["questeval"] for r in rows]


def test_questeval_refuses_what_it_does_not_reproduce() -> None:
    with pytest.raises(ValueError, match="do_weighter"):
        QuestEval(do_weighter=True, **QE)
    with pytest.raises(ValueError, match="bertscore_model"):
        QuestEval(list_scores=("answerability", "bertscore", "f1"), **QE)
    with pytest.raises(ValueError, match="English"):
        QuestEval(language="fr", **QE)
    q = QuestEval(list_scores=("answerability", "f1"), **QE)
    with pytest.raises(ValueError, match="sources is required"):
        q.corpus_questeval(hypothesis=["x"])
    with pytest.raises(ValueError, match="list_references"):
        q.corpus_questeval(hypothesis=["x"], sources=["y"], list_references=[["z"]])
    with pytest.raises(FileNotFoundError):
        QuestEval(qg_model="missing-qg", qa_model=QE["qa_model"])
    with pytest.raises(TypeError, match="qg_model is required"):
        QuestEval(qa_model=QE["qa_model"])


def test_dae_drop_in_equals_cli(cli, repo: Path) -> None:
    from test_scorer_cli import _dae_rows

    rows = _dae_rows(repo)
    arcs = repo / "tests/goldens/dae_fixtures.conllu"
    dae = DAE(model_dir("dae-tiny"), arcs=arcs, multi_sentence="single-parse")
    ids = [r["id"] for r in rows]
    scores = dae.score(sources=[r["source"] for r in rows], summaries=[r["summary"] for r in rows], ids=ids)
    models = {"dae": {"model": model_dir("dae-tiny"), "arcs": arcs, "multi_sentence": "single-parse"}}
    theirs = cli.score(rows, ["--metrics", "dae", *cli_model_args(models)], name="dae-dropin")
    assert scores == [r["scores"]["dae"] for r in theirs]
    detail = dae.score_detailed(sources=[r["source"] for r in rows], summaries=[r["summary"] for r in rows], ids=ids)
    assert [d["dae"] for d in detail] == scores
    assert [a["probability"] for a in detail[0]["arcs"]] == [a["probability"] for a in theirs[0]["details"]["dae"]["arcs"]]
    assert min(a["probability"] for a in detail[0]["arcs"]) == scores[0]
    assert pickle.loads(pickle.dumps(dae)).score([rows[0]["source"]], [rows[0]["summary"]], ids=[ids[0]]) == scores[:1]


def test_dae_argument_errors() -> None:
    with pytest.raises(ValueError, match="exactly one"):
        DAE()
    with pytest.raises(ValueError, match="exactly one"):
        DAE(model_dir("dae-tiny"), nli_model_dir=TINY)
    with pytest.raises(FileNotFoundError):
        DAE("no-such-dae", arcs=Path(__file__))
    with pytest.raises(RuntimeError, match="CUDA.*onnxruntime-gpu"):
        DAE(model_dir("dae-tiny"), device=0, arcs=Path(__file__).parents[3] / "tests/goldens/dae_fixtures.conllu")
