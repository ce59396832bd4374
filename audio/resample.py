"""Polyphase resampling in NumPy alone, the same filter as ``scipy.signal.resample_poly``'s
default (a Kaiser-windowed sinc, β = 5, ten zero crossings each side of the slower rate).

Every cached line is stored at espeak-ng's rate and brought to the mix's rate as it is read,
so a table that only plays cached lines resamples all evening. Doing it here instead of in
scipy keeps scipy.signal (and the optimize, linalg and special modules it pulls in, about
75 MB) out of a Pi's memory unless a line is actually rendered.
"""

from __future__ import annotations

from functools import lru_cache
from math import gcd

import numpy as np

KAISER_BETA = 5.0
ZERO_CROSSINGS = 10


@lru_cache(maxsize=8)
def _phases(up: int, down: int) -> np.ndarray:
    """The filter split by phase: row p holds the taps p, p + up, p + 2·up, … that an output
    sample p/up of an input sample past its newest input sample uses (gain ``up``)."""
    max_rate = max(up, down)
    half = ZERO_CROSSINGS * max_rate
    taps = 2 * half + 1
    cutoff = 1.0 / max_rate                     # of the upsampled rate's Nyquist frequency
    centre = np.arange(taps) - half
    h = cutoff * np.sinc(cutoff * centre) * np.kaiser(taps, KAISER_BETA)
    h = h / h.sum() * up
    reach = -(-taps // up)                       # input samples any output sample depends on
    padded = np.zeros(reach * up)
    padded[:taps] = h
    return np.ascontiguousarray(padded.reshape(reach, up).T)


def resample_poly(samples: np.ndarray, up: int, down: int) -> np.ndarray:
    """``samples`` at ``up/down`` times their rate (float64), time-aligned as scipy's is: output
    sample n sits at input time n·down/up."""
    common = gcd(up, down)
    up, down = up // common, down // common
    x = np.asarray(samples, dtype=np.float64)
    if up == down == 1:
        return x.copy()
    phases = _phases(up, down)
    reach = phases.shape[1]
    half = ZERO_CROSSINGS * max(up, down)
    n_in = len(x)
    n_out = -(-n_in * up // down)                # ceil
    # Newest first: window[i] holds x[i], x[i-1], … x[i-reach+1], zeros before the start and after the end.
    padded = np.concatenate([np.zeros(reach - 1), x, np.zeros(reach + half // up + 1)])
    windows = np.lib.stride_tricks.sliding_window_view(padded, reach)[:, ::-1]
    out = np.empty(n_out)
    # Output samples n ≡ r (mod up) share one phase of the filter, and their newest inputs
    # step by ``down``: one strided matrix-vector product per residue r.
    for r in range(min(up, n_out)):
        t = r * down + half
        count = len(range(r, n_out, up))
        rows = windows[t // up: t // up + (count - 1) * down + 1: down]
        out[r::up] = rows @ phases[t % up]
    return out
