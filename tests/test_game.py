"""voicehost.rules.game: the parts every ruleset shares — push/pop, and the human host's
corrections (``splice``, ``correct_vote``), which replay the game and refuse what no longer fits."""

from __future__ import annotations

import pytest
from test_sport_rules import end_speeches, fresh, to_day

from voicehost.rules import Game, IllegalInput
from voicehost.rules.events import Eliminated
from voicehost.rules.inputs import CloseVoting, EndSpeech, Nominate, Vote


def voted_game() -> Game:
    game = to_day(fresh())
    game.push(Nominate(1, 5))
    game.push(EndSpeech(1))
    game.push(Nominate(2, 9))
    end_speeches(game)
    for voter in (1, 2, 3, 4, 6, 7):  # six for 5; the rest go to 9, the last candidate
        game.push(Vote(voter, 5))
    game.push(CloseVoting())
    return game


def eliminated(game: Game) -> list[int]:
    return [e.seat for e in game.events if isinstance(e, Eliminated)]


def test_correcting_a_vote_replays_the_result() -> None:
    game = voted_game()
    assert eliminated(game) == [5]
    for voter in (1, 2):  # two votes were misread: they were for 9 — now 4 against 6
        game.correct_vote(voter, 9)
    assert eliminated(game) == [9]
    assert Vote(1, 5) not in game.inputs and Vote(1, 9) in game.inputs


def test_a_vote_for_nobody_in_sport_goes_to_the_last_candidate() -> None:
    game = voted_game()
    for voter in (1, 2, 3):
        at, removed, new = game.correct_vote(voter, 0)
        assert Vote(voter, 5) not in new
    assert eliminated(game) == [9]  # 3 against 7


def test_a_correction_that_does_not_fit_changes_nothing() -> None:
    game = voted_game()
    before = (list(game.inputs), game.state())
    with pytest.raises(IllegalInput, match="not a candidate"):
        game.correct_vote(1, 4)
    with pytest.raises(IllegalInput, match="did not vote"):
        game.correct_vote(11, 9)
    assert (list(game.inputs), game.state()) == before


def test_there_is_no_vote_to_correct_before_the_first_vote() -> None:
    with pytest.raises(IllegalInput, match="no vote"):
        to_day(fresh()).correct_vote(1, 5)


def test_splice_refuses_a_game_that_no_longer_plays_and_keeps_the_old_one() -> None:
    game = voted_game()
    before = list(game.inputs)
    with pytest.raises(IllegalInput):
        game.splice(1, 1, [])  # without Dawn, the day's speeches cannot happen
    assert game.inputs == before


def test_a_vote_still_open_is_what_a_resume_takes_again() -> None:
    game = voted_game()
    assert game.open_vote_inputs() == 0  # the vote closed: nothing to take again
    game.pop()                            # back before CloseVoting: six votes cast, still open
    assert game.open_vote_inputs() == 6
    for _ in range(6):
        game.pop()
    assert game.open_vote_inputs() == 0   # the round is open but nobody has voted yet
