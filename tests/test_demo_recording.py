"""The demo recorded to a file (faster than real time, on the virtual clock) and measured:
the whole mix never reaches full scale, and every line the host says — by day, at night over
the ducked bed, and the count's numbers over the bed held at ``count_duck_db`` — is within
±1 LU of the voice's loudness target (BS.1770)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import soundfile

from audio.level import loudness
from audio.tts import VoiceUnavailable
from voicehost.host.table_file import load_audio, table_path
from voicehost.host.vclock import run_virtual
from voicehost.host.voice import FileVoice
from voicehost.rules import InputError
from voicehost.simulation.script import script_from_data
from voicehost.simulation.table_level import TableRun, play_table

SCRIPT = {"ruleset": "sport", "roles": {"3": "don", "5": "mafia", "9": "mafia", "7": "sheriff"},
          "nights": [{"shots": {"3": 4, "5": 4, "9": 4}}],
          "days": [{"speeches": {"1": ["выставляю игрока номер пять", "спасибо"], "2": ["спасибо"]},
                    "votes": {"1": 5, "2": 5, "4": 5, "6": 5}}]}


def test_the_recorded_demo_never_clips_and_every_line_is_at_one_loudness(tmp_path: Path) -> None:
    audio = load_audio(table_path(None))
    path = tmp_path / "demo.wav"
    try:
        voice = FileVoice(audio, str(path), seed=1)
    except (InputError, VoiceUnavailable) as err:
        pytest.skip(f"no voice here: {err}")
    voice.mixer.music_stem = []   # the music as mixed: a line is measured without it
    try:
        how = TableRun(speak=voice.speak, night=voice.night, cue=voice.cue, cue_length=voice.cue_length,
                       hold=voice.hold, warning=voice.warning, speed=20.0)
        run_virtual(play_table(script_from_data(SCRIPT), how=how))
        lines = [(onset, text, len(voice.renderer.clip(text))) for onset, text in voice.mixer.subtitles if text]
        stem = voice.mixer.music_stem
    finally:
        voice.close()
    mix, rate = soundfile.read(str(path), dtype="float32")
    assert len(mix) / rate > 60 and np.max(np.abs(mix)) < 0.99
    music = np.zeros_like(mix)
    for t, block, _ in stem:
        at = int(round(t * rate))
        music[at:at + len(block)] = block[:max(0, len(mix) - at)]
    measured = {}
    for onset, text, length in lines:
        start = int(round(onset * rate))
        # The line itself, the night music under it taken out: the night is loud by design
        # (docs/voice.md, «The night's loudness plan»), and a line's loudness is its own.
        measured[text] = loudness(mix[start:start + length] - music[start:start + length], rate)
    assert len(measured) >= 15
    target = audio.voice.loudness_lufs
    off = {text: round(lufs, 2) for text, lufs in measured.items() if abs(lufs - target) > 1.0}
    assert not off, off
