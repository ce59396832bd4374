"""A recognizer that makes mistakes on purpose: the table level's words, misheard the way a
club room mishears them, so the host's doubt and the table's veto can be measured.

Each word a simulated person says may be swapped for an acoustically close one (the numerals
that vosk confuses and their case forms, «выставляю»/«оставляю», «отзываю»/«отказываю»),
dropped, or joined by an extra word; an utterance may be cut in two; a neighbour's words may
come in during a speech. Word confidences and an alternative reading come with each result,
shaped like vosk's own JSON, so the host reads them exactly as it reads the real recognizer.
The model is seeded: the same seed mishears the same game the same way.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

# Pairs a recognizer confuses; each way round.
CLOSE_PAIRS = (
    ("шесть", "семь"), ("шестого", "седьмого"), ("шестой", "седьмой"), ("шестым", "седьмым"),
    ("два", "двенадцать"), ("второго", "двенадцатого"), ("второй", "двенадцатый"),
    ("один", "одиннадцать"), ("первого", "одиннадцатого"), ("первый", "одиннадцатый"),
    ("пять", "пятнадцать"), ("пятого", "пятнадцатого"), ("девять", "десять"), ("девятого", "десятого"),
    ("три", "тринадцать"), ("третьего", "тринадцатого"), ("четыре", "четырнадцать"),
    ("восемь", "восемнадцать"),
    ("выставляю", "оставляю"), ("отзываю", "отказываю"),
)
CONFUSED = {a: b for a, b in CLOSE_PAIRS} | {b: a for a, b in CLOSE_PAIRS}
# Words a room adds: fillers, a stray number, now and then a «спасибо» that was not the speaker's.
INSERTED = ("ну", "вот", "так", "это", "и", "а", "номер", "игрок", "три", "пять", "спасибо")
NEIGHBOUR = ("выставляю игрока номер {seat}", "спасибо", "ну да", "номер {seat}")


@dataclass(frozen=True)
class ErrorRates:
    """Per word: swapped, dropped, added (their sum is the word error rate); per utterance: cut
    in two, a neighbour heard after it. Confidences: how often a swapped or added word comes
    back unsure (a recognizer often knows), and how often a right word does (it sometimes doubts)."""

    substitution: float
    deletion: float
    insertion: float
    split: float
    neighbour: float
    unsure_when_wrong: float = 0.7
    unsure_when_right: float = 0.02
    alternative_when_wrong: float = 0.5

    @classmethod
    def at(cls, wer: float) -> ErrorRates:
        """An overall word error rate ``wer``: half swaps, a quarter each drops and additions."""
        return cls(substitution=wer / 2, deletion=wer / 4, insertion=wer / 4, split=wer, neighbour=wer / 2)


@dataclass(frozen=True)
class Misheard:
    """One utterance as the recognizer returns it: its text and a vosk-shaped result."""

    text: str
    raw: dict[str, object]


class Mishearing:
    """Turns what a person said into what the ears return (one utterance or more)."""

    def __init__(self, rates: ErrorRates, seed: int, seats: int) -> None:
        self.rates = rates
        self.rng = random.Random(seed)
        self.seats = seats
        self.words_heard = 0
        self.words_wrong = 0

    def hear(self, text: str) -> list[Misheard]:
        words, truths = self._words(text.split())
        parts = [(words, truths)]
        if len(words) >= 4 and self.rng.random() < self.rates.split:
            cut = self.rng.randint(1, len(words) - 1)
            parts = [(words[:cut], truths[:cut]), (words[cut:], truths[cut:])]
        heard = [self._result(w, t, text) for w, t in parts if w]
        if self.rng.random() < self.rates.neighbour:
            phrase = self.rng.choice(NEIGHBOUR).format(seat=self._seat_word())
            heard.append(self._result(phrase.split(), [False] * len(phrase.split()), None))
        return heard

    def _words(self, said: list[str]) -> tuple[list[str], list[bool]]:
        """The words heard, and for each whether it is what was said."""
        rates, rng = self.rates, self.rng
        words: list[str] = []
        truths: list[bool] = []
        for word in said:
            self.words_heard += 1
            roll = rng.random()
            if roll < rates.deletion:
                self.words_wrong += 1
                continue
            if roll < rates.deletion + rates.substitution:
                self.words_wrong += 1
                words.append(CONFUSED.get(word.lower(), rng.choice(INSERTED[:6])))
                truths.append(False)
            else:
                words.append(word)
                truths.append(True)
            if rng.random() < rates.insertion:
                self.words_wrong += 1
                words.append(rng.choice(INSERTED))
                truths.append(False)
        return words, truths

    def _seat_word(self) -> str:
        from voicehost.language.russian import cardinal
        return cardinal(self.rng.randint(1, self.seats))

    def _result(self, words: list[str], truths: list[bool], said: str | None) -> Misheard:
        rates, rng = self.rates, self.rng
        result = []
        for word, right in zip(words, truths, strict=True):
            unsure = rng.random() < (rates.unsure_when_right if right else rates.unsure_when_wrong)
            confidence = rng.uniform(0.3, 0.7) if unsure else rng.uniform(0.8, 1.0)
            result.append({"word": word, "conf": round(confidence, 3)})
        text = " ".join(words)
        raw: dict[str, object] = {"text": text, "result": result}
        if said is not None and not all(truths) and rng.random() < rates.alternative_when_wrong:
            raw = {"alternatives": [{"text": text, "result": result}, {"text": said.lower()}]}
        return Misheard(text, raw)
