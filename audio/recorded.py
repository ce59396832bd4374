"""A club's own recorded host: a folder with ``script.tsv`` (``name<TAB>text`` per row, as
``voicehost voice script`` writes it) and ``NAME.wav`` files. A line is said from the
recordings when it is recorded whole, or when it can be cut, word for word, into recorded
fragments («Кандидатура номер» + «семь» + «принята.»); otherwise the caller falls back to
espeak-ng. Fragments are trimmed of their silent edges, joined with short crossfades (no
clicks) and the joined line is brought to the voice's loudness.
"""

from __future__ import annotations

import csv
import re
from collections import OrderedDict
from pathlib import Path

import numpy as np

from .level import normalize
from .messages import _
from .tts import resample

WORD = re.compile(r"[\w-]+")
CROSSFADE_S = 0.012
GAP_S = 0.05            # a breath between fragments
EDGE_DB = -45.0         # a fragment's edges quieter than this (against its peak) are trimmed
MEMORY = 64


class RecordingsUnavailable(ValueError):
    pass


def words(text: str) -> tuple[str, ...]:
    """What a recording must match: its words, lower-case, ё as е, no punctuation."""
    return tuple(WORD.findall(text.lower().replace("ё", "е")))


class RecordedVoice:
    def __init__(self, folder: str | Path, samplerate: int, loudness_lufs: float, ceiling_dbtp: float) -> None:
        self.folder = Path(folder)
        self.samplerate = samplerate
        self.loudness_lufs = loudness_lufs
        self.ceiling_dbtp = ceiling_dbtp
        self.recorded: dict[tuple[str, ...], Path] = self._index()
        self.longest = max((len(k) for k in self.recorded), default=0)
        self._memory: OrderedDict[tuple[str, ...], np.ndarray] = OrderedDict()

    def _index(self) -> dict[tuple[str, ...], Path]:
        script = self.folder / "script.tsv"
        if not script.is_file():
            raise RecordingsUnavailable(_("{folder}: no script.tsv (voicehost voice script writes one)").format(
                folder=self.folder))
        found = {}
        with script.open(encoding="utf-8", newline="") as handle:
            for row in csv.reader(handle, delimiter="\t"):
                if len(row) != 2 or row[0] == "name":
                    continue
                path = self.folder / f"{row[0]}.wav"
                if path.is_file() and words(row[1]):
                    found[words(row[1])] = path
        return found

    def pieces(self, text: str) -> list[Path] | None:
        """The recordings that say ``text``, longest first from the left; None if a word is missing."""
        said = words(text)
        pieces, start = [], 0
        while start < len(said):
            for end in range(min(len(said), start + self.longest), start, -1):
                path = self.recorded.get(said[start:end])
                if path is not None:
                    pieces.append(path)
                    start = end
                    break
            else:
                return None
        return pieces or None

    def clip(self, text: str) -> np.ndarray | None:
        """``text`` from the recordings (None: not all of it is recorded)."""
        key = words(text)
        if key in self._memory:
            self._memory.move_to_end(key)
            return self._memory[key]
        pieces = self.pieces(text)
        if pieces is None:
            return None
        joined = join([_trimmed(_read(path, self.samplerate)) for path in pieces], self.samplerate)
        clip = normalize(joined, self.samplerate, self.loudness_lufs, self.ceiling_dbtp)
        clip.setflags(write=False)
        self._memory[key] = clip
        while len(self._memory) > MEMORY:
            self._memory.popitem(last=False)
        return clip


def join(parts: list[np.ndarray], samplerate: int) -> np.ndarray:
    """Fragments one after another with a short gap, each faded in and out (no click)."""
    fade = max(1, int(CROSSFADE_S * samplerate))
    ramp = (0.5 - 0.5 * np.cos(np.linspace(0, np.pi, fade))).astype(np.float32)
    gap = np.zeros(int(GAP_S * samplerate), dtype=np.float32)
    out = []
    for k, part in enumerate(parts):
        part = part.astype(np.float32).copy()
        n = min(fade, len(part) // 2)
        if n:
            part[:n] *= ramp[:n]
            part[-n:] *= ramp[:n][::-1]
        out.append(part)
        if k < len(parts) - 1:
            out.append(gap)
    return np.concatenate(out) if out else np.zeros(0, dtype=np.float32)


def _trimmed(clip: np.ndarray) -> np.ndarray:
    peak = float(np.max(np.abs(clip))) if len(clip) else 0.0
    if peak == 0.0:
        return clip
    loud = np.nonzero(np.abs(clip) > peak * 10 ** (EDGE_DB / 20))[0]
    return clip[loud[0]:loud[-1] + 1]


def _read(path: Path, samplerate: int) -> np.ndarray:
    import soundfile
    try:
        data, rate = soundfile.read(str(path), dtype="float32", always_2d=True)
    except Exception as err:
        raise RecordingsUnavailable(_("{path}: not a sound file soundfile can read ({error})").format(
            path=path, error=err)) from None
    return resample(data.mean(axis=1), rate, samplerate)
