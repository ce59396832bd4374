"""The judge's spoken commands (push-to-talk, docs/accessibility.md): a small Russian grammar —
«пауза», «продолжить», «плюс тридцать», «фол игроку пять», «статус», «отмена» — read from what
the recogniser made of them, slips included («пауз», «фол игроку номер пять», «фол пятому»).

A command is the judge console's own line (``pause``, ``time +30``, ``foul 5`` …); «отмена»
(:data:`CANCEL`) takes back the command still waiting for its confirmation.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

from voicehost.language.numbers import read_number
from voicehost.language.parser import normalize
from voicehost.language.russian import cardinal

CANCEL = "cancel"
# A word as the recogniser may give it, close enough to one of these, is that word.
_WORDS = {"пауза": "pause", "продолжить": "resume", "продолжаем": "resume", "статус": "status",
          "отмена": CANCEL, "отменить": CANCEL, "плюс": "plus", "фол": "foul", "замечание": "foul"}
_SKIP = frozenset({"игроку", "игрок", "номер", "номеру", "секунд", "секунды", "пожалуйста"})
_CUTOFF = 0.75


def judge_grammar(seats: Iterable[int]) -> list[str]:
    """The phrases the recogniser listens for while the judge holds the talk key."""
    return ["пауза", "продолжить", "плюс тридцать", "статус", "отмена",
            *(f"фол игроку {cardinal(seat)}" for seat in seats)]


def _word(token: str) -> str | None:
    close = difflib.get_close_matches(token, list(_WORDS), n=1, cutoff=_CUTOFF)
    return _WORDS[close[0]] if close else None


def judge_command(text: str, seats: int) -> str | None:
    """The console line the judge said (:data:`CANCEL` for «отмена»), or None when it is none
    of his commands (or a foul names no seat at this table)."""
    tokens = normalize(text)
    for i, token in enumerate(tokens):
        word = _word(token)
        if word in ("pause", "resume", "status", CANCEL):
            return word
        if word == "plus":
            number = read_number(tokens, i + 1)
            return f"time +{number[0]}" if number is not None and 0 < number[0] <= 90 else None
        if word == "foul":
            rest = [t for t in tokens[i + 1:] if t not in _SKIP]
            number = read_number(rest, 0)
            return f"foul {number[0]}" if number is not None and 1 <= number[0] <= seats else None
    return None
