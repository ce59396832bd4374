"""How sure the host is of what it heard, and how the table corrects it.

A recognizer in a club room confuses «шесть» and «семь», drops and adds words, splits a phrase
in two and picks up a neighbour. At an unattended table nobody notices a misheard nomination,
so the host does not guess: a nomination whose seat number came with a low confidence, or
that the recognizer's alternatives read as another seat, is not taken — the host says
«Повторите номер» (once a speech; then the judge or the buttons decide). Every nomination it
takes is echoed, and the speaker can veto it by pressing his own button while the echo's
window is open. A phrase cut in two («выставляю игрока» … «номер шесть») is joined again.
"""

from __future__ import annotations

from dataclasses import dataclass

from audio.listener import Heard
from voicehost.language.intents import NominateIntent, WithdrawIntent
from voicehost.language.numbers import read_number
from voicehost.language.parser import garbled_nomination, normalize, parse, waits_for_number

MIN_CONFIDENCE = 0.75   # a seat number heard less surely than this is asked again
VETO_S = 3.0            # the speaker's button vetoes a nomination this long after its echo begins
JOIN_S = 2.5            # a phrase's two halves are one phrase when this close
FALSE_END_S = 4.0       # a speaker who holds his button this long after a heard «спасибо» gets the floor back
HOLD_S = 0.6            # … holding it at least this long (a tap is not enough)


@dataclass
class HearingSettings:
    """The table file's ``[ears]`` knobs for doubt and correction (times in table seconds)."""

    min_confidence: float = MIN_CONFIDENCE
    veto_s: float = VETO_S
    join_s: float = JOIN_S
    false_end_s: float = FALSE_END_S
    hold_s: float = HOLD_S
    ask_again: bool = True   # False: take every nomination as heard (the benchmark's "without" run)


def nominated_seats(text: str) -> list[tuple[str, int]]:
    """The nominations and withdrawals in ``text`` as (kind, seat), in spoken order."""
    return [("nominate" if isinstance(i, NominateIntent) else "withdraw", i.seat)
            for i in parse(text) if isinstance(i, (NominateIntent, WithdrawIntent))]


def doubtful(heard: Heard, text: str, settings: HearingSettings, any_word: bool = False) -> bool:
    """True when a seat number in ``text`` (the utterance as the host reads it) is unsure: one
    of its number words (``any_word``: any word, for an answer that is a name) came with a low
    confidence, an alternative reading names other seats, or a nominating verb has no number."""
    if not settings.ask_again:
        return False
    for word, confidence in heard.word_confidences():
        if confidence < settings.min_confidence and (any_word or _is_number_word(word)):
            return True
    if garbled_nomination(text):
        return True
    mine = nominated_seats(text)
    return any(nominated_seats(other) != mine for other in heard.alternatives() if nominated_seats(other))


def _is_number_word(word: str) -> bool:
    tokens = normalize(word)
    return bool(tokens) and read_number(tokens, 0) is not None


class Joiner:
    """Keeps a phrase whose verb came without a number («выставляю игрока») for the next
    utterance, if it follows within ``join_s``."""

    def __init__(self, join_s: float) -> None:
        self.join_s = join_s
        self.pending: tuple[str, float] | None = None

    def text_of(self, heard: Heard) -> str | None:
        """The text to read now (the held half prepended), or None while a half is held."""
        text = heard.text
        if self.pending is not None:
            held, at = self.pending
            self.pending = None
            if heard.t_end - at <= self.join_s:
                text = f"{held} {text}"
        if waits_for_number(text):
            self.pending = (text, heard.t_end)
            return None
        return text


@dataclass
class TakeBack:
    """An input its speaker may still take back with his button until ``until``: the end of
    his speech by a heard «спасибо» (he holds the button ``hold`` seconds; he gets ``time_left``
    back), or an answer the host took (a press; «Отменено»)."""

    seat: int
    index: int
    """The input's place in the game."""
    since: float
    """Presses from here on count (the loop's clock, where presses are stamped)."""
    until: float
    """The window closes (table seconds, :class:`~voicehost.host.clock.TableClock`)."""
    hold: float = 0.0
    """Table seconds the button must be held."""
    time_left: float | None = None
    """Table seconds of the speech given back."""
    line: str = "vetoed"
    """What the host says when it is taken back."""
