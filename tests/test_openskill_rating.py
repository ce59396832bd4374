"""The team-aware rating with uncertainty (issue 44 item 4): the openskill package's own worked
example, and two games worked out by hand from the Weng-Lin Plackett-Luce formulas (docs/records.md,
"OpenSkill"), overall and per side; then the commands."""

from __future__ import annotations

import json
import math
import random
from pathlib import Path
from typing import Any

import pytest
from test_club_records import cli, protocol_files  # noqa: F401 - the CLI runner

from voicehost.records.openskill_rating import MU, SIGMA, openskill_ratings, plackett_luce

BETA, TAU, KAPPA = 25.0 / 6.0, 25.0 / 300.0, 0.0001


def model() -> Any:
    """The package's Plackett-Luce model with its defaults (mu 25, sigma 25/3, beta 25/6, tau
    25/300): the reference :func:`plackett_luce` is held to."""
    from openskill.models import PlackettLuce

    return PlackettLuce()


def test_the_packages_worked_example() -> None:
    """openskill.py's README (commit 65a675d, version 6.2.0): four new players, two against two."""
    rater = model()
    r = rater.rating
    [[a, b], [x, y]] = rater.rate([[r(), r()], [r(), r()]])
    assert (a.mu, a.sigma) == pytest.approx((26.964294621803063, 8.177962604389991), abs=1e-12)
    assert (x.mu, x.sigma) == pytest.approx((23.035705378196937, 8.177962604389991), abs=1e-12)
    assert (b.mu, y.mu) == (a.mu, x.mu)


def test_the_update_is_the_packages_on_thousands_of_games() -> None:
    """3,000 generated games (one to eight players a team, two teams and now and then three or
    four, wins, losses and ties, any mu and sigma a season reaches): every player's new mu and
    sigma as the package's ``rate`` gives them, to 1e-9."""
    rng = random.Random(47)
    rater = model()
    for _ in range(3000):
        teams = [[(rng.uniform(5, 45), rng.uniform(0.3, SIGMA * 1.2)) for _p in range(rng.randint(1, 8))]
                 for _t in range(rng.choice((2, 2, 2, 3, 4)))]
        ranks = [rng.randint(0, len(teams) - 1) for _t in teams]
        expected = rater.rate([[rater.rating(mu=mu, sigma=sigma) for mu, sigma in team] for team in teams],
                              ranks=list(ranks))
        got = plackett_luce(teams, ranks)
        flat = [value for team in expected for p in team for value in (p.mu, p.sigma)]
        assert [value for team in got for pair in team for value in pair] == pytest.approx(flat, abs=1e-9)


def test_a_season_is_the_packages() -> None:
    """A season of 1,500 games among 40 players (seven against three, draws among them), rated
    through the package game by game beside :func:`openskill_ratings`: the same table to 1e-9."""
    rng = random.Random(4747)
    players = [f"p{k}" for k in range(40)]
    games = []
    for _ in range(1500):
        seated = rng.sample(players, 10)
        games.append((rng.choice(("red", "red", "black", "nobody")),
                      {p: "red" if k < 7 else "black" for k, p in enumerate(seated)}))
    rater = model()
    skills = {p: rater.rating() for p in players}
    for winner, seats in games:
        teams = [[p for p, team in seats.items() if team == side] for side in ("red", "black")]
        ranks = [0, 0] if winner == "nobody" else [0 if side == winner else 1 for side in ("red", "black")]
        rated_teams = rater.rate([[skills[p] for p in team] for team in teams], ranks=ranks)
        for team, rated in zip(teams, rated_teams, strict=True):
            skills.update(zip(team, rated, strict=True))
    for rating in openskill_ratings(rows(games)):
        expected = skills[rating.player]
        assert (rating.overall.mu, rating.overall.sigma) == pytest.approx((expected.mu, expected.sigma), abs=1e-9)


def by_hand(winners: list[tuple[float, float]], losers: list[tuple[float, float]]
            ) -> tuple[list[tuple[float, float]], list[tuple[float, float]]]:
    """One game between two teams, from the paper's formulas (Weng & Lin 2011, Algorithm 4) with
    the package's defaults: sigma widened by tau first; team skill the sum of its players'."""
    def widen(team: list[tuple[float, float]]) -> list[tuple[float, float]]:
        return [(mu, math.sqrt(sigma ** 2 + TAU ** 2)) for mu, sigma in team]

    w, lo = widen(winners), widen(losers)
    mu_w, mu_l = sum(m for m, _s in w), sum(m for m, _s in lo)
    s2_w, s2_l = sum(s ** 2 for _m, s in w), sum(s ** 2 for _m, s in lo)
    c = math.sqrt(s2_w + s2_l + 2 * BETA ** 2)
    p = math.exp(mu_w / c) / (math.exp(mu_w / c) + math.exp(mu_l / c))   # the winners' chance
    results = []
    for team, s2, omega in ((w, s2_w, 1 - p), (lo, s2_l, -(1 - p))):
        omega_t = omega * s2 / c
        delta_t = p * (1 - p) * s2 / c ** 2 * (math.sqrt(s2) / c)
        results.append([(mu + sigma ** 2 / s2 * omega_t,
                         sigma * math.sqrt(max(1 - sigma ** 2 / s2 * delta_t, KAPPA))) for mu, sigma in team])
    return results[0], results[1]


def rows(games: list[tuple[str, dict[str, str]]]) -> list[dict[str, Any]]:
    """seat_rows' shape: (winner, player → team) per game."""
    return [{"nickname": player, "game_id": k, "team": team, "won": team == winner, "winner": winner}
            for k, (winner, seats) in enumerate(games) for player, team in seats.items()]


def test_two_games_by_hand() -> None:
    """Game 1: Анна, Борис, Вера (red) beat Глеб (black). Game 2: Анна and Глеб (red) lose to
    Борис and Вера (black). Overall and per side, to 1e-9."""
    games = [("red", {"Анна": "red", "Борис": "red", "Вера": "red", "Глеб": "black"}),
             ("black", {"Анна": "red", "Глеб": "red", "Борис": "black", "Вера": "black"})]
    table = {r.player: r for r in openskill_ratings(rows(games))}
    new = (MU, SIGMA)
    (a1, b1, v1), (g1,) = by_hand([new, new, new], [new])
    (b2, v2), (a2, g2) = by_hand([b1, v1], [a1, g1])
    expected = {"Анна": a2, "Борис": b2, "Вера": v2, "Глеб": g2}
    for player, (mu, sigma) in expected.items():
        assert (table[player].overall.mu, table[player].overall.sigma) == pytest.approx((mu, sigma), abs=1e-9)
        assert table[player].overall.games == 2
    # per side: game 2's black ratings of Борис and Вера are new; Глеб's red rating is new too
    (sb, sv), (sa, sg) = by_hand([new, new], [a1, new])
    assert (table["Борис"].sides["black"].mu, table["Вера"].sides["black"].sigma) == pytest.approx((sb[0], sv[1]))
    assert (table["Анна"].sides["red"].mu, table["Глеб"].sides["red"].mu) == pytest.approx((sa[0], sg[0]))
    assert table["Глеб"].sides["black"].mu == pytest.approx(g1[0]) and table["Глеб"].sides["black"].games == 1
    # the uncertainty: everyone is surer after two games, and the winners' estimate rose
    assert all(r.overall.sigma < SIGMA for r in table.values()) and table["Борис"].overall.mu > MU


def test_a_draw_ranks_both_teams_equal() -> None:
    table = {r.player: r for r in openskill_ratings(rows([("nobody", {"А": "red", "Б": "black"})]))}
    assert table["А"].overall.mu == pytest.approx(table["Б"].overall.mu) == pytest.approx(MU)
    assert table["А"].overall.wins == 0 and table["А"].overall.sigma < SIGMA


def test_the_commands(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = f"sqlite:///{tmp_path / 'club.sqlite'}"
    paths = protocol_files(tmp_path / "games", 12)
    cli(capsys, "records", "import", *map(str, paths), "--db", db)
    code, out, err = cli(capsys, "records", "rating", "--system", "openskill", "--json", "--db", db)
    assert code == 0, err
    table = json.loads(out)
    assert table and all({"mu", "sigma", "rating", "games", "sides"} <= set(row) for row in table)
    assert [row["rating"] for row in table] == sorted((row["rating"] for row in table), reverse=True)
    assert all(set(row["sides"]) <= {"red", "black"} and sum(s["games"] for s in row["sides"].values()) == row["games"]
               for row in table)
    chart = tmp_path / "skill.png"
    code, out, err = cli(capsys, "records", "rating", "--system", "openskill", "--chart", str(chart), "--db", db)
    assert code == 0 and chart.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and "±" in out
    code, out, err = cli(capsys, "records", "ratings", "--json", "--db", db)
    listed = json.loads(out)
    assert code == 0 and all("openskill" in row and row["openskill"]["games"] == row["games"] for row in listed)
    code, out, err = cli(capsys, "records", "rating", "--system", "elo", "--json", "--db", db)
    assert code == 0 and json.loads(out)[0]["rating"]


def test_the_benchmark_times_the_whole_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``bench records``' whole-command figure: ``records ratings`` in a fresh interpreter on a
    club's file, and the fresh bare query beside it; a command that failed would raise."""
    from voicehost.bench.records import whole_ratings

    db = f"sqlite:///{tmp_path / 'club.sqlite'}"
    cli(capsys, "records", "import", *map(str, protocol_files(tmp_path / "games", 6)), "--db", db)
    command, bare = whole_ratings(db, 1)
    assert command > bare > 0.0
    with pytest.raises(RuntimeError, match="exit code"):
        whole_ratings(f"sqlite:///{tmp_path / 'missing' / 'none.sqlite'}", 1)
