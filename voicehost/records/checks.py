"""A protocol from outside checked as fully as a script is (voicehost.simulation.script), before
the records keep it: a club's ratings are only as good as the worst file ever imported.

A protocol cannot be replayed (it holds what happened, not the inputs), so this checks that
every fact *could* be true: a ruleset the program knows and a table size it plays, that
ruleset's deck dealt to every seat 1…N, a winner one of the dealt teams, every elimination a
seat of the table (once, as its seat entry says), a nickname at one seat only, fouls, scores
and the best player for seats that exist; a best move only by the first player killed, its
black seats counted right; the judge's points for a seat of the table, within their range.
The first problem is one :class:`InputError` naming the field (``seats.11``,
``eliminations[2].seat``…); the caller adds the file.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from datetime import datetime
from functools import lru_cache
from typing import Any, NamedTuple

from voicehost.config import load_ruleset
from voicehost.i18n import _
from voicehost.rules import GAMES, InputError, Role, Ruleset, Team
from voicehost.rules.game import validate_deal
from voicehost.rules.sport import JUDGE_POINTS_LIMIT

CAUSES = ("voted", "killed", "removed")
WHEN = ("day", "night")
MAX_FOULS = 99
NOBODY = "nobody"
_SEAT_DIGITS = 3


class Checked(NamedTuple):
    """What checking a protocol worked out, for the record made of it (not worked out again)."""

    options: Mapping[str, Any]     # every option the game was played with (its ruleset's ``played``)
    roles: tuple[Role, ...]        # seat 1…N's card
    started: datetime | None       # its ``started``, if it carries one


def check_protocol(protocol: Any) -> Checked:
    """Refuse (:class:`InputError`) a protocol whose facts no game of voicehost could have."""
    if not isinstance(protocol, Mapping):
        raise InputError("", _("not a voicehost protocol (not a JSON object)"))
    ruleset = _ruleset(protocol.get("ruleset"))
    options = protocol.get("options", {})
    if not isinstance(options, Mapping):
        raise InputError("options", _("must be an object"))
    chosen = ruleset.played(options, "options")
    raw_seats = protocol.get("seats")
    if not isinstance(raw_seats, Mapping) or not raw_seats:
        raise InputError("seats", _("not a voicehost protocol (no seats)"))
    count = len(raw_seats)
    ruleset.cast_for(count, "seats")
    seats = {_seat_key(key, count, f"seats.{key}"): entry for key, entry in raw_seats.items()}
    roles = tuple(_role(seats[seat], f"seats.{seat}") for seat in range(1, count + 1))
    cast, spare = GAMES[ruleset.name].deck(ruleset, chosen, count)
    validate_deal(roles, cast, count, "seats", spare)
    named: dict[str, int] = {}
    outs: dict[int, tuple[str, str, int]] = {}   # each seat's ``out``, read once for _eliminations
    for seat in range(1, count + 1):
        when = _seat_entry(seats[seat], f"seats.{seat}")
        if when is not None:
            outs[seat] = when
        name = str(seats[seat].get("name") or "").strip().casefold()
        if name and name in named:  # one player at two seats would count twice in every rating
            raise InputError(f"seats.{seat}.name", _("{name!r} is already seat {named}'s name").format(
                                                       name=seats[seat]['name'], named=named[name]))
        named.setdefault(name, seat)
    _winner(protocol, roles)
    _eliminations(protocol.get("eliminations", []), seats, outs, count)
    _scores(protocol.get("scores", {}), count)
    started = parse_started(protocol.get("started"))
    if protocol.get("started") is not None and started is None:
        raise InputError("started", _("{started!r} is not a time such as 2026-12-01T19:00:00Z").format(
                                        started=str(protocol['started'])[:30]))
    if protocol.get("result") is not None and protocol.get("result") not in ("annulled", "stopped"):
        raise InputError("result", _("{result!r} is not annulled or stopped").format(
                                       result=str(protocol['result'])[:24]))
    best = protocol.get("best_player")
    if best is not None:
        _seat_number(best, count, "best_player")
    if protocol.get("best_move") is not None:
        _best_move(protocol, roles, count)
    if protocol.get("judge_points") is not None:
        _judge_points(protocol["judge_points"], count)
    for key in ("days", "nights"):
        phases = protocol.get(key, [])
        if not isinstance(phases, list) or not all(isinstance(phase, Mapping) for phase in phases):
            raise InputError(key, _("must be a list of objects"))
    return Checked(chosen, roles, started)


def _ruleset(name: Any) -> Ruleset:
    if not isinstance(name, str) or not name.strip():
        raise InputError("ruleset", _("{name!r} is not a ruleset name (known: {games})").format(
                                        name=name, games=', '.join(GAMES)))
    if name not in GAMES:
        raise InputError("ruleset", _("unknown ruleset {name!r} (known: {games})").format(
                                        name=name, games=', '.join(GAMES)))
    try:
        return load_ruleset(name)
    except InputError as err:
        raise InputError("ruleset", _("{name}: its config is broken ({err})").format(
                                        name=name, err=err)) from None


def _seat_key(key: Any, count: int, place: str) -> int:
    text = str(key)
    if not (text.isascii() and text.isdigit()) or len(text) > _SEAT_DIGITS:
        raise InputError(place, _("{text!r} is not a seat number").format(text=text[:24]))
    return _seat_number(int(text), count, place)


def _seat_number(value: Any, count: int, place: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputError(place, _("{value!r} is not a seat number").format(value=str(value)[:24]))
    if not 1 <= value <= count:
        raise InputError(place, _("there is no seat {value} at a {count}-seat table").format(
                                    value=str(value)[:24], count=count))
    return value


def _role(entry: Any, place: str) -> Role:
    if not isinstance(entry, Mapping):
        raise InputError(place, _("must be an object (role, fouls, name, out)"))
    try:
        return Role(str(entry.get("role")))
    except ValueError:
        known = ", ".join(role.value for role in Role)
        raise InputError(f"{place}.role", _("unknown role {value!r} (known: {known})").format(
                                              value=str(entry.get('role'))[:24], known=known)) from None


def _seat_entry(entry: Mapping[str, Any], place: str) -> tuple[str, str, int] | None:
    """The seat's fouls, name and ``out`` checked; its ``out`` read (:func:`_when_out`), if any."""
    fouls = entry.get("fouls", 0)
    if isinstance(fouls, bool) or not isinstance(fouls, int) or not 0 <= fouls <= MAX_FOULS:
        raise InputError(f"{place}.fouls", _("{fouls!r} is not a number of fouls").format(
                                               fouls=str(fouls)[:24]))
    name = entry.get("name")
    if name is not None and (not isinstance(name, str) or len(name) > 80):
        raise InputError(f"{place}.name", _("must be a nickname (text, at most 80 characters)"))
    out = entry.get("out")
    if out is not None and out != {}:
        return _when_out(out, f"{place}.out")
    return None


def _when_out(out: Any, place: str) -> tuple[str, str, int]:
    """An elimination's cause and moment: ``{"cause": …, "day"|"night": N}``."""
    if not isinstance(out, Mapping):
        raise InputError(place, _("must be an object (cause, day or night)"))
    cause = out.get("cause")
    if cause not in CAUSES:
        raise InputError(f"{place}.cause", _("{cause!r} is no cause of leaving (known: {causes})").format(
                                               cause=str(cause)[:24], causes=', '.join(CAUSES)))
    moments = [key for key in WHEN if out.get(key) is not None]
    if len(moments) != 1:
        raise InputError(place, _("needs the day or the night it happened (one of them)"))
    number = out[moments[0]]
    if isinstance(number, bool) or not isinstance(number, int) or not 1 <= number <= 999:
        raise InputError(f"{place}.{moments[0]}", _("{number!r} is not a day or night number").format(
                                                      number=str(number)[:24]))
    return str(cause), moments[0], number


def _winner(protocol: Mapping[str, Any], roles: tuple[Role, ...]) -> None:
    winner = protocol.get("winner")
    if winner is None:
        return  # the game is not over: the records say so themselves (games.record_from_protocol)
    teams = {role.team.value for role in roles} | {Team.BLACK.value for role in roles if role is Role.MANIAC}
    teams.add(NOBODY)  # a draw: classic's mutual destruction
    if winner not in teams:
        raise InputError("winner", _("{winner!r} is no team of this deal (it has {teams})").format(
                                       winner=str(winner)[:24], teams=', '.join(sorted(teams))))
    reason = protocol.get("reason")
    if not isinstance(reason, str) or not reason.strip() or len(reason) > 40:
        raise InputError("reason", _("must say why the game ended (a short id such as no_black_left)"))


def _eliminations(raw: Any, seats: Mapping[int, Any], outs: Mapping[int, tuple[str, str, int]], count: int) -> None:
    """Every elimination a seat of the table, once, and the one its seat entry names (``outs``:
    each seat's ``out`` as :func:`_seat_entry` read it)."""
    if not isinstance(raw, list):
        raise InputError("eliminations", _("must be a list"))
    out: set[int] = set()
    for index, item in enumerate(raw):
        place = f"eliminations[{index}]"
        if not isinstance(item, Mapping):
            raise InputError(place, _("must be an object (seat, cause, day or night)"))
        seat = _seat_number(item.get("seat"), count, f"{place}.seat")
        if seat in out:
            raise InputError(f"{place}.seat", _("seat {seat} has already left the table").format(
                                                  seat=seat))
        out.add(seat)
        when = _when_out(item, place)
        if not seats[seat].get("out") or outs.get(seat) != when:
            raise InputError(place, _("seats.{seat}.out does not say the same").format(seat=seat))
    for seat, entry in seats.items():
        if entry.get("out") and seat not in out:
            raise InputError(f"seats.{seat}.out", _("seat {seat} left the table but is not under eliminations").format(
                                                      seat=seat))


def _best_move(protocol: Mapping[str, Any], roles: tuple[Role, ...], count: int) -> None:
    """«Лучший ход» as the game takes it (voicehost.rules.sport): by the first
    player to leave the table, killed at night, naming one to three other seats; ``black`` is how
    many of them are black."""
    best = protocol["best_move"]
    if not isinstance(best, Mapping):
        raise InputError("best_move", _("must be an object (by, seats, black)"))
    by = _seat_number(best.get("by"), count, "best_move.by")
    first = next(iter(protocol.get("eliminations") or []), None)
    if not isinstance(first, Mapping) or first.get("seat") != by or first.get("cause") != "killed":
        raise InputError("best_move.by", _("seat {by} was not the first to leave the table, killed at night: "
                                           "only that player names a best move").format(by=by))
    named = best.get("seats")
    if not isinstance(named, list) or not 1 <= len(named) <= 3:
        raise InputError("best_move.seats", _("must be a list of one to three seats"))
    seats = [_seat_number(seat, count, f"best_move.seats[{k}]") for k, seat in enumerate(named)]
    if len(set(seats)) != len(seats) or by in seats:
        raise InputError("best_move.seats", _("names a seat twice, or its own"))
    black = sum(roles[seat - 1].team is Team.BLACK for seat in seats)
    claimed = best.get("black")
    if claimed != black or isinstance(claimed, bool):
        raise InputError("best_move.black", _("{claimed}, but {black} of the named seats are black").format(
            claimed=str(claimed)[:24], black=black))


def _judge_points(raw: Any, count: int) -> None:
    """The judge's points as the game takes them: for a seat of the table,
    within the scheme's range (at most 5 either way, not 0), each with its reason."""
    if not isinstance(raw, list):
        raise InputError("judge_points", _("must be a list of objects (seat, points, reason)"))
    top = JUDGE_POINTS_LIMIT / 100
    for index, given in enumerate(raw):
        place = f"judge_points[{index}]"
        if not isinstance(given, Mapping):
            raise InputError(place, _("must be an object (seat, points, reason)"))
        _seat_number(given.get("seat"), count, f"{place}.seat")
        points = given.get("points")
        if isinstance(points, bool) or not isinstance(points, (int, float)) or not math.isfinite(points) \
                or not 0 < abs(points) <= top or round(points, 2) != points:
            raise InputError(f"{place}.points", _("{points!r} is not a number of points from -{top:g} to {top:g} "
                                                  "(hundredths, not 0)").format(points=str(points)[:24], top=top))
        reason = given.get("reason")
        if not isinstance(reason, str) or not reason.strip() or len(reason) > 200:
            raise InputError(f"{place}.reason", _("must say why (text, at most 200 characters)"))


def _scores(raw: Any, count: int) -> None:
    if not isinstance(raw, Mapping):
        raise InputError("scores", _("must be an object (seat: points)"))
    for key, points in raw.items():
        _seat_key(key, count, f"scores.{key}")
        if isinstance(points, bool) or not isinstance(points, (int, float)) or not math.isfinite(points) \
                or abs(points) > 1000:
            raise InputError(f"scores.{key}", _("{points!r} is not a number of points").format(
                                                  points=str(points)[:24]))


def parse_started(value: Any) -> datetime | None:
    """``2026-12-01T19:00:00Z`` (when a game started) as a naive UTC datetime; None if absent or not such a time."""
    if not isinstance(value, str):
        return None
    return _parse_started(value)


@lru_cache(maxsize=16)
def _parse_started(value: str) -> datetime | None:
    """Cached: an import reads one game's ``started`` up to three times (its id's time, the check, the record)."""
    try:
        return datetime.strptime(value, "%Y-%m-%dT%H:%M:%SZ")
    except ValueError:
        return None
