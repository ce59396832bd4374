"""docs/rules.md, `sport`: one test per rule and per option, named after it.

Seating in every test unless it says otherwise: Don 3, mafia 5 and 9, Sheriff 7.
"""

from __future__ import annotations

from typing import Any, TypeVar

import pytest
from conftest import kinds, play, run

from voicehost.config import load_ruleset
from voicehost.rules import Game, IllegalInput, InputError, Role, TableGame, new_game
from voicehost.rules.events import CheckAnswered, NominationRefused, ShootingResolved, SpeechBegan, VotesCounted
from voicehost.rules.inputs import (
    Check,
    CloseVoting,
    Dawn,
    Deal,
    EndSpeech,
    Foul,
    Nominate,
    Proceed,
    Remove,
    Shots,
    Vote,
)
from voicehost.rules.requests import AwaitAction, AwaitMorning, AwaitNightfall, AwaitShots, AwaitSpeech, AwaitVotes

DEAL = tuple(Role(r) for r in [
    "citizen", "citizen", "don", "citizen", "mafia", "citizen", "sheriff", "citizen", "mafia", "citizen"])

G = TypeVar("G", bound=Game)


def fresh(**options: object) -> TableGame:
    ruleset = load_ruleset("sport")
    game = new_game(ruleset, ruleset.resolve(options), 10)
    game.push(Deal(DEAL))
    return game


def to_day(game: G) -> G:
    game.push(Dawn())
    game.push(Proceed())  # the morning: the host gives the floor
    return game


def end_speeches(game: Game, until: type[object] | None = AwaitVotes) -> None:
    """Every speech ends at once; the pauses (the morning, nightfall) pass."""
    while isinstance(game.request, (AwaitSpeech, AwaitMorning, AwaitNightfall)):
        game.push(EndSpeech(game.request.seat) if isinstance(game.request, AwaitSpeech) else Proceed())
    assert until is None or isinstance(game.request, until)


# ---- table and night 1 ----------------------------------------------------------------


def test_sport_table_is_ten_seats_seven_red_three_black() -> None:
    ruleset = load_ruleset("sport")
    assert ruleset.seats == (10,)
    assert dict(ruleset.cast_for(10)) == {Role.DON: 1, Role.MAFIA: 2, Role.SHERIFF: 1}
    with pytest.raises(InputError, match="needs 1 sheriff, 1 don, 2 mafia; the deal has 1 sheriff, 2 mafia"):
        play(roles={"5": "mafia", "9": "mafia", "7": "sheriff"})


def test_sport_night_one_is_acquaintance_without_shots_or_checks() -> None:
    protocol = play(nights=[{"shots": {"3": 1, "5": 1, "9": 1}, "check": {"7": 3}}], days=[{}])
    assert protocol["nights"][0] == {"night": 1, "killed": [], "missed": False, "checks": []}
    assert {e["at"] for e in protocol["ignored"]} == {
        "nights[0].shots.3", "nights[0].shots.5", "nights[0].shots.9", "nights[0].check.7"}


# ---- speeches ---------------------------------------------------------------------------


def test_sport_day_one_opens_with_seat_one_in_seat_order() -> None:
    _, result = run(days=[{}])
    began = kinds(result, "day_began")[0]
    assert began.opener == 1 and began.order == tuple(range(1, 11))


def test_sport_rotation_first_next_day_opens_after_previous_opener_skipping_the_dead() -> None:
    # Night 2 kills seat 2, so day 2 opens with seat 3 and day 3 with the seat after it.
    protocol = play(nights=[{}, {"shots": {"3": 2, "5": 2, "9": 2}}, {}], days=[{}, {}, {}])
    assert [d["opener"] for d in protocol["days"]] == [1, 3, 4]


def test_sport_rotation_last_closes_with_seat_after_previous_closer() -> None:
    # Day 1 closes with 10; day 2 closes with 1, so seat 2 opens; seat 2 killed → 3 opens.
    assert [d["opener"] for d in play(options={"rotation": "last"}, days=[{}, {}])["days"]] == [1, 2]
    protocol = play(options={"rotation": "last"}, nights=[{}, {"shots": {"3": 1, "5": 1, "9": 1}}],
                    days=[{}, {}])
    # Day 2 closer: next alive after 10 is 2 (1 was killed), so seat 3 opens.
    assert protocol["days"][1]["opener"] == 3


def test_sport_speech_lasts_sixty_seconds_with_a_ten_second_warning() -> None:
    ruleset = load_ruleset("sport")
    assert ruleset.timer("speech_s") == 60 and ruleset.timer("warning_s") == 10
    _, result = run(days=[{}])
    assert kinds(result, "speech_began")[0].seconds == 60


def test_sport_speech_ends_on_thanks_or_pass_and_nothing_after_counts() -> None:
    protocol = play(days=[{"speeches": {"1": ["пас", "выставляю пятого"],
                                        "2": ["спасибо всё", "выставляю девятого"]}}])
    assert protocol["days"][0]["nominations"] == []


# ---- nominations ----------------------------------------------------------------------


def test_sport_nomination_first_stands_by_default() -> None:
    protocol, result = run(days=[{"speeches": {"1": "выставляю пятого выставляю девятого"}}])
    assert protocol["days"][0]["nominations"] == [[1, 5]]
    assert kinds(result, "nomination_refused")[0].reason == "one_per_speech"


def test_sport_nomination_last_stands_with_option_last() -> None:
    protocol = play(options={"nomination": "last"},
                    days=[{"speeches": {"1": "выставляю пятого выставляю девятого"}}])
    assert protocol["days"][0]["nominations"] == [[1, 9]]


def test_sport_withdrawal_lets_the_speaker_nominate_again() -> None:
    protocol = play(days=[{"speeches": {"4": ["выставляю игрока номер три", "отзываю игрока номер три",
                                              "выставляю седьмого", "спасибо всё"]}}])
    assert protocol["days"][0]["nominations"] == [[4, 7]]
    assert protocol["days"][0]["withdrawn"] == [[4, 3]]


def test_sport_withdrawal_of_someone_elses_nomination_is_refused() -> None:
    _, result = run(days=[{"speeches": {"1": "выставляю пятого", "2": "отзываю пятого"}}])
    assert kinds(result, "withdrawal_refused")[0].reason == "not_yours"


@pytest.mark.parametrize(("speeches", "reason"), [
    ({"1": "выставляю пятого", "2": "выставляю пятого"}, "already_nominated"),
])
def test_sport_nomination_refused_with_its_reason(speeches: dict[str, str], reason: str) -> None:
    _, result = run(days=[{"speeches": speeches}])
    assert [e.reason for e in kinds(result, "nomination_refused")] == [reason]


def test_sport_nomination_of_a_seat_the_table_lacks_is_not_taken_but_listed() -> None:
    """The host asks again instead of taking it (issue 28), so the script lists it under ignored."""
    protocol, result = run(days=[{"speeches": {"2": "выставляю игрока номер одиннадцать"}}])
    assert protocol["days"][0]["nominations"] == [] and not kinds(result, "nomination_refused")
    assert protocol["ignored"] == [{"at": "days[0].speeches.2",
                                    "why": "nominates seat 11: there is no seat 11 at a 10-seat table"}]


def test_sport_nomination_of_a_seat_that_is_out_is_refused() -> None:
    _, result = run(nights=[{}, {"shots": {"3": 1, "5": 1, "9": 1}}],
                    days=[{}, {"speeches": {"2": "выставляю первого"}}])
    assert [e.reason for e in kinds(result, "nomination_refused")] == ["seat_out"]


def test_sport_nomination_outside_the_speakers_turn_is_refused() -> None:
    game = to_day(fresh())
    events = game.push(Nominate(4, 5))
    assert events == [NominationRefused(4, 5, "not_your_turn")]


def test_sport_self_nomination_accepted_by_default_and_refused_when_off() -> None:
    assert play(days=[{"speeches": {"1": "выставляю первого"}}])["days"][0]["nominations"] == [[1, 1]]
    _, result = run(options={"self_nomination": False}, days=[{"speeches": {"1": "выставляю первого"}}])
    assert [e.reason for e in kinds(result, "nomination_refused")] == ["self_nomination"]


# ---- voting ---------------------------------------------------------------------------------


def test_sport_no_candidates_night_falls() -> None:
    protocol = play(days=[{}])
    assert protocol["days"][0]["vote"] == "no_candidates" and protocol["eliminations"] == []


def test_sport_single_candidate_on_day_one_is_not_voted() -> None:
    protocol = play(days=[{"speeches": {"1": "выставляю пятого"}, "votes": {"2": 5}}])
    assert protocol["days"][0]["vote"] == "single_on_day_one"
    assert protocol["ignored"] == [{"at": "days[0].votes.2", "why": "not asked for"}]


def test_sport_single_candidate_on_a_later_day_leaves_with_every_vote() -> None:
    protocol = play(days=[{}, {"speeches": {"1": "выставляю пятого"}}])
    assert protocol["days"][1]["votes"] == {"5": 10}
    assert protocol["eliminations"] == [{"seat": 5, "cause": "voted", "day": 2}]


def test_sport_candidates_are_voted_in_the_order_accepted() -> None:
    _, result = run(days=[{"speeches": {"2": "выставляю девятого", "6": "выставляю первого", "8": "выставляю пятого"}}])
    assert kinds(result, "voting_began")[0].candidates == (9, 1, 5)


def test_sport_non_voters_go_to_the_last_candidate() -> None:
    protocol = play(days=[{"speeches": {"1": "выставляю пятого", "2": "выставляю девятого"},
                           "votes": {"1": 5, "2": 5, "3": 5}}])
    assert protocol["days"][0]["votes"] == {"5": 3, "9": 7}
    assert protocol["days"][0]["eliminated"] == [9]


def test_sport_second_vote_in_a_round_is_ignored_and_earns_a_foul() -> None:
    game = to_day(fresh())
    game.push(Nominate(1, 5))
    game.push(EndSpeech(1))
    game.push(Nominate(2, 9))
    end_speeches(game)
    game.push(Vote(4, 5))
    events = game.push(Vote(4, 9))
    assert [e.kind for e in events] == ["vote_ignored", "foul_given"]
    game.push(CloseVoting())
    assert game.fouls[4] == 1
    counted = [e for e in game.events if isinstance(e, VotesCounted)][0]
    assert dict(counted.counts) == {5: 1, 9: 9}


def test_sport_most_votes_leaves_with_a_last_word_of_last_word_s() -> None:
    day = {"speeches": {"1": "выставляю пятого", "2": "выставляю девятого"}, "votes": {s: 5 for s in "1234678"}}
    _, result = run(days=[day])
    assert kinds(result, "speech_began")[-1] == SpeechBegan(5, 60, "last_word")
    _, result = run(options={"last_word_s": 30}, days=[day])
    assert kinds(result, "speech_began")[-1] == SpeechBegan(5, 30, "last_word")


TIE_DAY: dict[str, Any] = {"speeches": {"1": "выставляю пятого", "2": "выставляю девятого"},
           "votes": {"1": 5, "2": 5, "3": 5, "4": 5, "6": 5}}


def test_sport_tie_gives_tied_players_thirty_seconds_then_a_revote() -> None:
    protocol, result = run(days=[{**TIE_DAY, "revote": {"1": 5, "2": 5, "3": 5, "4": 5, "6": 5, "7": 5}}])
    tie_speeches = [e for e in kinds(result, "speech_began") if e.turn == "tie"]
    assert [(e.seat, e.seconds) for e in tie_speeches] == [(5, 30), (9, 30)]
    assert protocol["days"][0]["revotes"] == [{"5": 6, "9": 4}]
    assert protocol["days"][0]["eliminated"] == [5]


def test_sport_tied_players_vote_in_the_revote_unless_the_option_says_no() -> None:
    _, result = run(days=[{**TIE_DAY}])
    assert [e.candidates for e in kinds(result, "voting_began") if e.round == "revote"] == [(5, 9)]
    game = fresh()
    to_day(game)
    game.push(Nominate(1, 5)); game.push(EndSpeech(1)); game.push(Nominate(2, 9))
    end_speeches(game)
    for voter in (1, 2, 3, 4, 6):
        game.push(Vote(voter, 5))
    game.push(CloseVoting())
    end_speeches(game)
    assert isinstance(game.request, AwaitVotes)
    assert 5 in game.request.voters
    off = fresh(tied_vote_in_revote=False)
    to_day(off)
    off.push(Nominate(1, 5)); off.push(EndSpeech(1)); off.push(Nominate(2, 9))
    end_speeches(off)
    for voter in (1, 2, 3, 4, 6):
        off.push(Vote(voter, 5))
    off.push(CloseVoting())
    end_speeches(off)
    assert isinstance(off.request, AwaitVotes)
    assert off.request.voters == (1, 2, 3, 4, 6, 7, 8, 10)


def test_sport_repeat_tie_all_leave_with_yes_from_more_than_half_of_the_alive() -> None:
    repeat = {**TIE_DAY, "revote": {"1": 5, "2": 5, "3": 5, "4": 5, "6": 5}}
    protocol = play(days=[{**repeat, "lift": [1, 2, 3, 4, 6, 7]}])
    assert protocol["days"][0]["lift"] == {"yes": 6, "needed": 6, "passed": True}
    assert protocol["days"][0]["eliminated"] == [5, 9]
    protocol = play(days=[{**repeat, "lift": [1, 2, 3, 4, 6]}])
    assert protocol["days"][0]["lift"]["passed"] is False and protocol["eliminations"] == []


def test_sport_both_tied_players_leave_together_after_a_passed_lift() -> None:
    # Seats 5 and 9 leave as one group; the win is checked after both.
    protocol = play(roles={"3": "don", "5": "mafia", "9": "mafia", "7": "sheriff"},
                    days=[{**TIE_DAY, "revote": dict(TIE_DAY["votes"]), "lift": [1, 2, 3, 4, 6, 7, 8]}])
    assert [e["seat"] for e in protocol["eliminations"]] == [5, 9] and protocol["winner"] is None


# ---- the night ------------------------------------------------------------------------------


def shoot(**taps: tuple[int, ...]) -> ShootingResolved:
    game = to_day(fresh())
    end_speeches(game, until=None)
    assert isinstance(game.request, AwaitShots)
    resolved = game.push(Shots(tuple((int(k[1:]), v) for k, v in taps.items())))[0]
    assert isinstance(resolved, ShootingResolved)
    return resolved


def test_sport_shot_hits_when_every_alive_black_taps_once_on_the_same_seat() -> None:
    assert shoot(s3=(4,), s5=(4,), s9=(4,)).target == 4


@pytest.mark.parametrize("taps", [
    {"s3": (4,), "s5": (4,), "s9": (6,)},        # someone shot another number
    {"s3": (4,), "s5": (4,)},                    # someone did not shoot
    {"s3": (4, 4), "s5": (4,), "s9": (4,)},      # someone shot twice
    {"s3": (4, 6), "s5": (4,), "s9": (4,)},      # two numbers
    {},                                          # nobody shot
])
def test_sport_shot_misses_without_full_consensus(taps: dict[str, tuple[int, ...]]) -> None:
    assert shoot(**taps).target is None


def test_sport_mafia_may_shoot_its_own_don() -> None:
    assert shoot(s3=(3,), s5=(3,), s9=(3,)).target == 3


def test_sport_don_check_answers_yes_for_the_sheriff_only() -> None:
    game = to_day(fresh())
    end_speeches(game, until=None)
    game.push(Shots(()))
    assert game.request == AwaitAction(2, Role.DON, ("check",), 3)
    answer = game.push(Check(3, 7))[0]
    assert isinstance(answer, CheckAnswered) and answer.result is True
    game.pop()
    answer = game.push(Check(3, 5))[0]
    assert isinstance(answer, CheckAnswered) and answer.result is False


def test_sport_sheriff_check_answers_yes_for_black_players() -> None:
    game = to_day(fresh())
    end_speeches(game, until=None)
    game.push(Shots(()))
    game.push(Check(3, None))
    answer = game.push(Check(7, 3))[0]
    assert isinstance(answer, CheckAnswered) and answer.result is True
    game.pop()
    answer = game.push(Check(7, 4))[0]
    assert isinstance(answer, CheckAnswered) and answer.result is False


def test_sport_dead_don_and_sheriff_are_still_called_and_do_nothing() -> None:
    protocol, result = run(nights=[{}, {"shots": {"3": 7, "5": 7, "9": 7}}, {"check": {"7": 3}}],
                           days=[{"speeches": {"1": "выставляю третьего", "2": "выставляю первого"},
                                  "votes": {s: 3 for s in ["1", "2", "4", "6", "7", "8", "10"]}}, {}])
    calls = [r for r in result.game.events if r.kind == "check_answered"]
    assert calls == [] and protocol["nights"][2]["checks"] == []
    assert {"at": "nights[2].check.7", "why": "not asked for"} in protocol["ignored"]


def test_sport_call_dead_seats_option_sets_the_numbers_called() -> None:
    for flag, expected in [(True, tuple(range(1, 11))), (False, (1, 2, 3, 4, 6, 7, 8, 9, 10))]:
        game = fresh(call_dead_seats=flag)
        to_day(game)
        game.push(Remove(5))
        end_speeches(game, until=None)
        assert isinstance(game.request, AwaitShots) and game.request.called == expected


def test_sport_morning_announces_the_killed_with_a_last_word_or_a_miss() -> None:
    protocol, result = run(nights=[{}, {"shots": {"3": 4, "5": 4, "9": 4}}, {}], days=[{}, {}, {}])
    mornings = kinds(result, "morning_came")
    assert [m.killed for m in mornings] == [(), (4,), ()]
    assert SpeechBegan(4, 60, "last_word") in result.game.events
    assert protocol["nights"][2]["missed"] is True


# ---- fouls and removal ---------------------------------------------------------------------


def three_fouls(seat: int, **options: object) -> TableGame:
    game = to_day(fresh(**options))
    for _ in range(3):
        game.push(Foul(seat))
    return game


def test_sport_third_foul_makes_the_next_speech_silent_but_he_may_nominate() -> None:
    game = three_fouls(2)
    game.push(EndSpeech(1))
    assert game.request == AwaitSpeech(2, 10, "silent", True)
    assert game.push(Nominate(2, 5))[0].kind == "nomination_accepted"


def test_sport_third_foul_with_three_or_four_alive_gives_thirty_seconds() -> None:
    game = to_day(fresh())
    for seat in (4, 5, 6, 9, 10):
        game.push(Remove(seat))
    for _ in range(3):
        game.push(Foul(2))
    game.push(Remove(8))  # alive: 1, 2, 3 (Don), 7 — four players
    game.push(EndSpeech(1))
    assert game.request == AwaitSpeech(2, 30, "short", True)


def test_sport_third_foul_just_before_a_last_word_shortens_it_to_thirty_seconds() -> None:
    game = to_day(fresh())
    game.push(Nominate(1, 5)); game.push(EndSpeech(1)); game.push(Nominate(2, 9))
    end_speeches(game)
    for _ in range(3):
        game.push(Foul(9))
    for voter in (1, 2, 3, 4):
        game.push(Vote(voter, 5))
    game.push(CloseVoting())
    assert game.request == AwaitSpeech(9, 30, "last_word", False)


@pytest.mark.parametrize(("option", "expected"), [
    ("short_speech", AwaitSpeech(2, 30, "short", True)),
    ("none", AwaitSpeech(2, 60, "speech", True)),
])
def test_sport_three_fouls_option(option: str, expected: AwaitSpeech) -> None:
    game = three_fouls(2, three_fouls=option)
    game.push(EndSpeech(1))
    assert game.request == expected


def test_sport_fourth_foul_removes_without_a_last_word() -> None:
    protocol, result = run(days=[{"fouls": [{"seat": 6, "at": "morning"}] * 4}])
    assert protocol["eliminations"] == [{"seat": 6, "cause": "removed", "day": 1}]
    assert all(e.seat != 6 for e in kinds(result, "speech_began"))


def test_sport_removal_during_a_day_cancels_that_days_vote() -> None:
    protocol = play(days=[{"speeches": {"1": "выставляю пятого", "2": "выставляю девятого"},
                           "removals": [{"seat": 8, "after_speech": 4}], "votes": {"1": 5}}])
    assert protocol["days"][0]["vote"] == "cancelled"
    assert protocol["eliminations"] == [{"seat": 8, "cause": "removed", "day": 1}]


def test_sport_removal_during_voting_stops_it() -> None:
    game = to_day(fresh())
    game.push(Nominate(1, 5)); game.push(EndSpeech(1)); game.push(Nominate(2, 9))
    end_speeches(game)
    game.push(Vote(1, 5))
    events = game.push(Remove(4))
    assert [e.kind for e in events] == ["eliminated", "no_vote"]
    assert isinstance(game.request, AwaitNightfall)


def test_sport_removal_with_option_off_restarts_the_vote_without_him() -> None:
    game = to_day(fresh(removal_cancels_vote=False))
    game.push(Nominate(1, 5)); game.push(EndSpeech(1)); game.push(Nominate(2, 9))
    end_speeches(game)
    game.push(Vote(1, 5))
    game.push(Remove(4))
    assert isinstance(game.request, AwaitVotes) and 4 not in game.request.voters


def test_sport_removal_after_the_vote_does_not_cancel_it() -> None:
    protocol = play(days=[{"speeches": {"1": "выставляю пятого", "2": "выставляю девятого"},
                           "votes": {s: 5 for s in "12346"}, "removals": [{"seat": 8, "at": "after_vote"}]}])
    assert [e["cause"] for e in protocol["eliminations"]] == ["voted", "removed"]


# ---- the end ----------------------------------------------------------------------------------


def test_sport_red_wins_when_no_black_is_left() -> None:
    game = to_day(fresh())
    for seat in (3, 5, 9):
        game.push(Remove(seat))
    outcome = game.outcome()
    assert outcome is not None
    assert outcome.winner == "red" and outcome.reason == "no_black_left"


def test_sport_black_wins_at_parity() -> None:
    game = to_day(fresh())
    for seat in (1, 2, 4):
        game.push(Remove(seat))
    assert not game.is_over
    game.push(Remove(7))
    outcome = game.outcome()
    assert outcome is not None
    assert outcome.winner == "black" and outcome.reason == "black_parity"


def test_sport_three_misses_in_a_row_red_wins_and_zero_turns_it_off() -> None:
    protocol = play(nights=[{}, {}, {}, {}], days=[{}, {}, {}, {}])
    assert (protocol["winner"], protocol["reason"]) == ("red", "three_misses")
    assert play(options={"misses_to_lose": 0}, nights=[{}, {}, {}, {}], days=[{}, {}, {}, {}])["winner"] is None


def test_sport_a_hit_resets_the_misses() -> None:
    hit = {"shots": {"3": 1, "5": 1, "9": 1}}
    protocol = play(nights=[{}, {}, {}, hit, {}, {}], days=[{}] * 6)
    assert protocol["winner"] is None


def test_sport_scores_seed001_and_showtime() -> None:
    game = to_day(fresh())
    for seat in (3, 5, 9):
        game.push(Remove(seat))
    scores = game.scores()
    assert scores[7] == 5 + 6 + 1 and scores[1] == 5 + 6 and scores[3] == 0
    showtime = to_day(fresh(scoring="showtime"))
    for seat in (3, 5, 9):
        showtime.push(Remove(seat))
    assert showtime.scores()[7] == 4 and showtime.scores()[3] == 0


def test_sport_illegal_inputs_leave_the_game_unchanged() -> None:
    game = to_day(fresh())
    before = game.state()
    for item in (Vote(1, 2), Shots(()), Check(3, 4), EndSpeech(5), Deal(DEAL), Foul(11)):
        with pytest.raises(IllegalInput):
            game.push(item)
        assert game.state() == before
