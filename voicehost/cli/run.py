"""``voicehost run``: host a game at the real table (the wiring lives in :mod:`voicehost.host.live`)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

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
from voicehost.i18n import _
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
    if setup.tournament is not None:   # a resumed game reports at its journal's place: the screen's same table
        args.tournament, args.round, args.tournament_table = (setup.tournament["name"], setup.tournament["round"],
                                                              setup.tournament["table"])
    where = table_records(setup.table) if setup.table is not None else TableRecords("table")
    around = with_club(args, where.table, web_around(args, args.table))
    return run(setup, resumed, mock=args.mock, ears=not args.no_ears, speed=args.speed, transcript=args.transcript,
               on_results=protocol_hook(setup.table, args.db), around=around, judge_audio=args.judge_audio)


def run_setup(args: argparse.Namespace) -> tuple[GameSetup, JournalFile | None]:
    """The arguments as one checked game setup (or the resumed journal's), before any audio work."""
    from voicehost.host.dealing import typed_pairs
    from voicehost.host.journal import load_journal
    from voicehost.host.live import parse_options, setup_of_journal
    from voicehost.host.setup import CLI_PLACES, SetupRequest, audio_choice, check_setup, tournament_place
    from voicehost.host.table_file import table_path

    audio_choice(args.judge_audio, "--judge-audio")
    if args.resume:
        read = load_journal(args.resume)
        setup = setup_of_journal(read, args.table, args.audio)
        given = tournament_of(args)
        kept = dict(setup.tournament) if setup.tournament is not None else None
        if given is not None and given != kept:
            raise InputError("--tournament", _("a resumed game keeps the tournament place its journal has ({place})")
                             .format(place=_place_text(kept)))
        return setup, read
    roles = args.roles
    deal = "host" if not roles else "taps" if roles == "taps" else "typed"
    table = args.table if args.table is not None else table_path(None)
    place = tournament_place(tournament_of(args), CLI_PLACES.tournament)
    names = typed_pairs(args.names, "--names")
    if place is not None:
        names = seated_names(place, names, records_url(args.db, table_path(args.table)))
    request = SetupRequest(ruleset=args.rules, options=parse_options(args.option or []),
                           names=names, deal=deal, cards=roles, seed=args.deal, table=table,
                           journal=args.journal or default_journal(), audio=args.audio,
                           tournament=place, places=CLI_PLACES)
    setup = check_setup(request)
    if place is not None and not args.names:
        print(seating_line(place, setup.names), file=sys.stderr, flush=True)
    return setup, None


def _place_text(place: Mapping[str, Any] | None) -> str:
    if place is None:
        return _("none")
    return _("{name}, round {round}, table {table}").format(**place)


def records_url(db: str | None, table: Path) -> str | None:
    """Where the tournament's schedule is kept: the club server of the table file's ``[records]``,
    else ``--db``, else the table's own records."""
    from voicehost.records.table import table_records

    if table.is_file():
        club = table_records(table).club_url
        if club is not None:
            return club
    return db


def seated_names(place: Mapping[str, Any], typed: list[tuple[str, str]], url: str | None) -> list[tuple[str, str]]:
    """The names the stored schedule seats at this round and table. ``--names`` overrides it
    (with a warning where they differ); without it, a tournament the records do not know, or a
    round and table its schedule does not have, is refused: a table never plays unnamed seats
    for a tournament."""
    try:
        seats = stored_seats(place, url)
    except InputError:
        if typed:
            return typed
        raise
    if seats is None:
        if typed:
            return typed
        raise InputError("--tournament-table", _("the schedule of {name!r} has no table {table} in round {round} "
                                                 "(give the place the plan gives, or --names)").format(**place))
    planned = [(str(seat), name) for seat, name in seats.items()]
    if typed and dict(typed) != dict(planned):
        print(_("warning: --names replaces the schedule's players at round {round}, table {table}: {names}").format(
            names=", ".join(f"{seat}. {name}" for seat, name in planned), **place), file=sys.stderr, flush=True)
    return typed or planned


def stored_seats(place: Mapping[str, Any], url: str | None) -> dict[int, str] | None:
    """The stored schedule's seats at this round and table (None: the schedule has no such
    table); a tournament the records do not know is refused (InputError)."""
    from voicehost.records.store import open_records
    from voicehost.records.tournament import load_tournament

    with open_records(url) as db:
        schedule = load_tournament(db, place["name"]).schedule
    return schedule.get(place["round"], {}).get(place["table"])


def schedule_seating(url: str | None) -> Callable[[Mapping[str, Any]], dict[int, str]]:
    """``serve``'s lookup for each new game: the schedule's seats, or none when the records
    have no such tournament or place (the table then plays as the judge names it)."""
    def seating(place: Mapping[str, Any]) -> dict[int, str]:
        try:
            return stored_seats(place, url) or {}
        except InputError:
            return {}
    return seating


def seating_line(place: Mapping[str, Any], names: Mapping[int, str]) -> str:
    """What the terminal says at the start: the place and who sits where, from the schedule."""
    return _("{name}, round {round}, table {table}, from the schedule: {seats}").format(
        seats=", ".join(f"{seat}. {name}" for seat, name in sorted(names.items())), **place)


def default_journal() -> Path:
    """``game-DATE.jsonl`` in the data folder's journals."""
    import time

    from voicehost.config import journals_dir

    return journals_dir() / f"game-{time.strftime('%Y%m%d-%H%M%S')}.jsonl"
