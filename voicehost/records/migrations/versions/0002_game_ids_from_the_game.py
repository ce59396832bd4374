"""Game ids from the game alone: every stored game re-keyed from its stored protocol.

Until 0001 a game's id mixed in the file name, so a renamed copy of a protocol was stored as a
second game. Now the id comes from the game itself (``voicehost.records.games.game_id``: when it
started, the deal, fouls, eliminations and result; its rule is frozen here as it was when this
revision was written). A stored game's start is its ``played_at``: for the games stored before,
the stamp of the file name it came from (or that file's time), which is also what a new import
of the same old file works out, so re-importing an old file still finds its game.

Each stored game gets its new id, its seats and its outbox entry follow it, and games that turn
out to be one (a renamed copy that kept the name's stamp, imported beside the original) become
one: the first stored is kept, a best-player vote only the copy had is kept too, and so is its
place in the outbox. A club server and its tables each run this on their next open and reach
the same ids, since both keep the whole protocol and the time.

A stored protocol whose id cannot be worked out (one imported before protocols were
checked) keeps its old id: nothing stored is lost.

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-02
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Mapping
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

GAME_IDS = uuid.UUID("6f1c2a53-5d0e-4b8e-9a53-7c1d2e0f4b11")

games = sa.table("games", sa.column("id", sa.Uuid), sa.column("played_at", sa.DateTime),
                 sa.column("table_name", sa.String), sa.column("ruleset", sa.String), sa.column("options", sa.JSON),
                 sa.column("seats", sa.Integer), sa.column("winner", sa.String), sa.column("reason", sa.String),
                 sa.column("protocol", sa.JSON))
game_seats = sa.table("game_seats", sa.column("game_id", sa.Uuid), sa.column("seat", sa.Integer),
                      sa.column("best_player", sa.Boolean))
outbox = sa.table("outbox", sa.column("game_id", sa.Uuid))
GAME_COLUMNS = ("played_at", "table_name", "ruleset", "options", "seats", "winner", "reason", "protocol")


def game_id(protocol: Mapping[str, Any], started: datetime) -> uuid.UUID:
    """``voicehost.records.games.game_id`` as of this revision (a test keeps them equal)."""
    seats = protocol.get("seats", {})
    facts = {
        "ruleset": protocol.get("ruleset"),
        "deal": {str(seat): entry.get("role") for seat, entry in seats.items()},
        "fouls": {str(seat): entry.get("fouls", 0) for seat, entry in seats.items()},
        "eliminations": sorted(json.dumps(item, sort_keys=True) for item in protocol.get("eliminations", [])),
        "winner": protocol.get("winner"),
        "reason": protocol.get("reason"),
        "started": started.isoformat(timespec="seconds"),
    }
    return uuid.uuid5(GAME_IDS, "game|" + json.dumps(facts, sort_keys=True, ensure_ascii=False))


def _new_id(protocol: Any, played_at: datetime) -> uuid.UUID | None:
    try:
        data = json.loads(protocol) if isinstance(protocol, str) else protocol
        return game_id(data, played_at)
    except (AttributeError, TypeError, ValueError):
        return None


def upgrade() -> None:
    connection = op.get_bind()
    rows = connection.execute(sa.select(games.c.id, games.c.protocol, games.c.played_at)
                              .order_by(games.c.played_at, games.c.id)).all()
    kept = {uuid.UUID(str(row.id)) for row in rows}
    for row in rows:
        old = uuid.UUID(str(row.id))
        new = _new_id(row.protocol, row.played_at)
        if new is None or new == old:
            continue
        if new in kept:
            _merge(connection, old, new)
        else:
            _move(connection, old, new)
            kept.add(new)
        kept.discard(old)


def _move(connection: sa.Connection, old: uuid.UUID, new: uuid.UUID) -> None:
    """The game under its new id: a copy of its row, its seats and outbox entry moved, the old row gone."""
    copy = sa.select(sa.literal(new, sa.Uuid), *(games.c[name] for name in GAME_COLUMNS)).where(games.c.id == old)
    connection.execute(sa.insert(games).from_select(["id", *GAME_COLUMNS], copy))
    connection.execute(game_seats.update().where(game_seats.c.game_id == old).values(game_id=new))
    connection.execute(outbox.update().where(outbox.c.game_id == old).values(game_id=new))
    connection.execute(games.delete().where(games.c.id == old))


def _merge(connection: sa.Connection, old: uuid.UUID, new: uuid.UUID) -> None:
    """A second copy of a game already kept: its best-player vote and outbox place go to the
    kept one if that has none, then the copy goes."""
    def best(game: uuid.UUID) -> list[int]:
        return list(connection.execute(sa.select(game_seats.c.seat).where(game_seats.c.game_id == game,
                                                                          game_seats.c.best_player)).scalars())
    voted = best(old)
    if voted and not best(new):
        connection.execute(game_seats.update().where(game_seats.c.game_id == new)
                           .values(best_player=game_seats.c.seat == voted[0]))
    queued = connection.execute(sa.select(sa.func.count()).select_from(outbox).where(outbox.c.game_id == new))
    if queued.scalar_one():
        connection.execute(outbox.delete().where(outbox.c.game_id == old))
    else:
        connection.execute(outbox.update().where(outbox.c.game_id == old).values(game_id=new))
    connection.execute(game_seats.delete().where(game_seats.c.game_id == old))
    connection.execute(games.delete().where(games.c.id == old))


def downgrade() -> None:
    """The old ids mixed in file names the records never kept: there is no way back to them,
    and none is needed (0001's code reads any id)."""
