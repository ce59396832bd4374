"""The web door's refusals: a request the server does not take (a wrong PIN, no session, a body
that is not JSON, a page that does not exist, what aiohttp's own parser refuses).

Like every refusal they are values (:class:`~voicehost.rules.Refusal`): the answer's
``{"error": …}`` is each kind's ``english`` template in the language in use (its Russian in the
gettext catalog), said by the one renderer, :func:`voicehost.language.refusals.refusal_text`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from voicehost.i18n import N_
from voicehost.rules import Refusal


@dataclass(frozen=True)
class WrongPin(Refusal):
    english: ClassVar[str] = N_("wrong PIN")


@dataclass(frozen=True)
class LoginBusy(Refusal):
    english: ClassVar[str] = N_("the previous login attempt is still being answered")


@dataclass(frozen=True)
class TooManyWrongPins(Refusal):
    english: ClassVar[str] = N_("too many wrong PINs: wait {wait} s")
    wait: int


@dataclass(frozen=True)
class JudgeLoginNeeded(Refusal):
    english: ClassVar[str] = N_("no judge session: log in with the PIN")


@dataclass(frozen=True)
class NoCsrfToken(Refusal):
    english: ClassVar[str] = N_("no CSRF token of the session")


@dataclass(frozen=True)
class ForeignOrigin(Refusal):
    english: ClassVar[str] = N_("a request from another origin's page")


@dataclass(frozen=True)
class NotJson(Refusal):
    english: ClassVar[str] = N_("the body must be JSON (Content-Type: application/json)")


@dataclass(frozen=True)
class BodyTooLarge(Refusal):
    english: ClassVar[str] = N_("the body is over {limit} bytes")
    limit: int


@dataclass(frozen=True)
class JsonTooDeep(Refusal):
    english: ClassVar[str] = N_("bad JSON: nested too deep")


@dataclass(frozen=True)
class BadJson(Refusal):
    english: ClassVar[str] = N_("bad JSON")


@dataclass(frozen=True)
class NotAJsonObject(Refusal):
    english: ClassVar[str] = N_("a JSON object was expected")


@dataclass(frozen=True)
class LoneSurrogate(Refusal):
    english: ClassVar[str] = N_("bad JSON: a lone surrogate in a string")


@dataclass(frozen=True)
class BadRequest(Refusal):
    english: ClassVar[str] = N_("bad request")


@dataclass(frozen=True)
class Forbidden(Refusal):
    english: ClassVar[str] = N_("forbidden")


@dataclass(frozen=True)
class NoSuchPage(Refusal):
    english: ClassVar[str] = N_("no such page")


@dataclass(frozen=True)
class MethodNotAllowed(Refusal):
    english: ClassVar[str] = N_("this method is not taken here")


@dataclass(frozen=True)
class UrlTooLong(Refusal):
    english: ClassVar[str] = N_("the request's URL is too long")


@dataclass(frozen=True)
class HeaderTooLong(Refusal):
    english: ClassVar[str] = N_("a request header is too long")


@dataclass(frozen=True)
class RequestRefused(Refusal):
    """Any other 4xx of aiohttp's: only its status is known."""

    english: ClassVar[str] = N_("refused (status {status})")
    status: int


@dataclass(frozen=True)
class BadHttp(Refusal):
    english: ClassVar[str] = N_("not an HTTP request")


@dataclass(frozen=True)
class ConnectionLost(Refusal):
    english: ClassVar[str] = N_("the client left in the middle of its request")


@dataclass(frozen=True)
class NoBestSeatGiven(Refusal):
    english: ClassVar[str] = N_('no seat: send {{"seat": 3}}')


# ---- the setup page's refusals (voicehost.web.setup) ------------------------------------------------------

@dataclass(frozen=True)
class UnknownSetupField(Refusal):
    english: ClassVar[str] = N_("unknown setup field: {names}")
    names: str


@dataclass(frozen=True)
class SetupNotObjects(Refusal):
    english: ClassVar[str] = N_("the options and the names must be JSON objects")


@dataclass(frozen=True)
class NoDealMode(Refusal):
    english: ClassVar[str] = N_("choose who deals the cards: the host or the judge")


@dataclass(frozen=True)
class SetupNotTaken(Refusal):
    """The one setup check refused the choice (``problem``: its own sentence, in the language in use)."""

    english: ClassVar[str] = N_("setup not taken: {problem}")
    problem: str


STATUS_REFUSALS: dict[int, Refusal] = {
    400: BadRequest(), 403: Forbidden(), 404: NoSuchPage(), 405: MethodNotAllowed(), 414: UrlTooLong(),
    431: HeaderTooLong()}
"""aiohttp's own refusals by status (413: :class:`BodyTooLarge`, with the limit; any other: :class:`RequestRefused`)."""


@dataclass(frozen=True)
class StreamKeyNeeded(Refusal):
    english: ClassVar[str] = N_("the overlay with the roles needs the stream key (?key=…)")


@dataclass(frozen=True)
class NoSuchTable(Refusal):
    english: ClassVar[str] = N_("no table {table} reports to this screen")
    table: str
