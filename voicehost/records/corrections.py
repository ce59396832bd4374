"""Corrections after the game: the chief judge changes a finished game's protocol (a protest
upheld, a wrong best move, a mis-keyed foul), with a reason and his name; every version is kept
(``game_versions``: version 1 the protocol stored first, then each correction), the game keeps
its id and its place, and the standings and exports read the latest (the ``games`` row).

A correction is checked as an import is (:func:`voicehost.records.games.record_from_protocol`):
an impossible protocol, a game at another place, a reason or a name missing, or a protocol that
changes nothing is refused in one line and nothing stored changes.
"""

from __future__ import annotations

import json
import unicodedata
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

import sqlalchemy as sa

from voicehost.i18n import _
from voicehost.records.games import record_from_protocol
from voicehost.records.places import TournamentPlace
from voicehost.records.schema import game_seats, game_versions, games
from voicehost.records.store import Records, game_row, seat_rows_of
from voicehost.rules import InputError

TEXT_LIMIT = 200


@dataclass(frozen=True)
class Version:
    """One version of a game's protocol: 1 is the one stored first (no reason, no corrector)."""

    version: int
    protocol: dict[str, Any]
    reason: str | None
    corrected_by: str | None
    corrected_at: datetime


def check_text(value: str, place: str, limit: int = TEXT_LIMIT) -> str:
    """A reason or a corrector's name: printable text (no control or bidi-override characters)."""
    text = value.strip()
    if not text or len(text) > limit or any(unicodedata.category(ch) in ("Cc", "Cf") for ch in text):
        raise InputError(place, _("must be text of 1 to {limit} printable characters").format(limit=limit))
    return text


def correct_game(records: Records, at: TournamentPlace, protocol: Any, reason: str, corrected_by: str,
                 now: datetime | None = None) -> int:
    """Store ``protocol`` as the latest version of the game played at ``at``; returns its
    version number. The protocol may leave out its ``tournament`` tag (the game's is kept)."""
    reason, corrected_by = check_text(reason, "--reason"), check_text(corrected_by, "--by", 80)
    if isinstance(protocol, Mapping):
        protocol = {**protocol, "tournament": protocol.get("tournament", at.as_json())}
    when = now or datetime.now(timezone.utc).replace(tzinfo=None)
    with records.engine.begin() as connection:
        row = connection.execute(sa.select(games).where(games.c.tournament == at.name, games.c.round_no == at.round,
                                                        games.c.table_no == at.table)).mappings().first()
        if row is None:
            raise InputError(str(at), _("no game is stored here: nothing to correct"))
        record = record_from_protocol(protocol, "correction", row["played_at"], row["table_name"], place="--protocol")
        if record.protocol.get("tournament") != at.as_json():
            raise InputError("--protocol: tournament", _("the corrected game must stay at {at}").format(at=at))
        stored = _protocol(row["protocol"])
        if stored == record.protocol:
            raise InputError("--protocol", _("it is the stored protocol: nothing to correct"))
        game_id = uuid.UUID(str(row["id"]))
        last = connection.execute(sa.select(sa.func.max(game_versions.c.version))
                                  .where(game_versions.c.game_id == game_id)).scalar()
        if last is None:
            connection.execute(game_versions.insert().values(game_id=game_id, version=1, protocol=stored,
                                                             corrected_at=row["played_at"]))
            last = 1
        connection.execute(game_versions.insert().values(game_id=game_id, version=last + 1, protocol=record.protocol,
                                                         reason=reason, corrected_by=corrected_by, corrected_at=when))
        values = {key: value for key, value in game_row(record).items()
                  if key in ("options", "winner", "reason", "protocol", "seats", "scoring", "removal_forfeits")}
        connection.execute(games.update().where(games.c.id == game_id).values(**values))
        connection.execute(game_seats.delete().where(game_seats.c.game_id == game_id))
        ids = records.player_ids(connection, {s.player for s in record.seats if s.player})
        connection.execute(game_seats.insert(), seat_rows_of(record, ids, game_id))
    return int(last) + 1


def history(records: Records, game: str) -> tuple[uuid.UUID, list[Version]]:
    """A game's versions, oldest first (the game whose id starts with ``game``); a game never
    corrected has one, its stored protocol."""
    with records.engine.connect() as connection:
        game_id = records.find_game(connection, game)
        rows = connection.execute(sa.select(game_versions).where(game_versions.c.game_id == game_id)
                                  .order_by(game_versions.c.version)).mappings().all()
        if not rows:
            stored = connection.execute(sa.select(games.c.protocol, games.c.played_at)
                                        .where(games.c.id == game_id)).one()
            return game_id, [Version(1, _protocol(stored.protocol), None, None, stored.played_at)]
    return game_id, [Version(r["version"], _protocol(r["protocol"]), r["reason"], r["corrected_by"],
                             r["corrected_at"]) for r in rows]


def _protocol(stored: Any) -> dict[str, Any]:
    """A stored protocol (JSON: a mapping, or its text where the driver gives text)."""
    return dict(json.loads(stored)) if isinstance(stored, str) else dict(stored)
