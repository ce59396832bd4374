"""No role, night action or check ever reaches a public client: whole games of every ruleset
are played at the table level with the web display served, while a public WebSocket records
every message and the public endpoints are polled; the judge's endpoints, meanwhile, do carry
the cards — so what is missing from the public side was there to leak."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestClient, TestServer

from voicehost.host import Director, LineSaid, run_virtual
from voicehost.language.narrate import narrate, public_lines
from voicehost.rules import Role
from voicehost.rules.events import PRIVATE_EVENTS
from voicehost.simulation.script import load_script, script_from_data
from voicehost.simulation.scriptgen import random_script
from voicehost.simulation.table_level import TableRun, play_table
from voicehost.web import WebTable

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
JUDGE_ONLY_KEYS = {"roles", "role", "night_log", "judge_log", "answers", "csrf", "waiting_for"}
ROLE_VALUES = {role.value for role in Role}


def games() -> list[Any]:
    scripts = [pytest.param(lambda n=name: load_script(EXAMPLES / f"{n}-sample.json"), id=f"{name}-sample")
               for name in ("sport", "club", "classic", "canonical")]
    scripts += [pytest.param(lambda n=name: script_from_data(random_script(n, 7)), id=f"{name}-seed7")
                for name in ("sport", "club", "classic", "canonical")]
    return scripts


async def record_public(script: Any) -> tuple[list[str], list[dict[str, Any]], list[str], Any]:
    """Play ``script`` with the web display served; every public message and polled public
    body, the judge's states seen, the lines said aloud, and the game's result."""
    table = WebTable("1234", wrong_pin_delay_s=0.0)
    client = TestClient(TestServer(table.app))
    await client.start_server()
    public: list[str] = []
    judge: list[dict[str, Any]] = []
    aloud: list[str] = []
    for page in ("/", "/judge", "/static/common.js", "/static/judge.js"):
        public.append(await (await client.get(page)).text())
    socket = await client.ws_connect("/ws")
    await client.post("/api/login", json={"pin": "1234"})

    changed = asyncio.Event()

    async def listen() -> None:
        async for message in socket:
            public.append(message.data)
            changed.set()

    async def poll() -> None:
        """The endpoints read again after each change the socket pushed (changes that come while
        a read is under way are read once, at their latest): every state, not every game-second's
        copy of it, which cost two requests a game-second."""
        while True:
            public.append(await (await client.get("/api/state")).text())
            judge.append(await (await client.get("/api/judge/state")).json())
            await changed.wait()
            changed.clear()

    @asynccontextmanager
    async def around(director: Director) -> AsyncIterator[WebTable]:
        table.attach(director)
        director.watch(lambda notice: aloud.append(notice.text) if isinstance(notice, LineSaid) else None)
        yield table

    tasks = [asyncio.create_task(listen()), asyncio.create_task(poll())]
    try:
        result = await play_table(script, how=TableRun(around=around))
        await asyncio.sleep(0.1)   # the last messages arrive
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await socket.close()
        await client.close()
    return public, judge, aloud, result


def keys_and_strings(data: Any, keys: set[str], strings: set[str]) -> None:
    if isinstance(data, dict):
        for key, value in data.items():
            keys.add(key)
            keys_and_strings(value, keys, strings)
    elif isinstance(data, list):
        for value in data:
            keys_and_strings(value, keys, strings)
    elif isinstance(data, str):
        strings.add(data)


@pytest.mark.parametrize("make_script", games())
def test_no_public_message_carries_a_role_a_night_action_or_a_check(make_script: Any) -> None:
    script = make_script()
    public, judge, aloud, result = run_virtual(record_public(script))
    game = result.game
    assert game.is_over, "a whole game"
    said_publicly = set(public_lines(game.events, game.names))
    private = narrate([e for e in game.events if isinstance(e, PRIVATE_EVENTS)], game.names)
    secrets = {line for line in private   # a miss is private to the log, yet the morning says it aloud
               if line not in said_publicly and not any(line in spoken for spoken in aloud)}
    assert secrets, "the game had private events to leak"
    assert any(state.get("roles") for state in judge), "the judge saw the cards"
    assert len(public) > 20, "the public socket heard the game"
    for body in public:
        for secret in secrets:
            assert secret not in body, f"a private line reached a public client: {secret}"
        if not body.lstrip().startswith("{"):
            continue   # a page or a script: no state in it
        keys: set[str] = set()
        strings: set[str] = set()
        keys_and_strings(json.loads(body), keys, strings)
        assert not keys & JUDGE_ONLY_KEYS, f"a judge-only field in a public message: {keys & JUDGE_ONLY_KEYS}"
        assert not strings & ROLE_VALUES, f"a role in a public message: {strings & ROLE_VALUES}"
