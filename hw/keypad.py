"""The judge's keypad: a few buttons on the header (``[judge]`` of the pin map) for a judge who
cannot read a screen. Each key says what it does by its name (:data:`~hw.pinmap.KEYPAD_KEYS`);
a key held :attr:`~hw.pinmap.PinMap.long_press_s` or longer does its second thing
(:data:`~hw.pinmap.LONG_PRESS`: ``end`` held is a foul to the speaker). A key is read on its
release, debounced as the seats are (:class:`~hw.edges.Debouncer`); what a key means to the
game is the host's business (``voicehost.host.keypad``), this only says which key and how long.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable
from typing import Any

from .edges import Debouncer, Edge
from .messages import N_, _
from .panel import Deliver, GpioUnavailable, pins_refused, wired_button
from .pinmap import HELD_KEYS, LONG_PRESS, PinMap

KEYPAD_PINS = (N_("cannot open the judge's keypad: {why}"), N_("cannot open the judge's keypad ({kind}: {error})"))


class JudgeKeypad:
    """The ``[judge]`` keys; ``on_key`` receives the action of each press (``pause``, ``foul`` …);
    ``on_hold`` the ``talk`` key going down (True) and up (False)."""

    def __init__(self, pinmap: PinMap, on_key: Callable[[str], None], *, pin_factory: Any = None,
                 deliver: Deliver | None = None, clock: Callable[[], float] = time.monotonic,
                 on_hold: Callable[[str, bool], None] = lambda key, down: None) -> None:
        try:
            from gpiozero import Button
        except ImportError as err:  # pragma: no cover - gpiozero is a dependency
            raise GpioUnavailable(_("gpiozero is not installed ({error})").format(error=err)) from None
        self.pinmap = pinmap
        self.on_key = on_key
        self.on_hold = on_hold
        self.clock = clock
        self.deliver: Deliver = deliver or (lambda fn, *args: fn(*args))
        self.debouncer = Debouncer(pinmap.bounce_ms / 1000)
        self.down: dict[int, float] = {}
        self.buttons: dict[int, Any] = {}
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                for key in pinmap.judge:
                    self.buttons[key.pin] = wired_button(Button, key.pin, pin_factory, self._callback(key.pin, True),
                                                         self._callback(key.pin, False))
        except Exception as err:  # gpiozero raises many kinds: said as the seat pins' are, in our words
            self.close()
            raise GpioUnavailable(pins_refused(err, KEYPAD_PINS)) from None

    def _callback(self, pin: int, pressed: bool) -> Callable[[], None]:
        def on_edge() -> None:
            self.deliver(self._on_edge, pin, pressed, self.clock())
        return on_edge

    def _on_edge(self, pin: int, pressed: bool, t: float) -> None:
        edge = self.debouncer.feed(Edge(pin, pressed, t))
        if edge is None:
            return
        action = next(key.action for key in self.pinmap.judge if key.pin == pin)
        if action in HELD_KEYS:
            self.on_hold(action, pressed)
            return
        if pressed:
            self.down[pin] = t
            return
        since = self.down.pop(pin, None)
        if since is None:
            return
        if t - since >= self.pinmap.long_press_s and action in LONG_PRESS:
            action = LONG_PRESS[action]
        self.on_key(action)

    def close(self) -> None:
        for button in self.buttons.values():
            button.close()
        self.buttons.clear()

    def __enter__(self) -> JudgeKeypad:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
