"""A game's place in a tournament (``"tournament": {"name", "round", "table"}`` in its protocol),
and the checks of a tournament's names and numbers: what the store needs of a tournament, kept
apart from :mod:`voicehost.records.tournament` (which reads the store) so the two import no circle.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import uuid

from voicehost.i18n import _
from voicehost.rules import InputError

NAME_LIMIT = 80
MAX_NUMBER = 999   # rounds, tables and seats


@dataclass(frozen=True)
class TournamentPlace:
    name: str
    round: int
    table: int

    def as_json(self) -> dict[str, Any]:
        return {"name": self.name, "round": self.round, "table": self.table}

    def __str__(self) -> str:
        return _("tournament {name!r} round {round} table {table}").format(name=self.name, round=self.round,
                                                                            table=self.table)


def check_name(value: object, place: str) -> str:
    """A tournament's or a player's name: text of 1 to 80 characters."""
    if not isinstance(value, str) or not value.strip() or len(value.strip()) > NAME_LIMIT:
        raise InputError(place, _("must be a name (text, 1 to {limit} characters)").format(limit=NAME_LIMIT))
    if not value.strip().isprintable():      # a control character, or a bidi override that reverses the screen
        raise InputError(place, _("the name holds a control or direction character"))
    return value.strip()


def check_number(value: object, place: str) -> int:
    """A round, table or seat number (1 … 999); digits as text are taken too (a JSON key)."""
    if isinstance(value, str) and value.isascii() and value.isdigit() and len(value) <= 3:
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_NUMBER:
        raise InputError(place, _("{value!r} is not a number from 1 to {top}").format(value=str(value)[:24],
                                                                                     top=MAX_NUMBER))
    return value


def place_of(protocol: Mapping[str, Any], where: str = "tournament") -> TournamentPlace | None:
    """The protocol's ``tournament`` (None: a game outside any tournament); a malformed one is refused."""
    tag = protocol.get("tournament")
    if tag is None:
        return None
    if not isinstance(tag, Mapping):
        raise InputError(where, _("must be an object (name, round, table)"))
    return TournamentPlace(check_name(tag.get("name"), f"{where}.name"), check_number(tag.get("round"),
                           f"{where}.round"), check_number(tag.get("table"), f"{where}.table"))


class PlaceTaken(InputError):
    """A second game at a tournament's round and table: refused, whatever was stored stays."""

    def __init__(self, at: TournamentPlace, stored: uuid.UUID, refused: uuid.UUID) -> None:
        super().__init__(str(at), _("already has game {stored}; game {refused} is not stored (one game per "
                                    "round and table; nothing recorded changed)").format(stored=str(stored)[:8],
                                                                                        refused=str(refused)[:8]))
        self.at = at
