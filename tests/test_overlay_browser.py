"""The stream's overlay in real headless Chromium at 1920×1080 (docs/broadcast.md).

- Each phase of a real table-level game (a speech, a vote with each ballot drawn as its button
  goes down, its count, a last word, a night, the game card), as the overlay's own server sends it, drawn by the
  page over a transparent background: the screenshot's corners are see-through, nothing is
  drawn outside the broadcast's safe area, and each picture is put over a checkerboard in
  docs/screenshots (the transparency shows) — the public page and the keyed one with the roles.
- A whole game played in real time (120× faster) with the public overlay open in Chromium: what
  the page ever drew never shows a role, while the keyed page beside it does.
- The held clock stands still on the overlay, as the judge's «стоп-время» holds it.
- A tournament of three tables reporting to one club screen: each table's overlay served by the
  screen at ``/overlay/table/N``, with that table's players and nothing secret.
"""

from __future__ import annotations

import asyncio
import base64
import io
import json
import tempfile
import time
from collections.abc import AsyncIterator, Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from browsers import start_chrome
from machine import hang_guard
from test_club_screen import TOURNAMENT, play_reporting, table_script
from test_overlay import KEY, SECRET_KEYS, record_overlay, three_candidates
from test_web_browser import CHROMIUM, DRIVER, ROOT, LiveTable, viewport
from test_web_leaks import ROLE_VALUES, keys_and_strings

from voicehost.host import Director, run_virtual
from voicehost.simulation.table_level import TableRun, VirtualVoice, play_table
from voicehost.web import WebTable
from voicehost.web.club import ClubScreen
from voicehost.web.overlay import OverlaySettings

selenium = pytest.importorskip("selenium", reason="selenium is not installed (pip install -e '.[test]')")
Image = pytest.importorskip("PIL.Image", reason="Pillow is not installed (pip install -e '.[test]')")
from selenium import webdriver  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

pytestmark = pytest.mark.skipif(not (CHROMIUM and DRIVER),
                                reason="Debian's chromium and chromium-driver are not installed")

SCREEN = (1920, 1080)
SAFE = (96, 54, 1824, 1026)   # the 5 % action-safe area: left, top, right, bottom
SHOTS = ROOT / "docs" / "screenshots"
TABLES = (1, 2, 3)
ROLE_WORDS = ("мафия", "дон", "шериф", "мирный")


def chromium_options(profile: str) -> Any:
    options = webdriver.ChromeOptions()
    assert CHROMIUM is not None
    options.binary_location = CHROMIUM
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-sync",
                 "--disable-dev-shm-usage", f"--user-data-dir={profile}"):
        options.add_argument(flag)
    return options


@pytest.fixture(scope="module")
def chrome() -> Any:
    """One headless chromium for the module's tests; each sets its viewport."""
    with tempfile.TemporaryDirectory(prefix="voicehost-chromium-") as profile:
        driver = start_chrome(chromium_options(profile))
        try:
            yield driver
        finally:
            driver.quit()


# ---- the phases of a real game ---------------------------------------------------------------------

PHASES: dict[str, Callable[[dict[str, Any]], bool]] = {
    "speech": lambda s: s["scene"] == "day" and bool(s["speaker"]) and len(s["nominations"]) >= 2,
    "vote": lambda s: s["scene"] == "vote" and s["vote"]["open"] is not None and bool(s["ballots"])
    and any(g["voters"] for g in s["ballots"]["groups"] if g["candidate"] != s["vote"]["open"]),
    "vote-press": lambda s: s["scene"] == "vote" and s["vote"]["open"] is not None and bool(s["ballots"])
    and any(g["voters"] for g in s["ballots"]["groups"] if g["candidate"] != s["vote"]["open"])
    and any(g["voters"] for g in s["ballots"]["groups"] if g["candidate"] == s["vote"]["open"]),
    "count": lambda s: s["scene"] == "day" and bool(s["vote"]) and s["vote"]["counted"] and bool(s["ballots"])
    and s["ballots"]["complete"] and not s["speaker"],
    "last-word": lambda s: s["scene"] == "last_word",
    "night": lambda s: s["scene"] == "night" and s["phase"]["number"] == 2,
    "over": lambda s: s["scene"] == "over",
}


LATEST = {"night"}   # the night's last change (its shots and checks made), the others' first


def phases() -> dict[str, tuple[str, str]]:
    """Each phase's first public message of a real game (the sport sample, three candidates on
    day 1) and the roles message of the same change."""
    seen = run_virtual(record_overlay(three_candidates()))
    keyed = {json.loads(text)["seq"]: text for _, text in seen["secret"]}
    found: dict[str, tuple[str, str]] = {}
    for _, text in seen["public"]:
        message = json.loads(text)
        for name, test in PHASES.items():
            if (name not in found or name in LATEST) and message["seq"] in keyed and test(message["state"]):
                found[name] = (text, keyed[message["seq"]])
    assert set(found) == set(PHASES), f"phases missing: {set(PHASES) - set(found)}"
    return found


class Shown:
    """A table's overlay server showing one captured change (its own Overlay, its own routes)."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.table = WebTable(overlay=OverlaySettings(KEY, 0.0))
        self.base = self.loop.run_until_complete(self.table.start("127.0.0.1", 0))
        import threading
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()

    def show(self, public: str, secret: str) -> None:
        async def change() -> None:
            state, roles = json.loads(public)["state"], json.loads(secret)["state"]
            self.table.overlay.sequence = json.loads(public)["seq"] - 1
            self.table.overlay.changed(lambda: state, lambda: roles, time.time())
        asyncio.run_coroutine_threadsafe(change(), self.loop).result(10)

    def close(self) -> None:
        asyncio.run_coroutine_threadsafe(self.table.stop(), self.loop).result(10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)
        self.loop.close()


def transparent_shot(driver: Any) -> Any:
    """The page as OBS gets it: a PNG with its alpha channel (no white page behind it)."""
    driver.execute_cdp_cmd("Emulation.setDefaultBackgroundColorOverride", {"color": {"r": 0, "g": 0, "b": 0, "a": 0}})
    data = driver.execute_cdp_cmd("Page.captureScreenshot", {"format": "png"})["data"]
    return Image.open(io.BytesIO(base64.b64decode(data))).convert("RGBA")


def over_checkerboard(shot: Any, square: int = 40) -> Any:
    board = Image.new("RGBA", shot.size, (205, 205, 205, 255))
    dark = Image.new("RGBA", (square, square), (150, 150, 150, 255))
    for y in range(0, shot.size[1], square):
        for x in range((y // square) % 2 * square, shot.size[0], 2 * square):
            board.paste(dark, (x, y))
    return Image.alpha_composite(board, shot).convert("RGB")


def opened(driver: Any, url: str, seq: int) -> None:
    driver.get(url)
    WebDriverWait(driver, hang_guard(20)).until(
        lambda d: d.execute_script("return document.body.dataset.seq") == str(seq))
    time.sleep(0.3)   # the clock's first tick


def test_each_phase_is_drawn_transparent_inside_the_safe_area(chrome: Any) -> None:
    driver = chrome
    viewport(driver, SCREEN)
    shown = Shown()
    SHOTS.mkdir(parents=True, exist_ok=True)
    try:
        for name, (public, secret) in phases().items():
            shown.show(public, secret)
            seq = json.loads(public)["seq"]
            for view, path in (("overlay", "/overlay"), ("overlay-roles", f"/overlay/roles?key={KEY}")):
                opened(driver, shown.base + path, seq)
                shot = transparent_shot(driver)
                assert shot.size == SCREEN
                alpha = shot.getchannel("A")
                assert alpha.getpixel((10, 10)) == 0 and alpha.getpixel((960, 540 if name != "over" else 20)) == 0, \
                    f"{view} {name}: the background is not transparent"
                box = alpha.point(lambda a: 255 if a > 64 else 0).getbbox()   # a panel's soft shadow is no drawing
                assert box is not None, f"{view} {name}: nothing drawn"
                assert SAFE[0] <= box[0] and SAFE[1] <= box[1] and box[2] <= SAFE[2] and box[3] <= SAFE[3], \
                    f"{view} {name}: drawn outside the safe area: {box}"
                text = driver.execute_script("return document.body.innerText")
                tiles = driver.execute_script("return [...document.querySelectorAll('#seats .seat')]"
                                              ".map((t) => t.innerText.toLowerCase())")
                assert len(tiles) == 10
                if view == "overlay":
                    assert not any(word in tile for tile in tiles for word in ROLE_WORDS), f"{name}: a role shown"
                else:
                    assert sum(any(word in tile for word in ROLE_WORDS) for tile in tiles) == 10, f"{name}: roles"
                if name == "speech":
                    assert "выставил" in text
                if name == "vote":
                    assert "сейчас за игрока" in text.lower() or "сейчас «все покидают»" in text.lower()
                if name == "vote-press":   # a ballot of the open window, drawn before it closes
                    state = json.loads(public)["state"]
                    open_ = state["vote"]["open"]
                    (group,) = [g for g in state["ballots"]["groups"] if g["candidate"] == open_]
                    row = driver.execute_script(
                        f"return document.querySelector('#vote-groups .group[data-candidate=\"{open_}\"]').innerText")
                    assert all(str(voter) in row for voter in group["voters"]), row
                    newest = driver.execute_script("return [...document.querySelectorAll('.voter.new')]"
                                                   ".map((c) => c.innerText)")
                    assert newest and newest[-1] == str(group["voters"][-1]), "the newest ballot lit"
                    assert sum(f"за {open_}" in tile for tile in tiles) == len(group["voters"]), tiles
                if name == "over":
                    assert "итог игры" in text.lower() and "победа" in text.lower()
                over_checkerboard(shot).save(SHOTS / f"{view}-{name}.png", optimize=True)
    finally:
        shown.close()


# ---- a whole game with the overlay open ------------------------------------------------------------

RECORD = """
window.drawn = [];
let last = null;
const note = () => {
  const tiles = [...document.querySelectorAll('#seats .seat')].map((t) => t.innerText);
  const now = JSON.stringify({scene: document.body.dataset.scene || '', tiles: tiles,
                              night: (document.getElementById('night') || {}).innerText || ''});
  if (now !== last) { last = now; window.drawn.push(JSON.parse(now)); }
};
new MutationObserver(note).observe(document.body,
                                   {subtree: true, childList: true, characterData: true, attributes: true});
note();
"""
COLLECT = "const drawn = window.drawn; window.drawn = []; return drawn;"
SPEED = 120.0


async def watched_game(profile: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]], Any]:
    table = WebTable(overlay=OverlaySettings(KEY, 0.0))
    base = await table.start("127.0.0.1", 0)
    worker = ThreadPoolExecutor(max_workers=1)
    loop = asyncio.get_running_loop()
    drawn: dict[str, list[dict[str, Any]]] = {"public": [], "roles": []}

    def in_browser(call: Callable[..., Any], *args: Any) -> Any:
        return loop.run_in_executor(worker, call, *args)

    def start() -> Any:
        driver = start_chrome(chromium_options(profile))
        viewport(driver, SCREEN)
        driver.get(base + "/overlay")
        driver.execute_script(RECORD)
        tabs = {"public": driver.current_window_handle}
        driver.switch_to.new_window("tab")
        driver.get(base + f"/overlay/roles?key={KEY}")
        driver.execute_script(RECORD)
        tabs["roles"] = driver.current_window_handle
        return driver, tabs

    driver, tabs = await in_browser(start)

    def look() -> None:
        for view, tab in tabs.items():
            driver.switch_to.window(tab)
            drawn[view].extend(driver.execute_script(COLLECT))

    @asynccontextmanager
    async def around(director: Director) -> AsyncIterator[WebTable]:
        table.attach(director)

        async def watch() -> None:
            while True:
                await in_browser(look)
                await asyncio.sleep(0.5)
        watching = asyncio.create_task(watch())
        try:
            yield table
        finally:
            watching.cancel()
            await asyncio.gather(watching, return_exceptions=True)

    try:
        how = TableRun(speak=VirtualVoice(SPEED).speak, speed=SPEED, around=around)
        result = await play_table(three_candidates(), how=how)
        table.finish()
        await asyncio.sleep(0.5)
        await in_browser(look)
        return drawn["public"], drawn["roles"], result
    finally:
        await in_browser(driver.quit)
        worker.shutdown()
        await table.stop()


def test_a_whole_game_on_the_public_overlay_shows_no_role() -> None:
    with tempfile.TemporaryDirectory(prefix="voicehost-chromium-") as profile:
        public, roles, result = asyncio.run(watched_game(profile))
    assert result.game.is_over
    scenes = {d["scene"] for d in public}
    assert {"day", "vote", "night", "over"} <= scenes, scenes
    shown_roles = [tile for d in public for tile in d["tiles"] if any(w in tile.lower() for w in ROLE_WORDS)]
    assert shown_roles == [], "a role on the public overlay"
    assert all(not d["night"] for d in public), "the night's panel on the public overlay"
    assert any(any(w in tile.lower() for w in ROLE_WORDS) for d in roles for tile in d["tiles"]), \
        "the keyed page shows them"
    assert any(d["night"] for d in roles), "… and the night"


# ---- the held clock ---------------------------------------------------------------------------------------

def test_the_held_clock_stands_still_on_the_overlay(tmp_path: Path, chrome: Any) -> None:
    live = LiveTable(tmp_path / "game.jsonl", {seat: f"Игрок{seat}" for seat in range(1, 11)})
    try:
        driver = chrome
        viewport(driver, SCREEN)
        driver.get(live.base + "/overlay")

        def clock() -> str:
            return str(driver.execute_script("return document.getElementById('clock').textContent"))
        WebDriverWait(driver, hang_guard(20)).until(lambda d: clock() not in ("", "0:00"))
        before = clock()
        time.sleep(2.2)
        assert clock() != before, "the speaker's clock runs"
        live.type("hold")
        WebDriverWait(driver, hang_guard(20)).until(
            lambda d: d.execute_script("return !document.getElementById('held').classList.contains('hidden')"))
        held = clock()
        time.sleep(2.2)
        assert clock() == held, "a held clock stands still"
        assert "стоп-время" in driver.execute_script("return document.body.innerText")
        shot = transparent_shot(driver)
        over_checkerboard(shot).save(SHOTS / "overlay-held.png", optimize=True)
        live.type("release")
        WebDriverWait(driver, hang_guard(20)).until(
            lambda d: d.execute_script("return document.getElementById('held').classList.contains('hidden')"))
        time.sleep(2.2)
        assert clock() != held, "released, it runs again"
    finally:
        live.close()


# ---- a tournament of three tables: each overlay served by the club screen -----------------------------

async def club_evening(shoot: Callable[[str], Any]) -> dict[str, Any]:
    """Three tables play at once, each reporting to one club screen; a socket on each table's
    ``/ws/overlay/table/N`` records what the stream would show; at the end, ``shoot`` is handed
    the screen's address (a browser opens table 2's overlay)."""
    screen = ClubScreen(tournament=TOURNAMENT)
    base = await screen.start("127.0.0.1", 0)
    seen: dict[str, list[str]] = {str(table): [] for table in TABLES}
    scripts = {table: table_script(table, 40 + table) for table in TABLES}
    async with aiohttp.ClientSession() as http:
        sockets = {name: await http.ws_connect(base.replace("http", "ws") + f"/ws/overlay/table/{name}")
                   for name in seen}

        async def listen(name: str) -> None:
            async for message in sockets[name]:
                seen[name].append(message.data)

        listening = [asyncio.create_task(listen(name)) for name in seen]
        try:
            results = await asyncio.gather(*(play_reporting(table, scripts[table], base) for table in TABLES))
            await asyncio.sleep(0.5)
            loop = asyncio.get_running_loop()
            with ThreadPoolExecutor(max_workers=1) as worker:
                await loop.run_in_executor(worker, shoot, base)
        finally:
            for task in listening:
                task.cancel()
            await asyncio.gather(*listening, return_exceptions=True)
            for ws in sockets.values():
                await ws.close()
            await screen.stop()
    return {"seen": seen, "results": dict(zip(TABLES, results, strict=True)), "scripts": scripts}


def test_a_tournament_of_three_tables_each_overlay_served_by_the_club_screen(chrome: Any) -> None:
    drawn: dict[str, Any] = {}

    def shoot(base: str) -> None:
        viewport(chrome, SCREEN)
        chrome.get(base + "/overlay/table/2")
        WebDriverWait(chrome, hang_guard(20)).until(
            lambda d: d.execute_script("return document.body.dataset.scene") == "over")
        time.sleep(0.3)
        drawn["text"] = chrome.execute_script("return document.body.innerText")
        shot = transparent_shot(chrome)
        drawn["corner"] = shot.getchannel("A").getpixel((10, 10))
        over_checkerboard(shot).save(SHOTS / "overlay-club-table-2.png", optimize=True)
        chrome.get(base + "/overlay/table/" + "x" * 60)
        drawn["too_long"] = chrome.execute_script("return document.body.innerText")

    evening = asyncio.run(club_evening(shoot))
    for table in TABLES:
        result, script = evening["results"][table], evening["scripts"][table]
        assert result.game.is_over
        messages = evening["seen"][str(table)]
        states = [json.loads(text)["state"] for text in messages]
        scenes = {s["scene"] for s in states}
        assert {"day", "vote", "night", "over"} <= scenes, (table, scenes)
        assert states[-1]["card"] and len(states[-1]["card"]["rows"]) == 10
        names = {s["name"] for state in states for s in state["seats"]} - {""}
        assert names == set(script.names.values()), f"table {table}'s overlay shows its own players"
        keys: set[str] = set()
        strings: set[str] = set()
        for text in messages:
            keys_and_strings(json.loads(text), keys, strings)
        assert not keys & SECRET_KEYS and not strings & ROLE_VALUES, f"table {table}: a secret on the club's overlay"
    assert drawn["corner"] == 0 and "итог игры" in drawn["text"].lower()
    assert "Стол" in drawn["too_long"] or "error" in drawn["too_long"], "a table's name that is no name: a 404 line"
