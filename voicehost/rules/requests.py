"""What the game is waiting for. ``Game.request`` holds one of these (None once it is over).

A director reads the request to know what to ask the table; a simulator reads it to know
which part of a script to feed. Requests naming a checker's seat are private to the host.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from .records import interned, quicken
from .roles import Role

# A turn at the table (``AwaitSpeech.turn``, ``SpeechBegan.turn``): a speech in the day's round;
# ``short`` and ``silent``, the speech a 3rd foul shortens or silences; ``tie``, a tied player's
# speech (автокатастрофа); ``last_word``, a leaving player's (also the club's testament);
# ``intro``, the club's introduction round; ``defence``, an accused player's; ``extra``, the
# club's raised-hand word; ``nominate``, canonical's «кого вы выдвигаете?»; ``free``, the whole
# table's free discussion (seat 0); ``blood_name``, classic's killed player naming a suspect.
Turn = Literal["speech", "short", "silent", "tie", "last_word", "intro", "defence", "extra", "nominate", "free",
               "blood_name"]
# A voting round (``AwaitVotes.round``, ``VotingBegan.round``, ``VotesCounted.round``): ``main``
# and its ``revote``; the club's ``acquittal``; classic's ``mayor``, ``prevote`` and ``final``.
Round = Literal["main", "revote", "acquittal", "mayor", "prevote", "final"]


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
    """A turn at the table. ``turn``: one of :data:`Turn` (seat 0 with ``free``: the whole
    table's free discussion)."""

    seat: int
    seconds: int
    turn: Turn
    may_nominate: bool


@dataclass(frozen=True)
class AwaitVotes:
    """A voting round (``round``: one of :data:`Round`)."""

    day: int
    round: Round
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
