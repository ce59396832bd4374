"""``bench table``: a whole game at the table level under the virtual clock, and the real-clock
reaction from the end of a speech to the host's next line."""

from __future__ import annotations

import time


def bench_table(games: int = 20, repeat: int = 3) -> dict[str, float]:
    """A full game at the table level — the live director with simulated people — under the
    virtual clock (CPU time per game, best of ``repeat`` rounds of ``games``), and the
    real-clock reaction from the end of a speech («спасибо» reaching the director) to the
    onset of the host's next line (voice on the null output, recognizer excluded)."""
    from voicehost.config import packaged_examples
    from voicehost.host.vclock import run_virtual
    from voicehost.simulation.script import load_script
    from voicehost.simulation.table_level import play_table

    script = load_script(packaged_examples() / "sport-sample.json")
    run_virtual(play_table(script))  # imports and caches warm, as in a running host
    seconds = float("inf")
    for _ in range(repeat):  # CPU time, best of the rounds: a busy machine only ever slows a round
        start = time.process_time()
        for _ in range(games):
            run_virtual(play_table(script))
        seconds = min(seconds, (time.process_time() - start) / games)
    return {"table_game_ms": seconds * 1000, **_reactions()}


def _reactions() -> dict[str, float]:
    """A day of ten «спасибо» speeches on the real clock (timers 20× faster): each end of speech
    heard → the onset of the host's next line."""
    import asyncio

    from voicehost.host.table_file import load_audio, table_path
    from voicehost.host.voice import Voice
    from voicehost.language.intents import EndIntent
    from voicehost.language.parser import parse
    from voicehost.simulation.script import script_from_data
    from voicehost.simulation.table_level import TableRun, play_table

    voice = Voice(load_audio(table_path(None)), "null", log=lambda line: None)
    short = script_from_data({"ruleset": "sport", "roles": {"3": "don", "5": "mafia", "9": "mafia", "7": "sheriff"},
                              "days": [{"speeches": {str(seat): ["спасибо"] for seat in range(1, 11)}}]})
    try:
        voice.renderer.warm([])
        result = asyncio.run(play_table(short, how=TableRun(say=voice.say, speed=20.0)))
    finally:
        voice.close()
    record = result.table
    reactions = []
    for heard_at, _, text in record.heard:
        if any(isinstance(i, EndIntent) for i in parse(text)):
            onset = next((t for t, _ in record.lines if t >= heard_at), None)
            if onset is not None:
                reactions.append((onset - heard_at) * 1000)
    reactions.sort()
    return {"reaction_ms_p50": reactions[len(reactions) // 2], "reaction_ms_max": reactions[-1],
            "reactions": len(reactions)}
