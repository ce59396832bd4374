"""The door every web server of the table passes through: what each answer carries, how a
request is refused, how a server starts listening.

- :func:`refused`: a refusal value as a 4xx whose body is ``{"error": "<one Russian line>"}``
  (:class:`WordedRefusal`), worded by the one renderer from ``config/phrases/ru.toml``;
- :func:`one_line_errors` and :func:`same_origin`: the middlewares — every refusal, aiohttp's
  own included, is one line in the answer and one in the log; a request or socket from another
  page's origin is refused;
- :func:`add_security_headers`: every answer's headers (:data:`SECURITY_HEADERS` and a
  Content-Security-Policy without 'unsafe-inline');
- :class:`DoorRunner`: aiohttp's runner whose parser refusals (a URL or header too long, not
  HTTP at all) are answered the same way;
- :func:`listen`: serve an application's runner on ``host:port``, or one :class:`InputError`
  naming the option that gave the address.

See docs/web.md, «The door».
"""

from __future__ import annotations

import hmac
import json
import logging
import re
from typing import Any
from urllib.parse import urlsplit

from aiohttp import web
from aiohttp.http_exceptions import LineTooLong
from aiohttp.web_protocol import RequestHandler

from voicehost.i18n import _
from voicehost.language.refusals import refusal_text
from voicehost.rules import InputError, Refusal
from voicehost.web.refusals import (
    STATUS_REFUSALS,
    BadHttp,
    BadJson,
    BodyTooLarge,
    ConnectionLost,
    ForeignOrigin,
    HeaderTooLong,
    JsonTooDeep,
    LoneSurrogate,
    NotAJsonObject,
    NotJson,
    RequestRefused,
    UrlTooLong,
)

MAX_BODY = 4096                # bytes: a request's body (a command or a PIN is a few dozen)

log = logging.getLogger("voicehost.web")


# ---- refusals -------------------------------------------------------------------------------------

class WordedRefusal(web.HTTPClientError):
    """A 4xx whose body is ``{"error": "<one line>"}``."""

    def __init__(self, status: int, line: str) -> None:
        self.status_code = status
        super().__init__(text=dumps({"error": line}), content_type="application/json")


def refused(kind: type[web.HTTPException], refusal: Refusal) -> web.HTTPException:
    """The answer ``kind`` (its status) with the refusal worded in the language in use."""
    return WordedRefusal(kind.status_code, worded(refusal))


def worded(refusal: Refusal) -> str:
    return refusal_text(refusal)


def dumps(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False)


def same_secret(sent: str, secret: str) -> bool:
    """A constant-time compare that any string can take (a lone surrogate from JSON, a header's
    undecodable bytes), not only what encodes as UTF-8."""
    return hmac.compare_digest(sent.encode("utf-8", "surrogatepass"), secret.encode("utf-8", "surrogatepass"))


async def json_body(request: web.Request) -> dict[str, Any]:
    """The request's body, a JSON object of text that encodes, or the refusal that says why not."""
    if request.content_type != "application/json":
        raise refused(web.HTTPUnsupportedMediaType, NotJson())
    try:
        body = json.loads(await request.text())
    except web.HTTPRequestEntityTooLarge:
        raise refused(web.HTTPRequestEntityTooLarge, BodyTooLarge(MAX_BODY)) from None
    except RecursionError:
        raise refused(web.HTTPBadRequest, JsonTooDeep()) from None
    except (ValueError, UnicodeDecodeError):
        raise refused(web.HTTPBadRequest, BadJson()) from None
    if not isinstance(body, dict):
        raise refused(web.HTTPBadRequest, NotAJsonObject())
    if not _encodable(body):
        raise refused(web.HTTPBadRequest, LoneSurrogate())
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


# ---- the middlewares ------------------------------------------------------------------------------

def _status_refusal(status: int) -> str:
    """aiohttp's own refusal of this status, worded (413: the body over :data:`MAX_BODY`)."""
    refusal = BodyTooLarge(MAX_BODY) if status == 413 else STATUS_REFUSALS.get(status, RequestRefused(status))
    return worded(refusal)


def _logged(request: web.BaseRequest, answer: str) -> None:
    """The one log line of a refused request (the path cut short: it is the client's)."""
    log.warning("web: refused %s %s from %s: %s", request.method, short(request.rel_url.path),
                request.remote or "?", answer)


def short(text: str, limit: int = 80) -> str:
    """A client's text for the log: printable, cut at ``limit``."""
    text = "".join(c if c.isprintable() else "?" for c in text)
    return text if len(text) <= limit else text[:limit] + "…"


@web.middleware
async def one_line_errors(request: web.Request, handler: Any) -> web.StreamResponse:
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
        line = _status_refusal(err.status)
        _logged(request, f"{err.status} {line}")
        return web.json_response({"error": line}, status=err.status, dumps=dumps)
    except ConnectionError:
        _logged(request, "the client left in the middle of its request")
        return web.json_response({"error": worded(ConnectionLost())}, status=400, dumps=dumps)


@web.middleware
async def same_origin(request: web.Request, handler: Any) -> web.StreamResponse:
    """A request from another origin's page is refused — a state-changing one (with the CSRF
    token and the SameSite cookie, the third fence) and a socket (a page on another port of the
    same Pi is same-site: it is sent the cookie). Browsers always send the Origin of a socket."""
    origin = request.headers.get("Origin")
    if origin is not None and not _own_origin(origin, request.scheme, request.host):
        raise refused(web.HTTPForbidden, ForeignOrigin())
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


# ---- every answer's headers -----------------------------------------------------------------------

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


async def add_security_headers(request: web.Request, response: web.StreamResponse) -> None:
    """An ``on_response_prepare`` signal: :func:`security_headers` on every answer."""
    response.headers.update(security_headers(request.scheme, request.host))


async def no_content(request: web.Request) -> web.Response:
    """``/favicon.ico``: browsers ask for it on every page; there is none (and no refusal to log)."""
    return web.Response(status=204)


# ---- the parser's refusals ------------------------------------------------------------------------

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
        response = web.json_response({"error": line}, status=status, dumps=dumps,
                                     headers=security_headers("http", ""))
        response.force_close()
        return response


def _parser_refusal(exc: BaseException | None) -> tuple[int, str]:
    if isinstance(exc, LineTooLong):
        line = exc.args[0] if exc.args else b""
        is_url = isinstance(line, (bytes, bytearray)) and re.match(rb"([A-Z]+ )?/", bytes(line)) is not None
        return (414, worded(UrlTooLong())) if is_url else (431, worded(HeaderTooLong()))
    return 400, worded(BadHttp())


class _DoorServer(web.Server):
    def __call__(self) -> RequestHandler:
        return _DoorHandler(self, loop=self._loop, **self._kwargs)


class DoorRunner(web.AppRunner):
    """aiohttp's runner, with :class:`_DoorHandler` for every connection (aiohttp has no hook
    for its parser's refusals: aio-libs/aiohttp#3287)."""

    async def _make_server(self) -> web.Server:
        server = await super()._make_server()
        server.__class__ = _DoorServer
        return server


# ---- starting ---------------------------------------------------------------------------------------

async def listen(runner: web.AppRunner, host: str, port: int, option: str) -> str:
    """Set up ``runner`` (its application's startup: the background tasks of its ``cleanup_ctx``)
    and serve it on ``host:port``; returns the base URL (the port the OS gave for port 0). An
    address that cannot be had is the ``option``'s :class:`InputError`, with nothing left running."""
    await runner.setup()
    site = web.TCPSite(runner, host, port)
    try:
        await site.start()
    except OSError as err:
        await runner.cleanup()
        raise InputError(option, _("cannot listen on {host}:{port}: {why}").format(
            host=host, port=port, why=err.strerror or err)) from None
    bound = runner.addresses[0]
    return f"http://{'127.0.0.1' if host in ('0.0.0.0', '') else host}:{bound[1]}"
