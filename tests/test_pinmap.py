"""Pin maps: the shipped examples fit the header; every mistake names its pin."""

from __future__ import annotations

from pathlib import Path

import pytest

from hw.pinmap import INTERFACES, PinMapError, check_seat_count, load_pinmap, pinmap_from_mapping

TABLES = Path(__file__).resolve().parent.parent / "config" / "tables"


def rows(*pairs):
    return [{"button": b, "led": led} for b, led in pairs]


def test_ten_seat_example_leaves_i2s_and_i2c_free() -> None:
    pinmap = load_pinmap(TABLES / "ten-seats.toml")
    used = {p for s in pinmap.seats for p in (s.button, s.led)}
    assert pinmap.size == 10 and len(used) == 20
    assert not used & (INTERFACES["i2s"][0] | INTERFACES["i2c"][0] | {0, 1})


def test_twelve_seat_example_keeps_i2c_free() -> None:
    pinmap = load_pinmap(TABLES / "twelve-seats.toml")
    used = {p for s in pinmap.seats for p in (s.button, s.led)}
    assert pinmap.size == 12 and len(used) == 24 and not used & {0, 1, 2, 3}


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
def test_pin_map_errors_name_the_pin(data, message) -> None:
    with pytest.raises(PinMapError) as caught:
        pinmap_from_mapping(data, "t.toml")
    assert message in str(caught.value)


def test_seat_count_must_match_the_ruleset() -> None:
    pinmap = load_pinmap(TABLES / "twelve-seats.toml")
    with pytest.raises(PinMapError, match="the table has 12 seats; sport here needs 10"):
        check_seat_count(pinmap, 10, "sport")


def test_unreadable_pin_maps(tmp_path) -> None:
    with pytest.raises(PinMapError, match="no such file"):
        load_pinmap(tmp_path / "none.toml")
    bad = tmp_path / "bad.toml"
    bad.write_text("[[seat]\n")
    with pytest.raises(PinMapError, match="bad.toml: not valid TOML"):
        load_pinmap(bad)
