"""Drop-in for AlignScore (``yuh-zha/AlignScore``, ``alignscore`` 0.1.3).

Reference call::

    from alignscore import AlignScore
    scorer = AlignScore(model="roberta-base", batch_size=32, device="cuda:0",
                        ckpt_path="AlignScore-base.ckpt", evaluation_mode="nli_sp")
    scores = scorer.score(contexts=[abstract, ...], claims=[summary, ...])   # list[float]

factpico::

    from factpico.alignscore import AlignScore      # the only changes: the import, and
    scorer = AlignScore(model="roberta-base", batch_size=32, device="cuda:0",
                        ckpt_path="AlignScore-base.ckpt",  # the same file (converted once, no torch)
                        evaluation_mode="nli_sp")
    scores = scorer.score(contexts=[abstract, ...], claims=[summary, ...])

Same chunking (Punkt sentences, ~350-word context chunks), same modes, scores within 1.5e-5 of
the unmodified reference on 326 pairs (``docs/alignscore.md``), identical to ``factpico score
--metrics alignscore``. Runs through ONNX Runtime on ``device`` (``"cpu"``; ``"cuda:N"`` with
the ``onnxruntime-gpu`` wheel). Any NLI cross-encoder directory also works (e.g. MiniLM NLI
with ``max_length=256``).
"""

from __future__ import annotations

import os
from typing import Any, List, Optional, Sequence, Union

from . import _native, _validate
from ._dropin import ScorerBacked, column, device_option

_MODES = ("nli_sp", "bin_sp", "reg_sp", "nli", "bin", "reg")


def _model_dir(ckpt_path: Optional[Any], model: str) -> Optional[str]:
    """The model directory for ``ckpt_path``: a ``.ckpt`` file (what the reference takes) is
    converted once, without torch, into ``$FACTPICO_HOME/models/alignscore-ckpt-<sha256>``
    (``model`` names the backbone whose config and tokenizer files it needs: a hub name such as
    ``roberta-base``, downloaded once, or a local directory); a directory or a catalogue name
    (``alignscore-base``) is used as it is."""
    path = _validate.path("ckpt_path", ckpt_path, required=False)
    if path is not None and os.path.isfile(path) and path.endswith(".ckpt"):
        return str(_native.alignscore_from_ckpt(path, _validate.text("model", model)))
    return path


class AlignScore(ScorerBacked):
    """AlignScore with the reference's constructor and ``score`` call.

    Args:
        model: the reference's backbone name (``"roberta-base"`` / ``"roberta-large"``); the
            model directory says which backbone it holds, so it is only recorded.
        batch_size: (chunk, sentence) pairs per ONNX Runtime batch (the reference's 32 works;
            factpico's own default is 2, which bounds memory; scores do not depend on it).
        device: ``"cpu"`` (default), ``"cuda"``, ``"cuda:N"`` or a GPU index, as the reference
            takes it (factpico's ``runtime.device``; CUDA needs the ``onnxruntime-gpu`` wheel).
        ckpt_path: the reference's AlignScore ``.ckpt`` file (converted once without torch,
            keyed by its sha256; the checkpoint is read by a reader that never runs pickled
            code), a model directory (``factpico models pull`` / ``onnx/export_alignscore.py``
            output, or any NLI cross-encoder directory), or a catalogue name
            (``"alignscore-base"``). Default: the installed ``alignscore-base``.
        evaluation_mode: ``nli_sp`` (default; "AlignScore"), ``bin_sp``, ``reg_sp``, ``nli``,
            ``bin``, ``reg`` (the ``reg`` modes are unbounded).
        verbose: accepted for compatibility (factpico shows no progress bar).
        max_length: maximum pair length in tokens (default: the model's manifest; 256 for the
            shared MiniLM NLI model).
        words_per_chunk: whitespace words per context chunk (default 350, the reference's).
        threads: ONNX Runtime intra-op threads (default: all cores).

    Raises:
        FileNotFoundError: ``ckpt_path`` does not exist.
        ValueError: an unknown ``evaluation_mode`` or a bad option.
        ImportError: no usable ``onnxruntime`` wheel.
    """

    _metric = "alignscore"

    def __init__(
        self,
        model: str = "roberta-base",
        batch_size: int = 32,
        device: Union[str, int] = "cpu",
        ckpt_path: Optional[Any] = None,
        evaluation_mode: str = "nli_sp",
        verbose: bool = True,
        *,
        max_length: Optional[int] = None,
        words_per_chunk: Optional[int] = None,
        threads: Optional[int] = None,
    ) -> None:
        if evaluation_mode not in _MODES:
            raise ValueError(f"evaluation_mode must be one of {', '.join(_MODES)}, got {evaluation_mode!r}")
        self.model = model
        self.evaluation_mode = evaluation_mode
        self._setup(
            dict(
                model=model, batch_size=batch_size, device=device, ckpt_path=ckpt_path,
                evaluation_mode=evaluation_mode, verbose=verbose, max_length=max_length,
                words_per_chunk=words_per_chunk, threads=threads,
            ),
            {
                "runtime": {
                    "batch_size": _validate.positive_int("batch_size", batch_size),
                    "threads": _validate.positive_int("threads", threads),
                    "device": device_option(device),
                },
                "alignscore": {
                    "model": _model_dir(ckpt_path, model),
                    "mode": evaluation_mode,
                    "max_length": _validate.positive_int("max_length", max_length),
                    "words_per_chunk": _validate.positive_int("words_per_chunk", words_per_chunk),
                },
            },
        )

    def score(self, contexts: Sequence[str], claims: Sequence[str]) -> List[float]:
        """AlignScore of each claim against its context (premise): ``len(contexts)`` floats, in
        ``[0, 1]`` except for the ``reg`` modes. A pair with nothing to score (empty or
        word-less context or claim; the reference returns NaN for an empty claim) gives NaN and
        a warning with the reason.

        Raises:
            TypeError: not lists of ``str``; ValueError: lists of different lengths.
            RuntimeError: the model failed on a pair.
        """
        rows = self._rows(contexts, claims, None, ("contexts", "claims"))
        return column(rows, "alignscore", "AlignScore")
