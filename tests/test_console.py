"""The human host's console: strict commands, answers on the terminal, pauses that hold what
is typed, and a console that survives anything typed at it with the game unchanged by every
line it refuses."""

from __future__ import annotations

import asyncio
import os
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_game import voted_game

from voicehost.config import load_ruleset
from voicehost.host.commands import REGISTRY as COMMANDS
from voicehost.host.director import Director, EdgeLog, Ports
from voicehost.host.terminal import decode_console_line, read_terminal
from voicehost.host.vclock import run_virtual
from voicehost.rules import Game, Role, TableGame, new_game
from voicehost.rules.inputs import Dawn, Deal, EndSpeech, Foul, Nominate, Proceed

DEAL = Deal(tuple(Role(r) for r in ["citizen", "citizen", "don", "citizen", "mafia", "citizen", "sheriff",
                                    "citizen", "mafia", "citizen"]))


def day_one() -> TableGame:
    ruleset = load_ruleset("sport")
    game = new_game(ruleset, ruleset.resolve({}), 10)
    game.push(DEAL)
    game.push(Dawn())
    game.push(Proceed())  # the morning: seat 1 has the floor
    return game


def console_at(game: Game, lines: list[str]) -> tuple[Director, list[str], list[str]]:
    """Type ``lines`` at a director of ``game`` (on the virtual clock); returns the director,
    what it said aloud and what it printed."""
    said: list[str] = []
    printed: list[str] = []

    async def session() -> Director:
        loop = asyncio.get_running_loop()

        async def speak(text: str) -> float:
            said.append(text)
            return loop.time()

        ports = Ports(speak=speak, night=lambda on: None, led=lambda s, p: None, edges=EdgeLog(), clock=loop.time,
                      poll_s=None)
        director = Director(game, ports, log=printed.append)
        for line in lines:
            ports.type(line)
        await director.console.run()
        return director

    return run_virtual(session()), said, printed


def test_each_command_takes_exactly_its_arguments_in_ascii_digits() -> None:
    bad = ["vote 3 abc", "vote 4", "foul 3 4", "nominate 1 abc 5", "foul ５", "foul ٣", "remove", "hand 0",
           "foul 11", "undo 3", "status now", "nominate 1", "roles", "foul -3", "foul 3.0", "voet 1 2"]
    game = day_one()
    before = list(game.inputs)
    director, said, printed = console_at(game, bad)
    assert game.inputs == before and said == []
    assert [line for line, _ in director.console.refused] == bad
    reasons = dict(director.console.refused)
    assert reasons["vote 3 abc"] == "usage: vote V C" and reasons["foul 3 4"] == "usage: foul N"
    assert reasons["foul 11"].startswith("there is no seat 11 at this table")
    assert reasons["undo 3"] == "undo takes nothing after it"
    assert all("index" not in why and "Await" not in why for _, why in director.console.refused)


def test_the_unknown_command_help_lists_every_command() -> None:
    director, _, printed = console_at(day_one(), ["help"])
    assert printed == [f"пульт: «help» отклонено: Неизвестная команда. Команды: {', '.join(COMMANDS)}."]
    assert list(COMMANDS)[:14] == ["foul", "remove", "end", "nominate", "withdraw", "blood", "hand", "vote", "roles",
                                   "undo", "repeat", "status", "pause", "resume"]
    assert director.console.refused == [("help", f"unknown command; commands: {', '.join(COMMANDS)}")]


def test_a_refusal_by_the_game_is_a_sentence_about_the_game() -> None:
    game = day_one()
    director, _, printed = console_at(game, ["blood 1 2", "foul 3", "remove 3", "foul 3"])
    reasons = dict(director.console.refused)
    assert reasons["blood 1 2"] == "not now: a player has the floor"
    assert reasons["foul 3"] == "seat 3 is not at the table"  # after «remove 3»


def test_escape_sequences_are_shown_not_echoed_raw() -> None:
    director, _, printed = console_at(day_one(), ["foul \x1b[A3"])
    assert director.console.refused and "\x1b" not in printed[0] and "\\x1b[A3" in printed[0]


def test_the_console_answers_on_the_terminal_too() -> None:
    """status, vote V C (the corrected count), repeat, pause/resume print what the host says."""
    game = day_one()
    game.push(Nominate(1, 5))
    game.push(Foul(4, "host"))
    _, said, printed = console_at(game, ["status", "repeat", "pause", "resume"])
    host = [line.removeprefix("ведущий: ") for line in printed if line.startswith("ведущий: ")]
    assert host == said and said[:2] == ["Выставлен игрок номер пять.", "Игрок номер четыре — одно замечание."]
    assert said[-3:] == [said[-4], "Пауза.", "Продолжаем."]  # repeat said the last line again

    _, said, printed = console_at(voted_game(), ["vote 1 9"])
    host = [line.removeprefix("ведущий: ") for line in printed if line.startswith("ведущий: ")]
    assert host == said and said[0] == "Исправление: игрок номер один голосовал против игрока номер девять."
    assert any(line.endswith(("голос.", "голоса.", "голосов.", "голосов нет.")) for line in host)  # the corrected count


def test_lines_typed_during_a_pause_are_held_until_resume() -> None:
    game = day_one()
    director, said, printed = console_at(game, ["pause", "foul 4", "pause", "status", "resume"])
    assert said[0] == "Пауза." and said[2] == "Продолжаем."                   # the foul waits out the pause
    assert said[1] == "Кандидатур пока нет."                                  # status is answered at once
    assert said[3].startswith("Игрок номер четыре, замечание.") and game.fouls[4] == 1  # then the held lines
    assert "пульт: «foul 4» ждёт команды resume" in printed
    assert director.console.refused == [("pause", "the game is already paused")]


def test_a_broken_byte_never_kills_the_console_reader(tmp_path: Path) -> None:
    """Under a UTF-8 locale an invalid byte raised UnicodeDecodeError in the reading thread:
    every later command was lost. Now the line is refused and the next one is read — on the
    loop from a pipe or a terminal, and by a thread from a file the loop cannot watch."""
    typed_bytes = b"foul 3\n\xff\xfe\xc3\n\x80status\nstatus"   # the last line ends with the input, no newline

    async def read(fd: int) -> tuple[list[str], bool]:
        typed: list[str] = []
        done = asyncio.Event()

        def line(text: str) -> None:
            typed.append(text)
            if len(typed) == 4:
                done.set()
        reader = read_terminal(asyncio.get_running_loop(), line, fd)
        assert reader is not None
        await asyncio.wait_for(done.wait(), 60)
        for _ in range(3000):   # the end of the pipe seen: up to 30 s, far beyond a busy machine's delay
            if not reader.watched:
                break
            await asyncio.sleep(0.01)
        reader.close()
        return typed, reader.watched

    out, into = os.pipe()
    os.write(into, typed_bytes)
    os.close(into)
    try:
        assert asyncio.run(read(out)) == (["foul 3", "\ufffd\ufffd\ufffd", "\ufffdstatus", "status"], False)
    finally:
        os.close(out)
    (tmp_path / "typed").write_bytes(typed_bytes)
    with open(tmp_path / "typed", "rb") as file:   # a regular file: epoll refuses it
        assert asyncio.run(read(file.fileno()))[0] == ["foul 3", "\ufffd\ufffd\ufffd", "\ufffdstatus", "status"]
    assert decode_console_line(b"vote 1 2\r\n") == "vote 1 2"


typed_line = st.one_of(
    st.binary(max_size=80).map(decode_console_line),
    st.text(max_size=300),
    st.text(alphabet=st.characters(max_codepoint=0x7F), max_size=30),
    st.tuples(st.sampled_from(sorted(COMMANDS)), st.lists(st.one_of(
        st.integers(-3, 14).map(str), st.sampled_from(["abc", "５", "3.0", "\x1b[A", "٣", "", "3=don"])),
        max_size=3)).map(lambda parts: " ".join([parts[0], *parts[1]])),
)


assert settings.default is not None   # the profile conftest.py loads


@settings(max_examples=min(settings.default.max_examples, 100), deadline=None)
@given(lines=st.lists(typed_line, min_size=1, max_size=12))
def test_the_console_survives_any_typed_lines_and_refused_ones_change_nothing(lines: list[str]) -> None:
    """A fuzz of typed lines — bytes, lengths, control characters, near-commands: the console
    never dies, and every line it refuses leaves the game exactly as it was."""
    game = voted_game()
    said: list[str] = []

    async def session() -> None:
        loop = asyncio.get_running_loop()

        async def speak(text: str) -> float:
            said.append(text)
            return loop.time()

        ports = Ports(speak=speak, night=lambda on: None, led=lambda s, p: None, edges=EdgeLog(), clock=loop.time,
                      poll_s=None)
        director = Director(game, ports, log=lambda line: None)
        for line in lines:
            state, inputs, refused = game.state(), list(game.inputs), len(director.console.refused)
            ports.type(line)
            if line.strip().lower() == "pause":
                ports.type("resume")
            await director.console.run()
            if len(director.console.refused) > refused and line.strip():
                assert game.state() == state and game.inputs == inputs, line

    run_virtual(session())


def test_every_console_command_is_documented() -> None:
    from pathlib import Path
    root = Path(__file__).resolve().parent.parent
    docs, reference = (root / "docs" / "live-host.md").read_text(), (root / "docs" / "commands.md").read_text()
    for command in COMMANDS.values():
        usage = command.usage
        assert f"`{usage}`" in docs, usage
        assert f"`{usage.split()[0]}" in reference, usage


def test_undo_after_end_gives_the_floor_back_with_the_time_left() -> None:
    """«end» at 10 s into seat 1's 60 s, «undo» during seat 2's speech: «Игрок номер один,
    продолжайте», and seat 1 speaks the 50 s he had left — the warning 40 s and «Спасибо» 50 s
    after it (it gave the floor back silently, with the full 60 s and a second more)."""
    game = day_one()
    said: list[tuple[float, str]] = []

    async def session() -> None:
        loop = asyncio.get_running_loop()

        async def speak(text: str) -> float:
            said.append((loop.time(), text))
            return loop.time()

        ports = Ports(speak=speak, night=lambda on: None, led=lambda s, p: None, edges=EdgeLog(), clock=loop.time,
                      poll_s=None)
        director = Director(game, ports, log=lambda line: None)
        host = asyncio.create_task(director.run())
        await asyncio.sleep(10)
        ports.type("end")
        await asyncio.sleep(5)
        ports.type("undo")
        await asyncio.sleep(60)
        host.cancel()
        await asyncio.gather(host, return_exceptions=True)

    run_virtual(session())
    texts = [text for _, text in said]
    back = texts.index("Игрок номер один, продолжайте.")
    assert texts[back - 1] == "Игрок номер два, ваше слово."
    assert texts[back + 1:back + 4] == ["Десять секунд.", "Спасибо.", "Игрок номер два, ваше слово."]
    at = said[back][0]
    assert said[back + 1][0] - at == pytest.approx(40, abs=0.5) and said[back + 2][0] - at == pytest.approx(50, abs=0.5)
    assert game.inputs.count(EndSpeech(1)) == 1


def day_two_game() -> Game:
    """voted_game's day 1 (seat 5 voted out by 6 to 4), his last word, a night of misses: day 2, seat 2's floor."""
    from voicehost.rules.inputs import ACTIONS, EndSpeech, Shots
    from voicehost.rules.requests import AwaitAction, AwaitMorning, AwaitNightfall, AwaitShots, AwaitSpeech

    game = voted_game()
    game.push(EndSpeech(5))
    while not isinstance(game.request, AwaitSpeech):
        request = game.request
        if isinstance(request, (AwaitNightfall, AwaitMorning)):
            game.push(Proceed())
        elif isinstance(request, AwaitShots):
            game.push(Shots(()))
        elif isinstance(request, AwaitAction):
            game.push(ACTIONS[request.actions[0]](request.by, None))
        else:
            game.push(Dawn())
    return game


def test_a_vote_corrected_on_the_next_day_says_the_count_only_and_the_speech_goes_on() -> None:
    """«vote 8 5» during seat 2's speech on day 2: it said the night, the morning and «ваше
    слово» again. Now: the correction and day 1's new count only; seat 2 keeps the floor and
    his time (the warning at 50 s, «Спасибо» at 60 s of his floor, as if nothing was typed)."""
    from voicehost.host import Notice, VoteCorrected
    from voicehost.rules.requests import AwaitSpeech

    game = day_two_game()
    assert isinstance(game.request, AwaitSpeech)
    assert game.day == 2 and game.request.seat == 2
    said: list[tuple[float, str]] = []
    corrections: list[VoteCorrected] = []

    async def session() -> None:
        loop = asyncio.get_running_loop()

        async def speak(text: str) -> float:
            said.append((loop.time(), text))
            return loop.time()

        ports = Ports(speak=speak, night=lambda on: None, led=lambda s, p: None, edges=EdgeLog(), clock=loop.time,
                      poll_s=None)
        director = Director(game, ports, log=lambda line: None)

        def watch(notice: Notice) -> None:
            if isinstance(notice, VoteCorrected):
                corrections.append(notice)
        director.watch(watch)
        request = game.request
        assert isinstance(request, AwaitSpeech)
        host = asyncio.create_task(director.floor.speech(request))
        await asyncio.sleep(5)
        ports.type("vote 8 5")
        await host

    run_virtual(session())
    assert [text for _, text in said] == [
        "Исправление: игрок номер восемь голосовал против игрока номер пять.",
        "Игрок номер пять — семь голосов.", "Игрок номер девять — три голоса.", "Игрок номер пять покидает игру.",
        "Десять секунд.", "Спасибо.", "Игрок номер три, ваше слово."]
    assert said[-3][0] == pytest.approx(50) and said[-2][0] == pytest.approx(60)
    assert [(c.voter, c.candidate, c.returned, c.left) for c in corrections] == [(8, 5, (), ())]
    assert corrections[0].lines[0].startswith("Исправление: игрок номер восемь")


def test_a_correction_that_changes_who_leaves_says_who_returns_and_whose_floor_it_is() -> None:
    """During seat 5's last word, «vote 1 9» and «vote 2 9» make it 4 to 6: seat 5 comes back
    (the tie first brings him back), seat 9 leaves and has the last word; the web judge's state
    shows the correction."""
    from voicehost.web.view import TableView

    game = voted_game()
    director, said, _ = console_at(game, [])
    view = TableView(director)
    director.watch(view.heard)
    director.ports.type("vote 1 9")
    run_virtual(director.console.run())
    assert said[-2:] == ["Игрок номер пять возвращается в игру.", "Игрок номер пять, ваше оправдание."]
    assert view.judge()["correction"]["returned"] == [5]
    del said[:]
    director.ports.type("vote 2 9")
    run_virtual(director.console.run())
    assert said == ["Исправление: игрок номер два голосовал против игрока номер девять.",
                    "Игрок номер пять — четыре голоса.", "Игрок номер девять — шесть голосов.",
                    "Игрок номер девять покидает игру.", "Игрок номер девять, ваше последнее слово."]
    correction = view.judge()["correction"]
    assert correction["left"] == [9] and correction["text"].startswith("Исправление: игрок номер два")
    seats = {s["seat"]: s["alive"] for s in view.judge()["seats"]}
    assert seats[5] and not seats[9]


def test_status_does_not_list_the_fouls_of_a_removed_player() -> None:
    game = day_one()
    director, said, _ = console_at(game, ["foul 3", "foul 4", "remove 4", "status"])
    assert not game.is_alive(4) and game.fouls.get(4)
    assert said[-2:] == ["Кандидатур пока нет.", "Игрок номер три — одно замечание."]   # seat 4's is not listed


def test_a_late_nomination_from_the_judge_is_refused_on_the_console_not_aloud() -> None:
    """«nominate 1 5» typed after seat 1's speech ended: the game would answer «не принято,
    сейчас не ваша речь» — the host said «Сейчас не ваша речь» aloud to the whole table. It is
    the console's refusal: printed for the judge, nothing said, nothing journaled. (Fixed with
    the typed refusals, :meth:`Console._refuse_untaken`; the web's twin is in test_web.py.)"""
    from voicehost.host.refusals import NominationNotTaken

    game = day_one()
    game.push(EndSpeech(1))   # seat 2 has the floor
    before = list(game.inputs)
    director, said, printed = console_at(game, ["nominate 1 5"])
    assert said == [] and game.inputs == before
    assert director.console.refused == [("nominate 1 5", str(NominationNotTaken(1, 5, "not_your_turn")))]
    assert printed == ["пульт: «nominate 1 5» отклонено: Игрок 1 выставляет игрока 5: не принято, "
                       "сейчас не речь игрока 1."]


@pytest.mark.usefixtures("english")
def test_under_english_a_console_refusal_is_english_from_frame_to_reason() -> None:
    """``--lang en`` printed «console: «foul 99» refused: Места 99 нет…»: the frame English, the reason Russian."""
    game = day_one()
    director, said, printed = console_at(game, ["foul 99"])
    assert said == [] and len(printed) == 1, printed
    assert printed[0].startswith("console: «foul 99» refused: there is no seat 99"), printed
    assert not re.search("[А-Яа-яЁё]", printed[0]), printed
