"""docs/rules.md «What every ruleset shares»: night fouls and removals take effect at the morning,
after the night's actions — after its victims have left and the win check has run (issue 28,
"In the engine"). Every ruleset shares this, so every test runs on all four."""

from __future__ import annotations

from typing import Any

import pytest
from conftest import run

from voicehost.rules.events import SpeechBegan

# Per ruleset: a seating, a black shooter and a red seat, and the seats whose removal at the
# morning of day 1 leaves that shooter as the only black seat with exactly two red seats.
TABLES: dict[str, dict[str, Any]] = {
    "sport": {"seats": 10, "roles": {"3": "don", "5": "mafia", "9": "mafia", "7": "sheriff"},
              "shooter": 3, "red": 8, "thin_out": [5, 9, 1, 2, 4, 6, 7]},
    "club": {"seats": 10, "roles": {"3": "don", "5": "mafia", "9": "mafia", "7": "sheriff", "2": "doctor",
                                    "8": "maniac"},
             "shooter": 3, "red": 10, "thin_out": [5, 9, 8, 1, 2, 4, 6]},
    "classic": {"seats": 8, "roles": {"2": "mafia", "6": "mafia", "4": "commissar", "7": "doctor", "1": "putana"},
                "shooter": 2, "red": 3, "thin_out": [6, 1, 4, 5, 7]},
    "canonical": {"seats": 8, "options": {"ratio": "1:3"}, "roles": {"3": "mafia", "6": "mafia"},
                  "names": {str(seat): name for seat, name in enumerate(
                      ("Анна", "Борис", "Вера", "Глеб", "Дина", "Егор", "Жанна", "Захар"), start=1)},
                  "shooter": 3, "red": 1, "thin_out": [6, 2, 4, 5, 7]},
}
RULESETS = sorted(TABLES)


def _game(ruleset: str, night_two: dict[str, Any], day_one: dict[str, Any] | None = None,
          days: int = 2) -> dict[str, Any]:
    table = TABLES[ruleset]
    target = night_two.pop("target")
    shots = {str(seat): target for seat in night_two.pop("shooters")}
    script = {"ruleset": ruleset, "seats": table["seats"], "roles": table["roles"],
              "options": table.get("options", {}), "names": table.get("names", {}),
              "nights": [{}, {"shots": shots, **night_two}], "days": [day_one or {}] + [{}] * (days - 1)}
    protocol, _ = run(**script)
    return protocol


def _black_shooters(ruleset: str) -> list[int]:
    return [int(seat) for seat, role in TABLES[ruleset]["roles"].items() if role in ("don", "mafia")]


@pytest.mark.parametrize("ruleset", RULESETS)
def test_a_nights_victim_leaves_before_that_nights_removal(ruleset: str) -> None:
    table = TABLES[ruleset]
    shooter, red = table["shooter"], table["red"]
    protocol = _game(ruleset, {"shooters": _black_shooters(ruleset), "target": red, "fouls": [shooter] * 4})
    night_two = [e for e in protocol["eliminations"] if e.get("night") == 2]
    assert night_two == [{"seat": red, "cause": "killed", "night": 2},
                         {"seat": shooter, "cause": "removed", "night": 2}]
    assert protocol["nights"][1]["fouls"] == [{"seat": shooter, "count": n} for n in (1, 2, 3, 4)]


@pytest.mark.parametrize("ruleset", RULESETS)
def test_fouls_given_at_night_to_the_seat_killed_that_night_still_count(ruleset: str) -> None:
    red = TABLES[ruleset]["red"]
    protocol = _game(ruleset, {"shooters": _black_shooters(ruleset), "target": red, "fouls": [red] * 4})
    assert {"seat": red, "cause": "killed", "night": 2} in protocol["eliminations"]
    assert not any(e["seat"] == red and e["cause"] == "removed" for e in protocol["eliminations"])
    assert protocol["seats"][str(red)]["fouls"] == 4
    assert protocol["nights"][1]["killed"] == [red]
    assert protocol["nights"][1]["fouls"] == [{"seat": red, "count": n} for n in (1, 2, 3, 4)]
    assert not [f for day in protocol["days"] for f in day.get("fouls", []) if f["seat"] == red]


@pytest.mark.parametrize("ruleset", RULESETS)
def test_the_win_check_after_the_kill_comes_before_the_nights_removal(ruleset: str) -> None:
    """The issue's example: one black and two reds on night 2, the black shooter (on 3 fouls)
    shoots a red and gets his 4th foul that night. Where 1 v 1 is black's win (sport, club) black
    wins at the kill, and the removal never happens; classic needs only one team left, canonical
    no mafia left: there the removal follows and red wins, listed after the kill."""
    table = TABLES[ruleset]
    shooter, red = table["shooter"], table["red"]
    morning = [{"seat": shooter, "at": "morning"}] * 3
    thin_out = [{"seat": seat, "at": "morning"} for seat in table["thin_out"]]
    protocol = _game(ruleset, {"shooters": [shooter], "target": red, "fouls": [shooter]},
                     day_one={"fouls": morning, "removals": thin_out})
    assert len([s for s, seat in protocol["seats"].items() if "out" not in seat]) <= 2
    if ruleset in ("sport", "club"):
        assert (protocol["winner"], protocol["reason"]) == ("black", "black_parity")
        assert protocol["eliminations"][-1] == {"seat": red, "cause": "killed", "night": 2}
        assert protocol["seats"][str(shooter)]["fouls"] == 3 and "out" not in protocol["seats"][str(shooter)]
    else:
        assert protocol["eliminations"][-2:] == [{"seat": red, "cause": "killed", "night": 2},
                                                 {"seat": shooter, "cause": "removed", "night": 2}]
        assert protocol["winner"] == "red"
    assert [day["day"] for day in protocol["days"]] == [1]  # the game ended at the morning of day 2


def test_a_killed_seat_struck_out_by_the_nights_fouls_has_no_last_word() -> None:
    """A fourth foul, like a removal, means no last word; a third shortens it (sport §1)."""
    shots = {"3": 4, "5": 4, "9": 4}
    for fouls, last_word in ((4, None), (3, 30), (0, 60)):
        _, result = run(nights=[{}, {"shots": shots, "fouls": [4] * fouls}], days=[{}, {}])
        words = [e.seconds for e in result.game.events if isinstance(e, SpeechBegan) and e.turn == "last_word"]
        assert words == ([] if last_word is None else [last_word]), fouls
