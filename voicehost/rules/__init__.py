"""The pure rules core: game state, inputs, events and one class per ruleset.

No I/O, no clock, no threads. Ruleset data arrives as a plain mapping (see
:mod:`voicehost.config` for reading the TOML files).
"""

from __future__ import annotations

from collections.abc import Mapping

from .canonical import CanonicalGame
from .classic import ClassicGame
from .club import ClubGame
from .errors import IllegalInput, InputError, Refusal
from .events import Event
from .flow import TableGame
from .game import Game, Outcome
from .inputs import Input
from .records import family, quicken
from .requests import Request
from .roles import Role, Team
from .ruleset import Options, Ruleset, ruleset_from_mapping
from .sport import SportGame

GAMES: Mapping[str, type[TableGame]] = {
    "sport": SportGame, "club": ClubGame, "classic": ClassicGame, "canonical": CanonicalGame,
}

# Every record the engine builds per input gets the quick constructor and == (see quicken).
for _record in (*family(Event).values(), *family(Input).values(), *Request.__args__, Outcome):
    quicken(_record)


def new_game(ruleset: Ruleset, options: Options, seats: int) -> TableGame:
    """A fresh game of ``ruleset`` waiting for the deal."""
    return GAMES[ruleset.name](ruleset, options, seats)


__all__ = [
    "GAMES", "Game", "IllegalInput", "InputError", "Options", "Outcome", "Refusal", "Role", "Ruleset",
    "CanonicalGame", "ClassicGame", "ClubGame", "SportGame", "TableGame", "Team", "new_game", "ruleset_from_mapping",
]
