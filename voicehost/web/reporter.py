"""A table's public state, sent to the club server's tournament screen (:mod:`voicehost.web.club`).

The reporter lives in the table's process, on the director's loop. It follows the director
through its notices with a :class:`~voicehost.web.view.TableView` of its own — the same public
state the table display serves at ``/api/state``, so never a role — and keeps one WebSocket to
the club server's ``/ws/table``. It must cost the game nothing:

- a notice only marks the state changed (no I/O, no building in the director's step);
- the sender builds the report when it is free to send, so the queue is one slot deep and the
  latest state wins — a slow or dead club server never makes reports pile up;
- a dead club server is tried again with a growing pause (:data:`FIRST_RETRY_S` up to
  :data:`LAST_RETRY_S`), and every failure is at most one log line per outage;
- with nothing new, the last state goes again every :data:`BEAT_S` (marked ``beat``), so the
  club can tell a quiet table from a table that dropped off.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any
from urllib.parse import urlsplit

import aiohttp

from voicehost.host import Director, Notice
from voicehost.i18n import _
from voicehost.language.read_lines import read_line
from voicehost.rules import InputError
from voicehost.web.overlay import public_overlay
from voicehost.web.view import TableView

BEAT_S = 1.0            # a quiet table sends its state again this often
FIRST_RETRY_S = 0.25    # a failed connection is tried again after this, doubling …
LAST_RETRY_S = 5.0      # … up to this
SEND_TIMEOUT_S = 5.0    # a send the club server does not take in this long counts as a lost connection
STOP_S = 3.0            # the table's shutdown waits at most this long for the reporter
HEARTBEAT_S = 5.0       # a club server that stops answering pings is given up after about this
TABLE_SOCKET = "/ws/table"

log = logging.getLogger("voicehost.web.reporter")


def club_socket_url(text: str, place: str = "--club-server") -> str:
    """``http://HOST:PORT`` (or https) of the club server → the WebSocket URL tables report to."""
    parts = urlsplit(text.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise InputError(place, _("{text} is not the club server's address (e.g. http://192.168.1.10:8090)").format(
            text=repr(text)))
    try:
        parts.port  # noqa: B018 - a bad port raises here
    except ValueError:
        raise InputError(place, _("{text} has no valid port").format(text=repr(text))) from None
    scheme = "wss" if parts.scheme == "https" else "ws"
    return f"{scheme}://{parts.netloc}{parts.path.rstrip('/')}{TABLE_SOCKET}"


@dataclass(frozen=True)
class TablePlace:
    """Where the table stands in the tournament: its name, round and table, and the name its
    finished games carry in the records (``[records] table`` of the table file), so the club
    server finds this table's games for the standings."""

    tournament: str
    round: int | None
    table: str
    records_table: str | None = None


def game_place(place: TablePlace, tag: Mapping[str, Any] | None) -> TablePlace:
    """The place of one game: ``serve`` gives each new game the next round (and a judge's setup may
    name its own place) in its setup's ``tournament`` tag (name, round, table); without one, ``place``."""
    if not tag:
        return place
    name, number, table = tag.get("name"), tag.get("round"), tag.get("table")
    return replace(place, tournament=name if isinstance(name, str) and name else place.tournament,
                   round=number if isinstance(number, int) and not isinstance(number, bool) else place.round,
                   table=str(table) if isinstance(table, (int, str)) and str(table) else place.table)


class ClubReporter:
    """Sends the table's public state to the club server, reconnecting by itself.

    :meth:`follow` hands it the game's director (or None between games); :meth:`start` and
    :meth:`stop` run its one task on the current loop."""

    def __init__(self, url: str, place: TablePlace, *, beat_s: float = BEAT_S,
                 log_line: Callable[[str], None] | None = None, club_key: str | None = None) -> None:
        self.url = url
        self.place = place
        self.headers = {"Authorization": f"Bearer {club_key}"} if club_key else {}
        self.beat_s = beat_s
        self.log_line = log_line or log.warning
        self.director: Director | None = None
        self.view: TableView | None = None
        self.finished = False
        self.sequence = 0                 # bumped on each change: the club server shows only newer ones
        self.changed_at = time.time()     # when the table last changed (the report's "t")
        self.connected = False
        self.sent = 0                     # reports the club server took (beats included)
        self.sent_seq = 0                 # the change the last report carried
        self._changed = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._stopping = False

    # ---- following the table ---------------------------------------------------------------------

    def follow(self, director: Director | None, place: Mapping[str, Any] | None = None) -> None:
        """This director's game runs now (None: the table is idle, or the game ended); ``place``:
        its tournament place, when the game has its own (:func:`game_place`)."""
        if director is self.director:
            if director is None:
                self._mark()
            return
        if self.director is not None:
            self.director.unwatch(self._heard)
        ended = self.director is not None and self.director.game.is_over
        if director is None and ended:   # the game just played stays on the screen until the next one
            self.director, self.finished = None, True
            self._mark()
            return
        self.director, self.finished = director, False
        self.view = TableView(director) if director is not None else None
        if director is not None:
            self.place = game_place(self.place, place)
            director.watch(self._heard)
        self._mark()

    def finish(self) -> None:
        """The game is over (the host stopped): the last state stays, marked finished."""
        self.finished = True
        self._mark()

    def _heard(self, notice: Notice) -> None:
        """A director watcher: as cheap as the notice allows (the view's own bookkeeping)."""
        if self.view is not None:
            self.view.heard(notice)
        self._mark()

    def _mark(self) -> None:
        if not self._changed.is_set():
            self.changed_at = time.time()
            self.sequence += 1
            self._changed.set()

    # ---- the report --------------------------------------------------------------------------------

    def report(self, beat: bool = False) -> dict[str, Any]:
        """What the club server is told: where the table is, its public state in brief, and the
        stream overlay's public state (the club screen's ``/overlay/table/N``)."""
        place = self.place
        return {"type": "report", "tournament": place.tournament, "round": place.round, "table": place.table,
                "records_table": place.records_table, "seq": self.sequence, "t": self.changed_at, "beat": beat,
                "state": self.state(), "overlay": public_overlay(self.view, self.finished)}

    def state(self) -> dict[str, Any]:
        if self.view is None:
            kind = "idle"   # no game yet, or between games (serve)
            return {"phase": {"kind": kind, "number": 0, "text": read_line("web", f"phase_{kind}")},
                    "speaker": None, "seats": [], "nominations": [], "result": None, "paused": False,
                    "speed": 1.0, "finished": self.finished}
        public = self.view.public()
        speaker = public["speaker"]
        return {"phase": public["phase"], "paused": public["paused"], "speed": public["speed"],
                "speaker": None if speaker is None else {k: speaker[k] for k in ("seat", "name", "turn_text",
                                                                                  "seconds", "left", "held")},
                "seats": [{"seat": s["seat"], "name": s["name"], "alive": s["alive"], "fouls": s["fouls"]}
                          for s in public["seats"]],
                "nominations": public["nominations"], "result": public["result"],
                "finished": self.finished or public["phase"]["kind"] == "over"}

    # ---- the connection ----------------------------------------------------------------------------

    def start(self) -> None:
        if self._task is None:
            self._stopping = False
            self._task = asyncio.get_running_loop().create_task(self._keep_reporting(), name="voicehost-club-report")

    async def stop(self, flush_s: float = 0.0) -> None:
        """Ends the task; ``flush_s``: first give the last change that long to reach the club
        server, if it is connected (the end of a game, so the screen shows it over)."""
        if self.director is not None:
            self.director.unwatch(self._heard)
        deadline = time.monotonic() + flush_s
        while self.connected and self.sent_seq != self.sequence and time.monotonic() < deadline:
            await asyncio.sleep(0.02)
        task, self._task = self._task, None
        self._stopping = True
        self._changed.set()
        if task is not None:   # the flag ends it even if a library swallowed the cancel
            task.cancel()
            await asyncio.wait([task], timeout=STOP_S)

    async def _keep_reporting(self) -> None:
        retry = FIRST_RETRY_S
        told_down = False
        async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=None, connect=SEND_TIMEOUT_S)) as http:
            while not self._stopping:
                try:
                    async with http.ws_connect(self.url, heartbeat=HEARTBEAT_S, headers=self.headers) as ws:
                        self.connected, retry = True, FIRST_RETRY_S
                        if told_down:
                            self.log_line(_("voicehost: club server {url}: reporting again").format(url=self.url))
                            told_down = False
                        await self._send_changes(ws)
                except (aiohttp.ClientError, OSError, TimeoutError, ConnectionError) as err:
                    if not told_down:
                        self.log_line(_("voicehost: club server {url}: it refuses this table's club key "
                                        "(--club-key); the game goes on, the reporter tries again").format(
                                          url=self.url) if _refused_key(err) else
                                      _("voicehost: club server {url}: not reachable ({why}); the game goes on, "
                                        "the reporter tries again").format(url=self.url, why=_why(err)))
                        told_down = True
                self.connected = False
                if self._stopping:
                    break
                await asyncio.sleep(retry)
                retry = min(retry * 2, LAST_RETRY_S)

    async def _send_changes(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        """The current state at once (the club may have missed changes), then each change as the
        sender is free, and the same state again when the table is quiet for :attr:`beat_s`.
        What the club sends is read (its pongs keep the heartbeat, its close ends the loop)."""
        reader = asyncio.ensure_future(_drain(ws))
        try:
            beat = False
            while not reader.done() and not self._stopping:
                self._changed.clear()
                report = self.report(beat)
                async with asyncio.timeout(SEND_TIMEOUT_S):
                    await ws.send_str(json.dumps(report, ensure_ascii=False))
                self.sent, self.sent_seq = self.sent + 1, report["seq"]
                changed = asyncio.ensure_future(self._changed.wait())
                try:
                    await asyncio.wait({changed, reader}, timeout=self.beat_s, return_when=asyncio.FIRST_COMPLETED)
                finally:
                    changed.cancel()
                beat = not self._changed.is_set()
        finally:
            reader.cancel()
            await asyncio.gather(reader, return_exceptions=True)
        if not self._stopping:
            raise ConnectionError("the club server closed the connection")


async def _drain(ws: aiohttp.ClientWebSocketResponse) -> None:
    async for message in ws:
        if message.type == aiohttp.WSMsgType.ERROR:
            break


def _refused_key(err: BaseException) -> bool:
    """The club server answered 401: the table has no key, or not the screen's."""
    return isinstance(err, aiohttp.WSServerHandshakeError) and err.status == 401


def _why(err: BaseException) -> str:
    return str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
