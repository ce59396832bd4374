"""Short non-verbal cues: a speech starts, ten seconds are left, time is up, a vote window
opens and closes. A beep does not talk over a speaker the way «Десять секунд» does.

Each cue is generated here (soft sine notes with a raised-cosine envelope, so no click) and
brought to one loudness a little under the voice's; a club replaces any of them with its own
sound file (see ``[cues]`` in a table file).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping
from pathlib import Path

import numpy as np

from .level import normalize
from .messages import _
from .tts import CHAIN_VERSION, resample

# name → the notes: (frequency in Hz, seconds) each; 0 Hz is a rest.
NOTES: dict[str, tuple[tuple[float, float], ...]] = {
    "speech_start": ((660.0, 0.09), (0.0, 0.03), (880.0, 0.14)),             # up: you have the floor
    "ten_seconds": ((1046.5, 0.08), (0.0, 0.08), (1046.5, 0.08)),             # two short pips
    "time_up": ((880.0, 0.12), (0.0, 0.03), (659.3, 0.12), (0.0, 0.03), (523.3, 0.26)),  # down: time is over
    "vote_open": ((1318.5, 0.12),),                                          # one high pip
    "vote_close": ((987.8, 0.10), (0.0, 0.03), (987.8, 0.10)),               # two lower pips
}
CUE_NAMES = tuple(NOTES)
CUE_LUFS_BELOW_VOICE = 4.0  # cues sit this far under the voice's loudness


class CueUnavailable(ValueError):
    pass


def tone(notes: tuple[tuple[float, float], ...], samplerate: int) -> np.ndarray:
    parts = []
    for freq, seconds in notes:
        n = int(seconds * samplerate)
        t = np.arange(n) / samplerate
        note = np.sin(2 * np.pi * freq * t) + 0.25 * np.sin(4 * np.pi * freq * t) if freq else np.zeros(n)
        ramp = min(n // 2, int(0.01 * samplerate))
        if ramp:
            fade = 0.5 - 0.5 * np.cos(np.linspace(0, np.pi, ramp))
            note[:ramp] *= fade
            note[-ramp:] *= fade[::-1]
        parts.append(note)
    return np.concatenate(parts).astype(np.float32)


def load_cues(samplerate: int, files: Mapping[str, str], voice_lufs: float, ceiling_dbtp: float,
              cache: Path | None = None) -> dict[str, np.ndarray]:
    """Every cue as a clip at ``samplerate``: the club's file where given, else generated.

    Normalizing needs scipy and pyloudnorm, about 75 MB of a Pi's memory for as long as the
    process lives; with a ``cache`` folder a table that starts again reads the finished cues
    instead (keyed by everything that shapes them), so an idle table never loads them."""
    cues = {}
    for name, notes in NOTES.items():
        cached = cue_file(name, samplerate, files, voice_lufs, ceiling_dbtp, cache) if cache is not None else None
        if cached is not None and cached.is_file():
            cues[name] = np.load(cached)
            continue
        clip = _read(files[name], samplerate) if name in files else tone(notes, samplerate)
        cues[name] = normalize(clip, samplerate, voice_lufs - CUE_LUFS_BELOW_VOICE, ceiling_dbtp)
        if cached is not None:
            _store(cached, cues[name])
    return cues


def cue_file(name: str, samplerate: int, files: Mapping[str, str], voice_lufs: float, ceiling_dbtp: float,
             cache: Path) -> Path:
    """Where the finished cue ``name`` is cached: keyed by everything that shapes it."""
    own = Path(files[name]) if name in files else None
    source = own.read_bytes() if own is not None and own.is_file() else repr(NOTES[name]).encode()
    key = hashlib.sha256(repr((name, source, samplerate, voice_lufs, ceiling_dbtp, CHAIN_VERSION)).encode())
    return cache / f"{name}-{key.hexdigest()[:16]}.npy"


def cues_cached(samplerate: int, files: Mapping[str, str], voice_lufs: float, ceiling_dbtp: float,
                cache: Path) -> bool:
    """Whether every cue is in the cache already (:func:`load_cues` then loads no scipy)."""
    return all(cue_file(name, samplerate, files, voice_lufs, ceiling_dbtp, cache).is_file() for name in NOTES)


def _store(path: Path, clip: np.ndarray) -> None:
    """Whole or not at all: two tables starting at once may write the same cue."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        part = path.with_name(f"{path.stem}.{os.getpid()}.part.npy")
        np.save(part, clip)
        part.replace(path)
    except OSError:
        pass  # a read-only cache only costs the next start the normalizing again


def _read(path: str, samplerate: int) -> np.ndarray:
    import soundfile
    if not Path(path).is_file():
        raise CueUnavailable(_("{path}: no such file").format(path=path))
    try:
        data, rate = soundfile.read(path, dtype="float32", always_2d=True)
    except Exception as err:
        raise CueUnavailable(_("{path}: not a sound file soundfile can read ({error})").format(
            path=path, error=err)) from None
    if len(data) == 0:
        raise CueUnavailable(_("{path}: empty").format(path=path))
    return resample(data.mean(axis=1), rate, samplerate)
