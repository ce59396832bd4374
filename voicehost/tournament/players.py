"""The player list a tournament seats: a plain text file, one name per line. Blank lines and
lines starting with ``#`` are skipped; a name is trimmed of surrounding spaces, at most
``MAX_NAME`` characters, and may appear once (names are compared ignoring case)."""

from __future__ import annotations

from voicehost.i18n import _
from voicehost.rules import InputError

MAX_NAME = 40


def parse_names(text: str, place: str) -> list[str]:
    """The names in ``text`` (a player list file's contents), in file order; ``place`` (the
    file's name) starts every refusal, with the line number."""
    names: list[str] = []
    seen: dict[str, int] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        name = " ".join(line.split())
        if not name or name.startswith("#"):
            continue
        where = f"{place}:{number}"
        if len(name) > MAX_NAME:
            raise InputError(where, _("the name is longer than {limit} characters").format(limit=MAX_NAME))
        if not name.isprintable():     # also a bidi override (U+202E) or another format character
            raise InputError(where, _("the name holds a control or direction character"))
        key = name.casefold()
        if key in seen:
            raise InputError(where, _("{name!r} is already on line {line}").format(name=name, line=seen[key]))
        seen[key] = number
        names.append(name)
    if not names:
        raise InputError(place, _("the player list holds no name (one name per line)"))
    return names
