"""The web server on the director's own loop: the table display, the judge console, the API.

URLs (see docs/web.md):

- ``/`` the table display; ``/judge`` the judge console; ``/static/…`` their files (all local)
- ``GET /api/state`` the public state; ``GET /ws`` the public state, pushed on every change
- ``POST /api/login {"pin"}`` a judge session (HttpOnly cookie) and its CSRF token
- ``GET /api/judge/state`` and ``GET /ws/judge`` the judge's state (401 without a session)
- ``POST /api/judge/command {"command": "foul 3"}`` (header ``X-CSRF-Token``) the console's own
  words, through the director's console queue; the answer to this very request once the director
  took it (200, ``"outcome": "done"``), held it during a pause (202, ``"held"``) or refused it (409)
- ``POST /api/logout``
- ``/overlay``, ``/overlay/roles?key=…``, ``/ws/overlay``, ``/ws/overlay/roles?key=…`` and
  ``/overlay/events``: the stream's overlay (:mod:`~voicehost.web.overlay`, docs/broadcast.md)
- served by ``voicehost serve`` (an idle table, :mod:`~voicehost.web.setup`): ``POST /api/judge/start``
  ``{"ruleset", "options", "names", "deal", "cards"}``, ``POST /api/judge/resume``, ``POST
  /api/judge/discard``, ``POST /api/judge/best {"seat": N}`` (the last game's best player);
  the judge's state then carries ``setup`` (what may be chosen) while idle

Every refusal is a 4xx with ``{"error": "<one Russian line>"}`` — also a request aiohttp's own
parser refuses (a URL or header over the size limit) — and one line in the log, never a
traceback. Every answer carries the security headers (:data:`SECURITY_HEADERS`, a
Content-Security-Policy without 'unsafe-inline'); a request or socket from another page's origin
is refused; logging out closes the session's sockets. See docs/web.md, «The door».
"""

from __future__ import annotations

import asyncio
import json
import time
from collections import deque
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from typing import Any

from aiohttp import web

from voicehost.host import ConsoleAnswer, ConsoleAnswered, Director, Notice
from voicehost.i18n import _
from voicehost.language.read_lines import read_line
from voicehost.rules import InputError, Refusal
from voicehost.web.commands import CommandError, CommandsClosed, NoGameYet, TableIdle, check_command
from voicehost.web.door import (
    MAX_BODY,
    DoorRunner,
    add_security_headers,
    dumps,
    json_body,
    listen,
    no_content,
    one_line_errors,
    refused,
    same_origin,
    worded,
)
from voicehost.web.fanout import Fanout
from voicehost.web.overlay import OVERLAY, Overlay, OverlaySettings, public_overlay, secret_overlay
from voicehost.web.overlay import routes as overlay_routes
from voicehost.web.pages import page
from voicehost.web.refusals import NoBestSeatGiven, NoSuchPage
from voicehost.web.sessions import (
    JUDGE_DOOR,
    SESSION,
    WRONG_PIN_DELAY_S,
    JudgeDoor,
    judge_session,
)
from voicehost.web.setup import SetupDesk, SetupError, offered, read_choice
from voicehost.web.view import TableView

STATIC = Path(__file__).parent / "static"
COMMAND_WAIT_S = 20.0          # a command waits this long for the director (it may be mid-line)
ANSWERS = 20                   # the judge's recent console answers kept in his state


def said(key: str, **values: object) -> str:
    """A ``web.`` line of :mod:`voicehost.language.read_lines`: what the judge's phone reads (``done`` «Готово.» …)."""
    return read_line("web", key, **values)


def parse_address(text: str) -> tuple[str, int]:
    """``--web HOST:PORT`` (``:8080`` or ``8080`` alone: every interface)."""
    host, _sep, port = text.rpartition(":")
    if not port.isdigit() or not 0 <= int(port) <= 65535:
        raise InputError("--web", _("{text!r} is not HOST:PORT (e.g. 0.0.0.0:8080)").format(
                                      text=text))
    return host or "0.0.0.0", int(port)


class WebTable:
    """The web side of one table: follows a director, and serves its display and console.

    It exists before the game does (the server starts first, a phone can connect while the
    cards are dealt); :meth:`attach` hands it the director, :meth:`finish` says the game is
    over and no command will be read any more. Given a ``desk`` (``voicehost serve``'s idle
    table) it outlives the games: :meth:`follow` moves it from game to game, and between them
    the judge gets the setup page and the public «Стол готов». Its application (:attr:`app`)
    finds it under :data:`TABLE`; the judge's door is a :class:`~voicehost.web.sessions.JudgeDoor`."""

    def __init__(self, pin: str | None = None, wrong_pin_delay_s: float = WRONG_PIN_DELAY_S,
                 desk: SetupDesk | None = None, overlay: OverlaySettings | None = None) -> None:
        self.desk = desk
        self.last_result: str | None = None   # the previous game's result, shown while idle
        self.director: Director | None = None
        self.view: TableView | None = None
        self.shown_view: TableView | None = None   # the overlay's: the last game's stays until the next begins
        self.finished = False
        self.public_sockets = Fanout(max_msg_size=MAX_BODY)
        self.judge_sockets = Fanout(max_msg_size=MAX_BODY)
        self.door = JudgeDoor(pin, wrong_pin_delay_s, self.judge_sockets)
        self.overlay = Overlay(overlay or OverlaySettings())   # the stream's pages (docs/broadcast.md)
        self.pending: dict[int, asyncio.Future[ConsoleAnswer | None]] = {}  # typed line id → its answer
        self.answers: deque[dict[str, Any]] = deque(maxlen=ANSWERS)
        self.sequence = 0
        self._scheduled = False
        self._changed_at = 0.0
        self._runner: web.AppRunner | None = None
        self.app = build_app(self)

    @property
    def pin(self) -> str:
        return self.door.pin

    # ---- following the director ------------------------------------------------------------------

    def attach(self, director: Director) -> None:
        self.director = director
        self.view = self.shown_view = TableView(director)
        self.finished = False
        self.answers.clear()
        director.watch(self._changed)
        self._schedule()

    def follow(self, director: Director | None) -> None:
        """The idle table's news: this director's game has begun, or (None) no game is running
        — the last one ended or was set aside, or the desk's own state changed."""
        if director is not None and director is not self.director:
            self._detach()
            self.attach(director)
        elif director is None:
            self._detach()
            self._schedule()

    def _detach(self) -> None:
        if self.director is None:
            return
        if not self.finished:
            self.finish()
        if self.view is not None:
            self.last_result = self.view.public().get("result")
        self.director.unwatch(self._changed)
        self.director, self.view = None, None

    def finish(self) -> None:
        """The game is over (or the host stopped): commands are refused from now on."""
        self.finished = True
        for future in self.pending.values():
            if not future.done():
                future.set_result(None)
        self.pending.clear()
        self._schedule()

    def _changed(self, notice: Notice) -> None:
        if self.view is not None:
            self.view.heard(notice)
        if isinstance(notice, ConsoleAnswered):
            self._answered(notice.answer)
        self._schedule()

    def _schedule(self) -> None:
        """Many changes in one turn of the loop go out as one message."""
        if not self._scheduled:
            self._scheduled = True
            self._changed_at = time.time()   # "t" of the message: how late it arrives is measured from here
            asyncio.get_running_loop().call_soon(self._broadcast)

    def _broadcast(self) -> None:
        self._scheduled = False
        self.sequence += 1
        if self.public_sockets:
            self.public_sockets.send(self.message(self.public_state(), self._changed_at))
        if self.judge_sockets:
            self.judge_sockets.send(self.message(self.judge_state(), self._changed_at))
        view, finished = self.shown_view, self.finished or self.view is None
        self.overlay.changed(lambda: public_overlay(view, finished),
                             lambda: secret_overlay(view, finished), self._changed_at)

    def message(self, state: dict[str, Any], changed_at: float | None = None) -> str:
        """``t``: when the table changed (wall clock), so a viewer can tell how late it heard."""
        return json.dumps({"type": "state", "seq": self.sequence, "t": changed_at or time.time(), "state": state},
                          ensure_ascii=False)

    # ---- the states ---------------------------------------------------------------------------------

    def public_state(self) -> dict[str, Any]:
        if self.view is None:
            kind = "idle" if self.desk is not None else "waiting"
            phase = {"kind": kind, "number": 0, "text": said(f"phase_{kind}")}
            return {"phase": phase, "seats": [], "speaker": None, "nominations": [], "vote": None,
                    "result": self.last_result, "subtitles": [], "log": [], "paused": False, "speed": 1.0,
                    "finished": self.finished}
        return {**self.view.public(), "finished": self.finished}

    def judge_state(self) -> dict[str, Any]:
        if self.view is None:
            idle = {"setup": self.setup()} if self.desk is not None else {}
            return {**self.public_state(), "roles": {}, "night_log": [], "judge_log": [],
                    "answers": list(self.answers), "waiting_for": None, **idle}
        return {**self.view.judge(), "finished": self.finished, "answers": list(self.answers)}

    def setup(self) -> dict[str, Any]:
        """What the idle table's judge may choose, and what is chosen."""
        assert self.desk is not None
        state = self.desk.setup_state()
        return {**offered(self.desk.seats, state.get("ruleset"), state.get("options")), **state}

    # ---- commands -------------------------------------------------------------------------------------

    async def command(self, line: str) -> tuple[int, str, str, int | None]:
        """Into the director's console queue, exactly as if typed at the terminal; the answer to
        this line (by its id, whoever else types the same words) once the director has taken,
        held or refused it. Returns (HTTP status, outcome, Russian answer, the line's id)."""
        if self.director is None:
            return 409, "refused", self._worded(TableIdle() if self.desk is not None else NoGameYet()), None
        if self.finished or self.director.game.is_over:
            return 409, "refused", self._worded(CommandsClosed()), None
        said_before = self.view.said if self.view is not None else 0
        typed = self.director.ports.type(line, "web")
        future = self.pending[typed] = asyncio.get_running_loop().create_future()
        try:
            answer = await asyncio.wait_for(asyncio.shield(future), COMMAND_WAIT_S)
        except TimeoutError:
            return 202, "queued", said("queued"), typed
        finally:
            self.pending.pop(typed, None)
        if answer is None:
            return 409, "refused", self._worded(CommandsClosed()), typed
        if answer.outcome == "refused":
            return 409, "refused", self._worded(answer.refusal), typed
        if answer.outcome == "held":
            return 202, "held", said("held"), typed
        if answer.text:   # the console's own sentence about this very command
            return 200, "done", answer.text, typed
        spoken = [entry["text"] for entry in (self.view.lines if self.view else []) if entry["n"] > said_before]
        return 200, "done", " ".join([said("done"), *spoken, *self._repeated(line)]), typed

    def _answered(self, answer: ConsoleAnswer) -> None:
        """The console answered a typed line: kept for the judge's state, and handed to the
        request that typed it (a line typed at the terminal has no request waiting)."""
        text = said(answer.outcome) if answer.outcome != "refused" else self._worded(answer.refusal)
        if answer.outcome == "done":
            text = answer.text or " ".join([text, *self._repeated(answer.line)])
        self.answers.append({"id": answer.id, "command": answer.line, "ok": answer.outcome != "refused",
                             "outcome": answer.outcome, "answer": text})
        future = self.pending.pop(answer.id, None)
        if future is not None and not future.done():
            future.set_result(answer)

    def _repeated(self, line: str) -> list[str]:
        """``repeat`` done: the line it said again («Повторено: «…»»), the last one a
        :class:`~voicehost.host.LineSaid` told of (the console says it again without a notice)."""
        if line.split()[:1] != ["repeat"] or self.view is None or not self.view.lines:
            return []
        return [said("repeated", line=self.view.lines[-1]["text"])]

    @staticmethod
    def _worded(refusal: Refusal | None) -> str:
        return worded(refusal or CommandsClosed())

    def desk_answer(self, refusal: Refusal | None, done: str) -> web.Response:
        """The idle table took the judge's action (``done`` said), or the 409 of its refusal."""
        if refusal is not None:
            raise refused(web.HTTPConflict, refusal)
        self._schedule()
        return web.json_response({"ok": True, "answer": done}, dumps=dumps)

    # ---- serving ----------------------------------------------------------------------------------------

    async def start(self, host: str, port: int) -> str:
        """Serve on the running loop; returns the base URL (the port the OS gave for port 0)."""
        self._runner = DoorRunner(self.app, access_log=None)
        return await listen(self._runner, host, port, "--web")

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()


TABLE = web.AppKey("table", WebTable)
routes = web.RouteTableDef()
"""Every table's routes: the pages, the public state, the judge's login and console."""
desk_routes = web.RouteTableDef()
"""The idle table's setup (``voicehost serve``): only with a desk."""


def build_app(table: WebTable) -> web.Application:
    """The application of ``table``: the door's middlewares (one-line refusals, same origin, the
    judge's session), the security headers on every answer, the routes, and the sockets closed
    at shutdown."""
    app = web.Application(client_max_size=MAX_BODY, middlewares=[one_line_errors, same_origin, judge_session])
    app[TABLE] = table
    app[JUDGE_DOOR] = table.door
    app[OVERLAY] = table.overlay
    app.on_response_prepare.append(add_security_headers)
    app.on_shutdown.append(_close_sockets)
    app.add_routes(routes)
    app.add_routes(overlay_routes)
    if table.desk is not None:
        app.add_routes(desk_routes)
    return app


async def _close_sockets(app: web.Application) -> None:
    table = app[TABLE]
    await table.public_sockets.close()
    await table.judge_sockets.close()
    await table.overlay.close()


# ---- the pages ---------------------------------------------------------------------------------------

ASSETS = frozenset(path.name for path in STATIC.iterdir() if path.suffix in (".css", ".js"))


def asset(name: str) -> web.FileResponse:
    return web.FileResponse(STATIC / name, headers={"Cache-Control": "no-cache"})


@routes.get("/")
async def _table_page(request: web.Request) -> web.Response:
    return page("table.html")


@routes.get("/judge")
async def _judge_page(request: web.Request) -> web.Response:
    """The judge's page, and with it an attempt source of its own."""
    response = page("judge.html")
    request.app[JUDGE_DOOR].give_source(request, response)
    return response


@routes.get("/static/{name}")
async def _static(request: web.Request) -> web.FileResponse:
    """Only the pages' own files, by name: no directory, no path, nothing else of the package."""
    name = request.match_info["name"]
    if name not in ASSETS:
        raise refused(web.HTTPNotFound, NoSuchPage())
    return asset(name)


routes.get("/favicon.ico")(no_content)


# ---- the public state --------------------------------------------------------------------------------

@routes.get("/api/state")
async def _get_state(request: web.Request) -> web.Response:
    return web.json_response(request.app[TABLE].public_state(), dumps=dumps)


@routes.get("/ws")
async def _public_ws(request: web.Request) -> web.WebSocketResponse:
    table = request.app[TABLE]
    return await table.public_sockets.serve(request, lambda: table.message(table.public_state()))


# ---- the judge ---------------------------------------------------------------------------------------

@routes.post("/api/login")
async def _login(request: web.Request) -> web.Response:
    return await request.app[JUDGE_DOOR].login(request)


@routes.post("/api/logout")
async def _logout(request: web.Request) -> web.Response:
    return request.app[JUDGE_DOOR].logout(request[SESSION])


@routes.get("/api/judge/state")
async def _get_judge_state(request: web.Request) -> web.Response:
    return web.json_response({**request.app[TABLE].judge_state(), "csrf": request[SESSION].csrf}, dumps=dumps)


@routes.get("/ws/judge")
async def _judge_ws(request: web.Request) -> web.WebSocketResponse:
    """The judge's socket, closed when his session ends: at logout or when it expires."""
    table, session = request.app[TABLE], request[SESSION]
    expiry = asyncio.get_running_loop().call_later(max(0.0, session.expires - time.monotonic()),
                                                   table.door.end, session)
    try:
        return await table.judge_sockets.serve(request, lambda: table.message(table.judge_state()), session.sockets)
    finally:
        expiry.cancel()


@routes.post("/api/judge/command")
async def _post_command(request: web.Request) -> web.Response:
    table = request.app[TABLE]
    body = await json_body(request)
    if table.director is None:
        raise refused(web.HTTPConflict, TableIdle() if table.desk is not None else NoGameYet())
    try:
        line = check_command(body.get("command"), table.director.game.seats)
    except CommandError as err:
        raise refused(web.HTTPBadRequest, err.refusal) from None
    status, outcome, answer, typed = await table.command(line)
    told = {"error": answer} if outcome == "refused" else {"ok": True, "answer": answer}
    return web.json_response({**told, "id": typed, "command": line, "outcome": outcome}, status=status,
                             dumps=dumps)


# ---- the idle table's setup (voicehost serve) --------------------------------------------------------

def _desk(request: web.Request) -> tuple[WebTable, SetupDesk]:
    table = request.app[TABLE]
    assert table.desk is not None   # desk_routes are served only with a desk
    return table, table.desk


@desk_routes.post("/api/judge/start")
async def _post_start(request: web.Request) -> web.Response:
    """A game with the judge's choices, through the same start as the chord and ``start``."""
    table, desk = _desk(request)
    body = await json_body(request)
    try:
        choice = read_choice(body, desk.seats)
    except SetupError as err:
        raise refused(web.HTTPBadRequest, err.refusal) from None
    return table.desk_answer(desk.start(choice), said("game_starts"))


@desk_routes.post("/api/judge/resume")
async def _post_resume(request: web.Request) -> web.Response:
    table, desk = _desk(request)
    return table.desk_answer(desk.resume(), said("game_resumed"))


@desk_routes.post("/api/judge/discard")
async def _post_discard(request: web.Request) -> web.Response:
    table, desk = _desk(request)
    return table.desk_answer(desk.discard(), said("game_set_aside"))


@desk_routes.post("/api/judge/best")
async def _post_best(request: web.Request) -> web.Response:
    """The table's best-player vote for the game just played, ``{"seat": N}``."""
    table, desk = _desk(request)
    body = await json_body(request)
    seat = body.get("seat")
    if isinstance(seat, bool) or not isinstance(seat, int):
        raise refused(web.HTTPBadRequest, NoBestSeatGiven())
    return table.desk_answer(desk.best(seat), said("best_player", seat=seat))


def serving(address: str, pin: str | None, show: Callable[[str], None], overlay: OverlaySettings | None = None
            ) -> Callable[[Director], AbstractAsyncContextManager[WebTable]]:
    """For ``--web HOST:PORT``: given the director, serve its table while the game runs (the
    URLs and the PIN are shown once, on the terminal)."""
    host, port = parse_address(address)

    @asynccontextmanager
    async def around(director: Director) -> AsyncIterator[WebTable]:
        table = WebTable(pin, overlay=overlay)
        url = await table.start(host, port)
        table.attach(director)
        show(f"voicehost: the table display: {url}/  the judge console: {url}/judge  (PIN {table.pin})")
        show(overlay_urls(url, table.overlay))
        try:
            yield table
        finally:
            table.finish()
            await table.stop()
    return around


def overlay_urls(url: str, overlay: Overlay) -> str:
    """The stream's addresses, printed at start: the roles' one carries the key."""
    return _("voicehost: the stream overlay: {url}/overlay  with the roles: {url}/overlay/roles?key={key} "
             "(held back {delay:g} s)  scene hints: {url}/overlay/events").format(
                 url=url, key=overlay.key, delay=overlay.delay_s)
