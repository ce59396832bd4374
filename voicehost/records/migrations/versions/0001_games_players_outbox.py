"""The first schema: players, games, each game's seats, and a table's outbox to the club server.

Revision ID: 0001
Revises:
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import JSONB

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

JSON = sa.JSON().with_variant(JSONB(), "postgresql")


def upgrade() -> None:
    op.create_table(
        "players",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("nickname", sa.String(80), nullable=False, unique=True),
    )
    op.create_table(
        "games",
        sa.Column("id", sa.Uuid, primary_key=True),
        sa.Column("played_at", sa.DateTime, nullable=False),
        sa.Column("table_name", sa.String(80)),
        sa.Column("ruleset", sa.String(40), nullable=False),
        sa.Column("options", JSON, nullable=False),
        sa.Column("seats", sa.Integer, nullable=False),
        sa.Column("winner", sa.String(20)),
        sa.Column("reason", sa.String(40)),
        sa.Column("protocol", JSON, nullable=False),
    )
    op.create_index("ix_games_played_at", "games", ["played_at"])
    op.create_table(
        "game_seats",
        sa.Column("game_id", sa.Uuid, sa.ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True),
        sa.Column("player_id", sa.Integer, sa.ForeignKey("players.id")),
        sa.Column("role", sa.String(20), nullable=False),
        sa.Column("team", sa.String(20), nullable=False),
        sa.Column("alive", sa.Boolean, nullable=False),
        sa.Column("won", sa.Boolean, nullable=False),
        sa.Column("fouls", sa.Integer, nullable=False),
        sa.Column("out_cause", sa.String(20)),
        sa.Column("out_day", sa.Integer),
        sa.Column("out_night", sa.Integer),
        sa.Column("points", sa.Float, nullable=False),
        sa.Column("best_player", sa.Boolean, nullable=False, server_default=sa.false()),
    )
    op.create_index("ix_game_seats_player_id", "game_seats", ["player_id"])
    op.create_table(
        "outbox",
        sa.Column("game_id", sa.Uuid, sa.ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("queued_at", sa.DateTime, nullable=False),
        sa.Column("attempts", sa.Integer, nullable=False, server_default="0"),
        sa.Column("next_try_at", sa.DateTime, nullable=False),
        sa.Column("last_error", sa.Text),
    )


def downgrade() -> None:
    op.drop_table("outbox")
    op.drop_index("ix_game_seats_player_id", "game_seats")
    op.drop_table("game_seats")
    op.drop_index("ix_games_played_at", "games")
    op.drop_table("games")
    op.drop_table("players")
