"""Vote capture and night taps, exactly as docs/rules.md «How the table talks to the host» says."""

from __future__ import annotations

from hw.capture import Call, Press, VoteResult, Window, count_votes, presses_from, read_taps
from hw.edges import Edge

# Candidate 5's window opens at 10.0 (onset of the question) and closes at 12.0 (onset of «Спасибо»).
FIVE = Window(5, 10.0, 12.0)
NINE = Window(9, 13.0, 15.0)
EVERYONE = range(1, 11)


def vote(*presses: Press) -> VoteResult:
    return count_votes([FIVE, NINE], presses, EVERYONE)


def test_press_just_before_the_cutoff_counts() -> None:
    assert vote(Press(1, 11.999, 12.5)).votes == {1: 5}


def test_press_at_the_cutoff_does_not_count() -> None:
    result = vote(Press(1, 12.0, 12.5))
    assert result.votes == {} and result.ignored[0][1] == "outside_windows"


def test_press_after_the_cutoff_does_not_count() -> None:
    assert vote(Press(1, 12.3, 12.5)).votes == {}


def test_early_release_is_a_foul_and_the_vote_still_counts() -> None:
    result = vote(Press(1, 10.5, 11.2))
    assert result.votes == {1: 5} and result.fouls == [(1, "early_release")]


def test_held_through_the_cutoff_is_clean() -> None:
    result = vote(Press(1, 10.5, 12.0))
    assert result.votes == {1: 5} and result.fouls == []


def test_second_vote_in_the_round_is_ignored_and_a_foul() -> None:
    result = vote(Press(1, 10.5, 12.2), Press(1, 13.5, 15.1))
    assert result.votes == {1: 5} and result.fouls == [(1, "second_vote")]
    assert result.ignored[0][1] == "second_vote"


def test_every_press_is_kept_for_the_protocol() -> None:
    result = vote(Press(1, 10.5, 12.2), Press(2, 9.0, 9.5), Press(3, 13.1, None))
    assert [p.seat for p in result.presses] == [1, 2, 3] and result.votes == {1: 5, 3: 9}


def test_ten_simultaneous_presses_all_count() -> None:
    result = vote(*(Press(seat, 10.5, 12.1) for seat in EVERYONE))
    assert result.votes == {seat: 5 for seat in EVERYONE}


def test_a_seat_that_does_not_vote_this_round_is_ignored() -> None:
    result = count_votes([FIVE], [Press(5, 10.5, 12.1)], voters=[1, 2])
    assert result.votes == {} and result.ignored[0][1] == "not_a_voter"


def test_presses_pair_downs_and_ups() -> None:
    edges = [Edge(1, True, 1.0), Edge(2, True, 1.1), Edge(1, False, 1.5), Edge(3, False, 1.6)]
    assert presses_from(edges) == [Press(1, 1.0, 1.5), Press(2, 1.1, None)]


CALLS = [Call(1, 0.0), Call(2, 1.0), Call(3, 2.0), Call(4, 3.0)]


def test_a_tap_belongs_to_the_number_being_called() -> None:
    result = read_taps(CALLS, 4.0, [Press(3, 1.5, 1.6), Press(5, 2.9, 3.0), Press(9, 3.2, 3.3)], [3, 5, 9])
    assert result.taps == {3: (2,), 5: (3,), 9: (4,)}


def test_taps_on_the_boundary_go_to_the_new_number() -> None:
    result = read_taps(CALLS, 4.0, [Press(3, 1.0, 1.1), Press(5, 0.9999, 1.1)], [3, 5])
    assert result.taps == {3: (2,), 5: (1,)}


def test_two_taps_are_two_numbers_and_taps_outside_the_count_are_noise() -> None:
    result = read_taps(CALLS, 4.0, [Press(3, 0.5, 0.6), Press(3, 2.5, 2.6), Press(5, -0.1, 0.0),
                                    Press(5, 4.0, 4.1)], [3, 5])
    assert result.taps == {3: (1, 3)}
    assert [(seat, why) for seat, _, why in result.noise] == [(5, "outside_the_count"), (5, "outside_the_count")]


def test_a_tap_from_a_seat_with_no_action_tonight_is_noise() -> None:
    result = read_taps(CALLS, 4.0, [Press(7, 1.5, 1.6)], [3, 5, 9])
    assert result.taps == {} and result.noise == [(7, 1.5, "no_action_tonight")]
