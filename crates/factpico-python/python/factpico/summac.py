"""Drop-ins for SummaC-ZS and SummaC-Conv (``tingofurro/summac``, ``summac`` 0.0.4,
``summac/model_summac.py``).

Reference call::

    from summac.model_summac import SummaCZS, SummaCConv
    model_zs = SummaCZS(granularity="sentence", model_name="vitc", device="cpu")
    model_conv = SummaCConv(models=["vitc"], bins="percentile", granularity="sentence",
                            nli_labels="e", device="cpu", start_file="default", agg="mean")
    model_zs.score([document], [summary])["scores"]      # list[float]

factpico::

    from factpico.summac import SummaCZS, SummaCConv      # the only change: the import

Model names resolve through factpico's catalogue (``model_name="vitc"`` is the installed
``summac-vitc``, ``factpico models pull summac-vitc``; a model that is not installed fails at
construction with that command); a model directory or a catalogue name also works. Scores are
those of ``factpico score --metrics summac_zs`` / ``summac_conv`` (``docs/summac.md``). Runs
through ONNX Runtime on ``device`` (``"cpu"``; ``"cuda:N"`` with ``onnxruntime-gpu``).
Differences: ``device`` defaults to ``"cpu"`` (the reference's ``"cuda"``); SummaC-Conv takes
one NLI model and its defaults are the released weights' (``models=["vitc"]``,
``bins="percentile"``, ``start_file="default"``: the reference's defaults, three models with
``even50`` bins and untrained weights, have no released weights); ``score`` returns
``{"scores": ...}`` without the NLI images.
"""

from __future__ import annotations

import os
from typing import Any, Dict, List, Optional, Sequence, Union

from . import _validate
from ._dropin import ScorerBacked, column, device_option

# SummaC's model_map (model_summac.py): the reference's model names, each a catalogue entry
# `summac-<name>` (label indices come from the exported model's label names).
MODEL_NAMES = ("vitc", "vitc-base", "vitc-only", "mnli", "mnli-base", "anli", "snli-base", "snli-large")
_GRANULARITIES = ("sentence", "paragraph", "2sents", "document", "mixed")
_OPS = ("max", "mean", "min")
_NLI_LABELS = ("e", "c", "n", "ec", "en", "cn", "ecn")
_AGGS = ("mean", "min", "max", "all")
# Keyword arguments the reference's imager takes that change nothing here (its cache).
_IGNORED = ("use_cache", "cache_folder", "imager_load_cache")


def model_option(model_name: Any, what: str = "model_name") -> str:
    """The ``summac.model`` option for the reference's ``model_name``: an existing directory
    (wins), a SummaC model name (``"vitc"`` -> catalogue ``summac-vitc``) or a catalogue name.

    Raises:
        TypeError: not a ``str`` / path; ValueError: none of these (the message lists the names).
    """
    value = _validate.path(what, model_name)
    assert value is not None
    if os.path.isdir(value):
        return value
    if value in MODEL_NAMES:
        return f"summac-{value}"
    if value.startswith("summac-") and value[len("summac-"):] in MODEL_NAMES:
        return value
    raise ValueError(
        f"{what}={value!r} is neither a model directory nor a SummaC model name ({', '.join(MODEL_NAMES)}); "
        "`factpico models list` shows the catalogue"
    )


def _granularity(granularity: Any) -> Dict[str, Optional[str]]:
    """``"sentence"`` or the reference's ``"<document>-<summary>"`` form, as the unit's
    ``granularity`` / ``document_granularity``."""
    g = _validate.text("granularity", granularity)
    doc, _, summ = g.partition("-") if g.count("-") == 1 else (g, "", g)
    for part in (doc, summ):
        if part not in _GRANULARITIES:
            raise ValueError(f"granularity must be one of {', '.join(_GRANULARITIES)} (or 'document-summary' pairs of them), got {g!r}")
    return {"granularity": summ, "document_granularity": doc if doc != summ else None}


def _reject_unknown(kwargs: Dict[str, Any]) -> None:
    unknown = sorted(set(kwargs) - set(_IGNORED))
    if unknown:
        raise TypeError(f"unexpected keyword argument(s): {', '.join(unknown)}")


def _pick(name: str, value: Any, allowed: Sequence[str]) -> str:
    if value not in allowed:
        raise ValueError(f"{name} must be one of {', '.join(allowed)}, got {value!r}")
    return str(value)


class SummaCZS(ScorerBacked):
    """SummaC-ZS with the reference's constructor and ``score`` call.

    Args:
        model_name: the reference's NLI model name (``"mnli"``, its default; ``"vitc"``, the
            README's; see :data:`MODEL_NAMES`), resolved to the installed catalogue model
            ``summac-<name>``; or a model directory (``onnx/export_summac.py nli``) or catalogue
            name.
        granularity: ``"paragraph"`` (the reference's default), ``"sentence"`` (the README's and
            factpico's), ``"2sents"``, ``"document"``, ``"mixed"``, or ``"<document>-<summary>"``.
        op1: reduction over document chunks (``max``, ``mean``, ``min``).
        op2: reduction over summary chunks (``mean``, ``min``, ``max``).
        use_ent, use_con: ``P(ent) - P(con)`` (both), ``P(ent)`` or ``1 - P(con)``.
        imager_load_cache: accepted for compatibility (factpico keeps no NLI cache).
        device: ``"cpu"`` (default), ``"cuda"``, ``"cuda:N"`` or a GPU index.
        **kwargs: the imager's ``use_cache`` / ``cache_folder`` (no effect).
        cuts: ``"reference"`` (default: the reference's silent cuts, reported as warnings) or
            ``"lifted"``.
        batch_size: NLI pairs per ONNX Runtime batch (scores do not depend on it).
        threads: ONNX Runtime intra-op threads.

    Raises:
        ValueError: an unknown name, granularity or reduction, or ``use_ent=use_con=False``;
        FileNotFoundError / RuntimeError: the model is not installed (the message gives
        ``factpico models pull summac-<name>``) or cannot be loaded; TypeError: an unknown
        keyword argument.
    """

    _metric = "summac_zs"

    def __init__(
        self,
        model_name: str = "mnli",
        granularity: str = "paragraph",
        op1: str = "max",
        op2: str = "mean",
        use_ent: bool = True,
        use_con: bool = True,
        imager_load_cache: bool = True,
        device: Union[str, int] = "cpu",
        *,
        cuts: Optional[str] = None,
        batch_size: Optional[int] = None,
        threads: Optional[int] = None,
        **kwargs: Any,
    ) -> None:
        _reject_unknown(kwargs)
        if not (use_ent or use_con):
            raise ValueError("use_ent and use_con are both False: SummaC-ZS has nothing to score")
        labels = "entailment_minus_contradiction" if use_ent and use_con else ("entailment" if use_ent else "not_contradiction")
        self.model_name = model_name
        self._setup(
            dict(
                model_name=model_name, granularity=granularity, op1=op1, op2=op2, use_ent=use_ent, use_con=use_con,
                imager_load_cache=imager_load_cache, device=device, cuts=cuts, batch_size=batch_size, threads=threads, **kwargs,
            ),
            {
                "runtime": {
                    "batch_size": _validate.positive_int("batch_size", batch_size),
                    "threads": _validate.positive_int("threads", threads),
                    "device": device_option(device),
                },
                "summac": {
                    "model": model_option(model_name),
                    **_granularity(granularity),
                    "zs_op1": _pick("op1", op1, _OPS),
                    "zs_op2": _pick("op2", op2, _OPS),
                    "zs_labels": labels,
                    "cuts": cuts,
                },
            },
        )

    def score(self, sources: Sequence[str], generateds: Sequence[str], batch_size: Optional[int] = None, **kwargs: Any) -> Dict[str, List[float]]:
        """SummaC-ZS of each generated text against its source: ``{"scores": [...]}``, floats
        in ``[-1, 1]`` (a row without any pair scores 0, as the reference's empty image).
        ``batch_size`` is accepted for compatibility (the constructor's applies).

        Raises:
            TypeError: not lists of ``str``; ValueError: lists of different lengths;
            RuntimeError: the model failed on a pair.
        """
        rows = self._rows(sources, generateds, None, ("sources", "generateds"))
        return {"scores": column(rows, "summac_zs", "SummaC-ZS score")}


class SummaCConv(ScorerBacked):
    """SummaC-Conv with the reference's constructor and ``score`` call.

    Args:
        models: the NLI model, one item (factpico's SummaC-Conv takes one; the released
            weights are ``["vitc"]``): a SummaC name, a model directory or a catalogue name.
        bins: ``"percentile"`` or ``"even<N>"``; must be the weights' (checked when the weights
            load: a mismatch is an error, not a silent change).
        granularity: ``"sentence"`` (default) or as :class:`SummaCZS`.
        nli_labels: the weights' NLI labels (``"e"`` for the released weights).
        device: ``"cpu"`` (default), ``"cuda"``, ``"cuda:N"`` or a GPU index.
        start_file: ``"default"`` (the released ``summac_conv_vitc_sent_perc_e.bin``, embedded
            in factpico) or a weight file of ``onnx/export_summac.py conv`` (JSON). ``None``,
            the reference's default, means untrained random weights there and is refused here.
        imager_load_cache: accepted for compatibility.
        agg: the weights' aggregation over summary chunks (``mean``, ``min``, ``max``,
            ``all``).
        **kwargs: the imager's ``use_cache`` / ``cache_folder`` (no effect).
        cuts, batch_size, threads: as :class:`SummaCZS`.

    Raises:
        ValueError: several models, ``start_file=None``, an unknown option, or ``bins`` /
        ``nli_labels`` / ``agg`` / ``granularity`` that differ from the weights'; as
        :class:`SummaCZS` otherwise.
    """

    _metric = "summac_conv"

    def __init__(
        self,
        models: Sequence[str] = ("vitc",),
        bins: str = "percentile",
        granularity: str = "sentence",
        nli_labels: str = "e",
        device: Union[str, int] = "cpu",
        start_file: Optional[Any] = "default",
        imager_load_cache: bool = True,
        agg: str = "mean",
        *,
        cuts: Optional[str] = None,
        batch_size: Optional[int] = None,
        threads: Optional[int] = None,
        **kwargs: Any,
    ) -> None:
        _reject_unknown(kwargs)
        if isinstance(models, (str, bytes, os.PathLike)):
            raise TypeError("models must be a list of model names, e.g. ['vitc']")
        model_list = list(models)
        if len(model_list) != 1:
            raise ValueError(f"factpico's SummaC-Conv takes one NLI model (the released weights use ['vitc']), got {model_list!r}")
        if start_file is None:
            raise ValueError(
                "start_file=None gives untrained random weights in the reference; pass start_file='default' "
                "(the released weights) or a weight file of onnx/export_summac.py conv"
            )
        if not (bins == "percentile" or (isinstance(bins, str) and bins.startswith("even") and bins[4:].isdigit())):
            raise ValueError(f"bins must be 'percentile' or 'even<N>', got {bins!r}")
        _pick("nli_labels", nli_labels, _NLI_LABELS)
        _pick("agg", agg, _AGGS)
        weights = None if start_file == "default" else _validate.path("start_file", start_file)
        if weights is not None:
            _check_weights(weights, bins, nli_labels, agg, granularity)
        elif (bins, nli_labels, agg, granularity) != ("percentile", "e", "mean", "sentence"):
            raise ValueError(
                "the released weights (start_file='default') are bins='percentile', nli_labels='e', agg='mean', "
                f"granularity='sentence'; got bins={bins!r}, nli_labels={nli_labels!r}, agg={agg!r}, granularity={granularity!r}"
            )
        self.models = model_list
        self._setup(
            dict(
                models=model_list, bins=bins, granularity=granularity, nli_labels=nli_labels, device=device,
                start_file=start_file, imager_load_cache=imager_load_cache, agg=agg, cuts=cuts, batch_size=batch_size,
                threads=threads, **kwargs,
            ),
            {
                "runtime": {
                    "batch_size": _validate.positive_int("batch_size", batch_size),
                    "threads": _validate.positive_int("threads", threads),
                    "device": device_option(device),
                },
                "summac": {
                    "model": model_option(model_list[0], "models[0]"),
                    **_granularity(granularity),
                    "conv_weights": weights,
                    "cuts": cuts,
                },
            },
        )

    def score(self, originals: Sequence[str], generateds: Sequence[str], **kwargs: Any) -> Dict[str, List[float]]:
        """SummaC-Conv of each generated text against its original: ``{"scores": [...]}``,
        floats in ``(0, 1)``.

        Raises:
            TypeError: not lists of ``str``; ValueError: lists of different lengths;
            RuntimeError: the model failed on a pair.
        """
        rows = self._rows(originals, generateds, None, ("originals", "generateds"))
        return {"scores": column(rows, "summac_conv", "SummaC-Conv score")}


def _check_weights(path: str, bins: str, nli_labels: str, agg: str, granularity: str) -> None:
    """A weight file's own ``bins_name`` / ``nli_labels`` / ``agg`` / ``granularity`` must be the
    constructor's: the reference would build a head of another shape (or silently differ)."""
    import json

    try:
        with open(path, encoding="utf-8") as f:
            meta = json.load(f)
    except (OSError, ValueError) as e:
        raise ValueError(f"start_file {path!r} is not a SummaC-Conv weight file of onnx/export_summac.py conv (JSON): {e}") from None
    if not isinstance(meta, dict):
        raise ValueError(f"start_file {path!r} is not a SummaC-Conv weight file (a JSON object)")
    want = {"bins_name": bins, "nli_labels": nli_labels, "agg": agg, "granularity": granularity}
    arg = {"bins_name": "bins"}
    for key, value in want.items():
        if key in meta and meta[key] != value:
            raise ValueError(f"start_file {path!r} was trained with {arg.get(key, key)}={meta[key]!r}, not {value!r}")
