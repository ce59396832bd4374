"""``bench engine``: full random games per second on one core, the engine alone replaying them,
and the script → protocol path over the sport scripts."""

from __future__ import annotations

import json
import random
import time
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from voicehost.rules import Input, Ruleset

Played = list[tuple[int, "list[Input]"]]


def bench_engine(ruleset: Ruleset, games: int, seed: int, repeat: int = 1) -> dict[str, float]:
    """Full random games per second on one core: CPU time of this single-threaded process,
    the best of ``repeat`` runs over the same games (a shared machine only ever slows a run).
    Then the engine alone: the same games' inputs pushed again into new games, without the
    generator that chose them (what a replay, an import or a script pays)."""
    from voicehost.simulation.random_games import random_game

    options = ruleset.resolve({})
    inputs = finished = 0
    seconds = float("inf")
    for _ in range(repeat):
        rng = random.Random(seed)
        inputs = finished = 0
        start = time.process_time()
        for _ in range(games):
            game = random_game(ruleset, options, rng)
            inputs += len(game.inputs)
            finished += game.is_over
        seconds = min(seconds, time.process_time() - start)
    rng = random.Random(seed)  # the same games again, kept this time (keeping them slows the collector)
    played = [(game.seats, game.inputs) for game in (random_game(ruleset, options, rng) for _ in range(games))]
    return {"games": games, "seconds": seconds, "games_per_second": games / seconds,
            "engine_games_per_second": games / _replay_seconds(ruleset, played, repeat),
            "inputs_per_game": inputs / games, "finished": finished}


def _replay_seconds(ruleset: Ruleset, played: Played, repeat: int) -> float:
    """CPU time of the engine alone over ``played`` (seats, inputs), the best of ``repeat``."""
    from voicehost.rules import new_game

    options = ruleset.resolve({})
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        for seats, moves in played:
            replay = new_game(ruleset, options, seats)
            for item in moves:
                replay.push(item)
        best = min(best, time.process_time() - start)
    return best


def bench_scripts(generated: int, seed: int, repeat: int = 1) -> dict[str, float]:
    """The script → protocol path on sport games: JSON text → script → engine → protocol, over
    the bundled sport scripts (the packaged examples; tests/scripts in a checkout) and ``generated`` ones
    from :func:`~voicehost.simulation.scriptgen.random_script`. Texts are made beforehand; the
    clock runs over parsing, loading, playing and the protocol only (best of ``repeat``)."""
    from voicehost.rules.protocol import build_protocol
    from voicehost.simulation.engine_level import simulate
    from voicehost.simulation.script import script_from_data
    from voicehost.simulation.scriptgen import random_script

    bundled = _bundled_sport_scripts()
    texts = bundled + [json.dumps(random_script("sport", seed * 100_000 + k)) for k in range(generated)]
    seconds = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        for text in texts:
            result = simulate(script_from_data(json.loads(text)))
            build_protocol(result.game, result.ignored, result.script.names)
        seconds = min(seconds, time.process_time() - start)
    return {"games": len(texts), "bundled": len(bundled), "seconds": seconds,
            "games_per_second": len(texts) / seconds}


def _bundled_sport_scripts() -> list[str]:
    """The texts of the sport scripts shipped as examples, and those of tests/scripts in a checkout."""
    from voicehost.config import packaged_examples

    folders = (packaged_examples(), Path(__file__).resolve().parents[2] / "tests" / "scripts")
    return [path.read_text(encoding="utf-8") for folder in folders
            for path in sorted(folder.glob("sport-*.json")) if not path.name.endswith(".expect.json")]
