"""The judge's page without a mouse, a touch or a look (issue 46 item 3): a whole sport game,
from the PIN to the result, driven in headless Chromium by Tab, Shift+Tab, Enter and Space alone
(and the PIN's digits). Each step checks where the keyboard's focus went after the action, what
each control is called (the seat it acts on), and what the live regions said; axe-core finds no
serious or critical fault in each phase (a speech, a paused speech, the seat's menu, the vote,
the night, the game over). Screenshots: docs/screenshots/judge-focus-order-speech.png and
judge-keyboard-paused-phone.png (``VOICEHOST_UPDATE_SCREENSHOTS``)."""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from machine import hang_guard
from test_web_browser import (  # noqa: F401 — chromium and axe_source are the fixtures used here
    CHROMIUM,
    DRIVER,
    PIN,
    LiveTable,
    axe_source,
    chromium,
    screenshot,
    serious_violations,
    viewport,
)

from voicehost.config import load_ruleset
from voicehost.host import Director, EdgeLog, Journal, Ports
from voicehost.host.dealing import typed_deal
from voicehost.rules import new_game
from voicehost.rules.inputs import Dawn
from voicehost.simulation.table_level import VirtualVoice

pytest.importorskip("selenium", reason="selenium is not installed (pip install -e '.[test]')")
from selenium.webdriver.common.action_chains import ActionChains  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

pytestmark = pytest.mark.skipif(not (CHROMIUM and DRIVER), reason="Debian's chromium and chromium-driver "
                                "are not installed (apt-get install chromium chromium-driver)")

ROLES = "3=don,5=mafia,9=mafia,7=sheriff"
SPEED = 3.0   # table seconds per real second: a 60 s speech takes 20 s, the night under a minute
PHONE = (390, 844)

# What has the keyboard's focus, as a screen reader would name it.
FOCUSED = """
const e = document.activeElement;
if (!e || e === document.body) return null;
const name = (e.getAttribute('aria-label') || e.textContent || '').replace(/\\s+/g, ' ').trim();
return {tag: e.tagName, id: e.id || null, seat: e.closest('#seats') ? Number(e.dataset.seat) : null,
        speech: e.dataset.speech || null, command: e.dataset.command || null, tool: e.dataset.tool || null,
        menu: e.dataset.menu || null, name: name, shown: e.offsetParent !== null};
"""
# Everything the live regions (the announcements and the host's answers) say, in order.
LISTEN = """
window.heard = [];
const note = (node) => new MutationObserver(() => {
  const text = node.textContent.trim();
  if (text && window.heard[window.heard.length - 1] !== text) window.heard.push(text);
}).observe(node, {childList: true, characterData: true, subtree: true});
note(document.getElementById('announce'));
note(document.getElementById('answer'));
"""


class KeyboardTable(LiveTable):
    """:class:`LiveTable`'s sport game on day 1, its clock :data:`SPEED` times real time, no
    names (the seats are read as «Место N»)."""

    def _day_one(self) -> Director:
        ruleset = load_ruleset("sport")
        game = new_game(ruleset, ruleset.resolve({}), 10)
        self.log = Journal(self.journal, {"ruleset": "sport", "options": {}, "seats": 10, "level": "live"})
        for index, item in enumerate([typed_deal(ROLES, game, "roles"), Dawn()]):
            game.push(item)
            self.log.append(index, 0.0, "host", item)
        ports = Ports(night=lambda on: None, led=lambda seat, pattern: None, edges=EdgeLog(),
                      speak=VirtualVoice(50).speak, clock=asyncio.get_running_loop().time, speed=SPEED, poll_s=None)
        return Director(game, ports, self.log, log=lambda line: None)


class Walk:
    """One judge at the keyboard: each key pressed, and where the focus is now."""

    def __init__(self, driver: Any, table: KeyboardTable) -> None:
        self.driver, self.table = driver, table
        self.faults: list[str] = []

    def press(self, *keys: str) -> None:
        ActionChains(self.driver).send_keys(*keys).perform()

    def focus(self) -> dict[str, Any]:
        focused: dict[str, Any] | None = self.driver.execute_script(FOCUSED)
        assert focused is not None, "the keyboard's focus was lost to the page"
        return focused

    def tab_to(self, wanted: Callable[[dict[str, Any]], bool], back: bool = False, limit: int = 60) -> list[str]:
        """Tab (or Shift+Tab) until the focus is on what is wanted; the names passed on the way."""
        passed: list[str] = []
        for _ in range(limit):
            if back:
                ActionChains(self.driver).key_down(Keys.SHIFT).send_keys(Keys.TAB).key_up(Keys.SHIFT).perform()
            else:
                self.press(Keys.TAB)
            now = self.driver.execute_script(FOCUSED)
            assert now is not None, f"the focus was lost to the page after {passed}"
            passed.append(now["name"])
            if wanted(now):
                return passed
        raise AssertionError(f"not reached by {'Shift+' if back else ''}Tab: {passed}")

    def until(self, condition: Callable[[dict[str, Any]], Any], what: str, timeout: float = 60) -> None:
        deadline = time.monotonic() + hang_guard(timeout)
        while not condition(self.table.state()):
            assert time.monotonic() < deadline, f"{what}: not reached; the state: {self.table.state()}"
            time.sleep(0.05)

    def heard(self) -> list[str]:
        return list(self.driver.execute_script("return window.heard"))

    def axe(self, axe: str, where: str) -> None:
        self.faults += serious_violations(self.driver, axe, where)

    def speaker(self) -> int | None:
        speaker = self.table.state()["speaker"]
        return None if speaker is None else int(speaker["seat"])


def seat(n: int) -> Callable[[dict[str, Any]], bool]:
    return lambda focused: focused["seat"] == n


def speaks(n: int) -> Callable[[dict[str, Any]], bool]:
    return lambda state: bool(state["speaker"]) and state["speaker"]["seat"] == n


def after(speaking: Callable[[dict[str, Any]], bool]) -> Callable[[dict[str, Any]], bool]:
    return lambda state: not speaking(state)


def control(command: str) -> Callable[[dict[str, Any]], bool]:
    return lambda focused: focused["command"] == command


@pytest.fixture
def table(tmp_path: Path) -> Any:
    live = KeyboardTable(tmp_path / "game.jsonl")
    try:
        yield live
    finally:
        live.close()


def log_in(walk: Walk) -> None:
    """The PIN typed where the page put the focus, Enter; the focus then on the phase's heading."""
    driver = walk.driver
    driver.get(walk.table.base + "/judge")
    WebDriverWait(driver, hang_guard(20)).until(lambda d: d.find_element(By.ID, "pin").is_displayed())
    assert walk.focus()["id"] == "pin", "the login puts the focus on the PIN"
    walk.press(PIN, Keys.ENTER)
    WebDriverWait(driver, hang_guard(20)).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#seats .seat"))
    driver.execute_script(LISTEN)
    assert walk.focus()["id"] == "phase", "after the login: the phase's heading, above the clock"


def first_speech(walk: Walk, axe: str) -> None:
    """Seat 1's speech: the clock held, a foul to the speaker, a pause and its resume from the
    clock's tools; the Tab order from the clock down the seats to «Действия места…»; seat 1
    nominates seat 5 through his seat's menu."""
    walk.until(lambda s: s["speaker"] and s["speaker"]["seat"] == 1, "seat 1 speaks")
    passed = walk.tab_to(lambda f: f["tool"] == "hold")
    assert passed == ["+30 с", "−10 с", "Речь заново", "Вернуть слово", "Стоп-время"], passed
    walk.press(Keys.ENTER)
    walk.until(lambda s: s["speaker"]["held"], "the clock held")
    assert walk.tab_to(lambda f: f["speech"] == "foul") == ["Пустить время", "Конец речи игрока 1", "Фол игроку 1"]
    screenshot(walk.driver, "judge-focus-order-speech.png")
    walk.press(Keys.ENTER)
    walk.until(lambda s: s["seats"][0]["fouls"] == 1, "the foul to the speaker")
    assert walk.focus()["speech"] == "foul", "the focus stays on the control just used"
    walk.axe(axe, "a speech")
    walk.tab_to(lambda f: f["speech"] == "pause", limit=1)
    walk.press(Keys.ENTER)
    walk.until(lambda s: s["paused"], "the pause")
    WebDriverWait(walk.driver, hang_guard(10)).until(lambda d: walk.focus()["speech"] == "resume")
    assert walk.focus()["name"] == "Продолжить", "the hidden «Пауза» hands the focus to «Продолжить»"
    WebDriverWait(walk.driver, hang_guard(10)).until(lambda d: "Игра на паузе." in walk.heard())
    screenshot(walk.driver, "judge-keyboard-paused-phone.png")
    walk.axe(axe, "a paused speech")
    walk.press(Keys.ENTER)
    walk.until(lambda s: not s["paused"], "the resume")
    WebDriverWait(walk.driver, hang_guard(10)).until(lambda d: walk.focus()["speech"] == "pause")
    # down the seats, in their order, each named by its place
    passed = walk.tab_to(seat(1))
    assert passed[-1].startswith("Место 1") and "говорит" in passed[-1] and "фолов: 1" in passed[-1], passed
    walk.press(Keys.SPACE)
    assert walk.focus()["seat"] == 1 and walk.driver.find_element(By.ID, "hint").text == "Место 1: выберите действие."
    passed = walk.tab_to(lambda f: f["id"] == "seat-actions")
    assert [re.match(r"Место (\d+)", name)[1] for name in passed[:-1]] == [str(n) for n in range(2, 11)], passed  # type: ignore[index]
    assert "Место 3, дон" in passed[1], passed
    assert passed[-1] == "Действия места… игрок 1", passed
    walk.press(Keys.ENTER)
    assert walk.focus()["name"] == "Фол: игрок 1", "the menu opens on its first action"
    walk.axe(axe, "a seat's menu")
    assert walk.tab_to(lambda f: f["menu"] == "nominate") == ["Снять фол: игрок 1", "Выставляет…: игрок 1"]
    walk.press(Keys.ENTER)
    assert walk.focus()["seat"] == 1, "the second seat is chosen among the tiles: the focus is there"
    assert walk.driver.find_element(By.ID, "hint").text == "Место 1: кого выставляет? Выберите место."
    walk.tab_to(seat(5), limit=4)
    walk.press(Keys.SPACE)
    walk.until(lambda s: [(n["by"], n["target"]) for n in s["nominations"]] == [(1, 5)], "1 nominates 5")
    assert walk.focus()["seat"] == 5, "a redrawn seat keeps the focus"


def second_speech(walk: Walk) -> None:
    """Seat 2 nominates seat 9 through the controls under the seats (the seat, then the action)."""
    walk.tab_to(control("end"))
    walk.press(Keys.ENTER)
    walk.until(lambda s: s["speaker"] and s["speaker"]["seat"] == 2 and not s["speaker"]["held"], "seat 2 speaks")
    assert walk.focus()["command"] == "end", "the focus stays on «Конец речи»"
    walk.tab_to(lambda f: f["tool"] == "hold", back=True)
    walk.press(Keys.ENTER)
    walk.until(lambda s: s["speaker"]["held"], "seat 2's clock held")
    walk.tab_to(seat(2))
    walk.press(Keys.SPACE)
    passed = walk.tab_to(control("nominate"))
    assert passed[-1] == "Выставляет…: игрок 2" and "Фол: игрок 2" in passed and "Удалить: игрок 2" in passed, passed
    walk.press(Keys.ENTER)
    assert walk.focus()["seat"] == 1
    walk.tab_to(seat(9), limit=8)
    walk.press(Keys.SPACE)
    walk.until(lambda s: [(n["by"], n["target"]) for n in s["nominations"]] == [(1, 5), (2, 9)], "2 nominates 9")


def to_the_vote(walk: Walk, axe: str) -> None:
    """Every other speech ended by Enter on «Конец речи»; «Пауза» pressed as the vote begins
    holds the table at the vote (read with nothing moving), «Продолжить» lets it be counted."""
    walk.tab_to(control("end"))
    for speaker in range(2, 11):
        speaking = speaks(speaker)
        walk.until(speaking, f"seat {speaker} speaks")
        walk.press(Keys.ENTER)
        walk.until(after(speaking), f"seat {speaker}'s end")
        assert walk.focus()["command"] == "end"
    walk.until(lambda s: s["vote"], "the vote")
    walk.tab_to(control("pause"), limit=3)
    walk.press(Keys.ENTER)
    walk.until(lambda s: s["paused"] and s["vote"], "the vote, paused")
    walk.axe(axe, "the vote")
    walk.tab_to(control("resume"), limit=1)
    walk.press(Keys.ENTER)
    walk.until(lambda s: s["vote"] and s["vote"]["counted"] and s["result"] or s["speaker"], "the count")
    deadline = time.monotonic() + hang_guard(20)
    while not any(line.startswith("Подсчитано: ") for line in walk.heard()):
        assert time.monotonic() < deadline, f"the count was not announced: {walk.heard()}"
        time.sleep(0.1)


def last_word_and_night(walk: Walk, axe: str) -> None:
    walk.until(lambda s: s["speaker"] is not None and s["speaker"]["seat"] == 9, "seat 9's last word")
    walk.tab_to(control("end"), back=True)
    walk.press(Keys.ENTER)
    walk.until(lambda s: s["phase"]["kind"] == "night", "the night")
    walk.axe(axe, "the night")
    walk.until(lambda s: s["phase"]["kind"] == "day" and s["speaker"] is not None, "day 2's first speech", timeout=120)
    walk.axe(axe, "day 2")


def remove(walk: Walk, n: int) -> None:
    """Seat ``n`` removed through his seat's menu: «Удалить» asks, Enter again confirms."""
    walk.tab_to(seat(n), back=True)
    walk.press(Keys.SPACE)
    walk.tab_to(lambda f: f["id"] == "seat-actions")
    walk.press(Keys.ENTER)
    assert walk.tab_to(lambda f: f["menu"] == "remove")[-1] == f"Удалить: игрок {n}"
    walk.press(Keys.ENTER)
    assert walk.focus()["name"] == f"Точно? Удалить: игрок {n}", "the question is what the button says now"
    assert walk.table.state()["seats"][n - 1]["alive"], "one Enter removes no one"
    walk.press(Keys.ENTER)
    walk.until(lambda s: not s["seats"][n - 1]["alive"], f"seat {n} removed")
    assert walk.focus()["id"] == "seat-actions", "the closed menu gives the focus back to its button"


def test_a_whole_sport_game_by_keyboard_alone(table: KeyboardTable, chromium: Any,  # noqa: F811 — the fixtures
                                               axe_source: str) -> None:  # noqa: F811
    driver = chromium
    viewport(driver, PHONE)
    walk = Walk(driver, table)
    log_in(walk)
    first_speech(walk, axe_source)
    second_speech(walk)
    to_the_vote(walk, axe_source)
    last_word_and_night(walk, axe_source)
    remove(walk, 3)
    remove(walk, 5)
    walk.until(lambda s: s["phase"]["kind"] == "over" and s["result"], "the game over")
    result = table.state()["result"]
    assert "победа красных" in result, result
    WebDriverWait(driver, hang_guard(10)).until(lambda d: result in " ".join(walk.heard()))
    walk.axe(axe_source, "the game over")
    heard = walk.heard()
    for line in ("Говорит игрок 2: речь.", "Стоп-время: часы игрока 1 стоят.", "Игра продолжается.",
                 "Голосование: сейчас за игрока 5.",
                 "Подсчитано: за игрока 5: 0, за игрока 9: 10.", "Игрок номер 9 покидает игру",
                 "Ночь 2.", "День 2.", "Игроку 1 — замечание (всего: 1).", "Игрок 1 выставил игрока 5."):
        assert any(line in said for said in heard), (line, heard)
    assert not walk.faults, "\n".join(walk.faults)
