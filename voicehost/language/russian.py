"""Russian agreement for the host's lines: numbers as words in the needed case and gender,
and nouns after numbers («один голос», «два голоса», «пять голосов»).

num2words (0.5.14+) spells cardinals and ordinals in every case and gender; what it does
not do is pick the noun form after a number, which :func:`plural` does by the usual
rule (1, 21… → one; 2–4, 22–24… → few; the rest, 11–14 included → many).

Format specs understood in phrasebook placeholders, e.g. ``{seat:ord_gen}``:
``""`` cardinal nominative («семь»), ``card_<case>`` cardinal in a case, ``ord_<case>``
or ``ord_<case>_<f|n>`` ordinal («седьмого», «третьей»), ``count:<m|f|n>:one:few:many``
a number with its noun («два голоса»), ``pick:one:few:many`` only the word that agrees
with the number («Осталась одна секунда», «Осталось пять секунд»), ``duration`` seconds
as minutes and seconds («полторы минуты», «две минуты десять секунд»), ``digits`` the
plain number. Sequences (a list of seats) are joined «пять, семь и девять».

A roster name (a string) takes a case the same way (``{name:gen}`` «кроме Анны»): it is
declined by pymorphy3 when its dictionary knows it as a name, surname or a living being's
noun (a nickname such as «Барон»); an unknown or foreign name stays as written. A word that
agrees with a name's gender is ``gender:<masculine>:<feminine>`` («{name:gender:выставлен:выставлена}
{name}»: «выставлена Анна»); a name the dictionary does not know as feminine takes the masculine.
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
RUSSIAN_VOWELS = "аеёиоуыэюя"


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
        if isinstance(value, str) and format_spec in CASES:
            return decline_name(value, format_spec)
        if isinstance(value, str) and format_spec.startswith("gender:"):
            masculine, feminine = format_spec.split(":")[1:]
            return feminine if is_feminine(value) else masculine
        if not isinstance(value, int) or isinstance(value, bool):
            return str(super().format_field(value, format_spec))
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
    if kind == "pick":
        one, few, many = rest
        return plural(n, one, few, many)
    if kind == "duration":
        return duration(n)
    if kind in ("card", "ord"):
        case = rest[0] if rest else "nom"
        gender = rest[1] if len(rest) > 1 else "m"
        if case not in CASES or gender not in GENDERS:
            raise ValueError(f"unknown number form {spec!r}")
        return cardinal(n, case, gender) if kind == "card" else ordinal(n, case, gender)
    raise ValueError(f"unknown number form {spec!r}")


def duration(seconds: int) -> str:
    """A timer's length as a host says it: «минута», «полторы минуты», «две с половиной
    минуты», «одна минута сорок секунд», «тридцать секунд»."""
    minutes, rest = divmod(seconds, 60)
    counted_minutes = spell(minutes, "count:f:минута:минуты:минут")
    if rest == 0:
        return counted_minutes
    counted_seconds = spell(rest, "count:f:секунда:секунды:секунд")
    if minutes == 0:
        return counted_seconds
    if rest == 30:
        return "полторы минуты" if minutes == 1 else (
            f"{cardinal(minutes, 'nom', 'f')} с половиной {plural(minutes, 'минуты', 'минуты', 'минут')}")
    return f"{counted_minutes} {counted_seconds}"


_CASE_TAGS = {"nom": "nomn", "gen": "gent", "dat": "datv", "acc": "accs", "ins": "ablt", "pre": "loct"}
_NAME_TAGS = ("Name", "Surn", "Patr")


@lru_cache(maxsize=1)
def _morphology() -> Any:
    import pymorphy3
    return pymorphy3.MorphAnalyzer(lang="ru")


def decline_name(name: str, case: str) -> str:
    """``name`` in ``case``, word by word; words the dictionary does not know stay as written."""
    if case == "nom":
        return name
    return " ".join(_decline_word(word, _CASE_TAGS[case]) for word in name.split())


@lru_cache(maxsize=4096)
def _decline_word(word: str, case_tag: str) -> str:
    """A roster word is a person's name or nickname, so it is declined as a person: «Туман»,
    an inanimate noun in the dictionary, takes the animate accusative («вижу Тумана»), as
    «Барон» does. A word known in no nominative singular form but shaped like a first-declension
    name («Кеша», which pymorphy3 reads only as a form of «кеш») follows that declension's
    endings; anything else stays as written."""
    parses = _nominative_singular(word)
    chosen = _name_among(parses)
    if chosen is None:
        chosen = next((p for p in parses if p.tag.POS == "NOUN"), None)
    if chosen is None:
        return _first_declension(word, case_tag) if not parses else word
    animate_accusative = case_tag == "accs" and "anim" not in chosen.tag and "masc" in chosen.tag
    inflected = chosen.inflect({"gent" if animate_accusative else case_tag})
    if inflected is None:
        return word
    form = str(inflected.word)
    return form.capitalize() if word[:1].isupper() else form


# The endings of a first-declension name in «-а»/«-я» («Кеша», «Саша», «Ваня»): the ending
# after a hushing or velar consonant («Кеши», not «Кешы»), after «-а», after «-я».
_FIRST_DECLENSION = {
    "а": {"gent": "ы", "datv": "е", "accs": "у", "ablt": "ой", "loct": "е"},
    "а_soft": {"gent": "и", "datv": "е", "accs": "у", "ablt": "ей", "loct": "е"},
    "а_velar": {"gent": "и", "datv": "е", "accs": "у", "ablt": "ой", "loct": "е"},
    "я": {"gent": "и", "datv": "е", "accs": "ю", "ablt": "ей", "loct": "е"},
}


def _first_declension(word: str, case_tag: str) -> str:
    if len(word) < 3 or word[-1] not in "ая" or word[-2].lower() in RUSSIAN_VOWELS or not word.isalpha():
        return word
    kind = word[-1]
    if kind == "а" and word[-2] in "жшчщ":
        kind = "а_soft"
    elif kind == "а" and word[-2] in "гкх":
        kind = "а_velar"
    if word[-2] == "и" and kind == "я":  # «Мария»: «Марии», handled by the dictionary if known
        return word
    return word[:-1] + _FIRST_DECLENSION[kind][case_tag]


def _nominative_singular(word: str) -> list[Any]:
    return [p for p in _morphology().parse(word) if p.is_known and "sing" in p.tag and "nomn" in p.tag]


def _as_name(word: str) -> Any:
    """The dictionary's reading of ``word`` as a name, a surname or a living being's noun, if any."""
    return _name_among(_nominative_singular(word))


def _name_among(parses: list[Any]) -> Any:
    chosen = next((p for p in parses if any(t in p.tag for t in _NAME_TAGS)), None)
    if chosen is None:
        chosen = next((p for p in parses if p.tag.POS == "NOUN" and "anim" in p.tag), None)
    return chosen


@lru_cache(maxsize=4096)
def is_feminine(name: str) -> bool:
    """Whether a roster name is a woman's («Анна», «Вера Петрова»): by its first word the
    dictionary knows as a name; «Саша» (either) and unknown names count as masculine."""
    for word in name.split():
        chosen = _as_name(word)
        if chosen is not None:
            return bool(chosen.tag.gender == "femn")
    return False


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
