"""The rating sites (issue 44): a generated tournament exported for mafiaratings and Polemica,
every game checked against a schema written from the receiver's source (voicehost.records.sites:
required fields, types, enums); the site ids checked before any export; the upload to a local
receiver that validates with the same schema; the imports and the round trip."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from site_tournament import NAME, stored_tournament
from test_club_records import cli  # noqa: F401 - the CLI runner

from voicehost.records.sites import mafiaratings, polemica
from voicehost.records.sites.export import export_text
from voicehost.records.sites.schema import Spec, problems
from voicehost.records.store import Records, open_records


@pytest.fixture
def records(tmp_path: Path) -> Iterator[Records]:
    with open_records(f"sqlite:///{tmp_path / 'club.sqlite'}") as db:
        stored_tournament(db, rounds=6)
        yield db


def mr_games(records: Records) -> list[dict[str, Any]]:
    return [json.loads(line) for line in export_text(records, NAME, "mafiaratings").splitlines()]


def test_the_schema_finds_what_a_receiver_refuses() -> None:
    """The schema checker itself: a missing required field, a wrong type, a value outside an enum."""
    spec = Spec("object", fields={"a": Spec("int", required=True), "b": Spec("str", enum=("x", "y"))})
    assert problems({"a": 1, "b": "x"}, spec) == []
    assert problems({"b": "z"}, spec) == ["$.a: is required", "$.b: 'z' is not one of 'x', 'y'"]
    assert problems({"a": "1"}, spec) == ["$.a: must be int, not str"]
    assert problems({"a": True}, spec) == ["$.a: must be int, not bool"]


def test_mafiaratings_every_game_in_creates_shape(records: Records) -> None:
    games = mr_games(records)
    assert len(games) == 11   # 12 played, the annulled one left out
    assert [p for g in games for p in mafiaratings.game_problems(g)] == []
    assert all(g["clubId"] == 41 and g["eventId"] == 9001 and g["moderator"] == {"id": 25} for g in games)
    assert all(g["rules"] == "0000000000000" and g["endTime"] for g in games)
    players = [p for g in games for p in g["players"]]
    assert any("legacy" in p for p in players)                                 # best moves travel
    assert {p["death"]["type"] for p in players if "death" in p} >= {"day", "night", "warnings", "kickOut"}
    assert any(g["winner"] == "tie" for g in games)
    assert any(p.get("bonus") == "bestPlayer" or "bestPlayer" in (p.get("bonus") or []) for p in players)
    # the old bundle had none of these: the checker would have found them
    old = {k: v for k, v in games[0].items() if k not in ("clubId", "eventId", "moderator", "endTime", "rules")}
    assert len(mafiaratings.game_problems(old)) == 5


def test_every_best_move_reaches_mafiaratings(records: Records) -> None:
    """Each best move whose player the night killed in round 0 or 1 is that player's legacy."""
    from voicehost.records.tournament import played_games

    games = mr_games(records)
    moves = [(g.protocol["best_move"], g.protocol["seats"][str(g.protocol["best_move"]["by"])]["out"])
             for g in played_games(records, NAME) if g.protocol.get("best_move") and not g.protocol.get("result")]
    expected = [m["seats"] for m, out in moves if out.get("night", 99) <= 2]
    assert expected and sorted(p["legacy"] for g in games for p in g["players"] if "legacy" in p) == sorted(expected)


def test_polemica_every_game_in_its_shape(records: Records) -> None:
    bundle = json.loads(export_text(records, NAME, "polemica"))
    games = bundle["games"]
    assert len(games) == 11 and len(bundle["left_out"]) == 1
    assert [p for g in games for p in polemica.game_problems(g)] == []
    assert all(g["master"] == 54070 and g["scoringType"] == 1 and g["version"] == 4 for g in games)
    players = [p for g in games for p in g["players"]]
    stages = {f["stage"]["type"] for p in players for f in p["fouls"]}
    assert stages == {"briefing", "speech", "shooting"}                     # fouls at every stage
    assert any("disqual" in p for p in players) and any("guess" in p for p in players)
    assert any(g["result"] is None for g in games)                            # the draw
    old_foul: dict[str, Any] = {}
    old_disqual = {"type": "removed"}
    assert polemica.game_problems({**games[0], "players": [{**players[0], "fouls": [old_foul],
                                                            "disqual": old_disqual}] * 10})


def test_a_fouls_count_matches_the_protocol(records: Records) -> None:
    from voicehost.records.tournament import played_games

    games = json.loads(export_text(records, NAME, "polemica"))["games"]
    played = [g for g in played_games(records, NAME) if not g.protocol.get("result")]
    for exported, game in zip(games, played, strict=True):
        for player in exported["players"]:
            assert len(player["fouls"]) == game.protocol["seats"][str(player["position"])]["fouls"]


def test_an_export_without_the_site_ids_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = f"sqlite:///{tmp_path / 'bare.sqlite'}"
    code, _out, _err = cli(capsys, "tournament", "create", "Без сайта", "--scoring", "seed001", "--db", db)
    assert code == 0
    code, out, err = cli(capsys, "tournament", "export", "Без сайта", "--format", "mafiaratings", "--db", db)
    assert code == 2 and err.count("\n") == 1 and "--mafiaratings-club" in err and "tournament set" in err
    code, out, err = cli(capsys, "tournament", "set", "Без сайта", "--mafiaratings-rules", "12ab", "--db", db)
    assert code == 2 and err.count("\n") == 1
    code, out, err = cli(capsys, "tournament", "set", "Без сайта", "--mafiaratings-club", "41", "--mafiaratings-event",
                         "9001", "--mafiaratings-moderator", "25", "--mafiaratings-rules", "0000000000000", "--db", db)
    assert code == 0 and "club 41" in out
    code, out, err = cli(capsys, "tournament", "export", "Без сайта", "--format", "mafiaratings", "--db", db)
    assert code == 0 and out == ""   # no games yet: no lines
    code, out, err = cli(capsys, "tournament", "export", "Без сайта", "--format", "polemica", "--db", db)
    assert code == 2 and "--polemica-master" in err


def test_create_takes_the_site_ids(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = f"sqlite:///{tmp_path / 'ids.sqlite'}"
    code, _out, err = cli(capsys, "tournament", "create", "С сайтом", "--scoring", "seed001", "--polemica-master",
                          "0", "--db", db)
    assert code == 2 and err.count("\n") == 1
    code, _out, _err = cli(capsys, "tournament", "list", "--db", db)
    assert "С сайтом" not in _out   # refused whole: no tournament stored
    code, _out, err = cli(capsys, "tournament", "create", "С сайтом", "--scoring", "seed001", "--polemica-master",
                          "7", "--polemica-scoring-type", "1", "--polemica-version", "4", "--db", db)
    assert code == 0
    code, out, _err = cli(capsys, "tournament", "export", "С сайтом", "--format", "polemica", "--db", db)
    assert code == 0 and json.loads(out)["games"] == []


# ---- the upload --------------------------------------------------------------------------------

class Receiver:
    """mafiaratings' create operation on 127.0.0.1 (aiohttp): checks the cookie, validates each
    game with the same schema, refuses the game of table 2 round 2 once, keeps what it accepted."""

    def __init__(self) -> None:
        self.accepted: list[dict[str, Any]] = []
        self.calls = 0
        self.refuse_once = {(2, 2)}
        self.url = ""
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)

    def __enter__(self) -> Receiver:
        self._thread.start()
        assert self._ready.wait(10)
        return self

    def __exit__(self, *_exc: object) -> None:
        self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(10)

    def _serve(self) -> None:
        import asyncio

        from aiohttp import web

        async def create(request: web.Request) -> web.Response:
            self.calls += 1
            form = await request.post()
            if request.cookies.get("auth_key") != "секрет-42".encode().hex() or form.get("op") != "create":
                return web.json_response({"error": "Login required."})
            game = json.loads(str(form["json"]))
            found = mafiaratings.game_problems(game)
            if found:
                return web.json_response({"error": "; ".join(found)})
            place = (game["gameNum"], game["tableNum"])
            if place in self.refuse_once:
                self.refuse_once.discard(place)
                return web.json_response({"error": "Event is closed for a moment."})
            self.accepted.append(game)
            return web.json_response({"rebuild_ratings": False})

        async def main() -> None:
            self._loop = asyncio.get_running_loop()
            self._stop = asyncio.Event()
            app = web.Application()
            app.router.add_post("/api/ops/game.php", create)
            runner = web.AppRunner(app)
            await runner.setup()
            site = web.TCPSite(runner, "127.0.0.1", 0)
            await site.start()
            port = runner.addresses[0][1]
            self.url = f"http://127.0.0.1:{port}/api/ops/game.php"
            self._ready.set()
            await self._stop.wait()
            await runner.cleanup()

        asyncio.run(main())


def test_upload_sends_each_game_once_and_retries_the_refused(records: Records,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    token = "секрет-42".encode().hex()
    with Receiver() as site:
        args = ("tournament", "upload", NAME, "--site", "mafiaratings", "--token", token, "--url", site.url,
                "--db", str(records.url))
        code, out, err = cli(capsys, *args)
        assert code == 2 and err.count("\n") == 1 and "Event is closed" in err
        assert len(site.accepted) == 10 and site.calls == 11
        code, out, err = cli(capsys, *args)        # the refused one again, nothing else
        assert code == 0 and site.calls == 12 and len(site.accepted) == 11
        code, out, err = cli(capsys, *args)        # all accepted: nothing is sent
        assert code == 0 and site.calls == 12
    places = [(g["gameNum"], g["tableNum"]) for g in site.accepted]
    assert len(set(places)) == 11


def test_upload_without_a_connection_is_one_line(records: Records, capsys: pytest.CaptureFixture[str]) -> None:
    import socket

    with socket.socket() as free:   # a port nobody listens on
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    code, out, err = cli(capsys, "tournament", "upload", NAME, "--site", "mafiaratings", "--token", "x", "--url",
                         f"http://127.0.0.1:{port}/api/ops/game.php", "--db", str(records.url))
    assert code == 2 and err.count("\n") == 1 and "Traceback" not in err



# ---- imports and the round trip ------------------------------------------------------------------

# What each site does not carry: the round trip gives back the protocol without these.
NOT_CARRIED = {
    "both": {
        "reason": "why the game ended (the sites keep the winner only)",
        "options": "the ruleset's options (best_move and judge_points come back as flags when used)",
        "days, nights": "the day-by-day detail: nominations, votes, shots and checks as voicehost keeps them",
        "revealed, ignored, ballots": "cards shown, inputs ignored, the buttons' ballots",
        "scores": "the points: worked out again from the game under the sport ruleset's scheme",
        "judge_points[].reason": "the judge's reason for bonus or penalty points (the points come back, "
                                 "summed per seat)",
        "tournament": "the game's place (the sites file it under their event, table and game number)",
    },
    "mafiaratings": {
        "each foul's phase": "warnings travel as a count",
        "best_move (killed after round 1)": "the site keeps a legacy of a player killed in round 0 or 1 only",
        "ended (a protocol without one)": "endTime is required: the start time is sent, and comes back as the end",
    },
    "polemica": {
        "ended": "Polemica's game has no end time",
        "foul_times of a protocol without them": "each foul is dated at the game's start and comes back so",
        "seats.N.out and eliminations by vote": "Polemica works them out from each voter's vote; a protocol "
                                                "keeps the counts, so the export carries no votes",
    },
}


def carried(protocol: dict[str, Any], site: str) -> dict[str, Any]:
    """The protocol's facts a site carries (see :data:`NOT_CARRIED`)."""
    def kept(out: dict[str, Any] | None) -> bool:
        return out is not None and not (site == "polemica" and out["cause"] == "voted")

    seats = {seat: {"role": e["role"], "name": e.get("name"), "fouls": e["fouls"],
                    "out": e.get("out") if kept(e.get("out")) else None} for seat, e in protocol["seats"].items()}
    facts = {"started": protocol["started"], "winner": protocol["winner"], "seats": seats,
             "eliminations": sorted((e["seat"], e["cause"], e.get("day"), e.get("night"))
                                    for e in protocol["eliminations"] if kept(e)),
             "best_player": protocol.get("best_player"),
             "judge_points": judge_points(protocol),
             "best_move": protocol.get("best_move")}
    if site == "mafiaratings":
        facts["ended"] = protocol.get("ended") or protocol["started"]
        move, by_out = facts["best_move"], None
        if move is not None:
            by_out = protocol["seats"][str(move["by"])].get("out") or {}
            if by_out.get("night", 99) > 2:
                facts["best_move"] = None
    else:
        facts["foul times"] = sorted((f["seat"], f["at"]) for f in protocol.get("foul_times") or [])
        facts["fouls by phase"] = sorted((kind, phase[kind], f["seat"], f["count"]) for kind in ("day", "night")
                                         for phase in protocol[kind + "s"] for f in phase.get("fouls", []))
    return facts


def judge_points(protocol: dict[str, Any]) -> list[tuple[int, float]]:
    """Each seat's bonus and penalty points summed (what both sites list per player)."""
    sums: dict[int, float] = {}
    for given in protocol.get("judge_points", []):
        sums[given["seat"]] = sums.get(given["seat"], 0.0) + given["points"]
    return sorted((seat, round(points, 2)) for seat, points in sums.items() if round(points, 2))


def first_out_killed(protocol: dict[str, Any]) -> bool:
    return bool(protocol["eliminations"]) and protocol["eliminations"][0]["cause"] == "killed"


@pytest.mark.parametrize("site, form", [("mafiaratings", "mafiaratings"), ("polemica", "polemica")])
def test_round_trip_gives_back_the_protocol_minus_what_the_site_does_not_carry(
        records: Records, tmp_path: Path, capsys: pytest.CaptureFixture[str], site: str, form: str) -> None:
    from voicehost.records.tournament import played_games

    path = tmp_path / f"{site}.json"
    path.write_text(export_text(records, NAME, form), encoding="utf-8")
    fresh = f"sqlite:///{tmp_path / 'fresh.sqlite'}"
    code, out, err = cli(capsys, "records", "import", "--from", site, str(path), "--db", fresh)
    assert code == 0, err
    with open_records(fresh) as db:
        back = sorted((g.protocol for g in db.games()), key=lambda p: p["started"])
    original = sorted((g.protocol for g in played_games(records, NAME) if not g.protocol.get("result")),
                      key=lambda p: p["started"])
    assert len(back) == len(original) == 11
    for before, after in zip(original, back, strict=True):
        expected = carried(before, site)
        if site == "polemica" and not (expected["best_move"] and first_out_killed(after)):
            expected["best_move"] = None   # the first to leave, killed: votes that came first are not carried
        if site == "polemica" and not before.get("foul_times"):   # undated fouls go at the game's start
            expected["foul times"] = sorted((int(seat), before["started"]) for seat, e in before["seats"].items()
                                            for _k in range(e["fouls"]))
        assert carried(after, site) == expected


def test_an_imported_game_is_recognised_from_either_side(records: Records, tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    mr, pol = tmp_path / "mr.jsonl", tmp_path / "pol.json"
    mr.write_text(export_text(records, NAME, "mafiaratings"), encoding="utf-8")
    pol.write_text(export_text(records, NAME, "polemica"), encoding="utf-8")
    before = records.count()
    for site, path in (("mafiaratings", mr), ("polemica", pol)):   # the games are voicehost's own already
        code, out, err = cli(capsys, "records", "import", "--from", site, str(path), "--db", str(records.url))
        assert code == 0 and "11" in out
    assert records.count() == before
    fresh = f"sqlite:///{tmp_path / 'other.sqlite'}"
    cli(capsys, "records", "import", "--from", "polemica", str(pol), "--db", fresh)
    code, out, err = cli(capsys, "records", "import", "--from", "mafiaratings", str(mr), "--db", fresh)
    assert code == 0 and " 0 " in out
    with open_records(fresh) as db:
        assert db.count() == 11


def test_a_bad_site_record_is_one_line_and_stores_nothing(records: Records, tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    games = [json.loads(line) for line in export_text(records, NAME, "mafiaratings").splitlines()]
    broken = [games[0], {**games[1], "winner": "aliens"}]
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(broken), encoding="utf-8")
    fresh = f"sqlite:///{tmp_path / 'b.sqlite'}"
    code, out, err = cli(capsys, "records", "import", "--from", "mafiaratings", str(path), "--db", fresh)
    assert code == 2 and err.count("\n") == 1 and "game 2" in err and "Traceback" not in err
    bare_death = {**games[0], "players": [{**p, "death": 2} if "death" in p else p for p in games[0]["players"]]}
    path.write_text(json.dumps(bare_death), encoding="utf-8")
    code, out, err = cli(capsys, "records", "import", "--from", "mafiaratings", str(path), "--db", fresh)
    assert code == 2 and err.count("\n") == 1 and "death" in err   # a round without its type is not guessed
    all_sheriffs = {**games[0], "players": [{**p, "role": "sheriff"} for p in games[0]["players"]]}
    path.write_text(json.dumps(all_sheriffs), encoding="utf-8")
    code, out, err = cli(capsys, "records", "import", "--from", "mafiaratings", str(path), "--db", fresh)
    assert code == 2 and err.count("\n") == 1   # the deal check a native protocol gets
    with open_records(fresh) as db:
        assert db.count() == 0


def test_a_journal_dates_each_foul_and_the_end(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A game played at the table level (its virtual clock) and imported from its journal: the
    protocol's ``foul_times`` and ``ended`` are the header's start plus each input's clock, read
    here straight from the journal's lines."""
    from datetime import datetime, timedelta

    from voicehost.records.games import read_record

    journal = tmp_path / "game.jsonl"
    sample = Path(__file__).resolve().parent.parent / "examples" / "sport-sample.json"
    code, _out, err = cli(capsys, "simulate", str(sample), "--level", "table", "--journal", str(journal), "--json")
    assert code == 0, err
    lines = [json.loads(line) for line in journal.read_text(encoding="utf-8").splitlines()]
    start = datetime.strptime(lines[0]["started"], "%Y-%m-%dT%H:%M:%SZ")
    inputs = [line for line in lines if line["type"] == "input"]

    def at(t: float) -> str:
        return (start + timedelta(seconds=t - inputs[0]["t"])).strftime("%Y-%m-%dT%H:%M:%SZ")

    fouls = [{"seat": line["input"]["seat"], "at": at(line["t"])} for line in inputs if line["input"]["type"] == "foul"]
    protocol = read_record(journal).protocol
    assert fouls and protocol["foul_times"] == fouls
    assert protocol["ended"] == at(inputs[-1]["t"]) > protocol["started"]
    assert sum(e["fouls"] for e in protocol["seats"].values()) == len(fouls)
