#!/usr/bin/env python3
"""Builds the tiny random-weight QA fixture models under fixtures/models/ (offline).

* ``t5-tiny-qg`` / ``t5-tiny-qa``: random T5 (d_model 64, d_kv 16, d_ff 128, 2+2 layers,
  4 heads, gated-gelu) with a small SentencePiece Unigram vocabulary trained here
  (``<pad>`` 0, ``</s>`` 1, ``<unk>`` 2, 100 ``<extra_id_*>``; piece 73 is
  ``▁unanswerable`` like QuestEval's QA model). qg is exported ``split``
  (encoder/decoder/decoder_with_past), qa ``merged`` (decoder_model_merged), so both
  layouts are exercised.
* ``bart-tiny``: random BART (d_model 64, 2+2 layers, 4 heads, ffn 128) with a byte-level
  BPE vocabulary trained here, plus the added tokens ``<m>`` and ``</m>`` (QAEval's answer
  markers).
* ``qa-tiny``: random ELECTRA-shaped extractive QA model (hidden 32, 2 layers) with an
  uncased WordPiece vocabulary trained here.

The tokenizers are trained on the self-written fixture texts (``fixtures/*.jsonl``) and the
sentences below (written for this project), never on ../shared data. Weights come from
``torch.manual_seed``; the Hugging Face checkpoints are written to ``$QA_FIXTURE_WORK``
(default ``/tmp/factpico-qa-fixtures``) for ``gen_qa_goldens.py``, which rebuilds them
with this script when missing (deterministic for torch 2.5.1 / transformers 4.46.3) and
checks the committed ONNX graphs against them.

Run: ``cargo xtask fixtures qa``, or ``$(cargo xtask venv reference) tests/goldens/gen_qa_fixtures.py``
(the reference venv of ``xtask/src/python.rs``: transformers 4.46.3, torch 2.5.1,
tokenizers 0.20.3, sentencepiece 0.2.x, optimum 1.23.3, onnxruntime 1.32).
"""
import json
import os
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "onnx"))
sys.path.insert(0, str(ROOT / "tests" / "goldens"))
WORK = Path(os.environ.get("QA_FIXTURE_WORK", "/tmp/factpico-qa-fixtures"))
OUT = ROOT / "fixtures" / "models"

SENTENCES = """\
Researchers randomly assigned adults with high blood pressure to a new pill or a placebo.
The primary outcome was the change in systolic blood pressure after twelve weeks.
Patients who took the drug had fewer heart attacks than those who took the dummy pill.
Side effects such as headache, nausea and dizziness were similar in both groups.
The trial enrolled 450 children aged 6 to 12 years in 14 hospitals across Europe.
What was the primary outcome of the trial?
How many patients were randomly assigned to each group?
Which drug reduced the risk of stroke?
Who took part in the study and for how long?
When did the researchers measure the outcome?
Why did the investigators stop the trial early?
unanswerable
The answer is unanswerable because the text does not say.
Mortality at 30 days was 12% in the intervention group and 15% in the control group.
The hazard ratio was 0.78 (95% confidence interval 0.61 to 0.99; p = 0.04).
Women with gestational diabetes received insulin or metformin during pregnancy.
Exercise training improved walking distance in older people with heart failure.
The vaccine prevented influenza in most healthy volunteers during the winter season.
Antibiotics did not shorten the duration of symptoms in children with ear infections.
Cognitive behavioural therapy reduced depression scores compared with usual care.
The mean difference in HbA1c was -0.5 percentage points at six months.
Surgery was compared with physiotherapy for patients with knee pain.
A total of 1,203 participants completed the follow-up visit at one year.
Quality of life, hospital admissions and costs were secondary outcomes.
The study was funded by the National Institutes of Health.
Smokers who used nicotine patches were more likely to quit than those given advice alone.
Vitamin D supplements did not prevent fractures in older women living at home.
The intervention group had lower pain scores on a 10-point scale.
Blinding of participants was not possible because of the nature of the intervention.
""".splitlines()


def corpus_lines():
    import corpus  # tests/goldens/corpus.py
    lines = [s for s in SENTENCES if s.strip()]
    for _pid, src, summ in corpus.fixture_pairs():
        for t in (src, summ):
            if t.strip():
                lines.append(t)
    # Question-style lines built from the fixture text (QG targets look like this).
    extra = []
    for l in lines[:]:
        words = l.split()
        if len(words) > 4:
            extra.append("What " + " ".join(words[1:8]).rstrip(".") + "?")
    return lines + extra


def build_t5_tokenizer(work):
    import sentencepiece as spm
    from sentencepiece import sentencepiece_model_pb2 as pb
    from transformers import T5Tokenizer

    work.mkdir(parents=True, exist_ok=True)
    txt = work / "t5_corpus.txt"
    txt.write_text("\n".join(corpus_lines() * 3 + ["unanswerable"] * 40) + "\n", encoding="utf-8")
    prefix = str(work / "spiece")
    spm.SentencePieceTrainer.train(
        input=str(txt), model_prefix=prefix, vocab_size=600, model_type="unigram", hard_vocab_limit=False,
        pad_id=0, eos_id=1, unk_id=2, bos_id=-1, character_coverage=1.0,
        user_defined_symbols=[], input_sentence_size=0, shuffle_input_sentence=False,
        seed_sentencepiece_size=100000, num_threads=1, minloglevel=2,
        normalization_rule_name="nmt_nfkc")
    # Put "▁unanswerable" at id 73 like QuestEval's QA model (swapping two NORMAL pieces
    # changes ids only, not the segmentation, which depends on scores).
    m = pb.ModelProto()
    m.ParseFromString(open(prefix + ".model", "rb").read())
    idx = [i for i, p in enumerate(m.pieces) if p.piece == "\u2581unanswerable"]
    assert idx, "▁unanswerable is not a piece; add more occurrences to the corpus"
    i = idx[0]
    if i != 73:
        a, b = m.pieces[73], m.pieces[i]
        assert a.type == b.type == pb.ModelProto.SentencePiece.NORMAL
        pa, sa, pb_, sb = a.piece, a.score, b.piece, b.score
        a.piece, a.score, b.piece, b.score = pb_, sb, pa, sa
    open(prefix + ".model", "wb").write(m.SerializeToString())
    tok_dir = work / "t5-tok"
    tok = T5Tokenizer(prefix + ".model", extra_ids=100, legacy=True)
    tok.save_pretrained(tok_dir)
    assert tok.convert_ids_to_tokens(73) == "\u2581unanswerable", tok.convert_ids_to_tokens(73)
    return tok_dir, len(tok)


def build_t5(work, tok_dir, vocab, name, seed):
    import torch
    from transformers import T5Config, T5ForConditionalGeneration, T5Tokenizer
    torch.manual_seed(seed)
    cfg = T5Config(vocab_size=vocab, d_model=64, d_kv=16, d_ff=128, num_layers=2, num_decoder_layers=2,
                   num_heads=4, feed_forward_proj="gated-gelu", tie_word_embeddings=False,
                   decoder_start_token_id=0, pad_token_id=0, eos_token_id=1,
                   relative_attention_num_buckets=32, relative_attention_max_distance=128)
    model = T5ForConditionalGeneration(cfg).eval()
    # Random init of T5 is tiny-variance; widen the lm_head so outputs are not uniform.
    with torch.no_grad():
        model.lm_head.weight.mul_(8.0)
    d = work / name
    model.save_pretrained(d)
    T5Tokenizer.from_pretrained(tok_dir, legacy=True).save_pretrained(d)
    return d


def build_bart_tokenizer(work):
    from tokenizers import ByteLevelBPETokenizer
    from transformers import BartTokenizer
    tok = ByteLevelBPETokenizer()
    tok.train_from_iterator(corpus_lines() * 3, vocab_size=700, min_frequency=2,
                            special_tokens=["<s>", "<pad>", "</s>", "<unk>", "<mask>"])
    d = work / "bart-tok"
    d.mkdir(parents=True, exist_ok=True)
    tok.save_model(str(d))
    slow = BartTokenizer(str(d / "vocab.json"), str(d / "merges.txt"))
    slow.add_tokens(["<m>", "</m>"])
    slow.save_pretrained(d)
    return d, len(slow)


def build_bart(work, tok_dir, vocab, seed):
    import torch
    from transformers import BartConfig, BartForConditionalGeneration, BartTokenizer
    torch.manual_seed(seed)
    cfg = BartConfig(vocab_size=vocab, d_model=64, encoder_layers=2, decoder_layers=2,
                     encoder_attention_heads=4, decoder_attention_heads=4, encoder_ffn_dim=128,
                     decoder_ffn_dim=128, max_position_embeddings=256, pad_token_id=1, bos_token_id=0,
                     eos_token_id=2, decoder_start_token_id=2, forced_eos_token_id=None,
                     forced_bos_token_id=None, init_std=0.2, scale_embedding=False)
    model = BartForConditionalGeneration(cfg).eval()
    d = work / "bart-tiny"
    model.save_pretrained(d)
    BartTokenizer.from_pretrained(tok_dir).save_pretrained(d)
    return d


def build_qa(work, seed):
    import torch
    from tokenizers import BertWordPieceTokenizer
    from transformers import BertTokenizer, ElectraConfig, ElectraForQuestionAnswering
    tok = BertWordPieceTokenizer(lowercase=True, strip_accents=None, clean_text=True,
                                 handle_chinese_chars=True)
    tok.train_from_iterator(corpus_lines() * 3, vocab_size=900, min_frequency=1,
                            special_tokens=["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"])
    d = work / "qa-tiny"
    d.mkdir(parents=True, exist_ok=True)
    tok.save_model(str(d))
    slow = BertTokenizer(str(d / "vocab.txt"), do_lower_case=True)
    slow.save_pretrained(d)
    torch.manual_seed(seed)
    cfg = ElectraConfig(vocab_size=len(slow), embedding_size=32, hidden_size=32, num_hidden_layers=2,
                        num_attention_heads=2, intermediate_size=64, max_position_embeddings=512,
                        initializer_range=0.5)
    model = ElectraForQuestionAnswering(cfg).eval()
    model.save_pretrained(d)
    return d


def build_all():
    """Builds the HF checkpoints under WORK; returns {name: path}."""
    tok_dir, vocab = build_t5_tokenizer(WORK)
    qg = build_t5(WORK, tok_dir, vocab, "t5-qg_tiny", seed=11)
    qa = build_t5(WORK, tok_dir, vocab, "t5-qa_tiny", seed=12)
    btok, bvocab = build_bart_tokenizer(WORK)
    bart = build_bart(WORK, btok, bvocab, seed=13)
    ext = build_qa(WORK, seed=14)
    return {"t5-qg": qg, "t5-qa": qa, "bart": bart, "qa": ext}


def main():
    import export_seq2seq
    import export_qa
    paths = build_all()
    for name in ("t5-tiny-qg", "t5-tiny-qa", "bart-tiny", "qa-tiny"):
        if (OUT / name).exists():
            shutil.rmtree(OUT / name)
    export_seq2seq.export(paths["t5-qg"], OUT / "t5-tiny-qg", layout="split", role="qg", qg_prefix="sv1",
                          source_max_length=512)
    export_seq2seq.export(paths["t5-qa"], OUT / "t5-tiny-qa", layout="merged", role="qa",
                          unanswerable_token="unanswerable", unanswerable_id=73, source_max_length=512)
    export_seq2seq.export(paths["bart"], OUT / "bart-tiny", layout="split", role="qg",
                          source_max_length=254)
    export_qa.export(paths["qa"], OUT / "qa-tiny")
    for d in sorted(OUT.glob("*")):
        size = sum(f.stat().st_size for f in d.iterdir())
        print(f"{d.name}: {size / 1e6:.2f} MB")


if __name__ == "__main__":
    main()
