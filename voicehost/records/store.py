"""The records database: SQLite (the default, a file in the data dir) or PostgreSQL (a club
server), through SQLAlchemy Core. Opening runs the Alembic migrations, so every file and server
is at the current schema before the first query.

Adding a game is idempotent by its id: ``INSERT … ON CONFLICT DO NOTHING`` on both databases,
so an import run twice, a retried push and two tables pushing at once never duplicate a game.
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Iterable, Iterator, Mapping
from datetime import datetime, timedelta, timezone
from operator import itemgetter
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection, Engine

from voicehost.i18n import N_
from voicehost.records import reader
from voicehost.records.game_record import GameRecord, SeatRecord
from voicehost.records.paths import default_url
from voicehost.records.places import PlaceTaken, TournamentPlace, place_of
from voicehost.records.schema import game_seats, games, outbox, players
from voicehost.rules import InputError

MIGRATIONS = Path(__file__).resolve().parent / "migrations"
CONNECT_TIMEOUT_S = 5
BATCH = 500  # games per INSERT … VALUES when importing many
PLACE_COLUMNS = ("tournament", "round_no", "table_no")  # a game's place in a tournament (migration 0003)
FIGURE_COLUMNS = ("scoring", "removal_forfeits", "killed_first", "best_move_black", "judge_points",
                  "team_removed")  # the scoring figures (migration 0006)
_MIGRATING = threading.Lock()


def engine_for(url: str | None, place: str = "--db") -> Engine:
    """An engine for ``url`` (None: the data dir's SQLite). ``postgresql://`` goes through psycopg 3;
    a URL that is not a database's is refused in one line."""
    try:
        parsed = sa.engine.make_url(url or default_url())
    except sa.exc.ArgumentError:
        raise InputError(place, N_("{url} is not a database URL (sqlite:///FILE or postgresql://HOST/DB)"),
                         {"url": repr(url)}) from None
    backend = parsed.get_backend_name()
    if backend == "postgresql":
        if parsed.drivername == "postgresql":
            parsed = parsed.set(drivername="postgresql+psycopg")
        return _create(parsed, place, connect_args={"connect_timeout": CONNECT_TIMEOUT_S}, pool_pre_ping=True)
    if backend == "sqlite":
        if parsed.database and parsed.database != ":memory:":
            folder = Path(parsed.database).expanduser().resolve().parent
            if not folder.is_dir():
                raise InputError(place, N_("no such folder {folder} for the SQLite file"), {"folder": str(folder)})
        return _create(parsed, place, connect_args={"timeout": 30})
    raise InputError(place, N_("{backend} databases are not supported (sqlite or postgresql)"),
                     {"backend": repr(backend)})


def _create(url: sa.URL, place: str, **kwargs: Any) -> Engine:
    try:
        return sa.create_engine(url, **kwargs)
    except (sa.exc.ArgumentError, sa.exc.NoSuchModuleError, ImportError) as err:
        raise InputError(place, N_("cannot use {url} ({error})"),
                         {"url": url.render_as_string(hide_password=True), "error": str(err)}) from None


def at_head(engine: Engine) -> bool:
    """Whether the schema is already the newest: one plain query, so a command on records that
    need no migration neither loads Alembic nor takes the migration locks."""
    try:
        with engine.connect() as connection:
            version = connection.execute(sa.text("SELECT version_num FROM alembic_version")).scalar()
    except sa.exc.DatabaseError:   # no alembic_version yet (a new file, an empty server), or no server:
        return False               # the migration says which
    return version == reader.SCHEMA_HEAD


def migrate(engine: Engine) -> None:
    """Bring the schema to the newest revision, when it is behind. Alembic's environment is one
    global per process, so threads take turns (a lock); on PostgreSQL an advisory lock makes
    tables that open the club server at the same moment take turns too."""
    if at_head(engine):
        return
    from alembic import command
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    with _MIGRATING, engine.begin() as connection:
        if engine.dialect.name == "postgresql":
            connection.execute(sa.text("SELECT pg_advisory_xact_lock(2015)"))
        config.attributes["connection"] = connection
        command.upgrade(config, "head")


def open_records(url: str | None = None, place: str = "--db") -> Records:
    """The records at ``url``, migrated; an unreachable server or an unreadable file is one line."""
    engine = engine_for(url, place)
    try:
        migrate(engine)
    except sa.exc.OperationalError as err:
        engine.dispose()
        raise InputError(place, N_("cannot reach {url} ({error})"),
                         {"url": _shown(engine), "error": _first_line(err)}) from None
    except sa.exc.DatabaseError as err:
        engine.dispose()
        raise InputError(place, N_("{url} is not a voicehost records database ({error})"),
                         {"url": _shown(engine), "error": _first_line(err)}) from None
    return Records(engine)


def _shown(engine: Engine) -> str:
    return engine.url.render_as_string(hide_password=True)


def _first_line(err: BaseException) -> str:
    text = str(getattr(err, "orig", None) or err).strip()
    return text.splitlines()[0] if text else type(err).__name__


class Records:
    """The club's games and players in one database."""

    def __init__(self, engine: Engine, figures: bool = True) -> None:
        """``figures``: False writes records as a schema before 0006 holds them (the upgrade
        tests build such records; an upgrade fills the figures in)."""
        self.engine = engine
        self.figures = figures
        self._insert = postgresql.insert if engine.dialect.name == "postgresql" else sqlite.insert

    @property
    def url(self) -> str:
        return _shown(self.engine)

    def close(self) -> None:
        self.engine.dispose()

    def __enter__(self) -> Records:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---- writing ---------------------------------------------------------------

    def add(self, records: Iterable[GameRecord], queue: bool = False, now: datetime | None = None) -> int:
        """Store the games not stored yet; returns how many were new. ``queue``: also put each
        new game in the outbox for the club server. A game already there keeps its rows, but a
        best-player vote it now carries is taken (the vote may come after the first push). The
        garbage collector is held off meanwhile (:func:`reader.no_gc`): the protocols read and
        the rows made of them are many small objects without cycles, and full collections over
        them, again and again during a season's import, grew faster than the number of games."""
        added = 0
        with reader.no_gc(), self.engine.begin() as connection:
            for batch in _batches(records, BATCH):
                added += self._add_batch(connection, batch, queue, now)
        return added

    def _add_batch(self, connection: Connection, batch: list[GameRecord], queue: bool, now: datetime | None) -> int:
        unique = list({record.id: record for record in batch}.values())
        known = set(connection.execute(sa.select(games.c.id).where(games.c.id.in_([r.id for r in unique]))).scalars())
        fresh = [record for record in unique if record.id not in known]
        new = {record.id for record in fresh}
        if fresh:  # executemany; ON CONFLICT guards against another writer between the SELECT and here
            figures = {record.id: figures_of(record) for record in fresh}
            rows = [self._stored(game_row(record, figures[record.id])) for record in fresh]
            _refuse_taken_places(connection, rows)
            if all(row["tournament"] is None for row in rows):  # the columns of 0001's games only (as before 0003)
                rows = [{k: v for k, v in row.items() if k not in PLACE_COLUMNS} for row in rows]
            ids = self.player_ids(connection, {s.player for r in fresh for s in r.seats if s.player})
            try:
                insert_many(connection, games, ("id",), rows)
            except sa.exc.IntegrityError:  # another table's game took the place in the meantime
                with connection.engine.connect() as again:
                    _refuse_taken_places(again, rows)
                raise
            insert_many(connection, game_seats, ("game_id", "seat"),
                        [self._stored(row) for r in fresh for row in seat_rows_of(r, ids, figures=figures[r.id])])
        for record in unique:
            if record.id not in new and any(s.best_player for s in record.seats):
                self._take_best(connection, record)
        if queue:
            when = now or _utcnow()
            connection.execute(self._insert(outbox).on_conflict_do_nothing(index_elements=["game_id"]),
                               [{"game_id": r.id, "queued_at": when, "attempts": 0, "next_try_at": when}
                                for r in unique])
        return len(new)

    def _stored(self, row: dict[str, Any]) -> dict[str, Any]:
        return row if self.figures else {k: v for k, v in row.items() if k not in FIGURE_COLUMNS}

    def player_ids(self, connection: Connection, nicknames: set[str]) -> dict[str, int]:
        if not nicknames:
            return {}
        connection.execute(self._insert(players).on_conflict_do_nothing(index_elements=["nickname"]),
                           [{"nickname": n} for n in sorted(nicknames)])
        found = connection.execute(sa.select(players.c.nickname, players.c.id)
                                   .where(players.c.nickname.in_(nicknames)))
        return {nickname: player_id for nickname, player_id in found}

    @staticmethod
    def _take_best(connection: Connection, record: GameRecord) -> None:
        for seat in record.seats:
            connection.execute(game_seats.update()
                               .where(game_seats.c.game_id == record.id, game_seats.c.seat == seat.seat)
                               .values(best_player=seat.best_player))

    def vote_best_player(self, game: str, who: str, queue: bool = False) -> tuple[uuid.UUID, int]:
        """The table's best-player vote (docs/rules.md, `sport` «Scores»: +2): ``who`` is a seat number or a nickname of
        the game whose id starts with ``game``. Returns (game id, seat)."""
        with self.engine.begin() as connection:
            game_uuid = self.find_game(connection, game)
            seats = connection.execute(sa.select(game_seats.c.seat, players.c.nickname)
                                       .select_from(game_seats.outerjoin(players))
                                       .where(game_seats.c.game_id == game_uuid)).all()
            chosen = [seat for seat, nick in seats if str(seat) == who or (nick and nick == who)]
            if not chosen:
                raise InputError(who, N_("no such seat or player in that game"))
            connection.execute(game_seats.update().where(game_seats.c.game_id == game_uuid)
                               .values(best_player=game_seats.c.seat == chosen[0]))
            if queue:
                when = _utcnow()
                connection.execute(self._insert(outbox).values(game_id=game_uuid, queued_at=when, attempts=0,
                                                               next_try_at=when)
                                   .on_conflict_do_update(index_elements=["game_id"],
                                                          set_={"next_try_at": when, "attempts": 0}))
        return game_uuid, chosen[0]

    @staticmethod
    def find_game(connection: Connection, prefix: str) -> uuid.UUID:
        text = prefix.replace("-", "").lower()
        ids = [i for i in connection.execute(sa.select(games.c.id)).scalars() if i.hex.startswith(text)]
        if len(ids) != 1:
            raise InputError(prefix, N_("no such game") if not ids
                             else N_("more than one game starts so: give more of the id"))
        return uuid.UUID(str(ids[0]))

    # ---- reading ---------------------------------------------------------------

    # Plain SQL on the engine's raw connection, through the same functions as the read-only path
    # (voicehost.records.reader): one read path, however the database was opened.

    @property
    def dialect(self) -> str:
        return str(self.engine.dialect.name)

    def rows(self, sql: str, params: Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
        connection = self.engine.raw_connection()
        try:
            return reader.run_rows(connection, self.dialect, sql, params)
        finally:
            connection.close()

    def tuples(self, sql: str, params: Mapping[str, Any] | None = None) -> list[tuple[Any, ...]]:
        connection = self.engine.raw_connection()
        try:
            return reader.run_tuples(connection, self.dialect, sql, params)
        finally:
            connection.close()

    def count(self) -> int:
        return reader.count(self)

    def games(self, player: str | None = None, since: datetime | None = None,
              until: datetime | None = None) -> list[GameRecord]:
        """The history, oldest first, as records (with their rosters)."""
        return reader.game_records(self, player, since, until)

    def game(self, game_id: uuid.UUID) -> GameRecord | None:
        return reader.game_record(self, game_id)

    def seat_rows(self, since: datetime | None = None, until: datetime | None = None) -> list[dict[str, Any]]:
        """Every named player's seat in the games of a season: what the ratings are made of."""
        return reader.seat_rows(self, since, until)

    # ---- the outbox (a table's games on their way to the club server) -----------

    def due(self, now: datetime | None = None) -> list[uuid.UUID]:
        query = sa.select(outbox.c.game_id).order_by(outbox.c.queued_at, outbox.c.game_id)
        if now is not None:
            query = query.where(outbox.c.next_try_at <= now)
        with self.engine.connect() as connection:
            return [uuid.UUID(str(i)) for i in connection.execute(query).scalars()]

    def waiting(self) -> list[dict[str, Any]]:
        with self.engine.connect() as connection:
            return [dict(row) for row in connection.execute(sa.select(outbox).order_by(outbox.c.queued_at))
                    .mappings()]

    def delivered(self, game_id: uuid.UUID) -> None:
        with self.engine.begin() as connection:
            connection.execute(outbox.delete().where(outbox.c.game_id == game_id))

    def failed(self, game_id: uuid.UUID, error: str, now: datetime, backoff: Any) -> None:
        with self.engine.begin() as connection:
            attempts = connection.execute(sa.select(outbox.c.attempts).where(outbox.c.game_id == game_id)
                                          ).scalar_one() + 1
            connection.execute(outbox.update().where(outbox.c.game_id == game_id).values(
                attempts=attempts, last_error=error[:500], next_try_at=now + timedelta(seconds=backoff(attempts))))


def insert_many(connection: Connection, table: sa.Table, conflict: tuple[str, ...],
                rows: list[dict[str, Any]]) -> None:
    """``INSERT … ON CONFLICT (conflict) DO NOTHING`` of ``rows`` (all with the same keys) as one
    executemany of the driver, in ``connection``'s transaction. The SQL text and each column's
    conversion (the column type's own, for this database) are worked out once per table and
    columns (:func:`_insert_plan`), not per row as SQLAlchemy Core's executemany does: an import
    writes thousands of games and ten times as many seats."""
    if not rows:
        return
    keys = tuple(rows[0])
    sql, converters = _insert_plan(connection.dialect, table, keys, conflict)
    values = itemgetter(*keys) if len(keys) > 1 else (lambda row: (row[keys[0]],))
    converted = [(k, convert) for k, convert in enumerate(converters) if convert is not None]
    connection.exec_driver_sql(sql, [_converted(values(row), converted) for row in rows])


def _converted(values: tuple[Any, ...], converted: list[tuple[int, Any]]) -> tuple[Any, ...]:
    """``values`` with the columns that have a conversion converted."""
    if not converted:
        return values
    out = list(values)
    for k, convert in converted:
        out[k] = convert(out[k])
    return tuple(out)


_PLANS: dict[tuple[str, str, tuple[str, ...], tuple[str, ...]], tuple[str, tuple[Any, ...]]] = {}


def _insert_plan(dialect: sa.Dialect, table: sa.Table, keys: tuple[str, ...],
                 conflict: tuple[str, ...]) -> tuple[str, tuple[Any, ...]]:
    """The positional SQL text of :func:`insert_many` for ``dialect`` (``?`` on SQLite, ``%s`` on
    psycopg) and each column's bind processor (None: the value goes to the driver as it is)."""
    plan = _PLANS.get((dialect.name, table.name, keys, conflict))
    if plan is None:
        mark = "?" if dialect.name == "sqlite" else "%s"
        sql = (f"INSERT INTO {table.name} ({', '.join(keys)}) VALUES ({', '.join([mark] * len(keys))}) "
               f"ON CONFLICT ({', '.join(conflict)}) DO NOTHING")
        converters = tuple(table.c[key].type.dialect_impl(dialect).bind_processor(dialect) for key in keys)
        plan = _PLANS[(dialect.name, table.name, keys, conflict)] = (sql, converters)
    return plan


def _utcnow() -> datetime:
    return datetime.now(timezone.utc).replace(tzinfo=None)


def _batches(items: Iterable[Any], size: int) -> Iterator[list[Any]]:
    batch: list[Any] = []
    for item in items:
        batch.append(item)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch


def game_row(record: GameRecord, figures: Figures | None = None) -> dict[str, Any]:
    """The game's ``games`` row; ``figures``: its :func:`figures_of`, if worked out already."""
    at = place_of(record.protocol, f"game {str(record.id)[:8]}: tournament")
    return {"id": record.id, "played_at": record.played_at, "table_name": record.table, "ruleset": record.ruleset,
            "options": record.options, "seats": len(record.seats), "winner": record.winner,
            "reason": record.reason, "protocol": record.protocol, "tournament": at.name if at else None,
            "round_no": at.round if at else None, "table_no": at.table if at else None,
            **(figures or figures_of(record))[0]}


Figures = tuple[dict[str, Any], dict[int, dict[str, Any]]]   # the game's figures, each seat's


def figures_of(record: GameRecord) -> Figures:
    """The game's and each seat's scoring figures (:func:`voicehost.records.figures.seat_figures`),
    worked out once, when the game is stored."""
    from voicehost.records.figures import seat_facts, seat_figures

    return seat_figures(record.winner, [seat_facts(seat) for seat in record.seats],
                        {"ruleset": record.ruleset, **record.protocol}, record.options)


def seat_rows_of(record: GameRecord, ids: dict[str, int], game_id: uuid.UUID | None = None,
                 figures: Figures | None = None) -> list[dict[str, Any]]:
    """The game's ``game_seats`` rows (under ``game_id``: a corrected game keeps its stored id),
    its figures in them."""
    seats = (figures or figures_of(record))[1]
    return [{**seat_row(game_id or record.id, seat, ids), **seats[seat.seat]} for seat in record.seats]


def _refuse_taken_places(connection: Connection, rows: list[dict[str, Any]]) -> None:
    """One game per tournament round and table (:class:`PlaceTaken`): checked before anything
    of the batch is written, so a refusal leaves the records as they were. The stored games at
    the batch's places are read by one query (its tournaments and rounds), not one per game."""
    placed = [row for row in rows if row["tournament"] is not None]
    if not placed:
        return
    found = connection.execute(sa.select(games.c.tournament, games.c.round_no, games.c.table_no, games.c.id).where(
        games.c.tournament.in_({row["tournament"] for row in placed}),
        games.c.round_no.in_({row["round_no"] for row in placed})))
    taken = {(name, round_no, table_no): game for name, round_no, table_no, game in found}
    seen: dict[tuple[str, int, int], uuid.UUID] = {}
    for row in placed:
        key = (row["tournament"], row["round_no"], row["table_no"])
        stored = seen.get(key) or taken.get(key)
        if stored is not None and uuid.UUID(str(stored)) != row["id"]:
            raise PlaceTaken(TournamentPlace(*key), uuid.UUID(str(stored)), row["id"])
        seen[key] = row["id"]


def seat_row(game_id: uuid.UUID, seat: SeatRecord, ids: dict[str, int]) -> dict[str, Any]:
    return {"game_id": game_id, "seat": seat.seat, "player_id": ids.get(seat.player) if seat.player else None,
            "role": seat.role, "team": seat.team, "alive": seat.alive, "won": seat.won, "fouls": seat.fouls,
            "out_cause": seat.out_cause, "out_day": seat.out_day, "out_night": seat.out_night,
            "points": seat.points, "best_player": seat.best_player}

