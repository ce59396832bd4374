"""A stored game as the records hand it out (:class:`GameRecord`, its seats :class:`SeatRecord`),
apart from :mod:`voicehost.records.games`, which makes them from protocols and journals: reading
the records (:mod:`voicehost.records.reader`) needs the shapes, not the host that plays journals."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:   # annotations only: uuid brings platform, which a read of no game needs
    import uuid
    from datetime import datetime


@dataclass(frozen=True)
class SeatRecord:
    seat: int
    player: str | None
    role: str
    team: str
    alive: bool
    won: bool
    fouls: int
    out_cause: str | None
    out_day: int | None
    out_night: int | None
    points: float
    best_player: bool = False


@dataclass(frozen=True)
class GameRecord:
    id: uuid.UUID
    played_at: datetime  # UTC, naive
    table: str | None
    ruleset: str
    options: dict[str, Any]
    winner: str | None
    reason: str | None
    seats: list[SeatRecord]
    protocol: dict[str, Any] = field(repr=False)
