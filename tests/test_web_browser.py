"""The table on a phone, in a real browser: Debian's chromium driven by selenium reads the table
display while a whole table-level game is played, and the judge uses the console's touch
controls for a mistaken foul and its undo, a vote correction and the script's own foul. The
protocol must equal the same game with the same commands typed at the console. Screenshots of
both views at phone and tablet size are written to ``test-artifacts/web/`` (or
``$VOICEHOST_ARTIFACTS``) — the README's pictures come from there."""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import subprocess
import tempfile
import threading
import time
from collections.abc import AsyncIterator, Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from browsers import start_chrome
from machine import hang_guard

from voicehost.config import load_ruleset
from voicehost.host import (
    ConsoleAnswered,
    Director,
    EdgeLog,
    Journal,
    LineSaid,
    Notice,
    Ports,
    WindowChanged,
    run_virtual,
)
from voicehost.host.dealing import typed_deal
from voicehost.rules import new_game
from voicehost.rules.inputs import Dawn
from voicehost.rules.protocol import build_protocol
from voicehost.rules.requests import AwaitSpeech, AwaitVotes
from voicehost.simulation.script import script_from_data
from voicehost.simulation.table_level import TableRun, VirtualVoice, play_table
from voicehost.web import WebTable

selenium = pytest.importorskip("selenium", reason="selenium is not installed (pip install -e '.[test]')")
from selenium import webdriver  # noqa: E402
from selenium.common.exceptions import StaleElementReferenceException  # noqa: E402
from selenium.webdriver.common.action_chains import ActionChains  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "examples" / "sport-sample.json"   # day 2: the judge fouls seat 8 after his speech
CHROMIUM, DRIVER = shutil.which("chromium"), shutil.which("chromedriver")
SPEED = 120.0   # real time, 120× faster: every state the display draws is recorded by the page itself
PIN = "2468"
PHONE, TABLET = (375, 812), (820, 1180)

# The judge at the script's foul: a foul on the wrong seat and its undo, then a vote of the
# last round corrected (seat 3 voted for 5, not 6: seat 5 still leaves), then the foul itself.
JUDGE = ["foul 4", "undo", "vote 3 5", "foul 8"]


def game_script() -> Any:
    """The bundled sport sample, with a third candidate on day 1 (seat 2 nominates seat 6, and
    seat 3 votes for him) so that a vote can be corrected without changing who leaves; the
    players the sample leaves silent say «пас» instead of waiting out their minute."""
    data = json.loads(SAMPLE.read_text(encoding="utf-8"))
    data["days"][0]["speeches"]["2"] = "выставляю шестого спасибо"
    data["days"][0]["votes"]["3"] = 6
    for day in data["days"]:
        for seat in range(1, data["seats"] + 1):
            day["speeches"].setdefault(str(seat), "пас")
    return script_from_data(data)

# The table display records itself: on every change to its page (a state pushed over the
# socket, a tick of the speaker's clock) it notes what it shows, read in one go. So no state
# it ever drew is missed, however fast the game runs; the test collects the notes now and then.
RECORD = """
const look = () => {
  const text = (id) => document.getElementById(id).textContent;
  const speaker = document.getElementById("speaker");
  const seats = {};
  document.querySelectorAll("#seats .seat").forEach((tile) => { seats[tile.dataset.seat] = tile.innerText; });
  return {phase: text("phase"), clock: speaker.classList.contains("hidden") ? null : text("clock"),
          warning: speaker.classList.contains("warning"), seats: seats, nominations: text("nominations"),
          counts: text("counts"), result: text("result"), subtitles: text("subtitles"),
          nominated: [...document.querySelectorAll("#seats .seat.nominated")].map((tile) => tile.dataset.seat)};
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

pytestmark = pytest.mark.skipif(not (CHROMIUM and DRIVER),
                                reason="Debian's chromium and chromium-driver are not installed "
                                       "(apt-get install chromium chromium-driver; ./setup.sh test does it)")


def artifacts() -> Path:
    folder = Path(os.environ.get("VOICEHOST_ARTIFACTS", ROOT / "test-artifacts")) / "web"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def typed_judge(commands: list[str]) -> Callable[[Director, str], Any]:
    """The judge at the terminal: types each command and waits for the host's answer."""
    async def judge(director: Director, line: str) -> None:
        for command in commands:
            answered = asyncio.get_running_loop().create_future()
            typed: list[int] = []   # the line's id: its answer names it

            def watch(notice: Notice, typed: list[int] = typed, answered: Any = answered) -> None:
                if isinstance(notice, ConsoleAnswered) and typed and notice.answer.id == typed[0] \
                        and not answered.done():
                    answered.set_result(notice.answer)
            director.watch(watch)
            typed.append(director.ports.type(command))
            answer = await answered
            director.unwatch(watch)
            assert answer.outcome == "done", f"{command}: {answer}"
    return judge


class Browser:
    """One chromium with two tabs — the table display and the judge console. Every call runs
    on one worker thread, so the asyncio loop (the host and the server) never waits on it."""

    def __init__(self, base: str, profile: str) -> None:
        options = webdriver.ChromeOptions()
        assert CHROMIUM is not None
        options.binary_location = CHROMIUM
        for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                     "--disable-background-networking", "--disable-component-update", "--disable-sync",
                     "--disable-dev-shm-usage", f"--user-data-dir={profile}"):
            options.add_argument(flag)
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})   # the pages' console: CSP reports
        self.driver = start_chrome(options)
        self.driver.set_window_size(*PHONE)
        self.base = base
        self.seen: list[dict[str, Any]] = []
        self.answers: list[str] = []   # the host's answers on the judge console
        self.refused: list[str] = []   # the CSP's refusals in the pages' consoles …
        self.inline_ran: list[Any] = []   # … and whether an inline script ran (it must not)
        self.driver.get(base + "/")
        self.table = self.driver.current_window_handle
        self.driver.execute_script(RECORD)
        self.driver.switch_to.new_window("tab")
        self.driver.get(base + "/judge")
        self.judge_tab = self.driver.current_window_handle
        self.wait = WebDriverWait(self.driver, 20)

    def login(self, pin: str) -> None:
        self.driver.switch_to.window(self.judge_tab)
        self.wait.until(lambda d: d.find_element(By.ID, "pin").is_displayed())
        self.driver.find_element(By.ID, "pin").send_keys(pin)
        self.driver.find_element(By.ID, "login-button").click()
        self.wait.until(lambda d: d.find_element(By.ID, "console").is_displayed())

    def look(self) -> None:
        """What the table display has shown since the last look, change by change, from the
        moment it shows the table (before the game, it waits with no seats)."""
        self.driver.switch_to.window(self.table)
        self.seen.extend(shown for shown in self.driver.execute_script(COLLECT) if shown["seats"])

    def tap(self, command: str) -> None:
        """One console command by touch: the seat(s) and the action, as a judge would."""
        self.driver.switch_to.window(self.judge_tab)
        name, *seats = command.split()
        action = {"vote": "vote"}.get(name, name)
        if seats:
            self._tap_seat(int(seats[0]))
        self.driver.find_element(By.CSS_SELECTOR, f'.controls button[data-command="{action}"]').click()
        if len(seats) == 2:
            self._tap_seat(int(seats[1]))
        answer = self.driver.find_element(By.ID, "answer")
        self.wait.until(lambda d: answer.get_attribute("data-command") == command
                        and answer.get_attribute("data-status") is not None)
        status, text = answer.get_attribute("data-status"), answer.text
        self.answers.append(text)
        answer_reset = "arguments[0].removeAttribute('data-command'); arguments[0].removeAttribute('data-status');"
        self.driver.execute_script(answer_reset, answer)
        assert status == "200", f"{command}: {status} {text}"

    def _tap_seat(self, seat: int) -> None:
        """A real click on the seat's tile; the tiles are redrawn on every message, so a tile
        replaced between finding and clicking is found again."""
        for _ in range(20):
            try:
                self.driver.find_element(By.CSS_SELECTOR, f'#seats .seat[data-seat="{seat}"]').click()
                return
            except StaleElementReferenceException:
                continue
        raise AssertionError(f"seat {seat} could not be tapped")

    def screenshots(self, folder: Path) -> list[Path]:
        shots = []
        for size_name, size in (("phone", PHONE), ("tablet", TABLET)):
            self.driver.set_window_size(*size)
            for view, tab in (("table", self.table), ("judge", self.judge_tab)):
                self.driver.switch_to.window(tab)
                path = folder / f"{view}-{size_name}.png"
                self.driver.save_screenshot(str(path))
                shots.append(path)
        self.driver.set_window_size(*PHONE)
        return shots

    def policy(self) -> tuple[list[str], list[Any]]:
        """What the Content-Security-Policy refused in the pages' consoles (nothing, if the
        pages fit it), and whether it is enforced: an inline script added to each page must not
        run."""
        refused = [entry["message"] for entry in self.driver.get_log("browser")
                   if "Content Security Policy" in entry["message"]]
        probe = ("const s = document.createElement('script'); s.textContent = 'window.inlineRan = true';"
                 "document.body.append(s); return window.inlineRan === true;")
        ran = []
        for tab in (self.table, self.judge_tab):
            self.driver.switch_to.window(tab)
            ran.append(self.driver.execute_script(probe))
        return refused, ran

    def close(self) -> None:
        self.driver.quit()


async def browser_game(profile: str) -> tuple[Any, Browser, list[Path]]:
    script = game_script()
    table = WebTable(PIN)
    base = await table.start("127.0.0.1", 0)
    worker = ThreadPoolExecutor(max_workers=1)
    loop = asyncio.get_running_loop()

    def in_browser(call: Callable[..., Any], *args: Any) -> Any:
        return loop.run_in_executor(worker, call, *args)

    browser: Browser = await in_browser(Browser, base, profile)
    shots: list[Path] = []
    try:
        await in_browser(browser.login, PIN)

        async def judge(director: Director, line: str) -> None:
            """The typed judge's commands take no time on the virtual clock; selenium's taps take
            seconds. So the speaker's clock is held while the browser works, the way the console's
            ``pause`` holds it — otherwise seat 8's minute could run out between two taps, and
            ``undo`` would take back the end of his speech instead of the mistaken foul."""
            assert line == "foul 8"
            while director.timer.deadline is None:   # seat 8 is about to get the floor
                await asyncio.sleep(0.01)
            held_at = director.clock.now()
            director.timer.hold(3600)
            for command in JUDGE:
                await in_browser(browser.tap, command)
            director.timer.hold(director.clock.now() - held_at - 3600)   # the pages hear of the clock moved
            await in_browser(browser.look)
            shots.extend(await in_browser(browser.screenshots, artifacts()))

        async def watch() -> None:
            while True:
                await in_browser(browser.look)
                await asyncio.sleep(1.0)

        @asynccontextmanager
        async def around(director: Director) -> AsyncIterator[WebTable]:
            table.attach(director)
            watching = asyncio.create_task(watch())
            try:
                yield table
            finally:
                watching.cancel()
                await asyncio.gather(watching, return_exceptions=True)

        how = TableRun(speak=VirtualVoice(SPEED).speak, speed=SPEED, around=around, judge=judge)
        result = await play_table(script, how=how)
        table.finish()
        await asyncio.sleep(0.3)
        await in_browser(browser.look)
        browser.refused, browser.inline_ran = await in_browser(browser.policy)
        return result, browser, shots
    finally:
        await in_browser(browser.close)
        worker.shutdown()
        await table.stop()


def test_a_table_level_game_read_on_the_display_and_judged_from_the_console() -> None:
    with tempfile.TemporaryDirectory(prefix="voicehost-chromium-") as profile:
        started = time.monotonic()
        result, browser, shots = asyncio.run(browser_game(profile))
    typed = run_virtual(play_table(game_script(), how=TableRun(judge=typed_judge(JUDGE))))
    names = result.script.names
    protocol = build_protocol(result.game, result.ignored, names)
    assert protocol == build_protocol(typed.game, typed.ignored, names)
    assert result.game.is_over and time.monotonic() - started < 600

    assert protocol["days"][0]["votes"] == {"5": 7, "6": 0, "9": 3}, "seat 3's vote moved from 6 to 5"
    assert protocol["days"][1]["fouls"] == [{"seat": 8, "count": 1}], "seat 8's foul, and seat 4's undone"
    seen = browser.seen
    assert any(s["phase"] == "День 1" for s in seen) and any(s["phase"] == "Ночь 2" for s in seen)
    clocks = [s["clock"] for s in seen if s["clock"]]
    assert len(set(clocks)) > 3 and all(c.count(":") == 1 for c in clocks), "the speaker's countdown runs"
    assert any("Ф" in s["seats"]["8"] for s in seen), "the judge's foul on seat 8 is on the display"
    assert not any("Ф" in s["seats"]["4"] for s in seen[-3:]), "the undone foul is gone"
    assert any(re.match(r"\d+ выставил 5", s["nominations"]) for s in seen), "nominations in order, with who made them"
    assert any(s["nominated"] for s in seen), "a nominated seat is marked"
    assert seen[-1]["nominated"] == [], "a nominated seat's border outlives the game"
    assert any(s["counts"] for s in seen), "a count on the display"
    assert browser.answers[0] == "Игроку 4 — замечание (всего: 1).", "a sentence about the foul, no command words"
    assert "Исправление: игрок номер три голосовал против игрока номер пять." in browser.answers[2]
    assert seen[-1]["phase"] == "Игра окончена" and seen[-1]["result"]
    for role in ("дон", "мафия", "шериф", "мирный"):
        assert not any(role in tile.lower() for s in seen for tile in s["seats"].values()), f"a seat showed {role!r}"
    assert len(shots) == 4 and all(path.stat().st_size > 10_000 for path in shots)
    assert browser.refused == [], "the pages break their own Content-Security-Policy"
    assert browser.inline_ran == [False, False], "the browser enforces the policy"


# ---- the page itself: layout at three sizes, a restart, the setup page, accessibility (issue 31) ----------

SIZES = {"phone 390×844": (390, 844), "tablet 820×1180": (820, 1180), "laptop 1280×800": (1280, 800),
         "laptop at 200 % zoom": (640, 400)}   # 1280×800 at 200 %: half as many CSS pixels each way
ROLES = "3=don,5=mafia,9=mafia,7=sheriff"
# Speakers' names of 1 to 40 characters (NAME_MAX_CHARS), with and without spaces to wrap at.
NAMES = ["Я", "Александра", "Александра Константиновна", "Мария-Антуанетта Константинопольская",
         "Ж" * 20, "Щ" * 40, ("Анна-Мария " * 4)[:40]]
AXE_VERSION = "4.14.1"


class LiveTable:
    """A sport game on day 1 (seat 1 speaks; real time, 60 s) served by a :class:`WebTable` on
    an asyncio loop of its own thread, so selenium can drive the browser from the test's."""

    def __init__(self, journal: Path, names: dict[int, str] | None = None, desk: Any = None,
                 options: dict[str, Any] | None = None, game: Any = None) -> None:
        self.options = options or {}
        self.prepared = game   # a game already played (its director has nothing left to run)
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.journal = journal
        self.names = names or {}
        self.desk = desk
        self.director: Director | None = None
        self.hosting: Any = None
        self.table: WebTable = self.call(self._start(0))
        self.base = self.table_url

    def call(self, coroutine: Any, timeout: float = 60) -> Any:
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(hang_guard(timeout))

    async def _start(self, port: int) -> WebTable:
        table = WebTable(PIN, wrong_pin_delay_s=0.0, desk=self.desk)
        self.table_url = await table.start("127.0.0.1", port)
        if self.desk is None:
            if self.director is None:
                self.director = self._day_one()
                self.hosting = asyncio.ensure_future(self.director.run())
            table.attach(self.director)
        return table

    def _day_one(self) -> Director:
        ruleset = load_ruleset("sport")
        game = self.prepared or new_game(ruleset, ruleset.resolve(self.options), 10)
        if self.prepared is None:
            game.names = dict(self.names)
        self.log = Journal(self.journal, {"ruleset": "sport", "options": self.options, "seats": 10, "level": "live"})
        for index, item in enumerate([typed_deal(ROLES, game, "roles"), Dawn()] if self.prepared is None else []):
            game.push(item)
            self.log.append(index, 0.0, "host", item)
        ports = Ports(night=lambda on: None, led=lambda seat, pattern: None, edges=EdgeLog(),
                      speak=VirtualVoice(50).speak, clock=asyncio.get_running_loop().time, speed=1.0, poll_s=None)
        return Director(game, ports, self.log, log=lambda line: None)

    def restart(self) -> None:
        """``serve`` stopped and started again on the same port: the game goes on (its director
        here stands for the journal's resume), every judge session is gone."""
        async def again() -> WebTable:
            self.table._detach()
            await self.table.stop()
            port = int(self.base.rsplit(":", 1)[1])
            return await self._start(port)
        self.table = self.call(again())

    def name_speaker(self, name: str) -> None:
        """Seat 1, who has the floor, named ``name``; the pages are sent the state again."""
        async def rename() -> None:
            assert self.director is not None
            self.director.game.names[1] = name
            self.table._schedule()
        self.call(rename())

    def type(self, line: str) -> None:
        """A console line, and its answer waited for (``end``: until the next speaker has the floor)."""
        async def typed() -> None:
            director = self.director
            assert director is not None
            speaker = self.table.view.floor.speaker if self.table.view is not None else None
            answered = asyncio.get_running_loop().create_future()
            ids: list[int] = []

            def watch(notice: Notice) -> None:
                if isinstance(notice, ConsoleAnswered) and ids and notice.answer.id == ids[0] \
                        and not answered.done():
                    answered.set_result(notice.answer)
            director.watch(watch)
            ids.append(director.ports.type(line))
            answer = await asyncio.wait_for(answered, hang_guard(30))
            director.unwatch(watch)
            assert answer.outcome == "done", f"{line}: {answer}"
            while line == "end" and not self._next_floor(speaker):
                await asyncio.sleep(0.02)
        self.call(typed())

    def _next_floor(self, speaker: int | None) -> bool:
        """The floor is open for the next speaker (his timer runs), or the vote has begun."""
        assert self.director is not None and self.table.view is not None
        floor = self.table.view.floor
        return isinstance(self.director.game.request, AwaitVotes) or (
            isinstance(self.director.game.request, AwaitSpeech) and floor.deadline is not None
            and floor.speaker is not None and floor.speaker != speaker)

    def to_the_vote(self) -> None:
        """Seat 1 nominates 5, seat 2 nominates 9, every speech ends: the vote, and a pause typed
        as its first window opens — taken once the count is said (the host reads the console
        between a vote's windows only when the next floor opens), so the page shows the count and
        its result with the table waiting."""
        async def pause_at_the_window() -> None:
            director = self.director
            assert director is not None

            def watch(notice: Notice) -> None:
                if isinstance(notice, WindowChanged) and notice.candidate is not None:
                    director.ports.type("pause")
                    director.unwatch(watch)
            director.watch(watch)
        self.call(pause_at_the_window())
        self.type("nominate 1 5")
        self.type("end")
        self.type("nominate 2 9")
        for _ in range(9):
            if not isinstance(self.state().get("vote"), dict):
                self.type("end")
        for _ in range(200):
            state = self.state()
            if state["paused"] and state["vote"] and state["vote"]["counted"] and state["result"]:
                return
            time.sleep(0.05)
        raise AssertionError(f"the vote did not wait: {self.state()}")

    def state(self) -> dict[str, Any]:
        async def judge_state() -> dict[str, Any]:
            return self.table.judge_state()
        return self.call(judge_state())  # type: ignore[no-any-return]

    def close(self) -> None:
        async def stop() -> None:
            if self.hosting is not None:
                self.hosting.cancel()
                await asyncio.gather(self.hosting, return_exceptions=True)
            self.table.finish()
            await self.table.stop()
            if self.director is not None:
                self.log.close()
        self.call(stop())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)
        self.loop.close()


@pytest.fixture(scope="module")
def chromium() -> Any:
    """One headless chromium for the page's tests; each sets its own viewport."""
    assert CHROMIUM is not None
    with tempfile.TemporaryDirectory(prefix="voicehost-chromium-") as profile:
        options = webdriver.ChromeOptions()
        options.binary_location = CHROMIUM
        for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-sync",
                     "--disable-background-networking", "--disable-component-update", "--disable-dev-shm-usage",
                     f"--user-data-dir={profile}"):
            options.add_argument(flag)
        driver = start_chrome(options)
        try:
            yield driver
        finally:
            driver.quit()


@pytest.fixture
def live(tmp_path: Path) -> Any:
    table = LiveTable(tmp_path / "game.jsonl", {seat: f"Игрок{seat}" for seat in range(2, 11)})
    try:
        yield table
    finally:
        table.close()


def viewport(driver: Any, size: tuple[int, int]) -> None:
    """The page's CSS viewport exactly ``size`` (not the window's, which has the browser's frame)."""
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": size[0], "height": size[1], "deviceScaleFactor": 1, "mobile": size[0] < 700})
    driver.execute_script("window.scrollTo(0, 0)")


def judge_logged_in(driver: Any, base: str) -> None:
    driver.get(base + "/judge")
    wait = WebDriverWait(driver, hang_guard(20))
    wait.until(lambda d: d.find_element(By.ID, "pin").is_displayed())
    driver.find_element(By.ID, "pin").send_keys(PIN)
    driver.find_element(By.ID, "login-button").click()
    wait.until(lambda d: d.find_element(By.ID, "console").is_displayed())
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#seats .seat"))


MEASURE = """
const box = (id) => { const r = document.getElementById(id).getBoundingClientRect();
                      return {left: r.left, right: r.right, top: r.top, bottom: r.bottom}; };
const tiles = [...document.querySelectorAll('#seats .seat')].map((tile) => {
  const t = tile.getBoundingClientRect(), n = tile.querySelector('.num').getBoundingClientRect();
  return {seat: tile.dataset.seat, num: tile.querySelector('.num').textContent,
          inside: n.width > 0 && n.left >= t.left - 0.5 && n.right <= t.right + 0.5 && n.right <= innerWidth};
});
return {width: innerWidth, height: innerHeight, scrollWidth: document.documentElement.scrollWidth,
        clientWidth: document.documentElement.clientWidth, clock: box('clock'), who: box('speaker-who'),
        whoText: document.getElementById('speaker-who').textContent, tiles: tiles};
"""


def speaker_named(name: str) -> Callable[[Any], bool]:
    return lambda driver: bool(driver.find_element(By.ID, "speaker-who").text.endswith(name))


def test_the_speaker_and_the_clock_stay_in_view_whatever_the_name(live: LiveTable, chromium: Any) -> None:
    """A ten-letter name («Александра») pushed the clock off a phone and the page sideways."""
    driver = chromium
    faults = []
    for page in ("/", "/judge"):
        if page == "/judge":
            judge_logged_in(driver, live.base)
        else:
            driver.get(live.base + page)
        for name in NAMES:
            assert len(name) <= 40
            live.name_speaker(name)
            WebDriverWait(driver, hang_guard(10)).until(speaker_named(name))
            for size_name, size in SIZES.items():
                viewport(driver, size)
                seen = driver.execute_script(MEASURE)
                clock, who = seen["clock"], seen["who"]
                where = f"{page} at {size_name}, a {len(name)}-letter name"
                if seen["scrollWidth"] > seen["clientWidth"]:
                    faults.append(f"{where}: the page scrolls sideways ({seen['scrollWidth']} > {seen['clientWidth']})")
                if not (0 <= clock["left"] and clock["right"] <= seen["width"] and 0 <= clock["top"]
                        and clock["bottom"] <= seen["height"]):
                    faults.append(f"{where}: the clock is out of view {clock}")
                if who["right"] > seen["width"] or who["left"] < 0:
                    faults.append(f"{where}: the speaker's name runs off the screen {who}")
                hidden = [t["seat"] for t in seen["tiles"] if not t["inside"] or t["num"] != t["seat"]]
                if hidden:
                    faults.append(f"{where}: seat numbers hidden on tiles {hidden}")
    assert not faults, "\n".join(faults)


def test_seat_tiles_shorten_a_long_name_but_show_the_seat_number(tmp_path: Path, chromium: Any) -> None:
    table = LiveTable(tmp_path / "game.jsonl", {seat: "Щ" * 40 for seat in range(1, 11)})
    try:
        chromium.get(table.base + "/")
        WebDriverWait(chromium, hang_guard(20)).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#seats .seat"))
        for size_name, size in SIZES.items():
            viewport(chromium, size)
            seen = chromium.execute_script(MEASURE)
            assert seen["scrollWidth"] <= seen["clientWidth"], f"{size_name}: the page scrolls sideways"
            assert all(t["inside"] and t["num"] == t["seat"] for t in seen["tiles"]), (size_name, seen["tiles"])
            name = chromium.find_element(By.CSS_SELECTOR, '#seats .seat[data-seat="4"] .name')
            assert name.get_attribute("textContent") == "Щ" * 40, "a screen reader is given the whole name"
    finally:
        table.close()


def test_after_a_restart_the_judge_page_says_the_server_is_back_and_asks_for_the_pin(
        live: LiveTable, chromium: Any) -> None:
    """Sessions live in memory: after a restart /ws/judge answered 401 and the page retried for ever."""
    driver = chromium
    viewport(driver, SIZES["phone 390×844"])
    judge_logged_in(driver, live.base)
    live.restart()
    wait = WebDriverWait(driver, hang_guard(30))
    wait.until(lambda d: d.find_element(By.ID, "login").is_displayed())
    note = driver.find_element(By.ID, "login-note")
    assert note.is_displayed() and "Сервер снова на связи" in note.text and "PIN" in note.text
    assert not driver.find_element(By.ID, "console").is_displayed()
    driver.find_element(By.ID, "pin").send_keys(PIN)
    driver.find_element(By.ID, "login-button").click()
    wait.until(lambda d: d.find_element(By.ID, "console").is_displayed())
    wait.until(lambda d: d.find_element(By.ID, "conn").text in ("на связи", "связь восстановлена"))
    assert not driver.find_element(By.ID, "login").is_displayed()


def test_the_sport_console_offers_only_the_rulesets_commands(live: LiveTable, chromium: Any) -> None:
    judge_logged_in(chromium, live.base)
    shown = {button.get_attribute("data-command"): button.is_displayed()
             for button in chromium.find_elements(By.CSS_SELECTOR, ".controls button[data-command]")}
    assert shown["hand"] is False and shown["blood"] is False, "«Рука» and «Кровное имя» are not sport's"
    assert shown["nominate"] and shown["withdraw"] and shown["foul"] and shown["vote"]
    # the page hook other script files use: a "voicehost:state" event with each state, once drawn
    chromium.execute_script("window.hooked = []; document.addEventListener('voicehost:state', (e) => "
                            "window.hooked.push([e.detail.path, e.detail.state.commands, "
                            "document.querySelectorAll('#seats .seat').length]));")
    live.name_speaker("Анна")
    WebDriverWait(chromium, hang_guard(10)).until(lambda d: d.execute_script("return window.hooked.length > 0"))
    assert chromium.execute_script("return window.hooked[0]") == ["/ws/judge", ["nominate", "withdraw"], 10]


def answer_to(driver: Any, command: str) -> str:
    driver.find_element(By.CSS_SELECTOR, f'.controls button[data-command="{command}"]').click()
    answer = driver.find_element(By.ID, "answer")
    WebDriverWait(driver, hang_guard(30)).until(lambda d: answer.get_attribute("data-command") == command
                                    and answer.get_attribute("data-status") is not None)
    return str(answer.text)


def test_the_consoles_words_read_as_they_mean(live: LiveTable, chromium: Any) -> None:
    """«repeat» said only «Готово.»; the count read «5: 0 9: 0»; «1 → 5» read as "1 nominates 5";
    the don, the mafia and the citizens shared one green; the count fell below a phone's fold."""
    driver = chromium
    viewport(driver, SIZES["phone 390×844"])
    judge_logged_in(driver, live.base)
    WebDriverWait(driver, hang_guard(20)).until(lambda d: d.find_element(By.ID, "speaker").is_displayed())
    repeated = answer_to(driver, "repeat")
    assert repeated.startswith("Повторено: «") and len(repeated) > 30, repeated

    colours = driver.execute_script("""
      const colour = (seat) =>
        getComputedStyle(document.querySelector(`#seats .seat[data-seat="${seat}"] .role`)).color;
      return {don: colour(3), mafia: colour(5), sheriff: colour(7), citizen: colour(1)};""")
    assert len(set(colours.values())) == 4, f"one colour for two kinds of card: {colours}"

    live.to_the_vote()
    WebDriverWait(driver, hang_guard(20)).until(lambda d: d.find_element(By.ID, "vote").is_displayed()
                                    and d.find_element(By.ID, "paused").is_displayed())
    nominations = driver.find_element(By.ID, "nominations").text
    assert nominations == "1 выставил 5, 2 выставил 9", nominations
    counts = driver.find_element(By.ID, "counts").text
    assert re.fullmatch(r"за 5: \d+ · за 9: \d+ \(подсчитано\)", counts), counts
    for size_name, size in SIZES.items():
        if size[0] >= 700:
            continue
        viewport(driver, size)
        for part in ("counts", "result"):
            bottom = driver.execute_script(f"return document.getElementById('{part}').getBoundingClientRect().bottom")
            assert bottom <= size[1], f"{size_name}: the {part} is below the fold ({bottom} > {size[1]})"
    for page in ("/",):
        driver.get(live.base + page)
        WebDriverWait(driver, hang_guard(20)).until(lambda d: d.find_element(By.ID, "vote").is_displayed())
        viewport(driver, SIZES["phone 390×844"])
        assert re.fullmatch(r"за 5: \d+ · за 9: \d+ \(подсчитано\)", driver.find_element(By.ID, "counts").text)
        for part in ("counts", "result"):
            bottom = driver.execute_script(f"return document.getElementById('{part}').getBoundingClientRect().bottom")
            assert bottom <= 844, f"the display's {part} is below a phone's fold"


@pytest.fixture(scope="module")
def axe_source() -> str:
    """axe-core's axe.min.js: ``$VOICEHOST_AXE``, or installed from npm into a cache folder
    (once; ``./setup.sh test`` does it beforehand). Skips when npm cannot get it."""
    given = os.environ.get("VOICEHOST_AXE")
    if given:
        return Path(given).read_text(encoding="utf-8")
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "voicehost" / f"axe-core-{AXE_VERSION}"
    script = cache / "node_modules" / "axe-core" / "axe.min.js"
    if not script.is_file():
        npm = shutil.which("npm")
        if npm is None:
            pytest.skip("npm is not installed: axe-core cannot be fetched (apt-get install npm)")
        cache.mkdir(parents=True, exist_ok=True)
        try:
            subprocess.run([npm, "install", "--no-audit", "--no-fund", "--silent", "--prefix", str(cache),
                            f"axe-core@{AXE_VERSION}"], check=True, capture_output=True, timeout=300)
        except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as err:
            pytest.skip(f"npm could not install axe-core@{AXE_VERSION}: {err}")
    return script.read_text(encoding="utf-8")


AXE_RUN = """
const done = arguments[arguments.length - 1];
axe.run(document, {resultTypes: ['violations']}).then(
  (result) => done(result.violations.map((v) => ({id: v.id, impact: v.impact, help: v.help,
                                                   nodes: v.nodes.slice(0, 3).map((n) => n.target.join(' '))}))),
  (error) => done([{id: 'axe-error', impact: 'critical', help: String(error), nodes: []}]));
"""


def serious_violations(driver: Any, axe: str, where: str) -> list[str]:
    """axe-core's serious and critical violations of the page as it is now."""
    if not driver.execute_script("return typeof axe !== 'undefined'"):
        driver.execute_script(axe)
    driver.set_script_timeout(60)
    found = driver.execute_async_script(AXE_RUN)
    return [f"{where}: {v['id']} ({v['impact']}): {v['help']} at {v['nodes']}" for v in found
            if v["impact"] in ("serious", "critical")]


def test_a_screen_reader_is_served_during_a_speech_and_a_vote(live: LiveTable, chromium: Any,
                                                              axe_source: str) -> None:
    """axe-core finds no serious or critical fault on the console (logged in) and the display,
    during a speech and after a vote's count; the live region announces the speaker and the result."""
    driver = chromium
    faults = []
    viewport(driver, SIZES["phone 390×844"])
    live.name_speaker("Александра")
    driver.get(live.base + "/")
    WebDriverWait(driver, hang_guard(20)).until(lambda d: d.find_element(By.ID, "speaker").is_displayed())
    WebDriverWait(driver, hang_guard(5)).until(
        lambda d: "Говорит игрок 1, Александра" in d.find_element(By.ID, "announce").get_attribute("textContent"))
    assert driver.find_element(By.ID, "announce").get_attribute("aria-live") == "polite"
    faults += serious_violations(driver, axe_source, "the display during a speech")
    judge_logged_in(driver, live.base)
    WebDriverWait(driver, hang_guard(20)).until(lambda d: d.find_element(By.ID, "speaker").is_displayed())
    faults += serious_violations(driver, axe_source, "the console during a speech")
    # the speaker's time warning is announced once, as the clock turns red (the last 10 s, here made to come now)
    driver.execute_script("Table.state.speaker.left = 8; Table.receivedAt = performance.now(); Table.tick();")
    WebDriverWait(driver, hang_guard(5)).until(
        lambda d: "Игрок 1: осталось 8 секунд." in d.find_element(By.ID, "announce").get_attribute("textContent"))
    assert "warning" in driver.find_element(By.ID, "speaker").get_attribute("class")
    assert driver.execute_script("return [1, 3, 12, 21, 60].map(Table.seconds)") == [
        "1 секунда", "3 секунды", "12 секунд", "21 секунда", "60 секунд"]
    # every line the region says from here (a pause said after the result takes its place)
    driver.execute_script("const region = document.getElementById('announce'); window.said = [];"
                          "new MutationObserver(() => window.said.push(region.textContent)).observe("
                          "region, {childList: true, characterData: true, subtree: true});")
    live.to_the_vote()
    WebDriverWait(driver, hang_guard(20)).until(lambda d: d.find_element(By.ID, "vote").is_displayed())
    WebDriverWait(driver, hang_guard(10)).until(
        lambda d: any("покидает игру" in line for line in d.execute_script("return window.said")))
    faults += serious_violations(driver, axe_source, "the console after a vote")
    viewport(driver, SIZES["laptop at 200 % zoom"])
    faults += serious_violations(driver, axe_source, "the console at 200 %")
    driver.get(live.base + "/")
    WebDriverWait(driver, hang_guard(20)).until(lambda d: d.find_element(By.ID, "vote").is_displayed())
    faults += serious_violations(driver, axe_source, "the display after a vote")
    assert not faults, "\n".join(faults)


class IdleDesk:
    """``serve``'s idle table as the setup page sees it (:class:`~voicehost.web.setup.SetupDesk`):
    nothing to resume, no game running; a start is refused (the page's checks come before it)."""

    seats = 10

    def __init__(self) -> None:
        self.started: list[Any] = []

    def setup_state(self) -> dict[str, Any]:
        return {"ruleset": "sport", "options": {}, "unfinished": None, "playing": False, "halted": None, "best": None}

    def start(self, choice: Any) -> Any:
        self.started.append(choice)
        return None

    def resume(self) -> Any:
        return None

    def discard(self) -> Any:
        return None

    def best(self, seat: int) -> Any:
        return None


LATIN = re.compile(r"[A-Za-z]{2,}")


def test_the_setup_page_reads_in_russian(tmp_path: Path, chromium: Any, axe_source: str) -> None:
    """Option labels were the rulesets' English docs and values their codes («first», «stay»),
    and a refused value came back as «options.nomination: 'sometimes' is not one of first, last»."""
    desk = IdleDesk()
    table = LiveTable(tmp_path / "game.jsonl", desk=desk)
    driver = chromium
    try:
        viewport(driver, SIZES["phone 390×844"])
        driver.get(table.base + "/judge")
        wait = WebDriverWait(driver, hang_guard(20))
        wait.until(lambda d: d.find_element(By.ID, "pin").is_displayed())
        driver.find_element(By.ID, "pin").send_keys(PIN)
        driver.find_element(By.ID, "login-button").click()
        wait.until(lambda d: d.find_element(By.ID, "setup").is_displayed()
                   and d.find_elements(By.CSS_SELECTOR, "#options [data-option]"))
        english = []
        rulesets = [o.get_attribute("value") for o in driver.find_elements(By.CSS_SELECTOR, "#ruleset option")]
        assert "sport" in rulesets
        for ruleset in rulesets:
            driver.execute_script("const s = document.getElementById('ruleset'); s.value = arguments[0];"
                                  "s.dispatchEvent(new Event('change'));", ruleset)
            texts = [driver.find_element(By.ID, "ruleset").get_attribute("innerText")]
            texts += [label.get_attribute("innerText")
                      for label in driver.find_elements(By.CSS_SELECTOR, "#options label")]
            english += [f"{ruleset}: {text!r}" for text in texts if LATIN.search(text.replace("SHOWTIME", ""))]
        assert not english, "English on the setup page:\n" + "\n".join(english)
        driver.execute_script("const s = document.getElementById('ruleset'); s.value = 'sport';"
                              "s.dispatchEvent(new Event('change'));")
        labels = driver.find_element(By.ID, "options").text
        assert "Какое выставление засчитывается" in labels and "первое" in labels
        assert not serious_violations(driver, axe_source, "the setup page")
        # a value the page never offers (a stale page, a hand-made request) is refused in Russian
        driver.execute_script("const f = document.querySelector('[data-option=\"nomination\"]');"
                              "const o = document.createElement('option'); o.value = 'sometimes'; o.textContent = '?';"
                              "f.append(o); f.value = 'sometimes';")
        driver.find_element(By.ID, "start-button").click()
        answer = driver.find_element(By.ID, "answer")
        wait.until(lambda d: answer.get_attribute("data-status") == "400")
        assert answer.text.startswith("Настройка не принята. Параметр «Какое выставление"), answer.text
        assert not LATIN.search(answer.text), answer.text
        assert desk.started == []
    finally:
        table.close()


# ---- the judge's tools, the ballots and the final score as parts of the page (issue 31) -----------------

TOURNAMENT = {"scoring": "fiim", "best_move": True, "judge_points": True}
SCREENSHOTS = ROOT / "docs" / "screenshots"
# Each state the page is sent, and what it shows once drawn: whether the ballots' section is shown,
# whether the state's vote was counted (recorded by a hook of its own, after the page's parts).
RECORD_BALLOTS = """
window.ballotsSeen = [];
document.addEventListener('voicehost:state', (e) => {
  const box = document.getElementById('ballots'), s = e.detail.state;
  window.ballotsSeen.push({counted: Boolean(s.vote && s.vote.counted), has: Boolean(s.ballots),
                           shown: Boolean(box && !box.classList.contains('hidden') && box.offsetHeight > 0),
                           rows: box ? box.querySelectorAll('.ballot-group, .ballot').length : 0});
});
"""


def screenshot(driver: Any, name: str) -> Path:
    """The page as it is now, in the artifacts folder; copied to docs/screenshots when
    ``VOICEHOST_UPDATE_SCREENSHOTS`` is set (how docs/web.md's pictures are made again)."""
    path = artifacts() / name
    driver.save_screenshot(str(path))
    if os.environ.get("VOICEHOST_UPDATE_SCREENSHOTS"):
        shutil.copyfile(path, SCREENSHOTS / name)
    return path


def open_tools(driver: Any) -> None:
    driver.execute_script("document.getElementById('judge-tools').open = true")


def seconds_on(driver: Any) -> int:
    minutes, seconds = driver.find_element(By.ID, "clock").get_attribute("textContent").split(":")
    return int(minutes) * 60 + int(seconds)


def test_the_ballots_show_on_the_judges_page_and_on_the_display_only_after_the_count(
        live: LiveTable, chromium: Any, axe_source: str) -> None:
    driver = chromium
    viewport(driver, SIZES["phone 390×844"])
    driver.get(live.base + "/")
    WebDriverWait(driver, hang_guard(20)).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#seats .seat"))
    driver.execute_script(RECORD_BALLOTS)
    display = driver.current_window_handle
    driver.switch_to.new_window("tab")
    judge_logged_in(driver, live.base)
    driver.execute_script(RECORD_BALLOTS)
    console = driver.current_window_handle
    assert not driver.find_element(By.ID, "ballots").is_displayed(), "no ballots before a vote"
    live.to_the_vote()
    WebDriverWait(driver, hang_guard(20)).until(lambda d: d.find_element(By.ID, "ballots").is_displayed())
    judge_saw = driver.execute_script("return window.ballotsSeen")
    assert all(seen["shown"] == seen["has"] for seen in judge_saw), "the console draws each state's ballots"
    assert judge_saw[-1]["shown"] and judge_saw[-1]["rows"] > 0
    shown_text = driver.find_element(By.ID, "ballots").get_attribute("textContent")
    assert "Кто за кого: день 1, голосование" in shown_text
    # nobody pressed: every vote is the one sport's rules give the last candidate, listed and marked (issue 42)
    assert "за 9: не голосовали, по правилам: 1, 2, 3, 4, 5, 6, 7, 8, 9, 10" in shown_text
    given = driver.find_elements(By.CSS_SELECTOR, "#ballots .ballot.last_candidate")
    assert len(given) == 10 and all("голос последнему кандидату" in row.get_attribute("textContent") for row in given)
    # the count and the result stay above the fold with the ballots and the judge's tools on the page
    for size_name, size in SIZES.items():
        viewport(driver, size)
        for part in ("counts", "result"):
            bottom = driver.execute_script(f"return document.getElementById('{part}').getBoundingClientRect().bottom")
            assert bottom <= size[1], f"{size_name}: the {part} is below the fold ({bottom} > {size[1]})"
    viewport(driver, SIZES["phone 390×844"])
    open_tools(driver)
    assert not serious_violations(driver, axe_source, "the console with its tools open")
    screenshot(driver, "judge-ballots-phone.png")
    driver.close()
    driver.switch_to.window(display)
    WebDriverWait(driver, hang_guard(10)).until(lambda d: d.find_element(By.ID, "ballots").is_displayed())
    shown = driver.execute_script("return window.ballotsSeen")
    assert shown and shown[-1]["shown"] and shown[-1]["counted"]
    assert not any(seen["shown"] and not seen["counted"] for seen in shown), f"the display showed them early: {shown}"
    assert console not in driver.window_handles


def test_a_timer_change_from_the_judges_tools_shows_on_both_clocks(live: LiveTable, chromium: Any) -> None:
    driver = chromium
    viewport(driver, SIZES["phone 390×844"])
    driver.get(live.base + "/")
    WebDriverWait(driver, hang_guard(20)).until(lambda d: d.find_element(By.ID, "speaker").is_displayed())
    display = driver.current_window_handle
    driver.switch_to.new_window("tab")
    judge_logged_in(driver, live.base)
    WebDriverWait(driver, hang_guard(20)).until(lambda d: d.find_element(By.ID, "speaker").is_displayed())
    assert seconds_on(driver) <= 60, "a sport speech has a minute"
    open_tools(driver)
    tools = {b.get_attribute("data-tool"): b for b in driver.find_elements(
        By.CSS_SELECTOR, "#speech-tools [data-tool], #judge-tools [data-tool]")}
    assert {"time +30", "time -10", "restart", "back", "hold", "release", "note", "best", "annul", "stop"} <= set(tools)
    assert not {"bestmove", "bonus", "penalty"} & set(tools), "no tournament scoring where its options are off"
    assert tools["time +30"].text == "+30 с" and tools["time +30"].get_attribute("title")
    before, read_at = seconds_on(driver), time.monotonic()

    def thirty_more(d: Any) -> bool:
        """The clock shows 30 s more than it would have by now (10 s of it spared for the page's
        delay): the speech runs in real time, so a busy machine's pause counts it down too."""
        return seconds_on(d) > before - (time.monotonic() - read_at) + 20

    tools["time +30"].click()
    answer = driver.find_element(By.ID, "answer")
    WebDriverWait(driver, hang_guard(30)).until(lambda d: answer.get_attribute("data-command") == "time +30"
                                    and answer.get_attribute("data-outcome") == "done")
    WebDriverWait(driver, hang_guard(10)).until(thirty_more)
    viewport(driver, SIZES["phone 390×844"])
    driver.execute_script("window.scrollTo(0, 0)")
    screenshot(driver, "judge-timer-phone.png")
    driver.close()
    driver.switch_to.window(display)
    WebDriverWait(driver, hang_guard(10)).until(thirty_more)


def test_a_bonus_from_the_judges_page_reaches_the_protocol(tmp_path: Path, chromium: Any) -> None:
    table = LiveTable(tmp_path / "game.jsonl", {seat: f"Игрок{seat}" for seat in range(1, 11)}, options=TOURNAMENT)
    driver = chromium
    try:
        viewport(driver, SIZES["phone 390×844"])
        judge_logged_in(driver, table.base)
        bonus_form = '#judge-tools form[data-tool="bonus"]'
        WebDriverWait(driver, hang_guard(20)).until(lambda d: d.find_elements(By.CSS_SELECTOR, bonus_form))
        open_tools(driver)
        forms = [f.get_attribute("data-tool") for f in driver.find_elements(By.CSS_SELECTOR, "#judge-tools form")]
        assert {"bestmove", "bonus", "penalty"} <= set(forms)
        form = driver.find_element(By.CSS_SELECTOR, bonus_form)
        for name, value in (("seat", "4"), ("points", "0,25"), ("reason", "за точную версию")):
            form.find_element(By.NAME, name).send_keys(value)
        form.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
        answer = driver.find_element(By.ID, "answer")
        WebDriverWait(driver, hang_guard(30)).until(lambda d: answer.get_attribute("data-outcome") == "done")
        assert answer.get_attribute("data-command") == "bonus 4 0,25 за точную версию"
        assert table.director is not None
        protocol = build_protocol(table.director.game, [], table.names)
        assert protocol["judge_points"] == [{"seat": 4, "points": 0.25, "reason": "за точную версию"}]
        note_form = driver.find_element(By.CSS_SELECTOR, '#judge-tools form[data-tool="note"]')
        for name, value in (("note_seat", "0"), ("text", "шумно за столом")):
            note_form.find_element(By.NAME, name).send_keys(value)
        note_form.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
        WebDriverWait(driver, hang_guard(30)).until(    # worded by the server, as every text of the page
            lambda d: d.find_element(By.ID, "judge-notes").text == "Игра: шумно за столом")
    finally:
        table.close()


def tournament_script() -> Any:
    """The sport sample with nobody out on day 1, so its night kills seat 1 first (his best move
    counts), and two more days until the red team wins."""
    data = json.loads(SAMPLE.read_text(encoding="utf-8"))
    data["days"][0] = {"speeches": {}, "votes": {}}
    data["nights"][1]["shots"] = {"3": 1, "5": 1, "9": 1}
    data["nights"][2]["shots"] = {"3": 7, "5": 7}
    data["days"][2]["votes"] = {str(seat): 3 for seat in (2, 4, 5, 6, 8, 10)}
    data["nights"].append({"shots": {"5": 2}})
    data["days"].append({"speeches": {"4": "выставляю игрока номер пять спасибо"},
                         "votes": {str(seat): 5 for seat in (4, 6, 8, 10)}})
    for day in data["days"]:
        for seat in range(1, data["seats"] + 1):
            day["speeches"].setdefault(str(seat), "пас")
    return script_from_data(data)


def tournament_game_played() -> Any:
    """:func:`tournament_script`'s game again under tournament scoring: the first player killed
    at night names seats 3, 5 and 9 (all black) and the judge gives seat 4 a bonus of 0.25 and
    seat 8 a penalty of 0.5; the game plays on to its end."""
    from voicehost.rules.inputs import BestMove, JudgePoints
    from voicehost.rules.sport import SportGame
    played = run_virtual(play_table(tournament_script())).game
    ruleset = load_ruleset("sport")
    game = new_game(ruleset, ruleset.resolve(TOURNAMENT), 10)
    assert isinstance(game, SportGame)
    game.names = dict(played.names)
    given = False
    for item in played.inputs:
        game.push(item)
        if not given and game.first_killed and not game.is_over:
            given = True
            for extra in (BestMove(game.first_killed, (3, 5, 9)), JudgePoints(4, 25, "точная версия"),
                          JudgePoints(8, -50, "подсказка")):
                game.push(extra)
    assert given and game.is_over
    return game


def test_the_judges_page_shows_a_tournament_games_final_points(tmp_path: Path, chromium: Any) -> None:
    game = tournament_game_played()
    protocol = build_protocol(game, [], game.names)
    table = LiveTable(tmp_path / "game.jsonl", options=TOURNAMENT, game=game)
    driver = chromium
    try:
        viewport(driver, SIZES["phone 390×844"])
        judge_logged_in(driver, table.base)
        WebDriverWait(driver, hang_guard(20)).until(lambda d: d.find_element(By.ID, "final").is_displayed())
        rows = {row.get_attribute("data-seat"): (float(row.get_attribute("data-points")), row.text)
                for row in driver.find_elements(By.CSS_SELECTOR, "#final li")}
        assert {seat: points for seat, (points, _) in rows.items()} == protocol["scores"]
        first = str(protocol["best_move"]["by"])
        assert "лучший ход 3, 5, 9, чёрных: 3" in rows[first][1], rows[first]
        assert "от судьи 0,25" in rows["4"][1] and "от судьи -0,5" in rows["8"][1]
        final = driver.find_element(By.ID, "final").get_attribute("textContent")
        assert final.startswith("Очки за игру")
        for size, name in ((SIZES["phone 390×844"], "judge-final-phone.png"),
                           (SIZES["laptop 1280×800"], "judge-final-laptop.png")):
            viewport(driver, size)
            driver.execute_script("document.getElementById('result').closest('section')"
                                  ".scrollIntoView({block: 'start'})")
            box = driver.execute_script("return document.getElementById('final').getBoundingClientRect().bottom")
            assert box <= size[1] + 1, f"the final points run below the screen at {size}"
            screenshot(driver, name)
    finally:
        table.close()


# navigator.vibrate, recorded: the page's buzzes (headless chromium has no motor to feel them)
RECORD_BUZZES = "window.buzzes = []; navigator.vibrate = (pattern) => { window.buzzes.push(pattern); return true; };"
CLOCK_LOOK = """
const box = document.getElementById('speaker'), clock = document.getElementById('clock');
const mark = document.getElementById('held-mark');
return {text: clock.textContent, colour: getComputedStyle(clock).color, border: getComputedStyle(box).borderTopColor,
        held: box.classList.contains('held'),
        last10: box.classList.contains('last10'), last5: box.classList.contains('last5'),
        mark: mark !== null && mark.getBoundingClientRect().height > 0 ? mark.textContent : null,
        buzzes: window.buzzes || []};
"""
AMBER, RED, BLUE, WHITE = "rgb(255, 159, 10)", "rgb(255, 69, 58)", "rgb(100, 210, 255)", "rgb(255, 255, 255)"


def test_a_held_clock_stands_still_and_the_last_seconds_change_colour_and_buzz(
        live: LiveTable, chromium: Any) -> None:
    """«Стоп-время» (hold): the server holds the clock, and so do the judge's phone and the
    display — it stands still and says «стоп-время» (the page counted down and jumped back on
    each update). Released, it runs again; at 10 s it turns amber and at 5 s red, and the
    judge's phone (not the display) buzzes once as each begins."""
    driver = chromium
    display = driver.current_window_handle
    recorder = driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": RECORD_BUZZES})
    try:
        viewport(driver, SIZES["phone 390×844"])
        driver.get(live.base + "/")
        WebDriverWait(driver, hang_guard(20)).until(lambda d: d.find_element(By.ID, "speaker").is_displayed())
        driver.switch_to.new_window("tab")
        driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": RECORD_BUZZES})   # this tab's
        viewport(driver, SIZES["phone 390×844"])
        judge_logged_in(driver, live.base)
        phone = driver.current_window_handle
        WebDriverWait(driver, hang_guard(20)).until(lambda d: d.find_element(By.ID, "speaker").is_displayed())
        live.type("hold")
        WebDriverWait(driver, hang_guard(10)).until(lambda d: d.execute_script(CLOCK_LOOK)["held"])
        for page in (phone, display):
            driver.switch_to.window(page)
            first = driver.execute_script(CLOCK_LOOK)
            time.sleep(2.5)   # the page's clock ticks every 0.2 s: it would have counted 2 s down
            then = driver.execute_script(CLOCK_LOOK)
            assert then["text"] == first["text"] and then["held"], f"a held clock moved: {first} → {then}"
            assert then["mark"] == "стоп-время" and then["colour"] == then["border"] == BLUE, then
            screenshot(driver, f"{'judge' if page == phone else 'table'}-held-phone.png")
        driver.switch_to.window(phone)
        live.type("release")
        WebDriverWait(driver, hang_guard(10)).until(lambda d: not d.execute_script(CLOCK_LOOK)["held"])
        assert driver.execute_script(CLOCK_LOOK)["mark"] is None
        running = seconds_on(driver)
        WebDriverWait(driver, hang_guard(10)).until(lambda d: seconds_on(d) <= running - 2)
        live.type(f"time -{max(1, seconds_on(driver) - 13)}")   # about 13 s left: the last seconds come
        WebDriverWait(driver, hang_guard(20), poll_frequency=0.1).until(
            lambda d: d.execute_script(CLOCK_LOOK)["last10"])
        ten = driver.execute_script(CLOCK_LOOK)
        # the colour is the box's border (the clock's digits blink with the ruleset's warning, also at 10 s)
        assert ten["border"] == AMBER and ten["colour"] in (AMBER, WHITE) and ten["buzzes"] == [200], ten
        WebDriverWait(driver, hang_guard(20), poll_frequency=0.1).until(
            lambda d: d.execute_script(CLOCK_LOOK)["last5"])
        five = driver.execute_script(CLOCK_LOOK)
        assert five["border"] == RED and five["colour"] in (RED, WHITE), five
        assert five["buzzes"] == [200, [200, 100, 200]], five
        WebDriverWait(driver, hang_guard(5), poll_frequency=0.05).until(   # the picture: between two blinks
            lambda d: d.execute_script(CLOCK_LOOK)["colour"] == RED)
        screenshot(driver, "judge-last-seconds-phone.png")
        driver.switch_to.window(display)
        shown = driver.execute_script(CLOCK_LOOK)
        assert shown["last5"] or not shown["text"].startswith("0:0"), shown
        assert shown["buzzes"] == [], "the display does not buzz"
    finally:
        for window in driver.window_handles[1:]:
            driver.switch_to.window(window)
            driver.close()
        driver.switch_to.window(display)
        driver.execute_cdp_cmd("Page.removeScriptToEvaluateOnNewDocument", {"identifier": recorder["identifier"]})

# ---- the judge's phone in one hand: one screen per moment (issue 42) ---------------------------------------
# During a speech the speaker, his clock and every tool a judge uses on it (+30, −10, restart, back, hold,
# release, end, foul on the speaker, pause) stand in the first screen of a phone; during a vote the count,
# the result and every ballot; a seat's actions open on a long press of its tile; a destructive action asks
# once. Positions are the elements' rectangles inside the viewport (docs/web.md lists them, before and after).

PHONES = {"phone 390×844": (390, 844), "small phone 360×640": (360, 640), "tablet 820×1180": (820, 1180)}
SPEECH_TOOLS = {"clock": "#clock", "+30": '[data-tool="time +30"]', "-10": '[data-tool="time -10"]',
                "restart": '[data-tool="restart"]', "back": '[data-tool="back"]', "hold": '[data-tool="hold"]',
                "release": '[data-tool="release"]', "end": '[data-speech="end"]',
                "foul on the speaker": '[data-speech="foul"]', "pause": '[data-speech="pause"]'}
RECTANGLES = """
const out = {};
for (const [name, selector] of Object.entries(arguments[0])) {
  const node = document.querySelector(selector);
  const r = node ? node.getBoundingClientRect() : null;
  out[name] = r && r.width > 0 ? [r.left, r.top, r.right, r.bottom] : null;
}
return {rects: out, width: innerWidth, height: innerHeight, scrollWidth: document.documentElement.scrollWidth};
"""


def outside_the_first_screen(driver: Any, wanted: dict[str, str]) -> list[str]:
    """Each wanted element that is missing, hidden, or not wholly inside the viewport as the page
    opens (scrolled to the top), with its rectangle."""
    driver.execute_script("window.scrollTo(0, 0)")
    seen = driver.execute_script(RECTANGLES, wanted)
    faults = [] if seen["scrollWidth"] <= seen["width"] else [f"the page scrolls sideways ({seen['scrollWidth']} px)"]
    for name, rect in seen["rects"].items():
        if rect is None:
            faults.append(f"{name}: not shown")
        elif rect[0] < 0 or rect[1] < 0 or rect[2] > seen["width"] + 0.5 or rect[3] > seen["height"] + 0.5:
            faults.append(f"{name}: at {[round(v) for v in rect]} in {seen['width']}×{seen['height']}")
    return faults


def in_a_speech(driver: Any, base: str) -> None:
    judge_logged_in(driver, base)
    WebDriverWait(driver, hang_guard(20)).until(
        lambda d: d.find_element(By.CSS_SELECTOR, '[data-tool="time +30"]').is_displayed())


def test_during_a_speech_the_clock_and_its_tools_are_in_the_first_screen(live: LiveTable, chromium: Any) -> None:
    """Before: the seat tiles took 520 px, «Пауза» stood at 888 px, the timer buttons at 1,130 px
    behind a closed section: the clock was never on screen while one of them was tapped."""
    driver = chromium
    viewport(driver, PHONES["phone 390×844"])
    in_a_speech(driver, live.base)
    faults = {}
    for size_name, size in PHONES.items():
        viewport(driver, size)
        time.sleep(0.2)
        faults[size_name] = outside_the_first_screen(driver, SPEECH_TOOLS | {"seats": "#seats"})
        screenshot(driver, f"judge-speech-{size[0]}x{size[1]}.png")
    assert not any(faults.values()), faults
    viewport(driver, PHONES["phone 390×844"])
    foul = driver.find_element(By.CSS_SELECTOR, '[data-speech="foul"]')
    assert foul.text == "Фол игроку 1", "the foul button names the speaker"
    foul.click()
    WebDriverWait(driver, hang_guard(30)).until(lambda d: live.state()["seats"][0]["fouls"] == 1)
    driver.find_element(By.CSS_SELECTOR, '[data-speech="pause"]').click()
    WebDriverWait(driver, hang_guard(30)).until(
        lambda d: d.find_element(By.CSS_SELECTOR, '[data-speech="resume"]').is_displayed())
    assert not driver.find_element(By.CSS_SELECTOR, '[data-speech="pause"]').is_displayed()
    assert not outside_the_first_screen(driver, {"resume": '[data-speech="resume"]', "clock": "#clock"})


def long_press(driver: Any, seat: int) -> None:
    tile = driver.find_element(By.CSS_SELECTOR, f'#seats .seat[data-seat="{seat}"]')
    ActionChains(driver).click_and_hold(tile).pause(0.9).release().perform()
    WebDriverWait(driver, hang_guard(10)).until(lambda d: d.find_element(By.ID, "seat-menu").is_displayed())


def menu_button(driver: Any, command: str) -> Any:
    return driver.find_element(By.CSS_SELECTOR, f'#seat-menu [data-menu="{command}"]')


def test_a_long_press_on_a_seat_opens_its_actions_and_removal_asks_once(live: LiveTable, chromium: Any) -> None:
    driver = chromium
    viewport(driver, PHONES["phone 390×844"])
    in_a_speech(driver, live.base)
    long_press(driver, 4)
    offered = [b.get_attribute("data-menu") for b in driver.find_elements(By.CSS_SELECTOR, "#seat-menu [data-menu]")]
    assert offered[:2] == ["foul", "unfoul"] and "remove" in offered and "nominate" in offered, offered
    assert "hand" not in offered, "«Рука» is not sport's"
    assert driver.find_element(By.ID, "seat-menu-title").text == "Место 4 · Игрок4"
    assert not outside_the_first_screen(driver, {"menu": ".seat-menu-box"})
    screenshot(driver, "judge-seat-menu-phone.png")
    assert not any(tile.get_attribute("aria-pressed") == "true"
                   for tile in driver.find_elements(By.CSS_SELECTOR, "#seats .seat")), \
        "the click that ends a long press does not also choose the seat"
    menu_button(driver, "foul").click()
    WebDriverWait(driver, hang_guard(30)).until(lambda d: live.state()["seats"][3]["fouls"] == 1)
    assert not driver.find_element(By.ID, "seat-menu").is_displayed()
    long_press(driver, 4)
    menu_button(driver, "unfoul").click()   # a foul taken back at any time
    WebDriverWait(driver, hang_guard(30)).until(lambda d: live.state()["seats"][3]["fouls"] == 0)

    long_press(driver, 4)
    remove = menu_button(driver, "remove")
    remove.click()
    assert remove.text.startswith("Точно?"), "the first tap asks"
    time.sleep(0.5)
    assert live.state()["seats"][3]["alive"], "one tap removes no one"
    remove.click()
    WebDriverWait(driver, hang_guard(30)).until(lambda d: not live.state()["seats"][3]["alive"])


def test_removal_from_the_controls_asks_once_and_lets_go(live: LiveTable, chromium: Any) -> None:
    driver = chromium
    viewport(driver, PHONES["phone 390×844"])
    in_a_speech(driver, live.base)
    driver.find_element(By.CSS_SELECTOR, '#seats .seat[data-seat="6"]').click()
    remove = driver.find_element(By.CSS_SELECTOR, '.controls button[data-command="remove"]')
    remove.click()
    assert remove.text == "Точно удалить игрока 6? Нажмите ещё раз"
    WebDriverWait(driver, hang_guard(10)).until(lambda d: remove.text == "Удалить")   # it lets go by itself
    assert live.state()["seats"][5]["alive"]
    driver.find_element(By.CSS_SELECTOR, '#seats .seat[data-seat="6"]').click()
    remove.click()
    remove.click()
    WebDriverWait(driver, hang_guard(30)).until(lambda d: not live.state()["seats"][5]["alive"])


def test_during_a_vote_the_count_the_result_and_every_ballot_are_in_the_first_screen(
        live: LiveTable, chromium: Any) -> None:
    driver = chromium
    viewport(driver, PHONES["phone 390×844"])
    judge_logged_in(driver, live.base)
    live.to_the_vote()
    WebDriverWait(driver, hang_guard(20)).until(lambda d: d.find_element(By.ID, "ballots").is_displayed())
    faults = {}
    for size_name, size in PHONES.items():
        viewport(driver, size)
        time.sleep(0.2)
        faults[size_name] = outside_the_first_screen(driver, {"count": "#counts", "result": "#result",
                                                              "ballots": "#ballots"})
        screenshot(driver, f"judge-vote-{size[0]}x{size[1]}.png")
    assert not any(faults.values()), faults
    assert not driver.find_element(By.ID, "speech-tools").is_displayed(), "no clock tools without a speaker"


def test_the_display_says_an_annulment_until_the_next_game_and_not_after_undo(live: LiveTable) -> None:
    """After «annul» on ``serve`` the display went back to «Стол готов» with the previous vote's
    «Итог» and no word of the annulment; now the verdict is the result the display shows, while the
    game stands and after it (the idle table keeps the last result), and undo takes it back."""
    def shown() -> Any:
        async def public() -> Any:
            return live.table.public_state()["result"]
        return live.call(public())

    def until(wanted: Callable[[Any], bool]) -> Any:
        for _ in range(200):
            if wanted(seen := shown()):
                return seen
            time.sleep(0.05)
        raise AssertionError(f"the display shows {shown()!r}")

    assert shown() is None
    live.type("annul свет погас")
    until(lambda result: result == "Игра аннулирована.")

    async def heard(notice: LineSaid) -> None:   # what the view hears when undo takes the verdict back
        assert live.table.view is not None
        live.table.view.heard(notice)
    live.call(heard(LineSaid("resumed", {}, "Продолжаем.", 0.0, 0.0)))   # undo's own line (test_judge_words plays it)
    until(lambda result: result is None)
    live.call(heard(LineSaid("game_stopped", {}, "Игра остановлена.", 0.0, 0.0)))
    until(lambda result: result == "Игра остановлена.")

    async def game_set_aside() -> Any:   # serve's idle table after the game: what its display shows
        live.table._detach()
        return live.table.public_state()
    idle = live.call(game_set_aside())
    assert idle["result"] == "Игра остановлена." and idle["seats"] == []


def test_at_night_the_nights_log_stands_above_the_seats(live: LiveTable, chromium: Any) -> None:
    """At night the judge needs the shots and checks: the page's own moment (judge.js drawMoment,
    given the state as it is at night: no speaker, no vote, a night phase) puts the night's log
    in the first screen, above the seats, and the clock's tools away."""
    driver = chromium
    viewport(driver, PHONES["phone 390×844"])
    in_a_speech(driver, live.base)
    driver.execute_script("Judge.drawMoment({...Table.state, speaker: null, vote: null, "
                          "phase: {kind: 'night', number: 2, text: 'Ночь 2'}}, false)")
    for size in PHONES.values():
        viewport(driver, size)
        assert not outside_the_first_screen(driver, {"night": "#night-box h2"}), size
        night, seats = driver.execute_script(
            "return [document.getElementById('night-box').getBoundingClientRect().top, "
            "document.getElementById('seats').getBoundingClientRect().top]")
        assert night < seats, f"{size}: the night's log at {night}, the seats at {seats}"
    assert not driver.find_element(By.ID, "speech-tools").is_displayed()


class ScheduledDesk(IdleDesk):
    """A tournament table's idle desk (``serve --tournament``): the schedule seats its next game."""

    scheduled = {"1": "Анна", "2": "Борис", "10": "Яна"}

    def setup_state(self) -> dict[str, Any]:
        return {**super().setup_state(), "scheduled": dict(self.scheduled)}


def test_a_tournament_tables_setup_page_shows_the_schedules_names(tmp_path: Path, chromium: Any) -> None:
    """The schedule's names were taken by the game but not shown on the phone's setup page; now
    they fill the roster, and a name the judge types himself stays his."""
    desk = ScheduledDesk()
    table = LiveTable(tmp_path / "game.jsonl", desk=desk)
    driver = chromium
    try:
        viewport(driver, SIZES["phone 390×844"])
        judge_logged_in_idle(driver, table.base)
        roster = {field.get_attribute("data-seat"): field for field in
                  driver.find_elements(By.CSS_SELECTOR, "#roster input")}
        WebDriverWait(driver, hang_guard(10)).until(lambda d: roster["1"].get_attribute("value") == "Анна")
        assert [roster[seat].get_attribute("value") for seat in ("1", "2", "3", "10")] == ["Анна", "Борис", "", "Яна"]
        roster["2"].clear()
        roster["2"].send_keys("Вера")
        driver.find_element(By.ID, "start-button").click()
        WebDriverWait(driver, hang_guard(10)).until(lambda d: desk.started)
        assert dict(desk.started[0].names) == {1: "Анна", 2: "Вера", 10: "Яна"}
    finally:
        table.close()


def judge_logged_in_idle(driver: Any, base: str) -> None:
    driver.get(base + "/judge")
    wait = WebDriverWait(driver, hang_guard(20))
    wait.until(lambda d: d.find_element(By.ID, "pin").is_displayed())
    driver.find_element(By.ID, "pin").send_keys(PIN)
    driver.find_element(By.ID, "login-button").click()
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#roster input"))
