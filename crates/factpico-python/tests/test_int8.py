"""The int8 copy that ``factpico models pull NAME --int8`` installs keeps the drift BENCHMARKS.md
states for it.

``onnx/quantize.py`` (the script the ``--int8`` pull runs: dynamic int8, per-channel weight
scales) quantises the real-weight MiniLM NLI cross-encoder of ``../shared``; AlignScore ``nli_sp``
(max length 256, batch 2) then scores the 300 real pairs with the fp32 and the int8 graph.
Through this path (``factpico.Scorer``, batch 2, 2 threads) the graph drifts mean / max |Δ|
0.0317 / 0.2489 per summary with Kendall τ_b 0.895 between the fp32 and int8 scores (measured
2026-12-04; BENCHMARKS.md's ``bench_alignscore`` run of the same graph gave 0.0323 / 0.2106:
dynamic int8 scales each activation over the whole padded batch, so batch composition moves the
figures). No recipe meets issue 26's target (mean ≤ 0.01, max ≤ 0.05, τ_b ≥ 0.98; BENCHMARKS.md,
"int8 recipe frontier"), so this pins the **stated frontier**, not the target: a change to
``quantize.py`` or to ONNX Runtime that makes the shipped int8 graph drift more fails here
(per-tensor weight scales give 0.078 / 0.437). The bounds leave a margin of about 20 % over the
measured figures (mean, max) and 0.025 under τ_b.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import List

import factpico
from conftest import REPO

MEAN_BOUND = 0.04
MAX_BOUND = 0.30
TAU_BOUND = 0.87


def kendall_tau_b(x: List[float], y: List[float]) -> float:
    """Kendall's τ_b (ties in either variable corrected), O(n²)."""
    conc = disc = tx = ty = 0
    n = len(x)
    for i in range(n):
        for j in range(i + 1, n):
            dx, dy = x[i] - x[j], y[i] - y[j]
            if dx == 0 and dy == 0:
                continue
            if dx == 0:
                tx += 1
            elif dy == 0:
                ty += 1
            elif (dx > 0) == (dy > 0):
                conc += 1
            else:
                disc += 1
    return (conc - disc) / (((conc + disc + tx) * (conc + disc + ty)) ** 0.5)


def test_kendall_tau_b_on_known_values() -> None:
    assert kendall_tau_b([1, 2, 3, 4], [1, 2, 3, 4]) == 1.0
    assert kendall_tau_b([1, 2, 3, 4], [4, 3, 2, 1]) == -1.0
    # scipy 1.x: kendalltau([1, 2, 2, 3], [1, 3, 2, 2]) = 0.4 (3 concordant, 1 discordant, one tie
    # in each variable: 2 / 5); kendalltau([1, 2, 3, 4, 5], [2, 1, 4, 3, 5]) = 0.6;
    # kendalltau([1, 1, 2, 3, 5], [2, 2, 1, 3, 4]) = 0.5555…
    assert abs(kendall_tau_b([1, 2, 2, 3], [1, 3, 2, 2]) - 0.4) < 1e-12
    assert abs(kendall_tau_b([1, 2, 3, 4, 5], [2, 1, 4, 3, 5]) - 0.6) < 1e-12
    assert abs(kendall_tau_b([1, 1, 2, 3, 5], [2, 2, 1, 3, 4]) - 5 / 9) < 1e-12


def test_the_int8_pull_recipe_keeps_its_documented_drift(real_pairs, minilm: Path, tmp_path: Path, report) -> None:
    out = tmp_path / "minilm-int8"
    p = subprocess.run([sys.executable, str(REPO / "onnx/quantize.py"), "--model-dir", str(minilm), "--out", str(out)],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    fp32_size = (minilm / "model.onnx").stat().st_size
    int8_size = (out / "model.onnx").stat().st_size
    assert int8_size < 0.3 * fp32_size, (int8_size, fp32_size)

    def scores(model: Path) -> List[float]:
        scorer = factpico.Scorer(["alignscore"], alignscore={"model": str(model), "max_length": 256},
                                 runtime={"batch_size": 2, "threads": 2})
        rows = scorer.score([r["source"] for r in real_pairs], [r["summary"] for r in real_pairs],
                            ids=[r["id"] for r in real_pairs])
        vals = [r["scores"]["alignscore"] for r in rows]
        assert all(v is not None for v in vals)
        return vals

    a, b = scores(minilm), scores(out)
    d = [abs(x - y) for x, y in zip(a, b)]
    mean, mx, tau = sum(d) / len(d), max(d), kendall_tau_b(a, b)
    report.append(f"int8 (onnx/quantize.py, per channel) vs fp32, MiniLM NLI, nli_sp, {len(d)} real pairs: "
                  f"mean / max |Δ| {mean:.4f} / {mx:.4f}, τ_b {tau:.3f}")
    assert mean <= MEAN_BOUND and mx <= MAX_BOUND and tau >= TAU_BOUND, (mean, mx, tau)
    assert mean > 0.0, "the int8 graph gave the fp32 scores: was it quantised?"
