"""The roster — who sits where, by name — checked the one way for a script's ``names`` and
``voicehost run --names``: every entry a seat of the table, named once, with a name of its own."""

from __future__ import annotations

import re
from collections.abc import Iterable

from .input_error import N_, InputError

_SEAT = re.compile(r"[0-9]{1,3}")  # ASCII digits only, and no seat has more than three
NAME_MAX_CHARS = 40  # a name longer than this is refused on every path (the pages are measured up to it)


class NameTooLong(InputError):
    """A roster name over :data:`NAME_MAX_CHARS`: its own kind, so a setup says it in so many words."""


def roster(entries: Iterable[tuple[object, object]], seats: int, by_name: str | None, place: str) -> dict[int, str]:
    """(seat, name) pairs → {seat: name}. ``place`` prefixes each entry's place in an error
    (``names.`` → ``names.3``); ``by_name``: the ruleset that calls players by name (so every
    seat needs one), or None."""
    names: dict[int, str] = {}
    for key, value in entries:
        where = f"{place}{key}"
        text = str(key).strip()
        if isinstance(key, bool) or not _SEAT.fullmatch(text):
            raise InputError(where, N_("{key} is not a seat number"), {"key": repr(key)})
        seat = int(text)
        if not 1 <= seat <= seats:
            raise InputError(where, N_("there is no seat {seat} at a {seats}-seat table"),
                             {"seat": seat, "seats": seats})
        if seat in names:
            raise InputError(where, N_("seat {seat} is named twice"), {"seat": seat})
        if not isinstance(value, str) or not value.strip():
            raise InputError(where, N_("must be a non-empty name"))
        if len(value.strip()) > NAME_MAX_CHARS:
            raise NameTooLong(where, N_("{name}… is longer than {most} characters"),
                              {"name": repr(value.strip()[:20]), "most": NAME_MAX_CHARS})
        twin = next((s for s, n in names.items() if n.casefold() == value.strip().casefold()), None)
        if twin is not None:
            raise InputError(where, N_("{name} is already seat {twin}'s name"), {"name": repr(value), "twin": twin})
        names[seat] = value.strip()
    missing = [str(s) for s in range(1, seats + 1) if s not in names]
    if by_name and missing:
        raise InputError(place.rstrip(". "),
                         N_("{ruleset} calls players by name: the roster has no name for seat {seats}"),
                         {"ruleset": by_name, "seats": ", ".join(missing)})
    return names
