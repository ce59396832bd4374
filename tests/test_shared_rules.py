"""docs/rules.md «What every ruleset shares» and `club` «End»: the moments a judge's foul or removal
lands, groups that leave together, where a script runs out. One test per behaviour (issue 11,
items 1–9), named after it.

Seating in the sport tests: Don 3, mafia 5 and 9, Sheriff 7.
"""

from __future__ import annotations

from typing import Any

import pytest
from conftest import kinds, play, run

from voicehost.config import load_ruleset
from voicehost.language.phrasebook import load_phrasebook
from voicehost.language.read_lines import read_line
from voicehost.rules import IllegalInput, Role, new_game
from voicehost.rules.events import DayBegan, Eliminated, FoulGiven, GameOver, NominationAccepted, VotesCounted
from voicehost.rules.inputs import Check, CloseVoting, Dawn, Deal, EndSpeech, Input, Proceed, Remove, Shots
from voicehost.rules.requests import (
    AwaitAction,
    AwaitDawn,
    AwaitMorning,
    AwaitNightfall,
    AwaitShots,
    AwaitSpeech,
    Request,
)

SHOT_4 = {"shots": {"3": 4, "5": 4, "9": 4}}
FOUR_FOULS = [9, 9, 9, 9]


# ---- 1. a removal during night N is dated {"night": N} ------------------------------------------


def test_a_removal_during_night_n_is_dated_night_n() -> None:
    protocol = play(nights=[{}, {"fouls": [4, 4, 4, 4]}], days=[{}, {}])
    removed = {"seat": 4, "cause": "removed", "night": 2}
    assert removed in protocol["eliminations"]
    assert protocol["seats"]["4"]["out"] == {"cause": "removed", "night": 2}
    assert 4 not in protocol["days"][0]["eliminated"]


def test_a_removal_on_night_one_is_dated_night_one_not_day_zero() -> None:
    protocol = play(nights=[{"fouls": [4, 4, 4, 4]}], days=[{}])
    assert protocol["eliminations"] == [{"seat": 4, "cause": "removed", "night": 1}]


# ---- 2. morning entries come before the day's speaking order ----------------------------------


def test_a_seat_removed_at_the_morning_never_opens_the_day() -> None:
    protocol = play(nights=[{}, {}], days=[{"removals": [{"seat": 1, "at": "morning"}]}, {}])
    assert [d["opener"] for d in protocol["days"]] == [2, 3]  # the rotation goes on from seat 2


def test_morning_entries_come_before_the_floor_whether_or_not_someone_was_killed() -> None:
    morning = {"removals": [{"seat": 3, "at": "morning"}]}
    quiet = play(nights=[{}, {}, {}], days=[{}, {}, morning])  # night 3: nobody killed
    deadly = play(nights=[{}, {}, SHOT_4], days=[{}, {}, morning])  # night 3: seat 4 killed
    assert quiet["days"][2]["opener"] == 4 and deadly["days"][2]["opener"] == 5  # never 3, who is out
    _, result = run(nights=[{}, {}, {}], days=[{}, {}, morning])
    events = result.game.events
    removal = next(i for i, e in enumerate(events) if isinstance(e, Eliminated) and e.seat == 3)
    day_three = [i for i, e in enumerate(events) if isinstance(e, DayBegan) and e.day == 3]
    assert removal < day_three[0]


def test_a_third_foul_at_the_morning_silences_that_days_speech() -> None:
    _, result = run(nights=[{}], days=[{"fouls": [{"seat": 1, "at": "morning"}] * 3}])
    first = kinds(result, "speech_began")[0]
    assert (first.seat, first.turn) == (1, "silent")


# ---- 3. a day's entries belong to that day, whatever follows ------------------------------------


@pytest.mark.parametrize("extra_nights", [0, 1, 2])
def test_after_vote_entries_belong_to_their_day_whatever_follows(extra_nights: int) -> None:
    day = {"speeches": {"1": "выставляю пятого спасибо"},  # one candidate on day 1: no vote, no last word
           "removals": [{"seat": 4, "at": "after_vote"}], "fouls": [{"seat": 6, "at": "after_vote"}]}
    protocol = play(nights=[{}] * (1 + extra_nights), days=[day])
    assert protocol["eliminations"] == [{"seat": 4, "cause": "removed", "day": 1}]
    assert protocol["seats"]["6"]["fouls"] == 1
    assert protocol["days"][0]["eliminated"] == [4] and protocol["ignored"] == []


def test_empty_nights_after_the_last_day_never_change_the_days_before() -> None:
    day = {"speeches": {"1": "выставляю пятого", "2": "выставляю девятого"}, "votes": {"1": 5, "2": 5},
           "fouls": [{"seat": 2, "at": "after_vote"}]}
    short, long = play(nights=[{}], days=[day]), play(nights=[{}, {}, {}], days=[day])
    assert short["days"] == long["days"][:1] and short["eliminations"] == long["eliminations"]
    assert short["seats"] == long["seats"]


# ---- 4. a foul after a speech follows the whole speech ------------------------------------------


@pytest.mark.parametrize("speech", [
    "выставляю пятого спасибо", ["выставляю пятого", "спасибо"], ["выставляю пятого спасибо"],
])
def test_a_removal_after_a_speech_follows_the_nomination_said_before_thanks(speech: str | list[str]) -> None:
    protocol, result = run(days=[{"speeches": {"1": speech},
                                  "removals": [{"seat": 1, "after_speech": 1}]}])
    assert protocol["days"][0]["nominations"] == [[1, 5]]
    events = result.game.events
    nominated = next(i for i, e in enumerate(events) if isinstance(e, NominationAccepted))
    removed = next(i for i, e in enumerate(events) if isinstance(e, Eliminated))
    assert nominated < removed


def test_a_foul_after_a_speech_comes_after_all_its_words_however_split() -> None:
    one = play(days=[{"speeches": {"2": "выставляю игрока номер пять спасибо"},
                      "fouls": [{"seat": 2, "after_speech": 2}]}])
    split = play(days=[{"speeches": {"2": ["выставляю игрока номер пять", "спасибо"]},
                        "fouls": [{"seat": 2, "after_speech": 2}]}])
    assert one == split


# ---- 5. night fouls and removals take effect at the morning ----------------------------------


def test_a_shooter_removed_during_the_night_still_shoots_that_night() -> None:
    protocol = play(nights=[{}, {**SHOT_4, "fouls": FOUR_FOULS}], days=[{}, {}])
    assert protocol["nights"][1]["killed"] == [4]
    assert {"seat": 9, "cause": "removed", "night": 2} in protocol["eliminations"]
    assert {"seat": 4, "cause": "killed", "night": 2} in protocol["eliminations"]


def test_a_shooter_removed_during_the_night_who_did_not_shoot_makes_it_a_miss() -> None:
    shots = {"shots": {"3": 4, "5": 4}, "fouls": FOUR_FOULS}
    protocol = play(nights=[{}, shots], days=[{}, {}])
    assert protocol["nights"][1]["killed"] == [] and protocol["nights"][1]["missed"] is True


def test_the_judge_removing_a_player_mid_night_waits_for_the_morning_after_its_victim() -> None:
    ruleset = load_ruleset("sport")
    game = new_game(ruleset, ruleset.resolve({}), 10)
    roles = [Role.CITIZEN] * 10
    roles[2], roles[4], roles[8], roles[6] = Role.DON, Role.MAFIA, Role.MAFIA, Role.SHERIFF
    game.push(Deal(tuple(roles)))
    game.push(Dawn())
    while not isinstance(game.request, AwaitShots):  # through day 1 to night 2
        game.push(_pass(game.request))
    assert game.push(Remove(7)) == []  # the Sheriff: held until the morning
    with pytest.raises(IllegalInput, match="already leaves"):
        game.push(Remove(7))
    game.push(Shots(((3, (4,)), (5, (4,)), (9, (4,)))))
    game.push(Check(3, 1))
    assert isinstance(game.request, AwaitAction) and game.request.by == 7  # still called, still checks
    assert [e.kind for e in game.push(Check(7, 3))] == ["check_answered"] and isinstance(game.request, AwaitDawn)
    events = game.push(Dawn())  # the morning: the night's victim leaves first, then the removal
    assert [e.kind for e in events][:3] == ["morning_came", "eliminated", "eliminated"]
    assert events[1:3] == [Eliminated(4, "killed", None, 2), Eliminated(7, "removed", None, 2)]


def _pass(request: Request | None) -> Input:
    """Nothing happens: the host moves on, every speaker passes, nobody votes."""
    if isinstance(request, (AwaitMorning, AwaitNightfall)):
        return Proceed()
    if isinstance(request, AwaitDawn):
        return Dawn()
    return EndSpeech(request.seat) if isinstance(request, AwaitSpeech) else CloseVoting()


# ---- 6. a single candidate on a later day is a vote -------------------------------------------


SINGLE = {"speeches": {"1": "выставляю четвёртого спасибо"}}


def test_a_single_candidate_on_a_later_day_gets_every_vote() -> None:
    protocol = play(nights=[{}, {}], days=[{}, SINGLE])
    assert protocol["days"][1]["votes"] == {"4": 10} and protocol["days"][1]["eliminated"] == [4]


def test_voting_fouls_apply_before_a_single_candidates_result() -> None:
    _, result = run(nights=[{}, {}], days=[{}, {**SINGLE, "fouls": [{"seat": 6, "at": "voting"}]}])
    events = result.game.events
    foul = next(i for i, e in enumerate(events) if isinstance(e, FoulGiven))
    counted = next(i for i, e in enumerate(events) if isinstance(e, VotesCounted))
    assert foul < counted


def test_a_removal_at_a_single_candidates_vote_cancels_it() -> None:
    day = {**SINGLE, "removals": [{"seat": 6, "at": "voting"}]}
    protocol = play(nights=[{}, {}], days=[{}, day])
    assert protocol["days"][1]["vote"] == "cancelled" and protocol["days"][1]["eliminated"] == [6]
    kept = play(options={"removal_cancels_vote": False}, nights=[{}, {}], days=[{}, day])
    assert kept["days"][1]["eliminated"] == [6, 4] and kept["days"][1]["votes"] == {"4": 9}


# ---- 7. players who leave together leave together --------------------------------------------


def test_all_tied_players_who_lose_the_lift_leave_as_one_group() -> None:
    # Seats 1, 2, 5, 6, 8 and 9 are removed at the morning: Don 3 is the last black player.
    morning = [{"seat": s, "at": "morning"} for s in (1, 2, 5, 6, 8, 9)]
    day = {"removals": morning, "speeches": {"3": "выставляю десятого", "4": "выставляю третьего"},
           "votes": {"3": 10, "4": 10}, "revote": {"3": 10, "4": 10}, "lift": [3, 4, 7]}
    protocol = play(options={"split_at_four": "vote", "removal_cancels_vote": False}, days=[day])
    assert protocol["days"][0]["eliminated"][-2:] == [10, 3]  # 10 first: the end comes after both
    assert protocol["winner"] == "red"


def test_the_club_nights_victims_leave_together_and_the_win_is_checked_once() -> None:
    # 1 Don, 4 Sheriff, 6 maniac (alone), 7 citizen are left. The Don shoots 7, the maniac the Don:
    # after 7 alone the Don would have parity; after both the maniac is one on one.
    roles = {"1": "don", "2": "mafia", "3": "mafia", "4": "sheriff", "5": "doctor", "6": "maniac"}
    morning = [{"seat": s, "at": "morning"} for s in (2, 3, 8, 9, 10, 5)]
    protocol = play(ruleset="club", roles=roles, nights=[{}, {"shots": {"1": 7}, "kill": {"6": 1}}],
                    days=[{"removals": morning}, {}])
    assert protocol["nights"][1]["killed"] == [7, 1]
    assert [e["seat"] for e in protocol["eliminations"] if e["cause"] == "killed"] == [7, 1]
    assert (protocol["winner"], protocol["reason"]) == ("maniac", "maniac_last_two")


def test_the_win_check_runs_once_per_group() -> None:
    morning = [{"seat": s, "at": "morning"} for s in (1, 2, 5, 6, 8, 9)]
    day = {"removals": morning, "speeches": {"3": "выставляю десятого", "4": "выставляю третьего"},
           "votes": {"3": 10, "4": 10}, "revote": {"3": 10, "4": 10}, "lift": [3, 4, 7]}
    _, result = run(options={"split_at_four": "vote", "removal_cancels_vote": False}, days=[day])
    assert len(kinds(result, "game_over")) == 1
    last = [e for e in result.game.events if isinstance(e, Eliminated)][-2:]
    assert {e.seat for e in last} == {3, 10} and isinstance(result.game.events[-1], GameOver)


# ---- 8. every reason line says what happened -------------------------------------------------


@pytest.mark.parametrize(("limit", "said"), [
    (1, "Мафия промахнулась один раз подряд."), (3, "Мафия промахнулась три раза подряд."),
])
def test_the_misses_reason_says_how_many_nights_the_option_counts(limit: int, said: str) -> None:
    nights: list[dict[str, Any]] = [{}] * (limit + 1)
    _, result = run(options={"misses_to_lose": limit}, nights=nights, days=[{}] * (limit + 1))
    over = kinds(result, "game_over")[0]
    assert (over.reason, over.count) == ("three_misses", limit)
    assert load_phrasebook().say("reason_three_misses", "sport", n=over.count) == said
    assert str(limit) in read_line("log", "reason_three_misses", n=over.count)


# ---- 9. where a script runs out --------------------------------------------------------------


def test_an_absent_night_inside_the_script_is_a_night_without_shots() -> None:
    protocol = play(options={"misses_to_lose": 1}, nights=[{}], days=[{}, {}])
    assert (protocol["winner"], protocol["reason"]) == ("red", "three_misses")  # night 2: absent, a miss


def test_the_game_stops_unfinished_at_the_first_night_past_the_script() -> None:
    protocol = play(options={"misses_to_lose": 1}, nights=[{}], days=[{}])
    assert protocol["winner"] is None and [n["night"] for n in protocol["nights"]] == [1, 2]
    assert protocol["nights"][1] == {"night": 2, "killed": [], "missed": False, "checks": []}


def test_the_game_stops_unfinished_at_the_first_day_past_the_script() -> None:
    protocol = play(nights=[{}, SHOT_4], days=[{}])
    assert protocol["winner"] is None and protocol["nights"][1]["killed"] == [4]
    assert [d["day"] for d in protocol["days"]] == [1, 2] and protocol["days"][1]["opener"] is None
