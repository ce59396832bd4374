"""The table's side of the records: a finished game stored in the table's own database the
moment its protocol is written, queued for the club server if the table file names one, and
pushed right away when the server answers (otherwise it waits in the outbox for the next game
or ``voicehost records push``). Nothing here may cost the game: a failure is one line in the
log, and the protocol file stays for a later ``records import``."""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from voicehost.config import read_toml
from voicehost.i18n import _, said
from voicehost.rules import InputError

# SQLAlchemy and Alembic load when the first game is stored, not when the table starts.


def _stderr(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def record_finished_game(protocol: Mapping[str, Any], name: str, *, table_file: Path | None = None,
                         table: str | None = None, db: str | None = None, played_at: datetime | None = None,
                         log: Callable[[str], None] = _stderr, where: TableRecords | None = None,
                         refuse_taken: bool = False) -> bool:
    """Store one finished game (and push it if the table has a club server); True if stored.
    ``refuse_taken``: a tournament place already played raises (the command line's exit 2)
    instead of a line in the log (a live table's game must never fail on its records)."""
    from voicehost.records.games import record_from_protocol
    from voicehost.records.outbox import push
    from voicehost.records.places import PlaceTaken
    from voicehost.records.store import open_records

    try:
        if where is None:
            where = table_records(table_file) if table_file is not None else TableRecords(table or "simulation")
        when = played_at or datetime.now(timezone.utc).replace(tzinfo=None)
        record = record_from_protocol(dict(protocol), name, when, table or where.table, name)
        with open_records(db) as local:
            new = local.add([record], queue=where.club_url is not None)
            stored = (_("records: game {id} stored in {url}; the table's best player: voicehost records best {id} "
                        "NICK|SEAT") if new else
                      _("records: game {id} already in {url}; the table's best player: voicehost records best {id} "
                        "NICK|SEAT"))
            log(stored.format(id=str(record.id)[:8], url=local.url))
            if where.club_url is not None:
                log(_("records: club server: {line}").format(line=push(local, where.club_url).line))
        return True
    except PlaceTaken as err:
        if refuse_taken:
            raise
        log(_("voicehost: records: the game is not stored ({error})").format(error=err))
        return False
    except InputError as err:
        log(_("voicehost: records: the game is not stored ({error}); the protocol file can be imported later").format(
            error=said(err.template, err.values if err.filled else None)))
        return False


def protocol_hook(table_file: Path | None, db: str | None, log: Callable[[str], None] = _stderr,
                  check_db: bool = True) -> Callable[[Path, Mapping[str, Any]], None]:
    """What ``voicehost run`` and ``serve`` call after writing a protocol: the game into the
    records. The table file's ``[records]`` is checked now, before any game, and (``check_db``)
    the database too, so a typo is one line at the start rather than a lost record at the end;
    the appliance skips the database check to keep its start quick."""
    from voicehost.records.games import played_at_from

    where = table_records(table_file) if table_file is not None else TableRecords("table")
    if check_db:
        from voicehost.records.store import open_records

        open_records(db).close()

    def store(path: Path, protocol: Mapping[str, Any]) -> None:
        written = {**protocol, **_started_in(path)}  # when the game started, as the file says (its id)
        record_finished_game(written, path.name, db=db, played_at=played_at_from(path), log=log, where=where)
    return store


def with_start(protocol: Mapping[str, Any], journal: Path | None) -> dict[str, Any]:
    """The protocol with the ``started`` of its game's journal, if it has one (part of the game's id)."""
    from voicehost.host import read_journal

    try:
        header = read_journal(journal)[0] if journal is not None else {}
    except InputError:
        header = {}  # then the game is stored as of now, and says so in the log line as ever
    started, tournament = header.get("started"), header.get("tournament")
    return {**protocol, **({"started": started} if isinstance(started, str) else {}),
            **({"tournament": tournament} if tournament is not None else {})}


def _started_in(path: Path) -> dict[str, Any]:
    """The ``started`` (and ``tournament``) the host wrote into the protocol file (none if it cannot be read)."""
    import json

    try:
        written = json.loads(path.read_text(encoding="utf-8"))
        started, tournament = written.get("started"), written.get("tournament")
    except (OSError, ValueError, AttributeError):
        return {}
    return ({"started": started} if isinstance(started, str) else {}) | (
        {"tournament": tournament} if tournament is not None else {})   # and its tournament place, if any


@dataclass(frozen=True)
class TableRecords:
    """A table file's ``[records]``: ``url`` of the club server (optional) and the ``table`` name
    its games carry (default: the file's name)."""

    table: str
    club_url: str | None = None


def table_records(path: Path) -> TableRecords:
    data: Any = read_toml(path).get("records", {})
    place = f"{path}: records"
    if not isinstance(data, dict):
        raise InputError(place, _("must be a table"))
    unknown = set(data) - {"url", "table"}
    if unknown:
        raise InputError(f"{place}.{sorted(unknown)[0]}", _("unknown setting (known: table, url)"))
    for key in ("url", "table"):
        if key in data and (not isinstance(data[key], str) or not data[key].strip()):
            raise InputError(f"{place}.{key}", _("must be a non-empty string"))
    url = data.get("url")
    if url is not None and not url.startswith("postgresql"):
        raise InputError(f"{place}.url", _("the club server must be a postgresql:// URL"))
    return TableRecords(data.get("table", path.stem), url)
