"""The rating sites: a tournament's ids on each site (mafiaratings' club, event and moderator
ids and rules code; Polemica's master, scoring type and version), and which games each site has
accepted from ``voicehost tournament upload``, so a game is never sent twice.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import JSONB

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None

JSON = sa.JSON().with_variant(JSONB(), "postgresql")


def upgrade() -> None:
    op.create_table(
        "tournament_sites",
        sa.Column("tournament_id", sa.Integer, sa.ForeignKey("tournaments.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("site", sa.String(20), primary_key=True),
        sa.Column("settings", JSON, nullable=False),
    )
    op.create_table(
        "site_uploads",
        sa.Column("site", sa.String(20), primary_key=True),
        sa.Column("game_id", sa.Uuid, sa.ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("accepted_at", sa.DateTime, nullable=False),
        sa.Column("remote_id", sa.String(40)),
    )


def downgrade() -> None:
    op.drop_table("site_uploads")
    op.drop_table("tournament_sites")
