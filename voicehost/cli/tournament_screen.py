"""``voicehost tournament screen`` (the club server's tournament page, :mod:`voicehost.web.club`)
and the tables' side of it: ``--club-server URL --tournament NAME --round R --tournament-table T``
on ``run`` and ``serve`` (:mod:`voicehost.web.reporter`).

The standings the page shows come from a provider given to the club app at start
(:class:`~voicehost.web.club.StandingsProvider`). Until the tournament records exist, it is
:func:`season_standings`: the season points (:func:`voicehost.records.ratings.ratings`) of the
games stored at ``--db`` that the reporting tables played since ``--since``.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from contextlib import AbstractAsyncContextManager, AsyncExitStack, asynccontextmanager
from datetime import datetime
from typing import TYPE_CHECKING, Any

from voicehost.cli.args import Commands, positive
from voicehost.cli.records import day
from voicehost.i18n import _
from voicehost.rules import InputError

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    from voicehost.host import Director
    from voicehost.web.club import Board, SkillLine
    from voicehost.web.reporter import ClubReporter

DEFAULT_PORT = 8090


def add_screen_command(sub: Commands) -> None:
    """``tournament screen``, added to the ``tournament`` group's subcommands."""
    screen = sub.add_parser("screen", help=_("serve the tournament page: every table live, the standings, the seating"))
    screen.add_argument("--host", default="0.0.0.0", help=_("the address to listen on (default: every interface)"))
    screen.add_argument("--port", type=port_number, default=DEFAULT_PORT,
                        help=_("the port the page and the tables' reports use (default {port})").format(
                            port=DEFAULT_PORT))
    screen.add_argument("--db", default=None, metavar="URL",
                        help=_("the club's records the standings are computed from (default: records.sqlite "
                               "in the data dir)"))
    screen.add_argument("--tournament", default=None, metavar=_("NAME"),
                        help=_("show only this tournament's tables (default: every table that reports)"))
    screen.add_argument("--since", type=day, default=None, metavar=_("YYYY-MM-DD"),
                        help=_("count the games played from this day (default: today)"))
    _club_key_argument(screen, _("take reports only from tables started with this --club-key"),
                       _("a new key, printed at start"))
    screen.add_argument("--no-club-key", action="store_true",
                        help=_("an open screen: any program that is no browser may report a table"))
    screen.add_argument("--max-tables", type=positive, default=None, metavar="N",
                        help=_("show at most N tables when the tournament's schedule does not say how many"))
    screen.set_defaults(run=_screen)


CLUB_KEY_VARIABLE = "VOICEHOST_CLUB_KEY"


def _club_key_argument(command: argparse.ArgumentParser, purpose: str, otherwise: str) -> None:
    """``--club-key``, the same on the screen and at each table; from the environment by default,
    so that the key stays out of the process list and the unit file."""
    command.add_argument("--club-key", default=None, metavar=_("KEY"),
                         help=_("{purpose} (default: ${variable}; without it: {otherwise})").format(
                             purpose=purpose, variable=CLUB_KEY_VARIABLE, otherwise=otherwise))


def club_key(args: argparse.Namespace) -> str | None:
    """The club key of the command line, or of the environment; None when neither has one."""
    import os

    if getattr(args, "club_key", None) == "":
        raise InputError("--club-key", _("an empty key would let any program report: give a key"))
    key = getattr(args, "club_key", None) or os.environ.get(CLUB_KEY_VARIABLE) or None
    if key is not None and not (key.isascii() and key.isprintable() and " " not in key):
        # an HTTP header carries it: Latin-1 at most, and a space would end the word
        raise InputError("--club-key", _("a key is Latin letters, digits and punctuation, with no spaces"))
    return key


def screen_key(args: argparse.Namespace) -> str | None:
    """The screen's key: given, or a new one (the tables are told it on the screen's first line);
    None only for ``--no-club-key``."""
    import secrets

    if args.no_club_key:
        if args.club_key is not None:
            raise InputError("--no-club-key", _("an open screen takes no --club-key"))
        return None
    return club_key(args) or secrets.token_urlsafe(12)


def port_number(text: str) -> int:
    value = positive(text)
    if value > 65535:
        raise argparse.ArgumentTypeError(_("{value} is not a port (1 to 65535)").format(value=value))
    return value


def add_club_arguments(command: argparse.ArgumentParser) -> None:
    """The club server the table reports its public state to (its place in the tournament:
    ``--tournament NAME --round R --tournament-table T``, which the records take too)."""
    command.add_argument("--club-server", default=None, metavar="URL",
                         help=_("report the table's public state to this tournament screen (http://HOST:PORT)"))
    _club_key_argument(command, _("the tournament screen's club key"), _("no key"))


# ---- the tables' side -------------------------------------------------------------------------------

def club_reporter(args: argparse.Namespace, records_table: str) -> ClubReporter | None:
    """The reporter ``--club-server`` asks for (its address checked now), or None."""
    if not getattr(args, "club_server", None):
        return None
    from voicehost.web.reporter import ClubReporter, TablePlace, club_socket_url

    url = club_socket_url(args.club_server)
    number = getattr(args, "tournament_table", None)
    place = TablePlace(tournament=getattr(args, "tournament", None) or "", round=getattr(args, "round", None),
                       table=str(number) if number is not None else records_table, records_table=records_table)
    return ClubReporter(url, place, log_line=lambda line: print(line, file=sys.stderr, flush=True),
                        club_key=club_key(args))


def with_club(args: argparse.Namespace, records_table: str,
              around: Callable[[Director], AbstractAsyncContextManager[Any]] | None
              ) -> Callable[[Director], AbstractAsyncContextManager[Any]] | None:
    """``voicehost run``'s ``around`` hook with the reporter added (the web display's, if any)."""
    club_server = getattr(args, "club_server", None)
    if not club_server:
        return around
    club_reporter(args, records_table)   # a bad address is refused before the game starts

    @asynccontextmanager
    async def both(director: Director) -> AsyncIterator[None]:
        reporter = club_reporter(args, records_table)
        assert reporter is not None
        async with AsyncExitStack() as stack:
            if around is not None:
                await stack.enter_async_context(around(director))
            reporter.follow(director)
            reporter.start()
            try:
                yield
            finally:
                reporter.finish()
                await reporter.stop(flush_s=1.0)
    return both


# ---- the screen ---------------------------------------------------------------------------------------

SEASON_COLUMNS = ("place", "player", "games", "points", "wins")   # a season has no tournament's extras


def season_standings(db: str | None, since: datetime | None) -> Callable[[str | None, Sequence[str]], Board]:
    """The standings until the tournament's own: the season points of the reporting tables' games
    stored at ``db`` and played from ``since`` on (UTC), best first."""
    from voicehost.records.ratings import ratings
    from voicehost.records.store import open_records
    from voicehost.records.tournament import column_titles
    from voicehost.rules.scoring import SCREEN_COLUMNS, Standing, rank
    from voicehost.web.club import Board

    records = open_records(db)
    columns = tuple(column for column in SCREEN_COLUMNS if column.key in SEASON_COLUMNS)

    def board(tournament: str | None, tables: Sequence[str], /) -> Board:
        if not tables:
            return Board()
        games = {game.id for game in records.games(since=since) if game.table in set(tables)}
        rows = [row for row in records.seat_rows(since=since) if row["game_id"] in games]
        standings = rank([Standing(r.player, games=r.games, points=r.points, wins=r.wins) for r in ratings(rows)],
                         ("points", "wins"))
        return Board(standings=tuple(standings), columns=columns, titles=column_titles(), games=len(games))
    return board


def tournament_board(db: str | None, since: datetime | None) -> Callable[[str | None, Sequence[str]], Board]:
    """The tournament's own standings and schedule (:mod:`voicehost.records.tournament`: its
    scoring, its extras, Ci and tie-breaks, from the stored protocols, in the records' own rows), where the records have
    that tournament; else :func:`season_standings`. The next round's seating is the schedule's
    first round after the last one with a stored game."""
    import importlib

    from voicehost.records.store import open_records
    from voicehost.web.club import Board, Seating

    kept = importlib.import_module("voicehost.records.tournament")
    records = open_records(db)
    season = season_standings(db, since)

    def board(tournament: str | None, tables: Sequence[str], /) -> Board:
        if tournament is None or tournament not in kept.tournament_names(records):
            return season(tournament, tables)
        plan = kept.load_tournament(records, tournament)
        played = kept.played_games(records, tournament)
        result = kept.standings(plan, played)
        last = max((game.place.round for game in played), default=0)
        upcoming = sorted(r for r in plan.schedule if r > last)
        seating: tuple[Seating, ...] = ()
        if upcoming:
            seating = tuple(Seating(str(table), tuple(seats[s] for s in sorted(seats)))
                            for table, seats in sorted(plan.schedule[upcoming[0]].items()))
        most = max((len(round_tables) for round_tables in plan.schedule.values()), default=None)
        if plan.standings_hidden:   # tournament hide: the seating only, until tournament open
            return Board(hidden=True, next_round=upcoming[0] if upcoming else None, seating=seating, tables=most)
        return Board(standings=tuple(result.rows), titles=kept.column_titles(), games=result.games,
                     next_round=upcoming[0] if upcoming else None, seating=seating, tables=most)
    return board


def standings_provider(db: str | None, since: datetime | None) -> Callable[[str | None, Sequence[str]], Board]:
    """The tournament records' standings where this build has them, else the season's points;
    with the players' club ratings (:func:`with_skills`)."""
    import importlib.util

    if importlib.util.find_spec("voicehost.records.tournament") is not None:
        return with_skills(tournament_board(db, since), db)
    return with_skills(season_standings(db, since), db)


def with_skills(provider: Callable[[str | None, Sequence[str]], Board], db: str | None
                ) -> Callable[[str | None, Sequence[str]], Board]:
    """``provider``'s board with the OpenSkill rating of the players in its standings: the
    club's rating over every game stored at ``db`` (what ``records rating --system openskill``
    prints), not the evening's alone — one evening says little of a player's skill. Worked out
    again only when the board counts another game or other players: the provider is asked every
    few seconds, and the whole history need not be rated again while nothing was played."""
    from dataclasses import replace

    from voicehost.records.store import open_records

    records = open_records(db)
    kept: dict[str, Any] = {}

    def board(tournament: str | None, tables: Sequence[str], /) -> Board:
        shown = provider(tournament, tables)
        players = tuple(sorted(row.player for row in shown.standings))
        if shown.hidden or not players:
            return shown
        if kept.get("key") != (shown.games, players):
            kept["key"], kept["skills"] = (shown.games, players), club_skills(records.seat_rows(), set(players))
        return replace(shown, skills=kept["skills"])
    return board


def club_skills(rows: Sequence[Any], players: set[str]) -> tuple[SkillLine, ...]:
    """The OpenSkill rating of ``players`` over the seat rows (:meth:`Records.seat_rows`), best
    first, as the screen's :class:`~voicehost.web.club.SkillLine`."""
    from voicehost.records.openskill_rating import SIDES, openskill_ratings
    from voicehost.web.club import SideSkill, SkillLine

    return tuple(SkillLine(r.player, r.overall.ordinal, r.overall.mu, r.overall.sigma, r.overall.games,
                           tuple(SideSkill(side, k.mu, k.sigma, k.games) for side in SIDES
                                 if (k := r.sides.get(side)) is not None))
                 for r in openskill_ratings(rows) if r.player in players)


def _screen(args: argparse.Namespace) -> int:
    import asyncio

    key = screen_key(args)   # a bad key is refused before the page starts
    since = args.since or _today_utc()
    provider = standings_provider(args.db, since)
    asyncio.run(_serve_screen(args, provider, key))
    return 0


def _today_utc() -> datetime:
    """The local midnight of today, as the records keep times (UTC, without a zone)."""
    from datetime import timezone

    midnight = datetime.now().astimezone().replace(hour=0, minute=0, second=0, microsecond=0)
    return midnight.astimezone(timezone.utc).replace(tzinfo=None)


async def _serve_screen(args: argparse.Namespace, provider: Callable[[str | None, Sequence[str]], Board],
                        key: str | None) -> None:
    import asyncio
    import signal

    from voicehost.web.club import MAX_TABLES, ClubScreen

    screen = ClubScreen(standings=provider, tournament=args.tournament, club_key=key,
                        max_tables=args.max_tables or MAX_TABLES)
    url = await screen.start(args.host, args.port)
    tables = (_("tables report with --club-server {url} --club-key {key}").format(url=url, key=key) if key
              else _("an open screen: tables report with --club-server {url}").format(url=url))
    print(_("voicehost: the tournament screen: {url}/  ({tables})").format(url=url, tables=tables),
          file=sys.stderr, flush=True)
    stopped = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stopped.set)
    try:
        await stopped.wait()
    finally:
        await screen.stop()


# ---- voicehost bench club ------------------------------------------------------------------------------

CLUB_BENCH_SPEED = 20.0


def bench_club(tables: int = 6, speed: float = CLUB_BENCH_SPEED) -> dict[str, float]:
    """``tables`` table-level sport games (one process, each with its own reporter and socket)
    report to a tournament screen (this process) while a page's socket (a third process)
    follows it; each delay is the time from a table's change (the report's ``t``) to the page's
    socket hearing of it."""
    import asyncio

    return asyncio.run(_club_evening(tables, speed))


async def _club_evening(tables: int, speed: float) -> dict[str, float]:
    import asyncio
    import multiprocessing
    import statistics
    import time

    from voicehost.web.club import ClubScreen

    screen = ClubScreen()
    base = await screen.start("127.0.0.1", 0)
    spawn = multiprocessing.get_context("spawn")
    results, ready = spawn.Queue(), spawn.Event()
    page = spawn.Process(target=_page_socket, args=(base, results, ready), daemon=True)
    page.start()
    loop = asyncio.get_running_loop()
    try:
        await loop.run_in_executor(None, ready.wait, 60)
        started = time.perf_counter()
        players = spawn.Process(target=_bench_tables, args=(base, tables, speed), daemon=True)
        players.start()
        await loop.run_in_executor(None, players.join, 900)
        evening_s = time.perf_counter() - started
        await asyncio.sleep(0.5)
    finally:
        await screen.stop()   # the page's socket closes: it reports
    delays = sorted(await loop.run_in_executor(None, results.get, True, 60))
    page.join(10)
    if not delays:
        raise InputError("bench club", "the page heard no table change")
    return {"tables": tables, "changes": len(delays), "evening_s": evening_s, "p50_ms": statistics.median(delays),
            "p95_ms": delays[int(0.95 * (len(delays) - 1))], "max_ms": delays[-1]}


def _bench_tables(base: str, tables: int, speed: float) -> None:
    """In a process of their own: ``tables`` games at once, each reporting to ``base``."""
    import asyncio
    from contextlib import asynccontextmanager

    from voicehost.simulation.engine_level import simulate
    from voicehost.simulation.script import script_from_data
    from voicehost.simulation.scriptgen import random_script
    from voicehost.simulation.table_level import TableRun, VirtualVoice, play_table
    from voicehost.web.reporter import ClubReporter, TablePlace, club_socket_url

    def script(seed: int) -> Any:
        while True:
            made = script_from_data(random_script("sport", seed))
            if simulate(made).game.is_over:
                return made
            seed += 1000

    async def table(number: int) -> None:
        reporter = ClubReporter(club_socket_url(base), TablePlace("bench", 1, str(number)), log_line=lambda _: None)

        @asynccontextmanager
        async def around(director: Any) -> AsyncIterator[None]:
            reporter.follow(director)
            reporter.start()
            try:
                yield
            finally:
                reporter.finish()
                await reporter.stop(flush_s=1.0)
        await play_table(script(number), how=TableRun(speak=VirtualVoice(speed).speak, speed=speed, around=around))

    async def evening() -> None:
        await asyncio.gather(*(table(n) for n in range(1, tables + 1)))
    asyncio.run(evening())


def _page_socket(base: str, results: Any, ready: Any) -> None:
    """In a process of its own: the page's socket; every table change it hears of, in ms."""
    import asyncio
    import json
    import time

    import aiohttp

    async def follow() -> list[float]:
        delays: list[float] = []
        async with aiohttp.ClientSession() as session:
            async with session.ws_connect(base.replace("http", "ws", 1) + "/ws") as ws:
                ready.set()
                async for message in ws:
                    heard = time.time()
                    for _key, changed_at in json.loads(message.data).get("changes", []):
                        delays.append((heard - changed_at) * 1000)
        return delays

    results.put(asyncio.run(follow()))
