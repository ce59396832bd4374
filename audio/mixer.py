"""One mixer for everything the table hears: a music bus and a voice bus, summed in the
output callback, with the music ducked under the host's voice and faded at night's edges.

The callback (:meth:`Mixer.render`) works on buffers allocated up front: no file I/O, no
locks, no new arrays (numpy ``out=`` everywhere). Lines arrive through a deque (appends
and pops are atomic in CPython); when a line's first sample is written, its onset — the
time that sample reaches the device, from the stream's time info, plus the limiter's 2 ms
look-ahead — goes back through another deque to a notifier thread that resolves the caller's
future. The vote cut-off is the onset of «Спасибо», so this time is the one that matters.

Two things make it sound like a host rather than a machine: a pause (``pause_s``) between
one line's end and the next line's start — the night count's first number too, after the line
that wakes the mafia — and a music bus in three bands (docs/voice.md, «The night's loudness
plan»). A source that offers ``read_bands`` gives the music split at ``line_split_hz`` (2 kHz)
and ``split_hz`` (3.4 kHz):

- the *low band* (under 2 kHz, where a voice's loudness is) ducks under each line
  (``duck_db``) and, during the night count (:meth:`Mixer.hold`), under each number
  (``count_duck_db``);
- the *top of the speech band* (2–3.4 kHz) ducks only under a number of the count
  (``count_top_duck_db``): the numbers, short and said over the loudest music, need their
  consonants clear; an ordinary line does without;
- the *treble* (over 3.4 kHz) never ducks, so the clicks of the seat buttons — whose energy
  is up there — stay hidden all through the night.

The music ducks only around a line: it starts down ``duck_attack_s`` before the line is due
and comes back after it, so it is whole through the pauses between lines and between numbers,
where taps land too. The sum goes through a look-ahead limiter (:mod:`audio.limiter`, −3 dBTP
``limit_dbtp``, 2 ms), since the treble under a line and a number's peak can add up over it.
"""

from __future__ import annotations

import collections
import math
import threading
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from .limiter import Limiter


class MusicSource(Protocol):
    def read(self, out: np.ndarray) -> None:
        """Fill ``out`` with the next samples (silence on underrun)."""


class BandedMusic(MusicSource, Protocol):
    def read_bands(self, low: np.ndarray, mid: np.ndarray, high: np.ndarray) -> None:
        """Fill ``low``, ``mid`` and ``high`` with the next samples under ``line_split_hz``,
        between it and ``split_hz``, and over ``split_hz`` (their sum is what :meth:`read` gives)."""


@dataclass(frozen=True)
class MixSettings:
    samplerate: int = 48000
    max_block: int = 4096
    duck_db: float = -12.0        # the music's low band under a line (the rest stays up)
    count_duck_db: float = -18.0  # the low band under each number of the night count (back up between) …
    count_top_duck_db: float = -12.0  # … and the top of the speech band: every number ≥ 10 dB over the music
    #                                   in the speech band, the treble, where a tap is, never ducks
    line_split_hz: float = 2000.0  # the top of the low band, the only one a line ducks
    split_hz: float = 3400.0      # the top of the speech band: the music above it (the treble) never ducks
    duck_attack_s: float = 0.06   # how fast the music goes down before the voice starts
    duck_release_s: float = 0.5   # how fast it comes back after
    count_release_s: float = 0.15  # … between two numbers of the count: back up before the next
    fade_s: float = 2.0           # night music fades in at nightfall and out at morning
    music_level: float = 0.8      # the night level: music loudness (0..1), before ducking (docs/voice.md)
    voice_level: float = 1.0
    pause_s: float = 1.0          # silence between one line and the next (a human host leaves about a second)
    limit_dbtp: float = -3.0      # the mix's true-peak ceiling (a 2 ms look-ahead limiter), as each line's


@dataclass
class _Line:
    clip: np.ndarray
    text: str
    onset: Future[float]
    pause: bool = True            # waits for the pause after the previous line (cues do not)
    position: int = 0


class Mixer:
    def __init__(self, settings: MixSettings = MixSettings(), music: MusicSource | None = None) -> None:
        self.settings = settings
        self.music = music
        self._pending: collections.deque[_Line] = collections.deque()
        self._started: collections.deque[tuple[_Line, float]] = collections.deque()
        self._current: _Line | None = None
        self._duck = 1.0                       # current ducking gain of the music's low band
        self._duck_top = 1.0                   # … and of the top of its speech band (the count only)
        self._fade = 0.0                       # current night-music fade gain
        self._fade_target = 0.0
        self._duck_floor = 10 ** (settings.duck_db / 20)
        self._count_floor = 10 ** (settings.count_duck_db / 20)
        self._count_top_floor = 10 ** (settings.count_top_duck_db / 20)
        self._attack = int(settings.duck_attack_s * settings.samplerate)
        self._held = False                     # the night count: numbers duck the speech band to the count floor
        self._counting = False                 # a number of the count has started: the next ones need no pause
        self._pause = int(settings.pause_s * settings.samplerate)
        self._quiet = _QUIET_CAP               # samples since the last line ended
        n = settings.max_block
        self._music_buf = np.zeros(n, dtype=np.float32)
        self._top_buf = np.zeros(n, dtype=np.float32)
        self._treble_buf = np.zeros(n, dtype=np.float32)
        self.limiter = Limiter(settings.samplerate, n, settings.limit_dbtp)
        self._banded = callable(getattr(music, "read_bands", None))
        #: For measuring only (``bench mix``, never a live output): (time, the block's music as
        #: mixed, the night fade at its end) for each block rendered while night music plays.
        self.music_stem: list[tuple[float, np.ndarray, float]] | None = None
        self._gain_buf = np.zeros(n, dtype=np.float32)
        self._ramp = (np.arange(1, n + 1, dtype=np.float32))
        self.subtitles: collections.deque[tuple[float, str]] = collections.deque(maxlen=1000)
        self._stop = threading.Event()
        self._line_started = threading.Event()   # wakes the notifier: no polling while the table is idle
        # Set by say() and night(): the null output sleeps on it while the mixer is idle (see idle()).
        self.woken = threading.Event()
        self._notifier = threading.Thread(target=self._notify, name="voicehost-onsets", daemon=True)
        self._notifier.start()

    # ---- the control side (any thread) ----------------------------------------------------

    def say(self, clip: np.ndarray, text: str = "", pause: bool = True) -> Future[float]:
        """Queue a line; the future gives the monotonic time its first sample reached the device.
        With ``pause`` it starts no sooner than ``pause_s`` after the previous line ended."""
        line = _Line(np.asarray(clip, dtype=np.float32), text, Future(), pause)
        if self._stop.is_set():
            line.onset.cancel()   # closed: nothing will ever play it
            return line.onset
        self._pending.append(line)
        self.woken.set()
        return line.onset

    def hold(self, on: bool) -> None:
        """The night count begins (on) or ends: its first number waits for the pause like any
        line, the next follow without one; each ducks the low band to ``count_duck_db`` and the
        top of the speech band to ``count_top_duck_db``."""
        self._held = on
        self._counting = False

    def night(self, on: bool) -> None:
        """Night music: fade in at «Наступает ночь», fade out at the morning line."""
        self._fade_target = 1.0 if on else 0.0
        self.woken.set()

    def close(self) -> None:
        """Stop; a line still waiting for its onset is cancelled, so whoever waits on it (a
        voice in an executor thread) returns at once instead of at its timeout."""
        self._stop.set()
        self._line_started.set()
        self.woken.set()
        self._notifier.join(timeout=2)
        current = self._current
        for line in [*list(self._pending), *([current] if current is not None else []),
                     *(line for line, _ in list(self._started))]:
            line.onset.cancel()

    def idle(self) -> bool:
        """Nothing playing, nothing queued, no music and the duck at rest: every block rendered
        from now on would be silence, until say() or night() sets :attr:`woken`."""
        return (self._current is None and not self._pending and self._fade == 0.0 and self._fade_target == 0.0
                and self._duck == 1.0 and self._duck_top == 1.0 and not self.limiter.holding())

    def skip(self, frames: int) -> None:
        """``frames`` of silence that an idle output did not render: the pause after the last
        line goes on through them as if they had been played."""
        self._quiet = min(self._quiet + frames, _QUIET_CAP)

    # ---- the callback side -------------------------------------------------------------------

    def render(self, out: np.ndarray, dac_time: float) -> None:
        """Fill ``out`` (float32, mono) with the next block; ``dac_time`` is when its first
        sample will reach the device (monotonic seconds) — its sound, the limiter's delay later."""
        frames = len(out)
        out.fill(0.0)
        music_on = self._fade > 0.0 or self._fade_target > 0.0
        voice_due = self._voice_due(frames)
        low_floor, top_floor = self._floors()
        # at the start of this block
        ducked = self._duck <= low_floor * 1.01 and self._duck_top <= top_floor * 1.01
        self._mix_music(out, frames, voice_due)
        delayed = dac_time + self.limiter.delay_s
        if self.music_stem is not None and music_on:
            self.music_stem.append((delayed, out.copy(), self._fade))
        if voice_due and (not music_on or ducked):
            self._mix_voice(out, frames, delayed)
        else:
            self._quiet = min(self._quiet + frames, _QUIET_CAP)
        self.limiter.process(out)
        np.clip(out, -SAFE_PEAK, SAFE_PEAK, out=out)  # a last guard

    def _voice_due(self, frames: int) -> bool:
        """A line is playing, or the next one is due within the duck's attack (and this block):
        the music goes down just in time, not through the pause before it."""
        if self._current is not None:
            return True
        if not self._pending:
            return False
        wait = self._pause - self._quiet if self._pending[0].pause and not self._counting else 0
        return wait <= self._attack + frames

    def _floors(self) -> tuple[float, float]:
        """The low band's and the top of the speech band's gains under a line (or a number)."""
        if self._held:
            return self._count_floor, self._count_top_floor
        return self._duck_floor, 1.0

    def _mix_music(self, out: np.ndarray, frames: int, voice_due: bool) -> None:
        rate = self.settings.samplerate
        low_floor, top_floor = self._floors()
        release = self.settings.count_release_s if self._held else self.settings.duck_release_s
        duck_end = self._envelope(self._duck, low_floor if voice_due else 1.0, 1.0 - low_floor, release, frames)
        top_end = self._envelope(self._duck_top, top_floor if voice_due else 1.0, 1.0 - self._count_top_floor,
                                 release, frames)
        fade_end = _toward(self._fade, self._fade_target, frames / rate / self.settings.fade_s)
        if self.music is None or (self._fade == 0.0 and fade_end == 0.0):
            self._duck, self._duck_top, self._fade = duck_end, top_end, fade_end
            return
        music = self._music_buf[:frames]
        level = self.settings.music_level
        if self._banded:
            top, treble = self._top_buf[:frames], self._treble_buf[:frames]
            self.music.read_bands(music, top, treble)  # type: ignore[attr-defined]
            self._add_ramped(out, treble, self._fade * level, fade_end * level)
            self._add_ramped(out, top, self._duck_top * self._fade * level, top_end * fade_end * level)
        else:
            self.music.read(music)
        self._add_ramped(out, music, self._duck * self._fade * level, duck_end * fade_end * level)
        self._duck, self._duck_top, self._fade = duck_end, top_end, fade_end

    def _envelope(self, gain: float, target: float, depth: float, release_s: float, frames: int) -> float:
        """A band's ducking gain at the end of this block: its whole ``depth`` (in gain) down in
        ``duck_attack_s``, back up in ``release_s`` (straight lines)."""
        step = depth * frames / self.settings.samplerate
        return _toward(gain, target, step / (self.settings.duck_attack_s if target < gain else release_s))

    def _add_ramped(self, out: np.ndarray, music: np.ndarray, start: float, end: float) -> None:
        """``music`` into ``out`` under a gain going from ``start`` to ``end`` over the block."""
        frames = len(music)
        gain = self._gain_buf[:frames]
        np.multiply(self._ramp[:frames], (end - start) / frames, out=gain)
        gain += start
        np.multiply(music, gain, out=music)
        out += music

    def _mix_voice(self, out: np.ndarray, frames: int, dac_time: float) -> None:
        written = 0
        while written < frames:
            line = self._current
            if line is None:
                if not self._pending:
                    self._quiet = min(self._quiet + frames - written, _QUIET_CAP)
                    return
                wait = self._pause - self._quiet if self._pending[0].pause and not self._counting else 0
                if wait >= frames - written:
                    self._quiet += frames - written
                    return
                if wait > 0:
                    written += wait
                    self._quiet += wait
                line = self._current = self._pending.popleft()
                if self._held and line.pause:
                    self._counting = True   # a cue in the count does not end it
                self._started.append((line, dac_time + written / self.settings.samplerate))
                self._line_started.set()
            take = min(frames - written, len(line.clip) - line.position)
            chunk = line.clip[line.position:line.position + take]
            if self.settings.voice_level == 1.0:
                out[written:written + take] += chunk
            else:
                out[written:written + take] += chunk * self.settings.voice_level
            line.position += take
            written += take
            if line.position >= len(line.clip):
                self._current = None
                # a cue is not a line: the pause after the last line goes on through it
                self._quiet = 0 if line.pause else min(self._quiet + len(line.clip), _QUIET_CAP)

    def _notify(self) -> None:
        while not self._stop.is_set():
            self._line_started.wait()
            self._line_started.clear()
            while self._started:
                line, onset = self._started.popleft()
                self.subtitles.append((onset, line.text))
                line.onset.set_result(onset)


SAFE_PEAK = 0.98
_QUIET_CAP = 1 << 28  # "a long time ago": the first line never waits for a pause


def _toward(value: float, target: float, step: float) -> float:
    if math.isclose(value, target):
        return target
    return min(target, value + step) if target > value else max(target, value - step)
