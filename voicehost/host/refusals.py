"""What the console refuses and how it answers a typed line.

A typed line is refused either by the game (an :class:`~voicehost.rules.IllegalInput` carrying
one of the rules' :class:`~voicehost.rules.Refusal` kinds) or by the console itself (bad usage,
an unknown command, no such seat, not now: the kinds below). Either way the refusal is a value:
the terminal, the web and the log render it from its kind and fields
(:func:`voicehost.language.refusals.refusal_text`), never by reading an English sentence.

Every typed line gets one :class:`ConsoleAnswer` per outcome, addressed by the line's id, so an
answer reaches the request that typed it (two judges may type the same words).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar, Literal

from voicehost.i18n import N_
from voicehost.rules import Refusal

# What the game waits for when a command is not for now (:class:`NotNow`), each worded by its own template.
Waiting = Literal["deal", "shots", "action", "dawn", "morning", "nightfall", "speech", "votes", "lift", "other"]
WAITING: dict[str, str] = {
    "deal": N_("the cards are still to be dealt"), "shots": N_("the mafia is shooting"),
    "action": N_("a night role is awake"), "dawn": N_("the night is ending"),
    "morning": N_("the morning is being announced"), "nightfall": N_("night is falling"),
    "speech": N_("a player has the floor"), "votes": N_("the vote is on"), "lift": N_("the lift vote is on"),
    "other": N_("the game waits for something else"),
}
# Why the game did not take a nomination (the reasons of rules.events.NominationRefused), each worded.
NominationReason = Literal["seat_out", "not_a_seat", "already_nominated", "not_your_turn", "one_per_speech",
                           "self_nomination", "no_nominations_now"]
NOMINATION_REASONS: dict[str, str] = {
    "seat_out": N_("seat {target} is out"), "not_a_seat": N_("there is no seat {target}"),
    "already_nominated": N_("seat {target} is nominated already"),
    "not_your_turn": N_("it is not seat {by}'s speech"),
    "one_per_speech": N_("seat {by} has nominated in this speech already"),
    "self_nomination": N_("nobody nominates himself"), "no_nominations_now": N_("no nominations now"),
}
AnswerOutcome = Literal["done", "refused", "held"]


class Refused(Exception):
    """A typed line the console does not carry out; ``refusal`` says why (``str``: in English)."""

    def __init__(self, refusal: Refusal) -> None:
        super().__init__(str(refusal))
        self.refusal = refusal


@dataclass(frozen=True)
class ConsoleAnswer:
    """The console's answer to the typed line ``id``: carried out, refused (and why), or held
    until ``resume`` (typed during a pause; a second answer follows once it is carried out)."""

    id: int
    line: str
    outcome: AnswerOutcome
    refusal: Refusal | None = None
    text: str = ""
    """Carried out: what was done (or taken back), in the judge's words (``answers.`` (read_lines))."""


# ---- the console's own refusals -------------------------------------------------------------------------

@dataclass(frozen=True)
class NoCommand(Refusal):
    english: ClassVar[str] = N_("no command")


@dataclass(frozen=True)
class LineTooLong(Refusal):
    english: ClassVar[str] = N_("the line is longer than {limit} characters")
    limit: int


@dataclass(frozen=True)
class NotText(Refusal):
    english: ClassVar[str] = N_("the line has characters that are not text (an arrow key, a broken byte): "
                                "type it again")


@dataclass(frozen=True)
class UnknownCommand(Refusal):
    english: ClassVar[str] = N_("unknown command; commands: {names}")
    names: str


@dataclass(frozen=True)
class Usage(Refusal):
    english: ClassVar[str] = N_("usage: {usage}")
    usage: str


@dataclass(frozen=True)
class TakesNothing(Refusal):
    english: ClassVar[str] = N_("{command} takes nothing after it")
    command: str


@dataclass(frozen=True)
class PointsTooFine(Refusal):
    """``penalty 3 0.333``: the judge's points are given in hundredths at most (0.25, 0.5)."""

    english: ClassVar[str] = N_("{points} points: the judge's points have at most two decimals (0.25, 0.5); "
                              "usage: {usage}")
    points: str
    usage: str


@dataclass(frozen=True)
class NoFoulToTakeBack(Refusal):
    english: ClassVar[str] = N_("seat {seat} has no foul to take back")
    seat: int


@dataclass(frozen=True)
class FoulNoLongerFits(Refusal):
    """Taking the foul back would change what followed it (the fourth foul removed the player)."""

    english: ClassVar[str] = N_("seat {seat}'s foul cannot be taken back: what followed it no longer fits "
                              "(undo the later inputs first)")
    seat: int


@dataclass(frozen=True)
class NoSeatHere(Refusal):
    english: ClassVar[str] = N_("there is no seat {seat} at this table (seats 1–{seats}); usage: {usage}")
    seat: int
    seats: int
    usage: str


@dataclass(frozen=True)
class NotNow(Refusal):
    """The command is not for this moment of the game (``waiting``: what the game waits for)."""

    english: ClassVar[str] = N_("not now: {waiting}")
    worded: ClassVar[Mapping[str, Mapping[str, str]]] = {"waiting": WAITING}
    waiting: Waiting


@dataclass(frozen=True)
class NotPaused(Refusal):
    english: ClassVar[str] = N_("the game is not paused")


@dataclass(frozen=True)
class AlreadyPaused(Refusal):
    english: ClassVar[str] = N_("the game is already paused")


@dataclass(frozen=True)
class NothingSaidYet(Refusal):
    english: ClassVar[str] = N_("the host has said nothing yet")


@dataclass(frozen=True)
class DealCannotBeUndone(Refusal):
    english: ClassVar[str] = N_("the deal cannot be undone (correct the cards with: roles 3=don,…)")


@dataclass(frozen=True)
class NoCardsYet(Refusal):
    english: ClassVar[str] = N_("no cards are dealt yet")


@dataclass(frozen=True)
class TypeTheCards(Refusal):
    english: ClassVar[str] = N_("type the cards as: roles 3=don,5=mafia,…")


@dataclass(frozen=True)
class CardsDoNotFit(Refusal):
    """The typed cards are not this table's cast (``problem``: the deal check's own line)."""

    english: ClassVar[str] = N_("the cards do not fit this table: {problem}")
    problem: str


@dataclass(frozen=True)
class NominationNotTaken(Refusal):
    """The game would not take a typed nomination (the host would have said «не принято»)."""

    english: ClassVar[str] = N_("seat {by} nominating seat {target} is not taken: {reason}")
    worded: ClassVar[Mapping[str, Mapping[str, str]]] = {"reason": NOMINATION_REASONS}
    by: int
    target: int
    reason: NominationReason


@dataclass(frozen=True)
class WithdrawalNotTaken(Refusal):
    english: ClassVar[str] = N_("seat {by} cannot withdraw seat {target}: not his nomination")
    by: int
    target: int


@dataclass(frozen=True)
class VoteCorrectionTooLate(Refusal):
    """«vote V C» would change who left the game, and the game since (that player's last word, the
    night after it) no longer fits the new count."""

    english: ClassVar[str] = N_("seat {voter}'s vote cannot be corrected so any more: another player would have "
                              "left, and the last word is said and the game went on")
    voter: int


# ---- the judge's own controls (voicehost.host.judging) ---------------------------------------------------

@dataclass(frozen=True)
class NoFloorNow(Refusal):
    english: ClassVar[str] = N_("nobody has the floor now: the speaker's time is changed during a speech")


@dataclass(frozen=True)
class TimeRunsOut(Refusal):
    english: ClassVar[str] = N_("only {left} s are left: {taken} s cannot be taken off (end the speech with end)")
    left: int
    taken: int


@dataclass(frozen=True)
class SpeechAlreadyHeld(Refusal):
    english: ClassVar[str] = N_("the speaker's clock is already held (release runs it again)")


@dataclass(frozen=True)
class NotHeld(Refusal):
    english: ClassVar[str] = N_("the speaker's clock is not held")


@dataclass(frozen=True)
class NothingToGiveBack(Refusal):
    english: ClassVar[str] = N_("no speech to give back: the floor goes back only while the last speech's end is "
                              "the game's last input")


@dataclass(frozen=True)
class VerdictGiven(Refusal):
    english: ClassVar[str] = N_("the game is annulled or stopped already (undo takes that back)")


@dataclass(frozen=True)
class BestAfterTheGame(Refusal):
    english: ClassVar[str] = N_("the best player is voted after the game, once it is over and not annulled")


@dataclass(frozen=True)
class NoJudgeRecordToUndo(Refusal):
    english: ClassVar[str] = N_("the game is over: only the judge's last note or verdict can be undone now")
