"""The table's seat panel as the host opens it: the pin map checked against the ruleset, and
gpiozero's mock pins for a table without a header (the demo, tests, ``--mock``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hw.pinmap import PinMap, PinMapError, check_seat_count, pinmap_from_mapping
from voicehost.config import load_ruleset, read_toml
from voicehost.rules import InputError


def open_pinmap(path: str, ruleset: str | None = None) -> PinMap:
    """Load a table's pin map; with ``ruleset``, its seat count must be one the ruleset plays."""
    try:
        pinmap = pinmap_from_mapping(read_toml(Path(path)), path)  # through the gate: no FIFO, no bad UTF-8
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
