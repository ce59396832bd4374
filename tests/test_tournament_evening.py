"""The tournament evening as a club runs it (issue 41): sizes and names refused before any work,
tables that take their players from the stored schedule, a table that comes back after a power
cut."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
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
