"""``voicehost records …``: the club's game history, players and ratings (see
:mod:`voicehost.records`). Every command takes ``--db URL`` (default: the SQLite file in the
data dir); bad URLs, unreachable servers and malformed files end in one line and exit 2."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from voicehost.cli.args import Commands, positive, print_json
from voicehost.cli.records_history import add_show_command
from voicehost.i18n import _, ngettext
from voicehost.language.record_words import record_word, result_words
from voicehost.rules import InputError

if TYPE_CHECKING:
    from datetime import datetime

    from voicehost.records.games import GameRecord
    from voicehost.records.reader import Reader
    from voicehost.records.store import Records

# SQLAlchemy and Alembic load only when a records command writes (or finds the schema behind), matplotlib
# only when one draws: reading is plain SQL (voicehost.records.reader).


def open_records(url: str | None) -> Records:
    from voicehost.records.store import open_records as open_db

    return open_db(url)


def read_records(url: str | None) -> Reader | Records:
    """The records to read: plain SQL without SQLAlchemy or Alembic while the schema is current
    (:mod:`voicehost.records.reader`); migrated first, through the writing path, if it is not."""
    from voicehost.records.opening import open_reader

    return open_reader(url)


def season_seats(url: str | None, season: tuple[datetime | None, datetime | None]) -> list[dict[str, Any]]:
    """The season's named seats in the order played, set-wise (what Elo and OpenSkill read)."""
    from voicehost.records.reading import game_seats

    with read_records(url) as db:
        return game_seats(db, *season)


def add_commands(commands: Commands) -> None:
    records = commands.add_parser("records", help=_("the club's games, players and ratings (SQLite or PostgreSQL)"))
    sub = records.add_subparsers(dest="records_command", required=True, parser_class=type(records))

    imp = _with_db(sub.add_parser("import", help=_("protocols (*.json) and journals (*.jsonl) into the records")))
    imp.add_argument("files", nargs="+", metavar=_("FILE"), help=_("the protocols and journals to import"))
    imp.add_argument("--table", default=None, help=_("the table name the games carry"))
    imp.add_argument("--from", dest="site", choices=["mafiaratings", "polemica"], default=None,
                     help=_("the files are a rating site's game records (JSON, a list, or one game a line)"))
    imp.set_defaults(run=_import)

    history = _with_db(sub.add_parser("games", help=_("the game history, oldest first")))
    history.add_argument("--player", default=None, metavar=_("NICK"), help=_("only games this player played"))
    history.add_argument("--since", type=day, default=None, metavar=_("DATE"), help=_("YYYY-MM-DD"))
    history.add_argument("--json", action="store_true")
    history.set_defaults(run=_games)

    table = _with_db(sub.add_parser("ratings", help=_("per player: games, wins, win rate by role, points, fouls")))
    _season(table)
    table.add_argument("--json", action="store_true")
    table.set_defaults(run=_ratings)

    add_elo_command(sub)
    add_show_command(sub)
    add_rating_command(sub)

    export = _with_db(sub.add_parser("export", help=_("every game seat by seat (csv) or whole (json)")))
    export.add_argument("--format", choices=["csv", "json"], required=True)
    export.add_argument("--out", default=None, help=_("a file (default: standard output)"))
    _season(export, scoring=False)
    export.set_defaults(run=_export)

    chart = _with_db(sub.add_parser("chart", help=_("the top players' points over the season, as a PNG")))
    chart.add_argument("out", metavar=_("OUT.png"))
    chart.add_argument("--top", type=positive, default=8, help=_("how many players (default 8)"))
    _season(chart)
    chart.set_defaults(run=_chart)

    send = _with_db(sub.add_parser("push", help=_("send this table's finished games to the club server")))
    target = send.add_mutually_exclusive_group(required=True)
    target.add_argument("--table", default=None, help=_("the table file whose [records] url is the club server"))
    target.add_argument("--to", default=None, metavar="URL", help=_("the club server (postgresql://…)"))
    send.add_argument("--all", action="store_true", help=_("every queued game now, whatever its retry time"))
    send.add_argument("--watch", action="store_true", help=_("keep retrying with backoff until the outbox is empty"))
    send.set_defaults(run=_push)

    best = _with_db(sub.add_parser("best", help=_("the table's best-player vote of a game (+2 under seed001)")))
    best.add_argument("game", metavar=_("game"), help=_("the game id (its first characters are enough)"))
    best.add_argument("who", metavar=_("who"), help=_("the seat number or the nickname"))
    best.add_argument("--table", default=None, help=_("queue the change for this table file's club server"))
    best.set_defaults(run=_best)


def add_elo_command(sub: Any) -> None:
    from voicehost.i18n import _

    elo = _with_db(sub.add_parser("elo", help=_("an Elo rating that weighs the opponents, overall and per side")))
    _season(elo, scoring=False)
    elo.add_argument("--chart", default=None, metavar=_("OUT.png"), help=_("also draw the top players' ratings"))
    elo.add_argument("--top", type=positive, default=8, help=_("how many players the chart draws (default 8)"))
    elo.add_argument("--json", action="store_true")
    elo.set_defaults(run=_elo)


def add_rating_command(sub: Any) -> None:
    rating = _with_db(sub.add_parser("rating", help=_("a rating system: openskill (a team-aware rating with its "
                                                      "uncertainty) or elo")))
    rating.add_argument("--system", choices=["openskill", "elo"], default="openskill")
    _season(rating, scoring=False)
    rating.add_argument("--chart", default=None, metavar=_("OUT.png"), help=_("also draw the top players' ratings"))
    rating.add_argument("--top", type=positive, default=8, help=_("how many players the chart draws (default 8)"))
    rating.add_argument("--json", action="store_true")
    rating.set_defaults(run=_rating)


def _rating(args: argparse.Namespace) -> int:
    if args.system == "elo":
        return _elo(args)
    from voicehost.records.openskill_rating import SIDES, draw_openskill, openskill_ratings

    rows = season_seats(args.db, args.season)
    table = openskill_ratings(rows)
    if args.json:
        print_json([rating.as_dict() for rating in table])
    else:
        titles = {"red": _("as red"), "black": _("as black")}   # outside the f-string: Babel extracts no call there
        print(_("  #  player               games  rating   mu ± sigma") + "  " + "  ".join(
            f"{titles[side]:>22}" for side in SIDES))
        for place, rating in enumerate(table, start=1):
            s = rating.overall
            cells = [f"{k.mu:>6.2f} ± {k.sigma:>5.2f} ({k.games:>3})" if (k := rating.sides.get(side)) else f"{'-':>22}"
                     for side in SIDES]
            print(f"{place:>3}  {rating.player:<20} {s.games:>5} {s.ordinal:>7.2f} {s.mu:>6.2f} ± {s.sigma:>5.2f}  "
                  + "  ".join(cells))
    if args.chart is not None:
        leaders = draw_openskill(rows, Path(args.chart), args.top)
        print(_("{out}: the OpenSkill rating of {count} player(s): {names}").format(
            out=args.chart, count=len(leaders), names=", ".join(leaders)), file=sys.stderr if args.json else sys.stdout)
    return 0


def _elo(args: argparse.Namespace) -> int:
    from voicehost.i18n import _
    from voicehost.records.elo import SIDES, draw_elo, elo_ratings

    rows = season_seats(args.db, args.season)
    table = elo_ratings(rows)
    if args.json:
        print_json([rating.as_dict() for rating in table])
    else:
        played = {side for rating in table for side in rating.sides}
        sides = [side for side in SIDES if side in played] + sorted(played - set(SIDES))
        print(_("  #  player               games  wins     Elo") + "  "
              + "  ".join(f"{_(SIDES.get(side, side)):>15}" for side in sides))
        for place, rating in enumerate(table, start=1):
            cells = [f"{s.rating:>9.1f} ({s.games:>3})" if (s := rating.sides.get(side)) else f"{'-':>15}"
                     for side in sides]
            print(f"{place:>3}  {rating.player:<20} {rating.games:>5} {rating.wins:>5} {rating.rating:>7.1f}  "
                  + "  ".join(cells))
    if args.chart is not None:
        leaders = draw_elo(rows, Path(args.chart), args.top)
        print(_("{out}: the Elo rating of {count} player(s): {names}").format(
            out=args.chart, count=len(leaders), names=", ".join(leaders)), file=sys.stderr if args.json else sys.stdout)
    return 0


def _with_db(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    parser.add_argument("--db", default=None, metavar="URL",
                        help=_("sqlite:///FILE or postgresql://USER@HOST/DB (default: records.sqlite in the data dir)"))
    return parser


def _season(parser: argparse.ArgumentParser, scoring: bool = True) -> None:
    parser.add_argument("--season", type=season, default=(None, None), metavar=_("FROM..TO"),
                        help=_("dates YYYY-MM-DD, both included; either side may be left out"))
    if scoring:
        parser.add_argument("--scoring", default=None, metavar=_("NAME"),
                            help=_("rate every game under one scheme (seed001, showtime); default: as played"))


def day(text: str) -> datetime:
    from datetime import datetime

    try:
        return datetime.strptime(text, "%Y-%m-%d")
    except ValueError:
        raise argparse.ArgumentTypeError(_("{text!r} is not a date YYYY-MM-DD").format(text=text)) from None


def season(text: str) -> tuple[datetime | None, datetime | None]:
    """``FROM..TO`` → [FROM, TO + 1 day): the last day counts whole."""
    from datetime import timedelta

    start, dots, end = text.partition("..")
    if not dots:
        raise argparse.ArgumentTypeError(_("{text!r} is not FROM..TO (e.g. 2026-09-01..2026-12-31)").format(text=text))
    return (day(start) if start else None), (day(end) + timedelta(days=1) if end else None)


def _import(args: argparse.Namespace) -> int:
    from voicehost.records.games import read_record
    from voicehost.records.reader import no_gc

    if args.site is not None:
        return _import_site(args)

    with no_gc():   # thousands of protocols without cycles: see Records.add
        records = [read_record(Path(name), args.table) for name in args.files]  # all parsed before anything is written
    with open_records(args.db) as db:
        added = db.add(records)
        print(ngettext("imported {added} new game of {count} into {url}",
                       "imported {added} new games of {count} into {url}",
                       added).format(added=added, count=len(records), url=db.url))
    return 0


def _import_site(args: argparse.Namespace) -> int:
    from voicehost.records.sites.imports import import_site

    with open_records(args.db) as db:
        report = import_site(db, args.site, [Path(name) for name in args.files])
        print(ngettext("{site}: imported {stored} new game of {read} into {url}; {known} already stored",
                       "{site}: imported {stored} new games of {read} into {url}; {known} already stored",
                       report.stored).format(site=args.site, stored=report.stored, read=report.read, url=db.url,
                                             known=report.known))
    return 0


def _games(args: argparse.Namespace) -> int:
    with read_records(args.db) as db:
        history = db.games(args.player, args.since)
    if args.json:
        print_json([game_summary(game) for game in history])
        return 0
    for game in history:
        roster = " ".join(f"{s.seat}:{s.player or '-'}({record_word(s.role)})" for s in game.seats)
        print(f"{game.played_at:%Y-%m-%d %H:%M}  {str(game.id)[:8]}  {game.table or '-'}  {game.ruleset}  "
              f"{game_result(game)}  {roster}")
    print(ngettext("{count} game", "{count} games", len(history)).format(count=len(history)))
    return 0


def game_result(game: GameRecord) -> str:
    """The history's result column: who won and why, or the judge's verdict of a game without one."""
    if game.winner is None and game.reason == "annulled":
        return _("game annulled")
    if game.winner is None and game.reason == "stopped":
        return _("game stopped")
    return result_words(game.winner, game.reason)


def game_summary(game: GameRecord) -> dict[str, Any]:
    from voicehost.records.ratings import scores_by_scheme

    return {"id": str(game.id), "played_at": game.played_at.isoformat(), "table": game.table,
            "ruleset": game.ruleset, "options": game.options, "winner": game.winner, "reason": game.reason,
            "scores": scores_by_scheme(game.ruleset, game.winner, game.seats, game.protocol),
            "roster": {str(s.seat): {"player": s.player, "role": s.role, "team": s.team, "alive": s.alive,
                                     "won": s.won, "fouls": s.fouls, "out": s.out_cause, "points": s.points,
                                     "best_player": s.best_player} for s in game.seats}}


def _ratings(args: argparse.Namespace) -> int:
    from voicehost.records.openskill_rating import openskill_ratings
    from voicehost.records.ratings import check_scoring, grouped_ratings
    from voicehost.records.reading import game_seats, rating_groups

    check_scoring(args.scoring)
    with read_records(args.db) as db:
        since, until = args.season
        groups = rating_groups(db, since, until, rescored=args.scoring is not None)
        seats = game_seats(db, *args.season)
        say_unnamed(db, args.season)
    table = grouped_ratings(groups, args.scoring)
    skills = {rating.player: rating.overall for rating in openskill_ratings(seats)}   # beside the points
    if args.json:
        print_json([{**rating.as_dict(), "openskill": skills[rating.player].as_dict()} for rating in table])
        return 0
    player, games, wins, rate, points = _("player"), _("games"), _("wins"), _("win%"), _("points")
    fouls, best, by_role, skill = _("fouls"), _("best"), _("by role (wins/games)"), _("skill ± sigma")
    print(f"{'#':>3}  {player:<20} {games:>5} {wins:>5} {rate:>5} {points:>7} {fouls:>5} {best:>4} {skill:>13}  "
          f"{by_role}")
    for place, rating in enumerate(table, start=1):
        roles = " ".join(f"{record_word(key)} {w}/{g}" for key, (g, w) in sorted(rating.by_role.items()))
        known = skills[rating.player]
        print(f"{place:>3}  {rating.player:<20} {rating.games:>5} {rating.wins:>5} "
              f"{100 * rating.wins / rating.games:>5.1f} {rating.points:>7.1f} {rating.fouls:>5} "
              f"{rating.best_player:>4} {known.mu:>6.1f} ± {known.sigma:>4.1f}  {roles}")
    return 0


def say_unnamed(db: Reader | Records, season: tuple[datetime | None, datetime | None]) -> None:
    """Why a rating or a chart leaves games out: a played game whose seats had no names (the
    demo's, a table run without ``--names``) has nobody to rate. One line on stderr, with the
    count, so an empty table is never a silent one."""
    from voicehost.records.reading import unnamed_games

    unnamed = unnamed_games(db, *season)
    if unnamed:
        print(ngettext("{count} game in the records has no player names and is not rated (name the players: "
                       "run … --names 1=NAME,2=NAME,…, the judge's phone setup, or a tournament's schedule)",
                       "{count} games in the records have no player names and are not rated (name the players: "
                       "run … --names 1=NAME,2=NAME,…, the judge's phone setup, or a tournament's schedule)",
                       unnamed).format(count=unnamed), file=sys.stderr)


EXPORT_COLUMNS = ["game_id", "played_at", "table", "ruleset", "winner", "reason", "seat", "player", "role", "team",
                  "alive", "won", "fouls", "out_cause", "out_day", "out_night", "points", "best_player"]


def _export(args: argparse.Namespace) -> int:
    with read_records(args.db) as db:
        history = db.games(since=args.season[0], until=args.season[1])
    if args.format == "json":
        text = json.dumps([{**game_summary(g), "protocol": g.protocol} for g in history], ensure_ascii=False,
                          indent=2) + "\n"
    else:
        import csv
        import io

        buffer = io.StringIO()
        writer = csv.writer(buffer)
        writer.writerow(EXPORT_COLUMNS)
        for game in history:
            for s in game.seats:
                writer.writerow([game.id, game.played_at.isoformat(), game.table or "", game.ruleset, game.winner,
                                 game.reason, s.seat, s.player or "", s.role, s.team, int(s.alive), int(s.won),
                                 s.fouls, s.out_cause or "", s.out_day or "", s.out_night or "", s.points,
                                 int(s.best_player)])
        text = buffer.getvalue()
    if args.out is None:
        sys.stdout.write(text)
    else:
        try:
            Path(args.out).write_text(text, encoding="utf-8")
        except OSError as err:
            raise InputError(args.out, _("cannot write it ({error})").format(error=err.strerror or err)) from None
        print(ngettext("exported {count} game to {out}", "exported {count} games to {out}", len(history)).format(
            count=len(history), out=args.out))
    return 0


def _chart(args: argparse.Namespace) -> int:
    from voicehost.records.chart import draw_season
    from voicehost.records.ratings import check_scoring

    check_scoring(args.scoring)
    with read_records(args.db) as db:
        rows = db.seat_rows(*args.season)
        say_unnamed(db, args.season)
    leaders = draw_season(rows, Path(args.out), args.top, args.scoring)
    print(ngettext("{out}: {count} player: {names}", "{out}: {count} players: {names}", len(leaders)).format(
        out=args.out, count=len(leaders), names=", ".join(leaders)))
    return 0


def _push(args: argparse.Namespace) -> int:
    from voicehost.records.outbox import push, push_until_empty
    from voicehost.records.table import table_records

    club = args.to
    if args.table is not None:
        from voicehost.host.table_file import table_path

        club = table_records(table_path(args.table)).club_url
        if club is None:
            raise InputError(args.table, _("the table file has no [records] url (the club server)"))
    with open_records(args.db) as local:
        if args.watch:
            return 0 if push_until_empty(local, club) else 1
        result = push(local, club, everything=args.all)
        waiting = local.waiting()
    if result.failed:
        raise InputError("records push", ngettext("{error}; {count} game stays queued",
                                                  "{error}; {count} games stay queued",
                                                  result.failed).format(error=result.errors[-1], count=result.failed))
    print(_("records: {line}").format(line=result.line))
    if waiting:
        earliest = min(row["next_try_at"] for row in waiting)
        print(ngettext("records: {count} game waits for its next try (at {first} UTC); --all sends it now",
                       "records: {count} games wait for their next try (the first at {first} UTC); "
                       "--all sends them now",
                       len(waiting)).format(count=len(waiting), first=f"{earliest:%H:%M:%S}"))
    return 0


def _best(args: argparse.Namespace) -> int:
    queue = False
    if args.table is not None:
        from voicehost.host.table_file import table_path
        from voicehost.records.table import table_records

        queue = table_records(table_path(args.table)).club_url is not None
    with open_records(args.db) as db:
        game_id, seat = db.vote_best_player(args.game, args.who, queue)
    print(_("best player of {game}: seat {seat}").format(game=str(game_id)[:8], seat=seat)
          + (_(" (queued for the club server)") if queue else ""))
    return 0
