"""Type stubs of factpico's compiled core (``factpico._native``). Use the public API in
``factpico`` (``Scorer``, the drop-in modules); this module is its engine."""

from typing import Any, Dict, List, Optional, Sequence, Tuple

__version__: str
#: ONNX Runtime version factpico is tested with (``factpico setup ort`` installs it).
ORT_VERSION: str
#: Oldest ONNX Runtime 1.x minor version accepted.
MIN_ORT_MINOR: int
#: Output row schema version.
SCHEMA_VERSION: int

class Scorer:
    """The facade scorer built from JSON ``ScorerOptions``; fork-safe (rebuilds its models in a
    forked child)."""

    def __init__(self, options_json: str) -> None: ...
    def options_json(self) -> str: ...
    def provenance_json(self) -> str: ...
    def columns(self) -> List[str]: ...
    def metric_names(self) -> List[str]: ...
    def row_inputs(self) -> List[Tuple[str, str]]:
        """``(name, description)`` of each per-row side input of the selected metrics."""
    def score_json(
        self,
        sources: Sequence[str],
        summaries: Sequence[str],
        ids: Sequence[str],
        systems: Sequence[Optional[str]],
        extras_json: Optional[str] = None,
        first_row: int = 1,
    ) -> str:
        """JSON array of output rows (as ``factpico score`` writes them), GIL released."""

class RougeScorer:
    """rouge-score 0.1.2 ``RougeScorer`` engine; ``score_type`` is the ``Score`` namedtuple class."""

    def __init__(self, rouge_types: Sequence[str], use_stemmer: bool, split_summaries: bool, score_type: Any) -> None: ...
    @property
    def rouge_types(self) -> List[str]: ...
    def score(self, target: str, prediction: str) -> Dict[str, Any]: ...
    def score_multi(self, targets: Sequence[str], prediction: str) -> Dict[str, Any]: ...
    def score_batch(self, targets: Sequence[str], predictions: Sequence[str]) -> List[Dict[str, Any]]: ...

class Readability:
    """textstat Flesch formulas of one family (``"0.7.3"`` or ``"0.7.8"``)."""

    def __init__(self, family: str) -> None: ...
    @property
    def family(self) -> str: ...
    def flesch_kincaid_grade(self, text: str) -> float: ...
    def flesch_reading_ease(self, text: str) -> float: ...
    def counts(self, text: str) -> Tuple[int, int, int]:
        """``(sentences, words, syllables)``."""
    def analyze_batch(self, texts: Sequence[str]) -> List[Tuple[float, float]]:
        """``(fkgl, fre)`` per text, GIL released."""

def metrics_json() -> str: ...
def default_options_json() -> str: ...
def input_sha256(source: str, summary: str, extras_json: Optional[str] = None) -> str: ...
def explain_json(row_json: str) -> str:
    """JSON list of ``{metric, scores, nulls, blocks}`` for an output row."""
def explain_text(row_json: str, source: Optional[str] = None, summary: Optional[str] = None) -> str:
    """The row's ``factpico score --explain`` text."""
def init_ort(path: str) -> str:
    """Loads ONNX Runtime from ``path`` (once per process); returns the library in use."""
def loaded_ort() -> Optional[str]: ...
def check_ort_library(path: str) -> None: ...
def set_num_threads(n: int) -> None: ...
def get_num_threads() -> int: ...
