"""The tournament evening as a club runs it (issue 41): sizes and names refused before any work,
tables that take their players from the stored schedule, a table that comes back after a power
cut."""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from test_club_records import cli

ROOT = Path(__file__).resolve().parent.parent
RLO = "\u202e"   # RIGHT-TO-LEFT OVERRIDE: shows «Кубок» reversed on every screen after it


def limited_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))


def test_a_billion_players_is_refused_before_any_name_is_made() -> None:
    """The old planner built a name for each of 10⁹ players first (past 60 s and 2.6 GB); under a
    1 GB limit that ends in a MemoryError. Now the size is checked first: one line, exit 2."""
    done = subprocess.run([sys.executable, "-m", "voicehost", "tournament", "plan", "--players", "1000000000",
                           "--tables", "3", "--rounds", "10"], cwd=ROOT, capture_output=True, text=True,
                          timeout=120, preexec_fn=limited_memory, env={**os.environ, "VOICEHOST_LANG": "ru"})
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and "--players" in done.stderr and "1000000000 — больше 400" in done.stderr


@pytest.mark.parametrize("name", [f"{RLO}Кубок", "Кубок\x07", "Ку\u2066бок"])
def test_a_tournament_name_with_a_control_or_direction_character_is_refused(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, name: str) -> None:
    db = f"sqlite:///{tmp_path / 'club.sqlite'}"
    code, out, err = cli(capsys, "tournament", "create", name, "--scoring", "seed001", "--db", db)
    assert code == 2 and out == "" and len(err.splitlines()) == 1 and "Traceback" not in err
    assert "управляющий символ или символ направления" in err
    code, out, _ = cli(capsys, "tournament", "list", "--db", db)
    assert code == 0 and out.splitlines()[-1] == "0 турниров"


def test_a_player_name_with_a_direction_character_is_refused(capsys: pytest.CaptureFixture[str],
                                                              tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'club.sqlite'}"
    players = tmp_path / "players.txt"
    players.write_text(f"Анна\nБорис\n{RLO}Вера\n", encoding="utf-8")
    code, out, err = cli(capsys, "tournament", "create", "Кубок", "--scoring", "seed001", "--players",
                         str(players), "--db", db)
    assert code == 2 and out == "" and len(err.splitlines()) == 1 and "players.txt:3" in err
    schedule = tmp_path / "schedule.json"
    schedule.write_text(json.dumps({"rounds": [{"round": 1, "tables": [
        {"table": 1, "seats": {str(s): f"Игрок{RLO}{s}" for s in range(1, 11)}}]}]}), encoding="utf-8")
    code, out, err = cli(capsys, "tournament", "create", "Кубок", "--scoring", "seed001", "--schedule",
                         str(schedule), "--db", db)
    assert code == 2 and out == "" and len(err.splitlines()) == 1 and "schedule.json" in err
    code, out, _ = cli(capsys, "tournament", "list", "--db", db)
    assert out.splitlines()[-1] == "0 турниров"
    code, out, err = cli(capsys, "tournament", "plan", "--names", str(players), "--tables", "1", "--rounds", "1")
    assert code == 2 and "players.txt:3" in err


def test_a_table_given_a_direction_character_for_its_tournament_is_refused(capsys: pytest.CaptureFixture[str],
                                                                           tmp_path: Path) -> None:
    code, out, err = cli(capsys, "run", "--mock", "--no-ears", "--journal", str(tmp_path / "g.jsonl"),
                         "--tournament", f"{RLO}Кубок", "--round", "1", "--tournament-table", "1")
    assert code == 2 and out == "" and len(err.splitlines()) == 1 and "--tournament" in err
    assert not (tmp_path / "g.jsonl").exists()


PLAYERS = [f"Игрок {k:02d}" for k in range(1, 21)]


def stored_tournament(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> str:
    """«Кубок» in a SQLite file: round 1 seats players 1–10 at table 1 and 11–20 at table 2."""
    db = f"sqlite:///{tmp_path / 'club.sqlite'}"
    plan = {"players": PLAYERS, "rounds": [{"round": 1, "tables": [
        {"table": t, "seats": {str(s): PLAYERS[(t - 1) * 10 + s - 1] for s in range(1, 11)}} for t in (1, 2)]}]}
    path = tmp_path / "schedule.json"
    path.write_text(json.dumps(plan, ensure_ascii=False), encoding="utf-8")
    code, _, err = cli(capsys, "tournament", "create", "Кубок", "--scoring", "seed001", "--schedule", str(path),
                       "--db", db)
    assert code == 0, err
    return db


def run_args(*argv: str) -> argparse.Namespace:
    from voicehost.cli.main import build_parser

    return build_parser().parse_args(["run", "--audio", "off", *argv])


def test_a_table_given_its_place_seats_the_schedules_players(capsys: pytest.CaptureFixture[str],
                                                             tmp_path: Path) -> None:
    """Before, such a table played with empty names and the standings listed «#1»…«#10»."""
    from voicehost.cli.run import run_setup

    db = stored_tournament(capsys, tmp_path)
    setup, _ = run_setup(run_args("--journal", str(tmp_path / "g.jsonl"), "--db", db, "--tournament", "Кубок",
                                  "--round", "1", "--tournament-table", "2"))
    assert dict(setup.names) == {s: PLAYERS[10 + s - 1] for s in range(1, 11)}
    assert setup.header()["names"]["1"] == "Игрок 11"
    err = capsys.readouterr().err
    assert "Кубок, тур 1, стол 2, по расписанию: 1. Игрок 11, 2. Игрок 12" in err, err


def test_names_override_the_schedule_with_a_warning(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    from voicehost.cli.run import run_setup

    db = stored_tournament(capsys, tmp_path)
    names = ",".join(f"{s}=Гость {s}" for s in range(1, 11))
    setup, _ = run_setup(run_args("--journal", str(tmp_path / "g.jsonl"), "--db", db, "--tournament", "Кубок",
                                  "--round", "1", "--tournament-table", "1", "--names", names))
    assert setup.names[3] == "Гость 3"
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--names" in err and "1. Игрок 01" in err


@pytest.mark.parametrize(("place", "says"), [
    (["--tournament", "Кубок", "--round", "2", "--tournament-table", "1"], "нет стола 1 в туре 2"),
    (["--tournament", "Кубок", "--round", "1", "--tournament-table", "3"], "нет стола 3 в туре 1"),
    (["--tournament", "Весна", "--round", "1", "--tournament-table", "1"], "Весна"),
])
def test_a_place_the_schedule_does_not_have_is_refused(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                       place: list[str], says: str) -> None:
    db = stored_tournament(capsys, tmp_path)
    journal = tmp_path / "g.jsonl"
    code, out, err = cli(capsys, "run", "--mock", "--no-ears", "--audio", "off", "--journal", str(journal),
                         "--db", db, *place)
    assert code == 2 and out == "" and len(err.splitlines()) == 1 and says in err, err
    assert not journal.exists()


def test_a_resume_keeps_the_journals_place_and_refuses_another(capsys: pytest.CaptureFixture[str],
                                                               tmp_path: Path) -> None:
    """Before, ``run --resume t2.jsonl --tournament …`` was refused whatever the place."""
    from voicehost.cli.run import run_setup
    from voicehost.host.journal import Journal

    db = stored_tournament(capsys, tmp_path)
    journal = tmp_path / "t2.jsonl"
    place = ["--tournament", "Кубок", "--round", "1", "--tournament-table", "2"]
    setup, _ = run_setup(run_args("--journal", str(journal), "--db", db, *place))
    Journal(journal, setup.header()).close()
    resumed, read = run_setup(run_args("--resume", str(journal), *place))
    assert read is not None and dict(resumed.tournament or {}) == {"name": "Кубок", "round": 1, "table": 2}
    assert resumed.names == setup.names
    resumed, _ = run_setup(run_args("--resume", str(journal)))
    assert dict(resumed.tournament or {}) == {"name": "Кубок", "round": 1, "table": 2}
    capsys.readouterr()
    code, out, err = cli(capsys, "run", "--mock", "--no-ears", "--audio", "off", "--resume", str(journal),
                         "--tournament", "Кубок", "--round", "1", "--tournament-table", "1")
    assert code == 2 and len(err.splitlines()) == 1 and "Кубок, тур 1, стол 2" in err, err


def test_a_table_killed_mid_game_comes_back_on_the_screen_after_a_resume(capsys: pytest.CaptureFixture[str],
                                                                        tmp_path: Path) -> None:
    """A power cut at table 2 (SIGKILL in the middle of its game): the screen shows it dropped off;
    ``run --resume t2.jsonl`` with no other option reports at the journal's place, and the screen
    shows the same table back. Before, the resumed table reported without its place, under another
    name, and table 2 stayed «нет связи со столом» for the evening."""
    import signal
    import socket
    import time
    import urllib.request

    db = stored_tournament(capsys, tmp_path)
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = int(sock.getsockname()[1])
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    screen = subprocess.Popen([sys.executable, "-m", "voicehost", "tournament", "screen", "--host", "127.0.0.1",
                               "--port", str(port), "--db", db, "--tournament", "Кубок", "--club-key", "kubok-key"],
                              cwd=tmp_path, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    table_file = str(ROOT / "config" / "tables" / "ten-seats.toml")
    common = ["--mock", "--no-ears", "--audio", "off", "--speed", "1", "--table", table_file, "--db", db,
              "--club-server", f"http://127.0.0.1:{port}", "--club-key", "kubok-key"]
    started: list[subprocess.Popen[bytes]] = []

    def board() -> dict[str, object]:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/board", timeout=5) as answer:
            return dict(json.loads(answer.read()))

    def tables() -> list[dict[str, object]]:
        try:
            shown = board()["tables"]
            assert isinstance(shown, list)
            return shown
        except OSError:
            return []

    def screen_up() -> bool:
        assert screen.poll() is None, "the screen ended"
        try:
            return bool(board())
        except OSError:
            return False

    def wait(what: str, test: object, timeout: float) -> float:
        start = time.monotonic()
        while not test():  # type: ignore[operator]
            assert time.monotonic() - start < timeout, f"{what}: {tables()}"
            time.sleep(0.1)
        return time.monotonic() - start

    said: list[tuple[float, str]] = []

    def table(*argv: str) -> subprocess.Popen[bytes]:
        process = subprocess.Popen([sys.executable, "-m", "voicehost", "run", *common, *argv], cwd=tmp_path, env=env,
                                   stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        started.append(process)
        said.clear()

        def listen() -> None:
            assert process.stdout is not None
            for line in process.stdout:
                said.append((time.monotonic(), line.decode("utf-8", "replace")))
        threading.Thread(target=listen, daemon=True).start()
        return process

    try:
        wait("the screen starts", screen_up, 60)
        first = table("--roles", "3=don,5=mafia,9=mafia,7=sheriff", "--journal", "t2.jsonl", "--tournament", "Кубок",
                      "--round", "1", "--tournament-table", "2")
        wait("table 2 reports", lambda: [t for t in tables() if t["table"] == "2" and not t["dropped"]], 90)
        (shown,) = tables()
        seats = shown["state"]["seats"]  # type: ignore[index]
        assert [s["name"] for s in seats] == PLAYERS[10:20]   # the schedule's players, on the screen
        first.send_signal(signal.SIGKILL)
        first.wait(timeout=30)
        wait("table 2 dropped off", lambda: [t for t in tables() if t["table"] == "2" and t["dropped"]], 30)
        again = table("--resume", "t2.jsonl")
        # Back once the resumed process is up: Python's start takes the first seconds (not the
        # screen's to shorten), then the reporter's first report is the screen's.
        back_s = wait("table 2 back", lambda: [t for t in tables() if t["table"] == "2" and not t["dropped"]], 60)
        up_to_back = time.monotonic() - said[0][0]   # from the resumed table's first line (its game going on)
        assert up_to_back <= 5.0, f"table 2 came back {up_to_back:.1f} s after the table was up again"
        assert again.poll() is None
        shown_again = tables()
        assert [t["table"] for t in shown_again] == ["2"], shown_again   # the same table, not a second one
        assert shown_again[0]["round"] == 1
        print(f"table 2 back on the screen {back_s:.1f} s after the resume started, {up_to_back:.1f} s after "
              "the table was up")
    finally:
        for process in started:
            if process.poll() is None:
                process.send_signal(signal.SIGKILL)
            process.wait(timeout=30)
        screen.send_signal(signal.SIGTERM)
        _, err = screen.communicate(timeout=30)
    assert "Traceback" not in err.decode(), err.decode()[-2000:]


def test_serve_seats_each_rounds_game_from_the_schedule(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """``serve --tournament Кубок --round 1 --tournament-table 2``: its game of round 1 takes the
    schedule's players of table 2 and says them; a round the schedule lacks plays unnamed, as the
    judge names it (the table is a service: it does not stop for a missing round)."""
    import asyncio

    from voicehost.cli.run import schedule_seating
    from voicehost.config import load_ruleset
    from voicehost.host.director import Director, EdgeLog, Ports
    from voicehost.service.notify import Notifier
    from voicehost.service.table import IdleTable, TableSetup, TableState

    db = stored_tournament(capsys, tmp_path)
    ruleset = load_ruleset("sport")
    ports = Ports(night=lambda on: None, led=lambda seat, pattern: None, edges=EdgeLog(), poll_s=None)
    journals = tmp_path / "journals"
    journals.mkdir()
    setup = TableSetup(ruleset, ruleset.resolve({}), 10, journals, deal_seed=lambda: 7,
                       tournament={"name": "Кубок", "round": 1, "table": 2}, seating=schedule_seating(db))
    said: list[str] = []
    table = IdleTable(setup, ports, log=said.append, notify=Notifier(""))
    rosters: list[dict[int, str]] = []

    def told(director: Director | None) -> None:
        if director is not None:
            rosters.append(dict(director.game.names))
            assert table._game is not None
            table._game.cancel()   # the game itself is not what this test plays

    table.on_change = told
    table.state = TableState.IDLE   # ready: the phone's setup page is sent the schedule's names
    assert table.setup_state()["scheduled"] == {str(s): PLAYERS[10 + s - 1] for s in range(1, 11)}

    async def two_games() -> None:
        for _ in range(2):
            table._state = TableState.STARTING
            await table._new_game()
            for journal in journals.glob("*.jsonl"):   # the game played: its protocol is there
                journal.with_suffix(".protocol.json").write_text("{}")

    asyncio.run(two_games())
    assert rosters[0] == {s: PLAYERS[10 + s - 1] for s in range(1, 11)}
    assert rosters[1] == {}      # round 2 is not in this schedule
    assert any(line.startswith("Кубок, тур 1, стол 2, по расписанию: 1. Игрок 11") for line in said), said
