"""Leftovers of the judge's console and the tournament evening (issues 31 and 33): the judge's
points and the best move after the game, a vote correction's typed refusal, the records'
verdict of an annulled game and the tournament screen's round under ``serve``.

Seating: Don 3, mafia 5 and 9, Sheriff 7 (tests/test_tournament_scoring.py's deal).
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from test_judge_controls import silent_ports
from test_tournament_scoring import DEAL, TOURNAMENT, shots, sport

from voicehost.host.director import Director, EdgeLog, Ports
from voicehost.host.journal import Journal, load_journal
from voicehost.host.live import _write_results
from voicehost.host.vclock import run_virtual
from voicehost.rules import IllegalInput
from voicehost.rules.errors import GameIsOver, TournamentOptionOff
from voicehost.rules.inputs import BestMove, Check, Dawn, EndSpeech, Foul, Input, JudgePoints, Proceed, Remove
from voicehost.rules.protocol import build_protocol
from voicehost.rules.requests import AwaitSpeech
from voicehost.rules.sport import SportGame


def over_after_the_first_kill(**options: Any) -> SportGame:
    """Night 2 kills seat 1 (the first to leave, his best move is his); the judge then removes
    the three black seats: red wins at that morning."""
    game = sport(**options)
    item: Input
    for item in (DEAL, Dawn(), Proceed()):
        game.push(item)
    while isinstance(game.request, AwaitSpeech):
        game.push(EndSpeech(game.request.seat))
    for item in (Proceed(), shots((3, 1), (5, 1), (9, 1)), Check(3, None), Check(7, None), Dawn()):
        game.push(item)
    for seat in (3, 5, 9):
        game.push(Remove(seat, "host"))
    assert game.is_over and game.first_killed == 1
    return game


# ---- 1. the judge's points and the best move after the game --------------------------------

def test_the_judges_points_and_the_best_move_count_after_the_game_without_changing_its_outcome() -> None:
    game = over_after_the_first_kill(**TOURNAMENT)
    outcome, before = game.outcome(), game.scores()
    assert outcome is not None
    game.push(JudgePoints(4, 50, "the best speech"))
    game.push(JudgePoints(6, -25, "talked out of turn"))
    game.push(BestMove(1, (3, 5, 2)))
    assert game.outcome() == outcome and game.request is None
    after = game.scores()
    assert after[4] == round(before[4] + 0.5, 2) and after[6] == round(before[6] - 0.25, 2)
    assert after[1] > before[1]                      # two black seats named: the best move's points
    protocol = build_protocol(game, None, {})
    assert protocol["judge_points"] == [{"seat": 4, "points": 0.5, "reason": "the best speech"},
                                        {"seat": 6, "points": -0.25, "reason": "talked out of turn"}]
    assert protocol["best_move"] == {"by": 1, "seats": [3, 5, 2], "black": 2}
    assert (protocol["winner"], protocol["reason"]) == (outcome.winner, outcome.reason)
    game.pop()                                       # undone after the end, and replayed
    assert game.best_move == () and game.outcome() == outcome
    game.splice(0, 1, [DEAL])                        # a replay of everything keeps the after-game points
    assert game.judge_total(4) == 50 and game.outcome() == outcome
    with pytest.raises(IllegalInput) as refused:
        game.push(Foul(2, "host"))                   # the rest of the game stays closed
    assert isinstance(refused.value.refusal, GameIsOver)


def test_after_the_game_the_judges_points_still_need_their_option() -> None:
    game = over_after_the_first_kill()
    with pytest.raises(IllegalInput) as refused:
        game.push(JudgePoints(4, 50, "why"))
    assert refused.value.refusal == TournamentOptionOff("judge_points")


def host_after_game(
        game: SportGame, journal: Journal, lines: list[str], seconds: float) -> tuple[bool, float, Director]:
    """The after-game window of ``voicehost run`` on the virtual clock, ``lines`` typed into it:
    (whether the game goes on, the table seconds it took, the director)."""
    made: list[tuple[bool, float, Director]] = []

    async def session() -> None:
        loop = asyncio.get_running_loop()
        ports = silent_ports()
        director = Director(game, ports, journal, log=lambda line: None)
        for line in lines:
            ports.type(line)
        start = loop.time()
        goes_on = await director.after_game(None)
        made.append((goes_on, loop.time() - start, director))

    run_virtual(session())
    return made[0]


def journaled(game: SportGame, path: Path) -> Journal:
    journal = Journal(path, {"ruleset": "sport", "options": TOURNAMENT, "seats": 10, "level": "live"})
    for index, item in enumerate(game.inputs):
        journal.append(index, 0.0, "host", item)
    return journal


def test_the_after_game_window_at_run_takes_the_judges_points_into_journal_and_protocol(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    game = over_after_the_first_kill(**TOURNAMENT)
    path = tmp_path / "g.jsonl"
    journal = journaled(game, path)
    goes_on, took, director = host_after_game(
        game, journal, ["bonus 4 0,5 the best speech", "penalty 6 0.25 talked out of turn", "bestmove 3 5 2",
                        "bonus 8 1 a typo", "undo", "foul 2", "end"], 120.0)
    assert not goes_on and took < 5.0                # «end» closed the window well before its 120 s
    assert dict(director.console.refused) == {"foul 2": "the game is over"}
    journal.close()
    inputs = [entry.input for entry in load_journal(path).entries]   # the undone bonus is spliced out
    assert inputs[-3:] == [JudgePoints(4, 50, "the best speech"), JudgePoints(6, -25, "talked out of turn"),
                           BestMove(1, (3, 5, 2))]
    recorded: list[dict[str, Any]] = []
    _write_results(game, {}, path, lambda _, protocol: recorded.append(protocol), journal.judged)
    protocol = json.loads(path.with_suffix(".protocol.json").read_text())
    assert [p["seat"] for p in protocol["judge_points"]] == [4, 6] and protocol["best_move"]["black"] == 2
    assert game.is_over and game.judge_total(8) == 0
    assert recorded and recorded[0]["judge_points"] == protocol["judge_points"]   # the records get them too


def test_without_tournament_options_the_window_does_not_wait(tmp_path: Path) -> None:
    game = over_after_the_first_kill()
    goes_on, took, director = host_after_game(game, journaled(game, tmp_path / "g.jsonl"), ["bonus 4 0,5 why"], 120.0)
    assert not goes_on and took == 0.0 and not director.console.refused   # nothing asked: nothing read


# ---- 2. a vote correction the game since cannot absorb ------------------------------------

def test_a_correction_that_changes_who_left_after_his_last_word_is_a_typed_russian_refusal() -> None:
    """Day 1: seat 5 voted out 6 to 4 and his last word said. «vote 1 9» makes it a tie (his last
    word stands as his tie speech); «vote 2 9» would send seat 9 out instead, but seat 5's word
    is said: refused with its own kind — not the replay's «seat 9 has the floor, not seat 5»."""
    from test_console import console_at
    from test_game import voted_game

    from voicehost.host.refusals import VoteCorrectionTooLate
    from voicehost.i18n import _
    from voicehost.language.refusals import refusal_text
    game = voted_game()
    game.push(EndSpeech(5))
    director, said, printed = console_at(game, ["vote 1 9"])
    inputs = list(game.inputs)
    director.ports.type("vote 2 9")
    run_virtual(director.console.run())
    assert game.inputs == inputs                                   # nothing changed
    assert director.console.refused[-1] == ("vote 2 9", str(VoteCorrectionTooLate(2)))
    text = refusal_text(VoteCorrectionTooLate(2))
    assert text.startswith("Голос игрока 2 так уже не исправить")
    assert printed[-1] == _("console: «{line}» refused: {why}").format(line="vote 2 9", why=text)   # the judge reads it


# ---- 3. the records' history of an annulled game -------------------------------------------

def test_the_records_history_says_an_annulled_game_in_russian(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    from datetime import UTC, datetime

    from voicehost.cli.main import main
    from voicehost.records.games import record_from_protocol
    from voicehost.records.store import open_records
    finished = json.loads((Path(__file__).parent / "scripts" / "sport-repeat-tie-four-vote.expect.json").read_text())
    annulled = record_from_protocol({**finished, "result": "annulled", "started": "2026-12-01T19:00:00Z",
                                     "verdict": {"result": "annulled", "reason": "r", "by": "web"}}, "a",
                                    datetime(2026, 12, 1, 19, tzinfo=UTC))
    url = f"sqlite:///{tmp_path / 'r.sqlite'}"
    with open_records(url) as db:
        db.add([annulled])
    monkeypatch.setenv("VOICEHOST_LANG", "ru")
    assert main(["records", "games", "--db", url]) == 0
    out = capsys.readouterr().out
    assert "игра аннулирована" in out and "None" not in out and "(annulled)" not in out


# ---- 4. the tournament screen follows the game's round under serve --------------------------

def test_the_club_reporter_reports_each_games_own_round(tmp_path: Path) -> None:
    """``serve --tournament cup --round 1`` gives its second game round 2 (its setup's
    ``tournament``, told to the reporter with the director); the reporter kept saying round 1
    for every game of the evening."""
    from voicehost.web.reporter import ClubReporter, TablePlace

    reporter = ClubReporter("ws://127.0.0.1:9/ws/table", TablePlace("cup", 1, "2", "club-table-2"))
    ports = Ports(speak=None, night=lambda on: None, led=lambda s, p: None, edges=EdgeLog(), poll_s=None)

    def director() -> Director:
        return Director(over_after_the_first_kill(), ports, None, log=lambda line: None)

    assert reporter.report()["round"] == 1
    for number in (1, 2, 3):
        reporter.follow(director(), {"name": "cup", "round": number, "table": 2})
        report = reporter.report()
        assert (report["tournament"], report["round"], report["table"]) == ("cup", number, "2")
        reporter.follow(None)
        assert reporter.report()["round"] == number      # the game just played stays on the screen
    reporter.follow(director())                           # a game without a place keeps the table's
    assert reporter.report()["round"] == 3


def test_serve_tells_each_new_game_its_round_with_its_director(tmp_path: Path) -> None:
    """The idle table of ``serve --tournament cup --round 1 --tournament-table 2``: its first game
    is round 1; once that game has its protocol the next is round 2, and the table says so with
    the director (``game_place``, what the club reporter follows)."""
    from voicehost.config import load_ruleset
    from voicehost.service.notify import Notifier
    from voicehost.service.table import IdleTable, TableSetup, TableState

    ruleset = load_ruleset("sport")
    ports = Ports(night=lambda on: None, led=lambda seat, pattern: None, edges=EdgeLog(), poll_s=None)
    setup = TableSetup(ruleset, ruleset.resolve({}), 10, tmp_path, deal_seed=lambda: 7,
                       tournament={"name": "cup", "round": 1, "table": 2})
    table = IdleTable(setup, ports, log=lambda line: None, notify=Notifier(""))
    rounds: list[int] = []

    def told(director: Director | None) -> None:
        if director is not None:
            assert table.game_place is not None
            rounds.append(table.game_place["round"])
            assert table._game is not None
            table._game.cancel()   # the game itself is not what this test plays

    table.on_change = told

    async def two_games() -> None:
        for _ in range(2):
            table._state = TableState.STARTING
            await table._new_game()
            for journal in tmp_path.glob("*.jsonl"):   # the game played: its protocol is there
                journal.with_suffix(".protocol.json").write_text("{}")

    asyncio.run(two_games())
    assert rounds == [1, 2]
