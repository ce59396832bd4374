"""Every line the host can say: each host key of each ruleset, filled with every value its
placeholders can take at a table (every seat, count, duration, ordinal and role, lists of
seats, a club's roster names). The stress check reads them word by word."""

from __future__ import annotations

import itertools
import string
from collections.abc import Iterator, Sequence

from voicehost.config import load_ruleset, ruleset_names
from voicehost.language.host_lines import HOST_KEYS
from voicehost.language.phrasebook import Phrasebook

# Names a club's roster holds (Russian first names and nicknames, as issue 29 checked them).
ROSTER = ["Анна", "Борис", "Егор", "Жанна", "Пётр", "Айгуль", "Мария", "Дмитрий", "Ольга", "Сергей", "Наталья",
          "Алексей", "Екатерина", "Иван", "Татьяна", "Михаил", "Юлия", "Андрей", "Елена", "Николай", "Ирина",
          "Александра", "Виктор", "Светлана", "Павел", "Барон", "Туман", "Пуля", "Гром", "Молния", "Кактус", "Тень"]
ROLE_KEYS = ("citizen", "sheriff", "commissar", "doctor", "putana", "don", "mafia", "yakuza", "maniac")
SEAT_LISTS = ([3, 7], [2, 5, 9], [1, 4, 6, 10], [11, 12])


NAME_SPECS = ("nom", "gen", "dat", "acc", "ins", "pre", "gender")


def _fields(template: str) -> set[str]:
    return {field for _, field, _, _ in string.Formatter().parse(template) if field}


def _named(template: str) -> set[str]:
    """The fields the line declines or agrees as a name (``{target:acc}``, ``{name:gender:…}``)."""
    return {field for _, field, spec, _ in string.Formatter().parse(template)
            if field and spec and spec.split(":")[0] in NAME_SPECS}


def _values(field: str, book: Phrasebook, ruleset: str, seats: int, durations: list[int]) -> Sequence[object]:
    if field in ("seat", "needed", "target"):   # a name target is declined ({target:acc}): _named's
        return list(range(1, seats + 1))
    if field in ("n", "count", "yes"):
        return list(range(0, 13))
    if field == "list":
        return [seats_ for seats_ in SEAT_LISTS if max(seats_) <= seats]
    if field == "seconds":
        return durations
    if field == "role":
        return [book.say(f"role_{role}", ruleset) for role in ROLE_KEYS]
    if field == "name":
        return list(ROSTER)
    if field == "names":
        return [ROSTER[k:k + 2] for k in range(0, len(ROSTER), 2)]
    raise AssertionError(f"no values for the placeholder {{{field}}}: teach every_line.py")


def lines(book: Phrasebook) -> Iterator[tuple[str, str, str]]:
    """(ruleset, key, line) for every line, each filled every way it can be."""
    for ruleset in ruleset_names():
        rules = load_ruleset(ruleset)
        seats = max(rules.seats)
        durations = sorted({int(v) for v in rules.timers.values()} | {30, 40, 60, 90})
        for key in sorted(HOST_KEYS):
            if not book.has(key, ruleset):
                continue
            template = book.lines[book.host_key(key, ruleset)]
            fields = sorted(_fields(template))
            named = _named(template)
            domains = [list(ROSTER) if field in named else _values(field, book, ruleset, seats, durations)
                       for field in fields]
            for combination in itertools.product(*domains):
                yield ruleset, key, book.say(key, ruleset, **dict(zip(fields, combination, strict=True)))
