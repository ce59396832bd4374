"""The idle table's life as a state machine: every transition of :data:`TRANSITIONS` taken and
signalled, every other one refused, one by one; the typed commands taken exactly where their
transition is allowed; and the walks a real table makes on mock pins (a game, a power cut
resumed, resumed at once, discarded, a discard mid-game, no room, a start that finds no room
while a best-player vote is open, a stop during the resume window)."""

from __future__ import annotations

import asyncio
import itertools
import re
from pathlib import Path

import pytest
from test_service import DISCARDED, NO_ROOM, READY, RESUMED, Bench, _interrupted_game

from voicehost.config import load_ruleset
from voicehost.host import EdgeLog, Ports, run_virtual
from voicehost.language.refusals import refusal_text
from voicehost.rules import Refusal
from voicehost.service.notify import Notifier
from voicehost.service.table import (
    DISCARD_WINDOW_S,
    TRANSITIONS,
    BestPlayer,
    BestPlayerVote,
    Discard,
    IdleTable,
    RefusedTransition,
    Resume,
    Start,
    TableSetup,
    TableState,
    console_command,
)

S = TableState
ALLOWED = [(old, new) for old, targets in TRANSITIONS.items() for new in sorted(targets, key=list(S).index)]
REFUSED = [(old, new) for old, new in itertools.product(S, S) if new not in TRANSITIONS[old]]


def bare_table(tmp_path: Path, state: TableState) -> tuple[IdleTable, list[TableState], list[object]]:
    """An idle table that is not serving, put straight into ``state``, with what it tells recorded."""
    ruleset = load_ruleset("sport")
    ports = Ports(night=lambda on: None, led=lambda seat, pattern: None, edges=EdgeLog(), poll_s=None)
    table = IdleTable(TableSetup(ruleset, ruleset.resolve({}), 10, tmp_path), ports, log=lambda line: None,
                      notify=Notifier(""))
    entered: list[TableState] = []
    told: list[object] = []
    table.on_state, table.on_change = entered.append, told.append
    table._state = state   # the one place a test reaches past the setter: to start from any state
    return table, entered, told


def test_the_table_has_every_state_and_every_state_can_stop() -> None:
    assert set(TRANSITIONS) == set(S)
    assert TRANSITIONS[S.STOPPING] == frozenset()
    assert all(S.STOPPING in targets for state, targets in TRANSITIONS.items() if state is not S.STOPPING)
    reached, frontier = {S.BOOTING}, [S.BOOTING]
    while frontier:
        for new in TRANSITIONS[frontier.pop()] - reached:
            reached.add(new)
            frontier.append(new)
    assert reached == set(S)


@pytest.mark.parametrize("old, new", ALLOWED, ids=lambda state: state.name)
def test_an_allowed_transition_is_taken_and_wakes_who_waits(tmp_path: Path, old: TableState, new: TableState) -> None:
    table, entered, told = bare_table(tmp_path, old)

    async def main() -> bool:
        waiter = asyncio.create_task(table.wait_for_state(new))
        await asyncio.sleep(0)   # the waiter is asleep on the change
        assert not waiter.done()
        table.state = new
        return await asyncio.wait_for(waiter, 1.0)   # woken at once, not by a poll

    assert asyncio.run(main()) is True
    assert table.state is new and entered == [new]
    assert told == ([] if new is S.PLAYING else [None])   # PLAYING tells the web its director instead


@pytest.mark.parametrize("old, new", REFUSED, ids=lambda state: state.name)
def test_any_other_transition_is_refused(tmp_path: Path, old: TableState, new: TableState) -> None:
    table, entered, told = bare_table(tmp_path, old)
    with pytest.raises(RefusedTransition, match=f"from {old.value} to {new.value}"):
        table.state = new
    assert table.state is old and entered == [] and told == []


def test_waiting_for_a_state_that_does_not_come_times_out(tmp_path: Path) -> None:
    table, _, _ = bare_table(tmp_path, S.IDLE)
    assert asyncio.run(table.wait_for_state(S.PLAYING, timeout=0.05)) is False
    assert asyncio.run(table.wait_for_state(S.IDLE, S.PLAYING, timeout=0)) is True


@pytest.mark.parametrize("state", list(S), ids=lambda state: state.name)
def test_a_command_is_taken_exactly_where_its_transition_is_allowed(tmp_path: Path, state: TableState) -> None:
    for command, target in ((Start(), S.STARTING), (Resume(), S.RESUMING), (Discard(), S.DISCARDING)):
        table, entered, _ = bare_table(tmp_path, state)
        refused = table.command(command)
        if target in TRANSITIONS[state]:
            assert refused is None and table.state is target and entered == [target]
        else:
            assert isinstance(refused, Refusal) and table.state is state and entered == []
            assert re.search("[а-яА-Я]", refusal_text(refused))
    table, entered, _ = bare_table(tmp_path, state)
    protocol = tmp_path / "game.protocol.json"
    table.best_vote = BestPlayerVote(tmp_path / "game.jsonl", protocol, {}, 10, {}, 2.0)
    refused = table.command(BestPlayer(3))   # the vote is taken in BEST_VOTE only, and changes no state
    assert (refused is None) == (state is S.BEST_VOTE) and table.state is state and entered == []
    assert protocol.exists() == (state is S.BEST_VOTE)


def test_the_refusals_say_why() -> None:
    def refused(state: TableState, command: object) -> str:
        table, _, _ = bare_table(Path("/nonexistent"), state)
        refusal = table.command(command)  # type: ignore[arg-type]
        assert refusal is not None
        return refusal_text(refusal)
    assert refused(S.PLAYING, Start()) == "Игра уже идёт."
    assert refused(S.STARTING, Start()) == "Игра уже идёт."
    assert refused(S.RESUME_WINDOW, Start()) == "Сначала продолжите или отложите прерванную игру."
    assert refused(S.HALTED, Start()).startswith("Стол остановлен: журнал не записывается.")
    assert refused(S.IDLE, Resume()) == refused(S.IDLE, Discard()) == "Нет прерванной игры."


def test_the_console_reads_the_tables_own_commands() -> None:
    assert console_command(" start ") == Start() and console_command("discard") == Discard()
    assert console_command("best 4") == BestPlayer(4)
    assert console_command("best four") == console_command("best") == console_command("best 4 5")
    assert str(console_command("best four")) == "usage: best N"
    assert console_command("bestow 3") is None and console_command("foul 3") is None and console_command("") is None


# ---- the walks of a real table on mock pins ---------------------------------------------------

def walk(bench: Bench, table: IdleTable) -> list[TableState]:
    """The states the bench's table enters from now on."""
    entered: list[TableState] = []
    table.on_state = entered.append
    return entered


def test_a_game_from_the_chord_walks_idle_starting_playing_and_opens_the_vote(
        mock_factory: object, tmp_path: Path) -> None:
    bench = Bench(mock_factory, tmp_path)
    seen: dict[str, list[TableState]] = {}

    async def main() -> None:
        table = await bench.start()
        seen["states"] = walk(bench, table)
        await bench.until(lambda: READY in bench.said)
        await bench.chord()
        await bench.until(lambda: table.played)
        assert table.state is S.BEST_VOTE and table.command(BestPlayer(3)) is None
        await bench.finish()

    run_virtual(main())
    assert seen["states"] == [S.IDLE, S.STARTING, S.PLAYING, S.BEST_VOTE, S.STOPPING]


def test_a_power_cut_walks_the_window_then_resumes(mock_factory: object, tmp_path: Path) -> None:
    _interrupted_game(mock_factory, tmp_path)
    bench = Bench(mock_factory, tmp_path)
    seen: dict[str, list[TableState]] = {}

    async def main() -> None:
        table = await bench.start()
        seen["states"] = walk(bench, table)
        await bench.until(lambda: table.played)
        await bench.finish()

    run_virtual(main())
    assert seen["states"] == [S.RESUME_WINDOW, S.RESUMING, S.PLAYING, S.BEST_VOTE, S.STOPPING]


def test_resume_ends_the_window_at_once_and_the_window_does_not_poll(mock_factory: object, tmp_path: Path) -> None:
    """While the window is open nothing wakes the table (the old window read the clock ten
    times a second); ``resume`` wakes it at once."""
    _interrupted_game(mock_factory, tmp_path)
    bench = Bench(mock_factory, tmp_path)
    seen: dict[str, float] = {}

    async def main() -> None:
        loop = asyncio.get_running_loop()
        table = await bench.start()
        clock_reads = [0]

        def counted() -> float:
            clock_reads[0] += 1
            return loop.time()
        table.ports.clock = counted
        await asyncio.sleep(DISCARD_WINDOW_S / 2)
        assert table.state is S.RESUME_WINDOW
        seen["reads in the window"] = clock_reads[0]
        asked = loop.time()
        assert table.resume() is None
        await table.wait_for_state(S.PLAYING)
        seen["resumed after"] = loop.time() - asked
        await bench.until(lambda: RESUMED in bench.said)
        await bench.finish()

    run_virtual(main())
    assert seen["reads in the window"] == 0
    assert seen["resumed after"] < 0.5


def test_a_discard_in_the_window_walks_to_idle_without_playing(mock_factory: object, tmp_path: Path) -> None:
    _interrupted_game(mock_factory, tmp_path)
    bench = Bench(mock_factory, tmp_path)
    seen: dict[str, list[TableState]] = {}

    async def main() -> None:
        table = await bench.start()
        seen["states"] = walk(bench, table)
        await asyncio.sleep(1)
        table.type("discard")
        await bench.until(lambda: READY in bench.said)
        await bench.finish()

    run_virtual(main())
    assert seen["states"] == [S.RESUME_WINDOW, S.DISCARDING, S.IDLE, S.STOPPING]
    assert bench.said[:2] == [DISCARDED, READY]


def test_a_discard_mid_game_walks_playing_discarding_idle(mock_factory: object, tmp_path: Path) -> None:
    bench = Bench(mock_factory, tmp_path)
    seen: dict[str, list[TableState]] = {}

    async def main() -> None:
        table = await bench.start()
        seen["states"] = walk(bench, table)
        await bench.until(lambda: READY in bench.said)
        table.type("start")
        await table.wait_for_state(S.PLAYING)
        await asyncio.sleep(30)
        table.type("discard")
        await bench.until(lambda: bench.said.count(READY) == 2)
        await bench.finish()

    run_virtual(main())
    assert seen["states"] == [S.IDLE, S.STARTING, S.PLAYING, S.DISCARDING, S.IDLE, S.STOPPING]
    assert [path.name.endswith(".discarded.jsonl") for path in tmp_path.glob("*.jsonl")] == [True]


def test_no_room_walks_starting_back_to_idle(mock_factory: object, tmp_path: Path) -> None:
    bench = Bench(mock_factory, tmp_path, room=1 << 60)
    seen: dict[str, list[TableState]] = {}

    async def main() -> None:
        table = await bench.start()
        seen["states"] = walk(bench, table)
        await bench.until(lambda: READY in bench.said)
        table.type("start")
        await bench.until(lambda: any(NO_ROOM in line for line in bench.said))
        await bench.finish()

    run_virtual(main())
    assert seen["states"] == [S.IDLE, S.STARTING, S.IDLE, S.STOPPING]


def test_a_start_without_room_keeps_the_open_vote(mock_factory: object, tmp_path: Path) -> None:
    bench = Bench(mock_factory, tmp_path)
    seen: dict[str, object] = {}

    async def main() -> None:
        table = await bench.start()
        await bench.until(lambda: READY in bench.said)
        table.type("start")
        await bench.until(lambda: table.played)
        seen["states"] = walk(bench, table)
        table.setup.room = 1 << 60
        table.type("start")
        await bench.until(lambda: any(NO_ROOM in line for line in bench.said))
        seen["vote"] = table.best(4)
        await bench.finish()

    run_virtual(main())
    assert seen["states"] == [S.STARTING, S.BEST_VOTE, S.STOPPING]
    assert seen["vote"] is None   # the vote is still open: taken


def test_a_stop_during_the_resume_window_stops_without_resuming(mock_factory: object, tmp_path: Path) -> None:
    """SIGTERM while the power cut's game waits: the table stops, the journal is left for the
    next start. (Before, the window ran out and the game was resumed and played, unstoppable.)"""
    journal = _interrupted_game(mock_factory, tmp_path)
    before = journal.read_text()
    bench = Bench(mock_factory, tmp_path)
    seen: dict[str, list[TableState]] = {}

    async def main() -> None:
        table = await bench.start()
        seen["states"] = walk(bench, table)
        await asyncio.sleep(1)
        table.stop()
        await asyncio.wait_for(asyncio.shield(bench.task), 5)
        await bench.finish()

    run_virtual(main())
    assert seen["states"] == [S.RESUME_WINDOW, S.STOPPING]
    assert RESUMED not in bench.said and journal.read_text() == before
    assert not journal.with_suffix(".protocol.json").exists()


def test_start_typed_during_the_window_is_refused_not_kept_for_later(mock_factory: object, tmp_path: Path) -> None:
    """The judge's ``start`` while the power cut's game waits is refused on the console (before,
    it was kept and a new game began the moment the resumed one ended)."""
    _interrupted_game(mock_factory, tmp_path)
    bench = Bench(mock_factory, tmp_path)
    seen: dict[str, list[TableState]] = {}

    async def main() -> None:
        table = await bench.start()
        seen["states"] = walk(bench, table)
        await asyncio.sleep(1)
        table.type("start")
        await bench.until(lambda: table.played)
        await asyncio.sleep(60)
        await bench.finish()

    run_virtual(main())
    assert any("start: Сначала продолжите или отложите прерванную игру." in line for line in bench.printed)
    assert len(list(tmp_path.glob("*.jsonl"))) == 1   # no second game
    assert seen["states"] == [S.RESUME_WINDOW, S.RESUMING, S.PLAYING, S.BEST_VOTE, S.STOPPING]


@pytest.mark.parametrize("chosen", [False, True], ids=["default", "web"])
def test_a_service_game_journals_the_one_setup_header(mock_factory: object, tmp_path: Path, chosen: bool) -> None:
    """The journal's first line is the checked setup's own header (plus the service's key), for
    the table's default game and for the judge's web choice alike: one header writer."""
    import json

    from voicehost.web.setup import read_choice
    bench = Bench(mock_factory, tmp_path)
    choice = read_choice({"ruleset": "club", "options": {"last_word_s": 30}, "names": {"3": "Анна"}}, 10)

    async def main() -> IdleTable:
        table = await bench.start()
        await bench.until(lambda: READY in bench.said)
        assert table.command(Start(choice if chosen else None)) is None
        await bench.until(lambda: table.state is S.PLAYING)
        await bench.finish()
        return table

    table = run_virtual(main())
    setup = choice if chosen else table.setup.default_game()
    header = json.loads(next(tmp_path.glob("*.jsonl")).read_text().splitlines()[0])
    assert {key: value for key, value in header.items() if key not in ("type", "format", "started")} == \
        {**setup.header(), "service": True}
    assert ("names" in header) == chosen


def test_the_judges_points_after_a_served_game_reach_its_protocol_and_records(
        mock_factory: object, tmp_path: Path, english: None) -> None:
    """As at ``voicehost run``: a game whose options take the judge's points keeps its window
    open after the end (the table still PLAYING, no protocol yet) until «end»; the bonus and the
    penalty given there are in the protocol and reach the records."""
    import json

    from voicehost.web.setup import read_choice
    bench = Bench(mock_factory, tmp_path)
    choice = read_choice({"ruleset": "sport", "options": {"judge_points": True}}, 10)
    stored: list[dict[str, object]] = []

    async def main() -> float:
        loop = asyncio.get_running_loop()
        table = await bench.start()
        table.on_results = lambda path, protocol: stored.append(protocol)
        await bench.until(lambda: READY in bench.said)
        assert table.command(Start(choice)) is None
        await bench.until(lambda: any("«end» when done" in line for line in bench.printed))
        assert table.state is S.PLAYING and not table.played
        table.type("bonus 4 0,5 the best speech")
        table.type("penalty 6 0.25 talked out of turn")
        table.type("end")
        typed = loop.time()
        await bench.until(lambda: table.played)
        took = loop.time() - typed
        # then the table's own best-player vote, as after any game (mypy keeps table.state narrowed
        # to PLAYING from the assert above, across the awaits that move it on)
        assert table.state is S.BEST_VOTE  # type: ignore[comparison-overlap]
        await bench.until(lambda: bool(stored))
        await bench.finish()
        return took

    assert run_virtual(main()) < 5.0            # «end» closed the window, long before its 120 s
    protocol = json.loads(next(tmp_path.glob("*.protocol.json")).read_text())
    assert protocol["judge_points"] == [{"seat": 4, "points": 0.5, "reason": "the best speech"},
                                        {"seat": 6, "points": -0.25, "reason": "talked out of turn"}]
    assert stored[0]["judge_points"] == protocol["judge_points"]



def test_a_discard_in_the_after_game_window_keeps_the_played_game(mock_factory: object, tmp_path: Path) -> None:
    """The window comes after the end: a discard there cannot set a played game aside."""
    from voicehost.web.setup import read_choice
    bench = Bench(mock_factory, tmp_path)
    choice = read_choice({"ruleset": "sport", "options": {"judge_points": True}}, 10)

    async def main() -> None:
        table = await bench.start()
        await bench.until(lambda: READY in bench.said)
        assert table.command(Start(choice)) is None
        await bench.until(lambda: any("«end»" in line for line in bench.printed))
        table.type("discard")
        await bench.until(lambda: bench.said.count(READY) == 2)
        assert table.played and table.state is S.IDLE
        await bench.finish()

    run_virtual(main())
    assert not list(tmp_path.glob("*.discarded.jsonl")) and len(list(tmp_path.glob("*.protocol.json"))) == 1
