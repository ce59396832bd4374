"""``bench gpio``: the press time stamp's error on mock pins."""

from __future__ import annotations

import statistics
import time


def bench_gpio(presses: int) -> dict[str, float]:
    """Stamp error: from just before a mock pin edge to the press time the panel recorded."""
    from hw.edges import Edge
    from hw.panel import SeatPanel
    from hw.pinmap import pinmap_from_mapping
    from voicehost.host.seats import mock_factory

    pinmap = pinmap_from_mapping({"seat": [{"button": 4, "led": 17}, {"button": 5, "led": 27}],
                                  "bounce_ms": 0}, "bench")
    factory = mock_factory()
    recorded: list[Edge] = []
    errors = []
    with SeatPanel(pinmap, recorded.append, pin_factory=factory) as panel:
        pin = factory.pin(4)
        for _ in range(presses):
            before = time.monotonic()
            pin.drive_low()
            errors.append((recorded[-1].t - before) * 1000)
            pin.drive_high()
        panel.settle()
    errors.sort()
    return {"presses": presses, "p50_ms": statistics.median(errors),
            "p95_ms": errors[int(0.95 * (len(errors) - 1))], "max_ms": errors[-1]}
