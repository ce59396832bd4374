"""``bench records`` and ``bench standings``: protocols imported into SQLite and PostgreSQL, the
ratings over them, the size per game, and a tournament's standings recomputed from its games."""

from __future__ import annotations

import json
import random
import tempfile
import time
from collections.abc import Callable, Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

from voicehost.config import load_ruleset
from voicehost.rules import InputError

#: The club whose players the benchmarks' games are played by.
CLUB = [f"Игрок-{k:02d}" for k in range(1, 61)]

Size = Callable[[], float]


def finished_games(seed: int) -> Iterator[Any]:
    """Random finished sport games, endlessly (the unfinished ones skipped)."""
    from voicehost.simulation.random_games import random_game

    ruleset = load_ruleset("sport")
    options = ruleset.resolve({})
    rng = random.Random(seed)
    while True:
        game = random_game(ruleset, options, rng)
        if game.is_over:
            yield game, dict(enumerate(rng.sample(CLUB, game.seats), start=1))


def bench_records(games: int, seed: int, urls: list[str] | None) -> Iterator[str]:
    """Import ``games`` protocol files (random finished sport games, a club of 60 players) into
    each database, then the ratings over all of them, and the size on disk per game."""
    with tempfile.TemporaryDirectory(prefix="voicehost-bench-") as folder:
        start = time.perf_counter()
        paths = _protocol_files(games, seed, Path(folder))
        protocol_kb = sum(p.stat().st_size for p in paths) / games / 1024
        yield f"records: {games} protocols made in {time.perf_counter() - start:.1f} s ({protocol_kb:.1f} KiB each)"
        for url, size, stop in _bench_databases(urls, Path(folder)):
            try:
                yield _import_into(url, size, paths)
            finally:
                stop()


def _protocol_files(games: int, seed: int, folder: Path) -> list[Path]:
    from voicehost.rules.protocol import build_protocol

    paths: list[Path] = []
    for k, (game, names) in zip(range(games), finished_games(seed), strict=False):
        stamp = f"2026{k // 2800 % 12 + 1:02d}{k // 100 % 28 + 1:02d}-{k % 100:06d}"
        path = folder / f"game-{stamp}.protocol.json"
        path.write_text(json.dumps(build_protocol(game, None, names), ensure_ascii=False))
        paths.append(path)
    return paths


def _import_into(url: str, size: Size, paths: list[Path]) -> str:
    """The protocols imported into the empty database ``url``, the ratings over them, a second
    import of the first thousand (already there), and the size per game: one line."""
    from voicehost.records.games import read_record
    from voicehost.records.ratings import ratings
    from voicehost.records.store import open_records

    with open_records(url) as db:
        if db.count():
            raise InputError(url, "the benchmark needs an empty database")
        empty = size()
        start = time.perf_counter()
        added = db.add(read_record(path) for path in paths)
        imported = time.perf_counter() - start
        start = time.perf_counter()
        table = ratings(db.seat_rows())
        rated = time.perf_counter() - start
        again, sample = time.perf_counter(), paths[:1000]
        db.add(read_record(path) for path in sample)
        reimport = (time.perf_counter() - again) / len(sample) * 1000
    used = (size() - empty) / added
    return (f"records: {db.engine.dialect.name}: import {added} games in {imported:.1f} s "
            f"({added / imported:.0f} games/s); ratings over {added} games ({len(table)} players) in "
            f"{rated:.2f} s; re-import {reimport:.2f} ms per game already there; "
            f"{used / 1024:.1f} KiB per game on disk")


def bench_standings(games: int, seed: int, repeat: int, url: str | None) -> Iterator[str]:
    """A tournament of ``games`` random finished sport games (60 players, 6 tables a round) in a
    SQLite file (or the empty database ``url``), then its standings recomputed from the stored
    protocols, best of ``repeat``: reading the games, and scoring them (each protocol checked
    again, points under the scheme, tie-breaks)."""
    from voicehost.records.store import open_records
    from voicehost.records.tournament import create_tournament, load_tournament, new_tournament, played_games, standings

    name = "bench"
    with tempfile.TemporaryDirectory(prefix="voicehost-bench-") as folder:
        records = _tournament_records(games, seed, name)
        with open_records(url or f"sqlite:///{Path(folder) / 'records.sqlite'}") as db:
            if db.count():
                raise InputError(url or "--db", "the benchmark needs an empty database")
            db.add(records)
            create_tournament(db, new_tournament(name, "seed001", players=CLUB))
            best_read = best_score = float("inf")
            for _ in range(repeat):
                start = time.perf_counter()
                stored = played_games(db, name)
                read = time.perf_counter() - start
                start = time.perf_counter()
                result = standings(load_tournament(db, name), stored)
                best_read, best_score = min(best_read, read), min(best_score, time.perf_counter() - start)
            dialect = db.engine.dialect.name
    yield (f"standings: {dialect}: {result.games} games, {len(result.rows)} players: recomputed from the stored "
           f"protocols in {best_read + best_score:.2f} s (reading {best_read:.2f} s, scoring {best_score:.2f} s; "
           f"best of {repeat}); {(best_read + best_score) / result.games * 1000:.2f} ms per game")


def _tournament_records(games: int, seed: int, name: str) -> list[Any]:
    """``games`` finished games as records of tournament ``name``, six tables a round."""
    from voicehost.records.games import record_from_protocol
    from voicehost.rules.protocol import build_protocol

    records: list[Any] = []
    for k, (game, names) in zip(range(games), finished_games(seed), strict=False):
        protocol = build_protocol(game, None, names)
        protocol["tournament"] = {"name": name, "round": k // 6 + 1, "table": k % 6 + 1}
        protocol["started"] = f"2026-12-{k // 720 % 28 + 1:02d}T{k // 60 % 12 + 8:02d}:{k % 60:02d}:00Z"
        records.append(record_from_protocol(json.loads(json.dumps(protocol)), "bench", datetime(2026, 12, 1)))
    return records


def _bench_databases(urls: list[str] | None, folder: Path) -> Iterator[tuple[str, Size, Callable[[], None]]]:
    """(url, size on disk in bytes, cleanup) for each database to fill."""
    if urls:
        for url in urls:
            if url.startswith("sqlite:///"):
                yield url, _sqlite_size(Path(url[len("sqlite:///"):])), lambda: None
            else:
                yield url, _pg_size(url), lambda: None
        return
    yield f"sqlite:///{folder / 'records.sqlite'}", _sqlite_size(folder / "records.sqlite"), lambda: None
    from voicehost.records.pgcluster import Cluster, postgres_bin

    if postgres_bin() is None:
        print("records: PostgreSQL skipped: no server binaries in /usr/lib/postgresql/*/bin", flush=True)
        return
    cluster = Cluster()
    cluster.start()
    url = cluster.create_database("bench")
    yield url, _pg_size(url), cluster.remove


def _sqlite_size(path: Path) -> Size:
    return lambda: float(path.stat().st_size) if path.exists() else 0.0


def _pg_size(url: str) -> Size:
    import sqlalchemy as sa

    def size() -> float:
        engine = sa.create_engine(url.replace("postgresql://", "postgresql+psycopg://", 1))
        with engine.connect() as connection:
            value = connection.execute(sa.text("SELECT pg_database_size(current_database())")).scalar_one()
        engine.dispose()
        return float(value)
    return size
