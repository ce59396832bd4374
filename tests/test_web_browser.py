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
import shutil
import tempfile
import time
from collections.abc import AsyncIterator, Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from voicehost.host import ConsoleAnswered, Director, Notice, run_virtual
from voicehost.rules.protocol import build_protocol
from voicehost.simulation.script import script_from_data
from voicehost.simulation.table_level import TableRun, VirtualVoice, play_table
from voicehost.web import WebTable

selenium = pytest.importorskip("selenium", reason="selenium is not installed (pip install -e '.[test]')")
from selenium import webdriver  # noqa: E402
from selenium.common.exceptions import StaleElementReferenceException  # noqa: E402
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
          counts: text("counts"), result: text("result"), subtitles: text("subtitles")};
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
        options.binary_location = CHROMIUM
        for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                     "--disable-background-networking", "--disable-component-update", "--disable-sync",
                     "--disable-dev-shm-usage", f"--user-data-dir={profile}"):
            options.add_argument(flag)
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})   # the pages' console: CSP reports
        self.driver = webdriver.Chrome(options=options, service=webdriver.ChromeService(executable_path=DRIVER))
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
    assert any(s["nominations"].startswith("5") for s in seen), "nominations in order"
    assert any(s["counts"] for s in seen), "a count on the display"
    assert browser.answers[0] == "foul 4: Готово. Игрок номер четыре, замечание. Это первое замечание."
    assert "Исправление: игрок номер три голосовал против игрока номер пять." in browser.answers[2]
    assert seen[-1]["phase"] == "Игра окончена" and seen[-1]["result"]
    for role in ("дон", "мафия", "шериф", "мирный"):
        assert not any(role in tile.lower() for s in seen for tile in s["seats"].values()), f"a seat showed {role!r}"
    assert len(shots) == 4 and all(path.stat().st_size > 10_000 for path in shots)
    assert browser.refused == [], "the pages break their own Content-Security-Policy"
    assert browser.inline_ran == [False, False], "the browser enforces the policy"
