"""Errors the rules core raises: bad data from outside (:class:`InputError`), and an input the
game does not take now (:class:`IllegalInput`, carrying a typed :class:`Refusal`). Both carry
enough to print one clear line."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import ClassVar

from .input_error import N_
from .input_error import InputError as InputError  # its own module, cheap to import (the command line)
from .roles import Role


@dataclass(frozen=True)
class Refusal:
    """Why the game (or the console) does not take an input: a kind and its fields, a value.

    Like python-chess's ``IllegalMoveError`` family, each kind is its own class, so a caller
    tells them apart by type, never by reading a sentence. ``english`` is the kind's one
    sentence, a template of its fields marked with ``N_``: ``str(refusal)`` fills it as it is
    (the log, the script player's ``ignored`` entries); its Russian is the gettext catalog's
    (``voicehost/locale``), said by :func:`voicehost.language.refusals.refusal_text` in the
    language in use. The rules import no i18n, so the translating is handed in (:meth:`worded_in`).
    """

    english: ClassVar[str] = ""
    worded: ClassVar[Mapping[str, Mapping[str, str]]] = {}
    """A field that holds a code, not words (what the game waits for): its value's own template,
    filled with the other fields, is put in its place."""

    def fields(self) -> dict[str, object]:
        return {field.name: getattr(self, field.name) for field in dataclasses.fields(self)}

    def worded_in(self, translate: Callable[[str], str],
                  shown: Callable[[str, object], object] = lambda name, value: value) -> str:
        """The sentence with each template through ``translate`` (gettext's ``_`` at the edge)
        and each plain field's value through ``shown`` (a role as its word)."""
        plain = {name: shown(name, value) for name, value in self.fields().items() if name not in self.worded}
        values = dict(plain)
        for name, codes in self.worded.items():
            values[name] = translate(codes[getattr(self, name)]).format(**plain)
        return translate(self.english).format(**values)

    def __str__(self) -> str:
        return self.worded_in(lambda template: template)


class IllegalInput(Exception):
    """An input the game is not asking for now (a vote during a speech, anything after the end).

    The game is left exactly as it was; the caller decides whether that is a bug or a
    human's mistake to report. ``refusal`` says which kind, with its fields; ``str(err)`` is
    its English message.
    """

    def __init__(self, refusal: Refusal) -> None:
        super().__init__(str(refusal))
        self.refusal = refusal


# ---- the game's refusals ------------------------------------------------------------------------------

@dataclass(frozen=True)
class GameIsOver(Refusal):
    english: ClassVar[str] = N_("the game is over")


@dataclass(frozen=True)
class CardsNotDealt(Refusal):
    english: ClassVar[str] = N_("the cards are not dealt yet")


@dataclass(frozen=True)
class CardsAlreadyDealt(Refusal):
    english: ClassVar[str] = N_("the cards are already dealt")


@dataclass(frozen=True)
class NotAsked(Refusal):
    """The input answers nothing the game waits for now (the console says what it waits for: ``NotNow``)."""

    english: ClassVar[str] = N_("the game does not wait for this now ({input})")
    input: str


@dataclass(frozen=True)
class SeatNotAtTable(Refusal):
    english: ClassVar[str] = N_("seat {seat} is not at the table")
    seat: int


@dataclass(frozen=True)
class NoSuchSeat(Refusal):
    english: ClassVar[str] = N_("there is no seat {seat}")
    seat: int


@dataclass(frozen=True)
class NobodyAtTable(Refusal):
    english: ClassVar[str] = N_("nobody is at the table")


@dataclass(frozen=True)
class LeavesAtMorning(Refusal):
    english: ClassVar[str] = N_("seat {seat} already leaves the table at the morning")
    seat: int


@dataclass(frozen=True)
class NotTheRolesAction(Refusal):
    english: ClassVar[str] = N_("the {role} cannot {action}")
    role: Role
    action: str


@dataclass(frozen=True)
class NotTheRolesSeat(Refusal):
    english: ClassVar[str] = N_("the {role} is seat {seat}, not {by}")
    role: Role
    seat: int | None
    by: int | None


@dataclass(frozen=True)
class NotATarget(Refusal):
    english: ClassVar[str] = N_("seat {seat} is not among {targets}")
    seat: int
    targets: tuple[int, ...]


@dataclass(frozen=True)
class DoesNotShoot(Refusal):
    english: ClassVar[str] = N_("seat {seat} does not shoot tonight")
    seat: int


@dataclass(frozen=True)
class NotTheSpeaker(Refusal):
    english: ClassVar[str] = N_("seat {speaker} has the floor, not seat {seat}")
    speaker: int
    seat: int


@dataclass(frozen=True)
class NotAVoter(Refusal):
    english: ClassVar[str] = N_("seat {seat} does not vote in this round")
    seat: int


@dataclass(frozen=True)
class NotOnBallot(Refusal):
    english: ClassVar[str] = N_("seat {seat} is not on the ballot")
    seat: int


@dataclass(frozen=True)
class DidNotVote(Refusal):
    english: ClassVar[str] = N_("seat {seat} did not vote in the last round")
    seat: int


@dataclass(frozen=True)
class NotACandidate(Refusal):
    english: ClassVar[str] = N_("seat {seat} was not a candidate in the last round")
    seat: int


@dataclass(frozen=True)
class NoVoteToCorrect(Refusal):
    english: ClassVar[str] = N_("there was no vote to correct")


@dataclass(frozen=True)
class NotBloodNameTurn(Refusal):
    english: ClassVar[str] = N_("only a player killed last night names a seat, during his turn")


@dataclass(frozen=True)
class NoSuchSide(Refusal):
    english: ClassVar[str] = N_("the maniac plays black or solo, not {side!r}")
    side: str


@dataclass(frozen=True)
class NoHandsNow(Refusal):
    english: ClassVar[str] = N_("hands are raised during the discussion round by players at the table")


# ---- tournament scoring (sport: options best_move and judge_points) ----------------------------

@dataclass(frozen=True)
class TournamentOptionOff(Refusal):
    """``option``: best_move or judge_points, off at this table (or not in its ruleset)."""

    english: ClassVar[str] = N_("the option {option} is off at this table")
    option: str


@dataclass(frozen=True)
class NoBestMoveFor(Refusal):
    english: ClassVar[str] = N_("seat {seat} has no best move: only the first player to leave, killed at night, "
                                "has one")
    seat: int


@dataclass(frozen=True)
class BestMoveSeats(Refusal):
    english: ClassVar[str] = N_("a best move names one to three different seats of the table, not his own ({seats})")
    seats: tuple[int, ...]


@dataclass(frozen=True)
class PointsOutOfRange(Refusal):
    """``points``: what was given, ``limit``: the most either way, both written as a person reads them (0.25)."""

    english: ClassVar[str] = N_("{points} points: the judge gives more than 0 and at most {limit}")
    points: str
    limit: str


@dataclass(frozen=True)
class NoReasonGiven(Refusal):
    english: ClassVar[str] = N_("the judge's points need a reason")


@dataclass(frozen=True)
class NoBestMoveYet(Refusal):
    english: ClassVar[str] = N_("nobody has a best move yet: the first player to leave must be killed at night")
