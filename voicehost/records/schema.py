"""The records' tables (SQLAlchemy Core). The Alembic migrations create and change them; this
module describes the current shape for queries.

A game keeps its whole protocol (JSON) beside the columns the queries need, so an export or a
new kind of rating never has to go back to the files.
"""

from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy.dialects.postgresql import JSONB

metadata = sa.MetaData()
JSON = sa.JSON().with_variant(JSONB(), "postgresql")

players = sa.Table(
    "players", metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("nickname", sa.String(80), nullable=False, unique=True),
)

games = sa.Table(
    "games", metadata,
    sa.Column("id", sa.Uuid, primary_key=True),
    sa.Column("played_at", sa.DateTime, nullable=False, index=True),  # UTC
    sa.Column("table_name", sa.String(80)),
    sa.Column("ruleset", sa.String(40), nullable=False),
    sa.Column("options", JSON, nullable=False),
    sa.Column("seats", sa.Integer, nullable=False),
    sa.Column("winner", sa.String(20)),
    sa.Column("reason", sa.String(40)),
    sa.Column("protocol", JSON, nullable=False),
    sa.Column("tournament", sa.String(80)),   # the game's place in a tournament (its protocol's), if any
    sa.Column("round_no", sa.Integer),
    sa.Column("table_no", sa.Integer),
    sa.Column("scoring", sa.String(40)),   # the scheme played, if its ruleset has one (migration 0006)
    sa.Column("removal_forfeits", sa.Boolean, nullable=False, server_default=sa.false()),   # the option (0006)
)
sa.Index("ix_games_tournament_place", games.c.tournament, games.c.round_no, games.c.table_no, unique=True)

game_seats = sa.Table(
    "game_seats", metadata,
    sa.Column("game_id", sa.Uuid, sa.ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
    sa.Column("seat", sa.Integer, primary_key=True),
    sa.Column("player_id", sa.Integer, sa.ForeignKey("players.id"), index=True),
    sa.Column("role", sa.String(20), nullable=False),
    sa.Column("team", sa.String(20), nullable=False),
    sa.Column("alive", sa.Boolean, nullable=False),
    sa.Column("won", sa.Boolean, nullable=False),
    sa.Column("fouls", sa.Integer, nullable=False),
    sa.Column("out_cause", sa.String(20)),
    sa.Column("out_day", sa.Integer),
    sa.Column("out_night", sa.Integer),
    sa.Column("points", sa.Float, nullable=False),  # game.scores() under the scheme played
    sa.Column("best_player", sa.Boolean, nullable=False, server_default=sa.false()),
    # What the game decided for this seat, from its protocol (voicehost.records.figures; migration 0006).
    sa.Column("killed_first", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.Column("best_move_black", sa.Integer, nullable=False, server_default="0"),
    sa.Column("judge_points", sa.Float, nullable=False, server_default="0"),
    sa.Column("team_removed", sa.Boolean, nullable=False, server_default=sa.false()),
)

outbox = sa.Table(
    "outbox", metadata,
    sa.Column("game_id", sa.Uuid, sa.ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
    sa.Column("queued_at", sa.DateTime, nullable=False),
    sa.Column("attempts", sa.Integer, nullable=False, server_default="0"),
    sa.Column("next_try_at", sa.DateTime, nullable=False),
    sa.Column("last_error", sa.Text),
)

tournaments = sa.Table(
    "tournaments", metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("name", sa.String(80), nullable=False, unique=True),
    sa.Column("scoring", sa.String(40), nullable=False),
    sa.Column("tie_breaks", JSON, nullable=False),
    sa.Column("created_at", sa.DateTime, nullable=False),
    sa.Column("standings_hidden", sa.Boolean, nullable=False, server_default=sa.false()),   # migration 0004
)

tournament_players = sa.Table(
    "tournament_players", metadata,
    sa.Column("tournament_id", sa.Integer, sa.ForeignKey("tournaments.id", ondelete="CASCADE"), primary_key=True),
    sa.Column("nickname", sa.String(80), primary_key=True),
    sa.Column("position", sa.Integer, nullable=False),
)

tournament_seats = sa.Table(   # the schedule: round → table → seat → player
    "tournament_seats", metadata,
    sa.Column("tournament_id", sa.Integer, sa.ForeignKey("tournaments.id", ondelete="CASCADE"), primary_key=True),
    sa.Column("round_no", sa.Integer, primary_key=True),
    sa.Column("table_no", sa.Integer, primary_key=True),
    sa.Column("seat", sa.Integer, primary_key=True),
    sa.Column("nickname", sa.String(80), nullable=False),
)


game_versions = sa.Table(   # a corrected game's protocols, version 1 the one stored first (migration 0004)
    "game_versions", metadata,
    sa.Column("game_id", sa.Uuid, sa.ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
    sa.Column("version", sa.Integer, primary_key=True),
    sa.Column("protocol", JSON, nullable=False),
    sa.Column("reason", sa.Text),
    sa.Column("corrected_by", sa.String(80)),
    sa.Column("corrected_at", sa.DateTime, nullable=False),
)

tournament_sites = sa.Table(   # a tournament's ids on a rating site (voicehost.records.sites.settings)
    "tournament_sites", metadata,
    sa.Column("tournament_id", sa.Integer, sa.ForeignKey("tournaments.id", ondelete="CASCADE"), primary_key=True),
    sa.Column("site", sa.String(20), primary_key=True),
    sa.Column("settings", JSON, nullable=False),
)

site_uploads = sa.Table(   # the games a rating site has accepted (voicehost.records.sites.upload)
    "site_uploads", metadata,
    sa.Column("site", sa.String(20), primary_key=True),
    sa.Column("game_id", sa.Uuid, sa.ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
    sa.Column("accepted_at", sa.DateTime, nullable=False),
    sa.Column("remote_id", sa.String(40)),
)
