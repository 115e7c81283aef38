"""DAE (Goyal & Durrett 2021, dependency-arc entailment) as a Python class.

The reference (``tagoyal/factuality-datasets``) has no Python API: it is a set of scripts that
read CoreNLP parses and run an ELECTRA arc classifier. This class gives it one, in the style of
the other drop-ins (a constructor taking the model, a ``score`` call on parallel lists)::

    from factpico.dae import DAE
    dae = DAE(model_dir="dae-electra/")                    # onnx/export_dae.py output
    scores = dae.score(sources=[abstract, ...], summaries=[summary, ...])    # list[float]
    detail = dae.score_detailed(sources=[...], summaries=[...])             # per-arc probabilities

``score`` returns FactPICO's aggregation: the minimum over the summary's arcs of P(arc is
entailed by the source), in ``[0, 1]``. ``score_detailed`` adds the mean, the reference's binary
label (1 iff every arc's argmax is "entailed") and every arc (relation, head, child,
probability). Identical to ``factpico score --metrics dae`` (per-arc probabilities within 5e-7
of a spec-following reference, ``docs/dae.md``).

Arcs come from the spaCy sidecar (``cargo xtask sidecar``; ``FACTPICO_SIDECAR_PYTHON``) or, for
reference-exact parity, from pre-parsed CoNLL-U / CoreNLP JSON keyed by row id (``arcs=FILE``,
then pass ``ids=``). ``nli_model_dir`` selects the zero-shot variant (any NLI cross-encoder
scores each arc's sentence span).
"""

from __future__ import annotations

import json
from typing import Any, Dict, List, Optional, Sequence

from . import _validate
from ._dropin import ScorerBacked, column, device_option


class DAE(ScorerBacked):
    """Dependency-arc entailment of summaries against their sources.

    Args:
        model_dir: an ELECTRA DAE arc model directory (``onnx/export_dae.py``). Exactly one of
            ``model_dir`` and ``nli_model_dir``.
        batch_size: arcs per ONNX Runtime batch.
        device: ``"cpu"`` (default), ``"cuda"``, ``"cuda:N"`` or a GPU index (``runtime.device``;
            CUDA needs the ``onnxruntime-gpu`` wheel).
        nli_model_dir: an NLI cross-encoder directory for the zero-shot DAE-style variant.
        arcs: pre-parsed arcs keyed by row id (``.conllu`` CoNLL-U, ``.jsonl`` JSON arcs or
            CoreNLP JSON); without it the spaCy sidecar parses each summary.
        parser: ``"spacy"``, ``"conllu"`` or ``"json"`` (default: from ``arcs``).
        multi_sentence: ``"per-sentence"`` (default: every summary sentence, up to 20 arcs each)
            or ``"single-parse"`` (reference-exact: one parse, first 20 arcs).
        threads: ONNX Runtime intra-op threads.

    Raises:
        FileNotFoundError: a model directory or the arcs file does not exist.
        ValueError: both or neither model given, an unknown mode or parser, no spaCy sidecar.
    """

    _metric = "dae"

    def __init__(
        self,
        model_dir: Any = None,
        batch_size: Optional[int] = None,
        device: str = "cpu",
        *,
        nli_model_dir: Any = None,
        arcs: Any = None,
        parser: Optional[str] = None,
        multi_sentence: Optional[str] = None,
        threads: Optional[int] = None,
    ) -> None:
        if (model_dir is None) == (nli_model_dir is None):
            raise ValueError("give exactly one of model_dir (ELECTRA DAE arc model) and nli_model_dir (zero-shot NLI)")
        self._setup(
            dict(
                model_dir=model_dir, batch_size=batch_size, device=device, nli_model_dir=nli_model_dir,
                arcs=arcs, parser=parser, multi_sentence=multi_sentence, threads=threads,
            ),
            {
                "runtime": {
                    "batch_size": _validate.positive_int("batch_size", batch_size),
                    "threads": _validate.positive_int("threads", threads),
                    "device": device_option(device),
                },
                "dae": {
                    "model": _validate.path("model_dir", model_dir, required=False),
                    "nli_model": _validate.path("nli_model_dir", nli_model_dir, required=False),
                    "arcs": _validate.path("arcs", arcs, required=False),
                    "parser": parser,
                    "multi_sentence": multi_sentence,
                },
            },
        )

    def score(self, sources: Sequence[str], summaries: Sequence[str], ids: Optional[Sequence[str]] = None) -> List[float]:
        """Minimum over each summary's arcs of P(entailed by its source), in ``[0, 1]``; NaN
        with a warning for a pair with nothing to score (empty text, no arc).

        Args:
            ids: row ids, needed with ``arcs=FILE`` (the arcs are looked up by id).
        """
        return column(self._rows(sources, summaries, ids, ("sources", "summaries")), "dae", "DAE score")

    def score_detailed(
        self, sources: Sequence[str], summaries: Sequence[str], ids: Optional[Sequence[str]] = None
    ) -> List[Dict[str, Any]]:
        """Per pair: ``dae`` (min), ``dae_mean``, ``dae_label`` (``None`` when null), ``nulls``
        (reasons) and ``arcs`` (each with ``relation``, ``head``, ``child``, ``probability`` and
        the spans), as in ``factpico score --explain``."""
        rows = self._rows(sources, summaries, ids, ("sources", "summaries"))
        out = []
        for r in rows:
            d = {k: r["scores"].get(k) for k in ("dae", "dae_mean", "dae_label")}
            d["nulls"] = r.get("nulls", {})
            d["arcs"] = json.loads(json.dumps(r.get("details", {}).get("dae", {}).get("arcs", [])))
            d["warnings"] = [w["message"] for w in r.get("warnings", [])]
            out.append(d)
        return out
