"""``voicehost hw test`` and ``voicehost bench gpio``: the seat panel from the command line."""

from __future__ import annotations

import queue
import statistics
import time
from typing import Any

from hw.edges import Edge
from hw.panel import GpioUnavailable, SeatPanel, walk_seats
from hw.pinmap import PinMap, PinMapError, check_seat_count, load_pinmap

from .config import load_ruleset
from .rules import InputError


def open_pinmap(path: str, ruleset: str | None = None) -> PinMap:
    """Load a table's pin map; with ``ruleset``, its seat count must be one the ruleset plays."""
    try:
        pinmap = load_pinmap(path)
        if ruleset is not None:
            sizes = load_ruleset(ruleset).seats
            if pinmap.size not in sizes:
                check_seat_count(pinmap, sizes[0], ruleset)
    except PinMapError as err:
        raise InputError(err.place, str(err).removeprefix(f"{err.place}: ")) from None
    return pinmap


def mock_factory() -> Any:
    from gpiozero.pins.mock import MockFactory, MockPWMPin
    return MockFactory(pin_class=MockPWMPin)


def hw_test(table: str, timeout: float, mock: bool, ruleset: str | None) -> int:
    """Walk every seat: light its LED, wait for its press. With ``mock``, simulated players
    press the lit seat's button (a dry run of the walk on gpiozero's mock pins)."""
    pinmap = open_pinmap(table, ruleset)
    edges: queue.Queue[Edge] = queue.Queue()
    factory = mock_factory() if mock else None
    try:
        panel = SeatPanel(pinmap, edges.put, pin_factory=factory)
    except GpioUnavailable as err:
        raise InputError("hw test", f"{err}; on a machine without GPIO try --mock") from None
    print(f"{pinmap.name}: {pinmap.size} seats. Press each seat's button when its LED lights up.")
    seats = iter(pinmap.seats)

    def wait_press(limit: float) -> Edge | None:
        seat = next(seats)
        print(f"  seat {seat.seat}: LED GPIO{seat.led} on, waiting for button GPIO{seat.button}…", flush=True)
        if factory is not None:
            factory.pin(seat.button).drive_low()
            factory.pin(seat.button).drive_high()
        deadline = time.monotonic() + limit
        while (left := deadline - time.monotonic()) > 0:
            try:
                edge = edges.get(timeout=left)
            except queue.Empty:
                break
            if edge.pressed:
                return edge
        return None

    with panel:
        problems = walk_seats(panel, wait_press, timeout)
    for line in problems:
        print(f"PROBLEM {line}")
    print("all seats answer on their own pins" if not problems else f"{len(problems)} seat(s) to fix")
    return 0 if not problems else 1


def bench_gpio(presses: int) -> dict[str, float]:
    """Stamp error: from just before a mock pin edge to the press time the panel recorded."""
    from hw.pinmap import pinmap_from_mapping
    pinmap = pinmap_from_mapping({"seat": [{"button": 4, "led": 17}, {"button": 5, "led": 27}],
                                  "bounce_ms": 0}, "bench")
    factory = mock_factory()
    recorded: list[Edge] = []
    errors = []
    with SeatPanel(pinmap, recorded.append, pin_factory=factory) as panel:
        pin = factory.pin(4)
        for _ in range(presses):
            before = time.monotonic()
            pin.drive_low()
            errors.append((recorded[-1].t - before) * 1000)
            pin.drive_high()
        panel.settle()
    errors.sort()
    return {"presses": presses, "p50_ms": statistics.median(errors),
            "p95_ms": errors[int(0.95 * (len(errors) - 1))], "max_ms": errors[-1]}
