#!/usr/bin/env python3
"""QuestEval replicas (QG ``ThomasNLG/t5-qg_squad1-en``, QA ``ThomasNLG/t5-qa_squad2neg-en``):
random-weight T5 directories in the hub repositories' format and their check against the
unmodified ``questeval`` 0.2.4.

``build --out FROM`` (reference venv, transformers 4.46.3):
``FROM/questeval-qg/`` and ``FROM/questeval-qa/`` hold what the hub repositories hold:
``config.json`` (t5-base layout: ReLU feed-forward, tied embeddings, vocabulary rows padded
past the tokenizer's like T5's 32,128 vs 32,100), ``pytorch_model.bin``, ``spiece.model``,
``special_tokens_map.json``, ``tokenizer_config.json`` — and no ``tokenizer.json`` (the export
converts the SentencePiece model) and no ``generation_config.json``. The SentencePiece
model is trained on self-written text with T5's special ids (``<pad>`` 0, ``</s>`` 1, ``<unk>``
2, 100 ``<extra_id_*>`` after the pieces) such that ``unanswerable`` is NOT one piece: it is
split into several pieces and the first of them is moved to id 73 (by swapping two normal
pieces, which changes ids only), so QuestEval's hard-coded 73 means what it means for the
real vocabulary: the first piece of ``unanswerable``.

``reference --from FROM --out JSON``: ``corpus_questeval`` of ``questeval`` 0.2.4 with the two
directories under the reference's hub names (harness of ``tests/goldens/gen_qa_references.py``:
``get_model`` sets ``sv1`` and 73 itself) on the fixture pairs: per-pair scores and the
reference's own answers (sentences as byte ranges, entity and noun-chunk strings) so
factpico can be fed the same answers.
"""
import argparse
import json
import os
import shutil
import sys
from pathlib import Path

import _util

UNANSWERABLE_ID = 73


def build_spiece(work):
    import sentencepiece as spm
    from sentencepiece import sentencepiece_model_pb2 as pb
    work.mkdir(parents=True, exist_ok=True)
    txt = work / "t5_corpus.txt"
    lines = _util.corpus_lines()
    # "unanswerable" appears a few times, not often enough to become one piece.
    lines += ["The question is unanswerable.", "An unanswered question.", "Unable to answer."]
    txt.write_text("\n".join(lines * 3) + "\n", encoding="utf-8")
    prefix = str(work / "spiece")
    spm.SentencePieceTrainer.train(
        input=str(txt), model_prefix=prefix, vocab_size=700, model_type="unigram", hard_vocab_limit=False,
        pad_id=0, eos_id=1, unk_id=2, bos_id=-1, character_coverage=1.0, input_sentence_size=0,
        shuffle_input_sentence=False, num_threads=1, minloglevel=2, normalization_rule_name="nmt_nfkc")
    m = pb.ModelProto()
    m.ParseFromString(open(prefix + ".model", "rb").read())
    sp = spm.SentencePieceProcessor(model_proto=m.SerializeToString())
    pieces = sp.encode_as_pieces("unanswerable")
    assert len(pieces) > 1, f"'unanswerable' became one piece {pieces}; the replica must split it"
    first = pieces[0]
    i = [k for k, p in enumerate(m.pieces) if p.piece == first][0]
    if i != UNANSWERABLE_ID:
        a, b = m.pieces[UNANSWERABLE_ID], m.pieces[i]
        assert a.type == b.type == pb.ModelProto.SentencePiece.NORMAL
        pa, sa = a.piece, a.score
        a.piece, a.score, b.piece, b.score = b.piece, b.score, pa, sa
    open(prefix + ".model", "wb").write(m.SerializeToString())
    sp = spm.SentencePieceProcessor(model_file=prefix + ".model")
    ids = sp.encode_as_ids("unanswerable")
    assert ids[0] == UNANSWERABLE_ID and len(ids) > 1, ids
    print(f"spiece: {sp.get_piece_size()} pieces; 'unanswerable' = {sp.encode_as_pieces('unanswerable')} {ids}")
    return prefix + ".model"


def calibrate_unanswerable(model, tok):
    """Sets the (tied) embedding row of id 73 so that its step-0 logit is, on average over
    self-written QA inputs, as high as the top logit: the QA replica then says
    "unanswerable" with probabilities spread over (0, 1) instead of ~0, so the answerability
    term (1 - P(73)) is exercised. Row 73 only enters the encoder when the input contains
    that piece (the fixture texts do not)."""
    import torch
    lines = _util.corpus_lines()
    texts = [f"What is reported? </s> {l}" for l in lines[:48]]
    enc = tok(texts, return_tensors="pt", padding=True)
    with torch.no_grad():
        dec = model(**enc, decoder_input_ids=torch.zeros(len(texts), 1, dtype=torch.long),
                    output_hidden_states=True)
        h = dec.decoder_hidden_states[-1][:, 0] * model.model_dim ** -0.5  # what meets the tied lm head
        u = h.mean(0) / h.mean(0).norm()
        target = dec.logits[:, 0].max(-1).values.mean()
        model.shared.weight[UNANSWERABLE_ID] = u * (target / (h @ u).mean())
        p = model(**enc, decoder_input_ids=torch.zeros(len(texts), 1, dtype=torch.long)).logits[:, 0].softmax(-1)
    p73 = p[:, UNANSWERABLE_ID]
    print(f"P(73) at step 0 on {len(texts)} inputs: min {p73.min():.3f}, mean {p73.mean():.3f}, max {p73.max():.3f}")


def build_t5(spiece, out, seed, unanswerable=False):
    import torch
    from transformers import T5Config, T5ForConditionalGeneration, T5Tokenizer
    tok = T5Tokenizer(spiece, extra_ids=100, legacy=True, model_max_length=512)
    vocab = (len(tok) + 127) // 128 * 128  # T5: 32,100 tokens, 32,128 embedding rows
    cfg = T5Config(vocab_size=vocab, d_model=64, d_kv=16, d_ff=128, num_layers=2, num_decoder_layers=2, num_heads=4,
                   feed_forward_proj="relu", tie_word_embeddings=True, decoder_start_token_id=0, pad_token_id=0,
                   eos_token_id=1, n_positions=512, relative_attention_num_buckets=32)
    cfg.architectures = ["T5ForConditionalGeneration"]
    torch.manual_seed(seed)
    model = T5ForConditionalGeneration(cfg).eval()
    with torch.no_grad():  # random T5 logits are nearly uniform; widen them
        model.shared.weight.mul_(8.0)
    if unanswerable:
        calibrate_unanswerable(model, tok)
    out.mkdir(parents=True)
    model.save_pretrained(str(out), safe_serialization=False)
    tok.save_pretrained(str(out))
    keep = {"config.json", "pytorch_model.bin", "spiece.model", "special_tokens_map.json", "tokenizer_config.json"}
    for p in out.iterdir():
        if p.name not in keep:
            p.unlink()
    return sorted(p.name for p in out.iterdir())


def build(out):
    out = Path(out).resolve()
    if out.exists():
        shutil.rmtree(out)
    spiece = build_spiece(out / "harness")
    for name, seed in (("questeval-qg", 31001), ("questeval-qa", 31002)):
        files = build_t5(spiece, out / name, seed, unanswerable=name == "questeval-qa")
        print(f"wrote {out / name}: {', '.join(files)}")


def reference(frm, out_json):
    import torch
    import transformers  # noqa: F401  (before the harness stubs `datasets`)
    import gen_qa_references as g
    frm = Path(frm).resolve()
    torch.set_num_threads(2)
    work = frm / "harness" / "questeval-work"
    if work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True)
    (work / "t5-qg_tiny").symlink_to(frm / "questeval-qg")
    (work / "t5-qa_tiny").symlink_to(frm / "questeval-qa")
    pairs = _util.fixture_pairs()
    rows = g.questeval_run(pairs, work)
    out = []
    for (pid, src, summ), r in zip(pairs, rows):
        item = {"id": pid, "source": src, "summary": summ, "score": r["score"]}
        for side, text in (("source", src), ("summary", summ)):
            a = r[side]
            bo = _util.byte_offsets(text)
            text5 = " ".join(text[x:y] for x, y in a["sentences"])
            item[side + "_answers"] = {
                "sentences": [[bo[x], bo[y]] for x, y in a["sentences"]],
                "ner": [text5[x:y] for x, y in a["ner"]],
                "noun": [text5[x:y] for x, y in a["noun"]],
            }
        out.append(item)
    _util.write_json(out_json, {
        "reference": "questeval 0.2.4 corpus_questeval (unmodified; harness of tests/goldens/gen_qa_references.py)",
        "versions": _util.versions("questeval", "transformers", "torch", "sentencepiece"),
        "pairs": out,
    })
    print(f"reference: {len(out)} pairs")


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
