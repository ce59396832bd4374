"""Alembic's environment for the records: always run programmatically on a connection the
store hands over (``config.attributes["connection"]``), never from an alembic.ini."""

from __future__ import annotations

from alembic import context

from voicehost.records.schema import metadata

connection = context.config.attributes["connection"]
context.configure(connection=connection, target_metadata=metadata, render_as_batch=True)
with context.begin_transaction():
    context.run_migrations()
