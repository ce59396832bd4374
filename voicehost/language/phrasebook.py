"""The Russian lines in ``config/phrases/ru.toml``, asked for by key."""

from __future__ import annotations

import string
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from voicehost.config import config_file, read_toml
from voicehost.language.russian import fill
from voicehost.rules import InputError


class Phrasebook:
    """Lines by dotted key (``log.nominated``, ``host.club.testament``)."""

    def __init__(self, lines: Mapping[str, str], place: str) -> None:
        self.lines = lines
        self.place = place

    def line(self, section: str, key: str, **values: Any) -> str:
        """A written line (the judge's log): numbers stay digits."""
        return self._template(f"{section}.{key}").format(**values)

    def host_key(self, key: str, ruleset: str) -> str:
        """``host.RULESET.key`` when the ruleset has its own wording, else ``host.key``."""
        own = f"host.{ruleset}.{key}"
        return own if own in self.lines else f"host.{key}"

    def say(self, key: str, ruleset: str, **values: Any) -> str:
        """What the host says aloud: numbers as Russian words in the needed form."""
        return fill(self._template(self.host_key(key, ruleset)), values)

    def has(self, key: str, ruleset: str) -> bool:
        return self.host_key(key, ruleset) in self.lines

    def _template(self, dotted: str) -> str:
        try:
            return self.lines[dotted]
        except KeyError:
            raise InputError(f"{self.place}: {dotted}", "no such line") from None


def phrasebook_from_mapping(data: Mapping[str, Any], place: str) -> Phrasebook:
    lines: dict[str, str] = {}
    for name, body in data.items():
        if not isinstance(body, Mapping):
            raise InputError(f"{place}: {name}", "must be a table of lines")
        _collect(body, name, lines, place)
    return Phrasebook(lines, place)


def _collect(table: Mapping[str, Any], prefix: str, lines: dict[str, str], place: str) -> None:
    for key, text in table.items():
        dotted = f"{prefix}.{key}"
        if isinstance(text, Mapping) and prefix == "host":
            _collect(text, dotted, lines, place)
            continue
        if not isinstance(text, str):
            raise InputError(f"{place}: {dotted}", "must be a string")
        try:
            list(string.Formatter().parse(text))
        except ValueError as err:
            raise InputError(f"{place}: {dotted}", f"bad placeholder ({err})") from None
        lines[dotted] = text


@lru_cache(maxsize=None)
def load_phrasebook(language: str = "ru") -> Phrasebook:
    path = config_file(f"phrases/{language}.toml")
    return phrasebook_from_mapping(read_toml(path), str(path))
