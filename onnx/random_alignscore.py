"""Builds a random-weight AlignScore model in the authors' formats, offline.

Produces, under ``--out``:

* ``roberta-<size>/``: a Hugging Face backbone directory standing in for ``roberta-base``
  (``config.json``, random ``model.safetensors``, a byte-level BPE tokenizer with RoBERTa's
  special tokens ``<s> <pad> </s> <unk> <mask>`` = ids 0-4 and pair template
  ``<s> A </s></s> B </s>``, ``tokenizer_config.json`` with ``model_max_length`` 512). The
  directory name contains "roberta" because the reference's ``BERTAlignModel`` picks its
  backbone class from that string (``model.py:21-31``).
* ``AlignScore-<size>.ckpt``: a PyTorch-Lightning checkpoint of ``BERTAlignModel`` (keys
  ``base_model.*`` incl. the pooler, ``mlm_head.*``, ``bin_layer``, ``tri_layer``,
  ``reg_layer``) with weights *different* from the backbone directory's, so that a correct
  export must take every weight (pooler included) from the checkpoint (spec §6.7-8).

Sizes: ``tiny`` (2 layers, hidden 64, 4 heads; the committed test fixture) and ``base`` /
``large`` (``RobertaConfig()`` defaults / roberta-large shape, for benchmarks).
The tokenizer is trained on ``--corpus`` text files (one text per line or whole files).
"""
import argparse
import json
from pathlib import Path

import torch
from tokenizers import ByteLevelBPETokenizer
from transformers import RobertaConfig, RobertaForMaskedLM, RobertaModel, RobertaTokenizerFast

SPECIAL = ["<s>", "<pad>", "</s>", "<unk>", "<mask>"]


def config_for(size: str, vocab: int) -> RobertaConfig:
    common = dict(vocab_size=vocab, max_position_embeddings=514, type_vocab_size=1, pad_token_id=1,
                  bos_token_id=0, eos_token_id=2, layer_norm_eps=1e-5)
    if size == "tiny":
        return RobertaConfig(hidden_size=64, num_hidden_layers=2, num_attention_heads=4, intermediate_size=128,
                             **common)
    if size == "base":
        return RobertaConfig(**common)
    if size == "large":
        return RobertaConfig(hidden_size=1024, num_hidden_layers=24, num_attention_heads=16,
                             intermediate_size=4096, **common)
    raise SystemExit(f"unknown size {size}")


def corpus_texts(corpus_files):
    texts = []
    for f in corpus_files:
        for line in Path(f).read_text("utf-8").splitlines():
            if not line.strip():
                continue
            if str(f).endswith(".jsonl"):
                row = json.loads(line)
                texts.extend(row[k] for k in ("source", "summary") if row.get(k))
            else:
                texts.append(line)
    return texts


def train_tokenizer(corpus_files, vocab_size: int, out: Path) -> RobertaTokenizerFast:
    texts = corpus_texts(corpus_files)
    bpe = ByteLevelBPETokenizer(add_prefix_space=False, lowercase=False)
    bpe.train_from_iterator(texts, vocab_size=vocab_size, min_frequency=2, special_tokens=SPECIAL,
                            show_progress=False)
    out.mkdir(parents=True, exist_ok=True)
    bpe.save_model(str(out))
    tok = RobertaTokenizerFast(vocab_file=str(out / "vocab.json"), merges_file=str(out / "merges.txt"),
                               model_max_length=512)
    for i, t in enumerate(SPECIAL):
        assert tok.convert_tokens_to_ids(t) == i, (t, tok.convert_tokens_to_ids(t))
    tok.save_pretrained(str(out))
    return tok


def calibrate_heads(base, tok, texts, heads, logit_std):
    """Sets each head (``nn.Linear`` on the pooled output of ``base``) to logits with mean 0 and
    std ``logit_std`` per class on the texts (paired in order), so random scores spread over
    (0, 1) instead of sitting at the uniform distribution."""
    prem, hyp = texts[0::2][:64], texts[1::2][:64]
    n = min(len(prem), len(hyp))
    enc = tok(prem[:n], hyp[:n], truncation="only_first", padding=True, max_length=512, return_tensors="pt")
    with torch.no_grad():
        pooled = base(input_ids=enc["input_ids"], attention_mask=enc["attention_mask"]).pooler_output
    for layer in heads:
        with torch.no_grad():
            layer.weight.normal_(0.0, 1.0)
            z = pooled @ layer.weight.T
            layer.weight.mul_((logit_std / z.std(dim=0).clamp_min(1e-6)).unsqueeze(1))
            z = pooled @ layer.weight.T
            layer.bias.copy_(-z.mean(dim=0))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", choices=["tiny", "base", "large"], default="tiny")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--corpus", nargs="+", required=True, help="text files to train the BPE tokenizer on")
    ap.add_argument("--vocab-size", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=20240601)
    ap.add_argument("--logit-std", type=float, default=1.5,
                    help="std of each head's logits on the calibration texts (spread of the random scores)")
    ap.add_argument("--encoder-init", type=float, default=0.3,
                    help="std of the checkpoint encoder's random weights (0.3 for tiny, 0.02 for base/large)")
    ap.add_argument("--no-mlm-head", action="store_true", help="leave mlm_head.* out of the checkpoint")
    args = ap.parse_args()

    backbone = args.out / f"roberta-{args.size}"
    tok = train_tokenizer(args.corpus, args.vocab_size, backbone)
    cfg = config_for(args.size, len(tok))

    # Backbone directory: seed A (the reference loads it, then overwrites it from the ckpt).
    torch.manual_seed(args.seed)
    RobertaModel(cfg, add_pooling_layer=True).save_pretrained(str(backbone), safe_serialization=True)
    cfg.save_pretrained(str(backbone))

    # Checkpoint: seed B. Random RoBERTa weights give near-constant pooled outputs, so the
    # tiny encoder uses a larger init (--encoder-init 0.3; keep 0.02 for deep graphs, whose
    # activations otherwise blow up), the pooler a small one (linear tanh regime), and each
    # head is calibrated on the training texts (paired in order) to logits with mean 0 and
    # std `--logit-std` per class: the random scores then spread over (0, 1).
    torch.manual_seed(args.seed + 1)
    cfg_b = RobertaConfig.from_dict(cfg.to_dict())
    cfg_b.initializer_range = args.encoder_init
    base = RobertaModel(cfg_b, add_pooling_layer=True).eval()
    with torch.no_grad():
        base.pooler.dense.weight.normal_(0.0, 0.05)
    texts = corpus_texts(args.corpus)
    hidden = cfg.hidden_size
    heads = {"bin_layer": torch.nn.Linear(hidden, 2), "tri_layer": torch.nn.Linear(hidden, 3),
             "reg_layer": torch.nn.Linear(hidden, 1)}
    calibrate_heads(base, tok, texts, heads.values(), args.logit_std)
    state = {f"base_model.{k}": v for k, v in base.state_dict().items()}
    if not args.no_mlm_head:
        mlm = RobertaForMaskedLM(cfg).lm_head
        state.update({f"mlm_head.{k}": v for k, v in mlm.state_dict().items()})
    for name, layer in heads.items():
        state.update({f"{name}.{k}": v for k, v in layer.state_dict().items()})
    ckpt = {
        "epoch": 0,
        "global_step": 0,
        "pytorch-lightning_version": "2.4.0",
        "state_dict": state,
        "hyper_parameters": {"model": "roberta-base", "using_pretrained": True},
    }
    ckpt_path = args.out / f"AlignScore-{args.size}.ckpt"
    torch.save(ckpt, ckpt_path)
    print(json.dumps({"backbone": str(backbone), "ckpt": str(ckpt_path), "vocab": len(tok),
                      "params": sum(v.numel() for v in state.values())}))


if __name__ == "__main__":
    main()
