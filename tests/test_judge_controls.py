"""The judge's own controls (issue 31, parts 2 and 4): the speaker's clock (``time ±S``,
``restart``, ``back``, ``hold``/``release``), notes, ``annul``/``stop`` with a reason and the
best player after the game — each journaled as a ``judge`` record, undone by ``undo``, refused
with a typed refusal when it makes no sense, replayed by a resumed journal, and sent from the
judge's phone as from the terminal."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from test_console import day_one
from test_web import Client, command, login, run_with_table

from voicehost.host import Director, EdgeLog, Journal, Ports, run_virtual
from voicehost.host.journal import load_journal
from voicehost.host.judging import judged_results
from voicehost.host.live import resume_game
from voicehost.host.notices import FloorChanged, Paused
from voicehost.records.games import record_from_journal, record_from_protocol
from voicehost.rules import Game, TableGame
from voicehost.rules.inputs import EndSpeech
from voicehost.rules.sport import SportGame
from voicehost.web import WebTable
from voicehost.web.commands import CommandError, check_command
from voicehost.web.view import TableView

HEADER = {"ruleset": "sport", "options": {}, "seats": 10, "level": "live"}
Step = tuple[float, str]   # (seconds into the session, a line typed then)


def journaled_day_one(path: Path) -> tuple[TableGame, Journal]:
    """day_one's game (seat 1 has the floor) with its journal, as a live table writes it."""
    game = day_one()
    journal = Journal(path, HEADER)
    for index, item in enumerate(game.inputs):
        journal.append(index, 0.0, "host", item)
    return game, journal


def host(game: Game, steps: list[Step], until: float, journal: Journal | None = None,
         seen: list[Any] | None = None) -> tuple[list[tuple[float, str]], Director]:
    """The director hosts ``game`` on the virtual clock; each step's line is typed at its
    time; returns (onset, line) of everything said, and the director."""
    said: list[tuple[float, str]] = []
    made: list[Director] = []

    async def session() -> None:
        loop = asyncio.get_running_loop()
        start = loop.time()

        async def speak(text: str) -> float:
            said.append((loop.time() - start, text))
            return loop.time()

        ports = Ports(speak=speak, night=lambda on: None, led=lambda s, p: None, edges=EdgeLog(), clock=loop.time,
                      poll_s=None)
        director = Director(game, ports, journal, log=lambda line: None)
        made.append(director)
        if seen is not None:
            director.watch(seen.append)
        hosting = asyncio.create_task(director.run())
        for at, line in steps:
            await asyncio.sleep(max(0.0, at - (loop.time() - start)))
            ports.type(line)
        await asyncio.sleep(max(0.0, until - (loop.time() - start)))
        hosting.cancel()
        await asyncio.gather(hosting, return_exceptions=True)

    run_virtual(session())
    return said, made[0]


def when(said: list[tuple[float, str]], text: str, after: float = 0.0) -> float:
    return next(t for t, line in said if line == text and t >= after)


THANKS, SEAT_TWO = "Спасибо.", "Игрок номер два, ваше слово."


def refused(director: Director) -> dict[str, str]:
    return dict(director.console.refused)


# ---- the speaker's clock -------------------------------------------------------------------------------

def test_time_plus_gives_the_speaker_thirty_more_seconds_and_undo_takes_them_back(tmp_path: Path) -> None:
    game, journal = journaled_day_one(tmp_path / "g.jsonl")
    said, _ = host(game, [(10, "time")], 120, journal)
    assert when(said, THANKS) == pytest.approx(90, abs=0.5)   # 60 s + 30: «Спасибо» at 90, not at 60
    assert "Время игрока номер один: плюс тридцать секунд." in [line for _, line in said]
    record = load_journal(journal.path).judged[0]
    assert (record["action"], record["seat"], record["seconds"], record["left"]) == ("time", 1, 30, 80)

    game, journal = journaled_day_one(tmp_path / "u.jsonl")
    said, _ = host(game, [(10, "time +30"), (20, "undo")], 120, journal)
    assert when(said, THANKS) == pytest.approx(60, abs=0.5)   # the 30 s taken back
    assert load_journal(journal.path).judged == [] and game.inputs.count(EndSpeech(1)) == 1


def test_time_minus_takes_time_off_and_more_than_is_left_is_refused() -> None:
    said, director = host(day_one(), [(10, "time -15"), (20, "time -90")], 120)
    assert when(said, THANKS) == pytest.approx(45, abs=0.5)
    assert refused(director)["time -90"] == "only 25 s are left: 90 s cannot be taken off (end the speech with end)"


def test_restart_gives_the_whole_time_again_and_undo_gives_back_what_was_left() -> None:
    said, _ = host(day_one(), [(40, "restart")], 150)
    assert when(said, THANKS) == pytest.approx(100, abs=0.5)   # 40 s in, then 60 s more
    said, _ = host(day_one(), [(40, "restart"), (45, "undo")], 150)
    assert when(said, THANKS) == pytest.approx(60, abs=0.5)


def test_back_gives_the_last_speaker_the_floor_with_the_time_he_had_and_undo_ends_it_again(tmp_path: Path) -> None:
    game, journal = journaled_day_one(tmp_path / "g.jsonl")
    said, _ = host(game, [(10, "end"), (15, "back")], 100, journal)
    back = when(said, "Игрок номер один, продолжайте.")
    assert back == pytest.approx(15, abs=0.5)
    assert when(said, THANKS, back) - back == pytest.approx(50, abs=0.5)   # the 50 s he had left
    read = load_journal(journal.path)
    assert [(r["action"], r["seat"], r["left"]) for r in read.judged] == [("back", 1, 50)]

    said, _ = host(day_one(), [(10, "end"), (15, "back"), (20, "undo")], 100)
    texts = [line for _, line in said]
    assert texts.count(SEAT_TWO) == 2 and when(said, SEAT_TWO, 19) == pytest.approx(20, abs=0.5)


def test_back_is_refused_once_the_next_speaker_has_done_something() -> None:
    said, director = host(day_one(), [(10, "end"), (15, "nominate 2 5"), (16, "back")], 30)
    assert refused(director)["back"].startswith("no speech to give back")


def test_hold_stops_one_speech_clock_without_pausing_the_game_and_release_runs_it_again() -> None:
    seen: list[Any] = []
    said, director = host(day_one(), [(10, "hold"), (100, "nominate 1 5"), (110, "release")], 200, seen=seen)
    assert when(said, THANKS) == pytest.approx(160, abs=0.5)   # 50 s left when held, run again at 110
    assert not any(isinstance(n, Paused) for n in seen)   # the game was never paused
    assert any(isinstance(n, FloorChanged) and n.held_left == pytest.approx(50, abs=0.5) for n in seen)
    assert isinstance(director.game, SportGame)
    assert director.game.nominations   # the game went on meanwhile: the nomination was taken


def test_the_clock_commands_are_refused_without_a_floor_and_hold_release_out_of_turn() -> None:
    said, director = host(day_one(), [(5, "release"), (6, "hold"), (7, "hold")], 10)
    reasons = refused(director)
    assert reasons["release"] == "the speaker's clock is not held"
    assert reasons["hold"] == "the speaker's clock is already held (release runs it again)"
    from test_console import console_at
    director, _, printed = console_at(day_one(), ["time +30", "restart", "back", "time 0", "time ++5"])
    reasons = refused(director)
    assert reasons["time +30"].startswith("nobody has the floor now") and reasons["restart"] == reasons["time +30"]
    assert reasons["back"].startswith("no speech to give back")
    assert reasons["time 0"] == reasons["time ++5"] == "usage: time +S"
    assert "Сейчас никто не говорит" in printed[0]


# ---- a resumed journal ----------------------------------------------------------------------------------

def crashed_after(steps: list[Step], at: float, path: Path) -> Path:
    """A live game's journal as a crash at ``at`` seconds leaves it."""
    game, journal = journaled_day_one(path)
    host(game, steps, at, journal)
    journal.close()
    return path


def resumed_thanks(path: Path, steps: list[Step] | None = None) -> tuple[list[tuple[float, str]], Director]:
    game, journal = resume_game(path)
    said, director = host(game, steps or [], 200, journal)
    journal.close()
    return said, director


@pytest.mark.parametrize(("steps", "thanks"), [
    ([(10, "time +30")], 80),                    # the time the judge gave: 80 s left
    ([(10, "time -20"), (20, "restart"), (25, "undo")], 30),   # the restart undone: the time it had then
    ([(10, "time -20"), (20, "undo")], None),    # undone: the speech's own time
    ([(10, "end"), (15, "back")], 50),           # seat 1's floor again, with his 50 s
])
def test_a_resumed_journal_gives_the_speech_the_time_the_judge_left_it(tmp_path: Path, steps: list[Step],
                                                                       thanks: int | None) -> None:
    path = crashed_after(steps, steps[-1][0] + 2, tmp_path / "g.jsonl")
    assert '"type": "judge"' in path.read_text()   # the judge's records are in the journal
    said, director = resumed_thanks(path)
    assert director.game.request is not None
    first = when(said, THANKS)
    assert first == pytest.approx(thanks if thanks is not None else 60, abs=0.5)


def test_a_resumed_held_speech_stays_held_until_release(tmp_path: Path) -> None:
    path = crashed_after([(10, "hold")], 12, tmp_path / "g.jsonl")
    said, _ = resumed_thanks(path, [(100, "release")])
    assert when(said, THANKS) == pytest.approx(150, abs=0.5)


def test_a_judge_record_that_is_not_one_refuses_the_journal(tmp_path: Path) -> None:
    from voicehost.rules import InputError
    path = crashed_after([(10, "time +30")], 12, tmp_path / "g.jsonl")
    lines = path.read_text().splitlines()
    assert json.loads(lines[-1])["type"] == "judge" and load_journal(path).judged[0]["action"] == "time"
    for broken in ({"action": "time", "seconds": "30"}, {"action": "shout"}, {"action": "undo", "undone": "note"},
                   {"extra": 1}):
        bad = tmp_path / "bad.jsonl"
        record = {**json.loads(lines[-1]), **broken}
        bad.write_text("\n".join([*lines[:-1], json.dumps(record)]) + "\n")
        with pytest.raises(InputError, match=f"bad.jsonl:{len(lines)}"):
            load_journal(bad)


def silent_ports() -> Ports:
    """Ports of a table with no voice, lamps or buttons, on the running loop's clock (call it
    inside the loop): a line is said the moment it is asked for."""
    loop = asyncio.get_running_loop()

    async def speak(text: str) -> float:
        return loop.time()
    return Ports(speak=speak, night=lambda on: None, led=lambda s, p: None, edges=EdgeLog(), clock=loop.time,
                 poll_s=None)


# ---- notes, a verdict, the best player ---------------------------------------------------------------------

def test_notes_are_journaled_undone_and_shown_to_the_judge_only(tmp_path: Path) -> None:
    game, journal = journaled_day_one(tmp_path / "g.jsonl")
    views: list[TableView] = []

    async def session() -> None:
        ports = silent_ports()
        director = Director(game, ports, journal, log=lambda line: None)
        view = TableView(director)
        director.watch(view.heard)
        views.append(view)
        for line in ["note 3 сам себе противоречит", "note 0 шумно за столом", "note 5 лишнее", "undo"]:
            ports.type(line)
        await director.console.run()

    run_virtual(session())
    view = views[0]
    notes = [{"seat": 3, "text": "сам себе противоречит"}, {"seat": 0, "text": "шумно за столом"}]
    shown = [{**note, "line": line} for note, line in zip(notes, ["Место 3: сам себе противоречит",
                                                                  "Игра: шумно за столом"], strict=True)]
    assert view.judge()["notes"] == shown    # each worded by the server ([web] tool_note_of_*)
    public = json.dumps(view.public(), ensure_ascii=False)
    assert "notes" not in view.public() and "противоречит" not in public and "шумно" not in public
    assert judged_results(journal.path)["notes"] == notes
    game2, journal2 = resume_game(journal.path)   # a resumed journal keeps them
    assert TableView(Director(game2, Ports(night=lambda on: None, led=lambda s, p: None, edges=EdgeLog()),
                              journal2, log=lambda line: None)).judge()["notes"] == shown
    journal2.close()


def test_notes_never_reach_the_public_web(tmp_path: Path) -> None:
    async def test(client: Client, table: WebTable, director: Director, journal: Path) -> None:
        csrf = await login(client)
        status, body = await command(client, csrf, "note 4 подсказывает жестами")
        assert status == 200, body
        public = await (await client.get("/api/state")).text()
        assert "подсказывает" not in public
        async with client.ws_connect("/ws") as ws:
            assert "подсказывает" not in (await ws.receive()).data
        judge = await (await client.get("/api/judge/state")).json()
        assert judge["notes"] == [{"seat": 4, "text": "подсказывает жестами", "line": "Место 4: подсказывает жестами"}]
    run_with_table(test, tmp_path)


@pytest.mark.parametrize("result", ["annul", "stop"])
def test_annul_or_stop_ends_the_game_with_its_reason_and_who_said_it(tmp_path: Path, result: str) -> None:
    game, journal = journaled_day_one(tmp_path / "g.jsonl")
    said, director = host(game, [(10, f"{result} игрок ушёл из-за стола")], 60, journal)
    texts = [line for _, line in said]
    assert ("Игра аннулирована." if result == "annul" else "Игра остановлена.") in texts
    assert THANKS not in texts and SEAT_TWO not in texts   # the host plays no further
    assert game.inputs.count(EndSpeech(1)) == 0 and director.console.stopped
    added = judged_results(journal.path)
    verdict = {"result": "annulled" if result == "annul" else "stopped", "reason": "игрок ушёл из-за стола",
               "by": "console"}
    assert added["verdict"] == verdict and added["result"] == verdict["result"]


def test_undo_takes_a_verdict_back_and_a_second_verdict_is_refused(tmp_path: Path) -> None:
    from test_console import console_at
    director, _, _ = console_at(day_one(), ["annul x", "stop y", "undo", "stop z"])
    assert refused(director)["stop y"] == "the game is annulled or stopped already (undo takes that back)"
    assert director.console.controls.verdict == {"result": "stopped", "reason": "z", "by": "console"}
    director, _, _ = console_at(day_one(), ["annul", "note 3", "note 11 x"])
    reasons = refused(director)
    assert reasons["annul"] == "usage: annul reason" and reasons["note 3"] == "usage: note N text"
    assert reasons["note 11 x"].startswith("there is no seat 11")


def test_an_annulled_game_is_kept_by_the_records_but_never_rated(tmp_path: Path) -> None:
    from voicehost.records.ratings import ratings
    from voicehost.records.store import open_records
    game, journal = journaled_day_one(tmp_path / "g.jsonl")
    host(game, [(10, "annul договорной")], 30, journal)
    journal.close()
    record = record_from_journal(journal.path)
    assert record.winner is None and record.reason == "annulled" and not any(s.won for s in record.seats)
    assert record.protocol["verdict"]["reason"] == "договорной"
    finished = json.loads((Path(__file__).parent / "scripts" / "sport-repeat-tie-four-vote.expect.json").read_text())
    names = {str(seat): f"P{seat}" for seat in range(1, 11)}
    for seat, entry in finished["seats"].items():
        entry["name"] = names[seat]
    rated = record_from_protocol(finished, "f", record.played_at)
    annulled = record_from_protocol({**finished, "result": "annulled", "started": "2026-12-01T19:00:00Z",
                                     "verdict": {"result": "annulled", "reason": "r", "by": "web"}}, "a",
                                    record.played_at)
    assert annulled.winner is None and rated.winner is not None
    with open_records(f"sqlite:///{tmp_path / 'r.sqlite'}") as db:
        db.add([rated, annulled])
        assert {g.reason for g in db.games()} >= {"annulled"}      # visible in the history
        table = {r.player: r.games for r in ratings(db.seat_rows())}
        assert table and set(table.values()) == {1}                 # … and counted once: not the annulled one


def test_best_after_the_game_at_run_is_journaled_and_reaches_the_protocol(tmp_path: Path) -> None:
    from test_console import console_at
    director, _, _ = console_at(day_one(), ["best 4"])
    assert refused(director)["best 4"].startswith("the best player is voted after the game")
    path = tmp_path / "g.jsonl"
    game, journal = journaled_day_one(path)
    for seat in (3, 5, 9):   # the three black seats out: the game is over
        from voicehost.rules.inputs import Remove
        game.push(Remove(seat, "host"))
        journal.append(len(game.inputs) - 1, 0.0, "console", game.inputs[-1])
    assert game.is_over
    chosen: list[bool] = []

    async def session() -> None:
        ports = silent_ports()
        director = Director(game, ports, journal, log=lambda line: None)
        ports.type("foul 2")
        ports.type("best 11")
        ports.type("best 4")
        chosen.append(await director.after_game(2.0))
        assert dict(director.console.refused)["foul 2"] == "the game is over"

    run_virtual(session())
    assert chosen == [False]
    assert load_journal(path).header["best_player"] == 4
    assert judged_results(path)["best_player"] == 4


def test_the_phone_sends_the_judge_commands_in_the_console_own_words(tmp_path: Path) -> None:
    assert check_command("time", 10) == "time +30" and check_command("time   -15", 10) == "time -15"
    assert check_command("note 3  говорит  долго", 10) == "note 3 говорит долго"
    assert check_command("annul  договорной", 10) == "annul договорной" and check_command("best 4", 10) == "best 4"
    for bad in ("time abc", "note", "note x text", "stop", "hold 3", "best"):
        with pytest.raises(CommandError):
            check_command(bad, 10)

    async def test(client: Client, table: WebTable, director: Director, journal: Path) -> None:
        csrf = await login(client)
        while director.timer.request is None:   # the morning is said first; then seat 1 has the floor
            await asyncio.sleep(0.05)
        for line in ("time +30", "hold", "release", "restart", "time -10"):
            status, body = await command(client, csrf, line)
            assert status == 200, (line, body)
        status, body = await command(client, csrf, "release")
        assert status == 409 and body["error"] == "Время игрока не остановлено."
        status, body = await command(client, csrf, "undo")
        assert status == 200
        actions = [r["action"] for r in load_journal(journal).judged]
        assert actions == ["time", "hold", "release", "restart"]
        status, body = await command(client, csrf, "stop судья устал")
        assert status == 200
        assert load_journal(journal).judged[-1]["by"] == "web"
    run_with_table(test, tmp_path)


def test_the_judge_page_loads_the_judge_tools_with_a_logout_button(tmp_path: Path) -> None:
    async def test(client: Client, table: WebTable, director: Director, journal: Path) -> None:
        page = await (await client.get("/judge")).text()
        assert page.count('<script src="/static/judge-tools.js"></script>') == 1
        tools = await client.get("/static/judge-tools.js")
        script = await tools.text()
        assert tools.status == 200 and "/api/logout" in script and "logout-button" in script
        assert 'addEventListener("voicehost:state"' in script, "drawn from the page hook, never polled"
        tools = table.judge_state()["tools"]   # the controls the script draws, with their [web] texts
        from voicehost.host import REGISTRY  # each command's declared button, in the registry's order
        assert [b["command"] for b in tools["buttons"]] == [b.line for c in REGISTRY.values() for b in c.buttons]
        assert [b["command"] for b in tools["buttons"]][:2] == ["time +30", "time -10"]
        assert [f["command"] for f in tools["forms"]] == ["note", "best", "annul", "stop"], "sport, options off"
    run_with_table(test, tmp_path)


def test_voicehost_run_asks_for_the_best_player_after_the_game(tmp_path: Path) -> None:
    """A real ``voicehost run``: the blacks removed, the game over, the terminal asks for the
    best player; «best 4» typed then is in the journal and the protocol. (At speed 10 the ask
    waits 12 s; the test types as soon as it reads the ask.)"""
    import os
    import subprocess
    import sys
    import time
    table = Path(__file__).resolve().parent.parent / "config" / "tables" / "ten-seats.toml"
    process = subprocess.Popen(
        [sys.executable, "-m", "voicehost", "run", "--mock", "--no-ears", "--audio", "off", "--speed", "10",
         "--rules", "sport", "--table", str(table), "--roles", "3=don,5=mafia,9=mafia,7=sheriff",
         "--journal", "game.jsonl"], cwd=tmp_path, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, env={**os.environ, "VOICEHOST_LANG": "en"})
    assert process.stdin is not None and process.stderr is not None
    process.stdin.write(b"remove 3\nremove 5\nremove 9\n")
    process.stdin.flush()
    shown, deadline = b"", time.monotonic() + 120
    while b"best N" not in shown and time.monotonic() < deadline:
        line = process.stderr.readline()
        if not line:
            break
        shown += line
    assert b"type \xc2\xabbest N\xc2\xbb" in shown, shown.decode(errors="replace")[-2000:]
    process.stdin.write(b"best 4\n")
    process.stdin.flush()
    _, err = process.communicate(timeout=60)
    assert process.returncode == 0, err.decode(errors="replace")[-2000:]
    protocol = json.loads((tmp_path / "game.protocol.json").read_text())
    assert protocol["best_player"] == 4 and protocol["winner"] == "red"
    assert load_journal(tmp_path / "game.jsonl").header["best_player"] == 4


def test_after_a_verdict_at_run_undo_takes_it_back_and_the_game_goes_on(tmp_path: Path) -> None:
    game, journal = journaled_day_one(tmp_path / "g.jsonl")
    outcome: list[bool] = []

    async def session() -> None:
        ports = silent_ports()
        director = Director(game, ports, journal, log=lambda line: None)
        ports.type("stop свет погас")
        await director.run()   # the verdict: the host plays no further
        assert director.console.stopped and game.request is not None
        ports.type("foul 2")
        ports.type("undo")
        outcome.append(await director.after_game(2.0))
        assert dict(director.console.refused)["foul 2"].startswith("the game is annulled or stopped already")

    run_virtual(session())
    assert outcome == [True]   # the game goes on
    assert [r["action"] for r in load_journal(journal.path).judged] == []
