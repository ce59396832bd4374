"""The web console's contract: the public state, the judge's login, session and CSRF, commands
through the director's console path, and malformed requests that never reach the game."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestClient, TestServer

from voicehost.config import load_ruleset
from voicehost.host import Director, EdgeLog, Journal, Ports, read_journal
from voicehost.host.dealing import typed_deal
from voicehost.rules import new_game
from voicehost.rules.inputs import Dawn
from voicehost.simulation.table_level import VirtualVoice
from voicehost.web import WebTable, parse_address
from voicehost.web.commands import CommandError, check_command
from voicehost.web.server import MAX_BODY, SESSION_COOKIE

PIN = "4821"
ROLES = "3=don,5=mafia,9=mafia,7=sheriff"


def day_one(journal: Path) -> tuple[Director, Journal]:
    """A sport game on the first speech of day 1, its director on the running loop's clock."""
    ruleset = load_ruleset("sport")
    game = new_game(ruleset, ruleset.resolve({}), 10)
    log = Journal(journal, {"ruleset": "sport", "options": {}, "seats": 10, "level": "live"})
    for index, item in enumerate([typed_deal(ROLES, game, "roles"), Dawn()]):
        game.push(item)
        log.append(index, 0.0, "test", item)
    loop = asyncio.get_running_loop()
    ports = Ports(night=lambda on: None, led=lambda seat, pattern: None, edges=EdgeLog(),
                  speak=VirtualVoice(50).speak, clock=loop.time, speed=1.0, poll_s=None)
    return Director(game, ports, log, log=lambda line: None), log


def run_with_table(test: Callable[[TestClient, WebTable, Director, Path], Awaitable[None]], tmp_path: Path,
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


async def login(client: TestClient) -> str:
    reply = await client.post("/api/login", json={"pin": PIN})
    assert reply.status == 200
    return str((await reply.json())["csrf"])


async def command(client: TestClient, csrf: str, line: Any) -> tuple[int, dict[str, Any]]:
    reply = await client.post("/api/judge/command", json={"command": line}, headers={"X-CSRF-Token": csrf})
    return reply.status, await reply.json()


def journaled(journal: Path) -> list[str]:
    return [entry.input.kind for entry in read_journal(str(journal))[1]]


# ---- the public state ------------------------------------------------------------------------------

def test_public_state_has_the_table_and_no_roles(tmp_path: Path) -> None:
    async def test(client: TestClient, table: WebTable, director: Director, journal: Path) -> None:
        await asyncio.sleep(0.2)   # the host gives the floor to seat 1
        state = await (await client.get("/api/state")).json()
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
    async def test(client: TestClient, table: WebTable, director: Director, journal: Path) -> None:
        state = await (await client.get("/api/state")).json()
        assert state["phase"]["kind"] == "waiting" and state["seats"] == []
        status, body = await command(client, await login(client), "foul 3")
        assert status == 409 and body["error"] == "Игра ещё не началась."
    run_with_table(test, tmp_path, attach=False)


def test_the_websocket_sends_the_whole_state_on_connect_and_every_change(tmp_path: Path) -> None:
    async def test(client: TestClient, table: WebTable, director: Director, journal: Path) -> None:
        ws = await client.ws_connect("/ws")
        first = json.loads((await ws.receive()).data)
        assert first["type"] == "state" and len(first["state"]["seats"]) == 10
        status, _ = await command(client, await login(client), "foul 4")
        assert status == 200
        while True:   # the foul arrives in a later message
            message = json.loads((await asyncio.wait_for(ws.receive(), 5)).data)
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
    async def test(client: TestClient, table: WebTable, director: Director, journal: Path) -> None:
        assert (await client.get("/api/judge/state")).status == 401
        assert (await client.post("/api/judge/command", json={"command": "foul 3"})).status == 401
        assert (await client.get("/ws/judge")).status == 401
        body = await (await client.get("/api/judge/state")).json()
        assert body == {"error": "Нужен вход судьи: введите PIN."}
    run_with_table(test, tmp_path)


def test_login_sets_an_httponly_cookie_and_the_judge_sees_the_cards(tmp_path: Path) -> None:
    async def test(client: TestClient, table: WebTable, director: Director, journal: Path) -> None:
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
    async def test(client: TestClient, table: WebTable, director: Director, journal: Path) -> None:
        for _ in range(3):
            reply = await client.post("/api/login", json={"pin": "0000"})
            assert reply.status == 401 and (await reply.json())["error"] == "Неверный PIN."
        locked = await client.post("/api/login", json={"pin": PIN})   # even the right one waits now
        assert locked.status == 429 and "подождите" in (await locked.json())["error"]
        assert (await client.get("/api/judge/state")).status == 401
    run_with_table(test, tmp_path)


def test_a_command_without_the_csrf_token_is_refused(tmp_path: Path) -> None:
    async def test(client: TestClient, table: WebTable, director: Director, journal: Path) -> None:
        await login(client)
        before = journaled(journal)
        status, body = await command(client, "forged", "foul 3")
        assert status == 403 and "CSRF" in body["error"]
        reply = await client.post("/api/judge/command", json={"command": "foul 3"})
        assert reply.status == 403
        assert journaled(journal) == before
    run_with_table(test, tmp_path)


def test_a_post_from_another_origin_is_refused(tmp_path: Path) -> None:
    async def test(client: TestClient, table: WebTable, director: Director, journal: Path) -> None:
        reply = await client.post("/api/login", json={"pin": PIN}, headers={"Origin": "http://evil.example"})
        assert reply.status == 403
    run_with_table(test, tmp_path)


# ---- commands ------------------------------------------------------------------------------------------

def test_a_foul_goes_through_the_console_path_and_the_journal(tmp_path: Path) -> None:
    async def test(client: TestClient, table: WebTable, director: Director, journal: Path) -> None:
        csrf = await login(client)
        status, body = await command(client, csrf, "foul   3")
        assert status == 200 and body["command"] == "foul 3" and body["answer"].startswith("Готово.")
        assert director.game.fouls[3] == 1
        assert journaled(journal)[-1] == "foul"
        entry = read_journal(str(journal))[1][-1]
        assert entry.source == "console"
        state = await (await client.get("/api/judge/state")).json()
        assert state["answers"][-1] == {"id": body["id"], "command": "foul 3", "ok": True, "outcome": "done",
                                        "answer": "Готово."}
    run_with_table(test, tmp_path)


def test_a_command_the_game_refuses_gets_a_russian_reason_and_is_not_journaled(tmp_path: Path) -> None:
    async def test(client: TestClient, table: WebTable, director: Director, journal: Path) -> None:
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
    async def test(client: TestClient, table: WebTable, director: Director, journal: Path) -> None:
        csrf = await login(client)
        assert (await command(client, csrf, "pause"))[0] == 200
        assert (await (await client.get("/api/state")).json())["paused"] is True
        status, body = await command(client, csrf, "pause")
        assert status == 409 and body["error"] == "Игра уже на паузе."
        status, body = await asyncio.wait_for(command(client, csrf, "foul 2"), 2.0)  # answered at once: held
        assert status == 202 and body["outcome"] == "held" and "«Продолжить»" in body["answer"]
        assert director.game.fouls[2] == 0                              # held until resume, as at the terminal
        assert (await command(client, csrf, "resume"))[0] == 200
        await asyncio.sleep(0.2)
        assert director.game.fouls[2] == 1
        state = await (await client.get("/api/judge/state")).json()
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
    async def test(client: TestClient, table: WebTable, director: Director, journal: Path) -> None:
        csrf = await login(client)
        before, inputs = journaled(journal), list(director.game.inputs)
        reply = await client.post("/api/judge/command", data=body,
                                  headers={"X-CSRF-Token": csrf, "Content-Type": "application/json"})
        answer = await reply.json()
        assert reply.status == status and answer["error"].startswith(error) and "\n" not in answer["error"]
        assert director.ports.console.empty() and journaled(journal) == before and director.game.inputs == inputs
    run_with_table(test, tmp_path)


def test_not_json_and_unknown_urls_are_one_line_too(tmp_path: Path) -> None:
    async def test(client: TestClient, table: WebTable, director: Director, journal: Path) -> None:
        reply = await client.post("/api/login", data="pin=1", headers={"Content-Type": "text/plain"})
        assert reply.status == 415 and "JSON" in (await reply.json())["error"]
        reply = await client.get("/api/nothing")
        assert reply.status == 404 and (await reply.json()) == {"error": "Нет такой страницы."}
        reply = await client.get("/api/login")
        assert reply.status == 405
    run_with_table(test, tmp_path)


def test_cards_that_do_not_fit_are_refused_by_the_game_and_not_journaled(tmp_path: Path) -> None:
    async def test(client: TestClient, table: WebTable, director: Director, journal: Path) -> None:
        csrf = await login(client)
        before = journaled(journal)
        status, body = await command(client, csrf, "roles 3=don;drop")
        assert status == 409 and body["error"].startswith("Карты не подходят") and "\n" not in body["error"]
        assert journaled(journal) == before and director.game.roles[3].value == "don"
    run_with_table(test, tmp_path)


def test_the_pages_and_their_assets_are_served_locally(tmp_path: Path) -> None:
    async def test(client: TestClient, table: WebTable, director: Director, journal: Path) -> None:
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
    async def test(client: TestClient, table: WebTable, director: Director, journal: Path) -> None:
        csrf = await login(client)
        await asyncio.sleep(0.2)   # seat 1 has the floor: seat 2 has not spoken yet
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
    async def test(client: TestClient, table: WebTable, director: Director, journal: Path) -> None:
        await asyncio.sleep(0.2)   # seat 1 has the floor: the console is read at once
        director.ports.type("remove 4")
        status, *answer = await table.command("remove 4")   # queued behind the terminal's line
        assert status == 409 and answer[1] == "Игрок 4 уже не за столом."
        assert journaled(journal).count("remove") == 1
    run_with_table(test, tmp_path)


def test_each_request_gets_the_answer_to_its_own_line(tmp_path: Path) -> None:
    """The same words typed at the terminal and sent from the phone, both held by a pause: after
    «resume» the terminal's is done and the phone's refused. Answers were matched by the text,
    so the phone got the terminal's «Готово.»; now each answer names its line's id."""
    async def test(client: TestClient, table: WebTable, director: Director, journal: Path) -> None:
        csrf = await login(client)
        assert (await command(client, csrf, "pause"))[0] == 200
        terminal = director.ports.type("remove 4")
        status, body = await asyncio.wait_for(command(client, csrf, "remove 4"), 2.0)
        assert status == 202 and body["outcome"] == "held" and body["id"] != terminal
        assert (await command(client, csrf, "resume"))[0] == 200
        await asyncio.sleep(0.2)
        answers = {(a["id"], a["outcome"]): a["answer"]
                   for a in (await (await client.get("/api/judge/state")).json())["answers"]}
        assert answers[terminal, "done"] == "Готово."
        assert answers[body["id"], "refused"] == "Игрок 4 уже не за столом."
        assert journaled(journal).count("remove") == 1
    run_with_table(test, tmp_path)


def test_web_address() -> None:
    assert parse_address("0.0.0.0:8080") == ("0.0.0.0", 8080)
    assert parse_address(":9000") == ("0.0.0.0", 9000)
    with pytest.raises(ValueError):
        parse_address("localhost")


def test_bad_web_arguments_are_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    from voicehost.cli.main import main

    script = str(Path(__file__).resolve().parents[1] / "examples" / "sport-sample.json")
    assert main(["simulate", script, "--level", "table", "--web", "localhost"]) == 2
    assert capsys.readouterr().err == "voicehost: error: --web: 'localhost' is not HOST:PORT (e.g. 0.0.0.0:8080)\n"
    assert main(["simulate", script, "--web", "127.0.0.1:0"]) == 2
    assert "add --level table" in capsys.readouterr().err
    assert main(["simulate", script, "--level", "table", "--web", ":0", "--web-pin", "12"]) == 2
    assert capsys.readouterr().err == "voicehost: error: --web-pin: must be 4 to 12 digits\n"


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
    from voicehost.language.phrasebook import load_phrasebook
    from voicehost.rules.events import PRIVATE_EVENTS
    from voicehost.simulation.engine_level import simulate
    from voicehost.simulation.script import script_from_data
    from voicehost.simulation.scriptgen import random_script
    from voicehost.web.view import LOG_TAIL, _last_lines

    book = load_phrasebook()
    longest = 0
    for ruleset in ("sport", "club", "classic", "canonical"):
        game = simulate(script_from_data(random_script(ruleset, 3))).game
        longest = max(longest, len(list(narrate(game.events, book))))
        for end in range(len(game.events) + 1):
            events = game.events[:end]
            public = [e for e in events if not isinstance(e, PRIVATE_EVENTS)]
            assert _last_lines(public, book, game.names) == public_lines(public, book, game.names)[-LOG_TAIL:]
            assert _last_lines(events, book, game.names) == list(narrate(events, book, game.names))[-LOG_TAIL:]
    assert longest > LOG_TAIL, "a game longer than the tail"
