"""Shared helpers: play a script given as a dict, read its protocol."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

from hw.pinmap import load_pinmap
from voicehost.protocol import build_protocol
from voicehost.script import script_from_data
from voicehost.simulation import Simulation, simulate

settings.register_profile("ci", max_examples=150, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("dev", max_examples=60, deadline=None)
settings.register_profile("deep", max_examples=3000, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("CI") else "dev"))

# The seating most tests use: Don 3, mafia 5 and 9, Sheriff 7, the rest citizens.
ROLES = {"3": "don", "5": "mafia", "9": "mafia", "7": "sheriff"}


def play(**script: Any) -> dict[str, Any]:
    """Simulate a sport script (roles default to :data:`ROLES`) and return its protocol."""
    return run(**script)[0]


def run(**script: Any) -> tuple[dict[str, Any], Simulation]:
    script.setdefault("ruleset", "sport")
    script.setdefault("roles", ROLES)
    result = simulate(script_from_data(script))
    return build_protocol(result.game, result.ignored), result


def kinds(result: Simulation, kind: str) -> list[Any]:
    """The events of one kind, for asserting on what the host would announce."""
    return [e for e in result.game.events if e.kind == kind]


@pytest.fixture
def sport_protocol():
    return play


# ---- the seat panel: gpiozero's own MockFactory with PWM pins stands in for the Pi header ----

TEN = Path(__file__).resolve().parent.parent / "config" / "tables" / "ten-seats.toml"


@pytest.fixture
def mock_factory():
    from gpiozero.pins.mock import MockFactory, MockPWMPin
    factory = MockFactory(pin_class=MockPWMPin)
    yield factory
    factory.reset()
    factory.close()


@pytest.fixture
def ten_seats():
    return load_pinmap(TEN)
