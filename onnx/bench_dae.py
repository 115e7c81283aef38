"""Reference side of the DAE row of ``cargo xtask bench all`` (not a test; writes under bench-out/dae).

DAE-2021 (Goyal & Durrett 2021, ``tagoyal/factuality-datasets`` @ 80e1902) has no package: its
``evaluate_generated_outputs.py`` asks a CoreNLP 3.9 server for the summary's parse and the
article's tokens, then runs ``train_utils.get_single_features`` (encoding, padding to
``max_seq_length`` 512) and ``ElectraDependencyModel.forward`` one summary per batch. CoreNLP cannot
be obtained here, so the **model step** is compared: both sides are given the same parse, from the
spaCy sidecar that factpico runs, and only what follows the parse is timed.

Two stages, two venvs:

``units --ckpt CKPT --documents documents.json --pairs N --out UNITS.json --torch-ckpt DIR``
    (the reference venv, ``cargo xtask venv reference``, with ``$FACTPICO_SIDECAR_PYTHON``):
    parses the first N InfoLossQA summaries with the sidecar in both of factpico's modes
    (``one_sentence`` for SingleParse, the reference's whole-summary parse; ``full`` for
    PerSentence) and turns the parses into DAE units exactly as factpico does (the port in
    ``tests/goldens/gen_dae.py``, checked arc by arc against the Rust pipeline by the DAE
    goldens): words, kept arcs (ignore list, first 20), relations. The articles are split into
    words by the same PTB approximation. Also rewrites the random ELECTRA-base checkpoint
    ``CKPT`` (``onnx/export_dae.py random --shape base``, safetensors) as the reference's
    ``save_pretrained`` directory ``DIR`` (``pytorch_model.bin`` in torch's legacy format, which
    torch 1.7 reads, ``config.json``, ``vocab.txt``, ``tokenizer_config.json``).

``reference --ckpt DIR --units UNITS.json --out OUT.json [--threads 2]``
    (DAE's own stack, ``cargo xtask venv dae``: transformers 2.11.0, torch 1.7.1; reference code
    from ``$FACTPICO_DAE_REFERENCE``, a checkout or git directory, imported unmodified):
    ``ElectraDependencyModel.from_pretrained`` and ``ElectraTokenizer.from_pretrained`` of DIR as
    the evaluation script loads them; a stand-in for ``pycorenlp.StanfordCoreNLP`` whose
    ``annotate`` answers, from a dictionary, the CoreNLP JSON of the given parse (``word``,
    ``pos``, ``enhancedDependencies`` with 1-based ``governor``/``dependent``) and of the article's
    words; then, per unit and timed, what ``evaluate_summary`` does up to the logits:
    ``get_single_features``, a ``DataLoader`` of batch 1, ``model(**inputs)`` under
    ``torch.no_grad()``, the first ``num_dependency`` rows, softmax. Units without arcs are not
    run, as in factpico; the first pair runs once untimed (warm-up). A unit on which the reference
    raises (its ``KeyError`` when an arc's word has no word pieces) is counted and left out.

OUT: ``{"threads", "peak_rss_mb" (ru_maxrss of this process), "torch", "transformers", "modes":
{"PerSentence"|"SingleParse": {"wall_s", "cpu_s", "arcs", "probs": [[p, ...] per pair],
"failed_pairs": [k, ...], "lengths": [[input length, number of arcs] per unit run]}}}``;
``lengths`` counts real tokens (the attention mask), the profile's input.
"""
import argparse
import json
import os
import shutil
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent

MODES = (("PerSentence", "full", "per_sentence"), ("SingleParse", "one_sentence", "reference"))


def cmd_units(args):
    sys.path.insert(0, str(ROOT / "tests" / "goldens"))
    import gen_dae
    import torch
    from safetensors.torch import load_file

    docs = json.loads(args.documents.read_text("utf-8"))[: args.pairs]
    pairs = [(d["abstract"], d["simplification"]) for d in docs]
    sidecar = gen_dae.Sidecar()
    out = {"pairs": len(pairs), "articles": [gen_dae.ptb_words(src) for src, _ in pairs], "modes": {}}
    for name, parse_mode, unit_mode in MODES:
        parses = sidecar.parse([s for _, s in pairs], parse_mode)
        per_pair = []
        for (_, summ), doc in zip(pairs, parses):
            units = gen_dae.spacy_units(summ, doc, unit_mode)
            per_pair.append([{"words": words, "arcs": [[h, c] for h, c in warcs], "rels": [r for _, _, r in arcs]}
                             for (_si, words, warcs, arcs, _n) in units])
        out["modes"][name] = per_pair
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(out), "utf-8")

    d = args.torch_ckpt
    if d.exists():
        shutil.rmtree(d)
    d.mkdir(parents=True)
    sd = load_file(str(args.ckpt / "model.safetensors"))
    torch.save(sd, str(d / "pytorch_model.bin"), _use_new_zipfile_serialization=False)
    for f in ("config.json", "vocab.txt"):
        shutil.copy(args.ckpt / f, d / f)
    (d / "tokenizer_config.json").write_text('{"do_lower_case": true}\n', "utf-8")
    n = sum(len(u) for u in out["modes"]["PerSentence"])
    print(f"units: {len(pairs)} pairs, {n} per-sentence units; checkpoint rewritten to {d}")


class CoreNLPStandIn:
    """Answers ``annotate`` from a dictionary (text key -> CoreNLP JSON); stands in for the
    CoreNLP server that the reference's evaluation script queries."""

    def __init__(self):
        self.answers = {}

    def annotate(self, text, properties=None):
        return self.answers[text]


def cmd_reference(args):
    import numpy as np
    import torch
    import transformers
    from torch.utils.data import DataLoader, SequentialSampler
    from transformers import ElectraTokenizer

    torch.set_num_threads(args.threads)
    sys.path.insert(0, str(HERE / "replicas"))
    import _util
    src = _util.reference_source("FACTPICO_DAE_REFERENCE", "tagoyal/factuality-datasets", "train_utils.py")
    tu = _util.load_module_from_source("train_utils", src, "train_utils.py")

    model, info = tu.ElectraDependencyModel.from_pretrained(str(args.ckpt), output_loading_info=True)
    missing = [k for k in info["missing_keys"] if not k.endswith("position_ids")]
    if missing or info["unexpected_keys"]:
        raise SystemExit(f"checkpoint does not match ElectraDependencyModel: {info}")
    model.eval()
    tok = ElectraTokenizer.from_pretrained(str(args.ckpt))
    units = json.loads(args.units.read_text("utf-8"))
    nlp = CoreNLPStandIn()
    for k, words in enumerate(units["articles"]):
        nlp.answers[f"article {k}"] = {"tokens": [{"word": w} for w in words]}
    opts = argparse.Namespace(max_seq_length=512, device=torch.device("cpu"))

    def step(k, u, key):
        """One unit: evaluate_summary up to the arc logits; returns (probs, real length)."""
        w = u["words"]
        nlp.answers[key] = {"sentences": [{
            "tokens": [{"word": x, "pos": "X"} for x in w],
            "enhancedDependencies": [{"dep": r, "dependent": c + 1, "dependentGloss": w[c], "governor": h + 1,
                                      "governorGloss": w[h]} for (h, c), r in zip(u["arcs"], u["rels"])],
        }]}
        dataset = tu.get_single_features(key, f"article {k}", tok, nlp, opts)
        loader = DataLoader(dataset, sampler=SequentialSampler(dataset), batch_size=1)
        batch = tuple(t.to(opts.device) for t in [t for t in loader][0])
        with torch.no_grad():
            inputs = {"input_ids": batch[0], "attention": batch[1], "child": batch[2], "head": batch[3],
                      "mask_entail": batch[4], "mask_cont": batch[5], "num_dependency": batch[6],
                      "sent_label": batch[8], "device": opts.device}
            logits = model(**inputs)[1].detach().squeeze(0)[: int(batch[6][0]), :].cpu().numpy()
        x = logits.astype(np.float32)
        e = np.exp(x - x.max(axis=-1, keepdims=True))
        p = e / e.sum(axis=-1, keepdims=True)
        return [float(v) for v in p[:, 1]], int(batch[1][0].sum())

    modes = {}
    for name, _, _ in MODES:
        per_pair = units["modes"][name]
        for j, u in enumerate(per_pair[0]):  # warm-up, untimed
            if u["arcs"]:
                step(0, u, f"warm-up {j}")
        probs, failed, lengths = [[] for _ in per_pair], [], []
        t0, c0 = time.perf_counter(), time.process_time()
        for k, us in enumerate(per_pair):
            for j, u in enumerate(us):
                if not u["arcs"]:
                    continue
                try:
                    p, n = step(k, u, f"{name} {k} {j}")
                except KeyError:
                    failed.append(k)
                    continue
                probs[k].extend(p)
                lengths.append([n, len(p)])
        secs, cpu = time.perf_counter() - t0, time.process_time() - c0
        arcs = sum(len(p) for p in probs)
        modes[name] = {"wall_s": secs, "cpu_s": cpu, "arcs": arcs, "probs": probs, "failed_pairs": sorted(set(failed)),
                       "lengths": lengths}
        print(f"reference {name}: {len(per_pair)} pairs, {len(lengths)} model passes, {arcs} arcs in {secs:.1f} s "
              f"(CPU {cpu:.1f} s); {len(set(failed))} pair(s) with a unit the reference raised on")
    import resource
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    _util.write_json(args.out, {"pairs": units["pairs"], "threads": args.threads, "peak_rss_mb": rss_mb,
                                "torch": torch.__version__, "transformers": transformers.__version__,
                                "modes": modes})


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd")
    u = sub.add_parser("units")
    u.add_argument("--ckpt", type=Path, required=True)
    u.add_argument("--documents", type=Path, required=True)
    u.add_argument("--pairs", type=int, default=20)
    u.add_argument("--out", type=Path, required=True)
    u.add_argument("--torch-ckpt", type=Path, required=True)
    r = sub.add_parser("reference")
    r.add_argument("--ckpt", type=Path, required=True)
    r.add_argument("--units", type=Path, required=True)
    r.add_argument("--out", type=Path, required=True)
    r.add_argument("--threads", type=int, default=2)
    a = ap.parse_args()
    if a.cmd == "units":
        cmd_units(a)
    elif a.cmd == "reference":
        cmd_reference(a)
    else:
        ap.error("units or reference")


if __name__ == "__main__":
    main()
