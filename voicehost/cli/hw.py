"""``voicehost hw test``: walk every seat of the panel from the command line."""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from voicehost.cli.args import Commands, seconds
from voicehost.i18n import _, ngettext
from voicehost.rules import InputError

if TYPE_CHECKING:  # gpiozero and the host load only for the command that runs
    from hw.edges import Edge


def add_commands(commands: Commands) -> None:
    hw_cmd = commands.add_parser("hw", help=_("the seat panel: walk every seat after soldering, draw the wiring"))
    actions = hw_cmd.add_subparsers(dest="action", required=True, parser_class=type(hw_cmd))
    test = actions.add_parser("test", help=_("light each LED, wait for its button"))
    test.add_argument("--table", required=True, help=_("the pin map, e.g. config/tables/ten-seats.toml"))
    test.add_argument("--timeout", type=seconds, default=10.0, help=_("seconds to wait for each press"))
    test.add_argument("--rules", default=None, help=_("check the seat count against this ruleset"))
    test.add_argument("--mock", action="store_true", help=_("gpiozero mock pins and simulated presses"))
    test.set_defaults(run=_hw)
    diagram = actions.add_parser("diagram", help=_("draw the table's wiring (header, buttons, LEDs, resistors) as SVG"))
    diagram.add_argument("--table", required=True, help=_("the table file or name"))
    diagram.add_argument("out", metavar=_("OUT.svg"), help=_("the SVG file to write"))
    diagram.set_defaults(run=_hw)


def _hw(args: argparse.Namespace) -> int:
    if args.action == "diagram":
        return hw_diagram(args.table, args.out)
    return hw_test(args.table, args.timeout, args.mock, args.rules)


def hw_diagram(table: str, out: str) -> int:
    """The wiring diagram of ``table`` (a path or a name in the config layers) as SVG."""
    from hw.diagram import diagram_svg
    from voicehost.host.seats import open_pinmap
    from voicehost.host.table_file import table_path

    pinmap = open_pinmap(str(table_path(table)))
    try:
        Path(out).write_text(diagram_svg(pinmap), encoding="utf-8")
    except OSError as err:
        raise InputError(out, err.strerror or str(err)) from None
    pins = 2 * pinmap.size + len(pinmap.judge)
    print(_("{out}: {size} seats, {pins} pins").format(out=out, size=pinmap.size, pins=pins))
    return 0


def hw_test(table: str, timeout: float, mock: bool, ruleset: str | None) -> int:
    """Walk every seat: light its LED, wait for its press. With ``mock``, simulated players
    press the lit seat's button (a dry run of the walk on gpiozero's mock pins)."""
    import queue

    from hw.panel import GpioUnavailable, SeatPanel, walk_seats
    from voicehost.host.seats import mock_factory, open_pinmap
    from voicehost.host.table_file import table_path

    pinmap = open_pinmap(str(table_path(table)), ruleset)
    edges: queue.Queue[Edge] = queue.Queue()
    factory = mock_factory() if mock else None
    try:
        panel = SeatPanel(pinmap, edges.put, pin_factory=factory)
    except GpioUnavailable as err:
        raise InputError("hw test", _("{error}; on a machine without GPIO try --mock").format(error=err)) from None
    print(_("{name}: {size} seats. Press each seat's button when its LED lights up.").format(
              name=pinmap.name, size=pinmap.size))
    from hw.pinmap import uart_warning

    if (warning := uart_warning(pinmap)) is not None:  # a club's own map with a seat on GPIO14/15
        print(warning, flush=True)
    seats = iter(pinmap.seats)

    def wait_press(limit: float) -> Edge | None:
        seat = next(seats)
        print(_("  seat {seat}: LED GPIO{led} on, waiting for button GPIO{button}…").format(
                  seat=seat.seat, led=seat.led, button=seat.button), flush=True)
        if factory is not None:
            factory.pin(seat.button).drive_low()
            factory.pin(seat.button).drive_high()
        deadline = time.monotonic() + limit
        while (left := deadline - time.monotonic()) > 0:
            try:
                edge = edges.get(timeout=left)
            except queue.Empty:
                break
            if edge.pressed:
                return edge
        return None

    with panel:
        problems = walk_seats(panel, wait_press, timeout)
    problems += _walk_keypad(pinmap, factory, timeout)
    for line in problems:
        print(_("PROBLEM {line}").format(line=line))
    print(_("all seats answer on their own pins") if not problems else
          ngettext("{count} seat to fix", "{count} seats to fix", len(problems)).format(count=len(problems)))
    return 0 if not problems else 1


def _walk_keypad(pinmap: Any, factory: Any, timeout: float) -> list[str]:
    """The judge's keypad (``[judge]``), key by key: each must answer on its own pin (with
    ``--mock``, the key is pressed for the judge)."""
    import queue

    from hw.keypad import JudgeKeypad
    from hw.panel import GpioUnavailable

    if not pinmap.judge:
        return []
    pressed: queue.Queue[str] = queue.Queue()
    try:
        keypad = JudgeKeypad(pinmap, pressed.put, pin_factory=factory,
                             on_hold=lambda key, down: None if down else pressed.put(key))
    except GpioUnavailable as err:
        return [str(err)]
    problems = []
    print(_("The judge's keypad: {count} keys. Press each key when asked (briefly).").format(
        count=len(pinmap.judge)), flush=True)
    with keypad:
        for key in pinmap.judge:
            print(_("  the judge's «{key}» key: waiting for GPIO{pin}…").format(key=key.action, pin=key.pin),
                  flush=True)
            if factory is not None:   # a short press: longer than the bounce window, shorter than a long press
                factory.pin(key.pin).drive_low()
                time.sleep(pinmap.bounce_ms / 1000 + 0.02)
                factory.pin(key.pin).drive_high()
            try:
                got = pressed.get(timeout=timeout)
            except queue.Empty:
                problems.append(_("the judge's «{key}» key (GPIO{pin}): no press").format(key=key.action, pin=key.pin))
                continue
            if got != key.action:
                problems.append(_("the judge's «{key}» key (GPIO{pin}): «{got}» answered").format(
                    key=key.action, pin=key.pin, got=got))
    return problems
