"""What a player's words mean to the host: typed intents, in spoken order."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class NominateIntent:
    seat: int

    def to_dict(self) -> dict[str, Any]:
        return {"type": "nominate", "seat": self.seat}


@dataclass(frozen=True)
class WithdrawIntent:
    seat: int

    def to_dict(self) -> dict[str, Any]:
        return {"type": "withdraw", "seat": self.seat}


@dataclass(frozen=True)
class EndIntent:
    """«Спасибо», «Спасибо, всё», «Пас»: the speaker gives up the floor."""

    def to_dict(self) -> dict[str, Any]:
        return {"type": "end"}


@dataclass(frozen=True)
class ForbiddenIntent:
    """A word the club forbids («честно», «клянусь»…) was said: a foul, if the club enables it."""

    word: str

    def to_dict(self) -> dict[str, Any]:
        return {"type": "forbidden", "word": self.word}


Intent = NominateIntent | WithdrawIntent | EndIntent | ForbiddenIntent
