"""The mix's last stage: a look-ahead peak limiter, so the table never hears the voice and the
night music add up over the ceiling (−3 dBTP, as every line alone is).

Why look ahead: a limiter that reacts to a peak once it has arrived either clips it or pumps;
delaying the sound by :attr:`Limiter.delay_s` (2 ms) lets the gain glide down before the peak
reaches the speaker. The delay is fixed, so the mixer adds it to every onset it reports.

How (in the output callback: preallocated buffers, ``out=`` everywhere): the delayed signal
is cut into chunks of half the look-ahead; each chunk's peak is the largest of its samples and
of the points halfway between them (a six-tap interpolation: the inter-sample peaks that a
true-peak meter sees at 4× oversampling are mostly there). Each chunk needs a gain of at most
ceiling / peak; the gain at a chunk's edge is the smaller need of the two chunks it joins, and
it moves in a straight line across a chunk, so every sample of a chunk is under that chunk's
need. It rises back by at most :attr:`Limiter.release_db_s` dB per second.
"""

from __future__ import annotations

import math

import numpy as np

#: A half-sample delay's taps, from the nearest pair of samples out (a Hann-windowed sinc, DC gain 1).
_HALF = (0.60267247, -0.11721084, 0.01453837)
#: What the halfway points miss of a true peak (the quarter points, the treble near 20 kHz):
#: the night music over a loud line reads up to 0.15 dB over them.
_MISSED_DB = 0.25


class Limiter:
    def __init__(self, samplerate: int, max_block: int, ceiling_dbtp: float = -3.0, lookahead_s: float = 0.002,
                 release_db_s: float = 200.0) -> None:
        self.chunk = max(2, int(round(lookahead_s * samplerate / 2)))
        self.delay = 2 * self.chunk
        self.delay_s = self.delay / samplerate
        self.ceiling = 10 ** ((ceiling_dbtp - _MISSED_DB) / 20)
        self.release_db_s = release_db_s
        self._rise = 10 ** (release_db_s * self.chunk / samplerate / 20)   # per chunk
        size = max_block + self.delay + 2 * self.chunk
        self._buf = np.zeros(size, dtype=np.float32)
        self._peak = np.zeros(size, dtype=np.float32)
        self._middle = np.zeros(size, dtype=np.float32)
        self._other = np.zeros(size, dtype=np.float32)
        self._chunk_peaks = np.zeros(size // self.chunk + 1, dtype=np.float32)
        self._edges = [1.0] * (size // self.chunk + 2)
        self._ramp = np.arange(self.chunk, dtype=np.float32) / self.chunk
        self._gain = 1.0

    def holding(self) -> bool:
        """Sound still in the delay line (the output must not fall idle before it plays)."""
        return bool(np.any(self._buf[:self.delay]))

    def process(self, block: np.ndarray) -> None:
        """``block`` in place: the input is delayed by :attr:`delay` samples and limited."""
        n, delay = len(block), self.delay
        total = delay + n
        count = math.ceil(total / self.chunk)
        self._buf[delay:total] = block
        self._buf[total:count * self.chunk + 3] = 0.0
        peaks = self._peaks(count)
        if self._gain >= 1.0 and float(peaks.max()) <= self.ceiling:
            block[:] = self._buf[:n]
        else:
            self._apply(block, peaks)
        self._buf[:delay] = self._buf[n:total]

    def _peaks(self, count: int) -> np.ndarray:
        """Each chunk's peak: its samples and the points halfway between them (a six-tap
        windowed sinc: where a true-peak meter finds what the samples miss)."""
        size = count * self.chunk
        buf, peak = self._buf, self._peak[:size]
        middle, other = self._middle[:size - 5], self._other[:size - 5]
        np.multiply(buf[2:size - 3], 0.0, out=middle)   # the point between buf[i + 2] and buf[i + 3]
        for taps, coefficient in ((2, _HALF[0]), (1, _HALF[1]), (0, _HALF[2])):
            np.add(buf[taps:size - 5 + taps], buf[5 - taps:size - taps], out=other)
            other *= coefficient
            middle += other
        np.abs(middle, out=middle)
        np.abs(buf[:size], out=peak)
        np.maximum(peak[2:size - 3], middle, out=peak[2:size - 3])
        np.maximum(peak[3:size - 2], middle, out=peak[3:size - 2])
        peaks = self._chunk_peaks[:count]
        np.max(peak.reshape(count, self.chunk), axis=1, out=peaks)
        return peaks

    def _apply(self, block: np.ndarray, peaks: np.ndarray) -> None:
        """Gains at the chunks' edges (each under both chunks' needs), straight lines between."""
        need = [min(1.0, self.ceiling / p) if p > 0 else 1.0 for p in peaks.tolist()]
        edges = self._edges
        edges[0] = min(self._gain, need[0])
        for b in range(1, len(need) + 1):
            edges[b] = min(need[b - 1], need[min(b, len(need) - 1)], edges[b - 1] * self._rise)
        n, chunk = len(block), self.chunk
        for q in range(math.ceil(n / chunk)):
            start, end = q * chunk, min(n, (q + 1) * chunk)
            part = block[start:end]
            np.multiply(self._ramp[:end - start], edges[q + 1] - edges[q], out=part)
            part += edges[q]
            part *= self._buf[start:end]
        q, k = divmod(n, chunk)
        self._gain = edges[q] + (edges[q + 1] - edges[q]) * k / chunk
