"""The tournament screen: the club server's page with every table live, the standings and the
next round's seating (``voicehost tournament screen``; see docs/club-screen.md).

URLs:

- ``/`` the page (a big screen or a phone); ``/static/club.*`` its files
- ``GET /api/board`` the board: the tables, the standings, the seating; ``GET /ws`` the board,
  pushed on every change
- ``/overlay/table/N`` table N's stream overlay (docs/broadcast.md), its socket
  ``/ws/overlay/table/N`` and its scene hints ``/overlay/table/N/events``: the public overlay
  each table sends with its report (never the roles)
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
import math
import re
import time
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Protocol

from aiohttp import WSMsgType, web

from voicehost.i18n import _
from voicehost.language.read_lines import read_line, section_lines
from voicehost.rules.scoring import SCREEN_COLUMNS, Column, Standing
from voicehost.web.door import MAX_BODY, add_security_headers, dumps, listen, no_content, refused
from voicehost.web.fanout import Fanout
from voicehost.web.overlay import PAGE_FILES as OVERLAY_FILES
from voicehost.web.overlay import Overlay, read_overlay
from voicehost.web.overlay import page as overlay_page
from voicehost.web.pages import page
from voicehost.web.refusals import NoSuchTable

STATIC = Path(__file__).parent / "static"
# The scripts and styles, by name; a page (.html) is served filled in (voicehost/web/pages.py), never as its file.
PAGE_FILES = frozenset(name for name in {"club.js", "club.css"} | OVERLAY_FILES if not name.endswith(".html"))
DROP_S = 3.0             # a table silent this long is shown as dropped off (it beats every second)
SWEEP_S = 0.25           # how often the silence is looked at
REFRESH_S = 3.0          # how often the standings are asked for anyway (a game pushed after its end)
FORGET_S = 3600.0        # a table silent this long (a round) is taken off the screen
MAX_TABLES = 20          # tables shown when the tournament's own count is not known (``--max-tables``)
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
class SideSkill:
    """A player's OpenSkill rating on one side (``red`` or ``black``): his games on it only."""

    side: str
    mu: float
    sigma: float
    games: int

    @property
    def rating(self) -> float:
        return self.mu - 3.0 * self.sigma


@dataclass(frozen=True)
class SkillLine:
    """One player's team-aware rating (:mod:`voicehost.records.openskill_rating`): the
    conservative ``rating`` (mu − 3·sigma) the table is ordered by, the estimate ``mu`` with
    its uncertainty ``sigma``, the games rated, and the same per side."""

    player: str
    rating: float
    mu: float
    sigma: float
    games: int
    sides: tuple[SideSkill, ...] = ()


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
    tables: int | None = None
    """How many tables the tournament plays at (its schedule's largest round), where it is known:
    the screen shows no more than this many."""
    skills: tuple[SkillLine, ...] = ()
    """The players' OpenSkill ratings, best first: the page's rating pages (none while the
    standings are hidden: a rating would tell what the hidden standings keep back)."""


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
    source: object = None
    """The connection the table reports over (another is refused while this one is heard)."""

    @property
    def key(self) -> str:
        return f"{self.tournament}\x1f{self.table}"

    def shown(self, now: float) -> dict[str, Any]:
        return {"key": self.key, "tournament": self.tournament, "table": self.table, "round": self.round,
                "dropped": self.dropped, "silent_s": round(now - self.heard, 1), "state": self.state}


class BadReport(ValueError):
    """A report the screen does not take; its text is the one log line's reason, from the catalog
    (in the language in use, as the rest of the line)."""


# A report is read like any hostile input: a program on the club's Wi-Fi (with the key, or on an
# open screen) may send anything, and one report must not break the board for every viewer.
MAX_DEPTH = 8                 # nesting of a report: report → state → seats → seat is 4
_LETTER = r"0-9A-Za-z\u0410-\u044f\u0401\u0451"   # ASCII digits, Latin and Russian letters (Ё, ё too)
TABLE_ID = re.compile(f"[{_LETTER}][{_LETTER} _.\\-]{{0,39}}")
"""A table's name (and its records name): ASCII digits, Latin or Russian letters, space, ``_.-``."""
MAX_NAME = 80                 # characters of a tournament's name
MAX_ROUND = 999
MAX_SEAT = 99                 # seats, fouls, nominations' seats
MAX_PHASE = 999               # a day's or night's number
MAX_SEQ = 2**53               # a report's seq: exact in every viewer's JavaScript
MAX_SEQ_STEP = 1_000_000      # a table's seq moves on by at most this between two reports it is shown with
MAX_AHEAD_S = 300.0           # a report's t may be this far ahead of the club's own clock (clocks differ a little)
MAX_TURN_S = 24 * 3600.0      # a turn's seconds, and the time left on it


def read_report(text: str) -> dict[str, Any]:
    """A table's report, checked: its place and only the public fields the page shows (whatever
    else a table sends is dropped here, so nothing but these can reach the page). Refused
    (:class:`BadReport`): not JSON, a number that is not finite (``NaN``, ``Infinity``,
    ``1e999``) or out of range, nesting over :data:`MAX_DEPTH`, a table that is no
    :data:`TABLE_ID`."""
    try:
        data = json.loads(text, parse_constant=_not_finite, parse_float=_finite)
    except RecursionError:
        raise BadReport(_("nested too deep")) from None
    except ValueError as err:
        raise BadReport(str(err) if isinstance(err, BadReport) else _("not JSON")) from None
    if _depth(data) > MAX_DEPTH:
        raise BadReport(_("nested deeper than {most}").format(most=MAX_DEPTH))
    if not isinstance(data, dict) or data.get("type") != "report":
        raise BadReport(_("not a report"))
    tournament, table = data.get("tournament"), data.get("table")
    if not isinstance(tournament, str) or len(tournament) > MAX_NAME or not tournament.isprintable():
        raise BadReport(_("no tournament name (printable, at most {most} characters)").format(most=MAX_NAME))
    if not isinstance(table, str) or not TABLE_ID.fullmatch(table):
        raise BadReport(_("the table is not a table's name (letters, digits, space, _.-; at most 40)"))
    records_table = data.get("records_table")
    if records_table is None:
        records_table = table
    elif not isinstance(records_table, str) or not TABLE_ID.fullmatch(records_table):
        raise BadReport(_("the records table is not a table's name"))
    round_ = data.get("round")
    if round_ is not None:
        round_ = _whole(round_, "round", 0, MAX_ROUND)
    state = data.get("state")
    if not isinstance(state, dict):
        raise BadReport(_("no state"))
    seq, changed_at = _whole(data.get("seq"), "seq", 0, MAX_SEQ), data.get("t")
    if isinstance(changed_at, bool) or not isinstance(changed_at, (int, float)) or not 0 <= changed_at <= \
            time.time() + MAX_AHEAD_S:
        raise BadReport(_("no t, or t ahead of the club's clock"))
    return {"tournament": tournament, "table": table, "round": round_, "seq": seq, "t": float(changed_at),
            "records_table": records_table, "beat": bool(data.get("beat")), "state": _public_fields(state),
            "overlay": read_overlay(data.get("overlay"))}


def _not_finite(word: str) -> Any:
    raise BadReport(_("{word} is no number").format(word=word))


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise BadReport(_("{number} is out of range").format(number=text[:20]))
    return value


def _depth(data: Any) -> int:
    """How deep the containers nest (without recursion: the nesting is the sender's)."""
    deepest, pending = 0, [(data, 1)]
    while pending:
        item, depth = pending.pop()
        if isinstance(item, (dict, list)):
            deepest = max(deepest, depth)
            pending.extend((value, depth + 1) for value in (item.values() if isinstance(item, dict) else item))
    return deepest


def _whole(value: Any, name: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise BadReport(_("{name} is not a whole number from {low} to {high}").format(name=name, low=low, high=high))
    return value


def _public_fields(state: dict[str, Any]) -> dict[str, Any]:
    phase: dict[str, Any] = state["phase"] if isinstance(state.get("phase"), dict) else {}
    speaker: dict[str, Any] | None = state["speaker"] if isinstance(state.get("speaker"), dict) else None
    seats = [s for s in _list(state.get("seats")) if isinstance(s, dict)][:20]
    return {
        "phase": {"kind": phase.get("kind") if phase.get("kind") in PHASE_KINDS else "waiting",
                  "number": _int(phase.get("number"), MAX_PHASE), "text": _text(phase.get("text"))},
        "speaker": None if speaker is None else {
            "seat": _int(speaker.get("seat"), MAX_SEAT), "name": _text(speaker.get("name")),
            "turn_text": _text(speaker.get("turn_text")), "seconds": _number(speaker.get("seconds"), MAX_TURN_S),
            "left": _number(speaker.get("left"), MAX_TURN_S), "held": bool(speaker.get("held"))},
        "seats": [{"seat": _int(s.get("seat"), MAX_SEAT), "name": _text(s.get("name")), "alive": bool(s.get("alive")),
                   "fouls": _int(s.get("fouls"), MAX_SEAT)} for s in seats],
        "nominations": [{"by": _int(n.get("by"), MAX_SEAT), "target": _int(n.get("target"), MAX_SEAT)}
                        for n in _list(state.get("nominations")) if isinstance(n, dict)][:20],
        "result": _text(state.get("result")) or None,
        "paused": bool(state.get("paused")),
        "speed": min(1000.0, max(0.1, _number(state.get("speed"), 1000.0) or 1.0)),
        "finished": bool(state.get("finished")),
    }


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _int(value: Any, high: int) -> int:
    """A count or a seat: 0 when it is none; refused out of 0…``high``."""
    if isinstance(value, bool) or not isinstance(value, int):
        return 0
    return _whole(value, _("a seat or a count"), 0, high)


def _number(value: Any, high: float) -> float:
    """Seconds (or a speed): 0 when none; held within 0…``high`` (a turn run over shows 0)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return 0.0
    return min(high, max(0.0, float(value)))


def _text(value: Any, limit: int = 300) -> str:
    return value[:limit] if isinstance(value, str) else ""


def _table_order(table: LiveTable) -> tuple[str, list[Any]]:
    """Стол 2 before Стол 10 (ASCII digits only: a table's name is a :data:`TABLE_ID`)."""
    return table.tournament, [int(p) if p.isascii() and p.isdigit() else p for p in re.split(r"([0-9]+)", table.table)]


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
    max_tables: int = MAX_TABLES
    """The most tables shown when the tournament's count is not known (:attr:`Board.tables`)."""
    tables: dict[str, LiveTable] = field(default_factory=dict)
    board: Board = field(default_factory=Board)
    viewers: Fanout = field(default_factory=lambda: Fanout(heartbeat=20.0, max_msg_size=MAX_BODY))
    reporters: set[web.WebSocketResponse] = field(default_factory=set)
    overlays: dict[str, Overlay] = field(default_factory=dict)
    """Each table's stream overlay, by the table's name (``/overlay/table/N``)."""

    def __post_init__(self) -> None:
        self.sequence = 0
        self._changes: list[list[Any]] = []     # [table key, its change's t] of the message being made
        self._scheduled = False
        self._refresh = asyncio.Event()
        self._runner: web.AppRunner | None = None
        self.app = build_app(self)

    async def start(self, host: str, port: int) -> str:
        """Serve on the running loop (and watch the silences, ask for the standings); returns the
        base URL (the port the OS gave for port 0)."""
        self._runner = web.AppRunner(self.app, access_log=None)
        return await listen(self._runner, host, port, "--port")

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()

    # ---- the tables' reports ------------------------------------------------------------------------

    async def reported(self, request: web.Request) -> web.WebSocketResponse:
        """A table's socket: its reports, each checked (:func:`read_report`)."""
        if "Origin" in request.headers:
            raise web.HTTPForbidden(text=dumps({"error": read_line("club", "not_a_table")}),
                                    content_type="application/json")
        if not self._has_the_key(request):
            log.warning(_("club: a table without the club's key is refused (%s)"), request.remote or "?")
            raise web.HTTPUnauthorized(text=dumps({"error": read_line("club", "wrong_key")}),
                                       content_type="application/json")
        ws = web.WebSocketResponse(heartbeat=10.0, max_msg_size=MAX_REPORT)
        await ws.prepare(request)
        self.reporters.add(ws)
        told = False
        try:
            async for message in ws:
                if message.type != WSMsgType.TEXT:
                    continue
                try:
                    self.heard(read_report(message.data), ws)
                except BadReport as err:
                    if not told:   # one line per connection, not one per message
                        log.warning(_("club: a report from %s is refused: %s"), request.remote or "?", err)
                        told = True
        finally:
            self.reporters.discard(ws)
            for live in self.tables.values():
                if live.source is ws:
                    live.source = None
        return ws

    def _has_the_key(self, request: web.Request) -> bool:
        if self.club_key is None:
            return True
        given = request.headers.get("Authorization", "").encode("utf-8", "replace")
        return hmac.compare_digest(given, f"Bearer {self.club_key}".encode())   # no timing tells how close

    def heard(self, report: dict[str, Any], source: object = None) -> None:
        """One report (from the connection ``source``): the table's state now. An older one than
        shown is ignored; refused (:class:`BadReport`): a new table over the tournament's count,
        a report for a table another connection reports for while that one is heard, and a
        ``seq`` that jumps over :data:`MAX_SEQ_STEP` (it would hide the table's real reports)."""
        if self.tournament is not None and report["tournament"] != self.tournament:
            return
        now = time.monotonic()
        key = f"{report['tournament']}\x1f{report['table']}"
        live = self.tables.get(key)
        if live is None:
            if len(self.tables) >= (self.board.tables or self.max_tables):
                raise BadReport(_("the screen shows {count} tables, no more").format(count=len(self.tables)))
            live = self.tables[key] = LiveTable(report["tournament"], report["table"], report["round"],
                                                report["records_table"], report["state"], report["seq"],
                                                report["t"], now, source=source)
            self._refresh.set()   # a new table: its games count for the standings
            self._changed(live)
            self._overlay_changed(report)
            return
        if live.source is not None and live.source is not source and now - live.heard < self.drop_s:
            raise BadReport(_("table {table} reports over another connection").format(table=live.table))
        if report["seq"] - live.seq > MAX_SEQ_STEP:
            raise BadReport(_("seq jumps from {before} to {after}").format(before=live.seq, after=report["seq"]))
        live.heard, live.source = now, source
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
            self._overlay_changed(report)

    def _overlay_changed(self, report: dict[str, Any]) -> None:
        """A table's overlay, as its report has it, to the pages that show it."""
        shown = report["overlay"]
        if shown is not None:
            self.overlay_of(report["table"]).changed(lambda: shown, None, report["t"])

    def overlay_of(self, table: str) -> Overlay:
        """Table ``table``'s overlay, made for the first report or page that names it."""
        overlay = self.overlays.get(table)
        if overlay is None:
            overlay = self.overlays[table] = Overlay()
        return overlay

    async def sweep(self) -> None:
        """Forever: a table silent for :attr:`drop_s` is shown as dropped off, and one silent
        for :data:`FORGET_S` is taken off the screen."""
        while True:
            await asyncio.sleep(SWEEP_S)
            now = time.monotonic()
            for key, live in list(self.tables.items()):
                if now - live.heard > FORGET_S:
                    del self.tables[key]   # a round over, or a table that never was: its place is free
                    self._changed(None)
                elif not live.dropped and not live.state["finished"] and now - live.heard > self.drop_s:
                    live.dropped = True
                    log.warning(_("club: table %s dropped off (no report for %.0f s)"), live.table, self.drop_s)
                    self._changed(None)

    async def keep_standings(self) -> None:
        """Forever: the standings asked for every :attr:`refresh_s` and when a table asks for it."""
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
        self.viewers.send(self.message(changes))

    def state(self) -> dict[str, Any]:
        now = time.monotonic()
        board = self.board
        return {"tournament": self.tournament or next((t.tournament for t in self.tables.values()), None),
                "tables": [t.shown(now) for t in sorted(self.tables.values(), key=_table_order)],
                "standings": [s.as_dict() for s in board.standings],
                "columns": [{"key": c.key, "kind": c.kind, "title": board.titles.get(c.key, c.key)}
                            for c in board.columns], "hidden": board.hidden, "games": board.games,
                "next_round": board.next_round, "seating": [asdict(s) for s in board.seating],
                "skills": [] if board.hidden else [{**asdict(s), "sides": {k.side: asdict(k) for k in s.sides}}
                                                   for s in board.skills],
                "skill_columns": skill_columns(), "texts": self._texts()}

    def message(self, changes: list[list[Any]]) -> str:
        """``changes``: which tables changed and when (their own clocks), so a viewer can tell
        how late it heard of each."""
        return json.dumps({"type": "board", "seq": self.sequence, "changes": changes, "board": self.state()},
                          ensure_ascii=False)

    def _texts(self) -> dict[str, str]:
        return section_lines("club")



def skill_columns() -> dict[str, str]:
    """The rating pages' title and headings in the club's language (gettext, as the records'
    own headings are): the page names no column of its own."""
    return {"title": _("Club rating (OpenSkill): mu − 3·sigma"),
            "place": _("Place"), "player": _("Player"), "rating": _("Rating"), "mu": _("mu ± sigma"),
            "games": _("Games"), "red": _("As red"), "black": _("As black")}


SCREEN = web.AppKey("screen", ClubScreen)
routes = web.RouteTableDef()


def build_app(screen: ClubScreen) -> web.Application:
    """The screen's application: its routes, the security headers on every answer, the silence
    and standings watched while it runs (``cleanup_ctx``), every socket closed at shutdown."""
    app = web.Application(client_max_size=MAX_BODY)
    app[SCREEN] = screen
    app.on_response_prepare.append(add_security_headers)
    app.cleanup_ctx.append(_watching)
    app.on_shutdown.append(_close_sockets)
    app.add_routes(routes)
    return app


async def _watching(app: web.Application) -> AsyncIterator[None]:
    screen = app[SCREEN]
    tasks = [asyncio.create_task(screen.sweep()), asyncio.create_task(screen.keep_standings())]
    yield
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


async def _close_sockets(app: web.Application) -> None:
    screen = app[SCREEN]
    await screen.viewers.close()
    for overlay in screen.overlays.values():
        await overlay.close()
    for ws in list(screen.reporters):
        await ws.close()


@routes.get("/")
async def _page(request: web.Request) -> web.Response:
    return page("club.html")


@routes.get("/static/{name}")
async def _static(request: web.Request) -> web.FileResponse:
    name = request.match_info["name"]
    if name not in PAGE_FILES:
        raise web.HTTPNotFound()
    return web.FileResponse(STATIC / name, headers={"Cache-Control": "no-cache"})


routes.get("/favicon.ico")(no_content)


@routes.get("/api/board")
async def _get_board(request: web.Request) -> web.Response:
    return web.json_response(request.app[SCREEN].state(), dumps=dumps)


@routes.get("/ws")
async def _viewer_ws(request: web.Request) -> web.WebSocketResponse:
    """The whole board on (re)connect, then every change; what the page sends is ignored."""
    screen = request.app[SCREEN]
    return await screen.viewers.serve(request, lambda: screen.message([]))


@routes.get("/ws/table")
async def _table_ws(request: web.Request) -> web.WebSocketResponse:
    return await request.app[SCREEN].reported(request)


# ---- each table's stream overlay ------------------------------------------------------------------

def _table_overlay(request: web.Request) -> Overlay:
    """The overlay of the table the path names: one that reports, or — a stream set up before its
    table starts — any table's name while the screen has room for it."""
    screen, table = request.app[SCREEN], request.match_info["table"]
    known = table in screen.overlays or any(live.table == table for live in screen.tables.values())
    full = len(screen.overlays) >= (screen.board.tables or screen.max_tables)
    if not TABLE_ID.fullmatch(table) or not known and full:
        raise refused(web.HTTPNotFound, NoSuchTable(table[:40]))
    return screen.overlay_of(table)


@routes.get("/overlay/table/{table}")
async def _overlay_page(request: web.Request) -> web.Response:
    _table_overlay(request)
    return overlay_page()


@routes.get("/ws/overlay/table/{table}")
async def _overlay_ws(request: web.Request) -> web.WebSocketResponse:
    overlay = _table_overlay(request)
    return await overlay.public_sockets.serve(request, lambda: overlay.public_text)


@routes.get("/overlay/table/{table}/events")
async def _overlay_events(request: web.Request) -> web.StreamResponse:
    return await _table_overlay(request).events(request)
