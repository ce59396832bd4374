"""The pure rules core: game state, inputs, events and one class per ruleset.

No I/O, no clock, no threads. Ruleset data arrives as a plain mapping (see
:mod:`voicehost.config` for reading the TOML files).

The names below are loaded on first use (PEP 562 ``__getattr__``): importing every ruleset
costs a command that needs none of them (``voicehost parse``, ``--help``) more than the
interpreter's own start, so ``from voicehost.rules import InputError`` loads only
:mod:`~voicehost.rules.errors` and what it needs. Each record module makes its records quick
itself (see :func:`~voicehost.rules.records.quicken`), whoever imports it first.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from .catalog import VARIANTS

if TYPE_CHECKING:
    from collections.abc import Mapping

    from .canonical import CanonicalGame
    from .classic import ClassicGame
    from .club import ClubGame
    from .errors import IllegalInput, Refusal
    from .events import Event as Event
    from .flow import TableGame
    from .game import Game, Outcome
    from .input_error import InputError
    from .inputs import Input as Input
    from .options import Options
    from .requests import Request as Request
    from .roles import Role, Team
    from .ruleset import Ruleset, ruleset_from_mapping
    from .sport import SportGame

    GAMES: Mapping[str, type[TableGame]]

# Where each name lives (the module under voicehost.rules), loaded when first asked for: each
# ruleset's game and options classes where its catalog line (catalog.VARIANTS) says.
HOMES = {
    **{variant.game: variant.module for variant in VARIANTS}, **{variant.options: "options" for variant in VARIANTS},
    "IllegalInput": "errors", "InputError": "input_error", "Refusal": "errors", "Event": "events", "TableGame": "flow",
    "Game": "game", "Outcome": "game", "Input": "inputs", "Request": "requests", "Role": "roles", "Team": "roles",
    "Options": "options", "Ruleset": "ruleset", "ruleset_from_mapping": "ruleset",
}


def __getattr__(name: str) -> Any:
    """Load ``name`` from its module the first time it is asked for, then keep it here."""
    if name == "GAMES":
        value: Any = {variant.name: __getattr__(variant.game) for variant in VARIANTS}
    elif name in HOMES:
        value = getattr(importlib.import_module(f"{__name__}.{HOMES[name]}"), name)
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


def new_game(ruleset: Ruleset, options: Options, seats: int) -> TableGame:
    """A fresh game of ``ruleset`` waiting for the deal."""
    # from this module's globals once loaded: __getattr__ itself would build the table (and ask
    # importlib for each ruleset's module) on every call, a third of a short script's reading
    games: Mapping[str, type[TableGame]] = globals().get("GAMES") or __getattr__("GAMES")
    return games[ruleset.name](ruleset, options, seats)


__all__ = [
    "GAMES", "Game", "IllegalInput", "InputError", "Options", "Outcome", "Refusal", "Role", "Ruleset",
    "CanonicalGame", "ClassicGame", "ClubGame", "SportGame", "TableGame", "Team", "new_game", "ruleset_from_mapping",
]
