"""int8 recipe frontier on a real-weight NLI cross-encoder (issue 26, item 1).

Quantises ``MODEL_DIR/model.onnx`` with each recipe that ``onnxruntime.quantization`` offers
(dynamic per-tensor / per-channel, with and without fp32 nodes; static QDQ calibrated with
MinMax / Entropy / Percentile, per-channel weights, reduce_range, fp32 nodes; SmoothQuant
when ``neural_compressor`` is importable) and measures every graph against fp32 on the same
evaluation pairs: mean / max |Δ| of the score, Kendall τ_b between int8 and fp32 scores, and
the process-CPU-time speed-up over fp32 (median of ``--repeats`` timed runs).

Inputs
  --model-dir   an NLI cross-encoder directory (model.onnx, tokenizer.json, config.json whose
                id2label has ``entailment``), e.g. ``../shared/models/minilm-nli``.
  --docs        InfoLossQA's 200-abstract pool (``../shared/data/infolossqa/processed/
                documents.json``, CC BY 4.0): real RCT abstracts and their GPT-4
                plain-language versions.
Outputs (``--out``)
  ``<recipe>.onnx`` per recipe, ``results.json`` (every recipe's figures and settings,
  the evaluation scores), ``sensitivity.json`` (per-node drift scan), and a markdown table
  on stdout.

Pairs (deterministic, no randomness beyond ``random.Random(26)``):
  * documents sorted by PMCID and shuffled with seed 26; the first 100 are evaluation
    documents, the other 100 calibration documents, so calibration and evaluation pairs
    never share an abstract (nor a pair).
  * abstract -> sentences (regex split; section headings such as "METHODS." dropped) ->
    chunks of consecutive sentences up to ``--chunk-words`` (100) whitespace words;
    simplification -> sentences of >= 5 words.
  * for every simplification sentence: one pair with the chunk of the same abstract that
    shares the most words (the pair that decides AlignScore's max over chunks) and one with
    a different chunk chosen by the seeded RNG (a low-entailment pair), so the scores span
    [0, 1].  The pairs of each side are shuffled with seed 26 and the first ``--eval-pairs``
    (300) / ``--cal-pairs`` (128) are kept.
  * encoded as a pair (premise = abstract chunk, hypothesis = plain sentence), truncating
    only the premise to ``--max-length`` (256).
Score: the entailment probability, softmax(logits)[entailment] — the alignment value of
factpico's AlignScore ``nli_sp`` mode with an NLI model (per chunk x claim sentence pair,
before the max over chunks / mean over sentences).

Timing: one session per graph, ``intra_op_num_threads=--threads`` (1), inter-op 1,
sequential execution, spinning off, ORT_ENABLE_ALL; calibration batches are padded to
--max-length (masked), evaluation pairs run in their fixed order in
batches of ``--batch`` (8) padded to the longest in the batch; one untimed warm-up pass,
then ``--repeats`` (3) timed passes over all evaluation pairs; the figure is the median
process CPU time (``time.process_time``).  Speed-up = fp32 median / recipe median.

    python3 -m venv /tmp/q && /tmp/q/bin/pip install onnxruntime==1.32.0 onnx numpy scipy tokenizers sympy
    # optional, for the SmoothQuant recipe: neural-compressor<3 six (then numpy>=2 again for onnx)
    /tmp/q/bin/python onnx/int8_recipes.py --model-dir ../shared/models/minilm-nli \\
        --docs ../shared/data/infolossqa/processed/documents.json --out /tmp/int8-recipes
"""
import argparse
import json
import os
import random
import re
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
from onnxruntime.quantization import (CalibrationDataReader, CalibrationMethod, QuantFormat,
                                      QuantType, quantize_dynamic, quantize_static)
from scipy.stats import kendalltau
from tokenizers import Tokenizer

SEED = 26
HEADING = re.compile(r"^[A-Z][A-Z /&-]{2,}[.:]?$")
SENT_SPLIT = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9(\"'])")


def sentences(text):
    out = []
    for line in text.split("\n"):
        line = line.strip()
        if not line or HEADING.match(line):
            continue
        out.extend(s.strip() for s in SENT_SPLIT.split(line) if s.strip())
    return out


def chunks(sents, max_words):
    out, cur, n = [], [], 0
    for s in sents:
        w = len(s.split())
        if cur and n + w > max_words:
            out.append(" ".join(cur))
            cur, n = [], 0
        cur.append(s)
        n += w
    if cur:
        out.append(" ".join(cur))
    return out


def words(s):
    return set(re.findall(r"[a-z0-9]+", s.lower()))


def doc_pairs(doc, rng, chunk_words):
    chs = chunks(sentences(doc["abstract"]), chunk_words)
    hyps = [s for s in sentences(doc["simplification"]) if len(s.split()) >= 5]
    pairs = []
    cw = [words(c) for c in chs]
    for h in hyps:
        hw = words(h)
        best = max(range(len(chs)), key=lambda i: (len(hw & cw[i]) / (len(hw) or 1), -i))
        pairs.append((chs[best], h, "best"))
        others = [i for i in range(len(chs)) if i != best]
        if others:
            pairs.append((chs[rng.choice(others)], h, "other"))
    return pairs


def make_pairs(docs_path, n_eval, n_cal, chunk_words):
    docs = sorted(json.loads(Path(docs_path).read_text("utf-8")), key=lambda d: str(d["PMCID"]))
    rng = random.Random(SEED)
    rng.shuffle(docs)
    half = len(docs) // 2
    ev, cal = [], []
    for d in docs[:half]:
        ev.extend(doc_pairs(d, rng, chunk_words))
    for d in docs[half:]:
        cal.extend(doc_pairs(d, rng, chunk_words))
    rng.shuffle(ev)
    rng.shuffle(cal)
    assert not {(p, h) for p, h, _ in ev} & {(p, h) for p, h, _ in cal}
    return ev[:n_eval], cal[:n_cal], [str(d["PMCID"]) for d in docs[:half]]


def encode(tok, pairs, max_length):
    tok.no_padding()
    tok.enable_truncation(max_length, strategy="only_first")
    encs = tok.encode_batch([(p, h) for p, h, _ in pairs])
    return [(np.array(e.ids, np.int64), np.array(e.type_ids, np.int64)) for e in encs]


def batches(encs, bs, pad_to=None):
    for i in range(0, len(encs), bs):
        part = encs[i:i + bs]
        L = pad_to or max(len(ids) for ids, _ in part)
        ids = np.zeros((len(part), L), np.int64)
        tt = np.zeros_like(ids)
        am = np.zeros_like(ids)
        for j, (a, t) in enumerate(part):
            ids[j, :len(a)] = a
            tt[j, :len(a)] = t
            am[j, :len(a)] = 1
        yield {"input_ids": ids, "attention_mask": am, "token_type_ids": tt}


def options(threads, config=()):
    """The timing sessions' options (see the module docstring), plus session config entries
    ``config`` (``(key, value)`` pairs)."""
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    so.add_session_config_entry("session.intra_op.allow_spinning", "0")
    for k, v in config:
        so.add_session_config_entry(k, v)
    return so


def session(path, threads, config=()):
    return ort.InferenceSession(str(path), options(threads, config), providers=["CPUExecutionProvider"])


def scores(sess, encs, bs, ent):
    names = {i.name for i in sess.get_inputs()}
    out = []
    for feed in batches(encs, bs):
        logits = sess.run(None, {k: v for k, v in feed.items() if k in names})[0].astype(np.float64)
        e = np.exp(logits - logits.max(1, keepdims=True))
        out.append(e[:, ent] / e.sum(1))
    return np.concatenate(out)


def timed(path, encs, bs, ent, threads, repeats, config=()):
    sess = session(path, threads, config)
    s = scores(sess, encs, bs, ent)  # warm-up (untimed); also the scores
    cpu, wall = [], []
    for _ in range(repeats):
        c0, w0 = time.process_time(), time.perf_counter()
        s2 = scores(sess, encs, bs, ent)
        cpu.append(time.process_time() - c0)
        wall.append(time.perf_counter() - w0)
        assert np.array_equal(s, s2), "non-deterministic scores"
    return s, statistics.median(cpu), statistics.median(wall), cpu


class Reader(CalibrationDataReader):
    # Calibration batches are padded to one fixed length: the histogram calibrators (Entropy,
    # Percentile) stack every batch's tensors and fail on ragged shapes.
    def __init__(self, encs, bs, names, pad_to):
        self.feeds = [{k: v for k, v in f.items() if k in names} for f in batches(encs, bs, pad_to)]
        self.it = iter(self.feeds)

    def get_next(self):
        return next(self.it, None)

    def rewind(self):
        self.it = iter(self.feeds)


def weight_nodes(model_path):
    m = onnx.load(str(model_path), load_external_data=False)
    inits = {i.name for i in m.graph.initializer}
    return [n.name for n in m.graph.node
            if n.op_type in ("MatMul", "Gemm") and len(n.input) > 1 and n.input[1] in inits]


def attention_matmuls(model_path):
    m = onnx.load(str(model_path), load_external_data=False)
    inits = {i.name for i in m.graph.initializer}
    return [n.name for n in m.graph.node
            if n.op_type == "MatMul" and not any(i in inits for i in n.input)]


def drift(a, b):
    d = np.abs(a - b)
    tau = kendalltau(a, b).statistic  # tau-b (scipy's default variant)
    return float(d.mean()), float(d.max()), float(tau)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model-dir", type=Path, required=True)
    ap.add_argument("--docs", type=Path, required=True)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--eval-pairs", type=int, default=300)
    ap.add_argument("--cal-pairs", type=int, default=128)
    ap.add_argument("--scan-pairs", type=int, default=64,
                    help="calibration pairs used for the per-node sensitivity scan")
    ap.add_argument("--chunk-words", type=int, default=100)
    ap.add_argument("--max-length", type=int, default=256)
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--only", default=None, help="regex: run only recipes whose name matches (fp32 always runs)")
    ap.add_argument("--skip-scan", action="store_true", help="reuse OUT/sensitivity.json")
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)

    cfg = json.loads((args.model_dir / "config.json").read_text("utf-8"))
    ent = int({v.lower(): k for k, v in cfg["id2label"].items()}["entailment"])
    tok = Tokenizer.from_file(str(args.model_dir / "tokenizer.json"))
    ev, cal, ev_docs = make_pairs(args.docs, args.eval_pairs, args.cal_pairs, args.chunk_words)
    ev_enc, cal_enc = encode(tok, ev, args.max_length), encode(tok, cal, args.max_length)
    ntok = sum(len(i) for i, _ in ev_enc)
    print(f"eval pairs {len(ev)} ({sum(k == 'best' for *_, k in ev)} best-overlap), {ntok} tokens, "
          f"cut {sum(len(i) >= args.max_length for i, _ in ev_enc)}; calibration pairs {len(cal)}", flush=True)

    fp32 = args.model_dir / "model.onnx"
    names = {i.name for i in session(fp32, 1).get_inputs()}
    pre = args.out / "fp32-pre.onnx"
    if not pre.exists():
        from onnxruntime.quantization.shape_inference import quant_pre_process
        quant_pre_process(str(fp32), str(pre), skip_symbolic_shape=True)  # symbolic inference is incomplete on this export
    wn = weight_nodes(fp32)
    wn_pre = weight_nodes(pre)
    att_pre = attention_matmuls(pre)

    # Per-node sensitivity: dynamic per-channel int8 of ONE weight MatMul/Gemm at a time,
    # mean |Δ| on calibration pairs (never the evaluation pairs).
    scan_path = args.out / "sensitivity.json"
    if args.skip_scan and scan_path.exists():
        sens = json.loads(scan_path.read_text())
    else:
        scan_enc = cal_enc[:args.scan_pairs]
        base = scores(session(fp32, args.threads), scan_enc, args.batch, ent)
        sens = {}
        tmp = args.out / "scan.onnx"
        for n in wn:
            quantize_dynamic(str(fp32), str(tmp), weight_type=QuantType.QInt8, per_channel=True, nodes_to_quantize=[n])
            s = scores(session(tmp, args.threads), scan_enc, args.batch, ent)
            sens[n] = float(np.abs(s - base).mean())
            print(f"  scan {n}: {sens[n]:.4f}", flush=True)
        tmp.unlink()
        scan_path.write_text(json.dumps(sens, indent=1))
    ranked = sorted(sens, key=sens.get, reverse=True)
    print("most sensitive:", [(n, round(sens[n], 4)) for n in ranked[:8]], flush=True)
    ffn_out = [n for n in wn if "/output/dense/" in n and "attention" not in n]

    def dyn(per_channel, exclude=()):
        return lambda out: quantize_dynamic(str(fp32), str(out), weight_type=QuantType.QInt8,
                                            per_channel=per_channel, nodes_to_exclude=list(exclude))

    def stat(method, exclude=(), reduce_range=False, ops=("MatMul", "Gemm"), extra=None, per_channel=True):
        def f(out):
            ex = {"ActivationSymmetric": False, "WeightSymmetric": True}
            if method == CalibrationMethod.Percentile:
                ex["CalibPercentile"] = 99.999
            ex.update(extra or {})
            quantize_static(str(pre), str(out), Reader(cal_enc, args.batch, names, args.max_length), quant_format=QuantFormat.QDQ,
                            op_types_to_quantize=list(ops), per_channel=per_channel, reduce_range=reduce_range,
                            activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8,
                            nodes_to_exclude=list(exclude), calibrate_method=method, extra_options=ex)
        return f

    def pre_names(nodes):  # node names survive quant_pre_process; keep only those present
        return [n for n in nodes if n in set(wn_pre)]

    MM, EN, PC = CalibrationMethod.MinMax, CalibrationMethod.Entropy, CalibrationMethod.Percentile
    k4, k8, k12 = ranked[:4], ranked[:8], ranked[:12]
    recipes = [
        # name, calibration, fp32 nodes (description), builder
        ("dyn-per-tensor", "none (dynamic)", "none", dyn(False)),
        ("dyn-per-channel", "none (dynamic)", "none (today's quantize.py)", dyn(True)),
        ("dyn-pc-fp32-ffn-out", "none (dynamic)", f"{len(ffn_out)} FFN output MatMuls", dyn(True, ffn_out)),
        ("dyn-pc-fp32-top4", "none (dynamic)", "4 most sensitive (scan)", dyn(True, k4)),
        ("dyn-pc-fp32-top8", "none (dynamic)", "8 most sensitive (scan)", dyn(True, k8)),
        ("dyn-pc-fp32-top12", "none (dynamic)", "12 most sensitive (scan)", dyn(True, k12)),
        ("qdq-minmax", "MinMax, 128 pairs", "none", stat(MM)),
        ("qdq-minmax-fp32-attn", "MinMax, 128 pairs", f"{len(att_pre)} attention MatMuls", stat(MM, att_pre)),
        ("qdq-entropy-fp32-attn", "Entropy, 128 pairs", "attention MatMuls", stat(EN, att_pre)),
        ("qdq-percentile-fp32-attn", "Percentile 99.999, 128 pairs", "attention MatMuls", stat(PC, att_pre)),
        ("qdq-minmax-rr-fp32-attn", "MinMax, 128 pairs, reduce_range", "attention MatMuls",
         stat(MM, att_pre, reduce_range=True)),
        ("qdq-minmax-fp32-attn-top8", "MinMax, 128 pairs", "attention + 8 most sensitive",
         stat(MM, att_pre + pre_names(k8))),
        ("qdq-percentile-fp32-attn-ffn-out", "Percentile 99.999, 128 pairs", "attention + FFN output",
         stat(PC, att_pre + pre_names(ffn_out))),
    ]
    try:
        import importlib
        importlib.import_module("neural_compressor.adaptor.ox_utils.smooth_quant")
        recipes.append(("qdq-smoothquant-fp32-attn", "MinMax + SmoothQuant a=0.5, 128 pairs", "attention MatMuls",
                        stat(MM, att_pre, extra={"SmoothQuant": True, "SmoothQuantAlpha": 0.5})))
        recipes.append(("qdq-smoothquant-nofold-fp32-attn", "MinMax + SmoothQuant a=0.5 (Mul not folded), 128 pairs",
                        "attention MatMuls", stat(MM, att_pre, extra={"SmoothQuant": True, "SmoothQuantAlpha": 0.5,
                                                                      "SmoothQuantFolding": False})))
    except Exception as e:  # noqa: BLE001
        print(f"SmoothQuant skipped: neural_compressor not importable ({type(e).__name__}: {e})", flush=True)

    res_path = args.out / "results.json"
    results = json.loads(res_path.read_text()) if res_path.exists() else {}
    load0 = os.getloadavg()
    s32, c32, w32, cl32 = timed(fp32, ev_enc, args.batch, ent, args.threads, args.repeats)
    results["fp32"] = {"calibration": "-", "fp32_nodes": "all", "cpu_s": c32, "wall_s": w32, "cpu_runs": cl32,
                       "size_mb": fp32.stat().st_size / 1e6, "mean": 0.0, "max": 0.0, "tau_b": 1.0, "speedup": 1.0}
    print(f"fp32: cpu {c32:.2f} s (runs {[round(x, 2) for x in cl32]}), wall {w32:.2f} s", flush=True)
    for name, calib, excl, build in recipes:
        if args.only and not re.search(args.only, name):
            continue
        out = args.out / f"{name}.onnx"
        t0 = time.perf_counter()
        try:
            build(out)
        except Exception as e:  # noqa: BLE001
            print(f"{name}: FAILED to build ({type(e).__name__}: {e})", flush=True)
            results[name] = {"calibration": calib, "fp32_nodes": excl, "error": f"{type(e).__name__}: {e}"}
            continue
        qt = time.perf_counter() - t0
        s, c, w, cl = timed(out, ev_enc, args.batch, ent, args.threads, args.repeats)
        mean, mx, tau = drift(s, s32)
        results[name] = {"calibration": calib, "fp32_nodes": excl, "cpu_s": c, "wall_s": w, "cpu_runs": cl,
                         "size_mb": out.stat().st_size / 1e6, "mean": mean, "max": mx, "tau_b": tau,
                         "speedup": c32 / c, "quantize_s": qt, "scores": s.tolist()}
        print(f"{name}: mean {mean:.4f} max {mx:.4f} tau_b {tau:.4f} cpu {c:.2f} s ({c32 / c:.2f}x) "
              f"size {out.stat().st_size / 1e6:.1f} MB", flush=True)
        res_path.write_text(json.dumps(results, indent=1))
    load1 = os.getloadavg()
    results["_meta"] = {"date": time.strftime("%Y-%m-%d %H:%M"), "ort": ort.__version__, "load_before": load0,
                        "load_after": load1, "eval_pairs": len(ev), "eval_tokens": ntok, "eval_docs": ev_docs,
                        "fp32_scores": s32.tolist(), "threads": args.threads, "batch": args.batch,
                        "repeats": args.repeats, "max_length": args.max_length}
    res_path.write_text(json.dumps(results, indent=1))
    print(f"\nload average before {load0}, after {load1}\n")
    print("| recipe | calibration | kept in fp32 | mean / max abs Δ | τ_b | CPU s (median of "
          f"{args.repeats}) | speed-up vs fp32 | size |\n|---|---|---|---|---|---|---|---|")
    for name, r in results.items():
        if name.startswith("_"):
            continue
        if "error" in r:
            print(f"| {name} | {r['calibration']} | {r['fp32_nodes']} | failed: {r['error'][:80]} | | | | |")
            continue
        print(f"| {name} | {r['calibration']} | {r['fp32_nodes']} | {r['mean']:.4f} / {r['max']:.4f} | "
              f"{r['tau_b']:.4f} | {r['cpu_s']:.2f} | {r['speedup']:.2f}x | {r['size_mb']:.1f} MB |")


if __name__ == "__main__":
    sys.exit(main())
