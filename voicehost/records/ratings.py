"""Per-player figures for a season: games, wins, win rate by team and by role, points, fouls
and best-player votes, sorted by points.

Points are the ruleset's scoring (docs/rules.md, `sport` «Scores», one function:
:func:`voicehost.rules.sport.seat_points`): by default each game under the scheme it was played
with — the protocol's scores plus the table's best-player vote; ``scoring=NAME`` rates every
game under one scheme instead (a game whose ruleset has no scheme scores nothing).

A game scored again under another scheme keeps what its table decided (docs/rules.md
"Tournament scoring"): a removal's forfeit where its options said so, the best move's black
seats (the scheme's ``best_move_N`` points) and the judge's points, all read from its protocol.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from voicehost.config import load_ruleset, ruleset_names
from voicehost.language.i18n import _
from voicehost.rules import InputError, Role
from voicehost.rules.sport import seat_points


@dataclass
class Rating:
    player: str
    games: int = 0
    wins: int = 0
    points: float = 0.0
    fouls: int = 0
    best_player: int = 0
    by_role: dict[str, list[int]] = field(default_factory=dict)  # team or role → [games, wins]

    def as_dict(self) -> dict[str, Any]:
        return {"player": self.player, "games": self.games, "wins": self.wins,
                "win_rate": _rate(self.wins, self.games), "points": round(self.points, 2), "fouls": self.fouls,
                "best_player": self.best_player,
                "by_role": {key: {"games": g, "wins": w, "win_rate": _rate(w, g)}
                            for key, (g, w) in sorted(self.by_role.items())}}


def _rate(wins: int, games: int) -> float:
    return round(wins / games, 4) if games else 0.0


@cache
def _schemes() -> tuple[dict[str, Mapping[str, float]], dict[tuple[str, str], Mapping[str, float]]]:
    """Every scoring scheme the rulesets define: by name, and by (ruleset, name)."""
    by_ruleset = {(name, scheme): points for name in ruleset_names()
                  for scheme, points in load_ruleset(name).scoring.items()}
    return {scheme: points for (_, scheme), points in by_ruleset.items()}, by_ruleset


def scoring_schemes() -> dict[str, Mapping[str, float]]:
    """Every scoring scheme the rulesets define, by name (seed001, showtime, …)."""
    return _schemes()[0]


def check_scoring(scoring: str | None) -> None:
    if scoring is not None and scoring not in scoring_schemes():
        known = ", ".join(sorted(scoring_schemes()))
        raise InputError("--scoring", _("unknown scheme {scoring!r} (known: {known})").format(
                                          scoring=scoring, known=known))


def points_of(row: Mapping[str, Any], scoring: str | None = None) -> float:
    """One seat's points: as played (the protocol's, which hold the best move and the judge's
    points, plus the best-player vote), or under ``scoring``."""
    if scoring is None:
        as_played = _schemes()[1].get((row["ruleset"], row["scoring"]), {})
        return float(row["points"]) + (as_played.get("best_player", 0.0) if row["best_player"] else 0.0)
    extras = tournament_extras(row.get("seat"), row.get("out_cause"), bool(row.get("removal_forfeits")),
                               row.get("best_move"), row.get("judge_points"))
    return seat_points(scoring_schemes()[scoring], Role(row["role"]), bool(row["alive"]), row["winner"],
                       bool(row["best_player"]), *extras)


def scores_by_scheme(ruleset: str, winner: str | None, seats: Iterable[Any],
                     protocol: Mapping[str, Any] | None = None) -> dict[str, dict[str, float]]:
    """A game's points under every scheme of its ruleset, seat by seat (``seats``: SeatRecords;
    ``protocol``: the game's, for its tournament scoring)."""
    seats = list(seats)
    played = protocol or {}
    options = played.get("options")
    forfeits = isinstance(options, Mapping) and options.get("removal_forfeits") is True
    extras = {s.seat: tournament_extras(s.seat, s.out_cause, forfeits, played.get("best_move"),
                                        played.get("judge_points")) for s in seats}
    return {scheme: {str(s.seat): seat_points(points, Role(s.role), s.alive, winner, s.best_player, *extras[s.seat])
                     for s in seats}
            for (name, scheme), points in _schemes()[1].items() if name == ruleset}


def tournament_extras(seat: Any, out_cause: Any, forfeits: bool, best_move: Any,
                      judge_points: Any) -> tuple[bool, int, float]:
    """What a seat's game decided beyond the scheme, from its stored protocol: (forfeited,
    black seats of his best move, the judge's points). A protocol from outside may hold anything:
    what is not as voicehost writes it counts nothing."""
    forfeited = forfeits and out_cause == "removed"
    black = 0
    if isinstance(best_move, Mapping) and best_move.get("by") == seat:
        count = best_move.get("black")
        black = count if isinstance(count, int) and not isinstance(count, bool) and 0 <= count <= 3 else 0
    judge = 0.0
    for given in judge_points if isinstance(judge_points, list) else []:
        if not isinstance(given, Mapping) or given.get("seat") != seat:
            continue
        points = given.get("points")
        if isinstance(points, (int, float)) and not isinstance(points, bool) and math.isfinite(points) \
                and abs(points) <= 1000:
            judge += float(points)
    return forfeited, black, judge


def ratings(rows: Iterable[Mapping[str, Any]], scoring: str | None = None) -> list[Rating]:
    """The season's table from :meth:`Records.seat_rows`; best first (points, then wins, then name)."""
    check_scoring(scoring)
    table: dict[str, Rating] = {}
    for row in rows:
        rating = table.setdefault(row["nickname"], Rating(row["nickname"]))
        rating.games += 1
        rating.wins += bool(row["won"])
        rating.fouls += int(row["fouls"])
        rating.best_player += bool(row["best_player"])
        rating.points += points_of(row, scoring)
        for key in (row["team"], row["role"]):
            counts = rating.by_role.setdefault(key, [0, 0])
            counts[0] += 1
            counts[1] += bool(row["won"])
    return sorted(table.values(), key=lambda r: (-r.points, -r.wins, r.player))
