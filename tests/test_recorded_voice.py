"""A club's own voice: the recording script, and lines said from recorded fragments (joined
without clicks, at one loudness), with espeak-ng for anything not recorded."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest
import soundfile

from audio.level import loudness
from audio.recorded import RecordedVoice, RecordingsUnavailable, words
from voicehost.config import load_ruleset
from voicehost.host.voice import recording_script
from voicehost.language.phrasebook import load_phrasebook

RATE = 48000


def sport_script() -> list[tuple[str, str]]:
    sport = load_ruleset("sport")
    return recording_script(load_phrasebook(), [("sport", max(sport.seats), sorted(set(sport.timers.values())))])


def test_the_script_has_every_fixed_line_and_the_fragments_of_numbered_ones() -> None:
    texts = {words(text) for _, text in sport_script()}
    assert words("Доброе утро.") in texts
    assert {words("Кандидатура номер"), words("семь"), words("принята."), words("два голоса")} <= texts
    names = [name for name, _ in sport_script()]
    assert len(names) == len(set(names))


def folder_with(tmp_path: Path, recordings: dict[str, float]) -> None:
    """Each fragment «recorded» as a tone (a different pitch each) with silence around it."""
    rows = [("name", "text")]
    for k, (text, freq) in enumerate(recordings.items()):
        t = np.arange(int(0.5 * 44100)) / 44100
        take = np.concatenate([np.zeros(4410), 0.3 * np.sin(2 * np.pi * freq * t), np.zeros(8820)])
        soundfile.write(str(tmp_path / f"r{k}.wav"), take, 44100)
        rows.append((f"r{k}", text))
    with (tmp_path / "script.tsv").open("w", newline="", encoding="utf-8") as handle:
        csv.writer(handle, delimiter="\t").writerows(rows)


def test_a_line_is_joined_from_recorded_fragments_at_one_loudness_without_clicks(tmp_path: Path) -> None:
    folder_with(tmp_path, {"Кандидатура номер": 220.0, "семь": 330.0, "принята.": 440.0})
    voice = RecordedVoice(tmp_path, RATE, -20.0, -3.0)
    clip = voice.clip("Кандидатура номер семь принята.")
    assert clip is not None
    assert 1.5 < len(clip) / RATE < 1.8  # three half-second takes, their silences trimmed, two short gaps
    assert loudness(clip, RATE) == pytest.approx(-20.0, abs=0.5)
    steps = np.abs(np.diff(clip))
    assert steps.max() < 0.1  # a 440 Hz tone at this level moves at most ~0.04 per sample: no jump anywhere
    assert voice.clip("Кандидатура номер восемь принята.") is None  # «восемь» not recorded: espeak-ng says it


@pytest.mark.usefixtures("english")
def test_a_folder_without_a_script_is_one_clear_error(tmp_path: Path) -> None:
    with pytest.raises(RecordingsUnavailable, match="no script.tsv"):
        RecordedVoice(tmp_path, RATE, -20.0, -3.0)


def test_the_script_command_prints_tsv(capsys: pytest.CaptureFixture[str]) -> None:
    from voicehost.cli.main import main
    assert main(["voice", "script", "--rules", "sport"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "name\ttext" and all(line.count("\t") == 1 for line in out)
    assert any(line.endswith("\tКандидатура номер") for line in out)
