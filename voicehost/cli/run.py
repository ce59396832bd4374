"""``voicehost run``: host a game at the real table (the wiring lives in :mod:`voicehost.host.live`)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from voicehost.cli.args import (
    Commands,
    add_judge_audio_argument,
    add_tournament_arguments,
    add_web_arguments,
    audio_help,
    speed,
    tournament_of,
    web_around,
)
from voicehost.cli.tournament_screen import add_club_arguments, with_club
from voicehost.language.i18n import _
from voicehost.rules import InputError

if TYPE_CHECKING:
    from voicehost.host.journal import JournalFile
    from voicehost.host.setup import GameSetup


def add_commands(commands: Commands) -> None:
    run_cmd = commands.add_parser("run", help=_("host a game at the real table (seat panel, speaker, microphone)"))
    run_cmd.add_argument("--table", default=None, help=_("the table file (pins, [audio], [ears])"))
    run_cmd.add_argument("--rules", default="sport", help=_("the ruleset"))
    run_cmd.add_argument("--option", action="append", default=None, help=_("k=v, a ruleset option (repeatable)"))
    run_cmd.add_argument("--roles", default=None,
                         help=_("3=don,5=mafia,…: the cards the club dealt; taps: learn them from taps on the first "
                                "night; unset: the host deals"))
    run_cmd.add_argument("--deal", type=int, default=None, help=_("the seed when the host deals"))
    run_cmd.add_argument("--names", default=None, help=_("1=Анна,2=Борис,…: the roster"))
    run_cmd.add_argument("--journal", default=None, help=_("the journal (default: game-DATE.jsonl in the data folder)"))
    run_cmd.add_argument("--resume", default=None, help=_("continue the game of this journal"))
    run_cmd.add_argument("--audio", default=None, help=audio_help())
    add_judge_audio_argument(run_cmd)
    run_cmd.add_argument("--transcript", default=None, metavar=_("FILE.jsonl"),
                         help=_("write every spoken line and music change as JSON lines, timed on the table's clock"))
    run_cmd.add_argument("--mock", action="store_true", help=_("gpiozero mock pins (no real buttons)"))
    run_cmd.add_argument("--no-ears", action="store_true", help=_("no microphone: buttons and the console only"))
    run_cmd.add_argument("--speed", type=speed, default=1.0, help=_("timers run this many times faster"))
    run_cmd.add_argument("--db", default=None, metavar="URL",
                         help=_("the table's records (default: records.sqlite in the data dir); the table file's "
                                "[records] url is the club server the finished game is pushed to"))
    add_tournament_arguments(run_cmd)
    add_web_arguments(run_cmd)
    add_club_arguments(run_cmd)
    run_cmd.set_defaults(run=_run)


def _run(args: argparse.Namespace) -> int:
    from voicehost.host.live import run
    from voicehost.records.table import TableRecords, protocol_hook, table_records

    setup, resumed = run_setup(args)
    where = table_records(setup.table) if setup.table is not None else TableRecords("table")
    around = with_club(args, where.table, web_around(args, args.table))
    return run(setup, resumed, mock=args.mock, ears=not args.no_ears, speed=args.speed, transcript=args.transcript,
               on_results=protocol_hook(setup.table, args.db), around=around, judge_audio=args.judge_audio)


def run_setup(args: argparse.Namespace) -> tuple[GameSetup, JournalFile | None]:
    """The arguments as one checked game setup (or the resumed journal's), before any audio work."""
    from voicehost.host.dealing import typed_pairs
    from voicehost.host.journal import load_journal
    from voicehost.host.live import parse_options, setup_of_journal
    from voicehost.host.setup import CLI_PLACES, SetupRequest, audio_choice, check_setup
    from voicehost.host.table_file import table_path

    audio_choice(args.judge_audio, "--judge-audio")
    if args.resume:
        if tournament_of(args) is not None:
            raise InputError("--tournament", _("a resumed game keeps the tournament place its journal has"))
        read = load_journal(args.resume)
        return setup_of_journal(read, args.table, args.audio), read
    roles = args.roles
    deal = "host" if not roles else "taps" if roles == "taps" else "typed"
    request = SetupRequest(ruleset=args.rules, options=parse_options(args.option or []),
                           names=typed_pairs(args.names, "--names"), deal=deal, cards=roles, seed=args.deal,
                           table=args.table if args.table is not None else table_path(None),
                           journal=args.journal or default_journal(), audio=args.audio,
                           tournament=tournament_of(args), places=CLI_PLACES)
    return check_setup(request), None


def default_journal() -> Path:
    """``game-DATE.jsonl`` in the data folder's journals."""
    import time

    from voicehost.config import journals_dir

    return journals_dir() / f"game-{time.strftime('%Y%m%d-%H%M%S')}.jsonl"
