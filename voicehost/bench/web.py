"""``bench web``: public viewers on loopback during a game, table change → message received."""

from __future__ import annotations

import asyncio
import json
import multiprocessing
import statistics
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

#: How much faster than real time the benchmark's game runs its timers.
WEB_BENCH_SPEED = 20.0


def bench_web(viewers: int) -> dict[str, float]:
    """``viewers`` public WebSockets (another process, so they do not share the host's loop)
    follow a whole table-level sport game served on loopback; each message's delay is the time
    from the table's change (its ``t``) to its arrival."""
    return asyncio.run(_web_game(viewers))


async def _web_game(viewers: int) -> dict[str, float]:
    from voicehost.web import WebTable

    table = WebTable()
    base = await table.start("127.0.0.1", 0)
    spawn = multiprocessing.get_context("spawn")
    results, ready = spawn.Queue(), spawn.Event()
    crowd = spawn.Process(target=_viewers, args=(base, viewers, results, ready), daemon=True)
    crowd.start()
    loop = asyncio.get_running_loop()
    await loop.run_in_executor(None, ready.wait, 60)
    game_s = await _play_sample(table)
    await asyncio.sleep(0.5)
    await table.stop()   # the viewers' sockets close: they report
    delays = sorted(await loop.run_in_executor(None, results.get, True, 60))
    crowd.join(10)
    return {"viewers": viewers, "messages": len(delays), "game_s": game_s,
            "p50_ms": statistics.median(delays), "p95_ms": delays[int(0.95 * (len(delays) - 1))],
            "max_ms": delays[-1]}


async def _play_sample(table: Any) -> float:
    """The sport sample game played at the table level with ``table`` attached; its wall time."""
    from voicehost.config import packaged_examples
    from voicehost.simulation.script import load_script
    from voicehost.simulation.table_level import TableRun, VirtualVoice, play_table

    @asynccontextmanager
    async def around(director: Any) -> AsyncIterator[Any]:
        table.attach(director)
        yield table

    started = time.perf_counter()
    script = load_script(packaged_examples() / "sport-sample.json")
    voice = VirtualVoice(WEB_BENCH_SPEED)
    await play_table(script, how=TableRun(speak=voice.speak, speed=WEB_BENCH_SPEED, around=around))
    return time.perf_counter() - started


def _viewers(base: str, viewers: int, results: Any, ready: Any) -> None:
    """In a process of their own: ``viewers`` public sockets; every delay heard, in ms."""
    results.put(asyncio.run(_crowd(base, viewers, ready)))


async def _crowd(base: str, viewers: int, ready: Any) -> list[float]:
    import aiohttp

    delays: list[float] = []
    async with aiohttp.ClientSession() as session:
        sockets = [await session.ws_connect(base.replace("http", "ws", 1) + "/ws") for _ in range(viewers)]
        ready.set()
        await asyncio.gather(*(_follow(ws, delays) for ws in sockets))
    return delays


async def _follow(ws: Any, delays: list[float]) -> None:
    """Each message's delay after the first (the state on connect, not a change)."""
    first = True
    async for message in ws:
        heard = time.time()
        if not first:
            delays.append((heard - json.loads(message.data)["t"]) * 1000)
        first = False
