"""The spoken transcript (``--transcript``) and the night-1 flow it shows: «Наступает ночь»
and the music open night 1 like every night, and a timed wake-up waits its time between its
«wakes» and «sleeps» lines."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from voicehost.cli.main import main
from voicehost.host.subtitles import Transcript
from voicehost.host.vclock import run_virtual
from voicehost.simulation.script import Script, load_script, script_from_data
from voicehost.simulation.table_level import TableRun, play_table

ROOT = Path(__file__).resolve().parent.parent
ROLES = {"3": "don", "5": "mafia", "9": "mafia", "7": "sheriff"}


def transcript_of(script: Script, tmp_path: Path, speed: float = 1.0) -> list[dict[str, Any]]:
    path = tmp_path / "t.jsonl"
    transcript = Transcript(path)
    run_virtual(play_table(script, how=TableRun(transcript=transcript, speed=speed)))
    transcript.close()
    return [json.loads(line) for line in path.read_text().splitlines()]


def first(records: list[dict[str, Any]], key: str) -> dict[str, Any]:
    return next(r for r in records if r.get("key") == key)


def test_night_one_opens_like_every_night_with_the_line_and_the_music(tmp_path: Path) -> None:
    records = transcript_of(load_script(ROOT / "examples" / "sport-sample.json"), tmp_path)
    assert records[0]["text"] == "Наступает ночь."
    music_on = records.index({"t": records[1]["t"], "music": "on"})
    assert music_on < records.index(first(records, "mafia_acquaint"))
    nights = [r for r in records if r.get("key") == "night_falls"]
    musics = [r["music"] for r in records if "music" in r]
    assert len(nights) == musics.count("on") and musics[:2] == ["on", "off"]  # every night, then every morning


def test_the_sport_acquaintance_minute_comes_between_wakes_and_sleeps(tmp_path: Path) -> None:
    records = transcript_of(script_from_data({"ruleset": "sport", "roles": ROLES, "days": [{}]}), tmp_path)
    keys = [r.get("key") for r in records if "key" in r]
    assert keys[:8] == ["night_falls", "mafia_acquaint", "mafia_sleeps", "don_wakes", "don_sleeps",
                        "sheriff_meets", "sheriff_sleeps", "morning"]
    assert first(records, "mafia_sleeps")["t"] - first(records, "mafia_acquaint")["t"] >= 60
    assert first(records, "morning")["t"] - first(records, "mafia_sleeps")["t"] < 20  # no minute after sleep


def test_the_club_mafia_gets_mafia_agree_s_before_the_count(tmp_path: Path) -> None:
    script = load_script(ROOT / "examples" / "club-sample.json")
    records = transcript_of(script, tmp_path)
    wakes = records.index(first(records, "mafia_wakes"))
    count = records[wakes + 1]
    assert count["key"] == "count"
    said_for = 0.3 + 0.065 * len(records[wakes]["text"])  # the virtual voice's length of the line
    assert count["t"] - records[wakes]["t"] >= said_for + script.ruleset.timers["mafia_agree_s"] - 0.01


def test_transcript_time_is_the_table_clock_whatever_the_speed(tmp_path: Path) -> None:
    script = script_from_data({"ruleset": "sport", "roles": ROLES})
    slow, fast = transcript_of(script, tmp_path, 1.0), transcript_of(script, tmp_path, 20.0)
    line = first(slow, "mafia_acquaint")
    said_for = 0.3 + 0.065 * len(line["text"])  # the virtual voice's length of the line, in real seconds
    gap = [first(r, "mafia_sleeps")["t"] - first(r, "mafia_acquaint")["t"] for r in (slow, fast)]
    # The minute is 60 s of t at any speed; the voice is not sped up, so its line spans speed × its length.
    assert abs(gap[0] - said_for - 60) < 0.01 and abs(gap[1] - 20 * said_for - 60) < 0.01


def test_demo_transcript_shows_the_night_one_flow(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The issue's check: ``voicehost demo --audio off --transcript t.jsonl``."""
    path = tmp_path / "t.jsonl"
    assert main(["demo", "--audio", "off", "--pace", "0", "--transcript", str(path)]) == 0
    records = [json.loads(line) for line in path.read_text().splitlines()]
    assert all(set(r) in ({"t", "key", "text"}, {"t", "music"}) for r in records)
    assert records[0]["text"] == "Наступает ночь."
    on = next(i for i, r in enumerate(records) if r.get("music") == "on")
    acquaint = next(i for i, r in enumerate(records) if "минута на договорку" in r.get("text", ""))
    sleeps = next(i for i, r in enumerate(records) if r.get("text") == "Мафия засыпает.")
    assert on < acquaint < sleeps and records[sleeps]["t"] - records[acquaint]["t"] >= 60


@pytest.mark.usefixtures("english")
def test_simulate_transcript_needs_the_table_level(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["simulate", str(ROOT / "examples" / "sport-sample.json"), "--transcript", str(tmp_path / "t")])
    assert code == 2 and "--transcript: only the table level speaks" in capsys.readouterr().err
    code = main(["simulate", str(ROOT / "examples" / "sport-sample.json"), "--level", "table",
                 "--transcript", str(tmp_path / "t.jsonl")])
    assert code == 0 and (tmp_path / "t.jsonl").read_text().startswith('{"t": 0.0, "key": "night_falls"')
