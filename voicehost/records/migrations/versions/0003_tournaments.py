"""Tournaments: a tournament's players, schedule, scoring scheme and tie-breaks, and each game's
place in one (tournament, round, table), unique, so a second game at a round and table already
played is refused. Games stored before belong to no tournament and keep everything they had.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import JSONB

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

JSON = sa.JSON().with_variant(JSONB(), "postgresql")


def upgrade() -> None:
    op.add_column("games", sa.Column("tournament", sa.String(80)))
    op.add_column("games", sa.Column("round_no", sa.Integer))
    op.add_column("games", sa.Column("table_no", sa.Integer))
    op.create_index("ix_games_tournament_place", "games", ["tournament", "round_no", "table_no"], unique=True)
    op.create_table(
        "tournaments",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("name", sa.String(80), nullable=False, unique=True),
        sa.Column("scoring", sa.String(40), nullable=False),
        sa.Column("tie_breaks", JSON, nullable=False),
        sa.Column("created_at", sa.DateTime, nullable=False),
    )
    op.create_table(
        "tournament_players",
        sa.Column("tournament_id", sa.Integer, sa.ForeignKey("tournaments.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("nickname", sa.String(80), primary_key=True),
        sa.Column("position", sa.Integer, nullable=False),
    )
    op.create_table(
        "tournament_seats",
        sa.Column("tournament_id", sa.Integer, sa.ForeignKey("tournaments.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("round_no", sa.Integer, primary_key=True),
        sa.Column("table_no", sa.Integer, primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True),
        sa.Column("nickname", sa.String(80), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("tournament_seats")
    op.drop_table("tournament_players")
    op.drop_table("tournaments")
    op.drop_index("ix_games_tournament_place", "games")
    with op.batch_alter_table("games") as batch:
        batch.drop_column("table_no")
        batch.drop_column("round_no")
        batch.drop_column("tournament")
