"""The judge's keypad (``[judge]`` of the pin map, hw.keypad, voicehost.host.keypad): its pins
checked against the seats and the interfaces, its keys read on gpiozero's mock pins (a long
press is a second key), and each key typed into the console as the terminal types."""

from __future__ import annotations

import asyncio
import tomllib
from pathlib import Path
from typing import Any

import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory, MockPWMPin

from hw.diagram import diagram_svg
from hw.keypad import JudgeKeypad
from hw.pinmap import PinMapError, pinmap_from_mapping
from voicehost.cli.main import main
from voicehost.host.keypad import KeypadCommands
from voicehost.host.notices import FloorChanged, Paused
from voicehost.host.ports import EdgeLog, Ports
from voicehost.rules.requests import AwaitSpeech

ROOT = Path(__file__).resolve().parent.parent
TABLE = ROOT / "config" / "tables" / "ten-seats-judge.toml"


def _table(**judge: Any) -> dict[str, Any]:
    data = tomllib.loads(TABLE.read_text(encoding="utf-8"))
    if judge:
        data["judge"] = judge
    return data


def test_the_bundled_keypad_table_loads_with_four_keys() -> None:
    pinmap = pinmap_from_mapping(_table(), str(TABLE))
    assert [(k.action, k.pin) for k in pinmap.judge] == [("pause", 18), ("time", 19), ("end", 20), ("status", 21)]
    seats = {p for s in pinmap.seats for p in (s.button, s.led)}
    assert not seats & {k.pin for k in pinmap.judge}


@pytest.mark.parametrize(("judge", "fault"), [
    ({"pause": 17}, "judge.pause: GPIO17 "),          # the seat 1 LED
    ({"pause": 14}, "judge.pause: GPIO14 "),          # the UART the table keeps free
    ({"pause": 18, "end": 18}, "judge.end: GPIO18 "),
    ({"pause": 0}, "judge.pause: GPIO0 "),
    ({"shout": 18}, "judge.shout: "),
    ({"pause": "18"}, "judge.pause: '18'"),
    ({"pause": 18, "long_press_s": 9}, "judge.long_press_s: "),
])
def test_a_key_on_a_taken_pin_is_refused_by_name(judge: dict[str, Any], fault: str) -> None:
    data = _table()
    data["judge"] = judge
    with pytest.raises(PinMapError, match=fault):
        pinmap_from_mapping(data, "t.toml")


@pytest.fixture
def factory() -> Any:
    factory = MockFactory(pin_class=MockPWMPin)
    yield factory
    factory.reset()
    Device.pin_factory = None


def test_keys_short_and_long_on_mock_pins(factory: Any) -> None:
    pinmap = pinmap_from_mapping(_table(), str(TABLE))
    now = [100.0]
    keys: list[str] = []
    with JudgeKeypad(pinmap, keys.append, pin_factory=factory, clock=lambda: now[0]):
        def press(pin: int, held: float, bounce: bool = False) -> None:
            factory.pin(pin).drive_low()
            if bounce:   # contact bounce: a flip 2 ms after the press counts for nothing
                now[0] += 0.002
                factory.pin(pin).drive_high()
                factory.pin(pin).drive_low()
            now[0] += held
            factory.pin(pin).drive_high()
            now[0] += 0.5
        press(18, 0.2)
        press(19, 0.2, bounce=True)
        press(20, 0.2)
        press(20, 1.2)     # held: a foul to the speaker
        press(21, 0.2)
        press(21, 1.5)     # held: repeat
    assert keys == ["pause", "time", "end", "foul", "status", "repeat"]


class _Channel:
    def __init__(self) -> None:
        self.asked: list[str] = []

    def status(self) -> None:
        self.asked.append("status")

    def repeat(self) -> None:
        self.asked.append("repeat")

    def tell(self, said: Any) -> None:
        self.asked.append(said[0][0])


def test_each_key_is_the_consoles_own_line_through_the_terminals_port() -> None:
    async def session() -> tuple[list[str], list[str]]:
        ports = Ports(night=lambda on: None, led=lambda s, p: None, edges=EdgeLog(), speak=None)
        channel = _Channel()
        keys = KeypadCommands(ports.type)
        keys.key("status")                     # no earpiece: the console's status (aloud)
        keys.attach(channel)  # type: ignore[arg-type]
        keys.key("pause")
        keys.notice(Paused(True))
        keys.key("pause")                      # paused: the same key resumes
        keys.notice(Paused(False))
        keys.key("time")
        keys.key("foul")                       # nobody speaks: the judge is told, nothing typed
        keys.notice(FloorChanged(AwaitSpeech(seat=5, seconds=60, turn="speech", may_nominate=True), 60.0))
        keys.key("end")
        keys.key("foul")
        keys.key("status")
        keys.key("repeat")
        typed = []
        while not ports.console.empty():
            item = ports.console.get_nowait()
            typed.append(item.line)
            assert item.by == "console"
        return typed, channel.asked

    typed, asked = asyncio.run(session())
    assert typed == ["status", "pause", "resume", "time +30", "end", "foul 5"]
    assert asked == ["no_speaker", "status", "repeat"]


def test_hw_test_and_the_diagram_cover_the_keypad(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["hw", "test", "--table", str(TABLE), "--mock", "--timeout", "2"]) == 0
    out = capsys.readouterr().out
    assert out.count("GPIO18") >= 1 and "«status»" in out
    svg = diagram_svg(pinmap_from_mapping(_table(), str(TABLE)))
    for action, pin in (("pause", 18), ("time", 19), ("end", 20), ("status", 21)):
        assert f'id="judge-{action}"' in svg and f"GPIO{pin}" in svg


def test_the_talk_key_is_told_down_and_up(factory: Any) -> None:
    data = _table()
    data["judge"] = {"talk": 18, "end": 20}
    pinmap = pinmap_from_mapping(data, "t.toml")
    now = [10.0]
    held: list[tuple[str, bool]] = []
    keys: list[str] = []
    with JudgeKeypad(pinmap, keys.append, pin_factory=factory, clock=lambda: now[0],
                     on_hold=lambda key, down: held.append((key, down))):
        factory.pin(18).drive_low()
        now[0] += 2.0
        factory.pin(18).drive_high()
    assert held == [("talk", True), ("talk", False)] and keys == []
    svg = diagram_svg(pinmap)
    assert 'id="judge-talk"' in svg
