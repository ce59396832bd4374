"""Each seat's scoring figures, worked out once when a game is stored (records 0006), so that
standings, ratings and Elo read columns that SQL can sum instead of every stored protocol.

What a game decided beyond its seats (:class:`~voicehost.rules.scoring.GameFacts`: the best
move, the judge's points, the first shooting night, the team removal, ``removal_forfeits``)
is read from the protocol by :func:`game_facts` (below), the same function
the scoring used before, then spread over the seats: who was killed in the first shooting
night, how many black seats the seat's best move named, the judge's points of the seat, and
whether its removal made its team lose. :func:`game_facts_from` puts them back together, so
:func:`voicehost.rules.scoring.score_game` (the one place a seat is scored) gets the same
facts either way; tests/test_records_scale.py holds the two equal on generated games.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from voicehost.rules import Role
from voicehost.rules.scoring import GameFacts, SeatFacts, killed_first_night

NO_NIGHT = -1   # the first shooting night of a game where nobody was killed in it: no seat's night


def seat_figures(winner: str | None, seats: Sequence[SeatFacts], protocol: Mapping[str, Any],
                 options: Mapping[str, Any]) -> tuple[dict[str, Any], dict[int, dict[str, Any]]]:
    """The game's figures (``scoring``, ``removal_forfeits``) and each seat's (``killed_first``,
    ``best_move_black``, ``judge_points``, ``team_removed``), from its protocol and the options
    it was played with; ``protocol`` carries ``ruleset``."""
    facts = game_facts(winner, seats, protocol)
    scoring = options.get("scoring")
    game = {"scoring": scoring if isinstance(scoring, str) else None, "removal_forfeits": facts.forfeits_option}
    return game, {seat.seat: {"killed_first": killed_first_night(facts, seat),
                              "best_move_black": facts.best_move_black if facts.best_move_by == seat.seat else 0,
                              "judge_points": float(facts.judge.get(seat.seat, 0.0)),
                              "team_removed": facts.team_removed == seat.seat} for seat in seats}


def game_facts_from(winner: str | None, seats: Sequence[SeatFacts], forfeits: bool,
                    figures: Sequence[tuple[bool, int, float, bool]]) -> GameFacts:
    """The :class:`GameFacts` of a stored game from its columns: ``figures`` per seat, in the
    order of ``seats``: (killed_first, best_move_black, judge_points, team_removed)."""
    best_by, black, first_night, removed = None, 0, NO_NIGHT, None
    judge: dict[int, float] = {}
    for seat, (killed_first, best_move_black, judge_points, team_removed) in zip(seats, figures, strict=True):
        if best_move_black:
            best_by, black = seat.seat, int(best_move_black)
        if killed_first and seat.out_night is not None:
            first_night = seat.out_night
        if judge_points:
            judge[seat.seat] = float(judge_points)
        if team_removed:
            removed = seat.seat
    return GameFacts(winner, tuple(seats), best_by, black, judge, first_night, removed, bool(forfeits))


def one_seat(winner: str | None, forfeits: Any, role: Any, team: str, alive: Any, out_cause: str | None, fouls: int,
             best_player: Any, killed_first: Any, best_move_black: int, judge_points: float,
             team_removed: Any) -> tuple[SeatFacts, GameFacts]:
    """A seat alone in its game, from its stored columns: what it scores depends on nothing
    else (the rest of the game reaches it through its figures), so seats alike are scored once."""
    seat = SeatFacts(1, Role(role), str(team), bool(alive), out_cause, 1 if killed_first else None, int(fouls),
                     bool(best_player))
    return seat, game_facts_from(winner, [seat], bool(forfeits),
                                 [(bool(killed_first), int(best_move_black), float(judge_points), bool(team_removed))])


# ---- what a stored game decided, read from its protocol ----------------------------------------

def seat_facts(seat: Any) -> SeatFacts:
    """A :class:`~voicehost.records.games.SeatRecord` as the scoring reads it."""
    return SeatFacts(seat.seat, Role(seat.role), seat.team, seat.alive, seat.out_cause, seat.out_night, seat.fouls,
                     seat.best_player)


def game_facts(winner: str | None, seats: Iterable[SeatFacts], protocol: Mapping[str, Any]) -> GameFacts:
    """What a stored game decided, from its protocol, for the one scoring function. A protocol
    from outside may hold anything (the import refuses the impossible; what was stored before
    is read defensively): what is not as voicehost writes it counts nothing."""
    best = protocol.get("best_move")
    by, black = None, 0
    if isinstance(best, Mapping) and _whole(best.get("by")) and _whole(best.get("black")) and 0 <= best["black"] <= 3:
        by, black = best["by"], best["black"]
    options = protocol.get("options")
    forfeits = isinstance(options, Mapping) and options.get("removal_forfeits") is True
    team_removed = protocol.get("team_removed")
    return GameFacts(winner, tuple(seats), by, black, judge_totals(protocol.get("judge_points")),
                     first_shooting_night(protocol), team_removed if _whole(team_removed) else None, forfeits)


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def judge_totals(judge_points: Any) -> dict[int, float]:
    """The judge's points per seat (``judge_points``: a list of {seat, points, reason}). The sport
    ruleset's module, for its limit, loads with the first game that has any (not with ratings)."""
    if not judge_points:
        return {}
    from voicehost.rules.sport import JUDGE_POINTS_LIMIT

    totals: dict[int, float] = {}
    for given in judge_points if isinstance(judge_points, list) else []:
        if not isinstance(given, Mapping) or not _whole(given.get("seat")):
            continue
        points = given.get("points")
        if isinstance(points, (int, float)) and not isinstance(points, bool) and math.isfinite(points) \
                and abs(points) <= JUDGE_POINTS_LIMIT / 100:
            totals[given["seat"]] = totals.get(given["seat"], 0.0) + float(points)
    return totals


def first_shooting_night(protocol: Mapping[str, Any]) -> int:
    """The game's first night with shots (its protocol's ``nights``); without them, the
    ruleset's: sport's night 1 is the acquaintance (sport's module loads here, not with ratings)."""
    nights = protocol.get("nights")
    for night in nights if isinstance(nights, list) else []:
        if isinstance(night, Mapping) and "shots" in night and _whole(night.get("night")):
            return int(night["night"])
    if protocol.get("ruleset") != "sport":
        return 1
    from voicehost.rules.sport import FIRST_SHOOTING_NIGHT

    return FIRST_SHOOTING_NIGHT
