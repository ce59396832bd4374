"""The club's records: every finished game, the players by nickname, and their ratings.

- :mod:`~voicehost.records.schema` — the tables (SQLAlchemy Core); :mod:`~voicehost.records.migrations`
  — their Alembic history, run on every open for writing so an old file or a club server catches
  up by itself;
- :mod:`~voicehost.records.reader` — the reads in plain SQL through the driver, without
  SQLAlchemy or Alembic while the schema is at its ``SCHEMA_HEAD`` (the read-only commands);
- :mod:`~voicehost.records.games` — a protocol or a journal made into a :class:`GameRecord`;
- :mod:`~voicehost.records.store` — the database: SQLite in the data dir by default, PostgreSQL
  for a club server (``postgresql://…``);
- :mod:`~voicehost.records.ratings` — per-player figures under the ruleset's scoring schemes;
- :mod:`~voicehost.records.outbox` — a table's finished games pushed to the club server, retried
  with backoff, idempotent by game id;
- :mod:`~voicehost.records.chart` — the season's points as a picture.

It stands on rules, config and the live host's public API (:mod:`voicehost.host`); the
command line and the appliance use it (reading a stored game needs none of the host:
:mod:`~voicehost.records.game_record`). Nothing is imported here, so a table that only checks
its ``[records]`` at start (:mod:`~voicehost.records.table`) does not load SQLAlchemy.
"""
