"""Contact bounce counts once; a real change inside the bounce window is not lost."""

from __future__ import annotations

from hw.edges import Debouncer, Edge


def test_bounce_on_press_counts_once() -> None:
    debouncer = Debouncer(0.02)
    burst = [Edge(1, True, 1.000), Edge(1, False, 1.002), Edge(1, True, 1.004), Edge(1, False, 1.006),
             Edge(1, True, 1.008)]
    assert [e for e in map(debouncer.feed, burst) if e] == [Edge(1, True, 1.000)]
    assert debouncer.settle(1, True, 1.05) is None  # it ended pressed, as accepted


def test_a_real_release_inside_the_window_is_recovered_by_settle() -> None:
    debouncer = Debouncer(0.02)
    debouncer.feed(Edge(1, True, 1.000))
    assert debouncer.feed(Edge(1, False, 1.010)) is None
    assert debouncer.settle(1, False, 1.015) is None  # still inside the window
    assert debouncer.settle(1, False, 1.030) == Edge(1, False, 1.030)


def test_seats_are_independent_and_repeats_are_dropped() -> None:
    debouncer = Debouncer(0.02)
    assert debouncer.feed(Edge(1, True, 1.0)) and debouncer.feed(Edge(2, True, 1.0))
    assert debouncer.feed(Edge(1, True, 1.5)) is None
    assert debouncer.feed(Edge(1, False, 1.5)) == Edge(1, False, 1.5)
