"""Random-weight replicas of SummaC's released models, offline, in the publishers' formats.

* ``albert --size tiny|base|xlarge --out DIR --corpus FILES``: a Hugging Face checkpoint
  directory standing in for ``tals/albert-xlarge-vitaminc-mnli`` (SummaC's ``vitc``):
  ``config.json`` (``AlbertForSequenceClassification``, 3 labels), random weights,
  and a SentencePiece unigram ``spiece.model`` trained on ``--corpus`` with ALBERT's
  special pieces (``<pad>`` 0, ``<unk>`` 1, ``[CLS]`` 2, ``[SEP]`` 3, ``[MASK]`` 4) and
  SentencePiece's default ``nmt_nfkc`` normalisation (so the converted ``tokenizer.json``
  has a ``Precompiled`` normaliser, as the real one) -- no ``tokenizer.json``, so
  ``AutoTokenizer`` converts the slow tokenizer exactly as for a hub checkpoint that ships
  only ``spiece.model``. Labels ``SUPPORTS`` / ``REFUTES`` / ``NOT ENOUGH INFO`` (VitaminC's
  classes; SummaC's ``model_map`` uses entailment 0, contradiction 1) -- names without
  "entail", so a correct export must map them.
  ``tiny`` (2 layers, hidden 32; the committed fixture) has large random weights and a
  random classifier calibrated on corpus sentence pairs (``calibrate_head``) so that
  probabilities spread over [0, 1] (SummaC-Conv's histograms then use many bins);
  ``base`` / ``xlarge`` are ``albert-base-v2`` / ``albert-xlarge-v2`` shapes for benchmarks.
* ``conv --out FILE --full-size N``: random SummaC-Conv weights saved exactly as the
  reference saves and loads them: ``torch.save(state_dict)`` of ``mlp`` (``Linear(N, 1)``)
  and ``layer_final`` (``Linear(3, 2)``).
"""
import argparse
import json
from pathlib import Path

import torch

LABELS = ["SUPPORTS", "REFUTES", "NOT ENOUGH INFO"]


def corpus_lines(files):
    out = []
    for f in files:
        for line in Path(f).read_text("utf-8").splitlines():
            if not line.strip():
                continue
            if str(f).endswith(".jsonl"):
                row = json.loads(line)
                out.extend(row[k].replace("\n", " ") for k in ("source", "summary") if row.get(k))
            else:
                out.append(line)
    return out


def train_spm(lines, vocab_size: int, out: Path) -> Path:
    import sentencepiece as spm
    txt = out / "spm_corpus.txt"
    txt.write_text("\n".join(lines) + "\n", encoding="utf-8")
    spm.SentencePieceTrainer.train(
        input=str(txt), model_prefix=str(out / "spiece"), vocab_size=vocab_size, model_type="unigram",
        pad_id=0, unk_id=1, bos_id=-1, eos_id=-1, control_symbols=["[CLS]", "[SEP]", "[MASK]"],
        character_coverage=0.9995, hard_vocab_limit=False, num_threads=1, seed_sentencepiece_size=100000,
        shuffle_input_sentence=False, minloglevel=2)
    txt.unlink()
    (out / "spiece.vocab").unlink()
    return out / "spiece.model"


def albert_config(size: str, vocab: int, init_std: float = 0.02):
    from transformers import AlbertConfig
    common = dict(vocab_size=vocab, num_labels=3, id2label=dict(enumerate(LABELS)),
                  label2id={l: i for i, l in enumerate(LABELS)}, pad_token_id=0, bos_token_id=2,
                  eos_token_id=3, max_position_embeddings=512, type_vocab_size=2,
                  classifier_dropout_prob=0.1, hidden_act="gelu_new", initializer_range=init_std)
    if size == "tiny":
        return AlbertConfig(embedding_size=16, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                            intermediate_size=64, **common)
    if size == "base":
        return AlbertConfig(embedding_size=128, hidden_size=768, num_hidden_layers=12, num_attention_heads=12,
                            intermediate_size=3072, **common)
    if size == "xlarge":
        return AlbertConfig(embedding_size=128, hidden_size=2048, num_hidden_layers=24, num_attention_heads=16,
                            intermediate_size=8192, **common)
    raise SystemExit(f"unknown size {size}")


def calibrate_head(model, tokenizer, lines, logit_std: float):
    """Random classifier rows rescaled so that each logit has standard deviation
    ``logit_std`` over sentence pairs of the corpus, with biases that centre them: the
    probabilities then spread over [0, 1] (a plain random head on a random encoder gives
    nearly the same class to every pair, and SummaC-Conv's histograms would use one bin)."""
    pairs = []
    for line in lines:
        sents = [s for s in line.split(". ") if len(s) > 10][:6]
        pairs += [(a, b) for i, a in enumerate(sents) for b in sents[i + 1:i + 4]]
    enc = tokenizer([a for a, _ in pairs], [b for _, b in pairs], padding=True, truncation=True, max_length=128,
                    return_tensors="pt")
    with torch.no_grad():
        pooled = model.albert(**enc).pooler_output
        w = torch.randn(3, pooled.shape[1])
        w = w * (logit_std / (pooled @ w.T).std(0, keepdim=True).T)
        z = pooled @ w.T
        model.classifier.weight.copy_(w)
        model.classifier.bias.copy_(-z.mean(0))


def cmd_albert(args):
    from transformers import AlbertForSequenceClassification, AlbertTokenizer
    out = args.out
    out.mkdir(parents=True, exist_ok=True)
    train_spm(corpus_lines(args.corpus), args.vocab_size, out)
    slow = AlbertTokenizer(vocab_file=str(out / "spiece.model"), model_max_length=512)
    for i, t in enumerate(["<pad>", "<unk>", "[CLS]", "[SEP]", "[MASK]"]):
        assert slow.convert_tokens_to_ids(t) == i, (t, slow.convert_tokens_to_ids(t))
    slow.save_pretrained(str(out))  # spiece.model + tokenizer_config.json + special_tokens_map.json
    torch.manual_seed(args.seed)
    cfg = albert_config(args.size, len(slow), args.init_std if args.size == "tiny" else 0.02)
    model = AlbertForSequenceClassification(cfg).eval()
    if args.size == "tiny":
        calibrate_head(model, slow, corpus_lines(args.corpus), args.logit_std)
    model.save_pretrained(str(out), safe_serialization=True)
    # A hub checkpoint of that age has no tokenizer.json: AutoTokenizer converts spiece.model.
    for f in ("tokenizer.json",):
        (out / f).unlink(missing_ok=True)
    print(f"wrote {out}: ALBERT {args.size}, vocab {len(slow)}, "
          f"{sum(p.numel() for p in model.parameters()) / 1e6:.2f}M parameters")


def cmd_conv(args):
    torch.manual_seed(args.seed)
    mlp = torch.nn.Linear(args.full_size, 1)
    layer_final = torch.nn.Linear(3, 2)
    with torch.no_grad():
        mlp.weight.normal_(0.0, args.std)
        mlp.bias.normal_(0.0, args.std)
        layer_final.weight.normal_(0.0, 1.0)
        layer_final.bias.normal_(0.0, 0.5)
    # The keys SummaCConv.load_state_dict expects (its modules are named mlp and layer_final).
    sd = {"mlp.weight": mlp.weight.detach().clone(), "mlp.bias": mlp.bias.detach().clone(),
          "layer_final.weight": layer_final.weight.detach().clone(),
          "layer_final.bias": layer_final.bias.detach().clone()}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    torch.save(sd, str(args.out))
    print(f"wrote {args.out}: mlp Linear({args.full_size}, 1), layer_final Linear(3, 2)")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    a = sub.add_parser("albert")
    a.add_argument("--size", choices=["tiny", "base", "xlarge"], default="tiny")
    a.add_argument("--out", type=Path, required=True)
    a.add_argument("--corpus", nargs="+", required=True)
    a.add_argument("--vocab-size", type=int, default=800)
    a.add_argument("--init-std", type=float, default=0.5, help="tiny only: weight init std (spreads probabilities)")
    a.add_argument("--logit-std", type=float, default=4.0, help="tiny only: logit spread of the calibrated head")
    a.add_argument("--seed", type=int, default=20241201)
    c = sub.add_parser("conv")
    c.add_argument("--out", type=Path, required=True)
    c.add_argument("--full-size", type=int, required=True, help="len(nli_labels) * number of bins")
    c.add_argument("--std", type=float, default=0.3)
    c.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    {"albert": cmd_albert, "conv": cmd_conv}[args.cmd](args)


if __name__ == "__main__":
    main()
