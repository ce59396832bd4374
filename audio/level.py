"""One loudness for every line: ITU-R BS.1770 loudness (pyloudnorm), a gentle compressor so
soft syllables carry in a noisy room, and a look-ahead true-peak limiter so no line (and no
line over the night bed) reaches full scale.

All of it runs once per line when the line is rendered (then cached), never in the mixer's
callback.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np

from .resample import resample_poly

# scipy (over half a second to import) is imported where a line is rendered, not here: every
# ``voicehost`` command reaches this module through the table file, and most render nothing.

OVERSAMPLE = 4          # true peak is estimated on a 4× oversampled signal (as BS.1770 asks)
LOOKAHEAD_S = 0.005     # the limiter sees a peak this early and turns down smoothly into it
MIN_BLOCK_S = 0.4       # BS.1770 gates 400 ms blocks: shorter clips are measured looped


def loudness(clip: np.ndarray, rate: int) -> float:
    """Integrated loudness in LUFS (−inf for silence)."""
    samples = np.asarray(clip, dtype=np.float64)
    if len(samples) == 0 or not np.any(samples):
        return float("-inf")
    need = int(MIN_BLOCK_S * rate) + 1
    if len(samples) < need:
        samples = np.tile(samples, need // len(samples) + 1)
    return float(_meter(rate).integrated_loudness(samples))


@lru_cache(maxsize=8)
def _meter(rate: int) -> Any:
    import pyloudnorm
    return pyloudnorm.Meter(rate)


def true_peak_db(clip: np.ndarray) -> float:
    """The highest inter-sample peak in dBTP."""
    if len(clip) == 0:
        return float("-inf")
    peak = float(np.max(np.abs(_oversampled_peaks(np.asarray(clip, dtype=np.float64)))))
    return 20 * np.log10(peak) if peak > 0 else float("-inf")


def _oversampled_peaks(samples: np.ndarray) -> np.ndarray:
    """Per original sample, the largest magnitude among its oversampled neighbours."""
    up = np.abs(resample_poly(samples, OVERSAMPLE, 1))
    return np.asarray(up[: len(samples) * OVERSAMPLE].reshape(len(samples), OVERSAMPLE).max(axis=1))


def compress(clip: np.ndarray, rate: int, threshold_db: float = -24.0, ratio: float = 2.5,
             window_s: float = 0.02) -> np.ndarray:
    """Feed-forward RMS compression above ``threshold_db`` (dBFS): loud vowels come down,
    consonants and word endings stay, so after normalizing the soft parts are louder."""
    from scipy.ndimage import uniform_filter1d
    samples = np.asarray(clip, dtype=np.float64)
    power = uniform_filter1d(samples ** 2, max(1, int(window_s * rate)), mode="nearest")
    level_db = 10 * np.log10(power + 1e-12)
    over = np.maximum(level_db - threshold_db, 0.0)
    gain_db = -over * (1 - 1 / ratio)
    return np.asarray(samples * 10 ** (gain_db / 20), dtype=np.float32)


def limit(clip: np.ndarray, rate: int, ceiling_dbtp: float) -> np.ndarray:
    """Look-ahead limiter: the gain reaches its minimum before each over-ceiling true peak and
    never jumps (a moving minimum, then a moving average of half its width)."""
    from scipy.ndimage import minimum_filter1d, uniform_filter1d
    samples = np.asarray(clip, dtype=np.float64)
    ceiling = 10 ** (ceiling_dbtp / 20)
    peaks = _oversampled_peaks(samples)
    needed = np.minimum(1.0, ceiling / np.maximum(peaks, 1e-12))
    width = max(1, int(LOOKAHEAD_S * rate))
    gain = uniform_filter1d(minimum_filter1d(needed, 2 * width + 1, mode="nearest"), width, mode="nearest")
    return np.asarray(np.clip(samples * gain, -ceiling, ceiling), dtype=np.float32)


def normalize(clip: np.ndarray, rate: int, target_lufs: float, ceiling_dbtp: float) -> np.ndarray:
    """Compress, bring to ``target_lufs``, limit to ``ceiling_dbtp``; twice, because the
    limiter takes a little loudness away from a peaky line."""
    if len(clip) == 0 or not np.any(clip):
        return np.asarray(clip, dtype=np.float32)
    out = compress(clip, rate)
    for _ in range(2):
        measured = loudness(out, rate)
        if np.isfinite(measured):
            out = (out * 10 ** ((target_lufs - measured) / 20)).astype(np.float32)
        out = limit(out, rate, ceiling_dbtp)
    return out


def over_the_bed(clips: list[np.ndarray], bed: np.ndarray, rate: int, every_s: float = 1.13) -> list[float]:
    """How far each spoken clip stands over the bed it is said over, in LU: clip ``k`` is laid
    at ``k * every_s`` seconds into ``bed`` (the bed as the mixer plays it: level and duck
    applied) and measured against that very stretch, so a beat under a number counts."""
    figures = []
    for k, clip in enumerate(clips):
        start = int(k * every_s * rate) % max(1, len(bed) - len(clip))
        under = bed[start:start + len(clip)]
        figures.append(loudness(clip, rate) - loudness(under, rate))
    return figures
