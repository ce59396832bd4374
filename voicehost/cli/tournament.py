"""``voicehost tournament …``: a tournament evening, kept in the club records (see
:mod:`voicehost.records.tournament`): ``create`` it with its schedule, scoring scheme and
tie-breaks, ``list`` and ``show`` it, follow its ``standings`` and ``export`` its results and
games for the rating sites. Every subcommand takes ``--db URL`` like ``voicehost records``.

``plan`` makes the seating (:mod:`voicehost.tournament.plan`), ``screen`` shows every table live
(:mod:`voicehost.web.club`). Each subcommand is added by a
function of its own, so the group grows without its commands touching each other."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from voicehost.cli.args import Commands, positive, print_json
from voicehost.cli.sites import (
    add_set_command,
    add_site_options,
    add_upload_command,
    check_site_options,
    store_site_options,
)
from voicehost.cli.tournament_results import add_result_commands
from voicehost.cli.tournament_screen import add_screen_command
from voicehost.i18n import N_, _, ngettext
from voicehost.rules import InputError

if TYPE_CHECKING:
    from voicehost.records.reader import Reader
    from voicehost.records.store import Records
    from voicehost.tournament.plan import Balance, Plan

# SQLAlchemy loads only when a tournament command writes: reading is plain SQL (voicehost.records.reader).

DB_HELP = N_("sqlite:///FILE or postgresql://USER@HOST/DB (default: records.sqlite in the data dir)")
# voicehost.records.tournament's EXPORT_FORMATS and DEFAULT_TIE_BREAKS (a test holds them equal), here so
# that building the parser imports none of the records.
EXPORT_FORMATS = ("mafiaratings", "mafiaratings-json", "polemica", "json", "csv", "games-csv", "html")
DEFAULT_TIE_BREAKS = "points,extras,wins,special_wins,killed_first"


def add_commands(commands: Commands) -> None:
    group = commands.add_parser("tournament",
                                help=_("a tournament: its seating plan, schedule, standings, export and screen"))
    sub = group.add_subparsers(dest="tournament_command", required=True, parser_class=type(group))
    add_plan_command(sub)
    add_record_commands(sub)
    add_screen_command(sub)


def add_plan_command(sub: Any) -> None:
    plan = sub.add_parser("plan", help=_("the seating: round, table, seat and player, balanced"))
    plan.add_argument("--players", type=positive, default=None,
                      help=_("how many players (default: as many as --names lists)"))
    plan.add_argument("--tables", type=positive, required=True, help=_("tables of 10 seats played at once"))
    plan.add_argument("--rounds", type=positive, required=True, help=_("rounds of the tournament"))
    plan.add_argument("--seed", type=int, default=1, help=_("the same seed, the same plan (default 1)"))
    plan.add_argument("--names", default=None, metavar=_("FILE"),
                      help=_("the player list: one name per line; blank lines and # comments are skipped"))
    plan.add_argument("--random", action="store_true",
                      help=_("a plain random shuffle instead, to compare its balance"))
    plan.add_argument("--json", action="store_true", help=_("the plan and its figures as JSON"))
    plan.set_defaults(run=_plan)


def player_names(args: argparse.Namespace) -> list[str]:
    """The names from ``--names``, or numbered players; their count agrees with ``--players``.
    A size that cannot be planned is refused before any name is made."""
    if args.names is None:
        if args.players is None:
            raise InputError("--players", _("give the number of players or a player list (--names FILE)"))
        _check_size(args.players, args)
        return [_("player {number}").format(number=n) for n in range(1, args.players + 1)]
    from voicehost.files import read_text
    from voicehost.tournament.players import parse_names

    names = parse_names(read_text(args.names, "player list"), args.names)
    if args.players is not None and args.players != len(names):
        raise InputError(args.names, _("it lists {count} players, --players says {players}").format(
            count=len(names), players=args.players))
    return names


def _check_size(players: int, args: argparse.Namespace) -> None:
    from voicehost.tournament.plan import check_size

    problem = check_size(players, args.tables, args.rounds)
    if problem is not None:
        raise InputError(*problem)


def _plan(args: argparse.Namespace) -> int:
    from voicehost.tournament.plan import balance, plan_tournament, random_plan

    names = player_names(args)
    _check_size(len(names), args)
    make = random_plan if args.random else plan_tournament
    plan = make(len(names), args.tables, args.rounds, args.seed)
    figures = balance(plan)
    shuffled = figures if args.random else balance(random_plan(len(names), args.tables, args.rounds, args.seed))
    if args.json:
        print_json(plan_json(plan, names, args, figures, shuffled))
        return 0
    for line in plan_lines(plan, names):
        print(line)
    print()
    print(_("Balance ({method}): players {players}, tables {tables}, rounds {rounds}, seed {seed}").format(
        method=_("random shuffle") if args.random else _("optimised plan"), players=len(names), tables=args.tables,
        rounds=args.rounds, seed=args.seed))
    for line in balance_lines(figures):
        print("  " + line)
    if not args.random:
        print("  " + _("a random shuffle with the same seed: {figures}").format(figures=short_figures(shuffled)))
    return 0


def plan_json(plan: Plan, names: list[str], args: argparse.Namespace, figures: Balance,
              shuffled: Balance) -> dict[str, Any]:
    return {"players": names, "tables": args.tables, "rounds": args.rounds, "seed": args.seed,
            "method": "random" if args.random else "optimised",
            "schedule": [{"round": r, "tables": [{"table": t, "seats": [{"seat": s, "player": names[p]}
                                                                        for s, p in enumerate(game, start=1)]}
                                                 for t, game in enumerate(games, start=1)],
                          "sitting_out": [names[p] for p in plan.sitting_out[r - 1]]}
                         for r, games in enumerate(plan.rounds, start=1)],
            "balance": figures.as_dict(), "random_balance": shuffled.as_dict()}


def plan_lines(plan: Plan, names: list[str]) -> list[str]:
    """The plan as an organiser reads it: each round, each table's seats in order, the sit-outs."""
    lines: list[str] = []
    for r, games in enumerate(plan.rounds, start=1):
        lines.append(_("Round {number} of {rounds}").format(number=r, rounds=len(plan.rounds)))
        for t, game in enumerate(games, start=1):
            seats = ", ".join(f"{s}. {names[p]}" for s, p in enumerate(game, start=1))
            lines.append("  " + _("Table {number} — {seats}").format(number=t, seats=seats))
        if plan.sitting_out[r - 1]:
            lines.append("  " + _("Sitting out: {names}").format(
                names=", ".join(names[p] for p in plan.sitting_out[r - 1])))
    return lines


def balance_lines(figures: Balance) -> list[str]:
    """The balance figures, each against its target."""
    seat = ngettext("the same seat at most {count} time", "the same seat at most {count} times",
                    figures.same_seat_max).format(count=figures.same_seat_max)
    return [_("games per player: min {low}, max {high}").format(low=figures.games_min, high=figures.games_max),
            _("meetings per pair: min {low}, max {high} (average {average:.2f}; no plan can do better than "
              "{bound}, this one is {above} above it; target: at most {target})").format(
                low=figures.meetings_min, high=figures.meetings_max, average=figures.meetings_average,
                bound=figures.meetings_bound, above=figures.above_bound, target=figures.meetings_target),
            _("seats: {seat}; every player who plays gets at least {used} different seats").format(
                seat=seat, used=figures.seats_used_min)]


def short_figures(figures: Balance) -> str:
    return _("games {games_low}–{games_high}, meetings {low}–{high}, most in one seat {seat}").format(
        games_low=figures.games_min, games_high=figures.games_max, low=figures.meetings_min,
        high=figures.meetings_max, seat=figures.same_seat_max)


# The sizes the bench measures: the clubs' usual evenings, players/tables/rounds.
BENCH_SIZES = ((30, 3, 10), (20, 2, 10), (27, 2, 10), (60, 6, 12), (40, 4, 8))


def bench_plan(repeat: int = 3, seed: int = 1) -> list[str]:
    """``voicehost bench plan``: the planning time for 60 players, 6 tables and 12 rounds (CPU
    time, the best of ``repeat`` runs), and the balance against a plain shuffle at the usual
    sizes, over ten seeds each, with the lower bound of the most-met pair."""
    from voicehost.tournament.plan import balance, plan_tournament, random_plan

    times = []
    for _run in range(repeat):
        start = time.process_time()
        plan_tournament(60, 6, 12, seed)
        times.append(time.process_time() - start)
    lines = [_("plan: 60 players, 6 tables, 12 rounds planned in {seconds:.2f} s CPU (the best of {repeat})").format(
        seconds=min(times), repeat=repeat)]
    for size in BENCH_SIZES:
        seeds = range(seed, seed + 10)
        for method, make in ((_("optimised plan"), plan_tournament), (_("random shuffle"), random_plan)):
            worst = [balance(make(*size, s)) for s in seeds]
            lines.append(_("plan: {players}/{tables}/{rounds}, {method}, the worst of 10 seeds: games {games_low}–"
                           "{games_high}, meetings max {high} (the best of 10 {low}; lower bound {bound}, target "
                           "{target}), most in one seat {seat}")
                         .format(players=size[0], tables=size[1], rounds=size[2], method=method,
                                 games_low=min(b.games_min for b in worst), games_high=max(b.games_max for b in worst),
                                 high=max(b.meetings_max for b in worst), low=min(b.meetings_max for b in worst),
                                 bound=worst[0].meetings_bound, target=worst[0].meetings_target,
                                 seat=max(b.same_seat_max for b in worst)))
    return lines


def add_record_commands(sub: Any) -> None:
    """The subcommands that keep a tournament in the club records."""
    add_create_command(sub)
    add_list_command(sub)
    add_show_command(sub)
    add_standings_command(sub)
    add_export_command(sub)
    add_result_commands(sub)
    add_set_command(sub, _with_db)      # the rating sites (voicehost.cli.sites)
    add_upload_command(sub, _with_db)


def _with_db(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    parser.add_argument("--db", default=None, metavar="URL", help=_(DB_HELP))
    return parser


def add_create_command(sub: Any) -> None:
    create = _with_db(sub.add_parser("create", help=_("a new tournament: its schedule, scoring scheme and tie-breaks")))
    create.add_argument("name", metavar=_("NAME"))
    create.add_argument("--scoring", required=True, metavar=_("SCHEME"),
                        help=_("the scoring scheme (a [scoring.NAME] of config/rules, e.g. seed001)"))
    create.add_argument("--schedule", default=None, metavar=_("FILE.json"),
                        help=_("round → table → seat → player (tournament plan --json writes one)"))
    create.add_argument("--players", default=None, metavar=_("FILE"), help=_("the players, one name a line"))
    create.add_argument("--tie-breaks", default=DEFAULT_TIE_BREAKS, metavar="A,B,…",
                        help=_("the standings' order (default mafiaratings': points, extras, wins, special_wins, "
                             "killed_first); also bonus, best_move, penalty, ci, best_player, sheriff_games, "
                             "sheriff_wins, don_wins, red_wins, black_wins, fouls (fewer first)"))
    add_site_options(create)
    create.set_defaults(run=_create)


def add_list_command(sub: Any) -> None:
    listed = _with_db(sub.add_parser("list", help=_("the tournaments in the records")))
    listed.set_defaults(run=_list)


def add_show_command(sub: Any) -> None:
    show = _with_db(sub.add_parser("show", help=_("a tournament's players, schedule and games played")))
    show.add_argument("name", metavar=_("NAME"))
    show.add_argument("--json", action="store_true")
    show.set_defaults(run=_show)


def add_standings_command(sub: Any) -> None:
    table = _with_db(sub.add_parser("standings", help=_("the standings, from the stored protocols")))
    table.add_argument("name", metavar=_("NAME"))
    table.add_argument("--json", action="store_true")
    table.add_argument("--round", type=positive, default=None, metavar="N",
                       help=_("the standings as of round N (its games and the rounds before)"))
    table.add_argument("--html", nargs="?", const="standings.html", default=None, metavar=_("OUT.html"),
                       help=_("also write the table as a page to print (default file: standings.html)"))
    table.set_defaults(run=_standings)


def add_export_command(sub: Any) -> None:
    export = _with_db(sub.add_parser("export", help=_("results and games for the rating sites")))
    export.add_argument("name", metavar=_("NAME"))
    export.add_argument("--format", choices=EXPORT_FORMATS, required=True)
    export.add_argument("--out", default=None, metavar=_("FILE"), help=_("a file (default: standard output)"))
    export.set_defaults(run=_export)


def _open(url: str | None) -> Records:
    from voicehost.records.store import open_records

    return open_records(url)


def _read(url: str | None) -> Reader | Records:
    """The records to read, in plain SQL while the schema is current (:mod:`voicehost.records.reader`)."""
    from voicehost.records.opening import open_reader

    return open_reader(url)


def read_players(path: str) -> list[str]:
    """A player list: one name a line; blank lines and ``#`` comments left out (the rules of
    ``tournament plan --names``: each name once, no control or direction characters)."""
    from voicehost.files import read_text
    from voicehost.tournament.players import parse_names

    return parse_names(read_text(path, "player list"), path)


def _create(args: argparse.Namespace) -> int:
    from voicehost.records.tournament import create_tournament, new_tournament, read_schedule

    schedule, players = read_schedule(Path(args.schedule)) if args.schedule else ({}, [])
    if args.players:
        players = [*read_players(args.players), *players]
    tournament = new_tournament(args.name, args.scoring, args.tie_breaks, schedule, players)
    check_site_options(args)   # a bad id refuses the whole tournament: nothing is stored
    with _open(args.db) as db:
        create_tournament(db, tournament)
        store_site_options(db, tournament.name, args)
        seated, rounds = len(tournament.players), len(tournament.schedule)
        line = _("tournament {name!r} created in {url}: {players}, {rounds}, scoring {scheme}, tie-breaks {order}")
        print(line.format(
            name=tournament.name, url=db.url, scheme=tournament.scoring, order=", ".join(tournament.tie_breaks),
            players=ngettext("{count} player", "{count} players", seated).format(count=seated),
            rounds=ngettext("{count} round", "{count} rounds", rounds).format(count=rounds)))
    return 0


def _list(args: argparse.Namespace) -> int:
    from voicehost.records.tournament import tournament_names

    with _read(args.db) as db:
        names = tournament_names(db)
    for name in names:
        print(name)
    print(ngettext("{count} tournament", "{count} tournaments", len(names)).format(count=len(names)))
    return 0


def _show(args: argparse.Namespace) -> int:
    from voicehost.records.tournament import load_tournament, played_games, schedule_json

    with _read(args.db) as db:
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

    with _read(args.db) as db:
        result = tournament_standings(db, args.name, args.round)
    if args.html is not None:
        _write(args.html, standings_html(result))
    if args.json:
        print_json(result.as_dict())
        return 0
    print(result.tournament.name if args.round is None else _("{name}, as of round {round}").format(
        name=result.tournament.name, round=args.round))
    for line in standings_lines(result):
        print(line)
    if args.html is not None:
        print(_("the page to print: {path}").format(path=args.html))
    return 0


def _export(args: argparse.Namespace) -> int:
    from voicehost.records.sites.export import export_text

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
