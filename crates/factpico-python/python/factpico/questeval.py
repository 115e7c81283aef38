"""Drop-in for QuestEval (``ThomasScialom/QuestEval``, ``questeval`` 0.2.4).

Reference call::

    from questeval.questeval_metric import QuestEval
    questeval = QuestEval(no_cuda=True)
    score = questeval.corpus_questeval(hypothesis=[summary, ...], sources=[abstract, ...])
    score["corpus_score"], score["ex_level_scores"]

factpico::

    from factpico.questeval import QuestEval         # the import, plus the model directories
    questeval = QuestEval(no_cuda=True, qg_model="t5-qg/", qa_model="t5-qa/", bertscore_model="mbert/")
    score = questeval.corpus_questeval(hypothesis=[summary, ...], sources=[abstract, ...])

The reference's default composition averages three components (answerability, BERTScore, F1);
with ``bertscore_model`` factpico computes exactly that (the ``questeval`` column of ``factpico
score``). Without it, the score is ``questeval_f1`` (answerability and F1 only), which is *not*
comparable with published QuestEval numbers, and a warning says so; pass
``list_scores=("answerability", "f1")`` to ask for it explicitly (no warning). End to end within
1e-4 of questeval 0.2.4 (``docs/qa.md``); identical to ``factpico score --metrics questeval``.
"""

from __future__ import annotations

import math
import warnings
from typing import Any, Dict, List, Optional, Sequence, Tuple

from . import _validate
from ._dropin import ScorerBacked, column

_FULL = ("answerability", "bertscore", "f1")
_F1 = ("answerability", "f1")


class QuestEval(ScorerBacked):
    """QuestEval with the reference's constructor (source-based, ``text2text``, no weighter) and
    ``corpus_questeval`` call.

    Args:
        task: ``"text2text"`` (the reference's default) or ``"summarization"`` (without the
            weighter they are the same computation).
        language: ``"en"`` only.
        answer_types: ``("NER", "NOUN")`` only (the reference's default).
        list_scores: ``None`` (default: the reference's three components when ``bertscore_model``
            is given, else answerability + F1 with a warning), ``("answerability", "bertscore",
            "f1")`` (needs ``bertscore_model``) or ``("answerability", "f1")``.
        do_weighter, do_consistency: ``False`` only (the reference's defaults; its README calls
            its summarization weighter broken in this version).
        qg_batch_size, clf_batch_size, limit_sent, reduction_multi_refs, no_cuda, use_cache:
            accepted for compatibility; they do not change the values here (``limit_sent`` must
            stay 5).
        qg_model: T5 question-generation model directory (``onnx/export_seq2seq.py --qg-prefix sv1``).
        qa_model: T5 QA model directory with an "unanswerable" token.
        bertscore_model: BERTScore token-embedding model directory (``onnx/export_embedding.py``;
            the reference's ``bert-base-multilingual-cased`` layer 9).
        answers: answer selection ``"auto"`` (spaCy sidecar when installed, else rules),
            ``"spacy"`` or ``"rules"``.
        batch_size: model batch size; threads: ONNX Runtime intra-op threads.

    Raises:
        FileNotFoundError: a model directory does not exist.
        ValueError: an option factpico does not reproduce.
    """

    _metric = "questeval"

    def __init__(
        self,
        task: str = "text2text",
        language: str = "en",
        answer_types: Sequence[str] = ("NER", "NOUN"),
        list_scores: Optional[Sequence[str]] = None,
        do_weighter: bool = False,
        do_consistency: bool = False,
        qg_batch_size: int = 36,
        clf_batch_size: int = 48,
        limit_sent: int = 5,
        reduction_multi_refs: Any = max,
        no_cuda: bool = False,
        use_cache: bool = True,
        *,
        qg_model: Any = None,
        qa_model: Any = None,
        bertscore_model: Any = None,
        answers: Optional[str] = None,
        batch_size: Optional[int] = None,
        threads: Optional[int] = None,
    ) -> None:
        if task not in ("text2text", "summarization"):
            raise ValueError(f"task must be 'text2text' or 'summarization' (source-based), got {task!r}")
        if language != "en":
            raise ValueError(f"factpico's QuestEval is English only (language='en'), got {language!r}")
        if tuple(answer_types) != ("NER", "NOUN"):
            raise ValueError(f"answer_types must be the reference's default ('NER', 'NOUN'), got {tuple(answer_types)!r}")
        if do_weighter or do_consistency:
            raise ValueError("do_weighter and do_consistency are not reproduced by factpico (both default to False in the reference)")
        if limit_sent != 5:
            raise ValueError(f"limit_sent must be the reference's default 5, got {limit_sent!r}")
        if list_scores is not None and tuple(list_scores) not in (_FULL, _F1):
            raise ValueError(f"list_scores must be {_FULL} or {_F1}, got {tuple(list_scores)!r}")
        if list_scores is not None and tuple(list_scores) == _FULL and bertscore_model is None:
            raise ValueError("list_scores with 'bertscore' needs bertscore_model (a BERTScore model directory)")
        self.list_scores: Tuple[str, ...] = (
            tuple(list_scores) if list_scores is not None else (_FULL if bertscore_model is not None else _F1)
        )
        self._explicit = list_scores is not None
        self._setup(
            dict(
                task=task, language=language, answer_types=tuple(answer_types), list_scores=list_scores,
                do_weighter=do_weighter, do_consistency=do_consistency, qg_batch_size=qg_batch_size,
                clf_batch_size=clf_batch_size, limit_sent=limit_sent, no_cuda=no_cuda, use_cache=use_cache,
                qg_model=qg_model, qa_model=qa_model, bertscore_model=bertscore_model, answers=answers,
                batch_size=batch_size, threads=threads,
            ),
            {
                "runtime": {
                    "batch_size": _validate.positive_int("batch_size", batch_size),
                    "threads": _validate.positive_int("threads", threads),
                    "device": "cpu" if no_cuda else None,
                },
                "qa": {
                    "questeval_qg_model": _validate.path("qg_model", qg_model),
                    "questeval_qa_model": _validate.path("qa_model", qa_model),
                    "bertscore_model": _validate.path("bertscore_model", bertscore_model, required=False),
                    "answers": answers,
                },
            },
        )

    @property
    def column(self) -> str:
        """The factpico column returned: ``questeval`` (three components) or ``questeval_f1``."""
        return "questeval" if self.list_scores == _FULL else "questeval_f1"

    def corpus_questeval(
        self,
        hypothesis: Sequence[str],
        sources: Optional[Sequence[str]] = None,
        list_references: Optional[Sequence[Sequence[str]]] = None,
        batch_size: int = 512,
    ) -> Dict[str, Any]:
        """QuestEval of each hypothesis (summary) against its source (abstract).

        Returns:
            ``{"corpus_score": float, "ex_level_scores": list[float]}``: per-example scores in
            ``[0, 1]`` and their mean. A pair with nothing to score (empty or word-less text; the
            reference returns 0 there) gives NaN with a warning and is left out of the mean.

        Raises:
            ValueError: no ``sources`` or some ``list_references`` (factpico's QuestEval is
                source-based); TypeError / ValueError: bad lists.
        """
        if list_references is not None:
            raise ValueError("list_references is not supported: factpico's QuestEval compares hypothesis and sources")
        if sources is None:
            raise ValueError("sources is required (factpico's QuestEval compares each hypothesis with its source)")
        if self.list_scores == _F1 and not self._explicit:
            warnings.warn(
                "no bertscore_model given: returning questeval_f1 (answerability and F1, without the "
                "reference's BERTScore component), which is not comparable with published QuestEval "
                "scores; pass bertscore_model=DIR for the reference's composition, or "
                "list_scores=('answerability', 'f1') to ask for questeval_f1 explicitly",
                UserWarning,
                stacklevel=2,
            )
        rows = self._rows(sources, hypothesis, None, ("sources", "hypothesis"))
        scores = column(rows, self.column, "QuestEval score")
        kept = [s for s in scores if not math.isnan(s)]
        corpus = sum(kept) / len(kept) if kept else math.nan
        return {"corpus_score": corpus, "ex_level_scores": scores}
