"""The ``voicehost`` command. Every bad input ends in one line on stderr and exit code 2."""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

from . import __version__
from .config import load_ruleset, ruleset_names
from .narrate import narrate
from .parser import parse
from .phrasebook import load_phrasebook
from .protocol import build_protocol
from .rules import InputError
from .script import load_script
from .simulation import simulate

SAMPLE_SCRIPT = Path(__file__).resolve().parent.parent / "examples" / "sport-sample.json"


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see --help)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="voicehost", description="A voice host for Mafia at a real table.")
    parser.add_argument("--version", action="version", version=f"voicehost {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    simulate_cmd = commands.add_parser("simulate", help="play a table script, print the protocol")
    simulate_cmd.add_argument("script", help="a table script (.json or .toml)")
    simulate_cmd.add_argument("--json", action="store_true", help="print the protocol as JSON")
    simulate_cmd.add_argument("--level", choices=["engine", "table"], default="engine",
                              help="engine: the rules alone; table: voice, seat buttons and ears, on a virtual clock")
    simulate_cmd.add_argument("--journal", default=None,
                              help="append every input to this file (fsynced); resume it after a crash")
    simulate_cmd.set_defaults(run=_simulate)

    resume_cmd = commands.add_parser("resume", help="rebuild a game from its journal and carry on")
    resume_cmd.add_argument("journal", help="the journal file of the interrupted game")
    resume_cmd.add_argument("--json", action="store_true", help="print the protocol as JSON")
    resume_cmd.set_defaults(run=_resume)

    demo_cmd = commands.add_parser("demo", help="play the bundled sample game aloud, then its protocol")
    demo_cmd.add_argument("script", nargs="?", default=None,
                          help="a script to play (default: the bundled sport sample, or an invented game with --seed)")
    demo_cmd.add_argument("--seed", type=int, default=None, help="invent a game from this seed instead of a script")
    demo_cmd.add_argument("--rules", default="sport", help="with --seed: the ruleset of the invented game")
    demo_cmd.add_argument("--speed", type=_speed, default=8.0,
                          help="timers run this many times faster (speech timers, vote windows); default 8")
    demo_cmd.add_argument("--pace", type=_seconds, default=0.15,
                          help="with --audio off: seconds between printed lines")
    demo_cmd.add_argument("--audio", default=None,
                          help="default, device:NAME, file:OUT.wav, null, or off (no voice); default: the table's")
    demo_cmd.add_argument("--table", default=None,
                          help="the table file whose seat panel (on mock pins) and [audio] settings to use")
    demo_cmd.set_defaults(run=_demo)

    voice_cmd = commands.add_parser("voice", help="the host's voice: render lines ahead, or say one")
    voice_cmd.add_argument("action", choices=["warm", "say"], help="warm: render every fixed line; say: speak TEXT")
    voice_cmd.add_argument("text", nargs="*", help="what to say (say)")
    voice_cmd.add_argument("--rules", action="append", default=None, help="rulesets to warm (default: all)")
    voice_cmd.add_argument("--table", default=None, help="the table file whose [audio] settings to use")
    voice_cmd.add_argument("--audio", default=None, help="default, device:NAME, file:OUT.wav or null")
    voice_cmd.set_defaults(run=_voice)

    parse_cmd = commands.add_parser("parse", help="what the host understands in a phrase")
    parse_cmd.add_argument("text", nargs="+", help="the words, as the recognizer writes them")
    parse_cmd.add_argument("--seats", type=_seat_count, default=None, help="table size: flags numbers that are no seat")
    parse_cmd.add_argument("--forbidden", nargs="*", default=[], help="the club's forbidden words to report")
    parse_cmd.set_defaults(run=_parse)

    rules_cmd = commands.add_parser("rules", help="list rulesets, or show one's options")
    rules_cmd.add_argument("action", nargs="?", choices=["show"], help="show NAME")
    rules_cmd.add_argument("name", nargs="?", help="a ruleset name")
    rules_cmd.set_defaults(run=_rules)

    run_cmd = commands.add_parser("run", help="host a game at the real table (seat panel, speaker, microphone)")
    run_cmd.add_argument("--table", default=None, help="the table file (pins, [audio], [ears])")
    run_cmd.add_argument("--rules", default="sport", help="the ruleset")
    run_cmd.add_argument("--option", action="append", default=None, help="k=v, a ruleset option (repeatable)")
    run_cmd.add_argument("--roles", default=None,
                         help="3=don,5=mafia,…: the cards the club dealt; taps: learn them from taps on the first "
                              "night; unset: the host deals")
    run_cmd.add_argument("--deal", type=int, default=None, help="the seed when the host deals")
    run_cmd.add_argument("--names", default=None, help="1=Анна,2=Борис,…: the roster")
    run_cmd.add_argument("--journal", default=None, help="the journal file (default: game-DATE.jsonl)")
    run_cmd.add_argument("--resume", default=None, help="continue the game of this journal")
    run_cmd.add_argument("--audio", default=None, help="default, device:NAME, file:OUT.wav or null")
    run_cmd.add_argument("--mock", action="store_true", help="gpiozero mock pins (no real buttons)")
    run_cmd.add_argument("--no-ears", action="store_true", help="no microphone: buttons and the console only")
    run_cmd.add_argument("--speed", type=_speed, default=1.0, help="timers run this many times faster")
    run_cmd.set_defaults(run=_run)

    model_cmd = commands.add_parser("model", help="the speech model: install it, or check it against the grammar")
    model_cmd.add_argument("action", choices=["install", "check"])
    model_cmd.add_argument("source", nargs="?", default=None,
                           help="install: a ZIP, a folder or a URL (default: vosk-model-small-ru-0.22)")
    model_cmd.add_argument("--model", default=None, help="check: this model folder instead of the configured one")
    model_cmd.add_argument("--rules", default="sport", help="check: the ruleset whose table size to use")
    model_cmd.add_argument("--table", default=None, help="the table file whose [ears] settings to use")
    model_cmd.set_defaults(run=_model)

    listen_cmd = commands.add_parser("listen", help="print what the host understands: live, replayed or typed")
    listen_cmd.add_argument("--replay", default=None, help="a JSONL file of vosk results")
    listen_cmd.add_argument("--console", action="store_true", help="read typed lines from standard input")
    listen_cmd.add_argument("--seats", type=_seat_count, default=10)
    listen_cmd.add_argument("--table", default=None, help="the table file whose [ears] settings to use")
    listen_cmd.set_defaults(run=_listen)

    hw_cmd = commands.add_parser("hw", help="the seat panel: walk every seat after soldering")
    hw_cmd.add_argument("action", choices=["test"], help="test: light each LED, wait for its button")
    hw_cmd.add_argument("--table", required=True, help="the pin map, e.g. config/tables/ten-seats.toml")
    hw_cmd.add_argument("--timeout", type=_seconds, default=10.0, help="seconds to wait for each press")
    hw_cmd.add_argument("--rules", default=None, help="check the seat count against this ruleset")
    hw_cmd.add_argument("--mock", action="store_true", help="gpiozero mock pins and simulated presses")
    hw_cmd.set_defaults(run=_hw)

    bench_cmd = commands.add_parser("bench", help="run a benchmark")
    bench_cmd.add_argument("what", choices=["engine", "gpio", "voice", "ears", "table"],
                           help="engine: full random games per second; gpio: press time-stamp error; "
                                "voice: render, warm-up, event → first sample, mixer CPU; "
                                "ears: recognizer real-time factor, memory, end of utterance → intent; "
                                "table: a table-level game under the virtual clock, end of speech → next line")
    bench_cmd.add_argument("--model", default=None, help="ears: a model folder (default: the Korean test model)")
    bench_cmd.add_argument("--audio", default="null", help="voice: the output to time (null, default…)")
    bench_cmd.add_argument("--games", type=_positive, default=2000, help="games (engine) or presses (gpio)")
    bench_cmd.add_argument("--seed", type=int, default=1)
    bench_cmd.add_argument("--ruleset", default=None, help="one ruleset (default: all)")
    bench_cmd.set_defaults(run=_bench)
    return parser


def _positive(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a positive whole number")
    return int(text)


def _seat_count(text: str) -> int:
    value = _positive(text)
    if value > 99:
        raise argparse.ArgumentTypeError(f"{value} seats is more than any table")
    return value


def _number_between(low: float, high: float, unit: str = "") -> Any:
    """An argparse type: a number from ``low`` to ``high`` (``unit`` names it in the error)."""
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number{unit and ' of ' + unit}") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{text} is not between {low:g} and {high:g}{unit and ' ' + unit}")
        return value
    return parse


_seconds = _number_between(0, 600, "seconds")
_speed = _number_between(0.1, 1000)


def _simulate(args: argparse.Namespace) -> int:
    script = load_script(args.script)
    if args.journal is None:
        return _report(_play(script, args.level), args.json)
    from .journal import Journal

    path = Path(args.journal)
    if path.exists() and path.stat().st_size:
        raise InputError(str(path), "the journal already exists: resume it with voicehost resume, or pick a new name")
    journal = Journal(path, {"script": str(Path(args.script).resolve()), "ruleset": script.ruleset.name,
                             "seats": script.seats, "options": dict(script.options), "level": args.level})
    try:
        return _report(_play(script, args.level, journal), args.json, path)
    finally:
        journal.close()


def _play(script: Any, level: str | None, journal: Any = None, replayed: Any = None) -> Any:
    """The engine level, or the table level: the live director with simulated people on game time."""
    if level == "table":
        from .table_sim import play_table
        from .vclock import run_virtual

        return run_virtual(play_table(script, journal, replayed))
    return simulate(script, journal=journal, replayed=replayed)


def _resume(args: argparse.Namespace) -> int:
    from .journal import Journal, read_journal

    header, entries = read_journal(args.journal)
    if "script" not in header:
        raise InputError(args.journal, "this journal has no script to replay (a live game: voicehost run --resume)")
    script = load_script(header["script"])
    journal = Journal(args.journal, header)
    try:
        return _report(_play(script, header.get("level"), journal, entries), args.json, Path(args.journal))
    finally:
        journal.close()


def _report(result: Any, as_json: bool, journal: Path | None = None) -> int:
    """Print the protocol or the account; next to a journal, write both as files."""
    protocol = build_protocol(result.game, result.ignored, result.script.names)
    account = _account(result)
    if journal is not None and result.game.is_over:
        from .journal import write_results

        write_results(journal, protocol, account)
    if as_json:
        _print_json(protocol)
    else:
        for line in account:
            print(line)
    return 0


def _account(result: Any) -> list[str]:
    book = load_phrasebook()
    lines = list(narrate(result.game.events, book, result.script.names))
    if result.game.outcome() is None:
        lines.append(book.line("log", "ran_out"))
    for entry in result.ignored:
        lines.append(f"(не учтено: {entry['at']} — {entry['why']})")
    return lines


def _demo(args: argparse.Namespace) -> int:
    """The main job on any machine: a table script played by the live director at a simulated
    table — gpiozero's mock pins for the seat panel, people who press and speak as the script
    says — with the host's real voice and night music, timers sped up by ``--speed``, the
    public log in the terminal and the protocol at the end. ``--audio off``: no voice, on
    game time (instant; ``--pace`` spaces the printed lines)."""
    import asyncio

    from .table_sim import TableRun, mock_pin_seats, play_table
    from .vclock import run_virtual

    script = _demo_script(args)
    pinmap = _demo_pinmap(args.table, script.seats)
    if args.audio == "off":
        def show(line: str) -> None:
            print(line, flush=True)
            time.sleep(args.pace)
        result = run_virtual(play_table(script, how=TableRun(show=show)))
    else:
        print(f"voicehost demo: a {script.ruleset.name} game at a simulated {script.seats}-seat table, timers "
              f"{args.speed:g}× faster; the host speaks every line, so a whole game takes a while (Ctrl+C ends it).",
              flush=True)
        voice = _open_voice(args.table, args.audio)
        voice.renderer.warm(_fixed_lines(voice, script))
        how = TableRun(say=voice.say, night=voice.night, seats=mock_pin_seats(pinmap), speed=args.speed,
                       show=lambda line: print(line, flush=True))
        try:
            result = asyncio.run(play_table(script, how=how))
        finally:
            voice.close()
    if result.game.outcome() is None:
        print(load_phrasebook().line("log", "ran_out"))
    print()
    _print_json(build_protocol(result.game, result.ignored, result.script.names))
    return 0


def _demo_script(args: argparse.Namespace) -> Any:
    """The script given, a game invented from ``--seed``, or the bundled sample."""
    if args.seed is None:
        return load_script(args.script or SAMPLE_SCRIPT)
    if args.script is not None:
        raise InputError("demo", "give a script or --seed, not both")
    from .script import script_from_data
    from .scriptgen import random_script

    if args.rules not in ruleset_names():
        raise InputError("--rules", f"unknown ruleset {args.rules!r} (known: {', '.join(ruleset_names())})")
    print(f"An invented {args.rules} game, seed {args.seed}.", flush=True)
    return script_from_data(random_script(args.rules, args.seed))


def _demo_pinmap(table: str | None, seats: int) -> Any:
    """The demo's seat panel: the given table, or the bundled one with enough seats."""
    from .hwcli import open_pinmap
    from .table import table_path

    name = table or ("ten-seats" if seats <= 10 else "twelve-seats")
    pinmap = open_pinmap(str(table_path(name)))
    if pinmap.size < seats:
        raise InputError(str(table_path(name)), f"has {pinmap.size} seats; the script needs {seats}")
    return pinmap


def _fixed_lines(voice: Any, script: Any) -> list[str]:
    from .voice import fixed_lines

    return list(fixed_lines(voice.book, script.ruleset.name, range(1, script.seats + 1)))


def _open_voice(table: str | None, output: str | None) -> Any:
    from .table import load_audio, table_path
    from .voice import Voice

    return Voice(load_audio(table_path(table)), output)


def _voice(args: argparse.Namespace) -> int:
    from .voice import fixed_lines

    voice = _open_voice(args.table, args.audio or ("null" if args.action == "warm" else None))
    try:
        if args.action == "say":
            if not args.text:
                raise InputError("voice say", "give the words to say")
            voice.say(" ".join(args.text))
            return 0
        for name in args.rules or ruleset_names():
            seats = range(1, max(load_ruleset(name).seats) + 1)
            start = time.perf_counter()
            count = voice.renderer.warm(fixed_lines(voice.book, name, seats))
            print(f"{name}: {count} lines ready in {time.perf_counter() - start:.2f} s "
                  f"(cache: {voice.renderer.cache_dir})")
    finally:
        voice.close()
    return 0


def _parse(args: argparse.Namespace) -> int:
    intents = []
    from .parser import forbidden_words

    for intent in parse(" ".join(args.text), forbidden_words(args.forbidden)):
        body = intent.to_dict()
        if args.seats is not None and "seat" in body and not 1 <= body["seat"] <= args.seats:
            body["not_a_seat"] = True
        intents.append(body)
    _print_json({"intents": intents})
    return 0


def _rules(args: argparse.Namespace) -> int:
    if args.action is None:
        for name in ruleset_names():
            ruleset = load_ruleset(name)
            print(f"{name:10} {ruleset.title} (мест: {ruleset.describe_sizes()})")
        return 0
    if args.name is None:
        raise InputError("rules show", "name a ruleset (voicehost rules)")
    ruleset = load_ruleset(args.name)
    print(f"{ruleset.name}: {ruleset.title}")
    print(f"  seats: {ruleset.describe_sizes()}")
    for size, cast in ruleset.cast.items():
        print(f"  cast at {size}: " + ", ".join(f"{n} {role.value}" for role, n in cast.items()))
    print("  timers: " + ", ".join(f"{k} = {v}" for k, v in ruleset.timers.items()))
    print("  options:")
    for spec in ruleset.options.values():
        default = json.dumps(spec.default)
        print(f"  {spec.name} = {default}  [{spec.describe_values()}]  source: {spec.source}")
        if spec.doc:
            print(f"      {spec.doc}")
    return 0


def _run(args: argparse.Namespace) -> int:
    from .live import run

    return run(args)


def _model(args: argparse.Namespace) -> int:
    from .earscli import check_model, install

    if args.action == "install":
        return install(args.source, args.table)
    return check_model(args.model, args.rules, args.table)


def _listen(args: argparse.Namespace) -> int:
    from .earscli import listen

    return listen(args.replay, args.console, args.seats, args.table)


def _hw(args: argparse.Namespace) -> int:
    from .hwcli import hw_test

    return hw_test(args.table, args.timeout, args.mock, args.rules)


def _bench(args: argparse.Namespace) -> int:
    from .bench import bench_engine

    if args.what == "table":
        from .bench import bench_table

        for key, value in bench_table().items():
            print(f"table: {key} = {value:.3f}")
        return 0
    if args.what == "ears":
        from .bench import bench_ears

        for key, value in bench_ears(args.model).items():
            print(f"ears: {key} = {value:.3f}")
        return 0
    if args.what == "voice":
        from .bench import bench_voice

        for key, value in bench_voice(args.audio).items():
            print(f"voice: {key} = {value:.3f}")
        return 0
    if args.what == "gpio":
        from .hwcli import bench_gpio

        figures = bench_gpio(args.games)
        print(f"gpio: {figures['presses']} presses on mock pins: stamp error p50 {figures['p50_ms']:.3f} ms, "
              f"p95 {figures['p95_ms']:.3f} ms, max {figures['max_ms']:.3f} ms")
        return 0

    names = [args.ruleset] if args.ruleset else ruleset_names()
    for name in names:
        figures = bench_engine(load_ruleset(name), args.games, args.seed)
        print(f"{name}: {figures['games']} games in {figures['seconds']:.2f} s = "
              f"{figures['games_per_second']:.0f} games/s on one core "
              f"({figures['inputs_per_game']:.0f} inputs/game, {figures['finished']} finished)")
    return 0


def _print_json(data: object) -> None:
    print(json.dumps(data, ensure_ascii=False, indent=2))


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.run(args))
    except InputError as err:
        print(f"voicehost: error: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
