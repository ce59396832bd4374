"""The seat panel on gpiozero's MockFactory: real gpiozero buttons and PWM LEDs."""

from __future__ import annotations

import asyncio
import threading
import time
from typing import TYPE_CHECKING

import pytest

from hw.capture import Window, count_votes, presses_from
from hw.edges import Edge
from hw.leds import FOUL, NO, SPEAKER, YES, Pattern
from hw.panel import GpioUnavailable, SeatPanel, walk_seats

if TYPE_CHECKING:
    from gpiozero.pins.mock import MockFactory

    from hw.pinmap import PinMap

pytestmark = pytest.mark.usefixtures("mock_factory")


class Clock:
    """A hand-set monotonic clock, so edge times are exact."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def panel_with(ten_seats: PinMap, factory: MockFactory, clock: Clock | None = None) -> tuple[SeatPanel, list[Edge]]:
    edges: list[Edge] = []
    panel = SeatPanel(ten_seats, edges.append, pin_factory=factory, clock=clock or Clock())
    return panel, edges


def press(factory: MockFactory, pin: int) -> None:
    factory.pin(pin).drive_low()


def release(factory: MockFactory, pin: int) -> None:
    factory.pin(pin).drive_high()


def test_press_and_release_arrive_as_edges_with_their_seat(ten_seats: PinMap, mock_factory: MockFactory) -> None:
    clock = Clock()
    panel, edges = panel_with(ten_seats, mock_factory, clock)
    press(mock_factory, 6)  # seat 3's button
    clock.now += 0.5
    release(mock_factory, 6)
    assert edges == [Edge(3, True, 100.0), Edge(3, False, 100.5)]
    panel.close()


def test_votes_just_before_at_and_after_the_cutoff(ten_seats: PinMap, mock_factory: MockFactory) -> None:
    clock = Clock()
    panel, edges = panel_with(ten_seats, mock_factory, clock)
    window = Window(candidate=5, opens=100.0, closes=102.0)
    for seat, down in ((1, 101.999), (2, 102.0), (3, 102.001)):
        clock.now = down
        press(mock_factory, ten_seats.pins_of(seat).button)
    clock.now = 102.5
    for seat in (1, 2, 3):
        release(mock_factory, ten_seats.pins_of(seat).button)
    result = count_votes([window], presses_from(edges), range(1, 11))
    assert result.votes == {1: 5} and result.fouls == []
    panel.close()


def test_early_release_and_double_vote_through_real_pins(ten_seats: PinMap, mock_factory: MockFactory) -> None:
    clock = Clock()
    panel, edges = panel_with(ten_seats, mock_factory, clock)
    pin = ten_seats.pins_of(4).button
    for down, up in ((100.5, 101.0), (103.5, 104.5)):
        clock.now = down
        press(mock_factory, pin)
        clock.now = up
        release(mock_factory, pin)
    result = count_votes([Window(5, 100.0, 102.0), Window(9, 103.0, 105.0)], presses_from(edges), range(1, 11))
    assert result.votes == {4: 5} and result.fouls == [(4, "early_release"), (4, "second_vote")]
    panel.close()


def test_contact_bounce_counts_once(ten_seats: PinMap, mock_factory: MockFactory) -> None:
    clock = Clock()
    panel, edges = panel_with(ten_seats, mock_factory, clock)
    pin = ten_seats.pins_of(1).button
    for i, low in enumerate([True, False, True, False, True]):
        clock.now = 100.0 + i * 0.002
        (press if low else release)(mock_factory, pin)
    clock.now = 100.1
    panel.settle()
    assert edges == [Edge(1, True, 100.0)]
    panel.close()


def test_a_stuck_button_is_reported_once(ten_seats: PinMap, mock_factory: MockFactory) -> None:
    clock = Clock()
    panel, edges = panel_with(ten_seats, mock_factory, clock)
    press(mock_factory, ten_seats.pins_of(7).button)
    assert panel.check_stuck(104.0) == []
    assert panel.check_stuck(105.5) == [7] and panel.check_stuck(106.0) == []
    clock.now = 107.0
    release(mock_factory, ten_seats.pins_of(7).button)
    assert 7 not in panel.stuck
    panel.close()


def test_ten_simultaneous_presses_are_all_captured(ten_seats: PinMap, mock_factory: MockFactory) -> None:
    panel, edges = panel_with(ten_seats, mock_factory)
    for pins in ten_seats.seats:
        press(mock_factory, pins.button)
    assert sorted(e.seat for e in edges) == list(range(1, 11)) and all(e.t == 100.0 for e in edges)
    panel.close()


def test_edges_reach_the_asyncio_loop_thread_safely(ten_seats: PinMap, mock_factory: MockFactory) -> None:
    async def scenario() -> list[Edge]:
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[Edge] = asyncio.Queue()
        panel = SeatPanel(ten_seats, queue.put_nowait, pin_factory=mock_factory, deliver=loop.call_soon_threadsafe)
        thread = threading.Thread(target=lambda: press(mock_factory, ten_seats.pins_of(2).button))
        thread.start()
        thread.join()
        edge = await asyncio.wait_for(queue.get(), 60)
        panel.close()
        return [edge]

    edges = asyncio.run(scenario())
    assert [(e.seat, e.pressed) for e in edges] == [(2, True)]


def led_states(factory: MockFactory, pin: int) -> list[float]:
    return [round(s.state, 2) for s in factory.pin(pin).states]


def played_out(factory: MockFactory, pin: int, pattern: Pattern, shown: float, quiet_s: float = 0.3) -> None:
    """Until ``pattern``, shown at ``shown`` (monotonic), has played out: its whole length, then
    until the LED has stayed as it is for ``quiet_s`` (a late or an extra blink would change it)."""
    import time
    assert pattern.n is not None, pattern   # a pattern that plays out (not one held until changed)
    time.sleep(max(0.0, shown + pattern.n * (pattern.on + pattern.off) - time.monotonic()))
    deadline = time.monotonic() + 30.0   # quiet at last; only a pattern that never stops takes this long
    while time.monotonic() < deadline:
        seen = len(factory.pin(pin).states)
        time.sleep(quiet_s)
        if len(factory.pin(pin).states) == seen:
            return


def test_led_patterns_over_time_and_the_private_answer(ten_seats: PinMap, mock_factory: MockFactory) -> None:
    panel, _ = panel_with(ten_seats, mock_factory)
    checker, other = ten_seats.pins_of(7).led, ten_seats.pins_of(3).led
    panel.show(7, SPEAKER)
    assert mock_factory.pin(checker).state == 1.0
    panel.leds[7].blink(on_time=0.01, off_time=0.01, n=3, background=False)  # a yes-like pattern, synchronously
    on_off = [s for s in led_states(mock_factory, checker)[-6:]]
    assert on_off == [1.0, 0.0] * 3
    # Two checkers' answers at once, each on his own LED (they play out in real time): seat 7's
    # yes, seat 9's no.
    answers = {7: (YES, 3), 9: (NO, 12)}
    shown = time.monotonic()
    for seat, (pattern, _) in answers.items():
        mock_factory.pin(ten_seats.pins_of(seat).led).clear_states()
        panel.show(seat, pattern)
    for seat, (pattern, blinks) in answers.items():
        played_out(mock_factory, ten_seats.pins_of(seat).led, pattern, shown)
        states = led_states(mock_factory, ten_seats.pins_of(seat).led)
        assert states.count(1.0) == blinks and states[-1] == 0.0, (pattern.name, states)
    assert led_states(mock_factory, other) == [0.0]  # nothing on anyone else's LED
    panel.close()


def test_foul_flash_is_short(ten_seats: PinMap, mock_factory: MockFactory) -> None:
    panel, _ = panel_with(ten_seats, mock_factory)
    panel.show(2, FOUL)
    played_out(mock_factory, ten_seats.pins_of(2).led, FOUL, time.monotonic())
    states = mock_factory.pin(ten_seats.pins_of(2).led).states
    assert [round(s.state) for s in states].count(1) == 3
    assert states[-1].timestamp - states[1].timestamp < 0.6
    panel.close()


@pytest.mark.usefixtures("english")
def test_walk_seats_reports_a_silent_seat_and_swapped_wires(ten_seats: PinMap, mock_factory: MockFactory) -> None:
    edges: list[Edge] = []
    panel = SeatPanel(ten_seats, edges.append, pin_factory=mock_factory)
    answers = {seat: seat for seat in range(1, 11)} | {4: None, 6: 7}
    asked = iter(range(1, 11))

    def wait_press(timeout: float) -> Edge | None:
        seat = next(asked)
        assert mock_factory.pin(ten_seats.pins_of(seat).led).state == 1.0  # its LED is lit
        who = answers[seat]
        if who is None:
            return None
        pin = ten_seats.pins_of(who).button
        press(mock_factory, pin)
        release(mock_factory, pin)
        return next(e for e in reversed(edges) if e.pressed)

    problems = walk_seats(panel, wait_press, timeout=3)
    assert problems == [
        "seat 4: no press within 3 s (button GPIO7, LED GPIO23)",
        "seat 6: the press came on seat 7's pin GPIO10 instead of GPIO9: the wires are swapped or misplaced",
    ]
    panel.close()


@pytest.mark.usefixtures("english")
def test_pins_that_cannot_be_opened_are_one_clear_error(ten_seats: PinMap, mock_factory: MockFactory) -> None:
    from gpiozero import Button
    holder = Button(ten_seats.pins_of(5).button, pin_factory=mock_factory)
    with pytest.raises(GpioUnavailable, match="cannot open the seat pins: a seat pin is already in use"):
        SeatPanel(ten_seats, lambda e: None, pin_factory=mock_factory)
    holder.close()
