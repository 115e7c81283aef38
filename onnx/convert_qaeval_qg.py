#!/usr/bin/env python3
"""Converts QAFactEval's question generator (QAEval's AllenNLP 1.1 archive) to a Hugging Face
BART directory that ``export_seq2seq.py`` exports.

The archive (``models/generation/model.tar.gz`` of QAFactEval's ``download_models.sh``) is
what ``allennlp.models.archival.archive_model`` writes (allennlp 1.1.0 ``models/archival.py``
``CONFIG_NAME = "config.json"``, ``_WEIGHTS_NAME = "weights.th"``, plus the ``vocabulary/``
folder): the training ``config.json`` (``model.type`` = ``question_generation``,
``model.model_name`` = ``facebook/bart-large``), ``weights.th`` = ``torch.save`` of the
``state_dict()`` of QAEval's ``_QuestionGenerationModel`` (``qaeval/generation/model.py``:
one sub-module ``self.bart``, so every key starts with ``bart.``; the embeddings were resized
by ``resize_token_embeddings(vocab_size + 2)`` for ``<m>``/``</m>``, ``final_logits_bias``
with them) and ``vocabulary/`` (unused: the token ids are BART's own).

The model's architecture and tokenizer are NOT in the archive: AllenNLP rebuilt them from the
hub name (``BartForConditionalGeneration.from_pretrained("facebook/bart-large")``,
``PretrainedTransformerTokenizer("facebook/bart-large")``), so ``--bart`` must be that hub
directory's ``config.json``, ``vocab.json`` and ``merges.txt`` (its weights are not needed).

Tokenisation of the marked input. QAEval's dataset reader calls
``tokenizer.add_tokens(["<m>", "</m>"])`` (``qaeval/generation/dataset_reader.py:22``) on the
tokenizer of allennlp 1.1.0's ``PretrainedTransformerTokenizer``, which asks for
``use_fast=True`` (``data/tokenizers/pretrained_transformer_tokenizer.py:74``) but gets the slow
``BartTokenizer``: transformers 3.0.2 has no fast BART tokenizer
(``tokenization_auto.py:86``: ``(BartConfig, (BartTokenizer, None))``). The slow tokenizer
splits the text on added tokens and, for tokens added as plain strings, strips the
whitespace on both sides of each piece (``tokenization_utils.py:317-322``: "We strip left
and right by default"), then byte-level-BPE-encodes each piece on its own. So
``"The <m> drug </m> worked."`` is ``The`` ``<m>`` ``drug`` ``</m>`` ``worked`` ``.`` — no
``Ġ`` (space) on ``drug`` or ``worked``. The converted tokenizer reproduces this with
``AddedToken("<m>", lstrip=True, rstrip=True)`` (the added token swallows the whitespace
around it; the pieces between are pre-tokenised separately). Verified against the real
transformers 3.0.2 + allennlp 1.1.0 code by ``cargo xtask replicas --only qafacteval-qg``
(source token ids of the reference's own dataset reader vs factpico's).

Checks done here: every tensor of the written model equals the archive's (bitwise), the
markers get ids ``vocab_size`` and ``vocab_size + 1`` of the original vocabulary (as
``add_tokens`` gave them), and the marked sample input has no space token next to a marker.

    python onnx/convert_qaeval_qg.py --archive models/generation/model.tar.gz \
        --bart bart-large --out qaeval-qg-hf
    python onnx/export_seq2seq.py qaeval-qg-hf ~/.cache/factpico/models/qafacteval-qg --role qg
"""
import argparse
import io
import json
import sys
import tarfile
from pathlib import Path

SPAN_START, SPAN_END = "<m>", "</m>"
# 3.0.2 options of BART that transformers 4.x's BartModel can only represent with these values
# (facebook/bart-large has them); anything else is an mBART-style model.
BART_LARGE_LAYOUT = {"normalize_before": False, "add_final_layer_norm": False, "static_position_embeddings": False,
                     "normalize_embedding": True}


def read_archive(path):
    """Returns (config dict, state dict, member names) of an AllenNLP model archive."""
    import torch
    with tarfile.open(path, "r:*") as tar:
        names = tar.getnames()
        norm = {n[2:] if n.startswith("./") else n: n for n in names}
        for need in ("config.json", "weights.th"):
            if need not in norm:
                raise SystemExit(f"{path}: no {need} in the archive (members: {sorted(norm)[:10]}); "
                                 "expected QAEval's AllenNLP archive models/generation/model.tar.gz")
        config = json.loads(tar.extractfile(norm["config.json"]).read().decode("utf-8"))
        weights = tar.extractfile(norm["weights.th"]).read()
    state = torch.load(io.BytesIO(weights), map_location="cpu", weights_only=True)
    return config, state, sorted(norm)


def convert(archive, bart_dir, out):
    import torch
    from tokenizers import AddedToken
    from transformers import BartConfig, BartForConditionalGeneration, BartTokenizerFast

    config, state, members = read_archive(archive)
    model_cfg = config.get("model", {})
    if model_cfg.get("type") != "question_generation":
        raise SystemExit(f"{archive}: model type {model_cfg.get('type')!r}, not QAEval's 'question_generation'")
    print(f"archive: model_name {model_cfg.get('model_name')!r}, {len(state)} tensors, members {members}")
    bad = [k for k in state if not k.startswith("bart.")]
    if bad:
        raise SystemExit(f"{archive}: weights.th keys without the 'bart.' prefix of _QuestionGenerationModel: {bad[:5]}")
    sd = {k[len("bart."):]: v for k, v in state.items()}

    cfg_dict = json.loads((Path(bart_dir) / "config.json").read_text("utf-8"))
    for k, want in BART_LARGE_LAYOUT.items():
        if k in cfg_dict and cfg_dict[k] != want:
            raise SystemExit(f"{bart_dir}/config.json has {k}={cfg_dict[k]!r}; only the facebook/bart-large layout "
                             f"({BART_LARGE_LAYOUT}) is supported")
    base_vocab = int(cfg_dict["vocab_size"])
    rows = sd["model.shared.weight"].shape[0]
    if rows != base_vocab + 2:
        raise SystemExit(f"the archive's embeddings have {rows} rows; QAEval adds 2 markers to the {base_vocab} "
                         f"of {bart_dir}/config.json -- is --bart the model the archive was trained from "
                         f"({model_cfg.get('model_name')})?")
    cfg = BartConfig.from_pretrained(bart_dir)
    cfg.vocab_size = rows
    cfg.architectures = ["BartForConditionalGeneration"]
    model = BartForConditionalGeneration(cfg).eval()
    missing, unexpected = model.load_state_dict(sd, strict=False)
    # transformers 3.0.2 has no lm_head parameter (logits = shared.weight^T); 4.x ties lm_head.
    missing = [k for k in missing if k != "lm_head.weight"]
    if missing or unexpected:
        raise SystemExit(f"{archive}: weights do not match BART of {bart_dir}: missing {missing[:8]}, "
                         f"unexpected {unexpected[:8]}")
    if model.lm_head.weight.data_ptr() != model.model.shared.weight.data_ptr():
        raise SystemExit("lm_head is not tied to the shared embeddings")

    tok = BartTokenizerFast(vocab_file=str(Path(bart_dir) / "vocab.json"),
                            merges_file=str(Path(bart_dir) / "merges.txt"))
    if len(tok) != base_vocab:
        raise SystemExit(f"{bart_dir}: tokenizer has {len(tok)} tokens, config.json says {base_vocab}")
    tok.add_tokens([AddedToken(t, lstrip=True, rstrip=True, normalized=False) for t in (SPAN_START, SPAN_END)])
    ids = tok.convert_tokens_to_ids([SPAN_START, SPAN_END])
    if ids != [base_vocab, base_vocab + 1]:
        raise SystemExit(f"markers got ids {ids}, expected {[base_vocab, base_vocab + 1]}")
    sample = "The trial enrolled <m> 240 adults </m> with asthma ."
    pieces = tok.convert_ids_to_tokens(tok(sample, add_special_tokens=False)["input_ids"])
    for m in (SPAN_START, SPAN_END):  # no space piece before a marker, no space on the piece after it
        i = pieces.index(m)
        if pieces[i - 1] == "\u0120" or pieces[i + 1].startswith("\u0120"):
            raise SystemExit(f"marker spacing not reproduced: {pieces}")

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(out, safe_serialization=True)
    tok.save_pretrained(out)
    # Round trip: every tensor written equals the archive's.
    back = BartForConditionalGeneration.from_pretrained(out).state_dict()
    n = 0
    for k, v in sd.items():
        if not torch.equal(back[k], v):
            raise SystemExit(f"round trip: {k} differs after save_pretrained")
        n += 1
    (out / "qaeval_archive.json").write_text(json.dumps({
        "archive": str(archive), "members": members, "model": model_cfg,
        "dataset_reader": config.get("dataset_reader", {}), "tensors": n,
        "markers": {SPAN_START: ids[0], SPAN_END: ids[1]},
        "tokenization": "AddedToken(lstrip=True, rstrip=True) = transformers 3.0.2 slow-tokenizer stripping"},
        indent=2) + "\n")
    print(f"wrote {out}: {n} tensors equal to the archive's, vocab {rows} ({SPAN_START}={ids[0]}, "
          f"{SPAN_END}={ids[1]}), sample {pieces}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--archive", required=True, type=Path, help="QAEval's model.tar.gz")
    ap.add_argument("--bart", required=True, type=Path,
                    help="directory with facebook/bart-large's config.json, vocab.json, merges.txt")
    ap.add_argument("--out", required=True, type=Path, help="Hugging Face output directory")
    a = ap.parse_args()
    convert(a.archive, a.bart, a.out)


if __name__ == "__main__":
    sys.exit(main())
