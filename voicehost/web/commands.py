"""The judge's commands from a browser: checked for form before they go anywhere near the game.

A command is the console's own words (``foul 3``, ``vote 8 5``, ``roles 3=don,…``), read by the
console's own reader (:func:`voicehost.host.read_command`): what can be known without the game —
the command exists, it has its numbers, each number is a seat at this table — is checked here,
and a bad one is refused with its typed refusal; it never reaches the console queue, the journal
or the game. What only the game knows (seat 3 is already out; there was no vote to correct) the
director decides, and its answer carries the refusal. Either is worded by the one renderer,
:func:`voicehost.language.refusals.refusal_text`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from voicehost.host import NoCommand, Refused, read_command
from voicehost.i18n import N_
from voicehost.rules import Refusal


class CommandError(ValueError):
    """A command refused before it reached the game; ``refusal`` says why."""

    def __init__(self, refusal: Refusal) -> None:
        super().__init__(str(refusal))
        self.refusal = refusal


def check_command(line: object, seats: int) -> str:
    """The command in its normal form (single spaces), or :class:`CommandError`."""
    if not isinstance(line, str) or not line.strip():
        raise CommandError(NoCommand())
    try:
        return read_command(line.strip(), seats).line()
    except Refused as err:
        raise CommandError(err.refusal) from None


# ---- the web's own refusals: a command when no game takes commands ----------------------------------------

@dataclass(frozen=True)
class NoGameYet(Refusal):
    english: ClassVar[str] = N_("the game has not begun yet")


@dataclass(frozen=True)
class TableIdle(Refusal):
    """``voicehost serve`` between games: the judge's phone shows the setup page."""

    english: ClassVar[str] = N_("the table is idle: no game is running")


@dataclass(frozen=True)
class CommandsClosed(Refusal):
    english: ClassVar[str] = N_("the game is over: commands are no longer taken")
