"""Every ballot, not just the count (issue 31): each press of a vote — who, for whom, when, inside
its window or not, what it counted for — in the journal, the protocol, the judge's console during
the count and the table's display after it; ``vote V C`` changes one ballot and says which."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from test_sport_rules import end_speeches, fresh, to_day

from hw.capture import Press, Window, count_votes, read_lift
from hw.edges import Edge
from voicehost.cli.main import main
from voicehost.host.ballots import VoteBallots
from voicehost.host.director import Director, EdgeLog, Ports
from voicehost.host.journal import Journal, load_journal, write_results
from voicehost.host.notices import BallotPressed, BallotsCast, Notice
from voicehost.host.vclock import run_virtual
from voicehost.records.games import record_from_protocol
from voicehost.rules import Game, InputError
from voicehost.rules.events import VotesCounted
from voicehost.rules.inputs import EndSpeech, Nominate
from voicehost.rules.protocol import add_ballots, build_protocol
from voicehost.web.view import TableView

ROOT = Path(__file__).resolve().parent.parent
VOTES = ROOT / "tests" / "scripts" / "sport-repeat-tie-four-vote.json"   # day 2: a vote, a revote, a lift


def simulate_at_the_table(journal: Path, capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, Any]:
    assert main(["simulate", str(VOTES), "--level", "table", "--journal", str(journal), "--json", *args]) == 0
    return dict(json.loads(capsys.readouterr().out))


def counted_for(vote: dict[str, Any]) -> dict[int, int]:
    counts: dict[int, int] = {}
    for ballot in vote["ballots"]:
        if ballot["counted"]:
            counts[ballot["candidate"]] = counts.get(ballot["candidate"], 0) + 1
    return counts


def marks(vote: dict[str, Any]) -> list[tuple[int, int | None, str, bool]]:
    return [(b["voter"], b["candidate"], b["mark"], b["inside"]) for b in vote["ballots"]]


# ---- a simulated game, end to end ------------------------------------------------------------------


def test_a_simulated_day_with_a_revote_and_a_lift_keeps_every_ballot_in_journal_and_protocol(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    journal = tmp_path / "j.jsonl"
    printed = simulate_at_the_table(journal, capsys)
    written = json.loads(journal.with_suffix(".protocol.json").read_text())
    for protocol in (printed, written):
        day = protocol["days"][1]
        assert [v["round"] for v in day["ballots"]] == ["main", "revote", "lift"]
        assert [v["vote"] for v in day["ballots"]] == [1, 2, 3]
        main_vote, revote, lift = day["ballots"]
        for vote, counts in ((main_vote, day["votes"]), (revote, day["revotes"][0])):
            # every vote counted is a ballot: sport's last candidate, who has no window, gets the non-voters'
            assert counted_for(vote) == {int(c): n for c, n in counts.items() if n}
            windowed = {w["candidate"] for w in vote["windows"]}
            assert {b["candidate"] for b in vote["ballots"] if b["mark"] == "last_candidate"} <= set(map(int, counts))
            assert not windowed & {b["candidate"] for b in vote["ballots"] if b["mark"] == "last_candidate"}
            for ballot in (b for b in vote["ballots"] if b["mark"] != "last_candidate"):
                # each press lies inside the window of the candidate it counts for
                window = next(w for w in vote["windows"] if w["candidate"] == ballot["pressed"])
                assert window["opens"] <= ballot["t"] < window["closes"] and ballot["inside"]
                assert ballot["t"] == round(ballot["t"], 3)   # to the millisecond
        assert counted_for(lift) == {0: day["lift"]["yes"]} and lift["windows"][0]["candidate"] == 0
    recorded = load_journal(journal).ballots
    assert [(v.day, v.round) for v in recorded] == [(2, "main"), (2, "revote"), (2, "lift")]
    kinds = [json.loads(line)["type"] for line in journal.read_text().splitlines()]
    assert kinds.count("ballots") == 3


def test_a_journal_cut_inside_a_vote_resumes_to_the_same_ballots_once(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Cut right after the revote's ballots (its count not yet taken): the resume takes the revote
    again; its ballots replace the cut ones, and every vote is listed once, as never interrupted."""
    whole = simulate_at_the_table(tmp_path / "whole.jsonl", capsys)
    lines = (tmp_path / "whole.jsonl").read_text().splitlines(keepends=True)
    cut = [k for k, line in enumerate(lines) if json.loads(line)["type"] == "ballots"][1]
    journal = tmp_path / "cut.jsonl"
    journal.write_text("".join(lines[:cut + 1]))
    assert [v.round for v in load_journal(journal).ballots] == ["main", "revote"]
    assert main(["resume", str(journal), "--json"]) == 0
    resumed = json.loads(capsys.readouterr().out)
    assert [[marks(v) for v in day.get("ballots", [])] for day in resumed["days"]] == \
        [[marks(v) for v in day.get("ballots", [])] for day in whole["days"]]
    assert [v.round for v in load_journal(journal).ballots] == ["main", "revote", "lift"]


# ---- at the director: presses outside the window, fouls, the judge's correction ----------------------


WINDOW = 2.0   # sport's vote window (vote_window_s)
PRESSES = [(1, 0.5, WINDOW + 0.5),        # a clean vote for 5
           (2, 0.3, 1.0),                 # let go before «Спасибо»: counts, and a foul
           (4, 0.2, 0.4), (4, 0.6, None),  # let go early, then a second press: a foul each
           (6, -0.5, -0.3)]               # before the question: outside the window


@pytest.fixture
def voted() -> Callable[[], Game]:
    """A sport game at day 1's vote: 5 and 9 nominated (sport opens a window for 5 only)."""
    def nominated() -> Game:
        game = fresh()
        to_day(game)
        game.push(Nominate(1, 5))
        game.push(EndSpeech(1))
        game.push(Nominate(2, 9))
        end_speeches(game)
        return game
    return nominated


def run_vote(tmp_path: Path, game: Any, presses: list[tuple[int, float, float | None]],
             watch: Any = None) -> tuple[Director, Path]:
    """The seats press at ``(seat, down, up)`` seconds after the question; the vote is taken by a
    director with a journal (the game so far journaled first)."""
    path = tmp_path / "j.jsonl"
    assert game.ruleset.timers.get("vote_window_s", 2) == WINDOW

    async def session() -> Director:
        loop = asyncio.get_running_loop()

        async def speak(text: str) -> float:
            return loop.time()

        await asyncio.sleep(10)
        edges = EdgeLog()
        start = loop.time()
        for seat, down, up in presses:
            edges.add(Edge(seat, True, start + down))
            if up is not None:
                edges.add(Edge(seat, False, start + up))
        journal = Journal(path, {"ruleset": "sport", "options": dict(game.options), "seats": 10, "level": "live"})
        for index, item in enumerate(game.inputs):
            journal.append(index, 0.0, "script", item)
        ports = Ports(speak=speak, night=lambda on: None, led=lambda s, p: None, edges=edges, clock=loop.time,
                      poll_s=None)
        director = Director(game, ports, journal, log=lambda line: None)
        if watch is not None:
            director.watch(watch(director))
        await director.voting.votes(game.request)
        return director

    return run_virtual(session()), path


def test_presses_outside_the_window_and_fouls_are_ballots_marked_as_such(
        tmp_path: Path, voted: Callable[[], Game]) -> None:
    director, path = run_vote(tmp_path, voted(), PRESSES)
    (vote,) = load_journal(path).ballots
    entry = vote.entry()
    given = [(seat, 9, "last_candidate", False) for seat in (3, 5, 6, 7, 8, 9, 10)]   # no press: the rules' vote
    assert marks(entry) == [(6, None, "outside_windows", False), (4, 5, "early_release", True),
                            (2, 5, "early_release", True), (1, 5, "vote", True), (4, 5, "second_vote", True), *given]
    assert [b["counted"] for b in entry["ballots"]] == [False, True, True, True, False] + [True] * len(given)
    window = entry["windows"][0]
    assert window["candidate"] == 5 and window["closes"] - window["opens"] == pytest.approx(WINDOW)
    outside = entry["ballots"][0]
    assert outside["t"] == pytest.approx(window["opens"] - 0.5)
    assert outside["up"] == pytest.approx(window["opens"] - 0.3)
    assert director.game.fouls[4] == 2 and director.game.fouls[2] == 1 and director.game.fouls[6] == 0
    protocol = json.loads(write_results(path, build_protocol(director.game), []).read_text())
    assert protocol["days"][0]["ballots"] == [entry] and protocol["days"][0]["votes"]["5"] == 3


def test_a_correction_changes_one_ballot_says_which_and_is_undone_by_another(
        tmp_path: Path, voted: Callable[[], Game]) -> None:
    director, path = run_vote(tmp_path, voted(), PRESSES)
    seen: list[Notice] = []
    director.watch(seen.append)
    view = TableView(director)
    director.watch(view.heard)
    director.ports.type("vote 1 9")
    run_virtual(director.console.run())
    (vote,) = load_journal(path).ballots
    ballot = next(b for b in vote.entry()["ballots"] if b["voter"] == 1)
    assert (ballot["candidate"], ballot["pressed"], ballot["t"] is not None) == (9, 5, True)
    assert [(c["before"], c["after"], c["by"]) for c in ballot["corrected"]] == [(5, 9, "console")]
    others = [b for b in vote.entry()["ballots"] if b["voter"] != 1]
    assert all("corrected" not in b for b in others)
    splice = json.loads(path.read_text().splitlines()[-1])
    assert splice["type"] == "splice" and splice["ballot"] == {"voter": 1, "before": 5, "after": 9}
    correction = view.judge()["correction"]
    assert correction["ballot"] == "Бюллетень игрока 1 изменён: было за 5, стало за 9."
    assert any(isinstance(n, BallotsCast) and n.complete for n in seen)
    shown = next(row for row in view.judge()["ballots"]["rows"] if row["voter"] == 1)
    assert shown["corrected"] and shown["candidate"] == 9
    director.ports.type("vote 1 5")   # the judge takes it back
    run_virtual(director.console.run())
    (vote,) = load_journal(path).ballots
    ballot = next(b for b in vote.entry()["ballots"] if b["voter"] == 1)
    assert ballot["candidate"] == 5 and [(c["before"], c["after"]) for c in ballot["corrected"]] == [(5, 9), (9, 5)]
    assert counted_for(vote.entry()) == {5: 3, 9: 7}
    protocol = json.loads(write_results(path, build_protocol(director.game), []).read_text())
    assert protocol["days"][0]["ballots"][0]["ballots"] == vote.entry()["ballots"]


def test_a_vote_for_a_voter_who_pressed_nothing_is_a_typed_ballot(tmp_path: Path, voted: Callable[[], Game]) -> None:
    director, path = run_vote(tmp_path, voted(), PRESSES)
    director.ports.type("vote 3 5")
    run_virtual(director.console.run())
    (vote,) = load_journal(path).ballots
    (typed,) = [b for b in vote.entry()["ballots"] if b["voter"] == 3]   # in place of the rules' vote for 9
    assert (typed["voter"], typed["candidate"], typed["t"], typed["mark"], typed["counted"]) == (3, 5, None, "typed",
                                                                                               True)
    assert typed["corrected"][0]["before"] == 0
    counted = [e for e in director.game.events if isinstance(e, VotesCounted)][-1]
    assert counted_for(vote.entry()) == {5: 4, 9: 6} == {c: n for c, n in counted.counts if n}


def test_the_judge_sees_the_ballots_during_the_count_and_the_table_once_it_is_said(
        tmp_path: Path, voted: Callable[[], Game]) -> None:
    states: list[tuple[bool, Any, Any]] = []

    def watcher(director: Director) -> Any:
        view = TableView(director)

        def watch(notice: Notice) -> None:
            view.heard(notice)
            if isinstance(notice, BallotsCast):
                states.append((notice.complete, view.public()["ballots"], view.judge()["ballots"]))
        return watch

    run_vote(tmp_path, voted(), PRESSES, watcher)
    (during_complete, during_public, during_judge), (after_complete, after_public, after_judge) = states
    assert not during_complete and during_public is None
    assert during_judge is not None and not during_judge["complete"]
    assert after_complete and after_public == after_judge and after_public["complete"]
    groups = {g["candidate"]: g["voters"] for g in after_public["groups"]}
    assert groups == {5: [4, 2, 1], 9: [3, 5, 6, 7, 8, 9, 10]}   # 9, the last, has no window: the rules' votes
    row = next(r for r in after_public["rows"] if r["voter"] == 6)
    assert not row["inside"] and row["at"] == pytest.approx(-0.5) and "мимо окна" in row["text"]
    assert json.dumps(after_public, ensure_ascii=False)   # what the socket sends


def test_each_press_inside_the_window_is_told_as_its_button_goes_down(
        tmp_path: Path, voted: Callable[[], Game]) -> None:
    """The stream's notice: a ballot per press inside the window, at the moment it is pressed,
    marked as the count reads it so far (an early release is known only at the close), with the
    vote so far; a press outside the window is never told, and the table's display still waits
    for the count."""
    told: list[tuple[float, BallotPressed, Any]] = []

    def watcher(director: Director) -> Any:
        view = TableView(director)

        def watch(notice: Notice) -> None:
            view.heard(notice)
            if isinstance(notice, BallotPressed):
                told.append((director.ports.clock(), notice, view.public()["ballots"]))
        return watch

    run_vote(tmp_path, voted(), PRESSES, watcher)
    assert [(n.ballot.voter, n.ballot.pressed, n.ballot.mark) for _, n, _ in told] == [
        (4, 5, "vote"), (2, 5, "vote"), (1, 5, "vote"), (4, 5, "second_vote")]
    opens = told[0][1].so_far.windows[0].opens
    for (at, notice, public), (_, down, _) in zip(told, [PRESSES[2], PRESSES[1], PRESSES[0], PRESSES[3]],
                                                  strict=True):
        assert at == pytest.approx(opens + down, abs=1e-3), "told the moment the button went down"
        assert notice.ballot in notice.so_far.ballots and notice.so_far.day == 1 and notice.so_far.round == "main"
        assert public is None, "the table's display waits for the count"
    so_far = told[-1][1].so_far   # at 0.6 s: 4 let go at 0.4 s, 2 still holds (he lets go at 1 s)
    assert [(b.voter, b.mark) for b in so_far.ballots] == [(4, "early_release"), (2, "vote"), (1, "vote"),
                                                          (4, "second_vote")]


# ---- the formats ----------------------------------------------------------------------------------


def test_an_old_protocol_and_journal_without_ballots_still_load(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    old = json.loads((ROOT / "tests" / "scripts" / "sport-repeat-tie-four-vote.expect.json").read_text())
    assert all("ballots" not in day for day in old["days"])
    record_from_protocol(old, "old.protocol.json", datetime(2026, 1, 1))
    assert add_ballots(old, []) == old
    journal = tmp_path / "engine.jsonl"   # the engine level journals no ballots, as every journal from before
    assert main(["simulate", str(VOTES), "--journal", str(journal), "--json"]) == 0
    capsys.readouterr()
    assert load_journal(journal).ballots == []
    assert main(["resume", str(journal), "--json"]) == 0
    assert all("ballots" not in day for day in json.loads(capsys.readouterr().out)["days"])
    new = simulate_at_the_table(tmp_path / "table.jsonl", capsys)
    record_from_protocol(new, "new.protocol.json", datetime(2026, 1, 1))


@pytest.mark.usefixtures("english")
def test_a_broken_ballots_record_is_one_line_with_its_place(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    journal = tmp_path / "j.jsonl"
    simulate_at_the_table(journal, capsys)
    lines = journal.read_text().splitlines(keepends=True)
    k = next(k for k, line in enumerate(lines) if json.loads(line)["type"] == "ballots")
    record = json.loads(lines[k])
    record["ballots"][0]["mark"] = "maybe"
    lines[k] = json.dumps(record) + "\n"
    journal.write_text("".join(lines))
    with pytest.raises(InputError, match=f"j.jsonl:{k + 1}.*not a valid ballots record"):
        load_journal(journal)


def test_capture_judges_every_press_as_a_ballot() -> None:
    five, nine = Window(5, 10.0, 12.0), Window(9, 13.0, 15.0)
    result = count_votes([five, nine], [Press(1, 10.5, 12.2), Press(2, 12.5, 12.6), Press(1, 13.5, 15.1),
                                        Press(3, 14.0, 14.5), Press(8, 10.1, 12.1)], voters=[1, 2, 3])
    assert [(b.voter, b.candidate, b.mark, b.counted) for b in result.ballots] == [
        (1, 5, "vote", True), (2, None, "outside_windows", False), (1, 9, "second_vote", False),
        (3, 9, "early_release", True), (8, 5, "not_a_voter", False)]
    lift = read_lift(Window(0, 20.0, 22.0), [Press(1, 19.0, 19.5), Press(2, 20.5, 20.6), Press(2, 21.0, None),
                                             Press(9, 21.0, 21.5)], voters=[1, 2])
    assert [(b.voter, b.candidate, b.mark) for b in lift] == [(1, None, "outside_windows"), (2, 0, "vote"),
                                                              (2, 0, "second_vote"), (9, 0, "not_a_voter")]
    vote = VoteBallots.of(1, 1, "main", 3, 5, [five], result.ballots[:1])
    assert VoteBallots.from_record(vote.record(), "here") == vote


def test_a_resumed_journal_keeps_its_ballots_and_a_correction_after_the_resume_changes_one(
        tmp_path: Path, voted: Callable[[], Game]) -> None:
    from voicehost.rules import new_game

    _, path = run_vote(tmp_path, voted(), PRESSES)
    read = load_journal(path)
    (before,) = read.ballots
    source = voted()
    game = new_game(source.ruleset, source.options, 10)
    for entry in read.entries:
        game.push(entry.input)
    said: list[str] = []

    async def speak(text: str) -> float:
        said.append(text)
        return 100.0

    ports = Ports(speak=speak, night=lambda on: None, led=lambda s, p: None, edges=EdgeLog(), clock=lambda: 100.0,
                  poll_s=None)
    director = Director(game, ports, Journal.resume(read), log=lambda line: None)
    shown: list[BallotsCast] = []
    director.watch(lambda notice: shown.append(notice) if isinstance(notice, BallotsCast) else None)
    ports.type("vote 2 9")
    run_virtual(director.console.run())
    (after,) = load_journal(path).ballots
    changed = [(b, a) for b, a in zip(before.ballots, after.ballots, strict=True) if b != a]
    assert [(b.voter, b.candidate, a.candidate) for b, a in changed] == [(2, 5, 9)]
    assert shown and shown[-1].ballots == after and shown[-1].complete
