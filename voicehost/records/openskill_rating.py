"""A team-aware rating with its uncertainty: the Weng-Lin Plackett-Luce model of the ``openskill``
package (made for multiplayer team games), beside Elo (:mod:`voicehost.records.elo`).

Each player is a normal distribution of skill: ``mu`` (the estimate) and ``sigma`` (how unsure
it is; 25 and 25/3 before the first game). A game is the red team against the black team (each
team's skill the sum of its players'); the winners are ranked first, a draw ranks both teams
equal; the model moves each player by his share of his team's variance, so a newcomer (a wide
``sigma``) moves a lot and a regular little, and every game narrows ``sigma``. The table is
ordered by the conservative rating ``mu − 3·sigma`` (the model's ``ordinal``): a newcomer with two
wins does not rank above a regular with two hundred games until the records are sure of him.

The update itself is :func:`plackett_luce`: the package's own arithmetic (``PlackettLuce.rate``
with the options this module passes, none: beta 25/6, kappa 0.0001, tau 25/300, no balance, no
sigma limit) without its per-call objects (a deep copy of both teams and a ``uuid4`` for every
rating it builds: three quarters of ``records ratings`` at 10,000 games, docs/speed.md).
tests/test_openskill_rating.py holds it to the package, game by game, to 1e-9.

Why openskill and not Glicko-2: Glicko-2 rates one player against one opponent; seven reds
against three blacks would need an invented "team opponent". Plackett-Luce rates teams of any
size directly, and the package is a maintained implementation with a published worked example.

As with Elo, each player also has one rating **per side**: in a game the red players' red
ratings meet the black players' black ratings. Games are taken in the order played; an annulled
or stopped game, and a guest's seat (no name), are not rated.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from voicehost.rules import InputError

MU = 25.0
SIGMA = 25.0 / 3.0
BETA = 25.0 / 6.0       # the spread of one game's performance around the skill
KAPPA = 0.0001          # the floor of sigma's shrink factor
TAU = 25.0 / 300.0      # sigma widened by this before each game: skill drifts
TAU2 = TAU * TAU
SIDES = ("red", "black")


@dataclass
class Skill:
    mu: float = MU
    sigma: float = SIGMA
    games: int = 0
    wins: int = 0

    @property
    def ordinal(self) -> float:
        """The conservative rating: the skill the records are 99.7 % sure of."""
        return self.mu - 3.0 * self.sigma

    def as_dict(self) -> dict[str, Any]:
        return {"mu": round(self.mu, 3), "sigma": round(self.sigma, 3), "rating": round(self.ordinal, 3),
                "games": self.games, "wins": self.wins}


@dataclass
class SkillRating:
    """One player: overall, per side, and ``history`` (game number, mu, sigma after it)."""

    player: str
    overall: Skill = field(default_factory=Skill)
    sides: dict[str, Skill] = field(default_factory=dict)
    history: list[tuple[int, float, float]] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {"player": self.player, **self.overall.as_dict(),
                "sides": {side: skill.as_dict() for side, skill in sorted(self.sides.items())}}


def plackett_luce(teams: Sequence[Sequence[tuple[float, float]]],
                  ranks: Sequence[int]) -> list[list[tuple[float, float]]]:
    """Each player's (mu, sigma) after one game of ``teams`` (each a list of (mu, sigma)) ranked
    ``ranks`` (lower is better, equal is a tie): Weng & Lin's Algorithm 4 as ``openskill``'s
    ``PlackettLuce().rate(teams, ranks=ranks)`` computes it, in plain floats."""
    variances = [[sigma * sigma + TAU2 for _mu, sigma in team] for team in teams]
    moves = _team_moves([sum(mu for mu, _s in team) for team in teams], [sum(v) for v in variances], ranks)
    return [[(mu + v * mu_by, math.sqrt(v * max(1.0 - v * shrink_by, KAPPA)))
             for (mu, _s), v in zip(team, vs, strict=True)]
            for team, vs, (mu_by, shrink_by) in zip(teams, variances, moves, strict=True)]


def _team_moves(team_mu: Sequence[float], team_s2: Sequence[float],
                ranks: Sequence[int]) -> list[tuple[float, float]]:
    """Per team, what moves its players (a player of variance v, his sigma widened by tau first,
    gains ``v * mu_by`` and keeps ``max(1 − v * shrink_by, kappa)`` of his variance): the package's
    omega and delta over the team's variance. The package then averages the tied teams' changes,
    comparing each updated player with himself, which changes nothing; a tie here is the plain
    update too."""
    c = math.sqrt(sum(team_s2) + len(team_s2) * BETA * BETA)
    exps = [math.exp(mu / c) for mu in team_mu]
    sum_q = [sum(e for e, rank in zip(exps, ranks, strict=True) if rank >= own) for own in ranks]
    a = [ranks.count(rank) for rank in ranks]
    moves = []
    for i, own in enumerate(ranks):
        omega = delta = 0.0
        for q, rank in enumerate(ranks):
            if rank <= own:
                p = exps[i] / sum_q[q]
                delta += p * (1.0 - p) / a[q]
                omega += ((1.0 - p) if q == i else -p) / a[q]
        s2 = team_s2[i]
        moves.append((omega / c, delta / (c * c) * (math.sqrt(s2) / c)))
    return moves


def openskill_ratings(rows: Iterable[Mapping[str, Any]]) -> list[SkillRating]:
    """The season's table from :meth:`Records.seat_rows` (``nickname``, ``game_id``, ``team``,
    ``won``, ``winner``), games in the order played; the conservative rating first. Each game
    rates the players' overall skills, then their skills on the side they played."""
    table: dict[str, SkillRating] = {}
    for number, game in enumerate(_games(rows), start=1):
        overall: dict[str, list[Skill]] = {}
        sides: dict[str, list[Skill]] = {}
        winners: set[str] = set()
        seated: list[SkillRating] = []
        for row in game:
            player, team, won = str(row["nickname"]), str(row["team"]), bool(row["won"])
            rating = table.get(player) or table.setdefault(player, SkillRating(player))
            seated.append(rating)
            overall.setdefault(team, []).append(rating.overall)
            sides.setdefault(team, []).append(rating.sides.get(team) or rating.sides.setdefault(team, Skill()))
            if won:
                winners.add(team)
        draw = str(game[0].get("winner")) == "nobody"
        ranks = [0 if draw or team in winners else 1 for team in overall]
        teams_won = [team in winners for team in overall]
        _rate(list(overall.values()), ranks, teams_won)
        _rate(list(sides.values()), ranks, teams_won)
        for rating in seated:
            rating.history.append((number, rating.overall.mu, rating.overall.sigma))
    return sorted(table.values(), key=lambda r: (-r.overall.ordinal, r.player))


def _games(rows: Iterable[Mapping[str, Any]]) -> list[list[Mapping[str, Any]]]:
    games: dict[Any, list[Mapping[str, Any]]] = {}
    for row in rows:
        games.setdefault(row.get("game_id", row.get("played_at")), []).append(row)
    return list(games.values())


def _rate(teams: list[list[Skill]], ranks: list[int], won: list[bool]) -> None:
    """One game: the teams (ranked by ``ranks``: 0 the winners, or both in a draw) moved in
    place, and each player's games and wins (``won``, team by team) counted. A game with one team only (its opponents
    all guests) counts as played and moves nobody."""
    for team, team_won in zip(teams, won, strict=True):
        for skill in team:
            skill.games += 1
            skill.wins += team_won
    if len(teams) < 2:
        return
    variances = [[skill.sigma * skill.sigma + TAU2 for skill in team] for team in teams]
    moves = _team_moves([sum(skill.mu for skill in team) for team in teams], [sum(v) for v in variances], ranks)
    for team, team_variances, (mu_by, shrink_by) in zip(teams, variances, moves, strict=True):
        for skill, v in zip(team, team_variances, strict=True):
            skill.mu += v * mu_by
            skill.sigma = math.sqrt(v * max(1.0 - v * shrink_by, KAPPA))


def draw_openskill(rows: Sequence[Mapping[str, Any]], out: Path, top: int = 8) -> list[str]:
    """``records rating --system openskill --chart``: the ``top`` players' mu after each game they
    played with a band of ±sigma, to ``out`` (PNG); returns their names."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from voicehost.i18n import _
    from voicehost.records.chart import save_rating_chart

    leaders = openskill_ratings(rows)[:top]
    if not leaders:
        raise InputError("records rating", _("no rated games in the season: no chart to draw"))
    games = len(_games(rows))
    figure, axes = plt.subplots(figsize=(10, 6), dpi=100)
    for rating in leaders:
        numbers, mus, sigmas = zip(*[(0, MU, SIGMA), *rating.history], strict=True)
        line = axes.step(numbers, mus, where="post", label=f"{rating.player} ({rating.overall.mu:.1f} ± "
                                                           f"{rating.overall.sigma:.1f})")[0]
        axes.fill_between(numbers, [m - s for m, s in zip(mus, sigmas, strict=True)],
                          [m + s for m, s in zip(mus, sigmas, strict=True)], step="post", alpha=0.12,
                          color=line.get_color())
    axes.axhline(MU, color="grey", linewidth=0.8, linestyle="--")
    axes.set_title(_("OpenSkill rating over the season (mu ± sigma)"))
    axes.set_ylabel(_("skill mu (start {mu:.0f} ± {sigma:.1f})").format(mu=MU, sigma=SIGMA))
    save_rating_chart(figure, axes, games, out)
    return [r.player for r in leaders]
