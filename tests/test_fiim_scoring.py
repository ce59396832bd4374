"""The ``fiim`` scheme as mafiaratings applies its «ФИИМ» scoring, value by value, and a generated
15-game tournament's standings against a recomputation from the protocol files alone.

The source of every value (docs/rules.md "Tournament scoring" cites the same):
szotin/mafiaratings at 0ab7207bdb17fadb92243f119dc356a95c99edad, scoring 19 «ФИИМ» version 3 in
``db/alter153.sql`` line 7 (and ``db/alter151.sql`` line 5)::

    main    [{"matter":2,"points":1}]                                  a win: +1
    extra   [{"matter":4194304,"points":"bonus()"}]                     the judge's points
    legacy  [{"matter":1,"points":"matter(10) ? 0.4 : (matter(11) ? 0.25 : 0)","roles":3}]
                                                                        best move, red only: 3 black 0.4, 2 black 0.25
    penalty [{"matter":1,"points":"matter(12) || matter(13) || matter(14) ? -0.5 : 0"}]
                                                                        4th foul, removal (, surrender): -0.5
    night1  [{"matter":260,"roles":3,"points":"max(min(counter(0,1)*0.4/round(counter(0,0)*0.4),0.4),0)"}]
    counters [{"matter":1},{"matter":256,"roles":3}]                   games; killed first night as red

``include/game_players_stats.php``: the win flag comes from the role and the winner alone (a removed
winner keeps it); a team kick-out (ППК, matter 25) is its own death type, so no matter 13 penalty.
``include/scoring.php``: SCORING_DEFAULT_SORTING ``(epg)wsk``; killed_first_count counts red players
killed at night in round 1; special_role_wins: wins as sheriff or don.
"""

from __future__ import annotations

import json
import math
import random
from pathlib import Path
from typing import Any

import pytest
from test_club_records import cli

from voicehost.records.ratings import scoring_schemes
from voicehost.rules import Role
from voicehost.rules.scoring import GameFacts, SeatFacts, Standing, ci_points, rank, score_game

SPORT_DECK = ["don", "mafia", "mafia", "sheriff"] + ["citizen"] * 6
BLACK = {"don", "mafia"}


def fiim() -> dict[str, float]:
    return dict(scoring_schemes()["fiim"])


def seat(n: int, role: str, alive: bool = True, out: str | None = None, night: int | None = None,
         fouls: int = 0) -> SeatFacts:
    r = Role(role)
    return SeatFacts(n, r, r.team.value, alive, out, night, fouls)


def table(*special: SeatFacts) -> tuple[SeatFacts, ...]:
    """Seats 1 don, 2 and 3 mafia, 4 sheriff, 5–10 citizens, alive unless given."""
    given = {s.seat: s for s in special}
    return tuple(given.get(n, seat(n, SPORT_DECK[n - 1])) for n in range(1, 11))


# ---- each value, by hand ------------------------------------------------------------------------------

def test_a_win_is_one_point_and_a_loss_none() -> None:
    """main [{"matter":2,"points":1}]: +1 for each seat of the winning team."""
    scores = score_game(fiim(), GameFacts("red", table()))
    assert [scores[n].total for n in range(1, 11)] == [0, 0, 0, 1, 1, 1, 1, 1, 1, 1]


def test_a_removed_winner_keeps_his_win_and_gets_minus_half() -> None:
    """The win flag is the role's and the winner's (game_players_stats.php), the kick-out
    penalty −0.5 (matter 13): 1 − 0.5 = 0.5; and the win counts in the standings' wins."""
    facts = GameFacts("red", table(seat(6, "citizen", False, "removed")), forfeits_option=True)
    score = score_game(fiim(), facts)[6]
    assert (score.total, score.won, score.penalty) == (0.5, True, -0.5)
    row = Standing("Аня")
    row.add(facts.seats[5], score)
    assert (row.points, row.wins) == (0.5, 1)


def test_a_fourth_foul_costs_half_a_point() -> None:
    """matter 12 (killed by warnings): −0.5; a losing black player: 0 − 0.5."""
    scores = score_game(fiim(), GameFacts("red", table(seat(2, "mafia", False, "removed", fouls=4))))
    assert scores[2].total == -0.5 and scores[2].penalty == -0.5


def test_a_team_removal_loses_the_game_but_carries_no_removal_penalty() -> None:
    """ППК (matter 25) is its own death type: version 3 penalises matters 12, 13, 14 only; the
    team lost (the winner is the other team): 0 for the player, +1 for the other side."""
    scores = score_game(fiim(), GameFacts("black", table(seat(7, "citizen", False, "removed")), team_removed=7))
    assert (scores[7].total, scores[7].won, scores[1].total) == (0.0, False, 1.0)


@pytest.mark.parametrize(("black", "points"), [(3, 0.4), (2, 0.25), (1, 0.0)])
def test_the_best_move_of_the_red_first_night_victim(black: int, points: float) -> None:
    """legacy: matter(10) (3 mafia guessed) 0.4, matter(11) (2) 0.25, else 0; roles 3 (red)."""
    facts = GameFacts("black", table(seat(5, "citizen", False, "killed", 2)), best_move_by=5, best_move_black=black,
                      first_shooting_night=2)
    assert score_game(fiim(), facts)[5].best_move == points
    assert score_game(fiim(), facts)[5].total == points   # his team lost: the best move alone


def test_no_best_move_points_after_a_later_night_or_for_a_black_player() -> None:
    """Only the first shooting night's victim (flag KILLED_FIRST_NIGHT, round 1), only red."""
    later = GameFacts("red", table(seat(5, "citizen", False, "killed", 3)), best_move_by=5, best_move_black=3,
                      first_shooting_night=2)
    assert score_game(fiim(), later)[5].total == 1.0
    black = GameFacts("red", table(seat(2, "mafia", False, "killed", 2)), best_move_by=2, best_move_black=2,
                      first_shooting_night=2)
    assert score_game(fiim(), black)[2].total == 0.0


def test_the_judges_points_count_as_they_are() -> None:
    """extra [{"matter":4194304,"points":"bonus()"}]."""
    scores = score_game(fiim(), GameFacts("red", table(), judge={4: 0.3, 1: -0.25}))
    assert (scores[4].total, scores[4].bonus, scores[1].total) == (1.3, 0.3, -0.25)


@pytest.mark.parametrize(("games", "killed", "ci"), [
    (10, 3, 3 * 0.4 / 4),      # round(10 × 0.4) = 4
    (7, 1, 0.4 / 3),           # round(2.8) = 3
    (5, 1, 0.4 / 2),           # round(2.0) = 2
    (10, 5, 0.4),              # 5 × 0.4 / 4 = 0.5, capped at 0.4
    (1, 1, 0.4),               # round(0.4) = 0: the evaluator's x/0 is its maximum, capped
    (10, 0, 0.0)])
def test_compensation_points_over_the_tournament(games: int, killed: int, ci: float) -> None:
    """night1: max(min(counter(0,1) × 0.4 / round(counter(0,0) × 0.4), 0.4), 0), counter 0 the
    games, counter 1 the first-night kills as red, both over the whole tournament."""
    assert math.isclose(ci_points(fiim(), games, killed), ci)


def test_the_tie_breaks_are_extras_then_wins_then_sheriff_and_don_wins_then_first_night_kills() -> None:
    """(epg)wsk after the total."""
    rows = [Standing("a", points=2, best_move=0.4, wins=1), Standing("b", points=2, bonus=0.5, wins=1),
            Standing("c", points=2, wins=2), Standing("d", points=2, wins=2, sheriff_wins=1),
            Standing("e", points=2, wins=2, sheriff_wins=1, killed_first=1)]
    from voicehost.rules.scoring import FIIM_TIE_BREAKS

    assert [r.player for r in rank(rows, FIIM_TIE_BREAKS)] == ["b", "a", "e", "d", "c"]


def test_the_championship_scheme_keeps_the_values_before_fiim() -> None:
    """voicehost's earlier tournament points: 0.5 for three black from the first killed at any
    night; a removal forfeits the win and costs 0.5 only under the game's option."""
    points = scoring_schemes()["championship"]
    later = GameFacts("red", table(seat(5, "citizen", False, "killed", 3), seat(6, "citizen", False, "removed")),
                      best_move_by=5, best_move_black=3, first_shooting_night=2, forfeits_option=True)
    scores = score_game(points, later)
    assert (scores[5].total, scores[6].total, scores[6].won) == (1.5, -0.5, False)
    assert score_game(points, GameFacts("red", later.seats))[6].total == 1.0


# ---- a generated tournament against the protocol files ----------------------------------------------------

PLAYERS = [f"Игрок {k:02d}" for k in range(1, 31)]
NAME = "Кубок ФИИМ"


def generated_protocol(rng: random.Random, names: list[str], place: tuple[int, int]) -> dict[str, Any]:
    """A finished sport game invented at the protocol's level: a shuffled deal, night 1 the
    acquaintance, then shots (some missed), day votes, the judge's removals and 4th fouls, until a
    side wins; the first night victim (if the first to leave) names a best move, counted right."""
    roles = SPORT_DECK[:]
    rng.shuffle(roles)
    seats: dict[str, dict[str, Any]] = {str(n): {"role": roles[n - 1], "fouls": rng.choice([0, 0, 1, 2]),
                                                 "name": names[n - 1]} for n in range(1, 11)}
    alive = list(range(1, 11))
    eliminations: list[dict[str, Any]] = []
    nights: list[dict[str, Any]] = [{"night": 1, "killed": [], "missed": False, "checks": []}]

    def out(n: int, cause: str, key: str, number: int) -> None:
        alive.remove(n)
        entry = {"cause": cause, key: number}
        seats[str(n)]["out"] = entry
        eliminations.append({"seat": n, **entry})

    def winner() -> str | None:
        black = sum(roles[n - 1] in BLACK for n in alive)
        return "red" if black == 0 else "black" if black >= len(alive) - black else None

    day = 0
    for night in range(2, 12):
        day += 1
        if rng.random() < 0.15:                                        # the judge removes someone
            n = rng.choice(alive)
            if rng.random() < 0.5:
                seats[str(n)]["fouls"] = 4
            out(n, "removed", "day", day)
        elif day > 1 or rng.random() < 0.3:
            out(rng.choice(alive), "voted", "day", day)
        if winner():
            break
        killed = [] if rng.random() < 0.2 else [rng.choice(alive)]
        nights.append({"night": night, "killed": killed, "missed": not killed, "checks": [],
                       "shots": {"black": killed[0] if killed else None}})
        for n in killed:
            out(n, "killed", "night", night)
        if winner():
            break
    result = winner() or "black"
    protocol: dict[str, Any] = {
        "ruleset": "sport", "options": {"scoring": "fiim", "best_move": True, "judge_points": True},
        "winner": result, "reason": "no_black_left" if result == "red" else "black_parity", "seats": seats,
        "eliminations": eliminations, "days": [], "nights": nights,
        "tournament": {"name": NAME, "round": place[0], "table": place[1]},
        "started": f"2026-12-05T{12 + place[0]}:{10 * place[1]:02d}:00Z"}
    first = eliminations[0]
    if first["cause"] == "killed":
        named = rng.sample([n for n in range(1, 11) if n != first["seat"]], 3)
        protocol["best_move"] = {"by": first["seat"], "seats": named,
                                 "black": sum(roles[n - 1] in BLACK for n in named)}
    if rng.random() < 0.5:
        protocol["judge_points"] = [{"seat": rng.randint(1, 10), "points": rng.choice([0.1, 0.25, -0.3, 0.5]),
                                     "reason": "решение судьи"}]
    return protocol


def tournament_files(folder: Path, seed: int) -> list[Path]:
    """5 rounds of 3 tables (30 players, everyone once a round): 15 protocol files."""
    rng = random.Random(seed)
    paths = []
    for r in range(1, 6):
        order = rng.sample(PLAYERS, 30)
        for t in (1, 2, 3):
            path = folder / f"r{r}-t{t}.protocol.json"
            path.write_text(json.dumps(generated_protocol(rng, order[10 * (t - 1):10 * t], (r, t)),
                                       ensure_ascii=False), encoding="utf-8")
            paths.append(path)
    return paths


def by_hand(paths: list[Path]) -> list[dict[str, Any]]:
    """The standings as mafiaratings' scoring 19 (version 3) works them out, read from the files
    alone: per game main + legacy + extra + penalty, then night1 with the tournament's counters,
    sorted by the total then (epg)wsk."""
    rows: dict[str, dict[str, Any]] = {}
    games: list[tuple[dict[str, Any], str, bool, bool]] = []
    for path in paths:
        p = json.loads(path.read_text(encoding="utf-8"))
        first_night = min(n["night"] for n in p["nights"] if "shots" in n)
        for key, entry in p["seats"].items():
            n, role = int(key), entry["role"]
            red = role not in BLACK
            won = (red and p["winner"] == "red") or (not red and p["winner"] == "black")
            out = entry.get("out", {})
            killed_first = out.get("cause") == "killed" and out.get("night") == first_night
            row = rows.setdefault(entry["name"], {"player": entry["name"], "games": 0, "points": 0.0, "wins": 0,
                                                  "epg": 0.0, "special": 0, "killed_first": 0, "ci": 0.0})
            legacy = 0.0
            best = p.get("best_move")
            if best and best["by"] == n and red and killed_first:
                legacy = {3: 0.4, 2: 0.25}.get(best["black"], 0.0)
            extra = sum(g["points"] for g in p.get("judge_points", []) if g["seat"] == n)
            penalty = -0.5 if out.get("cause") == "removed" else 0.0
            row["games"] += 1
            row["points"] += (1.0 if won else 0.0) + legacy + extra + penalty
            row["epg"] += legacy + extra + penalty
            row["wins"] += won
            row["special"] += won and role in ("sheriff", "don")
            row["killed_first"] += killed_first and red
            games.append((row, role, killed_first and red, not won))
    for row, _role, killed_first_red, lost in games:
        if killed_first_red and lost:
            divisor = math.floor(row["games"] * 0.4 + 0.5)
            ci = min(row["killed_first"] * 0.4 / divisor if divisor else math.inf, 0.4)
            row["ci"] += ci
            row["points"] += ci
    order = sorted(rows.values(), key=lambda r: (-round(r["points"], 6), -round(r["epg"], 6), -r["wins"],
                                                 -r["special"], -r["killed_first"], r["player"].casefold()))
    for k, row in enumerate(order):
        same = k and all(round(order[k - 1][f], 6) == round(row[f], 6)
                         for f in ("points", "epg", "wins", "special", "killed_first"))
        row["place"] = order[k - 1]["place"] if same else k + 1
    return order


@pytest.mark.parametrize("seed", [7, 19])
def test_a_15_game_tournament_matches_the_hand_computation(seed: int, tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    db = f"sqlite:///{tmp_path / 'club.sqlite'}"
    paths = tournament_files(tmp_path, seed)
    assert cli(capsys, "tournament", "create", NAME, "--scoring", "fiim", "--db", db)[0] == 0
    code, _out, err = cli(capsys, "records", "import", *map(str, paths), "--db", db)
    assert code == 0, err
    code, out, err = cli(capsys, "tournament", "standings", NAME, "--json", "--db", db)
    assert code == 0, err
    shown = json.loads(out)
    expected = by_hand(paths)
    assert shown["games"] == 15 and shown["tie_breaks"] == ["points", "extras", "wins", "special_wins",
                                                             "killed_first"]
    got = [(r["place"], r["player"], r["points"], r["wins"], r["ci"], r["extras"], r["special_wins"],
            r["killed_first"]) for r in shown["standings"]]
    want = [(r["place"], r["player"], round(r["points"], 2), r["wins"], round(r["ci"], 2), round(r["epg"], 2),
             r["special"], r["killed_first"]) for r in expected]
    assert got == want
    # the cases the scheme is about all happened
    assert any(r["ci"] > 0 for r in expected), "no compensation points"
    protocols = [json.loads(p.read_text(encoding="utf-8")) for p in paths]
    assert any(e["cause"] == "removed" for p in protocols for e in p["eliminations"]), "no removal"
    assert any("best_move" in p for p in protocols), "no best move"


# ---- impossible imports -----------------------------------------------------------------------------------

def one_game(**extra: Any) -> dict[str, Any]:
    """Seat 5 (a citizen) killed first on night 2; 1 don, 2 and 3 mafia voted out: red wins."""
    seats = {str(n): {"role": SPORT_DECK[n - 1], "fouls": 0, "name": PLAYERS[n - 1]} for n in range(1, 11)}
    eliminations = [{"seat": 5, "cause": "killed", "night": 2}, {"seat": 1, "cause": "voted", "day": 2},
                    {"seat": 2, "cause": "voted", "day": 3}, {"seat": 3, "cause": "voted", "day": 4}]
    for e in eliminations:
        seats[str(e["seat"])]["out"] = {k: v for k, v in e.items() if k != "seat"}
    return {"ruleset": "sport", "options": {"scoring": "fiim", "best_move": True, "judge_points": True},
            "winner": "red", "reason": "no_black_left", "seats": seats, "eliminations": eliminations, **extra}


@pytest.mark.parametrize(("extra", "said"), [
    ({"best_move": {"by": 5, "seats": [6, 7, 8], "black": 3}}, "best_move.black: 3, но чёрных среди названных мест 0"),
    ({"best_move": {"by": 6, "seats": [1, 2, 3], "black": 3}}, "best_move.by: игрок на месте 6"),
    ({"judge_points": [{"seat": 99, "points": 0.5, "reason": "x"}]}, "judge_points[0].seat"),
    ({"judge_points": [{"seat": 4, "points": 1e308, "reason": "x"}]}, "judge_points[0].points"),
    ({"judge_points": [{"seat": 4, "points": 0.5}]}, "judge_points[0].reason"),
])
def test_an_impossible_best_move_or_judges_points_is_refused_and_nothing_stored(
        extra: dict[str, Any], said: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = f"sqlite:///{tmp_path / 'club.sqlite'}"
    good, bad = tmp_path / "good.protocol.json", tmp_path / "bad.protocol.json"
    good.write_text(json.dumps(one_game(started="2026-12-05T18:00:00Z"), ensure_ascii=False), encoding="utf-8")
    bad.write_text(json.dumps(one_game(started="2026-12-05T19:00:00Z", **extra), ensure_ascii=False),
                   encoding="utf-8")
    code, out, err = cli(capsys, "records", "import", str(good), str(bad), "--db", db)
    assert code == 2 and said in err and len(err.strip().splitlines()) == 1, err
    code, out, err = cli(capsys, "records", "games", "--db", db)
    assert code == 0 and "0 игр" in out, out


def test_the_best_move_as_the_game_makes_it_is_taken(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = f"sqlite:///{tmp_path / 'club.sqlite'}"
    path = tmp_path / "game.protocol.json"
    path.write_text(json.dumps(one_game(best_move={"by": 5, "seats": [1, 2, 6], "black": 2},
                                        judge_points=[{"seat": 4, "points": -0.25, "reason": "реплика"}]),
                               ensure_ascii=False), encoding="utf-8")
    code, out, err = cli(capsys, "records", "import", str(path), "--db", db)
    assert code == 0, err
