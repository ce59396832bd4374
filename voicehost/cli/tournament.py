"""``voicehost tournament …``: a tournament evening in the club records (see
:mod:`voicehost.records.tournament`): ``create`` it with its schedule, scoring scheme and
tie-breaks, ``list`` and ``show`` it, follow its ``standings`` and ``export`` its results and
games for the rating sites. Every subcommand takes ``--db URL`` like ``voicehost records``.

Each subcommand is added by a function of its own, so the tournament's other commands (the
planner, ``tournament plan``) join the same group."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from voicehost.cli.args import Commands, print_json
from voicehost.language.i18n import _, ngettext
from voicehost.rules import InputError

if TYPE_CHECKING:
    from voicehost.records.store import Records

# SQLAlchemy loads only when a tournament command runs.

DB_HELP = "sqlite:///FILE or postgresql://USER@HOST/DB (default: records.sqlite in the data dir)"
# voicehost.records.tournament's EXPORT_FORMATS and DEFAULT_TIE_BREAKS (a test holds them equal), here so
# that building the parser imports none of the records.
EXPORT_FORMATS = ("mafiaratings", "polemica", "json", "csv", "games-csv", "html")
DEFAULT_TIE_BREAKS = "points,bonus,wins,sheriff_games"


def add_commands(commands: Commands) -> None:
    group = commands.add_parser("tournament", help="a tournament: its schedule, standings and export")
    sub = group.add_subparsers(dest="tournament_command", required=True, parser_class=type(group))
    add_record_commands(sub)


def add_record_commands(sub: Any) -> None:
    """The subcommands that keep a tournament in the club records."""
    add_create_command(sub)
    add_list_command(sub)
    add_show_command(sub)
    add_standings_command(sub)
    add_export_command(sub)


def _with_db(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    parser.add_argument("--db", default=None, metavar="URL", help=DB_HELP)
    return parser


def add_create_command(sub: Any) -> None:
    create = _with_db(sub.add_parser("create", help="a new tournament: its schedule, scoring scheme and tie-breaks"))
    create.add_argument("name", metavar="NAME")
    create.add_argument("--scoring", required=True, metavar="SCHEME",
                        help="the scoring scheme (a [scoring.NAME] of config/rules, e.g. seed001)")
    create.add_argument("--schedule", default=None, metavar="FILE.json",
                        help="round → table → seat → player (tournament plan --json writes one)")
    create.add_argument("--players", default=None, metavar="FILE", help="the players, one name a line")
    create.add_argument("--tie-breaks", default=DEFAULT_TIE_BREAKS, metavar="A,B,…",
                        help="the standings' order: points, bonus, wins, best_player, sheriff_games, sheriff_wins, "
                             "don_wins, red_wins, black_wins, fouls (fewer first)")
    create.set_defaults(run=_create)


def add_list_command(sub: Any) -> None:
    listed = _with_db(sub.add_parser("list", help="the tournaments in the records"))
    listed.set_defaults(run=_list)


def add_show_command(sub: Any) -> None:
    show = _with_db(sub.add_parser("show", help="a tournament's players, schedule and games played"))
    show.add_argument("name", metavar="NAME")
    show.add_argument("--json", action="store_true")
    show.set_defaults(run=_show)


def add_standings_command(sub: Any) -> None:
    table = _with_db(sub.add_parser("standings", help="the standings, from the stored protocols"))
    table.add_argument("name", metavar="NAME")
    table.add_argument("--json", action="store_true")
    table.add_argument("--html", default=None, metavar="OUT.html", help="also write the table as a page to print")
    table.set_defaults(run=_standings)


def add_export_command(sub: Any) -> None:
    export = _with_db(sub.add_parser("export", help="results and games for the rating sites"))
    export.add_argument("name", metavar="NAME")
    export.add_argument("--format", choices=EXPORT_FORMATS, required=True)
    export.add_argument("--out", default=None, metavar="FILE", help="a file (default: standard output)")
    export.set_defaults(run=_export)


def _open(url: str | None) -> Records:
    from voicehost.records.store import open_records

    return open_records(url)


def read_players(path: str) -> list[str]:
    """A player list: one name a line; blank lines and ``#`` comments left out."""
    from voicehost.files import read_text

    return [line.strip() for line in read_text(path, "player list").splitlines()
            if line.strip() and not line.strip().startswith("#")]


def _create(args: argparse.Namespace) -> int:
    from voicehost.records.tournament import create_tournament, new_tournament, read_schedule

    schedule, players = read_schedule(Path(args.schedule)) if args.schedule else ({}, [])
    if args.players:
        players = [*read_players(args.players), *players]
    tournament = new_tournament(args.name, args.scoring, args.tie_breaks, schedule, players)
    with _open(args.db) as db:
        create_tournament(db, tournament)
        seated, rounds = len(tournament.players), len(tournament.schedule)
        line = _("tournament {name!r} created in {url}: {players}, {rounds}, scoring {scheme}, tie-breaks {order}")
        print(line.format(
            name=tournament.name, url=db.url, scheme=tournament.scoring, order=", ".join(tournament.tie_breaks),
            players=ngettext("{count} player", "{count} players", seated).format(count=seated),
            rounds=ngettext("{count} round", "{count} rounds", rounds).format(count=rounds)))
    return 0


def _list(args: argparse.Namespace) -> int:
    from voicehost.records.tournament import tournament_names

    with _open(args.db) as db:
        names = tournament_names(db)
    for name in names:
        print(name)
    print(ngettext("{count} tournament", "{count} tournaments", len(names)).format(count=len(names)))
    return 0


def _show(args: argparse.Namespace) -> int:
    from voicehost.records.tournament import load_tournament, played_games, schedule_json

    with _open(args.db) as db:
        tournament = load_tournament(db, args.name)
        games = played_games(db, args.name)
    played = {(g.place.round, g.place.table): g for g in games}
    if args.json:
        print_json({"name": tournament.name, "scoring": tournament.scoring, "tie_breaks": list(tournament.tie_breaks),
                    "players": list(tournament.players), **schedule_json(tournament.schedule),
                    "played": [{"round": r, "table": t, "game": str(g.id)} for (r, t), g in sorted(played.items())]})
        return 0
    count = len(tournament.players)
    print(_("{name}: scoring {scheme}, tie-breaks {order}; {players}").format(
        name=tournament.name, scheme=tournament.scoring, order=", ".join(tournament.tie_breaks),
        players=ngettext("{count} player", "{count} players", count).format(count=count)))
    for round_no, tables in sorted(tournament.schedule.items()):
        for table, seats in sorted(tables.items()):
            game = played.get((round_no, table))
            state = str(game.id)[:8] if game else _("not played")
            roster = " ".join(f"{seat}:{name}" for seat, name in seats.items())
            print(_("round {round} table {table} [{state}]: {roster}").format(
                round=round_no, table=table, state=state, roster=roster))
    print(ngettext("{count} game played", "{count} games played", len(games)).format(count=len(games)))
    return 0


def _standings(args: argparse.Namespace) -> int:
    from voicehost.records.tournament import standings_html, standings_lines, tournament_standings

    with _open(args.db) as db:
        result = tournament_standings(db, args.name)
    if args.html is not None:
        _write(args.html, standings_html(result))
    if args.json:
        print_json(result.as_dict())
        return 0
    print(result.tournament.name)
    for line in standings_lines(result):
        print(line)
    if args.html is not None:
        print(_("the page to print: {path}").format(path=args.html))
    return 0


def _export(args: argparse.Namespace) -> int:
    from voicehost.records.tournament import export_text

    with _open(args.db) as db:
        text = export_text(db, args.name, args.format)
    if args.out is None:
        sys.stdout.write(text)
        return 0
    _write(args.out, text)
    print(_("exported {name!r} ({form}) to {path}").format(name=args.name, form=args.format, path=args.out))
    return 0


def _write(path: str, text: str) -> None:
    try:
        Path(path).write_text(text, encoding="utf-8")
    except OSError as err:
        raise InputError(path, _("cannot write it ({why})").format(why=err.strerror or err)) from None
