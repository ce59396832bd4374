"""Button edges as the seat panel records them, and contact-bounce filtering.

gpiozero's mock pins ignore ``bounce_time`` (and real contacts bounce in ways a kernel
debounce does not always catch), so bounce is handled here, in plain code that tests can
drive edge by edge.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Edge:
    """A seat's button went down (``pressed``) or up at monotonic time ``t`` (seconds)."""

    seat: int
    pressed: bool
    t: float


class Debouncer:
    """Accept the first edge of a burst, ignore flips for ``window`` seconds after it, then
    settle on the pin's real state: bounce counts once, and a quick real release is not lost."""

    def __init__(self, window: float) -> None:
        self.window = window
        self._state: dict[int, bool] = {}
        self._since: dict[int, float] = {}

    def feed(self, edge: Edge) -> Edge | None:
        """The edge to act on, or None when it is bounce or repeats the accepted state."""
        if self._state.get(edge.seat, False) == edge.pressed:
            return None
        if edge.t - self._since.get(edge.seat, float("-inf")) < self.window:
            return None
        self._state[edge.seat] = edge.pressed
        self._since[edge.seat] = edge.t
        return edge

    def settle(self, seat: int, pressed: bool, now: float) -> Edge | None:
        """After a burst: if the pin now reads differently from the accepted state, that is
        a real change that happened inside the bounce window."""
        if self._state.get(seat, False) == pressed or now - self._since.get(seat, float("-inf")) < self.window:
            return None
        self._state[seat] = pressed
        self._since[seat] = now
        return Edge(seat, pressed, now)

    def is_pressed(self, seat: int) -> bool:
        return self._state.get(seat, False)
