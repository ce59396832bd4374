"""The real thing: lines rendered by pyttsx3 + espeak-ng (through the lexicon and the loudness
chain), mixed with night music, played by sounddevice into a PulseAudio null sink and recorded
from its monitor.

One scripted session is played once and recorded; every test reads the recording. A test
that finds it wrong while the machine's load disturbed it (underruns, lost input: see
pulse.Disturbance) has it played again, a bounded number of times; an undisturbed wrong
session fails at once. By day the
host says three lines with no music; at night, first over a test tone (one FFT bin, easy to
measure under speech), then over the generated bed. The recording starts a little before
the first line, so the silence before it is on record too.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pytest
from pulse import ATTEMPTS, Disturbance, PulseDaemon, measured, real_time, settle

from audio.mixer import Mixer, MixSettings, MusicSource
from audio.music import MusicFeed
from audio.output import AudioOut

if TYPE_CHECKING:
    from audio.tts import SpeechRenderer

# one worker plays the session for all its tests: conftest puts the module in the "audio_loop" xdist group

RATE = 48000
BEFORE_THE_FIRST_LINE_S = 0.6
LOUD = 0.02
FADE_S = 0.5
DAY_LINES = ("Спасибо.", "Кандидатура номер семь принята.", "Игрок номер пять — шесть голосов.")
NIGHT_LINE_OVER_THE_TONE = "Просыпается мафия."
NIGHT_LINE_OVER_THE_BED = "Мафия засыпает."


class Tone:
    """Music that is easy to measure under speech: a 5 kHz sine (one FFT bin)."""

    def __init__(self) -> None:
        self.phase = 0

    def read(self, out: np.ndarray) -> None:
        t = np.arange(self.phase, self.phase + len(out))
        out[:] = 0.5 * np.sin(2 * np.pi * 5000 * t / RATE)
        self.phase += len(out)


class Switch:
    """The night music: the tone, then (after :meth:`to`) another source, in one stream."""

    def __init__(self, source: MusicSource) -> None:
        self.source = source

    def to(self, source: MusicSource) -> None:
        self.source = source

    def read(self, out: np.ndarray) -> None:
        self.source.read(out)


class Recorder:
    """The microphone (the sink's monitor), each block stamped with its ADC time, as monotonic;
    it counts the blocks PortAudio says it lost (``overflows``) and the jumps in its ADC times
    (``gaps``): evidence that the load, not the loop, spoilt a recording."""

    def __init__(self) -> None:
        import sounddevice
        self.blocks: list[tuple[float, np.ndarray]] = []
        self.overflows = 0
        self.gaps = 0
        self.stream = sounddevice.InputStream(samplerate=RATE, channels=1, dtype="float32", blocksize=480,
                                              latency="low", callback=self._callback)
        self.stream.start()
        self.offset = time.monotonic() - self.stream.time

    def _callback(self, indata: np.ndarray, frames: int, time_info: Any, status: Any) -> None:
        if status.input_overflow:
            self.overflows += 1
        t = time_info.inputBufferAdcTime + self.offset
        if self.blocks and abs(t - self.blocks[-1][0] - frames / RATE) > frames / RATE / 2:
            self.gaps += 1
        self.blocks.append((t, indata[:, 0].copy()))

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
                onset: float = t + loud[0] / RATE
                return onset
        return None


def level_db(samples: np.ndarray) -> float:
    return float(20 * np.log10(np.sqrt(np.mean(samples ** 2)) + 1e-9))


def tone_db(samples: np.ndarray, freq: float = 5000) -> float:
    spectrum = np.abs(np.fft.rfft(samples * np.hanning(len(samples))))
    k = int(round(freq * len(samples) / RATE))
    return float(20 * np.log10(spectrum[k - 2:k + 3].max() / len(samples) + 1e-12))


@dataclass
class Line:
    text: str
    onset: float
    duration: float
    lead: float   # where the clip itself gets loud


@dataclass
class PlayedSession:
    recorder: Recorder
    loudness_lufs: float
    day_lines: list[Line] = field(default_factory=list)
    night_lines: list[Line] = field(default_factory=list)   # over the tone, over the bed
    night_on: float = 0.0
    tone_off: float = 0.0      # the bed replaces the tone
    night_off: float = 0.0
    bed_underruns: int = -1
    disturbed: str = ""        # what the load did to it (pulse.Disturbance), '' when nothing


class Sessions:
    """The module's session, played once for all its tests; played again (see pulse.measured)
    when a test finds it wrong and the load disturbed it, and the new one serves the tests after."""

    def __init__(self, daemon: PulseDaemon, renderer: SpeechRenderer, loudness_lufs: float) -> None:
        self.daemon = daemon
        self.loudness_lufs = loudness_lufs
        self.clips = {text: renderer.clip(text)
                      for text in (*DAY_LINES, NIGHT_LINE_OVER_THE_TONE, NIGHT_LINE_OVER_THE_BED)}
        self.plays = 0
        self.current = self.play()

    def check(self, check: Callable[[PlayedSession], None]) -> None:
        fresh = iter([False] + [True] * (ATTEMPTS - 1))

        def measure() -> tuple[PlayedSession, str]:
            if next(fresh):
                self.current = self.play()
            return self.current, self.current.disturbed
        measured(measure, check)

    def play(self) -> PlayedSession:
        self.plays += 1
        bed = MusicFeed(RATE)   # no folder: the generated ambient bed
        music = Switch(Tone())
        # The loop's own levels (a one-band source ducked whole, as before the night's loudness
        # plan): this test is about the speaker → microphone loop, not the night's balance.
        mixer = Mixer(MixSettings(samplerate=RATE, fade_s=FADE_S, duck_db=-18.0, music_level=0.5), music)
        out = recorder = None
        try:
            with real_time():
                out = AudioOut(mixer, "default", log=lambda line: pytest.fail(line))
                assert out.kind == "device"
                recorder = Recorder()
            settle(out.output)
            disturbance = Disturbance(self.daemon, [out.output, recorder], gaps=lambda: recorder.gaps)
            time.sleep(BEFORE_THE_FIRST_LINE_S)
            played = _play_the_session(PlayedSession(recorder, self.loudness_lufs), mixer, music, bed, self.clips)
            played.bed_underruns = bed.underruns
            played.disturbed = disturbance.since_start()
            return played
        finally:  # every stream closed, even when the session fails half-way
            if recorder is not None:
                recorder.stop()
            if out is not None:
                out.close()
            mixer.close()
            bed.close()


@pytest.fixture(scope="module")
def sessions(
        pulse_loop: str, pulse_daemon: PulseDaemon, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sessions]:
    from audio.tts import SpeechRenderer, VoiceSettings, VoiceUnavailable
    from voicehost.language.lexicon import load_lexicon
    settings = VoiceSettings()
    try:
        renderer = SpeechRenderer(settings, tmp_path_factory.mktemp("voice"), spell=load_lexicon().apply)
    except VoiceUnavailable as err:
        pytest.skip(f"no Russian voice here: {err}")
    try:
        yield Sessions(pulse_daemon, renderer, settings.loudness_lufs)
    finally:
        renderer.close()


def _play_the_session(played: PlayedSession, mixer: Mixer, music: Switch, bed: MusicFeed,
                      clips: dict[str, np.ndarray]) -> PlayedSession:
    """The day's lines go out together (the mixer leaves its pause between them); the night
    is timed here: the fade, the duck's release, the bed on its own before its line."""
    def line_of(text: str, onset: Future[float]) -> Line:
        clip = clips[text]
        return Line(text, onset.result(15), len(clip) / RATE, np.nonzero(np.abs(clip) > LOUD)[0][0] / RATE)

    def say(text: str) -> Line:
        return line_of(text, mixer.say(clips[text], text))

    def until(t: float) -> None:
        time.sleep(max(0.0, t - time.monotonic()))

    said = [(text, mixer.say(clips[text], text)) for text in DAY_LINES]
    played.day_lines = [line_of(text, onset) for text, onset in said]
    until(played.day_lines[-1].onset + played.day_lines[-1].duration + 0.6)
    mixer.night(True)
    played.night_on = time.monotonic()
    time.sleep(FADE_S + 0.8)
    line = say(NIGHT_LINE_OVER_THE_TONE)
    played.night_lines.append(line)
    until(line.onset + line.duration + 1.2)   # the duck's release, then the tone at full level
    music.to(bed)
    played.tone_off = time.monotonic()
    time.sleep(1.0)
    line = say(NIGHT_LINE_OVER_THE_BED)
    played.night_lines.append(line)
    until(line.onset + line.duration + 0.3)
    mixer.night(False)
    played.night_off = time.monotonic()
    time.sleep(FADE_S + 1.2)
    return played


def test_speech_is_heard_where_the_host_said_it(sessions: Sessions) -> None:
    def check(session: PlayedSession) -> None:
        for line in session.day_lines:
            voiced = session.recorder.between(line.onset + 0.05, line.onset + line.duration - 0.05)
            silence = session.recorder.between(line.onset - 0.5, line.onset - 0.1)
            assert level_db(voiced) > -35 and level_db(silence) < -60, line.text
    sessions.check(check)


def test_reported_onsets_match_the_recording_within_30_ms(sessions: Sessions) -> None:
    def check(session: PlayedSession) -> None:
        errors = []
        for line in session.day_lines:
            heard = session.recorder.first_sound_after(line.onset - 0.25, LOUD)
            assert heard is not None
            errors.append((heard - line.lead - line.onset) * 1000)
        assert all(abs(e) <= 30 for e in errors), errors
    sessions.check(check)


def test_music_is_at_least_12_db_lower_during_speech_than_just_before(sessions: Sessions) -> None:
    def check(session: PlayedSession) -> None:
        line = session.night_lines[0]
        before = tone_db(session.recorder.between(line.onset - 0.6, line.onset - 0.1))
        during = tone_db(session.recorder.between(line.onset + 0.1, line.onset + line.duration - 0.1))
        assert before - during >= 12, (before, during)
    sessions.check(check)


def test_night_music_is_audible_through_the_night_and_absent_by_day(sessions: Sessions) -> None:
    def check(session: PlayedSession) -> None:
        line = session.night_lines[0]
        night = session.recorder.between(session.night_on + FADE_S + 0.2, line.onset - 0.1)
        after_line = session.recorder.between(line.onset + line.duration + 0.7, session.tone_off)
        day = session.recorder.between(session.night_off + FADE_S + 0.3, session.night_off + FADE_S + 0.9)
        assert tone_db(night) > -30 and tone_db(after_line) > -30
        first = session.day_lines[0]
        assert level_db(session.recorder.between(first.onset - 0.5, first.onset - 0.1)) < -60
        assert level_db(day) < -60
    sessions.check(check)


def test_the_generated_ambient_music_plays_when_no_folder_is_set(sessions: Sessions) -> None:
    def check(session: PlayedSession) -> None:
        alone = session.recorder.between(session.tone_off + 0.3, session.night_lines[1].onset - 0.1)
        assert level_db(alone) > -40 and session.bed_underruns == 0
    sessions.check(check)


def test_the_recorded_mix_never_reaches_full_scale_and_every_line_is_at_one_loudness(sessions: Sessions) -> None:
    """Every line measured (BS.1770) where it was recorded: by day, and at night over the ducked
    generated bed (not the line over the test tone: a steady 5 kHz sine would add to it)."""
    def check(session: PlayedSession) -> None:
        from audio.level import loudness
        recorder = session.recorder
        everything = recorder.between(session.day_lines[0].onset - 1.0, session.night_off + FADE_S + 1.0)
        assert np.max(np.abs(everything)) < 0.99
        lufs_of = {line.text: loudness(recorder.between(line.onset, line.onset + line.duration), RATE)
                   for line in (*session.day_lines, session.night_lines[1])}
        assert all(abs(lufs - session.loudness_lufs) <= 1.0 for lufs in lufs_of.values()), lufs_of
    sessions.check(check)
