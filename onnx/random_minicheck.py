"""Builds random-weight replicas of the released MiniCheck checkpoints, offline.

The hub is unreachable here, so the parity tests and benchmarks run on checkpoints with the
**same architecture, file layout and tokenizer kind** as

* ``lytang/MiniCheck-RoBERTa-Large``   (``RobertaForSequenceClassification``, 2 labels,
  byte-level BPE: ``vocab.json`` + ``merges.txt`` + ``tokenizer.json``),
* ``lytang/MiniCheck-DeBERTa-v3-Large`` (``DebertaV2ForSequenceClassification``, 2 labels,
  SentencePiece ``spm.model`` only: the fast tokenizer is converted at load time, as for
  ``microsoft/deberta-v3-large``),
* ``lytang/MiniCheck-Flan-T5-Large``   (``T5ForConditionalGeneration``, SentencePiece
  ``spiece.model`` + ``tokenizer.json``),

written with ``save_pretrained`` into ``--out`` (``config.json``, ``model.safetensors``,
tokenizer files). Tokenizers are trained on ``--corpus`` (``tokenizers`` byte-level BPE with
RoBERTa's special tokens; ``sentencepiece`` Unigram with DeBERTa-v3's ``[PAD] [CLS] [SEP]
[UNK]`` = ids 0-3 or T5's ``<pad> </s> <unk>`` = ids 0-2 and 100 ``<extra_id_*>``).

Sizes: ``tiny`` (2 layers, width 64: the committed test fixtures) and ``full`` (the released
shapes and vocabulary sizes: RoBERTa-large 355M, DeBERTa-v3-large 435M, Flan-T5-large 783M;
for benchmarks — same FLOPs as the real weights).

Random classifiers give near-constant outputs; the output layer of a tiny replica is calibrated on the corpus
(chunk + separator + claim inputs as MiniCheck builds them) to logit differences with mean 0
and standard deviation ``--logit-std``, so P(supported) spreads over (0, 1) and the label
threshold 0.5 is crossed both ways. For Flan-T5 the calibrated rows are the LM-head rows of
token ids 3 and 209, the only logits MiniCheck reads.

    python onnx/random_minicheck.py --variant roberta-large --size tiny --out DIR --corpus FILES...
"""
import argparse
import json
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from random_alignscore import corpus_texts, train_tokenizer as train_bpe  # noqa: E402

T5_LABEL_IDS = (3, 209)


def train_spm(texts, vocab_size: int, out: Path, kind: str) -> Path:
    import sentencepiece as spm
    out.mkdir(parents=True, exist_ok=True)
    prefix = out / ("spm" if kind == "deberta" else "spiece")
    if kind == "deberta":
        ids = dict(pad_id=0, bos_id=1, eos_id=2, unk_id=3, pad_piece="[PAD]", bos_piece="[CLS]",
                   eos_piece="[SEP]", unk_piece="[UNK]")
    else:
        ids = dict(pad_id=0, eos_id=1, unk_id=2, bos_id=-1, pad_piece="<pad>", eos_piece="</s>", unk_piece="<unk>")
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter([t.replace("\n", " ") for t in texts]), max_sentence_length=1 << 16, model_prefix=str(prefix), vocab_size=vocab_size, model_type="unigram",
        character_coverage=1.0, hard_vocab_limit=False, num_threads=1, minloglevel=2, **ids)
    return prefix.with_suffix(".model")


def build_tokenizer(variant: str, texts, vocab_size: int, out: Path):
    if variant == "roberta-large":
        corpus = out.parent / "_corpus.txt"
        corpus.write_text("\n".join(t.replace("\n", " ") for t in texts), encoding="utf-8")
        return train_bpe([corpus], vocab_size, out)
    if variant == "deberta-v3-large":
        from transformers import DebertaV2Tokenizer
        model = train_spm(texts, vocab_size, out, "deberta")
        tok = DebertaV2Tokenizer(vocab_file=str(model), do_lower_case=False, model_max_length=512)
        tok.save_pretrained(str(out))
        # Slow files only (spm.model + configs), as microsoft/deberta-v3-large ships them.
        for f in ("tokenizer.json",):
            (out / f).unlink(missing_ok=True)
        return tok
    from transformers import T5Tokenizer, T5TokenizerFast
    model = train_spm(texts, vocab_size, out, "t5")
    slow = T5Tokenizer(vocab_file=str(model), extra_ids=100, model_max_length=512, legacy=True)
    slow.save_pretrained(str(out))
    fast = T5TokenizerFast.from_pretrained(str(out))
    fast.save_pretrained(str(out))
    return fast


def build_model(variant: str, size: str, vocab: int):
    from transformers import (DebertaV2Config, DebertaV2ForSequenceClassification, RobertaConfig,
                              RobertaForSequenceClassification, T5Config, T5ForConditionalGeneration)
    tiny = size == "tiny"
    labels = dict(num_labels=2, id2label={0: "LABEL_0", 1: "LABEL_1"}, label2id={"LABEL_0": 0, "LABEL_1": 1})
    if variant == "roberta-large":
        shape = dict(hidden_size=64, num_hidden_layers=2, num_attention_heads=4, intermediate_size=128) if tiny \
            else dict(hidden_size=1024, num_hidden_layers=24, num_attention_heads=16, intermediate_size=4096)
        cfg = RobertaConfig(vocab_size=vocab if tiny else max(vocab, 50265), max_position_embeddings=514,
                            type_vocab_size=1, pad_token_id=1, bos_token_id=0, eos_token_id=2, layer_norm_eps=1e-5,
                            initializer_range=0.3 if tiny else 0.02, **shape, **labels)
        return RobertaForSequenceClassification(cfg)
    if variant == "deberta-v3-large":
        shape = dict(hidden_size=64, num_hidden_layers=2, num_attention_heads=4, intermediate_size=128,
                     pooler_hidden_size=64) if tiny \
            else dict(hidden_size=1024, num_hidden_layers=24, num_attention_heads=16, intermediate_size=4096,
                      pooler_hidden_size=1024)
        cfg = DebertaV2Config(vocab_size=vocab if tiny else max(vocab, 128100), max_position_embeddings=512,
                              relative_attention=True, position_buckets=256, norm_rel_ebd="layer_norm",
                              share_att_key=True, pos_att_type=["p2c", "c2p"], position_biased_input=False,
                              max_relative_positions=-1, type_vocab_size=0, pad_token_id=0, layer_norm_eps=1e-7,
                              hidden_act="gelu", pooler_hidden_act="gelu", pooler_dropout=0,
                              initializer_range=0.3 if tiny else 0.02, **shape, **labels)
        return DebertaV2ForSequenceClassification(cfg)
    shape = dict(d_model=64, d_kv=16, d_ff=128, num_layers=2, num_decoder_layers=2, num_heads=4) if tiny \
        else dict(d_model=1024, d_kv=64, d_ff=2816, num_layers=24, num_decoder_layers=24, num_heads=16)
    cfg = T5Config(vocab_size=vocab if tiny else max(vocab, 32128), feed_forward_proj="gated-gelu",
                   tie_word_embeddings=False, decoder_start_token_id=0, pad_token_id=0, eos_token_id=1,
                   initializer_factor=1.0, **shape)
    return T5ForConditionalGeneration(cfg)


def calibration_inputs(variant: str, tok, texts, n: int = 48):
    """MiniCheck-style single sequences ``chunk <eos> claim`` from consecutive corpus texts."""
    prefix = "predict: " if variant == "flan-t5-large" else ""
    docs, claims = texts[0::2][:n], texts[1::2][:n]
    seqs = [prefix + d + tok.eos_token + c for d, c in zip(docs, claims)]
    return tok(seqs, truncation=True, max_length=256, padding=True, return_tensors="pt")


def calibrate(variant: str, model, tok, texts, logit_std: float, seed: int) -> None:
    model.eval()
    enc = calibration_inputs(variant, tok, texts)
    captured = {}
    if variant == "flan-t5-large":
        layer = model.lm_head
    elif variant == "roberta-large":
        layer = model.classifier.out_proj
    else:
        layer = model.classifier
    handle = layer.register_forward_hook(lambda m, inp, out: captured.__setitem__("x", inp[0].detach()))
    with torch.no_grad():
        if variant == "flan-t5-large":
            dec = torch.zeros((enc["input_ids"].shape[0], 1), dtype=torch.long)
            model(input_ids=enc["input_ids"], attention_mask=enc["attention_mask"], decoder_input_ids=dec)
        else:
            model(**enc)
    handle.remove()
    x = captured["x"].reshape(-1, captured["x"].shape[-1]).double()
    g = torch.Generator().manual_seed(seed + 7)
    w = torch.randn(2, x.shape[1], generator=g, dtype=torch.float64)
    # Remove the component along the mean input (centres the logits; T5's head has no bias),
    # then scale the difference of the two logits to the wanted spread.
    mu = x.mean(0)
    w = w - torch.outer(w @ mu, mu) / (mu @ mu).clamp_min(1e-12)
    d = x @ (w[1] - w[0])
    w = w * (logit_std / d.std().clamp_min(1e-9))
    with torch.no_grad():
        if variant == "flan-t5-large":
            for row, tid in enumerate(T5_LABEL_IDS):
                layer.weight[tid] = w[row].float()
        else:
            layer.weight.copy_(w.float())
            z = x @ w.T
            layer.bias.copy_((-z.mean(0)).float())


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--variant", choices=["roberta-large", "deberta-v3-large", "flan-t5-large"], required=True)
    ap.add_argument("--size", choices=["tiny", "full"], default="tiny")
    ap.add_argument("--out", type=Path, required=True, help="checkpoint directory to write")
    ap.add_argument("--corpus", nargs="+", required=True, help="text / .jsonl files to train the tokenizer on")
    ap.add_argument("--vocab-size", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=20241112)
    ap.add_argument("--logit-std", type=float, default=2.0)
    args = ap.parse_args()

    torch.manual_seed(args.seed)
    texts = corpus_texts(args.corpus)
    args.out.mkdir(parents=True, exist_ok=True)
    tok = build_tokenizer(args.variant, texts, args.vocab_size, args.out)
    if args.variant != "roberta-large":
        from transformers import AutoTokenizer
        tok = AutoTokenizer.from_pretrained(str(args.out), use_fast=True)
    model = build_model(args.variant, args.size, len(tok))
    if args.size == "tiny":
        # Full-size graphs are for speed only: their (uncalibrated) scores sit near 0.5, and a
        # calibration forward of a large model costs minutes on a small machine.
        calibrate(args.variant, model, tok, texts, args.logit_std, args.seed)
    model.save_pretrained(str(args.out), safe_serialization=True)
    (args.out / "_corpus.txt").unlink(missing_ok=True)
    (args.out.parent / "_corpus.txt").unlink(missing_ok=True)
    print(json.dumps({"variant": args.variant, "size": args.size, "out": str(args.out), "tokenizer_vocab": len(tok),
                      "params": sum(p.numel() for p in model.parameters())}))


if __name__ == "__main__":
    main()
