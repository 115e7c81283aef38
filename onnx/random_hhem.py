"""Builds a random-weight replica of Vectara's HHEM-2.1-Open checkpoint, offline.

The hub is unreachable here, so the parity tests and the benchmark run on a checkpoint with
the **same architecture, file layout and tokenizer kind** as
``vectara/hallucination_evaluation_model`` + ``google/flan-t5-base``:

* ``--out/config.json``: an ``HHEMv2`` config as the hub's (``model_type`` ``HHEMv2``,
  ``architectures`` ``HHEMv2ForSequenceClassification``, ``foundation``
  ``google/flan-t5-base``, ``id2label`` hallucinated/consistent);
* ``--out/model.safetensors``: the state dict of ``HHEMv2ForSequenceClassification``, i.e.
  ``t5.`` + ``T5ForTokenClassification`` (``transformer.shared`` + ``transformer.encoder.*``,
  ``classifier.weight``/``bias`` with 2 labels); the embedding is stored once, as
  ``t5.transformer.shared.weight`` (the encoder's ``embed_tokens`` is the same module);
* ``--out/flan-t5-base/``: the foundation folder the reference's constructor reads
  (``AutoConfig`` + ``AutoTokenizer``): a T5 ``config.json`` of flan-t5-base's shape
  (``tiny``: 2 layers, width 64) and a T5 SentencePiece tokenizer (``spiece.model`` +
  ``tokenizer.json``, ``<pad> </s> <unk>`` = ids 0-2 and 100 ``<extra_id_*>``) trained on
  ``--corpus`` (``random_minicheck.py``'s Flan-T5 tokenizer builder).

Sizes: ``tiny`` (the committed fixture) and ``full`` (flan-t5-base's encoder: d_model 768,
12 layers, 12 heads, d_ff 2048, gated-gelu, vocabulary 32128: the benchmark's FLOPs).

The classifier of a tiny replica is calibrated on HHEM prompts built from the corpus (the
hidden state at position 0, which ``predict`` reads) to logit differences with mean 0 and
standard deviation ``--logit-std``, so P(consistent) spreads over (0, 1).

    python onnx/random_hhem.py --size tiny --out DIR --corpus onnx/tiny_tokenizer_corpus.txt fixtures/pairs.jsonl fixtures/edge_cases.jsonl
"""
import argparse
import json
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from random_alignscore import corpus_texts  # noqa: E402
from random_minicheck import build_tokenizer  # noqa: E402

PROMPT = "<pad> Determine if the hypothesis is true given the premise?\n\nPremise: {text1}\n\nHypothesis: {text2}"


def t5_config(size: str, vocab: int):
    from transformers import T5Config
    shape = dict(d_model=64, d_kv=16, d_ff=128, num_layers=2, num_decoder_layers=2, num_heads=4) if size == "tiny" \
        else dict(d_model=768, d_kv=64, d_ff=2048, num_layers=12, num_decoder_layers=12, num_heads=12)
    return T5Config(vocab_size=vocab if size == "tiny" else max(vocab, 32128), feed_forward_proj="gated-gelu",
                    tie_word_embeddings=False, decoder_start_token_id=0, pad_token_id=0, eos_token_id=1,
                    initializer_factor=1.0, dropout_rate=0.1, **shape)


def calibrate(model, tok, texts, logit_std: float, seed: int) -> None:
    docs, claims = texts[0::2][:48], texts[1::2][:48]
    prompts = [PROMPT.format(text1=d, text2=c) for d, c in zip(docs, claims)]
    enc = tok(prompts, padding=True, truncation=True, max_length=384, return_tensors="pt")
    captured = {}
    handle = model.classifier.register_forward_hook(lambda m, inp, out: captured.__setitem__("x", inp[0].detach()))
    model.eval()
    with torch.no_grad():
        model(**enc)
    handle.remove()
    x = captured["x"][:, 0, :].double()
    g = torch.Generator().manual_seed(seed + 11)
    w = torch.randn(2, x.shape[1], generator=g, dtype=torch.float64)
    d = x @ (w[1] - w[0])
    w = w * (logit_std / d.std().clamp_min(1e-9))
    z = x @ w.T
    with torch.no_grad():
        model.classifier.weight.copy_(w.float())
        model.classifier.bias.copy_((-z.mean(0)).float())


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", choices=["tiny", "full"], default="tiny")
    ap.add_argument("--out", type=Path, required=True, help="checkpoint directory to write")
    ap.add_argument("--corpus", nargs="+", required=True, help="text / .jsonl files to train the tokenizer on")
    ap.add_argument("--vocab-size", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=20261203)
    ap.add_argument("--logit-std", type=float, default=2.0)
    args = ap.parse_args()

    from safetensors.torch import save_file
    from transformers import AutoTokenizer, T5ForTokenClassification

    torch.manual_seed(args.seed)
    texts = corpus_texts(args.corpus)
    foundation = args.out / "flan-t5-base"
    foundation.mkdir(parents=True, exist_ok=True)
    build_tokenizer("flan-t5-large", texts, args.vocab_size, foundation)
    tok = AutoTokenizer.from_pretrained(str(foundation), use_fast=True)
    cfg = t5_config(args.size, len(tok))
    cfg.save_pretrained(str(foundation))
    model = T5ForTokenClassification(cfg)
    if args.size == "tiny":
        calibrate(model, tok, texts, args.logit_std, args.seed)
    state = {"t5." + k: v.contiguous() for k, v in model.state_dict().items()
             if k != "transformer.encoder.embed_tokens.weight"}
    save_file(state, str(args.out / "model.safetensors"), metadata={"format": "pt"})
    config = {
        "architectures": ["HHEMv2ForSequenceClassification"],
        "auto_map": {"AutoConfig": "configuration_hhem_v2.HHEMv2Config",
                     "AutoModelForSequenceClassification": "modeling_hhem_v2.HHEMv2ForSequenceClassification"},
        "foundation": "google/flan-t5-base",
        "id2label": {"0": "hallucinated", "1": "consistent"},
        "label2id": {"hallucinated": 0, "consistent": 1},
        "model_type": "HHEMv2",
        "torch_dtype": "float32",
    }
    (args.out / "config.json").write_text(json.dumps(config, indent=2) + "\n", encoding="utf-8")
    (args.out / "_corpus.txt").unlink(missing_ok=True)
    (foundation / "_corpus.txt").unlink(missing_ok=True)
    print(json.dumps({"size": args.size, "out": str(args.out), "tokenizer_vocab": len(tok),
                      "params": sum(p.numel() for p in model.parameters())}))


if __name__ == "__main__":
    main()
