"""What the judge's keypad (:mod:`hw.keypad`) means to the game: each key becomes the judge
console's own command line, typed through the same port the terminal types into
(:meth:`~voicehost.host.ports.Ports.type`), so the console answers it as it answers the
keyboard (and the earpiece says the answer). ``status`` and ``repeat`` go to the judge's
earpiece when there is one — the table hears nothing of them — and to the console otherwise.

A key needs to know two things of the table, which it learns from the notices as every
watcher does: whether the game is paused (``pause`` is a toggle) and who has the floor (a held
``end`` is a foul to the speaker).
"""

from __future__ import annotations

from collections.abc import Callable

from voicehost.host.earpiece import JudgeChannel
from voicehost.host.notices import FloorChanged, Notice, Paused

TIME_STEP_S = 30   # the ``time`` key: the speaker gets this many more seconds


class KeypadCommands:
    """The keypad's keys as console lines; :meth:`notice` is its watcher, :meth:`key` its sink."""

    def __init__(self, type_line: Callable[[str], object], channel: JudgeChannel | None = None) -> None:
        self.type_line = type_line
        self.channel = channel
        self.paused = False
        self.speaker: int | None = None

    def attach(self, channel: JudgeChannel) -> None:
        """The judge's earpiece, once it follows the game: ``status`` and ``repeat`` go there."""
        self.channel = channel

    def notice(self, notice: Notice) -> None:
        if isinstance(notice, Paused):
            self.paused = notice.on
        elif isinstance(notice, FloorChanged):
            self.speaker = notice.speaker

    def line(self, action: str) -> str | None:
        """The console line a key types (None: the key speaks only to the judge)."""
        if action == "pause":
            return "resume" if self.paused else "pause"
        if action == "time":
            return f"time +{TIME_STEP_S}"
        if action == "end":
            return "end"
        if action == "foul":
            return f"foul {self.speaker}" if self.speaker else None
        if action in ("status", "repeat"):
            return None if self.channel is not None else action
        return None

    def key(self, action: str) -> None:
        """One key, pressed (short or long: ``foul`` is ``end`` held)."""
        line = self.line(action)
        if line is not None:
            self.type_line(line)
        elif self.channel is not None:
            if action == "status":
                self.channel.status()
            elif action == "repeat":
                self.channel.repeat()
            elif action == "foul":
                self.channel.tell([("no_speaker", {})])
