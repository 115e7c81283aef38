"""Does ONNX Runtime's CPU provider gain anything from AVX512-BF16 on factpico's graphs?
(issue 26, item 2: one measurement, reported either way; only a gain with drift within the int8
target -- mean <= 0.01, max <= 0.05 -- would be shipped.)

Three probes, all with the ``onnxruntime`` the engine loads (1.32.0), 1 intra-op thread:

1. **One MatMul** at a BERT feed-forward shape (``[1024, 384] x [384, 1536]``, fp32 inputs
   cast to the probed type inside the graph and back): bf16, fp16 and fp32, and fp32 with the
   session entry ``mlas.enable_gemm_fastmath_arm64_bfloat16 = 1`` (the only bf16 switch ONNX
   Runtime has; its name says arm64). Per variant: loads or not (the error), median process CPU
   time of 10 runs, GFLOP/s, max relative error against numpy fp32.
2. **The whole cross-encoder** (``--model-dir``, e.g. the real-weight MiniLM NLI of
   ``../shared``) with every weight MatMul rewritten to ``Cast(x) -> MatMul(T) -> Cast(fp32)``
   (weights cast in the graph, constant-folded by ONNX Runtime at load), T = bf16 and fp16,
   and the fp32 graph with the fastmath entry: loads or not, then drift and CPU time against
   fp32 on the evaluation pairs of ``int8_recipes.py`` (same pairs, batching and timing).

    python onnx/bf16_check.py --model-dir ../shared/models/minilm-nli \\
        --docs ../shared/data/infolossqa/processed/documents.json --out /tmp/bf16 [--eval-pairs 300]

Writes ``OUT/results.json`` and prints a markdown table.
"""
import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper

sys.path.insert(0, str(Path(__file__).resolve().parent))
import int8_recipes as ir  # noqa: E402

FASTMATH = "mlas.enable_gemm_fastmath_arm64_bfloat16"
TYPES = {"bf16": TensorProto.BFLOAT16, "fp16": TensorProto.FLOAT16, "fp32": TensorProto.FLOAT}


def config(fastmath):
    """The session config entries of a probe: the fastmath entry, or none."""
    return [(FASTMATH, "1")] if fastmath else []


def matmul_probe(kind, fastmath, threads):
    dt = TYPES[kind]
    nodes = [helper.make_node("Cast", ["a"], ["a2"], to=dt), helper.make_node("Cast", ["b"], ["b2"], to=dt),
             helper.make_node("MatMul", ["a2", "b2"], ["c2"]), helper.make_node("Cast", ["c2"], ["c"], to=TensorProto.FLOAT)]
    fl = TensorProto.FLOAT
    g = helper.make_graph(nodes, "probe", [helper.make_tensor_value_info("a", fl, [None, None]),
                                           helper.make_tensor_value_info("b", fl, [None, None])],
                          [helper.make_tensor_value_info("c", fl, [None, None])])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    rng = np.random.default_rng(26)
    a = rng.standard_normal((1024, 384), dtype=np.float32)
    b = rng.standard_normal((384, 1536), dtype=np.float32)
    try:
        s = ort.InferenceSession(m.SerializeToString(), ir.options(threads, config(fastmath)), providers=["CPUExecutionProvider"])
    except Exception as e:  # noqa: BLE001 -- the finding is the error itself
        return {"loads": False, "error": f"{type(e).__name__}: {str(e)[:160]}"}
    s.run(None, {"a": a, "b": b})
    ts = []
    for _ in range(10):
        c0 = time.process_time()
        r = s.run(None, {"a": a, "b": b})[0]
        ts.append(time.process_time() - c0)
    t = statistics.median(ts)
    ref = a @ b
    return {"loads": True, "cpu_ms": t * 1e3, "gflops": 2 * 1024 * 384 * 1536 / t / 1e9,
            "max_rel_err": float(np.abs(r - ref).max() / np.abs(ref).max())}


def cast_matmuls(src, dst, kind):
    """Every MatMul with an initializer operand computed in `kind`: both operands cast to it,
    the product cast back to fp32 (the weights stay fp32 initializers; their Cast is folded)."""
    m = onnx.load(str(src))
    inits = {i.name for i in m.graph.initializer}
    dt = TYPES[kind]
    out_nodes, n = [], 0
    for node in m.graph.node:
        if node.op_type == "MatMul" and any(i in inits for i in node.input):
            casts = []
            for i, x in enumerate(node.input):
                y = f"{x}__{kind}_{n}_{i}"
                casts.append(helper.make_node("Cast", [x], [y], to=dt, name=f"{node.name}/cast_in{i}_{kind}"))
                node.input[i] = y
            y = node.output[0]
            node.output[0] = f"{y}__{kind}"
            out_nodes += casts + [node, helper.make_node("Cast", [node.output[0]], [y], to=TensorProto.FLOAT,
                                                         name=f"{node.name}/cast_out_{kind}")]
            n += 1
        else:
            out_nodes.append(node)
    del m.graph.node[:]
    m.graph.node.extend(out_nodes)
    onnx.save_model(m, str(dst), save_as_external_data=True, all_tensors_to_one_file=True,
                    location=dst.name + ".data", size_threshold=1024)
    return n


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model-dir", type=Path, required=True)
    ap.add_argument("--docs", type=Path, required=True)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--eval-pairs", type=int, default=300)
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    flags = open("/proc/cpuinfo").read()
    cpu = {f: f in flags.split() for f in ("avx512f", "avx512_vnni", "avx512_bf16", "amx_bf16", "avx512_fp16")}
    load0 = os.getloadavg()

    probes = {}
    for kind, fm in (("fp32", False), ("fp32", True), ("bf16", False), ("bf16", True), ("fp16", False)):
        key = kind + (" + fastmath entry" if fm else "")
        probes[key] = matmul_probe(kind, fm, args.threads)
        print(f"MatMul {key}: {probes[key]}", flush=True)

    cfg = json.loads((args.model_dir / "config.json").read_text("utf-8"))
    ent = int({v.lower(): k for k, v in cfg["id2label"].items()}["entailment"])
    from tokenizers import Tokenizer
    tok = Tokenizer.from_file(str(args.model_dir / "tokenizer.json"))
    ev, _, _ = ir.make_pairs(args.docs, args.eval_pairs, 0, 100)
    enc = ir.encode(tok, ev, 256)
    fp32 = args.model_dir / "model.onnx"

    def run(path, fastmath=False):  # scores, median process CPU s of the timed passes
        s, cpu, _, _ = ir.timed(path, enc, args.batch, ent, args.threads, args.repeats, config(fastmath))
        return s, cpu

    graphs = {}
    s32, c32 = run(fp32)
    graphs["fp32"] = {"loads": True, "cpu_s": c32, "mean": 0.0, "max": 0.0, "tau_b": 1.0, "speedup": 1.0}
    variants = [("fp32 + fastmath entry", fp32, True)]
    for kind in ("bf16", "fp16"):
        dst = args.out / f"matmul-{kind}.onnx"
        n = cast_matmuls(fp32, dst, kind)
        variants.append((f"weight MatMuls in {kind} ({n})", dst, False))
    for name, path, fm in variants:
        try:
            s, c = run(path, fm)
        except Exception as e:  # noqa: BLE001 -- the finding is the error itself
            graphs[name] = {"loads": False, "error": f"{type(e).__name__}: {str(e)[:160]}"}
            print(f"{name}: {graphs[name]['error']}", flush=True)
            continue
        mean, mx, tau = ir.drift(s, s32)
        graphs[name] = {"loads": True, "cpu_s": c, "mean": mean, "max": mx, "tau_b": tau, "speedup": c32 / c}
        print(f"{name}: {graphs[name]}", flush=True)
    load1 = os.getloadavg()
    res = {"ort": ort.__version__, "cpu_flags": cpu, "threads": args.threads, "batch": args.batch,
           "eval_pairs": len(ev), "repeats": args.repeats, "load_before": load0, "load_after": load1,
           "date": time.strftime("%Y-%m-%d %H:%M"), "matmul": probes, "graphs": graphs}
    (args.out / "results.json").write_text(json.dumps(res, indent=1))

    print(f"\nONNX Runtime {ort.__version__}; CPU flags {cpu}; load {load0} -> {load1}\n")
    print("| one MatMul [1024,384]x[384,1536] | loads | CPU ms (median of 10) | GFLOP/s | max rel. error |\n|---|---|---:|---:|---:|")
    for k, r in probes.items():
        if r["loads"]:
            print(f"| {k} | yes | {r['cpu_ms']:.1f} | {r['gflops']:.0f} | {r['max_rel_err']:.1e} |")
        else:
            print(f"| {k} | **no**: {r['error']} | | | |")
    print(f"\n| whole graph ({len(ev)} pairs) | loads | CPU s (median of {args.repeats}) | speed-up vs fp32 | mean / max abs Δ | τ_b |\n|---|---|---:|---:|---|---:|")
    for k, r in graphs.items():
        if r["loads"]:
            print(f"| {k} | yes | {r['cpu_s']:.2f} | {r['speedup']:.2f}x | {r['mean']:.2e} / {r['max']:.2e} | {r['tau_b']:.4f} |")
        else:
            print(f"| {k} | **no**: {r['error']} | | | | |")


if __name__ == "__main__":
    sys.exit(main())
