"""Argument checks shared by every entry point: bad input raises the usual Python exceptions
(``TypeError`` for wrong types, ``ValueError`` for wrong lengths or values) with a message that
names the argument and the item."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Set
from typing import Any, List, Optional, Sequence


def _describe(value: Any) -> str:
    return type(value).__name__


def texts(name: str, value: Any) -> List[str]:
    """``value`` as a list of ``str``: a list, tuple or other iterable of ``str`` (a pandas
    Series, a numpy array of strings, a pyarrow array...). A bare ``str``, ``None``, a mapping or
    a non-str item is a ``TypeError``."""
    if value is None:
        raise TypeError(f"{name} must be a list of str, got None")
    if isinstance(value, (str, bytes, bytearray)):
        raise TypeError(
            f"{name} must be a list of str, got a single {_describe(value)}; wrap it in a list: {name}=[...]"
        )
    if isinstance(value, Mapping) or not isinstance(value, Iterable):
        raise TypeError(f"{name} must be a list of str, got {_describe(value)}")
    _ordered(name, value)
    if hasattr(value, "to_pylist"):  # pyarrow arrays and chunked arrays
        value = value.to_pylist()
    out = list(value)
    for i, item in enumerate(out):
        if not isinstance(item, str):
            if item is None:
                raise TypeError(
                    f"{name}[{i}] is None; every item must be a str (an empty string gives documented nulls)"
                )
            raise TypeError(f"{name}[{i}] must be a str, got {_describe(item)}")
    return out


def optional_texts(name: str, value: Any, n: int) -> List[Optional[str]]:
    """As :func:`texts`, but items may be ``None`` (e.g. systems); ``value=None`` gives ``n`` Nones."""
    if value is None:
        return [None] * n
    if isinstance(value, (str, bytes, bytearray)) or isinstance(value, Mapping) or not isinstance(value, Iterable):
        raise TypeError(f"{name} must be a list of str or None, got {_describe(value)}")
    _ordered(name, value)
    if hasattr(value, "to_pylist"):
        value = value.to_pylist()
    out = list(value)
    for i, item in enumerate(out):
        if item is not None and not isinstance(item, str):
            raise TypeError(f"{name}[{i}] must be a str or None, got {_describe(item)}")
    same_length(name, len(out), "sources", n)
    return out


def _ordered(name: str, value: Any) -> None:
    """Refuses unordered collections (``set``, ``frozenset``, dict key/item views): their order
    is arbitrary, so the i-th items of two arguments would be paired at random."""
    if isinstance(value, Set):
        raise TypeError(
            f"{name} is a {_describe(value)}: its order is arbitrary, so the pairs would be mismatched; pass a list"
        )


def same_length(name: str, got: int, other: str, n: int) -> None:
    if got != n:
        raise ValueError(f"{other} has {n} items but {name} has {got}; they must have the same length")


def path(name: str, value: Any, required: bool = True) -> Optional[str]:
    """A path option as ``str`` (``str`` or ``os.PathLike``)."""
    if value is None:
        if required:
            raise TypeError(f"{name} is required (a model directory)")
        return None
    if isinstance(value, (str, os.PathLike)):
        return os.fspath(value)
    raise TypeError(f"{name} must be a path (str or os.PathLike), got {_describe(value)}")


def positive_int(name: str, value: Any) -> Optional[int]:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int, got {_describe(value)}")
    if value < 1:
        raise ValueError(f"{name} must be >= 1, got {value}")
    return value


def names(name: str, value: Any) -> List[str]:
    """A list of names; a single ``str`` may also be a comma-separated list."""
    if isinstance(value, str):
        return [v.strip() for v in value.split(",") if v.strip()]
    return texts(name, value)


def sequence_of(name: str, value: Sequence[Any]) -> List[Any]:
    if value is None or isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
        raise TypeError(f"{name} must be a list, got {_describe(value)}")
    return list(value)


def text(name: str, value: Any) -> str:
    """``value`` if it is a ``str``; else a ``TypeError`` naming the argument."""
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a str, got {_describe(value)}")
    return value


def stream(name: str, value: Any, optional: bool = False) -> Iterable[Any]:
    """An iterable argument of a streaming call (checked before any item is read): a bare
    ``str``, ``None`` (unless ``optional``), a mapping, an unordered collection or a
    non-iterable is a ``TypeError``."""
    if value is None:
        if optional:
            return value
        raise TypeError(f"{name} must be an iterable of str, got None")
    if isinstance(value, (str, bytes, bytearray)):
        raise TypeError(f"{name} must be an iterable of str, got a single {_describe(value)}; wrap it in a list: {name}=[...]")
    if isinstance(value, Mapping) or not isinstance(value, Iterable):
        raise TypeError(f"{name} must be an iterable of str, got {_describe(value)}")
    _ordered(name, value)
    return value


def items(name: str, batch: List[Any], offset: int, optional: bool = False) -> None:
    """Checks the items of one batch of a streaming call (``offset``: index of its first item
    in the whole stream, for the message)."""
    for i, item in enumerate(batch):
        if isinstance(item, str) or (optional and item is None):
            continue
        if item is None:
            raise TypeError(f"{name}[{offset + i}] is None; every item must be a str (an empty string gives documented nulls)")
        raise TypeError(f"{name}[{offset + i}] must be a str{' or None' if optional else ''}, got {_describe(item)}")
