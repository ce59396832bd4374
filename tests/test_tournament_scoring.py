"""Tournament scoring in sport (docs/rules.md "Tournament scoring"): the best move, the judge's
bonus and penalty points, a removal's forfeit and the quiet draw — each an option, off by
default, and each kept in the protocol and the records' ratings.

Seating in every test: Don 3, mafia 5 and 9, Sheriff 7.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from test_club_records import db_url, pg_cluster  # noqa: F401  (the records on SQLite and PostgreSQL)

from voicehost.config import load_ruleset
from voicehost.host.director import Director, EdgeLog, Ports
from voicehost.host.journal import Journal, read_journal
from voicehost.host.vclock import run_virtual
from voicehost.language.host_lines import event_lines, spoken
from voicehost.language.narrate import narrate
from voicehost.language.phrasebook import load_phrasebook
from voicehost.language.refusals import refusal_text
from voicehost.records.games import record_from_journal
from voicehost.records.ratings import points_of, ratings, scores_by_scheme
from voicehost.records.store import open_records
from voicehost.rules import IllegalInput, Role, new_game
from voicehost.rules.errors import (
    BestMoveSeats,
    NoBestMoveFor,
    NoBestMoveYet,
    NoReasonGiven,
    PointsOutOfRange,
    TournamentOptionOff,
)
from voicehost.rules.events import GameOver
from voicehost.rules.inputs import (
    BestMove,
    Check,
    CloseVoting,
    Dawn,
    Deal,
    EndSpeech,
    Input,
    JudgePoints,
    Nominate,
    Proceed,
    Shots,
)
from voicehost.rules.protocol import build_protocol
from voicehost.rules.requests import AwaitAction, AwaitMorning, AwaitNightfall, AwaitSpeech, AwaitVotes, Request
from voicehost.rules.sport import SportGame
from voicehost.web.commands import CommandError, check_command

DEAL = Deal(tuple(Role(r) for r in [
    "citizen", "citizen", "don", "citizen", "mafia", "citizen", "sheriff", "citizen", "mafia", "citizen"]))
NAMES = {seat: f"p{seat}" for seat in range(1, 11)}
TOURNAMENT = {"scoring": "fiim", "best_move": True, "judge_points": True, "removal_forfeits": True}


def sport(**options: Any) -> SportGame:
    ruleset = load_ruleset("sport")
    game = new_game(ruleset, ruleset.resolve(options), 10)
    assert isinstance(game, SportGame)
    return game


def shots(*shooters_on: tuple[int, int]) -> Shots:
    return Shots(tuple((shooter, (target,)) for shooter, target in shooters_on))


class Table:
    """A sport table on the virtual clock: the seats' and the host's inputs pushed through the
    director's stage (journaled), the judge's lines typed at its console."""

    def __init__(self, game: SportGame, journal: Journal | None = None) -> None:
        self.game = game
        self.said: list[str] = []
        self.printed: list[str] = []
        self.journal = journal

    async def open(self) -> None:
        loop = asyncio.get_running_loop()

        async def speak(text: str) -> float:
            self.said.append(text)
            return loop.time()

        self.ports = Ports(speak=speak, night=lambda on: None, led=lambda s, p: None, edges=EdgeLog(),
                           clock=loop.time, poll_s=None)
        self.director = Director(self.game, self.ports, self.journal, log=self.printed.append)

    async def push(self, *items: Input) -> None:
        for item in items:
            await self.director.stage.push(item, "deal" if isinstance(item, Deal) else "host")

    async def type(self, *lines: str) -> None:
        for line in lines:
            self.ports.type(line)
        await self.director.console.run()

    async def speeches(self, nominations: dict[int, int] | None = None) -> None:
        """Every speech and pause up to the vote (or the night): each speaker's nomination, if any."""
        while isinstance(self.game.request, (AwaitSpeech, AwaitMorning)):
            request = self.game.request
            if isinstance(request, AwaitSpeech):
                if request.seat in (nominations or {}):
                    await self.push(Nominate(request.seat, (nominations or {})[request.seat]))
                await self.push(EndSpeech(request.seat))
            else:
                await self.push(Proceed())

    async def vote_out_nominee(self) -> None:
        """One candidate on a later day: nobody presses, every vote is his; then his last word."""
        assert isinstance(self.game.request, AwaitVotes)
        await self.push(CloseVoting())
        await self.speeches()

    async def night(self, *shooters_on: tuple[int, int]) -> None:
        """Nightfall, the shots, the Don and the Sheriff (if alive) check nobody useful, the dawn."""
        assert isinstance(self.game.request, AwaitNightfall)
        await self.push(Proceed(), shots(*shooters_on))
        for role in ("don", "sheriff"):
            request: Request | None = self.game.request   # whatever the last push left (not the nightfall)
            if isinstance(request, AwaitAction) and request.role.value == role:
                await self.push(Check(request.by, None if request.by is None else 1 + request.by % 10))
        await self.push(Dawn())


async def tournament_game(table: Table) -> None:
    """The whole game, red wins on day 4:

    - day 1: nobody nominated; night 2: the black kill seat 1, the first to leave;
    - at his last word he names 3, 5 and 2 (two black) — and the judge gives seat 4 +0.3 (a
      speech), seat 6 −0.25 (a remark), then a +1 for seat 8 he takes back with ``undo``;
    - day 2: seat 5 (mafia) voted out; at nightfall the judge removes seat 10 (a citizen);
    - night 3 kills 2; day 3 votes out 3 (the Don); night 4 kills 4; day 4 votes out 9: red wins.
    """
    await table.open()
    await table.push(DEAL, Dawn())
    await table.speeches()                                        # day 1: no candidates, no vote
    await table.night((3, 1), (5, 1), (9, 1))
    await table.push(Proceed())                                   # seat 1's last word
    await table.type("bestmove 3 5 2", "bonus 4 0,3 the best speech of day two",
                     "penalty 6 0.25 talked out of turn", "bonus 8 1 a typo", "undo")
    await table.speeches({2: 5})
    await table.vote_out_nominee()                                # 5 out
    await table.type("remove 10")
    await table.night((3, 2), (9, 2))
    await table.speeches({4: 3})
    await table.vote_out_nominee()                                # 3 out
    await table.night((9, 4))
    await table.speeches({6: 9})
    await table.vote_out_nominee()                                # 9 out: no black left


# The hand computation, scheme fiim (mafiaratings' «ФИИМ», scoring 19: won +1, kept by a removed
# winner; best move of the red player killed in the first shooting night, 2 black +0.25; removed −0.5;
# docs/rules.md "Tournament scoring" cites each):
#   seat 1  red, won +1, best move 3, 5, 2 = two black +0.25              = 1.25
#   seat 2  red, won +1                                                    = 1.00
#   seat 3  Don, lost                                                      = 0.00
#   seat 4  red, won +1, the judge's bonus +0.3                            = 1.30
#   seat 5  mafia, lost                                                    = 0.00
#   seat 6  red, won +1, the judge's penalty −0.25                         = 0.75
#   seat 7  Sheriff, won +1                                                = 1.00
#   seat 8  red, won +1 (the +1 bonus was undone)                          = 1.00
#   seat 9  mafia, lost                                                    = 0.00
#   seat 10 red, removed: keeps the win +1 (fiim ignores removal_forfeits), removed −0.5 = 0.50
FIIM_BY_HAND = {1: 1.25, 2: 1.0, 3: 0.0, 4: 1.3, 5: 0.0, 6: 0.75, 7: 1.0, 8: 1.0, 9: 0.0, 10: 0.5}
# The scheme championship (voicehost's values before fiim) is the same but for seat 10: under the
# game's option removal_forfeits he loses the win point and gets −0.5.
CHAMPIONSHIP_BY_HAND = {**FIIM_BY_HAND, 10: -0.5}
# The same game scored again under seed001 (alive +5, won +6, Don/Sheriff alive +1; no best-move
# or removal points in that scheme), keeping the table's decisions — seat 10's forfeit (no +6)
# and the judge's points: alive at the end are 6, 7 and 8.
#   1: 6   2: 6   3: 0   4: 6 + 0.3 = 6.3   5: 0   6: 5 + 6 − 0.25 = 10.75   7: 5 + 6 + 1 = 12
#   8: 5 + 6 = 11   9: 0   10: 0
SEED001_BY_HAND = {1: 6.0, 2: 6.0, 3: 0.0, 4: 6.3, 5: 0.0, 6: 10.75, 7: 12.0, 8: 11.0, 9: 0.0, 10: 0.0}


def test_a_tournament_scored_game_from_the_console_its_protocol_and_the_ratings(
        tmp_path: Path, db_url: str) -> None:  # noqa: F811  (the fixture)
    path = tmp_path / "game.jsonl"
    journal = Journal(path, {"ruleset": "sport", "options": TOURNAMENT, "seats": 10, "level": "live",
                             "names": {str(seat): name for seat, name in NAMES.items()}}, note=lambda line: None)
    table = Table(sport(**TOURNAMENT), journal)
    run_virtual(tournament_game(table))
    game = table.game
    assert table.director.console.refused == []
    outcome = game.outcome()
    assert outcome is not None
    assert (outcome.winner, outcome.reason) == ("red", "no_black_left")
    assert "Лучший ход игрока номер один: номера три, пять и два." in table.said
    log = list(narrate(game.events, NAMES))   # the judge's log
    assert "Лучший ход игрока номер 1 (p1): 3 (p3), 5 (p5), 2 (p2)." in log
    assert "Судья: игроку номер 6 (p6) −0.25 (talked out of turn)." in log

    protocol = build_protocol(game, None, NAMES)
    assert protocol["best_move"] == {"by": 1, "seats": [3, 5, 2], "black": 2}
    assert protocol["judge_points"] == [{"seat": 4, "points": 0.3, "reason": "the best speech of day two"},
                                        {"seat": 6, "points": -0.25, "reason": "talked out of turn"}]
    assert protocol["seats"]["10"]["out"] == {"cause": "removed", "day": 2}
    assert protocol["scores"] == {str(seat): points for seat, points in FIIM_BY_HAND.items()}

    # Journaled: the best move and the judge's points are inputs, the undone bonus a splice; the
    # journal replays to the same protocol, and that is what the records keep.
    header, entries = read_journal(path)
    kinds = [entry.input.kind for entry in entries]
    assert kinds.count("best_move") == 1 and kinds.count("judge_points") == 2
    record = record_from_journal(path)
    assert record.protocol["scores"] == protocol["scores"] and record.protocol["best_move"] == protocol["best_move"]
    assert scores_by_scheme("sport", record.winner, record.seats, record.protocol) == {
        "fiim": {str(s): p for s, p in FIIM_BY_HAND.items()},
        "championship": {str(s): p for s, p in CHAMPIONSHIP_BY_HAND.items()},
        "seed001": {str(s): p for s, p in SEED001_BY_HAND.items()},
        "showtime": {str(s): p for s, p in showtime_by_hand().items()}}

    with open_records(db_url) as db:
        assert db.add([record]) == 1
        rows = db.seat_rows()
    as_played = {rating.player: round(rating.points, 2) for rating in ratings(rows)}
    assert as_played == {NAMES[seat]: points for seat, points in FIIM_BY_HAND.items()}
    rescored = {rating.player: round(rating.points, 2) for rating in ratings(rows, "seed001")}
    assert rescored == {NAMES[seat]: points for seat, points in SEED001_BY_HAND.items()}


def showtime_by_hand() -> dict[int, float]:
    """showtime: winning red +4 — not seat 10 (forfeited) — plus the judge's points; no best-move points."""
    return {1: 4.0, 2: 4.0, 3: 0.0, 4: 4.3, 5: 0.0, 6: 3.75, 7: 4.0, 8: 4.0, 9: 0.0, 10: 0.0}


def test_with_the_options_off_the_same_game_scores_as_before_and_the_console_says_so() -> None:
    """Seed 001's scheme, options untouched: the removed citizen still collects his team's +6 (as
    before these options), no best move or judge's points are taken, and the protocol has none."""
    table = Table(sport())
    run_virtual(tournament_game(table))
    game = table.game
    refused = dict(table.director.console.refused)
    assert refused["bestmove 3 5 2"] == str(TournamentOptionOff("best_move")) == \
        "the option best_move is off at this table"
    assert refused["bonus 4 0,3 the best speech of day two"] == str(TournamentOptionOff("judge_points"))
    protocol = build_protocol(game)
    assert "best_move" not in protocol and "judge_points" not in protocol
    # seed001 by hand: alive 6, 7, 8 (+5), red won (+6 each, the removed 10 too), Sheriff alive +1.
    assert protocol["scores"] == {"1": 6.0, "2": 6.0, "3": 0.0, "4": 6.0, "5": 0.0, "6": 11.0, "7": 12.0,
                                  "8": 11.0, "9": 0.0, "10": 6.0}
    assert refusal_text(TournamentOptionOff("best_move")) == \
        "За этим столом это не ведётся (параметр best_move выключен)."


def test_the_draw_ends_a_game_after_n_quiet_days_and_nights() -> None:
    """Two days and nights with nobody leaving (no vote on day 1, a miss on night 2, no vote on
    day 2, a miss on night 3): the third morning ends the game as a draw; fiim scores a draw 0."""
    game = sport(quiet_rounds_to_draw=2, scoring="fiim")
    for item in (DEAL, Dawn(), Proceed()):
        game.push(item)
    for _ in range(2):
        if isinstance(game.request, AwaitMorning):
            game.push(Proceed())
        while isinstance(game.request, AwaitSpeech):
            game.push(EndSpeech(game.request.seat))
        game.push(Proceed())                       # nightfall
        game.push(Shots(()))                       # a miss
        game.push(Check(3, None))
        game.push(Check(7, None))
        events = game.push(Dawn())
    over = [e for e in events if isinstance(e, GameOver)]
    assert over == [GameOver("nobody", "quiet_draw", 2)] and game.day == 3
    assert spoken(event_lines(over[0], game), load_phrasebook(), "sport") == [
        "Игра окончена. Победителей нет.", "Ничья: два дня и ночи подряд никто не покидал игру."]
    protocol = build_protocol(game)
    assert (protocol["winner"], protocol["reason"]) == ("nobody", "quiet_draw")
    assert set(protocol["scores"].values()) == {0.0}


def test_a_player_leaving_starts_the_quiet_count_again_and_misses_come_first() -> None:
    # Day 2 votes out seat 5: the quiet count starts again, so two quiet rounds end it only on day 5.
    game = sport(quiet_rounds_to_draw=2, misses_to_lose=0)
    for item in (DEAL, Dawn(), Proceed()):
        game.push(item)
    day_two_vote = {2: 5}
    while not game.is_over:
        while isinstance(game.request, (AwaitSpeech, AwaitMorning)):
            request = game.request
            if isinstance(request, AwaitSpeech):
                if game.day == 2 and request.seat in day_two_vote and request.turn == "speech":
                    game.push(Nominate(request.seat, day_two_vote[request.seat]))
                game.push(EndSpeech(request.seat))
            else:
                game.push(Proceed())
        if isinstance(game.request, AwaitVotes):
            game.push(CloseVoting())
            continue
        game.push(Proceed())
        game.push(Shots(()))
        while game.request is not None and type(game.request).__name__ == "AwaitAction":
            assert isinstance(game.request, AwaitAction)
            game.push(Check(game.request.by, None))
        game.push(Dawn())
    outcome = game.outcome()
    assert outcome is not None
    assert (outcome.winner, outcome.reason, game.day) == ("nobody", "quiet_draw", 5)
    # With both at 3, three misses in a row end it for red first (docs/rules.md, `sport`).
    misses = play_misses(quiet_rounds_to_draw=3).outcome()
    assert misses is not None and misses.reason == "three_misses"
    assert play_misses(quiet_rounds_to_draw=0, misses_to_lose=0).is_over is False


def play_misses(**options: Any) -> SportGame:
    """Days without a vote and nights without a kill, four of each."""
    game = sport(**options)
    item: Input
    for item in (DEAL, Dawn(), Proceed()):
        game.push(item)
    for _ in range(4):
        if game.is_over:
            break
        while isinstance(game.request, AwaitSpeech):
            game.push(EndSpeech(game.request.seat))
        for item in (Proceed(), Shots(()), Check(3, None), Check(7, None), Dawn()):
            game.push(item)
        if not game.is_over:
            game.push(Proceed())
    return game


def test_the_best_move_and_the_judges_points_refuse_what_does_not_fit() -> None:
    game = sport(**TOURNAMENT)
    item: Input
    for item in (DEAL, Dawn(), Proceed()):
        game.push(item)
    refusals = []
    for item in (BestMove(1, (3, 5)),):                                     # nobody killed yet
        with pytest.raises(IllegalInput) as refused:
            game.push(item)
        refusals.append(refused.value.refusal)
    while isinstance(game.request, AwaitSpeech):
        game.push(EndSpeech(game.request.seat))
    for item in (Proceed(), shots((3, 4), (5, 4), (9, 4)), Check(3, None), Check(7, None), Dawn()):
        game.push(item)
    for item in (BestMove(2, (3,)), BestMove(4, (4, 5)), BestMove(4, (3, 3)), BestMove(4, (1, 2, 3, 5)),
                 BestMove(4, (11,)), BestMove(4, ()), JudgePoints(3, 0, "x"), JudgePoints(3, 501, "x"),
                 JudgePoints(3, -20, "  "), JudgePoints(11, 20, "x")):
        before = game.state()
        with pytest.raises(IllegalInput) as refused:
            game.push(item)
        assert game.state() == before
        refusals.append(refused.value.refusal)
    assert refusals[:6] == [NoBestMoveYet(), NoBestMoveFor(2), BestMoveSeats((4, 5)), BestMoveSeats((3, 3)),
                            BestMoveSeats((1, 2, 3, 5)), BestMoveSeats((11,))]
    assert refusals[7:10] == [PointsOutOfRange("0", "5"), PointsOutOfRange("5.01", "5"), NoReasonGiven()]
    assert refusal_text(NoBestMoveFor(2)) == \
        "У игрока 2 нет лучшего хода: он только у первого выбывшего, убитого ночью."
    assert refusal_text(PointsOutOfRange("5.01", "5")) == \
        "Баллы 5.01 не подходят: судья даёт больше 0 и не больше 5."
    # Named again, the new seats stand; a dead seat may still get the judge's points.
    game.push(BestMove(4, (3, 5, 9)))
    game.push(BestMove(4, (3, 6)))
    game.push(JudgePoints(4, -5, "late"))
    assert game.best_move == (3, 6) and game.best_move_black() == 1 and game.judge_total(4) == -5


def test_the_console_reads_points_strictly() -> None:
    table = Table(sport(**TOURNAMENT))

    async def session() -> None:
        await table.open()
        await table.push(DEAL, Dawn(), Proceed())
        await table.type("bonus 3", "bonus 3 abc why", "bonus 3 0.255 why", "bonus 3 0.5", "penalty 11 1 why",
                         "bestmove", "bestmove 1 2 3 4", "bonus 3 1,5 a fine defence", "penalty 3 0.05 noise")

    run_virtual(session())
    refused = dict(table.director.console.refused)
    assert refused["bonus 3"] == refused["bonus 3 abc why"] == "usage: bonus N P reason"
    assert refused["bonus 3 0.255 why"] == ("0.255 points: the judge's points have at most two decimals (0.25, 0.5); "
                                            "usage: bonus N P reason")   # says why, not only the usage
    assert refused["bonus 3 0.5"] == "the judge's points need a reason"
    assert refused["penalty 11 1 why"].startswith("there is no seat 11 at this table")
    assert refused["bestmove"] == refused["bestmove 1 2 3 4"] == "usage: bestmove A B C"
    assert table.game.judge_points == [(3, 150, "a fine defence"), (3, -5, "noise")]


def test_the_judges_phone_sends_the_points_on_as_typed() -> None:
    """The web normalises a command by the console's reader: the points stay what the judge typed."""
    assert check_command("bonus  4 0,3  a fine   defence", 10) == "bonus 4 0,3 a fine defence"
    assert check_command("bestmove 3 5", 10) == "bestmove 3 5"
    with pytest.raises(CommandError, match="usage: penalty N P reason"):
        check_command("penalty 4 x why", 10)


def test_a_game_scored_again_keeps_the_tables_decisions() -> None:
    """The ratings' rescoring reads the figures stored at import (records 0006): forfeit, best
    move and judge's points (tests/test_records_scale.py holds them to the protocol's)."""
    row = {"ruleset": "sport", "scoring": "fiim", "role": "citizen", "alive": False, "winner": "red",
           "best_player": False, "points": 0.75, "seat": 1, "out_cause": "removed", "removal_forfeits": True,
           "best_move_black": 3, "judge_points": 0.5, "killed_first": False, "team_removed": False}
    assert points_of(row) == 0.75                      # as played: the protocol's score
    # championship: no win (removal_forfeits), removed, three black (any night), the judge's +0.5
    assert points_of(row, "championship") == -0.5 + 0.5 + 0.5
    # fiim: the win kept, removed; no best move (he was removed, not killed in the first night)
    assert points_of(row, "fiim") == 1 - 0.5 + 0.5
    assert points_of(row, "seed001") == 0.5
    bare = {**row, "removal_forfeits": None, "best_move_black": 0, "judge_points": 0.0}
    assert points_of(bare, "championship") == 1.0
    killed = {**row, "out_cause": "killed", "out_night": 2, "killed_first": True}   # sport's first shooting night
    assert points_of(killed, "fiim") == 1 + 0.4 + 0.5     # best move 3 black: mafiaratings' 0.4
    assert points_of({**killed, "out_night": 3, "killed_first": False}, "fiim") == 1 + 0.5   # later: no best move
    assert points_of({**killed, "role": "don", "winner": "black"}, "fiim") == 1 + 0.5   # black: none
