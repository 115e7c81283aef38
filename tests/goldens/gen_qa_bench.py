#!/usr/bin/env python3
"""Benchmark helper for `cargo xtask bench qa` (not a golden generator).

    build OUT        full-size T5-base-shaped random QG/QA checkpoint (d_model 768, d_ff 3072,
                     12+12 layers, 12 heads; the tiny fixture SentencePiece model padded with
                     never-used pieces to 32,000 + 100 extra ids) and its ONNX export
                     (split layout) under OUT/ (about 2.5 GB, not committed)
    build-qafacteval OUT
                     full-size random QAFactEval-style models (not committed, ~4 GB under OUT):
                     a BART-large-shaped question generator (d_model 1024, 12+12 layers, 16
                     heads, vocabulary 50,265 + <m> </m> stripped as QAEval's tokenizer does:
                     a byte-level BPE trained on the fixture texts padded with never-used
                     tokens) and an ELECTRA-large-shaped extractive QA model (hidden 1024, 24
                     layers, the BERT-uncased vocabulary of ../shared/models/minilm-nli),
                     exported with export_seq2seq.py / export_qa.py
    reference OUT N  times the unmodified questeval 0.2.4 pipeline (same harness as
                     gen_qa_references.py) on the first N real pairs with that model for QG and
                     QA; writes OUT/reference.json (seconds, questions, scores) and
                     OUT/pairs.json (the pairs' ids and the reference's answers as offsets,
                     for the factpico run)

Run by `cargo xtask bench qa` / `cargo xtask bench qafacteval` in the reference venv
(`$FACTPICO_REF_PYTHON`, or `cargo xtask venv reference`).
"""
import json
import resource
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "goldens"))
sys.path.insert(0, str(ROOT / "onnx"))
import corpus  # noqa: E402
import gen_qa_fixtures  # noqa: E402


def build(out):
    import torch
    from sentencepiece import sentencepiece_model_pb2 as pb
    from transformers import T5Config, T5ForConditionalGeneration, T5Tokenizer
    import export_seq2seq

    out = Path(out)
    work = gen_qa_fixtures.WORK
    if not (work / "spiece.model").exists():
        gen_qa_fixtures.build_t5_tokenizer(work)
    m = pb.ModelProto()
    m.ParseFromString((work / "spiece.model").read_bytes())
    n = len(m.pieces)
    for i in range(32000 - n):
        p = m.pieces.add()
        p.piece = f"\u2581zzunused{i}"
        p.score = -1000.0
        p.type = pb.ModelProto.SentencePiece.NORMAL
    ck = out / "t5-base-random"
    ck.mkdir(parents=True, exist_ok=True)
    (out / "spiece-32k.model").write_bytes(m.SerializeToString())
    tok = T5Tokenizer(str(out / "spiece-32k.model"), extra_ids=100, legacy=True)
    torch.manual_seed(0)
    cfg = T5Config(vocab_size=len(tok), d_model=768, d_kv=64, d_ff=3072, num_layers=12, num_decoder_layers=12,
                   num_heads=12, feed_forward_proj="relu", tie_word_embeddings=True, decoder_start_token_id=0,
                   pad_token_id=0, eos_token_id=1)
    T5ForConditionalGeneration(cfg).eval().save_pretrained(ck)
    tok.save_pretrained(ck)
    export_seq2seq.export(ck, out / "onnx", layout="split", role="qa", unanswerable_id=73, qg_prefix="sv1")


def build_qafacteval(out):
    import json as _json
    import torch
    from tokenizers import AddedToken, ByteLevelBPETokenizer
    from transformers import (BartConfig, BartForConditionalGeneration, BartTokenizerFast, BertTokenizerFast,
                              ElectraConfig, ElectraForQuestionAnswering)
    import export_qa
    import export_seq2seq

    out = Path(out)
    qg = out / "bart-large-random"
    qg.mkdir(parents=True, exist_ok=True)
    bpe = ByteLevelBPETokenizer()
    bpe.train_from_iterator(gen_qa_fixtures.corpus_lines() * 3, vocab_size=1000, min_frequency=2,
                            special_tokens=["<s>", "<pad>", "</s>", "<unk>"])
    bpe.save_model(str(qg))
    vocab = _json.loads((qg / "vocab.json").read_text("utf-8"))
    i = 0
    while len(vocab) < 50264:
        vocab[f"\u0120zzunused{i}"] = len(vocab)
        i += 1
    vocab["<mask>"] = len(vocab)
    (qg / "vocab.json").write_text(_json.dumps(vocab, ensure_ascii=False), encoding="utf-8")
    tok = BartTokenizerFast(vocab_file=str(qg / "vocab.json"), merges_file=str(qg / "merges.txt"))
    tok.add_tokens([AddedToken(t, lstrip=True, rstrip=True, normalized=False) for t in ("<m>", "</m>")])
    tok.save_pretrained(qg)
    torch.manual_seed(0)
    cfg = BartConfig(vocab_size=len(tok), d_model=1024, encoder_layers=12, decoder_layers=12,
                     encoder_attention_heads=16, decoder_attention_heads=16, encoder_ffn_dim=4096,
                     decoder_ffn_dim=4096, max_position_embeddings=1024, pad_token_id=1, bos_token_id=0,
                     eos_token_id=2, decoder_start_token_id=2, forced_bos_token_id=0, forced_eos_token_id=2)
    BartForConditionalGeneration(cfg).eval().save_pretrained(qg)
    export_seq2seq.export(qg, out / "qg-onnx", layout="split", role="qg", source_max_length=1024,
                          checkpoint_name="random BART-large-shaped QG (gen_qa_bench.py build-qafacteval)")

    qa = out / "electra-large-random"
    qa.mkdir(parents=True, exist_ok=True)
    tj = _json.loads((corpus.shared_root() / "models" / "minilm-nli" / "tokenizer.json").read_text("utf-8"))
    words = [w for w, _ in sorted(tj["model"]["vocab"].items(), key=lambda kv: kv[1])]
    (qa / "vocab.txt").write_text("".join(w + "\n" for w in words), encoding="utf-8")
    BertTokenizerFast(vocab_file=str(qa / "vocab.txt"), do_lower_case=True).save_pretrained(qa)
    torch.manual_seed(1)
    ecfg = ElectraConfig(vocab_size=len(words), embedding_size=1024, hidden_size=1024, num_hidden_layers=24,
                         num_attention_heads=16, intermediate_size=4096, max_position_embeddings=512)
    ElectraForQuestionAnswering(ecfg).eval().save_pretrained(qa)
    export_qa.export(qa, out / "qa-onnx", checkpoint_name="random ELECTRA-large-shaped QA (gen_qa_bench.py)")


def reference(out, n):
    import torch
    import transformers  # noqa: F401  (before the harness stubs `datasets`)
    import gen_qa_references as g
    out = Path(out).resolve()
    torch.set_num_threads(2)
    work = out / "hub-work"
    work.mkdir(exist_ok=True)
    for name in ("t5-qa_tiny", "t5-qg_tiny"):
        link = work / name
        if link.is_symlink() or link.exists():
            link.unlink()
        link.symlink_to(out / "t5-base-random")
    pairs = list(corpus.pairs())[:n]
    timing = {}
    rows = g.questeval_run(pairs, work, timing=timing)
    secs, cpu = timing["seconds"], timing["cpu_seconds"]
    # questions generated (one per answer of each non-empty text of a non-empty pair)
    n_questions = sum(len(r[side]["ner"]) + len(r[side]["noun"]) for r in rows for side in ("source", "summary")
                      if r["source"]["sentences"] and r["summary"]["sentences"])
    (out / "pairs.json").write_text(json.dumps(rows))
    (out / "reference.json").write_text(json.dumps({
        "pairs": n, "seconds": secs, "cpu_seconds": cpu, "questions": n_questions,
        "questions_per_s": n_questions / secs, "pairs_per_s": n / secs,
        "scores": [r["score"] for r in rows],
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
    print(json.dumps({"seconds": secs, "questions": n_questions}))


if __name__ == "__main__":
    if sys.argv[1] == "build":
        build(sys.argv[2])
    elif sys.argv[1] == "build-qafacteval":
        build_qafacteval(sys.argv[2])
    elif sys.argv[1] == "reference":
        reference(sys.argv[2], int(sys.argv[3]))
    else:
        raise SystemExit(__doc__)
