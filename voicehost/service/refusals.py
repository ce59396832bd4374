"""The idle table's refusals: a start, resume, discard or best-player vote the table cannot take
in its state (:mod:`voicehost.service.table`).

Values like every refusal (:class:`~voicehost.rules.Refusal`): each kind's ``english`` template,
said in the language in use by :func:`voicehost.language.refusals.refusal_text` for the web and the
console alike.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from voicehost.i18n import N_
from voicehost.rules import Refusal


@dataclass(frozen=True)
class BestVoteNotNow(Refusal):
    english: ClassVar[str] = N_("no best-player vote is open (it follows a game whose scoring has one)")


@dataclass(frozen=True)
class NoUnfinishedGame(Refusal):
    english: ClassVar[str] = N_("there is no unfinished game")


@dataclass(frozen=True)
class TableHalted(Refusal):
    english: ClassVar[str] = N_("the table is halted: the journal cannot be written; restart voicehost")


@dataclass(frozen=True)
class UnfinishedGameWaits(Refusal):
    english: ClassVar[str] = N_("resume or discard the unfinished game first")


@dataclass(frozen=True)
class GameBeingSetAside(Refusal):
    english: ClassVar[str] = N_("the game is being set aside: start a new one once the table is ready")


@dataclass(frozen=True)
class TableNotReady(Refusal):
    english: ClassVar[str] = N_("the table is not ready yet")


@dataclass(frozen=True)
class TableStopping(Refusal):
    english: ClassVar[str] = N_("the table is shutting down")


@dataclass(frozen=True)
class GameRunning(Refusal):
    english: ClassVar[str] = N_("a game is already running")


@dataclass(frozen=True)
class NoBestSeat(Refusal):
    english: ClassVar[str] = N_("there is no seat {seat}: seats 1–{seats} at this table")
    seat: int
    seats: int


@dataclass(frozen=True)
class VoteNotWritten(Refusal):
    english: ClassVar[str] = N_("the vote is not written: {problem}")
    problem: str
