"""Does the night music hide a seat button's press? A band-level masking model, used by
``voicehost bench mix``, the tests and the room check of ``voicehost voice test``.

The model (docs/voice.md, «The night's loudness plan»):

- **Bands.** One-third-octave bands, 250 Hz to 12.5 kHz (IEC 61260 nominal centres), from
  the FFT of a Hann-windowed stretch of :data:`WINDOW_S` (50 ms: the time over which a masker
  just before or after a click still hides it — forward and backward masking).
- **Levels in the room.** The mix is in dBFS; a club's room is tied to it by one figure: the
  host's voice at :data:`REFERENCE_VOICE_DBA` (68 dB(A) at the table, a raised conversational
  voice at 1 m). :func:`spl_offset` turns a line of the mix into that offset.
- **The tap.** :func:`tap` is *synthesised*, not recorded: a finger pressing a plastic
  tactile button — a click (a 0.8 ms decaying noise burst, most of its energy at 2–8 kHz,
  peaking near 4 kHz) on a softer thud (0.2–1 kHz, 15 dB under it) — brought to
  :data:`TAP_DBA` (55 dB(A), as a sound level meter on *Fast* reads it: its energy over 125 ms).
- **Masked.** In each band the masked threshold is the masker's band level (the music and
  the voice together, as the table hears them) minus :data:`MASKING_OFFSET_DB` (4 dB: a
  noise-like masker hides a signal in its own critical band up to about 4 dB under it), and
  never under the threshold in quiet (Terhardt's approximation of ISO 226). The margin of one
  tap is the smallest, over the bands, of threshold − tap level: ≥ 0 dB, the tap is hidden in
  every band; negative, it sticks out by that much in its most audible band.
"""

from __future__ import annotations

import numpy as np

WINDOW_S = 0.05
REFERENCE_VOICE_DBA = 68.0
TAP_DBA = 55.0
MASKING_OFFSET_DB = 4.0
FAST_S = 0.125
CENTRES = np.array([250, 315, 400, 500, 630, 800, 1000, 1250, 1600, 2000, 2500, 3150, 4000, 5000, 6300, 8000,
                    10000, 12500], dtype=np.float64)
EDGES = np.stack([CENTRES * 2 ** (-1 / 6), CENTRES * 2 ** (1 / 6)], axis=1)


def a_weighting_db(freqs: np.ndarray) -> np.ndarray:
    """IEC 61672 A-weighting in dB at ``freqs`` (Hz)."""
    f2 = np.maximum(np.asarray(freqs, dtype=np.float64), 1e-3) ** 2
    ra = (12194.0 ** 2 * f2 ** 2) / ((f2 + 20.6 ** 2) * np.sqrt((f2 + 107.7 ** 2) * (f2 + 737.9 ** 2))
                                      * (f2 + 12194.0 ** 2))
    return np.asarray(20 * np.log10(ra) + 2.0, dtype=np.float64)


def quiet_threshold_db(freqs: np.ndarray) -> np.ndarray:
    """The threshold in quiet, dB SPL (Terhardt 1979, an approximation of ISO 226)."""
    khz = np.asarray(freqs, dtype=np.float64) / 1000
    return np.asarray(3.64 * khz ** -0.8 - 6.5 * np.exp(-0.6 * (khz - 3.3) ** 2) + 1e-3 * khz ** 4)


def band_powers(clip: np.ndarray, rate: int, seconds: float | None = None) -> np.ndarray:
    """Mean-square power of ``clip`` in each band (full-scale units), as if spread over
    ``seconds`` (default: the clip's own length), so a short sound and a longer stretch of
    masker compare energy for energy over the same window."""
    samples = np.asarray(clip, dtype=np.float64)
    n = len(samples)
    spectrum = np.abs(np.fft.rfft(samples)) ** 2 * 2 / n ** 2   # Parseval: sums to the mean square
    freqs = np.fft.rfftfreq(n, 1 / rate)
    powers = np.array([spectrum[(freqs >= low) & (freqs < high)].sum() for low, high in EDGES])
    return np.asarray(powers * n / rate / (seconds or n / rate), dtype=np.float64)


def a_weighted_db(clip: np.ndarray, rate: int, seconds: float | None = None) -> float:
    """The A-weighted level of ``clip`` in dBFS (its energy spread over ``seconds``)."""
    samples = np.asarray(clip, dtype=np.float64)
    n = len(samples)
    spectrum = np.abs(np.fft.rfft(samples)) ** 2 * 2 / n ** 2
    weights = 10 ** (a_weighting_db(np.fft.rfftfreq(n, 1 / rate)) / 10)
    power = float((spectrum * weights).sum()) * n / rate / (seconds or n / rate)
    return float(10 * np.log10(max(power, 1e-20)))


def spl_offset(line: np.ndarray, rate: int, voice_dba: float = REFERENCE_VOICE_DBA) -> float:
    """dB to add to a level in dBFS for dB SPL in the room, where ``line`` (a line of the host's,
    as the mix plays it) is heard at ``voice_dba``."""
    return voice_dba - a_weighted_db(line, rate)


def tap(rate: int, seed: int = 3) -> np.ndarray:
    """A synthesised finger tap on a plastic tactile button, at 0 dB A-weighted *Fast* level in
    dBFS terms (scale it by :func:`tap_gain`). 125 ms long, the click 5 ms in."""
    rng = np.random.default_rng(seed)
    n = int(FAST_S * rate)
    t = np.arange(n) / rate
    freqs = np.fft.rfftfreq(n, 1 / rate)
    octaves = np.log2(np.maximum(freqs, 1.0) / 4000)
    click_shape = np.exp(-0.5 * (octaves / 0.9) ** 2)                        # 2–8 kHz, peak near 4 kHz
    thud_shape = 10 ** (-15 / 20) * np.exp(-0.5 * (np.log2(np.maximum(freqs, 1.0) / 450) / 0.8) ** 2)
    onset = int(0.005 * rate)
    click = np.fft.irfft(np.fft.rfft(rng.standard_normal(n)) * click_shape, n)
    thud = np.fft.irfft(np.fft.rfft(rng.standard_normal(n)) * thud_shape, n)
    envelope = np.where(t >= onset / rate, np.exp(-(t - onset / rate) / 0.0008), 0.0)
    thud_envelope = np.where(t >= onset / rate, np.exp(-(t - onset / rate) / 0.004), 0.0)
    sound = click * envelope + thud * thud_envelope
    return np.asarray(sound / 10 ** (a_weighted_db(sound, rate, FAST_S) / 20), dtype=np.float64)


def tap_gain(offset_db: float, tap_dba: float = TAP_DBA) -> float:
    """The factor that makes :func:`tap` read ``tap_dba`` in a room whose offset is ``offset_db``."""
    return float(10 ** ((tap_dba - offset_db) / 20))


def margin(masker: np.ndarray, tap_sound: np.ndarray, rate: int, offset_db: float) -> float:
    """dB by which ``tap_sound`` (scaled, placed at the middle of ``masker``, a 50 ms stretch of
    the mix) stays under the masked threshold in its most audible band (≥ 0: hidden)."""
    mask_db = 10 * np.log10(band_powers(masker, rate) + 1e-20) + offset_db
    tap_db = 10 * np.log10(band_powers(tap_sound, rate, WINDOW_S) + 1e-20) + offset_db
    threshold = np.maximum(mask_db - MASKING_OFFSET_DB, quiet_threshold_db(CENTRES))
    return float(np.min(threshold - tap_db))


def margins(mix: np.ndarray, rate: int, offset_db: float, at: list[float], tap_dba: float = TAP_DBA) -> list[float]:
    """The margin of a ``tap_dba`` tap at each time of ``at`` (s) in ``mix``."""
    sound = tap(rate) * tap_gain(offset_db, tap_dba)
    half = int(WINDOW_S * rate / 2)
    found = []
    for t in at:
        middle = int(t * rate)
        if middle - half >= 0 and middle + half <= len(mix):
            found.append(margin(mix[middle - half:middle + half], sound, rate, offset_db))
    return found


def with_taps(mix: np.ndarray, rate: int, offset_db: float, at: list[float], tap_dba: float = TAP_DBA) -> np.ndarray:
    """``mix`` with a ``tap_dba`` tap whose click falls at each time of ``at`` (s): what the
    table hears when the mafia presses (the excerpts in docs/audio, ``voice night``)."""
    sound = (tap(rate) * tap_gain(offset_db, tap_dba)).astype(np.float32)
    click = int(0.005 * rate)   # the tap's click is 5 ms into its clip
    out = np.array(mix, dtype=np.float32)
    for t in at:
        start = max(0, int(t * rate) - click)
        end = min(len(out), start + len(sound))
        out[start:end] += sound[:end - start]
    return out
