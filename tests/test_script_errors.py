"""Script errors name their place; malformed scripts never produce anything but InputError."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from voicehost.rules import InputError
from voicehost.rules.events import Eliminated
from voicehost.simulation.engine_level import simulate
from voicehost.simulation.script import load_script, script_from_data

# These tests assert the English of the messages (their ids); the Russian is tests/test_i18n.py's.
pytestmark = pytest.mark.usefixtures("english_module")

ROLES = {"3": "don", "5": "mafia", "9": "mafia", "7": "sheriff"}


def error_of(**script: Any) -> str:
    script.setdefault("roles", ROLES)
    with pytest.raises(InputError) as caught:
        script_from_data(script)
    return str(caught.value)


@pytest.mark.parametrize(("script", "message"), [
    ({"days": [{}, {"votes": {"11": 3}}]}, "days[1].votes.11: there is no seat 11 at a 10-seat table"),
    ({"days": [{"votes": {"1": 0}}]}, "days[0].votes.1: there is no seat 0 at a 10-seat table"),
    ({"nights": [{}, {"check": {"5": 3}}]}, "nights[1].check.5: seat 5 is a mafia and has no check"),
    ({"nights": [{}, {"check": {"4": 3}}]}, "nights[1].check.4: seat 4 is a citizen and has no check"),
    ({"nights": [{}, {"shots": {"7": 3}}]}, "nights[1].shots.7: seat 7 is a sheriff and has no shots"),
    ({"nights": [{}, {"heal": {"4": 3}}]}, "nights[1].heal.4: seat 4 is a citizen and has no heal"),
    ({"nights": [{"dance": {}}]}, "nights[0].dance: unknown key"),
    ({"days": [{"prevote": {"1": 2}}]}, "days[0].prevote: sport has no prevote"),
    ({"days": [{"speeches": {"1": 5}}]}, "days[0].speeches.1: must be a string or a list of strings"),
    ({"days": [{"fouls": [{"seat": 2}]}]}, "days[0].fouls[0]: needs exactly one of after_speech or at"),
    ({"days": [{"fouls": [{"seat": 2, "at": "noon"}]}]}, "days[0].fouls[0].at: 'noon' is not one of"),
    ({"days": {}}, "days: must be a list, not dict"),
    ({"roles": {"3": "vampire"}}, "roles.3: unknown role 'vampire'"),
    ({"roles": {"12": "don"}}, "roles.12: there is no seat 12 at a 10-seat table"),
    ({"roles": {"3": "don"}}, "roles: the table needs 1 sheriff, 1 don, 2 mafia; the deal has 1 don"),
    ({"seats": 12}, "seats: sport is played at 10 seats, not 12"),
    ({"ruleset": "poker"}, "ruleset: unknown ruleset 'poker'"),
    ({"options": {"nomination": "middle"}}, "options.nomination: 'middle' is not one of first, last"),
    ({"options": {"colour": 1}}, "options.colour: sport has no option 'colour'"),
    ({"options": {"last_word_s": -5}}, "options.last_word_s: -5 is below the minimum 0"),
    ({"options": {"self_nomination": "maybe"}}, "options.self_nomination: 'maybe' is not true or false"),
    ({"extra": 1}, "extra: unknown key"),
])
def test_script_error_names_its_place(script: dict[str, Any], message: str) -> None:
    assert error_of(**script).startswith(message)


def test_script_file_errors_name_the_file(tmp_path: Path) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text('{"days": [}')
    with pytest.raises(InputError, match=r"broken.json:1:\d+: not valid JSON"):
        load_script(broken)
    with pytest.raises(InputError, match="no such file"):
        load_script(tmp_path / "missing.json")
    toml = tmp_path / "bad.toml"
    toml.write_text('ruleset = "sport"\nroles = {3 = "don", 5 = "mafia", 9 = "mafia", 7 = "sheriff"}\n'
                    '[[days]]\nvotes = {"1" = 11}\n')
    with pytest.raises(InputError, match=r"bad.toml: days\[0\].votes.1: there is no seat 11"):
        load_script(toml)


def test_toml_scripts_use_the_same_keys(tmp_path: Path) -> None:
    path = tmp_path / "game.toml"
    path.write_text(
        'ruleset = "sport"\n[roles]\n3 = "don"\n5 = "mafia"\n9 = "mafia"\n7 = "sheriff"\n'
        '[[nights]]\n[[days]]\n[days.speeches]\n1 = "выставляю пятого"\n2 = "выставляю девятого"\n'
        '[days.votes]\n1 = 5\n'
    )
    result = simulate(load_script(path))
    assert [e.seat for e in result.game.events if isinstance(e, Eliminated)] == [9]


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 14) | st.text(max_size=8)
    | st.sampled_from(["sport", "don", "mafia", "morning", "выставляю пятого", "пас"]),
    lambda children: st.lists(children, max_size=4)
    | st.dictionaries(st.sampled_from(["1", "3", "5", "11", "seat", "at", "after_speech", "shots", "check",
                                       "votes", "revote", "speeches", "lift", "fouls", "removals", "x"]),
                      children, max_size=4),
    max_leaves=25,
)


@given(nights=json_values, days=json_values, options=json_values, seats=json_values)
def test_fuzzed_malformed_scripts_raise_only_input_errors(
        nights: object, days: object, options: object, seats: object) -> None:
    script = {"roles": ROLES, "nights": nights, "days": days, "options": options, "seats": seats}
    try:
        simulate(script_from_data(json.loads(json.dumps(script))))
    except InputError as err:
        assert str(err) and "\n" not in str(err)


# ---- seat keys and numbers written oddly (issue 28: «--5» ended in a ValueError traceback) ----

ODD_NUMBERS = ["--5", "+5", " 5", "5 ", "٥", "５", "5.0", "1e1", "0x5", "5_0", "-", "", "- 5", "−5"]


def _cli_on(tmp_path: Path, script: dict[str, Any]) -> tuple[int | None, str]:
    from fuzzing import run_cli
    path = tmp_path / "odd.json"
    path.write_text(json.dumps({"roles": ROLES, **script}, ensure_ascii=False), encoding="utf-8")
    code, _, err = run_cli(["simulate", str(path)])
    return code, err


def test_an_option_number_written_with_two_minus_signs_is_one_line_and_exit_2(tmp_path: Path) -> None:
    code, err = _cli_on(tmp_path, {"options": {"last_word_s": "--5"}})
    assert code == 2 and err.strip().count("\n") == 0, err
    assert err.strip().endswith("options.last_word_s: '--5' is not a whole number")


@pytest.mark.parametrize("odd", ODD_NUMBERS)
def test_a_seat_or_number_written_oddly_is_one_line_and_exit_2(tmp_path: Path, odd: str) -> None:
    """Every place a script writes a seat as a key or a number as text: never a traceback. (An
    option's number may have spaces around it, as typed after ``k=``: ``" 5"`` is 5 there.)"""
    option = [] if odd.strip() == "5" else [{"options": {"last_word_s": odd}}]
    scripts: tuple[dict[str, Any], ...] = (
        {"roles": {**ROLES, odd: "citizen"}}, {"nights": [{}, {"shots": {odd: 4}}]},
        {"days": [{"votes": {odd: 4}}]}, {"days": [{"speeches": {odd: "пас"}}]},
        {"names": {odd: "Анна"}}, {"days": [{"fouls": [{"seat": odd, "at": "morning"}]}]}, *option)
    for script in scripts:
        code, err = _cli_on(tmp_path, script)
        assert code == 2 and err.strip() and err.strip().count("\n") == 0, (script, code, err)
        assert err.startswith("voicehost: error: "), (script, err)
