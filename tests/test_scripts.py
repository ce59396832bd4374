"""Every script under tests/scripts plays to the protocol its ``.expect.json`` holds: the whole
protocol, every key of it (a subset let a day that never happened slip through, issue 28).
``python tests/test_scripts.py --write`` rewrites them from today's engine: read the diff first.
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


def protocol_of(path: Path) -> dict[str, Any]:
    result = simulate(load_script(path))
    return build_protocol(result.game, result.ignored, result.script.names)


def expected_text(protocol: dict[str, Any]) -> str:
    """A protocol as its ``.expect.json``: one top-level key a line, one day, night or
    elimination a line, so that a diff shows what changed."""
    lines = []
    for key, value in protocol.items():
        if isinstance(value, list) and value:
            items = ",\n".join(f"    {json.dumps(item, ensure_ascii=False)}" for item in value)
            lines.append(f"  {json.dumps(key)}: [\n{items}\n  ]")
        else:
            lines.append(f"  {json.dumps(key)}: {json.dumps(value, ensure_ascii=False)}")
    return "{\n" + ",\n".join(lines) + "\n}\n"


def differences(expected: Any, actual: Any, where: str = "protocol") -> list[str]:
    """Where two protocols differ, key by key and item by item."""
    if isinstance(expected, dict) and isinstance(actual, dict):
        missing = [f"{where}.{key}: {'missing' if key in expected else 'not expected'}"
                   for key in sorted(set(expected) ^ set(actual), key=str)]
        return missing + [line for key in expected if key in actual
                          for line in differences(expected[key], actual[key], f"{where}.{key}")]
    if isinstance(expected, list) and isinstance(actual, list) and len(expected) == len(actual):
        return [line for i, (e, a) in enumerate(zip(expected, actual, strict=True))
                for line in differences(e, a, f"{where}[{i}]")]
    return [] if expected == actual else [f"{where}: {actual!r} != {expected!r}"]


@pytest.mark.parametrize("path", SCRIPTS, ids=[p.stem for p in SCRIPTS])
def test_script_plays_to_its_expected_protocol(path: Path) -> None:
    expect_path = path.with_name(path.stem + ".expect.json")
    assert expect_path.exists(), f"{path.name} has no {expect_path.name}"
    expected, actual = json.loads(expect_path.read_text(encoding="utf-8")), protocol_of(path)
    assert expected == actual, "\n".join(differences(expected, actual))


def test_the_expected_protocols_are_whole_and_a_day_cut_short_is_a_difference() -> None:
    """Every key of the protocol is compared: an extra day (issue 28) fails the comparison."""
    path = SCRIPTS[0]
    expected = json.loads(path.with_name(path.stem + ".expect.json").read_text(encoding="utf-8"))
    actual = protocol_of(path)
    assert set(expected) == set(actual)
    padded = {**actual, "days": [*actual["days"], {"day": 99, "opener": None}]}
    assert differences(expected, padded) and expected != padded


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


if __name__ == "__main__":
    import sys
    if sys.argv[1:] == ["--write"]:
        for script in SCRIPTS:
            expect = script.with_name(script.stem + ".expect.json")
            expect.write_text(expected_text(protocol_of(script)), encoding="utf-8")
