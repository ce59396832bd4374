"""Night music: a club's folder of WAV/FLAC/OGG files (shuffled, looped), or a generated
ambient track when none is configured, so a fresh install has music too.

Decoding happens on a worker thread into a bounded deque of blocks; the mixer's callback
only copies from it (no file I/O, no locks in the callback).
"""

from __future__ import annotations

import collections
import random
import threading
import time
from pathlib import Path

import numpy as np

from .tts import resample

EXTENSIONS = (".wav", ".flac", ".ogg")


class MusicUnavailable(RuntimeError):
    pass


def ambient(samplerate: int, seconds: float = 24.0, seed: int = 7) -> np.ndarray:
    """A dark, even drone (low chords and filtered noise) that loops without a click."""
    rng = np.random.default_rng(seed)
    t = np.arange(int(samplerate * seconds)) / samplerate
    track = np.zeros_like(t)
    for base, detune in ((55.0, 0.3), (82.41, -0.2), (110.0, 0.15), (130.81, 0.1)):
        freq = round((base + detune) * seconds) / seconds  # whole cycles per loop: no click
        swell = 0.6 + 0.4 * np.sin(2 * np.pi * t / seconds * rng.integers(1, 4))
        track += np.sin(2 * np.pi * freq * t) * swell
    noise = rng.standard_normal(len(t))
    kernel = np.ones(64) / 64
    track += np.convolve(noise, kernel, mode="same") * 3.0
    track /= np.max(np.abs(track))
    return (track * 0.9).astype(np.float32)


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
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._produce, name="voicehost-music", daemon=True)
        self._thread.start()

    @staticmethod
    def _files(folder: str | Path) -> list[Path]:
        path = Path(folder)
        if not path.is_dir():
            raise MusicUnavailable(f"{folder}: not a folder")
        files = sorted(p for p in path.rglob("*") if p.suffix.lower() in EXTENSIONS)
        if not files:
            raise MusicUnavailable(f"{folder}: no .wav, .flac or .ogg files")
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
        for track in self._tracks():
            for start in range(0, len(track) - self.block + 1, self.block):
                while len(self.blocks) >= self.ahead:
                    if self._stop.wait(0.01):
                        return
                self.blocks.append(track[start:start + self.block])
            if self._stop.is_set():
                return

    def _tracks(self):  # type: ignore[no-untyped-def]
        if not self.files:
            loop = ambient(self.samplerate)
            while True:
                yield loop
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
