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
import hmac
import json
import logging
import re
import secrets
import time
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from aiohttp import WSMsgType, web
from aiohttp.http_exceptions import LineTooLong
from aiohttp.web_protocol import RequestHandler

from voicehost.host import ConsoleAnswer, ConsoleAnswered, Director, Notice
from voicehost.language.i18n import _
from voicehost.language.phrasebook import load_phrasebook
from voicehost.language.refusals import refusal_text
from voicehost.rules import InputError, Refusal
from voicehost.web.commands import CommandError, CommandsClosed, NoGameYet, TableIdle, check_command
from voicehost.web.refusals import (
    STATUS_REFUSALS,
    BadHttp,
    BadJson,
    BodyTooLarge,
    ConnectionLost,
    ForeignOrigin,
    HeaderTooLong,
    JsonTooDeep,
    JudgeLoginNeeded,
    LoginBusy,
    LoneSurrogate,
    NoBestSeatGiven,
    NoCsrfToken,
    NoSuchPage,
    NotAJsonObject,
    NotJson,
    RequestRefused,
    TooManyWrongPins,
    UrlTooLong,
    WrongPin,
)
from voicehost.web.setup import SetupDesk, SetupError, offered, read_choice
from voicehost.web.view import TableView

STATIC = Path(__file__).parent / "static"
MAX_BODY = 4096                # bytes: a command or a PIN is a few dozen
SESSION_COOKIE = "voicehost_judge"
SESSION_S = 12 * 3600          # a tournament evening
COMMAND_WAIT_S = 20.0          # a command waits this long for the director (it may be mid-line)
WRONG_PIN_DELAY_S = 0.5        # the n-th wrong PIN of an attempt source answers n times this late (≤ 5 s) …
WRONG_PIN_MAX_DELAY_S = 5.0
LOCKOUT_AFTER = 3              # … and after this many in a row, its next try waits 2, 4, 8 … 60 s
LOCKOUT_MAX_S = 60.0
ATTEMPT_COOKIE = "voicehost_try"   # an attempt source: given with the judge's page, locked on its own
SOURCES_PER_ADDRESS = 5        # new attempt sources one address is given …
SOURCE_WINDOW_S = 600.0        # … per this many seconds (then its logins count against the address)
FORGET_ATTEMPTS_S = 3600.0     # an address with no failure for this long is forgotten (a source: after SESSION_S)
ANSWERS = 20                   # the judge's recent console answers kept in his state
LOGGED_OUT = 4001              # the close code of a judge socket whose session ended

log = logging.getLogger("voicehost.web")


def said(key: str, **values: object) -> str:
    """A line of the phrasebook's ``[web]``: what the judge's phone reads (``done`` «Готово.» …)."""
    return load_phrasebook().line("web", key, **values)


def parse_address(text: str) -> tuple[str, int]:
    """``--web HOST:PORT`` (``:8080`` or ``8080`` alone: every interface)."""
    host, _sep, port = text.rpartition(":")
    if not port.isdigit() or not 0 <= int(port) <= 65535:
        raise InputError("--web", _("{text!r} is not HOST:PORT (e.g. 0.0.0.0:8080)").format(
                                      text=text))
    return host or "0.0.0.0", int(port)


@dataclass
class Session:
    csrf: str
    expires: float
    sockets: set[web.WebSocketResponse] = field(default_factory=set)   # closed at logout


@dataclass
class Attempts:
    """The wrong PINs of one attempt source (or of one address's logins without a source)."""
    failures: int = 0
    not_before: float = 0.0
    last: float = 0.0
    busy: bool = False             # an attempt of this source is being answered


@dataclass
class Source:
    address: str
    issued: float
    attempts: Attempts = field(default_factory=Attempts)


class WebTable:
    """The web side of one table: serves the display and the console, follows a director.

    It exists before the game does (the server starts first, a phone can connect while the
    cards are dealt); :meth:`attach` hands it the director, :meth:`finish` says the game is
    over and no command will be read any more. Given a ``desk`` (``voicehost serve``'s idle
    table) it outlives the games: :meth:`follow` moves it from game to game, and between them
    the judge gets the setup page and the public «Стол готов»."""

    def __init__(self, pin: str | None = None, wrong_pin_delay_s: float = WRONG_PIN_DELAY_S,
                 desk: SetupDesk | None = None) -> None:
        self.pin = pin or f"{secrets.randbelow(10**6):06d}"
        self.desk = desk
        self.last_result: str | None = None   # the previous game's result, shown while idle
        self.wrong_pin_delay_s = wrong_pin_delay_s
        self.director: Director | None = None
        self.view: TableView | None = None
        self.finished = False
        self.sessions: dict[str, Session] = {}
        self.attempts: dict[str, Attempts] = {}      # by address: the logins that bring no source
        self.sources: dict[str, Source] = {}         # by the ATTEMPT_COOKIE's token
        self.public_sockets: set[web.WebSocketResponse] = set()
        self.judge_sockets: set[web.WebSocketResponse] = set()
        self.pending: dict[int, asyncio.Future[ConsoleAnswer | None]] = {}  # typed line id → its answer
        self.answers: deque[dict[str, Any]] = deque(maxlen=ANSWERS)
        self.sequence = 0
        self._scheduled = False
        self._changed_at = 0.0
        self._tasks: set[asyncio.Task[Any]] = set()
        self._runner: web.AppRunner | None = None
        self.app = self._build_app()

    # ---- following the director ------------------------------------------------------------------

    def attach(self, director: Director) -> None:
        self.director = director
        self.view = TableView(director)
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
            self._send_all(self.public_sockets, self._message(self.public_state(), self._changed_at))
        if self.judge_sockets:
            self._send_all(self.judge_sockets, self._message(self.judge_state(), self._changed_at))

    def _message(self, state: dict[str, Any], changed_at: float | None = None) -> str:
        """``t``: when the table changed (wall clock), so a viewer can tell how late it heard."""
        return json.dumps({"type": "state", "seq": self.sequence, "t": changed_at or time.time(), "state": state},
                          ensure_ascii=False)

    def _send_all(self, sockets: set[web.WebSocketResponse], text: str) -> None:
        for ws in list(sockets):
            task = asyncio.ensure_future(self._send(ws, sockets, text))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    @staticmethod
    async def _send(ws: web.WebSocketResponse, sockets: set[web.WebSocketResponse], text: str) -> None:
        try:
            await ws.send_str(text)
        except (ConnectionError, RuntimeError):
            sockets.discard(ws)

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
            idle = {"setup": self._setup()} if self.desk is not None else {}
            return {**self.public_state(), "roles": {}, "night_log": [], "judge_log": [],
                    "answers": list(self.answers), "waiting_for": None, **idle}
        return {**self.view.judge(), "finished": self.finished, "answers": list(self.answers)}

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
        return _worded(refusal or CommandsClosed())

    # ---- the application ----------------------------------------------------------------------------

    def _build_app(self) -> web.Application:
        app = web.Application(client_max_size=MAX_BODY, middlewares=[_one_line_errors, _same_origin])
        app.on_response_prepare.append(_security_headers)
        app.router.add_get("/", _page("table.html"))
        app.router.add_get("/judge", self._judge_page)
        app.router.add_get("/static/{name}", _static)
        app.router.add_get("/favicon.ico", _no_icon)
        app.router.add_get("/api/state", self._get_state)
        app.router.add_get("/ws", self._public_ws)
        app.router.add_post("/api/login", self._login)
        app.router.add_post("/api/logout", self._logout)
        app.router.add_get("/api/judge/state", self._get_judge_state)
        app.router.add_get("/ws/judge", self._judge_ws)
        app.router.add_post("/api/judge/command", self._post_command)
        if self.desk is not None:
            app.router.add_post("/api/judge/start", self._post_start)
            app.router.add_post("/api/judge/resume", self._post_resume)
            app.router.add_post("/api/judge/discard", self._post_discard)
            app.router.add_post("/api/judge/best", self._post_best)
        return app

    async def start(self, host: str, port: int) -> str:
        """Serve on the running loop; returns the base URL (the port the OS gave for port 0)."""
        self._runner = _DoorRunner(self.app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, host, port)
        try:
            await site.start()
        except OSError as err:
            await self._runner.cleanup()
            raise InputError("--web", _("cannot listen on {host}:{port}: {value}").format(
                                          host=host, port=port, value=err.strerror or err)) from None
        bound = self._runner.addresses[0]
        return f"http://{'127.0.0.1' if host in ('0.0.0.0', '') else host}:{bound[1]}"

    async def stop(self) -> None:
        for ws in list(self.public_sockets | self.judge_sockets):
            await ws.close()
        if self._runner is not None:
            await self._runner.cleanup()

    async def _get_state(self, request: web.Request) -> web.Response:
        return web.json_response(self.public_state(), dumps=_dumps)

    async def _public_ws(self, request: web.Request) -> web.WebSocketResponse:
        return await self._serve_socket(request, self.public_sockets, self.public_state)

    async def _judge_ws(self, request: web.Request) -> web.WebSocketResponse:
        """The judge's socket, closed when his session ends: at logout or when it expires."""
        session = self._session(request)
        expiry = asyncio.get_running_loop().call_later(max(0.0, session.expires - time.monotonic()),
                                                       self._close_sockets, session)
        try:
            return await self._serve_socket(request, self.judge_sockets, self.judge_state, session.sockets)
        finally:
            expiry.cancel()

    async def _serve_socket(self, request: web.Request, sockets: set[web.WebSocketResponse],
                            state: Callable[[], dict[str, Any]],
                            owned: set[web.WebSocketResponse] | None = None) -> web.WebSocketResponse:
        """The whole state on (re)connect, then every change; what the client sends is ignored
        (commands go through POST, where the CSRF token is checked). ``owned``: the session's
        own sockets, closed when it logs out."""
        ws = web.WebSocketResponse(heartbeat=20.0, max_msg_size=MAX_BODY)
        await ws.prepare(request)
        try:
            await ws.send_str(self._message(state()))
        except ConnectionError:
            return ws   # the phone went away right after the handshake
        sockets.add(ws)
        if owned is not None:
            owned.add(ws)
        try:
            async for message in ws:
                if message.type == WSMsgType.ERROR:
                    break
        finally:
            sockets.discard(ws)
            if owned is not None:
                owned.discard(ws)
        return ws

    async def _judge_page(self, request: web.Request) -> web.FileResponse:
        """The judge's page, and with it an attempt source of its own (:meth:`_attempts_for`)."""
        response = web.FileResponse(STATIC / "judge.html", headers={"Cache-Control": "no-cache"})
        if request.cookies.get(ATTEMPT_COOKIE, "") not in self.sources:
            token = self._new_source(request.remote or "?")
            if token is not None:
                response.set_cookie(ATTEMPT_COOKIE, token, httponly=True, samesite="Strict", path="/")
        return response

    def _new_source(self, address: str) -> str | None:
        """A new attempt source for ``address``, or None when the address was given its share
        lately (then its logins count against the address itself)."""
        now = time.monotonic()
        self._forget_attempts(now)
        lately = sum(1 for source in self.sources.values()
                     if source.address == address and now - source.issued < SOURCE_WINDOW_S)
        if lately >= SOURCES_PER_ADDRESS:
            return None
        token = secrets.token_urlsafe(16)
        self.sources[token] = Source(address, now)
        return token

    def _attempts_for(self, request: web.Request) -> Attempts:
        """Whose wrong PINs these are: the attempt source the judge's page gave this browser,
        else the address. A flood from one phone locks that phone's source (and the logins
        without one from its address), never the judge's own page."""
        source = self.sources.get(request.cookies.get(ATTEMPT_COOKIE, ""))
        if source is not None:
            return source.attempts
        return self.attempts.setdefault(request.remote or "?", Attempts())

    def _forget_attempts(self, now: float) -> None:
        for token in [t for t, s in self.sources.items()
                      if now - max(s.issued, s.attempts.last) > SESSION_S and now >= s.attempts.not_before]:
            del self.sources[token]
        for address in [a for a, t in self.attempts.items()
                        if now - t.last > FORGET_ATTEMPTS_S and now >= t.not_before]:
            del self.attempts[address]

    async def _login(self, request: web.Request) -> web.Response:
        """A PIN, checked only when its source is neither locked nor still waiting for the
        answer to its previous try (so parallel tries gain nothing)."""
        attempts = self._attempts_for(request)
        self._refuse_if_locked(attempts)
        body = await _json_body(request)   # a slow body holds nothing: the lock is looked at again
        self._refuse_if_locked(attempts)
        attempts.busy = True
        try:
            pin = body.get("pin")
            if not isinstance(pin, str) or not _same_secret(pin, self.pin):
                await self._wrong_pin(attempts)
        finally:
            attempts.busy = False
        attempts.failures, attempts.not_before = 0, 0.0
        token, csrf = secrets.token_urlsafe(32), secrets.token_urlsafe(32)
        self._forget_expired()
        self.sessions[token] = Session(csrf, time.monotonic() + SESSION_S)
        response = web.json_response({"ok": True, "csrf": csrf})
        response.set_cookie(SESSION_COOKIE, token, httponly=True, samesite="Strict", max_age=SESSION_S, path="/")
        return response

    @staticmethod
    def _refuse_if_locked(attempts: Attempts) -> None:
        now = time.monotonic()
        if attempts.busy:
            raise _error(web.HTTPTooManyRequests, LoginBusy())
        if now < attempts.not_before:
            wait = int(attempts.not_before - now) + 1
            raise _error(web.HTTPTooManyRequests, TooManyWrongPins(wait))

    async def _wrong_pin(self, attempts: Attempts) -> None:
        attempts.failures += 1
        attempts.last = time.monotonic()
        if attempts.failures >= LOCKOUT_AFTER:
            attempts.not_before = attempts.last + min(LOCKOUT_MAX_S, 2.0 ** (attempts.failures - 2))
        await asyncio.sleep(min(WRONG_PIN_MAX_DELAY_S, self.wrong_pin_delay_s * attempts.failures))
        raise _error(web.HTTPUnauthorized, WrongPin())

    async def _logout(self, request: web.Request) -> web.Response:
        """The session ends, and so do its open sockets (the page goes back to the PIN)."""
        token, session = self._checked_session(request)
        self.sessions.pop(token, None)
        self._close_sockets(session)
        response = web.json_response({"ok": True})
        response.del_cookie(SESSION_COOKIE, path="/")
        return response

    async def _get_judge_state(self, request: web.Request) -> web.Response:
        session = self._session(request)
        return web.json_response({**self.judge_state(), "csrf": session.csrf}, dumps=_dumps)

    async def _post_command(self, request: web.Request) -> web.Response:
        self._checked_session(request)
        body = await _json_body(request)
        if self.director is None:
            raise _error(web.HTTPConflict, TableIdle() if self.desk is not None else NoGameYet())
        seats = self.director.game.seats
        try:
            line = check_command(body.get("command"), seats)
        except CommandError as err:
            raise _error(web.HTTPBadRequest, err.refusal) from None
        status, outcome, answer, typed = await self.command(line)
        told = {"error": answer} if outcome == "refused" else {"ok": True, "answer": answer}
        return web.json_response({**told, "id": typed, "command": line, "outcome": outcome}, status=status,
                                 dumps=_dumps)

    # ---- the idle table's setup (voicehost serve) ------------------------------------------------------

    async def _post_start(self, request: web.Request) -> web.Response:
        """A game with the judge's choices, through the same start as the chord and ``start``."""
        self._checked_session(request)
        body = await _json_body(request)
        assert self.desk is not None
        try:
            choice = read_choice(body, self.desk.seats)
        except SetupError as err:
            raise _error(web.HTTPBadRequest, err.refusal) from None
        return self._desk_answer(self.desk.start(choice), said("game_starts"))

    async def _post_resume(self, request: web.Request) -> web.Response:
        self._checked_session(request)
        assert self.desk is not None
        return self._desk_answer(self.desk.resume(), said("game_resumed"))

    async def _post_discard(self, request: web.Request) -> web.Response:
        self._checked_session(request)
        assert self.desk is not None
        return self._desk_answer(self.desk.discard(), said("game_set_aside"))

    async def _post_best(self, request: web.Request) -> web.Response:
        """The table's best-player vote for the game just played, ``{"seat": N}``."""
        self._checked_session(request)
        body = await _json_body(request)
        assert self.desk is not None
        seat = body.get("seat")
        if isinstance(seat, bool) or not isinstance(seat, int):
            raise _error(web.HTTPBadRequest, NoBestSeatGiven())
        return self._desk_answer(self.desk.best(seat), said("best_player", seat=seat))

    def _setup(self) -> dict[str, Any]:
        assert self.desk is not None
        state = self.desk.setup_state()
        return {**offered(self.desk.seats, state.get("ruleset"), state.get("options")), **state}

    def _desk_answer(self, refused: Refusal | None, done: str) -> web.Response:
        if refused is not None:
            raise _error(web.HTTPConflict, refused)
        self._schedule()
        return web.json_response({"ok": True, "answer": done}, dumps=_dumps)

    def _session(self, request: web.Request) -> Session:
        token = request.cookies.get(SESSION_COOKIE, "")
        session = self.sessions.get(token)
        if session is None or session.expires < time.monotonic():
            raise _error(web.HTTPUnauthorized, JudgeLoginNeeded())
        return session

    def _checked_session(self, request: web.Request) -> tuple[str, Session]:
        """A session, and the CSRF token it was given at login in the X-CSRF-Token header."""
        session = self._session(request)
        sent = request.headers.get("X-CSRF-Token", "")
        if not _same_secret(sent, session.csrf):
            raise _error(web.HTTPForbidden, NoCsrfToken())
        return request.cookies[SESSION_COOKIE], session

    def _forget_expired(self) -> None:
        now = time.monotonic()
        for token in [t for t, s in self.sessions.items() if s.expires < now]:
            self._close_sockets(self.sessions.pop(token))

    def _close_sockets(self, session: Session) -> None:
        """Closed from their own tasks: a close waits for the phone's reply to it."""
        for ws in list(session.sockets):
            task = asyncio.ensure_future(ws.close(code=LOGGED_OUT, message=b"session ended"))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        session.sockets.clear()


def _page(name: str) -> Callable[[web.Request], Awaitable[web.FileResponse]]:
    async def page(request: web.Request) -> web.FileResponse:
        return web.FileResponse(STATIC / name, headers={"Cache-Control": "no-cache"})
    return page


ASSETS = frozenset(path.name for path in STATIC.iterdir() if path.suffix in (".css", ".js"))


async def _static(request: web.Request) -> web.FileResponse:
    """Only the pages' own files, by name: no directory, no path, nothing else of the package."""
    name = request.match_info["name"]
    if name not in ASSETS:
        raise _error(web.HTTPNotFound, NoSuchPage())
    return web.FileResponse(STATIC / name, headers={"Cache-Control": "no-cache"})


async def _no_icon(request: web.Request) -> web.Response:
    """Browsers ask for it on every page; there is none (and no refusal to log for it)."""
    return web.Response(status=204)


# Every answer: no framing (clickjacking the console), no sniffing, no referrer, nothing of ours
# embedded by another origin. The pages' scripts and styles are files of their own (no inline
# code): the policy allows this origin's files only, and sockets to this host.
SECURITY_HEADERS = {"X-Content-Type-Options": "nosniff", "X-Frame-Options": "DENY",
                    "Referrer-Policy": "no-referrer", "Cross-Origin-Resource-Policy": "same-origin"}
CONTENT_SECURITY_POLICY = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
                           "connect-src 'self'{sockets}; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
HOST_NAME = re.compile(r"[A-Za-z0-9.\-]+(:[0-9]+)?|\[[0-9A-Fa-f:.]+\](:[0-9]+)?")


def security_headers(scheme: str, host: str) -> dict[str, str]:
    """The headers of every answer; the socket URL is named too, since older Safari does not
    count ws:// as 'self'."""
    sockets = f" {'wss' if scheme == 'https' else 'ws'}://{host}" if HOST_NAME.fullmatch(host) else ""
    return {**SECURITY_HEADERS, "Content-Security-Policy": CONTENT_SECURITY_POLICY.format(sockets=sockets)}


async def _security_headers(request: web.Request, response: web.StreamResponse) -> None:
    response.headers.update(security_headers(request.scheme, request.host))


def _same_secret(sent: str, secret: str) -> bool:
    """A constant-time compare that any string can take (a lone surrogate from JSON, a header's
    undecodable bytes), not only what encodes as UTF-8."""
    return hmac.compare_digest(sent.encode("utf-8", "surrogatepass"), secret.encode("utf-8", "surrogatepass"))


def _dumps(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False)


class Refused(web.HTTPClientError):
    """A 4xx whose body is ``{"error": "<one line>"}``."""

    def __init__(self, status: int, line: str) -> None:
        self.status_code = status
        super().__init__(text=_dumps({"error": line}), content_type="application/json")


def _error(kind: type[web.HTTPException], refusal: Refusal) -> web.HTTPException:
    """The answer ``kind`` (its status) with the refusal worded from the phrasebook's [refusals]."""
    return Refused(kind.status_code, _worded(refusal))


def _worded(refusal: Refusal) -> str:
    return refusal_text(refusal, load_phrasebook())


async def _json_body(request: web.Request) -> dict[str, Any]:
    if request.content_type != "application/json":
        raise _error(web.HTTPUnsupportedMediaType, NotJson())
    try:
        body = json.loads(await request.text())
    except web.HTTPRequestEntityTooLarge:
        raise _error(web.HTTPRequestEntityTooLarge, BodyTooLarge(MAX_BODY)) from None
    except RecursionError:
        raise _error(web.HTTPBadRequest, JsonTooDeep()) from None
    except (ValueError, UnicodeDecodeError):
        raise _error(web.HTTPBadRequest, BadJson()) from None
    if not isinstance(body, dict):
        raise _error(web.HTTPBadRequest, NotAJsonObject())
    if not _encodable(body):
        raise _error(web.HTTPBadRequest, LoneSurrogate())
    return body


def _encodable(data: Any) -> bool:
    """No string of the body has a lone surrogate (valid JSON, but no text: it would fail the
    first write, to the journal or a compare). Without recursion: the nesting is the client's."""
    pending = [data]
    while pending:
        item = pending.pop()
        if isinstance(item, str):
            try:
                item.encode()
            except UnicodeEncodeError:
                return False
        elif isinstance(item, dict):
            pending.extend(item.keys())
            pending.extend(item.values())
        elif isinstance(item, list):
            pending.extend(item)
    return True


def _refusal(status: int) -> str:
    """aiohttp's own refusal of this status, worded (413: the body over :data:`MAX_BODY`)."""
    refusal = BodyTooLarge(MAX_BODY) if status == 413 else STATUS_REFUSALS.get(status, RequestRefused(status))
    return _worded(refusal)


def _logged(request: web.BaseRequest, answer: str) -> None:
    """The one log line of a refused request (the path cut short: it is the client's)."""
    log.warning("web: refused %s %s from %s: %s", request.method, _short(request.rel_url.path),
                request.remote or "?", answer)


def _short(text: str, limit: int = 80) -> str:
    text = "".join(c if c.isprintable() else "?" for c in text)
    return text if len(text) <= limit else text[:limit] + "…"


@web.middleware
async def _one_line_errors(request: web.Request, handler: Any) -> web.StreamResponse:
    """Every refusal, ours or aiohttp's, as ``{"error": "<one line>"}`` with its 4xx and one log
    line; a phone gone in the middle of its request is one log line too."""
    try:
        return await handler(request)  # type: ignore[no-any-return]
    except web.HTTPException as err:
        if err.status < 400:
            raise
        if err.content_type == "application/json":
            _logged(request, f"{err.status} {json.loads(err.text or '{}').get('error', '')}")
            raise
        _logged(request, f"{err.status} {_refusal(err.status)}")
        return web.json_response({"error": _refusal(err.status)}, status=err.status, dumps=_dumps)
    except ConnectionError:
        _logged(request, "the client left in the middle of its request")
        return web.json_response({"error": _worded(ConnectionLost())}, status=400, dumps=_dumps)


@web.middleware
async def _same_origin(request: web.Request, handler: Any) -> web.StreamResponse:
    """A request from another origin's page is refused — a state-changing one (with the CSRF
    token and the SameSite cookie, the third fence) and a socket (a page on another port of the
    same Pi is same-site: it is sent the cookie). Browsers always send the Origin of a socket."""
    origin = request.headers.get("Origin")
    if origin is not None and not _own_origin(origin, request.scheme, request.host):
        raise _error(web.HTTPForbidden, ForeignOrigin())
    return await handler(request)  # type: ignore[no-any-return]


def _own_origin(origin: str, scheme: str, host: str) -> bool:
    """``Origin`` names this server: the same scheme, host and port as the request's Host."""
    return _origin_key(origin) == _origin_key(f"{scheme}://{host}")


def _origin_key(url: str) -> tuple[str, str, int | None] | None:
    try:
        parts = urlsplit(url.strip())
        port = parts.port or {"http": 80, "https": 443}.get(parts.scheme.lower())
    except ValueError:
        return None
    if not parts.hostname or parts.path or parts.query:
        return None
    return parts.scheme.lower(), parts.hostname.lower(), port


class _DoorHandler(RequestHandler):
    """aiohttp's connection protocol, answering a request its own parser refused (a URL or a
    header over 8190 bytes, not HTTP at all) like every other refusal: a 4xx with one Russian
    line, the security headers, one log line — instead of a traceback and English text."""

    def handle_error(self, request: web.BaseRequest, status: int = 500, exc: BaseException | None = None,
                     message: str | None = None) -> web.StreamResponse:
        if status >= 500:
            return super().handle_error(request, status, exc, message)
        status, line = _parser_refusal(exc)
        log.warning("web: refused a request from %s: %s %s", request.remote or "?", status, line)
        response = web.json_response({"error": line}, status=status, dumps=_dumps,
                                     headers=security_headers("http", ""))
        response.force_close()
        return response


def _parser_refusal(exc: BaseException | None) -> tuple[int, str]:
    if isinstance(exc, LineTooLong):
        line = exc.args[0] if exc.args else b""
        is_url = isinstance(line, (bytes, bytearray)) and re.match(rb"([A-Z]+ )?/", bytes(line)) is not None
        return (414, _worded(UrlTooLong())) if is_url else (431, _worded(HeaderTooLong()))
    return 400, _worded(BadHttp())


class _DoorServer(web.Server):
    def __call__(self) -> RequestHandler:
        return _DoorHandler(self, loop=self._loop, **self._kwargs)


class _DoorRunner(web.AppRunner):
    """aiohttp's runner, with :class:`_DoorHandler` for every connection (aiohttp has no hook
    for its parser's refusals: aio-libs/aiohttp#3287)."""

    async def _make_server(self) -> web.Server:
        server = await super()._make_server()
        server.__class__ = _DoorServer
        return server


def serving(address: str, pin: str | None, show: Callable[[str], None]
            ) -> Callable[[Director], AbstractAsyncContextManager[WebTable]]:
    """For ``--web HOST:PORT``: given the director, serve its table while the game runs (the
    URLs and the PIN are shown once, on the terminal)."""
    host, port = parse_address(address)

    @asynccontextmanager
    async def around(director: Director) -> AsyncIterator[WebTable]:
        table = WebTable(pin)
        url = await table.start(host, port)
        table.attach(director)
        show(f"voicehost: the table display: {url}/  the judge console: {url}/judge  (PIN {table.pin})")
        try:
            yield table
        finally:
            table.finish()
            await table.stop()
    return around
