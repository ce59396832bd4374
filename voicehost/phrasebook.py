"""The Russian lines in ``config/phrases/ru.toml``, asked for by key."""

from __future__ import annotations

import string
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from .config import config_dir, read_toml
from .rules import InputError


class Phrasebook:
    def __init__(self, sections: Mapping[str, Mapping[str, str]], place: str) -> None:
        self.sections = sections
        self.place = place

    def line(self, section: str, key: str, **values: Any) -> str:
        """The line ``section.key`` with its placeholders filled."""
        try:
            template = self.sections[section][key]
        except KeyError:
            raise InputError(f"{self.place}: {section}.{key}", "no such line") from None
        return template.format(**values)


def phrasebook_from_mapping(data: Mapping[str, Any], place: str) -> Phrasebook:
    sections: dict[str, dict[str, str]] = {}
    for name, lines in data.items():
        if not isinstance(lines, Mapping):
            raise InputError(f"{place}: {name}", "must be a table of lines")
        for key, text in lines.items():
            if not isinstance(text, str):
                raise InputError(f"{place}: {name}.{key}", "must be a string")
            try:
                list(string.Formatter().parse(text))
            except ValueError as err:
                raise InputError(f"{place}: {name}.{key}", f"bad placeholder ({err})") from None
        sections[name] = dict(lines)
    return Phrasebook(sections, place)


@lru_cache(maxsize=None)
def load_phrasebook(language: str = "ru") -> Phrasebook:
    path = config_dir() / "phrases" / f"{language}.toml"
    return phrasebook_from_mapping(read_toml(path), str(path))
