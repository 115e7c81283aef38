#!/usr/bin/env python3
"""DAE replicas: random-weight checkpoints written by DAE's own stack (transformers 2.11.0,
torch 1.7.1, the pins of tagoyal/factuality-datasets ``requirements.txt``) and their check
against the reference's own loader.

Reference code is imported unmodified from checkouts given by ``$FACTPICO_DAE_REFERENCE``
(tagoyal/factuality-datasets: ``train_utils.py``) and ``$FACTPICO_DAE2020_REFERENCE``
(tagoyal/dae-factuality: ``utils.py``); each may be a work tree or a git directory.

``build --out FROM`` (dae venv):

* ``FROM/dae-xsum/``: ``ElectraDependencyModel`` (DAE-2021) with tiny ELECTRA dimensions and
  the uncased WordPiece vocabulary of ``fixtures/models/dae-tiny``, written as DAE's
  ``train.py`` ``save_checkpoints`` writes its output directory: ``model.save_pretrained``
  (``config.json`` + ``pytorch_model.bin``, torch 1.7 zip format), the tokenizer's
  ``save_pretrained`` (``ElectraTokenizer.from_pretrained`` of a folder shaped like
  ``google/electra-base-discriminator``: ``vocab.txt``, ``special_tokens_map.json``,
  ``tokenizer_config.json``) and ``torch.save(args, "training_args.bin")``.
* ``FROM/dae-2020/``: the same for DAE-2020's ``ElectraDAEModel`` (``dep_label_classifier``
  [2, 3*hidden] and ``importance_regression``), which the export must refuse.

``reference --from FROM --out JSON`` (dae venv): ``ElectraDependencyModel.from_pretrained`` and
``ElectraTokenizer.from_pretrained`` of ``FROM/dae-xsum`` (as ``train.py`` /
``evaluate_generated_outputs.py`` load it): the word pieces of every word of the fixture
texts, and the arc logits of the reference's ``forward`` (inputs padded to 512 as the
reference does, ``model.eval()``) for inputs built from fixture pairs.
"""
import argparse
import argparse as _argparse
import re
import shutil
import sys
from pathlib import Path

import _util

DIMS = dict(embedding_size=64, hidden_size=64, num_hidden_layers=2, num_attention_heads=2, intermediate_size=128,
            max_position_embeddings=512, type_vocab_size=2)


def reference_modules():
    import types
    src = _util.reference_source("FACTPICO_DAE_REFERENCE", "tagoyal/factuality-datasets", "train_utils.py")
    dae21 = _util.load_module_from_source("train_utils", src, "train_utils.py")
    return dae21


def reference_2020():
    src = _util.reference_source("FACTPICO_DAE2020_REFERENCE", "tagoyal/dae-factuality", "utils.py")
    return _util.load_module_from_source("utils", src, "utils.py")


def save_like_train_py(model, out, vocab_dir):
    import torch
    from transformers import ElectraTokenizer
    out.mkdir(parents=True)
    model.save_pretrained(str(out))
    tok = ElectraTokenizer.from_pretrained(str(vocab_dir))
    tok.save_pretrained(str(out))
    args = _argparse.Namespace(model_type="electra_dae", model_name_or_path="google/electra-base-discriminator",
                               max_seq_length=512, per_gpu_train_batch_size=8, learning_rate=2e-5,
                               num_train_epochs=3.0, output_dir=str(out), seed=42)
    torch.save(args, str(out / "training_args.bin"))


def build(out):
    import torch
    import transformers
    from transformers import ElectraConfig

    out = Path(out).resolve()
    if out.exists():
        shutil.rmtree(out)
    vocab_dir = out / "harness" / "electra-base-discriminator"
    vocab_dir.mkdir(parents=True)
    shutil.copy(_util.ROOT / "fixtures" / "models" / "dae-tiny" / "checkpoint" / "vocab.txt", vocab_dir / "vocab.txt")
    (vocab_dir / "tokenizer_config.json").write_text('{"do_lower_case": true}\n')
    n_vocab = sum(1 for _ in open(vocab_dir / "vocab.txt", encoding="utf-8"))

    tu = reference_modules()
    cfg = ElectraConfig(vocab_size=n_vocab, **DIMS)
    torch.manual_seed(21001)
    model = tu.ElectraDependencyModel(cfg)
    with torch.no_grad():  # spread the arc probabilities over (0, 1)
        model.dep_label_classifier.weight.normal_(0.0, 0.15)
        model.dep_label_classifier.bias.zero_()
    save_like_train_py(model, out / "dae-xsum", vocab_dir)

    u20 = reference_2020()
    torch.manual_seed(21002)
    save_like_train_py(u20.ElectraDAEModel(cfg), out / "dae-2020", vocab_dir)
    files = sorted(p.name for p in (out / "dae-xsum").iterdir())
    print(f"wrote {out}/dae-xsum ({', '.join(files)}) and dae-2020 with transformers {transformers.__version__}, "
          f"torch {torch.__version__}")


WORD = re.compile(r"\w+|[^\w\s]", re.UNICODE)


def reference(frm, out_json):
    import torch
    from transformers import ElectraTokenizer

    torch.set_num_threads(2)
    frm = Path(frm).resolve() / "dae-xsum"
    tu = reference_modules()
    model = tu.ElectraDependencyModel.from_pretrained(str(frm))
    model.eval()
    tok = ElectraTokenizer.from_pretrained(str(frm))
    pairs = _util.fixture_pairs()
    words = []
    seen = set()
    for _pid, src, summ in pairs:
        for w in WORD.findall(src + " " + summ) + src.split() + summ.split():
            if w not in seen:
                seen.add(w)
                words.append([w, tok.convert_tokens_to_ids(tok.tokenize(w))])
    items = []
    g = torch.Generator().manual_seed(7)
    for _pid, src, summ in pairs:
        aw, sw = WORD.findall(src)[:150], WORD.findall(summ)[:40]
        if not aw or len(sw) < 2:
            continue
        ids, first = [tok.cls_token_id], []
        for w in aw:
            ids += tok.convert_tokens_to_ids(tok.tokenize(w)) or []
        ids.append(tok.sep_token_id)
        for w in sw:
            p = tok.convert_tokens_to_ids(tok.tokenize(w))
            if p:
                first.append(len(ids))
                ids += p
        ids.append(tok.sep_token_id)
        ids = ids[:512]
        first = [f for f in first if f < len(ids) - 1]
        n_arcs = min(20, len(first))
        child = [first[int(i)] for i in torch.randint(len(first), (n_arcs,), generator=g)]
        head = [first[int(i)] for i in torch.randint(len(first), (n_arcs,), generator=g)]
        pad = 512 - len(ids)
        input_ids = torch.tensor([ids + [tok.pad_token_id] * pad])
        attention = torch.tensor([[1] * len(ids) + [0] * pad])
        with torch.no_grad():
            out = model(input_ids, attention, torch.tensor([child]), torch.tensor([head]),
                        torch.zeros(1, n_arcs, dtype=torch.long), torch.zeros(1, n_arcs, dtype=torch.long),
                        torch.zeros(1, dtype=torch.long), torch.tensor([n_arcs]), device="cpu")
        items.append({"input_ids": ids, "child": child, "head": head, "logits": out[1][0].tolist()})
    _util.write_json(out_json, {
        "reference": "tagoyal/factuality-datasets train_utils.ElectraDependencyModel.from_pretrained (unmodified)",
        "versions": _util.versions("transformers", "torch"),
        "words": words, "items": items,
    })
    print(f"reference: {len(words)} words, {len(items)} inputs, {sum(len(i['child']) for i in items)} arcs")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd")
    b = sub.add_parser("build")
    b.add_argument("--out", required=True)
    r = sub.add_parser("reference")
    r.add_argument("--from", dest="frm", required=True)
    r.add_argument("--out", required=True)
    a = ap.parse_args()
    if a.cmd == "build":
        build(a.out)
    elif a.cmd == "reference":
        reference(a.frm, a.out)
    else:
        ap.error("build or reference")


if __name__ == "__main__":
    sys.exit(main())
