"""The club records (voicehost.records, ``voicehost records …``): the same tests on SQLite and
on a real PostgreSQL — a throwaway cluster this module starts in a temp dir and stops after —
plus two simulated tables pushing to the club server while it is stopped and started again."""

from __future__ import annotations

import json
import random
import subprocess
import threading
import uuid
from collections import defaultdict
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from voicehost.cli.main import main
from voicehost.host import write_results
from voicehost.records.games import read_record
from voicehost.records.outbox import push
from voicehost.records.pgcluster import Cluster, postgres_bin
from voicehost.records.store import open_records
from voicehost.records.table import protocol_hook
from voicehost.rules import Role
from voicehost.rules.protocol import build_protocol
from voicehost.simulation.engine_level import simulate
from voicehost.simulation.script import Script, script_from_data
from voicehost.simulation.scriptgen import random_script

# These tests assert the English of the messages (their ids); the Russian is tests/test_i18n.py's.
pytestmark = pytest.mark.usefixtures("english_module")

CLUB = ["Анна", "Борис", "Вера", "Глеб", "Дина", "Егор", "Жанна", "Захар", "Ирина", "Кирилл", "Лена", "Марк"]


def named_script(seed: int, ruleset: str = "sport", options: dict[str, Any] | None = None) -> Script:
    data = random_script(ruleset, seed, options=options)
    data["names"] = {str(seat): name for seat, name in
                     enumerate(random.Random(seed).sample(CLUB, data["seats"]), start=1)}
    return script_from_data(data)


def finished_protocol(seed: int, **kwargs: Any) -> dict[str, Any]:
    """A finished game invented from ``seed`` and played at the engine level (seeds that run
    out of script are skipped onwards)."""
    while True:
        script = named_script(seed, **kwargs)
        result = simulate(script)
        if result.game.is_over:
            return build_protocol(result.game, result.ignored, script.names)
        seed += 1000


def protocol_files(folder: Path, count: int, first_seed: int = 1, **kwargs: Any) -> list[Path]:
    """``count`` protocol files, one game a day from 2026-10-01 at 20:00."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for k in range(count):
        path = folder / f"game-202610{k % 28 + 1:02d}-20{k // 28:02d}00.protocol.json"
        path.write_text(json.dumps(finished_protocol(first_seed + k, **kwargs), ensure_ascii=False))
        paths.append(path)
    return paths


def expected_ratings(paths: list[Path], scheme: dict[str, float] | None = None) -> dict[str, dict[str, Any]]:
    """The ratings worked out from the protocol files alone, as a club's spreadsheet would."""
    table: dict[str, dict[str, Any]] = defaultdict(lambda: {"games": 0, "wins": 0, "points": 0.0, "fouls": 0})
    for path in paths:
        protocol = json.loads(path.read_text())
        for seat, entry in protocol["seats"].items():
            row = table[entry["name"]]
            won = Role(entry["role"]).team.value == protocol["winner"]
            row["games"] += 1
            row["wins"] += won
            row["fouls"] += entry["fouls"]
            if scheme is None:
                row["points"] += protocol["scores"][seat]
            else:
                team = Role(entry["role"]).team.value
                row["points"] += scheme.get(f"won_{team}", 0.0) if won else 0.0
    return {name: {**row, "points": round(row["points"], 2)} for name, row in table.items()}


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# ---- the databases -------------------------------------------------------------------

@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[Cluster]:
    if postgres_bin() is None:
        pytest.skip("no PostgreSQL server binaries in /usr/lib/postgresql/*/bin (setup.sh test installs them)")
    cluster = Cluster()
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.remove()


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'records.sqlite'}"
    cluster: Cluster = request.getfixturevalue("pg_cluster")
    return cluster.create_database(f"t_{uuid.uuid4().hex[:12]}")


# ---- the same tests on both ------------------------------------------------------------

def test_import_stores_each_game_once(db_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    paths = protocol_files(tmp_path / "games", 6)
    assert cli(capsys, "records", "import", *map(str, paths), "--db", db_url, "--table", "Стол 1")[0] == 0
    code, out, _ = cli(capsys, "records", "import", *map(str, paths), "--db", db_url)
    assert code == 0 and out.startswith("imported 0 new games of 6")
    with open_records(db_url) as db:
        assert db.count() == 6
        game = db.games()[0]
    assert game.table == "Стол 1" and game.ruleset == "sport" and len(game.seats) == 10
    first = json.loads(paths[0].read_text())
    assert {str(s.seat): s.player for s in game.seats} == {k: v["name"] for k, v in first["seats"].items()}
    assert game.winner == first["winner"] and game.reason == first["reason"]
    assert [s.seat for s in game.seats if not s.alive] == sorted(e["seat"] for e in first["eliminations"])


def test_a_journal_and_its_protocol_are_one_game(db_url: str, tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    script = tmp_path / "game.json"
    data = random_script("sport", 7)
    data["names"] = {str(s): CLUB[s - 1] for s in range(1, 11)}
    script.write_text(json.dumps(data, ensure_ascii=False))
    journal = tmp_path / "game-20261005-200000.jsonl"
    assert cli(capsys, "simulate", str(script), "--journal", str(journal))[0] == 0
    protocol = journal.with_suffix(".protocol.json")
    code, out, _ = cli(capsys, "records", "import", str(journal), str(protocol), "--db", db_url)
    assert code == 0 and out.startswith("imported 1 new game of 2"), out
    with open_records(db_url) as db:
        (game,) = db.games()
    started = json.loads(journal.read_text().splitlines()[0])["started"]  # when the game started, not the file's name
    assert game.played_at.isoformat() + "Z" == started == json.loads(protocol.read_text())["started"]
    assert {s.player for s in game.seats} == set(CLUB[:10])


def test_ratings_equal_those_worked_out_from_the_protocols(db_url: str, tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    paths = protocol_files(tmp_path / "games", 12)
    cli(capsys, "records", "import", *map(str, paths), "--db", db_url)
    code, out, _ = cli(capsys, "records", "ratings", "--db", db_url, "--json")
    rated = json.loads(out)
    assert code == 0
    assert {r["player"]: {k: r[k] for k in ("games", "wins", "points", "fouls")} for r in rated} \
        == expected_ratings(paths)
    assert [r["points"] for r in rated] == sorted((r["points"] for r in rated), reverse=True)
    for r in rated:
        assert sum(v["games"] for k, v in r["by_role"].items() if k in ("red", "black")) == r["games"]
        assert r["by_role"].get("red", {"wins": 0})["wins"] + r["by_role"].get("black", {"wins": 0})["wins"] \
            == r["wins"]
    code, out, _ = cli(capsys, "records", "ratings", "--db", db_url, "--json", "--scoring", "showtime")
    showtime = {r["player"]: r["points"] for r in json.loads(out)}
    assert showtime == {name: row["points"] for name, row in
                        expected_ratings(paths, {"won_red": 4, "won_black": 5}).items()}


def test_a_season_and_a_player_narrow_the_history(db_url: str, tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    paths = protocol_files(tmp_path / "games", 10)
    cli(capsys, "records", "import", *map(str, paths), "--db", db_url)
    code, out, _ = cli(capsys, "records", "games", "--db", db_url, "--since", "2026-10-06", "--json")
    assert code == 0 and len(json.loads(out)) in (5, 6)  # the 5th evening at 20:00 local may be the 6th in UTC
    nick = json.loads(paths[0].read_text())["seats"]["1"]["name"]
    played = sum(nick in {e["name"] for e in json.loads(p.read_text())["seats"].values()} for p in paths)
    code, out, _ = cli(capsys, "records", "games", "--db", db_url, "--player", nick, "--json")
    history = json.loads(out)
    assert len(history) == played
    for game in history:  # both of sport's schemes, the one played equal to the protocol's scores
        assert set(game["scores"]) == {"seed001", "showtime", "fiim", "championship"}
        assert game["scores"][game["options"]["scoring"]] == {seat: e["points"] for seat, e in game["roster"].items()}
    code, out, _ = cli(capsys, "records", "ratings", "--db", db_url, "--json", "--season", "2026-10-01..2026-10-03")
    assert max(r["games"] for r in json.loads(out)) <= 4


def test_the_best_player_vote_adds_its_points(db_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    paths = protocol_files(tmp_path / "games", 2)
    cli(capsys, "records", "import", *map(str, paths), "--db", db_url)
    with open_records(db_url) as db:
        game = db.games()[0]
    nick = game.seats[4].player
    assert nick is not None
    before = {r["player"]: r for r in json.loads(cli(capsys, "records", "ratings", "--db", db_url, "--json")[1])}
    assert cli(capsys, "records", "best", str(game.id)[:8], nick, "--db", db_url)[0] == 0
    after = {r["player"]: r for r in json.loads(cli(capsys, "records", "ratings", "--db", db_url, "--json")[1])}
    assert after[nick]["points"] == before[nick]["points"] + 2 and after[nick]["best_player"] == 1
    assert cli(capsys, "records", "best", str(game.id)[:8], "1", "--db", db_url)[0] == 0  # the vote corrected
    again = {r["player"]: r for r in json.loads(cli(capsys, "records", "ratings", "--db", db_url, "--json")[1])}
    assert again[nick]["points"] == before[nick]["points"]
    assert sum(r["best_player"] for r in again.values()) == 1


def test_export_and_chart(db_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    paths = protocol_files(tmp_path / "games", 5)
    cli(capsys, "records", "import", *map(str, paths), "--db", db_url)
    code, out, _ = cli(capsys, "records", "export", "--format", "csv", "--db", db_url)
    lines = out.strip().splitlines()
    assert code == 0 and lines[0].startswith("game_id,played_at,table") and len(lines) == 1 + 5 * 10
    code, out, _ = cli(capsys, "records", "export", "--format", "json", "--db", db_url)
    exported = json.loads(out)
    assert [g["protocol"] for g in exported] == [json.loads(p.read_text()) for p in paths]
    picture = tmp_path / "season.png"
    code, out, _ = cli(capsys, "records", "chart", str(picture), "--db", db_url, "--top", "5")
    assert code == 0 and picture.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and picture.stat().st_size > 10_000


def test_malformed_files_are_one_line_and_nothing_is_stored(db_url: str, tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    good = protocol_files(tmp_path / "games", 2)
    bad = tmp_path / "bad.protocol.json"
    bad.write_text('{"seats": {"1": {"role": "wizard"}}, "winner": "red"}')
    unfinished = tmp_path / "open.protocol.json"
    unfinished.write_text(json.dumps({**json.loads(good[0].read_text()), "winner": None}))
    for broken in (bad, unfinished):
        code, out, err = cli(capsys, "records", "import", *map(str, good), str(broken), "--db", db_url)
        assert code == 2 and err.count("\n") == 1 and err.startswith(f"voicehost: error: {broken}")
    with open_records(db_url) as db:
        assert db.count() == 0
    code, _, err = cli(capsys, "records", "ratings", "--db", db_url, "--scoring", "nonsense")
    assert code == 2 and "unknown scheme 'nonsense'" in err


def test_the_schema_is_alembics_head(db_url: str) -> None:
    from alembic.config import Config
    from alembic.script import ScriptDirectory

    from voicehost.records.reader import SCHEMA_HEAD as HEAD
    from voicehost.records.store import MIGRATIONS

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    head = ScriptDirectory.from_config(config).get_current_head()
    assert head == "0006" == HEAD
    with open_records(db_url) as db:
        with db.engine.connect() as connection:
            assert connection.execute(sa.text("SELECT version_num FROM alembic_version")).scalar_one() == head
    with open_records(db_url) as db:  # opening again migrates nothing and keeps the data
        assert db.count() == 0


# ---- errors that need no database --------------------------------------------------------

@pytest.mark.parametrize("url, says", [
    ("not a url", "is not a database URL"),
    ("mysql://x@localhost/club", "'mysql' databases are not supported"),
    ("postgresql://nobody@127.0.0.1:9/club", "cannot reach"),
    ("sqlite:////no/such/folder/r.sqlite", "no such folder"),
])
def test_bad_urls_and_unreachable_servers_are_one_line(url: str, says: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = cli(capsys, "records", "games", "--db", url)
    assert code == 2 and err.count("\n") == 1 and says in err and "Traceback" not in err


# ---- the table: the live hook and the outbox -------------------------------------------

def test_the_live_hook_stores_a_finished_game(tmp_path: Path) -> None:
    from voicehost.host.live import _write_results

    script = named_script(3)
    result = simulate(script)
    table = tmp_path / "table.toml"
    table.write_text('[records]\ntable = "Стол 2"\n')
    db = f"sqlite:///{tmp_path / 'table.sqlite'}"
    _write_results(result.game, dict(script.names), tmp_path / "game-20261101-190000.jsonl",
                   protocol_hook(table, db))
    with open_records(db) as records:
        (game,) = records.games()
        assert game.table == "Стол 2" and records.waiting() == []
    code = main(["records", "import", str(tmp_path / "game-20261101-190000.protocol.json"), "--db", db])
    with open_records(db) as records:
        assert code == 0 and records.count() == 1


def test_a_table_keeps_its_games_while_the_club_server_is_unreachable(tmp_path: Path) -> None:
    table = tmp_path / "table.toml"
    table.write_text('[records]\nurl = "postgresql://nobody@127.0.0.1:9/club"\n')
    db = f"sqlite:///{tmp_path / 'table.sqlite'}"
    hook = protocol_hook(table, db, log=lambda line: None)
    for path in protocol_files(tmp_path / "games", 2):
        hook(path, json.loads(path.read_text()))
    with open_records(db) as records:
        waiting = records.waiting()
        assert records.count() == 2 and len(waiting) == 2
        assert waiting[0]["attempts"] == 1 and "Connection refused" in waiting[0]["last_error"]
        assert waiting[0]["next_try_at"] > waiting[0]["queued_at"]


def test_two_tables_push_through_a_server_stopped_mid_push(pg_cluster: Cluster, tmp_path: Path) -> None:
    """Two tables play at the table level at once, each into its own SQLite and outbox; the
    club server is stopped in the middle of a push (between the inserts and the commit) and
    started again. Every game reaches the club exactly once, and the club's ratings equal the
    ones worked out from the protocol files."""
    from voicehost.host.vclock import run_virtual
    from voicehost.simulation.table_level import play_table

    club = pg_cluster.create_database(f"club_{uuid.uuid4().hex[:8]}")
    open_records(club).close()
    stopped, resume = threading.Event(), threading.Event()
    commits = {"n": 0}

    def stop_on_the_third_commit(connection: Any) -> None:
        if connection.engine.dialect.name == "postgresql" and not stopped.is_set():
            commits["n"] += 1
            if commits["n"] == 3:
                stopped.set()
                pg_cluster.stop("immediate")  # the COMMIT that follows meets a dead server

    sa.event.listen(sa.engine.Engine, "commit", stop_on_the_third_commit)
    protocols: dict[str, list[Path]] = {"A": [], "B": []}
    errors: list[BaseException] = []

    def table(name: str, first_seed: int) -> None:
        try:
            table_file = tmp_path / f"{name}.toml"
            table_file.write_text(f'[records]\ntable = "{name}"\nurl = "{club}"\n')
            hook = protocol_hook(table_file, f"sqlite:///{tmp_path / name}.sqlite", log=lambda line: None)
            seed = first_seed
            while len(protocols[name]) < 6:
                script = named_script(seed)
                seed += 1
                result = run_virtual(play_table(script))
                if not result.game.is_over:
                    continue
                journal = tmp_path / name / f"game-20261102-{12 + len(protocols[name]):02d}0000.jsonl"
                journal.parent.mkdir(exist_ok=True)
                path = write_results(journal, build_protocol(result.game, None, script.names), [])
                hook(path, json.loads(path.read_text()))
                protocols[name].append(path)
                if name == "A" and len(protocols[name]) == 4:
                    resume.wait(60)  # table A's later games meet the server back up
        except BaseException as err:  # noqa: B036 - handed to the test's thread
            errors.append(err)

    threads = [threading.Thread(target=table, args=(name, seed)) for name, seed in (("A", 100), ("B", 200))]
    try:
        for thread in threads:
            thread.start()
        assert stopped.wait(120), f"no push reached the server {errors}"
        threads[1].join(120)
        pg_cluster.start()
        resume.set()
        for thread in threads:
            thread.join(120)
    finally:
        sa.event.remove(sa.engine.Engine, "commit", stop_on_the_third_commit)
        resume.set()
        if not pg_cluster.running():
            pg_cluster.start()
    assert not errors, errors
    queued = 0
    for name in "AB":
        with open_records(f"sqlite:///{tmp_path / name}.sqlite") as local:
            queued += len(local.waiting())
            assert local.count() == 6
            result = push(local, club, everything=True)  # what ``records push --all`` does
            assert result.failed == 0 and local.waiting() == []
    assert queued >= 1, "the stop did not leave any game in an outbox"
    with open_records(club) as records:
        games = records.games()
        with records.engine.connect() as connection:
            seat_rows = connection.execute(sa.text("SELECT count(*) FROM game_seats")).scalar_one()
        from voicehost.records.ratings import ratings
        rated = {r.player: r.as_dict() for r in ratings(records.seat_rows())}
    everything = protocols["A"] + protocols["B"]
    assert len(games) == len({g.id for g in games}) == 12 and seat_rows == 120
    assert {g.table for g in games} == {"A", "B"}
    assert {name: {k: r[k] for k in ("games", "wins", "points", "fouls")} for name, r in rated.items()} \
        == expected_ratings(everything)


def test_records_push_sends_the_outbox_once_and_says_when_it_cannot(pg_cluster: Cluster, tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    club = pg_cluster.create_database(f"club_{uuid.uuid4().hex[:8]}")
    table = tmp_path / "table.toml"
    table.write_text('[records]\ntable = "Стол 3"\nurl = "postgresql://nobody@127.0.0.1:9/club"\n')
    local = f"sqlite:///{tmp_path / 'table.sqlite'}"
    hook = protocol_hook(table, local, log=lambda line: None)
    for path in protocol_files(tmp_path / "games", 3):
        hook(path, json.loads(path.read_text()))
    code, out, _ = cli(capsys, "records", "push", "--table", str(table), "--db", local)
    assert code == 0 and "3 games wait for their next try" in out  # the backoff: not due yet
    code, _, err = cli(capsys, "records", "push", "--table", str(table), "--db", local, "--all")
    assert code == 2 and err.count("\n") == 1 and "3 games stay queued" in err
    code, out, _ = cli(capsys, "records", "push", "--to", club, "--db", local, "--all")
    assert code == 0 and "pushed 3 games" in out
    with open_records(local) as records:
        assert records.waiting() == []
        records.add(records.games(), queue=True)  # queued again, as after a lost answer
    code, out, _ = cli(capsys, "records", "push", "--to", club, "--db", local)
    assert code == 0 and "pushed 0 games, 3 already on the server" in out
    with open_records(club) as records:
        assert records.count() == 3 and {g.table for g in records.games()} == {"Стол 3"}


def test_a_bad_records_section_is_refused_before_the_game(tmp_path: Path) -> None:
    from voicehost.rules import InputError

    table = tmp_path / "table.toml"
    for section, says in (('url = "mysql://x/y"', "must be a postgresql:// URL"),
                          ("colour = 1", "unknown setting"), ('table = ""', "non-empty string")):
        table.write_text(f"[records]\n{section}\n")
        with pytest.raises(InputError, match=says):
            protocol_hook(table, f"sqlite:///{tmp_path / 'x.sqlite'}")


def test_simulate_and_demo_record_when_asked(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = f"sqlite:///{tmp_path / 'records.sqlite'}"
    script = tmp_path / "evening.json"
    data = random_script("sport", 11)
    data["names"] = {str(s): CLUB[s - 1] for s in range(1, 11)}
    script.write_text(json.dumps(data, ensure_ascii=False))
    assert cli(capsys, "simulate", str(script), "--db", db)[0] == 0
    assert not (tmp_path / "records.sqlite").exists()  # not asked
    assert cli(capsys, "simulate", str(script), "--record", "--db", db, "--json")[0] == 0
    code, out, err = cli(capsys, "demo", "--seed", "5", "--audio", "off", "--pace", "0", "--record", "--db", db)
    assert code == 0 and "records: game" in err
    with open_records(db) as records:
        games = records.games()
    assert len(games) == 2 and {g.table for g in games} == {"simulation"}
    assert {s.player for s in games[0].seats} == set(CLUB[:10])


def test_run_refuses_a_bad_records_database_before_the_game(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = cli(capsys, "run", "--mock", "--no-ears", "--audio", "null", "--db", "mysql://x/y",
                       "--journal", str(tmp_path / "game.jsonl"))
    assert code == 2 and err.count("\n") == 1 and "'mysql' databases are not supported" in err
    assert not (tmp_path / "game.jsonl").exists()


def test_a_live_journal_brings_its_roster(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from voicehost.host import Journal

    result = simulate(named_script(21))
    names = {str(s): CLUB[-s] for s in range(1, 11)}
    path = tmp_path / "game-20261103-190000.jsonl"
    journal = Journal(path, {"ruleset": "sport", "options": {}, "seats": 10, "level": "live", "names": names})
    for i, item in enumerate(result.game.inputs):
        journal.append(i, float(i), "seats", item)
    journal.close()
    db = f"sqlite:///{tmp_path / 'records.sqlite'}"
    assert cli(capsys, "records", "import", str(path), "--db", db)[0] == 0
    with open_records(db) as records:
        (game,) = records.games()
    assert {str(s.seat): s.player for s in game.seats} == names
    outcome = result.game.outcome()
    assert outcome is not None
    assert game.winner == outcome.winner


def test_push_watch_retries_with_backoff_until_the_server_is_back(pg_cluster: Cluster, tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    from voicehost.records import outbox

    monkeypatch.setattr(outbox, "FIRST_RETRY_S", 0.2)
    club = pg_cluster.create_database(f"club_{uuid.uuid4().hex[:8]}")
    local = f"sqlite:///{tmp_path / 'table.sqlite'}"
    with open_records(local) as records:
        records.add([read_record(p) for p in protocol_files(tmp_path / "games", 3)], queue=True)
    pg_cluster.stop()
    back = threading.Timer(0.5, pg_cluster.start)   # the first tries (at once, then 0.2 s later) meet no server
    lines: list[str] = []
    try:
        back.start()
        with open_records(local) as records:
            assert outbox.push_until_empty(records, club, give_up_after_s=90, log=lines.append)
            attempts = [line for line in lines if "still queued" in line]
    finally:
        back.join()
        if not pg_cluster.running():
            pg_cluster.start()
    assert attempts and lines[-1] == "records: pushed 3 games"
    with open_records(club) as records:
        assert records.count() == 3


def test_the_appliance_stores_each_finished_game_off_its_loop(mock_factory: Any, tmp_path: Path) -> None:
    """``voicehost serve``: the idle table's game ends, its protocol is written, and the game
    reaches the records from a worker thread while the table is ready again."""
    import time

    from test_service import READY, Bench

    from voicehost.host import run_virtual

    db = f"sqlite:///{tmp_path / 'table.sqlite'}"
    bench = Bench(mock_factory, tmp_path)
    printed: list[str] = []

    async def main() -> None:
        table = await bench.start()
        table.on_results = protocol_hook(None, db, log=printed.append, check_db=False)
        await bench.until(lambda: READY in bench.said)
        await bench.chord()
        await bench.until(lambda: bench.said.count(READY) == 2)
        await bench.finish()

    run_virtual(main())
    deadline = time.monotonic() + 60
    while not any(line.startswith("records: game") for line in printed) and time.monotonic() < deadline:
        time.sleep(0.1)
    with open_records(db) as records:
        (game,) = records.games()
    protocol = json.loads(bench.table.played[0].read_text())
    assert game.winner == protocol["winner"] and game.table == "table"


def test_simulate_record_of_an_unfinished_game_says_nothing_was_stored(tmp_path: Path,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 28: a script that runs out before the end is no game for the records: one line says so."""
    db = f"sqlite:///{tmp_path / 'records.sqlite'}"
    script = tmp_path / "unfinished.json"
    script.write_text(json.dumps({"roles": {"3": "don", "5": "mafia", "9": "mafia", "7": "sheriff"}, "days": [{}]}))
    code, out, err = cli(capsys, "simulate", str(script), "--record", "--db", db, "--json")
    assert code == 0 and json.loads(out)["winner"] is None
    assert err.strip() == "The game is not over: nothing is saved in the club's records."  # the module is English
    assert not (tmp_path / "records.sqlite").exists()
    assert cli(capsys, "simulate", str(script), "--db", db)[2] == ""  # not asked to record: nothing said
# ---- what an import refuses, and one game however it arrives (issue 28) --------------------

def voicehost_cli(*argv: str) -> subprocess.CompletedProcess[str]:
    """``voicehost ARGV`` as a process of its own: its exit code and its real stderr."""
    from processes import run_voicehost

    return run_voicehost(list(argv))


def one_error_line(done: subprocess.CompletedProcess[str], place: str, says: str) -> None:
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr, done.stderr
    assert done.stderr.startswith(f"voicehost: error: {place}") and says in done.stderr, done.stderr


def _renamed_seat(protocol: dict[str, Any], old: str, new: str) -> None:
    protocol["seats"][new] = protocol["seats"].pop(old)


def _eliminated_seat(protocol: dict[str, Any], seat: Any) -> None:
    protocol["eliminations"][0]["seat"] = seat


def _citizen(protocol: dict[str, Any]) -> str:
    seat: str = next(seat for seat, entry in protocol["seats"].items() if entry["role"] == "citizen")
    return seat


# What is wrong → (the change, the field named, the words said).
IMPOSSIBLE: dict[str, tuple[Callable[[dict[str, Any]], None], str, str]] = {
    "seat 11 at a 10-seat table": (lambda p: _renamed_seat(p, "10", "11"), "seats.11", "no seat 11 at a 10-seat"),
    "seat -1": (lambda p: _renamed_seat(p, "10", "-1"), "seats.-1", "is not a seat number"),
    "a huge seat": (lambda p: _renamed_seat(p, "10", "99999999999999999"), "seats.99999999999999999",
                    "is not a seat number"),
    "an empty ruleset": (lambda p: p.update(ruleset=""), "ruleset", "'' is not a ruleset name"),
    "an unknown ruleset": (lambda p: p.update(ruleset="poker"), "ruleset", "unknown ruleset 'poker'"),
    "no seats": (lambda p: p.update(seats={}), "seats", "no seats"),
    "an unknown role": (lambda p: p["seats"]["1"].update(role="wizard"), "seats.1.role", "unknown role 'wizard'"),
    "a role sport has not": (lambda p: p["seats"][_citizen(p)].update(role="maniac"), "seats",
                             "the deal has 1 sheriff, 1 don, 2 mafia, 1 maniac"),
    "an unknown option": (lambda p: p["options"].update(colour="red"), "options.colour", "has no option"),
    "an elimination of seat 11": (lambda p: _eliminated_seat(p, 11), "eliminations[0].seat", "no seat 11"),
    "an elimination of seat -1": (lambda p: _eliminated_seat(p, -1), "eliminations[0].seat", "no seat -1"),
    "an elimination of a seat still in": (lambda p: _eliminated_seat(p, int(next(
        s for s, e in p["seats"].items() if "out" not in e))), "eliminations[0]", "does not say the same"),
    "an unknown cause": (lambda p: p["eliminations"][0].update(cause="eaten"), "eliminations[0].cause",
                         "'eaten' is no cause"),
    "scores for seat 11": (lambda p: p["scores"].update({"11": 1.0}), "scores.11", "no seat 11"),
    "a winner not dealt": (lambda p: p.update(winner="yakuza"), "winner", "'yakuza' is no team of this deal"),
    "negative fouls": (lambda p: p["seats"]["2"].update(fouls=-1), "seats.2.fouls", "not a number of fouls"),
    "a best player of seat 0": (lambda p: p.update(best_player=0), "best_player", "no seat 0"),
    "one player at two seats": (lambda p: p["seats"]["2"].update(name=p["seats"]["1"]["name"]), "seats.2.name",
                                "is already seat 1's name"),
    "a start that is no time": (lambda p: p.update(started="yesterday"), "started", "is not a time"),
}


@pytest.mark.parametrize("wrong", list(IMPOSSIBLE))
def test_an_impossible_protocol_is_one_line_and_nothing_stored_is_lost(wrong: str, tmp_path: Path) -> None:
    """A protocol is checked as fully as a script; a bad one among several stores none of them
    (the club fixes the file and runs the same import again), and what was stored stays."""
    db = f"sqlite:///{tmp_path / 'records.sqlite'}"
    stored, fresh = protocol_files(tmp_path / "games", 2)
    assert voicehost_cli("records", "import", str(stored), "--db", db).returncode == 0
    protocol = json.loads(fresh.read_text())
    change, field, says = IMPOSSIBLE[wrong]
    change(protocol)
    bad = tmp_path / "bad.protocol.json"
    bad.write_text(json.dumps(protocol, ensure_ascii=False))
    one_error_line(voicehost_cli("records", "import", str(fresh), str(bad), "--db", db), f"{bad}: {field}:", says)
    with open_records(db) as records:
        assert [g.id for g in records.games()] == [read_record(stored).id]


def test_the_same_game_as_protocol_journal_and_renamed_copies_is_stored_once(db_url: str, tmp_path: Path) -> None:
    """The id comes from the game (when it started, the deal, what happened), never a file name."""
    script = tmp_path / "evening.json"
    data = random_script("sport", 7)
    data["names"] = {str(s): CLUB[s - 1] for s in range(1, 11)}
    script.write_text(json.dumps(data, ensure_ascii=False))
    journal = tmp_path / "game-20261005-200000.jsonl"
    done = voicehost_cli("simulate", str(script), "--journal", str(journal), "--record", "--db", db_url)
    assert done.returncode == 0 and "records: game" in done.stderr, done.stderr   # stored as it ended
    protocol = journal.with_suffix(".protocol.json")
    renamed = tmp_path / "Стол 1 — финал.json"
    renamed.write_bytes(protocol.read_bytes())
    journal_copy = tmp_path / "копия.jsonl"
    journal_copy.write_bytes(journal.read_bytes())
    files = [str(protocol), str(journal), str(renamed), str(journal_copy)]
    done = voicehost_cli("records", "import", *files, "--db", db_url)
    assert done.returncode == 0 and done.stdout.startswith("imported 0 new games of 4"), done.stdout + done.stderr
    later = tmp_path / "later"  # another day, another folder, the copies imported on their own
    later.mkdir()
    (later / "g.json").write_bytes(protocol.read_bytes())
    done = voicehost_cli("records", "import", str(later / "g.json"), str(journal_copy), "--db", db_url)
    assert done.returncode == 0 and done.stdout.startswith("imported 0 new games of 2"), done.stdout
    with open_records(db_url) as records:
        assert records.count() == 1


def test_two_games_alike_but_started_apart_are_two_games(tmp_path: Path) -> None:
    """The same script played twice gives the same deal and the same eliminations: only when
    each started tells the games apart."""
    db = f"sqlite:///{tmp_path / 'records.sqlite'}"
    protocol = finished_protocol(5)
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    first.write_text(json.dumps({**protocol, "started": "2026-10-05T18:00:00Z"}))
    second.write_text(json.dumps({**protocol, "started": "2026-10-05T19:30:00Z"}))
    done = voicehost_cli("records", "import", str(first), str(second), "--db", db)
    assert done.returncode == 0 and done.stdout.startswith("imported 2 new games of 2"), done.stdout + done.stderr


def test_an_unfinished_journal_is_refused_in_one_line(tmp_path: Path) -> None:
    from voicehost.host import Journal

    db = f"sqlite:///{tmp_path / 'records.sqlite'}"
    result = simulate(named_script(21))
    header = {"ruleset": "sport", "options": {}, "seats": 10, "level": "live"}
    for kept in (0, 1, len(result.game.inputs) - 1):   # no deal yet, the deal only, all but the last input
        path = tmp_path / f"game-{kept}.jsonl"
        journal = Journal(path, header)
        for i, item in enumerate(result.game.inputs[:kept]):
            journal.append(i, float(i), "seats", item)
        journal.close()
        one_error_line(voicehost_cli("records", "import", str(path), "--db", db), str(path),
                       "the game is not over")
    with open_records(db) as records:
        assert records.count() == 0


def test_a_journal_that_does_not_replay_is_refused(tmp_path: Path) -> None:
    from voicehost.host import Journal

    result = simulate(named_script(21))
    path = tmp_path / "game.jsonl"
    journal = Journal(path, {"ruleset": "sport", "options": {}, "seats": 10, "level": "live"})
    inputs = result.game.inputs
    for i, item in enumerate([*inputs, inputs[-1]]):   # one input more after the end
        journal.append(i, float(i), "seats", item)
    journal.close()
    one_error_line(voicehost_cli("records", "import", str(path), "--db", f"sqlite:///{tmp_path / 'r.sqlite'}"),
                   f"{path}:{len(inputs) + 2}", "the journal does not replay")


# ---- a club that upgrades: migration 0002 re-keys the games stored before ------------------

def old_game_id(name: str, protocol: dict[str, Any]) -> uuid.UUID:
    """The id of records 0001: the file name's stem mixed in."""
    from voicehost.records.games import GAME_IDS

    facts = {key: protocol.get(key) for key in ("ruleset", "options", "winner", "reason", "eliminations")}
    facts["roles"] = {seat: entry.get("role") for seat, entry in protocol.get("seats", {}).items()}
    return uuid.uuid5(GAME_IDS, name.split(".")[0] + "|" + json.dumps(facts, sort_keys=True, ensure_ascii=False))


def test_an_upgrade_rekeys_old_games_and_merges_renamed_copies(db_url: str, tmp_path: Path) -> None:
    import dataclasses

    from alembic import command
    from alembic.config import Config

    from voicehost.records.store import MIGRATIONS, Records, engine_for

    original, other = protocol_files(tmp_path / "games", 2)
    copy = tmp_path / f"Стол1-{original.name}"   # a renamed copy that kept the name's stamp
    copy.write_bytes(original.read_bytes())
    engine = engine_for(db_url)
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    with engine.begin() as connection:   # the records as 0001 left them
        config.attributes["connection"] = connection
        command.upgrade(config, "0001")
    old = Records(engine, figures=False)   # as a schema before 0006 holds them
    stored = [dataclasses.replace(read_record(path), id=old_game_id(path.name, json.loads(path.read_text())))
              for path in (original, copy, other)]
    old.add(stored[:1])
    old.add(stored[1:], queue=True)   # the copy and the other game wait for the club server
    with old.engine.begin() as connection:   # the table voted on the copy
        connection.execute(sa.text("UPDATE game_seats SET best_player = (seat = 4) WHERE game_id = :id"),
                           {"id": stored[1].id.hex if engine.dialect.name == "sqlite" else stored[1].id})
    old.close()
    with open_records(db_url) as records:   # the upgrade
        games = {g.id: g for g in records.games()}
        waiting = {row["game_id"] for row in records.waiting()}
    kept, second = read_record(original).id, read_record(other).id
    assert set(games) == {kept, second} and waiting == {kept, second}
    assert [s.seat for s in games[kept].seats if s.best_player] == [4]
    done = voicehost_cli("records", "import", str(original), str(copy), str(other), "--db", db_url)
    assert done.returncode == 0 and done.stdout.startswith("imported 0 new games of 3"), done.stdout + done.stderr


def test_the_migration_keys_games_as_the_records_do() -> None:
    """Migration 0002 keeps a frozen copy of the id rule: it must be today's."""
    import importlib.util
    from datetime import datetime

    from voicehost.records.games import game_id
    from voicehost.records.store import MIGRATIONS

    spec = importlib.util.spec_from_file_location("m0002", MIGRATIONS / "versions" / "0002_game_ids_from_the_game.py")
    assert spec is not None and spec.loader is not None
    migration = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(migration)
    when = datetime(2026, 10, 5, 18, 0, 0)
    for seed in (1, 2, 3):
        protocol = finished_protocol(seed)
        assert migration.game_id(protocol, when) == game_id(protocol, when)


def test_the_chart_counts_games_on_its_x_axis_not_clock_times(tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    """The season's games by number (1 … 5, one a day here), the dates of the first and the
    last under the axis: no clock time among the tick labels."""
    from voicehost.records.chart import season_figure

    db = f"sqlite:///{tmp_path / 'records.sqlite'}"
    cli(capsys, "records", "import", *map(str, protocol_files(tmp_path / "games", 5)), "--db", db)
    with open_records(db) as records:
        rows = records.seat_rows()
    figure, leaders = season_figure(rows, top=5)
    try:
        figure.canvas.draw()
        axes = figure.axes[0]
        ticks = [label.get_text() for label in axes.get_xticklabels() if label.get_text()]
        shown = [int(tick) for tick in ticks if 0.5 <= int(tick) <= 5.5]
        assert shown == [1, 2, 3, 4, 5] and not any(":" in tick for tick in ticks), ticks
        assert axes.get_xlabel() == "the season's games in order: #1 — 01.10.2026, #5 — 05.10.2026"
        lines = {line.get_label(): line for line in axes.get_lines()}
        assert set(lines) == set(leaders) and all(set(line.get_xdata()) <= {1, 2, 3, 4, 5} for line in lines.values())
    finally:
        import matplotlib.pyplot as plt
        plt.close(figure)
