"""The built-in night music: a tense, beat-driven track generated bar by bar, so a fresh
install has music rather than hiss.

Why generated and not a file: the project ships no recordings, and a loop of a file repeats
every few minutes, which a table notices by the second night. Here every 4-bar phrase is
drawn from a seeded random generator (a progression in A minor with a Phrygian turn, a bass
ostinato, drum and hi-hat patterns, a sparse plucked motif), so the music is the same for the
same seed (tests, rendered excerpts) and does not repeat for hours.

The music still has the old bed's job: to hide button clicks, rustling and whispers at
1–8 kHz. The hi-hats, the claps and a shaker that pulses on the sixteenths keep energy
there between the notes (``masking_ratio`` about 0 dB, like pink noise). Each bar is rendered
with a tail (a note's decay) that is added into the next bar, so bar joins carry no seam.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

TEMPO_BPM = 96
BEATS_PER_BAR = 4
STEPS_PER_BAR = 16
TAIL_S = 1.5          # the longest decay carried into the next bar
LEVEL = 0.6           # the mix's gain before the soft limiter: −13.5 LUFS (audio.music.MUSIC_LUFS)

REVERB_S = 1.2       # the room the music plays in: its decay fills the gaps between the hits
REVERB_WET = 0.35
AIR_LEVEL = 0.24     # a steady wash of filtered noise (rain on a window) under everything
AIR_FADE_S = 0.05    # the wash of one bar fades into the next's

A = 220.0
# Semitones from A for the chords' roots and their qualities (minor = 3, major = 4 above).
CHORDS = {"Am": (0, 3), "Bb": (1, 4), "C": (3, 4), "Dm": (5, 3), "E": (7, 4), "F": (8, 4), "G": (10, 4)}
# Phrases end on different chords — the tonic (Am), the dominant (E), the relative major (C),
# a deceptive F, a plagal Dm → Am — so no cadence comes back every phrase.
PROGRESSIONS = (("Am", "F", "Dm", "E"), ("Am", "Bb", "Am", "E"), ("Dm", "Am", "E", "Am"),
                ("Am", "G", "F", "E"), ("F", "G", "Am", "Am"), ("Am", "F", "C", "G"),
                ("Dm", "Bb", "C", "Am"), ("Am", "C", "Dm", "F"), ("F", "Dm", "E", "Am"), ("Am", "G", "Dm", "C"),
                ("Bb", "F", "Dm", "Am"), ("C", "G", "Am", "E"))
# The motif's notes, in semitones over the chord's root: the chord's own tones, so a note never
# takes a minor third over a major chord. The middle of the tuple is the third.
MOTIF = {3: (0, 3, 7, 12, 15, 19), 4: (0, 4, 7, 12, 16, 19)}
KICKS = ((0, 8), (0, 8, 10), (0, 6, 8), (0, 3, 8, 11))
HATS = (tuple(range(0, 16, 2)), tuple(range(16)), (0, 2, 3, 4, 6, 8, 10, 11, 12, 14), (2, 6, 10, 14, 15))


@dataclass(frozen=True)
class Bar:
    """What one bar plays; drawn per phrase and per bar from the generator's random state."""

    chord: str
    """The bar's chord (a key of :data:`CHORDS`)."""
    kicks: tuple[int, ...]
    """Sixteenth steps with a kick drum."""
    hats: tuple[int, ...]
    """Sixteenth steps with a closed hi-hat."""
    motif: tuple[tuple[int, int], ...]
    """(step, index into the chord's :data:`MOTIF` tones) of the plucked notes."""
    fill: bool
    """A snare roll in the last beat: the end of a phrase."""


class NightMusic:
    """An endless, deterministic stream of bars (float32 mono at ``samplerate``)."""

    def __init__(self, samplerate: int, seed: int = 7) -> None:
        self.samplerate = samplerate
        self.rng = np.random.default_rng(seed)
        self.bar_samples = int(round(samplerate * 60 / TEMPO_BPM * BEATS_PER_BAR))
        self.step_samples = self.bar_samples // STEPS_PER_BAR
        self._tail = int(TAIL_S * samplerate)
        self._carry = np.zeros(self._tail, dtype=np.float64)
        self._last: tuple[str, ...] = ()
        t = np.arange(int(REVERB_S * samplerate)) / samplerate
        self._fft_size = self.bar_samples + self._tail + len(t)   # linear, not circular, convolution
        self._reverb = np.fft.rfft(self._noise(REVERB_S, 150, 9000) * np.exp(-t * 6.9 / REVERB_S)
                                   / np.sqrt(samplerate * REVERB_S / 13.8), self._fft_size)

    def bars(self) -> Iterator[np.ndarray]:
        """Bar after bar, for ever; each joins the last without a seam."""
        while True:
            for bar in self._phrase():
                yield self._render(bar)

    def take(self, seconds: float) -> np.ndarray:
        """The next ``seconds`` of music (an excerpt, a test)."""
        wanted = int(seconds * self.samplerate)
        parts: list[np.ndarray] = []
        have = 0
        for bar in self.bars():
            parts.append(bar)
            have += len(bar)
            if have >= wanted:
                break
        return np.concatenate(parts)[:wanted]

    # ---- composing -------------------------------------------------------------------------

    def _phrase(self) -> list[Bar]:
        progression = self._last
        while progression == self._last:   # never the same phrase twice in a row
            progression = PROGRESSIONS[int(self.rng.integers(len(PROGRESSIONS)))]
        self._last = progression
        kicks = KICKS[int(self.rng.integers(len(KICKS)))]
        bars = []
        for k, chord in enumerate(progression):
            hats = HATS[int(self.rng.integers(len(HATS)))]
            notes = int(self.rng.integers(2, 6))
            steps = sorted(self.rng.choice(16, size=notes, replace=False).tolist())
            motif = tuple((int(s), int(self.rng.integers(0, 6))) for s in steps)
            bars.append(Bar(chord, kicks, hats, motif, fill=k == len(progression) - 1))
        return bars

    # ---- rendering -------------------------------------------------------------------------

    def _render(self, bar: Bar) -> np.ndarray:
        n = self.bar_samples + self._tail
        mix = np.zeros(n, dtype=np.float64)
        root, third = CHORDS[bar.chord]
        self._pad(mix, root, third)
        self._bass(mix, root)
        for step in bar.kicks:
            self._add(mix, step, self._kick())
        for step in (4, 12):
            self._add(mix, step, self._clap(1.0))
        if bar.fill:
            for step in (13, 14, 15):
                self._add(mix, step, self._clap(0.45))
        for step in bar.hats:
            self._add(mix, step, self._hat(0.5 if step % 4 else 0.8))
        self._add(mix, 14, self._hat(0.6, open_hat=True))
        self._shaker(mix)
        for step, degree in bar.motif:
            self._add(mix, step, self._pluck(root, third, degree))
        mix += REVERB_WET * np.fft.irfft(np.fft.rfft(mix, self._fft_size) * self._reverb, self._fft_size)[:n]
        self._air(mix)
        mix[: self._tail] += self._carry
        self._carry = mix[self.bar_samples:].copy()
        return (np.tanh(mix[: self.bar_samples] * LEVEL * 1.2) / 1.2).astype(np.float32)

    def _add(self, mix: np.ndarray, step: int, sound: np.ndarray) -> None:
        start = step * self.step_samples
        end = min(len(mix), start + len(sound))
        mix[start:end] += sound[: end - start]

    def _time(self, seconds: float) -> np.ndarray:
        return np.arange(int(seconds * self.samplerate)) / self.samplerate

    def _noise(self, seconds: float, low: float, high: float) -> np.ndarray:
        """White noise band-limited to ``low``–``high`` Hz (in the frequency domain)."""
        n = int(seconds * self.samplerate)
        spectrum = np.fft.rfft(self.rng.standard_normal(n))
        freqs = np.fft.rfftfreq(n, 1 / self.samplerate)
        spectrum[(freqs < low) | (freqs > high)] = 0
        band = np.fft.irfft(spectrum, n)
        return np.asarray(band / (np.sqrt(np.mean(band ** 2)) + 1e-12), dtype=np.float64)

    def _kick(self) -> np.ndarray:
        t = self._time(0.35)
        pitch = 45 + 90 * np.exp(-t * 30)
        return np.asarray(0.55 * np.sin(2 * np.pi * np.cumsum(pitch) / self.samplerate) * np.exp(-t * 9))

    def _clap(self, level: float) -> np.ndarray:
        t = self._time(0.25)
        return np.asarray(level * 0.4 * self._noise(0.25, 1200, 7000) * np.exp(-t * 22))

    def _hat(self, level: float, open_hat: bool = False) -> np.ndarray:
        seconds = 0.3 if open_hat else 0.06
        t = self._time(seconds)
        return np.asarray(level * 0.25 * self._noise(seconds, 5000, 14000) * np.exp(-t * (9 if open_hat else 70)))

    def _shaker(self, mix: np.ndarray) -> None:
        """A shaker on every sixteenth, accented off the beat: the bed between the notes."""
        noise = self._noise(self.bar_samples / self.samplerate, 1500, 9000)
        phase = (np.arange(self.bar_samples) % self.step_samples) / self.step_samples
        step = np.arange(self.bar_samples) // self.step_samples
        accent = np.where(step % 2 == 1, 1.0, 0.6)
        mix[: self.bar_samples] += 0.15 * noise * accent * np.exp(-phase * 4)

    def _pad(self, mix: np.ndarray, root: int, third: int) -> None:
        """The chord, held through the bar: detuned saw-like tones, low in level."""
        t = np.arange(self.bar_samples + self.step_samples * 4) / self.samplerate
        envelope = np.minimum(1.0, t / 0.25) * np.exp(-np.maximum(0.0, t - self.bar_samples / self.samplerate) * 6)
        tone = np.zeros_like(t)
        for semitone in (root, root + third, root + 7):
            f = A * 2 ** (semitone / 12)
            for detune in (0.997, 1.003):
                for harmonic in (1, 2, 3, 4):
                    tone += np.sin(2 * np.pi * f * detune * harmonic * t) / harmonic
        mix[: len(t)] += 0.05 * tone * envelope

    def _bass(self, mix: np.ndarray, root: int) -> None:
        """Eighth notes on the root, the octave jumping on the off-beats: the pulse."""
        f = A / 4 * 2 ** (root / 12)
        t = self._time(0.28)
        for step in range(0, STEPS_PER_BAR, 2):
            pitch = f * (2 if step % 4 == 2 else 1)
            note = sum(np.sin(2 * np.pi * pitch * h * t) / h for h in (1, 2, 3))
            self._add(mix, step, 0.22 * note * np.exp(-t * 7))

    def _air(self, mix: np.ndarray) -> None:
        """A steady wash of noise through the bar, pink from 200 Hz, a little brighter above
        4 kHz (a click's own band) up to 16 kHz: the floor that keeps a click hidden between
        the beats. It runs :data:`AIR_FADE_S` into the next bar, where it fades out as the
        next bar's fades in (equal power: the two are unrelated noise), so no bar line steps."""
        fade = int(AIR_FADE_S * self.samplerate)
        n = self.bar_samples + fade
        freqs = np.maximum(np.fft.rfftfreq(n, 1 / self.samplerate), 1.0)
        tilt = np.sqrt(np.maximum(1.0, freqs / 4000))   # +3 dB an octave above 4 kHz
        shape = np.where((freqs > 200) & (freqs < 16000), tilt / np.sqrt(freqs), 0.0)
        wash = np.fft.irfft(np.fft.rfft(self.rng.standard_normal(n)) * shape, n)
        wash *= AIR_LEVEL / (np.sqrt(np.mean(wash ** 2)) + 1e-12)
        edge = np.sin(np.linspace(0.0, np.pi / 2, fade))
        wash[:fade] *= edge
        wash[self.bar_samples:] *= edge[::-1]
        mix[:n] += wash

    def _pluck(self, root: int, third: int, degree: int) -> np.ndarray:
        """A plucked tone of the bar's chord (its own third: major or minor), an octave up: the motif."""
        semitone = root + MOTIF[third][degree] + 12
        f = A * 2 ** (semitone / 12)
        t = self._time(0.9)
        partials = sum(np.sin(2 * np.pi * f * h * t) / h ** 1.5 for h in (1, 2, 3, 4))
        return np.asarray(0.22 * partials * np.exp(-t * 5))


def night_music(samplerate: int, seconds: float = 24.0, seed: int = 7) -> np.ndarray:
    """The first ``seconds`` of the built-in night music for ``seed``."""
    return NightMusic(samplerate, seed).take(seconds)
