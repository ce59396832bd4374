"""The web server on the director's own loop: the table display, the judge console, the API.

URLs (see docs/web.md):

- ``/`` the table display; ``/judge`` the judge console; ``/static/…`` their files (all local)
- ``GET /api/state`` the public state; ``GET /ws`` the public state, pushed on every change
- ``POST /api/login {"pin"}`` a judge session (HttpOnly cookie) and its CSRF token
- ``GET /api/judge/state`` and ``GET /ws/judge`` the judge's state (401 without a session)
- ``POST /api/judge/command {"command": "foul 3"}`` (header ``X-CSRF-Token``) the console's own
  words, through the director's console queue; the answer once the director took or refused it
- ``POST /api/logout``
- served by ``voicehost serve`` (an idle table, :mod:`~voicehost.web.setup`): ``POST /api/judge/start``
  ``{"ruleset", "options", "names", "deal", "cards"}``, ``POST /api/judge/resume``, ``POST
  /api/judge/discard``, ``POST /api/judge/best {"seat": N}`` (the last game's best player);
  the judge's state then carries ``setup`` (what may be chosen) while idle

Every refusal is a 4xx with ``{"error": "<one Russian line>"}``.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import secrets
import time
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from aiohttp import WSMsgType, web

from voicehost.host import ConsoleAnswered, Director, Notice
from voicehost.rules import InputError
from voicehost.web.commands import CommandError, check_command, in_russian
from voicehost.web.setup import SetupDesk, SetupError, offered, read_choice
from voicehost.web.view import TableView

STATIC = Path(__file__).parent / "static"
MAX_BODY = 4096                # bytes: a command or a PIN is a few dozen
SESSION_COOKIE = "voicehost_judge"
SESSION_S = 12 * 3600          # a tournament evening
COMMAND_WAIT_S = 20.0          # a command waits this long for the director (it may be mid-line)
WRONG_PIN_DELAY_S = 0.5        # every wrong PIN answers this late …
LOCKOUT_AFTER = 3              # … and after this many in a row, the next try waits 2, 4, 8 … 60 s
LOCKOUT_MAX_S = 60.0
ANSWERS = 20                   # the judge's recent console answers kept in his state



def parse_address(text: str) -> tuple[str, int]:
    """``--web HOST:PORT`` (``:8080`` or ``8080`` alone: every interface)."""
    host, _, port = text.rpartition(":")
    if not port.isdigit() or not 0 <= int(port) <= 65535:
        raise InputError("--web", f"{text!r} is not HOST:PORT (e.g. 0.0.0.0:8080)")
    return host or "0.0.0.0", int(port)


@dataclass
class Session:
    csrf: str
    expires: float


@dataclass
class Attempts:
    failures: int = 0
    not_before: float = 0.0


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
        self.attempts: dict[str, Attempts] = {}
        self.public_sockets: set[web.WebSocketResponse] = set()
        self.judge_sockets: set[web.WebSocketResponse] = set()
        self.pending: dict[str, deque[asyncio.Future[str | None]]] = {}
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
        for waiting in self.pending.values():
            for future in waiting:
                if not future.done():
                    future.set_result("Игра завершена: команды больше не принимаются.")
        self.pending.clear()
        self._schedule()

    def _changed(self, notice: Notice) -> None:
        if self.view is not None:
            self.view.heard(notice)
        if isinstance(notice, ConsoleAnswered):
            self._answered(notice.line, notice.refusal)
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
            phase = ({"kind": "idle", "number": 0, "text": "Стол готов"} if self.desk is not None
                     else {"kind": "waiting", "number": 0, "text": "Ждём начала игры"})
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

    async def command(self, line: str) -> tuple[int, str]:
        """Into the director's console queue, exactly as if typed at the terminal; the answer
        once the director has taken or refused it. Returns (HTTP status, Russian answer)."""
        if self.director is None:
            return 409, "Стол свободен: игра не идёт." if self.desk is not None else "Игра ещё не началась."
        if self.finished or self.director.game.is_over:
            return 409, "Игра окончена: команды больше не принимаются."
        future: asyncio.Future[str | None] = asyncio.get_running_loop().create_future()
        self.pending.setdefault(line, deque()).append(future)
        said_before = self.view.said if self.view is not None else 0
        self.director.ports.type(line)
        try:
            refused = await asyncio.wait_for(asyncio.shield(future), COMMAND_WAIT_S)
        except TimeoutError:
            return 202, "Команда в очереди: ведущий выполнит её, как только договорит."
        if refused is not None:
            return 409, refused
        said = [entry["text"] for entry in (self.view.lines if self.view else []) if entry["n"] > said_before]
        return 200, " ".join(["Готово.", *said])

    def _answered(self, line: str, error: str | Exception | None) -> None:
        reason = None if error is None else in_russian(str(error))
        self.answers.append({"command": line, "ok": error is None, "answer": reason or "Готово."})
        waiting = self.pending.get(line)
        if waiting:
            future = waiting.popleft()
            if not waiting:
                del self.pending[line]
            if not future.done():
                future.set_result(reason)

    # ---- the application ----------------------------------------------------------------------------

    def _build_app(self) -> web.Application:
        app = web.Application(client_max_size=MAX_BODY, middlewares=[_one_line_errors, _same_origin])
        app.router.add_get("/", _page("table.html"))
        app.router.add_get("/judge", _page("judge.html"))
        app.router.add_static("/static/", STATIC, follow_symlinks=False)
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
        self._runner = web.AppRunner(self.app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, host, port)
        try:
            await site.start()
        except OSError as err:
            await self._runner.cleanup()
            raise InputError("--web", f"cannot listen on {host}:{port}: {err.strerror or err}") from None
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
        self._session(request)
        return await self._serve_socket(request, self.judge_sockets, self.judge_state)

    async def _serve_socket(self, request: web.Request, sockets: set[web.WebSocketResponse],
                            state: Callable[[], dict[str, Any]]) -> web.WebSocketResponse:
        """The whole state on (re)connect, then every change; what the client sends is ignored
        (commands go through POST, where the CSRF token is checked)."""
        ws = web.WebSocketResponse(heartbeat=20.0, max_msg_size=MAX_BODY)
        await ws.prepare(request)
        await ws.send_str(self._message(state()))
        sockets.add(ws)
        try:
            async for message in ws:
                if message.type == WSMsgType.ERROR:
                    break
        finally:
            sockets.discard(ws)
        return ws

    async def _login(self, request: web.Request) -> web.Response:
        who = request.remote or "?"
        attempts = self.attempts.setdefault(who, Attempts())
        now = time.monotonic()
        if now < attempts.not_before:
            wait = int(attempts.not_before - now) + 1
            raise _error(web.HTTPTooManyRequests, f"Слишком много неверных PIN: подождите {wait} с.")
        body = await _json_body(request)
        pin = body.get("pin")
        if not isinstance(pin, str) or not hmac.compare_digest(pin.encode(), self.pin.encode()):
            attempts.failures += 1
            if attempts.failures >= LOCKOUT_AFTER:
                attempts.not_before = time.monotonic() + min(LOCKOUT_MAX_S, 2.0 ** (attempts.failures - 2))
            await asyncio.sleep(self.wrong_pin_delay_s)
            raise _error(web.HTTPUnauthorized, "Неверный PIN.")
        self.attempts.pop(who, None)
        token, csrf = secrets.token_urlsafe(32), secrets.token_urlsafe(32)
        self._forget_expired()
        self.sessions[token] = Session(csrf, time.monotonic() + SESSION_S)
        response = web.json_response({"ok": True, "csrf": csrf})
        response.set_cookie(SESSION_COOKIE, token, httponly=True, samesite="Strict", max_age=SESSION_S, path="/")
        return response

    async def _logout(self, request: web.Request) -> web.Response:
        token, _ = self._checked_session(request)
        self.sessions.pop(token, None)
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
            raise _error(web.HTTPConflict, "Стол свободен: игра не идёт." if self.desk is not None
                         else "Игра ещё не началась.")
        seats = self.director.game.seats
        try:
            line = check_command(body.get("command"), seats)
        except CommandError as err:
            raise _error(web.HTTPBadRequest, str(err)) from None
        status, answer = await self.command(line)
        if status >= 400:
            raise _error(web.HTTPConflict, answer)
        return web.json_response({"ok": True, "command": line, "answer": answer}, status=status, dumps=_dumps)

    # ---- the idle table's setup (voicehost serve) ------------------------------------------------------

    async def _post_start(self, request: web.Request) -> web.Response:
        """A game with the judge's choices, through the same start as the chord and ``start``."""
        self._checked_session(request)
        body = await _json_body(request)
        assert self.desk is not None
        try:
            choice = read_choice(body, self.desk.seats)
        except SetupError as err:
            raise _error(web.HTTPBadRequest, str(err)) from None
        return self._desk_answer(self.desk.start(choice), "Игра начинается.")

    async def _post_resume(self, request: web.Request) -> web.Response:
        self._checked_session(request)
        assert self.desk is not None
        return self._desk_answer(self.desk.resume(), "Продолжаем прерванную игру.")

    async def _post_discard(self, request: web.Request) -> web.Response:
        self._checked_session(request)
        assert self.desk is not None
        return self._desk_answer(self.desk.discard(), "Прерванная игра отложена (журнал сохранён).")

    async def _post_best(self, request: web.Request) -> web.Response:
        """The table's best-player vote for the game just played, ``{"seat": N}``."""
        self._checked_session(request)
        body = await _json_body(request)
        assert self.desk is not None
        seat = body.get("seat")
        if isinstance(seat, bool) or not isinstance(seat, int):
            raise _error(web.HTTPBadRequest, "Нет места: пришлите {\"seat\": 3}.")
        return self._desk_answer(self.desk.best(seat), f"Лучший игрок: место {seat}.")

    def _setup(self) -> dict[str, Any]:
        assert self.desk is not None
        state = self.desk.setup_state()
        return {**offered(self.desk.seats, state.get("ruleset"), state.get("options")), **state}

    def _desk_answer(self, refused: str | None, done: str) -> web.Response:
        if refused is not None:
            raise _error(web.HTTPConflict, refused)
        self._schedule()
        return web.json_response({"ok": True, "answer": done}, dumps=_dumps)

    def _session(self, request: web.Request) -> Session:
        token = request.cookies.get(SESSION_COOKIE, "")
        session = self.sessions.get(token)
        if session is None or session.expires < time.monotonic():
            raise _error(web.HTTPUnauthorized, "Нужен вход судьи: введите PIN.")
        return session

    def _checked_session(self, request: web.Request) -> tuple[str, Session]:
        """A session, and the CSRF token it was given at login in the X-CSRF-Token header."""
        session = self._session(request)
        sent = request.headers.get("X-CSRF-Token", "")
        if not hmac.compare_digest(sent.encode(), session.csrf.encode()):
            raise _error(web.HTTPForbidden, "Нет CSRF-токена сессии: обновите страницу судьи.")
        return request.cookies[SESSION_COOKIE], session

    def _forget_expired(self) -> None:
        now = time.monotonic()
        for token in [t for t, s in self.sessions.items() if s.expires < now]:
            del self.sessions[token]


def _page(name: str) -> Callable[[web.Request], Awaitable[web.FileResponse]]:
    async def page(request: web.Request) -> web.FileResponse:
        return web.FileResponse(STATIC / name, headers={"Cache-Control": "no-cache"})
    return page


def _dumps(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False)


class Refused(web.HTTPClientError):
    """A 4xx whose body is ``{"error": "<one line>"}``."""

    def __init__(self, status: int, line: str) -> None:
        self.status_code = status
        super().__init__(text=_dumps({"error": line}), content_type="application/json")


def _error(kind: type[web.HTTPException], line: str) -> web.HTTPException:
    return Refused(kind.status_code, line)


async def _json_body(request: web.Request) -> dict[str, Any]:
    if request.content_type != "application/json":
        raise _error(web.HTTPUnsupportedMediaType, "Тело запроса должно быть JSON (Content-Type: application/json).")
    try:
        body = json.loads(await request.text())
    except web.HTTPRequestEntityTooLarge:
        raise _error(web.HTTPRequestEntityTooLarge, f"Слишком большой запрос (больше {MAX_BODY} байт).") from None
    except (ValueError, UnicodeDecodeError):
        raise _error(web.HTTPBadRequest, "Неверный JSON.") from None
    if not isinstance(body, dict):
        raise _error(web.HTTPBadRequest, "Ожидался JSON-объект.")
    return body


ERRORS = {404: "Нет такой страницы.", 405: "Этот метод здесь не принимается.",
          413: f"Слишком большой запрос (больше {MAX_BODY} байт)."}


@web.middleware
async def _one_line_errors(request: web.Request, handler: Any) -> web.StreamResponse:
    """Every refusal, ours or aiohttp's, as ``{"error": "<one line>"}`` with its 4xx."""
    try:
        return await handler(request)  # type: ignore[no-any-return]
    except web.HTTPException as err:
        if err.content_type == "application/json" or err.status < 400:
            raise
        return web.json_response({"error": ERRORS.get(err.status, err.reason)}, status=err.status, dumps=_dumps)


@web.middleware
async def _same_origin(request: web.Request, handler: Any) -> web.StreamResponse:
    """A state-changing request from another site's page is refused (with the CSRF token and
    the SameSite cookie, the third fence)."""
    origin = request.headers.get("Origin")
    if request.method == "POST" and origin and urlsplit(origin).netloc != request.host:
        raise _error(web.HTTPForbidden, "Запрос с чужой страницы отклонён.")
    return await handler(request)  # type: ignore[no-any-return]


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
