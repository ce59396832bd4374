"""``bench mix``: each ruleset's sample game rendered to a file at the real timers' pace and
measured in the rendered mix (line gaps, question → «Спасибо», the count over the bed, loudness
spread, true peak)."""

from __future__ import annotations

import statistics
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: The questions a «Спасибо» closes (the vote's question → thanks figure).
VOTE_QUESTIONS = ("vote_question", "prevote_question", "final_question", "mayor_question", "acquittal_question",
                  "all_leave_question")


@dataclass(frozen=True)
class Rendered:
    """A sample game's mix: its samples, their rate, and each line as (onset s, text, length s)."""

    mix: Any
    rate: int
    lines: list[tuple[float, str, float]]

    def stretch(self, start: float, end: float) -> Any:
        return self.mix[int(start * self.rate):int(end * self.rate)]


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
        voice = FileVoice(load_audio(table_path(None)), str(path))
        try:
            how = TableRun(speak=voice.speak, night=voice.night, cue=voice.cue, cue_length=voice.cue_length,
                           hold=voice.hold, warning=voice.warning)
            run_virtual(play_table(script, how=how))
            rate = voice.rate
            lines = sorted((onset, text, len(voice.renderer.clip(text)) / rate)
                           for onset, text in voice.mixer.subtitles if text)
        finally:
            voice.close()
        mix, _ = soundfile.read(str(path), dtype="float32")
    return Rendered(mix, rate, lines)


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
