"""What the game is waiting for. ``Game.request`` holds one of these (None once it is over).

A director reads the request to know what to ask the table; a simulator reads it to know
which part of a script to feed. Requests naming a checker's seat are private to the host.
"""

from __future__ import annotations

from dataclasses import dataclass

from .records import interned, quicken
from .roles import Role


@dataclass(frozen=True)
class AwaitDeal:
    seats: int


@dataclass(frozen=True)
class AwaitShots:
    """A team's kill (mafia, yakuza): ``called`` are the numbers the host calls, in order."""

    night: int
    team: str
    shooters: tuple[int, ...]
    called: tuple[int, ...]


@dataclass(frozen=True)
class AwaitAction:
    """«Просыпается …»: ``role`` wakes and may take one of ``actions`` (check, heal, visit,
    kill, join). ``by`` is None when that role is out or absent: still called, does nothing.
    ``targets`` narrows the choice where the rules do (the Doctor's victims); None: any seat."""

    night: int
    role: Role
    actions: tuple[str, ...]
    by: int | None
    targets: tuple[int, ...] | None = None


@dataclass(frozen=True)
class AwaitDawn:
    """The night's decisions are in; the host may end it (after the acquaintance minute on night 1)."""

    night: int


@dataclass(frozen=True)
class AwaitMorning:
    """The morning is announced (the night's victims are out); the host has not given anyone the
    floor yet. Fouls and removals «at the morning» land here, before the day's speaking order."""

    day: int


@dataclass(frozen=True)
class AwaitNightfall:
    """The day's business is over (the vote and its last words); night has not fallen yet.
    Fouls and removals after the vote land here and still belong to the day."""

    day: int


@dataclass(frozen=True)
class AwaitSpeech:
    """A turn at the table. ``turn``: speech, silent, short, tie, last_word, intro, defence,
    extra, nominate, free (seat 0: the whole table's free discussion)."""

    seat: int
    seconds: int
    turn: str
    may_nominate: bool


@dataclass(frozen=True)
class AwaitVotes:
    day: int
    round: str
    candidates: tuple[int, ...]
    voters: tuple[int, ...]


@dataclass(frozen=True)
class AwaitLift:
    day: int
    candidates: tuple[int, ...]
    voters: tuple[int, ...]


Request = (AwaitDeal | AwaitShots | AwaitAction | AwaitDawn | AwaitMorning | AwaitSpeech | AwaitVotes | AwaitLift
           | AwaitNightfall)
for _request in Request.__args__:  # the quick constructor and == (see quicken)
    quicken(_request)

# The requests of every turn and pause, each distinct one built once (see interned).
await_speech = interned(AwaitSpeech)
await_dawn = interned(AwaitDawn)
await_morning = interned(AwaitMorning)
await_nightfall = interned(AwaitNightfall)
await_action = interned(AwaitAction)
