"""``bench mix``: each ruleset's sample game rendered to a file at the real timers' pace and
measured in the rendered mix: line gaps, question → «Спасибо», the breath before each night
count, the numbers over the music, whether a seat button's tap is masked during the count and
outside it (:mod:`audio.masking`), loudness spread, true peak."""

from __future__ import annotations

import statistics
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from audio import masking

#: The questions a «Спасибо» closes (the vote's question → thanks figure).
VOTE_QUESTIONS = ("vote_question", "prevote_question", "final_question", "mayor_question", "acquittal_question",
                  "all_leave_question")


#: The speech band the numbers are measured in (the telephone band, where speech is understood).
SPEECH_BAND_HZ = (300.0, 3400.0)
MUSIC_SEED = 1          # the same night music each run: the figures compare the mixes, not two musics
TAP_EVERY_S = 0.05      # taps placed this far apart through each count
OUTSIDE_EVERY_S = 0.1   # and through the rest of the night, at its night level (not the fades)


@dataclass(frozen=True)
class Rendered:
    """A sample game's mix: its samples, their rate, each line as (onset s, text, length s), and
    the music alone as it went into the mix (zero where no night music played)."""

    mix: Any
    rate: int
    lines: list[tuple[float, str, float]]
    music: Any
    full_night: list[tuple[float, float]]
    """(start, end) of each stretch with the night music at its level (faded in, not out)."""

    def stretch(self, start: float, end: float, source: Any = None) -> Any:
        samples = self.mix if source is None else source
        return samples[int(start * self.rate):int(end * self.rate)]


@dataclass(frozen=True)
class Count:
    """One night count in the mix: the line before it, and its numbers (onset s, length s)."""

    before: tuple[float, str, float]
    numbers: list[tuple[float, float]]

    @property
    def start(self) -> float:
        return self.numbers[0][0]

    @property
    def end(self) -> float:
        from voicehost.host.night import LAST_CALL_TAIL_S

        return self.numbers[-1][0] + self.numbers[-1][1] + LAST_CALL_TAIL_S


def bench_mix(ruleset: str) -> dict[str, float]:
    """The bundled sample game of ``ruleset`` rendered to a file on the virtual clock at the
    real timers' pace (``demo --audio file:``), then measured in the rendered mix: the silence
    between consecutive lines, from a vote question to its «Спасибо», each night-count number
    over the bed around it, every line's loudness in the mix, the mix's true peak, and the
    built-in bed's masking ratio."""
    from audio.level import loudness, true_peak_db
    from audio.music import masking_ratio
    from audio.nightmusic import night_music

    rendered = render_sample(ruleset)
    figures = {"lines": float(len(rendered.lines))}
    figures.update(_gaps(rendered, ruleset))
    figures.update(night_figures(rendered, counts(rendered, ruleset)))
    levels = [loudness(rendered.stretch(onset, onset + length), rendered.rate)
              for onset, _, length in rendered.lines if length >= 0.4]
    figures["masking_ratio_db"] = masking_ratio(night_music(rendered.rate, 40.0), rendered.rate)
    figures["line_loudness_spread_lu"] = max(levels) - min(levels)
    figures["true_peak_dbtp"] = true_peak_db(rendered.mix)
    return figures


def render_sample(ruleset: str) -> Rendered:
    """``ruleset``'s sample game played at the table level on the virtual clock into a file."""
    import soundfile

    from voicehost.config import packaged_examples
    from voicehost.host.table_file import load_audio, table_path
    from voicehost.host.vclock import run_virtual
    from voicehost.host.voice import FileVoice
    from voicehost.simulation.script import load_script
    from voicehost.simulation.table_level import TableRun, play_table

    script = load_script(packaged_examples() / f"{ruleset}-sample.json")
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "game.wav"
        voice = FileVoice(load_audio(table_path(None)), str(path), seed=MUSIC_SEED)
        voice.mixer.music_stem = []
        try:
            how = TableRun(speak=voice.speak, night=voice.night, cue=voice.cue, cue_length=voice.cue_length,
                           hold=voice.hold, warning=voice.warning)
            run_virtual(play_table(script, how=how))
            rate = voice.rate
            lines = sorted((onset, text, len(voice.renderer.clip(text)) / rate)
                           for onset, text in voice.mixer.subtitles if text)
            stem = voice.mixer.music_stem
        finally:
            voice.close()
        mix, _ = soundfile.read(str(path), dtype="float32")
    return Rendered(mix, rate, lines, _music_track(stem, len(mix), rate), _full_night(stem, rate))


def _full_night(stem: list[tuple[float, Any, float]], rate: int) -> list[tuple[float, float]]:
    """The stretches where the mixer's night fade stood at 1."""
    stretches: list[tuple[float, float]] = []
    for t, block, fade in stem:
        if fade < 1.0:
            continue
        end = t + len(block) / rate
        if stretches and t - stretches[-1][1] < 1e-6 + 1 / rate:
            stretches[-1] = (stretches[-1][0], end)
        else:
            stretches.append((t, end))
    return stretches


def _music_track(stem: list[tuple[float, Any, float]], length: int, rate: int) -> Any:
    """The mixer's music blocks laid at their times on a track as long as the mix."""
    track = np.zeros(length, dtype=np.float32)
    for t, block, _ in stem:
        at = int(round(t * rate))
        end = min(length, at + len(block))
        if end > at:
            track[at:end] = block[:end - at]
    return track


def counts(rendered: Rendered, ruleset: str) -> list[Count]:
    """The night counts: runs of count numbers, each with the line said before its first."""
    from voicehost.language.phrasebook import load_phrasebook

    book = load_phrasebook()
    numbers = {book.say("count", ruleset, seat=seat) for seat in range(1, 13)}
    found: list[Count] = []
    previous = rendered.lines[0]
    for line in rendered.lines:
        onset, text, length = line
        if text in numbers:
            if found and found[-1].numbers[-1][0] + 3.0 > onset:
                found[-1].numbers.append((onset, length))
            else:
                found.append(Count(previous, [(onset, length)]))
        previous = line
    return found


def night_figures(rendered: Rendered, found: list[Count]) -> dict[str, float]:
    """The breath before each count, each number over the music in the speech band, and the
    masking margin of a 55 dB(A) tap through the counts and through the rest of the night."""
    figures: dict[str, float] = {}
    reference = found[0].before if found else _first_night_line(rendered)
    if reference is None:
        return figures
    offset = masking.spl_offset(_voice(rendered, reference), rendered.rate)
    if found:
        figures.update(_count_figures(rendered, found, offset))
    night = [t for start, end in rendered.full_night for t in np.arange(start, end, OUTSIDE_EVERY_S)]
    outside = [t for t in night if not any(count.start - 1.0 <= t <= count.end for count in found)]
    rest = masking.margins(rendered.mix, rendered.rate, offset, outside)
    if rest:
        figures["tap_margin_db_outside_median"] = statistics.median(rest)
        figures["tap_margin_db_outside_p10"] = float(np.percentile(rest, 10))
    return figures


def _count_figures(rendered: Rendered, found: list[Count], offset: float) -> dict[str, float]:
    pauses = [count.start - (count.before[0] + count.before[2]) for count in found]
    over = [_over_music(rendered, onset, length) for count in found for onset, length in count.numbers]
    during = [t for count in found for t in np.arange(count.start, count.end, TAP_EVERY_S)]
    inside = masking.margins(rendered.mix, rendered.rate, offset, during)
    return {"count_pause_s_min": min(pauses), "count_pause_s_max": max(pauses),
            "count_over_music_speech_band_db_min": min(over),
            "count_over_music_speech_band_db_median": statistics.median(over),
            "tap_margin_db_count_median": statistics.median(inside),
            "tap_margin_db_count_p10": float(np.percentile(inside, 10))}


def _first_night_line(rendered: Rendered) -> tuple[float, str, float] | None:
    """The first line said over the night music (the room's reference when a game has no count)."""
    return next((line for line in rendered.lines
                 if np.any(rendered.stretch(line[0], line[0] + line[2], rendered.music))), None)


def _voice(rendered: Rendered, line: tuple[float, str, float]) -> Any:
    """A line's voice alone: the mix less the music under it."""
    onset, _, length = line
    return rendered.stretch(onset, onset + length) - rendered.stretch(onset, onset + length, rendered.music)


def _over_music(rendered: Rendered, onset: float, length: float) -> float:
    """dB of a number over the music under it, both in the speech band."""
    import math

    from audio.music import band_energy

    voice = band_energy(_voice(rendered, (onset, "", length)), rendered.rate, *SPEECH_BAND_HZ)
    music = band_energy(rendered.stretch(onset, onset + length, rendered.music), rendered.rate, *SPEECH_BAND_HZ)
    return 10 * math.log10(max(voice, 1e-20) / max(music, 1e-20))


def _gaps(rendered: Rendered, ruleset: str) -> dict[str, float]:
    """The silences between lines: ordinary gaps, question → «Спасибо», and each count number
    over the bed between it and the number before."""
    from audio.level import loudness
    from voicehost.language.phrasebook import load_phrasebook

    book = load_phrasebook()
    numbers = {book.say("count", ruleset, seat=seat) for seat in range(1, 13)}
    asked = tuple(book.lines[book.host_key(key, ruleset)].split("{")[0] for key in VOTE_QUESTIONS
                  if book.has(key, ruleset))
    thanks = book.say("thanks", ruleset)
    gaps, questions, over = [], [], []
    lines = rendered.lines
    for (onset, text, length), (next_onset, next_text, next_length) in zip(lines, lines[1:], strict=False):
        gap = next_onset - (onset + length)
        if text in numbers and next_text in numbers and gap > 0.2:  # the count: the bed between two numbers
            bed = loudness(rendered.stretch(onset + length + 0.05, next_onset - 0.05), rendered.rate)
            over.append(loudness(rendered.stretch(next_onset, next_onset + next_length), rendered.rate) - bed)
        elif next_text == thanks and text.startswith(asked):
            questions.append(gap)
        elif text not in numbers and next_text not in numbers and 0 <= gap < 3.0:
            gaps.append(gap)
    figures = {"line_gap_s_median": statistics.median(gaps)}
    if questions:
        figures["question_to_thanks_s_min"], figures["question_to_thanks_s_max"] = min(questions), max(questions)
    if over:
        figures["count_over_bed_db_min"], figures["count_over_bed_db_median"] = min(over), statistics.median(over)
    return figures
