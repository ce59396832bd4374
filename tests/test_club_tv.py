"""The tournament screen on a club's TV (docs/club-screen.md "On the TV"): real headless chromium
at 1920×1080 and 1280×720 shows a tournament of 3 tables and 30 players with no scrollbar — the
tables on top, the standings paging by themselves under them, the next round's seating between
the pages — every card, row and name measured inside the viewport, the sizes a room can read,
the places shared as the standings share them, points as «1,25», a held clock standing still."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from browsers import start_chrome
from test_console import day_one

from voicehost.host import Director, EdgeLog, Ports, run_virtual
from voicehost.records.tournament import column_titles
from voicehost.rules.scoring import Standing, rank
from voicehost.web.club import Board, ClubScreen, Seating, read_report
from voicehost.web.reporter import ClubReporter, TablePlace, club_socket_url

CHROMIUM, DRIVER = shutil.which("chromium"), shutil.which("chromedriver")
TOURNAMENT = "Кубок клуба"
SIZES = ((1920, 1080), (1280, 720))
FIRST = ("Анна", "Борис", "Вера", "Глеб", "Дина", "Егор", "Жанна", "Захар", "Ирина", "Кирилл")
WOMEN = ("Анна", "Вера", "Дина", "Жанна", "Ирина")
LAST = (("Орлов", "Орлова"), ("Волков", "Волкова"), ("Константинопольский", "Константинопольская"))
# 30 players: «игрок 2» and «игрок 10» tie with «игрок 1» on top (places 1, 1, 1, 4, …).
PLAYERS = ["игрок 10", "игрок 2", "игрок 1"] + [f"{first} {last[first in WOMEN]}" for last in LAST
                                                for first in FIRST][:27]


def standings() -> tuple[Standing, ...]:
    rows = [Standing(name, games=2, points=3.25 if k < 3 else round(3.0 - k * 0.1, 2), wins=2 if k < 3 else k % 3)
            for k, name in enumerate(PLAYERS)]
    return tuple(rank(rows, ("points", "wins")))


def provider(count: int, games: int) -> Callable[..., Board]:
    """The tournament at ``count`` tables: the 30 players' standings, the next round's seating."""
    names = PLAYERS + [f"игрок {n}" for n in range(11, 10 * count - 19)]

    def board(tournament: str | None, tables: Any, /) -> Board:
        seating = tuple(Seating(str(t), tuple(names[(t - 1) * 10:t * 10])) for t in range(1, count + 1))
        return Board(standings=standings(), titles=column_titles(), games=games, next_round=2, seating=seating,
                     tables=count)
    return board


def report(table: str, seq: int, *, held: bool = False, paused: bool = False) -> str:
    """A table's report: seat 7 speaks with 47.98 s of 60 left (the clock held, or not)."""
    name = PLAYERS[((int(table) - 1) * 10 + 6) % len(PLAYERS)]
    return json.dumps({
        "type": "report", "tournament": TOURNAMENT, "round": 1, "table": table, "seq": seq, "t": time.time(),
        "state": {"phase": {"kind": "day", "number": 2, "text": "День 2"},
                  "speaker": {"seat": 7, "name": name, "turn_text": "речь", "seconds": 60, "left": 47.98,
                              "held": held},
                  "seats": [{"seat": n, "name": f"игрок {n}", "alive": n != 3, "fouls": 0} for n in range(1, 11)],
                  "nominations": [{"by": 1, "target": 4}, {"by": 5, "target": 9}], "result": None,
                  "paused": paused, "speed": 1.0, "finished": False}}, ensure_ascii=False)


def test_the_table_tells_the_screen_its_clock_is_held() -> None:
    """``hold`` at a real director: the reporter's report says ``held``, and the screen keeps it
    (the screen's card then stands still with «стоп-время», as the table's own pages do)."""
    reports: list[dict[str, Any]] = []

    async def session() -> None:
        loop = asyncio.get_running_loop()
        started = loop.time()

        async def speak(text: str) -> float:
            return loop.time()

        ports = Ports(speak=speak, night=lambda on: None, led=lambda s, p: None, edges=EdgeLog(), clock=loop.time,
                      poll_s=None)
        director = Director(day_one(), ports, None, log=lambda line: None)
        reporter = ClubReporter(club_socket_url("http://127.0.0.1:9"), TablePlace(TOURNAMENT, 1, "1"),
                                log_line=lambda line: None)
        reporter.follow(director)
        hosting = asyncio.create_task(director.run())
        for at, line in ((5.0, None), (10.0, "hold"), (30.0, None), (31.0, "release"), (40.0, None)):
            await asyncio.sleep(max(0.0, at - (loop.time() - started)))
            if line:
                ports.type(line)
            else:
                reports.append(read_report(json.dumps(reporter.report(), ensure_ascii=False)))
        hosting.cancel()
        await asyncio.gather(hosting, return_exceptions=True)

    run_virtual(session())
    speakers = [r["state"]["speaker"] for r in reports]
    assert [s["held"] for s in speakers] == [False, True, False]
    assert speakers[1]["left"] == pytest.approx(50, abs=0.5) and speakers[2]["left"] < 50


MEASURE = """
const inside = (node) => { const r = node.getBoundingClientRect();
  return r.width > 0 && r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight + 0.5 && r.right <= innerWidth + 0.5; };
const within = (node, box) => { const r = node.getBoundingClientRect(), b = box.getBoundingClientRect();
  return inside(node) && r.top >= b.top - 0.5 && r.bottom <= b.bottom + 0.5; };
const px = (sel) => { const n = document.querySelector(sel);
  return n ? parseFloat(getComputedStyle(n).fontSize) : null; };
const text = (sel, cell) => [...document.querySelectorAll(sel)]
  .map((n) => (cell ? n.querySelector(cell) : n).textContent);
const seatBox = document.getElementById("seating");
const shown = [...document.querySelectorAll("#standings tr[data-player]:not(.off)")];
const seatingShown = !document.getElementById("seating").classList.contains("hidden");
const cards = [...document.querySelectorAll("#tables .card")];
return {
  width: innerWidth, height: innerHeight,
  scrollHeight: document.documentElement.scrollHeight, scrollWidth: document.documentElement.scrollWidth,
  page: document.getElementById("pager").dataset.page, count: document.getElementById("pager-count").textContent,
  title: document.getElementById("pager-title").textContent,
  cards: cards.length, cardsInside: cards.every(inside), pagerInside: inside(document.getElementById("pager")),
  rows: shown.length, rowsInside: shown.every((tr) => within(tr, document.getElementById("standings"))),
  seats: seatingShown ? [...seatBox.querySelectorAll(".table-seats:not(.off) li")].every((li) => within(li, seatBox))
                      : null,
  seatFontPx: seatingShown ? px("#seating li") : null,
  names: shown.map((tr) => tr.querySelector("td.player").textContent),
  places: text("#standings tr[data-player]", "td.place"),
  allNames: [...document.querySelectorAll("#standings tr[data-player]")].map((tr) => tr.dataset.player),
  points: text("#standings td.points"),
  nameFontPx: px("#standings td.player"), speakerFontPx: px(".card .speaker-who"), clockFontPx: px(".card .clock"),
  clocks: Object.fromEntries(cards.map((c) => [c.dataset.table, c.querySelector(".clock").textContent])),
  marks: Object.fromEntries(cards.map((c) => [c.dataset.table, text(`.card[data-table="${c.dataset.table}"] .mark`)])),
  truncated: [...document.querySelectorAll("#standings tr:not(.off) td.player, #seating .who")]
    .filter((n) => n.offsetParent && n.scrollWidth > n.clientWidth + 1).map((n) => n.textContent),
};
"""


FOLLOW = """
const measure = () => { MEASURE };
const pager = document.getElementById("pager");
window.pagesSeen = [measure()];
new MutationObserver(() => window.pagesSeen.push(measure()))
  .observe(pager, {attributes: true, attributeFilter: ["data-page"]});
"""


class TV:
    """Headless chromium showing the page with exactly ``width``×``height`` CSS pixels of viewport."""

    def __init__(self, url: str, profile: str) -> None:
        from selenium import webdriver

        options = webdriver.ChromeOptions()
        assert CHROMIUM is not None
        options.binary_location = CHROMIUM
        for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--hide-scrollbars",
                     "--disable-background-networking", "--disable-component-update", "--disable-sync",
                     "--disable-dev-shm-usage", f"--user-data-dir={profile}"):
            options.add_argument(flag)
        self.driver = start_chrome(options)
        self.url = url

    def open(self, width: int, height: int) -> None:
        self.driver.set_window_size(width + 100, height + 200)
        self.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                                    {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})
        self.driver.get(self.url)

    def measure(self) -> dict[str, Any]:
        return dict(self.driver.execute_script(MEASURE))

    def follow_pages(self) -> None:
        """The page measures itself each time it turns (a busy machine's polling could miss a page)."""
        started = time.monotonic()
        while not self.driver.execute_script('return document.getElementById("pager").dataset.page || ""'):
            assert time.monotonic() - started < 30, "the page never drew its first page"
            time.sleep(0.05)
        self.driver.execute_script(FOLLOW.replace("MEASURE", MEASURE))

    def turned(self) -> list[dict[str, Any]]:
        return list(self.driver.execute_script("const seen = window.pagesSeen; window.pagesSeen = []; return seen;"))

    def shot(self, path: Path) -> None:
        self.driver.save_screenshot(str(path))

    def close(self) -> None:
        self.driver.quit()


def artifacts() -> Path:
    folder = Path(os.environ.get("VOICEHOST_ARTIFACTS", Path(__file__).resolve().parents[1] / "test-artifacts"))
    folder = folder / "club-tv"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


async def evening(profile: str, count: int = 3, sizes: tuple[tuple[int, int], ...] = SIZES,
                  games: int = 6) -> dict[str, Any]:
    """``count`` tables report (table 2's clock held); the page is watched at each of ``sizes``
    until it has turned through every page and back to the first."""
    screen = ClubScreen(standings=provider(count, games), tournament=TOURNAMENT, drop_s=600.0, refresh_s=0.5)
    base = await screen.start("127.0.0.1", 0)
    worker = ThreadPoolExecutor(max_workers=1)
    loop = asyncio.get_running_loop()

    def in_browser(call: Callable[..., Any], *args: Any) -> Any:
        return loop.run_in_executor(worker, call, *args)

    for table in range(1, count + 1):
        screen.heard(read_report(report(str(table), 1, held=table == 2)))
    tv: TV = await in_browser(TV, base + "/?page=1", profile)
    seen: dict[str, Any] = {}
    try:
        for width, height in sizes:
            await in_browser(tv.open, width, height)
            await in_browser(tv.follow_pages)
            pages: list[dict[str, Any]] = []
            shots: set[str] = set()
            started = time.monotonic()
            while time.monotonic() - started < 60:
                for looked in await in_browser(tv.turned):
                    if not pages or looked["page"] != pages[-1]["page"]:
                        pages.append(looked)
                now = (await in_browser(tv.measure))["page"]
                kind = now.split()[0]
                first = now.startswith(("standings 1/", "seating")) and not now.startswith("seating 2")
                if first and kind not in shots:
                    shots.add(kind)
                    await in_browser(tv.shot, artifacts() / f"club-tv-{count}-tables-{width}x{height}-{kind}.png")
                kinds = [p["page"] for p in pages]
                if any(k.startswith("seating") for k in kinds) and kinds.count(kinds[0]) >= 2 and len(shots) == 2:
                    break
                await asyncio.sleep(0.15)
            first = pages[0]["clocks"]
            await asyncio.sleep(1.6)
            later = await in_browser(tv.measure)
            seen[f"{width}x{height}"] = {"pages": pages, "clocks": (first, later["clocks"])}
        return seen
    finally:
        await in_browser(tv.close)
        worker.shutdown()
        await screen.stop()


@pytest.mark.skipif(not (CHROMIUM and DRIVER), reason="Debian's chromium and chromium-driver are not installed "
                                                      "(apt-get install chromium chromium-driver)")
def test_the_club_tv_fits_and_pages_by_itself() -> None:
    pytest.importorskip("selenium", reason="selenium is not installed (pip install -e '.[test]')")
    with tempfile.TemporaryDirectory(prefix="voicehost-club-tv-") as profile:
        seen = asyncio.run(evening(profile))
    print(json.dumps({size: [{k: p[k] for k in ("page", "rows", "nameFontPx", "speakerFontPx", "clockFontPx",
                                                  "seatFontPx", "scrollHeight", "truncated")} for p in s["pages"]]
                      for size, s in seen.items()}, ensure_ascii=False, indent=1))
    ranked = standings()
    for size, (width, height) in zip(seen, SIZES, strict=True):
        pages = seen[size]["pages"]
        kinds = [p["page"] for p in pages]
        standing_pages = [p for p in pages if p["page"].startswith("standings")]
        count = int(standing_pages[0]["page"].rsplit("/", 1)[1])
        assert count >= 2 and kinds[:count + 1] == [f"standings {n}/{count}" for n in range(1, count + 1)] + [
            "seating"] or kinds[kinds.index("standings 1/" + str(count)):][:count + 1] == [
            f"standings {n}/{count}" for n in range(1, count + 1)] + ["seating"], f"{size}: the pages {kinds}"
        for page in pages:
            assert (page["width"], page["height"]) == (width, height)
            assert page["scrollHeight"] <= height and page["scrollWidth"] <= width, f"{size}: a scrollbar ({page})"
            assert page["cards"] == 3 and page["cardsInside"] and page["pagerInside"], f"{size}: {page['page']}"
            if page["page"].startswith("seating"):
                assert page["seats"] is True, f"{size}: a seat of the seating is off the screen"
            else:
                assert page["rows"] >= 6 and page["rowsInside"], f"{size}: {page['page']} rows {page['rows']}"
        shown = [name for page in standing_pages[:count] for name in page["names"]]
        assert shown == [row.player for row in ranked], f"{size}: every player once, best first, page by page"
        last = pages[-1]
        assert pages[0]["title"] == "Турнирная таблица — после 6 игр"
        assert last["places"] == [str(row.place) for row in ranked] and last["places"][:4] == ["1", "1", "1", "4"]
        assert last["allNames"][:3] == ["игрок 1", "игрок 2", "игрок 10"], "names in natural order within a tie"
        assert last["points"][:4] == ["3,25", "3,25", "3,25", "2,7"], "points as the club writes them"
        # Readable from 5 m: 4.8 % of the picture's height for names, 12 % for the clock.
        assert abs(last["nameFontPx"] - 0.048 * height) < 1 and abs(last["speakerFontPx"] - 0.048 * height) < 1
        assert abs(last["clockFontPx"] - 0.12 * height) < 1
        assert all(not p["truncated"] for p in pages), f"{size}: a name cut short"
        before, after = seen[size]["clocks"]
        assert before["2"] == after["2"] == "0:48", "a held clock stands still"
        assert after["1"] != before["1"], "a running clock counts down"
        assert last["marks"]["2"] == ["стоп-время"] and last["marks"]["1"] == []


@pytest.mark.skipif(not (CHROMIUM and DRIVER), reason="Debian's chromium and chromium-driver are not installed "
                                                      "(apt-get install chromium chromium-driver)")
def test_eight_tables_take_two_rows_and_the_page_still_fits() -> None:
    pytest.importorskip("selenium", reason="selenium is not installed (pip install -e '.[test]')")
    with tempfile.TemporaryDirectory(prefix="voicehost-club-tv-") as profile:
        seen = asyncio.run(evening(profile, 8, ((1920, 1080),), games=21))
    pages = seen["1920x1080"]["pages"]
    assert pages[0]["title"] == "Турнирная таблица — после 21 игры", "the count's own plural form"
    assert {p["page"] for p in pages} >= {"standings 1/6", "seating 1/2", "seating 2/2"}, [p["page"] for p in pages]
    for page in pages:
        assert page["scrollHeight"] <= 1080 and page["scrollWidth"] <= 1920, page["page"]
        assert page["cards"] == 8 and page["cardsInside"] and page["pagerInside"], page["page"]
        assert page["seats"] is True if page["page"].startswith("seating") else page["rows"] >= 5 and page["rowsInside"]
        assert not page["truncated"] or page["page"].startswith("seating"), page["truncated"]
    # two rows of four smaller cards: the clock 0.74 of a single row's
    assert abs(pages[0]["clockFontPx"] - 0.74 * 0.12 * 1080) < 1
