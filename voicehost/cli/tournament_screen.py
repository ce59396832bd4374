"""``voicehost tournament screen`` (the club server's tournament page, :mod:`voicehost.web.club`)
and the tables' side of it: ``--club-server URL --tournament NAME --round R --table-number T``
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

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    from voicehost.host import Director
    from voicehost.web.club import Board
    from voicehost.web.reporter import ClubReporter

DEFAULT_PORT = 8090


def add_screen_command(sub: Commands) -> None:
    """``tournament screen``, added to the ``tournament`` group's subcommands."""
    screen = sub.add_parser("screen", help="serve the tournament page: every table live, the standings, the seating")
    screen.add_argument("--host", default="0.0.0.0", help="the address to listen on (default: every interface)")
    screen.add_argument("--port", type=port_number, default=DEFAULT_PORT,
                        help=f"the port the page and the tables' reports use (default {DEFAULT_PORT})")
    screen.add_argument("--db", default=None, metavar="URL",
                        help="the club's records the standings are computed from (default: records.sqlite "
                             "in the data dir)")
    screen.add_argument("--tournament", default=None, metavar="NAME",
                        help="show only this tournament's tables (default: every table that reports)")
    screen.add_argument("--since", type=day, default=None, metavar="YYYY-MM-DD",
                        help="count the games played from this day (default: today)")
    screen.set_defaults(run=_screen)


def port_number(text: str) -> int:
    value = positive(text)
    if value > 65535:
        raise argparse.ArgumentTypeError(f"{value} is not a port (1 to 65535)")
    return value


def add_club_arguments(command: argparse.ArgumentParser) -> None:
    """The table's place in a tournament and the club server it reports its public state to."""
    command.add_argument("--club-server", default=None, metavar="URL",
                         help="report the table's public state to this tournament screen (http://HOST:PORT)")
    command.add_argument("--tournament", default=None, metavar="NAME", help="the tournament this table plays in")
    command.add_argument("--round", type=positive, default=None, metavar="R", help="the tournament round being played")
    command.add_argument("--table-number", default=None, metavar="T",
                         help="the table's number in the tournament (default: the table file's records name)")


# ---- the tables' side -------------------------------------------------------------------------------

def club_reporter(args: argparse.Namespace, records_table: str) -> ClubReporter | None:
    """The reporter ``--club-server`` asks for (its address checked now), or None."""
    if not getattr(args, "club_server", None):
        return None
    from voicehost.web.reporter import ClubReporter, TablePlace, club_socket_url

    url = club_socket_url(args.club_server)
    place = TablePlace(tournament=args.tournament or "", round=args.round,
                       table=args.table_number or records_table, records_table=records_table)
    return ClubReporter(url, place, log_line=lambda line: print(line, file=sys.stderr, flush=True))


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

def season_standings(db: str | None, since: datetime | None) -> Callable[[str | None, Sequence[str]], Board]:
    """The standings until the tournament's own: the season points of the reporting tables' games
    stored at ``db`` and played from ``since`` on (UTC), best first."""
    from voicehost.records.ratings import ratings
    from voicehost.records.store import open_records
    from voicehost.web.club import Board, Standing

    records = open_records(db)

    def board(tournament: str | None, tables: Sequence[str], /) -> Board:
        if not tables:
            return Board()
        games = {game.id for game in records.games(since=since) if game.table in set(tables)}
        rows = [row for row in records.seat_rows(since=since) if row["game_id"] in games]
        return Board(standings=tuple(Standing(r.player, round(r.points, 2), r.games, r.wins)
                                     for r in ratings(rows)), games=len(games))
    return board


def _screen(args: argparse.Namespace) -> int:
    import asyncio

    since = args.since or _today_utc()
    provider = season_standings(args.db, since)
    asyncio.run(_serve_screen(args, provider))
    return 0


def _today_utc() -> datetime:
    """The local midnight of today, as the records keep times (UTC, without a zone)."""
    from datetime import timezone

    midnight = datetime.now().astimezone().replace(hour=0, minute=0, second=0, microsecond=0)
    return midnight.astimezone(timezone.utc).replace(tzinfo=None)


async def _serve_screen(args: argparse.Namespace, provider: Callable[[str | None, Sequence[str]], Board]) -> None:
    import asyncio
    import signal

    from voicehost.web.club import ClubScreen

    screen = ClubScreen(standings=provider, tournament=args.tournament)
    url = await screen.start(args.host, args.port)
    print(f"voicehost: the tournament screen: {url}/  (tables report with --club-server {url})",
          file=sys.stderr, flush=True)
    stopped = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stopped.set)
    try:
        await stopped.wait()
    finally:
        await screen.stop()
