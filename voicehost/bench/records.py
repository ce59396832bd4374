"""``bench records`` and ``bench standings``: protocols imported into SQLite and PostgreSQL, the
ratings over them, the size per game, and a tournament's standings recomputed from its games."""

from __future__ import annotations

import json
import os
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
    """The protocols imported into the empty database ``url``, the ratings and Elo over them, a
    second import of the first thousand (already there), and the size per game: one line, each
    figure beside a bare reference in the same run (:func:`_bare_import`, :data:`BARE_RATINGS`,
    :func:`_bare_elo`)."""
    from voicehost.records.elo import elo_ratings
    from voicehost.records.games import read_record
    from voicehost.records.ratings import grouped_ratings
    from voicehost.records.reading import game_seats, rating_groups
    from voicehost.records.store import open_records

    with open_records(url) as db:
        if db.count():
            raise InputError(url, "the benchmark needs an empty database")
        empty = size()
        start = time.process_time()
        added = db.add(read_record(path) for path in paths)
        imported = time.process_time() - start
        bare_import = _bare_import(db.engine, paths)
        used = (size() - empty) / added

        def rate() -> Any:
            return grouped_ratings(rating_groups(db, rescored=False))

        def elo() -> Any:
            return elo_ratings(game_seats(db))

        rated, table = _best(rate, 3)
        bare_rated = _best(lambda: _bare_query(db.engine, BARE_RATINGS, ()), 3)[0]
        elo_s = _best(elo, 3)[0]
        bare_elo_s = _best(lambda: _bare_elo(db.engine), 3)[0]
        again, sample = time.perf_counter(), paths[:1000]
        db.add(read_record(path) for path in sample)
        reimport = (time.perf_counter() - again) / len(sample) * 1000
    command, bare_command = whole_ratings(url, 3)
    return (f"records: {db.engine.dialect.name} (CPU time): import {added} games in {imported:.1f} s = "
            f"{imported / bare_import:.1f}× the files parsed and stored by a bare executemany ({bare_import:.2f} s); "
            f"ratings ({len(table)} players) {rated:.2f} s = {rated / bare_rated:.1f}× a bare GROUP BY; "
            f"Elo {elo_s:.2f} s = {elo_s / bare_elo_s:.1f}× a bare Elo ({bare_elo_s:.2f} s); "
            f"`records ratings` as a command {command:.2f} s = {command / bare_command:.1f}× a fresh python's "
            f"bare GROUP BY ({bare_command:.2f} s); "
            f"re-import {reimport:.2f} ms per game already there; {used / 1024:.1f} KiB per game on disk")


def whole_ratings(url: str, repeat: int) -> tuple[float, float]:
    """``voicehost records ratings --db url`` as a club runs it (a fresh interpreter: start-up,
    imports, the points and the OpenSkill column, the printed table), and its reference, a fresh
    ``python -c`` running :data:`BARE_RATINGS` through the driver alone: the least CPU time of
    ``repeat`` runs each (the children's own usage), after one untimed run of each that writes
    the bytecode cache. The children run this checkout's voicehost."""
    from voicehost.bench.startup import _cpu_s

    sqlite = url.startswith("sqlite:///")
    target = url[len("sqlite:///"):] if sqlite else url.replace("postgresql+psycopg://", "postgresql://", 1)
    driver = "sqlite3.connect" if sqlite else "psycopg.connect"
    bare = ["-c", f"import sys, {driver.split('.')[0]}; {driver}(sys.argv[1]).execute(sys.argv[2]).fetchall()",
            target, BARE_RATINGS]
    command = ["-m", "voicehost", "records", "ratings", "--db", url]
    with tempfile.TemporaryDirectory(prefix="voicehost-bench-pyc-") as cache:
        env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = cache
        env["PYTHONPATH"] = os.pathsep.join([str(Path(__file__).parents[2]), *filter(None, [env.get("PYTHONPATH")])])
        for argv in (bare, command):
            _cpu_s(argv, env)   # untimed: the bytecode cache
        return min(_cpu_s(command, env) for _ in range(repeat)), min(_cpu_s(bare, env) for _ in range(repeat))


def _best(run: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    """The fastest of ``repeat`` runs in this process's CPU time (user + sys: the machine may be
    busy; a PostgreSQL server's own time is not in it, on either side of a ratio) and its result."""
    best, result = float("inf"), None
    for _ in range(repeat):
        start = time.process_time()
        result = run()
        best = min(best, time.process_time() - start)
    return best, result


# The references: what a bare reading of the same rows costs through the driver alone.
BARE_RATINGS = ("SELECT p.nickname, count(*), sum(CASE WHEN s.won THEN 1 ELSE 0 END), sum(s.points), sum(s.fouls) "
                "FROM game_seats s "
                "JOIN players p ON p.id = s.player_id JOIN games g ON g.id = s.game_id "
                "WHERE g.winner IS NOT NULL GROUP BY p.nickname")
BARE_STANDINGS = ("SELECT g.round_no, g.table_no, s.seat, p.nickname, s.won, s.points, s.fouls FROM game_seats s "
                  "JOIN games g ON g.id = s.game_id LEFT JOIN players p ON p.id = s.player_id "
                  "WHERE g.tournament = {mark} ORDER BY g.round_no, g.table_no, s.seat")
BARE_SEATS = ("SELECT g.id, p.nickname, s.team, s.won FROM game_seats s JOIN players p ON p.id = s.player_id "
              "JOIN games g ON g.id = s.game_id WHERE g.winner IS NOT NULL ORDER BY g.played_at, g.id, s.seat")


def _bare_query(engine: Any, sql: str, values: tuple[Any, ...]) -> list[Any]:
    """``sql`` on the driver's own cursor (sqlite3 or psycopg): no SQLAlchemy, no rows objects."""
    mark = "?" if engine.dialect.name == "sqlite" else "%s"
    connection = engine.raw_connection()
    try:
        cursor = connection.cursor()
        cursor.execute(sql.format(mark=mark), values)
        return list(cursor.fetchall())
    finally:
        connection.close()


def _bare_standings(engine: Any, name: str) -> dict[str, list[float]]:
    """The reference for the standings: the tournament's seats fetched by the driver alone, each
    player's games, wins, points and fouls summed in plain Python."""
    table: dict[str, list[float]] = {}
    for _round, _table, seat, nickname, won, points, fouls in _bare_query(engine, BARE_STANDINGS, (name,)):
        row = table.setdefault(nickname or f"#{seat}", [0, 0, 0.0, 0])
        row[0] += 1
        row[1] += won
        row[2] += points
        row[3] += fouls
    return table


def _bare_json_standings(engine: Any, name: str) -> dict[str, list[float]]:
    """issue 47's reference for the standings: one query for the tournament's stored protocols,
    each player's games and protocol scores summed from the JSON in plain Python."""
    table: dict[str, list[float]] = {}
    for (stored,) in _bare_query(engine, "SELECT protocol FROM games WHERE tournament = {mark}", (name,)):
        protocol = json.loads(stored) if isinstance(stored, str) else stored
        scores = protocol.get("scores", {})
        for seat, entry in protocol["seats"].items():
            row = table.setdefault(entry.get("name") or f"#{seat}", [0, 0.0])
            row[0] += 1
            row[1] += scores.get(seat, 0.0)
    return table


def _bare_import(engine: Any, paths: list[Path]) -> float:
    """The reference for the import, in CPU time: each file read and parsed, and its game and
    seats stored by two executemany (scratch tables, the same rows an import writes: no checks,
    no ids from the game, no figures)."""
    mark = "?" if engine.dialect.name == "sqlite" else "%s"
    connection = engine.raw_connection()
    try:
        cursor = connection.cursor()
        cursor.execute("CREATE TEMPORARY TABLE bare_games (name TEXT PRIMARY KEY, winner TEXT, protocol TEXT)")
        cursor.execute("CREATE TEMPORARY TABLE bare_seats (name TEXT, seat INTEGER, player TEXT, role TEXT, "
                       "fouls INTEGER, points REAL, PRIMARY KEY (name, seat))")
        start = time.process_time()
        games: list[tuple[Any, ...]] = []
        seats: list[tuple[Any, ...]] = []
        for path in paths:
            text = path.read_text(encoding="utf-8")
            protocol = json.loads(text)
            games.append((path.name, protocol["winner"], text))
            seats.extend((path.name, int(seat), entry.get("name"), entry["role"], entry.get("fouls", 0),
                          protocol.get("scores", {}).get(seat, 0.0)) for seat, entry in protocol["seats"].items())
        cursor.executemany(f"INSERT INTO bare_games VALUES ({mark}, {mark}, {mark})", games)
        cursor.executemany(f"INSERT INTO bare_seats VALUES ({', '.join([mark] * 6)})", seats)
        connection.commit()
        return time.process_time() - start
    finally:
        connection.close()


def _bare_elo(engine: Any) -> dict[str, float]:
    """The overall Elo (voicehost.records.elo's formula, K 32, scale 400) in plain Python over
    the driver's rows: the reference for ``records elo``."""
    ratings: dict[str, float] = {}
    game: list[Any] = []
    for row in [*_bare_query(engine, BARE_SEATS, ()), (None, "", "", 0)]:
        if game and row[0] != game[0][0]:
            before = [(nick, team, won, ratings.setdefault(nick, 1500.0)) for _g, nick, team, won in game]
            for nick, team, won, rating in before:
                others = [r for _n, t, _w, r in before if t != team]
                if others:
                    mean = sum(others) / len(others)
                    ratings[nick] = rating + 32.0 * (bool(won) - 1.0 / (1.0 + 10.0 ** ((mean - rating) / 400.0)))
            game = []
        game.append(row)
    return ratings


def bench_standings(games: int, seed: int, repeat: int, url: str | None) -> Iterator[str]:
    """A tournament of ``games`` random finished sport games (60 players, 6 tables a round, more
    when a season has more games than 999 rounds hold) in a SQLite file (or the empty database
    ``url``), then its standings, best of ``repeat``: as ``tournament standings`` reads them (the
    stored figures), beside a bare GROUP BY of the same seats, and once the way they were read
    before records 0006 (every stored protocol read and checked again)."""
    from voicehost.records.store import open_records
    from voicehost.records.tournament import (
        create_tournament,
        load_tournament,
        new_tournament,
        played_games,
        standings,
        tournament_standings,
    )

    name = "bench"
    with tempfile.TemporaryDirectory(prefix="voicehost-bench-") as folder:
        with open_records(url or f"sqlite:///{Path(folder) / 'records.sqlite'}") as db:
            if db.count():
                raise InputError(url or "--db", "the benchmark needs an empty database")
            db.add(_tournament_records(games, seed, name))
            create_tournament(db, new_tournament(name, "seed001", players=CLUB))
            best, result = _best(lambda: tournament_standings(db, name), repeat)
            bare = _best(lambda: _bare_standings(db.engine, name), repeat)[0]
            bare_json = _best(lambda: _bare_json_standings(db.engine, name), repeat)[0]
            before = _best(lambda: standings(load_tournament(db, name), played_games(db, name)), 1)[0] \
                if games <= 20_000 else None
            dialect = db.engine.dialect.name
    old = f"; from the protocols as before records 0006: {before / bare_json:.1f}×" if before else ""
    yield (f"standings: {dialect}: {result.games} games, {len(result.rows)} players: {best:.2f} s CPU = "
           f"{best / bare_json:.1f}× one query of the protocols and a JSON sum ({bare_json:.2f} s), "
           f"{best / bare:.1f}× a bare query and sum of the stored seats ({bare:.2f} s; best of {repeat}){old}; "
           f"{best / result.games * 1000:.3f} ms per game")


UNIQUE = 2000   # distinct games a standings benchmark plays; a longer season repeats them at new places


def _tournament_records(games: int, seed: int, name: str) -> list[Any]:
    """``games`` finished games as records of tournament ``name``: six tables a round, or as many
    more as keep the rounds within 999 (a place's numbers)."""
    from voicehost.records.games import record_from_protocol
    from voicehost.records.places import MAX_NUMBER
    from voicehost.rules.protocol import build_protocol

    tables = max(6, -(-games // MAX_NUMBER))
    played = [json.dumps(build_protocol(game, None, names))
              for _, (game, names) in zip(range(min(games, UNIQUE)), finished_games(seed), strict=False)]
    records: list[Any] = []
    for k in range(games):
        protocol = json.loads(played[k % len(played)])
        protocol["tournament"] = {"name": name, "round": k // tables + 1, "table": k % tables + 1}
        protocol["started"] = (f"{2026 + k // 201_600}-12-{k // 7200 % 28 + 1:02d}T{k // 600 % 12 + 8:02d}:"
                               f"{k // 10 % 60:02d}:{k % 10:02d}Z")
        records.append(record_from_protocol(protocol, "bench", datetime(2026, 12, 1)))
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
