"""An Elo rating that weighs the opponents: a win against strong players earns more than a win
against weak ones, a loss to weak players costs more. Computed from the stored games alone, in
the order they were played, so the same records always give the same ratings.

Mafia is a team game, so each player is rated against the team he played against
(docs/records.md, "Elo", has a worked example):

* everyone starts at ``INITIAL`` (1500);
* in a game, a player's **expected score** is ``E = 1 / (1 + 10^((O − R) / SCALE))``, where ``R``
  is his rating before the game and ``O`` the mean rating, before the game, of the named players
  on the other side(s) (every seat whose team is not his);
* his **result** ``S`` is 1 if his team won and 0 if it lost;
* his new rating is ``R + K × (S − E)``. Everyone's change is worked out from the ratings before
  the game, so the seat order makes no difference.

Besides the player's overall rating, each player has one rating **per side** (red, black, and
yakuza or maniac where a ruleset has them), the same formula played out only between side
ratings: his red rating against the black ratings of the black players he met, and so on. Red
and black do not win equally often (seven citizens against three mafiosi), so the overall
rating drifts with how often one played each side; the side ratings compare like with like.

A seat without a player's name (a guest) is not rated and does not count among the opponents; a
player whose opponents are all guests keeps his rating for that game (it still counts as played).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from voicehost.i18n import N_
from voicehost.rules import InputError

INITIAL = 1500.0   # everyone's rating before his first game (and on each side before his first game there)
K = 32.0           # the most one game can move a rating: a sure loss costs K, a sure win earns K
SCALE = 400.0      # a lead of 400 points means expecting 10 times as many wins as losses
# The teams, and the headers of their columns in ``records elo``.
SIDES = {"red": N_("Elo as red"), "black": N_("Elo as black"), "yakuza": N_("Elo as yakuza"),
         "maniac": N_("Elo as maniac")}


@dataclass
class SideRating:
    rating: float = INITIAL
    games: int = 0
    wins: int = 0


@dataclass
class EloRating:
    """One player's ratings after the season's games; ``history``: (game number, rating after it)."""
    player: str
    rating: float = INITIAL
    games: int = 0
    wins: int = 0
    sides: dict[str, SideRating] = field(default_factory=dict)
    history: list[tuple[int, float]] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {"player": self.player, "rating": round(self.rating, 1), "games": self.games, "wins": self.wins,
                "sides": {side: {"rating": round(s.rating, 1), "games": s.games, "wins": s.wins}
                          for side, s in sorted(self.sides.items())}}


def expected(rating: float, opponents: float) -> float:
    """The score a player rated ``rating`` is expected to make against opponents rated ``opponents``."""
    return float(1.0 / (1.0 + 10.0 ** ((opponents - rating) / SCALE)))


def elo_ratings(rows: Iterable[Mapping[str, Any]]) -> list[EloRating]:
    """The season's Elo table from :meth:`Records.seat_rows` (one row per named seat, games in
    the order played: ``nickname``, ``game_id``, ``team``, ``won``); best first (rating, then name)."""
    table: dict[str, EloRating] = {}
    for number, game in enumerate(_games(rows), start=1):
        seats = [(str(row["nickname"]), str(row["team"]), bool(row["won"])) for row in game]
        ratings = [table.get(player) or table.setdefault(player, EloRating(player)) for player, _t, _w in seats]
        sides = [rating.sides.get(team) or rating.sides.setdefault(team, SideRating())
                 for rating, (_p, team, _w) in zip(ratings, seats, strict=True)]
        overall = _changes([(team, won, rating.rating) for rating, (_p, team, won) in zip(ratings, seats, strict=True)])
        sided = _changes([(team, won, side.rating) for side, (_p, team, won) in zip(sides, seats, strict=True)])
        for rating, side, (_player, _team, won), change, side_change in zip(ratings, sides, seats, overall, sided,
                                                                            strict=True):
            rating.rating += change
            side.rating += side_change
            rating.games, side.games = rating.games + 1, side.games + 1
            rating.wins, side.wins = rating.wins + won, side.wins + won
            rating.history.append((number, rating.rating))
    return sorted(table.values(), key=lambda r: (-r.rating, r.player))


def _games(rows: Iterable[Mapping[str, Any]]) -> list[list[Mapping[str, Any]]]:
    """The rows grouped by game, the games in the order their first row came."""
    games: dict[Any, list[Mapping[str, Any]]] = {}
    for row in rows:
        games.setdefault(row.get("game_id", row.get("played_at")), []).append(row)
    return list(games.values())


def _changes(seats: Sequence[tuple[str, bool, float]]) -> list[float]:
    """Each seat's change in one game, from everyone's rating before it: (team, won, rating).
    The opponents' mean is worked out once per team (a game has two or three), not per seat."""
    means: dict[str, float | None] = {}
    for team in {team for team, _w, _r in seats}:
        opponents = [r for other, _w, r in seats if other != team]
        means[team] = sum(opponents) / len(opponents) if opponents else None
    changes = []
    for team, won, rating in seats:
        mean = means[team]
        changes.append(0.0 if mean is None else K * ((1.0 if won else 0.0) - expected(rating, mean)))
    return changes


def draw_elo(rows: Sequence[Mapping[str, Any]], out: Path, top: int = 8) -> list[str]:
    """``records elo --chart``: each of the ``top`` players' rating after every game he played,
    at that game's number in the season, to ``out`` (PNG); returns their names."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from voicehost.i18n import _
    from voicehost.records.chart import save_rating_chart

    table = elo_ratings(rows)
    leaders = table[:top]
    if not leaders:
        raise InputError("records elo", _("no rated games in the season: no Elo chart to draw"))
    games = len(_games(rows))
    figure, axes = plt.subplots(figsize=(10, 6), dpi=100)
    for rating in leaders:
        numbers, values = zip(*[(0, INITIAL), *rating.history], strict=True)
        axes.step(numbers, values, where="post", label=f"{rating.player} ({rating.rating:.0f})")
    axes.axhline(INITIAL, color="grey", linewidth=0.8, linestyle="--")
    axes.set_title(_("Elo rating over the season"))
    axes.set_ylabel(_("Elo rating (start {initial:.0f}, K = {k:.0f})").format(initial=INITIAL, k=K))
    save_rating_chart(figure, axes, games, out)
    return [r.player for r in leaders]
