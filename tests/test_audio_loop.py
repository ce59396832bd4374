"""The real thing: lines rendered by pyttsx3 + espeak-ng, mixed with night music, played by
sounddevice into a PulseAudio null sink and recorded from its monitor.

One scripted session is played once; the tests read the recording. Both streams are warmed
up first: PulseAudio settles its latency during the first seconds of a stream.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np
import pytest

from audio.mixer import Mixer, MixSettings
from audio.music import MusicFeed
from audio.output import AudioOut

RATE = 48000
WARM_UP_S = 3.0
LOUD = 0.02


class Tone:
    """Music that is easy to measure under speech: a 5 kHz sine (one FFT bin)."""

    def __init__(self) -> None:
        self.phase = 0

    def read(self, out: np.ndarray) -> None:
        t = np.arange(self.phase, self.phase + len(out))
        out[:] = 0.5 * np.sin(2 * np.pi * 5000 * t / RATE)
        self.phase += len(out)


class Recorder:
    """The microphone (the sink's monitor), each block stamped with its ADC time, as monotonic."""

    def __init__(self) -> None:
        import sounddevice
        self.blocks: list[tuple[float, np.ndarray]] = []
        self.stream = sounddevice.InputStream(samplerate=RATE, channels=1, dtype="float32", blocksize=480,
                                              latency="low", callback=self._callback)
        self.stream.start()
        self.offset = time.monotonic() - self.stream.time

    def _callback(self, indata, frames, time_info, status) -> None:
        self.blocks.append((time_info.inputBufferAdcTime + self.offset, indata[:, 0].copy()))

    def stop(self) -> None:
        self.stream.stop()
        self.stream.close()

    def between(self, start: float, end: float) -> np.ndarray:
        return np.concatenate([b for t, b in self.blocks if start <= t < end] or [np.zeros(1)])

    def first_sound_after(self, start: float, threshold: float = 0.02) -> float | None:
        for t, block in self.blocks:
            if t + len(block) / RATE < start:
                continue
            loud = np.nonzero(np.abs(block) > threshold)[0]
            if len(loud):
                return t + loud[0] / RATE
        return None


def level_db(samples: np.ndarray) -> float:
    return float(20 * np.log10(np.sqrt(np.mean(samples ** 2)) + 1e-9))


def tone_db(samples: np.ndarray, freq: float = 5000) -> float:
    spectrum = np.abs(np.fft.rfft(samples * np.hanning(len(samples))))
    k = int(round(freq * len(samples) / RATE))
    return float(20 * np.log10(spectrum[k - 2:k + 3].max() / len(samples) + 1e-12))


@dataclass
class Session:
    recorder: Recorder
    day_lines: list[tuple[float, float, float]] = field(default_factory=list)  # (onset, duration, lead)
    night_line: tuple[float, float] = (0.0, 0.0)
    night_on: float = 0.0
    night_off: float = 0.0
    ambient: Recorder | None = None


@pytest.fixture(scope="module")
def session(pulse_loop, renderer) -> Session:
    mixer = Mixer(MixSettings(samplerate=RATE, fade_s=1.0), Tone())
    out = recorder = None
    try:
        out = AudioOut(mixer, "default", log=lambda line: pytest.fail(line))
        assert out.kind == "device"
        time.sleep(1.0)
        recorder = Recorder()  # after the speaker: the null sink re-times its monitor when a player joins
        time.sleep(WARM_UP_S)
        return _play_the_session(mixer, recorder, renderer)
    finally:  # every stream closed, even when the session fails half-way
        if recorder is not None:
            recorder.stop()
        if out is not None:
            out.close()
        mixer.close()


def _play_the_session(mixer: Mixer, recorder: Recorder, renderer) -> Session:
    played = Session(recorder)
    for text in ("Спасибо.", "Кандидатура номер семь принята.", "Спасибо."):
        clip = renderer.clip(text)
        lead = np.nonzero(np.abs(clip) > LOUD)[0][0] / RATE  # where the clip itself gets loud
        played.day_lines.append((mixer.say(clip, text).result(5), len(clip) / RATE, lead))
        time.sleep(len(clip) / RATE + 0.6)
    mixer.night(True)
    played.night_on = time.monotonic()
    time.sleep(2.0)
    clip = renderer.clip("Просыпается мафия.")
    played.night_line = (mixer.say(clip).result(5), len(clip) / RATE)
    time.sleep(len(clip) / RATE + 1.5)
    mixer.night(False)
    played.night_off = time.monotonic()
    time.sleep(2.0)
    return played


def test_speech_is_heard_where_the_host_said_it(session: Session) -> None:
    for onset, duration, _ in session.day_lines:
        voiced = session.recorder.between(onset + 0.05, onset + duration - 0.05)
        silence = session.recorder.between(onset - 0.5, onset - 0.1)
        assert level_db(voiced) > -35 and level_db(silence) < -60


def test_reported_onsets_match_the_recording_within_30_ms(session: Session) -> None:
    errors = []
    for onset, _, lead in session.day_lines:
        heard = session.recorder.first_sound_after(onset - 0.25, LOUD)
        assert heard is not None
        errors.append((heard - lead - onset) * 1000)
    assert all(abs(e) <= 30 for e in errors), errors


def test_music_is_at_least_12_db_lower_during_speech_than_just_before(session: Session) -> None:
    onset, duration = session.night_line
    before = tone_db(session.recorder.between(onset - 0.6, onset - 0.1))
    during = tone_db(session.recorder.between(onset + 0.1, onset + duration - 0.1))
    assert before - during >= 12, (before, during)


def test_night_music_is_audible_through_the_night_and_absent_by_day(session: Session) -> None:
    onset, duration = session.night_line
    night = session.recorder.between(session.night_on + 1.2, onset - 0.1)
    after_line = session.recorder.between(onset + duration + 0.7, session.night_off)
    day = session.recorder.between(session.night_off + 1.3, session.night_off + 1.9)
    assert tone_db(night) > -30 and tone_db(after_line) > -30
    assert level_db(session.recorder.between(session.day_lines[0][0] - 0.5, session.day_lines[0][0] - 0.1)) < -60
    assert level_db(day) < -60


def test_the_generated_ambient_music_plays_when_no_folder_is_set(pulse_loop) -> None:
    feed = MusicFeed(RATE)
    mixer = Mixer(MixSettings(samplerate=RATE, fade_s=0.3), feed)
    out = AudioOut(mixer, "default")
    recorder = Recorder()
    try:
        time.sleep(1.0)
        mixer.night(True)
        start = time.monotonic()
        time.sleep(1.5)
    finally:
        recorder.stop()
        out.close()
        mixer.close()
        feed.close()
    assert level_db(recorder.between(start + 0.5, start + 1.4)) > -40 and feed.underruns == 0


def test_the_recorded_mix_never_reaches_full_scale_and_every_line_is_at_one_loudness(pulse_loop, tmp_path) -> None:
    """Rendered lines (through the lexicon and the loudness chain) played by day and over the
    generated bed at night, recorded from the sink's monitor and measured (BS.1770)."""
    from audio.level import loudness
    from audio.tts import SpeechRenderer, VoiceSettings, VoiceUnavailable
    from voicehost.language.lexicon import load_lexicon
    settings = VoiceSettings()
    try:
        renderer = SpeechRenderer(settings, tmp_path, spell=load_lexicon().apply)
    except VoiceUnavailable as err:
        pytest.skip(f"no Russian voice here: {err}")
    texts = ["Спасибо.", "Кандидатура номер семь принята.", "Дневное обсуждение завершено. Город приступает к "
             "голосованию.", "Игрок номер пять — шесть голосов.", "Просыпается Шериф и ищет мафию.",
             "Мафия засыпает."]
    feed = MusicFeed(RATE)
    mixer = Mixer(MixSettings(samplerate=RATE, fade_s=0.5), feed)
    out = AudioOut(mixer, "default", log=lambda line: pytest.fail(line))
    recorder = Recorder()
    played = []
    try:
        time.sleep(WARM_UP_S)
        for k, text in enumerate(texts):
            if k == 4:
                mixer.night(True)
                time.sleep(1.5)
            clip = renderer.clip(text)
            played.append((mixer.say(clip, text).result(10), len(clip) / RATE, text))
            time.sleep(len(clip) / RATE + 1.2)
        time.sleep(1.0)
    finally:
        recorder.stop()
        out.close()
        mixer.close()
        feed.close()
        renderer.close()
    everything = recorder.between(played[0][0] - 1.0, played[-1][0] + 5.0)
    assert np.max(np.abs(everything)) < 0.99
    measured = {text: loudness(recorder.between(onset, onset + duration), RATE) for onset, duration, text in played}
    assert all(abs(lufs - settings.loudness_lufs) <= 1.0 for lufs in measured.values()), measured
