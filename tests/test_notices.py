"""The director's parts on their own, and the notices that leave it: the table clock is the one
converter of table seconds, the floor's timer tells every change, a whole game's notices say
exactly what the game did, and the phone's view follows notices alone."""

from __future__ import annotations

import asyncio
import dataclasses
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

from voicehost.host import (
    ConsoleAnswer,
    ConsoleAnswered,
    Director,
    EdgeLog,
    FloorChanged,
    InputsTaken,
    LineSaid,
    Notice,
    Paused,
    Ports,
    TableClock,
    WindowChanged,
    run_virtual,
)
from voicehost.host.clock import SpeechTimer
from voicehost.rules import new_game
from voicehost.rules.requests import AwaitSpeech
from voicehost.simulation.script import load_script
from voicehost.simulation.table_level import TableRun, play_table
from voicehost.web.view import TableView

ROOT = Path(__file__).resolve().parent.parent


class FakeClock:
    def __init__(self, t: float = 100.0) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t


def test_the_table_clock_converts_table_seconds_both_ways() -> None:
    loop_clock = FakeClock(100.0)
    clock = TableClock(loop_clock, speed=4.0)
    assert clock.now() == 0.0
    loop_clock.t = 102.5
    assert clock.now() == 10.0 and clock.at(101.0) == 4.0 and clock.since(101.0) == 6.0
    assert clock.span(60.0) == 15.0 and clock.loop_time(60.0) == 115.0
    assert not clock.reached(60.0)
    loop_clock.t = clock.loop_time(60.0)
    assert clock.reached(60.0)   # a sleep until the instant lands on it exactly


def test_the_floor_timer_tells_each_change_in_table_seconds() -> None:
    loop_clock = FakeClock(0.0)
    told: list[Notice] = []
    timer = SpeechTimer(TableClock(loop_clock, speed=2.0), told.append)
    turn = AwaitSpeech(3, 60, "speech", True)
    assert timer.left() is None
    timer.start(turn, 60)
    loop_clock.t = 10.0                       # 20 table seconds later
    assert timer.left() == 40.0
    timer.hold(5.0)                           # a pause of five table seconds
    assert timer.left() == 45.0
    assert timer.stop() == 45.0 and timer.left() is None
    assert told == [FloorChanged(turn, 60.0), FloorChanged(turn, 65.0), FloorChanged(None, None)]
    assert isinstance(told[0], FloorChanged) and isinstance(told[-1], FloorChanged)
    assert told[0].speaker == 3 and told[-1].speaker is None


def test_a_games_notices_say_what_the_game_did_and_are_frozen() -> None:
    script = load_script(ROOT / "examples" / "sport-sample.json")
    notices: list[Notice] = []

    @asynccontextmanager
    async def around(director: Director) -> AsyncIterator[None]:
        director.watch(notices.append)
        yield

    result = run_virtual(play_table(script, how=TableRun(around=around)))
    game = result.game
    taken = [n for n in notices if isinstance(n, InputsTaken)]
    assert [n.item for n in taken] == game.inputs[1:]          # every input after the deal, in order
    assert [e for n in taken for e in n.events] == game.events[len(game.events) - sum(len(n.events) for n in taken):]
    floors = [n for n in notices if isinstance(n, FloorChanged)]
    opened, closed = floors[::2], floors[1::2]
    assert floors and len(opened) == len(closed)   # every floor given is closed
    assert all(o.request is not None and c.request is None for o, c in zip(opened, closed, strict=True))
    windows = [n.candidate for n in notices if isinstance(n, WindowChanged)]
    assert windows[1::2] == [None] * (len(windows) // 2) and None not in windows[::2]
    lines = [n for n in notices if isinstance(n, LineSaid)]
    assert [(t, text) for t, text in result.table.lines] == [(n.onset, n.text) for n in lines]
    assert all(b.t >= a.t for a, b in zip(lines, lines[1:], strict=False))
    with pytest.raises(dataclasses.FrozenInstanceError):
        lines[0].text = "другое"  # type: ignore[misc]


def test_the_phone_view_follows_notices_only() -> None:
    async def main() -> None:
        loop = asyncio.get_running_loop()
        from voicehost.config import load_ruleset
        ruleset = load_ruleset("sport")
        game = new_game(ruleset, ruleset.resolve({}), 10)
        ports = Ports(night=lambda on: None, led=lambda seat, pattern: None, edges=EdgeLog(), clock=loop.time,
                      speak=lambda text: asyncio.sleep(0, loop.time()))
        director = Director(game, ports, log=lambda line: None)
        view = TableView(director)
        director.watch(view.heard)
        turn = AwaitSpeech(4, 60, "speech", True)
        view.heard(Paused(True))
        view.heard(FloorChanged(turn, director.clock.now() + 60))
        seats = {s["seat"]: s["speaking"] for s in view.public()["seats"]}
        assert view.public()["paused"] is True and seats[4] and not seats[5]
        view.heard(ConsoleAnswered(ConsoleAnswer(1, "resume", "done")))
        view.heard(Paused(False))
        view.heard(FloorChanged(None, None))
        assert view.public()["paused"] is False and not any(s["speaking"] for s in view.public()["seats"])
        await director.say([("thanks", {})])
        assert [s["text"] for s in view.public()["subtitles"]] == ["Спасибо."]
    asyncio.run(main())


def test_voting_holds_the_lift_questions_onset_until_it_is_closed() -> None:
    from voicehost.config import load_ruleset
    from voicehost.host.stage import Stage
    from voicehost.host.voting import LIFT_QUESTION, Voting
    ruleset = load_ruleset("sport")
    stage = Stage(new_game(ruleset, ruleset.resolve({}), 10),
                  Ports(night=lambda on: None, led=lambda seat, pattern: None, edges=EdgeLog(), say=lambda text: 0.0),
                  log=lambda line: None)
    voting = Voting(stage)
    stage.notify(LineSaid("thanks", {}, "Спасибо.", 3.0, 0.0))
    assert voting.lift_asked_at is None
    stage.notify(LineSaid(LIFT_QUESTION, {}, "Кто за то, чтобы все голосуемые покинули игру?", 5.0, 1.0))
    assert voting.lift_asked_at == 5.0
    voting.close()
    stage.notify(LineSaid(LIFT_QUESTION, {}, "Кто за то, чтобы все голосуемые покинули игру?", 7.0, 2.0))
    assert voting.lift_asked_at == 5.0   # a closed part follows the table no more


@pytest.mark.parametrize("sample, expected", [
    ("canonical", {("nominate", 15, None), ("free", 300, 60)}),   # 15 s: no warning, so no warning colour
    ("sport", {("speech", 60, 10)}),
    ("club", set()),
    ("classic", set()),
])
def test_the_phone_timer_turns_colour_when_the_rulesets_warning_is_said(
        sample: str, expected: set[tuple[str, int, int | None]]) -> None:
    """The view's ``warning_s`` is the ruleset's warning for this very turn (Game.warning_for),
    not the bare timer: canonical's 15-second «кого вы выдвигаете?» is never in the warning colour.
    Every turn is labelled in Russian ([web] turn_…: canonical's «free» showed as English)."""
    seen: set[tuple[str, int, int | None]] = set()
    labels: set[str] = set()

    @asynccontextmanager
    async def around(director: Director) -> AsyncIterator[None]:
        view = TableView(director)

        def heard(notice: Notice) -> None:
            view.heard(notice)
            speaker = view.public()["speaker"]
            if isinstance(notice, FloorChanged) and notice.request is not None and speaker is not None:
                seen.add((speaker["turn"], speaker["seconds"], speaker["warning_s"]))
                labels.add(speaker["turn_text"])
        director.watch(heard)
        yield

    run_virtual(play_table(load_script(ROOT / "examples" / f"{sample}-sample.json"), how=TableRun(around=around)))
    assert expected <= seen
    assert all(warning is None or warning < seconds for _, seconds, warning in seen)
    assert labels and all(re.fullmatch("[а-яё() 0-9]+", label) for label in labels), labels
