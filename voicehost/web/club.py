"""The tournament screen: the club server's page with every table live, the standings and the
next round's seating (``voicehost tournament screen``; see docs/club-screen.md).

URLs:

- ``/`` the page (a big screen or a phone); ``/static/club.*`` its files
- ``GET /api/board`` the board: the tables, the standings, the seating; ``GET /ws`` the board,
  pushed on every change
- ``GET /ws/table`` where the tables report (:mod:`voicehost.web.reporter`); a browser's socket
  (it always carries an ``Origin``) is refused here, so no page can pose as a table; with a club
  key (``tournament screen --club-key``) a socket without it (``Authorization: Bearer KEY``) is
  refused too, so a phone on the club's Wi-Fi cannot pose as a table either

A table is keyed by its tournament and table. One that sends nothing for :data:`DROP_S` is shown
as dropped off, and as live again with its next report — unless its game is over (``voicehost
run`` ends with its game: the card keeps the result). The standings and the seating come
from a :class:`StandingsProvider` given at start (the records stay out of the web layer); it is
asked again every ``refresh_s`` and when a table's game ends, off the loop, and the page is told
only when the answer changed.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import logging
import re
import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Protocol

from aiohttp import WSMsgType, web

from voicehost.language.i18n import _
from voicehost.language.phrasebook import Phrasebook, load_phrasebook
from voicehost.rules import InputError
from voicehost.rules.scoring import SCREEN_COLUMNS, Column, Standing
from voicehost.web.server import security_headers

STATIC = Path(__file__).parent / "static"
PAGE_FILES = frozenset({"club.js", "club.css"})
DROP_S = 3.0             # a table silent this long is shown as dropped off (it beats every second)
SWEEP_S = 0.25           # how often the silence is looked at
REFRESH_S = 3.0          # how often the standings are asked for anyway (a game pushed after its end)
MAX_REPORT = 64 * 1024   # bytes: a report is about 1–2 KB
PHASE_KINDS = frozenset({"idle", "waiting", "deal", "night", "day", "over"})

log = logging.getLogger("voicehost.web.club")


# ---- what the standings provider gives ----------------------------------------------------------

@dataclass(frozen=True)
class Seating:
    """The players of one table in a round, seat 1 first."""

    table: str
    players: tuple[str, ...]


@dataclass(frozen=True)
class Board:
    """What the page shows under the tables."""

    standings: tuple[Standing, ...] = ()
    """Best first (:class:`voicehost.rules.scoring.Standing`, the records' own rows)."""
    columns: tuple[Column, ...] = SCREEN_COLUMNS
    """What the page draws of each row, in order: the page knows no column of its own."""
    titles: Mapping[str, str] = field(default_factory=dict)
    """Each column's heading in the club's language (the records' ``column_titles``)."""
    hidden: bool = False
    """The organiser keeps the standings hidden for now: the page says so and shows the seating."""
    games: int = 0
    """The finished games the standings count."""
    next_round: int | None = None
    seating: tuple[Seating, ...] = ()


class StandingsProvider(Protocol):
    """The standings and the next round's seating of ``tournament`` (None: the screen was given no
    name and no table reported one yet), given the names the reporting tables' games carry in
    the records. Called off the loop: it may query a database."""

    def __call__(self, tournament: str | None, tables: Sequence[str], /) -> Board: ...


def no_standings(tournament: str | None, tables: Sequence[str], /) -> Board:
    return Board()


# ---- the tables ---------------------------------------------------------------------------------

@dataclass
class LiveTable:
    tournament: str
    table: str
    round: int | None
    records_table: str
    state: dict[str, Any]
    seq: int
    changed_at: float       # the table's own wall clock when it changed (its report's "t")
    heard: float            # the club's monotonic clock at the last report
    dropped: bool = False

    @property
    def key(self) -> str:
        return f"{self.tournament}\x1f{self.table}"

    def shown(self, now: float) -> dict[str, Any]:
        return {"key": self.key, "tournament": self.tournament, "table": self.table, "round": self.round,
                "dropped": self.dropped, "silent_s": round(now - self.heard, 1), "state": self.state}


class BadReport(ValueError):
    pass


def read_report(text: str) -> dict[str, Any]:
    """A table's report, checked: its place and only the public fields the page shows (whatever
    else a table sends is dropped here, so nothing but these can reach the page)."""
    try:
        data = json.loads(text)
    except ValueError:
        raise BadReport("not JSON") from None
    if not isinstance(data, dict) or data.get("type") != "report":
        raise BadReport("not a report")
    tournament, table, round_ = data.get("tournament"), data.get("table"), data.get("round")
    if not isinstance(tournament, str) or not isinstance(table, str) or not table.strip():
        raise BadReport("no tournament or table")
    if round_ is not None and (isinstance(round_, bool) or not isinstance(round_, int)):
        raise BadReport("the round is not a number")
    records_table = data.get("records_table")
    state = data.get("state")
    if not isinstance(state, dict):
        raise BadReport("no state")
    seq, changed_at = data.get("seq"), data.get("t")
    if not isinstance(seq, int) or not isinstance(changed_at, (int, float)):
        raise BadReport("no seq or t")
    return {"tournament": tournament[:80], "table": table[:40], "round": round_, "seq": seq, "t": float(changed_at),
            "records_table": records_table[:80] if isinstance(records_table, str) else table[:40],
            "beat": bool(data.get("beat")), "state": _public_fields(state)}


def _public_fields(state: dict[str, Any]) -> dict[str, Any]:
    phase: dict[str, Any] = state["phase"] if isinstance(state.get("phase"), dict) else {}
    speaker: dict[str, Any] | None = state["speaker"] if isinstance(state.get("speaker"), dict) else None
    seats = [s for s in state.get("seats") or [] if isinstance(s, dict)][:20]
    return {
        "phase": {"kind": phase.get("kind") if phase.get("kind") in PHASE_KINDS else "waiting",
                  "number": _int(phase.get("number")), "text": _text(phase.get("text"))},
        "speaker": None if speaker is None else {
            "seat": _int(speaker.get("seat")), "name": _text(speaker.get("name")),
            "turn_text": _text(speaker.get("turn_text")), "seconds": _number(speaker.get("seconds")),
            "left": _number(speaker.get("left"))},
        "seats": [{"seat": _int(s.get("seat")), "name": _text(s.get("name")), "alive": bool(s.get("alive")),
                   "fouls": _int(s.get("fouls"))} for s in seats],
        "nominations": [{"by": _int(n.get("by")), "target": _int(n.get("target"))}
                        for n in state.get("nominations") or [] if isinstance(n, dict)][:20],
        "result": _text(state.get("result")) or None,
        "paused": bool(state.get("paused")),
        "speed": min(1000.0, max(0.1, _number(state.get("speed")) or 1.0)),
        "finished": bool(state.get("finished")),
    }


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _number(value: Any) -> float:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else 0.0


def _text(value: Any, limit: int = 300) -> str:
    return value[:limit] if isinstance(value, str) else ""


def _table_order(table: LiveTable) -> tuple[str, list[Any]]:
    """Стол 2 before Стол 10."""
    return table.tournament, [int(p) if p.isdigit() else p for p in re.split(r"(\d+)", table.table)]


# ---- the server -----------------------------------------------------------------------------------

@dataclass
class ClubScreen:
    """The tournament page and the tables' reports, on one loop."""

    standings: StandingsProvider = no_standings
    tournament: str | None = None
    """Only this tournament's tables are shown (None: every table that reports)."""
    club_key: str | None = None
    """The key every table reports with (None: any program that is no browser may report)."""
    drop_s: float = DROP_S
    refresh_s: float = REFRESH_S
    book: Phrasebook = field(default_factory=load_phrasebook)
    tables: dict[str, LiveTable] = field(default_factory=dict)
    board: Board = field(default_factory=Board)
    viewers: set[web.WebSocketResponse] = field(default_factory=set)
    reporters: set[web.WebSocketResponse] = field(default_factory=set)

    def __post_init__(self) -> None:
        self.sequence = 0
        self._changes: list[list[Any]] = []     # [table key, its change's t] of the message being made
        self._scheduled = False
        self._refresh = asyncio.Event()
        self._tasks: set[asyncio.Task[Any]] = set()
        self._runner: web.AppRunner | None = None
        self.app = self._build_app()

    def _build_app(self) -> web.Application:
        app = web.Application(client_max_size=4096)
        app.on_response_prepare.append(_security_headers)
        app.router.add_get("/", self._page)
        app.router.add_get("/static/{name}", self._static)
        app.router.add_get("/favicon.ico", _no_content)
        app.router.add_get("/api/board", self._get_board)
        app.router.add_get("/ws", self._viewer_ws)
        app.router.add_get("/ws/table", self._table_ws)
        return app

    async def start(self, host: str, port: int) -> str:
        self._runner = web.AppRunner(self.app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, host, port)
        try:
            await site.start()
        except OSError as err:
            await self._runner.cleanup()
            raise InputError("--port", _("cannot listen on {host}:{port}: {why}").format(
                host=host, port=port, why=err.strerror or err)) from None
        for job in (self._sweep(), self._keep_standings()):
            self._spawn(job)
        bound = self._runner.addresses[0]
        return f"http://{'127.0.0.1' if host in ('0.0.0.0', '') else host}:{bound[1]}"

    async def stop(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        for ws in list(self.viewers | self.reporters):
            await ws.close()
        if self._runner is not None:
            await self._runner.cleanup()

    def _spawn(self, job: Any) -> None:
        task = asyncio.ensure_future(job)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # ---- the tables' reports ------------------------------------------------------------------------

    async def _table_ws(self, request: web.Request) -> web.WebSocketResponse:
        if "Origin" in request.headers:
            raise web.HTTPForbidden(text=json.dumps({"error": self.book.line("club", "not_a_table")},
                                                    ensure_ascii=False), content_type="application/json")
        if not self._has_the_key(request):
            log.warning(_("club: a table without the club's key is refused (%s)"), request.remote or "?")
            raise web.HTTPUnauthorized(text=json.dumps({"error": self.book.line("club", "wrong_key")},
                                                       ensure_ascii=False), content_type="application/json")
        ws = web.WebSocketResponse(heartbeat=10.0, max_msg_size=MAX_REPORT)
        await ws.prepare(request)
        self.reporters.add(ws)
        told = False
        try:
            async for message in ws:
                if message.type != WSMsgType.TEXT:
                    continue
                try:
                    self.heard(read_report(message.data))
                except BadReport as err:
                    if not told:   # one line per connection, not one per message
                        log.warning(_("club: a report from %s is refused: %s"), request.remote or "?", err)
                        told = True
        finally:
            self.reporters.discard(ws)
        return ws

    def _has_the_key(self, request: web.Request) -> bool:
        if self.club_key is None:
            return True
        given = request.headers.get("Authorization", "").encode("utf-8", "replace")
        return hmac.compare_digest(given, f"Bearer {self.club_key}".encode())   # no timing tells how close

    def heard(self, report: dict[str, Any]) -> None:
        """One report: the table's state now (an older one than shown is ignored)."""
        if self.tournament is not None and report["tournament"] != self.tournament:
            return
        now = time.monotonic()
        key = f"{report['tournament']}\x1f{report['table']}"
        live = self.tables.get(key)
        if live is None:
            live = self.tables[key] = LiveTable(report["tournament"], report["table"], report["round"],
                                                report["records_table"], report["state"], report["seq"],
                                                report["t"], now)
            self._refresh.set()   # a new table: its games count for the standings
            self._changed(live)
            return
        live.heard = now
        back = live.dropped
        live.dropped = False
        restarted = report["t"] > live.changed_at   # a newer change (also of a table's process started again)
        if report["seq"] > live.seq or restarted or back:
            game_ended = report["state"]["finished"] and not live.state.get("finished")
            live.round, live.records_table, live.state = report["round"], report["records_table"], report["state"]
            live.seq, live.changed_at = report["seq"], report["t"]
            if game_ended:
                self._refresh.set()
            self._changed(live)

    async def _sweep(self) -> None:
        while True:
            await asyncio.sleep(SWEEP_S)
            now = time.monotonic()
            for live in self.tables.values():
                if not live.dropped and not live.state["finished"] and now - live.heard > self.drop_s:
                    live.dropped = True
                    log.warning(_("club: table %s dropped off (no report for %.0f s)"), live.table, self.drop_s)
                    self._changed(None)

    async def _keep_standings(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            tables = tuple(sorted({t.records_table for t in self.tables.values()}))
            names = {t.tournament for t in self.tables.values()}
            tournament = self.tournament or (min(names) if names else None)
            try:
                board = await loop.run_in_executor(None, self.standings, tournament, tables)
            except Exception as err:  # the provider's database is away: the tables stay live
                log.warning(_("club: the standings are not available (%s)"),
                            str(err).splitlines()[0] if str(err) else type(err).__name__)
            else:
                if board != self.board:
                    self.board = board
                    self._changed(None)
            self._refresh.clear()
            try:
                await asyncio.wait_for(self._refresh.wait(), self.refresh_s)
            except TimeoutError:
                pass

    # ---- the page -------------------------------------------------------------------------------------

    def _changed(self, live: LiveTable | None) -> None:
        """Changes in one turn of the loop go out as one message."""
        if live is not None:
            self._changes.append([live.key, live.changed_at])
        if not self._scheduled:
            self._scheduled = True
            asyncio.get_running_loop().call_soon(self._broadcast)

    def _broadcast(self) -> None:
        self._scheduled = False
        self.sequence += 1
        changes, self._changes = self._changes, []
        if not self.viewers:
            return
        text = self._message(changes)
        for ws in list(self.viewers):
            self._spawn(self._send(ws, text))

    async def _send(self, ws: web.WebSocketResponse, text: str) -> None:
        try:
            await ws.send_str(text)
        except (ConnectionError, RuntimeError):
            self.viewers.discard(ws)

    def state(self) -> dict[str, Any]:
        now = time.monotonic()
        board = self.board
        return {"tournament": self.tournament or next((t.tournament for t in self.tables.values()), None),
                "tables": [t.shown(now) for t in sorted(self.tables.values(), key=_table_order)],
                "standings": [s.as_dict() for s in board.standings],
                "columns": [{"key": c.key, "kind": c.kind, "title": board.titles.get(c.key, c.key)}
                            for c in board.columns], "hidden": board.hidden, "games": board.games,
                "next_round": board.next_round, "seating": [asdict(s) for s in board.seating],
                "texts": self._texts()}

    def _message(self, changes: list[list[Any]]) -> str:
        """``changes``: which tables changed and when (their own clocks), so a viewer can tell
        how late it heard of each."""
        return json.dumps({"type": "board", "seq": self.sequence, "changes": changes, "board": self.state()},
                          ensure_ascii=False)

    def _texts(self) -> dict[str, str]:
        return {key.split(".", 1)[1]: text for key, text in self.book.lines.items() if key.startswith("club.")}

    async def _page(self, request: web.Request) -> web.FileResponse:
        return web.FileResponse(STATIC / "club.html", headers={"Cache-Control": "no-cache"})

    async def _static(self, request: web.Request) -> web.FileResponse:
        name = request.match_info["name"]
        if name not in PAGE_FILES:
            raise web.HTTPNotFound()
        return web.FileResponse(STATIC / name, headers={"Cache-Control": "no-cache"})

    async def _get_board(self, request: web.Request) -> web.Response:
        return web.json_response(self.state(), dumps=lambda data: json.dumps(data, ensure_ascii=False))

    async def _viewer_ws(self, request: web.Request) -> web.WebSocketResponse:
        """The whole board on (re)connect, then every change; what the page sends is ignored."""
        ws = web.WebSocketResponse(heartbeat=20.0, max_msg_size=4096)
        await ws.prepare(request)
        try:
            await ws.send_str(self._message([]))
        except ConnectionError:
            return ws
        self.viewers.add(ws)
        try:
            async for message in ws:
                if message.type == WSMsgType.ERROR:
                    break
        finally:
            self.viewers.discard(ws)
        return ws


async def _no_content(request: web.Request) -> web.Response:
    return web.Response(status=204)


async def _security_headers(request: web.Request, response: web.StreamResponse) -> None:
    response.headers.update(security_headers(request.scheme, request.host))
