"""``voicehost bench …``: the command only — its arguments, and each benchmark's figures printed.
The benchmarks themselves live in :mod:`voicehost.bench` (one module each), imported when run."""

from __future__ import annotations

import argparse
from collections.abc import Callable

from voicehost.cli.args import Commands, number_between, positive, print_json
from voicehost.config import load_ruleset, ruleset_names
from voicehost.rules import InputError


def add_commands(commands: Commands) -> None:
    from voicehost.i18n import N_, _  # here, as every command module: gettext is not loaded before

    bench_cmd = commands.add_parser("bench", help=_("run a benchmark"))
    bench_cmd.add_argument("what", choices=list(BENCHMARKS),
                           help=_("engine: full random games per second; gpio: press time-stamp error; "
                                  "voice: render, warm-up, event → first sample, mixer CPU; "
                                  "ears: recognizer real-time factor, memory, end of utterance → intent; "
                                  "table: a table-level game under the virtual clock, end of speech → next line; "
                                  "start: `voicehost serve` to «Стол готов» with a warm cache and with a fresh one "
                                  "(each against a bare interpreter), the warm table's idle RSS and CPU, the fresh "
                                  "table's background render (peak RSS with its children, the table's CPU), TTS cache; "
                                  "records: import protocols into SQLite and PostgreSQL, ratings, size per game; "
                                  "hearing: invented games at the table level, clean and misheard, compared; "
                                  "web: public viewers on loopback during a game, table change → message received; "
                                  "mix: each ruleset's sample game rendered to a file and measured (line gaps, "
                                  "question → «Спасибо», the breath before the count, the numbers over the music, "
                                  "the taps' masking margin, loudness spread, true peak); "
                                  "cli: CPU time of `parse`, `rules`, `--help` and the records' and tournament's read "
                                  "commands on an empty database, each against a bare interpreter; "
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
                                  "cli: runs of each command (default 3; the least is reported, and the medians' "
                                  "ratio)"))
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
    """Run the benchmark asked for (``engine`` when nothing else matches)."""
    BENCHMARKS.get(args.what, _engine)(args)
    return 0


def figure(value: float) -> str:
    """A count as a whole number (``reactions = 9``), a measurement to three decimals."""
    return str(value) if isinstance(value, int) else f"{value:.3f}"


def _print_figures(name: str, figures: dict[str, float]) -> None:
    for key, value in figures.items():
        print(f"{name}: {key} = {figure(value)}", flush=True)


def _engine(args: argparse.Namespace) -> None:
    from voicehost import native
    from voicehost.bench.engine import bench_engine, bench_scripts, plain_python_scripts

    print(f"engine: {native.running()}")  # compiled by mypyc, or plain Python and why (voicehost.native)
    for name in [args.ruleset] if args.ruleset else ruleset_names():
        figures = bench_engine(load_ruleset(name), args.games or 2000, args.seed, args.repeat)
        print(f"{name}: {figures['games']} games in {figures['seconds']:.2f} s = "
              f"{figures['games_per_second']:.0f} games/s on one core "
              f"({figures['inputs_per_game']:.0f} inputs/game, {figures['finished']} finished; "
              f"the engine alone replays them at {figures['engine_games_per_second']:.0f} games/s)")
    if not args.ruleset or args.ruleset == "sport":
        figures = bench_scripts(args.scripts, args.seed, args.repeat)
        print(f"script → protocol: {figures['games']} sport scripts ({figures['bundled']} bundled, the rest "
              f"generated): {figures['ratio']:.2f}× the speed of the bare reading of the sport rules in the same run "
              f"(voicehost/bench/bare_sport.py, the same protocols; CPU {figures['seconds']:.2f} s against "
              f"{figures['bare_seconds']:.2f} s)")
        if native.active():
            plain = plain_python_scripts(args.scripts, args.seed, args.repeat)
            print(f"script → protocol as plain Python (VOICEHOST_ENGINE=python): {plain['ratio']:.2f}× the bare "
                  f"reading; the compiled engine is {figures['ratio'] / plain['ratio']:.2f}× as fast as plain Python")


def _hearing(args: argparse.Namespace) -> None:
    """``bench hearing``: ``--games`` invented games of each ruleset, clean and misheard."""
    from voicehost.simulation.hearing_bench import bench_hearing

    if args.ruleset is not None and args.ruleset not in ruleset_names():
        raise InputError("--ruleset", f"unknown ruleset {args.ruleset!r} (known: {', '.join(ruleset_names())})")
    figures = bench_hearing(args.wer, args.games or 50, args.seed, not args.no_corrections,
                            [args.ruleset] if args.ruleset else None).as_dict()
    figures = {"wer": args.wer, "corrections": not args.no_corrections, **figures}
    if args.json:
        print_json(figures)
        return
    print(f"hearing at {args.wer:.0%} word error ({'with' if figures['corrections'] else 'without'} corrections): "
          f"{figures['right']} of {figures['games']} games end as the clean game ({figures['right_share']:.1%}); "
          f"nominations lost {figures['nominations_lost']}, wrong and left standing "
          f"{figures['nominations_wrong_standing']}, other differences {figures['other_differences']}; "
          f"measured word error {figures['measured_wer']:.1%}; corrections cost {figures['correction_s_mean']:.1f} s "
          f"of table time a game on average (max {figures['correction_s_max']:.1f} s)")


def _plan(args: argparse.Namespace) -> None:
    from voicehost.cli.tournament import bench_plan

    for line in bench_plan(args.repeat, args.seed):
        print(line, flush=True)


def _web(args: argparse.Namespace) -> None:
    from voicehost.bench.web import WEB_BENCH_SPEED, bench_web

    figures = bench_web(args.viewers)
    print(f"web: {figures['viewers']:.0f} public viewers, {figures['messages']:.0f} messages received during a "
          f"sport game ({figures['game_s']:.1f} s, timers {WEB_BENCH_SPEED:g}× faster): change → received "
          f"p50 {figures['p50_ms']:.2f} ms, p95 {figures['p95_ms']:.2f} ms, max {figures['max_ms']:.2f} ms")


def _overlay(args: argparse.Namespace) -> None:
    from voicehost.bench.overlay import bench_overlay, report

    for line in report(bench_overlay(args.viewers)):
        print(line, flush=True)


def _club(args: argparse.Namespace) -> None:
    from voicehost.cli.tournament_screen import CLUB_BENCH_SPEED, bench_club
    from voicehost.i18n import _

    figures = bench_club(args.tables)
    print(_("club: {tables} tables at once ({seconds:.1f} s, timers {speed:g}× faster), {changes} changes heard "
            "on the tournament page's socket: table change → page p50 {p50:.2f} ms, p95 {p95:.2f} ms, "
            "max {max:.2f} ms").format(tables=int(figures["tables"]), seconds=figures["evening_s"],
                                       speed=CLUB_BENCH_SPEED, changes=int(figures["changes"]),
                                       p50=figures["p50_ms"], p95=figures["p95_ms"], max=figures["max_ms"]))


def _mix(args: argparse.Namespace) -> None:
    from voicehost.bench.mix import bench_mix

    for name in [args.ruleset] if args.ruleset else ruleset_names():
        _print_figures(f"mix: {name}", bench_mix(name))


def _cli(args: argparse.Namespace) -> None:
    import statistics

    from voicehost.bench.startup import bench_cli

    bare: list[float] = []
    for name, runs in bench_cli(args.repeat).items():
        bare = bare or runs
        print(f"cli: {name}: {min(runs) * 1000:.0f} ms CPU = {min(runs) / min(bare):.1f}× a bare interpreter "
              f"(min against min; medians {statistics.median(runs) / statistics.median(bare):.1f}×)", flush=True)


def _start(args: argparse.Namespace) -> None:
    from voicehost.bench.startup import bench_start

    for key, value in bench_start().items():
        print(f"start: {key} = {value:.3f}")


def _standings(args: argparse.Namespace) -> None:
    from voicehost.bench.records import bench_standings

    for line in bench_standings(args.games or 1000, args.seed, args.repeat, (args.db or [None])[0]):
        print(line, flush=True)


def _records(args: argparse.Namespace) -> None:
    from voicehost.bench.records import bench_records

    for line in bench_records(args.games or 10_000, args.seed, args.db):
        print(line, flush=True)


def _table(args: argparse.Namespace) -> None:
    from voicehost.bench.table import bench_table

    _print_figures("table", bench_table(repeat=args.repeat))


def _ears(args: argparse.Namespace) -> None:
    from voicehost.bench.ears import bench_ears

    _print_figures("ears", bench_ears(args.model))


def _voice(args: argparse.Namespace) -> None:
    from voicehost.bench.voice import bench_voice

    _print_figures("voice", bench_voice(args.audio))


def _gpio(args: argparse.Namespace) -> None:
    from voicehost.bench.gpio import bench_gpio

    figures = bench_gpio(args.games or 2000)
    print(f"gpio: {figures['presses']} presses on mock pins: stamp error p50 {figures['p50_ms']:.3f} ms, "
          f"p95 {figures['p95_ms']:.3f} ms, max {figures['max_ms']:.3f} ms")


#: Each benchmark's printer, by the name ``voicehost bench`` takes.
BENCHMARKS: dict[str, Callable[[argparse.Namespace], None]] = {
    "engine": _engine, "gpio": _gpio, "voice": _voice, "ears": _ears, "table": _table, "start": _start,
    "records": _records, "hearing": _hearing, "web": _web, "mix": _mix, "cli": _cli, "plan": _plan,
    "standings": _standings, "club": _club, "overlay": _overlay,
}
