"""Pin maps: the shipped examples fit the header; every mistake names its pin."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest

from hw.pinmap import INTERFACES, PinMapError, check_seat_count, load_pinmap, pinmap_from_mapping

TABLES = Path(__file__).resolve().parent.parent / "config" / "tables"


def rows(*pairs: tuple[object, int]) -> list[dict[str, object]]:
    return [{"button": b, "led": led} for b, led in pairs]


def test_ten_seat_example_leaves_i2s_and_the_serial_port_free() -> None:
    """Twenty pins, the audio HAT's I2S and the UART (serial console, Bluetooth) untouched: only
    18 pins are none of I2C, I2S, UART and the ID EEPROM, so two buttons sit on I2C's 2 and 3."""
    pinmap = load_pinmap(TABLES / "ten-seats.toml")
    used = {p for s in pinmap.seats for p in (s.button, s.led)}
    assert pinmap.size == 10 and len(used) == 20 and {"i2s", "uart"} <= pinmap.interfaces
    assert not used & (INTERFACES["i2s"][0] | INTERFACES["uart"][0] | {0, 1})
    assert not {s.led for s in pinmap.seats} & INTERFACES["i2c"][0]  # the board's pull-ups would light an LED


def test_twelve_seat_example_leaves_the_serial_port_free() -> None:
    pinmap = load_pinmap(TABLES / "twelve-seats.toml")
    used = {p for s in pinmap.seats for p in (s.button, s.led)}
    assert pinmap.size == 12 and len(used) == 24 and "uart" in pinmap.interfaces
    assert not used & (INTERFACES["uart"][0] | {0, 1})
    assert not {s.led for s in pinmap.seats} & INTERFACES["i2c"][0]


def test_the_miniamp_example_leaves_its_amplifier_alone() -> None:
    """The HiFiBerry MiniAmp mutes on GPIO16 low and shuts down on GPIO26 low: its map keeps
    both free (ten-seats.toml had seat LEDs there: off, they silenced the table), and declares
    them, so a club's copy that moves a seat there is refused."""
    pinmap = load_pinmap(TABLES / "ten-seats-miniamp.toml")
    used = {p for s in pinmap.seats for p in (s.button, s.led)}
    assert pinmap.size == 10 and len(used) == 20 and {"i2s", "miniamp"} <= pinmap.interfaces
    assert not used & (INTERFACES["i2s"][0] | INTERFACES["miniamp"][0] | {0, 1})
    assert not {s.led for s in pinmap.seats} & INTERFACES["i2c"][0]
    ten = (TABLES / "ten-seats.toml").read_text(encoding="utf-8")
    assert "miniamp" not in ten.split("[[seat]]")[0].split("interfaces")[1].split("\n")[0]
    with pytest.raises(PinMapError, match="GPIO26 принадлежит выключению звука и питания усилителя MiniAmp"):
        pinmap_from_mapping(tomllib.loads(ten.replace('interfaces = ["i2s", "uart"]',
                                                      'interfaces = ["i2s", "uart", "miniamp"]')), "t.toml")


def test_hw_test_says_what_a_seat_on_the_uart_means(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A club's own map with seats on GPIO14/15 (the old default): ``hw test`` says, in
    Russian, what the serial console does to them and how to turn it off; the shipped maps
    have no such seat and no such line."""
    from test_cli import cli

    club = tmp_path / "club.toml"
    club.write_text((TABLES / "ten-seats.toml").read_text(encoding="utf-8")
                    .replace('interfaces = ["i2s", "uart"]', 'interfaces = ["i2s"]')
                    .replace("button = 2\n", "button = 14\n").replace("button = 3\n", "button = 15\n"),
                    encoding="utf-8")
    code, out, _ = cli(capsys, "hw", "test", "--table", str(club), "--mock")
    warning = [line for line in out.splitlines() if line.startswith("Внимание:")]
    assert code == 0 and len(warning) == 1
    assert warning[0].startswith("Внимание: место 9, кнопка GPIO14, место 10, кнопка GPIO15 — на выводах "
                                 "последовательного порта (UART")
    assert "sudo raspi-config nonint do_serial_cons 1" in warning[0]
    for table in ("ten-seats", "twelve-seats"):
        code, out, _ = cli(capsys, "hw", "test", "--table", str(TABLES / f"{table}.toml"), "--mock")
        assert code == 0 and "Внимание:" not in out and "все места отвечают на своих выводах" in out
    code, out, _ = cli(capsys, "hw", "test", "--table", str(TABLES / "ten-seats-miniamp.toml"), "--mock")
    assert code == 0 and "Внимание: место 7, светодиод GPIO14, место 10, светодиод GPIO15" in out


@pytest.mark.parametrize(("data", "message"), [
    ({"seat": rows((4, 17), (4, 27))}, "t.toml: seat[1] (seat 2).button: GPIO4 is already the seat 1 button"),
    ({"seat": rows((4, 17), (5, 4))}, "t.toml: seat[1] (seat 2).led: GPIO4 is already the seat 1 button"),
    ({"seat": rows((0, 17))}, "t.toml: seat[0] (seat 1).button: GPIO0 is reserved for the HAT ID EEPROM"),
    ({"seat": rows((4, 1))}, "t.toml: seat[0] (seat 1).led: GPIO1 is reserved"),
    ({"seat": rows((4, 40))}, "t.toml: seat[0] (seat 1).led: GPIO40 is not on the 40-pin header"),
    ({"seat": rows((-3, 17))}, "t.toml: seat[0] (seat 1).button: GPIO-3 is not on the 40-pin header"),
    ({"seat": rows(("4", 17))}, "t.toml: seat[0] (seat 1).button: '4' is not a BCM pin number"),
    ({"interfaces": ["i2s"], "seat": rows((4, 18))}, "seat[0] (seat 1).led: GPIO18 belongs to I2S (an audio HAT)"),
    ({"interfaces": ["i2c"], "seat": rows((2, 17))}, "seat[0] (seat 1).button: GPIO2 belongs to I2C"),
    ({"interfaces": ["spi"], "seat": rows((4, 9))}, "GPIO9 belongs to SPI0"),
    ({"interfaces": ["uart"], "seat": rows((14, 4))}, "GPIO14 belongs to the serial console"),
    ({"interfaces": ["hdmi"], "seat": rows((4, 17))}, "t.toml: interfaces: unknown interface 'hdmi'"),
    ({"seat": [{"button": 4}]}, "t.toml: seat[0] (seat 1): needs exactly button = PIN and led = PIN"),
    ({"seat": []}, "t.toml: seat: needs one [[seat]] table per seat"),
    ({"seat": rows((4, 17)), "bounce_ms": 900}, "t.toml: bounce_ms: must be a whole number"),
    ({"seat": rows((4, 17)), "stuck_after_s": 0}, "t.toml: stuck_after_s: must be a positive number"),
    ({"seat": rows((4, 17)), "pins": 3}, "t.toml: pins: unknown key"),
])
@pytest.mark.usefixtures("english")
def test_pin_map_errors_name_the_pin(data: dict[str, Any], message: str) -> None:
    with pytest.raises(PinMapError) as caught:
        pinmap_from_mapping(data, "t.toml")
    assert message in str(caught.value)


@pytest.mark.usefixtures("english")
def test_seat_count_must_match_the_ruleset() -> None:
    pinmap = load_pinmap(TABLES / "twelve-seats.toml")
    with pytest.raises(PinMapError, match="the table has 12 seats; sport here needs 10"):
        check_seat_count(pinmap, 10, "sport")


@pytest.mark.usefixtures("english")
def test_unreadable_pin_maps(tmp_path: Path) -> None:
    with pytest.raises(PinMapError, match="no such file"):
        load_pinmap(tmp_path / "none.toml")
    bad = tmp_path / "bad.toml"
    bad.write_text("[[seat]\n")
    with pytest.raises(PinMapError, match="bad.toml: not valid TOML"):
        load_pinmap(bad)
