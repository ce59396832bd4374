"""The live director on gpiozero's mock pins: bots press real (mock) buttons when they hear
the host, speak into the ears queue when they get the floor, and a human host types into
the console. Timers run fast (``speed``); the voice only records its lines."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from audio.listener import Heard
from hw.panel import SeatPanel
from hw.pinmap import PinMap
from voicehost.config import load_ruleset
from voicehost.host.cards import show_roles
from voicehost.host.dealing import seeded_deal
from voicehost.host.director import Director, EdgeLog, Ports
from voicehost.host.journal import Journal, read_journal
from voicehost.rules import Game, Role, TableGame, new_game
from voicehost.rules.events import ActionTaken, FoulGiven, NominationAccepted
from voicehost.rules.inputs import Deal, Proceed
from voicehost.rules.protocol import build_protocol
from voicehost.rules.requests import AwaitSpeech, AwaitVotes

if TYPE_CHECKING:
    from gpiozero.pins.mock import MockFactory

DEAL = tuple(Role(r) for r in ["citizen", "citizen", "don", "citizen", "mafia", "citizen", "sheriff", "citizen",
                               "mafia", "citizen"])
from voicehost.language.numbers import CARDINALS as WORDS  # noqa: E402


class Table:
    """The people at the table, reacting to what the host says."""

    def __init__(self, factory: MockFactory, pinmap: PinMap, loop: asyncio.AbstractEventLoop, ports: Ports) -> None:
        self.factory, self.pinmap, self.loop, self.ports = factory, pinmap, loop, ports
        self.lines: list[str] = []
        self.leds: list[tuple[int, str]] = []
        self.held: set[int] = set()
        self.speeches = {1: "я выставляю игрока номер пять спасибо", 2: "выставляю девятого спасибо"}
        self.votes = {5: [1, 2, 3, 4, 6, 7]}        # candidate → who presses in his window
        self.shots = {1: [3, 9]}                     # target → who taps on his number at night

    def button(self, seat: int, down: bool) -> None:
        pin = self.factory.pin(self.pinmap.pins_of(seat).button)
        pin.drive_low() if down else pin.drive_high()

    def hear(self, text: str) -> float:
        onset = time.monotonic()
        self.lines.append(text)
        if text.startswith("Кто за то, чтобы игру покинул игрок номер"):
            for seat in self.votes.get(WORDS[text.rstrip("?").split()[-1]], []):
                self.button(seat, True)
                self.held.add(seat)
        elif text == "Спасибо.":
            for seat in sorted(self.held):
                self.button(seat, False)
            self.held.clear()
        elif text.rstrip(".") in WORDS and self.lines[-2:-1] != ["Спасибо."]:
            for seat in self.shots.get(WORDS[text.rstrip(".")], []):
                self.button(seat, True)
                self.button(seat, False)
        elif text.endswith(", ваше слово."):
            seat = WORDS[text.split(",")[0].split()[-1]]
            words = self.speeches.get(seat, "пас")
            self.loop.call_soon_threadsafe(self.ports.heard.put_nowait, Heard(words, time.monotonic(), "mic"))
        return onset


@pytest.fixture
def table_game(mock_factory: MockFactory, ten_seats: PinMap) -> TableGame:
    ruleset = load_ruleset("sport")
    game = new_game(ruleset, ruleset.resolve({}), 10)
    return game


async def play(game: Game, factory: MockFactory, pinmap: PinMap, journal: Journal | None = None,
               console: Iterable[str] = ()) -> tuple[Table, Director]:
    loop = asyncio.get_running_loop()
    edges = EdgeLog()
    ports = Ports(say=lambda text: 0.0, night=lambda on: None, led=lambda seat, pattern: None, edges=edges,
                  speed=200.0)
    table = Table(factory, pinmap, loop, ports)
    ports.say = table.hear
    ports.led = lambda seat, pattern: table.leds.append((seat, pattern.name))
    panel = SeatPanel(pinmap, edges.add, pin_factory=factory, deliver=loop.call_soon_threadsafe)
    ports.settle = panel.settle
    for line in console:
        ports.type(line)
    director = Director(game, ports, journal, log=lambda line: None)
    try:
        await asyncio.wait_for(director.run(), timeout=60)
    finally:
        panel.close()
    return table, director


def test_a_game_run_by_voice_buttons_and_the_console(table_game: TableGame, mock_factory: MockFactory,
                                                     ten_seats: PinMap, tmp_path: Path) -> None:
    table_game.push(Deal(DEAL))
    journal = Journal(tmp_path / "live.jsonl", {"ruleset": "sport", "seats": 10})
    journal.append(0, 0.0, "deal", Deal(DEAL))  # as `run` does: the deal is the journal's first input
    table, _ = asyncio.run(play(table_game, mock_factory, ten_seats, journal))
    protocol = build_protocol(table_game)
    day = protocol["days"][0]
    assert day["nominations"] == [[1, 5], [2, 9]]
    assert day["votes"] == {"5": 6, "9": 4} and day["eliminated"] == [5]
    assert protocol["nights"][1]["killed"] == [1]  # the Don and the mafioso tapped on «один»
    assert "Кандидатура номер пять принята." in table.lines and "Десять секунд." not in table.lines[:3]
    sources = {entry.source for entry in read_journal(tmp_path / "live.jsonl")[1]}
    assert {"seats", "ears", "host"} <= sources


def test_the_console_removes_and_ends_the_game(table_game: TableGame, mock_factory: MockFactory,
                                               ten_seats: PinMap) -> None:
    table_game.push(Deal(DEAL))
    table, director = asyncio.run(play(table_game, mock_factory, ten_seats,
                                       console=["foul 4", "remove 3", "remove 5", "remove 9"]))
    outcome = table_game.outcome()
    assert outcome is not None
    assert outcome.winner == "red" and table_game.fouls[4] == 1
    assert table.lines[-2:] == ["Игра окончена. Победил мирный город.", "В городе не осталось мафии."]


def test_a_speech_without_words_runs_out_with_a_warning_and_thanks(table_game: TableGame, mock_factory: MockFactory,
                                                                   ten_seats: PinMap) -> None:
    table_game.push(Deal(DEAL))
    table_game.push(__import__("voicehost.rules.inputs", fromlist=["Dawn"]).Dawn())
    table_game.push(Proceed())

    async def one_turn() -> list[str]:
        edges = EdgeLog()
        lines: list[str] = []

        def say(text: str) -> float:
            lines.append(text)
            return time.monotonic()

        ports = Ports(say=say, night=lambda on: None,
                      led=lambda seat, pattern: None, edges=edges, speed=100.0)
        director = Director(table_game, ports, log=lambda line: None)
        assert isinstance(table_game.request, AwaitSpeech)
        await director.floor.speech(table_game.request)
        return lines

    lines = asyncio.run(one_turn())
    assert lines[:3] == ["Десять секунд.", "Спасибо.", "Игрок номер два, ваше слово."]


def test_the_host_deals_and_each_player_reads_his_card_on_his_own_led(table_game: TableGame) -> None:
    table_game.push(seeded_deal(table_game, seed=7))
    leds: list[tuple[int, int | None]] = []

    async def deal() -> None:
        ports = Ports(say=lambda text: time.monotonic(), night=lambda on: None,
                      led=lambda seat, pattern: leds.append((seat, pattern.n)), edges=EdgeLog(), speed=1000.0)
        await show_roles(Director(table_game, ports, log=lambda line: None))

    asyncio.run(deal())
    from voicehost.host.cards import ROLE_BLINKS
    assert leds == [(seat, ROLE_BLINKS[table_game.roles[seat]]) for seat in range(1, 11)]


def test_voicehost_run_finishes_a_game_without_microphone_or_sound_card(tmp_path: Path) -> None:
    """The real command: mock pins, the null audio output, no ears; the console ends it. The
    null output plays in real time, as a sound card would: the bundled table with no pause
    between lines (``[audio] pause_s``) takes 18 s of speech instead of 24."""
    import json

    from processes import run_voicehost
    journal = tmp_path / "live.jsonl"
    table = tmp_path / "table.toml"
    bundled = (Path(__file__).resolve().parent.parent / "config" / "tables" / "ten-seats.toml").read_text()
    table.write_text(bundled.replace("\n[audio]\n", "\n[audio]\npause_s = 0.0\n"))
    assert table.read_text() != bundled, "the bundled table has no [audio] section any more"
    done = run_voicehost(["run", "--mock", "--no-ears", "--audio", "null", "--speed", "100", "--table", str(table),
                          "--roles", "3=don,5=mafia,9=mafia,7=sheriff", "--journal", str(journal)],
                         input="remove 3\nremove 5\nremove 9\n", timeout=300)
    assert done.returncode == 0, done.stderr
    protocol = json.loads((tmp_path / "live.protocol.json").read_text())
    assert (protocol["winner"], protocol["reason"]) == ("red", "no_black_left")
    assert "Игра окончена: победа красных." in done.stdout and "don" not in done.stdout


@pytest.mark.usefixtures("english")
def test_voicehost_run_without_gpio_is_one_line(tmp_path: Path) -> None:
    import os

    from processes import run_voicehost
    env = dict(os.environ, GPIOZERO_PIN_FACTORY="no-such-factory")
    done = run_voicehost(["run", "--no-ears", "--audio", "null", "--roles", "3=don,5=mafia,9=mafia,7=sheriff",
                          "--journal", str(tmp_path / "j.jsonl")], env=env)
    assert done.returncode == 2 and done.stderr.strip().endswith("on a machine without GPIO try --mock")
    assert done.stderr.count("voicehost: error") == 1


def test_the_host_learns_the_club_dealt_roles_from_taps_on_the_first_night(table_game: TableGame,
                                                                            mock_factory: MockFactory,
                                                                            ten_seats: PinMap) -> None:
    from voicehost.host.cards import learn_roles
    holders = {"дон": [3], "мафия": [5, 9], "шериф": [7]}

    async def learn(taps: dict[str, list[int]]) -> Deal | None:
        loop = asyncio.get_running_loop()
        edges = EdgeLog()
        ports = Ports(say=lambda text: 0.0, night=lambda on: None, led=lambda seat, pattern: None, edges=edges,
                      speed=500.0)
        panel = SeatPanel(ten_seats, edges.add, pin_factory=mock_factory, deliver=loop.call_soon_threadsafe)
        ports.settle = panel.settle

        def hear(text: str) -> float:
            onset = time.monotonic()
            for role, seats in taps.items():
                if text == f"Просыпается {role}. Нажмите свою кнопку.":
                    for seat in seats:
                        mock_factory.pin(ten_seats.pins_of(seat).button).drive_low()
                        mock_factory.pin(ten_seats.pins_of(seat).button).drive_high()
            return onset

        ports.say = hear
        try:
            return await learn_roles(Director(table_game, ports, log=lambda line: None), dict(table_game.cast))
        finally:
            panel.close()

    deal = asyncio.run(learn(holders))
    assert deal == Deal(DEAL)
    assert asyncio.run(learn({"дон": [3], "мафия": [5], "шериф": [7]})) is None  # a mafioso did not tap


def test_a_raised_hand_and_an_answer_by_name_at_the_live_table(mock_factory: MockFactory, ten_seats: PinMap) -> None:
    from voicehost.rules.club import ClubGame
    from voicehost.rules.inputs import Check, Dawn, EndSpeech, Heal, Join, Kill, Shots
    club = load_ruleset("club")
    game = new_game(club, club.resolve({}), 10)
    assert isinstance(game, ClubGame)
    roles = list(DEAL)
    roles[1], roles[7] = Role.DOCTOR, Role.MANIAC
    for item in (Deal(tuple(roles)), Join(8, "solo"), Dawn(), Proceed(), *(EndSpeech(s) for s in range(1, 11)),
                 Proceed(), Shots(()), Check(3, None), Check(7, None), Kill(8, None), Heal(2, None), Dawn(), Proceed()):
        game.push(item)
    assert isinstance(game.request, AwaitSpeech)
    assert game.request.turn == "speech" and game.request.seat == 2

    async def turn() -> None:
        loop = asyncio.get_running_loop()
        edges = EdgeLog()
        ports = Ports(say=lambda text: time.monotonic(), night=lambda on: None, led=lambda seat, pattern: None,
                      edges=edges, speed=20.0)
        panel = SeatPanel(ten_seats, edges.add, pin_factory=mock_factory, deliver=loop.call_soon_threadsafe)
        ports.settle = panel.settle
        director = Director(game, ports, log=lambda line: None)
        assert isinstance(game.request, AwaitSpeech)
        task = asyncio.create_task(director.floor.speech(game.request))
        pin = mock_factory.pin(ten_seats.pins_of(4).button)
        pin.drive_low()                      # seat 4 holds his button: a raised hand
        await asyncio.sleep(0.6)             # 12 s at speed 20: 2 s (0.1 s) with a margin a busy machine keeps
        pin.drive_high()
        speaker = mock_factory.pin(ten_seats.pins_of(2).button)
        await asyncio.sleep(0.05)
        speaker.drive_low()                  # the speaker taps: his speech ends
        speaker.drive_high()
        await asyncio.wait_for(task, 60)
        panel.close()

    asyncio.run(turn())
    assert game.raised == [4]


def test_a_canonical_nomination_is_heard_by_name(ten_seats: PinMap) -> None:
    from voicehost.rules.inputs import Dawn, EndSpeech, Shots
    canonical = load_ruleset("canonical")
    game = new_game(canonical, canonical.resolve({"ratio": "1:4"}), 10)
    game.names = {i: n for i, n in enumerate(["Анна", "Борис", "Вера", "Глеб", "Дина", "Егор", "Жанна", "Захар",
                                               "Ира", "Кирилл"], start=1)}
    roles = [Role.CITIZEN] * 10
    roles[2] = roles[6] = Role.MAFIA
    for item in (Deal(tuple(roles)), Shots(()), Dawn(), Proceed(), EndSpeech(0)):
        game.push(item)
    assert isinstance(game.request, AwaitSpeech)
    assert game.request.turn == "nominate" and game.request.seat == 1

    async def turn() -> None:
        ports = Ports(say=lambda text: time.monotonic(), night=lambda on: None, led=lambda seat, pattern: None,
                      edges=EdgeLog(), speed=20.0)
        ports.heard.put_nowait(Heard("вера", time.monotonic(), "mic"))
        assert isinstance(game.request, AwaitSpeech)
        await Director(game, ports, log=lambda line: None).floor.speech(game.request)

    asyncio.run(turn())
    assert [e.target for e in game.events if isinstance(e, NominationAccepted)] == [3]
    assert game.request.seat == 2  # the answer ended his turn


def test_a_forbidden_word_heard_in_a_speech_is_a_foul_and_the_console_raises_a_hand(table_game: TableGame) -> None:
    from voicehost.language.parser import forbidden_words
    from voicehost.rules.inputs import Dawn
    table_game.push(Deal(DEAL))
    table_game.push(Dawn())
    table_game.push(Proceed())

    async def turn() -> Director:
        ports = Ports(say=lambda text: time.monotonic(), night=lambda on: None, led=lambda seat, pattern: None,
                      edges=EdgeLog(), speed=20.0)
        ports.heard.put_nowait(Heard("клянусь я мирный пас", time.monotonic(), "mic"))
        director = Director(table_game, ports, log=lambda line: None, forbidden=forbidden_words(["клянусь"]))
        assert isinstance(table_game.request, AwaitSpeech)
        await director.floor.speech(table_game.request)
        return director

    director = asyncio.run(turn())
    assert isinstance(table_game.request, AwaitSpeech)
    assert table_game.fouls[1] == 1 and table_game.request.seat == 2
    assert [e.reason for e in table_game.events if isinstance(e, FoulGiven)] == ["forbidden:клянусь"]
    assert asyncio.run(director.console.command("status")) is False


def test_the_club_sheriff_shoots_with_two_taps_and_the_doctor_only_saves_a_victim(mock_factory: MockFactory,
                                                                                  ten_seats: PinMap) -> None:
    from voicehost.rules.inputs import Check, Dawn, EndSpeech, Join, Shots
    from voicehost.rules.requests import AwaitAction
    club = load_ruleset("club")
    game = new_game(club, club.resolve({}), 10)
    roles = list(DEAL)
    roles[1], roles[7] = Role.DOCTOR, Role.MANIAC
    for item in (Deal(tuple(roles)), Join(8, "solo"), Dawn(), Proceed(), *(EndSpeech(s) for s in range(1, 11)),
                 Proceed(), Shots(()), Check(3, None)):
        game.push(item)
    assert isinstance(game.request, AwaitAction) and game.request.by == 7

    async def night(taps: dict[int, list[int]]) -> None:
        loop = asyncio.get_running_loop()
        edges = EdgeLog()
        heard_numbers: list[str] = []

        def say(text: str) -> float:
            onset = time.monotonic()
            heard_numbers.append(text)
            number = WORDS.get(text.rstrip("."))
            actor = game.request.by if isinstance(game.request, AwaitAction) else None
            if actor is not None and number:
                for _ in range(taps.get(actor, []).count(number)):
                    pin = mock_factory.pin(ten_seats.pins_of(actor).button)
                    pin.drive_low()
                    time.sleep(0.03)
                    pin.drive_high()
                    time.sleep(0.03)
            return onset

        ports = Ports(say=say, night=lambda on: None, led=lambda seat, pattern: None, edges=edges, speed=50.0)
        panel = SeatPanel(ten_seats, edges.add, pin_factory=mock_factory, deliver=loop.call_soon_threadsafe)
        ports.settle = panel.settle
        director = Director(game, ports, log=lambda line: None)
        for _ in range(3):  # the Sheriff, the maniac, the Doctor
            assert isinstance(game.request, AwaitAction)
            await director.night.action(game.request)
        panel.close()

    asyncio.run(night({7: [4, 4], 8: [6], 2: [1]}))  # the Doctor points at seat 1, who is no victim
    kills = [(e.role.value, e.target) for e in game.events if isinstance(e, ActionTaken)]
    assert kills == [("sheriff", 4), ("maniac", 6)] and not [e for e in game.events if e.kind == "saved"]


def test_the_human_host_types_the_cards_at_the_console(table_game: TableGame) -> None:
    from voicehost.host.cards import roles_from_console
    logged: list[str] = []

    async def typed() -> Deal:
        ports = Ports(say=lambda text: 0.0, night=lambda on: None, led=lambda seat, pattern: None, edges=EdgeLog())
        for line in ("hello", "roles 3=don,5=mafia", "roles 3=don,5=mafia,9=mafia,7=sheriff"):
            ports.type(line)
        return await roles_from_console(Director(table_game, ports, log=logged.append))

    assert asyncio.run(typed()) == Deal(DEAL)
    assert len(logged) == 2 and "needs" in logged[1]


@pytest.mark.usefixtures("english")
def test_run_options_are_key_value_pairs_checked_by_the_ruleset() -> None:
    from voicehost.host.live import parse_options
    from voicehost.rules import InputError
    assert parse_options(["nomination=last", "last_word_s=30"]) == {"nomination": "last", "last_word_s": "30"}
    with pytest.raises(InputError, match="--option nomination: is not KEY=VALUE"):
        parse_options(["nomination"])
    ruleset = load_ruleset("sport")
    with pytest.raises(InputError, match="--option.nomination: 'middle' is not one of first, last"):
        ruleset.resolve(parse_options(["nomination=middle"]), "--option")


def test_the_console_corrects_a_vote_and_undoes_and_the_journal_keeps_both(tmp_path: Path) -> None:
    """«vote 1 9» after the count: the game replays with the corrected vote; «undo» right after
    «vote 2 9» takes that correction back (the vote is not taken again: issue 42); a resume from
    the journal rebuilds exactly the corrected game."""
    from test_game import voted_game

    game = voted_game()
    path = tmp_path / "live.jsonl"
    journal = Journal(path, {"ruleset": "sport", "seats": 10})
    for i, item in enumerate(game.inputs):
        journal.append(i, 0.0, "seats", item)
    lines: list[str] = []

    def say(text: str) -> float:
        lines.append(text)
        return 0.0

    ports = Ports(say=say, night=lambda on: None, led=lambda s, p: None,
                  edges=EdgeLog())
    director = Director(game, ports, journal, log=lambda line: None)

    async def correct() -> None:
        for command in ("vote 1 9", "vote 2 9", "undo"):
            await director.console.command(command)

    asyncio.run(correct())
    journal.close()
    assert lines[0] == "Исправление: игрок номер один голосовал против игрока номер девять."
    second = lines.index("Исправление: игрок номер два голосовал против игрока номер девять.")
    assert "Голоса разделились поровну между игроками номер пять и девять." in lines[1:second][2]  # 5 : 5
    assert lines[second + 1:second + 4] == [  # the result said again
        "Игрок номер пять — четыре голоса.", "Игрок номер девять — шесть голосов.",
        "Игрок номер девять покидает игру."]
    assert not isinstance(game.request, AwaitVotes)   # the undo took back the second correction only
    assert "Исправление: игрок номер два голосовал против игрока номер пять." in lines[second + 4:]
    assert any(line.startswith("Голоса разделились поровну") for line in lines[second + 4:])   # 5 : 5 again
    assert [e.input for e in read_journal(path)[1]] == game.inputs


def test_the_console_corrects_the_cards_unless_the_game_since_forbids_it(tmp_path: Path) -> None:
    """«roles …» mid-game replaces the deal and replays; a Sheriff who already checked as
    seat 7 cannot become seat 8's card. Nothing about roles is said aloud."""
    from voicehost.rules.inputs import Check
    from voicehost.simulation.engine_level import simulate
    from voicehost.simulation.script import load_script

    inputs = simulate(load_script("examples/sport-sample.json")).game.inputs
    first_check = next(i for i, item in enumerate(inputs) if isinstance(item, Check) and item.by == 7)
    ruleset = load_ruleset("sport")

    def director_at(count: int) -> tuple[Director, list[str], Journal]:
        game = new_game(ruleset, ruleset.resolve({}), 10)
        for item in inputs[:count]:
            game.push(item)
        lines: list[str] = []
        journal = Journal(tmp_path / f"g{count}.jsonl", {"ruleset": "sport", "seats": 10})
        for i, item in enumerate(game.inputs):
            journal.append(i, 0.0, "seats", item)

        def say(text: str) -> float:
            lines.append(text)
            return 0.0

        ports = Ports(say=say, night=lambda on: None, led=lambda s, p: None,
                      edges=EdgeLog())
        return Director(game, ports, journal, log=lambda line: None), lines, journal

    moved = "roles 3=don,5=mafia,9=mafia,8=sheriff"
    director, lines, journal = director_at(first_check - 1)
    director.ports.type(moved)
    asyncio.run(director.console.run())
    journal.close()
    assert director.game.roles[8] is Role.SHERIFF and lines == []
    assert read_journal(journal.path)[1][0].input == director.game.inputs[0]

    director, lines, _ = director_at(first_check + 1)
    before = list(director.game.inputs)
    director.ports.type(moved)
    asyncio.run(director.console.run())
    assert director.game.inputs == before and director.game.roles[7] is Role.SHERIFF
    assert director.console.refusals and lines == []


def test_a_pause_keeps_the_speakers_time(table_game: TableGame) -> None:
    """«pause» at 5 s into a 60 s speech, «resume» at 100 s: the warning and «Спасибо» come
    55 s of speaking time later, not at 60 s (on the virtual clock)."""
    from voicehost.host.vclock import run_virtual
    from voicehost.rules.inputs import Dawn

    table_game.push(Deal(DEAL))
    table_game.push(Dawn())
    table_game.push(Proceed())
    said: list[tuple[float, str]] = []

    async def turn() -> None:
        loop = asyncio.get_running_loop()

        async def speak(text: str) -> float:
            said.append((loop.time(), text))
            return loop.time()

        ports = Ports(speak=speak, night=lambda on: None, led=lambda s, p: None, edges=EdgeLog(), clock=loop.time,
                      poll_s=None)
        director = Director(table_game, ports, log=lambda line: None)
        loop.call_at(5.0, ports.type, "pause")
        loop.call_at(100.0, ports.type, "resume")
        assert isinstance(table_game.request, AwaitSpeech)
        await director.floor.speech(table_game.request)

    run_virtual(turn())
    assert [text for _, text in said] == ["Пауза.", "Продолжаем.", "Десять секунд.", "Спасибо.",
                                          "Игрок номер два, ваше слово."]
    times = dict((text, t) for t, text in said)
    assert times["Пауза."] == 5.0 and times["Продолжаем."] == 100.0
    assert times["Десять секунд."] == 145.0 and times["Спасибо."] == 155.0
