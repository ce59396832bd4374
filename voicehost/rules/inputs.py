"""What the table tells the game: one frozen record per input.

Inputs come from scripts, the ears (parsed speech), the seat panel (votes, taps) and the
host console; the game accepts the one its current request asks for, plus fouls and
removals at any time.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .records import Record, family, from_dict, interned, quicken
from .roles import Role


class Input(Record):
    """Base of every input."""


@dataclass(frozen=True)
class Deal(Input):
    """The cards as dealt: ``roles[i]`` is seat i+1's role."""

    roles: tuple[Role, ...]


@dataclass(frozen=True)
class Shots(Input):
    """The team's shooting round: each shooter's taps, in order, as seat numbers."""

    taps: tuple[tuple[int, tuple[int, ...]], ...]


@dataclass(frozen=True)
class Check(Input):
    """A night check. ``by`` is None when the called role is out or absent and does nothing."""

    by: int | None
    target: int | None


@dataclass(frozen=True)
class Heal(Input):
    by: int | None
    target: int | None


@dataclass(frozen=True)
class Visit(Input):
    by: int | None
    target: int | None


@dataclass(frozen=True)
class Kill(Input):
    """A single player's kill: the maniac, or the club Sheriff who shoots instead of checking."""

    by: int | None
    target: int | None


@dataclass(frozen=True)
class Join(Input):
    """The club maniac's side, chosen on night 1: ``black`` or ``solo``."""

    by: int | None
    side: str


@dataclass(frozen=True)
class BloodName(Input):
    """«Имя кровью»: a player killed last night names his suspected killer."""

    by: int
    target: int


@dataclass(frozen=True)
class RaiseHand(Input):
    """A club player asks for 30 more seconds after the round."""

    seat: int


@dataclass(frozen=True)
class Dawn(Input):
    """The host ends the night: «Утро. Все просыпаются»."""


@dataclass(frozen=True)
class Proceed(Input):
    """The host moves the table on from a pause the judge may use: the morning (before the
    floor is given) or the end of a day (before night falls)."""


@dataclass(frozen=True)
class Nominate(Input):
    by: int
    target: int


@dataclass(frozen=True)
class Withdraw(Input):
    by: int
    target: int


@dataclass(frozen=True)
class EndSpeech(Input):
    """The speaker said «Спасибо»/«Пас», tapped his button, or his time ran out."""

    seat: int


@dataclass(frozen=True)
class Vote(Input):
    voter: int
    candidate: int


@dataclass(frozen=True)
class Lift(Input):
    """A yes to «Кто за то, чтобы все голосуемые покинули игру?»."""

    voter: int


@dataclass(frozen=True)
class CloseVoting(Input):
    """«Спасибо» after the last window: the round is counted."""


@dataclass(frozen=True)
class Foul(Input):
    seat: int
    reason: str = "host"


@dataclass(frozen=True)
class Remove(Input):
    seat: int
    reason: str = "host"


@dataclass(frozen=True)
class BestMove(Input):
    """«Лучший ход»: the first player killed at night names up to three seats (sport, option ``best_move``)."""

    by: int
    seats: tuple[int, ...]


@dataclass(frozen=True)
class JudgePoints(Input):
    """The judge's bonus (``hundredths`` above 0) or penalty (below 0) for ``seat``, with a reason
    (sport, option ``judge_points``). Hundredths, so a point travels exactly through JSON."""

    seat: int
    hundredths: int
    reason: str


def input_from_dict(data: dict[str, Any]) -> Input:
    return from_dict(Input, data)




# The inputs a table gives over and over, each distinct one built once (see interned).
end_speech = interned(EndSpeech)
vote = interned(Vote)
nominate = interned(Nominate)
foul = interned(Foul)
lift = interned(Lift)
dawn = interned(Dawn)
proceed = interned(Proceed)
close_voting = interned(CloseVoting)

# A night action's name (a request's ``actions``, a script's night key) → the input it becomes
# (interned: a seat checks, heals or visits another every night).
ACTIONS: dict[str, Callable[[int | None, int | None], Check | Heal | Visit | Kill]] = {
    "check": interned(Check), "heal": interned(Heal), "visit": interned(Visit), "kill": interned(Kill),
}

# Every input the engine builds gets the quick constructor and == (see quicken).
for _record in family(Input).values():
    quicken(_record)
