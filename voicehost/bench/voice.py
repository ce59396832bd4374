"""``bench voice``: render and warm-up times, the cache, the loudness of every fixed line, the
bed's masking ratio, and the mixer's live figures (event → first sample, callback CPU)."""

from __future__ import annotations

import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from voicehost.config import load_ruleset, ruleset_names

if TYPE_CHECKING:
    from audio.tts import SpeechRenderer, VoiceSettings
    from voicehost.language.phrasebook import Phrasebook


def bench_voice(output: str = "null", lines: int = 40) -> dict[str, float]:
    """Render time per line, warm-up time, event → first sample, mixer callback CPU, the
    loudness spread over every fixed line of every ruleset, the bed's masking ratio and the
    cache's size on disk."""
    from audio.tts import SpeechRenderer, VoiceSettings
    from voicehost.language.lexicon import load_lexicon
    from voicehost.language.phrasebook import load_phrasebook

    book = load_phrasebook()
    spell = load_lexicon().apply
    settings = VoiceSettings()
    figures: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as cache:
        renderer = SpeechRenderer(settings, Path(cache), spell=spell)
        try:
            figures.update(_render_times(renderer, book, lines))
            figures.update(_cache_times(SpeechRenderer(settings, Path(cache), spell=spell), book))
            figures.update(_every_fixed_line(renderer, book, settings))
            clip = renderer.clip("Спасибо.")
        finally:
            renderer.close()
    figures.update(_bed(settings.samplerate))
    figures.update(_bench_mixer(output, clip))
    return figures


def _render_times(renderer: SpeechRenderer, book: Phrasebook, lines: int) -> dict[str, float]:
    """Render time per line, and the first warm-up of the sport lines (an empty cache)."""
    from voicehost.host.voice import fixed_lines

    texts = [book.say("vote_count", "sport", seat=s % 10 + 1, n=s) for s in range(1, lines + 1)]
    start = time.perf_counter()
    renderer.warm(texts)
    figures = {"render_ms_per_line": (time.perf_counter() - start) / len(set(texts)) * 1000}
    start = time.perf_counter()
    renderer.warm(fixed_lines(book, "sport", range(1, 11)))
    figures["warm_up_s_sport_first_time"] = time.perf_counter() - start
    return figures


def _cache_times(fresh: SpeechRenderer, book: Phrasebook) -> dict[str, float]:
    """A second start (``fresh`` over the cache just filled): the warm-up only checks the disk,
    and each line is decoded and resampled when it is first said."""
    from voicehost.host.voice import fixed_lines

    sport_lines = fixed_lines(book, "sport", range(1, 11))
    try:
        start = time.perf_counter()
        fresh.warm(sport_lines)
        figures = {"warm_up_s_sport_from_cache": time.perf_counter() - start}
        start = time.perf_counter()
        for text in sport_lines[:100]:
            fresh.clip(text)
        figures["load_ms_per_line_from_cache"] = (time.perf_counter() - start) / 100 * 1000
        figures["sport_fixed_lines"] = len(set(sport_lines))
    finally:
        fresh.close()
    return figures


def _every_fixed_line(renderer: SpeechRenderer, book: Phrasebook, settings: VoiceSettings) -> dict[str, float]:
    """Every fixed line of every ruleset at its largest table: loudness spread, true peak, cache size."""
    from audio.level import loudness, true_peak_db
    from voicehost.host.voice import fixed_lines

    every = list(dict.fromkeys(line for name in ruleset_names()
                               for line in fixed_lines(book, name, range(1, max(load_ruleset(name).seats) + 1))))
    renderer.warm(every)
    levels = [loudness(renderer.clip(text), settings.samplerate) for text in every]
    peaks = [true_peak_db(renderer.clip(text)) for text in every]
    files = {renderer.cache_file(text) for text in every}
    return {"all_rulesets_fixed_lines": len(every), "loudness_lufs_min": min(levels),
            "loudness_lufs_max": max(levels), "loudness_spread_lu": max(levels) - min(levels),
            "true_peak_dbtp_max": max(peaks), "cache_mb_all_rulesets": sum(f.stat().st_size for f in files) / 1e6,
            "cache_seconds_of_speech": sum(len(renderer.clip(t)) for t in every) / settings.samplerate}


def _bed(rate: int) -> dict[str, float]:
    """The built-in night bed: its masking ratio, and its loudness at the mixer's music level."""
    from audio.level import loudness
    from audio.mixer import MixSettings
    from audio.music import masking_ratio
    from audio.nightmusic import night_music

    bed = night_music(rate, 40.0)
    return {"bed_masking_ratio_db": masking_ratio(bed, rate),
            "bed_loudness_lufs_at_music_level": loudness(bed * MixSettings().music_level, rate)}


def _bench_mixer(output: str, clip: Any) -> dict[str, float]:
    """The mixer on ``output``: event → first sample over 20 lines, then its callback's CPU."""
    from audio.mixer import Mixer, MixSettings
    from audio.music import MusicFeed
    from audio.output import AudioOut

    settings = MixSettings()
    mixer = Mixer(settings, MusicFeed(settings.samplerate))
    out = AudioOut(mixer, output, log=lambda line: None)
    time.sleep(1.0)
    delays = []
    for _ in range(20):
        time.sleep(settings.pause_s)  # a line after the pause: the delay measured is the output's own
        asked = time.monotonic()
        onset = mixer.say(clip).result(5)
        delays.append((onset - asked) * 1000)
        time.sleep(len(clip) / settings.samplerate + 0.05)
    out.close()
    delays.sort()
    figures = {"output": 0.0 if out.kind == "null" else 1.0, "event_to_first_sample_ms_p50": delays[len(delays) // 2],
               "event_to_first_sample_ms_max": delays[-1]}
    figures.update(_callback_cpu(mixer, settings))
    mixer.close()
    return figures


def _callback_cpu(mixer: Any, settings: Any) -> dict[str, float]:
    """The mixer's callback over 2,000 blocks of 10 ms, at night, with a line playing."""
    import numpy as np

    block = np.zeros(480, dtype=np.float32)
    mixer.night(True)
    mixer.say(np.full(settings.samplerate * 30, 0.1, dtype=np.float32))
    start = time.perf_counter()
    for k in range(2000):
        mixer.render(block, k * 0.01)
    per_block = (time.perf_counter() - start) / 2000
    return {"callback_us_per_10ms_block": per_block * 1e6, "callback_cpu_percent": per_block / 0.01 * 100}
