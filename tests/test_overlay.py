"""The stream's overlay (docs/broadcast.md): whole games of every ruleset at the table level,
with every message of ``/ws/overlay`` and every scene hint of ``/overlay/events`` scanned for a
role, a night action or a check (none allowed) while the keyed ``/ws/overlay/roles`` does carry
them; the key's door; the stream's delay."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest
from aiohttp import ClientTimeout, web
from aiohttp.test_utils import TestClient, TestServer
from test_web_leaks import EXAMPLES, JUDGE_ONLY_KEYS, ROLE_VALUES, games, keys_and_strings

from voicehost.cli.args import overlay_settings
from voicehost.host import BallotPressed, Director, LineSaid, run_virtual
from voicehost.language.narrate import narrate, public_lines
from voicehost.rules import InputError
from voicehost.rules.events import PRIVATE_EVENTS
from voicehost.rules.requests import AwaitLift, AwaitVotes
from voicehost.simulation.script import script_from_data
from voicehost.simulation.table_level import TableRun, play_table
from voicehost.web import WebTable
from voicehost.web.club import read_report
from voicehost.web.overlay import SCENES, OverlaySettings, check_settings

KEY = "stream-key-for-tests"
NAMES = ("Алексей", "Марина", "Дмитрий", "Ольга", "Константин Константинопольский", "Ирина", "Сергей", "Анна",
         "Павел", "Екатерина")
SECRET_KEYS = JUDGE_ONLY_KEYS | {"role_kinds", "best_move"}


@asynccontextmanager
async def served(table: WebTable) -> AsyncIterator[TestClient[web.Request, web.Application]]:
    client = TestClient(TestServer(table.app))
    await client.start_server()
    try:
        yield client
    finally:
        await client.close()


async def record_overlay(script: Any, delay_s: float = 0.0) -> dict[str, Any]:
    """Play ``script`` with the overlay served: every public overlay message, every scene hint,
    every roles message (with the loop's time each arrived) and the lines said aloud."""
    table = WebTable("1234", wrong_pin_delay_s=0.0, overlay=OverlaySettings(KEY, delay_s))
    loop = asyncio.get_running_loop()
    seen: dict[str, Any] = {"public": [], "hints": [], "secret": [], "aloud": [], "pages": [], "pressed": []}
    async with served(table) as client:
        for path in ("/overlay", "/static/overlay.js", "/static/overlay.css"):
            seen["pages"].append(await (await client.get(path)).text())
        public = await client.ws_connect("/ws/overlay")
        secret = await client.ws_connect(f"/ws/overlay/roles?key={KEY}")
        no_limit = ClientTimeout(total=None)   # a game runs for an hour of game time
        events = await client.get("/overlay/events", timeout=no_limit)

        async def listen(socket: Any, into: list[Any]) -> None:
            async for message in socket:
                into.append((loop.time(), message.data))

        async def hints() -> None:
            async for line in events.content:
                if line.startswith(b"data: "):
                    seen["hints"].append(line[6:].decode())

        @asynccontextmanager
        async def around(director: Director) -> AsyncIterator[WebTable]:
            table.attach(director)
            director.watch(lambda n: seen["aloud"].append(n.text) if isinstance(n, LineSaid) else None)
            director.watch(lambda n: seen["pressed"].append(director.game.request)
                           if isinstance(n, BallotPressed) else None)
            yield table

        tasks = [asyncio.create_task(listen(public, seen["public"])),
                 asyncio.create_task(listen(secret, seen["secret"])),
                 asyncio.create_task(hints())]
        try:
            seen["result"] = await play_table(script, how=TableRun(around=around))
            table.finish()
            await asyncio.sleep(delay_s + 0.5)   # the last messages arrive (the roles after their delay)
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            events.close()
            await public.close()
            await secret.close()
            await table.overlay.close()
    return seen


def secrets_of(seen: dict[str, Any]) -> set[str]:
    """The game's private lines that were never said aloud (a miss is private, yet the morning says it)."""
    game = seen["result"].game
    said_publicly = set(public_lines(game.events, game.names))
    said_publicly |= set(public_lines(game.events, {}))
    events = [e for e in game.events if isinstance(e, PRIVATE_EVENTS)]
    private = [*narrate(events, game.names), *narrate(events, {})]   # with the names, and by seat only
    return {line for line in private if line not in said_publicly and not any(line in s for s in seen["aloud"])}


def leaks(bodies: list[str], secrets: set[str]) -> list[str]:
    """Every secret line, secret field or role value found in ``bodies``."""
    found = []
    for body in bodies:
        found += [secret for secret in secrets if secret in body]
        if body.lstrip().startswith("{"):
            keys: set[str] = set()
            strings: set[str] = set()
            keys_and_strings(json.loads(body), keys, strings)
            found += sorted(keys & SECRET_KEYS) + sorted(strings & ROLE_VALUES)
    return found


@pytest.mark.parametrize("make_script", games())
def test_no_overlay_message_carries_a_role_a_night_action_or_a_check(make_script: Any) -> None:
    seen = run_virtual(record_overlay(make_script()))
    game = seen["result"].game
    assert game.is_over
    secrets = secrets_of(seen)
    assert secrets, "the game had private events to leak"
    public = [text for _, text in seen["public"]]
    assert len(public) > 20, "the overlay heard the game"
    assert leaks(public + seen["hints"] + seen["pages"], secrets) == [], "the public overlay leaked"
    assert all(isinstance(request, (AwaitVotes, AwaitLift)) for request in seen["pressed"]), \
        "a press is told only while a vote is taken (a night's taps never are)"
    roles = [json.loads(text)["state"] for _, text in seen["secret"]]
    assert any(state["roles"] for state in roles), "the keyed overlay carries the cards"
    assert any(secret in text for _, text in seen["secret"] for secret in secrets), "… and the night"
    assert any(state["night_log"] for state in roles)
    states = [json.loads(text)["state"] for text in public]
    assert states[-1]["card"] and states[-1]["card"]["winner"], "a game card at the end"
    assert len(states[-1]["card"]["rows"]) == game.seats
    assert any(s["outcomes"] for s in states), "the outcomes of votes and mornings"
    scenes = [json.loads(hint)["scene"] for hint in seen["hints"]]
    assert {"day", "night", "over"} <= set(scenes) <= set(SCENES), scenes
    assert all(a != b for a, b in zip(scenes, scenes[1:], strict=False)), "a hint only when the scene changes"


def three_candidates() -> Any:
    """The sport sample with a third candidate on day 1 (seat 2 nominates 6, seat 3 votes for
    him): two windows, so the first one's ballots are out before the second opens."""
    data = json.loads((EXAMPLES / "sport-sample.json").read_text(encoding="utf-8"))
    data["days"][0]["speeches"]["2"] = "выставляю шестого спасибо"
    data["days"][0]["votes"]["3"] = 6
    data["names"] = {str(seat): name for seat, name in enumerate(NAMES, start=1)}
    return script_from_data(data)


def test_the_ballots_appear_window_by_window_before_the_count() -> None:
    """The host reads the buttons as each window closes: the overlay shows that window's
    ballots then, while the next window is still open and before the count is said."""
    seen = run_virtual(record_overlay(three_candidates()))
    states = [json.loads(text)["state"] for _, text in seen["public"]]
    live = [s for s in states
            if s["ballots"] and not s["ballots"]["complete"] and s["vote"] and not s["vote"]["counted"]]
    assert live, "ballots shown while the vote is still taken"
    assert any(g["voters"] for s in live for g in s["ballots"]["groups"]), "who pressed, by seat"
    assert any(s["scene"] == "vote" for s in states)
    assert any(s["speaker"] and s["speaker"]["turn"] == "last_word" for s in states) == \
        ("last_word" in [json.loads(h)["scene"] for h in seen["hints"]])


PRESS_TO_OVERLAY_S = 0.25   # issue 45's target for a button press → the overlay's socket


def test_each_ballot_reaches_the_overlay_as_its_button_goes_down() -> None:
    """Every counted press of every vote (lift included) is on ``/ws/overlay`` before its
    window closes, within the target of its button going down: the overlay follows the
    director's per-press notice, not the window's close (on the old host it waited for it)."""
    seen = run_virtual(record_overlay(three_candidates()))
    arrivals = [(at, json.loads(text)["state"]) for at, text in seen["public"]]
    votes = seen["result"].table.ballots
    checked = 0
    for vote in votes:
        for window in vote.windows:
            for ballot in vote.ballots:
                if ballot.pressed != window.candidate or ballot.t is None or not ballot.counted:
                    continue
                shown = [at for at, state in arrivals if window.opens <= at < window.closes and state["ballots"]
                         and any(g["candidate"] == window.candidate and ballot.voter in g["voters"]
                                 for g in state["ballots"]["groups"])]
                assert shown, f"day {vote.day} vote {vote.vote}: seat {ballot.voter}'s ballot for " \
                              f"{window.candidate} not on the overlay before its window closed"
                assert -0.001 <= shown[0] - ballot.t <= PRESS_TO_OVERLAY_S, (ballot, shown[0])   # t: to the ms
                checked += 1
    assert checked >= 5 and any(w.candidate for v in votes for w in v.windows[1:]), \
        "the sample's votes have several windows and many presses"
    counted = [s for _, s in arrivals if s["vote"] and s["vote"]["counted"] and s["ballots"]
               and s["ballots"]["complete"]]
    assert counted, "then the count, with every ballot"


def test_the_roles_wait_for_the_streams_delay() -> None:
    delay = 30.0
    seen = run_virtual(record_overlay(games()[0].values[0](), delay_s=delay))
    sent = {json.loads(text)["seq"]: at for at, text in seen["public"]}
    keyed = [(at, json.loads(text)) for at, text in seen["secret"]]
    with_roles = [(at, message) for at, message in keyed if message["state"]["roles"]]
    assert with_roles, "the cards reached the stream"
    for at, message in with_roles:
        assert message["seq"] in sent
        assert at - sent[message["seq"]] >= delay - 0.05, "a secret arrived before the stream's delay"
    first_dealt = min(sent[m["seq"]] for _, m in with_roles)
    assert all(not m["state"]["roles"] for at, m in keyed if at < first_dealt + delay - 0.05)


def test_the_roles_need_the_stream_key() -> None:
    async def knock() -> list[int]:
        table = WebTable("1234", overlay=OverlaySettings(KEY, 0.0))
        async with served(table) as client:
            statuses = [(await client.get(path)).status for path in (
                "/overlay/roles", "/overlay/roles?key=wrong-key-000", "/ws/overlay/roles", f"/overlay/roles?key={KEY}",
                "/overlay", "/static/overlay.js")]
            refused = await client.get("/overlay/roles")
            statuses.append(len((await refused.json())["error"]))
            socket = await client.ws_connect(f"/ws/overlay/roles?key={KEY}")
            first = json.loads((await socket.receive()).data)
            await socket.close()
            assert first["secret"] and first["state"]["roles"] == {}
            public = await client.ws_connect("/ws/overlay")
            assert not json.loads((await public.receive()).data)["secret"]
            await public.close()
            await table.overlay.close()
        return statuses
    statuses = asyncio.run(knock())
    assert statuses[:6] == [401, 401, 401, 200, 200, 200]
    assert statuses[6] > 10, "a Russian line says why"


def test_a_made_up_key_is_long_and_a_bad_setting_is_refused() -> None:
    assert len(WebTable().overlay.key) >= 16
    assert check_settings("abcdEFGH-123_x", 12).delay_s == 12.0
    for key, delay in (("short", 0), ("has space in it", 0), ("ключключключ", 0), (None, -1), (None, "5"), (None, 601)):
        with pytest.raises(InputError):
            check_settings(key, delay)


def test_the_table_file_gives_the_key_and_delay_and_the_command_line_overrides(tmp_path: Any) -> None:
    table = tmp_path / "table.toml"
    table.write_text('[web]\npin = "1234"\noverlay_key = "club-stream-2026"\noverlay_delay_s = 45\n', encoding="utf-8")
    none = argparse.Namespace(overlay_key=None, overlay_delay=None)
    assert overlay_settings(none, str(table)) == OverlaySettings("club-stream-2026", 45.0)
    given = argparse.Namespace(overlay_key="from-the-command", overlay_delay=0.0)
    assert overlay_settings(given, str(table)) == OverlaySettings("from-the-command", 0.0)
    table.write_text('[web]\noverlay_delay_s = "a minute"\n', encoding="utf-8")
    with pytest.raises(InputError, match="overlay_delay_s"):
        overlay_settings(none, str(table))


def test_a_bad_overlay_option_is_one_russian_line_and_exit_2() -> None:
    for option in (["--overlay-key", "bad key"], ["--overlay-delay", "-3"]):
        done = subprocess.run([sys.executable, "-m", "voicehost", "simulate", str(EXAMPLES / "sport-sample.json"),
                               "--level", "table", "--web", "127.0.0.1:0", *option],
                              capture_output=True, text=True, timeout=120, env={**os.environ, "LANG": "ru_RU.UTF-8"})
        assert done.returncode == 2, done.stderr
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and "Traceback" not in done.stderr and option[0] in lines[0], lines


def test_the_game_card_stays_on_the_overlay_until_the_next_game() -> None:
    """``serve`` detaches a finished game from its pages: the display says «Стол готов», while the
    stream keeps the game card until the next game begins."""
    async def play() -> tuple[dict[str, Any], dict[str, Any]]:
        table = WebTable(overlay=OverlaySettings(KEY, 0.0))

        @asynccontextmanager
        async def around(director: Director) -> AsyncIterator[WebTable]:
            table.attach(director)
            yield table

        await play_table(games()[0].values[0](), how=TableRun(around=around))
        table.follow(None)
        await asyncio.sleep(0)   # the change goes out
        return json.loads(table.overlay.public_text)["state"], table.public_state()
    overlay, display = run_virtual(play())
    assert display["seats"] == [], "the display has left the game"
    assert overlay["card"] and overlay["scene"] == "over" and len(overlay["seats"]) == 10


def test_a_reports_overlay_keeps_only_its_public_fields() -> None:
    """A table (or a program posing as one) sends the club screen an overlay with secrets and
    absurd values: the screen keeps the public fields, within bounds."""
    hostile = {"type": "report", "tournament": "Кубок", "round": 1, "table": "2", "seq": 1, "t": 1.0,
               "state": {"phase": {"kind": "day", "number": 1, "text": "День 1"}},
               "overlay": {"phase": {"kind": "day", "number": 1, "text": "День 1"}, "roles": {"1": "дон"},
                           "night_log": ["Дон проверяет игрока номер 7: шериф."], "role_kinds": {"1": "don"},
                           "seats": [{"seat": 1, "name": "Анна", "role": "don", "fouls": 10**9, "alive": "yes"}] * 50,
                           "speaker": {"seat": 1, "left": 1e300, "held": 1, "secret": "don"},
                           "vote": {"counts": [[5, 3], [1, 2, 3], "x"], "candidates": [5, -1]},
                           "outcomes": ["Итог"] * 10, "scene": "backstage",
                           "card": {"rows": [{"seat": 1, "role": "don"}]}}}
    overlay = read_report(json.dumps(hostile, ensure_ascii=False))["overlay"]
    keys: set[str] = set()
    strings: set[str] = set()
    keys_and_strings(overlay, keys, strings)
    assert not keys & SECRET_KEYS and not strings & ROLE_VALUES and "дон" not in json.dumps(overlay, ensure_ascii=False)
    assert len(overlay["seats"]) == 20 and overlay["seats"][0] == {
        "seat": 1, "name": "Анна", "alive": False, "fouls": 0, "out": None, "nominated": False, "on_ballot": False,
        "speaking": False, "ballot": None}
    assert overlay["speaker"]["left"] == 24 * 3600 and overlay["speaker"]["held"] is False
    assert overlay["vote"]["counts"] == [[5, 3]] and overlay["vote"]["candidates"] == [5, 0]
    assert len(overlay["outcomes"]) == 2 and overlay["scene"] == "day" and overlay["card"]["rows"][0]["seat"] == 1
    assert read_report(json.dumps({**hostile, "overlay": "none"}))["overlay"] is None
    voters = [{"seat": 1, "ballot": "дон"}, {"seat": 2, "ballot": True}, {"seat": 3, "ballot": 5},
              {"seat": 4, "ballot": 0}, {"seat": 5, "ballot": 10**6}]
    seats = read_report(json.dumps({**hostile, "overlay": {"seats": voters}}, ensure_ascii=False))["overlay"]["seats"]
    assert [seat["ballot"] for seat in seats] == [None, None, 5, 0, None], "a seat's ballot: a seat number, 0 the lift"
