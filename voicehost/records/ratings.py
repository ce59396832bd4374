"""Per-player figures for a season: games, wins, win rate by team and by role, points, fouls
and best-player votes, sorted by points.

Points are the ruleset's scoring (docs/rules.md, `sport` «Scores», one function:
:func:`voicehost.rules.scoring.score_game`): by default each game under the scheme it was played
with — the protocol's scores plus the table's best-player vote; ``scoring=NAME`` rates every
game under one scheme instead (a game whose ruleset has no scheme scores nothing).

A game scored again under another scheme keeps what its table decided (docs/rules.md
"Tournament scoring"): a removal's forfeit where its options said so, the best move's black
seats (the scheme's ``best_move_N`` points) and the judge's points, all read from its protocol.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from voicehost.config import load_ruleset, ruleset_names
from voicehost.i18n import _
from voicehost.records.figures import game_facts, game_facts_from, one_seat, seat_facts
from voicehost.rules import InputError, Role
from voicehost.rules.scoring import SeatFacts, check_scheme, score_game


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
def schemes_of(ruleset: str) -> Mapping[str, Mapping[str, float]]:
    """The scoring schemes one ruleset defines, by name: only that ruleset's file is read (a
    tournament of sport games reads no other), once per process."""
    if ruleset not in ruleset_names():
        return {}
    return {scheme: check_scheme(points, f"config/rules/{ruleset}.toml: scoring.{scheme}")
            for scheme, points in load_ruleset(ruleset).scoring.items()}


@cache
def scoring_schemes() -> Mapping[str, Mapping[str, float]]:
    """Every scoring scheme the rulesets define, by name (seed001, showtime, …): every ruleset is
    read, so only what needs them all (a scheme named on the command line) asks for it."""
    return {scheme: points for name in ruleset_names() for scheme, points in schemes_of(name).items()}


def check_scoring(scoring: str | None) -> None:
    if scoring is not None and scoring not in scoring_schemes():
        known = ", ".join(sorted(scoring_schemes()))
        raise InputError("--scoring", _("unknown scheme {scoring!r} (known: {known})").format(
                                          scoring=scoring, known=known))


def points_of(row: Mapping[str, Any], scoring: str | None = None) -> float:
    """One seat's points: as played (the protocol's, which hold the best move and the judge's
    points, plus the best-player vote), or under ``scoring`` (from the figures stored at import:
    :mod:`voicehost.records.figures`)."""
    if scoring is None:
        as_played = schemes_of(row["ruleset"]).get(row["scoring"], {})
        return float(row["points"]) + (as_played.get("best_player", 0.0) if row["best_player"] else 0.0)
    seat = SeatFacts(int(row["seat"]), Role(row["role"]), str(row.get("team") or Role(row["role"]).team.value),
                     bool(row["alive"]), row.get("out_cause"), row.get("out_night"), int(row.get("fouls") or 0),
                     bool(row["best_player"]))
    game = game_facts_from(row["winner"], [seat], bool(row.get("removal_forfeits")),
                           [(bool(row.get("killed_first")), int(row.get("best_move_black") or 0),
                             float(row.get("judge_points") or 0.0), bool(row.get("team_removed")))])
    return score_game(scoring_schemes()[scoring], game)[seat.seat].total


def scores_by_scheme(ruleset: str, winner: str | None, seats: Iterable[Any],
                     protocol: Mapping[str, Any] | None = None) -> dict[str, dict[str, float]]:
    """A game's points under every scheme of its ruleset, seat by seat (``seats``: SeatRecords;
    ``protocol``: the game's, for its tournament scoring). Compensation points (Ci) are the
    tournament's, not one game's: see :func:`voicehost.records.tournament.standings`."""
    game = game_facts(winner, [seat_facts(s) for s in seats], {"ruleset": ruleset, **(protocol or {})})
    return {scheme: {str(seat): score.total for seat, score in score_game(points, game).items()}
            for scheme, points in schemes_of(ruleset).items()}


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


def grouped_ratings(groups: Iterable[Sequence[Any]], scoring: str | None = None) -> list[Rating]:
    """The season's table from :func:`voicehost.records.reading.rating_groups` (seats grouped by
    all that makes their points, with a count; without ``scoring``, ``rescored=False``'s groups):
    the same table as :func:`ratings`, each kind of seat scored once (by :func:`score_game`)
    instead of once per seat."""
    check_scoring(scoring)
    if scoring is None:
        return _played_ratings(groups)
    points = scoring_schemes()[scoring]
    table: dict[str, Rating] = {}
    scored: dict[tuple[Any, ...], float] = {}
    for group in groups:
        nickname, count, won, fouls, best = group[0], int(group[16]), bool(group[8]), int(group[9]), bool(group[10])
        rating = table.get(nickname) or table.setdefault(nickname, Rating(nickname))
        rating.games += count
        rating.wins += won * count
        rating.fouls += fouls * count
        rating.best_player += best * count
        key = tuple(group[1:16])
        if key not in scored:
            scored[key] = _group_points(points, group)
        rating.points += scored[key] * count
        _count_roles(rating, (group[6], group[5]), count, won * count)
    return _best_first(table)


def _played_ratings(groups: Iterable[Sequence[Any]]) -> list[Rating]:
    """The points as played from :data:`voicehost.records.reading.PLAYED_GROUPS` (a player's seats
    by ruleset, scoring, role and team, summed): the stored points plus the best-player votes'."""
    table: dict[str, Rating] = {}
    for nickname, ruleset, scheme, role, team, count, wins, fouls, best, points in groups:
        rating = table.get(nickname) or table.setdefault(nickname, Rating(nickname))
        rating.games += int(count)
        rating.wins += int(wins)
        rating.fouls += int(fouls)
        rating.best_player += int(best)
        vote = schemes_of(ruleset).get(scheme, {}).get("best_player", 0.0) if scheme and best else 0.0
        rating.points += float(points) + vote * int(best)
        _count_roles(rating, (team, role), int(count), int(wins))
    return _best_first(table)


def _count_roles(rating: Rating, keys: Iterable[str], games: int, wins: int) -> None:
    for key in keys:
        counts = rating.by_role.setdefault(key, [0, 0])
        counts[0] += games
        counts[1] += wins


def _best_first(table: Mapping[str, Rating]) -> list[Rating]:
    return sorted(table.values(), key=lambda r: (-r.points, -r.wins, r.player))


def _group_points(points: Mapping[str, float], group: Sequence[Any]) -> float:
    """One seat's points of a group (:data:`voicehost.records.reading.RATING_GROUPS`'s columns)."""
    seat, game = one_seat(group[3], group[4], group[5], group[6], group[7], group[11], group[9], group[10],
                          group[12], group[13], group[14], group[15])
    return score_game(points, game)[seat.seat].total
