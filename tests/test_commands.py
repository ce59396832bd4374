"""The judge's command registry (voicehost/host/commands.py), walked command by command: each one
parses, runs where it is taken, journals what it declares and reads back, is undone as it
declares, has its Russian usage and answer, and its phone control where it declares one. A
command added to the registry without a scenario here fails the walk."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from test_after_game import over_after_the_first_kill
from test_console import day_one
from test_game import voted_game
from test_judge_controls import silent_ports
from test_tournament_scoring import TOURNAMENT

from voicehost.config import load_ruleset
from voicehost.host import Director, Journal, run_virtual
from voicehost.host.commands import REGISTRY, Command, read_command
from voicehost.host.journal import load_journal
from voicehost.host.refusals import Refused, TakesNothing, Usage
from voicehost.language.read_lines import has_line
from voicehost.language.refusals import refusal_text
from voicehost.rules import Game, Role, new_game
from voicehost.rules.inputs import ACTIONS, Dawn, Deal, EndSpeech, Join, Proceed, Remove, Shots
from voicehost.rules.requests import AwaitAction, AwaitDawn, AwaitMorning, AwaitNightfall, AwaitShots, AwaitSpeech


def to_first_speech(ruleset: str, options: dict[str, Any], roles: dict[int, str], turns: tuple[str, ...] = ()) -> Game:
    """A game of ``ruleset`` dealt ``roles`` (the rest citizens), played on with every night's
    default (the mafia shoots seat 4) up to its first speech (not one of ``turns``: those end)."""
    loaded = load_ruleset(ruleset)
    game = new_game(loaded, loaded.resolve(options), 10)
    game.push(Deal(tuple(Role(roles.get(seat, "citizen")) for seat in range(1, 11))))
    while not isinstance(request := game.request, AwaitSpeech) or request.turn in turns:
        if isinstance(request, AwaitSpeech):
            game.push(EndSpeech(request.seat))
        elif isinstance(request, AwaitShots):
            game.push(Shots(tuple((shooter, (4,)) for shooter in request.shooters)))
        elif isinstance(request, AwaitAction):
            act = ACTIONS.get(request.actions[0])
            game.push(act(request.by, None) if act is not None else Join(request.by, "solo"))   # club's maniac
        elif isinstance(request, AwaitDawn):
            game.push(Dawn())
        else:
            assert isinstance(request, (AwaitMorning, AwaitNightfall)), request
            game.push(Proceed())
    return game


def blood_turn() -> Game:
    """classic with blood names: seat 4, shot on night 1, names someone."""
    game = to_first_speech("classic", {"blood_name": True},
                           {3: "mafia", 5: "mafia", 7: "commissar", 8: "doctor", 9: "putana"})
    assert isinstance(game.request, AwaitSpeech) and game.request.turn == "blood_name"
    return game


def club_day() -> Game:
    """club's discussion round: past the introductions, seat 1 speaks."""
    game = to_first_speech("club", {}, {3: "don", 5: "mafia", 9: "mafia", 7: "sheriff", 8: "doctor", 6: "maniac"},
                           ("intro", "last_word"))
    assert isinstance(game.request, AwaitSpeech) and game.request.turn == "speech", game.request
    return game


def over() -> Game:
    game = day_one()
    for seat in (3, 5, 9):
        game.push(Remove(seat, "host"))
    assert game.is_over
    return game


@dataclass(frozen=True)
class Scenario:
    """Where a command is tried: the game, the lines typed before it, how the director runs
    (``console``: its console alone; ``speech``: the whole host, a speech on; ``after``: the
    after-game window) and the lines typed after it (``resume`` after ``pause``)."""

    line: str
    game: Callable[[], Game] = day_one
    before: list[str] = field(default_factory=list)
    mode: str = "console"
    then: list[str] = field(default_factory=list)
    settle: list[str] = field(default_factory=list)
    """Typed after ``before`` when only the state before the command is played (``resume``)."""


SCENARIOS: dict[str, Scenario] = {
    "foul": Scenario("foul 3"),
    "remove": Scenario("remove 3"),
    "end": Scenario("end", mode="speech"),
    "nominate": Scenario("nominate 1 5"),
    "withdraw": Scenario("withdraw 1 5", before=["nominate 1 5"]),
    "blood": Scenario("blood 4 5", game=blood_turn),
    "hand": Scenario("hand 3", game=club_day),
    "vote": Scenario("vote 1 9", game=voted_game),
    "roles": Scenario("roles 2=дон,5=мафия,9=мафия,7=шериф"),
    "undo": Scenario("undo", before=["foul 3"]),
    "repeat": Scenario("repeat", before=["status"]),
    "status": Scenario("status"),
    "pause": Scenario("pause", then=["resume"]),
    "resume": Scenario("resume", before=["pause"], settle=["resume"]),
    "time": Scenario("time +15", mode="speech"),
    "restart": Scenario("restart", mode="speech"),
    "back": Scenario("back", before=["end"], mode="speech"),
    "hold": Scenario("hold", mode="speech"),
    "release": Scenario("release", before=["hold"], mode="speech"),
    "note": Scenario("note 3 перебивал"),
    "bestmove": Scenario("bestmove 3 5", game=lambda: over_after_the_first_kill(**TOURNAMENT), mode="after"),
    "bonus": Scenario("bonus 4 0,5 лучшая речь", game=lambda: over_after_the_first_kill(**TOURNAMENT), mode="after"),
    "penalty": Scenario("penalty 6 0.25 реплика", game=lambda: over_after_the_first_kill(**TOURNAMENT),
                        mode="after"),
    "best": Scenario("best 4", game=over, mode="after"),
    "annul": Scenario("annul свет погас"),
    "stop": Scenario("stop пожарная тревога"),
    "unfoul": Scenario("unfoul 3", before=["foul 3"]),
}


@dataclass
class Played:
    game: Game
    director: Director
    journal: Path
    printed: list[str]

    def records(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in self.journal.read_text().splitlines()]


def play(scenario: Scenario, lines: list[str], path: Path) -> Played:
    """``lines`` typed at a director of the scenario's game (journaled to ``path``), as its mode runs."""
    game = scenario.game()
    journal = Journal(path, {"ruleset": game.ruleset.name, "options": dict(game.options), "seats": game.seats,
                             "level": "live"})
    for index, item in enumerate(game.inputs):
        journal.append(index, 0.0, "host", item)
    printed: list[str] = []
    made: list[Director] = []

    async def session() -> None:
        director = Director(game, silent_ports(), journal, log=printed.append)
        made.append(director)
        if scenario.mode == "speech":
            hosting = asyncio.create_task(director.run())
            for line in lines:
                await asyncio.sleep(2)
                director.ports.type(line)
            await asyncio.sleep(2)
            hosting.cancel()
            await asyncio.gather(hosting, return_exceptions=True)
        elif scenario.mode == "after":
            for line in lines:
                director.ports.type(line)
            await director.console.after_game(5.0)
        else:
            for line in lines:
                director.ports.type(line)
            await director.console.run()

    run_virtual(session())
    journal.close()
    return Played(game, made[0], path, printed)


def test_every_registered_command_has_a_scenario_and_nothing_else_does() -> None:
    assert list(SCENARIOS) == list(REGISTRY)


@pytest.mark.parametrize("name", list(REGISTRY))
def test_each_command_parses_runs_journals_reads_back_and_undoes(name: str, tmp_path: Path) -> None:
    command, scenario = REGISTRY[name], SCENARIOS[name]
    parsed = read_command(scenario.line, 10)
    assert type(parsed) is command and read_command(parsed.line(), 10) == parsed   # its normal form reads back

    before = play(scenario, [*scenario.before, *scenario.settle], tmp_path / "before.jsonl")
    done = play(scenario, [*scenario.before, scenario.line, *scenario.then], tmp_path / "done.jsonl")
    assert done.director.console.refused == [], done.director.console.refused
    assert any(f"«{scenario.line}»:" in line for line in done.printed), done.printed   # answered on the terminal
    read = load_journal(done.journal)   # every record reads back
    new = done.records()[len(before.records()):]
    match command.journaled:
        case "input":
            assert read.entries[-1].source == "console" and [r["type"] for r in new] == ["input"]
        case "splice":
            assert "splice" in [r["type"] for r in new]
        case "judge":
            assert command.record is not None
            last = read.judged[-1]
            assert last["action"] == command.record.action
            own = set(last) - {"type", "t", "source", "i", "action"}
            assert command.record.fields <= own <= command.record.fields | command.record.optional
        case "award":
            assert read.header["best_player"] == int(scenario.line.split()[1])
        case "none":
            assert [r["type"] for r in new if r["type"] != "ballots"] == [], new

    if command.undo != "none":
        undone = play(scenario, [*scenario.before, scenario.line, *scenario.then, "undo"], tmp_path / "undone.jsonl")
        assert undone.director.console.refused == [], undone.director.console.refused
        assert undone.game.state() == before.game.state()
        assert [r["action"] for r in load_journal(undone.journal).judged] == \
            [r["action"] for r in load_journal(before.journal).judged]
        said_back = [line for line in undone.printed if "«undo»: " in line]   # says what it took back
        assert said_back and "Готово" not in said_back[-1], undone.printed


@pytest.mark.parametrize("name", list(REGISTRY))
def test_each_command_has_its_russian_usage_answer_and_phone_control(name: str) -> None:
    command = REGISTRY[name]
    bad = name if command.args[:1] in (("text",), ("cards",)) else f"{name} x y z"
    with pytest.raises(Refused) as refused:
        read_command(bad, 10)
    assert refused.value.refusal in (Usage(command.usage), TakesNothing(name))
    russian = refusal_text(refused.value.refusal)
    assert any("а" <= c <= "я" for c in russian.lower()) and (command.usage in russian or name in russian)
    assert has_line("answers", name) or name in ("undo", "note", "end")   # those answer by what they did
    for button in command.buttons:
        assert type(read_command(button.line, 10)) is command
        assert has_line("web", f"tool_{button.key}") and has_line("web", f"tool_{button.key}_help")
    if command.form is not None:
        assert has_line("web", f"tool_{name}") and has_line("web", f"tool_{name}_help")
        assert all(has_line("web", f"tool_field_{field}") for field in command.form.fields)
    if command.record is not None:
        assert command.journaled == "judge" and command.undo != "none"


def test_the_phone_tools_and_the_journal_reader_come_from_the_registry() -> None:
    """A command's button or form and its judge record are its declaration, nowhere else."""
    from voicehost.host.journal import JUDGE_RECORDS
    from voicehost.web.view import judge_tools

    tools = judge_tools(["bestmove", "bonus", "penalty"])
    assert [b["command"] for b in tools["buttons"]] == [b.line for c in REGISTRY.values() for b in c.buttons]
    assert {f["command"] for f in tools["forms"]} == {name for name, c in REGISTRY.items() if c.form is not None}
    assert set(JUDGE_RECORDS) == {c.record.action for c in REGISTRY.values() if c.record is not None} | {"undo"}
    assert all(isinstance(c, type) and issubclass(c, Command) for c in REGISTRY.values())
