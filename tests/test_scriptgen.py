"""voicehost.simulation.scriptgen: an invented game is a valid script the engine plays the same way
again, to the end, and the live director at the table level agrees with it."""

from __future__ import annotations

import json

import pytest

from voicehost.host.vclock import run_virtual
from voicehost.rules.protocol import build_protocol
from voicehost.simulation.engine_level import simulate
from voicehost.simulation.script import script_from_data
from voicehost.simulation.scriptgen import random_script
from voicehost.simulation.table_level import play_table


@pytest.mark.parametrize("ruleset", ["sport", "club", "classic", "canonical"])
@pytest.mark.parametrize("seed", range(6))
def test_an_invented_game_is_a_script_played_to_the_end_at_both_levels(ruleset: str, seed: int) -> None:
    data = random_script(ruleset, seed)
    script = script_from_data(json.loads(json.dumps(data)))  # survives JSON as a user's file would
    engine = simulate(script)
    assert engine.game.is_over and engine.ignored == []    # every decision written was asked for
    table = run_virtual(play_table(script))
    assert build_protocol(table.game, table.ignored, script.names) == \
        build_protocol(engine.game, engine.ignored, script.names)


def test_the_same_seed_invents_the_same_game_and_another_seed_another() -> None:
    assert random_script("club", 11) == random_script("club", 11)
    assert random_script("club", 11) != random_script("club", 12)


def test_invented_speeches_nominate_and_votes_are_cast() -> None:
    days = [day for seed in range(5) for day in random_script("sport", seed)["days"]]
    said = [w for day in days for words in day.get("speeches", {}).values() for w in words]
    assert any(w.startswith("выставляю игрока номер") for w in said)
    assert any(day.get("votes") for day in days)
