"""Drop-in for MiniCheck (``Liyan06/MiniCheck``, ``minicheck/minicheck.py``).

Reference call::

    from minicheck.minicheck import MiniCheck
    scorer = MiniCheck(model_name="roberta-large", device="cpu", cache_dir="./ckpts")
    pred_labels, raw_probs, chunks, chunk_probs = scorer.score(docs=[doc], claims=[claim])

factpico::

    from factpico.minicheck import MiniCheck             # the only change: the import

``model_name`` resolves through factpico's catalogue (``"roberta-large"`` is the installed
``minicheck-roberta-large``, ``factpico models pull minicheck-roberta-large``; one that is not
installed fails at construction with that command); a model directory
(``onnx/export_minicheck.py``) or a catalogue name also works. Scores are those of
``factpico score --metrics minicheck`` (``docs/minicheck.md``): the whole claim against each
document chunk, max over chunks. Runs through ONNX Runtime on ``device``.
Differences: ``Bespoke-MiniCheck-7B`` (vLLM) is not available (the reference's default; here
the default is ``flan-t5-large``); ``cache_dir`` has no effect (models live in
``$FACTPICO_HOME/models``); the chunks returned are the document's text over each chunk's
sentences (the reference re-joins the sentences with single spaces).
"""

from __future__ import annotations

import math
import os
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

from . import _validate
from ._dropin import ScorerBacked, device_option

CHECKERS = ("roberta-large", "deberta-v3-large", "flan-t5-large")


def _model(model_name: Any) -> Dict[str, Optional[str]]:
    """``minicheck.model`` / ``minicheck.checker`` for the reference's ``model_name``."""
    value = _validate.path("model_name", model_name)
    assert value is not None
    if os.path.isdir(value):
        return {"model": value, "checker": None}
    if value in CHECKERS:
        return {"model": f"minicheck-{value}", "checker": value}
    if value.startswith("minicheck-") and value[len("minicheck-"):] in CHECKERS:
        return {"model": value, "checker": value[len("minicheck-"):]}
    if value == "Bespoke-MiniCheck-7B":
        raise ValueError(
            "model_name='Bespoke-MiniCheck-7B' (a 7B LLM served by vLLM) is not available in factpico; "
            f"use one of {', '.join(CHECKERS)}"
        )
    raise ValueError(f"model_name must be one of {', '.join(CHECKERS)} or a model directory, got {value!r}")


class MiniCheck(ScorerBacked):
    """MiniCheck with the reference's constructor and ``score`` call.

    Args:
        model_name: ``"roberta-large"``, ``"deberta-v3-large"``, ``"flan-t5-large"``
            (default), resolved to the installed catalogue model ``minicheck-<name>``; or a
            model directory / catalogue name.
        max_model_len: maximum input length in tokens (default: the model's, 512 for RoBERTa,
            2048 for DeBERTa / Flan-T5); at most the model's.
        batch_size: sequences per ONNX Runtime batch (scores do not depend on it). Default 1,
            not the reference's 16: the reference batches one document's chunks at a time
            (rarely more than a few), factpico batches all documents' chunks together, and on
            these long inputs 1 is both the fastest and the leanest (BENCHMARKS.md, MiniCheck:
            DeBERTa-v3-L peaks at 1,754 MB at 1 and 2,720 MB at 4, the reference at 2,558).
        device: ``"cpu"`` (default) or ``"cuda"`` / ``"cuda:N"`` (``onnxruntime-gpu``).
        cache_dir: accepted for compatibility (no effect).
        tensor_parallel_size, max_tokens, enable_prefix_caching: the reference's vLLM options
            for Bespoke-MiniCheck-7B; accepted at their defaults only.
        threads: ONNX Runtime intra-op threads.

    Raises:
        ValueError: an unknown or unavailable ``model_name``, a bad option;
        FileNotFoundError / RuntimeError: the model is not installed (the message gives
        ``factpico models pull minicheck-<name>``) or cannot be loaded.
    """

    _metric = "minicheck"

    def __init__(
        self,
        model_name: str = "flan-t5-large",
        max_model_len: Optional[int] = None,
        batch_size: int = 1,
        device: Union[str, int] = "cpu",
        cache_dir: Optional[Any] = None,
        tensor_parallel_size: int = 1,
        max_tokens: int = 1,
        enable_prefix_caching: bool = False,
        *,
        threads: Optional[int] = None,
    ) -> None:
        if (tensor_parallel_size, max_tokens, enable_prefix_caching) != (1, 1, False):
            raise ValueError("tensor_parallel_size, max_tokens and enable_prefix_caching are Bespoke-MiniCheck-7B (vLLM) options")
        self.model_name = model_name
        self._minicheck = dict(**_model(model_name), max_length=_validate.positive_int("max_model_len", max_model_len))
        self._runtime = {
            "batch_size": _validate.positive_int("batch_size", batch_size),
            "threads": _validate.positive_int("threads", threads),
            "device": device_option(device),
        }
        self._by_chunk_size: Dict[Optional[int], Any] = {}
        self._setup(
            dict(
                model_name=model_name, max_model_len=max_model_len, batch_size=batch_size, device=device,
                cache_dir=cache_dir, tensor_parallel_size=tensor_parallel_size, max_tokens=max_tokens,
                enable_prefix_caching=enable_prefix_caching, threads=threads,
            ),
            {"runtime": self._runtime, "minicheck": self._minicheck},
        )
        self._by_chunk_size[None] = self.scorer

    def _scorer_for(self, chunk_size: Any) -> Any:
        # the reference: a positive int sets the chunk size, anything else its default
        size = chunk_size if isinstance(chunk_size, int) and not isinstance(chunk_size, bool) and chunk_size > 0 else None
        if size not in self._by_chunk_size:
            from ._scorer import Scorer

            options = {k: {f: v for f, v in d.items() if v is not None} for k, d in (("runtime", self._runtime), ("minicheck", self._minicheck))}
            options["minicheck"]["chunk_size"] = size
            self._by_chunk_size[size] = Scorer(metrics=["minicheck"], sentence_spans=False, **{k: v for k, v in options.items() if v})
        return self._by_chunk_size[size]

    def score(
        self, docs: Sequence[str], claims: Sequence[str], chunk_size: Optional[int] = None
    ) -> Tuple[List[int], List[float], List[List[str]], List[List[float]]]:
        """Checks each claim (whole, not split) against its document, as the reference:
        ``(pred_labels, max_support_probs, used_chunks, support_prob_per_chunk)`` — per pair
        the label (1 iff the probability > 0.5), P(supported) of the best chunk, the document's
        chunks and P(supported) per chunk. ``chunk_size``: tokens (RoBERTa, DeBERTa) or words
        (Flan-T5) per chunk; ``None`` the reference's default (400 / 500). A document without
        any text gives NaN, label 0 and no chunk (the reference fails on it), with a warning.

        Raises:
            TypeError: not lists of ``str``; ValueError: lists of different lengths;
            RuntimeError: the model failed on a pair.
        """
        src = _validate.texts("docs", docs)
        summ = _validate.texts("claims", claims)
        _validate.same_length("claims", len(summ), "docs", len(src))
        rows = self._scorer_for(chunk_size).score(src, summ) if src else []
        labels: List[int] = []
        probs: List[float] = []
        chunks: List[List[str]] = []
        per_chunk: List[List[float]] = []
        empty = 0
        for doc, r in zip(src, rows):
            for e in r.get("errors", []):
                raise RuntimeError(f"{r['id']}: {e['metric']} failed: {e['message']}")
            v = r["scores"].get("minicheck")
            detail = r.get("details", {}).get("minicheck", {})
            raw = doc.encode("utf-8")
            chunks.append([raw[c["span"]["start"]:c["span"]["end"]].decode("utf-8") for c in detail.get("chunks", [])])
            claim_rows = detail.get("claims", [])
            per_chunk.append([float(p) for p in claim_rows[0]["chunk_scores"]] if claim_rows else [])
            if v is None:
                empty += 1
                probs.append(math.nan)
                labels.append(0)
            else:
                probs.append(float(v))
                labels.append(1 if v > 0.5 else 0)
        if empty:
            import warnings

            warnings.warn(f"{empty} of {len(rows)} documents have no text to check against; returned as NaN", UserWarning, stacklevel=2)
        return labels, probs, chunks, per_chunk
