"""Drop-in for Google's ``rouge-score`` 0.1.2: ``from factpico.rouge_score import rouge_scorer``
instead of ``from rouge_score import rouge_scorer``; the calls and the values are the same."""

from . import rouge_scorer, scoring

__all__ = ["rouge_scorer", "scoring"]
