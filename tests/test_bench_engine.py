"""``bench engine``'s reference, the bare reading of the sport rules (voicehost/bench/bare_sport.py):
it must give the engine's protocol byte for byte, or its ratio measures another game (issue 47)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from voicehost.bench.bare_sport import bare_protocol
from voicehost.bench.engine import _bundled_sport_scripts, bench_scripts
from voicehost.rules.protocol import build_protocol
from voicehost.simulation.engine_level import simulate
from voicehost.simulation.script import script_from_data
from voicehost.simulation.scriptgen import random_script

SCRIPTS = Path(__file__).parent / "scripts"
SPORT = sorted(p for p in SCRIPTS.glob("sport-*.json") if not p.name.endswith(".expect.json"))


def engine_text(text: str) -> str:
    result = simulate(script_from_data(json.loads(text)))
    return json.dumps(build_protocol(result.game, result.ignored, result.script.names))


@pytest.mark.parametrize("path", SPORT, ids=lambda p: p.stem)
def test_bare_reading_gives_the_engines_protocol(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert json.dumps(bare_protocol(text)) == engine_text(text)
    # and the one the scripts' test holds (so neither can drift with the other)
    assert bare_protocol(text) == json.loads(path.with_suffix(".expect.json").read_text(encoding="utf-8"))


def test_bare_reading_on_invented_games() -> None:
    """Generated games reach what the bundled ones may not: lifts, long splits, three misses."""
    for seed in range(120):
        text = json.dumps(random_script("sport", seed))
        assert json.dumps(bare_protocol(text)) == engine_text(text), seed


def test_bare_reading_with_options() -> None:
    """Options the bare reading takes from the script, as the engine does."""
    for options in ({"nomination": "last", "rotation": "last"}, {"tied_vote_in_revote": False},
                    {"three_fouls": "short_speech", "misses_to_lose": 2}, {"call_dead_seats": False}):
        for seed in range(15):
            text = json.dumps(random_script("sport", seed, options=options))
            assert json.dumps(bare_protocol(text)) == engine_text(text), (options, seed)


def test_bench_reports_the_ratio_to_the_bare_reading() -> None:
    figures = bench_scripts(3, seed=1)
    assert figures["games"] == len(_bundled_sport_scripts()) + 3
    assert figures["ratio"] == pytest.approx(figures["bare_seconds"] / figures["seconds"])
    assert figures["ratio"] > 0
