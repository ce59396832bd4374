"""One finished game as the records keep it, made from a protocol (the file the host writes at
the end of a game) or from a journal (the game replayed from its inputs).

A game's id is a UUID derived from the game alone (:func:`game_id`): its deal and what came of
its inputs, never a file's name, so the same game reaches the same id whether the table's live
hook stored it, its protocol was imported, its journal was, or a renamed copy of either — that
is what makes every import idempotent. A protocol is checked first (:mod:`~voicehost.records.checks`)
and a journal must replay to a finished game: the records keep no impossible or unfinished game.
"""

from __future__ import annotations

import _strptime  # type: ignore[import-not-found]  # noqa: F401 - its lazy first import (strptime) is not thread-safe
import json
import re
import uuid
from collections.abc import Mapping
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from voicehost.config import load_ruleset
from voicehost.files import read_json
from voicehost.i18n import _, ngettext
from voicehost.records.checks import check_protocol, parse_started
from voicehost.records.game_record import GameRecord as GameRecord
from voicehost.records.game_record import SeatRecord as SeatRecord
from voicehost.rules import IllegalInput, InputError, Role, new_game

GAME_IDS = uuid.UUID("6f1c2a53-5d0e-4b8e-9a53-7c1d2e0f4b11")  # the uuid5 namespace of voicehost games
_STAMP = re.compile(r"(\d{8})-(\d{6})")
VOIDED = ("annulled", "stopped")   # a protocol's ``result`` when the judge annulled or stopped the game


def game_id(protocol: Mapping[str, Any], started: datetime) -> uuid.UUID:
    """The game's id from the game itself: when it started, its ruleset, the deal (each seat's
    card), each seat's fouls, who left the table how and when, and the result. Names, table and
    file are left out (a corrected nickname or a renamed copy is the same game); so are the
    options and the protocol's day-by-day detail, which a newer version may write more of for
    the same game (a journal replayed today must meet the protocol written back then).
    ``started``: see :func:`started_at`. Changing this needs a migration that re-keys the
    stored games (as migrations/versions/0002_game_ids_from_the_game.py does)."""
    seats = protocol.get("seats", {})
    facts = {
        "ruleset": protocol.get("ruleset"),
        "deal": {str(seat): entry.get("role") for seat, entry in seats.items()},
        "fouls": {str(seat): entry.get("fouls", 0) for seat, entry in seats.items()},
        "eliminations": sorted(map(_SORTED_KEYS.encode, protocol.get("eliminations", []))),
        "winner": protocol.get("winner"),
        "reason": protocol.get("reason"),
        "started": started.isoformat(timespec="seconds"),
    }
    return uuid.uuid5(GAME_IDS, "game|" + _SORTED_TEXT.encode(facts))


# json.dumps(…, sort_keys=True) and json.dumps(…, sort_keys=True, ensure_ascii=False), each made once
_SORTED_KEYS = json.JSONEncoder(sort_keys=True)
_SORTED_TEXT = json.JSONEncoder(sort_keys=True, ensure_ascii=False)


def played_at_from(path: Path) -> datetime:
    """When the game was played: the ``YYYYmmdd-HHMMSS`` stamp of its file name (local time), or
    else the file's modification time."""
    if match := _STAMP.search(path.name):
        try:
            local = datetime.strptime("".join(match.groups()), "%Y%m%d%H%M%S").astimezone()
            return local.astimezone(timezone.utc).replace(tzinfo=None)
        except ValueError:
            pass  # digits that are no time of day: the file's own time then
    return datetime.fromtimestamp(path.stat().st_mtime, timezone.utc).replace(tzinfo=None)


def started_at(recorded: Mapping[str, Any], path: Path) -> datetime:
    """When the game started (UTC, naive): the ``started`` its journal header and protocol carry
    (the host writes it since records 0002), else — a file from before — the stamp of its name
    or the file's time (:func:`played_at_from`)."""
    started = parse_started(recorded.get("started"))
    return started if started is not None else played_at_from(path)


def record_from_protocol(protocol: Any, name: str, played_at: datetime, table: str | None = None,
                         place: str = "protocol") -> GameRecord:
    """A finished game's record; a protocol that is impossible (:func:`check_protocol`) or of an
    unfinished game is refused with an :class:`InputError` naming ``place`` and the field.
    ``name`` (the file's) is no part of the game: only messages may use it."""
    try:
        checked = check_protocol(protocol)
    except InputError as err:
        raise err.moved_to(f"{place}: {err.place}" if err.place else place) from None
    voided = protocol.get("result") in VOIDED   # annulled or stopped: kept, shown, never rated
    if protocol.get("winner") is None and not voided:
        raise InputError(place, _("the game is not over: only finished games are recorded"))
    played_at = checked.started or played_at  # the game's own word first
    try:
        scores = protocol.get("scores", {})
        seats = [_seat(int(seat), entry, protocol, scores, checked.roles[int(seat) - 1], voided)
                 for seat, entry in sorted(protocol["seats"].items(), key=lambda item: int(item[0]))]
        winner, reason = (None, str(protocol["result"])) if voided else (str(protocol["winner"]),
                                                                          protocol.get("reason"))
        return GameRecord(game_id(protocol, played_at), played_at, table, str(protocol["ruleset"]),
                          dict(checked.options), winner, reason, seats, protocol)
    except (KeyError, TypeError, ValueError, AttributeError) as err:
        raise InputError(place, _("not a valid protocol ({err})").format(err=err)) from None


def played_options(protocol: Mapping[str, Any]) -> dict[str, Any]:
    """Every option the game was played with (a protocol lists those that differed from the
    declared defaults, an older one all): the records keep them all, so a query reads any."""
    return dict(load_ruleset(str(protocol["ruleset"])).played(protocol.get("options", {})))


def _seat(seat: int, entry: Mapping[str, Any], protocol: Mapping[str, Any], scores: Mapping[str, Any], role: Role,
          voided: bool = False) -> SeatRecord:
    """The seat's record; ``role``: its card as the check read it."""
    team = _team(role, protocol)
    out = entry.get("out") or {}
    name = entry.get("name")
    return SeatRecord(seat=seat, player=str(name).strip() or None if name is not None else None, role=role.value,
                      team=team, alive=not out, won=not voided and team == protocol["winner"],
                      fouls=int(entry.get("fouls", 0)),
                      out_cause=out.get("cause"), out_day=out.get("day"), out_night=out.get("night"),
                      points=0.0 if voided else float(scores.get(str(seat), 0.0)),
                      best_player=not voided and protocol.get("best_player") == seat)   # the table's vote, if given


def _team(role: Role, protocol: Mapping[str, Any]) -> str:
    """The card's team; the club maniac who chose a side at night plays for it (docs/rules.md, `club` «End»)."""
    if role is Role.MANIAC:
        for night in protocol.get("nights", []):
            if night.get("maniac_side"):
                return str(night["maniac_side"])
    return role.team.value


def read_record(path: Path, table: str | None = None) -> GameRecord:
    """A protocol (``*.json``) or a journal (``*.jsonl``) file as a record."""
    if path.suffix == ".jsonl":
        return record_from_journal(path, table)
    protocol = read_json(path, "protocol")  # the gate for outside files: regular, UTF-8, depth, numbers
    started = started_at(protocol, path) if isinstance(protocol, dict) else played_at_from(path)
    return record_from_protocol(protocol, path.name, started, table, str(path))


def record_from_journal(path: Path, table: str | None = None) -> GameRecord:
    """The game replayed from its journal, then its protocol. Every input must be one the game
    takes (as ``voicehost resume`` checks): a journal that does not replay is refused, and so is
    one whose game is not over — a game still at the table, or one a crash stopped (resume it).
    The live host's journal reader loads here, not with the module: reading stored games needs
    none of it."""
    from voicehost.host import clock_facts, judge_protocol, load_journal
    from voicehost.rules.protocol import build_protocol

    read = load_journal(path)
    header, entries = read.header, read.entries
    try:
        ruleset = load_ruleset(str(header["ruleset"]))
        game = new_game(ruleset, ruleset.resolve(header.get("options", {})), int(header["seats"]))
    except (KeyError, TypeError, ValueError) as err:
        raise InputError(str(path), _("not a valid journal header ({err})").format(err=err)) from None
    for entry in entries:
        try:
            game.push(entry.input)
        except IllegalInput as err:
            raise InputError(f"{path}:{entry.record}", _("the game refuses {input} here ({err}): the journal "
                                                         "does not replay").format(
                                                           input=entry.input, err=err)) from None
    judged = judge_protocol(read.judged)
    if not game.is_over and "verdict" not in judged:
        dealt = _("no cards dealt yet") if not game.roles else ngettext("{count} input so far", "{count} inputs so far",
                                                                        len(entries)).format(count=len(entries))
        raise InputError(str(path), _("the game is not over ({dealt}): only finished games are recorded; an "
                                      "unfinished game is resumed, then recorded").format(dealt=dealt))
    names = _journal_names(header)
    protocol = {**build_protocol(game, None, names), **judged, **clock_facts(read)}   # foul times, end: the sites
    if "best_player" in header:   # the table's vote, journaled after the game
        protocol["best_player"] = header["best_player"]
    if "started" in header:
        protocol["started"] = header["started"]
    return record_from_protocol(protocol, path.name, started_at(header, path), table, str(path))


def _journal_names(header: Mapping[str, Any]) -> dict[int, str]:
    """The roster: the header's ``names``, or the names of the script a simulated game played."""
    names = header.get("names")
    if names is None and header.get("script"):
        script = Path(str(header["script"]))
        try:
            if script.suffix == ".json":
                names = json.loads(script.read_text(encoding="utf-8")).get("names")
            elif script.suffix == ".toml":
                import tomllib
                names = tomllib.loads(script.read_text(encoding="utf-8")).get("names")
        except (OSError, ValueError, AttributeError):
            names = None
    if not isinstance(names, Mapping):
        return {}
    return {int(seat): str(name) for seat, name in names.items() if str(seat).isdigit()}
