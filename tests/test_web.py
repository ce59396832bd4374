"""The web console's contract: the public state, the judge's login, session and CSRF, commands
through the director's console path, and malformed requests that never reach the game."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer

from voicehost.config import load_ruleset
from voicehost.host import Director, EdgeLog, Journal, Paused, Ports, read_journal
from voicehost.host.dealing import typed_deal
from voicehost.rules import new_game
from voicehost.rules.inputs import Dawn
from voicehost.simulation.table_level import VirtualVoice
from voicehost.web import WebTable, parse_address
from voicehost.web.commands import CommandError, check_command
from voicehost.web.door import MAX_BODY
from voicehost.web.sessions import SESSION_COOKIE

PIN = "4821"
ROLES = "3=don,5=mafia,9=mafia,7=sheriff"
Client = TestClient[web.Request, web.Application]   # a client of a served WebTable


def day_one(journal: Path) -> tuple[Director, Journal]:
    """A sport game on the first speech of day 1, its director on the running loop's clock."""
    ruleset = load_ruleset("sport")
    game = new_game(ruleset, ruleset.resolve({}), 10)
    log = Journal(journal, {"ruleset": "sport", "options": {}, "seats": 10, "level": "live"})
    for index, item in enumerate([typed_deal(ROLES, game, "roles"), Dawn()]):
        game.push(item)
        log.append(index, 0.0, "host", item)  # as the host journals a typed deal and its own dawn
    loop = asyncio.get_running_loop()
    ports = Ports(night=lambda on: None, led=lambda seat, pattern: None, edges=EdgeLog(),
                  speak=VirtualVoice(50).speak, clock=loop.time, speed=1.0, poll_s=None)
    return Director(game, ports, log, log=lambda line: None), log


def run_with_table(test: Callable[[Client, WebTable, Director, Path], Awaitable[None]], tmp_path: Path,
                   attach: bool = True) -> None:
    """``test`` gets a client of a served table whose director is hosting day 1 (real time: a
    60-second speech, so nothing moves on by itself while the test talks to it)."""
    async def main() -> None:
        journal = tmp_path / "game.jsonl"
        director, log = day_one(journal)
        table = WebTable(PIN, wrong_pin_delay_s=0.0)
        if attach:
            table.attach(director)
        client = TestClient(TestServer(table.app))
        await client.start_server()
        hosting = asyncio.create_task(director.run())
        try:
            await test(client, table, director, journal)
        finally:
            hosting.cancel()
            await asyncio.gather(hosting, return_exceptions=True)
            table.finish()
            await client.close()
            log.close()
    asyncio.run(main())


async def login(client: Client) -> str:
    reply = await client.post("/api/login", json={"pin": PIN})
    assert reply.status == 200
    return str((await reply.json())["csrf"])


async def command(client: Client, csrf: str, line: Any) -> tuple[int, dict[str, Any]]:
    reply = await client.post("/api/judge/command", json={"command": line}, headers={"X-CSRF-Token": csrf})
    return reply.status, await reply.json()


def journaled(journal: Path) -> list[str]:
    return [entry.input.kind for entry in read_journal(str(journal))[1]]


HANG_S = 60.0   # only a real hang takes this long: a busy machine's delays are far shorter


async def until(check: Callable[[], bool | Awaitable[bool]], what: str, seconds: float = HANG_S) -> None:
    """Waits for ``check`` (a test, or a coroutine of one) to hold: the event itself, not a fixed
    pause that a busy machine outlasts."""
    async def holds() -> bool:
        got = check()
        return await got if not isinstance(got, bool) else got
    deadline = asyncio.get_running_loop().time() + seconds
    while not await holds():
        assert asyncio.get_running_loop().time() < deadline, f"{what}: not within {seconds:.0f} s"
        await asyncio.sleep(0.02)


async def has_the_floor(table: WebTable, seat: int) -> None:
    """Seat ``seat``'s speech has begun (his «ваше слово» said), so the console is read at once."""
    await until(lambda: table.view is not None and table.view.floor.speaker == seat, f"seat {seat} has the floor")


# ---- the public state ------------------------------------------------------------------------------

def test_public_state_has_the_table_and_no_roles(tmp_path: Path) -> None:
    async def test(client: Client, table: WebTable, director: Director, journal: Path) -> None:
        for _ in range(300):   # the host gives the floor to seat 1 (a busy machine takes its time)
            state = await (await client.get("/api/state")).json()
            if state["speaker"] is not None:
                break
            await asyncio.sleep(0.05)
        assert state["phase"] == {"kind": "day", "number": 1, "text": "День 1"}
        assert [s["seat"] for s in state["seats"]] == list(range(1, 11))
        assert state["speaker"]["seat"] == 1 and 0 < state["speaker"]["left"] <= 60
        assert (await command(client, await login(client), "status"))[0] == 200   # said aloud …
        state = await (await client.get("/api/state")).json()
        assert state["subtitles"][-1]["text"] == "Осталось шестьдесят секунд.", "… and shown as subtitles"
        assert "roles" not in state and "night_log" not in state
        assert not {"don", "mafia", "sheriff", "citizen"} & set(json.dumps(state).replace('"', " ").split())
    run_with_table(test, tmp_path)


def test_before_the_game_the_display_waits(tmp_path: Path) -> None:
    async def test(client: Client, table: WebTable, director: Director, journal: Path) -> None:
        state = await (await client.get("/api/state")).json()
        assert state["phase"]["kind"] == "waiting" and state["seats"] == []
        status, body = await command(client, await login(client), "foul 3")
        assert status == 409 and body["error"] == "Игра ещё не началась."
    run_with_table(test, tmp_path, attach=False)


def test_the_websocket_sends_the_whole_state_on_connect_and_every_change(tmp_path: Path) -> None:
    async def test(client: Client, table: WebTable, director: Director, journal: Path) -> None:
        ws = await client.ws_connect("/ws")
        first = json.loads((await ws.receive()).data)
        assert first["type"] == "state" and len(first["state"]["seats"]) == 10
        status, _ = await command(client, await login(client), "foul 4")
        assert status == 200
        while True:   # the foul arrives in a later message
            message = json.loads((await asyncio.wait_for(ws.receive(), HANG_S)).data)
            if message["state"]["seats"][3]["fouls"] == 1:
                break
        await ws.close()
        again = await client.ws_connect("/ws")   # a phone that rejoins gets it all at once
        rejoined = json.loads((await again.receive()).data)
        assert rejoined["state"]["seats"][3]["fouls"] == 1
        await again.close()
    run_with_table(test, tmp_path)


# ---- the judge: PIN, session, CSRF --------------------------------------------------------------------

def test_the_judges_endpoints_need_a_session(tmp_path: Path) -> None:
    async def test(client: Client, table: WebTable, director: Director, journal: Path) -> None:
        assert (await client.get("/api/judge/state")).status == 401
        assert (await client.post("/api/judge/command", json={"command": "foul 3"})).status == 401
        assert (await client.get("/ws/judge")).status == 401
        body = await (await client.get("/api/judge/state")).json()
        assert body == {"error": "Нужен вход судьи: введите PIN."}
    run_with_table(test, tmp_path)


def test_login_sets_an_httponly_cookie_and_the_judge_sees_the_cards(tmp_path: Path) -> None:
    async def test(client: Client, table: WebTable, director: Director, journal: Path) -> None:
        reply = await client.post("/api/login", json={"pin": PIN})
        cookie = reply.headers["Set-Cookie"]
        assert SESSION_COOKIE in cookie and "HttpOnly" in cookie and "SameSite=Strict" in cookie
        state = await (await client.get("/api/judge/state")).json()
        assert state["roles"]["3"] == "дон" and state["roles"]["1"] == "мирный житель"
        assert state["csrf"] == (await reply.json())["csrf"]
        ws = await client.ws_connect("/ws/judge")
        assert json.loads((await ws.receive()).data)["state"]["roles"]["7"] == "шериф"
        await ws.close()
    run_with_table(test, tmp_path)


def test_wrong_pins_are_refused_and_slowed_down(tmp_path: Path) -> None:
    async def test(client: Client, table: WebTable, director: Director, journal: Path) -> None:
        for _ in range(3):
            reply = await client.post("/api/login", json={"pin": "0000"})
            assert reply.status == 401 and (await reply.json())["error"] == "Неверный PIN."
        locked = await client.post("/api/login", json={"pin": PIN})   # even the right one waits now
        assert locked.status == 429 and "подождите" in (await locked.json())["error"]
        assert (await client.get("/api/judge/state")).status == 401
    run_with_table(test, tmp_path)


def test_a_command_without_the_csrf_token_is_refused(tmp_path: Path) -> None:
    async def test(client: Client, table: WebTable, director: Director, journal: Path) -> None:
        await login(client)
        before = journaled(journal)
        status, body = await command(client, "forged", "foul 3")
        assert status == 403 and "CSRF" in body["error"]
        reply = await client.post("/api/judge/command", json={"command": "foul 3"})
        assert reply.status == 403
        assert journaled(journal) == before
    run_with_table(test, tmp_path)


def test_a_post_from_another_origin_is_refused(tmp_path: Path) -> None:
    async def test(client: Client, table: WebTable, director: Director, journal: Path) -> None:
        reply = await client.post("/api/login", json={"pin": PIN}, headers={"Origin": "http://evil.example"})
        assert reply.status == 403
    run_with_table(test, tmp_path)


# ---- commands ------------------------------------------------------------------------------------------

def test_a_foul_goes_through_the_console_path_and_the_journal(tmp_path: Path) -> None:
    async def test(client: Client, table: WebTable, director: Director, journal: Path) -> None:
        csrf = await login(client)
        status, body = await command(client, csrf, "foul   3")
        assert status == 200 and body["command"] == "foul 3" \
            and body["answer"] == "Игроку 3 — замечание (всего: 1)."   # about this command, not «Готово.»
        assert director.game.fouls[3] == 1
        assert journaled(journal)[-1] == "foul"
        entry = read_journal(str(journal))[1][-1]
        assert entry.source == "console"
        state = await (await client.get("/api/judge/state")).json()
        assert state["answers"][-1] == {"id": body["id"], "command": "foul 3", "ok": True, "outcome": "done",
                                        "answer": "Игроку 3 — замечание (всего: 1)."}
    run_with_table(test, tmp_path)


def test_a_command_the_game_refuses_gets_a_russian_reason_and_is_not_journaled(tmp_path: Path) -> None:
    async def test(client: Client, table: WebTable, director: Director, journal: Path) -> None:
        csrf = await login(client)
        before = journaled(journal)
        status, body = await command(client, csrf, "vote 1 2")
        assert status == 409 and body["error"] == "Голосования ещё не было: исправлять нечего."
        assert journaled(journal) == before
        assert (await command(client, csrf, "remove 3"))[0] == 200
        status, body = await command(client, csrf, "foul 3")
        assert status == 409 and body["error"] == "Игрок 3 уже не за столом."
        assert journaled(journal) == [*before, "remove"]
    run_with_table(test, tmp_path)


def test_pause_and_resume_from_the_console(tmp_path: Path) -> None:
    async def test(client: Client, table: WebTable, director: Director, journal: Path) -> None:
        csrf = await login(client)
        assert (await command(client, csrf, "pause"))[0] == 200
        assert (await (await client.get("/api/state")).json())["paused"] is True
        status, body = await command(client, csrf, "pause")
        assert status == 409 and body["error"] == "Игра уже на паузе."
        status, body = await asyncio.wait_for(command(client, csrf, "foul 2"), HANG_S)  # answered, not kept: held
        assert status == 202 and body["outcome"] == "held" and "«Продолжить»" in body["answer"]
        assert director.game.fouls[2] == 0                              # held until resume, as at the terminal
        assert (await command(client, csrf, "resume"))[0] == 200
        state: dict[str, Any] = {}

        async def held_foul_answered() -> bool:
            state.update(await (await client.get("/api/judge/state")).json())
            return any(a["command"] == "foul 2" and a["outcome"] != "held" for a in state["answers"])
        await until(held_foul_answered, "the held foul answered after resume")
        assert director.game.fouls[2] == 1
        assert state["paused"] is False
        assert [(a["command"], a["outcome"]) for a in state["answers"][-3:]] == [
            ("foul 2", "held"), ("resume", "done"), ("foul 2", "done")]
    run_with_table(test, tmp_path)


@pytest.mark.parametrize("body, status, error", [
    (b"{not json", 400, "Неверный JSON."),
    (b"[1, 2]", 400, "Ожидался JSON-объект."),
    (b'{"command": 5}', 400, "Нет команды"),
    (b'{"command": "dance 3"}', 400, "Неизвестная команда. Команды: foul, remove"),
    (b'{"command": "foul 99"}', 400, "Места 99 нет: за этим столом места 1–10."),
    (b'{"command": "foul"}', 400, "Команда пишется так: foul N."),
    (b'{"command": "foul x"}', 400, "Команда пишется так: foul N."),
    (b'{"command": "end 3"}', 400, "Команда end пишется без чисел."),
    (b'{"command": "foul \\u0663"}', 400, "Команда пишется так: foul N."),
    (json.dumps({"command": "foul 3", "pad": "x" * (2 * MAX_BODY)}).encode(), 413, "Слишком большой запрос"),
])
def test_malformed_commands_get_one_line_and_never_reach_the_game(tmp_path: Path, body: bytes, status: int,
                                                                   error: str) -> None:
    async def test(client: Client, table: WebTable, director: Director, journal: Path) -> None:
        csrf = await login(client)
        before, inputs = journaled(journal), list(director.game.inputs)
        reply = await client.post("/api/judge/command", data=body,
                                  headers={"X-CSRF-Token": csrf, "Content-Type": "application/json"})
        answer = await reply.json()
        assert reply.status == status and answer["error"].startswith(error) and "\n" not in answer["error"]
        assert director.ports.console.empty() and journaled(journal) == before and director.game.inputs == inputs
    run_with_table(test, tmp_path)


def test_not_json_and_unknown_urls_are_one_line_too(tmp_path: Path) -> None:
    async def test(client: Client, table: WebTable, director: Director, journal: Path) -> None:
        reply = await client.post("/api/login", data="pin=1", headers={"Content-Type": "text/plain"})
        assert reply.status == 415 and "JSON" in (await reply.json())["error"]
        reply = await client.get("/api/nothing")
        assert reply.status == 404 and (await reply.json()) == {"error": "Нет такой страницы."}
        reply = await client.get("/api/login")
        assert reply.status == 405
    run_with_table(test, tmp_path)


def test_cards_that_do_not_fit_are_refused_by_the_game_and_not_journaled(tmp_path: Path) -> None:
    async def test(client: Client, table: WebTable, director: Director, journal: Path) -> None:
        csrf = await login(client)
        before = journaled(journal)
        status, body = await command(client, csrf, "roles 3=don;drop")
        assert status == 409 and body["error"].startswith("Карты не подходят") and "\n" not in body["error"]
        assert journaled(journal) == before and director.game.roles[3].value == "don"
    run_with_table(test, tmp_path)


def test_the_pages_and_their_assets_are_served_locally(tmp_path: Path) -> None:
    async def test(client: Client, table: WebTable, director: Director, journal: Path) -> None:
        for url in ("/", "/judge", "/static/style.css", "/static/common.js", "/static/judge.js"):
            reply = await client.get(url)
            text = await reply.text()
            assert reply.status == 200, url
            assert "http://" not in text and "https://" not in text, f"{url} loads something from outside"
    run_with_table(test, tmp_path)


# ---- the command grammar -------------------------------------------------------------------------------

def test_check_command_normalizes_and_refuses() -> None:
    assert check_command("  FOUL   3 ", 10) == "foul 3"
    assert check_command("vote 8 0", 10) == "vote 8 0"
    assert check_command("roles 3=don,5=mafia", 10) == "roles 3=don,5=mafia"
    for bad in ("vote 0 3", "nominate 1", "remove 11", "x" * 300, "roles", "", "foul 3\x1b[A"):
        with pytest.raises(CommandError):
            check_command(bad, 10)


def test_a_nomination_the_game_would_not_take_is_refused_not_done(tmp_path: Path) -> None:
    """«nominate 2 7» after seat 2's speech ended came back green «Готово. Сейчас не ваша речь.»
    (the game took the input and said «не принято»): it is a refusal, and nothing is journaled."""
    async def test(client: Client, table: WebTable, director: Director, journal: Path) -> None:
        csrf = await login(client)
        for _ in range(200):   # seat 1 has the floor (his «ваше слово» said): seat 2 has not spoken yet
            if table.view is not None and table.view.floor.speaker == 1:
                break
            await asyncio.sleep(0.05)
        before, said = journaled(journal), len(table.view.lines) if table.view else 0
        status, body = await command(client, csrf, "nominate 2 7")
        assert status == 409 and body["error"] == "Игрок 2 выставляет игрока 7: не принято, сейчас не речь игрока 2."
        assert journaled(journal) == before and director.game.inputs[-1].kind != "nominate"
        assert table.view is not None and len(table.view.lines) == said, "nothing said for a refused command"
        status, body = await command(client, csrf, "nominate 1 7")   # seat 1's own speech: taken
        assert status == 200 and body["outcome"] == "done" and journaled(journal)[-1] == "nominate"
    run_with_table(test, tmp_path)


def test_the_same_words_typed_at_the_terminal_do_not_answer_the_phone(tmp_path: Path) -> None:
    """«remove 4» typed at the terminal, then the same words from the phone before the host
    looked at the console: the terminal's is done, the phone's refused. Matched by the text,
    the phone was answered with the terminal's «Готово.» (200)."""
    async def test(client: Client, table: WebTable, director: Director, journal: Path) -> None:
        await has_the_floor(table, 1)
        director.ports.type("remove 4")
        status, *answer = await table.command("remove 4")   # queued behind the terminal's line
        assert status == 409 and answer[1] == "Игрок 4 уже не за столом."
        assert journaled(journal).count("remove") == 1
    run_with_table(test, tmp_path)


def test_each_request_gets_the_answer_to_its_own_line(tmp_path: Path) -> None:
    """The same words typed at the terminal and sent from the phone, both held by a pause: after
    «resume» the terminal's is done and the phone's refused. Answers were matched by the text,
    so the phone got the terminal's «Готово.»; now each answer names its line's id."""
    async def test(client: Client, table: WebTable, director: Director, journal: Path) -> None:
        csrf = await login(client)
        assert (await command(client, csrf, "pause"))[0] == 200
        terminal = director.ports.type("remove 4")
        status, body = await asyncio.wait_for(command(client, csrf, "remove 4"), HANG_S)
        assert status == 202 and body["outcome"] == "held" and body["id"] != terminal
        assert (await command(client, csrf, "resume"))[0] == 200
        answers: dict[tuple[Any, str], str] = {}

        async def both_answered() -> bool:
            answers.update({(a["id"], a["outcome"]): a["answer"]
                            for a in (await (await client.get("/api/judge/state")).json())["answers"]})
            return {key[0] for key in answers if key[1] != "held"} >= {terminal, body["id"]}
        await until(both_answered, "both held lines answered after resume")
        assert answers[terminal, "done"] == "Игрок 4 удалён из игры."
        assert answers[body["id"], "refused"] == "Игрок 4 уже не за столом."
        assert journaled(journal).count("remove") == 1
    run_with_table(test, tmp_path)


def test_web_address() -> None:
    assert parse_address("0.0.0.0:8080") == ("0.0.0.0", 8080)
    assert parse_address(":9000") == ("0.0.0.0", 9000)
    with pytest.raises(ValueError):
        parse_address("localhost")


@pytest.mark.usefixtures("english")
def test_bad_web_arguments_are_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    from voicehost.cli.main import main

    script = str(Path(__file__).resolve().parents[1] / "examples" / "sport-sample.json")
    assert main(["simulate", script, "--level", "table", "--web", "localhost"]) == 2
    assert capsys.readouterr().err == "voicehost: error: --web: 'localhost' is not HOST:PORT (e.g. 0.0.0.0:8080)\n"
    assert main(["simulate", script, "--web", "127.0.0.1:0"]) == 2
    assert "add --level table" in capsys.readouterr().err
    assert main(["simulate", script, "--level", "table", "--web", ":0", "--web-pin", "12"]) == 2
    assert capsys.readouterr().err == "voicehost: error: --web-pin: must be 4 to 12 digits\n"


@pytest.mark.usefixtures("english")
def test_the_table_files_pin(tmp_path: Path) -> None:
    from voicehost.host.table_file import load_web_pin
    from voicehost.rules import InputError

    table = tmp_path / "t.toml"
    table.write_text('[web]\npin = "4821"\n')
    assert load_web_pin(table) == "4821"
    table.write_text("[web]\npin = 4821\n")
    with pytest.raises(InputError, match="web.pin: must be a string of 4 to 12 digits"):
        load_web_pin(table)
    table.write_text("[audio]\n")
    assert load_web_pin(table) is None


def test_a_table_file_with_a_web_pin_is_a_valid_table(tmp_path: Path) -> None:
    from voicehost.cli.config import check_table
    from voicehost.config import config_dir

    table = tmp_path / "t.toml"
    table.write_text((config_dir() / "tables" / "ten-seats.toml").read_text() + '\n[web]\npin = "4821"\n')
    check_table(table)
    table.write_text((config_dir() / "tables" / "ten-seats.toml").read_text() + '\n[web]\npin = "48"\n')
    with pytest.raises(ValueError, match="web.pin"):
        check_table(table)


def test_the_logs_in_a_state_are_the_last_lines_of_the_whole_narration() -> None:
    """A state's logs are narrated from the newest event back (a state is built on every
    change): at every point of whole games, the same lines as narrating everything."""
    from voicehost.language.narrate import narrate, public_lines
    from voicehost.rules.events import PRIVATE_EVENTS
    from voicehost.simulation.engine_level import simulate
    from voicehost.simulation.script import script_from_data
    from voicehost.simulation.scriptgen import random_script
    from voicehost.web.view import LOG_TAIL, _last_lines

    longest = 0
    for ruleset in ("sport", "club", "classic", "canonical"):
        game = simulate(script_from_data(random_script(ruleset, 3))).game
        longest = max(longest, len(list(narrate(game.events))))
        for end in range(len(game.events) + 1):
            events = game.events[:end]
            public = [e for e in events if not isinstance(e, PRIVATE_EVENTS)]
            assert _last_lines(public, game.names) == public_lines(public, game.names)[-LOG_TAIL:]
            assert _last_lines(events, game.names) == list(narrate(events, game.names))[-LOG_TAIL:]
    assert longest > LOG_TAIL, "a game longer than the tail"


# ---- the door: bad requests, headers, origins, sockets, the PIN flood ---------------------------------

Served = Callable[[WebTable, str, int], Awaitable[None]]


def run_served(test: Served, wrong_pin_delay_s: float = 0.0) -> None:
    """``test`` gets a table served as ``voicehost run --web`` serves it (its own runner, so the
    refusals of aiohttp's parser are ours too) on a port of its own, and its base URL."""
    async def main() -> None:
        table = WebTable(PIN, wrong_pin_delay_s=wrong_pin_delay_s)
        base = await table.start("127.0.0.1", 0)
        try:
            await test(table, base, int(base.rsplit(":", 1)[1]))
        finally:
            table.finish()
            await table.stop()
    asyncio.run(main())


async def raw_request(port: int, data: bytes) -> tuple[int, dict[str, str], bytes]:
    """Bytes as sent (no client's checks); the status, headers and body of the answer."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(data)
    await writer.drain()
    answer = await asyncio.wait_for(reader.read(), HANG_S)
    writer.close()
    head, _, body = answer.partition(b"\r\n\r\n")
    status_line, *lines = head.decode("latin-1").split("\r\n")
    headers = {name.lower(): value.strip() for name, _, value in (line.partition(":") for line in lines)}
    return int(status_line.split()[1]), headers, body


def post_bytes(path: str, body: bytes, extra: bytes = b"") -> bytes:
    return (b"POST " + path.encode() + b" HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            + extra + b"Content-Length: %d\r\nConnection: close\r\n\r\n" % len(body) + body)


def refusals(caplog: pytest.LogCaptureFixture) -> list[str]:
    """The log's refusal lines; and nothing in the log is a traceback."""
    assert "Traceback" not in caplog.text and not any(record.exc_info for record in caplog.records), caplog.text
    return [record.getMessage() for record in caplog.records if record.getMessage().startswith("web: refused")]


def one_russian_line(body: bytes) -> str:
    line = json.loads(body)["error"]
    assert isinstance(line, str) and "\n" not in line and any("а" <= c <= "я" for c in line.lower()), line
    return line


@pytest.mark.parametrize("body, error", [
    (b'{"pin": ' + b"[" * 1500 + b"]" * 1500 + b"}", "Неверный JSON: слишком глубокая вложенность."),
    (b'{"pin": "\\ud800"}', "Неверный JSON: одиночный суррогат"),
    (b'{"pin": "1", "x": {"\\udfff": 1}}', "Неверный JSON: одиночный суррогат"),
])
def test_a_login_body_that_breaks_the_parser_is_one_line(caplog: pytest.LogCaptureFixture, body: bytes,
                                                         error: str) -> None:
    assert len(body) < MAX_BODY

    async def test(table: WebTable, base: str, port: int) -> None:
        status, headers, answer = await raw_request(port, post_bytes("/api/login", body))
        assert status == 400 and one_russian_line(answer).startswith(error)
    caplog.set_level("WARNING")
    run_served(test)
    assert len(refusals(caplog)) == 1


def test_a_csrf_header_that_is_not_utf8_is_refused_not_a_crash(caplog: pytest.LogCaptureFixture) -> None:
    async def test(table: WebTable, base: str, port: int) -> None:

        async with browser(base) as client:
            reply = await client.post("/api/login", json={"pin": PIN})
            token = reply.cookies[SESSION_COOKIE].value
        cookie = b"Cookie: " + SESSION_COOKIE.encode() + b"=" + token.encode() + b"\r\n"
        status, _, answer = await raw_request(port, post_bytes("/api/judge/command", b'{"command": "foul 3"}',
                                                               cookie + b"X-CSRF-Token: \xff\xfe\r\n"))
        assert status == 403 and "CSRF" in one_russian_line(answer)
    caplog.set_level("WARNING")
    run_served(test)
    assert len(refusals(caplog)) == 1


def test_phones_dropping_off_mid_post_leave_one_line_each(caplog: pytest.LogCaptureFixture) -> None:
    """Sixty slow clients send the headers and half a body, then go: a reset (the phone's
    Wi-Fi gone) or a plain close."""
    import socket
    import struct

    async def test(table: WebTable, base: str, port: int) -> None:
        async def slow(reset: bool) -> None:
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.write(b"POST /api/login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                         b"Content-Length: 200\r\n\r\n{\"pin\": \"12")
            await writer.drain()
            await asyncio.sleep(0.2)
            if reset:
                writer.get_extra_info("socket").setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                                                           struct.pack("ii", 1, 0))
            writer.close()
        await asyncio.gather(*(slow(reset=n % 2 == 0) for n in range(60)))
        for _ in range(400):   # the server hears of each one a moment later
            if len(refusals(caplog)) >= 60:
                break
            await asyncio.sleep(0.05)
        state = await raw_request(port, b"GET /api/state HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        assert state[0] == 200, "the server still serves"
    caplog.set_level("WARNING")
    run_served(test)
    lines = refusals(caplog)
    assert len(lines) == 60 and all("left in the middle" in line for line in lines), lines[:3]


@pytest.mark.parametrize("request_bytes, status, error", [
    (b"GET /" + b"a" * 9000 + b" HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", 414, "Слишком длинный адрес запроса."),
    (b"GET /api/state HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Long: " + b"a" * 9000 + b"\r\n\r\n", 431,
     "Слишком длинный заголовок запроса."),
    (b"GET /api/state HTTP/1.1\r\nHost: 127.0.0.1\r\n" + b"X" * 9000 + b": 1\r\n\r\n", 431,
     "Слишком длинный заголовок запроса."),
    (b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03 not http\r\n\r\n", 400, "Неверный HTTP-запрос."),
])
def test_lines_over_the_parsers_limit_are_one_russian_line(caplog: pytest.LogCaptureFixture, request_bytes: bytes,
                                                           status: int, error: str) -> None:
    async def test(table: WebTable, base: str, port: int) -> None:
        got, headers, answer = await raw_request(port, request_bytes)
        assert got == status and one_russian_line(answer) == error
        assert headers["content-type"].startswith("application/json") and headers["x-frame-options"] == "DENY"
    caplog.set_level("WARNING")
    run_served(test)
    assert len(refusals(caplog)) == 1


def test_static_serves_the_pages_files_only(caplog: pytest.LogCaptureFixture) -> None:
    async def test(table: WebTable, base: str, port: int) -> None:
        for path in ("/static", "/static/", "/static/..%252f..%252fserver.py", "/static/..%2f..%2fserver.py",
                     "/static/%2e%2e/server.py", "/static/../server.py", "/static/nothing.js", "/static/style.css/x"):
            status, _, answer = await raw_request(port, f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                                                        "Connection: close\r\n\r\n".encode())
            assert status == 404 and one_russian_line(answer) == "Нет такой страницы.", path
        status, headers, _ = await raw_request(port, b"GET /static/style.css HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                                                     b"Connection: close\r\n\r\n")
        assert status == 200 and headers["content-type"].startswith("text/css")
    caplog.set_level("WARNING")
    run_served(test)
    assert len(refusals(caplog)) == 8


def test_every_answer_carries_the_security_headers(tmp_path: Path) -> None:
    async def test(client: Client, table: WebTable, director: Director, journal: Path) -> None:
        replies = [await client.get(url) for url in ("/", "/judge", "/static/common.js", "/static/table.js",
                                                     "/api/state", "/api/judge/state", "/api/nothing")]
        replies.append(await client.post("/api/login", data="x", headers={"Content-Type": "text/plain"}))
        ws = await client.ws_connect("/ws")
        for reply in [*replies, ws._response]:
            headers = reply.headers
            policy = headers["Content-Security-Policy"]
            assert headers["X-Content-Type-Options"] == "nosniff" and headers["X-Frame-Options"] == "DENY"
            assert headers["Referrer-Policy"] == "no-referrer"
            assert "frame-ancestors 'none'" in policy and "default-src 'none'" in policy
            assert "script-src 'self';" in policy and "unsafe" not in policy
        await ws.close()
    run_with_table(test, tmp_path)


def test_the_pages_have_no_inline_code_the_policy_would_block() -> None:
    """The CSP allows script and style files of this origin only: no inline script, no style
    attribute, no event handler attribute in the pages."""
    import re

    from voicehost.web.server import STATIC

    for page in sorted(STATIC.glob("*.html")):
        html = page.read_text(encoding="utf-8")
        assert not re.search(r"<script(?![^>]*\bsrc=)[^>]*>", html), f"{page.name}: an inline script"
        assert not re.search(r"<style\b|\sstyle=|\son[a-z]+=", html), f"{page.name}: an inline style or handler"
        for asset in re.findall(r'(?:src|href)="([^"]+)"', html):
            assert asset.startswith("/static/") and (STATIC / asset.removeprefix("/static/")).is_file(), asset


def test_a_socket_from_another_origin_is_refused(tmp_path: Path) -> None:
    """A page on another port of the same Pi is same-site: the browser sends it the judge's
    cookie. Its socket must not get the cards."""
    import aiohttp

    async def test(client: Client, table: WebTable, director: Director, journal: Path) -> None:
        await login(client)
        own = f"http://{client.host}:{client.port}"
        for path in ("/ws/judge", "/ws"):
            for origin in ("http://evil.example", f"http://{client.host}:{(client.port or 0) + 1}", "null",
                           f"https://{client.host}:{client.port}", own + "/x"):
                with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
                    await client.ws_connect(path, origin=origin)
                assert refused.value.status == 403, (path, origin)
            ws = await client.ws_connect(path, origin=own)
            assert json.loads((await ws.receive()).data)["type"] == "state"
            await ws.close()
        state = await client.get("/api/judge/state", headers={"Origin": "http://evil.example"})
        assert state.status == 403 and (await state.json())["error"] == "Запрос с чужой страницы отклонён."
    run_with_table(test, tmp_path)


def test_logging_out_closes_the_sessions_sockets(tmp_path: Path) -> None:
    import aiohttp

    async def test(client: Client, table: WebTable, director: Director, journal: Path) -> None:
        csrf = await login(client)
        mine = await client.ws_connect("/ws/judge")
        await mine.receive()
        async with browser(f"http://{client.host}:{client.port}") as other:
            assert (await other.post("/api/login", json={"pin": PIN})).status == 200
            theirs = await other.ws_connect("/ws/judge")
            await theirs.receive()
            reply = await client.post("/api/logout", headers={"X-CSRF-Token": csrf})
            assert reply.status == 200
            closed = await asyncio.wait_for(mine.receive(), HANG_S)
            while closed.type == aiohttp.WSMsgType.TEXT:   # a state the table sent before the logout
                closed = await asyncio.wait_for(mine.receive(), HANG_S)
            # the code the server's close frame carries (the client's own close_code turns 1006 when
            # its reply to that frame finds the connection gone, as a busy machine's timing allows)
            assert closed.type == aiohttp.WSMsgType.CLOSE and closed.data == 4001
            assert (await client.get("/api/judge/state")).status == 401
            assert (await command(client, "x", "foul 3"))[0] == 401
            status, _ = await command(client, csrf, "foul 3")
            assert status == 401, "the old session's token is no key either"
            director.stage.notify(Paused(False))   # a change: the other judge still hears it
            message = await asyncio.wait_for(theirs.receive(), HANG_S)
            assert message.type == aiohttp.WSMsgType.TEXT and not theirs.closed
            await theirs.close()
    run_with_table(test, tmp_path)


def browser(base: str) -> Any:
    """A client that keeps cookies, also of a numeric host (as a phone's browser does)."""
    import aiohttp

    return aiohttp.ClientSession(base, cookie_jar=aiohttp.CookieJar(unsafe=True))


def test_a_judge_socket_closes_when_its_session_expires(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import aiohttp

    from voicehost.web import sessions

    monkeypatch.setattr(sessions, "SESSION_S", 1.0)

    async def test(client: Client, table: WebTable, director: Director, journal: Path) -> None:
        await login(client)
        ws = await client.ws_connect("/ws/judge")
        message = await ws.receive()
        while message.type == aiohttp.WSMsgType.TEXT:   # the game's changes, until the session ends
            message = await asyncio.wait_for(ws.receive(), HANG_S)
        assert message.type == aiohttp.WSMsgType.CLOSE and message.data == 4001   # the server's frame
        assert (await client.get("/api/judge/state")).status == 401
    run_with_table(test, tmp_path)


async def judge_page(client: Any) -> bool:
    """The judge's page, as his browser loads it: whether it gave an attempt source."""
    from voicehost.web.sessions import ATTEMPT_COOKIE

    reply = await client.get("/judge")
    assert reply.status == 200
    return ATTEMPT_COOKIE in reply.cookies


def test_a_wrong_pin_flood_from_one_phone_does_not_lock_the_judge_out() -> None:

    async def test(table: WebTable, base: str, port: int) -> None:
        async with browser(base) as judge, browser(base) as flood:
            assert await judge_page(judge) and await judge_page(flood)
            answers = [(await flood.post("/api/login", json={"pin": f"{n:04d}"})).status for n in range(12)]
            assert answers[:3] == [401] * 3 and set(answers[3:]) == {429}, answers
            assert (await flood.post("/api/login", json={"pin": PIN})).status == 429, "the flood's source is locked"
            async with browser(base) as cookieless:   # no source: the address's own lock
                bare = [(await cookieless.post("/api/login", json={"pin": "0000"})).status for _ in range(5)]
            assert bare == [401, 401, 401, 429, 429]
            reply = await judge.post("/api/login", json={"pin": PIN})
            assert reply.status == 200, await reply.text()
            assert (await judge.get("/api/judge/state")).status == 200
    run_served(test)


def test_one_address_gets_a_few_attempt_sources_only() -> None:
    """Else a flood would take a new source (three fresh tries) for every few PINs."""

    from voicehost.web.sessions import SOURCES_PER_ADDRESS

    async def test(table: WebTable, base: str, port: int) -> None:
        given = []
        for _ in range(SOURCES_PER_ADDRESS + 2):
            async with browser(base) as phone:
                given.append(await judge_page(phone))
                assert await judge_page(phone) is False, "a reload keeps the source it has"
        assert given == [True] * SOURCES_PER_ADDRESS + [False] * 2
    run_served(test)


def test_parallel_tries_gain_nothing_and_each_wrong_pin_answers_later() -> None:

    async def test(table: WebTable, base: str, port: int) -> None:
        async with browser(base) as flood:
            assert await judge_page(flood)
            started = time.monotonic()
            first = (await flood.post("/api/login", json={"pin": "0000"})).status
            took_first = time.monotonic() - started
            started = time.monotonic()
            parallel = await asyncio.gather(*(flood.post("/api/login", json={"pin": f"{n:04d}"}) for n in range(8)))
            took_second = time.monotonic() - started
            assert first == 401 and sorted(r.status for r in parallel) == [401] + [429] * 7
            assert took_first >= 0.5 and took_second >= 1.0, (took_first, took_second)
    run_served(test, wrong_pin_delay_s=0.5)
