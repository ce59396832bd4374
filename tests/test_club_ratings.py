"""The club's OpenSkill ratings on the tournament screen (issue 44 item 4; docs/club-screen.md
"The ratings"): 18 simulated games of 30 players stored in the records, the screen's provider
adds each player's rating, and real headless chromium at 1920×1080 and 1280×720 shows them page
by page between the standings and the seating — every number equal to one worked out here with
the openskill package itself from the protocols, nothing over the viewport, no name cut short."""

from __future__ import annotations

import asyncio
import json
import random
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from datetime import datetime, timedelta
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path
from typing import Any

import pytest
from test_club_tv import CHROMIUM, DRIVER, MEASURE, PLAYERS, SIZES, TOURNAMENT, TV, artifacts, provider, report

from voicehost.cli.main import main
from voicehost.cli.tournament_screen import standings_provider, with_skills
from voicehost.rules import Role
from voicehost.rules.protocol import build_protocol
from voicehost.simulation.engine_level import simulate
from voicehost.simulation.script import script_from_data
from voicehost.simulation.scriptgen import random_script
from voicehost.web.club import Board, ClubScreen, read_report

GAMES = 18
HEADINGS = ["Место", "Игрок", "Рейтинг", "μ ± σ", "Игры", "За красных", "За чёрных"]
TITLE = "Рейтинг клуба (OpenSkill): μ − 3σ"


def protocols(folder: Path, count: int = GAMES) -> list[Path]:
    """``count`` finished sport games, ten of the 30 players each (the long names too), an
    hour apart (their ``started``: the order the records rate them in)."""
    folder.mkdir(parents=True, exist_ok=True)
    paths: list[Path] = []
    seed, first = 1, datetime(2026, 10, 1, 18, 0, 0)
    while len(paths) < count:
        data = random_script("sport", seed)
        names = random.Random(seed).sample(PLAYERS, data["seats"])
        data["names"] = {str(seat): name for seat, name in enumerate(names, start=1)}
        script = script_from_data(data)
        result = simulate(script)
        seed += 1
        if not result.game.is_over:
            continue
        protocol = build_protocol(result.game, result.ignored, script.names)
        protocol["started"] = (first + timedelta(hours=len(paths))).strftime("%Y-%m-%dT%H:%M:%SZ")
        path = folder / f"game-{len(paths):02d}.protocol.json"
        path.write_text(json.dumps(protocol, ensure_ascii=False))
        paths.append(path)
    return paths


def by_the_library(paths: list[Path]) -> dict[str, dict[str, Any]]:
    """Each player's rating straight from openskill's Plackett-Luce model (its defaults), game by
    game as the protocols tell it: red against black, the winners ranked first (a draw: equal);
    per side, the red players' red ratings against the black players' black ones."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    rated: dict[tuple[str, str], Any] = {}   # (player, "all"): overall; (player, side): that side's
    games: dict[tuple[str, str], int] = {}
    for path in paths:
        protocol = json.loads(path.read_text())
        teams: dict[str, list[str]] = {"red": [], "black": []}
        for entry in protocol["seats"].values():
            teams[Role(entry["role"]).team.value].append(entry["name"])
        ranks = [0.0, 0.0] if protocol["winner"] not in teams else [0.0 if side == protocol["winner"] else 1.0
                                                                     for side in teams]
        for overall in (True, False):
            keys = [[(name, "all" if overall else side) for name in names] for side, names in teams.items()]
            new = model.rate([[rated.setdefault(k, model.rating()) for k in team] for team in keys], ranks=ranks)
            for team, after in zip(keys, new, strict=True):
                for k, rating in zip(team, after, strict=True):
                    rated[k] = rating
        for side, names in teams.items():
            for name in names:
                games[(name, side)] = games.get((name, side), 0) + 1
    return {name: {"mu": r.mu, "sigma": r.sigma, "rating": r.mu - 3 * r.sigma,
                   "games": games.get((name, "red"), 0) + games.get((name, "black"), 0),
                   "sides": {side: {"mu": rated[(name, side)].mu, "sigma": rated[(name, side)].sigma,
                                    "games": games[(name, side)]} for side in ("red", "black")
                             if (name, side) in rated}}
            for (name, kind), r in rated.items() if kind == "all"}


def tenths(value: float) -> str:
    """As the page writes a rating: the nearest tenth of the exact value (a tie away from zero,
    as JavaScript's toFixed), a decimal comma, a true minus."""
    text = str(Decimal(abs(value)).quantize(Decimal("0.1"), ROUND_HALF_UP)).replace(".", ",")
    return ("\u2212" if value < 0 and text != "0,0" else "") + text


def expected_rows(expected: dict[str, dict[str, Any]]) -> list[list[str]]:
    """The rating table's cells, best first (by mu − 3·sigma, then name)."""
    order = sorted(expected, key=lambda name: (-expected[name]["rating"], name))

    def spread(skill: dict[str, Any]) -> str:
        return f"{tenths(skill['mu'])} ± {tenths(skill['sigma'])}"
    return [[str(place), name, tenths(expected[name]["rating"]), spread(expected[name]), str(expected[name]["games"]),
             *[f"{spread(side)} ({side['games']})" if (side := expected[name]["sides"].get(key)) else "—"
               for key in ("red", "black")]]
            for place, name in enumerate(order, start=1)]


@pytest.fixture
def club(tmp_path: Path) -> tuple[str, dict[str, dict[str, Any]]]:
    """The records with the 18 games stored (``records import``, the ordinary way), and the
    ratings worked out from the protocols by the library."""
    paths = protocols(tmp_path / "games")
    db = f"sqlite:///{tmp_path / 'club.sqlite'}"
    assert main(["records", "import", *map(str, paths), "--table", "1", "--db", db]) == 0
    return db, by_the_library(paths)


def test_the_board_carries_the_library_s_ratings(club: tuple[str, dict[str, dict[str, Any]]], russian: None) -> None:
    """The provider's skills to 1e-9 of the library's; hidden standings show no rating; the
    screen's own provider (`tournament screen`) has them too; Russian headings through gettext."""
    db, expected = club
    assert len(expected) == len(PLAYERS), "every player played"
    board = with_skills(provider(3, GAMES), db)(TOURNAMENT, ["1"])
    assert [s.player for s in board.skills] == sorted(expected, key=lambda n: (-expected[n]["rating"], n))
    for skill in board.skills:
        want = expected[skill.player]
        assert (skill.mu, skill.sigma, skill.rating) == pytest.approx((want["mu"], want["sigma"], want["rating"]),
                                                                      abs=1e-9)
        assert skill.games == want["games"] and {s.side for s in skill.sides} == set(want["sides"])
        for side in skill.sides:
            assert (side.mu, side.sigma, side.games) == pytest.approx(
                (want["sides"][side.side]["mu"], want["sides"][side.side]["sigma"], want["sides"][side.side]["games"]),
                abs=1e-9)
    hidden = with_skills(lambda tournament, tables, /: Board(standings=board.standings, hidden=True), db)
    assert hidden(TOURNAMENT, ["1"]).skills == ()
    shown = ClubScreen(standings=lambda tournament, tables, /: board)
    shown.board = board
    state = shown.state()
    assert [state["skill_columns"][k] for k in ("place", "player", "rating", "mu", "games", "red", "black")] == HEADINGS
    assert state["skill_columns"]["title"] == TITLE and len(state["skills"]) == len(PLAYERS)
    shown.board = Board(standings=board.standings, hidden=True, skills=board.skills)
    assert shown.state()["skills"] == [], "a hidden tournament's ratings stay hidden too"
    # `tournament screen`'s provider: the season's board of the tables' games, with the ratings
    season = standings_provider(db, None)(None, ["1"])
    assert season.standings and {s.player for s in season.skills} == {row.player for row in season.standings}


def test_the_ratings_are_worked_out_again_only_when_a_game_is_added_or_the_players_change(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The screen asks its provider every few seconds: the whole history is rated again only when
    the board counts another game or shows other players, and then it carries the new game."""
    import voicehost.cli.tournament_screen as screen_module

    paths = protocols(tmp_path / "games", GAMES + 1)
    db = f"sqlite:///{tmp_path / 'club.sqlite'}"
    assert main(["records", "import", *map(str, paths[:GAMES]), "--table", "1", "--db", db]) == 0
    rated: list[int] = []
    worked_out = screen_module.club_skills

    def counted(rows: Any, players: set[str]) -> Any:
        rated.append(len(rows))
        return worked_out(rows, players)
    monkeypatch.setattr(screen_module, "club_skills", counted)
    shown = {"games": GAMES}
    tv = provider(3, GAMES)
    board = with_skills(lambda tournament, tables, /: replace(tv(tournament, tables), games=shown["games"]), db)
    first = board(TOURNAMENT, ["1"])
    for _ in range(3):
        assert board(TOURNAMENT, ["1"]).skills == first.skills
    assert len(rated) == 1, "asked four times, nothing played: rated once"
    assert main(["records", "import", str(paths[GAMES]), "--table", "1", "--db", db]) == 0
    assert board(TOURNAMENT, ["1"]).skills == first.skills and len(rated) == 1, "the board has not counted it yet"
    shown["games"] = GAMES + 1
    after = board(TOURNAMENT, ["1"])
    assert len(rated) == 2 and rated[1] == rated[0] + 10, "the new game's ten seats are rated"
    expected = by_the_library(paths)
    assert {s.player: s.mu for s in after.skills} == pytest.approx({n: expected[n]["mu"] for n in expected}, abs=1e-9)
    assert after.skills != first.skills
    fewer = with_skills(lambda tournament, tables, /: replace(tv(tournament, tables), games=shown["games"],
                                                              standings=tv(tournament, tables).standings[:5]), db)
    assert len(fewer(TOURNAMENT, ["1"]).skills) == 5 and len(rated) == 3, "other players: rated again"


RATINGS = """
const box = document.getElementById("ratings"), on = !box.classList.contains("hidden");
const rows = [...box.querySelectorAll("tr[data-player]:not(.off)")];
const b = box.getBoundingClientRect();
const cells = [...box.querySelectorAll("tr:not(.off) td, th")];
return on ? {
  rows: rows.map((tr) => [...tr.querySelectorAll("td")].map((td) => td.textContent)),
  inside: rows.every((tr) => { const r = tr.getBoundingClientRect();
    return r.top >= b.top - 0.5 && r.bottom <= b.bottom + 0.5 && r.right <= b.right + 0.5; }),
  cellsInside: cells.every((n) => { const r = n.getBoundingClientRect();
    return r.left >= 0 && r.right <= innerWidth + 0.5 && r.bottom <= innerHeight + 0.5; }),
  tableWidth: box.querySelector("table").scrollWidth, boxWidth: box.clientWidth,
  cut: [...box.querySelectorAll("tr:not(.off) td, th")].filter((n) => n.scrollWidth > n.clientWidth + 1)
    .map((n) => n.textContent),
  headings: [...box.querySelectorAll("th")].map((th) => th.textContent),
  namePx: parseFloat(getComputedStyle(box.querySelector("td.player")).fontSize),
  ratingPx: parseFloat(getComputedStyle(box.querySelector("td.rating")).fontSize),
  sidePx: parseFloat(getComputedStyle(box.querySelector("td.side")).fontSize),
} : null;
"""


def watch(tv: TV) -> None:
    """Each turn of the page measured as it happens (the general measure and the ratings')."""
    started = time.monotonic()
    while not tv.driver.execute_script('return document.getElementById("pager").dataset.page || ""'):
        assert time.monotonic() - started < 30, "the page never drew its first page"
        time.sleep(0.05)
    tv.driver.execute_script(f"""
const measure = () => Object.assign((() => {{ {MEASURE} }})(), {{ratings: (() => {{ {RATINGS} }})()}});
window.pagesSeen = [measure()];
new MutationObserver(() => window.pagesSeen.push(measure()))
  .observe(document.getElementById("pager"), {{attributes: true, attributeFilter: ["data-page"]}});
""")


async def evening(db: str, profile: str) -> dict[str, list[dict[str, Any]]]:
    """Three tables report; the page is watched at each TV size until it has shown every rating
    page and come back to the first standings page; the first rating page is photographed."""
    screen = ClubScreen(standings=with_skills(provider(3, GAMES), db), tournament=TOURNAMENT, drop_s=600.0,
                        refresh_s=0.5)
    base = await screen.start("127.0.0.1", 0)
    worker = ThreadPoolExecutor(max_workers=1)
    loop = asyncio.get_running_loop()

    def in_browser(call: Any, *args: Any) -> Any:
        return loop.run_in_executor(worker, call, *args)

    for table in range(1, 4):
        screen.heard(read_report(report(str(table), 1, held=table == 2)))
    tv: TV = await in_browser(TV, base + "/?page=1", profile)
    seen: dict[str, list[dict[str, Any]]] = {}
    try:
        for width, height in SIZES:
            await in_browser(tv.open, width, height)
            await in_browser(watch, tv)
            pages: list[dict[str, Any]] = []
            shot = False
            started = time.monotonic()
            while time.monotonic() - started < 90:
                for looked in await in_browser(tv.turned):
                    if not pages or looked["page"] != pages[-1]["page"]:
                        pages.append(looked)
                now = (await in_browser(tv.measure))["page"]
                if now.startswith("ratings 1/") and not shot:
                    shot = True
                    await in_browser(tv.shot, artifacts() / f"club-tv-3-tables-{width}x{height}-ratings.png")
                kinds = [p["page"] for p in pages]
                rated = [k for k in kinds if k.startswith("ratings")]
                if shot and rated and rated[-1].split()[1].split("/")[0] == rated[-1].split("/")[1] \
                        and kinds[-1].startswith("standings 1/"):
                    break
                await asyncio.sleep(0.15)
            seen[f"{width}x{height}"] = pages
        return seen
    finally:
        await in_browser(tv.close)
        worker.shutdown()
        await screen.stop()


@pytest.mark.skipif(not (CHROMIUM and DRIVER), reason="Debian's chromium and chromium-driver are not installed "
                                                      "(apt-get install chromium chromium-driver)")
def test_the_tv_shows_the_ratings_page_by_page(club: tuple[str, dict[str, dict[str, Any]]], russian: None) -> None:
    pytest.importorskip("selenium", reason="selenium is not installed (pip install -e '.[test]')")
    db, expected = club
    with tempfile.TemporaryDirectory(prefix="voicehost-club-tv-") as profile:
        seen = asyncio.run(evening(db, profile))
    want = expected_rows(expected)
    for size, (width, height) in zip(seen, SIZES, strict=True):
        pages = seen[size]
        kinds = [p["page"] for p in pages]
        print(size, kinds, json.dumps([{k: v for k, v in p["ratings"].items() if k != "rows"} | {
            "rows": len(p["ratings"]["rows"])} for p in pages if p["ratings"]], ensure_ascii=False))
        rated = [p for p in pages if p["page"].startswith("ratings")]
        count = int(rated[0]["page"].rsplit("/", 1)[1])
        first = kinds.index("ratings 1/" + str(count))
        assert kinds[first:first + count + 1] == [f"ratings {n}/{count}" for n in range(1, count + 1)] + ["seating"], \
            f"{size}: the rating pages come after the standings, before the seating: {kinds}"
        assert kinds[first - 1].startswith("standings") and count >= 2, kinds
        shown = [row for page in rated[:count] for row in page["ratings"]["rows"]]
        assert shown == want, f"{size}: the page's ratings are the library's, best first, every player once"
        for page in pages:
            assert (page["width"], page["height"]) == (width, height)
            assert page["scrollHeight"] <= height and page["scrollWidth"] <= width, f"{size}: a scrollbar ({page})"
            assert page["cards"] == 3 and page["cardsInside"] and page["pagerInside"], f"{size}: {page['page']}"
        for page in rated:
            r = page["ratings"]
            assert r["inside"] and r["cellsInside"], f"{size} {page['page']}: a row or cell out of its box"
            assert r["tableWidth"] <= r["boxWidth"] and not r["cut"], f"{size} {page['page']}: cut short: {r['cut']}"
            assert r["headings"] == HEADINGS and page["title"] == TITLE
            assert len(r["rows"]) >= 5, f"{size}: {len(r['rows'])} rows a page"
            # the names no smaller than the seating's floor (3.2 % of the height); the sides 0.8 of them
            assert 0.032 * height - 0.5 <= r["namePx"] <= 0.048 * height + 0.5 and r["ratingPx"] == r["namePx"]
            assert r["sidePx"] == pytest.approx(0.8 * r["namePx"], abs=0.1)
