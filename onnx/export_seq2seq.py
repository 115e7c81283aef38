#!/usr/bin/env python3
"""Export a Hugging Face seq2seq checkpoint (T5 or BART family) to a factpico model directory.

Output directory layout (optimum-style, what `factpico_runtime::Seq2SeqModel` loads):

    encoder_model.onnx              input_ids, attention_mask -> last_hidden_state
    decoder_model.onnx              first step (no cache)       } --layout split (default)
    decoder_with_past_model.onnx    later steps (KV cache)      }
    decoder_model_merged.onnx       both, switched by use_cache_branch  (--layout merged)
    tokenizer.json                  fast tokenizer (converted from the slow one if needed)
    factpico.json                   manifest: task "seq2seq" + a "seq2seq" section
    config.json, generation_config.json   copied for reference

The export itself is `optimum.exporters.onnx.main_export(task="text2text-generation-with-past")`
(optimum 1.23.x with transformers 4.46.3). The manifest records the decoder start token,
EOS/pad ids, the family, the tokenizer's maximum source length, the generation defaults of
the checkpoint (`max_length`, `num_beams`, ...) and, for QuestEval's QA model, the id whose
step-0 probability is "unanswerable": QuestEval hard-codes 73 (`questeval_metric.py:714-715`,
"the index for the token unanswerable in T5 vocabulary"), so the QuestEval export passes
`--unanswerable-id 73`. "unanswerable" is not one piece of T5's vocabulary; the script prints
which piece id 73 is and how "unanswerable" is split, and warns when the split does not start
with that id. `--unanswerable-token TOKEN` instead looks the id up and requires TOKEN to be a
single piece (for models whose vocabulary has one).

For BART question generators with QAEval's `<m>`/`</m>` markers, the script warns when the
tokenizer does not strip the whitespace around them as QAEval's transformers 3.0.2 tokenizer
did: convert QAEval's archive with `convert_qaeval_qg.py` first.

Usage:
    python onnx/export_seq2seq.py CHECKPOINT OUT_DIR [--layout split|merged]
        [--unanswerable-id 73 | --unanswerable-token TOKEN]
        [--source-max-length 512] [--qg-prefix sv1] [--role qg|qa|weighter] [--checkpoint-name NAME]

Example (QuestEval's models, where the hub is reachable; `cargo xtask models questeval-qg`
and `questeval-qa` run exactly this):
    python onnx/export_seq2seq.py ThomasNLG/t5-qg_squad1-en models/questeval-qg --role qg --qg-prefix sv1
    python onnx/export_seq2seq.py ThomasNLG/t5-qa_squad2neg-en models/questeval-qa --role qa --unanswerable-id 73
"""
import argparse
import hashlib
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import weights_sha256  # noqa: E402


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def check_markers(tok):
    """Warns when QAEval's answer markers are not stripped like transformers 3.0.2 did."""
    added = {t.content: t for t in tok.backend_tokenizer.get_added_tokens_decoder().values()}
    for m in ("<m>", "</m>"):
        t = added.get(m)
        if t is not None and not (t.lstrip and t.rstrip):
            print(f"WARNING: {m} is an added token without lstrip/rstrip; QAEval's tokenizer (transformers 3.0.2, "
                  f"slow) strips the whitespace around it, so factpico's QG input would differ. Convert QAEval's "
                  f"archive with onnx/convert_qaeval_qg.py (cargo xtask models qafacteval-qg).", file=sys.stderr)


def check_unanswerable_id(tok, unanswerable_id):
    """Prints which piece `unanswerable_id` is and how "unanswerable" is split; warns when the
    split does not start with it (QuestEval reads P(id) at the first decoding step)."""
    piece = tok.convert_ids_to_tokens(unanswerable_id)
    ids = tok("unanswerable", add_special_tokens=False)["input_ids"]
    pieces = tok.convert_ids_to_tokens(ids)
    print(f"unanswerable id {unanswerable_id} = {piece!r}; 'unanswerable' = {pieces} (ids {ids})")
    if not ids or ids[0] != unanswerable_id:
        print(f"WARNING: 'unanswerable' does not start with id {unanswerable_id} in this vocabulary; QuestEval's "
              f"answerability reads P(id {unanswerable_id}) anyway (questeval_metric.py:714-715)", file=sys.stderr)
    return {"id": unanswerable_id, "piece": piece, "unanswerable_pieces": pieces,
            "starts_unanswerable": bool(ids) and ids[0] == unanswerable_id}


def export(checkpoint, out_dir, layout="split", unanswerable_token=None, unanswerable_id=None,
           source_max_length=512, qg_prefix=None, role=None, atol=1e-4, checkpoint_name=None):
    import transformers
    import optimum
    from optimum.exporters.onnx import main_export
    from transformers import AutoConfig, AutoTokenizer

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    cfg = AutoConfig.from_pretrained(checkpoint)
    family = cfg.model_type
    if family not in ("t5", "bart", "mt5"):
        print(f"warning: model_type {family!r} is neither T5 nor BART; exporting anyway", file=sys.stderr)

    with tempfile.TemporaryDirectory() as tmp:
        main_export(str(checkpoint), output=tmp, task="text2text-generation-with-past", library_name="transformers",
                    no_post_process=(layout == "split"), atol=atol, opset=14)
        wanted = ["encoder_model.onnx"] + (
            ["decoder_model.onnx", "decoder_with_past_model.onnx"] if layout == "split"
            else ["decoder_model_merged.onnx"])
        for name in wanted:
            src = Path(tmp) / name
            if not src.exists():
                raise SystemExit(f"optimum did not produce {name}; files: {os.listdir(tmp)}")
            if (Path(tmp) / (name + "_data")).exists():
                raise SystemExit(f"{name} uses external data; models > 2 GB are not supported")
            shutil.copy(src, out / name)
        for name in ("config.json", "generation_config.json"):
            if (Path(tmp) / name).exists():
                shutil.copy(Path(tmp) / name, out / name)

    # Fast tokenizer (T5: converted from the SentencePiece model; BART: from vocab/merges).
    tok = AutoTokenizer.from_pretrained(checkpoint, use_fast=True)
    tok.backend_tokenizer.no_truncation()
    tok.backend_tokenizer.no_padding()
    tok.backend_tokenizer.save(str(out / "tokenizer.json"))

    gen = transformers.GenerationConfig.from_model_config(cfg)
    try:
        gen = transformers.GenerationConfig.from_pretrained(checkpoint)
    except Exception:  # noqa: BLE001 - no generation_config.json: model-config defaults
        pass

    if unanswerable_token is not None:
        ids = tok.convert_tokens_to_ids([unanswerable_token, "\u2581" + unanswerable_token])
        ids = [i for i in ids if i is not None and i != tok.unk_token_id]
        if not ids:
            raise SystemExit(f"token {unanswerable_token!r} is not a single piece of this vocabulary")
        if unanswerable_id is not None and unanswerable_id not in ids:
            raise SystemExit(f"--unanswerable-id {unanswerable_id} is {tok.convert_ids_to_tokens(unanswerable_id)!r}, "
                             f"not {unanswerable_token!r} (ids {ids})")
        unanswerable_id = ids[0]
    unanswerable_check = None
    if unanswerable_id is not None:
        unanswerable_check = check_unanswerable_id(tok, unanswerable_id)
    if family == "bart":
        check_markers(tok)

    decoder_start = cfg.decoder_start_token_id
    if decoder_start is None:
        decoder_start = cfg.pad_token_id
    eos = cfg.eos_token_id
    pad = cfg.pad_token_id
    d_model = getattr(cfg, "d_model", None)
    num_layers = getattr(cfg, "num_decoder_layers", None) or getattr(cfg, "decoder_layers", None) \
        or getattr(cfg, "num_layers", None)
    num_heads = getattr(cfg, "num_heads", None) or getattr(cfg, "decoder_attention_heads", None)
    head_dim = getattr(cfg, "d_kv", None) or (d_model // num_heads if d_model and num_heads else None)
    manifest = {
        "schema_version": 1,
        "architecture": family,
        "task": "seq2seq",
        "inputs": ["input_ids", "attention_mask"],
        "outputs": ["logits"],
        "labels": {},
        "max_length": int(source_max_length),
        "pair_template": "",
        "truncation": {"strategy": "longest_first", "side": "right", "fallback": None},
        "pad_token_id": int(pad),
        "source": {"checkpoint": checkpoint_name or str(checkpoint), "sha256": weights_sha256(checkpoint)},
        "exporter": {
            "name": "factpico onnx/export_seq2seq.py",
            "version": f"optimum {optimum.version.__version__}, transformers {transformers.__version__}",
        },
        "seq2seq": {
            "family": family,
            "layout": layout,
            "role": role,
            "vocab_size": int(cfg.vocab_size),
            "decoder_start_token_id": int(decoder_start),
            "bos_token_id": None if cfg.bos_token_id is None else int(cfg.bos_token_id),
            "eos_token_id": int(eos),
            "pad_token_id": int(pad),
            "num_decoder_layers": num_layers,
            "num_heads": num_heads,
            "head_dim": head_dim,
            "unanswerable_token_id": unanswerable_id,
            "unanswerable_check": unanswerable_check,
            "qg_prefix": qg_prefix,
            "generation": {
                "max_length": gen.max_length,
                "num_beams": gen.num_beams,
                "length_penalty": gen.length_penalty,
                "early_stopping": gen.early_stopping,
                "min_length": gen.min_length,
                "no_repeat_ngram_size": gen.no_repeat_ngram_size,
                "forced_bos_token_id": gen.forced_bos_token_id,
                "forced_eos_token_id": gen.forced_eos_token_id,
            },
            "files": {name: sha256(out / name) for name in sorted(os.listdir(out)) if name.endswith(".onnx")},
        },
    }
    (out / "factpico.json").write_text(json.dumps(manifest, indent=2) + "\n")
    return manifest


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("checkpoint")
    ap.add_argument("out_dir")
    ap.add_argument("--layout", choices=["split", "merged"], default="split")
    ap.add_argument("--unanswerable-token")
    ap.add_argument("--unanswerable-id", type=int)
    ap.add_argument("--source-max-length", type=int, default=512)
    ap.add_argument("--qg-prefix")
    ap.add_argument("--role", choices=["qg", "qa", "weighter"])
    ap.add_argument("--checkpoint-name", help="name/URL recorded in the manifest (default: CHECKPOINT)")
    a = ap.parse_args()
    export(a.checkpoint, a.out_dir, a.layout, a.unanswerable_token, a.unanswerable_id,
           a.source_max_length, a.qg_prefix, a.role, checkpoint_name=a.checkpoint_name)


if __name__ == "__main__":
    main()
