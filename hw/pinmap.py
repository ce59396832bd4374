"""Seat pin maps (``config/tables/*.toml``): which BCM pin is each seat's button and LED.

Validation names the pin and the place: unknown pins, pins used twice, the reserved ID
EEPROM pins (0, 1), and pins of interfaces the table enables (an I2S audio HAT, I2C…).
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .messages import N_, _, toml_error

# BCM pins on the 40-pin header; 0 and 1 are the HAT ID EEPROM and never free.
HEADER_PINS = frozenset(range(0, 28))
RESERVED = {0: N_("the HAT ID EEPROM (ID_SD)"), 1: N_("the HAT ID EEPROM (ID_SC)")}
INTERFACES: Mapping[str, tuple[frozenset[int], str]] = {
    "i2c": (frozenset({2, 3}), "I2C (SDA, SCL)"),
    "i2s": (frozenset({18, 19, 20, 21}), N_("I2S (an audio HAT)")),
    "spi": (frozenset({7, 8, 9, 10, 11}), "SPI0"),
    "uart": (frozenset({14, 15}), N_("the serial console (UART)")),
    # The HiFiBerry MiniAmp's PAM8403: GPIO16 low mutes it, GPIO26 low shuts it down (an LED
    # there would silence the table whenever it is off).
    "miniamp": (frozenset({16, 26}), N_("the MiniAmp amplifier's mute and shutdown")),
}


class PinMapError(ValueError):
    """A pin map that cannot be wired as written; ``place`` is file and key."""

    def __init__(self, place: str, message: str) -> None:
        super().__init__(f"{place}: {message}")
        self.place = place


@dataclass(frozen=True)
class SeatPins:
    seat: int
    button: int
    led: int


# The judge's keypad (``[judge]``): its keys by what they do; a key's long press does a second thing.
KEYPAD_KEYS: tuple[str, ...] = ("pause", "time", "end", "status", "repeat", "talk")
HELD_KEYS = frozenset({"talk"})   # told when they go down and when they come up (push-to-talk)
LONG_PRESS = {"end": "foul", "status": "repeat"}   # held: a foul to the speaker; the last lines again
LONG_PRESS_S = (0.3, 5.0)


@dataclass(frozen=True)
class JudgeKey:
    """One key of the judge's keypad: what it does (:data:`KEYPAD_KEYS`) and its button's pin."""

    action: str
    pin: int


@dataclass(frozen=True)
class PinMap:
    name: str
    seats: tuple[SeatPins, ...]
    interfaces: frozenset[str]
    bounce_ms: int = 20
    stuck_after_s: float = 5.0
    source: str = ""
    judge: tuple[JudgeKey, ...] = ()
    """The judge's keypad (none: the table has no ``[judge]``)."""
    long_press_s: float = 1.0
    """A key held this long does its second thing (:data:`LONG_PRESS`)."""

    @property
    def size(self) -> int:
        return len(self.seats)

    def pins_of(self, seat: int) -> SeatPins:
        return self.seats[seat - 1]

    def seat_of_button(self, pin: int) -> int | None:
        return next((s.seat for s in self.seats if s.button == pin), None)


def load_pinmap(path: str | Path) -> PinMap:
    path = Path(path)
    try:
        with path.open("rb") as handle:
            data = tomllib.load(handle)
    except FileNotFoundError:
        raise PinMapError(str(path), _("no such file")) from None
    except tomllib.TOMLDecodeError as err:
        raise PinMapError(str(path), toml_error(err)) from None
    except (OSError, ValueError) as err:
        raise PinMapError(str(path), _("cannot read it ({err})").format(err=err)) from None
    return pinmap_from_mapping(data, str(path))


def pinmap_from_mapping(data: Mapping[str, Any], place: str) -> PinMap:
    not_pins = {"audio", "ears", "game", "records", "web"}  # sound, ears, default game, club records, web console
    allowed = {"name", "interfaces", "bounce_ms", "stuck_after_s", "seat", "judge"} | not_pins
    for key in data:
        if key not in allowed:
            raise PinMapError(f"{place}: {key}", _("unknown key (known: {allowed})").format(
                                                     allowed=', '.join(sorted(allowed))))
    interfaces = _interfaces(data.get("interfaces", []), place)
    rows = data.get("seat")
    if not isinstance(rows, list) or not rows:
        raise PinMapError(f"{place}: seat", _("needs one [[seat]] table per seat, with button and led"))
    used: dict[int, str] = {}
    seats = tuple(_seat(row, i, interfaces, used, place) for i, row in enumerate(rows))
    bounce = data.get("bounce_ms", 20)
    stuck = data.get("stuck_after_s", 5.0)
    if not isinstance(bounce, int) or isinstance(bounce, bool) or not 0 <= bounce <= 200:
        raise PinMapError(f"{place}: bounce_ms", _("must be a whole number of milliseconds from 0 to 200"))
    if not isinstance(stuck, (int, float)) or isinstance(stuck, bool) or stuck <= 0:
        raise PinMapError(f"{place}: stuck_after_s", _("must be a positive number of seconds"))
    keys, long_press = _keypad(data.get("judge", {}), interfaces, used, f"{place}: judge")
    return PinMap(str(data.get("name", Path(place).stem)), seats, interfaces, bounce, float(stuck), place, keys,
                  long_press)


def _keypad(data: Any, interfaces: frozenset[str], used: dict[int, str],
            place: str) -> tuple[tuple[JudgeKey, ...], float]:
    """``[judge]``: a pin per key (``pause = 18``…), each free of the seats and the interfaces."""
    if not isinstance(data, Mapping):
        raise PinMapError(place, _("must be a table of keys (pause = PIN, …)"))
    long_press = data.get("long_press_s", 1.0)
    if isinstance(long_press, bool) or not isinstance(long_press, (int, float)) \
            or not LONG_PRESS_S[0] <= long_press <= LONG_PRESS_S[1]:
        raise PinMapError(f"{place}.long_press_s", _("must be a number of seconds from {low} to {high}").format(
                                                       low=LONG_PRESS_S[0], high=LONG_PRESS_S[1]))
    keys = []
    for action, value in data.items():
        if action == "long_press_s":
            continue
        if action not in KEYPAD_KEYS:
            raise PinMapError(f"{place}.{action}", _("unknown key (known: {allowed})").format(
                                                       allowed=", ".join((*KEYPAD_KEYS, "long_press_s"))))
        pin = _pin(value, f"{place}.{action}", interfaces)
        if pin in used:
            raise PinMapError(f"{place}.{action}", _("GPIO{pin} is already {owner}").format(pin=pin, owner=used[pin]))
        used[pin] = _("the judge's {key} key").format(key=action)
        keys.append(JudgeKey(action, pin))
    return tuple(keys), float(long_press)


def _interfaces(value: Any, place: str) -> frozenset[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise PinMapError(f"{place}: interfaces", _("must be a list such as [\"i2s\"]"))
    for name in value:
        if name not in INTERFACES:
            raise PinMapError(f"{place}: interfaces", _("unknown interface {name!r} (known: {interfaces})").format(
                                                          name=name, interfaces=', '.join(INTERFACES)))
    return frozenset(value)


def _seat(row: Any, index: int, interfaces: frozenset[str], used: dict[int, str], place: str) -> SeatPins:
    where = f"{place}: seat[{index}] (seat {index + 1})"
    if not isinstance(row, Mapping) or set(row) != {"button", "led"}:
        raise PinMapError(where, _("needs exactly button = PIN and led = PIN"))
    pins = {}
    for part in ("button", "led"):
        pins[part] = _pin(row[part], f"{where}.{part}", interfaces)
        if pins[part] in used:
            raise PinMapError(f"{where}.{part}", _("GPIO{pin} is already {owner}").format(
                                                     pin=pins[part], owner=used[pins[part]]))
        used[pins[part]] = (_("the seat {seat} button") if part == "button" else _("the seat {seat} led")).format(
            seat=index + 1)
    return SeatPins(index + 1, pins["button"], pins["led"])


def _pin(value: Any, where: str, interfaces: frozenset[str]) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise PinMapError(where, _("{value!r} is not a BCM pin number").format(value=value))
    if value not in HEADER_PINS:
        raise PinMapError(where, _("GPIO{value} is not on the 40-pin header (BCM 2–27)").format(
                                     value=value))
    if value in RESERVED:
        raise PinMapError(where, _("GPIO{value} is reserved for {reserved}").format(
                                     value=value, reserved=_(RESERVED[value])))
    for name in sorted(interfaces):
        pins, title = INTERFACES[name]
        if value in pins:
            raise PinMapError(where, _("GPIO{value} belongs to {title}, which this table enables").format(
                                         value=value, title=_(title)))
    return value


def pins_on_the_uart(pinmap: PinMap) -> list[str]:
    """The map's buttons and LEDs on the serial port's pins (GPIO14 TXD, GPIO15 RXD), e.g.
    ``["seat 9 button GPIO14"]``: allowed unless the table enables ``uart``, but they work only
    while nothing else drives those pins."""
    uart = INTERFACES["uart"][0]
    return [f"seat {s.seat} {part} GPIO{pin}" for s in pinmap.seats
            for part, pin in (("button", s.button), ("LED", s.led)) if pin in uart]


def uart_warning(pinmap: PinMap) -> str | None:
    """What a seat on GPIO14/15 means on Raspberry Pi OS (``hw test`` prints it)."""
    uart = INTERFACES["uart"][0]
    on_uart = [(_("seat {seat}, button GPIO{pin}") if part == "button" else _("seat {seat}, LED GPIO{pin}")).format(
        seat=s.seat, pin=pin)
        for s in pinmap.seats for part, pin in (("button", s.button), ("LED", s.led)) if pin in uart]
    if not on_uart:
        return None
    return _("Warning: {seats} — on the serial port's pins (UART: GPIO14 transmits, GPIO15 receives). If Raspberry Pi "
             "OS has the console on the port (raspi-config → Interface Options → Serial Port, enable_uart=1) or the "
             "port is given to Bluetooth (dtoverlay=miniuart-bt), then until voicehost starts GPIO14 sends the boot "
             "messages (the LED blinks, a pressed button shorts a driven output to ground), and presses on GPIO15 "
             "reach the console as input. Turn the console on the port off (sudo raspi-config nonint do_serial_cons "
             "1) or move these seats to free pins.").format(seats=", ".join(on_uart))


def check_seat_count(pinmap: PinMap, seats: int, ruleset: str) -> None:
    """The table must have exactly as many seats as the game."""
    if pinmap.size != seats:
        raise PinMapError(f"{pinmap.source}: seat",
                          _("the table has {size} seats; {ruleset} here needs {seats}").format(
                                                        size=pinmap.size, ruleset=ruleset, seats=seats))
