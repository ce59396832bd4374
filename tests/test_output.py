"""Outputs: a WAV file with subtitles, silence, and the fallbacks when the device fails."""

from __future__ import annotations

import io
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import soundfile

from audio.mixer import Mixer, MixSettings
from audio.output import AudioOut, AudioSpecError, DeviceOutput, FileOutput, PacedOutput, parse_spec

# The messages checked here are the English ids (audio says them in voicehost's language).
pytestmark = pytest.mark.usefixtures("english_module")


def test_audio_specs() -> None:
    assert parse_spec("default") == ("default", "") and parse_spec("file:x.wav") == ("file", "x.wav")
    assert parse_spec("device:USB") == ("device", "USB")
    for bad in ("file:", "speaker", "device"):
        with pytest.raises(AudioSpecError, match="use default, null, device:NAME or file:OUT.wav"):
            parse_spec(bad)


def test_file_output_renders_the_session_with_subtitles(tmp_path: Path) -> None:
    subtitles = io.StringIO()
    mixer = Mixer(MixSettings(samplerate=16000))
    out = AudioOut(mixer, f"file:{tmp_path / 'game.wav'}", subtitles=subtitles)
    assert isinstance(out.output, FileOutput)
    onset = mixer.say(np.full(1600, 0.5, dtype=np.float32), "Наступает ночь.").result(60)
    written = int(round((onset - out.output.start_time) * 16000)) + 1600
    deadline = time.monotonic() + 60   # the line written to the file, however busy the machine
    while out.output.file.frames < written and time.monotonic() < deadline:
        time.sleep(0.01)
    out.close()
    mixer.close()
    data, rate = soundfile.read(tmp_path / "game.wav")
    start = out.output.start_time
    index = int(round((onset - start) * rate))
    assert rate == 16000 and data[index] == pytest.approx(0.5, abs=1e-3) and data[index - 1] == 0.0
    assert "] Наступает ночь." in subtitles.getvalue()


def test_file_output_that_cannot_be_written_is_one_clear_error(tmp_path: Path) -> None:
    mixer = Mixer()
    with pytest.raises(AudioSpecError, match="cannot write it"):
        AudioOut(mixer, f"file:{tmp_path / 'no' / 'such' / 'dir.wav'}")
    mixer.close()


def test_no_audio_device_falls_back_to_silence_with_one_line(no_audio_device: None) -> None:
    logged: list[str] = []
    mixer = Mixer()
    out = AudioOut(mixer, "default", log=logged.append)
    assert out.kind == "null" and logged == ["voicehost: no audio device (no sound card is connected or set as the "
                                             "default); "
                                             "the game goes on silently (--audio file:OUT.wav records the voice "
                                             "instead)"]
    assert mixer.say(np.zeros(10, dtype=np.float32)).result(60) > 0  # lines still get their onsets
    out.close()
    mixer.close()


def test_a_device_lost_mid_game_keeps_the_game_going(monkeypatch: pytest.MonkeyPatch) -> None:
    import sounddevice

    class Stream:
        latency = 0.01
        time = 0.0

        def __init__(self, *args: Any, finished_callback: Callable[[], None] | None = None, **kwargs: Any) -> None:
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
    assert isinstance(out.output, DeviceOutput)
    out.output.stream.finished()  # what PortAudio does when the device goes away
    assert out.kind == "null" and logged == ["voicehost: the audio device stopped; the game goes on silently"]
    assert mixer.say(np.zeros(10, dtype=np.float32)).result(60) > 0
    out.close()
    mixer.close()


def _counting_renders(mixer: Mixer) -> list[float]:
    """Each block the mixer renders, by its due time (the mixer's own render, counted)."""
    rendered: list[float] = []
    render = mixer.render

    def counted(out: np.ndarray, dac_time: float) -> None:
        rendered.append(dac_time)
        render(out, dac_time)
    mixer.render = counted  # type: ignore[method-assign]
    return rendered


def test_the_null_output_renders_nothing_while_the_table_is_idle() -> None:
    """Issue 30: the idle table's pump rendered a hundred blocks of silence a second."""
    mixer = Mixer(MixSettings(samplerate=48000))
    rendered = _counting_renders(mixer)
    out = AudioOut(mixer, "null")
    time.sleep(0.5)
    idle_blocks = len(rendered)
    onset = mixer.say(np.full(480, 0.5, dtype=np.float32), "Стол готов.").result(60)
    out.close()
    mixer.close()
    assert idle_blocks <= 3, idle_blocks  # 50 at real-time pace
    assert onset - mixer.limiter.delay_s in rendered  # the line starts on a block the pump rendered (its
    # sound, and so its onset, the limiter's 2 ms look-ahead later)


def test_the_first_line_after_idle_starts_at_once_on_the_block_clock() -> None:
    """The null output sleeps while idle, then takes its block clock up again: the onset is a
    block boundary just after the line was said, and the pause after the line before counts
    the silence slept through (a line long after the last one does not wait a pause again)."""
    settings = MixSettings(samplerate=48000, pause_s=1.0)
    mixer = Mixer(settings)
    out = AudioOut(mixer, "null")
    assert isinstance(out.output, PacedOutput)
    start = out.output.start_time
    first = mixer.say(np.full(480, 0.5, dtype=np.float32), "one").result(60)
    time.sleep(1.3)  # idle longer than the pause
    said = time.monotonic()
    second = mixer.say(np.full(480, 0.5, dtype=np.float32), "two").result(60)
    soon = mixer.say(np.full(480, 0.5, dtype=np.float32), "three").result(60)  # right after: waits the pause
    out.close()
    mixer.close()
    for onset in (first, second, soon):
        blocks = (onset - mixer.limiter.delay_s - start) * settings.samplerate / 480   # the look-ahead's 2 ms off
        assert blocks == pytest.approx(round(blocks), abs=1e-6)  # on the block clock, exactly
    assert said - 0.001 <= second < said + 0.9  # at once (a pause again would be ≥ 1 s; a busy pump wakes late)
    assert soon - second == pytest.approx(480 / 48000 + settings.pause_s, abs=0.011)  # the line, then the pause
