#!/usr/bin/env python3
"""Benchmark helper for `cargo xtask bench qa` (not a golden generator).

    build OUT        full-size T5-base-shaped random QG/QA checkpoint (d_model 768, d_ff 3072,
                     12+12 layers, 12 heads; the tiny fixture SentencePiece model padded with
                     never-used pieces to 32,000 + 100 extra ids) and its ONNX export
                     (split layout) under OUT/ (about 2.5 GB, not committed)
    reference OUT N  times the unmodified questeval 0.2.4 pipeline (same harness as
                     gen_qa_references.py) on the first N real pairs with that model for QG and
                     QA; writes OUT/reference.json (seconds, questions, scores) and
                     OUT/pairs.json (the pairs' ids and the reference's answers as offsets,
                     for the factpico run)

Run by `cargo xtask bench qa` with /work/venvs/qa/bin/python (or $FACTPICO_QA_PYTHON).
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
    elif sys.argv[1] == "reference":
        reference(sys.argv[2], int(sys.argv[3]))
    else:
        raise SystemExit(__doc__)
