"""Drop-in for ``rouge_score.rouge_scorer`` (rouge-score 0.1.2).

Reference call::

    from rouge_score import rouge_scorer
    scorer = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL", "rougeLsum"], use_stemmer=True)
    scores = scorer.score(target, prediction)          # {"rougeL": Score(precision, recall, fmeasure), ...}

factpico::

    from factpico.rouge_score import rouge_scorer     # the only change
    scorer = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL", "rougeLsum"], use_stemmer=True)
    scores = scorer.score(target, prediction)

Same tokenizer (lower-case, ``[a-z0-9]+`` tokens, NLTK's Porter stemmer for tokens longer than 3
characters with ``use_stemmer=True``), same ROUGE-N / ROUGE-L / ROUGE-Lsum, bit-identical values
(tested against rouge-score 0.1.2 on 300 real abstract/summary pairs). ``split_summaries=True``
splits ROUGE-Lsum sentences with factpico's Punkt, identical to ``nltk.sent_tokenize``.
Argument order is ``(target, prediction)``: precision is relative to the prediction.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence

from .. import _native, _validate
from .scoring import Score


class RougeScorer:
    """Computes ROUGE variants between a target and a prediction, as rouge-score's ``RougeScorer``.

    Args:
        rouge_types: any of ``rouge1`` … ``rouge9``, ``rougeL``, ``rougeLsum``.
        use_stemmer: stem tokens longer than 3 characters with NLTK's Porter stemmer
            (rouge-score's default ``False``).
        split_summaries: ROUGE-Lsum sentences by ``nltk.sent_tokenize`` (Punkt) instead of
            newlines (rouge-score's default ``False``).
        tokenizer: only ``None`` (rouge-score's default tokenizer) is supported.

    Raises:
        ValueError: an unknown rouge type, or a custom tokenizer.
    """

    def __init__(
        self,
        rouge_types: Sequence[str],
        use_stemmer: bool = False,
        split_summaries: bool = False,
        tokenizer: Optional[Any] = None,
    ) -> None:
        if tokenizer is not None:
            raise ValueError(
                "factpico's RougeScorer reproduces rouge-score's default tokenizer only; "
                "tokenizer= must be None"
            )
        self.rouge_types = list(_validate.names("rouge_types", rouge_types))
        self._use_stemmer = bool(use_stemmer)
        self._split_summaries = bool(split_summaries)
        self._native = _native.RougeScorer(self.rouge_types, self._use_stemmer, self._split_summaries, Score)

    def __getstate__(self) -> Dict[str, Any]:
        return {"rouge_types": self.rouge_types, "use_stemmer": self._use_stemmer, "split_summaries": self._split_summaries}

    def __setstate__(self, state: Dict[str, Any]) -> None:
        self.__init__(**state)  # type: ignore[misc]

    def __repr__(self) -> str:
        return f"RougeScorer({self.rouge_types!r}, use_stemmer={self._use_stemmer})"

    def score(self, target: str, prediction: str) -> Dict[str, Score]:
        """ROUGE of ``prediction`` against ``target``: ``{rouge_type: Score(precision, recall,
        fmeasure)}``, each value in ``[0, 1]`` (all zeros when either side has no tokens).

        Raises:
            TypeError: ``target`` or ``prediction`` is not a ``str``.
        """
        try:
            return self._native.score(target, prediction)
        except UnicodeEncodeError:
            return self._native.score(_encodable(target), _encodable(prediction))

    def score_multi(self, targets: Sequence[str], prediction: str) -> Dict[str, Score]:
        """rouge-score's ``score_multi``: per rouge type, the score against the target with the
        highest F-measure (the first on ties).

        Raises:
            TypeError: ``targets`` is not a list of ``str``; ValueError: it is empty.
        """
        t = _validate.texts("targets", targets)
        try:
            return self._native.score_multi(t, prediction)
        except UnicodeEncodeError:
            return self._native.score_multi([_encodable(x) for x in t], _encodable(prediction))

    def score_batch(self, targets: Sequence[str], predictions: Sequence[str]) -> List[Dict[str, Score]]:
        """``[score(t, p) for t, p in zip(targets, predictions)]``, computed in parallel with the
        GIL released (not in rouge-score; as ``rouge-score-rs``)."""
        t = _validate.texts("targets", targets)
        p = _validate.texts("predictions", predictions)
        _validate.same_length("predictions", len(p), "targets", len(t))
        try:
            return self._native.score_batch(t, p)
        except UnicodeEncodeError:
            return self._native.score_batch([_encodable(x) for x in t], [_encodable(x) for x in p])


def _encodable(text: str) -> str:
    """``text`` with lone surrogates (which Rust strings cannot hold) replaced by ``?``: both are
    token separators for rouge-score's tokenizer, so the scores are unchanged."""
    if not isinstance(text, str):
        return text
    return text.encode("utf-8", "replace").decode("utf-8")
