#!/usr/bin/env python3
"""QAFactEval replicas, written and read by QAFactEval's own stack (the qaeval venv: qaeval
0.1.0, AllenNLP 1.1.0, transformers 3.0.2, torch 1.6.0, Python 3.8).

``--part qg``: the question generator, ``models/generation/model.tar.gz``.
  build: a tiny BART saved like ``facebook/bart-large`` (``config.json`` with bart-large's
  3.0.2 options, ``vocab.json``/``merges.txt`` of a byte-level BPE trained on self-written text
  with BART's special ids, weights) under ``FROM/harness/facebook/bart-large`` (the hub name
  resolves to it: the harness runs in ``FROM/harness``); QAEval's
  ``_QuestionGenerationModel`` built from the training config by AllenNLP's
  ``Model.from_params`` (``from_pretrained`` + ``resize_token_embeddings(+2)``), re-drawn at
  random (so the archive's weights differ from the hub folder's), the vocabulary from the
  dataset reader's instances (``Vocabulary.from_instances``), then a serialization directory
  as ``allennlp train`` leaves it (``config.json``, ``vocabulary/``, ``best.th``) packed by
  AllenNLP's own ``archive_model``. ``FROM/qafacteval-qg/`` = ``model.tar.gz`` + ``bart-large/``
  (``config.json``, ``vocab.json``, ``merges.txt``; no weights, as for the user).
  reference: ``qaeval.QuestionGenerationModel(model.tar.gz)`` (``Predictor.from_path``) on
  marked sentences built from the fixture summaries: the generated questions; the source
  token ids from the predictor's own dataset reader; and the questions of the same run with
  one line of ``take_step`` changed at run time (``padding_size = step`` instead of
  ``step + 1``: standard decoder positions) to separate the documented position shift from
  everything else.
``--part qa``: the answering model ``models/answering``: ``ElectraForQuestionAnswering`` +
  ``ElectraTokenizer`` ``save_pretrained`` (3.0.2). reference: ``qaeval``
  ``QuestionAnsweringModel.answer_all`` on fixture contexts.
``--part lerc``: ``quip-512-mocha``: ``RobertaForSequenceClassification`` (1 output) +
  ``RobertaTokenizer`` ``save_pretrained`` (3.0.2). reference: ``LERCQuipScorer`` of
  salesforce/QAFactEval ``lerc_quip.py`` (unmodified, from ``$QAFACTEVAL_REPO``) under
  transformers 3.0.2, ``score_single_ref`` per question.
"""
import argparse
import json
import os
import re
import shutil
import sys
from pathlib import Path

import _util

BART_SPECIALS = ["<s>", "<pad>", "</s>", "<unk>"]
TRAINING_CONFIG = {  # qaeval experiments/generation/model.jsonnet, evaluated
    "dataset_reader": {"type": "question_generation", "model_name": "facebook/bart-large", "lazy": False},
    "train_data_path": "experiments/generation/data/train.jsonl",
    "validation_data_path": "experiments/generation/data/valid.jsonl",
    "model": {"type": "question_generation", "model_name": "facebook/bart-large"},
    "data_loader": {"batch_sampler": {"type": "bucket", "batch_size": 16}},
    "trainer": {"checkpointer": {"num_serialized_models_to_keep": 1}, "num_epochs": 1, "cuda_device": 0,
                "grad_norm": 1,
                "optimizer": {"type": "huggingface_adamw", "lr": 3e-5, "betas": [0.9, 0.999], "eps": 1e-8,
                              "correct_bias": True}},
    "random_seed": 4, "numpy_seed": 5, "pytorch_seed": 6,
}


def randomize(module, std, seed):
    import torch
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, p in module.named_parameters():
            if p.dim() >= 2:
                p.copy_(torch.randn(p.shape, generator=g) * std)
            elif "bias" in name:
                p.copy_(torch.randn(p.shape, generator=g) * 0.02)


def train_bpe(out_dir):
    """vocab.json + merges.txt: byte-level BPE with BART's ids (<s> 0, <pad> 1, </s> 2, <unk> 3,
    ..., <mask> last)."""
    from tokenizers import ByteLevelBPETokenizer
    out_dir.mkdir(parents=True, exist_ok=True)
    corpus = out_dir / "corpus.txt"
    corpus.write_text("\n".join(_util.corpus_lines() * 3) + "\n", encoding="utf-8")
    bpe = ByteLevelBPETokenizer()
    bpe.train([str(corpus)], vocab_size=800, min_frequency=2, special_tokens=BART_SPECIALS)
    bpe.save_model(str(out_dir))
    corpus.unlink()
    vocab = json.loads((out_dir / "vocab.json").read_text("utf-8"))
    vocab["<mask>"] = len(vocab)
    (out_dir / "vocab.json").write_text(json.dumps(vocab, ensure_ascii=False), encoding="utf-8")
    return len(vocab)


def populate_hub_cache(hub):
    """transformers 3.0.2 resolves the tokenizer of a known hub name (``facebook/bart-large`` is
    one) from its S3 URLs, not from a local folder of that name: put the replica's files where
    its cache looks for them offline (``file_utils.get_from_cache``: no ETag -> the file named
    ``url_to_filename(url)`` in ``$TRANSFORMERS_CACHE``), as a download would have."""
    from transformers import BartTokenizer
    from transformers.file_utils import TRANSFORMERS_CACHE, url_to_filename
    cache = Path(TRANSFORMERS_CACHE)
    cache.mkdir(parents=True, exist_ok=True)
    for key, fname in (("vocab_file", "vocab.json"), ("merges_file", "merges.txt")):
        url = BartTokenizer.pretrained_vocab_files_map[key]["facebook/bart-large"]
        shutil.copy(hub / fname, cache / url_to_filename(url))


def build_qg(out):
    import torch
    import transformers
    from transformers import BartConfig, BartForConditionalGeneration, BartTokenizer
    from allennlp.common import Params
    from allennlp.data import Vocabulary
    from allennlp.models import Model
    from allennlp.models.archival import archive_model
    import qaeval.generation.model  # noqa: F401  (registers question_generation)
    from qaeval.generation.dataset_reader import QuestionGenerationDatasetReader

    harness = out / "harness"
    hub = harness / "facebook" / "bart-large"
    n = train_bpe(hub)
    # facebook/bart-large's options (3.0.2 names), tiny sizes; generation keys as on the hub.
    cfg = BartConfig(vocab_size=n, d_model=64, encoder_layers=2, decoder_layers=2, encoder_attention_heads=4,
                     decoder_attention_heads=4, encoder_ffn_dim=128, decoder_ffn_dim=128, max_position_embeddings=1024,
                     activation_function="gelu", normalize_before=False, add_final_layer_norm=False,
                     scale_embedding=False, normalize_embedding=True, static_position_embeddings=False,
                     add_bias_logits=False, pad_token_id=1, bos_token_id=0, eos_token_id=2,
                     decoder_start_token_id=2, num_beams=4, no_repeat_ngram_size=3, early_stopping=True,
                     architectures=["BartModel"])
    torch.manual_seed(51001)
    BartForConditionalGeneration(cfg).save_pretrained(str(hub))
    assert len(BartTokenizer(str(hub / "vocab.json"), str(hub / "merges.txt"))) == n
    populate_hub_cache(hub)

    os.chdir(str(harness))  # "facebook/bart-large" = the local folder, as the hub name is for real
    vocab0 = Vocabulary()
    model = Model.from_params(vocab=vocab0, params=Params(json.loads(json.dumps(TRAINING_CONFIG["model"]))))
    randomize(model, 0.2, 51002)
    with torch.no_grad():  # random logits have std ~1.6: make </s> competitive so beams end at varied lengths
        model.bart.final_logits_bias[0, cfg.eos_token_id] = 4.0
    reader = QuestionGenerationDatasetReader(model_name="facebook/bart-large")
    instances = [reader.text_to_instance(s, 0, min(5, len(s)), "What was measured?") for s in _util.corpus_lines()[:20]]
    vocab = Vocabulary.from_instances(instances)
    ser = harness / "serialization"
    ser.mkdir()
    (ser / "config.json").write_text(json.dumps(TRAINING_CONFIG, indent=4) + "\n")
    vocab.save_to_files(str(ser / "vocabulary"))
    torch.save(model.state_dict(), str(ser / "best.th"))
    archive_model(str(ser), weights="best.th")
    user = out / "qafacteval-qg"
    (user / "bart-large").mkdir(parents=True)
    shutil.copy(ser / "model.tar.gz", user / "model.tar.gz")
    for f in ("config.json", "vocab.json", "merges.txt"):
        shutil.copy(hub / f, user / "bart-large" / f)
    import tarfile
    with tarfile.open(str(user / "model.tar.gz")) as t:
        members = t.getnames()
    print(f"wrote {user}: model.tar.gz {members} (weights.th keys e.g. {list(model.state_dict())[:2]}), "
          f"bart-large/; allennlp 1.1.0 / transformers {transformers.__version__} / torch {torch.__version__}")


def qg_inputs():
    """(text, start, end) char offsets: noun-ish spans of the fixture summaries' sentences (the
    sentence is the context, as QAFactEval does), plus whitespace and position edge cases."""
    out = []
    for _pid, _src, summ in _util.fixture_pairs():
        for sent in re.split(r"(?<=[.!?])\s+", summ.strip()):
            if len(sent) < 12:
                continue
            spans = [m.span() for m in re.finditer(r"\d[\d.,%]*|[A-Z][a-z]+|\w{7,}", sent)]
            for s, e in spans[:2]:
                if len(out) < 24:
                    out.append((sent, s, e))
    s = "Blood  pressure fell in\tthe drug group ."
    out += [(s, 0, 5), (s, 7, 15), (s, 24, 27), (s, len(s) - 1, len(s)), ("Metformin.", 0, 9),
            ("The dose was 5 µg/kg (≥ 12 months).", 13, 20), ("Adults with asthma\nimproved.", 12, 18)]
    return out


def reference_qg(frm, out_json):
    import torch
    import inspect
    frm = Path(frm).resolve()
    torch.set_num_threads(2)
    os.chdir(str(frm / "harness"))
    from qaeval import QuestionGenerationModel
    from qaeval.generation import model as qgm
    archive = frm / "qafacteval-qg" / "model.tar.gz"
    qg = QuestionGenerationModel(str(archive), cuda_device=-1, batch_size=8)
    inputs = qg_inputs()
    questions = qg.generate_all(inputs)
    reader = qg.predictor._dataset_reader
    rows = []
    for text, s, e in inputs:
        inst = reader.text_to_instance(text, s, e)
        bo = _util.byte_offsets(text)
        rows.append({"text": text, "start": s, "end": e, "start_byte": bo[s], "end_byte": bo[e],
                     "marked": inst["metadata"]["marked_context"],
                     "source_ids": [t.text_id for t in inst["metadata"]["source_tokens"]],
                     "source_tokens": [t.text for t in inst["metadata"]["source_tokens"]]})
    # The same run with standard decoder positions: one line of take_step changed at run time.
    src = inspect.getsource(qgm._QuestionGenerationModel.take_step)
    assert src.count("padding_size = step + 1") == 1, "take_step changed; update the harness"
    src = "\n".join(l[4:] for l in src.replace("padding_size = step + 1", "padding_size = step").splitlines())
    ns = dict(vars(qgm))
    exec(compile(src, "take_step (standard positions)", "exec"), ns)
    qgm._QuestionGenerationModel.take_step = ns["take_step"]
    questions_std = qg.generate_all(inputs)
    _util.write_json(out_json, {
        "reference": "qaeval 0.1.0 QuestionGenerationModel (AllenNLP Predictor.from_path of model.tar.gz)",
        "versions": _util.versions("qaeval", "allennlp", "transformers", "torch", "tokenizers"),
        "inputs": rows, "questions": questions, "questions_standard_positions": questions_std,
    })
    same = sum(a == b for a, b in zip(questions, questions_std))
    print(f"reference: {len(inputs)} questions ({same} unchanged by the position shift); e.g. {questions[:3]}")


def electra_vocab_dir(harness):
    d = harness / "electra-large-discriminator"
    d.mkdir(parents=True, exist_ok=True)
    shutil.copy(_util.ROOT / "fixtures" / "models" / "dae-tiny" / "checkpoint" / "vocab.txt", d / "vocab.txt")
    (d / "tokenizer_config.json").write_text('{"do_lower_case": true}\n')
    return d


def build_qa(out):
    import torch
    from transformers import ElectraConfig, ElectraForQuestionAnswering, ElectraTokenizer
    vd = electra_vocab_dir(out / "harness")
    tok = ElectraTokenizer.from_pretrained(str(vd))
    cfg = ElectraConfig(vocab_size=len(tok), embedding_size=32, hidden_size=32, num_hidden_layers=2,
                        num_attention_heads=2, intermediate_size=64, max_position_embeddings=512,
                        initializer_range=0.5)
    torch.manual_seed(52001)
    model = ElectraForQuestionAnswering(cfg).eval()
    d = out / "qafacteval-qa"
    model.save_pretrained(str(d))
    tok.save_pretrained(str(d))
    print(f"wrote {d}: {', '.join(sorted(p.name for p in d.iterdir()))}")


def reference_qa(frm, out_json):
    import torch
    torch.set_num_threads(2)
    from qaeval import QuestionAnsweringModel
    qa = QuestionAnsweringModel(str(Path(frm) / "qafacteval-qa"), cuda_device=-1, batch_size=8)
    questions = ["What was the primary outcome?", "How many patients took part?", "Which drug was used?"]
    inputs = []
    for _pid, src, summ in _util.fixture_pairs():
        if src.strip():
            inputs += [(q, src) for q in questions]
        if summ.strip():
            inputs.append((questions[0], summ))
    long_ctx = " ".join(["Patients received drug A or drug B for 12 weeks and blood pressure fell."] * 60)
    inputs.append((questions[1], long_ctx))
    preds = qa.answer_all(inputs, return_offsets=True)
    rows = [{"question": q, "context": c, "prediction": p[0], "probability": float(p[1]),
             "null_probability": float(p[2])} for (q, c), p in zip(inputs, preds)]
    _util.write_json(out_json, {
        "reference": "qaeval 0.1.0 QuestionAnsweringModel.answer_all (transformers 3.0.2)",
        "versions": _util.versions("qaeval", "transformers", "torch", "tokenizers"), "rows": rows})
    print(f"reference: {len(rows)} answers")


def build_lerc(out):
    import torch
    from transformers import RobertaConfig, RobertaForSequenceClassification, RobertaTokenizer
    vd = out / "harness" / "roberta-large"
    n = train_bpe(vd)
    # from_pretrained, as the publisher loaded roberta-large (3.0.2 cannot save a directly
    # constructed RobertaTokenizer: its AddedToken mask is not JSON-serialisable).
    tok = RobertaTokenizer.from_pretrained(str(vd))
    assert len(tok) == n
    cfg = RobertaConfig(vocab_size=n, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                        intermediate_size=64, max_position_embeddings=514, type_vocab_size=1, pad_token_id=1,
                        bos_token_id=0, eos_token_id=2, num_labels=1, initializer_range=0.3)
    torch.manual_seed(53001)
    model = RobertaForSequenceClassification(cfg).eval()
    with torch.no_grad():
        model.classifier.out_proj.weight.mul_(12.0)
        model.classifier.out_proj.bias.fill_(2.5)
    d = out / "qafacteval-lerc"
    model.save_pretrained(str(d))
    tok.save_pretrained(str(d))
    print(f"wrote {d}: {', '.join(sorted(p.name for p in d.iterdir()))}")


def reference_lerc(frm, out_json):
    import torch
    torch.set_num_threads(2)
    src = _util.reference_source("QAFACTEVAL_REPO", "salesforce/QAFactEval", "lerc_quip.py")
    mod = _util.load_module_from_source("lerc_quip", src, "lerc_quip.py")
    # cuda_device is passed to torch's .to(): -1 (QAEval's "CPU") is rejected there, "cpu" is what works.
    scorer = mod.LERCQuipScorer(str(Path(frm) / "qafacteval-lerc"), cuda_device="cpu", batch_size=8)
    rows = []
    groups = 0
    long_ctx = " ".join(["Patients received drug A or drug B for 12 weeks and blood pressure fell."] * 70)
    contexts = [src for _p, src, _s in _util.fixture_pairs() if src.strip()] + [long_ctx, "Improved."]
    qs = ["What was the primary outcome?", "How many adults took part?", "Which drug was compared?", "Who?"]
    golds = ["blood pressure", "240 adults", "placebo", "children aged 6 to 12"]
    preds = ["systolic blood pressure", "240", "", "the children"]
    for k, ctx in enumerate(contexts):
        probs = [0.9, 0.6 if k % 2 else 0.3, 0.8, 0.55]
        nulls = [0.1, 0.4, 0.2, 0.45]
        _agg, per_q = scorer.score_single_ref(ctx, qs, golds, preds, probs, nulls)
        groups += 1
        for q, g, p, pr, nu, s in zip(qs, golds, preds, probs, nulls, per_q):
            if pr > nu:  # scored by the model; unanswered ones are 0 by rule
                rows.append({"question": q, "answer": g, "prediction": p, "context": ctx,
                             "lerc_quip": float(s["lerc_quip"])})
    _util.write_json(out_json, {
        "reference": "salesforce/QAFactEval lerc_quip.py LERCQuipScorer.score_single_ref (unmodified, transformers 3.0.2)",
        "versions": _util.versions("qaeval", "transformers", "torch", "tokenizers"), "rows": rows})
    print(f"reference: {groups} groups, {len(rows)} answered questions")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd")
    b = sub.add_parser("build")
    b.add_argument("--part", choices=["qg", "qa", "lerc"], required=True)
    b.add_argument("--out", required=True)
    r = sub.add_parser("reference")
    r.add_argument("--part", choices=["qg", "qa", "lerc"], required=True)
    r.add_argument("--from", dest="frm", required=True)
    r.add_argument("--out", required=True)
    a = ap.parse_args()
    root = Path(a.out if a.cmd == "build" else a.frm).resolve()
    # Before transformers is imported (3.0.2 reads it at import time); see populate_hub_cache.
    os.environ["TRANSFORMERS_CACHE"] = str(root / "harness" / "hf-cache")
    if a.cmd == "build":
        out = Path(a.out).resolve()
        if out.exists():
            shutil.rmtree(str(out))
        out.mkdir(parents=True)
        {"qg": build_qg, "qa": build_qa, "lerc": build_lerc}[a.part](out)
    elif a.cmd == "reference":
        {"qg": reference_qg, "qa": reference_qa, "lerc": reference_lerc}[a.part](a.frm, str(Path(a.out).resolve()))
    else:
        ap.error("build or reference")


if __name__ == "__main__":
    sys.exit(main())
