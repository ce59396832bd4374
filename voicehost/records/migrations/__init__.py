"""The records' Alembic history, shipped inside the package and run on every open
(:func:`voicehost.records.store.migrate`); ``versions/`` holds one file per schema change."""
