"""rouge-score's ``scoring.Score``: a ``(precision, recall, fmeasure)`` named tuple.

Aggregation (``BootstrapAggregator``) is not reimplemented: rouge-score's own
``rouge_score.scoring.BootstrapAggregator`` accepts these tuples unchanged.
"""

from __future__ import annotations

import collections

#: One ROUGE variant's precision, recall and F-measure, each in ``[0, 1]``
#: (same fields as ``rouge_score.scoring.Score``).
Score = collections.namedtuple("Score", ["precision", "recall", "fmeasure"])


def fmeasure(precision: float, recall: float) -> float:
    """``2 * precision * recall / (precision + recall)``, ``0.0`` when both are 0 (rouge-score's)."""
    if precision + recall > 0:
        return 2 * precision * recall / (precision + recall)
    return 0.0
