"""Each seat's scoring figures in columns (voicehost.records.figures): killed in the first
shooting night, the black seats of its best move, the judge's points, a team removal; and per
game the scheme played and its ``removal_forfeits`` option. The standings, ratings and Elo sum
these in SQL instead of reading and checking every stored protocol again. The games stored
before are filled in from their protocols, by the same function an import uses.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-05
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import JSONB

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None

JSON = sa.JSON().with_variant(JSONB(), "postgresql")
CHUNK = 2000   # games filled in per round trip
SEAT_FIGURES = ("killed_first", "best_move_black", "judge_points", "team_removed")


def upgrade() -> None:
    op.add_column("games", sa.Column("scoring", sa.String(40)))
    op.add_column("games", sa.Column("removal_forfeits", sa.Boolean, nullable=False, server_default=sa.false()))
    op.add_column("game_seats", sa.Column("killed_first", sa.Boolean, nullable=False, server_default=sa.false()))
    op.add_column("game_seats", sa.Column("best_move_black", sa.Integer, nullable=False, server_default="0"))
    op.add_column("game_seats", sa.Column("judge_points", sa.Float, nullable=False, server_default="0"))
    op.add_column("game_seats", sa.Column("team_removed", sa.Boolean, nullable=False, server_default=sa.false()))
    backfill(op.get_bind())


def backfill(connection: sa.Connection) -> None:
    """The figures of every stored game, from its protocol and its stored seats."""
    from voicehost.records.figures import seat_figures
    from voicehost.rules import Role
    from voicehost.rules.scoring import SeatFacts

    games = sa.table("games", sa.column("id", sa.Uuid), sa.column("ruleset", sa.String),
                     sa.column("winner", sa.String), sa.column("options", JSON), sa.column("protocol", JSON),
                     sa.column("scoring", sa.String), sa.column("removal_forfeits", sa.Boolean))
    seats = sa.table("game_seats", sa.column("game_id", sa.Uuid), sa.column("seat", sa.Integer),
                     *(sa.column(name, sa.String) for name in ("role", "team", "out_cause")),
                     *(sa.column(name, sa.Integer) for name in ("out_night", "fouls", "best_move_black")),
                     *(sa.column(name, sa.Boolean) for name in ("alive", "best_player", "killed_first",
                                                                 "team_removed")),
                     sa.column("judge_points", sa.Float))
    ids = list(connection.execute(sa.select(games.c.id).order_by(games.c.id)).scalars())
    for start in range(0, len(ids), CHUNK):
        chunk = ids[start:start + CHUNK]
        by_game: dict[object, list[SeatFacts]] = {}
        for row in connection.execute(sa.select(seats).where(seats.c.game_id.in_(chunk)).order_by(
                seats.c.game_id, seats.c.seat)).mappings():
            by_game.setdefault(row["game_id"], []).append(SeatFacts(
                int(row["seat"]), Role(row["role"]), str(row["team"]), bool(row["alive"]), row["out_cause"],
                row["out_night"], int(row["fouls"]), bool(row["best_player"])))
        game_rows: list[dict[str, object]] = []
        seat_rows: list[dict[str, object]] = []
        for game in connection.execute(sa.select(games).where(games.c.id.in_(chunk))).mappings():
            protocol = dict(game["protocol"]) if isinstance(game["protocol"], dict) else {}
            facts, per_seat = seat_figures(game["winner"], by_game.get(game["id"], []),
                                           {"ruleset": game["ruleset"], **protocol}, dict(game["options"] or {}))
            game_rows.append({"key": game["id"], **facts})
            seat_rows.extend({"key": game["id"], "key_seat": seat, **figures} for seat, figures in per_seat.items())
        if game_rows:
            connection.execute(games.update().where(games.c.id == sa.bindparam("key")).values(
                scoring=sa.bindparam("scoring"), removal_forfeits=sa.bindparam("removal_forfeits")), game_rows)
        if seat_rows:
            connection.execute(seats.update().where(seats.c.game_id == sa.bindparam("key"),
                                                    seats.c.seat == sa.bindparam("key_seat"))
                               .values({name: sa.bindparam(name) for name in SEAT_FIGURES}), seat_rows)


def downgrade() -> None:
    with op.batch_alter_table("game_seats") as batch:
        for name in SEAT_FIGURES:
            batch.drop_column(name)
    with op.batch_alter_table("games") as batch:
        batch.drop_column("removal_forfeits")
        batch.drop_column("scoring")
