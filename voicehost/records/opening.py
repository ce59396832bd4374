"""Opening the records to read: the plain path (:mod:`voicehost.records.reader`) when the schema
is current, else the writing path (:mod:`voicehost.records.store`), which migrates. Above both,
so that neither imports the other's opener (the reader stays free of SQLAlchemy)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from voicehost.records.reader import Reader, plain_reader

if TYPE_CHECKING:
    from voicehost.records.store import Records


def open_reader(url: str | None = None, place: str = "--db") -> Reader | Records:
    """The records at ``url`` (None: the data dir's SQLite) to read: plainly when the schema is at
    :data:`~voicehost.records.reader.SCHEMA_HEAD`, else through the writing path, which migrates
    it (or refuses it in one line)."""
    if url is None:
        from voicehost.records.paths import default_url

        url = default_url()
    reader = plain_reader(url, place)
    if reader is not None:
        return reader
    from voicehost.records.store import open_records

    return open_records(url, place)
