"""Russian agreement for the host's lines: numbers as words in the needed case and gender,
and nouns after numbers («один голос», «два голоса», «пять голосов»).

num2words (0.5.14+) spells cardinals and ordinals in every case and gender; what it does
not do is pick the noun form after a number, which :func:`plural` does by the usual
rule (1, 21… → one; 2–4, 22–24… → few; the rest, 11–14 included → many).

Format specs understood in phrasebook placeholders, e.g. ``{seat:ord_gen}``:
``""`` cardinal nominative («семь»), ``card_<case>`` cardinal in a case, ``ord_<case>``
or ``ord_<case>_<f|n>`` ordinal («седьмого», «третьей»), ``count:<m|f|n>:one:few:many``
a number with its noun («два голоса»), ``digits`` the plain number. Sequences (a list of
seats) are joined «пять, семь и девять».
"""

from __future__ import annotations

import string
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

from num2words import num2words

CASES = {"nom": "nominative", "gen": "genitive", "dat": "dative", "acc": "accusative",
         "ins": "instrumental", "pre": "prepositional"}
GENDERS = {"m": "m", "f": "f", "n": "n"}


def plural(n: int, one: str, few: str, many: str) -> str:
    """The noun form after ``n``: 1 голос, 2 голоса, 5 голосов, 11 голосов, 21 голос."""
    if n % 10 == 1 and n % 100 != 11:
        return one
    if 2 <= n % 10 <= 4 and not 12 <= n % 100 <= 14:
        return few
    return many


# num2words rebuilds each number word by word; the host says the same few numbers all game.
@lru_cache(maxsize=4096)
def cardinal(n: int, case: str = "nom", gender: str = "m") -> str:
    return str(num2words(n, lang="ru", case=CASES[case], gender=GENDERS[gender]))


@lru_cache(maxsize=4096)
def ordinal(n: int, case: str = "nom", gender: str = "m") -> str:
    return str(num2words(n, lang="ru", to="ordinal", case=CASES[case], gender=GENDERS[gender]))


def join(words: Sequence[str]) -> str:
    """«пять», «пять и семь», «пять, семь и девять»."""
    if len(words) <= 1:
        return "".join(words)
    return ", ".join(words[:-1]) + " и " + words[-1]


class RussianFormatter(string.Formatter):
    """str.format with the specs above; names (strings) pass through unchanged."""

    def format_field(self, value: Any, format_spec: str) -> str:
        if isinstance(value, (list, tuple)):
            return join([self.format_field(v, format_spec) for v in value])
        if not isinstance(value, int) or isinstance(value, bool):
            return super().format_field(value, format_spec)
        return spell(value, format_spec)


def spell(n: int, spec: str) -> str:
    if spec in ("", "card", "card_nom"):
        return cardinal(n)
    if spec == "digits":
        return str(n)
    kind, *rest = spec.split(":") if ":" in spec else spec.split("_")
    if kind == "count":
        gender, one, few, many = rest
        return f"{cardinal(n, 'nom', gender)} {plural(n, one, few, many)}"
    if kind in ("card", "ord"):
        case = rest[0] if rest else "nom"
        gender = rest[1] if len(rest) > 1 else "m"
        if case not in CASES or gender not in GENDERS:
            raise ValueError(f"unknown number form {spec!r}")
        return cardinal(n, case, gender) if kind == "card" else ordinal(n, case, gender)
    raise ValueError(f"unknown number form {spec!r}")


FORMATTER = RussianFormatter()


def fill(template: str, values: Mapping[str, Any]) -> str:
    """``template`` with ``values`` spelled out. A game says the same lines with the same
    numbers again and again, and string.Formatter is slow: results are kept, by template and
    values (with their types, so that 1 and True stay apart); unhashable values just format."""
    try:
        return _filled(template, tuple((key, type(value), value) for key, value in values.items()))
    except TypeError:
        return FORMATTER.vformat(template, (), dict(values))


@lru_cache(maxsize=8192)
def _filled(template: str, values: tuple[tuple[str, type, Any], ...]) -> str:
    return FORMATTER.vformat(template, (), {key: value for key, _, value in values})
