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

    def _setup(self, init: Dict[str, Any], sections: Dict[str, Dict[str, Any]]) -> None:
        """``sections``: ``ScorerOptions`` sections (``runtime``, the unit's) from the reference's
        keyword arguments; ``None`` values keep factpico's defaults."""
        self._init = init
        options = {key: {k: v for k, v in fields.items() if v is not None} for key, fields in sections.items()}
        self.scorer = Scorer(metrics=[self._metric], sentence_spans=False, **{k: v for k, v in options.items() if v})

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


def device_option(device: Any) -> Optional[str]:
    """The reference's ``device`` (``"cpu"``, ``"cuda"``, ``"cuda:N"``, an int GPU index as
    ``torch`` takes it, or ``None``) as factpico's ``runtime.device``. A CUDA device needs an
    ONNX Runtime with CUDA (the ``onnxruntime-gpu`` wheel); without one, building the scorer
    fails with a message that says so."""
    if device is None:
        return None
    if isinstance(device, bool):
        raise TypeError(f"device must be 'cpu', 'cuda', 'cuda:N' or an int, got {device!r}")
    if isinstance(device, int):
        if device < 0:
            return "cpu"
        return f"cuda:{device}"
    if isinstance(device, str):
        return device
    raise TypeError(f"device must be 'cpu', 'cuda', 'cuda:N' or an int, got {type(device).__name__}")


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
