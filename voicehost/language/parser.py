"""The phrase parser: a recognizer transcript or a script's speech → intents.

vosk's grammar mode can produce word salad, so this is the guard and it is strict:
only the present tense nominates («выставляю»; not «выставлю», «выставил бы», «не
выставляю»), a nomination needs a seat number right after the verb and its fillers
(«выставляю его» is nothing), and «спасибо», «пас» or «всё» ends a speech only at the end of
an utterance.
"""

from __future__ import annotations

import re

from voicehost.language.intents import EndIntent, ForbiddenIntent, Intent, NominateIntent, WithdrawIntent
from voicehost.language.numbers import read_number

NOMINATE_VERBS = frozenset({"выставляю"})
WITHDRAW_VERBS = frozenset({"отзываю"})
NEGATIONS = frozenset({"не"})
# Words allowed between the verb and the number, in any order the seeds use:
# «выставляю на голосование кандидатуру игрока под номером N», «отзываю игрока № N с голосования».
FILLERS = frozenset({
    "на", "голосование", "кандидатуру", "кандидатура", "игрока", "игрок", "номер",
    "номером", "под", "с", "голосования",
})
END_WORDS = frozenset({"спасибо", "пас", "все"})  # «все» is «всё» once ё is folded

_PUNCTUATION = re.compile(r"[^\w\s-]|_")
_LOOSE_HYPHEN = re.compile(r"(?<!\d)-|-(?!\w)")


def normalize(text: str) -> list[str]:
    """Lower case, ё → е, «№5» → «номер 5», punctuation gone; hyphens kept only in «5-го»."""
    text = text.lower().replace("ё", "е").replace("№", " номер ")
    text = _PUNCTUATION.sub(" ", text)
    text = _LOOSE_HYPHEN.sub(" ", text)
    return text.split()


def parse(text: str, forbidden: frozenset[str] = frozenset()) -> list[Intent]:
    """Every nomination and withdrawal in spoken order, then the end of speech if it ends one.
    ``forbidden``: the club's forbidden words (normalized), each reported where it is said."""
    tokens = normalize(text)
    intents: list[Intent] = []
    i = 0
    while i < len(tokens):
        word = tokens[i]
        if word in forbidden:
            intents.append(ForbiddenIntent(word))
        if word in NOMINATE_VERBS or word in WITHDRAW_VERBS:
            target = _read_target(tokens, i + 1)
            negated = i > 0 and tokens[i - 1] in NEGATIONS
            if target is not None:
                seat, i = target
                if not negated:
                    intents.append(NominateIntent(seat) if word in NOMINATE_VERBS else WithdrawIntent(seat))
                continue
        i += 1
    if _ends_speech(tokens):
        intents.append(EndIntent())
    return intents


def _read_target(tokens: list[str], start: int) -> tuple[int, int] | None:
    i = start
    while i < len(tokens) and tokens[i] in FILLERS:
        i += 1
    return read_number(tokens, i)


def _ends_speech(tokens: list[str]) -> bool:
    """«спасибо», «пас», «всё» as the last word of an utterance: «у меня всё», «всё, спасибо»,
    «спасибо, всё», «я пас», «выставляю пятого, всё». Inside a sentence they end nothing
    («все тут мирные», «все покидают», «спасибо за игру»)."""
    return bool(tokens) and tokens[-1] in END_WORDS


def parse_seat_answer(text: str, names: dict[int, str] | None = None) -> int | None:
    """An answer naming one player — the nomination round of ``canonical`` («Анна»), a blood
    name («номер семь», «седьмой») — as a seat, or None. With a roster, names are matched
    whole-word, case- and ё-insensitively; the longest name wins."""
    tokens = normalize(text)
    joined = f" {' '.join(tokens)} "
    if names:
        found = [(len(name), seat) for seat, name in names.items()
                 if f" {' '.join(normalize(name))} " in joined]
        if found:
            return max(found)[1]
    for i in range(len(tokens)):
        number = read_number(tokens, i)
        if number is not None:
            return number[0]
    return None


def forbidden_words(words: list[str] | tuple[str, ...]) -> frozenset[str]:
    """The club's list as the parser compares it (lower case, ё → е)."""
    return frozenset(token for word in words for token in normalize(word))


def waits_for_number(text: str) -> bool:
    """True when ``text`` ends with a nominating or withdrawing verb and its fillers but no
    number yet — the first half of a phrase the recognizer cut in two."""
    tokens = normalize(text)
    for i in range(len(tokens) - 1, -1, -1):
        if tokens[i] in NOMINATE_VERBS or tokens[i] in WITHDRAW_VERBS:
            return all(token in FILLERS for token in tokens[i + 1:]) and not (i > 0 and tokens[i - 1] in NEGATIONS)
        if tokens[i] not in FILLERS:
            return False
    return False


def garbled_nomination(text: str) -> bool:
    """True when a nominating or withdrawing verb in ``text`` has no seat number after it —
    a nomination the recognizer mangled, not a speech that merely mentions the word."""
    tokens = normalize(text)
    return any((word in NOMINATE_VERBS or word in WITHDRAW_VERBS) and _read_target(tokens, i + 1) is None
               and not (i > 0 and tokens[i - 1] in NEGATIONS) for i, word in enumerate(tokens))
