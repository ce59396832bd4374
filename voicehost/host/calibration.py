"""On-site calibration (``voicehost ears test``): how well the host hears at this table.

The host plays the phrases a player says — in its own voice through its own speaker, or a
player reads them from the console — and listens with its own microphone, with the gate open
(here the host's voice *is* what it should hear). Two records come out of a session: the
microphone's level in 10 ms windows, and vosk's own result JSON (each word with its time and
confidence). Everything the report says is computed from those by the pure functions below:
the room's noise floor, what was understood and how often, and the ``[ears]`` settings that
fit this room — the gate's ``hold_off_s`` from how long the host's echo lingers, the endpoint
rules from the pauses inside a phrase, and ``min_confidence`` from how sure vosk was of the
phrases it got right. The :class:`CalibrationRun` at the bottom only plays, prompts and waits.
"""

from __future__ import annotations

import bisect
import math
import queue
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from audio.listener import RATE, Heard
from voicehost.host.ears import ENDINGS, NOMINATE, WITHDRAW, grammar
from voicehost.i18n import N_, _, said
from voicehost.language.numbers import read_number
from voicehost.language.parser import normalize, parse
from voicehost.language.russian import cardinal, ordinal

FLOOR_DBFS = -120.0       # digital silence reads as this (JSON has no -inf)
WINDOW_S = 0.01           # the level meter's window
QUIET_DBFS = -60.0        # below this nothing is sound, however quiet the room
ECHO_MARGIN_DB = 6.0      # the echo has died when the microphone is this close to the room's own peaks
HOLD_OFF_MARGIN_S = 0.15  # added to the echo's measured tail
PAUSE_MARGIN_S = 0.3      # added to the longest pause inside a phrase
RULE2_RANGE = (0.5, 1.5)  # vosk's 0.5 s is the least suggested: a human pauses longer than a voice
CONFIDENCE_RANGE = (0.3, 0.9)
LATE_ENDPOINT_S = 0.35    # results later than rule2 + this were ended by rule 3 or 4
VOSK_ENDPOINT = {"rule2_s": 0.5, "rule3_s": 1.0, "rule4_s": 2.0}   # what vosk uses when nothing is set
PASS_RATE = 0.8           # below this share of phrases understood, the room needs work


# ---- the phrases -----------------------------------------------------------------------------

def phrases_to_try(seats: Iterable[int], every: bool = False) -> list[str]:
    """What the host plays: every seat in both the cardinal and the ordinal nomination (the
    numbers are what gets confused), one withdrawal and the ends of a speech; ``every``: the
    whole grammar."""
    seat_list = list(seats)
    if every:
        return grammar(seat_list)
    phrases = []
    for seat in seat_list:
        forms = {"n": cardinal(seat), "o": ordinal(seat, "gen")}
        phrases += [NOMINATE[1].format(**forms), NOMINATE[2].format(**forms)]
    if seat_list:
        phrases.append(WITHDRAW[0].format(n=cardinal(seat_list[-1])))
    phrases += [ENDINGS[0], ENDINGS[3]]
    return phrases


def rounds(phrases: Sequence[str], repeat: int) -> list[str]:
    """The phrases ``repeat`` times, a whole round at a time (never the same one twice running)."""
    return [phrase for _ in range(repeat) for phrase in phrases]


# ---- levels ------------------------------------------------------------------------------------

def dbfs(mean_square: float) -> float:
    """A power (mean of squared samples, full scale 1.0) in dB relative to full scale."""
    return max(FLOOR_DBFS, 10 * math.log10(mean_square)) if mean_square > 0 else FLOOR_DBFS


class LevelMeter:
    """The microphone's level in 10 ms windows, each stamped with the time it ended; fed from
    the listener's thread (``MicListener(on_block=meter.add)``), read from any. It also keeps
    where each block falls in the stream the recognizer got, so vosk's word times (seconds of
    audio fed) become times on the microphone's clock even when blocks came late or were lost."""

    def __init__(self, rate: int = RATE, window_s: float = WINDOW_S) -> None:
        self.rate = rate
        self.size = int(rate * window_s)
        self._ends: list[float] = []
        self._powers: list[float] = []
        self._fed: list[int] = []          # samples fed so far, at the end of each block
        self._block_ends: list[float] = []
        self._lock = threading.Lock()

    def add(self, pcm: bytes, t_end: float) -> None:
        samples = np.frombuffer(pcm, dtype="<i2").astype(np.float64) / 32768
        t_start = t_end - len(samples) / self.rate
        count = len(samples) // self.size
        powers = (samples[: count * self.size].reshape(count, self.size) ** 2).mean(axis=1)
        ends = t_start + np.arange(1, count + 1) * self.size / self.rate
        with self._lock:
            self._ends.extend(ends.tolist())
            self._powers.extend(powers.tolist())
            self._fed.append((self._fed[-1] if self._fed else 0) + len(samples))
            self._block_ends.append(t_end)

    def span(self, start: float, end: float) -> list[float]:
        """The powers of the windows that ended in (start, end]."""
        return [power for _, power in self.windows(start, end)]

    def windows(self, start: float, end: float) -> list[tuple[float, float]]:
        with self._lock:
            return [(t, p) for t, p in zip(self._ends, self._powers, strict=True) if start < t <= end]

    def clock(self, stream_s: float) -> float:
        """When the sample ``stream_s`` seconds into the recognizer's stream was heard."""
        sample = stream_s * self.rate
        with self._lock:
            if not self._fed:
                return stream_s
            k = min(bisect.bisect_left(self._fed, sample), len(self._fed) - 1)
            return self._block_ends[k] - (self._fed[k] - sample) / self.rate

    def steady(self, now: float, second: float = 1.0, lag_s: float = 0.3) -> bool:
        """Has the microphone delivered (nearly) every window of the last second? A stream
        that has just started may deliver late and in bursts (PulseAudio does, for seconds)."""
        got = len(self.windows(now - second - lag_s, now - lag_s))
        return got >= 0.9 * second / (self.size / self.rate)


@dataclass(frozen=True)
class NoiseFloor:
    """The room while nothing is played: its RMS level, and the level its loudest 5 % of 10 ms
    windows reach (a chair, a cough, a fan's rattle)."""

    rms_dbfs: float
    peaks_dbfs: float
    seconds: float

    @property
    def quiet_below(self) -> float:
        """The level under which the microphone counts as quiet: just above the room's peaks."""
        return max(self.peaks_dbfs + ECHO_MARGIN_DB, QUIET_DBFS)

    @property
    def verdict(self) -> str:
        if self.rms_dbfs < -50:
            return N_("quiet")
        if self.rms_dbfs < -40:
            return N_("fine")
        if self.rms_dbfs < -30:
            return N_("noisy: the host will mishear more")
        return N_("too noisy for the ears: move the microphone or quieten the room")


def noise_floor(powers: Sequence[float], window_s: float = WINDOW_S) -> NoiseFloor:
    if not powers:
        return NoiseFloor(FLOOR_DBFS, FLOOR_DBFS, 0.0)
    return NoiseFloor(dbfs(float(np.mean(powers))), dbfs(float(np.quantile(powers, 0.95))), len(powers) * window_s)


def echo_tail(windows: Sequence[tuple[float, float]], line_end: float, quiet_below: float) -> float | None:
    """Seconds from the end of the host's line until the microphone was last louder than
    ``quiet_below`` (``windows``: the line and what follows it, up to the next one). Negative
    when the line's own trailing silence was already quiet; None when the line was never heard."""
    loud = [t for t, power in windows if dbfs(power) > quiet_below]
    return round(loud[-1] - line_end, 3) if loud else None


def speech_level(powers: Sequence[float], quiet_below: float) -> float | None:
    """The RMS level of the windows louder than the room: how loud the phrase reached the microphone."""
    voiced = [p for p in powers if dbfs(p) > quiet_below]
    return dbfs(float(np.mean(voiced))) if voiced else None


# ---- what vosk returned --------------------------------------------------------------------------

@dataclass(frozen=True)
class Word:
    """One word of a result on the microphone's clock, with vosk's confidence (None if not given)."""

    text: str
    start: float
    end: float
    conf: float | None


Clock = Callable[[float], float]   # seconds into the recognizer's stream → the microphone's clock


def words_of(heard: Heard, clock: Clock) -> list[Word]:
    """The words of vosk's result JSON (``SetWords``: ``"result": [{"word", "start", "end",
    "conf"}]``, times in seconds of the stream) on the microphone's clock."""
    raw = heard.raw or {}
    result = raw.get("result")
    if result is None:   # SetMaxAlternatives puts the words under the best alternative
        result = (raw.get("alternatives") or [{}])[0].get("result", [])
    return [Word(str(w["word"]), clock(float(w["start"])), clock(float(w["end"])),
                 float(w["conf"]) if "conf" in w else None)
            for w in result if isinstance(w, dict) and {"word", "start", "end"} <= w.keys()]


def assign(results: Sequence[Heard], starts: Sequence[float], clock: Clock) -> list[list[Heard]]:
    """Each result to the attempt whose span [start, next start) holds the end of its words
    (a late result still belongs to the phrase that was said, not to the next one)."""
    spans: list[list[Heard]] = [[] for _ in starts]
    for heard in results:
        words = words_of(heard, clock)
        said = words[-1].end if words else heard.t_end
        index = sum(1 for start in starts if start <= said) - 1
        if index >= 0:
            spans[index].append(heard)
    return spans


def same_words(said: str, heard: str) -> bool:
    return normalize(said) == normalize(heard)


def same_meaning(said: str, heard: str) -> bool:
    """What the host makes of it: the same nominations, withdrawals and end of speech (a phrase
    that means nothing to the parser, e.g. another language's, must come back word for word)."""
    meant = parse(said)
    return parse(heard) == meant if meant else same_words(said, heard)


def lowest_confidence(words: Sequence[Word]) -> float | None:
    """How sure vosk was of the phrase: its least sure seat-number word (what the host's doubt
    looks at), or its least sure word when it has no number."""
    numbers = [w for w in words if _is_number(w.text)]
    known = [w.conf for w in (numbers or words) if w.conf is not None]
    return min(known) if known else None


def _is_number(word: str) -> bool:
    tokens = normalize(word)
    return bool(tokens) and read_number(tokens, 0) is not None


def longest_pause(words: Sequence[Word]) -> float:
    """The longest silence between two words of the phrase (across its parts if it was split)."""
    return max((b.start - a.end for a, b in zip(words, words[1:], strict=False)), default=0.0)


# ---- one phrase, measured ---------------------------------------------------------------------------

@dataclass
class Attempt:
    """One phrase played or read: when it began, when the host's line ended (its own voice
    only), when the listening for it stopped, and vosk's results for it."""

    phrase: str
    start: float
    end: float
    line_end: float | None = None
    heard: list[Heard] = field(default_factory=list)


@dataclass(frozen=True)
class PhraseResult:
    phrase: str
    heard: str                   # every result's text, joined ("" when nothing was heard)
    right: bool                  # the host understood it: the same intents (or the same words)
    words_right: bool            # word for word
    parts: int                   # results it came in (2: split by a pause)
    confidence: float | None     # lowest_confidence
    pause_s: float | None        # longest_pause (None: fewer than two words heard)
    endpoint_s: tuple[float, ...]    # per result: from its last word to the result
    echo_tail_s: float | None    # the host's voice only
    speech_dbfs: float | None


def measure(attempt: Attempt, meter: LevelMeter, floor: NoiseFloor) -> PhraseResult:
    words = [w for h in attempt.heard for w in words_of(h, meter.clock)]
    text = " ".join(h.text for h in attempt.heard)
    endpoints = []
    for heard in attempt.heard:
        own = words_of(heard, meter.clock)
        if own:
            endpoints.append(round(heard.t_end - own[-1].end, 3))
    tail = None
    if attempt.line_end is not None:
        tail = echo_tail(meter.windows(attempt.start, attempt.end), attempt.line_end, floor.quiet_below)
    voiced_until = attempt.line_end if attempt.line_end is not None else attempt.end
    return PhraseResult(attempt.phrase, text, same_meaning(attempt.phrase, text), same_words(attempt.phrase, text),
                   len(attempt.heard), lowest_confidence(words), longest_pause(words) if len(words) > 1 else None,
                   tuple(endpoints), tail, speech_level(meter.span(attempt.start, voiced_until), floor.quiet_below))


# ---- rates -------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class PhraseRate:
    phrase: str
    tries: int
    right: int
    words_right: int
    heard: tuple[str, ...]       # what came back, each distinct text once, in order

    @property
    def rate(self) -> float:
        return self.right / self.tries if self.tries else 0.0


def rates(outcomes: Sequence[PhraseResult]) -> list[PhraseRate]:
    """The recognition rate of each phrase, in the order they were first played."""
    by_phrase: dict[str, list[PhraseResult]] = {}
    for outcome in outcomes:
        by_phrase.setdefault(outcome.phrase, []).append(outcome)
    return [PhraseRate(phrase, len(tries), sum(o.right for o in tries), sum(o.words_right for o in tries),
                       tuple(dict.fromkeys(o.heard for o in tries)))
            for phrase, tries in by_phrase.items()]


def overall_rate(outcomes: Sequence[PhraseResult]) -> float:
    return sum(o.right for o in outcomes) / len(outcomes) if outcomes else 0.0


# ---- suggestions -------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Suggestion:
    """A table-file ``[ears]`` setting: the value this room suggests (None: not measurable here),
    the one in force, and why."""

    key: str
    value: float | None
    current: float | None
    why: str                     # English (the JSON report's); the text report says ``template`` translated
    template: str = ""
    values: dict[str, object] = field(default_factory=dict)


def _suggestion(key: str, value: float | None, current: float | None, template: str, **values: object) -> Suggestion:
    """A suggestion whose reason is a message template (marked ``N_``) and its values."""
    return Suggestion(key, value, current, template.format(**values), template, values)


def _up(value: float, step: float = 0.05) -> float:
    return round(math.ceil(round(value / step, 6)) * step, 2)


def _down(value: float, step: float = 0.05) -> float:
    return round(math.floor(round(value / step, 6)) * step, 2)


def _clamp(value: float, bounds: tuple[float, float]) -> float:
    return min(max(value, bounds[0]), bounds[1])


def suggest_hold_off(tails: Sequence[float], current: float) -> Suggestion:
    """The gate must stay closed until the host's echo has died in the microphone: the tail
    nine lines in ten stayed under, plus a margin."""
    if not tails:
        return _suggestion("hold_off_s", None, current, N_("the microphone never heard the host's lines"))
    tail = float(np.quantile(tails, 0.9, method="higher"))
    value = _clamp(_up(max(tail, 0.0) + HOLD_OFF_MARGIN_S), (0.05, 5.0))
    why = (N_("the host's echo was gone {seconds:.2f} s after its line ended (9 lines in 10), + {margin:g} s")
           if tail >= 0 else
           N_("the host's echo was gone {seconds:.2f} s before its line ended (9 lines in 10), + {margin:g} s"))
    return _suggestion("hold_off_s", value, current, why, seconds=abs(tail), margin=HOLD_OFF_MARGIN_S)


def _after(seconds: float) -> str:
    """0.31 → «0.31 s after»; -0.2 → «0.20 s before» (the clip's own trailing silence was quiet), in
    the language in use (the text report's)."""
    return (_("{seconds:.2f} s after") if seconds >= 0 else _("{seconds:.2f} s before")).format(seconds=abs(seconds))


def suggest_endpoint(pauses: Sequence[float], splits: int, current: dict[str, float]) -> list[Suggestion]:
    """rule2_s: longer than the pauses inside a phrase (or the phrase is cut in two), as short
    as that allows (the host answers that much later); rule3_s and rule4_s keep vosk's own
    proportions to it (×2, then +1 s)."""
    longest = float(np.quantile(pauses, 0.9, method="higher")) if pauses else 0.0
    rule2 = _clamp(_up(longest + PAUSE_MARGIN_S), RULE2_RANGE)
    rule3 = max(1.0, _up(2 * rule2))
    rule4 = max(2.0, rule3 + 1.0)
    pause = (N_("the longest pause inside a phrase was {longest:.2f} s (9 in 10), + {margin:g} s; "
                "{splits} phrase(s) came in two parts") if splits else
             N_("the longest pause inside a phrase was {longest:.2f} s (9 in 10), + {margin:g} s"))
    return [
        _suggestion("rule2_s", rule2, current["rule2_s"], pause, longest=longest, margin=PAUSE_MARGIN_S, splits=splits),
        _suggestion("rule3_s", rule3, current["rule3_s"], N_("twice rule2_s (vosk's own proportion), at least 1 s")),
        _suggestion("rule4_s", rule4, current["rule4_s"], N_("rule3_s + 1 s, at least 2 s")),
    ]


def suggest_min_confidence(right: Sequence[float], wrong: Sequence[float], current: float | None) -> Suggestion:
    """Just under how sure vosk was of 19 in 20 phrases it got right (so the host rarely asks
    a player to repeat a right number), and how many wrong ones that would have caught."""
    if not right:
        return _suggestion("min_confidence", None, current, N_("no phrase was understood with word confidences"))
    sure = float(np.quantile(right, 0.05, method="lower"))
    value = _clamp(_down(sure - 0.05), CONFIDENCE_RANGE)
    caught = sum(1 for c in wrong if c < value)
    why = (N_("19 in 20 right phrases had their number (or every word) at {sure:.2f} or surer, - 0.05; "
              "{caught} of {wrong} misheard phrase(s) were less sure than that") if wrong else
           N_("19 in 20 right phrases had their number (or every word) at {sure:.2f} or surer, - 0.05"))
    return _suggestion("min_confidence", value, current, why, sure=sure, caught=caught, wrong=len(wrong))


# ---- the report ----------------------------------------------------------------------------------

@dataclass
class Report:
    mode: str                    # "voice": the host's own; "read": a player read the phrases
    model: str
    microphone: str
    floor: NoiseFloor
    outcomes: list[PhraseResult]
    probes: list[PhraseResult]        # read mode: the host's own lines that measured its echo
    suggestions: list[Suggestion]
    missing_words: list[str]
    notes: list[str]

    @property
    def rate(self) -> float:
        return overall_rate(self.outcomes)

    @property
    def passed(self) -> bool:
        return bool(self.outcomes) and self.rate >= PASS_RATE

    def speech_dbfs(self) -> float | None:
        levels = [o.speech_dbfs for o in self.outcomes if o.speech_dbfs is not None]
        return round(float(np.median(levels)), 1) if levels else None

    def to_dict(self) -> dict[str, Any]:
        speech = self.speech_dbfs()
        return {
            "mode": self.mode, "model": self.model, "microphone": self.microphone,
            "noise_floor": {"rms_dbfs": round(self.floor.rms_dbfs, 1), "peaks_dbfs": round(self.floor.peaks_dbfs, 1),
                            "seconds": round(self.floor.seconds, 2), "verdict": self.floor.verdict},
            "speech_dbfs": speech,
            "snr_db": None if speech is None else round(speech - self.floor.rms_dbfs, 1),
            "rate": round(self.rate, 3), "right": sum(o.right for o in self.outcomes), "tries": len(self.outcomes),
            "passed": self.passed,
            "phrases": [{**asdict(r), "rate": round(r.rate, 3)} for r in rates(self.outcomes)],
            "attempts": [asdict(o) for o in self.outcomes],
            "echo_probes": [asdict(o) for o in self.probes],
            "suggestions": {s.key: {"value": s.value, "current": s.current, "why": s.why} for s in self.suggestions},
            "missing_words": self.missing_words, "notes": self.notes,
        }

    def text(self) -> str:
        who = _("the host's own voice") if self.mode == "voice" else _("a player reading")
        lines = [_("voicehost ears test: {who}, {count} phrases; model {model}; microphone {microphone}").format(
                 who=who, count=len(self.outcomes), model=self.model, microphone=self.microphone), ""]
        floor = self.floor
        lines.append(_("Noise floor: {rms:.1f} dBFS RMS over {seconds:.1f} s of quiet (peaks {peaks:.1f} dBFS): "
                       "{verdict}").format(rms=floor.rms_dbfs, seconds=floor.seconds, peaks=floor.peaks_dbfs,
                                           verdict=_(floor.verdict)))
        speech = self.speech_dbfs()
        if speech is not None:
            lines.append(_("Speech at the microphone: {speech:.1f} dBFS, {above:.0f} dB above the room").format(
                speech=speech, above=speech - floor.rms_dbfs))
        if self.missing_words:
            lines.append(_("Not in the model's vocabulary (never heard): {words}").format(
                words=", ".join(self.missing_words)))
        lines += ["", _("Phrase → what the host understood")]
        width = max((len(r.phrase) for r in rates(self.outcomes)), default=0)
        for rate in rates(self.outcomes):
            wrong = [h or _("(nothing)") for h in rate.heard if not same_meaning(rate.phrase, h)]
            lines.append(f"  {rate.phrase:<{width}}  {rate.right}/{rate.tries} {rate.rate:4.0%}"
                         + (_("  heard: {wrong}").format(wrong=" | ".join(wrong)) if wrong else ""))
        right = sum(o.right for o in self.outcomes)
        lines += ["", _("Understood: {right} of {tries} ({rate:.0%})").format(
                      right=right, tries=len(self.outcomes), rate=self.rate)
                  + ("" if self.passed else _(": below {rate:.0%}, the room or the microphone needs work").format(
                      rate=PASS_RATE))]
        lines += self._measurements()
        lines += ["", _("Suggested [ears] settings for the table file (now in force in brackets):")]
        for s in self.suggestions:
            shown = "—" if s.value is None else f"{s.value:g}"
            now = _("unset") if s.current is None else f"{s.current:g}"
            why = said(s.template, s.values) if s.template else s.why
            lines.append(f"  {s.key} = {shown:<6} # [{now}] {why}")
        lines += [_("Note: {note}").format(note=_(note)) for note in self.notes]
        return "\n".join(lines)

    def _measurements(self) -> list[str]:
        lines = []
        endpoints = [e for o in self.outcomes for e in o.endpoint_s]
        if endpoints:
            lines.append(_("Endpoint: a result came {median:.2f} s after the last word (median; {most:.2f} s at most)")
                         .format(median=np.median(endpoints), most=max(endpoints)))
        tails = [o.echo_tail_s for o in (*self.outcomes, *self.probes) if o.echo_tail_s is not None]
        if tails:
            lines.append(_("Echo: the host's voice was gone from the microphone {when} its line ended "
                           "(median; {latest} at the latest)").format(when=_after(float(np.median(tails))),
                                                                       latest=_after(max(tails))))
        right = [o.confidence for o in self.outcomes if o.right and o.confidence is not None]
        if right:
            lines.append(_("Confidence of right phrases: {median:.2f} median, {lowest:.2f} lowest").format(
                median=np.median(right), lowest=min(right)))
        return [""] + lines if lines else []


def build_report(mode: str, model: str, microphone: str, meter: LevelMeter, quiet: tuple[float, float],
                 attempts: Sequence[Attempt], probes: Sequence[Attempt], results: Sequence[Heard],
                 current: Mapping[str, float | None], missing_words: Sequence[str] = (),
                 notes: Sequence[str] = ()) -> Report:
    """Measure every attempt from the meter and vosk's results, and suggest the settings.
    ``current``: the settings in force (hold_off_s, rule2_s…rule4_s, min_confidence)."""
    floor = noise_floor(meter.span(*quiet))
    everything = [*probes, *attempts]
    for attempt, heard in zip(everything, assign(results, [a.start for a in everything], meter.clock), strict=True):
        attempt.heard = heard
    probe_outcomes = [measure(a, meter, floor) for a in probes]
    outcomes = [measure(a, meter, floor) for a in attempts]
    tails = [o.echo_tail_s for o in (*probe_outcomes, *outcomes) if o.echo_tail_s is not None]
    pauses = [o.pause_s for o in outcomes if o.right and o.pause_s is not None]
    splits = sum(1 for o in outcomes if o.parts > 1)
    endpoint = {key: float(current.get(key) or VOSK_ENDPOINT[key]) for key in VOSK_ENDPOINT}
    suggestions = [suggest_hold_off(tails, float(current.get("hold_off_s") or 0.0)),
                   *suggest_endpoint(pauses, splits, endpoint),
                   suggest_min_confidence([o.confidence for o in outcomes if o.right and o.confidence is not None],
                                          [o.confidence for o in outcomes if not o.right and o.confidence is not None],
                                          current.get("min_confidence"))]
    return Report(mode, model, microphone, floor, outcomes, probe_outcomes, suggestions, list(missing_words),
                  [*notes, *_notes(mode, outcomes, endpoint["rule2_s"], floor)])


def _notes(mode: str, outcomes: Sequence[PhraseResult], rule2: float, floor: NoiseFloor) -> list[str]:
    notes = []
    endpoints = [e for o in outcomes for e in o.endpoint_s]
    if endpoints and float(np.median(endpoints)) > rule2 + LATE_ENDPOINT_S:
        notes.append(f"results came {np.median(endpoints):.2f} s after the last word, later than rule2_s "
                     f"({rule2:g} s): vosk was unsure where speech ended (noise or echo), so rule 3 or 4 ended it")
    if outcomes and not any(o.heard for o in outcomes):
        notes.append("nothing at all was heard: is the microphone the right one, and unmuted?")
    if mode == "voice":
        notes.append("the pauses and confidences here are the host's own clean voice; run with --read to "
                     "measure players (rule2_s and min_confidence then fit people)")
    if floor.rms_dbfs <= FLOOR_DBFS + 1:
        notes.append("the microphone returned digital silence while the room was quiet (a virtual device?)")
    return notes


# ---- the session at the table ----------------------------------------------------------------------

Say = Callable[[str], tuple[float, float]]   # speaks a line; returns when it began and ended (monotonic)
Show = Callable[[str], None]

ECHO_WATCH_S = 1.5      # listened after each of the host's lines, to see its echo die
READ_SETTLE_S = 2.0     # after a player's result, the second half of a phrase cut by a long pause


class CalibrationRun:
    """Plays or prompts the phrases one at a time and waits for the ears; collects every result."""

    def __init__(self, heard: queue.Queue[Heard], say: Say, show: Show, clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        self.heard = heard
        self.say = say
        self.show = show
        self.clock = clock
        self.sleep = sleep
        self.results: list[Heard] = []

    def settle(self, meter: LevelMeter, patience_s: float = 8.0) -> bool:
        """Wait until the microphone delivers steadily (False: it never did within ``patience_s``)."""
        deadline = self.clock() + patience_s
        while not meter.steady(self.clock()):
            if self.clock() >= deadline:
                return False
            self._drain(self.clock() + 0.1)
        return True

    def quiet(self, seconds: float, latency_s: float = 0.3) -> tuple[float, float]:
        """Nothing played for ``seconds``: the span whose level is the room's noise floor."""
        start = self.clock()
        self.sleep(seconds)
        end = self.clock()
        self.sleep(latency_s)   # the microphone's last blocks of the span arrive a little later
        self._drain(self.clock())
        return start, end

    def host_says(self, phrase: str, timeout: float) -> Attempt:
        """The host speaks ``phrase``; listen until a result covers the whole line and the echo
        has had time to die, or ``timeout`` after the line."""
        onset, line_end = self.say(phrase)
        deadline = line_end + timeout
        while True:
            now = self.clock()
            covered = any(h.t_end >= line_end for h in self.results if h.t_end >= onset)
            if (covered and now >= line_end + ECHO_WATCH_S) or now >= deadline:
                return Attempt(phrase, onset, now, line_end)
            self._drain(min(deadline, now + 0.05))

    def player_reads(self, phrase: str, timeout: float, number: str = "") -> Attempt:
        """Show ``phrase`` to a player; listen until he has said it (and a possible second half)
        or ``timeout`` passes without a word."""
        start = self.clock()
        self.show(f"{number}say: «{phrase}»")
        deadline = start + timeout
        while True:
            now = self.clock()
            mine = [h for h in self.results if h.t_end > start]
            if (mine and now >= mine[-1].t_end + READ_SETTLE_S) or (not mine and now >= deadline):
                return Attempt(phrase, start, now)
            self._drain(min(deadline if not mine else mine[-1].t_end + READ_SETTLE_S, now + 0.05))

    def _drain(self, until: float) -> None:
        """Collect results until ``until`` (at least whatever is already there)."""
        while True:
            try:
                self.results.append(self.heard.get(timeout=max(0.0, until - self.clock())))
            except queue.Empty:
                return
