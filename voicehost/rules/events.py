"""What the game decided: one frozen record per event, in the order they happen.

The director turns events into spoken lines and LED patterns, the journal stores them,
and the protocol is built from them. Events that carry a role are private to the host;
:data:`PRIVATE_EVENTS` lists them so public outputs can filter them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from .records import Record, family, from_dict, interned, quicken
from .requests import Round, Turn
from .roles import Role

# Who won (``GameOver.winner``, ``Outcome.winner``): a team's id, or nobody (classic's three
# sides, when the last two teams fall together).
Winner = Literal["red", "black", "yakuza", "maniac", "nobody"]
# How a player left the table (``Eliminated.cause``): voted out, killed at night, removed by the judge.
Cause = Literal["voted", "killed", "removed"]
# Why the game ended (``GameOver.reason``, ``Outcome.reason``; docs/scripts.md lists them).
Ending = Literal["no_black_left", "black_parity", "only_mafia_left", "only_yakuza_left", "maniac_last_two",
                 "mutual_destruction", "three_misses", "split_deadlock", "quiet_draw"]


class Event(Record):
    """Base of every event."""


@dataclass(frozen=True)
class RolesDealt(Event):
    roles: tuple[Role, ...]


@dataclass(frozen=True)
class NightFell(Event):
    night: int


@dataclass(frozen=True)
class ShootingResolved(Event):
    """``target`` is the seat hit, or None for a miss («Мафия промахнулась»)."""

    night: int
    target: int | None
    team: str = "black"


@dataclass(frozen=True)
class CheckAnswered(Event):
    night: int
    role: Role
    by: int
    target: int
    result: bool


@dataclass(frozen=True)
class MorningCame(Event):
    """«Доброе утро»: ``killed`` are announced; an empty tuple means nobody died."""

    day: int
    killed: tuple[int, ...]


@dataclass(frozen=True)
class DayBegan(Event):
    day: int
    opener: int
    order: tuple[int, ...]


@dataclass(frozen=True)
class SpeechBegan(Event):
    """``turn``: one of :data:`~voicehost.rules.requests.Turn` — speech, short and silent (after
    a 3rd foul), tie (автокатастрофа), last_word, intro, defence, extra, nominate, free (seat 0:
    the whole table), blood_name."""

    seat: int
    seconds: int
    turn: Turn


@dataclass(frozen=True)
class SpeechEnded(Event):
    seat: int


@dataclass(frozen=True)
class NominationAccepted(Event):
    by: int
    target: int


@dataclass(frozen=True)
class NominationRefused(Event):
    """``reason``: seat_out, not_a_seat, already_nominated, not_your_turn, one_per_speech,
    self_nomination, no_nominations_now."""

    by: int
    target: int
    reason: str


@dataclass(frozen=True)
class NominationWithdrawn(Event):
    by: int
    target: int


@dataclass(frozen=True)
class WithdrawalRefused(Event):
    by: int
    target: int
    reason: str


@dataclass(frozen=True)
class VotingBegan(Event):
    """``round``: one of :data:`~voicehost.rules.requests.Round` (main, revote, acquittal, mayor,
    prevote, final); candidates in the order they are put to the vote."""

    day: int
    round: Round
    candidates: tuple[int, ...]


@dataclass(frozen=True)
class NoVote(Event):
    """The day ends without a vote. ``reason``: no_candidates, single_on_day_one, cancelled."""

    day: int
    reason: str


@dataclass(frozen=True)
class VoteIgnored(Event):
    voter: int
    candidate: int
    reason: str


@dataclass(frozen=True)
class VotesCounted(Event):
    """``counts``: (candidate, votes) in ballot order; ``defaulted``: non-voters given to the last."""

    day: int
    round: Round
    counts: tuple[tuple[int, int], ...]
    defaulted: tuple[int, ...]


@dataclass(frozen=True)
class TieDeclared(Event):
    day: int
    seats: tuple[int, ...]


@dataclass(frozen=True)
class LiftAsked(Event):
    day: int
    candidates: tuple[int, ...]


@dataclass(frozen=True)
class LiftCounted(Event):
    day: int
    yes: int
    needed: int
    passed: bool


@dataclass(frozen=True)
class AllStay(Event):
    """A repeat tie that sends nobody away. ``reason``: lift_failed, four_players."""

    day: int
    reason: str


@dataclass(frozen=True)
class FoulGiven(Event):
    """``night``: the night a foul given during it belongs to (it takes effect at the morning)."""

    seat: int
    count: int
    reason: str
    night: int | None = None


@dataclass(frozen=True)
class Eliminated(Event):
    """``cause``: one of :data:`Cause` (voted, killed, removed). ``day``/``night`` says when (the
    other is None)."""

    seat: int
    cause: Cause
    day: int | None
    night: int | None


@dataclass(frozen=True)
class GameOver(Event):
    """``winner``: one of :data:`Winner`; ``reason``: one of :data:`Ending`. ``count``: the nights
    or days in a row behind a technical result (0 otherwise)."""

    winner: Winner
    reason: Ending
    count: int = 0


@dataclass(frozen=True)
class SideChosen(Event):
    """The club maniac's side: black (with the mafia) or solo."""

    seat: int
    side: str


@dataclass(frozen=True)
class ActionTaken(Event):
    """A single player's night action (heal, visit, kill); ``effective`` is False when a visit
    from the Putana cancelled it."""

    night: int
    role: Role
    action: str
    by: int
    target: int
    effective: bool


@dataclass(frozen=True)
class Saved(Event):
    """The Doctor's save. ``seat`` is who survives; ``chosen`` differs when the chosen player
    had been saved before and the other victim was saved instead."""

    night: int
    seat: int
    chosen: int


@dataclass(frozen=True)
class HandRaised(Event):
    seat: int


@dataclass(frozen=True)
class Acquitted(Event):
    """The club's once-per-game acquittal: fewer votes in the revote than the first time."""

    day: int
    seat: int


@dataclass(frozen=True)
class RoleRevealed(Event):
    """A card shown to the table, where the ruleset says so (``classic`` open, ``canonical``)."""

    seat: int
    role: Role


@dataclass(frozen=True)
class MayorElected(Event):
    day: int
    seat: int


@dataclass(frozen=True)
class BloodNamed(Event):
    by: int
    target: int


@dataclass(frozen=True)
class NominationsTallied(Event):
    """``canonical``: points per nominee in the nomination round, and the resulting ballot."""

    day: int
    points: tuple[tuple[int, int], ...]
    ballot: tuple[int, ...]


@dataclass(frozen=True)
class BestMoveNamed(Event):
    """Sport's «лучший ход»: the first player killed at night names up to three seats he takes for
    black (option ``best_move``); what they are stays private until the points are counted."""

    by: int
    seats: tuple[int, ...]


@dataclass(frozen=True)
class PointsGiven(Event):
    """The judge's bonus (above 0) or penalty (below 0) for a seat, in hundredths of a point
    (option ``judge_points``)."""

    seat: int
    hundredths: int
    reason: str


# Never shown to the table: who has which card, what a check found, the maniac's side, who did
# what at night (the morning names the dead, and only that).
PRIVATE_EVENTS: tuple[type[Event], ...] = (RolesDealt, CheckAnswered, SideChosen, ActionTaken, Saved,
                                           ShootingResolved)


def event_from_dict(data: dict[str, Any]) -> Event:
    return from_dict(Event, data)


# The events nearly every input emits, each distinct one built once (see interned).
speech_began = interned(SpeechBegan)
speech_ended = interned(SpeechEnded)
foul_given = interned(FoulGiven)
vote_ignored = interned(VoteIgnored)
nomination_accepted = interned(NominationAccepted)
nomination_refused = interned(NominationRefused)
eliminated = interned(Eliminated)
night_fell = interned(NightFell)
morning_came = interned(MorningCame)
shooting_resolved = interned(ShootingResolved)
check_answered = interned(CheckAnswered)

# Every event the engine builds gets the quick constructor and == (see quicken).
for _record in family(Event).values():
    quicken(_record)
