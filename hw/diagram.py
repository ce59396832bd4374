"""The wiring diagram of a table, drawn from its pin map as an SVG: the Pi's 40-pin header,
and for each seat its button (pin → button → ground) and its LED (pin → resistor → LED →
ground), so a club that changes a pin map prints a drawing that matches it."""

from __future__ import annotations

from xml.sax.saxutils import escape

from .messages import N_, _, ngettext
from .pinmap import PinMap

# The 40-pin header by physical position: a BCM number, or the power/ground label.
HEADER: tuple[int | str, ...] = (
    "3V3", "5V", 2, "5V", 3, "GND", 4, 14, "GND", 15, 17, 18, 27, "GND", 22, 23, "3V3", 24, 10, "GND",
    9, 25, 11, 8, "GND", 7, 0, 1, 5, "GND", 6, 12, 13, "GND", 19, 16, 26, 20, "GND", 21)
RESISTOR_OHMS = 330   # an LED's series resistor at 3.3 V (about 4 mA for a red 5 mm LED)
# The pins with a second job on Raspberry Pi OS, named on the header when free and noted when a seat uses them.
PIN_FUNCTIONS = {0: "ID_SD", 1: "ID_SC", 2: "I2C SDA", 3: "I2C SCL", 14: "UART TXD", 15: "UART RXD",
                 18: "I2S BCLK", 19: "I2S LRCLK", 20: "I2S DIN", 21: "I2S DOUT"}
SPECIAL_NOTES = {
    "I2C": N_("a 1.8 kΩ pull-up to 3.3 V on the board: fine for a button; an LED on it would light at boot"),
    "UART": N_("the serial port: no good with the console on the port (or Bluetooth on it), see voicehost hw test"),
    "I2S": N_("the audio HAT's pins: with this map no HAT fits, the sound goes through a USB sound card"),
}

PIN_W, PIN_H = 140, 22
BUTTON_FILL, LED_FILL, FREE_FILL, KEY_FILL = "#9fd3ff", "#ffd27f", "#eeeeee", "#b8e6b0"
KEY_H = 22
HEADER_X, HEADER_Y = 30, 70
SEATS_X, ROW_H = 330 + 88, 44


def physical_pin(bcm: int) -> int:
    """The header position (1–40) of a BCM pin."""
    return HEADER.index(bcm) + 1


def diagram_svg(pinmap: PinMap) -> str:
    """The whole drawing as SVG text (every GPIO of the map appears as «GPIO<n>»)."""
    used = {p.button: (_("{seat} button").format(seat=p.seat), BUTTON_FILL) for p in pinmap.seats} | {
        p.led: (_("{seat} LED").format(seat=p.seat), LED_FILL) for p in pinmap.seats} | {
        k.pin: (_("judge: {key}").format(key=k.action), KEY_FILL) for k in pinmap.judge}
    bottom = max(HEADER_Y + 20 * PIN_H, HEADER_Y + len(pinmap.seats) * ROW_H + len(pinmap.judge) * KEY_H + 10) + 20
    notes = _special_notes(used, bottom)
    height = bottom + 16 * len(notes) + 40
    # A message inside an f-string is not extracted (Babel reads no f-string's parts): said before it.
    seats = ngettext("{size} seat", "{size} seats", pinmap.size).format(size=pinmap.size)
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="1000" height="{height}" '
             f'font-family="sans-serif" font-size="11">',
             f'<text x="{HEADER_X}" y="30" font-size="16">{escape(pinmap.name)}: {escape(seats)}</text>',
             f'<text x="{HEADER_X}" y="50">' + escape(_(
                 "Raspberry Pi 40-pin header (BCM numbers). Buttons: pin → button → GND (internal pull-up). "
                 "LEDs: pin → {ohms} Ω → LED anode, cathode → GND.").format(ohms=RESISTOR_OHMS)) + '</text>']
    parts += _header(used)
    parts += notes
    parts += [_seat(pinmap, index) for index in range(pinmap.size)]
    parts += [_key(pinmap, index) for index in range(len(pinmap.judge))]
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def _header(used: dict[int, tuple[str, str]]) -> list[str]:
    shapes = []
    for position, pin in enumerate(HEADER, start=1):
        column, row = (position - 1) % 2, (position - 1) // 2
        x, y = HEADER_X + column * (PIN_W + 8), HEADER_Y + row * PIN_H
        label = f"GPIO{pin}" if isinstance(pin, int) else pin
        role, fill = used.get(pin, ("", FREE_FILL)) if isinstance(pin, int) else ("", FREE_FILL)
        if role:
            label += f" · {role}"
        elif isinstance(pin, int) and pin in PIN_FUNCTIONS:
            label += f" ({PIN_FUNCTIONS[pin]})"
        ident = f' id="header-gpio{pin}"' if isinstance(pin, int) else ""
        shapes.append(f'<g{ident}><rect x="{x}" y="{y}" width="{PIN_W}" height="{PIN_H - 2}" fill="{fill}" '
                      f'stroke="#555"/><text x="{x + 4}" y="{y + 15}">{position}: {label}</text></g>')
    return shapes


def _special_notes(used: dict[int, tuple[str, str]], top: int) -> list[str]:
    """One line under the title per interface whose pins the map's seats use."""
    lines = []
    for interface, note in SPECIAL_NOTES.items():
        pins = sorted(pin for pin in used if PIN_FUNCTIONS.get(pin, "").startswith(interface))
        if pins:
            lines.append(f"{', '.join(f'GPIO{pin}' for pin in pins)} ({interface}): {_(note)}.")
    return [f'<text x="{HEADER_X}" y="{top + 16 * i}" id="note-{i}">{escape(line)}</text>'
            for i, line in enumerate(lines)]


def _seat(pinmap: PinMap, index: int) -> str:
    pins = pinmap.seats[index]
    y = HEADER_Y + index * ROW_H
    x = SEATS_X
    seat = escape(_("Seat {seat}").format(seat=pins.seat))
    button = escape(_("button: GPIO{gpio} (pin {pin}) → button → GND").format(
        gpio=pins.button, pin=physical_pin(pins.button)))
    led = escape(_("LED: GPIO{gpio} (pin {pin}) → ").format(gpio=pins.led, pin=physical_pin(pins.led)))
    resistor = escape(_("{ohms} Ω → LED → GND").format(ohms=RESISTOR_OHMS))
    return (f'<g id="seat-{pins.seat}">'
            f'<text x="{x}" y="{y + 15}" font-weight="bold">{seat}</text>'
            f'<text x="{x + 55}" y="{y + 15}" id="seat-{pins.seat}-button">{button}</text>'
            f'<circle cx="{x + 300}" cy="{y + 11}" r="7" fill="{BUTTON_FILL}" stroke="#555"/>'
            f'<text x="{x + 55}" y="{y + 32}" id="seat-{pins.seat}-led">{led}</text>'
            f'<rect x="{x + 205}" y="{y + 24}" width="40" height="10" fill="#d9b38c" stroke="#555"/>'
            f'<text x="{x + 250}" y="{y + 32}" id="seat-{pins.seat}-resistor">{resistor}</text>'
            f'<circle cx="{x + 370}" cy="{y + 28}" r="5" fill="#c33"/>'
            f'</g>')


# What each key of the judge's keypad does, for the drawing (hw.pinmap.KEYPAD_KEYS, LONG_PRESS).
KEY_WORDS = {"pause": N_("pause / resume"), "time": N_("+30 s to the speaker"),
             "end": N_("end of the speech; held: a foul to the speaker"),
             "status": N_("status in the earpiece; held: repeat"), "repeat": N_("the earpiece's last lines again"),
             "talk": N_("held: the microphone hears the judge's commands")}


def _key(pinmap: PinMap, index: int) -> str:
    """A row of the judge's keypad under the seats: pin → key → GND, and what the key does."""
    key = pinmap.judge[index]
    y = HEADER_Y + pinmap.size * ROW_H + 10 + index * KEY_H
    text = escape(_("Judge's key «{key}»: GPIO{gpio} (pin {pin}) → button → GND — {does}").format(
        key=key.action, gpio=key.pin, pin=physical_pin(key.pin), does=_(KEY_WORDS[key.action])))
    return (f'<g id="judge-{key.action}"><circle cx="{SEATS_X + 6}" cy="{y + 11}" r="6" fill="{KEY_FILL}" '
            f'stroke="#555"/><text x="{SEATS_X + 18}" y="{y + 15}">{text}</text></g>')
