"""The night bed: a club's folder of WAV/FLAC/OGG files (shuffled, looped), or the built-in
night music (:mod:`audio.nightmusic`, generated bar by bar) when none is configured.

The bed's job is to hide the table — button clicks, rustling, whispers — which live at
1–8 kHz; :func:`masking_ratio` is the figure that says whether a bed (a club's music too)
can mask anything. :func:`ambient`, broadband pink noise made in the frequency domain, is
the previous built-in bed, kept as the reference a bed is measured against. The feed carries
each track's last partial block over into the next, so no samples are dropped where one
track (or bar) meets the next.

Decoding happens on a worker thread into a bounded deque of blocks; the mixer's callback
only copies from it (no file I/O, no locks in the callback).
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
                 ahead: int = 64, seed: int | None = None) -> None:
        self.samplerate = samplerate
        self.block = block
        self.ahead = ahead
        self.files = self._files(folder) if folder else []
        self.rng = random.Random(seed)
        self.blocks: collections.deque[np.ndarray] = collections.deque()
        self._current = np.zeros(0, dtype=np.float32)
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
        """Copy the next ``len(out)`` samples (callback side)."""
        filled = 0
        while filled < len(out):
            if self._position >= len(self._current):
                if not self.blocks:
                    out[filled:] = 0.0
                    self.underruns += 1
                    return
                self._current = self.blocks.popleft()
                self._position = 0
            take = min(len(out) - filled, len(self._current) - self._position)
            out[filled:filled + take] = self._current[self._position:self._position + take]
            self._position += take
            filled += take

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=2)

    def _produce(self) -> None:
        """Cut tracks into blocks; a track's last partial block is joined to the next track."""
        carry = np.zeros(0, dtype=np.float32)
        for track in self._tracks():
            track = np.concatenate([carry, track]) if len(carry) else track
            whole = len(track) - len(track) % self.block
            for start in range(0, whole, self.block):
                while len(self.blocks) >= self.ahead:
                    if self._stop.wait(self._refill_s):
                        return
                self.blocks.append(track[start:start + self.block])
            carry = track[whole:]
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
                yield resample(data.mean(axis=1), rate, self.samplerate)
