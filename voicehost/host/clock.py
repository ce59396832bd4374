"""The table's clock and the floor's timer on it: the one place where the timers' seconds meet the loop's clock.

The rules and the table file count in table seconds (a 60-second speech, a 2-second vote
window, a 3-second veto). A demo runs the timers ``--speed`` times faster, so a table second
lasts ``1 / speed`` seconds of the loop's clock, which is where the voice's onsets and the
buttons' presses are stamped. Every conversion between the two goes through
:class:`TableClock`; nothing else in the host divides by the speed.

Deadlines are instants in table seconds since the host took the table (:meth:`TableClock.now`).
Instants compared with a button press (a veto window, where a take-back's presses start) stay
on the loop's clock, the presses' own; their lengths are table seconds, converted by :meth:`span`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from voicehost.host.notices import FloorChanged, Notice
from voicehost.rules.requests import AwaitSpeech


class TableClock:
    """Table seconds over the loop's clock ``clock`` (``Ports.clock``), ``speed`` times faster."""

    def __init__(self, clock: Callable[[], float], speed: float = 1.0) -> None:
        self.loop_clock = clock
        self.speed = speed
        self.origin = clock()   # the table's zero: the moment the host took the table

    def now(self) -> float:
        """Table seconds since the host took the table."""
        return self.at(self.loop_clock())

    def at(self, loop_time: float) -> float:
        """An instant of the loop's clock (an onset, a press) in table seconds."""
        return (loop_time - self.origin) * self.speed

    def loop_time(self, table_time: float) -> float:
        """An instant in table seconds on the loop's clock (to sleep until it)."""
        return self.origin + table_time / self.speed

    def span(self, seconds: float) -> float:
        """A length in table seconds as a length on the loop's clock."""
        return seconds / self.speed

    def table_span(self, seconds: float) -> float:
        """A length on the loop's clock (a sound's) in table seconds."""
        return seconds * self.speed

    def since(self, loop_time: float) -> float:
        """Table seconds since ``loop_time`` (an instant of the loop's clock)."""
        return (self.loop_clock() - loop_time) * self.speed

    def reached(self, table_time: float) -> bool:
        """True once ``table_time`` has come (compared on the loop's clock, where a sleep until
        :meth:`loop_time` lands exactly)."""
        return self.loop_clock() >= self.loop_time(table_time)

    async def sleep(self, seconds: float) -> None:
        """``seconds`` table seconds (none when negative)."""
        await asyncio.sleep(self.span(max(0.0, seconds)))


class SpeechTimer:
    """The floor's timer on the table's clock: whose turn is running and when its time is up.
    The floor starts and stops it; the console reads it (``status``), holds it through a
    pause, and changes it at the judge's word (:meth:`add`, :meth:`restart`, :meth:`hold_speech`,
    :meth:`release`; :attr:`changes` counts those, so the floor re-arms its warning). Every
    change is told as a :class:`~voicehost.host.notices.FloorChanged`."""

    def __init__(self, clock: TableClock, notify: Callable[[Notice], None]) -> None:
        self.clock = clock
        self.notify = notify
        self.request: AwaitSpeech | None = None
        """The turn whose floor is open (None: no floor)."""
        self.deadline: float | None = None
        """When its time is up, in table seconds."""
        self.held_left: float | None = None
        """The judge holds this speech's clock: the seconds it keeps until :meth:`release`."""
        self.changes = 0
        """How many times the judge changed the running turn's time."""

    def start(self, request: AwaitSpeech, seconds: float, held: bool = False) -> None:
        self.request, self.deadline = request, self.clock.now() + seconds
        self.held_left = seconds if held else None
        self._told()

    def _told(self) -> None:
        self.notify(FloorChanged(self.request, self.deadline, self.held_left))

    def add(self, seconds: float) -> float:
        """The judge's ``time ±S``: the turn gets ``seconds`` more (fewer when negative); returns what is left."""
        assert self.deadline is not None
        if self.held_left is not None:
            self.held_left += seconds
        self.deadline += seconds
        self.changes += 1
        self._told()
        return self.now_left()

    def restart(self, seconds: float) -> None:
        """The judge's ``restart``: the turn's whole time again (a held clock stays held)."""
        self.deadline = self.clock.now() + seconds
        if self.held_left is not None:
            self.held_left = seconds
        self.changes += 1
        self._told()

    def hold_speech(self) -> float:
        """The judge's ``hold``: this speech's clock stops (the game goes on); returns what it keeps."""
        self.held_left = self.now_left()
        self.changes += 1
        self._told()
        return self.held_left

    def release(self) -> float:
        """The judge's ``release``: the held clock runs again from what it kept."""
        assert self.held_left is not None
        left, self.held_left = self.held_left, None
        self.deadline = self.clock.now() + left
        self.changes += 1
        self._told()
        return left

    def now_left(self) -> float:
        """Table seconds left on the running turn, a held one's too (0 with no floor)."""
        if self.held_left is not None:
            return self.held_left
        return 0.0 if self.deadline is None else self.deadline - self.clock.now()

    def stop(self) -> float:
        """The floor closed; returns the table seconds that were left (negative: overrun)."""
        left = (self.deadline if self.deadline is not None else self.clock.now()) - self.clock.now()
        if self.held_left is not None:
            left = self.held_left
        self.request, self.deadline, self.held_left = None, None, None
        self.notify(FloorChanged(None, None))
        return left

    def left(self) -> float | None:
        """Table seconds left on the running turn (None: no floor)."""
        return None if self.deadline is None else self.now_left()

    def hold(self, seconds: float) -> None:
        """The time is moved on by ``seconds`` (the pause just ended lasted that long)."""
        if self.deadline is not None:
            self.deadline += seconds
            self._told()
