"""docs/rules.md, `classic`, and its six modifications. Seating at 10 unless a test says
otherwise: mafia 3 and 5, Commissar 7, Doctor 2, Putana 8; the rest citizens."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest
from conftest import kinds, run

from voicehost.config import load_ruleset
from voicehost.rules import InputError, Role, new_game
from voicehost.rules.requests import AwaitAction, AwaitShots

if TYPE_CHECKING:
    from voicehost.rules.flow import TableGame
    from voicehost.rules.inputs import Remove
    from voicehost.simulation.engine_level import Simulation

ROLES = {"3": "mafia", "5": "mafia", "7": "commissar", "2": "doctor", "8": "putana"}


def classic(**script: Any) -> tuple[dict[str, Any], Simulation]:
    script.setdefault("roles", ROLES)
    script.setdefault("seats", 10)
    return run(ruleset="classic", **script)


def votes(**by_target: list[int]) -> dict[str, int]:
    """votes(t4=[1, 2], t6=[3]) → {"1": 4, "2": 4, "3": 6}"""
    return {str(v): int(t[1:]) for t, voters in by_target.items() for v in voters}


def test_classic_cast_chosen_by_table_size() -> None:
    ruleset = load_ruleset("classic")
    assert dict(ruleset.cast_for(6)) == {Role.MAFIA: 2, Role.COMMISSAR: 1, Role.DOCTOR: 1}
    assert dict(ruleset.cast_for(8)) == {Role.MAFIA: 2, Role.COMMISSAR: 1, Role.DOCTOR: 1, Role.PUTANA: 1}
    assert ruleset.cast_for(11)[Role.MAFIA] == 3 and ruleset.cast_for(14)[Role.MAFIA] == 4
    with pytest.raises(InputError, match="played at 6–20 seats, not 5"):
        ruleset.cast_for(5)


def test_classic_night_order_mafia_doctor_putana_commissar_from_the_first_night() -> None:
    ruleset = load_ruleset("classic")
    game = new_game(ruleset, ruleset.resolve({}), 10)
    from voicehost.rules.inputs import Check, Deal, Heal, Shots, Visit
    deal = [Role.CITIZEN] * 10
    for seat, role in ROLES.items():
        deal[int(seat) - 1] = Role(role)
    game.push(Deal(tuple(deal)))
    order: list[str] = []
    for item in (Shots(()), Heal(2, None), Visit(8, None), Check(7, None)):
        request = game.request
        assert isinstance(request, (AwaitShots, AwaitAction))
        order.append("mafia" if isinstance(request, AwaitShots) else request.role.value)
        game.push(item)
    assert order == ["mafia", "doctor", "putana", "commissar"]


def test_classic_mafia_kill_and_morning_without_details() -> None:
    protocol, result = classic(nights=[{"shots": {"3": 4, "5": 4}, "check": {"7": 3}}], days=[{}])
    assert protocol["nights"][0]["killed"] == [4]
    assert protocol["revealed"] == []  # the dead leave without showing their card
    assert kinds(result, "check_answered")[0].result is True


def test_classic_doctor_heal_saves_the_victim() -> None:
    protocol, _ = classic(nights=[{"shots": {"3": 4, "5": 4}, "heal": {"2": 4}}], days=[{}])
    assert protocol["nights"][0]["killed"] == []


def test_classic_putana_visited_player_survives_the_night() -> None:
    protocol, _ = classic(nights=[{"shots": {"3": 4, "5": 4}, "visit": {"8": 4}}], days=[{}])
    assert protocol["nights"][0]["killed"] == []


def test_classic_putana_visited_mafiosos_shot_does_not_count() -> None:
    protocol, _ = classic(nights=[{"shots": {"3": 6, "5": 4}, "visit": {"8": 3}}], days=[{}])
    assert protocol["nights"][0]["killed"] == [4]  # the other mafioso's choice decides


def test_classic_putana_visited_doctor_heals_nobody() -> None:
    protocol, _ = classic(nights=[{"shots": {"3": 4, "5": 4}, "heal": {"2": 4}, "visit": {"8": 2}}], days=[{}])
    assert protocol["nights"][0]["killed"] == [4]


def test_classic_putana_visited_commissar_gets_no_answer() -> None:
    protocol, _ = classic(nights=[{"check": {"7": 3}, "visit": {"8": 7}}], days=[{}])
    assert protocol["nights"][0]["checks"] == []
    assert {"role": "commissar", "action": "check", "by": 7, "target": 3, "effective": False} \
        in protocol["nights"][0]["actions"]


def test_classic_putana_visited_player_may_not_vote_the_next_day() -> None:
    day = {"prevote": votes(t4=[1, 2, 3]), "votes": votes(t4=[1, 2, 3, 6])}
    protocol, result = classic(nights=[{"visit": {"8": 6}}], days=[day])
    assert protocol["days"][0]["votes"]["4"] == 3
    assert {"at": "days[0].votes.6", "why": "seat 6 does not vote in this round"} in protocol["ignored"]


def test_classic_preliminary_vote_then_the_accused_defend_then_the_final_vote() -> None:
    day = {"prevote": votes(t4=[1, 2, 3], t6=[5, 7]), "votes": votes(t6=[1, 2, 3], t4=[5])}
    protocol, result = classic(days=[day])
    defence = [e.seat for e in kinds(result, "speech_began") if e.turn == "defence"]
    assert defence == [4, 6]  # most accused first
    assert protocol["days"][0]["prevote"] == {str(s): n for s, n in [(s, 0) for s in range(1, 11)]} | {"4": 3, "6": 2}
    assert protocol["eliminations"] == [{"seat": 6, "cause": "voted", "day": 1}]


def test_classic_tie_in_the_final_vote_is_a_split_and_nobody_leaves() -> None:
    day = {"prevote": votes(t4=[1]), "votes": votes(t4=[1, 2], t6=[3, 5])}
    protocol, result = classic(days=[day])
    assert protocol["eliminations"] == [] and kinds(result, "all_stay")[0].reason == "split"


def test_classic_mafia_wins_only_when_only_mafia_are_left() -> None:
    game = _game()
    for seat in (1, 2, 4, 6, 7):  # 2 mafia, 3 others: parity would already end a sport game
        game.push(_remove(seat))
    assert not game.is_over
    for seat in (8, 9):
        game.push(_remove(seat))
    assert not game.is_over
    game.push(_remove(10))
    outcome = game.outcome()
    assert outcome is not None
    assert (outcome.winner, outcome.reason) == ("black", "only_mafia_left")


def test_classic_red_wins_when_no_mafia_is_left() -> None:
    game = _game()
    game.push(_remove(3))
    game.push(_remove(5))
    outcome = game.outcome()
    assert outcome is not None
    assert (outcome.winner, outcome.reason) == ("red", "no_black_left")


# ---- modifications -----------------------------------------------------------------------------


def test_classic_open_shows_the_card_of_every_eliminated_player() -> None:
    day = {"prevote": votes(t3=[1]), "votes": votes(t3=[1, 2, 4])}
    protocol, _ = classic(options={"open": "cards"}, nights=[{"shots": {"3": 4, "5": 4}}], days=[day])
    assert protocol["revealed"] == [{"seat": 4, "role": "citizen"}, {"seat": 3, "role": "mafia"}]


def test_classic_no_host_plays_the_same_game() -> None:
    script = dict(nights=[{"shots": {"3": 4, "5": 4}}], days=[{"prevote": votes(t3=[1]), "votes": votes(t3=[1, 2])}])
    with_host, _ = classic(**script)
    without, _ = classic(options={"no_host": True}, **script)
    def rest(protocol: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in protocol.items() if k != "options"}
    assert rest(without) == rest(with_host)


def test_classic_extra_card_leaves_one_card_face_down() -> None:
    roles = {"3": "mafia", "5": "mafia", "7": "commissar", "2": "doctor"}  # the Putana's card stayed face down
    protocol, _ = classic(options={"extra_card": True}, roles=roles, days=[{}])
    assert protocol["seats"]["8"]["role"] == "citizen"
    with pytest.raises(InputError, match="needs 1 commissar, 1 doctor, 1 putana, 2 mafia; the deal has"):
        classic(roles=roles, days=[{}])


def test_classic_extra_card_needs_at_least_two_mafia() -> None:
    from voicehost.rules.classic import ClassicGame
    from voicehost.rules.ruleset import Ruleset
    ruleset = load_ruleset("classic")
    thin = Ruleset(ruleset.name, ruleset.title, ruleset.seats, {10: {Role.MAFIA: 1}}, ruleset.timers, ruleset.options,
                   ruleset.options_class)
    with pytest.raises(InputError, match="options.extra_card: needs at least 2 mafia"):
        ClassicGame.deck(thin, thin.resolve({"extra_card": True}), 10)


def test_classic_blood_name_counts_as_a_vote_in_the_final_vote() -> None:
    day = {"blood_name": {"4": 5}, "prevote": votes(t5=[1], t6=[2]), "votes": votes(t5=[1], t6=[2])}
    protocol, result = classic(options={"blood_name": True}, nights=[{"shots": {"3": 4, "5": 4}}], days=[day])
    assert protocol["days"][0]["blood_names"] == {"4": 5}
    assert protocol["days"][0]["votes"]["5"] == 2 and protocol["eliminations"][-1]["seat"] == 5
    assert [e.turn for e in kinds(result, "speech_began")][0] == "blood_name"


def test_classic_blood_name_off_ignores_the_entry() -> None:
    day = {"blood_name": {"4": 5}}
    protocol, _ = classic(nights=[{"shots": {"3": 4, "5": 4}}], days=[day])
    assert protocol["ignored"] == [{"at": "days[0].blood_name.4", "why": "not asked for"}]


def test_classic_mayor_elected_on_the_first_morning_votes_twice() -> None:
    day = {"mayor": votes(t1=[1, 2, 3, 4]), "prevote": votes(t5=[1]),
           "votes": votes(t5=[1], t6=[2])}
    protocol, _ = classic(options={"mayor": True}, days=[day])
    assert protocol["days"][0]["mayor"] == 1
    assert protocol["days"][0]["votes"]["5"] == 2 and protocol["eliminations"][-1]["seat"] == 5


def test_classic_mayor_tied_election_moves_to_the_next_morning_and_a_new_one_after_he_leaves() -> None:
    days = [{"mayor": votes(t1=[1], t2=[2])},
            {"mayor": votes(t1=[1, 2, 3])},
            {"mayor": votes(t2=[2, 4])}]
    nights = [{}, {}, {"shots": {"3": 1, "5": 1}}]
    protocol, _ = classic(options={"mayor": True}, nights=nights, days=days)
    assert [d.get("mayor") for d in protocol["days"]] == [None, 1, 2]


def test_classic_three_sides_yakuza_kill_too_and_win_alone() -> None:
    roles = {"3": "mafia", "5": "mafia", "7": "commissar", "2": "doctor", "8": "putana", "9": "yakuza"}
    protocol, _ = classic(options={"three_sides": True}, roles=roles,
                          nights=[{"shots": {"3": 4, "5": 4, "9": 6}}], days=[{}])
    assert sorted(protocol["nights"][0]["killed"]) == [4, 6]
    game = _game(options={"three_sides": True}, roles=roles)
    for seat in (1, 2, 3, 4, 5, 6, 7, 8):
        game.push(_remove(seat))
    assert not game.is_over
    game.push(_remove(10))
    outcome = game.outcome()
    assert outcome is not None
    assert (outcome.winner, outcome.reason) == ("yakuza", "only_yakuza_left")


def test_classic_three_sides_last_two_teams_falling_together_leave_no_winner() -> None:
    roles = {"3": "mafia", "5": "mafia", "7": "commissar", "2": "doctor", "8": "putana", "9": "yakuza"}
    game = _game(options={"three_sides": True}, roles=roles)
    for seat in (1, 2, 4, 6, 7, 8, 10, 5):
        game.push(_remove(seat))
    from voicehost.rules.inputs import Check, Dawn, Heal, Shots, Visit
    _to_next_night(game)
    # Alive: mafia 3 and yakuza 9; each shoots the other on the same night.
    for item in (Shots(((3, (9,)),)), Shots(((9, (3,)),)), Heal(None, None), Visit(None, None),
                 Check(None, None), Dawn()):
        game.push(item)
    outcome = game.outcome()
    assert outcome is not None
    assert (outcome.winner, outcome.reason) == ("nobody", "mutual_destruction")


def test_classic_modifications_combine() -> None:
    day = {"mayor": votes(t6=[1, 2, 3]), "blood_name": {"4": 5},
           "prevote": votes(t5=[1]), "votes": votes(t5=[6], t1=[2, 9])}
    protocol, _ = classic(options={"mayor": True, "blood_name": True, "open": "cards"},
                          nights=[{"shots": {"3": 4, "5": 4}}], days=[day])
    assert protocol["days"][0]["mayor"] == 6
    assert protocol["days"][0]["votes"]["5"] == 3  # the mayor's two votes and the blood name
    assert protocol["revealed"][-1] == {"seat": 5, "role": "mafia"}


def test_classic_discussion_in_turns() -> None:
    _, result = classic(options={"discussion": "turns"}, days=[{}])
    assert [e.turn for e in kinds(result, "speech_began")][:10] == ["speech"] * 10
    _, result = classic(days=[{}])
    assert [e.turn for e in kinds(result, "speech_began")] == ["free"]


def test_classic_etiquette_sends_non_voters_to_the_last_accused() -> None:
    day = {"prevote": votes(t4=[1, 2], t6=[3]), "votes": votes(t4=[1])}
    protocol, _ = classic(options={"etiquette": True}, days=[day])
    assert protocol["days"][0]["votes"]["6"] == 9 and protocol["eliminations"][-1]["seat"] == 6


def test_classic_etiquette_skips_an_accused_removed_during_the_defence() -> None:
    """Accused 1 and 4 (one vote each); 4 is removed after 1's defence: the non-voters' votes go
    to 1, the last accused still on the ballot (a hypothesis run found the KeyError this was)."""
    day = {"removals": [{"seat": 4, "after_speech": 1}], "prevote": votes(t4=[2], t1=[1]), "votes": votes(t1=[2])}
    protocol, _ = classic(options={"etiquette": True}, days=[day])
    assert protocol["days"][0]["votes"]["1"] == 9 and protocol["days"][0]["eliminated"] == [4, 1]


def _game(options: dict[str, Any] | None = None, roles: dict[str, str] = ROLES) -> TableGame:
    """A game at the morning of day 1, where the judge's removals take effect at once (a night's
    wait for the morning)."""
    from voicehost.rules.inputs import ACTIONS, Dawn, Deal, Shots
    from voicehost.rules.requests import AwaitAction, AwaitShots
    ruleset = load_ruleset("classic")
    game = new_game(ruleset, ruleset.resolve(options or {}), 10)
    deal = [Role.CITIZEN] * 10
    for seat, role in roles.items():
        deal[int(seat) - 1] = Role(role)
    game.push(Deal(tuple(deal)))
    while isinstance(game.request, (AwaitShots, AwaitAction)):
        request = game.request
        game.push(Shots(()) if isinstance(request, AwaitShots) else ACTIONS[request.actions[0]](request.by, None))
    game.push(Dawn())
    return game


def _to_next_night(game: TableGame) -> TableGame:
    """Through the morning and a day where nobody is voted out."""
    from voicehost.rules.inputs import CloseVoting, Dawn, EndSpeech, Proceed
    from voicehost.rules.requests import AwaitDawn, AwaitMorning, AwaitNightfall, AwaitSpeech
    while not isinstance(game.request, AwaitShots):
        request = game.request
        game.push(Dawn() if isinstance(request, AwaitDawn) else Proceed()
                  if isinstance(request, (AwaitMorning, AwaitNightfall)) else EndSpeech(request.seat)
                  if isinstance(request, AwaitSpeech) else CloseVoting())
    return game


def _remove(seat: int) -> Remove:
    from voicehost.rules.inputs import Remove
    return Remove(seat)
