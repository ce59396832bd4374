"""The judge's door: the PIN, its sessions, the CSRF token, and the wrong PINs' lockout.

:class:`JudgeDoor` keeps the sessions (an HttpOnly cookie each, with the CSRF token given at
login) and the attempt sources (a cookie given with the judge's page, so a flood of wrong PINs
from one phone locks that phone, never the judge's own page). :func:`judge_session` is the
middleware that guards the judge's routes (:data:`JUDGE_PATHS`): a session for each, and its
CSRF token in ``X-CSRF-Token`` for each POST; the handler finds the session under
:data:`SESSION`. See docs/web.md, «The door».
"""

from __future__ import annotations

import asyncio
import secrets
import time
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from voicehost.web.door import json_body, refused, same_secret
from voicehost.web.fanout import Fanout
from voicehost.web.refusals import JudgeLoginNeeded, LoginBusy, NoCsrfToken, TooManyWrongPins, WrongPin

SESSION_COOKIE = "voicehost_judge"
SESSION_S = 12 * 3600          # a tournament evening
WRONG_PIN_DELAY_S = 0.5        # the n-th wrong PIN of an attempt source answers n times this late (≤ 5 s) …
WRONG_PIN_MAX_DELAY_S = 5.0
LOCKOUT_AFTER = 3              # … and after this many in a row, its next try waits 2, 4, 8 … 60 s
LOCKOUT_MAX_S = 60.0
ATTEMPT_COOKIE = "voicehost_try"   # an attempt source: given with the judge's page, locked on its own
SOURCES_PER_ADDRESS = 5        # new attempt sources one address is given …
SOURCE_WINDOW_S = 600.0        # … per this many seconds (then its logins count against the address)
FORGET_ATTEMPTS_S = 3600.0     # an address with no failure for this long is forgotten (a source: after SESSION_S)
LOGGED_OUT = 4001              # the close code of a judge socket whose session ended


@dataclass
class JudgeSession:
    token: str
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
class PinSource:
    address: str
    issued: float
    attempts: Attempts = field(default_factory=Attempts)


class JudgeDoor:
    """The PIN and what it opens. ``sockets``: the judge's fan-out, whose sockets of a session
    are closed when the session ends."""

    def __init__(self, pin: str | None, wrong_pin_delay_s: float, sockets: Fanout) -> None:
        self.pin = pin or f"{secrets.randbelow(10**6):06d}"
        self.wrong_pin_delay_s = wrong_pin_delay_s
        self.fanout = sockets
        self.sessions: dict[str, JudgeSession] = {}
        self.attempts: dict[str, Attempts] = {}      # by address: the logins that bring no source
        self.sources: dict[str, PinSource] = {}         # by the ATTEMPT_COOKIE's token

    # ---- attempt sources ------------------------------------------------------------------------------

    def give_source(self, request: web.Request, response: web.StreamResponse) -> None:
        """The judge's page brings an attempt source of its own (:meth:`_attempts_for`)."""
        if request.cookies.get(ATTEMPT_COOKIE, "") not in self.sources:
            token = self._new_source(request.remote or "?")
            if token is not None:
                response.set_cookie(ATTEMPT_COOKIE, token, httponly=True, samesite="Strict", path="/")

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
        self.sources[token] = PinSource(address, now)
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

    # ---- login and logout -----------------------------------------------------------------------------

    async def login(self, request: web.Request) -> web.Response:
        """A PIN, checked only when its source is neither locked nor still waiting for the
        answer to its previous try (so parallel tries gain nothing)."""
        attempts = self._attempts_for(request)
        self._refuse_if_locked(attempts)
        body = await json_body(request)   # a slow body holds nothing: the lock is looked at again
        self._refuse_if_locked(attempts)
        attempts.busy = True
        try:
            pin = body.get("pin")
            if not isinstance(pin, str) or not same_secret(pin, self.pin):
                await self._wrong_pin(attempts)
        finally:
            attempts.busy = False
        attempts.failures, attempts.not_before = 0, 0.0
        token, csrf = secrets.token_urlsafe(32), secrets.token_urlsafe(32)
        self._forget_expired()
        self.sessions[token] = JudgeSession(token, csrf, time.monotonic() + SESSION_S)
        response = web.json_response({"ok": True, "csrf": csrf})
        response.set_cookie(SESSION_COOKIE, token, httponly=True, samesite="Strict", max_age=SESSION_S, path="/")
        return response

    @staticmethod
    def _refuse_if_locked(attempts: Attempts) -> None:
        now = time.monotonic()
        if attempts.busy:
            raise refused(web.HTTPTooManyRequests, LoginBusy())
        if now < attempts.not_before:
            wait = int(attempts.not_before - now) + 1
            raise refused(web.HTTPTooManyRequests, TooManyWrongPins(wait))

    async def _wrong_pin(self, attempts: Attempts) -> None:
        attempts.failures += 1
        attempts.last = time.monotonic()
        if attempts.failures >= LOCKOUT_AFTER:
            attempts.not_before = attempts.last + min(LOCKOUT_MAX_S, 2.0 ** (attempts.failures - 2))
        await asyncio.sleep(min(WRONG_PIN_MAX_DELAY_S, self.wrong_pin_delay_s * attempts.failures))
        raise refused(web.HTTPUnauthorized, WrongPin())

    def logout(self, session: JudgeSession) -> web.Response:
        """The session ends, and so do its open sockets (the page goes back to the PIN)."""
        self.sessions.pop(session.token, None)
        self.end(session)
        response = web.json_response({"ok": True})
        response.del_cookie(SESSION_COOKIE, path="/")
        return response

    # ---- the sessions ------------------------------------------------------------------------------

    def session(self, request: web.Request) -> JudgeSession:
        token = request.cookies.get(SESSION_COOKIE, "")
        session = self.sessions.get(token)
        if session is None or session.expires < time.monotonic():
            raise refused(web.HTTPUnauthorized, JudgeLoginNeeded())
        return session

    def checked_session(self, request: web.Request) -> JudgeSession:
        """A session, and the CSRF token it was given at login in the X-CSRF-Token header."""
        session = self.session(request)
        if not same_secret(request.headers.get("X-CSRF-Token", ""), session.csrf):
            raise refused(web.HTTPForbidden, NoCsrfToken())
        return session

    def _forget_expired(self) -> None:
        now = time.monotonic()
        for token in [t for t, s in self.sessions.items() if s.expires < now]:
            self.end(self.sessions.pop(token))

    def end(self, session: JudgeSession) -> None:
        """The session's sockets are closed (the phone's page goes back to the PIN)."""
        self.fanout.close_some(session.sockets, LOGGED_OUT, b"session ended")


JUDGE_DOOR = web.AppKey("judge_door", JudgeDoor)
SESSION = web.RequestKey("judge_session", JudgeSession)
JUDGE_PATHS = ("/api/logout", "/api/judge/", "/ws/judge")
"""The judge's routes: these paths and what is under them need a session (and a POST its CSRF token)."""


def judges_only(path: str) -> bool:
    return any(path == p or (p.endswith("/") and path.startswith(p)) for p in JUDGE_PATHS)


@web.middleware
async def judge_session(request: web.Request, handler: Any) -> web.StreamResponse:
    """A judge's route (one the router found: an unknown path stays a 404) is served only within
    a session, and a POST only with the session's CSRF token."""
    if judges_only(request.path) and request.match_info.http_exception is None:
        door = request.app[JUDGE_DOOR]
        request[SESSION] = door.checked_session(request) if request.method == "POST" else door.session(request)
    return await handler(request)  # type: ignore[no-any-return]
