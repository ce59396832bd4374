"""Corrections after the game (``tournament correct``, ``records show GAME --history``), the
standings as of a round, and standings hidden from the public screen until the organiser opens
them (docs/records.md "Corrections after the game")."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from test_club_records import cli, db_url, pg_cluster  # noqa: F401  (the records on SQLite and PostgreSQL)
from test_fiim_scoring import NAME, by_hand, tournament_files

from voicehost.cli.tournament_screen import tournament_board


@pytest.fixture
def evening(db_url: str, tmp_path: Path,  # noqa: F811  (the fixture)
            capsys: pytest.CaptureFixture[str]) -> tuple[str, list[Path]]:
    """A 15-game ФИИМ tournament in the records (5 rounds, 3 tables), on SQLite and PostgreSQL."""
    db = db_url
    paths = tournament_files(tmp_path, 7)
    assert cli(capsys, "tournament", "create", NAME, "--scoring", "fiim", "--db", db)[0] == 0
    assert cli(capsys, "records", "import", *map(str, paths), "--db", db)[0] == 0
    return db, paths


def standings(capsys: pytest.CaptureFixture[str], db: str, *more: str) -> dict[str, Any]:
    code, out, err = cli(capsys, "tournament", "standings", NAME, "--json", "--db", db, *more)
    assert code == 0, err
    return dict(json.loads(out))


def game_at(capsys: pytest.CaptureFixture[str], db: str, round_no: int, table: int) -> str:
    code, out, _err = cli(capsys, "tournament", "show", NAME, "--json", "--db", db)
    return str(next(p["game"] for p in json.loads(out)["played"] if (p["round"], p["table"]) == (round_no, table)))


def test_a_correction_keeps_every_version_and_the_standings_use_the_latest(
        evening: tuple[str, list[Path]], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db, paths = evening
    game = game_at(capsys, db, 2, 3)
    code, out, _err = cli(capsys, "records", "show", game, "--json", "--db", db)
    stored = json.loads(out)
    assert stored == json.loads(paths[5].read_text(encoding="utf-8"))   # r2-t3: the file as imported
    player = stored["seats"]["4"]["name"]
    corrected = {**stored, "judge_points": [*stored.get("judge_points", []),
                                            {"seat": 4, "points": -0.5, "reason": "протест: реплика"}]}
    fixed = tmp_path / "fixed.json"
    fixed.write_text(json.dumps(corrected, ensure_ascii=False), encoding="utf-8")
    before = {r["player"]: r for r in standings(capsys, db)["standings"]}

    code, out, err = cli(capsys, "tournament", "correct", NAME, "--round", "2", "--table", "3", "--protocol",
                         str(fixed), "--reason", "протест удовлетворён", "--by", "Главный судья", "--db", db)
    assert code == 0 and "2" in out, err
    after = {r["player"]: r for r in standings(capsys, db)["standings"]}
    assert round(after[player]["points"] - before[player]["points"], 2) == -0.5
    assert round(after[player]["bonus"] - before[player]["bonus"], 2) == -0.5
    files = [json.loads(p.read_text(encoding="utf-8")) for p in paths]
    files[5] = corrected
    for k, p in enumerate(paths):
        p.write_text(json.dumps(files[k], ensure_ascii=False), encoding="utf-8")
    expected = by_hand(paths)   # the hand computation over the corrected files
    assert [(r["place"], r["player"], r["points"]) for r in standings(capsys, db)["standings"]] == [
        (r["place"], r["player"], round(r["points"], 2)) for r in expected]

    code, out, _err = cli(capsys, "records", "show", game, "--history", "--db", db)
    lines = out.splitlines()
    assert code == 0 and "версия 2" in lines[0], out
    assert lines[1].startswith("версия 1") and "Главный судья" in lines[2] and "протест удовлетворён" in lines[2]
    assert "judge_points" in lines[2]
    code, out, _err = cli(capsys, "records", "show", game, "--history", "--json", "--db", db)
    versions = json.loads(out)
    assert [v["version"] for v in versions] == [1, 2]
    assert versions[0]["protocol"] == stored and versions[1]["protocol"] == corrected
    assert (versions[1]["reason"], versions[1]["corrected_by"]) == ("протест удовлетворён", "Главный судья")


@pytest.mark.parametrize(("change", "args", "said"), [
    ({}, ["--reason", "опечатка", "--by", "Судья"], "исправлять нечего"),
    ({"winner": "чёрные"}, ["--reason", "опечатка", "--by", "Судья"], "winner"),
    ({"judge_points": [{"seat": 99, "points": 0.5, "reason": "x"}]}, ["--reason", "опечатка", "--by", "Судья"],
     "judge_points[0].seat"),
    ({"tournament": {"name": NAME, "round": 1, "table": 1}}, ["--reason", "опечатка", "--by", "Судья"], "тур 2"),
    ({"seats": None}, ["--reason", " ", "--by", "Судья"], "--reason"),
    ({"seats": None}, ["--reason", "опечатка", "--by", "Суд\u202eья"], "--by"),
])
def test_a_bad_correction_is_one_line_and_changes_nothing(
        change: dict[str, Any], args: list[str], said: str, evening: tuple[str, list[Path]], tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    db, _paths = evening
    game = game_at(capsys, db, 2, 3)
    stored = json.loads(cli(capsys, "records", "show", game, "--json", "--db", db)[1])
    if change.get("seats", 1) is None:   # a correct change, refused for its reason or name
        change = {"judge_points": [{"seat": 4, "points": 0.25, "reason": "x"}]}
    fixed = tmp_path / "fixed.json"
    fixed.write_text(json.dumps({**stored, **change}, ensure_ascii=False), encoding="utf-8")
    before = standings(capsys, db)
    code, _out, err = cli(capsys, "tournament", "correct", NAME, "--round", "2", "--table", "3", "--protocol",
                          str(fixed), *args, "--db", db)
    assert code == 2 and said in err and len(err.strip().splitlines()) == 1, err
    assert standings(capsys, db) == before
    versions = json.loads(cli(capsys, "records", "show", game, "--history", "--json", "--db", db)[1])
    assert [v["version"] for v in versions] == [1]


def test_the_standings_as_of_a_round(evening: tuple[str, list[Path]], capsys: pytest.CaptureFixture[str]) -> None:
    """Round 2's standings: its games and round 1's, Ci worked out over those games only."""
    db, paths = evening
    shown = standings(capsys, db, "--round", "2")
    expected = by_hand(paths[:6])
    assert shown["games"] == 6
    assert [(r["place"], r["player"], r["points"], r["ci"]) for r in shown["standings"]] == [
        (r["place"], r["player"], round(r["points"], 2), round(r["ci"], 2)) for r in expected]
    code, out, _err = cli(capsys, "tournament", "standings", NAME, "--round", "2", "--db", db)
    assert code == 0 and out.splitlines()[0] == f"{NAME}, после тура 2"


def test_hidden_standings_leave_the_screen_the_seating_only(evening: tuple[str, list[Path]],
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    db, _paths = evening
    board = tournament_board(db, None)
    assert board(NAME, []).standings and not board(NAME, []).hidden
    code, out, _err = cli(capsys, "tournament", "hide", NAME, "--db", db)
    assert code == 0 and "скрыта" in out, out
    hidden = board(NAME, [])
    assert hidden.hidden and hidden.standings == () and hidden.games == 0
    assert standings(capsys, db)["standings"], "the organiser still has them"
    assert cli(capsys, "tournament", "open", NAME, "--db", db)[0] == 0
    assert board(NAME, []).standings
    code, _out, err = cli(capsys, "tournament", "hide", "Нет такого", "--db", db)
    assert code == 2 and len(err.strip().splitlines()) == 1


def test_migration_0004_over_records_at_0003_keeps_the_tournament(db_url: str, tmp_path: Path,  # noqa: F811
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """A tournament stored before corrections: its standings unchanged, open, no versions yet."""
    from alembic import command
    from alembic.config import Config

    from voicehost.records.store import MIGRATIONS, engine_for

    engine = engine_for(db_url)
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, "0003")
    engine.dispose()
    paths = tournament_files(tmp_path, 19)
    import sqlalchemy as sa

    with engine.begin() as connection:   # the tournament as 0003 stored it, and its games
        connection.execute(sa.text("INSERT INTO tournaments (name, scoring, tie_breaks, created_at) VALUES "
                                   "(:n, 'fiim', :t, '2026-12-01 10:00:00')"),
                           {"n": NAME, "t": json.dumps(["points", "extras", "wins", "special_wins", "killed_first"])})
    engine.dispose()
    from voicehost.records.games import read_record
    from voicehost.records.store import Records

    old = Records(engine, figures=False)   # as a schema before 0006 holds them
    old.add([read_record(p) for p in paths])
    old.close()
    shown = standings(capsys, db_url)   # opens the records: the upgrade to 0004
    assert [(r["place"], r["player"], r["points"]) for r in shown["standings"]] == [
        (r["place"], r["player"], round(r["points"], 2)) for r in by_hand(paths)]
    assert tournament_board(db_url, None)(NAME, []).standings
    game = game_at(capsys, db_url, 1, 1)
    versions = json.loads(cli(capsys, "records", "show", game, "--history", "--json", "--db", db_url)[1])
    assert [v["version"] for v in versions] == [1] and versions[0]["reason"] is None
