"""Russian number words as the recognizer writes them, read back into numbers.

Covers what a player says for a seat: cardinals in the nominative («пять», «двадцать
один») and ordinals in every gender and case («седьмого», «четвертого», «двадцать
первого»), up to 99. Text arrives already lower-cased with ё folded into е.
"""

from __future__ import annotations

import re

_UNITS = ["один", "два", "три", "четыре", "пять", "шесть", "семь", "восемь", "девять"]
_TEENS = ["десять", "одиннадцать", "двенадцать", "тринадцать", "четырнадцать",
          "пятнадцать", "шестнадцать", "семнадцать", "восемнадцать", "девятнадцать"]
_TENS = {20: "двадцать", 30: "тридцать", 40: "сорок", 50: "пятьдесят",
         60: "шестьдесят", 70: "семьдесят", 80: "восемьдесят", 90: "девяносто"}

_HARD = ("ый", "ого", "ому", "ым", "ом", "ая", "ой", "ую", "ое", "ые", "ых")
_STRESSED = ("ой", "ого", "ому", "ым", "ом", "ая", "ую", "ое", "ые", "ых")
_THIRD = ("ий", "ьего", "ьему", "ьим", "ьем", "ья", "ьей", "ью", "ье")

_ORDINAL_STEMS: dict[int, tuple[str, tuple[str, ...]]] = {
    1: ("перв", _HARD), 2: ("втор", _STRESSED), 3: ("трет", _THIRD), 4: ("четверт", _HARD),
    5: ("пят", _HARD), 6: ("шест", _STRESSED), 7: ("седьм", _STRESSED), 8: ("восьм", _STRESSED),
    9: ("девят", _HARD), 10: ("десят", _HARD), 11: ("одиннадцат", _HARD),
    12: ("двенадцат", _HARD), 13: ("тринадцат", _HARD), 14: ("четырнадцат", _HARD),
    15: ("пятнадцат", _HARD), 16: ("шестнадцат", _HARD), 17: ("семнадцат", _HARD),
    18: ("восемнадцат", _HARD), 19: ("девятнадцат", _HARD), 20: ("двадцат", _HARD),
    30: ("тридцат", _HARD), 40: ("сороков", _STRESSED), 50: ("пятидесят", _HARD),
    60: ("шестидесят", _HARD), 70: ("семидесят", _HARD), 80: ("восьмидесят", _HARD),
    90: ("девяност", _HARD),
}

CARDINALS: dict[str, int] = {word: n for n, word in enumerate(_UNITS + _TEENS, start=1)}
CARDINALS.update({word: n for n, word in _TENS.items()})
ORDINALS: dict[str, int] = {
    stem + ending: n for n, (stem, endings) in _ORDINAL_STEMS.items() for ending in endings
}
TENS_WORDS: dict[str, int] = {word: n for n, word in _TENS.items()}

_DIGITS = re.compile(r"^(\d{1,2})(?:-?(?:й|го|ый|ой|ого|ому|м|ым))?$")


def read_number(tokens: list[str], start: int) -> tuple[int, int] | None:
    """The number that starts at ``tokens[start]`` and the index after it, or None.

    «двадцать» followed by a unit word is one number («двадцать один», «двадцать
    первого»); digits may carry an ordinal ending («5-го»).
    """
    if start >= len(tokens):
        return None
    word = tokens[start]
    digits = _DIGITS.match(word)
    if digits:
        return int(digits.group(1)), start + 1
    if word in TENS_WORDS and start + 1 < len(tokens):
        unit = _unit(tokens[start + 1])
        if unit is not None:
            return TENS_WORDS[word] + unit, start + 2
    if word in CARDINALS:
        return CARDINALS[word], start + 1
    if word in ORDINALS:
        return ORDINALS[word], start + 1
    return None


def _unit(word: str) -> int | None:
    value = CARDINALS.get(word, ORDINALS.get(word))
    return value if value is not None and value < 10 else None


def cardinal_word(n: int) -> str:
    """«пять», «двадцать один»: the nominative cardinal, for grammars and tests."""
    if 1 <= n <= 19:
        return (_UNITS + _TEENS)[n - 1]
    tens, unit = divmod(n, 10)
    return _TENS[tens * 10] + (f" {_UNITS[unit - 1]}" if unit else "")


def ordinal_word(n: int, ending: str = "ого") -> str:
    """«седьмого»: the genitive/accusative masculine ordinal (as after «выставляю»)."""
    tens, unit = divmod(n, 10)
    if n < 20 or unit == 0:
        stem, endings = _ORDINAL_STEMS[n]
        return stem + _pick(endings, ending)
    stem, endings = _ORDINAL_STEMS[unit]
    return f"{_TENS[tens * 10]} {stem}{_pick(endings, ending)}"


def _pick(endings: tuple[str, ...], ending: str) -> str:
    return next((e for e in endings if e.lstrip("ь") == ending), endings[1])
