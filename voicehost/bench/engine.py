"""``bench engine``: full random games per second on one core, the engine alone replaying them,
and the script → protocol path over the sport scripts."""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

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
    from :func:`~voicehost.simulation.scriptgen.random_script`, against the bare reading of the
    same texts (:mod:`voicehost.bench.bare_sport`) in the same run: a figure of this machine's
    speed alone says nothing on a shared one, a ratio does. Both give the same protocol (checked
    here, off the clock: a faster reading of other rules would be no reference). Texts are made
    beforehand; the clock (CPU time) runs over parsing, loading, playing and the protocol only;
    the two alternate, best of ``repeat`` each. ``ratio``: the engine's speed over the bare
    reading's (above 1: the engine is faster)."""
    from voicehost.simulation.scriptgen import random_script

    bundled = _bundled_sport_scripts()
    texts = bundled + [json.dumps(random_script("sport", seed * 100_000 + k)) for k in range(generated)]
    _same_protocols(texts)
    engine = bare = float("inf")
    for _ in range(repeat):
        engine = min(engine, _cpu_seconds(_engine_protocols, texts))
        bare = min(bare, _cpu_seconds(_bare_protocols, texts))
    return {"games": len(texts), "bundled": len(bundled), "seconds": engine, "games_per_second": len(texts) / engine,
            "bare_seconds": bare, "ratio": bare / engine}


def _cpu_seconds(read: Callable[[list[str]], object], texts: list[str]) -> float:
    start = time.process_time()
    read(texts)
    return time.process_time() - start


def _engine_protocols(texts: list[str]) -> list[dict[str, Any]]:
    """Each text's protocol by the engine: the script read, played, and the protocol built."""
    from voicehost.rules.protocol import build_protocol
    from voicehost.simulation.engine_level import simulate
    from voicehost.simulation.script import script_from_data

    protocols = []
    for text in texts:
        result = simulate(script_from_data(json.loads(text)))
        protocols.append(build_protocol(result.game, result.ignored, result.script.names))
    return protocols


def _bare_protocols(texts: list[str]) -> list[dict[str, Any]]:
    from voicehost.bench.bare_sport import bare_protocol

    return [bare_protocol(text) for text in texts]


def _same_protocols(texts: list[str]) -> None:
    """The bare reading must give the engine's protocol, byte for byte, or it measures nothing."""
    for text, engine, bare in zip(texts, _engine_protocols(texts), _bare_protocols(texts), strict=True):
        if json.dumps(engine) != json.dumps(bare):
            raise AssertionError(f"the bare reading's protocol differs from the engine's for {text[:200]}")


def plain_python_scripts(generated: int, seed: int, repeat: int = 1) -> dict[str, float]:
    """:func:`bench_scripts` in a process that runs the engine as plain Python
    (``VOICEHOST_ENGINE=python``): set beside the compiled engine's, what the build earns."""
    import os
    import subprocess
    import sys

    code = (f"import json; from voicehost.bench.engine import bench_scripts; "
            f"print(json.dumps(bench_scripts({generated}, {seed}, {repeat})))")
    env = {**os.environ, "VOICEHOST_ENGINE": "python"}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    figures: dict[str, float] = json.loads(done.stdout.splitlines()[-1])
    return figures


def _bundled_sport_scripts() -> list[str]:
    """The texts of the sport scripts shipped as examples, and those of tests/scripts in a checkout."""
    from voicehost.config import packaged_examples

    folders = (packaged_examples(), Path(__file__).resolve().parents[2] / "tests" / "scripts")
    return [path.read_text(encoding="utf-8") for folder in folders
            for path in sorted(folder.glob("sport-*.json")) if not path.name.endswith(".expect.json")]
