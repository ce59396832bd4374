"""The LED language (documented in docs/wiring.md), as data: each pattern is what a seat's
LED does, and :func:`show` plays it on a gpiozero ``PWMLED`` in the background.

Private answers (the Don's and Sheriff's checks, a dealt role) only ever go to the
checker's own LED; patterns meant for everyone never carry a role.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Pattern:
    """``steady`` brightness, or a blink: ``on``/``off`` seconds, fades, ``n`` times (None: until changed)."""

    name: str
    steady: float | None = None
    on: float = 0.0
    off: float = 0.0
    fade: float = 0.0
    n: int | None = None
    then: float = 0.0  # brightness after a counted blink ends


OFF = Pattern("off", steady=0.0)
SPEAKER = Pattern("speaker", steady=1.0)                          # has the floor
LAST_SECONDS = Pattern("last_seconds", on=0.25, off=0.25)         # the last 10 s of a speech
NOMINEE = Pattern("nominee", steady=0.25)                         # put to the vote today
VOTE_WINDOW = Pattern("vote_window", on=0.0, off=0.0, fade=0.6)   # the candidate being voted on
FOUL = Pattern("foul", on=0.08, off=0.08, n=3)                    # a short flash: a foul was given
HAND = Pattern("hand", on=0.15, off=0.15, n=2, then=0.0)          # a raised hand is acknowledged
YES = Pattern("yes", on=0.8, off=0.4, n=3)                        # private: the check found it
NO = Pattern("no", on=0.1, off=0.1, n=12)                         # private: it did not
READY = Pattern("ready", on=0.1, off=2.9)                         # the idle table: a blip every 3 s
JOURNAL_FAILED = Pattern("journal_failed", on=1.0, off=1.0)       # every seat: the game stopped, card full

PATTERNS = {p.name: p for p in (OFF, SPEAKER, LAST_SECONDS, NOMINEE, VOTE_WINDOW, FOUL, HAND, YES, NO, READY,
                               JOURNAL_FAILED)}


def show(led: Any, pattern: Pattern) -> None:
    """Play ``pattern`` on a gpiozero PWMLED (non-blocking)."""
    if pattern.steady is not None:
        led.value = pattern.steady
    elif pattern.fade:
        led.pulse(fade_in_time=pattern.fade, fade_out_time=pattern.fade, n=pattern.n, background=True)
    else:
        led.blink(on_time=pattern.on, off_time=pattern.off, n=pattern.n, background=True)
