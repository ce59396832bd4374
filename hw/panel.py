"""The seat panel: one gpiozero ``Button`` and one ``PWMLED`` per seat.

The pin factory is gpiozero's own business (``GPIOZERO_PIN_FACTORY``: lgpio on a Pi 5,
``mock`` for tests) unless one is passed in. Button callbacks run on gpiozero's thread
(lgpio runs them all on one), so they only take a monotonic timestamp and hand the edge
to ``deliver`` — ``loop.call_soon_threadsafe`` under asyncio, a direct call in tests.
Everything else (bounce, stuck buttons) happens on the receiving side.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable
from typing import Any

from .edges import Debouncer, Edge
from .leds import OFF, SPEAKER, Pattern, show
from .messages import N_, _
from .pinmap import PinMap

Deliver = Callable[..., Any]
# gpiozero gives every Button a thread that waits ``hold_time`` (1 s by default) while the
# button is down, before it fires ``when_held``, and closing the button waits for that wait to
# end. The panel times holds itself and sets no ``when_held``: a short wait lets ``close()``
# return at once while a thumb is still down (a vote, a held speech) instead of a second later.
HOLD_WAKE_S = 0.05


class GpioUnavailable(RuntimeError):
    """No pin factory works on this machine (not a Pi, or no permission)."""


# Why gpiozero would not open the pins, by the kind it raised, in the program's words: its own
# message is English (``Unable to load any default pin factory!``), so a kind it names here is
# said by our line alone; another kind keeps gpiozero's words after ours.
PIN_FAILURES = {
    "BadPinFactory": N_("this machine has no GPIO pins gpiozero can use (not a Raspberry Pi, or its pin "
                        "library is missing)"),
    "GPIOPinInUse": N_("a seat pin is already in use by another program or device"),
    "PinInvalidPin": N_("a pin of the pin map is not a GPIO pin of this board"),
    "PermissionError": N_("no permission to use the GPIO pins (add the user to the gpio group)"),
}


SEAT_PINS = (N_("cannot open the seat pins: {why}"), N_("cannot open the seat pins ({kind}: {error})"))


def pins_refused(err: Exception, lines: tuple[str, str] = SEAT_PINS) -> str:
    """One line for a failure to open pins (the seats', or ``lines`` another part's: the reason
    known, then gpiozero's own words), in the language in use."""
    known = PIN_FAILURES.get(type(err).__name__)
    if known is not None:
        return _(lines[0]).format(why=_(known))
    return _(lines[1]).format(kind=type(err).__name__, error=err)


def wired_button(Button: Any, pin: int, pin_factory: Any,  # noqa: N803 - gpiozero's class
                 pressed: Callable[[], None], released: Callable[[], None]) -> Any:
    """A button as the panel reads it, a seat's or a judge's key: pulled up, no gpiozero
    debounce (the :class:`Debouncer` is ours), the short hold wake (:data:`HOLD_WAKE_S`)."""
    button = Button(pin, pull_up=True, bounce_time=None, pin_factory=pin_factory)
    button.hold_time = HOLD_WAKE_S
    button.when_pressed = pressed
    button.when_released = released
    return button


class SeatPanel:
    """Buttons and LEDs of a table. ``sink`` receives debounced :class:`Edge` s."""

    def __init__(self, pinmap: PinMap, sink: Callable[[Edge], None], *, pin_factory: Any = None,
                 deliver: Deliver | None = None, clock: Callable[[], float] = time.monotonic) -> None:
        try:
            from gpiozero import PWMLED, Button
        except ImportError as err:  # pragma: no cover - gpiozero is a dependency
            raise GpioUnavailable(_("gpiozero is not installed ({error})").format(error=err)) from None
        self.pinmap = pinmap
        self.sink = sink
        self.clock = clock
        self.deliver: Deliver = deliver or (lambda fn, *args: fn(*args))
        self.debouncer = Debouncer(pinmap.bounce_ms / 1000)
        self.held_since: dict[int, float] = {}
        self.stuck: set[int] = set()
        self.buttons: dict[int, Any] = {}  # references kept: gpiozero devices die with them
        self.leds: dict[int, Any] = {}
        try:
            with warnings.catch_warnings():  # gpiozero warns for every factory it falls back from
                warnings.simplefilter("ignore")
                self._open(pinmap, pin_factory, Button, PWMLED)
        except Exception as err:  # gpiozero raises many kinds: BadPinFactory, PinInvalidPin, OSError…
            self.close()
            raise GpioUnavailable(pins_refused(err)) from None

    def _open(self, pinmap: PinMap, pin_factory: Any, Button: Any, PWMLED: Any) -> None:  # noqa: N803
        for pins in pinmap.seats:
            self.buttons[pins.seat] = wired_button(Button, pins.button, pin_factory, self._callback(pins.seat, True),
                                                   self._callback(pins.seat, False))
            self.leds[pins.seat] = PWMLED(pins.led, pin_factory=pin_factory)

    def _callback(self, seat: int, pressed: bool) -> Callable[[], None]:
        def on_edge() -> None:
            self.deliver(self._on_edge, seat, pressed, self.clock())
        return on_edge

    def _on_edge(self, seat: int, pressed: bool, t: float) -> None:
        edge = self.debouncer.feed(Edge(seat, pressed, t))
        if edge is not None:
            self._accept(edge)

    def _accept(self, edge: Edge) -> None:
        if edge.pressed:
            self.held_since[edge.seat] = edge.t
        else:
            self.held_since.pop(edge.seat, None)
            self.stuck.discard(edge.seat)
        self.sink(edge)

    def settle(self) -> None:
        """Reconcile with the pins after bounce windows (call every few tens of ms)."""
        now = self.clock()
        for seat, button in self.buttons.items():
            edge = self.debouncer.settle(seat, bool(button.is_pressed), now)
            if edge is not None:
                self._accept(edge)

    def check_stuck(self, now: float) -> list[int]:
        """Seats held longer than ``stuck_after_s`` outside any window: reported once each; the
        caller ignores their presses until they are released."""
        newly = [seat for seat, since in self.held_since.items()
                 if now - since > self.pinmap.stuck_after_s and seat not in self.stuck]
        self.stuck.update(newly)
        return newly

    def show(self, seat: int, pattern: Pattern) -> None:
        show(self.leds[seat], pattern)

    def show_all(self, pattern: Pattern) -> None:
        for led in self.leds.values():
            show(led, pattern)

    def close(self) -> None:
        """Close every button and LED. A button's close waits for its thread, which wakes every
        0.1 s: the threads are all told to stop first (as gpiozero's own shutdown does), so ten
        buttons close in a tenth of a second, not one after another."""
        for button in self.buttons.values():
            thread = getattr(button, "_hold_thread", None)
            if thread is not None:
                thread.stopping.set()
        for device in [*self.buttons.values(), *self.leds.values()]:
            device.close()
        self.buttons.clear()
        self.leds.clear()

    def __enter__(self) -> SeatPanel:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def walk_seats(panel: SeatPanel, wait_press: Callable[[float], Edge | None], timeout: float) -> list[str]:
    """After soldering: light each seat's LED and wait for that seat's press. Returns the
    problems found, one line each (empty: the table is wired right)."""
    problems = []
    for pins in panel.pinmap.seats:
        panel.show(pins.seat, SPEAKER)
        edge = wait_press(timeout)
        panel.show(pins.seat, OFF)
        if edge is None:
            problems.append(_("seat {seat}: no press within {timeout:g} s (button GPIO{button}, LED GPIO{led})").format(
                seat=pins.seat, timeout=timeout, button=pins.button, led=pins.led))
        elif edge.seat != pins.seat:
            other = panel.pinmap.pins_of(edge.seat)
            problems.append(_("seat {seat}: the press came on seat {other}'s pin GPIO{pin} instead of "
                              "GPIO{button}: the wires are swapped or misplaced").format(
                seat=pins.seat, other=edge.seat, pin=other.button, button=pins.button))
    return problems
