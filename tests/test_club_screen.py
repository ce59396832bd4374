"""The tournament screen (voicehost.web.club) fed by the tables' reporters (voicehost.web.reporter).

The evening test: three simulated tables (table-level games on a fast clock, each with its own
reporter and its own WebSocket) play at once and report to one club server whose standings come
from a real PostgreSQL (a throwaway cluster); Debian's chromium reads the page. The page must
show each table's phases and speakers changing, table 2 — killed in the middle of its game —
as dropped off and then live again when it is started anew, and every finished game in the
standings, with the points the protocols give. The quicker tests: a dead club server costs a
table nothing and is found again by itself; a report's fields beyond the public ones never
reach the page; no browser page can pose as a table.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import socket
import tempfile
import time
import uuid
from collections import defaultdict
from collections.abc import AsyncIterator, Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from browsers import start_chrome

from voicehost.cli.tournament_screen import season_standings
from voicehost.i18n import _ as translated
from voicehost.records.pgcluster import Cluster, postgres_bin
from voicehost.records.table import record_finished_game
from voicehost.rules.protocol import build_protocol
from voicehost.simulation.engine_level import Simulation, simulate
from voicehost.simulation.script import Script, script_from_data
from voicehost.simulation.scriptgen import random_script
from voicehost.simulation.table_level import TableRun, VirtualVoice, play_table
from voicehost.web.club import Board, ClubScreen, read_report
from voicehost.web.reporter import ClubReporter, TablePlace, club_socket_url

CHROMIUM, DRIVER = shutil.which("chromium"), shutil.which("chromedriver")
SPEED = 80.0          # each table's timers and voice, this many times faster than real
DROP_S = 2.0          # the screen's silence before a table shows as dropped
TOURNAMENT = "Кубок клуба"
WOMEN = ("Анна", "Вера", "Дина", "Жанна", "Ирина")
PLAYERS = [f"{first} {last}а" if first in WOMEN else f"{first} {last}" for last in ("Орлов", "Волков", "Соколов")
           for first in ("Анна", "Борис", "Вера", "Глеб", "Дина", "Егор", "Жанна", "Захар", "Ирина", "Кирилл")]
ROLES = ("дон", "мафия", "шериф", "мирный")


def table_script(table: int, seed: int) -> Script:
    """A sport game the engine finishes, seated with the table's ten players of the round."""
    while True:
        data = random_script("sport", seed)
        data["names"] = {str(seat): PLAYERS[(table - 1) * 10 + seat - 1] for seat in range(1, 11)}
        script = script_from_data(data)
        if simulate(script).game.is_over:
            return script
        seed += 1000


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def play_reporting(table: int, script: Script, club: str, speed: float = SPEED,
                         on_reporter: Callable[[ClubReporter], None] = lambda r: None,
                         hang_in_the_day: asyncio.Event | None = None) -> Simulation:
    """One table's game with its reporter, as ``voicehost run --club-server`` wires it.

    With ``hang_in_the_day`` the table's voice stops returning once its day has begun (the event
    is set then): a process stuck in the middle of its game, whose game cannot end before the test
    kills it, however busy the machine."""
    reporter = ClubReporter(club_socket_url(club), TablePlace(TOURNAMENT, 1, str(table), f"club-table-{table}"),
                            log_line=lambda line: None)
    on_reporter(reporter)
    voice = VirtualVoice(speed)

    async def speak(text: str) -> float:
        if hang_in_the_day is not None and reporter.state()["phase"]["kind"] == "day":
            hang_in_the_day.set()
            await asyncio.Event().wait()   # until cancelled
        return await voice.speak(text)

    @asynccontextmanager
    async def around(director: Any) -> AsyncIterator[None]:
        reporter.follow(director)
        reporter.start()
        ended = False
        try:
            yield
            ended = True
        finally:
            if ended:
                reporter.finish()
            await reporter.stop(flush_s=1.0 if ended else 0.0)   # killed: nothing more is sent
    return await play_table(script, how=TableRun(speak=speak, speed=speed, around=around))


def store(result: Simulation, table: int, url: str) -> dict[str, Any]:
    """The finished game into the club's records, as the table's protocol hook does."""
    protocol = build_protocol(result.game, result.ignored, result.script.names)
    assert record_finished_game(protocol, f"table-{table}-{uuid.uuid4().hex[:6]}.protocol.json",
                                table=f"club-table-{table}", db=url, log=lambda line: None)
    return protocol


# ---- without a browser ---------------------------------------------------------------------------

def test_a_dead_club_server_costs_the_table_nothing_and_is_found_again() -> None:
    async def evening() -> tuple[float, float, ClubReporter, dict[str, Any]]:
        port = free_port()
        script = table_script(1, 5)
        started = time.monotonic()
        alone = await play_table(script, how=TableRun(speak=VirtualVoice(SPEED).speak, speed=SPEED))
        alone_s = time.monotonic() - started
        assert alone.game.is_over
        reporters: list[ClubReporter] = []
        started = time.monotonic()
        game = asyncio.create_task(play_reporting(1, script, f"http://127.0.0.1:{port}", on_reporter=reporters.append))
        await asyncio.sleep(2.0)   # the club server is down: the reporter keeps failing, the game goes on
        assert not reporters[0].connected and not game.done()
        screen = ClubScreen()
        await screen.start("127.0.0.1", port)
        try:
            result = await game
            reported_s = time.monotonic() - started
            board = screen.state()
        finally:
            await screen.stop()
        assert result.game.is_over
        return alone_s, reported_s, reporters[0], board

    alone_s, reported_s, reporter, board = asyncio.run(evening())
    assert reported_s < alone_s * 1.5 + 3.0, f"the game took {reported_s:.1f} s with a dead club, {alone_s:.1f} s alone"
    assert reporter.sent > 0, "the reporter found the club server once it came up"
    (table,) = board["tables"]
    assert table["table"] == "1" and table["round"] == 1 and table["state"]["phase"]["kind"] == "over"


def test_only_public_fields_of_a_report_reach_the_page() -> None:
    report = {"type": "report", "tournament": TOURNAMENT, "round": 2, "table": "3", "seq": 7, "t": time.time(),
              "state": {"phase": {"kind": "night", "number": 1, "text": "Ночь 1"}, "roles": {"1": "дон"},
                        "seats": [{"seat": 1, "name": "Анна", "alive": True, "fouls": 1, "role": "don"}],
                        "night_log": ["Дон проверил игрока 3"], "speaker": None}}
    shown = read_report(json.dumps(report, ensure_ascii=False))
    assert set(shown["state"]) == {"phase", "speaker", "seats", "nominations", "result", "paused", "speed",
                                   "finished"}
    assert shown["state"]["seats"] == [{"seat": 1, "name": "Анна", "alive": True, "fouls": 1}]
    assert "дон" not in json.dumps(shown, ensure_ascii=False).lower()


def test_a_browser_page_cannot_pose_as_a_table() -> None:
    async def attempt() -> tuple[int, dict[str, Any]]:
        screen = ClubScreen()
        base = await screen.start("127.0.0.1", 0)
        try:
            async with aiohttp.ClientSession() as http:
                with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
                    await http.ws_connect(base.replace("http", "ws", 1) + "/ws/table",
                                          headers={"Origin": "http://evil.example"})
                async with http.get(base + "/api/board") as answer:
                    return refused.value.status, await answer.json()
        finally:
            await screen.stop()

    status, board = asyncio.run(attempt())
    assert status == 403 and board["tables"] == []


def real_report(table: str, seq: int, speaker: int, result: str | None = None) -> dict[str, Any]:
    """A report as a table's reporter sends it: seat ``speaker`` speaks with 41.5 s left."""
    return {"type": "report", "tournament": TOURNAMENT, "round": 2, "table": table, "records_table": f"club-{table}",
            "seq": seq, "t": time.time(), "beat": False,
            "state": {"phase": {"kind": "day", "number": 1, "text": "День 1"},
                      "speaker": {"seat": speaker, "name": "Анна", "turn_text": "речь", "seconds": 60, "left": 41.5},
                      "seats": [{"seat": n, "name": f"игрок {n}", "alive": True, "fouls": 0} for n in range(1, 11)],
                      "nominations": [], "result": result, "paused": False, "speed": 1.0, "finished": False}}


def hostile_reports() -> list[tuple[str, list[str]]]:
    """Each hostile report of issue 42 (and a few more), as the raw text a program can send."""
    forged = real_report("1", 10**17, 9, "Победа мафии")
    text = json.dumps(real_report("1", 3, 9, "Победа мафии"), ensure_ascii=False)
    deep = 8
    nested: Any = 1
    for _ in range(deep + 1):
        nested = [nested]
    return [
        ("Infinity", [text.replace('"left": 41.5', '"left": Infinity')]),
        ("NaN", [text.replace('"left": 41.5', '"left": NaN')]),
        ("1e999", [text.replace('"left": 41.5', '"left": 1e999')]),
        ("t Infinity", [json.dumps({**real_report("3", 1, 2), "t": float("inf")})]),
        ("a table named ²", [json.dumps(real_report("²", 1, 2), ensure_ascii=False)]),
        ("a table named 1²", [json.dumps(real_report("1²", 1, 2), ensure_ascii=False)]),
        ("30,000 deep", ["[" * 30_000 + "]" * 30_000]),
        ("9 deep", [json.dumps({**real_report("3", 1, 2), "extra": nested})]),
        ("seq 1e17", [json.dumps(forged, ensure_ascii=False)]),
        ("t 1e17", [json.dumps({**real_report("1", 3, 9, "Победа мафии"), "t": 1e17}, ensure_ascii=False)]),
        ("seats not a list", [json.dumps({**real_report("3", 1, 2), "state": {"seats": 5, "nominations": 7}})]),
        ("a seat of 10**30", [json.dumps(real_report("3", 1, 10**30))]),
        ("another connection's table 1", [text]),
        ("5,000 tables", [json.dumps(real_report(f"x{n}", 1, 2)) for n in range(5000)]),
    ]


@pytest.mark.parametrize(("name", "texts"), hostile_reports(), ids=[name for name, _ in hostile_reports()])
def test_no_report_breaks_the_board(name: str, texts: list[str], caplog: pytest.LogCaptureFixture) -> None:
    """Two real tables report; a hostile program (with the key: the check is the report's own)
    sends one kind of bad report over its own socket. The board stays strict JSON (no NaN, no
    Infinity) on /api/board and /ws, the real tables' cards stay as they reported them, no
    more than the screen's tables are shown, and the refusal is one log line with no traceback."""
    def strict(text: str) -> Any:
        return json.loads(text, parse_constant=lambda word: pytest.fail(f"{word} in the board"))

    async def evening() -> tuple[dict[str, Any], dict[str, Any], int]:
        screen = ClubScreen(tournament=TOURNAMENT, club_key="kubok", max_tables=4)
        base = await screen.start("127.0.0.1", 0)
        key = {"Authorization": "Bearer kubok"}
        url = base.replace("http", "ws", 1) + "/ws/table"
        try:
            async with aiohttp.ClientSession() as http:
                tables = [await http.ws_connect(url, headers=key) for _ in range(2)]
                for table, ws in zip(("1", "2"), tables, strict=True):
                    await ws.send_str(json.dumps(real_report(table, 2, int(table) + 3), ensure_ascii=False))
                viewer = await http.ws_connect(base.replace("http", "ws", 1) + "/ws")
                await viewer.receive()
                async with http.ws_connect(url, headers=key) as hostile:
                    for text in texts:
                        await hostile.send_str(text)
                    await asyncio.sleep(0.5)
                for ws in tables:   # the tables go on beating: their cards stay theirs
                    await ws.send_str(json.dumps(real_report(ws is tables[0] and "1" or "2", 2,
                                                             ws is tables[0] and 4 or 5), ensure_ascii=False))
                await asyncio.sleep(0.3)
                async with http.get(base + "/api/board") as answer:
                    assert answer.status == 200
                    board = strict(await answer.text())
                pushed: dict[str, Any] = {}
                while True:   # the last board the page was sent
                    try:
                        message = await asyncio.wait_for(viewer.receive(), 0.3)
                    except TimeoutError:
                        break
                    pushed = strict(message.data)["board"]
                for ws in [*tables, viewer]:
                    await ws.close()
            return board, pushed, len(screen.tables)
        finally:
            await screen.stop()

    board, pushed, shown = asyncio.run(evening())
    for seen in (board, pushed):
        cards = {table["table"]: table["state"] for table in seen["tables"]}
        assert cards["1"]["speaker"]["seat"] == 4 and cards["1"]["result"] is None, cards["1"]
        assert cards["2"]["speaker"]["seat"] == 5 and cards["1"]["speaker"]["left"] == 41.5
    assert shown <= 4
    # A table of the hostile burst that goes silent while a busy machine reads the rest is dropped
    # off in a line of its own: that is the sweep's doing, not a second refusal.
    dropped = translated("club: table %s dropped off (no report for %.0f s)")
    refused = [r for r in caplog.records if r.name == "voicehost.web.club" and r.msg != dropped]
    taken = name == "seats not a list"   # read as no seats: a card with nothing wrong to show
    assert len(refused) == (0 if taken else 1), [r.getMessage() for r in refused]
    assert not [r for r in caplog.records if r.exc_info], "a traceback in the log"


def test_the_tournaments_own_table_count_caps_the_screen_and_silent_tables_are_forgotten(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The schedule says 2 tables: a third is refused (not the screen's own larger default); a
    table silent for FORGET_S leaves the screen and frees its place."""
    from voicehost.web import club

    monkeypatch.setattr(club, "FORGET_S", 1.5)

    async def evening() -> tuple[list[str], list[str], list[str]]:
        screen = ClubScreen(standings=lambda tournament, tables, /: Board(tables=2), tournament=TOURNAMENT,
                            refresh_s=0.1)
        base = await screen.start("127.0.0.1", 0)
        url = base.replace("http", "ws", 1) + "/ws/table"
        try:
            async with aiohttp.ClientSession() as http:
                await asyncio.sleep(0.3)   # the provider has been asked: the count is known
                sockets = [await http.ws_connect(url) for _ in range(3)]
                for number, ws in enumerate(sockets, 1):
                    await ws.send_str(json.dumps(real_report(str(number), 1, 2), ensure_ascii=False))
                await asyncio.sleep(0.3)
                capped = sorted(t.table for t in screen.tables.values())
                await sockets[0].send_str(json.dumps(real_report("1", 2, 3), ensure_ascii=False))
                await asyncio.sleep(1.0)
                await sockets[0].send_str(json.dumps(real_report("1", 3, 3), ensure_ascii=False))
                await asyncio.sleep(1.0)   # table 2 silent for 2.3 s, table 1 for 1 s
                forgotten = sorted(t.table for t in screen.tables.values())
                await sockets[2].send_str(json.dumps(real_report("3", 1, 2), ensure_ascii=False))
                await asyncio.sleep(0.3)
                freed = sorted(t.table for t in screen.tables.values())
                for ws in sockets:
                    await ws.close()
            return capped, forgotten, freed
        finally:
            await screen.stop()

    capped, forgotten, freed = asyncio.run(evening())
    assert capped == ["1", "2"] and forgotten == ["1"] and freed == ["1", "3"], (capped, forgotten, freed)


# ---- the evening in a browser ----------------------------------------------------------------------

@pytest.fixture(scope="module")
def pg_url() -> Any:
    if postgres_bin() is None:
        pytest.skip("no PostgreSQL server binaries in /usr/lib/postgresql/*/bin (setup.sh test installs them)")
    cluster = Cluster()
    try:
        cluster.start()
        yield cluster.create_database(f"screen_{uuid.uuid4().hex[:10]}")
    finally:
        cluster.remove()


# The page records itself: on every change it notes what each table's card and the standings
# show, so no state it drew is missed however fast the tables play.
RECORD = """
const look = () => {
  const tables = {};
  document.querySelectorAll("#tables .card").forEach((card) => {
    const q = (sel) => { const n = card.querySelector(sel); return n ? n.textContent : null; };
    tables[card.dataset.table] = {phase: q(".phase"), speaker: q(".speaker-who"), round: q(".round"),
                                  dropped: card.dataset.dropped === "1", name: q(".name"),
                                  lines: [...card.querySelectorAll(".line")].map((n) => n.textContent).join(" | ")};
  });
  const standings = [...document.querySelectorAll("#standings tr[data-player]")]
    .map((tr) => Object.fromEntries([...tr.children].map((td) => [td.className, td.textContent])));
  return {tables: tables, standings: standings, title: document.getElementById("title").textContent};
};
window.seen = [];
let last = null;
const note = () => {
  const now = look(), said = JSON.stringify(now);
  if (said !== last) { last = said; window.seen.push(now); }
};
new MutationObserver(note).observe(document.body, {subtree: true, childList: true, characterData: true,
                                                   attributes: true});
note();
"""
COLLECT = "const seen = window.seen; window.seen = []; return seen;"


class ScreenBrowser:
    """Headless chromium on the tournament page; every call on one worker thread."""

    def __init__(self, base: str, profile: str) -> None:
        from selenium import webdriver

        options = webdriver.ChromeOptions()
        assert CHROMIUM is not None
        options.binary_location = CHROMIUM
        for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                     "--disable-background-networking", "--disable-component-update", "--disable-sync",
                     "--disable-dev-shm-usage", f"--user-data-dir={profile}"):
            options.add_argument(flag)
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        self.driver = start_chrome(options)
        self.driver.set_window_size(1600, 1000)
        self.driver.get(base + "/")
        self.driver.execute_script(RECORD)
        self.seen: list[dict[str, Any]] = []

    def look(self) -> None:
        self.seen.extend(self.driver.execute_script(COLLECT))

    def screenshots(self, moment: str) -> list[Path]:
        """The page on a big screen and on a phone, in ``test-artifacts/club/`` (docs/club-screen.md's pictures)."""
        folder = Path(os.environ.get("VOICEHOST_ARTIFACTS", Path(__file__).resolve().parents[1] / "test-artifacts"))
        folder = folder / "club"
        folder.mkdir(parents=True, exist_ok=True)
        shots = []
        for name, size in (("screen", (1600, 1000)), ("phone", (375, 812))):
            self.driver.set_window_size(*size)
            shots.append(folder / f"club-{moment}-{name}.png")
            self.driver.save_screenshot(str(shots[-1]))
        self.driver.set_window_size(1600, 1000)
        return shots

    def refused(self) -> list[str]:
        return [e["message"] for e in self.driver.get_log("browser") if "Content Security Policy" in e["message"]]

    def close(self) -> None:
        self.driver.quit()


def latest(seen: list[dict[str, Any]], table: str) -> dict[str, Any]:
    return next((s["tables"][table] for s in reversed(seen) if table in s["tables"]), {})


async def tournament_evening(pg: str, profile: str) -> tuple[ScreenBrowser, dict[str, Any]]:
    screen = ClubScreen(standings=season_standings(pg, None), tournament=TOURNAMENT, drop_s=DROP_S, refresh_s=1.0)
    base = await screen.start("127.0.0.1", 0)
    worker = ThreadPoolExecutor(max_workers=1)
    loop = asyncio.get_running_loop()

    def in_browser(call: Callable[..., Any], *args: Any) -> Any:
        return loop.run_in_executor(worker, call, *args)

    async def until(check: Callable[[], bool], what: str, timeout: float = 90.0) -> float:
        started = time.monotonic()
        while not check():
            assert time.monotonic() - started < timeout, f"the page never showed {what}"
            await in_browser(browser.look)
            await asyncio.sleep(0.2)
        return time.monotonic() - started

    browser: ScreenBrowser = await in_browser(ScreenBrowser, base, profile)
    marks: dict[str, Any] = {}
    games: dict[int, asyncio.Task[Simulation]] = {}
    try:
        stuck = asyncio.Event()
        for table, seed in ((1, 11), (2, 12), (3, 13)):
            games[table] = asyncio.create_task(play_reporting(table, table_script(table, seed), base,
                                                              hang_in_the_day=stuck if table == 2 else None))
        await until(lambda: all(latest(browser.seen, t).get("phase", "").startswith("День") for t in "123"),
                    "all three tables in the day")
        assert stuck.is_set() and not games[2].done()
        games[2].cancel()   # table 2's process dies in the middle of its game
        await asyncio.gather(games[2], return_exceptions=True)
        killed = time.monotonic()
        marks["killed_at"] = len(browser.seen)
        marks["dropped_after_s"] = await until(lambda: latest(browser.seen, "2").get("dropped") is True,
                                               "table 2 dropped off", timeout=DROP_S + 60)
        marks["dropped_after_s"] = time.monotonic() - killed
        games[2] = asyncio.create_task(play_reporting(2, table_script(2, 22), base))   # started again
        await until(lambda: latest(browser.seen, "2").get("dropped") is False, "table 2 back", timeout=60)
        marks["back_at"] = len(browser.seen)
        await until(lambda: bool(latest(browser.seen, "2").get("speaker")), "table 2's new game with a speaker")
        marks["shots"] = await in_browser(browser.screenshots, "live")
        protocols = []
        for table in (1, 2, 3):
            result = await games[table]
            assert result.game.is_over
            protocols.append(await loop.run_in_executor(None, store, result, table, pg))
        expected: dict[str, float] = defaultdict(float)
        for protocol in protocols:
            for seat, entry in protocol["seats"].items():
                expected[entry["name"]] += protocol["scores"][seat]
        marks["expected"] = {name: round(points, 2) for name, points in expected.items()}
        await until(lambda: bool(browser.seen) and len(browser.seen[-1]["standings"]) == len(PLAYERS),
                    "the three games in the standings", timeout=60)
        await in_browser(browser.look)
        marks["shots"] += await in_browser(browser.screenshots, "standings")
        marks["refused"] = await in_browser(browser.refused)
        marks["board"] = screen.state()
        return browser, marks
    finally:
        for task in games.values():
            task.cancel()
        await asyncio.gather(*games.values(), return_exceptions=True)
        await in_browser(browser.close)
        worker.shutdown()
        await screen.stop()


@pytest.mark.skipif(not (CHROMIUM and DRIVER), reason="Debian's chromium and chromium-driver are not installed "
                                                      "(apt-get install chromium chromium-driver)")
def test_three_tables_at_once_on_the_tournament_page(pg_url: str) -> None:
    pytest.importorskip("selenium", reason="selenium is not installed (pip install -e '.[test]')")
    with tempfile.TemporaryDirectory(prefix="voicehost-club-chromium-") as profile:
        browser, marks = asyncio.run(tournament_evening(pg_url, profile))
    seen = browser.seen
    assert seen[-1]["title"] == f"Турнир «{TOURNAMENT}»"
    for table in "123":
        shown = [s["tables"][table] for s in seen if table in s["tables"]]
        phases = {t["phase"] for t in shown}
        speakers = {t["speaker"] for t in shown if t["speaker"]}
        assert {"День 1", "Ночь 1"} <= phases or {"День 1", "Ночь 2"} <= phases, f"table {table}: {phases}"
        assert "Игра окончена" in phases, f"table {table} never showed its game over"
        assert len(speakers) >= 5, f"table {table}: the speakers did not change ({speakers})"
        assert all(t["name"] == f"Стол {table}" and t["round"] == "тур 1" for t in shown)
    after_kill = [s["tables"]["2"] for s in seen[marks["killed_at"]:marks["back_at"]] if "2" in s["tables"]]
    assert any(t["dropped"] for t in after_kill), "table 2 was shown dropped off"
    assert DROP_S - 1.0 <= marks["dropped_after_s"] <= DROP_S + 15, "dropped after the screen's silence, not before"
    back = [s["tables"]["2"] for s in seen[marks["back_at"]:] if "2" in s["tables"]]
    assert not back[-1]["dropped"] and len({t["phase"] for t in back}) >= 3, "table 2 plays on the page again"
    for table in "13":
        shown = [s["tables"][table] for s in seen if table in s["tables"]]
        assert not any(t["dropped"] for t in shown), f"table {table} was shown dropped (its game over: it is not)"
    standings = {row["player"]: float(row["points"].replace(",", ".")) for row in seen[-1]["standings"]}
    assert standings == marks["expected"], "the standings are the stored games' points"
    points = [float(row["points"].replace(",", ".")) for row in seen[-1]["standings"]]
    assert points == sorted(points, reverse=True) and [row["place"] for row in seen[-1]["standings"]][0] == "1"
    assert all(int(row["games"]) == 1 for row in seen[-1]["standings"]), "each player one game (2's first lost)"
    assert set(seen[-1]["standings"][0]) == {"place", "player", "games", "points", "wins"}, "the season's columns"
    text = json.dumps(seen, ensure_ascii=False).lower()
    for role in ROLES:
        assert role not in text, f"the page showed {role!r}"
    assert marks["refused"] == [], "the page breaks its Content-Security-Policy"
    assert marks["board"]["games"] == 3
    assert all(path.stat().st_size > 10_000 for path in marks["shots"])


def test_a_board_provider_gives_the_seating_of_the_next_round() -> None:
    """The other helper's schedule plugs in as the provider: the page's seating follows it."""
    from voicehost.records.tournament import column_titles
    from voicehost.rules.scoring import Standing
    from voicehost.web.club import Seating

    def provider(tournament: str | None, tables: Any, /) -> Board:
        return Board(standings=(Standing("Анна Орлова", 1, games=1, points=3.5, wins=1, bonus=0.5, ci=0.2),),
                     titles=column_titles(), games=1, next_round=2,
                     seating=(Seating("1", tuple(PLAYERS[:10])), Seating("2", tuple(PLAYERS[10:20]))))

    async def look() -> dict[str, Any]:
        screen = ClubScreen(standings=provider, refresh_s=0.2)
        base = await screen.start("127.0.0.1", 0)
        try:
            async with aiohttp.ClientSession() as http:
                async with http.ws_connect(base.replace("http", "ws", 1) + "/ws") as ws:
                    while True:
                        board = json.loads((await ws.receive(timeout=10)).data)["board"]
                        if board["seating"]:
                            return dict(board)
        finally:
            await screen.stop()

    board = asyncio.run(look())
    assert board["next_round"] == 2 and board["seating"][1] == {"table": "2", "players": PLAYERS[10:20]}
    row = board["standings"][0]
    assert (row["player"], row["points"], row["games"], row["wins"], row["extras"], row["ci"]) == (
        "Анна Орлова", 3.5, 1, 1, 0.5, 0.2)
    assert [column["key"] for column in board["columns"]] == ["place", "player", "games", "points", "wins", "ci",
                                                              "extras"]
    titles = [column["title"] for column in board["columns"]]
    assert titles == ["Место", "Игрок", "Игры", "Баллы", "Победы", "Ci", "Сумма доп."], "the catalog's Russian titles"
    assert board["texts"]["seating"] == "Рассадка тура {round}"


# ---- the commands, as real processes ------------------------------------------------------------------

def test_voicehost_run_reports_to_voicehost_tournament_screen(tmp_path: Path) -> None:
    """``voicehost tournament screen`` and ``voicehost run --club-server … --club-key …``, each a
    process of its own, on one records file: the screen makes a key and prints it with the tables'
    command line; with it the screen has the table at its round, its game over, and the game's
    players in the standings."""
    import signal
    import subprocess
    import sys
    import urllib.request

    from processes import run_voicehost

    root = Path(__file__).resolve().parents[1]
    db = f"sqlite:///{tmp_path / 'records.sqlite'}"
    port = free_port()
    screen = subprocess.Popen([sys.executable, "-m", "voicehost", "tournament", "screen", "--host", "127.0.0.1",
                               "--port", str(port), "--db", db, "--tournament", TOURNAMENT],
                              cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(root)},
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)

    def board() -> dict[str, Any]:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/board", timeout=5) as answer:
            return dict(json.loads(answer.read()))
    try:
        assert screen.stderr is not None
        first = screen.stderr.readline().decode()   # the URL, and the key it made for the tables
        assert "--club-key" in first, first
        key = first.split("--club-key ", 1)[1].split(")")[0]
        deadline = time.monotonic() + 60
        while True:
            try:
                assert board()["tables"] == []
                break
            except OSError:
                assert time.monotonic() < deadline and screen.poll() is None, "the screen did not start"
                time.sleep(0.2)
        names = ",".join(f"{seat}={PLAYERS[seat - 1]}" for seat in range(1, 11))
        done = run_voicehost(["run", "--mock", "--no-ears", "--audio", "off", "--speed", "1000", "--rules", "sport",
                              "--table", str(root / "config" / "tables" / "ten-seats.toml"), "--names", names,
                              "--roles", "3=don,5=mafia,9=mafia,7=sheriff", "--journal", "game.jsonl", "--db", db,
                              "--club-server", f"http://127.0.0.1:{port}", "--club-key", key,
                              "--tournament", TOURNAMENT, "--round", "2", "--tournament-table", "5"],
                             cwd=tmp_path, timeout=180)
        assert done.returncode == 0, done.stderr[-2000:]
        deadline = time.monotonic() + 30
        while not (shown := board())["standings"]:
            assert time.monotonic() < deadline, f"the standings stayed empty: {shown}"
            time.sleep(0.3)
    finally:
        screen.send_signal(signal.SIGTERM)
        _, err = screen.communicate(timeout=30)
    (table,) = shown["tables"]
    assert (table["table"], table["round"], table["state"]["phase"]["kind"]) == ("5", 2, "over")
    assert {row["player"] for row in shown["standings"]} == set(PLAYERS[:10]) and shown["games"] == 1
    assert screen.returncode == 0 and "Traceback" not in err.decode(), err.decode()[-2000:]


@pytest.mark.parametrize(("argv", "message"), [
    (["tournament", "screen", "--port", "70000"], "70000 — не номер порта"),
    (["run", "--mock", "--no-ears", "--audio", "off", "--club-server", "ftp://club"],
     "voicehost: ошибка: --club-server: 'ftp://club' — не адрес клубного сервера"),
])
def test_a_bad_club_option_is_one_line(argv: list[str], message: str, tmp_path: Path) -> None:
    """In Russian, the default language."""
    import os

    from processes import run_voicehost

    chosen = ("VOICEHOST_LANG", "LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")
    env = {key: value for key, value in os.environ.items() if key not in chosen}
    done = run_voicehost(argv, cwd=tmp_path, timeout=60, env=env)
    assert done.returncode == 2 and message in done.stderr and "Traceback" not in done.stderr, done.stderr
    assert not list(tmp_path.glob("*.jsonl")), "no journal is made for a refused command line"


def test_voicehost_serve_reports_idle_then_each_game(tmp_path: Path) -> None:
    """``voicehost serve --club-server …`` (a process of its own, mock pins, null audio): the
    screen has the idle table at once, and its game once the console's ``start`` began one."""
    import os
    import signal
    import sys

    root = Path(__file__).resolve().parents[1]
    fifo = tmp_path / "console"
    os.mkfifo(fifo)

    async def evening() -> tuple[list[str], int, str]:
        screen = ClubScreen(tournament=TOURNAMENT)
        base = await screen.start("127.0.0.1", 0)
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "voicehost", "serve", "--mock", "--audio", "null", "--no-ears",
            "--journals", str(tmp_path / "journals"), "--club-server", base, "--tournament", TOURNAMENT,
            "--round", "3", "--tournament-table", "4", env={**os.environ, "PYTHONPATH": str(root),
                                                         "VOICEHOST_CONSOLE": str(fifo)},
            stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE)
        phases: list[str] = []

        async def until_phase(kinds: set[str], timeout: float) -> None:
            deadline = time.monotonic() + timeout
            while True:
                table = screen.tables.get(f"{TOURNAMENT}\x1f4")
                kind = table.state["phase"]["kind"] if table is not None else None
                if kind is not None and (not phases or phases[-1] != kind):
                    phases.append(kind)
                if kind in kinds:
                    return
                assert time.monotonic() < deadline and process.returncode is None, f"phases {phases}"
                await asyncio.sleep(0.1)
        try:
            await until_phase({"idle"}, 120)
            assert screen.tables[f"{TOURNAMENT}\x1f4"].round == 3
            await asyncio.get_running_loop().run_in_executor(None, fifo.write_text, "start\n")
            await until_phase({"deal", "night", "day"}, 120)
        finally:
            if process.returncode is None:
                process.send_signal(signal.SIGTERM)
            try:
                _, err = await asyncio.wait_for(process.communicate(), 60)
            except TimeoutError:
                process.kill()
                raise AssertionError(f"serve did not stop on SIGTERM (phases {phases})") from None
            finally:
                await screen.stop()
        return phases, process.returncode or 0, err.decode()

    phases, code, err = asyncio.run(evening())
    assert phases[0] == "idle" and phases[-1] in {"deal", "night", "day"}, phases
    assert code == 0 and "Traceback" not in err, err[-2000:]


def test_with_a_club_key_only_the_tables_that_have_it_report() -> None:
    """``--club-key``: a table without the key, or with another, is refused (401) and says so
    once; the table with it shows on the board."""
    async def evening() -> tuple[dict[str, Any], list[str], list[ClubReporter]]:
        screen = ClubScreen(club_key="kubok-2026")
        base = await screen.start("127.0.0.1", 0)
        said: list[str] = []
        reporters = [ClubReporter(club_socket_url(base), TablePlace(TOURNAMENT, 1, str(table), f"club-table-{table}"),
                                  log_line=said.append, club_key=key)
                     for table, key in ((1, "kubok-2026"), (2, None), (3, "kubok-2025"))]
        try:
            for reporter in reporters:
                reporter.start()
            deadline = time.monotonic() + 30.0
            while not (reporters[0].sent and len(said) >= 2) and time.monotonic() < deadline:
                await asyncio.sleep(0.1)
            async with aiohttp.ClientSession() as http:
                with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
                    await http.ws_connect(base.replace("http", "ws", 1) + "/ws/table",
                                          headers={"Authorization": "Bearer kubok-202"})
                assert refused.value.status == 401
            return screen.state(), said, reporters
        finally:
            for reporter in reporters:
                await reporter.stop()
            await screen.stop()

    board, said, reporters = asyncio.run(evening())
    assert [table["table"] for table in board["tables"]] == ["1"]
    assert reporters[0].sent > 0 and reporters[1].sent == reporters[2].sent == 0
    assert len(said) == 2 and all("--club-key" in line for line in said), said


@pytest.mark.parametrize("argv", [["tournament", "screen", "--club-key", "ключ"],
                                  ["tournament", "screen", "--club-key", "two words"]], ids=["cyrillic", "space"])
def test_a_club_key_that_no_header_can_carry_is_one_line(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    from voicehost.cli.main import main

    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err == "voicehost: ошибка: --club-key: ключ — латинские буквы, цифры и знаки препинания, без пробелов\n", err


@pytest.mark.parametrize(("argv", "message"), [
    (["tournament", "screen", "--club-key", ""], "--club-key: пустой ключ"),
    (["run", "--mock", "--club-server", "http://club:8090", "--club-key", ""], "--club-key: пустой ключ"),
    (["tournament", "screen", "--no-club-key", "--club-key", "kubok"], "--no-club-key:"),
], ids=["screen", "table", "open-with-key"])
def test_an_empty_club_key_is_refused(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    """An empty key would open the screen to any program: refused, as is a key on an open screen."""
    from voicehost.cli.main import main

    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1, err


def test_only_an_explicit_option_opens_the_screen() -> None:
    from voicehost.cli.main import build_parser
    from voicehost.cli.tournament_screen import screen_key

    made = [screen_key(build_parser().parse_args(["tournament", "screen"])) for _ in range(2)]
    assert all(key and len(key) >= 16 for key in made) and made[0] != made[1], made
    assert screen_key(build_parser().parse_args(["tournament", "screen", "--no-club-key"])) is None
