"""The stream's overlay: pages for OBS's browser source, fed by the table's own notices.

Two states are made from the :class:`~voicehost.web.view.TableView` the display already keeps
(so the overlay follows the director's notices and reads nothing else of it):

- :func:`public_overlay` — what ``/overlay`` and ``/ws/overlay`` carry, and what the club
  screen's ``/overlay/table/N`` shows: the players' strip, the speaker and his clock, the
  nominations, the vote with each ballot as its button goes down, the outcomes of votes and
  mornings, and the game card at the end. Built from public events only: no field can carry a
  role or a night action.
- :func:`secret_overlay` — the same plus each seat's role, the night's shots and checks, and
  the best move's seats: only ``/overlay/roles`` and ``/ws/overlay/roles`` carry it, with the
  stream key (:class:`Overlay.key`), and each of its messages is held back for the stream's
  delay (:attr:`OverlaySettings.delay_s`) so that nothing secret reaches the stream before the
  picture it belongs to.

``/overlay/events`` is a server-sent event stream of scene hints (``day``, ``night``, ``vote``,
``last_word``, ``over``) for switching OBS scenes. See docs/broadcast.md.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import secrets
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from aiohttp import web

from voicehost.host import ballots_view
from voicehost.i18n import _
from voicehost.language.narrate import narrate, public_lines
from voicehost.language.read_lines import has_line, read_line, section_lines
from voicehost.language.record_words import record_word
from voicehost.rules import InputError
from voicehost.rules.events import (
    PRIVATE_EVENTS,
    BestMoveNamed,
    Eliminated,
    Event,
    GameOver,
    MorningCame,
    RolesDealt,
)
from voicehost.web.door import MAX_BODY, refused
from voicehost.web.fanout import Fanout
from voicehost.web.pages import page as filled_page
from voicehost.web.refusals import StreamKeyNeeded
from voicehost.web.view import RESULT_EVENTS, TableView, final_score

OUTCOMES = 2              # the last outcomes (votes, mornings, the end) the overlay shows
NIGHT_LINES = 12          # the night's private lines the roles view shows
KEPT_SECRETS = 2000       # delayed roles messages kept (a whole game changes a few hundred times)
SCENES = ("day", "night", "vote", "last_word", "over")
LAST_WORD_TURNS = frozenset({"last_word"})
KEY_CHARS = 64            # a stream key's length, at most
OUTCOME_EVENTS = (*RESULT_EVENTS, MorningCame)


@dataclass(frozen=True)
class OverlaySettings:
    """The keyed overlay's settings: the stream key (None: one is made up at start and printed)
    and how long its messages are held back (the stream's own delay, in seconds)."""

    key: str | None = None
    delay_s: float = 0.0


def check_settings(key: object, delay_s: object, key_place: str = "--overlay-key",
                   delay_place: str = "--overlay-delay") -> OverlaySettings:
    """The stream key and delay from the command line or a table file's ``[web]``, checked."""
    if key is not None and (not isinstance(key, str) or not 8 <= len(key) <= KEY_CHARS
                            or not key.isascii() or not key.replace("-", "").replace("_", "").isalnum()):
        raise InputError(key_place, _("must be 8 to 64 Latin letters, digits, - or _"))
    if isinstance(delay_s, bool) or not isinstance(delay_s, (int, float)) or not 0 <= delay_s <= 600:
        raise InputError(delay_place, _("must be a number of seconds from 0 to 600"))
    return OverlaySettings(key, float(delay_s))


# ---- the states -----------------------------------------------------------------------------------

def texts() -> dict[str, str]:
    """The page's labels, the ``overlay.`` read lines in the language in use."""
    return section_lines("overlay")


def public_overlay(view: TableView | None, finished: bool) -> dict[str, Any]:
    """What the public overlay shows (before a game: the phase alone)."""
    if view is None:
        phase = {"kind": "waiting", "number": 0, "text": read_line("web", "phase_waiting")}
        return {"phase": phase, "seats": [], "speaker": None, "nominations": [], "vote": None, "ballots": None,
                "outcomes": [], "card": None, "paused": False, "speed": 1.0, "finished": finished,
                "scene": "day", "scene_text": read_line("overlay", "scene_day")}
    shown = view.public()
    game = view.game
    events = [e for e in game.events if not isinstance(e, PRIVATE_EVENTS)]
    taken = bool(shown["vote"]) and not shown["vote"]["counted"]
    candidates = set(shown["vote"]["candidates"]) if taken else set()
    ballots = _live_ballots(view)
    voted = {voter: g["candidate"] for g in ballots["groups"] for voter in g["voters"]} \
        if taken and ballots and not ballots["complete"] else {}
    seats = [{"seat": s["seat"], "name": s["name"], "alive": s["alive"], "fouls": s["fouls"],
              "out": _out(s["out"]["cause"]) if s["out"] else None, "nominated": s["nominated"],
              "on_ballot": s["seat"] in candidates, "speaking": s["speaking"], "ballot": voted.get(s["seat"])}
             for s in shown["seats"]]
    speaker = shown["speaker"]
    state = {"phase": shown["phase"], "seats": seats,
             "speaker": None if speaker is None else {k: speaker[k] for k in (
                 "seat", "name", "turn", "turn_text", "seconds", "left", "held", "warning_s")},
             "nominations": [{"by": n["by"], "target": n["target"], "text": n["text"]} for n in shown["nominations"]],
             "vote": shown["vote"], "ballots": ballots, "outcomes": _outcomes(events),
             "card": _card(view, events), "paused": shown["paused"], "speed": shown["speed"],
             "finished": finished or game.is_over}
    scene = scene_of(state)
    return {**state, "scene": scene, "scene_text": read_line("overlay", f"scene_{scene}")}


def secret_overlay(view: TableView | None, finished: bool) -> dict[str, Any]:
    """The public overlay and what only the stream may show: the cards, the night, the best move."""
    state = public_overlay(view, finished)
    if view is None:
        return {**state, "roles": {}, "role_kinds": {}, "night_log": [], "best_move": []}
    game = view.game
    roles = getattr(game, "roles", {}) or {}
    night = [e for e in game.events if isinstance(e, PRIVATE_EVENTS) and not isinstance(e, RolesDealt)]
    named = [e for e in game.events if isinstance(e, BestMoveNamed)]
    return {**state,
            "roles": {str(seat): _role(role.value) for seat, role in roles.items()},
            "role_kinds": {str(seat): role.value for seat, role in roles.items()},
            "night_log": list(narrate(night, {}))[-NIGHT_LINES:],
            "best_move": list(named[-1].seats) if named else []}


def _role(kind: str) -> str:
    """A card's name for the strip: the overlay's short one («мирный»), else its record word."""
    key = f"role_{kind}"
    return read_line("overlay", key) if has_line("overlay", key) else record_word(kind)


def scene_of(state: dict[str, Any]) -> str:
    """The OBS scene the moment calls for (:data:`SCENES`)."""
    kind = state["phase"]["kind"]
    if kind == "over" or state["card"]:
        return "over"
    if kind == "night":
        return "night"
    if state["vote"] and not state["vote"]["counted"]:
        return "vote"
    if state["speaker"] and state["speaker"]["turn"] in LAST_WORD_TURNS:
        return "last_word"
    return "day"


def _live_ballots(view: TableView) -> dict[str, Any] | None:
    """Today's last vote's ballots, each as its button goes down (the vote so far, told by the
    director's :class:`~voicehost.host.BallotPressed`), each window's as counted once it closes,
    then all with the count. The stream is not the table: the display waits for the count, the
    broadcast shows the hands as they go up. A group's voters are in the order they pressed."""
    cast, game = view.ballots, view.game
    if cast is None or cast.ballots.day != game.day or game.night > cast.ballots.day:
        return None
    shown = ballots_view(cast.ballots, cast.complete, view.clock.speed)
    return {"complete": shown["complete"], "title": shown["title"],
            "groups": [{"candidate": g["candidate"], "voters": g["voters"], "text": g["text"]}
                       for g in shown["groups"]]}


def _out(cause: str) -> str:
    """Why a seat is out, in a word or two (the strip's tile is narrow): «заголосован»."""
    key = f"out_{cause}"
    return read_line("web", key) if has_line("web", key) else read_line("overlay", "out")


def _outcomes(events: list[Event]) -> list[str]:
    """The last :data:`OUTCOMES` outcomes said to the table: counts, ties, who left, mornings, the
    winner — by seat number only (the strip beside them has the names)."""
    lines: list[str] = []
    for event in reversed(events):
        if isinstance(event, (*OUTCOME_EVENTS, Eliminated)):
            said = public_lines([event], {})
            if said:
                lines.append(said[-1])
            if len(lines) == OUTCOMES:
                break
    return lines[::-1]


def _card(view: TableView, events: list[Event]) -> dict[str, Any] | None:
    """The game card once the game is over: the winner, each seat's points (the best move's and
    the judge's parts said beside them)."""
    over = next((e for e in reversed(events) if isinstance(e, GameOver)), None)
    final = final_score(view.game)
    if over is None or final is None:
        return None
    winner = public_lines([over], view.game.names)
    return {"title": read_line("overlay", "card_title"), "winner": winner[-1] if winner else "",
            "rows": [{"seat": r["seat"], "name": r["name"], "text": r["text"]} for r in final["rows"]]}


# ---- serving ----------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Delayed:
    """A roles message and when it may go out (the loop's clock)."""

    due: float
    text: str


class Overlay:
    """The overlay's sockets and event streams of one table (or one table on the club screen).

    :meth:`changed` is called by the owner on every change, with the states' makers: the public
    message goes out at once, the roles message after :attr:`delay_s`."""

    def __init__(self, settings: OverlaySettings = OverlaySettings()) -> None:
        self.key = settings.key or secrets.token_urlsafe(12)
        self.delay_s = settings.delay_s
        self.public_sockets = Fanout(max_msg_size=MAX_BODY)
        self.secret_sockets = Fanout(max_msg_size=MAX_BODY)
        self.hints: set[asyncio.Queue[str]] = set()
        self.sequence = 0
        self.scene: str | None = None
        self.secrets: deque[Delayed] = deque(maxlen=KEPT_SECRETS)
        self._public: Callable[[], dict[str, Any]] = lambda: public_overlay(None, False)
        self._secret: Callable[[], dict[str, Any]] = lambda: secret_overlay(None, False)
        self._changed_at = time.time()
        self._public_text: str | None = None
        self._timers: set[asyncio.TimerHandle] = set()

    def message(self, state: dict[str, Any], secret: bool, changed_at: float) -> str:
        return json.dumps({"type": "overlay", "secret": secret, "seq": self.sequence, "t": changed_at,
                           "state": state, "texts": texts()}, ensure_ascii=False)

    def changed(self, public: Callable[[], dict[str, Any]], secret: Callable[[], dict[str, Any]] | None,
                changed_at: float) -> None:
        """The table changed at ``changed_at`` (wall clock). The public message is made only for
        someone listening (a page, a scene hint); the roles message is made at once whenever it
        is held back, so that a page that connects later is given the state of its moment."""
        self.sequence += 1
        self._public, self._changed_at, self._public_text = public, changed_at, None
        if self.public_sockets or self.hints:
            text = self.public_text
            if self.public_sockets:
                self.public_sockets.send(text)
        if secret is not None:
            self._secret = secret
            if self.delay_s > 0 or self.secret_sockets:
                self._hold(self.message(secret(), True, changed_at))

    @property
    def public_text(self) -> str:
        """The public message of the latest change (made once), with its scene hint sent."""
        if self._public_text is None:
            state = self._public()
            self._public_text = self.message(state, False, self._changed_at)
            self._hint(state)
        return self._public_text

    def _hint(self, state: dict[str, Any]) -> None:
        if state["scene"] == self.scene:
            return
        self.scene = state["scene"]
        hint = json.dumps({"scene": state["scene"], "text": state["scene_text"], "t": self._changed_at},
                          ensure_ascii=False)
        for queue in list(self.hints):
            queue.put_nowait(hint)

    def _hold(self, text: str) -> None:
        """A roles message, sent once the stream's delay has passed."""
        if self.delay_s <= 0:
            self.secret_sockets.send(text)
            return
        loop = asyncio.get_running_loop()
        self.secrets.append(Delayed(loop.time() + self.delay_s, text))
        handle: asyncio.TimerHandle | None = None

        def release() -> None:
            if handle is not None:
                self._timers.discard(handle)
            if self.secret_sockets:
                self.secret_sockets.send(text)
        handle = loop.call_later(self.delay_s, release)
        self._timers.add(handle)

    def secret_now(self) -> str:
        """What a roles page is given as it connects: the newest roles message whose delay has
        passed (before any, the state with no secret in it)."""
        if self.delay_s <= 0:
            return self.message(self._secret(), True, self._changed_at)
        now = asyncio.get_running_loop().time()
        due = [d for d in self.secrets if d.due <= now]
        return due[-1].text if due else self.message(secret_overlay(None, False), True, time.time())

    def has_key(self, request: web.Request) -> bool:
        """The stream key, as ``?key=`` (an OBS browser source's URL carries it)."""
        given = request.query.get("key", "").encode("utf-8", "replace")
        return hmac.compare_digest(given, self.key.encode())

    async def close(self) -> None:
        for handle in self._timers:
            handle.cancel()
        self._timers.clear()
        for queue in list(self.hints):
            queue.put_nowait("")
        await self.public_sockets.close()
        await self.secret_sockets.close()

    async def events(self, request: web.Request) -> web.StreamResponse:
        """The scene hints as server-sent events: the scene now, then each change of scene."""
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache"})
        await response.prepare(request)
        queue: asyncio.Queue[str] = asyncio.Queue()
        state = json.loads(self.public_text)["state"]
        queue.put_nowait(json.dumps({"scene": state["scene"], "text": state["scene_text"], "t": self._changed_at},
                                    ensure_ascii=False))
        self.hints.add(queue)
        try:
            while True:
                hint = await queue.get()
                if not hint:
                    break
                await response.write(f"event: scene\ndata: {hint}\n\n".encode())
        except ConnectionError:
            pass   # OBS went away
        finally:
            self.hints.discard(queue)
        return response


OVERLAY = web.AppKey("overlay", Overlay)
PAGE = "overlay.html"
PAGE_FILES = frozenset({PAGE, "overlay.js", "overlay.css"})
routes = web.RouteTableDef()
"""The table's overlay: ``/overlay``, ``/overlay/roles?key=…``, their sockets and the scene hints."""


def page() -> web.Response:
    return filled_page(PAGE)


def keyed(request: web.Request) -> Overlay:
    """The table's overlay, if the request has its stream key (401 otherwise)."""
    overlay = request.app[OVERLAY]
    if not overlay.has_key(request):
        raise refused(web.HTTPUnauthorized, StreamKeyNeeded())
    return overlay


@routes.get("/overlay")
async def _public_page(request: web.Request) -> web.Response:
    return page()


@routes.get("/overlay/roles")
async def _secret_page(request: web.Request) -> web.Response:
    keyed(request)
    return page()


@routes.get("/ws/overlay")
async def _public_ws(request: web.Request) -> web.WebSocketResponse:
    overlay = request.app[OVERLAY]
    return await overlay.public_sockets.serve(request, lambda: overlay.public_text)


@routes.get("/ws/overlay/roles")
async def _secret_ws(request: web.Request) -> web.WebSocketResponse:
    overlay = keyed(request)
    return await overlay.secret_sockets.serve(request, overlay.secret_now)


@routes.get("/overlay/events")
async def _events(request: web.Request) -> web.StreamResponse:
    return await request.app[OVERLAY].events(request)


# ---- a table's overlay as the club screen gets it -------------------------------------------------

MAX_ITEMS = 20            # seats, nominations, candidates, voters, rows in a report's overlay
MAX_NUMBER = 24 * 3600.0  # seconds (a turn's, what is left of it), a speed


def read_overlay(data: object) -> dict[str, Any] | None:
    """A table's report's overlay, rebuilt from its public fields only (anything else a table
    sends, a role among it, is dropped here) and held within bounds, for the club screen's
    ``/overlay/table/N``; None when the report has none."""
    if not isinstance(data, dict):
        return None
    phase = _dict(data.get("phase"))
    return {
        "phase": {"kind": _str(phase.get("kind"), 10), "number": _int(phase.get("number")),
                  "text": _str(phase.get("text"))},
        "seats": [_read_seat(seat) for seat in _dicts(data.get("seats"))],
        "speaker": _read_speaker(_dict(data.get("speaker"))),
        "nominations": [{"by": _int(n.get("by")), "target": _int(n.get("target")), "text": _str(n.get("text"))}
                        for n in _dicts(data.get("nominations"))],
        "vote": _read_vote(_dict(data.get("vote"))),
        "ballots": _read_ballots(_dict(data.get("ballots"))),
        "outcomes": [_str(line) for line in _list(data.get("outcomes")) if isinstance(line, str)][:OUTCOMES],
        "card": _read_card(_dict(data.get("card"))),
        "paused": data.get("paused") is True, "speed": min(1000.0, max(0.1, _num(data.get("speed")) or 1.0)),
        "finished": data.get("finished") is True, "scene": data.get("scene") if data.get("scene") in SCENES else "day",
        "scene_text": _str(data.get("scene_text"), 40),
    }


def _read_seat(seat: dict[str, Any]) -> dict[str, Any]:
    ballot = seat.get("ballot")   # whom his ballot in the vote being taken is for (0: the lift)
    return {"seat": _int(seat.get("seat")), "name": _str(seat.get("name"), 80), "alive": seat.get("alive") is True,
            "fouls": _int(seat.get("fouls")), "out": _str(seat.get("out")) or None,
            "nominated": seat.get("nominated") is True, "on_ballot": seat.get("on_ballot") is True,
            "speaking": seat.get("speaking") is True,
            "ballot": ballot if isinstance(ballot, int) and _int(ballot) == ballot else None}


def _read_speaker(speaker: dict[str, Any]) -> dict[str, Any] | None:
    if not speaker:
        return None
    warning = speaker.get("warning_s")
    return {"seat": _int(speaker.get("seat")), "name": _str(speaker.get("name"), 80),
            "turn": _str(speaker.get("turn"), 20), "turn_text": _str(speaker.get("turn_text")),
            "seconds": _num(speaker.get("seconds")), "left": _num(speaker.get("left")),
            "held": speaker.get("held") is True, "warning_s": None if warning is None else _int(warning)}


def _read_vote(vote: dict[str, Any]) -> dict[str, Any] | None:
    if not vote:
        return None
    counts = [pair for pair in _list(vote.get("counts")) if isinstance(pair, list) and len(pair) == 2]
    return {"round": _str(vote.get("round"), 20), "candidates": _ints(vote.get("candidates")),
            "open": None if vote.get("open") is None else _int(vote.get("open")),
            "counts": [[_int(candidate), _int(n)] for candidate, n in counts],
            "counted": vote.get("counted") is True, "defaulted": _ints(vote.get("defaulted"))}


def _read_ballots(ballots: dict[str, Any]) -> dict[str, Any] | None:
    if not ballots:
        return None
    return {"complete": ballots.get("complete") is True, "title": _str(ballots.get("title")),
            "groups": [{"candidate": _int(g.get("candidate")), "voters": _ints(g.get("voters")),
                        "text": _str(g.get("text"))} for g in _dicts(ballots.get("groups"))]}


def _read_card(card: dict[str, Any]) -> dict[str, Any] | None:
    if not card:
        return None
    return {"title": _str(card.get("title")), "winner": _str(card.get("winner")),
            "rows": [{"seat": _int(r.get("seat")), "name": _str(r.get("name"), 80), "text": _str(r.get("text"))}
                     for r in _dicts(card.get("rows"))]}


def _dict(value: object) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _list(value: object) -> list[Any]:
    return value[:MAX_ITEMS] if isinstance(value, list) else []


def _dicts(value: object) -> list[dict[str, Any]]:
    return [item for item in _list(value) if isinstance(item, dict)]


def _int(value: object) -> int:
    """A seat, a count, a day: 0…999 (anything else is 0)."""
    return value if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 999 else 0


def _ints(value: object) -> list[int]:
    return [_int(item) for item in _list(value)]


def _num(value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
        return 0.0
    return min(MAX_NUMBER, max(0.0, float(value)))


def _str(value: object, limit: int = 300) -> str:
    return value[:limit] if isinstance(value, str) else ""
