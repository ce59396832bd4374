"""voicehost.host.vclock: asyncio on game time."""

from __future__ import annotations

import asyncio

import pytest

from voicehost.host.vclock import Stuck, run_virtual


def test_an_hour_of_timers_passes_at_once_and_in_order() -> None:
    async def main() -> list[tuple[float, str]]:
        loop = asyncio.get_running_loop()
        seen: list[tuple[float, str]] = []

        async def at(delay: float, name: str) -> None:
            await asyncio.sleep(delay)
            seen.append((loop.time(), name))

        await asyncio.gather(at(3600, "hour"), at(1.5, "soon"), at(60, "minute"))
        try:
            await asyncio.wait_for(asyncio.Event().wait(), 10)
        except TimeoutError:
            seen.append((loop.time(), "timeout"))
        return seen

    assert run_virtual(main()) == [(1.5, "soon"), (60, "minute"), (3600, "hour"), (3610, "timeout")]


def test_waiting_for_nothing_forever_is_stuck_not_a_hang() -> None:
    async def forever() -> None:
        await asyncio.Event().wait()

    with pytest.raises(Stuck):
        run_virtual(forever())


def test_a_job_on_the_loops_executor_takes_no_game_time() -> None:
    """The clock waits for a thread the loop itself handed work to (the web console serves its
    files that way) instead of jumping past the timers meanwhile."""
    import threading
    import time

    async def main() -> tuple[float, float, float]:
        loop = asyncio.get_running_loop()
        started = threading.Event()

        def slow() -> float:
            started.set()
            time.sleep(0.05)
            return loop.time()

        timer = asyncio.ensure_future(asyncio.sleep(10))
        seen_in_thread = await loop.run_in_executor(None, slow)
        after = loop.time()
        await timer
        return seen_in_thread, after, loop.time()

    assert run_virtual(main()) == (0.0, 0.0, 10.0)
