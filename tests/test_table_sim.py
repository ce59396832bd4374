"""voicehost.simulation.table_level: the live director with simulated people — on the virtual clock (the
table level), and in real time on gpiozero's mock pins (``voicehost demo``)."""

from __future__ import annotations

import asyncio
import time
import warnings
from typing import Any

import pytest

from hw.pinmap import PinMap
from voicehost.host.vclock import run_virtual
from voicehost.rules.inputs import Input, Vote
from voicehost.rules.protocol import build_protocol
from voicehost.simulation.engine_level import Simulation, simulate
from voicehost.simulation.script import script_from_data
from voicehost.simulation.table_level import Divergence, People, TableRun, mock_pin_seats, play_table

ROLES = {"3": "don", "5": "mafia", "9": "mafia", "7": "sheriff"}
DAY = {"speeches": {"1": ["я выставляю игрока номер пять спасибо"], "2": ["выставляю девятого", "спасибо"],
                    **{str(s): ["пас"] for s in range(3, 11)}},
       "votes": {"1": 5, "2": 5, "3": 9, "4": 5, "6": 5, "7": 5, "8": 9, "10": 5},
       "fouls": [{"seat": 4, "after_speech": 2}]}
SCRIPT = {"ruleset": "sport", "roles": ROLES, "nights": [{}, {"shots": {"3": 1, "9": 1}, "check": {"7": 3}}],
          "days": [DAY]}


def protocols(result: Simulation) -> tuple[dict[str, Any], dict[str, Any]]:
    engine = simulate(result.script)
    return (build_protocol(result.game, result.ignored, result.script.names),
            build_protocol(engine.game, engine.ignored, engine.script.names))


def test_the_director_runs_a_script_on_game_time() -> None:
    result = run_virtual(play_table(script_from_data(SCRIPT)))
    table, engine = protocols(result)
    assert table == engine and table["days"][0]["eliminated"] == [5]
    lines = [text for _, text in result.table.lines]
    assert "Игрок номер четыре, замечание. Это первое замечание." in lines  # typed by the judge
    heard = [text for _, seat, text in result.table.heard if seat == 2]
    assert heard == ["выставляю девятого", "спасибо"]


def test_the_director_runs_a_script_on_mock_pins_in_real_time(ten_seats: PinMap) -> None:
    """The demo's path: SeatPanel on MockFactory pins, debounced and stamped in real time.

    At 40× a count's number lasts 25 ms, so a busy machine can land a press on the next number;
    such a run is played again slower (a host that reads the pins wrong diverges at every pace)."""
    script = script_from_data(SCRIPT)
    for speed in (40.0, 16.0, 6.0):
        how = TableRun(say=lambda text: time.monotonic(), seats=mock_pin_seats(ten_seats), speed=speed)
        try:
            result = asyncio.run(asyncio.wait_for(play_table(script, how=how), timeout=240))
            break
        except Divergence as err:
            warnings.warn(f"played again slower: at {speed:g}× {err}", stacklevel=1)
    else:
        raise AssertionError("the table diverged from the script at every pace")
    table, engine = protocols(result)
    assert table == engine
    assert table["nights"][1]["killed"] == [1]


def test_a_host_that_takes_the_wrong_input_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """The people check every input the director takes against the engine level's."""
    original = People.taken

    async def misread(self: People, item: Input, refusals: int | None = None) -> None:
        if isinstance(item, Vote) and item.voter == 1:
            item = Vote(1, 9)  # as if the buttons had been read wrong
        await original(self, item, refusals)

    monkeypatch.setattr(People, "taken", misread)
    with pytest.raises(Divergence, match="the people did Vote\\(voter=1, candidate=9\\), the host took Vote"):
        run_virtual(play_table(script_from_data(SCRIPT)))


def test_the_led_language_at_the_table() -> None:
    """docs/wiring.md «The LED language»: the floor on, the last seconds blinking, nominated dim, the
    candidate pulsing while voted on, a foul flashing, out of the game off; nominations end
    with the day."""
    result = run_virtual(play_table(script_from_data(SCRIPT)))
    leds = [(seat, pattern) for _, seat, pattern, _ in result.table.leds]
    five = [pattern for seat, pattern in leds if seat == 5]
    assert five == ["nominee", "speaker", "nominee",      # nominated by seat 1; his own turn
                    "vote_window", "nominee", "off",      # voted on; out of the game
                    "speaker", "last_seconds", "off"]     # a last word without words runs out
    four = [pattern for seat, pattern in leds if seat == 4]
    assert "foul" in four and four[four.index("foul") + 1] == "off"       # the flash, then back as before
    nine = [pattern for seat, pattern in leds if seat == 9]
    assert nine[0] == "nominee" and nine[-1] == "off"                      # night ends «nominated today»


@pytest.mark.usefixtures("english")
def test_a_divergence_is_one_clear_line_never_a_traceback(monkeypatch: pytest.MonkeyPatch,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    from pathlib import Path

    from voicehost.cli.main import main

    async def misread(self: People, item: Input, refusals: int | None = None) -> None:
        raise Divergence(f"input {self.cursor}: the people did {item}, the host took something else")

    monkeypatch.setattr(People, "taken", misread)
    sample = Path(__file__).resolve().parent.parent / "examples" / "sport-sample.json"
    code = main(["simulate", str(sample), "--level", "table"])
    err = capsys.readouterr().err
    assert code == 1 and err.count("\n") == 1
    assert err.startswith("voicehost: error: table level: input 1: the people did") and "Traceback" not in err


def test_taps_listed_high_to_low_or_twice_are_read_as_the_engine_judges_them() -> None:
    """[6, 4] is two taps (a miss) whatever the order they are listed in; [4, 4] is two taps on
    one number (a miss for the engine), not one."""
    for shots in ({"3": [6, 4], "5": 4, "9": 4}, {"3": [4, 4], "5": 4, "9": 4}, {"3": 4, "5": [6, 4], "9": [4, 6]}):
        script = script_from_data({"ruleset": "sport", "roles": ROLES, "nights": [{}, {"shots": shots}],
                                   "days": [{}, {}]})
        table, engine = protocols(run_virtual(play_table(script)))
        assert table == engine and engine["nights"][1]["killed"] == []


def test_a_seat_listed_twice_in_lift_is_a_second_vote_at_both_levels() -> None:
    everyone = {str(s): 2 if s <= 5 else 3 for s in range(1, 11)}
    day = {"speeches": {"1": ["выставляю второго"], "2": ["выставляю третьего"]}, "votes": everyone,
           "revote": everyone, "lift": [1, 1, 2, 4, 4, 5, 6, 7]}
    script = script_from_data({"ruleset": "sport", "roles": ROLES, "days": [day]})
    table, engine = protocols(run_virtual(play_table(script)))
    assert table == engine and engine["days"][0]["eliminated"] == [2, 3]
    assert engine["days"][0]["fouls"] == [{"seat": 1, "count": 1}, {"seat": 4, "count": 1}]


def test_vsyo_ends_a_speech_at_the_table() -> None:
    """«у меня всё» and a nomination followed by «всё» give up the floor at once; «все» inside
    a sentence does not."""
    day = {"speeches": {"1": ["выставляю игрока номер пять всё"], "2": ["у меня всё"],
                        "3": ["все тут мирные"]}, "votes": {}}
    result = run_virtual(play_table(script_from_data({"ruleset": "sport", "roles": ROLES, "days": [day]})))
    table, engine = protocols(result)
    assert table == engine and table["days"][0]["nominations"] == [[1, 5]]
    floors = [t for t, text in result.table.lines if text.endswith(", ваше слово.")]
    assert floors[1] - floors[0] < 10 and floors[2] - floors[1] < 10  # ended by «всё», not by the minute
    assert floors[3] - floors[2] >= 60                                   # «все тут мирные» ends nothing
