"""docs/rules.md, `club`: a test per paragraph. Seating unless a test says otherwise:
Don 3, mafia 5 and 9, Sheriff 7, Doctor 2, Maniac 8; the rest citizens."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest
from conftest import kinds, run

from voicehost.config import load_ruleset
from voicehost.rules import InputError, Role
from voicehost.rules.events import SpeechBegan

if TYPE_CHECKING:
    from voicehost.rules.flow import TableGame
    from voicehost.rules.inputs import Remove
    from voicehost.simulation.engine_level import Simulation

ROLES = {"3": "don", "5": "mafia", "9": "mafia", "7": "sheriff", "2": "doctor", "8": "maniac"}
INTRO: dict[str, Any] = {}  # day 1 is the introduction round: nothing to script


def club(**script: Any) -> tuple[dict[str, Any], Simulation]:
    script.setdefault("roles", ROLES)
    return run(ruleset="club", **script)


def all_vote(target: int, voters: tuple[int, ...] = (1, 2, 3, 4, 5, 6, 7, 8, 9, 10), **extra: int) -> dict[str, int]:
    votes = {str(v): target for v in voters}
    votes.update({str(k): v for k, v in extra.items()})
    return votes


def test_club_cast_by_table_size() -> None:
    ruleset = load_ruleset("club")
    assert ruleset.seats == (10, 11, 12)
    assert dict(ruleset.cast_for(10)) == {Role.DON: 1, Role.MAFIA: 2, Role.SHERIFF: 1, Role.DOCTOR: 1, Role.MANIAC: 1}
    assert dict(ruleset.cast_for(11)) == dict(ruleset.cast_for(10))
    assert ruleset.cast_for(12)[Role.MAFIA] == 3


def test_club_night_one_roles_show_and_maniac_chooses_side() -> None:
    protocol, _ = club(nights=[{"join": {"8": "black"}}], days=[INTRO])
    assert protocol["nights"][0]["maniac_side"] == "black"
    protocol, _ = club(nights=[{}], days=[INTRO])
    assert protocol["nights"][0]["maniac_side"] == "solo"  # the default when he does not join


@pytest.mark.usefixtures("english")
def test_club_join_is_only_for_the_maniac() -> None:
    with pytest.raises(InputError, match=r"nights\[0\].join.7: seat 7 is a sheriff and has no join"):
        club(nights=[{"join": {"7": "black"}}])


def test_club_introduction_round_thirty_seconds_from_seat_one_then_night() -> None:
    protocol, result = club(days=[INTRO], nights=[{}, {}])
    intros = [e for e in kinds(result, "speech_began") if e.turn == "intro"]
    assert [(e.seat, e.seconds) for e in intros] == [(s, 30) for s in range(1, 11)]
    assert protocol["days"][0]["votes"] == {} and len(protocol["nights"]) == 2


def test_club_mafia_must_all_agree_on_one_player_or_miss() -> None:
    protocol, _ = club(nights=[{}, {"shots": {"3": 4, "5": 4, "9": 6}}], days=[INTRO, {}])
    assert protocol["nights"][1]["killed"] == []
    protocol, _ = club(nights=[{}, {"shots": {"3": 4, "5": 4, "9": 4}}], days=[INTRO, {}])
    assert protocol["nights"][1]["killed"] == [4]


@pytest.mark.usefixtures("english")
def test_club_the_maniac_does_not_shoot_with_the_mafia_even_when_joined() -> None:
    with pytest.raises(InputError, match=r"seat 8 is a maniac and has no shots"):
        club(nights=[{"join": {"8": "black"}}, {"shots": {"8": 4}}])


def test_club_don_checks_for_the_sheriff() -> None:
    protocol, _ = club(nights=[{}, {"check": {"3": 7}}], days=[INTRO, {}])
    assert protocol["nights"][1]["checks"] == [{"by": 3, "target": 7, "result": True}]


def test_club_sheriff_checks_and_a_joined_maniac_looks_red() -> None:
    protocol, _ = club(nights=[{"join": {"8": "black"}}, {"check": {"7": 8}}, {"check": {"7": 5}}],
                       days=[INTRO, {}, {}])
    assert [n["checks"] for n in protocol["nights"][1:3]] == [[{"by": 7, "target": 8, "result": False}],
                                                             [{"by": 7, "target": 5, "result": True}]]


def test_club_sheriff_shoots_instead_of_checking() -> None:
    protocol, _ = club(nights=[{}, {"kill": {"7": 5}}], days=[INTRO, {}])
    assert protocol["nights"][1]["killed"] == [5] and protocol["nights"][1]["checks"] == []


def test_club_maniac_kills() -> None:
    protocol, _ = club(nights=[{}, {"kill": {"8": 1}}], days=[INTRO, {}])
    assert protocol["nights"][1]["killed"] == [1]


def test_club_night_victims_add_up() -> None:
    protocol, _ = club(nights=[{}, {"shots": {"3": 1, "5": 1, "9": 1}, "kill": {"8": 4, "7": 6}}], days=[INTRO, {}])
    assert sorted(protocol["nights"][1]["killed"]) == [1, 4, 6]


def test_club_doctor_saves_one_of_the_nights_victims() -> None:
    night = {"shots": {"3": 1, "5": 1, "9": 1}, "kill": {"8": 4}, "heal": {"2": 4}}
    protocol, _ = club(nights=[{}, night], days=[INTRO, {}])
    assert protocol["nights"][1]["killed"] == [1] and protocol["nights"][1]["saved"] == [4]


def test_club_doctor_cannot_heal_someone_who_is_no_victim() -> None:
    protocol, _ = club(nights=[{}, {"kill": {"8": 4}, "heal": {"2": 6}}], days=[INTRO, {}])
    assert protocol["nights"][1]["killed"] == [4]
    assert {"at": "nights[1].heal.2", "why": "seat 6 is not among the night's victims"} in protocol["ignored"]


def test_club_doctor_saves_each_player_once_and_then_saves_the_other_victim() -> None:
    nights = [{}, {"kill": {"8": 4}, "heal": {"2": 4}},
              {"kill": {"8": 4}, "shots": {"3": 6, "5": 6, "9": 6}, "heal": {"2": 4}}]
    protocol, result = club(nights=nights, days=[INTRO, {}, {}])
    assert protocol["nights"][1]["saved"] == [4]
    assert protocol["nights"][2]["saved"] == [6] and protocol["nights"][2]["killed"] == [4]
    saved = kinds(result, "saved")[-1]
    assert (saved.seat, saved.chosen) == (6, 4)


def test_club_testament_of_thirty_seconds_except_sheriff_and_black_players() -> None:
    night = {"shots": {"3": 1, "5": 1, "9": 1}, "kill": {"8": 7}}
    _, result = club(nights=[{}, night], days=[INTRO, {}])
    words = [e for e in kinds(result, "speech_began") if e.turn == "last_word"]
    assert words == [SpeechBegan(1, 30, "last_word")]  # the Sheriff (7) leaves silently


def test_club_a_joined_maniac_killed_at_night_leaves_silently() -> None:
    night = {"kill": {"7": 8}}
    _, result = club(nights=[{"join": {"8": "black"}}, night], days=[INTRO, {}])
    assert not [e for e in kinds(result, "speech_began") if e.turn == "last_word"]
    _, result = club(nights=[{}, night], days=[INTRO, {}])
    assert [e.seat for e in kinds(result, "speech_began") if e.turn == "last_word"] == [8]


def test_club_day_two_opens_with_seat_two_then_rotates() -> None:
    protocol, _ = club(nights=[{}, {}, {}], days=[INTRO, {}, {}])
    assert [d["opener"] for d in protocol["days"]] == [1, 2, 3]


def test_club_raised_hands_get_thirty_seconds_after_everyone_has_spoken() -> None:
    protocol, result = club(days=[INTRO, {"extra_word": [4, 6]}])
    extra = [e for e in kinds(result, "speech_began") if e.turn == "extra"]
    assert [(e.seat, e.seconds) for e in extra] == [(4, 30), (6, 30)]
    speeches = [e.turn for e in kinds(result, "speech_began") if e.turn in ("speech", "extra")]
    assert speeches == ["speech"] * 10 + ["extra"] * 2
    assert protocol["days"][1]["extra_word"] == [4, 6]


def test_club_voting_against_anyone_and_a_non_voter_loses_his_vote_and_gets_a_foul() -> None:
    votes = all_vote(5, voters=(1, 2, 3, 4, 6, 7, 8))  # 5, 9 and 10 do not vote
    protocol, _ = club(days=[INTRO, {"votes": votes, "revote": votes}])
    assert protocol["days"][1]["votes"]["5"] == 7 and sum(protocol["days"][1]["votes"].values()) == 7
    assert [protocol["seats"][s]["fouls"] for s in ("5", "9", "10")] == [1, 1, 1]


def test_club_top_player_defends_and_is_acquitted_with_fewer_votes() -> None:
    day = {"votes": all_vote(5), "revote": {"1": 5, "2": 5}}
    protocol, result = club(days=[INTRO, day])
    assert [e for e in kinds(result, "speech_began") if e.turn == "defence"] == [SpeechBegan(5, 60, "defence")]
    assert protocol["days"][1]["acquitted"] == [5] and protocol["eliminations"] == []


def test_club_top_player_leaves_when_the_revote_is_not_lower() -> None:
    day = {"votes": all_vote(5, voters=(1, 2, 3, 4)), "revote": all_vote(5, voters=(1, 2, 3, 4))}
    protocol, _ = club(days=[INTRO, day])
    assert protocol["eliminations"] == [{"seat": 5, "cause": "voted", "day": 2}]


@pytest.mark.parametrize(("seconds", "words"), [(0, []), (30, [SpeechBegan(5, 30, "last_word")])])
def test_club_voted_out_player_has_the_last_word_the_option_gives(seconds: int, words: list[SpeechBegan]) -> None:
    """Option ``last_word_s`` (0 by default: none). A word of 30 s was queued and then skipped,
    the player being out already (only a killed player's word was spoken after death)."""
    day = {"votes": all_vote(5, voters=(1, 2, 3, 4)), "revote": all_vote(5, voters=(1, 2, 3, 4))}
    protocol, result = club(options={"last_word_s": seconds}, days=[INTRO, day])
    assert protocol["eliminations"] == [{"seat": 5, "cause": "voted", "day": 2}]
    assert [e for e in kinds(result, "speech_began") if e.turn == "last_word"] == words


def test_club_acquittal_once_per_game_then_out_at_once() -> None:
    acquit = {"votes": all_vote(5), "revote": {"1": 5}}
    protocol, result = club(days=[INTRO, acquit, {"votes": all_vote(5)}], nights=[{}, {}, {}])
    assert protocol["eliminations"] == [{"seat": 5, "cause": "voted", "day": 3}]
    assert len([e for e in kinds(result, "speech_began") if e.turn == "defence"]) == 1


def test_club_two_tied_at_the_top_each_defend_then_a_revote() -> None:
    votes = all_vote(5, voters=(1, 2, 3, 4, 6)) | all_vote(9, voters=(7, 8, 10, 5, 9))
    protocol, result = club(days=[INTRO, {"votes": votes, "revote": all_vote(9, voters=(1, 2, 3))}])
    assert [e.seat for e in kinds(result, "speech_began") if e.turn == "defence"] == [5, 9]
    assert protocol["eliminations"] == [{"seat": 9, "cause": "voted", "day": 2}]


def test_club_repeat_tie_of_two_leaves_both_in_the_game() -> None:
    votes = all_vote(5, voters=(1, 2, 3, 4, 6)) | all_vote(9, voters=(7, 8, 10, 5, 9))
    protocol, _ = club(days=[INTRO, {"votes": votes, "revote": votes}])
    assert protocol["eliminations"] == [] and protocol["days"][1]["vote"] == "held"


def test_club_three_tied_at_the_top_nobody_leaves() -> None:
    votes = all_vote(1, voters=(1, 2, 3)) | all_vote(4, voters=(4, 5, 6)) | all_vote(7, voters=(7, 8, 9)) | {"10": 2}
    protocol, result = club(days=[INTRO, {"votes": votes}])
    assert protocol["eliminations"] == [] and kinds(result, "all_stay")[0].reason == "three_way_tie"


def test_club_lone_maniac_wins_when_at_most_one_other_is_alive() -> None:
    game = _game()
    for seat in (3, 5, 9, 1, 2, 4, 6):
        game.push(_remove(seat))
    assert not game.is_over  # the maniac and two others
    game.push(_remove(7))
    outcome = game.outcome()
    assert outcome is not None
    assert outcome.winner == "maniac" and outcome.reason == "maniac_last_two"


def test_club_red_wins_only_when_no_black_and_no_lone_maniac_is_left() -> None:
    game = _game()
    for seat in (3, 5, 9):
        game.push(_remove(seat))
    assert not game.is_over  # the lone maniac still plays
    game.push(_remove(8))
    outcome = game.outcome()
    assert outcome is not None
    assert outcome.winner == "red"


def test_club_a_joined_maniac_is_black_and_keeps_the_game_going() -> None:
    game = _game(side="black")
    for seat in (3, 5, 9):
        game.push(_remove(seat))
    assert not game.is_over
    game.push(_remove(8))
    outcome = game.outcome()
    assert outcome is not None
    assert outcome.winner == "red" and outcome.reason == "no_black_left"


def test_club_black_parity_with_a_lone_maniac_on_neither_side() -> None:
    game = _game()
    for seat in (1, 2):  # alive: 3 5 9 black, 4 6 7 10 red, 8 lone maniac
        game.push(_remove(seat))
    assert not game.is_over
    game.push(_remove(4))  # black 3 ≥ red 3; the maniac counts for nobody
    outcome = game.outcome()
    assert outcome is not None
    assert outcome.winner == "black" and outcome.reason == "black_parity"


def _game(side: str = "solo") -> TableGame:
    from voicehost.rules import new_game
    from voicehost.rules.inputs import Dawn, Deal, Join
    ruleset = load_ruleset("club")
    game = new_game(ruleset, ruleset.resolve({}), 10)
    deal = [Role.CITIZEN] * 10
    for seat, role in ROLES.items():
        deal[int(seat) - 1] = Role(role)
    game.push(Deal(tuple(deal)))
    game.push(Join(8, side))
    game.push(Dawn())
    return game


def _remove(seat: int) -> Remove:
    from voicehost.rules.inputs import Remove
    return Remove(seat)
