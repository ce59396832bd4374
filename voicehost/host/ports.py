"""The director's ports: the small set of things the live host talks to.

A real table plugs in the seat panel, the voice and the ears (:mod:`voicehost.host.live`); the
demo plugs in gpiozero's mock pins; the table level plugs in simulated people on a virtual
clock (:mod:`voicehost.simulation.table_level`). The director sees only :class:`Ports`.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from audio.listener import Heard
from hw.capture import Press, presses_from
from hw.edges import Edge
from hw.leds import Pattern
from voicehost.host.table_file import WarningStyle

POLL_S = 0.01           # how often the director looks at its queues while it waits


class EdgeLog:
    """Every debounced edge of the seat panel, in the loop thread."""

    def __init__(self) -> None:
        self.edges: list[Edge] = []
        self.on_edge: Callable[[], None] = lambda: None

    def add(self, edge: Edge) -> None:
        self.edges.append(edge)
        self.on_edge()

    def presses(self, since: float, until: float) -> list[Press]:
        return [p for p in presses_from(self.edges) if since <= p.down < until]


@dataclass(frozen=True)
class Typed:
    """A line typed at the console, and its id: the console's answer to it names the id, so it
    reaches whoever typed this line (not whoever typed the same words)."""

    id: int
    line: str
    by: str = "console"
    """Who typed it: ``console`` (the terminal) or ``web`` (the judge's phone)."""


@dataclass
class Ports:
    """What the director talks to: the voice (``say`` blocks until the line is heard and
    returns its onset; or ``speak``, a coroutine, for a voice that lives on the loop's own
    clock), the night music, the seat LEDs, the seat panel's edges, what the ears heard, what
    the console typed — and the clock (what the director says and does leaves it as notices:
:mod:`voicehost.host.notices`).
    ``cue`` plays a short tone (a speech starts, ten seconds left, time up, a vote window
    opens/closes), ``hold`` marks a night count (the music ducks only its speech band, under
    each number), ``warning`` says whether the speaker's warning is a tone, the spoken line or both
    (:data:`~voicehost.host.table_file.WarningStyle`)."""

    night: Callable[[bool], None]
    led: Callable[[int, Pattern], None]
    edges: EdgeLog
    say: Callable[[str], float] | None = None
    speak: Callable[[str], Awaitable[float]] | None = None
    heard: asyncio.Queue[Heard] = field(default_factory=asyncio.Queue)
    console: asyncio.Queue[Typed] = field(default_factory=asyncio.Queue)
    typed: int = 0   # the last typed line's id
    clock: Callable[[], float] = time.monotonic
    speed: float = 1.0   # timers run this many times faster (a demo; 1 at a real table)
    settle: Callable[[], None] = lambda: None   # the panel's bounce settling (SeatPanel.settle)
    poll_s: float | None = POLL_S  # None: wait only for a stir (everything arrives through hear/type/edges)
    stirred: asyncio.Event = field(default_factory=asyncio.Event)
    cue: Callable[[str], None] = lambda name: None
    cue_length: Callable[[str], float] = lambda name: 0.0   # seconds a cue sounds (a vote window ends with it)
    hold: Callable[[bool], None] = lambda on: None
    warning: WarningStyle = "voice"

    def __post_init__(self) -> None:
        self.edges.on_edge = self.stirred.set

    def presses(self, since: float, until: float) -> list[Press]:
        self.settle()
        return self.edges.presses(since, until)

    def hear(self, heard: Heard) -> None:
        self.heard.put_nowait(heard)
        self.stirred.set()

    def type(self, line: str, by: str = "console") -> int:
        """A line typed at the console (the terminal, the judge's phone); returns its id, which
        the console's answer to it carries."""
        self.typed += 1
        self.console.put_nowait(Typed(self.typed, line, by))
        self.stirred.set()
        return self.typed

    async def utter(self, text: str) -> float:
        if self.speak is not None:
            return await self.speak(text)
        assert self.say is not None, "Ports needs say or speak"
        return await asyncio.get_running_loop().run_in_executor(None, self.say, text)

    async def idle(self, until: float) -> None:
        """Sleep until ``until`` (the clock's time), or until something arrives."""
        timeout = max(0.0, until - self.clock())
        if self.poll_s is not None:
            timeout = min(timeout, self.poll_s)
        try:
            await asyncio.wait_for(self.stirred.wait(), timeout)
        except TimeoutError:
            pass
