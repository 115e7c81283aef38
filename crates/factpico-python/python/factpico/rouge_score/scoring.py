"""rouge-score's ``scoring`` module: the ``Score`` tuple and bootstrap aggregation.

``BootstrapAggregator`` follows rouge-score 0.1.2's algorithm (NumPy's global random state,
``np.random.choice`` per resample, percentiles of the resampled means), so a run seeded with
``np.random.seed`` gives the same intervals as rouge-score (tested).
"""

from __future__ import annotations

import collections
from typing import Any, Dict, List

#: One ROUGE variant's precision, recall and F-measure, each in ``[0, 1]``
#: (same fields as ``rouge_score.scoring.Score``).
Score = collections.namedtuple("Score", ["precision", "recall", "fmeasure"])
#: A bootstrap confidence interval of the mean: ``low``, ``mid`` (median of the resampled
#: means) and ``high``, each a ``Score``.
AggregateScore = collections.namedtuple("AggregateScore", ["low", "mid", "high"])


def fmeasure(precision: float, recall: float) -> float:
    """``2 * precision * recall / (precision + recall)``, ``0.0`` when both are 0 (rouge-score's)."""
    if precision + recall > 0:
        return 2 * precision * recall / (precision + recall)
    return 0.0


class BootstrapAggregator:
    """Confidence intervals of mean scores by bootstrap resampling (needs NumPy).

    Args:
        confidence_interval: in ``[0, 1]`` (default 0.95: the 2.5th and 97.5th percentiles).
        n_samples: bootstrap resamples (default 1000), > 0.

    Raises:
        ValueError: an argument out of range.
    """

    def __init__(self, confidence_interval: float = 0.95, n_samples: int = 1000) -> None:
        if not 0 <= confidence_interval <= 1:
            raise ValueError("confidence_interval must be in range [0, 1]")
        if n_samples <= 0:
            raise ValueError("n_samples must be positive")
        self._confidence_interval = confidence_interval
        self._n_samples = n_samples
        self._scores: Dict[str, List[Any]] = collections.defaultdict(list)

    def add_scores(self, scores: Dict[str, Any]) -> None:
        """Adds one pair's ``{rouge_type: Score}`` (what ``RougeScorer.score`` returns)."""
        for rouge_type, score in scores.items():
            self._scores[rouge_type].append(score)

    def aggregate(self) -> Dict[str, AggregateScore]:
        """``{rouge_type: AggregateScore(low, mid, high)}`` over the scores added so far."""
        import numpy as np

        out: Dict[str, AggregateScore] = {}
        for rouge_type, scores in self._scores.items():
            matrix = np.vstack(tuple(scores))  # (pairs, 3 measures)
            means = np.zeros((self._n_samples, matrix.shape[1]))
            rows = np.arange(matrix.shape[0])
            for i in range(self._n_samples):
                pick = np.random.choice(rows, size=matrix.shape[0])
                means[i, :] = np.mean(matrix[pick, :], axis=0)
            tail = (1 - self._confidence_interval) / 2
            bounds = np.percentile(means, 100 * np.array([tail, 0.5, 1 - tail]), axis=0)
            kind = scores[0].__class__
            out[rouge_type] = AggregateScore(*(kind(*bounds[j, :]) for j in range(3)))
        return out
