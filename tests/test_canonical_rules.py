"""docs/rules.md, `canonical`: a test per paragraph. Ten players named by the roster;
mafia 3 and 7 (1:4) unless a test says otherwise."""

from __future__ import annotations

from typing import Any

import pytest
from conftest import kinds, run

from voicehost.config import load_ruleset
from voicehost.rules import InputError, Role
from voicehost.rules.canonical import CanonicalGame
from voicehost.simulation.engine_level import Simulation

NAMES = {str(i): n for i, n in enumerate(
    ["Анна", "Борис", "Вера", "Глеб", "Дина", "Егор", "Жанна", "Захар", "Ира", "Кирилл"], start=1)}
ROLES = {"3": "mafia", "7": "mafia"}


def canonical(**script: Any) -> tuple[dict[str, Any], Simulation]:
    script.setdefault("roles", ROLES)
    script.setdefault("names", NAMES)
    script.setdefault("seats", 10)
    script.setdefault("options", {"ratio": "1:4"})
    return run(ruleset="canonical", **script)


def test_canonical_six_to_eighteen_players_with_the_mafia_ratio_option() -> None:
    ruleset = load_ruleset("canonical")
    assert ruleset.seats == tuple(range(6, 19))
    mafia = {ratio: [CanonicalGame.deck(ruleset, ruleset.resolve({"ratio": ratio}), n)[0][Role.MAFIA]
                     for n in (6, 10, 12, 18)] for ratio in ("1:5", "1:4", "1:3")}
    assert mafia == {"1:5": [1, 2, 2, 3], "1:4": [1, 2, 2, 4], "1:3": [2, 2, 3, 4]}


def test_canonical_needs_a_roster_and_says_so_clearly() -> None:
    with pytest.raises(InputError,
                       match="names: canonical calls players by name: the roster has no name for seat 9, 10"):
        canonical(names={k: v for k, v in NAMES.items() if k not in ("9", "10")})
    with pytest.raises(InputError, match=r"names.2: 'анна' is already seat 1's name"):
        canonical(names=NAMES | {"2": "анна"})


def test_canonical_mafia_kills_from_the_first_night_by_agreement() -> None:
    protocol, _ = canonical(nights=[{"shots": {"3": 5, "7": 5}}], days=[{}])
    assert protocol["nights"][0]["killed"] == [5]
    protocol, _ = canonical(nights=[{"shots": {"3": 5, "7": 6}}], days=[{}])
    assert protocol["nights"][0]["killed"] == []


def test_canonical_morning_names_the_dead_with_no_last_word() -> None:
    _, result = canonical(nights=[{"shots": {"3": 5, "7": 5}}], days=[{}])
    assert kinds(result, "morning_came")[0].killed == (5,)
    assert not [e for e in kinds(result, "speech_began") if e.turn == "last_word"]


def test_canonical_free_discussion_with_a_time_limit_then_the_nomination_round() -> None:
    _, result = canonical(days=[{}])
    turns = [(e.seat, e.turn) for e in kinds(result, "speech_began")]
    assert turns[0] == (0, "free") and turns[1:] == [(s, "nominate") for s in range(1, 11)]
    ruleset = load_ruleset("canonical")
    assert ruleset.timer("discussion_s") == 300 and ruleset.timer("warning_s") == 60


def test_canonical_nominations_are_tallied_and_clear_leaders_go_to_the_vote() -> None:
    nominate = {"1": 3, "2": 3, "4": 3, "5": 7, "6": 7, "8": 7, "9": 2}
    protocol, _ = canonical(days=[{"nominate": nominate, "votes": {"1": 3, "2": 3, "4": 3, "5": 3}}])
    assert protocol["days"][0]["points"] == {"3": 3, "7": 3, "2": 1}
    assert protocol["days"][0]["ballot"] == [3, 7]


def test_canonical_close_points_put_everyone_on_the_ballot() -> None:
    protocol, _ = canonical(days=[{"nominate": {"1": 3, "2": 3, "4": 7, "5": 2}}])
    assert protocol["days"][0]["ballot"] == list(range(1, 11))


@pytest.mark.parametrize(("points", "ballot"), [
    ({1: 5, 2: 0, 3: 0}, (1,)),
    ({1: 3, 2: 1, 3: 0}, (1,)),
    ({1: 3, 2: 2, 3: 0}, (1, 2)),
    ({1: 3, 2: 3, 3: 3, 4: 1}, (1, 2, 3)),
    ({1: 3, 2: 3, 3: 3, 4: 2}, (1, 2, 3, 4)),
    ({1: 1, 2: 0, 3: 0}, (1, 2, 3)),
    ({1: 0, 2: 0}, (1, 2)),
])
def test_canonical_ballot_is_the_smallest_top_group_two_points_clear(
        points: dict[int, int], ballot: tuple[int, ...]) -> None:
    assert CanonicalGame.ballot_from(points) == ballot


def test_canonical_a_ballot_of_one_is_still_put_to_the_vote() -> None:
    nominate = {str(s): 3 for s in (1, 2, 4, 5)}
    protocol, _ = canonical(days=[{"nominate": nominate, "votes": {str(s): 3 for s in (1, 2, 4, 5, 6, 8)}}])
    assert protocol["days"][0]["ballot"] == [3] and protocol["eliminations"][-1]["seat"] == 3
    protocol, _ = canonical(days=[{"nominate": nominate, "votes": {"1": 3, "2": 3}}])
    assert protocol["eliminations"] == []  # not a majority of the ten voters


def test_canonical_simple_majority_executes_and_the_card_is_shown() -> None:
    votes = {"1": 3, "2": 3, "4": 3, "5": 7, "6": 5}
    protocol, _ = canonical(days=[{"votes": votes}])
    assert protocol["eliminations"] == [{"seat": 3, "cause": "voted", "day": 1}]
    assert protocol["revealed"] == [{"seat": 3, "role": "mafia"}]


def test_canonical_runoff_between_two_or_three_tied_and_no_execution_on_a_repeat_tie() -> None:
    votes = {"1": 3, "2": 3, "4": 5, "5": 5}
    protocol, _ = canonical(days=[{"votes": votes, "revote": {"1": 5, "2": 5, "3": 3}}])
    assert protocol["days"][0]["revotes"] == [{"3": 1, "5": 2}] and protocol["eliminations"][-1]["seat"] == 5
    protocol, result = canonical(days=[{"votes": votes, "revote": votes}])
    assert protocol["eliminations"] == [] and kinds(result, "all_stay")[0].reason == "no_execution"


def test_canonical_a_tie_of_four_or_more_executes_nobody() -> None:
    protocol, _ = canonical(days=[{"votes": {"1": 3, "2": 4, "3": 5, "4": 6}}])
    assert protocol["eliminations"] == [] and protocol["days"][0]["revotes"] == []


def test_canonical_town_wins_when_all_mafia_are_dead() -> None:
    protocol, _ = canonical(days=[{"votes": {str(s): 3 for s in range(1, 7)}},
                                  {"votes": {str(s): 7 for s in range(1, 7)}}],
                            nights=[{}, {}])
    assert (protocol["winner"], protocol["reason"]) == ("red", "no_black_left")


def test_canonical_mafia_wins_when_after_a_day_mafia_equal_the_town() -> None:
    roles = {"1": "mafia"}
    names = {str(i): f"Игрок{i}" for i in range(1, 7)}
    nights = [{"shots": {"1": 2}}, {"shots": {"1": 3}}]
    protocol, _ = canonical(seats=6, roles=roles, names=names, options={"ratio": "1:5"}, nights=nights,
                            days=[{"votes": {"1": 4, "4": 4, "5": 4, "6": 4}}, {}])
    # Night 1: 2 dies; day 1: 4 executed (5 → 4 alive: 1 mafia, 3 town); night 2: 3 dies → 1 vs 2;
    # day 2: no execution → 1 mafia < 2 town, the game goes on.
    assert protocol["winner"] is None
    protocol, _ = canonical(seats=6, roles=roles, names=names, options={"ratio": "1:5"}, nights=nights,
                            days=[{"votes": {"1": 4, "4": 4, "5": 4, "6": 4}}, {"votes": {"1": 5, "6": 5}}])
    assert (protocol["winner"], protocol["reason"]) == ("black", "black_parity")
