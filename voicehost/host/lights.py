"""The LED language of docs/wiring.md, as the director speaks it: a steady state per seat
(nominated today, out), the floor on top of it, and flashes that return to what was shown."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from hw.leds import FOUL, HAND, LAST_SECONDS, NO, NOMINEE, OFF, SPEAKER, VOTE_WINDOW, YES, Pattern
from voicehost.rules.events import (
    CheckAnswered,
    Eliminated,
    Event,
    FoulGiven,
    HandRaised,
    NightFell,
    NominationAccepted,
    NominationWithdrawn,
)

if TYPE_CHECKING:
    from voicehost.host.ports import Ports
    from voicehost.rules import Game


class Lights:
    """The seat LEDs: each seat's steady state and who has the floor. The other parts light a
    seat only through these methods, so what a seat shows after a flash, a floor or a vote
    window is always its steady state."""

    def __init__(self, game: Game, ports: Ports) -> None:
        self.game = game
        self.ports = ports
        self.leds: dict[int, Pattern] = {}
        """Each seat's steady state (nominated today, out); a seat not listed is off."""
        self.speaking: int | None = None
        """The seat whose LED shows the floor."""

    def give_floor(self, seat: int) -> None:
        self.speaking = seat
        self.ports.led(seat, SPEAKER)

    def last_seconds(self, seat: int) -> None:
        self.ports.led(seat, LAST_SECONDS)

    def take_floor(self, seat: int) -> None:
        self.speaking = None
        self.restore(seat)

    def window(self, candidate: int) -> None:
        """A candidate's vote window is open: his LED pulses until :meth:`restore`."""
        self.ports.led(candidate, VOTE_WINDOW)

    def show(self, event: Event) -> None:
        """What an input's event changes on the LEDs."""
        for seat in self._steady_after(event):
            if seat != self.speaking:
                self.ports.led(seat, self.leds[seat])
        if isinstance(event, FoulGiven):
            self._flash(event.seat, FOUL)
        elif isinstance(event, CheckAnswered):
            self._flash(event.by, YES if event.result else NO)  # the checker's own LED only
        elif isinstance(event, HandRaised):
            self._flash(event.seat, HAND)

    def _steady_after(self, event: Event) -> list[int]:
        """The seats whose steady state the event changes (nominated today; out of the game)."""
        changed: dict[int, Pattern] = {}
        if isinstance(event, NominationAccepted):
            changed[event.target] = NOMINEE
        elif isinstance(event, NominationWithdrawn):
            changed[event.target] = OFF
        elif isinstance(event, Eliminated):
            changed[event.seat] = OFF
        elif isinstance(event, NightFell):  # «nominated today» ends with the day
            changed = {seat: OFF for seat, pattern in self.leds.items() if pattern is not OFF}
        self.leds.update(changed)
        return list(changed)

    def relight(self) -> None:
        """After a correction replayed the game: every LED as the corrected game has it."""
        before, self.leds = self.leds, {}
        for event in self.game.events:
            self._steady_after(event)
        for seat in set(before) | set(self.leds):
            if before.get(seat, OFF) is not self.leds.get(seat, OFF):
                self.restore(seat)

    def _flash(self, seat: int, pattern: Pattern) -> None:
        """A counted blink, then the seat's LED shows what it showed before."""
        self.ports.led(seat, pattern)
        asyncio.get_running_loop().call_later((pattern.on + pattern.off) * (pattern.n or 1), self.restore, seat)

    def restore(self, seat: int) -> None:
        self.ports.led(seat, SPEAKER if seat == self.speaking else self.leds.get(seat, OFF))
