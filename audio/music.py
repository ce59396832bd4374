"""The night bed: a club's folder of WAV/FLAC/OGG files (shuffled, looped), or the built-in
night music (:mod:`audio.nightmusic`, generated bar by bar) when none is configured.

The bed's job is to hide the table — button clicks, rustling, whispers — which live at
1–8 kHz; :func:`masking_ratio` is the figure that says whether a bed (a club's music too)
can mask anything. :func:`ambient`, broadband pink noise made in the frequency domain, is
the previous built-in bed, kept as the reference a bed is measured against. The feed carries
each track's last partial block over into the next, so no samples are dropped where one
track (or bar) meets the next.

Decoding happens on a worker thread into a bounded deque of blocks; the mixer's callback
only copies from it (no file I/O, no locks in the callback). The worker also does what the
night's loudness plan needs (docs/voice.md): every track — a club's file or a bar of the
built-in music — is split at ``line_split_hz`` and ``split_hz`` into three bands (the low
band under a line's speech, the top of the speech band, the treble: the mixer ducks each its
own way, and never the treble), and a club's track is brought to the built-in music's loudness
(:data:`MUSIC_LUFS`), so the night level means the same whatever plays.
"""

from __future__ import annotations

import collections
import random
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from .messages import _
from .nightmusic import NightMusic
from .tts import resample

EXTENSIONS = (".wav", ".flac", ".ogg")
MUSIC_LUFS = -13.5       # the built-in night music's loudness before the night level; a club's tracks too
CROSSOVER_OCTAVES = 0.5  # the split's transition, centred on split_hz: short in time, no ringing
SPLIT_CHUNK_S = 10.0     # a long track is split this much at a time
SPLIT_PAD_S = 0.1        # with this much of its neighbours around each chunk
TREBLE_PEAK = 0.2        # the treble's peaks, softly limited: it is never ducked, so a line's peak
#                          (−3 dBTP) over a hi-hat's must still stay under full scale


def split_bands(track: np.ndarray, samplerate: int, *splits: float) -> np.ndarray:
    """``track`` as one row more than ``splits`` (rising frequencies): under the first split,
    between each two, over the last; they sum back to it exactly. Each split is a
    zero-phase crossover (a raised cosine over half an octave, in the frequency domain). A long
    track (a club's file) is split :data:`SPLIT_CHUNK_S` at a time, each chunk filtered with
    :data:`SPLIT_PAD_S` of its neighbours on either side (the filter's response is a few ms
    long), so a five-minute file never needs its whole spectrum in memory at once."""
    samples = np.asarray(track, dtype=np.float32)
    chunk, pad = int(SPLIT_CHUNK_S * samplerate), int(SPLIT_PAD_S * samplerate)
    under = [np.empty_like(samples) for _ in splits]   # everything under each split
    for start in range(0, len(samples), chunk):
        begin, end = max(0, start - pad), min(len(samples), start + chunk + pad)
        keep = slice(start - begin, start - begin + min(chunk, len(samples) - start))
        for row, split_hz in zip(under, splits, strict=True):
            row[start:start + chunk] = _low_band(samples[begin:end], samplerate, split_hz)[keep]
    edges = [np.zeros_like(samples), *under, samples]
    return np.stack([high - low for low, high in zip(edges, edges[1:], strict=False)])


def _low_band(samples: np.ndarray, samplerate: int, split_hz: float) -> np.ndarray:
    freqs = np.fft.rfftfreq(len(samples), 1 / samplerate)
    position = np.clip(np.log2(np.maximum(freqs, 1.0) / split_hz) / CROSSOVER_OCTAVES + 0.5, 0.0, 1.0)
    gain = 0.5 * (1 + np.cos(np.pi * position))
    return np.fft.irfft(np.fft.rfft(samples.astype(np.float64)) * gain, len(samples)).astype(np.float32)


def soften_treble(bands: np.ndarray) -> np.ndarray:
    """The treble row's (the last row's) peaks brought softly under :data:`TREBLE_PEAK` (a hi-hat's crack, not
    its body: the noise-like treble keeps its level, and so its masking)."""
    bands[-1] = TREBLE_PEAK * np.tanh(bands[-1] / TREBLE_PEAK)
    return bands


def to_music_loudness(track: np.ndarray, samplerate: int) -> np.ndarray:
    """A club's track at :data:`MUSIC_LUFS` (integrated, BS.1770), peaks kept under full scale."""
    from .level import loudness

    measured = loudness(track, samplerate)
    if not np.isfinite(measured):
        return np.asarray(track, dtype=np.float32)
    scaled = np.asarray(track, dtype=np.float32) * np.float32(10 ** ((MUSIC_LUFS - measured) / 20))
    peak = float(np.max(np.abs(scaled)))
    return scaled / np.float32(peak / 0.98) if peak > 0.98 else scaled


class MusicUnavailable(RuntimeError):
    pass


def ambient(samplerate: int, seconds: float = 24.0, seed: int = 7) -> np.ndarray:
    """Pink noise from 60 Hz to 12 kHz with a slow swell, over a quiet low drone; every
    component repeats a whole number of times per loop, so the end meets the start."""
    rng = np.random.default_rng(seed)
    n = int(samplerate * seconds)
    freqs = np.fft.rfftfreq(n, 1 / samplerate)
    shape = np.zeros_like(freqs)
    band = (freqs >= 60) & (freqs <= 12000)
    shape[band] = 1 / np.sqrt(freqs[band])  # amplitude ∝ f^-1/2: power ∝ 1/f (pink)
    edges = np.clip((freqs - 40) / 20, 0, 1) * np.clip((14000 - freqs) / 2000, 0, 1)
    spectrum = shape * edges * np.exp(2j * np.pi * rng.random(len(freqs)))
    noise = np.fft.irfft(spectrum, n)
    t = np.arange(n) / samplerate
    swell = 0.8 + 0.2 * np.sin(2 * np.pi * 3 * t / seconds)  # three slow swells per loop
    drone = sum(np.sin(2 * np.pi * round(f * seconds) / seconds * t) for f in (55.0, 82.41, 110.0))
    bed = noise / np.sqrt(np.mean(noise ** 2)) * swell + 0.25 * drone / np.sqrt(np.mean(drone ** 2))
    return np.asarray(bed / np.max(np.abs(bed)) * 0.9, dtype=np.float32)


def band_energy(clip: np.ndarray, samplerate: int, low: float, high: float) -> float:
    spectrum = np.abs(np.fft.rfft(np.asarray(clip, dtype=np.float64))) ** 2
    freqs = np.fft.rfftfreq(len(clip), 1 / samplerate)
    return float(spectrum[(freqs >= low) & (freqs < high)].sum())


def masking_ratio(clip: np.ndarray, samplerate: int) -> float:
    """dB of the bed's energy in 1–8 kHz (clicks, rustling, whispers) against its energy in
    the voice band (300 Hz–3.4 kHz): about 0 dB for pink noise, −20 dB and below for a bed
    that is all bass and cannot hide a tap."""
    return float(10 * np.log10(band_energy(clip, samplerate, 1000, 8000)
                               / max(band_energy(clip, samplerate, 300, 3400), 1e-20)))


class MusicFeed:
    """Blocks of night music, produced ahead on a worker thread."""

    def __init__(self, samplerate: int, folder: str | Path | None = None, block: int = 2048,
                 ahead: int = 64, seed: int | None = None, split_hz: float = 3400.0,
                 line_split_hz: float = 2000.0) -> None:
        self.samplerate = samplerate
        self.split_hz = split_hz
        self.line_split_hz = line_split_hz
        self.block = block
        self.ahead = ahead
        self.files = self._files(folder) if folder else []
        self.rng = random.Random(seed)
        self.blocks: collections.deque[np.ndarray] = collections.deque()   # rows: low, top of speech, treble
        self._current = np.zeros((3, 0), dtype=np.float32)
        self._position = 0
        self.underruns = 0
        # A full queue is looked at again after a quarter of what it holds plays (at most 0.25 s):
        # no 10 ms polling all evening while no night music plays (issue 30), and still ahead.
        self._refill_s = min(0.25, block * ahead / samplerate / 4)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._produce, name="voicehost-music", daemon=True)
        self._thread.start()

    @staticmethod
    def _files(folder: str | Path) -> list[Path]:
        path = Path(folder)
        if not path.is_dir():
            raise MusicUnavailable(_("{folder}: not a folder").format(folder=folder))
        files = sorted(p for p in path.rglob("*") if p.suffix.lower() in EXTENSIONS)
        if not files:
            raise MusicUnavailable(_("{folder}: no .wav, .flac or .ogg files").format(folder=folder))
        return files

    def read(self, out: np.ndarray) -> None:
        """Copy the next ``len(out)`` samples, the bands summed (callback side)."""
        self._copy(out, None, None)

    def read_bands(self, low: np.ndarray, mid: np.ndarray, high: np.ndarray) -> None:
        """Copy the next ``len(low)`` samples, the three bands apart (callback side)."""
        self._copy(low, mid, high)

    def _copy(self, low: np.ndarray, mid: np.ndarray | None, high: np.ndarray | None) -> None:
        filled = 0
        while filled < len(low):
            if self._position >= self._current.shape[1]:
                if not self.blocks:
                    low[filled:] = 0.0
                    if mid is not None and high is not None:
                        mid[filled:] = 0.0
                        high[filled:] = 0.0
                    self.underruns += 1
                    return
                self._current = self.blocks.popleft()
                self._position = 0
            take = min(len(low) - filled, self._current.shape[1] - self._position)
            rows = self._current[:, self._position:self._position + take]
            low[filled:filled + take] = rows[0]
            if mid is None or high is None:
                low[filled:filled + take] += rows[1]
                low[filled:filled + take] += rows[2]
            else:
                mid[filled:filled + take] = rows[1]
                high[filled:filled + take] = rows[2]
            self._position += take
            filled += take

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=2)

    def _produce(self) -> None:
        """Cut tracks into blocks; a track's last partial block is joined to the next track."""
        carry = np.zeros((3, 0), dtype=np.float32)
        for mono in self._tracks():
            bands = soften_treble(split_bands(mono, self.samplerate, self.line_split_hz, self.split_hz))
            track = np.concatenate([carry, bands], axis=1) if carry.shape[1] else bands
            whole = track.shape[1] - track.shape[1] % self.block
            for start in range(0, whole, self.block):
                while len(self.blocks) >= self.ahead:
                    if self._stop.wait(self._refill_s):
                        return
                self.blocks.append(track[:, start:start + self.block])
            carry = track[:, whole:]
            if self._stop.is_set():
                return

    def _tracks(self) -> Iterator[np.ndarray]:
        if not self.files:
            yield from NightMusic(self.samplerate, self.rng.randrange(2 ** 32)).bars()
        import soundfile
        while True:
            order = list(self.files)
            self.rng.shuffle(order)
            for path in order:
                try:
                    data, rate = soundfile.read(str(path), dtype="float32", always_2d=True)
                except Exception:  # a broken file is skipped, the music goes on
                    time.sleep(0.01)
                    continue
                yield to_music_loudness(resample(data.mean(axis=1), rate, self.samplerate), self.samplerate)
