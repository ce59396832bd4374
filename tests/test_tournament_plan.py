"""``voicehost tournament plan``: the seating plan meets its balance targets (games, meetings,
seats), is the same for the same seed, beats a random shuffle, and refuses bad input in one line."""

from __future__ import annotations

import json
import math
from collections import Counter
from itertools import combinations
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from voicehost.cli.main import main
from voicehost.tournament.plan import (
    SEATS,
    Plan,
    balance,
    meetings_bound,
    pigeonhole_bound,
    plan_tournament,
    random_plan,
    twice_bound,
)


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    try:
        code = main(list(argv))
    except SystemExit as exit_:
        code = int(exit_.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def check_plan_shape(plan: Plan, players: int, tables: int, rounds: int) -> None:
    """Every round seats 10 × tables different players, and the rest sit out."""
    assert len(plan.rounds) == rounds
    for games, idle in zip(plan.rounds, plan.sitting_out, strict=True):
        assert len(games) == tables and all(len(game) == SEATS for game in games)
        seated = [p for game in games for p in game]
        assert len(set(seated)) == len(seated) == SEATS * tables
        assert sorted(seated + idle) == list(range(players))


def meetings_of(plan: Plan) -> Counter[tuple[int, int]]:
    """Counted here, independently of the planner's own figures."""
    met: Counter[tuple[int, int]] = Counter()
    for game in (g for games in plan.rounds for g in games):
        met.update(combinations(sorted(game), 2))
    return met


@pytest.mark.parametrize("seed", [1, 2, 3, 7, 2026])
def test_thirty_players_three_tables_ten_rounds_meet_the_targets(seed: int) -> None:
    plan = plan_tournament(30, 3, 10, seed)
    check_plan_shape(plan, 30, 3, 10)
    games = Counter(p for g in (g for games in plan.rounds for g in games) for p in g)
    assert set(games.values()) == {10}
    average = 10 * 3 * 45 / (30 * 29 / 2)
    met = meetings_of(plan)
    assert max(met.values()) <= math.ceil(average) + 1 == 5
    seats = Counter((p, s) for games in plan.rounds for g in games for s, p in enumerate(g))
    assert max(seats.values()) <= 2       # the target; the plan does better: every seat exactly once
    assert set(seats.values()) == {1} and len(seats) == 30 * SEATS
    figures = balance(plan)
    assert (figures.games_min, figures.games_max) == (10, 10)
    assert figures.meetings_max == max(met.values()) and figures.meetings_target == 5
    assert figures.meetings_average == pytest.approx(average)
    assert figures.same_seat_max == max(seats.values())


def test_a_random_shuffle_misses_the_targets_the_plan_meets() -> None:
    """The point of the optimiser: over ten seeds a plain shuffle has pairs meeting 7+ times and
    players in one seat 4+ times, where the plan stays within 5 and 2."""
    shuffled = [balance(random_plan(30, 3, 10, seed)) for seed in range(1, 11)]
    assert max(b.meetings_max for b in shuffled) >= 7
    assert max(b.same_seat_max for b in shuffled) >= 4
    assert all(b.meetings_max > 5 or b.same_seat_max > 2 for b in shuffled)


@pytest.mark.parametrize(("players", "tables", "rounds"), [(27, 2, 10), (35, 3, 7), (23, 2, 9)])
def test_sit_outs_keep_the_games_one_apart_and_spread_over_the_rounds(players: int, tables: int, rounds: int) -> None:
    plan = plan_tournament(players, tables, rounds, seed=5)
    check_plan_shape(plan, players, tables, rounds)
    figures = balance(plan)
    assert figures.games_max - figures.games_min <= 1
    assert figures.games_min == SEATS * tables * rounds // players
    # Nobody sits out a second time before everyone has sat out once.
    idle_count: Counter[int] = Counter()
    for idle in plan.sitting_out:
        idle_count.update(idle)
        assert max(idle_count.values()) - min(idle_count[p] for p in range(players)) <= 1
    assert figures.meetings_max <= figures.meetings_target


@pytest.mark.parametrize(("players", "tables", "rounds"), [(60, 6, 12), (20, 2, 25), (27, 2, 10), (11, 1, 13)])
def test_nobody_sits_in_one_seat_more_than_his_games_over_ten_rounded_up(players: int, tables: int,
                                                                         rounds: int) -> None:
    plan = plan_tournament(players, tables, rounds, seed=9)
    check_plan_shape(plan, players, tables, rounds)
    seats = Counter((p, s) for games in plan.rounds for g in games for s, p in enumerate(g))
    games = Counter(p for games in plan.rounds for g in games for p in g)
    for player, played in games.items():
        counts = [seats[(player, s)] for s in range(SEATS)]
        assert max(counts) == math.ceil(played / SEATS), (player, counts)
        assert sum(1 for c in counts if c) == min(played, SEATS)


def test_the_same_seed_makes_the_same_plan_and_another_seed_another() -> None:
    first, again, other = plan_tournament(27, 2, 6, 11), plan_tournament(27, 2, 6, 11), plan_tournament(27, 2, 6, 12)
    assert first == again
    assert first.rounds != other.rounds


def test_sixty_players_six_tables_twelve_rounds_are_balanced_too() -> None:
    figures = balance(plan_tournament(60, 6, 12, seed=1))
    assert (figures.games_min, figures.games_max) == (12, 12)
    assert figures.meetings_max <= figures.meetings_target == 3
    assert figures.same_seat_max == 2 and figures.seats_used_min == 10


def test_json_gives_the_schedule_round_table_seat_player(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    names = [f"p{n:02}" for n in range(1, 24)]
    roster = tmp_path / "players.txt"
    roster.write_text("# the club's list\n" + "\n".join(names[:5]) + "\n\n" + "\n".join(names[5:]) + "\n")
    code, out, err = cli(capsys, "tournament", "plan", "--names", str(roster), "--tables", "2", "--rounds", "4",
                         "--seed", "3", "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["players"] == names and data["tables"] == 2 and data["rounds"] == 4 and data["seed"] == 3
    assert data["method"] == "optimised"
    assert [r["round"] for r in data["schedule"]] == [1, 2, 3, 4]
    for round_ in data["schedule"]:
        assert [t["table"] for t in round_["tables"]] == [1, 2]
        seated = [seat["player"] for t in round_["tables"] for seat in t["seats"]]
        assert all([seat["seat"] for seat in t["seats"]] == list(range(1, 11)) for t in round_["tables"])
        assert sorted(seated + round_["sitting_out"]) == names and len(round_["sitting_out"]) == 3
    figures = data["balance"]
    assert figures["games_per_player"] == {"min": 3, "max": 4}
    assert set(figures["meetings_per_pair"]) == {"min", "max", "average", "bound", "above_bound", "target_max"}
    assert figures["meetings_per_pair"]["average"] == round(4 * 2 * 45 / (23 * 22 / 2), 3)
    assert data["random_balance"]["games_per_player"]["max"] >= data["random_balance"]["games_per_player"]["min"]
    again = cli(capsys, "tournament", "plan", "--names", str(roster), "--tables", "2", "--rounds", "4",
                "--seed", "3", "--json")[1]
    assert again == out


def test_the_text_plan_lists_every_seat_and_its_figures(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = cli(capsys, "tournament", "plan", "--players", "30", "--tables", "3", "--rounds", "10")
    assert code == 0
    lines = out.splitlines()
    table_lines = [line for line in lines if line.startswith("  ") and " 10. " in line]
    assert len(table_lines) == 30
    figures = balance(plan_tournament(30, 3, 10, 1))
    assert f"{figures.meetings_average:.2f}" in out and f" {figures.meetings_target})" in out


def test_random_prints_the_shuffles_own_figures(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = cli(capsys, "tournament", "plan", "--players", "30", "--tables", "3", "--rounds", "10",
                       "--random", "--json")
    data = json.loads(out)
    assert code == 0 and data["method"] == "random"
    assert data["balance"] == balance(random_plan(30, 3, 10, 1)).as_dict() == data["random_balance"]


@pytest.mark.parametrize(("argv", "where"), [
    (["--players", "29", "--tables", "3", "--rounds", "10"], "--players"),
    (["--players", "30", "--tables", "0", "--rounds", "10"], "--tables"),
    (["--players", "30", "--tables", "3", "--rounds", "x"], "--rounds"),
    (["--players", "30", "--tables", "3", "--rounds", "99"], "--rounds"),
    (["--players", "900", "--tables", "3", "--rounds", "9"], "--players"),
    (["--tables", "3", "--rounds", "9"], "--players"),
    (["--players", "30", "--rounds", "9"], "--tables"),
    (["--names", "/nonexistent/players.txt", "--tables", "1", "--rounds", "2"], "players.txt"),
])
def test_bad_arguments_are_one_line_and_exit_2(capsys: pytest.CaptureFixture[str], argv: list[str],
                                               where: str) -> None:
    code, out, err = cli(capsys, "tournament", "plan", *argv)
    assert code == 2 and out == ""
    assert len(err.splitlines()) == 1 and where in err and "Traceback" not in err


@pytest.mark.parametrize(("text", "where"), [
    ("Анна\nБорис\n  анна  \n", ":3"),            # the same name twice (case ignored)
    ("# only a comment\n\n", "players.txt"),     # no name at all
    ("x" * 41 + "\n", ":1"),                     # too long
    ("Анна\tБорис\x07\n", ":1"),                 # a control character
])
def test_a_bad_player_list_is_one_line_naming_the_line(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                       text: str, where: str) -> None:
    roster = tmp_path / "players.txt"
    roster.write_text(text, encoding="utf-8")
    code, out, err = cli(capsys, "tournament", "plan", "--names", str(roster), "--tables", "1", "--rounds", "2")
    assert code == 2 and out == ""
    assert len(err.splitlines()) == 1 and where in err


def test_a_player_list_that_disagrees_with_players_is_refused(capsys: pytest.CaptureFixture[str],
                                                              tmp_path: Path) -> None:
    roster = tmp_path / "players.txt"
    roster.write_text("\n".join(f"n{i}" for i in range(12)) + "\n")
    code, _, err = cli(capsys, "tournament", "plan", "--names", str(roster), "--players", "11", "--tables", "1",
                       "--rounds", "2")
    assert code == 2 and "players.txt" in err and "12" in err and "11" in err


def test_a_russian_club_reads_the_plan_in_russian(capsys: pytest.CaptureFixture[str],
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    from voicehost.i18n import set_language

    monkeypatch.setenv("VOICEHOST_LANG", "ru")
    set_language(None)   # forget the catalog chosen so far
    try:
        code, out, _ = cli(capsys, "tournament", "plan", "--players", "23", "--tables", "2", "--rounds", "2")
        code_bad, _, err = cli(capsys, "tournament", "plan", "--players", "9", "--tables", "2", "--rounds", "2")
    finally:
        monkeypatch.delenv("VOICEHOST_LANG")
        set_language(None)
    assert code == 0 and out.startswith("Тур 1 из 2\n  Стол 1 — 1. игрок ")
    assert "Пропускают тур: " in out and "встреч на пару: от " in out and "случайная перетасовка" in out
    assert code_bad == 2 and "9 игроков не хватит на 2 стол" in err


def ceil_average(players: int, tables: int, rounds: int) -> int:
    """⌈average meetings⌉ counted here: the table pairs of the plan over the pairs of players."""
    return math.ceil(rounds * tables * 45 / (players * (players - 1) / 2) - 1e-9)


# players/tables/rounds, ⌈average⌉ (the figures), the lower bound proven by counting, and
# the most-met pair the default seed's plan reaches (measured; docs/tournament.md gives them).
FIVE_SIZES = [((30, 3, 10), 4, 4, 5), ((20, 2, 10), 5, 5, 6), ((27, 2, 10), 3, 3, 4), ((60, 6, 12), 2, 2, 3),
              ((40, 4, 8), 2, 3, 3)]


@pytest.mark.parametrize(("size", "average", "bound", "reached"), FIVE_SIZES)
def test_the_usual_sizes_stay_within_one_of_the_bound(size: tuple[int, int, int], average: int, bound: int,
                                                      reached: int) -> None:
    """20/2/10 had a pair meeting 7 times (its own target said 6): now 6, one above ⌈average⌉ 5,
    which no plan reaches (docs/tournament.md: it would take a Hadamard matrix of order 10)."""
    plan = plan_tournament(*size)
    figures = balance(plan)
    assert ceil_average(*size) == average
    assert figures.meetings_bound == bound and figures.meetings_target == bound + 1
    assert max(meetings_of(plan).values()) == figures.meetings_max <= reached
    assert figures.above_bound == figures.meetings_max - bound <= 1
    # The fairness the plan kept before: games, and seats at ⌈games / 10⌉.
    assert figures.games_max - figures.games_min <= 1
    assert figures.same_seat_max == math.ceil(figures.games_max / SEATS)


def test_counting_proves_more_than_the_average_where_it_must() -> None:
    """By hand: 40/4/8 – two rounds share 40 players in 16 cells (table, table), at least
    8 × C(3, 2) + 8 × C(2, 2) = 32 pairs meeting in both; 28 pairs of rounds make 896, but with
    every pair at most 2 the 1,440 meetings give at most 720 such pairs, so some pair meets 3
    times. 31/3/3 – 28 players play all three rounds, with 27 possible table triples: two
    share one."""
    assert (ceil_average(40, 4, 8), twice_bound(40, 4, 8), meetings_bound(40, 4, 8)) == (2, 3, 3)
    assert (ceil_average(31, 3, 3), pigeonhole_bound(31, 3, 3), meetings_bound(31, 3, 3)) == (1, 3, 3)
    assert meetings_bound(30, 3, 10) == ceil_average(30, 3, 10) == 4


@settings(max_examples=25, deadline=None)
@given(tables=st.integers(2, 4), extra=st.integers(0, 9), rounds=st.integers(1, 12), seed=st.integers(0, 10**6))
def test_no_size_or_seed_goes_above_the_promise(tables: int, extra: int, rounds: int, seed: int) -> None:
    """At most one above the lower bound – which is ⌈average⌉ unless counting proves more – with
    the games and the seats as fair as before. Two tables or more, fewer sit-outs than a table:
    with one table the sit-outs' turn alone can force more (docs/tournament.md: 15/1/7)."""
    players = SEATS * tables + extra
    plan = plan_tournament(players, tables, rounds, seed)
    check_plan_shape(plan, players, tables, rounds)
    figures = balance(plan)
    met = meetings_of(plan)
    assert figures.meetings_bound >= ceil_average(players, tables, rounds)
    assert max(met.values(), default=0) <= figures.meetings_target
    assert figures.games_max - figures.games_min <= 1
    assert figures.same_seat_max == math.ceil(figures.games_max / SEATS)
    idle_count: Counter[int] = Counter()
    for idle in plan.sitting_out:
        idle_count.update(idle)
        assert max(idle_count.values(), default=0) - min(idle_count[p] for p in range(players)) <= 1


def test_the_text_plan_says_how_far_from_the_bound(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = cli(capsys, "tournament", "plan", "--players", "20", "--tables", "2", "--rounds", "10")
    assert code == 0
    assert "до 6 (в среднем 4.74; ни один план не даст меньше 5, этот выше на 1; цель: не больше 6)" in out


@pytest.mark.parametrize("seed", range(1, 9))
def test_twenty_players_two_tables_twelve_rounds_within_the_promise(seed: int) -> None:
    """Seeds 2 and 6 kept a pair at 8 (target 7) until the repair search was kicked out of its
    dead ends (hypothesis found the first)."""
    figures = balance(plan_tournament(20, 2, 12, seed))
    assert figures.meetings_max <= figures.meetings_target == 7
