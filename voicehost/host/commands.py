"""The judge's commands, each declared once as a typed value: the one registry the terminal's
reader, the judge's phone (its tools and the commands a ruleset offers), the journal's reader of
judge records and the service's table read.

A command is a frozen dataclass whose fields are its typed arguments (``FoulCommand(seat=3)``),
and whose class attributes say everything else about it: its name and usage, the arguments it
reads (:data:`Arg`), when it is taken (during the game, after it, with which ruleset input and
option), how it is journaled and undone, its control on the judge's phone (buttons or a form) and
its texts. The console carries a command out by its type (``match``, as
:meth:`~voicehost.host.director.Director.answer` does with requests), so a new command is its
declaration here, its handler and its texts: nothing else names it.

A line is read strictly (the console is typed in a hurry): the command's exact arguments, ASCII
digits only, printable text only; anything else is a typed refusal and changes nothing.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from typing import ClassVar, Literal, TypeVar

from voicehost.host.refusals import (
    LineTooLong,
    NoSeatHere,
    NotText,
    PointsTooFine,
    Refused,
    TakesNothing,
    UnknownCommand,
    Usage,
)
from voicehost.rules.errors import NoReasonGiven
from voicehost.rules.inputs import BestMove, BloodName, Input, JudgePoints, Nominate, RaiseHand, Withdraw

Arg = Literal["seat", "target", "seats", "seconds", "points", "text", "reason", "cards"]
"""How one argument is typed: ``seat`` a seat of the table; ``target`` a seat or 0 (nobody, the
game); ``seats`` one to three seats; ``seconds`` ``+S``/``-S`` (none: +30); ``points`` 0.25 or 0,5
(hundredths at most); ``text`` the words that follow (required); ``reason`` the same, its lack
refused as a missing reason; ``cards`` ``3=don,5=mafia,…``."""
AfterGame = Literal["no", "yes", "points"]
"""Taken once the game is over: never, always (in the after-game window), or while the judge's
points and the best move still count (:meth:`~voicehost.host.console.Console.points_after_game`)."""
Journaled = Literal["input", "splice", "judge", "award", "none"]
"""What the journal keeps of it: the game's input, a splice of the inputs, a ``judge`` record, an
``award`` line, or nothing."""
Undo = Literal["input", "splice", "clock", "floor", "notes", "verdict", "none"]
"""What ``undo`` does to it: the input popped, the splice reversed, the speaker's clock as it was,
the floor taken again, the note gone, the game going on; ``none``: it is not undone."""

DEFAULT_TIME_S = 30
MAX_LINE = 200
_SEAT = re.compile(r"[0-9]{1,3}")  # ASCII digits only: «５» or «٣» is no seat number
_SECONDS = re.compile(r"[+-]?[0-9]{1,3}")
_POINTS = re.compile(r"[0-9]{1,2}(?:[.,][0-9]{1,2})?")  # 0.25, 0,5, 1: at most hundredths
_POINTS_ANY = re.compile(r"[0-9]{1,2}[.,][0-9]+")        # 0.333: points, but finer than hundredths
SEAT_LIKE: frozenset[Arg] = frozenset({"seat", "target", "seats"})
MAX_SEATS = 3   # a ``seats`` argument: the best move names one to three


@dataclass(frozen=True)
class Points:
    """The judge's points: in hundredths, and as he typed them (``0,25`` or ``0.25``), which is
    how the web sends the command on."""

    hundredths: int
    typed: str

    def __str__(self) -> str:
        return self.typed


@dataclass(frozen=True)
class Button:
    """A one-tap button on the judge's phone: the line it sends and its ``[web] tool_<key>`` texts."""

    line: str
    key: str


@dataclass(frozen=True)
class Form:
    """A form on the judge's phone: its fields (``[web] tool_field_<name>``), sent after the
    command's name in order; ``danger``: it ends the game and is marked so."""

    fields: tuple[str, ...]
    danger: bool = False


@dataclass(frozen=True)
class JudgeRecord:
    """A ``judge`` record of the journal: its action and its own fields (besides type, t,
    source and i)."""

    action: str
    fields: frozenset[str]
    optional: frozenset[str] = frozenset()
    """Fields a record may lack (a verdict given when no speech ran has no seat)."""


@dataclass(frozen=True)
class Command:
    """One typed judge command; its fields are its arguments, in the order they are typed."""

    name: ClassVar[str]
    usage: ClassVar[str]
    """How it is typed (``foul N``), shown in a refusal and the help."""
    about: ClassVar[str]
    """What it does, for the help and docs/live-host.md."""
    args: ClassVar[tuple[Arg, ...]] = ()
    in_game: ClassVar[bool] = True
    """Taken while the game runs (``best`` is not: it is the table's vote after it)."""
    after_game: ClassVar[AfterGame] = "no"
    needs: ClassVar[type[Input] | None] = None
    """The ruleset must take this input for the command to be offered (``blood``: classic only)."""
    option: ClassVar[str | None] = None
    """… and this option of it must be on."""
    journaled: ClassVar[Journaled] = "none"
    record: ClassVar[JudgeRecord | None] = None
    undo: ClassVar[Undo] = "none"
    buttons: ClassVar[tuple[Button, ...]] = ()
    form: ClassVar[Form | None] = None
    pauses: ClassVar[bool] = False
    """Answered during a pause (never held until ``resume``)."""

    def line(self) -> str:
        """The command in its normal form (single spaces): what the web sends on."""
        words = [self.name]
        for kind, value in zip(self.args, (getattr(self, f.name) for f in fields(self)), strict=True):
            if kind == "seats":
                words += [str(seat) for seat in value]
            elif kind == "seconds":
                words.append(f"{value:+d}")
            else:
                words.append(str(value))
        return " ".join(words)


@dataclass(frozen=True)
class JudgeControl(Command):
    """The judge's own control (the speaker's clock, a note, a verdict, the best player): carried
    out by :class:`~voicehost.host.judging.JudgeControls`, never an input of the game."""


REGISTRY: dict[str, type[Command]] = {}
"""Every command by its name, in the order the help lists them."""
C = TypeVar("C", bound=type[Command])


def command(cls: C) -> C:
    """Registers a declared command; its fields must be its arguments, one each."""
    assert len(fields(cls)) == len(cls.args), cls
    REGISTRY[cls.name] = cls
    return cls


# ---- the game's inputs, typed by the judge --------------------------------------------------------------

@command
@dataclass(frozen=True)
class FoulCommand(Command):
    name = "foul"
    usage = "foul N"
    about = "a foul for seat N"
    args = ("seat",)
    journaled, undo = "input", "input"
    seat: int


@command
@dataclass(frozen=True)
class RemoveCommand(Command):
    name = "remove"
    usage = "remove N"
    about = "seat N is removed from the game"
    args = ("seat",)
    journaled, undo = "input", "input"
    seat: int


@command
@dataclass(frozen=True)
class EndCommand(Command):
    name = "end"
    usage = "end"
    about = "the current speech ends"
    after_game = "points"   # after the game: the judge has given every point, the window closes
    journaled, undo = "input", "input"


@command
@dataclass(frozen=True)
class NominateCommand(Command):
    name = "nominate"
    usage = "nominate A B"
    about = "seat A nominates seat B (a misheard nomination)"
    args = ("seat", "seat")
    needs = Nominate
    journaled, undo = "input", "input"
    by: int
    target: int


@command
@dataclass(frozen=True)
class WithdrawCommand(Command):
    name = "withdraw"
    usage = "withdraw A B"
    about = "seat A withdraws his nomination of seat B (after his speech too: the nomination taken back)"
    args = ("seat", "seat")
    needs = Withdraw
    journaled, undo = "input", "input"
    by: int
    target: int


@command
@dataclass(frozen=True)
class BloodCommand(Command):
    name = "blood"
    usage = "blood A B"
    about = "seat A, killed, names seat B (classic blood name)"
    args = ("seat", "seat")
    needs, option = BloodName, "blood_name"
    journaled, undo = "input", "input"
    by: int
    target: int


@command
@dataclass(frozen=True)
class HandCommand(Command):
    name = "hand"
    usage = "hand N"
    about = "seat N raised his hand (club: 30 more seconds)"
    args = ("seat",)
    needs = RaiseHand
    journaled, undo = "input", "input"
    seat: int


@command
@dataclass(frozen=True)
class VoteCommand(Command):
    name = "vote"
    usage = "vote V C"
    about = "in the last round seat V voted for seat C (C = 0: for nobody)"
    args = ("seat", "target")
    journaled, undo = "splice", "splice"
    voter: int
    candidate: int


@command
@dataclass(frozen=True)
class RolesCommand(Command):
    name = "roles"
    usage = "roles 3=don,5=mafia,…"
    about = "the cards were learned wrong: the deal corrected (never said aloud; Russian card names too)"
    args = ("cards",)
    journaled = "splice"
    cards: str


# ---- the console's own ---------------------------------------------------------------------------------

@command
@dataclass(frozen=True)
class UndoCommand(Command):
    name = "undo"
    usage = "undo"
    about = "the last input is taken back (an undone end of a speech: the floor back, with its time)"
    after_game = "yes"
    journaled = "splice"   # or, for the judge's own record, an ``undo`` record


@command
@dataclass(frozen=True)
class RepeatCommand(Command):
    name = "repeat"
    usage = "repeat"
    about = "the host says his last line again"
    after_game, pauses = "yes", True


@command
@dataclass(frozen=True)
class StatusCommand(Command):
    name = "status"
    usage = "status"
    about = "the host says who is nominated, the fouls of the seats still playing and the time left"
    after_game, pauses = "yes", True


@command
@dataclass(frozen=True)
class PauseCommand(Command):
    name = "pause"
    usage = "pause"
    about = "everything waits (a speech keeps its time) until resume"


@command
@dataclass(frozen=True)
class ResumeCommand(Command):
    name = "resume"
    usage = "resume"
    about = "the game goes on after a pause"


# ---- the judge's own controls: journaled as judge records, never inputs of the game ----------------------

def _record(action: str, *names: str, optional: tuple[str, ...] = ()) -> JudgeRecord:
    return JudgeRecord(action, frozenset(names), frozenset(optional))


@command
@dataclass(frozen=True)
class TimeCommand(JudgeControl):
    name = "time"
    usage = "time +S"
    about = "the speaker gets S more seconds (time: +30), or S fewer (time -S)"
    args = ("seconds",)
    journaled, record, undo = "judge", _record("time", "seat", "seconds", "left"), "clock"
    buttons = (Button("time +30", "time_add"), Button("time -10", "time_take"))
    seconds: int


@command
@dataclass(frozen=True)
class RestartCommand(JudgeControl):
    name = "restart"
    usage = "restart"
    about = "the current speech starts again with its whole time"
    journaled, record, undo = "judge", _record("restart", "seat", "left", "was"), "clock"
    buttons = (Button("restart", "restart"),)


@command
@dataclass(frozen=True)
class BackCommand(JudgeControl):
    name = "back"
    usage = "back"
    about = "the last speaker gets the floor back, with the time he had left"
    journaled, record, undo = "judge", _record("back", "seat", "left"), "floor"
    buttons = (Button("back", "back"),)


@command
@dataclass(frozen=True)
class HoldCommand(JudgeControl):
    name = "hold"
    usage = "hold"
    about = "the speaker's clock stops; the game does not pause (release runs it again)"
    journaled, record, undo = "judge", _record("hold", "seat", "left"), "clock"
    buttons = (Button("hold", "hold"),)


@command
@dataclass(frozen=True)
class ReleaseCommand(JudgeControl):
    name = "release"
    usage = "release"
    about = "the held speaker's clock runs again"
    journaled, record, undo = "judge", _record("release", "seat", "left"), "clock"
    buttons = (Button("release", "release"),)


@command
@dataclass(frozen=True)
class NoteCommand(JudgeControl):
    name = "note"
    usage = "note N text"
    about = "the judge's note on seat N (N = 0: on the game); the judge's screen and the protocol"
    args = ("target", "text")
    after_game = "yes"
    journaled, record, undo = "judge", _record("note", "seat", "text"), "notes"
    form = Form(("note_seat", "text"))
    seat: int
    text: str


# ---- tournament scoring (sport, each under its option): docs/rules.md "Tournament scoring" ---------------

@command
@dataclass(frozen=True)
class BestMoveCommand(Command):
    name = "bestmove"
    usage = "bestmove A B C"
    about = "the first player killed at night names one to three seats (his best move)"
    args = ("seats",)
    after_game = "points"
    needs, option = BestMove, "best_move"
    journaled, undo = "input", "input"
    form = Form(("seats",))
    seats: tuple[int, ...]


@command
@dataclass(frozen=True)
class BonusCommand(Command):
    name = "bonus"
    usage = "bonus N P reason"
    about = "the judge's bonus: P points (0.25) for seat N, and why"
    args = ("seat", "points", "reason")
    after_game = "points"
    needs, option = JudgePoints, "judge_points"
    journaled, undo = "input", "input"
    form = Form(("seat", "points", "reason"))
    seat: int
    points: Points
    reason: str


@command
@dataclass(frozen=True)
class PenaltyCommand(Command):
    name = "penalty"
    usage = "penalty N P reason"
    about = "the judge's penalty: P points (0.5) off seat N, and why"
    args = ("seat", "points", "reason")
    after_game = "points"
    needs, option = JudgePoints, "judge_points"
    journaled, undo = "input", "input"
    form = Form(("seat", "points", "reason"))
    seat: int
    points: Points
    reason: str


@command
@dataclass(frozen=True)
class BestCommand(JudgeControl):
    name = "best"
    usage = "best N"
    about = "after the game: the table voted seat N the best player"
    args = ("seat",)
    in_game, after_game = False, "yes"
    journaled = "award"
    form = Form(("seat",))
    seat: int


VERDICT = _record("verdict", "result", "reason", "by", optional=("seat", "left"))
"""An annulled or stopped game (``seat``/``left``: the speech it stopped, when one ran)."""


@command
@dataclass(frozen=True)
class AnnulCommand(JudgeControl):
    name = "annul"
    usage = "annul reason"
    about = "the game is annulled (the records keep it, the ratings do not count it)"
    args = ("text",)
    after_game = "yes"
    journaled, record, undo = "judge", VERDICT, "verdict"
    form = Form(("reason",), danger=True)
    reason: str


@command
@dataclass(frozen=True)
class StopCommand(JudgeControl):
    name = "stop"
    usage = "stop reason"
    about = "the game is stopped here (no result)"
    args = ("text",)
    journaled, record, undo = "judge", VERDICT, "verdict"
    form = Form(("reason",), danger=True)
    reason: str


@command
@dataclass(frozen=True)
class UnfoulCommand(Command):
    name = "unfoul"
    usage = "unfoul N"
    about = "seat N's last foul is taken back, at any time in the game (the count follows)"
    args = ("seat",)
    journaled, undo = "splice", "splice"
    seat: int


# ---- reading a typed line -------------------------------------------------------------------------------

def read_command(line: str, seats: int) -> Command:
    """A typed line → its command, or :class:`Refused` (the line changes nothing)."""
    if len(line) > MAX_LINE:
        raise Refused(LineTooLong(MAX_LINE))
    if any(not c.isprintable() and c not in " \t" or c == "\ufffd" for c in line):
        raise Refused(NotText())
    words = line.split()
    name = unicodedata.normalize("NFKC", words[0]).lower() if words else ""
    cls = REGISTRY.get(name)
    if cls is None:
        raise Refused(UnknownCommand(", ".join(REGISTRY)))
    return cls(*read_args(cls, words[1:], seats))


def read_args(cls: type[Command], words: Sequence[str], seats: int | None) -> list[object]:
    """The typed arguments of ``cls``: first their form (else its usage), then a missing reason,
    then whether each seat is at this table (``seats`` None: the caller checks that)."""
    values: list[object] = []
    at, form_ok, reason_missing = 0, True, False
    for kind in cls.args:
        rest = words[at:]
        if kind in ("seat", "target"):
            form_ok = form_ok and bool(rest) and bool(_SEAT.fullmatch(rest[0]))
            values.append(int(rest[0]) if form_ok else 0)
            at += 1
        elif kind == "seats":
            taken = list(rest[:MAX_SEATS + 1])
            form_ok = form_ok and 1 <= len(taken) <= MAX_SEATS and all(_SEAT.fullmatch(w) for w in taken)
            values.append(tuple(int(w) for w in taken) if form_ok else ())
            at += len(taken)
        elif kind == "seconds":
            seconds = read_seconds(rest)
            form_ok = form_ok and seconds is not None
            values.append(seconds or 0)
            at = len(words)
        elif kind == "points":
            points = rest[0] if rest else ""
            if form_ok and _POINTS_ANY.fullmatch(points) and not _POINTS.fullmatch(points):
                raise Refused(PointsTooFine(points, cls.usage))
            form_ok = form_ok and bool(_POINTS.fullmatch(points))
            values.append(Points(hundredths(points), points) if form_ok else Points(0, ""))
            at += 1
        else:   # text, reason, cards: the words that follow
            if not rest:
                form_ok, reason_missing = form_ok and kind == "reason", kind == "reason"
            values.append(" ".join(rest))
            at = len(words)
    if not form_ok or at < len(words):
        raise Refused(Usage(cls.usage) if cls.args else TakesNothing(cls.name))
    if reason_missing:
        raise Refused(NoReasonGiven())
    if seats is None:
        return values
    for kind, value in zip(cls.args, values, strict=True):
        for seat in (value if isinstance(value, tuple) else (value,)) if kind in SEAT_LIKE else ():
            assert isinstance(seat, int)
            if not 1 <= seat <= seats and not (kind == "target" and seat == 0):
                raise Refused(NoSeatHere(seat, seats, cls.usage))
    return values


def read_seconds(words: Sequence[str]) -> int | None:
    """``time`` → +30; ``time +15`` / ``time 15`` → +15; ``time -15`` → -15; else None."""
    if not words:
        return DEFAULT_TIME_S
    if len(words) != 1 or not _SECONDS.fullmatch(words[0]) or int(words[0]) == 0:
        return None
    return int(words[0])


def hundredths(points: str) -> int:
    """``0,25`` or ``0.25`` (checked by :func:`read_command`) → 25."""
    whole, _, part = points.replace(",", ".").partition(".")
    return int(whole) * 100 + int(part.ljust(2, "0") or 0)


UNDO_RECORD = _record("undo", "undone")
"""The judge's ``undo`` of his last record still standing."""


def judge_records() -> dict[str, JudgeRecord]:
    """A judge record's action → its fields, as the commands declare them (and ``undo``)."""
    found = {cls.record.action: cls.record for cls in REGISTRY.values() if cls.record is not None}
    return {**found, UNDO_RECORD.action: UNDO_RECORD}


def offered(cls: type[Command], inputs: set[type[Input]], options: Mapping[str, object]) -> bool:
    """The game takes this command (its input, under its option): the phone offers it."""
    return (cls.needs is None or cls.needs in inputs) and (cls.option is None or options.get(cls.option) is True)
