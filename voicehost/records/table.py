"""The table's side of the records: a finished game stored in the table's own database the
moment its protocol is written, queued for the club server if the table file names one, and
pushed right away when the server answers (otherwise it waits in the outbox for the next game
or ``voicehost records push``). Nothing here may cost the game: a failure is one line in the
log, and the protocol file stays for a later ``records import``."""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from voicehost.records.games import played_at_from, record_from_protocol
from voicehost.records.outbox import TableRecords, push, table_records
from voicehost.records.store import open_records
from voicehost.rules import InputError


def _stderr(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def record_finished_game(protocol: Mapping[str, Any], name: str, *, table_file: Path | None = None,
                         table: str | None = None, db: str | None = None, played_at: datetime | None = None,
                         log: Callable[[str], None] = _stderr, where: TableRecords | None = None) -> bool:
    """Store one finished game (and push it if the table has a club server); True if stored."""
    try:
        if where is None:
            where = table_records(table_file) if table_file is not None else TableRecords(table or "simulation")
        when = played_at or datetime.now(timezone.utc).replace(tzinfo=None)
        record = record_from_protocol(dict(protocol), name, when, table or where.table, name)
        with open_records(db) as local:
            new = local.add([record], queue=where.club_url is not None)
            log(f"records: game {str(record.id)[:8]} {'stored in' if new else 'already in'} {local.url}; the table's "
                f"best player: voicehost records best {str(record.id)[:8]} NICK|SEAT")
            if where.club_url is not None:
                log(f"records: club server: {push(local, where.club_url).line}")
        return True
    except InputError as err:
        log(f"voicehost: records: the game is not stored ({err}); the protocol file can be imported later")
        return False


def protocol_hook(table_file: Path | None, db: str | None,
                  log: Callable[[str], None] = _stderr) -> Callable[[Path, Mapping[str, Any]], None]:
    """What ``voicehost run`` calls after writing a protocol: the game into the records. The
    table file's ``[records]`` and the database are checked now, before the game, so a typo
    is one line at the start rather than a lost record at the end."""
    where = table_records(table_file) if table_file is not None else TableRecords("table")
    open_records(db).close()

    def store(path: Path, protocol: Mapping[str, Any]) -> None:
        record_finished_game(protocol, path.name, db=db, played_at=played_at_from(path), log=log, where=where)
    return store
