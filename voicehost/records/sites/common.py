"""What both rating sites take from a stored tournament game, read once from its protocol: the
seats, when each foul fell (the day or night the protocol files it under), the best move, the
table's best player and the judge's points, the start and the end.

Numbering. voicehost counts the arrangement night as night 1 and the first day as day 1; the
first kill is at night 2. mafiaratings counts rounds from 0 (night 0 the arrangement, day 0 the
first day, night 1 the first shooting) and Polemica days from 1 with night N after day N, so
voicehost's day D is mafiaratings' round D-1 and Polemica's day D, and voicehost's night N is
mafiaratings' round N-1 and Polemica's night N-1.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from voicehost.records.games import VOIDED

if TYPE_CHECKING:
    from voicehost.records.games import SeatRecord
    from voicehost.records.tournament import PlayedGame

SEATS = 10   # both sites file ten-seat games only


@dataclass(frozen=True)
class Moment:
    """A phase of a voicehost game: ``("day", 2)`` or ``("night", 3)``."""

    phase: str
    number: int


@dataclass(frozen=True)
class SiteGame:
    """One game as the sites see it; ``number``: its place in the tournament's order (1, 2, …)."""

    game: PlayedGame
    number: int
    seats: list[SeatRecord]
    fouls: dict[int, list[Moment | None]]   # seat → each foul's moment (None: the protocol does not say)
    foul_times: dict[int, list[str]]        # seat → each foul's wall-clock time, as far as the journal knew
    best_move: tuple[int, tuple[int, ...]] | None
    best_player: int | None
    judge_points: dict[int, float]
    started: str
    ended: str | None

    @property
    def protocol(self) -> Mapping[str, Any]:
        return self.game.protocol


def exportable(games: Sequence[PlayedGame]) -> list[PlayedGame]:
    """The games a site takes: finished (an annulled or stopped game has no result to file) and
    at a ten-seat table."""
    return [g for g in games if g.protocol.get("result") not in VOIDED and g.protocol.get("winner") is not None
            and len(g.protocol.get("seats", {})) == SEATS]


def site_game(game: PlayedGame, number: int) -> SiteGame:
    from voicehost.records.tournament import game_seats

    protocol = game.protocol
    seats = game_seats(game)
    best = protocol.get("best_move")
    move = (int(best["by"]), tuple(int(s) for s in best.get("seats", []))) if isinstance(best, Mapping) else None
    points: dict[int, float] = {}
    for given in protocol.get("judge_points", []) or []:
        points[int(given["seat"])] = points.get(int(given["seat"]), 0.0) + float(given["points"])
    voted = next((s.seat for s in seats if s.best_player), None)
    return SiteGame(game, number, seats, foul_moments(protocol), foul_times(protocol), move, voted, points,
                    str(protocol.get("started") or ""), _stamp(protocol.get("ended")))


def foul_times(protocol: Mapping[str, Any]) -> dict[int, list[str]]:
    """The protocol's ``foul_times`` (from the game's journal: :mod:`voicehost.host.journal_clock`)
    by seat, in order; an entry that is not a seat and a time is left out."""
    found: dict[int, list[str]] = {}
    entries = protocol.get("foul_times")
    for entry in entries if isinstance(entries, list) else []:
        if isinstance(entry, Mapping) and isinstance(entry.get("seat"), int) and _stamp(entry.get("at")):
            found.setdefault(int(entry["seat"]), []).append(str(entry["at"]))
    return found


def _stamp(value: Any) -> str | None:
    """A time as voicehost writes one (``2026-12-05T18:10:00Z``), or None."""
    from voicehost.records.checks import parse_started

    return str(value) if parse_started(value) is not None else None


def foul_moments(protocol: Mapping[str, Any]) -> dict[int, list[Moment | None]]:
    """Each seat's fouls in order, each with the day or night the protocol lists it under; a
    foul the seat's count has but no phase lists (a protocol from before phases kept them) has
    no moment."""
    found: dict[int, list[Moment | None]] = {}
    phases = [("night", n) for n in protocol.get("nights", [])] + [("day", d) for d in protocol.get("days", [])]
    ordered = sorted(phases, key=lambda item: (int(item[1].get(item[0], 0)), item[0] == "day"))
    for kind, phase in ordered:
        for entry in phase.get("fouls", []) or []:
            found.setdefault(int(entry["seat"]), []).append(Moment(kind, int(phase[kind])))
    for seat, entry in protocol.get("seats", {}).items():
        listed = found.setdefault(int(seat), [])
        listed.extend([None] * max(0, int(entry.get("fouls", 0)) - len(listed)))
        del listed[int(entry.get("fouls", 0)):]
    return found
