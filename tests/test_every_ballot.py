"""Every ballot, the implicit ones too (issue 42): at the table level the ballots of every
counted vote add up to its count — a vote the rules give (``sport``: a non-voter's to the last
candidate; ``classic``: to the last accused under ``etiquette``, a name written in blood) is a
ballot with its own mark, and a mayor's weighs two — in what the pages are sent, the journal
and the protocol."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_ballots import PRESSES, counted_for, run_vote, voted  # noqa: F401 - voted: the fixture
from test_table_level import adversarial_script

from voicehost.config import ruleset_names
from voicehost.host.ballots import GIVEN, VoteBallots, ballots_view
from voicehost.host.journal import Journal, load_journal
from voicehost.host.vclock import run_virtual
from voicehost.rules.events import LiftCounted, MorningCame, VotesCounted
from voicehost.rules.game import Game
from voicehost.rules.protocol import build_protocol
from voicehost.simulation.engine_level import Simulation
from voicehost.simulation.script import Script, load_script, script_from_data
from voicehost.simulation.table_level import play_table

ROOT = Path(__file__).resolve().parent.parent
SCRIPTS = sorted([*ROOT.glob("examples/*.json"), *(p for p in ROOT.glob("tests/scripts/*.json")
                                                    if not p.name.endswith(".expect.json"))])


def counted_votes(game: Game) -> list[tuple[int, int, dict[int, int]]]:
    """Each counted vote of the game: (day, its place among the day's votes, votes per candidate)."""
    found, place = [], 0
    for event in game.events:
        if isinstance(event, MorningCame):
            place = 0
        elif isinstance(event, VotesCounted):
            place += 1
            found.append((event.day, place, {c: n for c, n in event.counts if n}))
        elif isinstance(event, LiftCounted):
            place += 1
            found.append((event.day, place, {0: event.yes} if event.yes else {}))
    return found


def added_up(vote: VoteBallots) -> dict[int, int]:
    total: Counter[int] = Counter()
    for ballot in vote.ballots:
        if ballot.counted and ballot.candidate is not None:
            total[ballot.candidate] += ballot.weight
    return dict(total)


def unmatched(table: Simulation, ballots: list[VoteBallots]) -> list[str]:
    """Every counted vote whose ballots do not add up to its count, said as a line."""
    kept = {(vote.day, vote.vote): vote for vote in ballots}
    wrong = []
    for day, place, counts in counted_votes(table.game):
        vote = kept.get((day, place))
        got = added_up(vote) if vote is not None else None
        if got != counts:
            wrong.append(f"day {day} vote {place}: counted {counts}, ballots {got}")
    return wrong


def at_the_table(script: Script, journal: Journal | None = None) -> Simulation:
    return run_virtual(play_table(script, journal))


@pytest.mark.parametrize("path", SCRIPTS, ids=lambda p: p.stem)
def test_the_ballots_add_up_to_the_count_in_every_vote_of_every_bundled_game(path: Path) -> None:
    table = at_the_table(load_script(path))
    assert unmatched(table, table.table.ballots) == []


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_the_ballots_add_up_to_the_count_in_every_vote_of_every_generated_game(data: st.DataObject) -> None:
    name = data.draw(st.sampled_from(ruleset_names()), label="ruleset")
    table = at_the_table(script_from_data(adversarial_script(data, name)))
    assert unmatched(table, table.table.ballots) == []


def test_the_sport_samples_votes_for_the_last_candidate_are_ballots_marked_as_given(tmp_path: Path) -> None:
    """The bundled sport sample (issue 42): day 1 counts 6 for seat 5 and 4 for seat 9, days 2
    and 3 have one candidate each; the journal and the protocol list every one of those votes."""
    script = load_script(ROOT / "examples" / "sport-sample.json")
    journal = Journal(tmp_path / "game.jsonl", {"ruleset": "sport", "options": dict(script.options),
                                                 "seats": script.seats, "level": "table"})
    try:
        table = at_the_table(script, journal)
    finally:
        journal.close()
    journaled = load_journal(tmp_path / "game.jsonl").ballots
    assert unmatched(table, journaled) == []
    day_one = next(vote for vote in journaled if (vote.day, vote.vote) == (1, 1))
    assert added_up(day_one) == {5: 6, 9: 4}
    assert {b.mark for b in day_one.ballots if b.candidate == 9 and b.counted} == {"last_candidate"}
    later = [vote for vote in journaled if vote.day in (2, 3)]   # every vote there went to the last candidate
    assert len(later) == 2 and all({b.mark for b in vote.ballots if b.counted} == {"last_candidate"}
                                   and all(b.t is None and b.pressed is None for b in vote.ballots if b.counted)
                                   for vote in later)
    assert [sum(added_up(vote).values()) for vote in later] == [8, 6]
    protocol = build_protocol(table.game, table.ignored, script.names,
                              [{"day": vote.day, **vote.entry()} for vote in journaled])
    for day in protocol["days"]:
        listed: Counter[int] = Counter()
        for vote in day.get("ballots", [])[:1]:   # the main vote, whose count is the day's «votes»
            for ballot in vote["ballots"]:
                if ballot["counted"]:
                    listed[ballot["candidate"]] += ballot.get("weight", 1)
        assert dict(listed) == {int(c): n for c, n in day["votes"].items() if n}, day["day"]


def test_the_pages_list_a_given_vote_with_its_mark_and_a_mayors_with_its_weight() -> None:
    """«Кто за кого» on the judge's page and the display: each candidate's voters, a given vote
    marked as such, and its row saying which rule gave it."""
    table = at_the_table(load_script(ROOT / "examples" / "sport-sample.json"))
    view = ballots_view(next(v for v in table.table.ballots if (v.day, v.vote) == (1, 1)), True)
    last = next(group for group in view["groups"] if group["candidate"] == 9)
    assert last["votes"] == 4 and len(last["given"]) == 4 and last["voters"] == last["given"]
    assert last["text"] == "за 9: не голосовали, по правилам: " + ", ".join(map(str, last["given"]))
    given_rows = [row for row in view["rows"] if row["given"]]
    assert len(given_rows) == 4 and all("последнему кандидату" in row["text"] for row in given_rows)
    classic = at_the_table(load_script(ROOT / "tests" / "scripts" / "classic-mayor-blood-name-open.json"))
    marks = {(b.mark, b.weight) for vote in classic.table.ballots for b in vote.ballots if b.counted}
    assert ("vote", 2) in marks and ("blood_name", 1) in marks
    final = next(v for v in classic.table.ballots if any(b.mark == "blood_name" for b in v.ballots))
    text = " ".join(group["text"] for group in ballots_view(final, True)["groups"])
    assert "кровью: " in text and "(×2)" in text


def test_a_journals_given_ballots_read_back_with_their_marks_and_weights() -> None:
    table = at_the_table(load_script(ROOT / "tests" / "scripts" / "classic-mayor-blood-name-open.json"))
    for vote in table.table.ballots:
        assert VoteBallots.from_record(vote.record(), "game.jsonl:2") == vote
    assert {b.mark for v in table.table.ballots for b in v.ballots} & set(GIVEN)
    record = table.table.ballots[0].record()
    record["ballots"] = [{**record["ballots"][0], "weight": 3}]
    with pytest.raises(Exception, match="weight"):
        VoteBallots.from_record(record, "game.jsonl:2")


def test_a_vote_the_judge_takes_off_becomes_the_rules_vote_and_taking_it_back_restores_it(
        tmp_path: Path, voted: Callable[[], Game]) -> None:  # noqa: F811 - the fixture imported above
    """Sport's ``vote V 0`` («for nobody») makes V a non-voter, whose vote the rules give the last
    candidate: his ballot says so, in the journal and on the pages, and ``vote V 5`` undoes it."""
    director, path = run_vote(tmp_path, voted(), PRESSES)

    def count() -> dict[int, int]:
        last = [e for e in director.game.events if isinstance(e, VotesCounted)][-1]
        return {c: n for c, n in last.counts if n}

    for typed, expected in (("vote 1 0", {5: 2, 9: 8}), ("vote 1 5", {5: 3, 9: 7})):
        director.ports.type(typed)
        run_virtual(director.console.run())
        (vote,) = load_journal(path).ballots
        assert count() == expected == counted_for(vote.entry()), typed
        assert director.voting.last_vote is not None and director.voting.last_vote.ballots == vote.ballots, typed
    marks = [(b.mark, b.candidate, b.counted) for b in vote.ballots if b.voter == 1]
    assert marks == [("vote", 5, True)]
