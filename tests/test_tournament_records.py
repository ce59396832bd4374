"""Tournaments in the club records (issue 33, parts 2 and 5), on SQLite and on a real throwaway
PostgreSQL (the cluster of test_club_records): a tournament created with its schedule, games
pushed from two tables tagged with their round and table, a second game at a place refused,
the standings recomputed by hand from the protocol files, the exports' shape, and migration
0003 over records written at 0002."""

from __future__ import annotations

import argparse
import csv
import dataclasses
import io
import json
import tomllib
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from test_club_records import cli, finished_protocol, pg_cluster, voicehost_cli  # noqa: F401 - pg_cluster: a fixture

from voicehost.records.games import read_record
from voicehost.records.outbox import push
from voicehost.records.store import open_records
from voicehost.records.tournament import (
    PlaceTaken,
    load_tournament,
    played_games,
    standings,
)
from voicehost.rules import Role

ROOT = Path(__file__).resolve().parent.parent
SCHEME = tomllib.loads((ROOT / "config" / "rules" / "sport.toml").read_text(encoding="utf-8"))["scoring"]["seed001"]
PLAYERS = [f"Игрок {k:02d}" for k in range(1, 21)]
NAME = "Кубок клуба"


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """The club server: a SQLite file, or a database of the throwaway PostgreSQL cluster."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'club.sqlite'}"
    cluster = request.getfixturevalue("pg_cluster")
    return str(cluster.create_database(f"t_{uuid.uuid4().hex[:12]}"))


def schedule() -> dict[str, Any]:
    """Two rounds at two tables: 20 players, everyone once a round, seats turned each round."""
    rounds = []
    for r in (1, 2):
        order = PLAYERS[r - 1:] + PLAYERS[:r - 1] if r == 1 else PLAYERS[1::2] + PLAYERS[0::2]
        rounds.append({"round": r, "tables": [{"table": t, "seats": {str(s): order[(t - 1) * 10 + s - 1]
                                                                     for s in range(1, 11)}} for t in (1, 2)]})
    return {"players": PLAYERS, "rounds": rounds}


def tournament_protocols(folder: Path, plan: dict[str, Any]) -> list[Path]:
    """One finished game per round and table, seated as the schedule says, with a best-player
    vote and a judge's bonus at some tables; each file tagged with its place."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for r_entry in plan["rounds"]:
        for t_entry in r_entry["tables"]:
            r, t = r_entry["round"], t_entry["table"]
            protocol = finished_protocol(10 * r + t)
            for seat, name in t_entry["seats"].items():
                protocol["seats"][seat]["name"] = name
            protocol["tournament"] = {"name": NAME, "round": r, "table": t}
            protocol["started"] = f"2026-12-05T{17 + r}:{10 * t:02d}:00Z"
            if t == 1:
                protocol["best_player"] = r + 2
            if r == 2:
                protocol["judge_points"] = [{"seat": 3, "points": 0.5, "reason": "защита"},
                                            {"seat": 7, "points": -0.25, "reason": "реплика"}]
            path = folder / f"r{r}-t{t}.protocol.json"
            path.write_text(json.dumps(protocol, ensure_ascii=False), encoding="utf-8")
            paths.append(path)
    return paths


def hand_standings(paths: list[Path], order: tuple[str, ...]) -> list[dict[str, Any]]:
    """The standings as an organiser's spreadsheet works them out from the protocol files:
    ``seed001``'s points from config/rules/sport.toml, summed, sorted by the tie-breaks."""
    rows: dict[str, dict[str, Any]] = {}
    for path in paths:
        protocol = json.loads(path.read_text(encoding="utf-8"))
        for seat, entry in protocol["seats"].items():
            role = Role(entry["role"])
            won = role.team.value == protocol["winner"]
            alive = "out" not in entry
            best = protocol.get("best_player") == int(seat)
            points = (SCHEME.get("alive", 0) if alive else 0) + (SCHEME.get("won", 0) if won else 0)
            points += SCHEME.get(f"{role.value}_alive", 0) if alive else 0
            points += SCHEME.get("best_player", 0) if best else 0
            row = rows.setdefault(entry["name"], {"player": entry["name"], "points": 0.0, "bonus": 0.0, "wins": 0,
                                                  "sheriff_games": 0, "games": 0, "best_player": 0})
            row["points"] += points
            bonus = sum(given["points"] for given in protocol.get("judge_points", []) if given["seat"] == int(seat))
            row["points"] += bonus   # the judge's points count in the total, and break ties on their own
            row["bonus"] += bonus
            row["wins"] += won
            row["sheriff_games"] += role is Role.SHERIFF
            row["best_player"] += best
            row["games"] += 1
    table = sorted(rows.values(), key=lambda row: ([-row[key] for key in order], row["player"].casefold()))
    for k, row in enumerate(table):
        same = k and [table[k - 1][key] for key in order] == [row[key] for key in order]
        row["place"] = table[k - 1]["place"] if same else k + 1
    return table


def create(capsys: pytest.CaptureFixture[str], db: str, tmp_path: Path, plan: dict[str, Any],
           tie_breaks: str = "points,bonus,wins,sheriff_games") -> None:
    path = tmp_path / "schedule.json"
    path.write_text(json.dumps(plan, ensure_ascii=False), encoding="utf-8")
    code, out, err = cli(capsys, "tournament", "create", NAME, "--scoring", "seed001", "--schedule", str(path),
                         "--tie-breaks", tie_breaks, "--db", db)
    assert code == 0, err
    assert out.startswith(f"турнир '{NAME}' создан") and "20 игроков, 2 тура" in out, out


def push_from_tables(paths: list[Path], club: str, tmp_path: Path) -> None:
    """Each table keeps its games in its own SQLite and pushes them through its outbox."""
    for table in (1, 2):
        local = f"sqlite:///{tmp_path / f'table{table}.sqlite'}"
        with open_records(local) as records:
            records.add([read_record(p) for p in paths if p.name.endswith(f"t{table}.protocol.json")], queue=True)
            result = push(records, club)
            assert result.pushed == 2 and not result.failed and not records.waiting(), result.line


# ---- the evening -------------------------------------------------------------------------

def test_pushed_games_land_in_their_place_and_the_standings_match_a_hand_computation(
        db_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    plan = schedule()
    create(capsys, db_url, tmp_path, plan)
    paths = tournament_protocols(tmp_path / "games", plan)
    push_from_tables(paths, db_url, tmp_path)
    with open_records(db_url) as records:
        placed = {(g.place.round, g.place.table): g.protocol["started"] for g in played_games(records, NAME)}
    assert placed == {(r, t): f"2026-12-05T{17 + r}:{10 * t:02d}:00Z" for r in (1, 2) for t in (1, 2)}
    code, out, _ = cli(capsys, "tournament", "standings", NAME, "--json", "--db", db_url)
    assert code == 0
    shown = json.loads(out)
    expected = hand_standings(paths, ("points", "bonus", "wins", "sheriff_games"))
    keys = ("place", "player", "points", "bonus", "wins", "sheriff_games", "games", "best_player")
    assert [{k: row[k] for k in keys} for row in shown["standings"]] == [{k: row[k] for k in keys} for row in expected]
    assert shown["games"] == 4 and shown["warnings"] == []
    tied = [(a, b) for a, b in zip(expected, expected[1:], strict=False) if a["points"] == b["points"]]
    assert tied, "the games give no tie on points, so no tie-break was tried"


def test_the_tie_break_order_is_the_tournaments_own(db_url: str, tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """The same games under another order of tie-breaks: the standings follow it."""
    plan = schedule()
    create(capsys, db_url, tmp_path, plan, tie_breaks="wins,sheriff_games,points")
    paths = tournament_protocols(tmp_path / "games", plan)
    cli(capsys, "records", "import", *map(str, paths), "--db", db_url)
    with open_records(db_url) as records:
        tournament = load_tournament(records, NAME)
        games = played_games(records, NAME)
    assert tournament.tie_breaks == ("wins", "sheriff_games", "points")
    by_wins = standings(tournament, games)
    by_points = standings(dataclasses.replace(tournament, tie_breaks=("points", "bonus", "wins")), games)
    for result, order in ((by_wins, ("wins", "sheriff_games", "points")), (by_points, ("points", "bonus", "wins"))):
        expected = hand_standings(paths, order)
        assert [(r.place, r.player) for r in result.rows] == [(e["place"], e["player"]) for e in expected]
    assert [r.player for r in by_wins.rows] != [r.player for r in by_points.rows]


def test_the_standings_warn_of_a_game_seated_otherwise_than_planned(tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    db = f"sqlite:///{tmp_path / 'club.sqlite'}"
    plan = schedule()
    create(capsys, db, tmp_path, plan)
    paths = tournament_protocols(tmp_path / "games", plan)
    protocol = json.loads(paths[0].read_text(encoding="utf-8"))
    protocol["seats"]["4"]["name"] = "Гость"
    paths[0].write_text(json.dumps(protocol, ensure_ascii=False), encoding="utf-8")
    cli(capsys, "records", "import", *map(str, paths), "--db", db)
    code, out, _ = cli(capsys, "tournament", "standings", NAME, "--db", db)
    assert code == 0 and "внимание: турнир 'Кубок клуба', тур 1, стол 1, место 4: по расписанию" in out, out
    assert "Гость" in out


def test_the_planners_json_is_a_schedule_the_records_take(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``tournament plan --json`` → ``tournament create --schedule``: the organiser's two steps.
    The planner keeps its rounds under ``schedule`` (its ``rounds`` is their count)."""
    db = f"sqlite:///{tmp_path / 'club.sqlite'}"
    code, out, _ = cli(capsys, "tournament", "plan", "--players", "30", "--tables", "3", "--rounds", "4", "--json")
    plan = json.loads(out)
    (tmp_path / "plan.json").write_text(out, encoding="utf-8")
    code, _, err = cli(capsys, "tournament", "create", NAME, "--scoring", "fiim", "--schedule",
                       str(tmp_path / "plan.json"), "--db", db)
    assert code == 0, err
    with open_records(db) as records:
        tournament = load_tournament(records, NAME)
    assert len(tournament.players) == 30 and sorted(tournament.schedule) == [1, 2, 3, 4]
    first = plan["schedule"][0]["tables"][0]["seats"]
    assert tournament.schedule[1][1] == {entry["seat"]: entry["player"] for entry in first}


# ---- one game per round and table ------------------------------------------------------------

def test_a_second_game_at_a_round_and_table_is_refused_and_nothing_is_lost(db_url: str, tmp_path: Path) -> None:
    plan = schedule()
    paths = tournament_protocols(tmp_path / "games", plan)
    done = voicehost_cli("records", "import", *map(str, paths), "--db", db_url)
    assert done.returncode == 0, done.stderr
    other = json.loads(paths[0].read_text(encoding="utf-8"))
    other["started"] = "2026-12-05T23:00:00Z"   # another game, the same round 1 and table 1
    again = tmp_path / "again.protocol.json"
    again.write_text(json.dumps(other, ensure_ascii=False), encoding="utf-8")
    done = voicehost_cli("records", "import", str(again), "--db", db_url)
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "Traceback" not in done.stderr, done.stderr
    assert done.stderr.startswith("voicehost: ошибка: турнир 'Кубок клуба', тур 1, стол 1: здесь уже есть игра "
                                  f"{str(read_record(paths[0]).id)[:8]}"), done.stderr
    assert voicehost_cli("records", "import", str(paths[0]), "--db", db_url).returncode == 0   # the same game: fine
    with open_records(db_url) as records:
        assert records.count() == 4
        assert {g.id for g in records.games()} == {read_record(p).id for p in paths}


def test_a_taken_place_on_the_club_server_keeps_that_game_queued_and_pushes_the_rest(db_url: str,
                                                                                     tmp_path: Path) -> None:
    paths = tournament_protocols(tmp_path / "games", schedule())
    with open_records(db_url) as club:
        club.add([read_record(paths[0])])
    clash = json.loads(paths[0].read_text(encoding="utf-8"))
    clash["started"] = "2026-12-05T23:30:00Z"   # a misconfigured table playing round 1, table 1 again
    stray = tmp_path / "stray.protocol.json"
    stray.write_text(json.dumps(clash, ensure_ascii=False), encoding="utf-8")
    with open_records(f"sqlite:///{tmp_path / 'table.sqlite'}") as local:
        local.add([read_record(stray), read_record(paths[1])], queue=True)
        result = push(local, db_url, everything=True)
        waiting = [row["game_id"] for row in local.waiting()]
        assert local.count() == 2
    assert result.pushed == 1 and result.failed == 1 and "здесь уже есть игра" in result.errors[0]
    assert waiting == [read_record(stray).id]
    with open_records(db_url) as club:
        assert {g.id for g in club.games()} == {read_record(paths[0]).id, read_record(paths[1]).id}


def test_add_refuses_the_place_inside_one_batch(tmp_path: Path) -> None:
    paths = tournament_protocols(tmp_path / "games", schedule())
    first = read_record(paths[0])
    protocol = {**first.protocol, "started": "2026-12-06T10:00:00Z"}
    twin = tmp_path / "twin.json"
    twin.write_text(json.dumps(protocol, ensure_ascii=False), encoding="utf-8")
    with open_records(f"sqlite:///{tmp_path / 'r.sqlite'}") as records:
        with pytest.raises(PlaceTaken):
            records.add([first, read_record(twin)])
        assert records.count() == 0


# ---- the game knows its place: setup → journal → protocol → records ------------------------------

def test_simulate_carries_the_place_into_journal_protocol_and_records(tmp_path: Path) -> None:
    from voicehost.simulation.scriptgen import random_script

    db = f"sqlite:///{tmp_path / 'records.sqlite'}"
    script = tmp_path / "game.json"
    data = random_script("sport", 7)
    data["names"] = {str(s): PLAYERS[s - 1] for s in range(1, 11)}
    script.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    journal = tmp_path / "game-20261205-190000.jsonl"
    place = ["--tournament", NAME, "--round", "3", "--tournament-table", "2"]
    done = voicehost_cli("simulate", str(script), "--journal", str(journal), "--record", "--db", db, *place)
    assert done.returncode == 0, done.stderr
    tag = {"name": NAME, "round": 3, "table": 2}
    assert json.loads(journal.read_text(encoding="utf-8").splitlines()[0])["tournament"] == tag
    assert json.loads(journal.with_suffix(".protocol.json").read_text(encoding="utf-8"))["tournament"] == tag
    with open_records(db) as records:
        (game,) = played_games(records, NAME)
    assert (game.place.round, game.place.table) == (3, 2)
    data = random_script("sport", 8)   # another game at the same place: one line, exit 2, the first kept
    script.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    done = voicehost_cli("simulate", str(script), "--record", "--db", db, *place)
    assert done.returncode == 2 and done.stderr.strip().endswith("записанное не изменилось)"), done.stderr
    assert done.stderr.count("\n") == 1, done.stderr
    with open_records(db) as records:
        assert [g.id for g in played_games(records, NAME)] == [game.id]


def test_demo_saves_and_records_its_game_at_its_place(tmp_path: Path) -> None:
    import os

    from processes import run_voicehost

    db = f"sqlite:///{tmp_path / 'records.sqlite'}"
    env = {**os.environ, "VOICEHOST_DATA": str(tmp_path / "data")}
    place = ["--tournament", NAME, "--round", "2", "--tournament-table", "1"]
    done = run_voicehost(["demo", "--audio", "off", "--pace", "0", "--record", "--db", db, *place], env=env)
    assert done.returncode == 0, done.stderr
    (saved,) = (tmp_path / "data" / "journals").glob("demo-*.protocol.json")
    assert json.loads(saved.read_text(encoding="utf-8"))["tournament"] == {"name": NAME, "round": 2, "table": 1}
    done = run_voicehost(["demo", "--audio", "off", "--pace", "0", "--seed", "6", "--record", "--db", db, *place],
                         env=env)
    assert done.returncode == 2 and "здесь уже есть игра" in done.stderr, done.stderr
    with open_records(db) as records:
        assert records.count() == 1 and [g.place.round for g in played_games(records, NAME)] == [2]


def run_args(*argv: str) -> argparse.Namespace:
    from voicehost.cli.main import build_parser

    return build_parser().parse_args(["run", *argv])


def test_run_puts_the_place_in_the_journal_header_and_a_resume_keeps_it(tmp_path: Path) -> None:
    from voicehost.cli.run import run_setup
    from voicehost.host.journal import Journal, load_journal, write_results
    from voicehost.host.live import setup_of_journal

    journal = tmp_path / "game.jsonl"
    names = ",".join(f"{seat}={PLAYERS[seat - 1]}" for seat in range(1, 11))   # the records hold no schedule here
    setup, _ = run_setup(run_args("--journal", str(journal), "--audio", "off", "--tournament", NAME,
                                  "--round", "4", "--tournament-table", "1", "--names", names))
    tag = {"name": NAME, "round": 4, "table": 1}
    assert setup.header()["tournament"] == tag
    Journal(journal, setup.header()).close()
    assert dict(setup_of_journal(load_journal(journal)).tournament or {}) == tag
    written = write_results(journal, finished_protocol(3), ["лог"])
    assert json.loads(written.read_text(encoding="utf-8"))["tournament"] == tag


@pytest.mark.parametrize("argv, place, says", [
    (["--tournament", NAME, "--round", "1"], "--tournament", "--tournament-table вместе"),
    (["--tournament", " ", "--round", "1", "--tournament-table", "1"], "--tournament", "турнира (до 80 знаков)"),
])
def test_run_refuses_a_half_given_place_in_one_line(argv: list[str], place: str, says: str, tmp_path: Path) -> None:
    done = voicehost_cli("run", "--journal", str(tmp_path / "g.jsonl"), "--audio", "off", *argv)
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert done.stderr.startswith(f"voicehost: ошибка: {place}") and says in done.stderr, done.stderr
    assert not (tmp_path / "g.jsonl").exists()


def test_a_journal_header_with_a_broken_place_is_refused_at_resume(tmp_path: Path) -> None:
    from voicehost.host.journal import FORMAT, load_journal
    from voicehost.host.live import setup_of_journal
    from voicehost.rules import InputError

    journal = tmp_path / "game.jsonl"
    header = {"type": "game", "format": FORMAT, "ruleset": "sport", "options": {}, "seats": 10, "level": "live",
              "tournament": {"name": NAME, "round": 0, "table": 1}}
    journal.write_text(json.dumps(header, ensure_ascii=False) + "\n", encoding="utf-8")
    with pytest.raises(InputError) as refused:
        setup_of_journal(load_journal(journal))
    assert refused.value.place == f"{journal}:1: tournament.round"


def test_serve_takes_the_next_round_after_the_last_finished_one(tmp_path: Path) -> None:
    from voicehost.config import load_ruleset
    from voicehost.service.table import TableSetup

    ruleset = load_ruleset("sport")
    setup = TableSetup(ruleset, ruleset.resolve({}), 10, tmp_path, tournament={"name": NAME, "round": 2, "table": 3})
    assert dict(setup.default_game().tournament or {}) == {"name": NAME, "round": 2, "table": 3}
    for r, finished in ((2, True), (3, True), (4, False), (9, True)):
        path = tmp_path / f"game-{r}.jsonl"
        table = 3 if r != 9 else 1   # round 9 was another table's
        path.write_text(json.dumps({"tournament": {"name": NAME, "round": r, "table": table}}) + "\n")
        if finished:
            path.with_suffix(".protocol.json").write_text("{}")
    assert setup.default_game().tournament == {"name": NAME, "round": 4, "table": 3}


# ---- export ---------------------------------------------------------------------------------------

def test_the_exports_have_the_rating_sites_shapes(db_url: str, tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    plan = schedule()
    create(capsys, db_url, tmp_path, plan)
    paths = tournament_protocols(tmp_path / "games", plan)
    cli(capsys, "records", "import", *map(str, paths), "--db", db_url)
    protocols = {(p["tournament"]["round"], p["tournament"]["table"]): p
                 for p in (json.loads(path.read_text(encoding="utf-8")) for path in paths)}

    def export(form: str) -> str:
        code, out, err = cli(capsys, "tournament", "export", NAME, "--format", form, "--db", db_url)
        assert code == 0, err
        return out

    code, _out, err = cli(capsys, "tournament", "set", NAME, "--mafiaratings-club", "1", "--mafiaratings-event", "2",
                          "--mafiaratings-moderator", "3", "--mafiaratings-rules", "0" * 13, "--polemica-master", "4",
                          "--polemica-scoring-type", "1", "--polemica-version", "4", "--db", db_url)
    assert code == 0, err
    places = sorted(protocols)   # the sites' game numbers: by round, then table
    rated = json.loads(export("mafiaratings-json"))
    assert rated["format"] == "mafiaratings-games" and len(rated["games"]) == 4
    for game in rated["games"]:
        protocol = protocols[places[game["gameNum"] - 1]]
        assert game["winner"] == {"red": "civ", "black": "maf"}[protocol["winner"]]
        assert len(game["players"]) == 10 and game["startTime"] == protocol["started"].replace("Z", "+00:00")
        for seat, player in enumerate(game["players"], start=1):
            entry = protocol["seats"][str(seat)]
            assert player["name"] == entry["name"]
            assert player["role"] == {"citizen": "civ", "mafia": "maf", "sheriff": "sheriff", "don": "don"}[
                entry["role"]]
            out = entry.get("out")
            if out is None:
                assert "death" not in player
            else:
                moment = out.get("day", out.get("night"))
                assert player["death"] == {"round": moment - 1, "type": {"voted": "day", "killed": "night"}.get(
                    out["cause"], player["death"]["type"])}
            if protocol.get("best_player") == seat:
                assert "bestPlayer" in (player["bonus"] if isinstance(player["bonus"], list) else [player["bonus"]])
    polemica = json.loads(export("polemica"))
    for game in polemica["games"]:
        protocol = protocols[places[game["num"] - 1]]
        assert game["result"] == {"red": 0, "black": 1}[protocol["winner"]]
        roles = {p["position"]: p["role"] for p in game["players"]}
        assert roles == {int(s): {"don": 0, "mafia": 1, "citizen": 2, "sheriff": 3}[e["role"]]
                         for s, e in protocol["seats"].items()}
        assert all(len(p["fouls"]) == protocol["seats"][str(p["position"])]["fouls"] for p in game["players"])
    table = list(csv.DictReader(io.StringIO(export("csv"))))   # the club's headings; the numbers a spreadsheet's
    expected = hand_standings(paths, ("points", "bonus", "wins", "sheriff_games"))
    assert [(int(r["Место"]), r["Игрок"], float(r["Баллы"])) for r in table] == \
        [(e["place"], e["player"], e["points"]) for e in expected]
    seats = list(csv.DictReader(io.StringIO(export("games-csv"))))
    assert len(seats) == 40 and {(int(r["round"]), int(r["table"])) for r in seats} == set(protocols)
    whole = json.loads(export("json"))
    assert whole["rounds"] == plan["rounds"] and len(whole["games"]) == 4


def test_the_printable_standings_are_html_with_russian_headings_and_a_print_stylesheet(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = f"sqlite:///{tmp_path / 'club.sqlite'}"
    plan = schedule()
    create(capsys, db, tmp_path, plan)
    cli(capsys, "records", "import", *map(str, tournament_protocols(tmp_path / "games", plan)), "--db", db)
    page = tmp_path / "standings.html"
    code, out, _ = cli(capsys, "tournament", "standings", NAME, "--html", str(page), "--db", db)
    assert code == 0 and f"страница для печати: {page}" in out
    text = page.read_text(encoding="utf-8")
    assert '<html lang="ru">' in text and "@media print" in text and "<thead>" in text
    for heading in ("Место", "Игрок", "Баллы", "Доп. баллы", "Победы", "Шерифом", "Турнирная таблица"):
        assert heading in text, heading
    assert text.count("<tr>") == 1 + len(PLAYERS)


# ---- bad input ----------------------------------------------------------------------------------

BAD_SCHEDULES: dict[str, tuple[Callable[[dict[str, Any]], None], str, str]] = {
    "a player twice in a round": (lambda plan: plan["rounds"][0]["tables"][1]["seats"].update(
        {"1": PLAYERS[0]}), "rounds[0].tables[1].seats.1", "уже играет в этом туре"),
    "round 0": (lambda plan: plan["rounds"][0].update(round=0), "rounds[0].round", "не число от 1 до 999"),
    "a round twice": (lambda plan: plan["rounds"][1].update(round=1), "rounds[1].round", "тур 1 указан дважды"),
    "no tables": (lambda plan: plan["rounds"][0].update(tables={}), "rounds[0].tables", "нужен список столов"),
}


@pytest.mark.parametrize("wrong", list(BAD_SCHEDULES))
def test_a_bad_schedule_is_one_line_and_no_tournament(wrong: str, tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'club.sqlite'}"
    plan = schedule()
    change, field, says = BAD_SCHEDULES[wrong]
    change(plan)
    path = tmp_path / "schedule.json"
    path.write_text(json.dumps(plan, ensure_ascii=False), encoding="utf-8")
    done = voicehost_cli("tournament", "create", NAME, "--scoring", "seed001", "--schedule", str(path), "--db", db)
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert done.stderr.startswith(f"voicehost: ошибка: {path}: {field}:") and says in done.stderr, done.stderr
    assert voicehost_cli("tournament", "list", "--db", db).stdout.strip() == "0 турниров"


@pytest.mark.parametrize("argv, says", [
    (["--scoring", "nonsense"], "неизвестная система очков 'nonsense'"),
    (["--scoring", "seed001", "--tie-breaks", "points,luck"], "неизвестный дополнительный показатель 'luck'"),
    (["--scoring", "seed001", "--tie-breaks", "wins,wins"], "указан дважды"),
])
def test_a_bad_scheme_or_tie_break_is_one_line(argv: list[str], says: str, tmp_path: Path) -> None:
    done = voicehost_cli("tournament", "create", NAME, *argv, "--db", f"sqlite:///{tmp_path / 'c.sqlite'}")
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and says in done.stderr, done.stderr


def test_a_tournament_name_once_and_an_unknown_one_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = f"sqlite:///{tmp_path / 'club.sqlite'}"
    create(capsys, db, tmp_path, schedule())
    code, _, err = cli(capsys, "tournament", "create", NAME, "--scoring", "seed001", "--db", db)
    assert code == 2 and "турнир с таким названием уже есть" in err
    code, _, err = cli(capsys, "tournament", "standings", "Другой", "--db", db)
    assert code == 2 and err.startswith("voicehost: ошибка: Другой: такого турнира нет (есть: 'Кубок клуба')"), err


def test_a_malformed_place_in_a_protocol_is_refused_on_import(tmp_path: Path) -> None:
    path = tournament_protocols(tmp_path / "games", schedule())[0]
    protocol = json.loads(path.read_text(encoding="utf-8"))
    protocol["tournament"]["table"] = "first"
    path.write_text(json.dumps(protocol, ensure_ascii=False), encoding="utf-8")
    done = voicehost_cli("records", "import", str(path), "--db", f"sqlite:///{tmp_path / 'r.sqlite'}")
    assert done.returncode == 2 and "tournament.table" in done.stderr and "'first'" in done.stderr, done.stderr


def test_the_cli_keeps_the_records_lists(tmp_path: Path) -> None:
    from voicehost.cli import tournament as command
    from voicehost.records import tournament
    from voicehost.records.sites import export

    assert command.EXPORT_FORMATS == export.EXPORT_FORMATS
    assert tuple(command.DEFAULT_TIE_BREAKS.split(",")) == tournament.DEFAULT_TIE_BREAKS


# ---- migration 0003 ------------------------------------------------------------------------------

def test_migration_0003_over_records_at_0002_keeps_every_game(db_url: str, tmp_path: Path) -> None:
    from alembic import command
    from alembic.config import Config
    from alembic.script import ScriptDirectory
    from test_club_records import protocol_files

    from voicehost.records.store import MIGRATIONS, Records, engine_for

    engine = engine_for(db_url)
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, "0002")
    old = Records(engine, figures=False)   # as a schema before 0006 holds them
    stored = [read_record(path) for path in protocol_files(tmp_path / "old", 3)]
    old.add(stored[:2])
    old.add(stored[2:], queue=True)
    old.vote_best_player(str(stored[0].id)[:8], "4")
    old.close()
    with open_records(db_url) as records:   # the upgrade
        with records.engine.connect() as connection:
            head = ScriptDirectory.from_config(config).get_current_head()   # 0003 and whatever came after
            assert connection.execute(sa.text("SELECT version_num FROM alembic_version")).scalar_one() == head
            places = connection.execute(sa.text("SELECT tournament, round_no, table_no FROM games")).all()
        games = {g.id: g for g in records.games()}
        assert set(games) == {r.id for r in stored} and all(p == (None, None, None) for p in places)
        assert [s.seat for s in games[stored[0].id].seats if s.best_player] == [4]
        assert [g.protocol for g in games.values()] == [r.protocol for r in sorted(stored, key=lambda r: r.played_at)]
        assert [row["game_id"] for row in records.waiting()] == [stored[2].id]
        records.add([read_record(tournament_protocols(tmp_path / "new", schedule())[0])])
        assert [g.place.round for g in played_games(records, NAME)] == [1]
