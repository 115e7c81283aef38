"""What the drop-in classes of the model-based references share: a :class:`~factpico.Scorer`
with one metric, its values as ``list[float]`` (documented nulls as NaN, with a warning that
gives the reasons), options kept for pickling."""

from __future__ import annotations

import math
import warnings
from collections import Counter
from typing import Any, Dict, List, Optional, Sequence, Tuple

from . import _validate
from ._scorer import Scorer


class ScorerBacked:
    """Base of the model drop-ins: holds the constructor arguments (pickled; the models are
    loaded again on the other side) and a one-metric :class:`Scorer`."""

    _metric: str = ""

    def _setup(self, init: Dict[str, Any], models: Dict[str, Any]) -> None:
        self._init = init
        self.scorer = Scorer(metrics=[self._metric], sentence_spans=False, models={k: v for k, v in models.items() if v is not None})

    def __getstate__(self) -> Dict[str, Any]:
        return dict(self._init)

    def __setstate__(self, state: Dict[str, Any]) -> None:
        self.__init__(**state)  # type: ignore[misc]

    def _rows(self, sources: Any, summaries: Any, ids: Optional[Sequence[str]], names: Tuple[str, str]) -> List[Dict[str, Any]]:
        src = _validate.texts(names[0], sources)
        summ = _validate.texts(names[1], summaries)
        _validate.same_length(names[1], len(summ), names[0], len(src))
        rows = self.scorer.score(src, summ, ids=ids)
        for r in rows:
            for e in r.get("errors", []):
                raise RuntimeError(f"{r['id']}: {e['metric']} failed: {e['message']}")
        return rows


def column(rows: List[Dict[str, Any]], name: str, what: str, stacklevel: int = 3) -> List[float]:
    """``rows[i]["scores"][name]`` as floats; nulls become NaN with one warning giving counts
    and reasons."""
    out: List[float] = []
    reasons: Counter = Counter()
    for r in rows:
        v = r["scores"].get(name)
        if v is None:
            reasons[r.get("nulls", {}).get(name, "no score")] += 1
            out.append(math.nan)
        else:
            out.append(float(v))
    if reasons:
        detail = ", ".join(f"{n} × {reason}" for reason, n in reasons.most_common())
        warnings.warn(
            f"{sum(reasons.values())} of {len(rows)} pairs have no {what} ({detail}); returned as NaN",
            UserWarning,
            stacklevel=stacklevel,
        )
    return out
