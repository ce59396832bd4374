"""``voicehost bench overlay``: how late the stream's overlay hears of the table.

A whole table-level sport game is served on loopback with the overlay's keyed page held back by
no delay; another process (so it shares nothing with the host's loop) keeps ``viewers`` public
overlay sockets (``/ws/overlay``), one roles socket (``/ws/overlay/roles``) and, for reference in
the same run, one socket of the table display (``/ws``) open. Each
message's delay is the time from the director's notice (the message's ``t``: the wall clock when
the table's watcher heard it) to the message's arrival. Target: p95 ≤ 250 ms (docs/speed.md).

The people press real :class:`hw.panel.SeatPanel` code on gpiozero's mock pins, so each ballot's
delay is also measured from its button going down (the panel's stamp) to the first public
overlay message that shows it, on every public socket: the seat panel, the vote's notice, the
display's view and the socket together.
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


EPSILON_S = 0.005       # the press's stamp is kept to the millisecond; a message may seem to precede it by that


Shown = tuple[int, int, int]
"""A ballot as the overlay shows it: (day, candidate, voter)."""


def bench_overlay(viewers: int = 5) -> dict[str, float]:
    """The figures of one game: per channel (``public``, ``roles``, ``display``) the messages
    heard and their delays' p50, p95 and max in ms, the same for ``press`` (a button going down
    → the public overlay showing its ballot), and the game's length."""
    return asyncio.run(_overlay_game(viewers))


async def _overlay_game(viewers: int) -> dict[str, float]:
    from voicehost.config import packaged_examples
    from voicehost.host import BallotPressed, Director, Notice, open_pinmap, table_path
    from voicehost.simulation.script import load_script
    from voicehost.simulation.table_level import TableRun, VirtualVoice, mock_pin_seats, play_table
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

    pressed: dict[Shown, float] = {}   # each counted ballot: when its button went down (wall clock)

    @asynccontextmanager
    async def around(director: Director) -> AsyncIterator[WebTable]:
        def press(notice: Notice) -> None:
            if isinstance(notice, BallotPressed) and notice.ballot.counted and notice.ballot.t is not None:
                ago = director.ports.clock() - notice.ballot.t   # the panel stamps on the ports' clock
                key = (notice.so_far.day, notice.ballot.candidate or 0, notice.ballot.voter)
                pressed.setdefault(key, time.time() - ago)
        director.watch(press)
        table.attach(director)
        yield table

    started = time.perf_counter()
    script = load_script(packaged_examples() / "sport-sample.json")
    seats = mock_pin_seats(open_pinmap(str(table_path("ten-seats"))))
    await play_table(script, how=TableRun(speak=VirtualVoice(BENCH_SPEED).speak, speed=BENCH_SPEED, around=around,
                                          seats=seats))
    game_s = time.perf_counter() - started
    await asyncio.sleep(0.5)
    await table.stop()   # the sockets close: the watcher reports
    heard: dict[str, Any] = await loop.run_in_executor(None, results.get, True, 60)
    watcher.join(10)
    heard["press"] = press_delays(pressed, heard.pop("shown"))
    figures: dict[str, float] = {"viewers": viewers, "game_s": game_s, "ballots": len(pressed)}
    for channel, delays in heard.items():
        delays.sort()
        figures |= {f"{channel}_messages": len(delays), f"{channel}_p50_ms": statistics.median(delays),
                    f"{channel}_p95_ms": delays[int(0.95 * (len(delays) - 1))], f"{channel}_max_ms": delays[-1]}
    return figures


def press_delays(pressed: dict[Shown, float], shown: list[list[tuple[Shown, float]]]) -> list[float]:
    """Per public socket, per ballot: its button going down → the first message showing it (ms)."""
    delays = []
    for socket in shown:
        first: dict[Shown, float] = {}
        for ballot, arrived in socket:
            down = pressed.get(ballot)
            if down is not None and ballot not in first and arrived >= down - EPSILON_S:
                first[ballot] = arrived
        delays += [(first[ballot] - down) * 1000 for ballot, down in pressed.items() if ballot in first]
    return delays


def shown_ballots(state: dict[str, Any]) -> list[Shown]:
    """The ballots of the vote being taken that a public overlay message shows (a counted
    vote's are not: the same seats may vote again in the day's revote)."""
    ballots = state.get("ballots")
    if not ballots or ballots["complete"] or not state.get("vote"):
        return []
    day = state["phase"]["number"]
    return [(day, group["candidate"], voter) for group in ballots["groups"] for voter in group["voters"]]


def _watch(base: str, viewers: int, key: str, results: Any, ready: Any) -> None:
    """In a process of its own: the overlay's sockets; every delay heard, in ms, by channel."""
    import aiohttp

    async def watch() -> dict[str, Any]:
        heard: dict[str, Any] = {"public": [], "roles": [], "display": [], "shown": []}
        socket_base = base.replace("http", "ws", 1)
        async with aiohttp.ClientSession() as session:
            sockets = [("public", await session.ws_connect(socket_base + "/ws/overlay")) for _ in range(viewers)]
            sockets.append(("roles", await session.ws_connect(f"{socket_base}/ws/overlay/roles?key={key}")))
            sockets.append(("display", await session.ws_connect(socket_base + "/ws")))   # the reference
            ready.set()

            async def follow(channel: str, ws: aiohttp.ClientWebSocketResponse) -> None:
                first = True
                shown: list[tuple[Shown, float]] = []
                if channel == "public":
                    heard["shown"].append(shown)
                async for message in ws:
                    arrived = time.time()
                    data = json.loads(message.data)
                    if not first:   # the first is the state on connect, not a change
                        heard[channel].append((arrived - data["t"]) * 1000)
                    if channel == "public":
                        shown += [(ballot, arrived) for ballot in shown_ballots(data["state"])]
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
                ratio=ratio),
            _("overlay: button press → the overlay's socket: {ballots} ballots pressed on the seat panel's mock pins, "
              "{shown} arrivals on the public sockets: p50 {p50:.2f} ms, p95 {p95:.2f} ms, max {max:.2f} ms "
              "(target p95 ≤ {target:g} ms)").format(
                  ballots=int(figures["ballots"]), shown=int(figures["press_messages"]), p50=figures["press_p50_ms"],
                  p95=figures["press_p95_ms"], max=figures["press_max_ms"], target=TARGET_P95_MS)]
