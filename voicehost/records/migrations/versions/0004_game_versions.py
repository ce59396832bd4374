"""Corrections after the game: every version of a corrected game's protocol (the one stored
first, then each correction with its reason, who made it and when), and a tournament's
standings that the organiser keeps hidden until he opens them. Nothing stored before changes:
a game never corrected has no versions; every tournament's standings stay open.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import JSONB

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

JSON = sa.JSON().with_variant(JSONB(), "postgresql")


def upgrade() -> None:
    op.create_table(
        "game_versions",
        sa.Column("game_id", sa.Uuid, sa.ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("version", sa.Integer, primary_key=True),
        sa.Column("protocol", JSON, nullable=False),
        sa.Column("reason", sa.Text),
        sa.Column("corrected_by", sa.String(80)),
        sa.Column("corrected_at", sa.DateTime, nullable=False),
    )
    op.add_column("tournaments", sa.Column("standings_hidden", sa.Boolean, nullable=False,
                                           server_default=sa.false()))


def downgrade() -> None:
    with op.batch_alter_table("tournaments") as batch:
        batch.drop_column("standings_hidden")
    op.drop_table("game_versions")
