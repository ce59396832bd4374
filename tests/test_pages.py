"""The pages' words come from one catalog (voicehost/web/pages.py): no Russian is left in
voicehost/web/static outside comments, every word a page asks for exists, and the judge's page,
in a real browser, reads Russian by default and English under ``--lang en`` — its static text,
the labels its script builds and what its live region says."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from machine import hang_guard
from test_web_browser import (  # noqa: F401 — chromium is the fixture used here
    CHROMIUM,
    DRIVER,
    LiveTable,
    chromium,
    judge_logged_in,
    screenshot,
    viewport,
)

from voicehost.i18n import set_language
from voicehost.language.read_lines import has_line
from voicehost.web.pages import PLACEHOLDER, STATIC, rendered

CYRILLIC = re.compile("[\u0400-\u04ff]")
# A comment: // after the line's start or a space (never the // of "wss://"), /* … */, <!-- … -->.
COMMENTS = re.compile(r"/\*.*?\*/|<!--.*?-->|(?:^|(?<=\s))//[^\n]*", re.S | re.M)
SAID = re.compile(r"""Table\.say\(\s*["'](\w+)["']""")
# The keys a script builds from a command or a plural category: each must exist too.
BUILT = [f"ask_{command}" for command in ("nominate", "withdraw", "blood", "vote")]
PAGES = ("judge.html", "table.html", "club.html", "overlay.html")


def sources() -> list[Path]:
    return sorted(p for p in STATIC.iterdir() if p.suffix in (".js", ".html"))


def test_no_cyrillic_in_the_pages_outside_comments() -> None:
    """Every Russian word a page shows comes from the catalog: none is written in the files."""
    found = [f"{path.name}: {line.strip()[:80]}" for path in sources()
             for line in COMMENTS.sub("", path.read_text(encoding="utf-8")).splitlines() if CYRILLIC.search(line)]
    assert not found, found


def test_the_comment_filter_still_sees_code() -> None:
    """The scan's comment filter leaves a literal after a URL's // in place (or the scan would be blind)."""
    code = 'const url = "wss://" + host; const said = "Пауза";   // a comment: «Пауза»\n<!-- «Пауза» -->'
    assert CYRILLIC.search(COMMENTS.sub("", code))
    assert not CYRILLIC.search(COMMENTS.sub("", "// «Пауза»\n/* «Пауза» */\n<!-- «Пауза» -->"))


def test_every_word_a_page_asks_for_is_in_the_catalog() -> None:
    """A {{key}} in a page and a Table.say("key") in a script name a page.* line (a typo would
    show the key itself on the phone)."""
    asked = {(path.name, key) for path in sources() for key in PLACEHOLDER.findall(path.read_text(encoding="utf-8"))
             if key not in ("lang", "texts")}
    asked |= {(path.name, key) for path in sources() for key in SAID.findall(path.read_text(encoding="utf-8"))}
    asked |= {("judge.js", key) for key in BUILT}
    missing = sorted((name, key) for name, key in asked if not has_line("page", key))
    assert len(asked) > 100 and not missing, missing


@pytest.fixture
def language(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """The table served in the parameter's language, as ``voicehost serve --lang`` chooses it."""
    monkeypatch.setenv("VOICEHOST_LANG", request.param)
    set_language(request.param)
    yield request.param
    set_language(None)


@pytest.mark.parametrize("language", ["ru", "en"], indirect=True)
def test_pages_are_filled_in_the_language_in_use(language: str) -> None:
    """The served HTML has no placeholder left, says its language, and under English no Russian."""
    for name in PAGES:
        text = rendered(name, language)
        assert "{{" not in text and f'<html lang="{language}"' in text, name
        assert bool(CYRILLIC.search(text)) == (language == "ru"), name


# What the judge's page shows, per language: its static text, labels built by judge.js and common.js.
EXPECTED = {
    "ru": {"login": "Пульт судьи", "foul": "Фол игроку 1", "undo": "Отменить", "hint": "Место 4: выберите действие.",
           "aria": "Фол: игрок 4", "said": "Говорит игрок 1: речь."},
    "en": {"login": "The judge's console", "foul": "Foul to player 1", "undo": "Undo",
           "hint": "Seat 4: choose an action.", "aria": "Foul: player 4", "said": "Player 1 speaks: a speech."},
}
SHOWN = """
const text = (id) => document.getElementById(id).textContent.trim();
return {lang: document.documentElement.lang, title: document.title,
        foul: document.querySelector('[data-speech="foul"]').textContent,
        undo: document.querySelector('[data-command="undo"]').textContent, hint: text('hint'),
        aria: document.querySelector('.controls [data-command="foul"]').getAttribute('aria-label'),
        said: text('announce'), turn: text('speaker-turn'),
        body: [...document.querySelectorAll('#console > :not(.subs)')].filter((n) => n.offsetParent !== null)
          .map((n) => n.innerText).join('\\n')};
"""


@pytest.mark.skipif(not (CHROMIUM and DRIVER), reason="Debian's chromium and chromium-driver are not installed")
@pytest.mark.parametrize("language", ["ru", "en"], indirect=True)
def test_the_judge_page_reads_the_language_in_use(language: str, chromium: Any, tmp_path: Path) -> None:  # noqa: F811
    """Day 1, seat 1 speaking: the login, the clock's tools, a seat's aria label and the live
    region in Russian by default and in English under --lang en (the host's spoken subtitles
    aside: the voice is Russian in both). The English page at 390×844 is docs/web.md's picture."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    want = EXPECTED[language]
    table = LiveTable(tmp_path / "game.jsonl")
    try:
        driver = chromium
        viewport(driver, (390, 844))
        driver.get(table.base + "/judge")
        wait = WebDriverWait(driver, hang_guard(20))
        wait.until(lambda d: d.find_element(By.ID, "pin").is_displayed())
        assert driver.find_element(By.ID, "login-title").text == want["login"]
        judge_logged_in(driver, table.base)
        wait.until(lambda d: d.find_element(By.ID, "announce").get_attribute("textContent"))
        driver.find_element(By.CSS_SELECTOR, '#seats .seat[data-seat="4"]').click()
        shown = driver.execute_script(SHOWN)
        assert shown["lang"] == language
        for key in ("foul", "undo", "hint", "aria", "said"):
            assert shown[key] == want[key], (key, shown)
        if language == "en":
            assert not CYRILLIC.search(shown["body"] + shown["title"]), shown["body"]
            # seat 4 unselected again: the speech as a judge first sees it
            driver.find_element(By.CSS_SELECTOR, '#seats .seat[data-seat="4"]').click()
            driver.execute_script("window.scrollTo(0, 0)")
            screenshot(driver, "judge-speech-en-390x844.png")
        else:
            assert CYRILLIC.search(shown["body"])
    finally:
        table.close()


def test_no_page_is_served_as_its_unfilled_file() -> None:
    """/static/… serves scripts and styles only, on the table and on the club screen: a page's
    file holds {{key}} places, not words."""
    from voicehost.web.club import PAGE_FILES
    from voicehost.web.server import ASSETS
    assert ASSETS and PAGE_FILES and not [name for name in ASSETS | PAGE_FILES if name.endswith(".html")]
