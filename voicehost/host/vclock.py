"""A virtual clock for asyncio, so a whole simulated game runs in milliseconds.

The loop's ``time()`` is a number the loop itself moves: whenever nothing is ready and the
loop would sleep until its next timer, the clock jumps to that timer instead. Everything on
the loop — ``asyncio.sleep``, ``wait_for`` deadlines, the director's timers — then runs on
game time, deterministically. Work handed to the loop's executor (``run_in_executor``: a
file served by the web console, a name resolved) takes no game time: the clock waits for it.
Nothing else may wait on another thread: with no timer left, no executor job running and
nothing ready, the game is stuck, and the loop says so instead of hanging.
"""

from __future__ import annotations

import asyncio
import selectors
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


class Stuck(RuntimeError):
    """Every task waits and no timer is set: nothing can ever happen again."""


class _JumpingSelector(selectors.DefaultSelector):
    def __init__(self, loop: VirtualLoop) -> None:
        super().__init__()
        self._loop = loop

    def select(self, timeout: float | None = None) -> list[tuple[selectors.SelectorKey, int]]:
        if timeout == 0:
            # Callbacks are ready. Nothing here waits on a descriptor but the loop's own wake-up
            # pipe, whose callbacks are queued already; polling it now would only cost a system
            # call per step, so it is polled once the loop has nothing left to run…
            return []
        if self._loop.woken or len(self.get_map()) > 1:  # … and only if something was written
            self._loop.woken = False
            ready = super().select(0)
            if ready:
                return ready
        if self._loop.in_executor:
            return super().select(None)  # the clock stands still until the job's result wakes the loop
        if timeout is None:
            raise Stuck("everything waits and nothing is scheduled")
        self._loop.now += timeout
        return []


class VirtualLoop(asyncio.SelectorEventLoop):
    def __init__(self) -> None:
        self.now = 0.0
        self.woken = False  # the wake-up pipe was written (call_soon_threadsafe)
        self.in_executor = 0  # executor jobs whose results the loop has not yet taken
        super().__init__(_JumpingSelector(self))

    def run_in_executor(self, executor: Any, func: Callable[..., T], *args: Any) -> asyncio.Future[T]:  # type: ignore[override]
        future = super().run_in_executor(executor, func, *args)
        self.in_executor += 1
        future.add_done_callback(self._executor_done)
        return future

    def _executor_done(self, future: asyncio.Future[Any]) -> None:
        self.in_executor -= 1

    def _write_to_self(self) -> None:
        self.woken = True
        super()._write_to_self()  # type: ignore[misc]

    def time(self) -> float:
        return self.now


def run_virtual(main: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run`` on game time."""
    loop = VirtualLoop()
    try:
        return loop.run_until_complete(main)
    finally:
        loop.run_until_complete(loop.shutdown_asyncgens())
        loop.close()
