"""``voicehost voice night``: a night count as the table will hear it — «Мафия выходит на
охоту.», the numbers over the night music at the table's night level, and a few seat-button
taps at 55 dB(A) mixed in on and between the numbers — rendered, measured with the masking
model (:mod:`audio.masking`) and played, so a club can set ``music_level`` in its own room:
loud enough that the taps vanish, while every number stays clear (docs/voice.md)."""

from __future__ import annotations

import dataclasses
import statistics
import time
from dataclasses import dataclass

import numpy as np

from audio import masking
from audio.mixer import Mixer
from audio.music import band_energy
from voicehost.host.table_file import AudioConfig
from voicehost.host.voice import MUSIC_AHEAD, Patient, Speaking, open_music, open_speech
from voicehost.language.phrasebook import load_phrasebook

BLOCK = 480
SEATS = 10
TAPS_ON = (3, 7)        # taps on these numbers, and one between the fifth and the sixth
MUSIC_BEFORE_S = 3.0    # the night music alone before the wake-up line
SPEECH_BAND_HZ = (300.0, 3400.0)


@dataclass(frozen=True)
class NightCheck:
    """The rendered count (with its taps), and what the masking model says of it."""

    mix: np.ndarray
    rate: int
    over_music_db_min: float
    """The quietest number's level over the music under it, in the speech band."""
    tap_margins_db: list[float]
    """The margin under the masked threshold (≥ 0: hidden) of a tap placed every 50 ms through
    the count (the three taps heard are a sample of them)."""


def night_check(audio: AudioConfig, level: float | None = None, seed: int = 1) -> NightCheck:
    """The count rendered offline with the table's mixer settings (``level``: another night
    level to try), taps added at 55 dB(A) for a voice at the reference 68 dB(A)."""
    if level is not None:
        audio = dataclasses.replace(audio, mix=dataclasses.replace(audio.mix, music_level=level))
    mix, music, wake, numbers, rate = _render(audio, seed)
    offset = masking.spl_offset(_part(mix - music, rate, *wake), rate)
    taps = [numbers[seat - 1][0] + 0.15 for seat in TAPS_ON]
    taps.append((numbers[4][0] + numbers[4][1] + numbers[5][0]) / 2)
    margins = masking.margins(mix, rate, offset, list(np.arange(numbers[0][0], sum(numbers[-1]) + 0.5, 0.05)))
    over = [10 * np.log10(band_energy(_part(mix - music, rate, *n), rate, *SPEECH_BAND_HZ)
                          / max(band_energy(_part(music, rate, *n), rate, *SPEECH_BAND_HZ), 1e-20)) for n in numbers]
    return NightCheck(masking.with_taps(mix, rate, offset, taps), rate, float(min(over)), margins)


def _part(samples: np.ndarray, rate: int, onset: float, length: float) -> np.ndarray:
    return samples[int(onset * rate):int((onset + length) * rate)]


def _render(audio: AudioConfig, seed: int) -> tuple[np.ndarray, np.ndarray, tuple[float, float],
                                                    list[tuple[float, float]], int]:
    """The mix and its music alone; the wake-up line and each number as (onset, length)."""
    speech = _Speech()
    open_speech(speech, audio)
    book = load_phrasebook()
    feed = open_music(audio, lambda line: None, ahead=MUSIC_AHEAD, seed=seed)
    mixer = Mixer(audio.mix, Patient(feed))
    mixer.music_stem = []
    rate = audio.mix.samplerate
    out: list[np.ndarray] = []
    try:
        mixer.night(True)
        _play(mixer, out, MUSIC_BEFORE_S)
        wake = _say(mixer, out, speech.clip(book.say("mafia_hunts", "sport")))
        mixer.hold(True)
        numbers = []
        for seat in range(1, SEATS + 1):
            numbers.append(_say(mixer, out, speech.clip(book.say("count", "sport", seat=seat))))
            _play(mixer, out, max(0.0, numbers[-1][0] + 1.0 - len(out) * BLOCK / rate))
        _play(mixer, out, 0.5)
        mixer.hold(False)
        _play(mixer, out, 1.0)
    finally:
        mixer.close()
        feed.close()
        speech.close()
    mix = np.concatenate(out)
    music = np.zeros_like(mix)
    for t, block, _ in mixer.music_stem:
        at = int(round(t * rate))
        music[at:at + len(block)] = block[:max(0, len(mix) - at)]
    return mix, music, wake, numbers, rate


class _Speech(Speaking):
    """The renderer, the cues and a club's recordings, without an output of their own."""

    def clip(self, text: str) -> np.ndarray:
        clip = self.recorded.clip(text) if self.recorded is not None else None
        return clip if clip is not None else self.renderer.clip(text)

    def close(self) -> None:
        self.renderer.close()


def _play(mixer: Mixer, out: list[np.ndarray], seconds: float) -> None:
    rate = mixer.settings.samplerate
    for _ in range(int(round(seconds * rate / BLOCK))):
        block = np.zeros(BLOCK, dtype=np.float32)
        mixer.render(block, len(out) * BLOCK / rate)
        out.append(block)


def _say(mixer: Mixer, out: list[np.ndarray], clip: np.ndarray) -> tuple[float, float]:
    """``clip`` said; rendered until it has been heard whole: its (onset, length)."""
    rate = mixer.settings.samplerate
    started = mixer.say(clip)
    while not started.done():
        _play(mixer, out, BLOCK / rate)
        if not started.done():
            time.sleep(0.0005)   # the mixer's onset thread reports the first sample
    onset = started.result(timeout=5)
    _play(mixer, out, max(0.0, onset + len(clip) / rate - len(out) * BLOCK / rate))
    return onset, len(clip) / rate


def summary(check: NightCheck) -> dict[str, float]:
    """The figures ``voice night`` prints."""
    return {"numbers_over_music_db_min": check.over_music_db_min,
            "tap_margin_db_median": statistics.median(check.tap_margins_db),
            "tap_margin_db_p10": float(np.percentile(check.tap_margins_db, 10))}
