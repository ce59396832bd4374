"""Outputs: a WAV file with subtitles, silence, and the fallbacks when the device fails."""

from __future__ import annotations

import io
import time

import numpy as np
import pytest
import soundfile

from audio.mixer import Mixer, MixSettings
from audio.output import AudioOut, AudioSpecError, parse_spec


def test_audio_specs() -> None:
    assert parse_spec("default") == ("default", "") and parse_spec("file:x.wav") == ("file", "x.wav")
    assert parse_spec("device:USB") == ("device", "USB")
    for bad in ("file:", "speaker", "device"):
        with pytest.raises(AudioSpecError, match="use default, null, device:NAME or file:OUT.wav"):
            parse_spec(bad)


def test_file_output_renders_the_session_with_subtitles(tmp_path) -> None:
    subtitles = io.StringIO()
    mixer = Mixer(MixSettings(samplerate=16000))
    out = AudioOut(mixer, f"file:{tmp_path / 'game.wav'}", subtitles=subtitles)
    onset = mixer.say(np.full(1600, 0.5, dtype=np.float32), "Наступает ночь.").result(2)
    time.sleep(0.3)
    out.close()
    mixer.close()
    data, rate = soundfile.read(tmp_path / "game.wav")
    start = out.output.start_time
    index = int(round((onset - start) * rate))
    assert rate == 16000 and data[index] == pytest.approx(0.5, abs=1e-3) and data[index - 1] == 0.0
    assert "] Наступает ночь." in subtitles.getvalue()


def test_file_output_that_cannot_be_written_is_one_clear_error(tmp_path) -> None:
    mixer = Mixer()
    with pytest.raises(AudioSpecError, match="cannot write it"):
        AudioOut(mixer, f"file:{tmp_path / 'no' / 'such' / 'dir.wav'}")
    mixer.close()


def test_no_audio_device_falls_back_to_silence_with_one_line(monkeypatch) -> None:
    import sounddevice

    def broken(*args, **kwargs):
        raise sounddevice.PortAudioError("Error querying device -1")

    monkeypatch.setattr(sounddevice, "OutputStream", broken)
    logged: list[str] = []
    mixer = Mixer()
    out = AudioOut(mixer, "default", log=logged.append)
    assert out.kind == "null" and logged == ["voicehost: no audio device (Error querying device -1); "
                                             "the game goes on silently (--audio file:OUT.wav records the voice "
                                             "instead)"]
    assert mixer.say(np.zeros(10, dtype=np.float32)).result(2) > 0  # lines still get their onsets
    out.close()
    mixer.close()


def test_a_device_lost_mid_game_keeps_the_game_going(monkeypatch) -> None:
    import sounddevice

    class Stream:
        latency = 0.01
        time = 0.0

        def __init__(self, *args, finished_callback=None, **kwargs) -> None:
            self.finished = finished_callback

        def start(self) -> None:
            pass

        def close(self) -> None:
            pass

    monkeypatch.setattr(sounddevice, "OutputStream", Stream)
    logged: list[str] = []
    mixer = Mixer()
    out = AudioOut(mixer, "default", log=logged.append)
    assert out.kind == "device"
    out.output.stream.finished()  # what PortAudio does when the device goes away
    assert out.kind == "null" and logged == ["voicehost: the audio device stopped; the game goes on silently"]
    assert mixer.say(np.zeros(10, dtype=np.float32)).result(2) > 0
    out.close()
    mixer.close()
