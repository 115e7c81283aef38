#!/usr/bin/env python3
"""BERTScore replica (QuestEval's ``bert-base-multilingual-cased``, layer 9): a random-weight
BERT directory in the hub repository's format and its check against the unmodified
``bert_score`` 0.3.9.

``build --out FROM`` (reference venv): ``FROM/questeval-bertscore/`` with what the hub
repository ``google-bert/bert-base-multilingual-cased`` holds: ``config.json`` (12 layers like
mBERT, tiny width), ``model.safetensors``, a cased WordPiece ``vocab.txt`` trained on
self-written text, ``tokenizer_config.json`` (``do_lower_case: false``) and ``tokenizer.json``.

``reference --from FROM --out JSON``: ``bert_score.BERTScorer(model_type=
"bert-base-multilingual-cased", num_layers=9)`` (the name resolves to the replica: the harness
runs in a folder holding it under that name; ``model2layers`` gives 9 for it) — the way
``bert_score`` loads the model (``AutoModel``) and tokenizer (slow, ``use_fast=False``) — P/R/F
of ``score`` on the self-written pairs of ``tests/goldens/gen_qa_optional.py``.
"""
import argparse
import os
import shutil
import sys
from pathlib import Path

import _util


def build(out):
    import torch
    from tokenizers import BertWordPieceTokenizer
    from transformers import BertConfig, BertModel, BertTokenizerFast
    import gen_qa_optional as go

    out = Path(out).resolve()
    if out.exists():
        shutil.rmtree(out)
    d = out / "questeval-bertscore"
    d.mkdir(parents=True)
    wp = BertWordPieceTokenizer(lowercase=False, strip_accents=None, clean_text=True, handle_chinese_chars=True)
    lines = _util.corpus_lines() + [l for l in go.EXTRA_LINES if l.strip()]
    wp.train_from_iterator(lines * 3, vocab_size=1200, min_frequency=1,
                           special_tokens=["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"])
    wp.save_model(str(d))
    tok = BertTokenizerFast(vocab_file=str(d / "vocab.txt"), do_lower_case=False, strip_accents=None,
                            tokenize_chinese_chars=True, model_max_length=512)
    tok.save_pretrained(str(d))
    torch.manual_seed(41001)
    cfg = BertConfig(vocab_size=len(tok), hidden_size=32, num_hidden_layers=12, num_attention_heads=2,
                     intermediate_size=64, max_position_embeddings=512, initializer_range=0.2)
    cfg.architectures = ["BertForMaskedLM"]
    BertModel(cfg).eval().save_pretrained(str(d), safe_serialization=True)
    for p in d.iterdir():
        if p.name not in {"config.json", "model.safetensors", "vocab.txt", "tokenizer_config.json", "tokenizer.json"}:
            p.unlink()
    print(f"wrote {d}: {', '.join(sorted(p.name for p in d.iterdir()))}")


def reference(frm, out_json):
    import torch
    import bert_score
    import gen_qa_optional as go
    frm = Path(frm).resolve()
    torch.set_num_threads(2)
    harness = frm / "harness"
    harness.mkdir(exist_ok=True)
    link = harness / "bert-base-multilingual-cased"
    if not link.exists():
        link.symlink_to(frm / "questeval-bertscore")
    os.chdir(harness)
    os.environ["HF_HUB_OFFLINE"] = "1"
    pairs = go.bertscore_pairs()
    scorer = bert_score.BERTScorer(model_type="bert-base-multilingual-cased", num_layers=9, batch_size=64,
                                   idf=False, device="cpu", rescale_with_baseline=False)
    p, r, f = scorer.score([c for c, _ in pairs], [x for _, x in pairs])
    _util.write_json(out_json, {
        "reference": "bert_score 0.3.9 BERTScorer(model_type='bert-base-multilingual-cased', num_layers=9).score",
        "versions": _util.versions("bert-score", "transformers", "torch"),
        "pairs": [{"candidate": c, "reference": x, "p": float(pp), "r": float(rr), "f": float(ff)}
                  for (c, x), pp, rr, ff in zip(pairs, p.tolist(), r.tolist(), f.tolist())],
    })
    print(f"reference: {len(pairs)} pairs")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build")
    b.add_argument("--out", required=True)
    r = sub.add_parser("reference")
    r.add_argument("--from", dest="frm", required=True)
    r.add_argument("--out", required=True)
    a = ap.parse_args()
    if a.cmd == "build":
        build(a.out)
    else:
        reference(a.frm, a.out)


if __name__ == "__main__":
    sys.exit(main())
