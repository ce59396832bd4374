"""Every script under tests/scripts plays to the protocol its ``.expect.json`` describes.

An expectation is a subset of the protocol: objects match key by key (extra keys in the
protocol are fine), lists match element by element and must have the same length.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from voicehost.rules import IllegalInput
from voicehost.rules.protocol import build_protocol
from voicehost.simulation.engine_level import Feed, ScriptPlayer, simulate
from voicehost.simulation.script import load_script

SCRIPTS = sorted(p for p in (Path(__file__).parent / "scripts").glob("*.json") if not p.name.endswith(".expect.json"))


def assert_subset(expected: Any, actual: Any, where: str = "protocol") -> None:
    if isinstance(expected, dict):
        assert isinstance(actual, dict), f"{where}: expected an object, got {actual!r}"
        for key, value in expected.items():
            assert key in actual, f"{where}.{key}: missing"
            assert_subset(value, actual[key], f"{where}.{key}")
    elif isinstance(expected, list):
        assert isinstance(actual, list) and len(actual) == len(expected), f"{where}: {actual!r} != {expected!r}"
        for i, (e, a) in enumerate(zip(expected, actual, strict=False)):
            assert_subset(e, a, f"{where}[{i}]")
    else:
        assert actual == expected, f"{where}: {actual!r} != {expected!r}"


@pytest.mark.parametrize("path", SCRIPTS, ids=[p.stem for p in SCRIPTS])
def test_script_plays_to_its_expected_protocol(path: Path) -> None:
    expect_path = path.with_name(path.stem + ".expect.json")
    assert expect_path.exists(), f"{path.name} has no {expect_path.name}"
    result = simulate(load_script(path))
    assert_subset(json.loads(expect_path.read_text()), build_protocol(result.game, result.ignored, result.script.names))


def test_every_tricky_case_of_the_issue_has_a_script() -> None:
    names = {p.stem for p in SCRIPTS}
    assert {
        "sport-repeat-tie-four-stay", "sport-repeat-tie-four-vote", "sport-removal-during-voting",
        "sport-silent-turn-nominates", "sport-three-misses", "sport-don-shot-by-own-mafia",
        "sport-non-voters-to-last", "sport-single-candidate-day-one", "sport-single-candidate-day-two",
        "sport-night-removal-after-the-shot", "club-night-victims-leave-together",  # issue 11
    } <= names


@pytest.mark.parametrize("path", SCRIPTS, ids=[p.stem for p in SCRIPTS])
def test_the_engine_level_takes_the_inputs_a_listening_table_takes(path: Path) -> None:
    """The engine level skips the acts that are only words (nobody listens there); the
    inputs, the game and what the script had that was never asked for stay the same."""
    script = load_script(path)
    listening = ScriptPlayer(script)   # words heard, as at the table level
    feed = Feed(listening.acts())
    for batch in feed:
        try:
            listening.push_batch(batch)
        except IllegalInput as err:
            feed.refuse(err)
    engine = simulate(load_script(path))
    assert engine.game.inputs == listening.game.inputs
    assert engine.ignored == listening.finish().ignored
