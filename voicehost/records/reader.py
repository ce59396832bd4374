"""Reading the records in plain SQL, through the database's own driver (:mod:`sqlite3`, psycopg):
a ``records``/``tournament`` command that only reads starts without SQLAlchemy and Alembic
(issue 47: they were half of a second on every command, 30× a bare interpreter, even on an empty
database).

A database whose schema is at :data:`SCHEMA_HEAD` is read directly. One that is behind (an older
file, a fresh one, a club server not migrated yet), a URL this module does not read as plainly
as SQLAlchemy would, or anything it cannot open, goes the writing path instead
(:func:`voicehost.records.opening.open_reader` chooses;
:func:`voicehost.records.store.open_records` migrates, with its one-line errors). The
:class:`~voicehost.records.store.Records` it returns reads through the same functions below, on
its engine's raw connection: one read path, whichever way the database was opened.

The rows come back as the driver gives them; on SQLite, where SQLAlchemy stored UUIDs as hex,
times as text and JSON as text, :func:`run_rows` decodes them by column name
(:data:`SQLITE_DECODERS`). PostgreSQL's driver gives the types themselves.
"""

from __future__ import annotations

import gc
import json
import re
import sys
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from voicehost.i18n import N_
from voicehost.records.game_record import GameRecord, SeatRecord
from voicehost.rules import InputError

if TYPE_CHECKING:
    import uuid

#: The newest migration's revision (migrations/versions/): the only schema read without Alembic.
#: A new migration changes it here and only here; tests/test_records_startup.py holds it equal to
#: Alembic's head, so a migration that forgets it is caught.
SCHEMA_HEAD = "0006"
CONNECT_TIMEOUT_S = 5   # as the writing path's (store.CONNECT_TIMEOUT_S)
_UNSAFE_PATH = re.compile(r"[?#%~]|^$|^:memory:$")   # read by SQLAlchemy's rules, not ours: the writing path
_NAMED = re.compile(r"(?<![:\w]):(\w+)")


class Readable(Protocol):
    """What the reads need of a database: its dialect and plain SQL rows."""

    @property
    def dialect(self) -> str: ...

    def rows(self, sql: str, params: Mapping[str, Any] | None = None) -> list[dict[str, Any]]: ...

    def tuples(self, sql: str, params: Mapping[str, Any] | None = None) -> list[tuple[Any, ...]]: ...


@contextmanager
def no_gc() -> Iterator[None]:
    """The garbage collector off for the length of a bulk read (on again after, if it was on):
    the rows are many small tuples that form no cycles, and full collections over them, several
    times during one read, made a read grow faster than the number of games."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def _uuid(value: Any) -> Any:
    """A stored id; :mod:`uuid` (and the :mod:`platform` it brings) loads with the first one."""
    if not isinstance(value, str):
        return value
    import uuid

    return uuid.UUID(value)


def _when(value: Any) -> Any:
    return datetime.fromisoformat(value) if isinstance(value, str) else value


def _json(value: Any) -> Any:
    return json.loads(value) if isinstance(value, str) else value


def _bool(value: Any) -> Any:
    return bool(value) if value is not None else None


#: How SQLAlchemy's types come back from SQLite, by the column names the queries here give them.
SQLITE_DECODERS: dict[str, Callable[[Any], Any]] = {
    **dict.fromkeys(("game_id",), _uuid),
    **dict.fromkeys(("played_at", "created_at", "corrected_at", "queued_at", "next_try_at"), _when),
    **dict.fromkeys(("options", "protocol", "tie_breaks", "best_move", "judge_points", "removal_forfeits"), _json),
    **dict.fromkeys(("alive", "won", "best_player", "standings_hidden", "removal_forfeits", "killed_first",
                     "team_removed"), _bool),
}


def _sqlite_param(value: Any) -> Any:
    """A value bound as SQLAlchemy stored it on SQLite (so comparisons meet the stored text)."""
    if isinstance(value, datetime):
        return value.strftime("%Y-%m-%d %H:%M:%S.%f")
    known = sys.modules.get("uuid")   # not loaded: no value can be a UUID
    if known is not None and isinstance(value, known.UUID):
        return value.hex
    return value


def run_tuples(connection: Any, dialect: str, sql: str,
               params: Mapping[str, Any] | None = None) -> list[tuple[Any, ...]]:
    """``sql``'s rows as the driver gives them (sqlite3's or psycopg's tuples: no decoding, no
    dicts), for the bulk reads of :mod:`voicehost.records.reading`, with the collector held off."""
    cursor = connection.cursor()
    try:
        with no_gc():
            _execute(cursor, dialect, sql, params)
            return list(cursor.fetchall())
    finally:
        cursor.close()


def _execute(cursor: Any, dialect: str, sql: str, params: Mapping[str, Any] | None) -> None:
    if dialect == "sqlite":
        cursor.execute(sql, {key: _sqlite_param(value) for key, value in (params or {}).items()})
    else:
        cursor.execute(_NAMED.sub(r"%(\1)s", sql), dict(params or {}))


def run_rows(connection: Any, dialect: str, sql: str, params: Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
    """``sql`` (named parameters ``:name``) on a DB-API ``connection``, each row a dict by column name."""
    cursor = connection.cursor()
    try:
        _execute(cursor, dialect, sql, params)
        names = [column[0] for column in cursor.description]
        found = cursor.fetchall()
    finally:
        cursor.close()
    if dialect != "sqlite":
        return [dict(zip(names, row, strict=True)) for row in found]
    decoders = [(at, SQLITE_DECODERS[name]) for at, name in enumerate(names) if name in SQLITE_DECODERS]
    rows = []
    for row in found:
        values = list(row)
        for at, decode in decoders:
            values[at] = decode(values[at])
        rows.append(dict(zip(names, values, strict=True)))
    return rows


def json_value(dialect: str, column: str, key: str) -> str:
    """SQL for one key of a JSON column, as JSON (None where the key is absent)."""
    return f"json_quote(json_extract({column}, '$.{key}'))" if dialect == "sqlite" else f"({column} -> '{key}')"


def json_text(dialect: str, column: str, key: str) -> str:
    """SQL for one key of a JSON column, as text."""
    return f"json_extract({column}, '$.{key}')" if dialect == "sqlite" else f"({column} ->> '{key}')"


# ---- opening --------------------------------------------------------------------------------------

class Reader:
    """A records database at :data:`SCHEMA_HEAD`, opened for reading through its driver; the read
    methods of :class:`~voicehost.records.store.Records`, and its ``url``."""

    def __init__(self, connection: Any, dialect: str, url: str) -> None:
        self._connection, self._dialect, self.url = connection, dialect, url

    @property
    def dialect(self) -> str:
        return self._dialect

    def rows(self, sql: str, params: Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
        return run_rows(self._connection, self._dialect, sql, params)

    def tuples(self, sql: str, params: Mapping[str, Any] | None = None) -> list[tuple[Any, ...]]:
        return run_tuples(self._connection, self._dialect, sql, params)

    def close(self) -> None:
        self._connection.close()

    def __enter__(self) -> Reader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def count(self) -> int:
        return count(self)

    def games(self, player: str | None = None, since: datetime | None = None,
              until: datetime | None = None) -> list[GameRecord]:
        return game_records(self, player, since, until)

    def game(self, game_id: uuid.UUID) -> GameRecord | None:
        return game_record(self, game_id)

    def seat_rows(self, since: datetime | None = None, until: datetime | None = None) -> list[dict[str, Any]]:
        return seat_rows(self, since, until)


def plain_reader(url: str, place: str = "--db") -> Reader | None:
    """The records at ``url`` read plainly, if its schema is at :data:`SCHEMA_HEAD` and this module
    reads its URL as SQLAlchemy would; else None (the writing path opens it)."""
    scheme, separator, rest = url.partition("://")
    if separator and scheme == "sqlite" and rest.startswith("/"):
        return _sqlite(url, rest[1:])
    if separator and scheme in ("postgresql", "postgresql+psycopg"):
        return _postgresql(url, rest, place)
    return None


def _sqlite(url: str, path: str) -> Reader | None:
    import sqlite3

    if _UNSAFE_PATH.search(path) or not Path(path).is_file():
        return None   # a fresh file is created and migrated by the writing path
    connection = sqlite3.connect(f"{Path(path).resolve().as_uri()}?mode=ro", uri=True, timeout=30)
    try:
        return _at_head(Reader(connection, "sqlite", url))
    except sqlite3.DatabaseError:
        connection.close()
        return None


def _postgresql(url: str, rest: str, place: str) -> Reader | None:
    import psycopg

    try:
        connection = psycopg.connect(f"postgresql://{rest}", connect_timeout=CONNECT_TIMEOUT_S, autocommit=True)
    except psycopg.OperationalError as err:
        text = str(err).strip()
        raise InputError(place, N_("cannot reach {url} ({error})"),
                         {"url": shown_url(rest), "error": text.splitlines()[0] if text else type(err).__name__}
                         ) from None
    except psycopg.Error:
        return None
    try:
        return _at_head(Reader(connection, "postgresql", shown_url(rest)))
    except psycopg.Error:
        connection.close()
        return None


def shown_url(rest: str) -> str:
    """A PostgreSQL URL as the writing path shows it: the driver named, the password hidden."""
    login, at, host = rest.rpartition("@")
    user, colon, _password = login.partition(":")
    return f"postgresql+psycopg://{user}{':***' if colon else ''}{at}{host}"


def _at_head(reader: Reader) -> Reader | None:
    """``reader`` if its schema is :data:`SCHEMA_HEAD`, else closed and None (the driver's error
    of a file that is no database, or a database without the records, goes up)."""
    revisions = [row["version_num"] for row in reader.rows("SELECT version_num FROM alembic_version")]
    if revisions == [SCHEMA_HEAD]:
        return reader
    reader.close()
    return None


# ---- the reads ----------------------------------------------------------------------------------

def count(db: Readable) -> int:
    return int(db.rows("SELECT count(*) AS n FROM games")[0]["n"])


def _season(since: datetime | None, until: datetime | None) -> tuple[list[str], dict[str, Any]]:
    """The WHERE terms and parameters of a season (``until`` excluded)."""
    terms, params = [], {}
    if since is not None:
        terms.append("g.played_at >= :since")
        params["since"] = since
    if until is not None:
        terms.append("g.played_at < :until")
        params["until"] = until
    return terms, params


GAME_COLUMNS = "g.id AS game_id, g.played_at, g.table_name, g.ruleset, g.options, g.winner, g.reason, g.protocol"
SEAT_COLUMNS = ("s.game_id, s.seat, p.nickname, s.role, s.team, s.alive, s.won, s.fouls, s.out_cause, s.out_day, "
                "s.out_night, s.points, s.best_player")


def game_records(db: Readable, player: str | None = None, since: datetime | None = None,
                 until: datetime | None = None) -> list[GameRecord]:
    """The history, oldest first, as records (with their rosters)."""
    terms, params = _season(since, until)
    if player is not None:
        terms.append("g.id IN (SELECT s.game_id FROM game_seats s JOIN players p ON p.id = s.player_id "
                     "WHERE p.nickname = :player)")
        params["player"] = player
    return _records(db, " AND ".join(terms) or "1 = 1", params)


def game_record(db: Readable, game_id: uuid.UUID) -> GameRecord | None:
    found = _records(db, "g.id = :id", {"id": game_id})
    return found[0] if found else None


def _records(db: Readable, where: str, params: Mapping[str, Any]) -> list[GameRecord]:
    """The games ``where`` selects and, in a second query, their seats (the same ``where``)."""
    games = db.rows(f"SELECT {GAME_COLUMNS} FROM games g WHERE {where} ORDER BY g.played_at, g.id", params)
    seats: dict[uuid.UUID, list[SeatRecord]] = {}
    if games:
        for row in db.rows(f"SELECT {SEAT_COLUMNS} FROM game_seats s LEFT JOIN players p ON p.id = s.player_id "
                           f"WHERE s.game_id IN (SELECT g.id FROM games g WHERE {where}) "
                           "ORDER BY s.game_id, s.seat", params):
            seats.setdefault(row["game_id"], []).append(_seat(row))
    return [GameRecord(id=row["game_id"], played_at=row["played_at"], table=row["table_name"], ruleset=row["ruleset"],
                       options=dict(row["options"]), winner=row["winner"], reason=row["reason"],
                       seats=seats.get(row["game_id"], []), protocol=row["protocol"]) for row in games]


def _seat(row: Mapping[str, Any]) -> SeatRecord:
    return SeatRecord(seat=row["seat"], player=row["nickname"], role=row["role"], team=row["team"],
                      alive=row["alive"], won=row["won"], fouls=row["fouls"], out_cause=row["out_cause"],
                      out_day=row["out_day"], out_night=row["out_night"], points=row["points"],
                      best_player=row["best_player"])


def seat_rows(db: Readable, since: datetime | None = None, until: datetime | None = None) -> list[dict[str, Any]]:
    """Every named player's seat in the games of a season: what the ratings are made of. An
    annulled or stopped game (no winner) is kept, never rated. Beside the seat: the scheme the
    game was played under and the figures stored at import (records 0006, ``records.figures``)
    that a tournament scoring reads to score the seat again under another scheme."""
    terms, params = _season(since, until)
    where = " AND ".join(["g.winner IS NOT NULL", *terms])
    return db.rows(
        "SELECT p.nickname, g.id AS game_id, g.played_at, g.ruleset, g.scoring, g.removal_forfeits, g.winner, "
        "s.seat, s.role, s.team, s.alive, s.won, s.fouls, s.points, s.best_player, s.out_cause, s.out_night, "
        "s.killed_first, s.best_move_black, s.judge_points, s.team_removed "
        "FROM game_seats s JOIN players p ON p.id = s.player_id JOIN games g ON g.id = s.game_id "
        f"WHERE {where} ORDER BY g.played_at, g.id, s.seat", params)

