"""``voicehost bench overlay``: how late the stream's overlay hears of the table.

A whole table-level sport game is served on loopback with the overlay's keyed page held back by
no delay; another process (so it shares nothing with the host's loop) keeps ``viewers`` public
overlay sockets (``/ws/overlay``), one roles socket (``/ws/overlay/roles``) and, for reference in
the same run, one socket of the table display (``/ws``) open. Each
message's delay is the time from the director's notice (the message's ``t``: the wall clock when
the table's watcher heard it) to the message's arrival. Target: p95 ≤ 250 ms (docs/speed.md).
"""

from __future__ import annotations

import asyncio
import json
import multiprocessing
import statistics
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

BENCH_SPEED = 20.0     # the game's timers and voice, this many times faster than real
TARGET_P95_MS = 250.0


def bench_overlay(viewers: int = 5) -> dict[str, float]:
    """The figures of one game: per channel (``public``, ``roles``) the messages heard and their
    delays' p50, p95 and max in ms, and the game's length."""
    return asyncio.run(_overlay_game(viewers))


async def _overlay_game(viewers: int) -> dict[str, float]:
    from voicehost.config import packaged_examples
    from voicehost.host import Director
    from voicehost.simulation.script import load_script
    from voicehost.simulation.table_level import TableRun, VirtualVoice, play_table
    from voicehost.web import WebTable
    from voicehost.web.overlay import OverlaySettings

    table = WebTable(overlay=OverlaySettings("bench-overlay-key", 0.0))
    base = await table.start("127.0.0.1", 0)
    spawn = multiprocessing.get_context("spawn")
    results, ready = spawn.Queue(), spawn.Event()
    watcher = spawn.Process(target=_watch, args=(base, viewers, table.overlay.key, results, ready), daemon=True)
    watcher.start()
    loop = asyncio.get_running_loop()
    await loop.run_in_executor(None, ready.wait, 60)

    @asynccontextmanager
    async def around(director: Director) -> AsyncIterator[WebTable]:
        table.attach(director)
        yield table

    started = time.perf_counter()
    script = load_script(packaged_examples() / "sport-sample.json")
    await play_table(script, how=TableRun(speak=VirtualVoice(BENCH_SPEED).speak, speed=BENCH_SPEED, around=around))
    game_s = time.perf_counter() - started
    await asyncio.sleep(0.5)
    await table.stop()   # the sockets close: the watcher reports
    heard: dict[str, list[float]] = await loop.run_in_executor(None, results.get, True, 60)
    watcher.join(10)
    figures: dict[str, float] = {"viewers": viewers, "game_s": game_s}
    for channel, delays in heard.items():
        delays.sort()
        figures |= {f"{channel}_messages": len(delays), f"{channel}_p50_ms": statistics.median(delays),
                    f"{channel}_p95_ms": delays[int(0.95 * (len(delays) - 1))], f"{channel}_max_ms": delays[-1]}
    return figures


def _watch(base: str, viewers: int, key: str, results: Any, ready: Any) -> None:
    """In a process of its own: the overlay's sockets; every delay heard, in ms, by channel."""
    import aiohttp

    async def watch() -> dict[str, list[float]]:
        heard: dict[str, list[float]] = {"public": [], "roles": [], "display": []}
        socket_base = base.replace("http", "ws", 1)
        async with aiohttp.ClientSession() as session:
            sockets = [("public", await session.ws_connect(socket_base + "/ws/overlay")) for _ in range(viewers)]
            sockets.append(("roles", await session.ws_connect(f"{socket_base}/ws/overlay/roles?key={key}")))
            sockets.append(("display", await session.ws_connect(socket_base + "/ws")))   # the reference
            ready.set()

            async def follow(channel: str, ws: aiohttp.ClientWebSocketResponse) -> None:
                first = True
                async for message in ws:
                    arrived = time.time()
                    if not first:   # the first is the state on connect, not a change
                        heard[channel].append((arrived - json.loads(message.data)["t"]) * 1000)
                    first = False
            await asyncio.gather(*(follow(channel, ws) for channel, ws in sockets))
        return heard

    results.put(asyncio.run(watch()))


def report(figures: dict[str, float]) -> list[str]:
    """The benchmark's lines, one a channel, and the overlay's p95 against the display's."""
    from voicehost.i18n import _

    ratio = figures["public_p95_ms"] / max(figures["display_p95_ms"], 1e-9)
    return [*(_("overlay: {channel}: {messages} messages during a sport game ({seconds:.1f} s, timers {speed:g}× "
              "faster): notice → its socket p50 {p50:.2f} ms, p95 {p95:.2f} ms, max {max:.2f} ms "
              "(target p95 ≤ {target:g} ms)").format(
                  channel=channel, messages=int(figures[f"{channel}_messages"]), seconds=figures["game_s"],
                  speed=BENCH_SPEED, p50=figures[f"{channel}_p50_ms"], p95=figures[f"{channel}_p95_ms"],
                  max=figures[f"{channel}_max_ms"], target=TARGET_P95_MS)
            for channel in ("public", "roles", "display")),
            _("overlay: the public overlay's p95 is {ratio:.1f}× the table display's in the same run").format(
                ratio=ratio)]
