"""The Russian lines in ``config/phrases/ru.toml``, asked for by key: what the host says aloud and
what the judge hears in the earpiece. What a club reads is in the gettext catalog
(:mod:`voicehost.language.read_lines`, the refusals' sentences :mod:`voicehost.language.refusals`);
a phrases file that still has one of those sections is refused, so that a club's old rewording is
not silently ignored."""

from __future__ import annotations

import string
from collections.abc import Callable, Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

from voicehost.config import config_file, packaged_config, read_toml
from voicehost.i18n import _
from voicehost.language.read_lines import SECTIONS as READ_SECTIONS
from voicehost.language.russian import fill
from voicehost.rules import InputError

# Sections a phrases file held once and may no longer hold: read, not spoken, so in the gettext catalog now.
GONE = (*READ_SECTIONS, "refusals")


class Phrasebook:
    """Lines by dotted key (``host.night_falls``, ``host.club.testament``, ``judge.refused``)."""

    def __init__(self, lines: Mapping[str, str], place: str) -> None:
        self.lines = lines
        self.place = place

    def host_key(self, key: str, ruleset: str) -> str:
        """``host.RULESET.key`` when the ruleset has its own wording, else ``host.key``."""
        own = f"host.{ruleset}.{key}"
        return own if own in self.lines else f"host.{key}"

    def say(self, key: str, ruleset: str, **values: Any) -> str:
        """What the host says aloud: numbers as Russian words in the needed form."""
        return self._filled(self.host_key(key, ruleset), lambda text: fill(text, values))

    def _filled(self, dotted: str, how: Callable[[str], str]) -> str:
        """A placeholder the load could not vouch for (a format the line cannot take) is one line, not a traceback."""
        try:
            return how(self._template(dotted))
        except (KeyError, IndexError, ValueError, TypeError, AttributeError) as err:
            raise InputError(f"{self.place}: {dotted}", _("cannot fill the line ({kind}: {err})").format(
                                                            kind=type(err).__name__, err=err)) \
                from None

    def has(self, key: str, ruleset: str) -> bool:
        return self.host_key(key, ruleset) in self.lines

    def _template(self, dotted: str) -> str:
        try:
            return self.lines[dotted]
        except KeyError:
            raise InputError(f"{self.place}: {dotted}", _("no such line")) from None


def phrasebook_from_mapping(data: Mapping[str, Any], place: str,
                            reference: Mapping[str, str] | None = None) -> Phrasebook:
    """The lines, checked; with ``reference`` (the packaged phrasebook's lines) a line the
    file does not reword comes from the reference, and a reworded one may use only the
    placeholders the program fills for it."""
    lines: dict[str, str] = {}
    for name, body in data.items():
        if name in GONE:   # read, not spoken: its lines are in the gettext catalog now
            raise InputError(f"{place}: [{name}]", _("this section is no longer read from a phrases file: its "
                                                     "lines are in the program's catalog (voicehost/locale); "
                                                     "remove the section"))
        if not isinstance(body, Mapping):
            raise InputError(f"{place}: {name}", _("must be a table of lines"))
        _collect(body, name, lines, place)
    for dotted, text in (reference or {}).items():
        if dotted not in lines:
            lines[dotted] = text  # a club's file holds only the lines it rewords
            continue
        unknown = placeholders(lines[dotted]) - placeholders(text)
        if unknown:
            given = ", ".join(f"{{{n}}}" for n in sorted(placeholders(text))) or "none"
            raise InputError(f"{place}: {dotted}", _("unknown placeholder {{{unknown}}} (this line is given: "
                                                     "{given})").format(
                                                       unknown=sorted(unknown)[0], given=given))
    return Phrasebook(lines, place)


def placeholders(text: str) -> set[str]:
    return {field.split(".")[0].split("[")[0] for _, field, _, _ in string.Formatter().parse(text)
            if field is not None}


def _collect(table: Mapping[str, Any], prefix: str, lines: dict[str, str], place: str) -> None:
    for key, text in table.items():
        dotted = f"{prefix}.{key}"
        if isinstance(text, Mapping) and prefix == "host":
            _collect(text, dotted, lines, place)
            continue
        if not isinstance(text, str):
            raise InputError(f"{place}: {dotted}", _("must be a string"))
        try:
            list(string.Formatter().parse(text))
        except ValueError as err:
            raise InputError(f"{place}: {dotted}", _("bad placeholder ({err})").format(err=err)) from None
        lines[dotted] = text


@lru_cache(maxsize=None)
def load_phrasebook(language: str = "ru") -> Phrasebook:
    """The phrasebook of the first config layer that has it, checked (see :func:`phrasebook_from_file`)."""
    return phrasebook_from_file(config_file(f"phrases/{language}.toml"))


def phrasebook_from_file(path: Path) -> Phrasebook:
    """A phrasebook file over the packaged one of its language: a club's own wording may
    change any line (the rest stay as packaged), but not ask for values it is not given."""
    bundled = packaged_config() / "phrases" / path.name
    reference = None
    if bundled.is_file() and bundled.resolve() != path.resolve():
        reference = phrasebook_from_mapping(read_toml(bundled), str(bundled)).lines
    return phrasebook_from_mapping(read_toml(path), str(path), reference)
