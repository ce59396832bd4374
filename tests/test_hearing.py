"""Hearing right at a real table: the host does not guess an unsure seat number, the speaker
vetoes a wrong echo with his button, a phrase cut in two is joined, and a «спасибо» that was
not the speaker's is taken back by holding the button. Each runs the live director on the
virtual clock, with words and button presses placed at exact table times."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from audio.listener import Heard
from hw.edges import Edge
from voicehost.config import load_ruleset
from voicehost.host import EdgeLog, FloorChanged, LineSaid, Notice, Ports, run_virtual
from voicehost.host.director import Director
from voicehost.host.hearing import HearingSettings, Joiner, doubtful
from voicehost.rules import Role, new_game
from voicehost.rules.inputs import Dawn, Deal, EndSpeech, Nominate
from voicehost.simulation.mishearing import ErrorRates, Mishearing

DEAL = Deal(tuple(Role(r) for r in ["citizen", "citizen", "don", "citizen", "mafia", "citizen", "sheriff",
                                    "citizen", "mafia", "citizen"]))


def sure(text: str, conf: float = 0.95) -> dict[str, Any]:
    return {"text": text, "result": [{"word": w, "conf": conf} for w in text.split()]}


class Table:
    """A sport day at the virtual clock: lines said (with their table times) and inputs taken."""

    def __init__(self, settings: HearingSettings | None = None) -> None:
        ruleset = load_ruleset("sport")
        self.game = new_game(ruleset, ruleset.resolve({}), 10)
        self.game.push(DEAL)
        self.game.push(Dawn())
        self.lines: list[tuple[float, str, str]] = []
        self.settings = settings

    async def speak(self, text: str) -> float:
        onset = asyncio.get_running_loop().time()
        await asyncio.sleep(0.3 + 0.065 * len(text))
        return onset

    async def play(self, events: list[tuple[float, str, Any]], until: float = 70.0) -> None:
        """``events``: (seconds after the first floor is given, "heard" | "press", what)."""
        loop = asyncio.get_running_loop()
        edges = EdgeLog()
        ports = Ports(speak=self.speak, night=lambda on: None, led=lambda seat, pattern: None, edges=edges,
                      clock=loop.time, poll_s=None)
        director = Director(self.game, ports, log=lambda line: None, hearing=self.settings)
        floor_given = asyncio.Event()

        def watch(notice: Notice) -> None:
            if isinstance(notice, LineSaid):
                self.lines.append((notice.onset, notice.key, notice.text))
            elif isinstance(notice, FloorChanged) and notice.deadline is not None:
                floor_given.set()
        director.watch(watch)
        host = asyncio.create_task(director.run())
        await floor_given.wait()
        start = loop.time()
        for at, kind, what in sorted(events, key=lambda e: e[0]):
            await asyncio.sleep(max(0.0, start + at - loop.time()))
            if kind == "heard":
                text, raw = what if isinstance(what, tuple) else (what, sure(what))
                ports.hear(Heard(text, loop.time(), "mic", raw))
            else:
                seat, held = what
                edges.add(Edge(seat, True, loop.time()))
                edges.add(Edge(seat, False, loop.time() + held))
        await asyncio.sleep(max(0.0, start + until - loop.time()))
        host.cancel()
        await asyncio.gather(host, return_exceptions=True)

    def keys(self) -> list[str]:
        return [key for _, key, _ in self.lines]

    def said(self, key: str) -> int:
        return self.keys().count(key)


def run(table: Table, events: list[tuple[float, str, Any]], until: float = 70.0) -> Table:
    run_virtual(table.play(events, until))
    return table


def test_an_unsure_seat_number_is_asked_again_not_taken() -> None:
    unsure = {"text": "выставляю игрока номер семь",
              "result": [{"word": "выставляю", "conf": 0.97}, {"word": "игрока", "conf": 0.96},
                         {"word": "номер", "conf": 0.95}, {"word": "семь", "conf": 0.41}]}
    table = run(Table(), [(2.0, "heard", ("выставляю игрока номер семь", unsure))], until=10)
    assert table.said("repeat_number") == 1
    assert not any(isinstance(i, Nominate) for i in table.game.inputs)


def test_a_repeated_number_said_surely_is_taken() -> None:
    unsure = {"text": "выставляю игрока номер семь", "result": [{"word": "семь", "conf": 0.3}]}
    table = run(Table(), [(2.0, "heard", ("выставляю игрока номер семь", unsure)),
                          (6.0, "heard", "выставляю игрока номер шесть")], until=12)
    assert table.said("repeat_number") == 1
    assert Nominate(1, 6) in table.game.inputs


def test_alternatives_that_name_another_seat_make_the_number_unsure() -> None:
    raw = {"alternatives": [{"text": "выставляю игрока номер семь"}, {"text": "выставляю игрока номер шесть"}]}
    heard = Heard("выставляю игрока номер семь", 0.0, "mic", raw)
    assert doubtful(heard, heard.text, HearingSettings())
    same = Heard("выставляю игрока номер семь", 0.0, "mic",
                 {"alternatives": [{"text": "выставляю игрока номер семь"}, {"text": "ставлю игрока номер семь"}]})
    assert not doubtful(same, same.text, HearingSettings())


def test_asked_once_a_speech_then_the_judge_or_the_buttons_decide() -> None:
    unsure = {"text": "выставляю игрока номер семь", "result": [{"word": "семь", "conf": 0.3}]}
    table = run(Table(), [(2.0, "heard", ("выставляю игрока номер семь", unsure)),
                          (6.0, "heard", ("выставляю игрока номер семь", unsure))], until=12)
    assert table.said("repeat_number") == 1
    assert not any(isinstance(i, Nominate) for i in table.game.inputs)


def test_the_speaker_vetoes_a_wrong_echo_within_the_window() -> None:
    table = run(Table(), [(2.0, "heard", "выставляю игрока номер семь"), (4.5, "press", (1, 0.1)),
                          (7.0, "heard", "выставляю игрока номер шесть")], until=12)
    assert table.said("nomination_accepted") == 2
    assert table.said("vetoed") == 1
    nominations = [i for i in table.game.inputs if isinstance(i, Nominate)]
    assert nominations == [Nominate(1, 6)]
    assert table.game.request == table.game.request  # the speech goes on
    assert not any(isinstance(i, EndSpeech) for i in table.game.inputs)


def test_a_press_after_the_veto_window_ends_the_speech_and_the_nomination_stands() -> None:
    table = run(Table(), [(2.0, "heard", "выставляю игрока номер семь"), (9.0, "press", (1, 0.1))], until=14)
    assert table.said("vetoed") == 0
    assert Nominate(1, 7) in table.game.inputs
    assert EndSpeech(1) in table.game.inputs


def test_a_phrase_cut_in_two_is_joined() -> None:
    table = run(Table(), [(2.0, "heard", "выставляю игрока"), (2.5, "heard", "номер шесть")], until=8)
    assert Nominate(1, 6) in table.game.inputs


def test_halves_too_far_apart_are_not_joined() -> None:
    table = run(Table(), [(2.0, "heard", "выставляю игрока"), (9.0, "heard", "номер шесть")], until=14)
    assert not any(isinstance(i, Nominate) for i in table.game.inputs)


def test_a_false_thank_you_is_taken_back_by_holding_the_button_with_the_time_left() -> None:
    table = run(Table(), [(10.0, "heard", "спасибо"), (11.0, "press", (1, 1.0)),
                          (16.0, "heard", "выставляю игрока номер шесть спасибо")], until=30)
    assert table.said("go_on") == 1
    assert Nominate(1, 6) in table.game.inputs   # he had the floor again
    ends = [i for i in table.game.inputs if isinstance(i, EndSpeech)]
    assert ends[0] == EndSpeech(1) and table.game.inputs.index(Nominate(1, 6)) < table.game.inputs.index(ends[0])
    go_on = next(t for t, key, _ in table.lines if key == "go_on")
    ten = [t for t, key, _ in table.lines if key == "ten_seconds" and t > go_on]
    # 50 s of his 60 were left: the warning would come 40 s after the floor came back (it did not: he ended)
    assert not ten


def test_a_tap_after_a_thank_you_does_not_take_the_speech_back() -> None:
    table = run(Table(), [(10.0, "heard", "спасибо"), (11.0, "press", (1, 0.1))], until=16)
    assert table.said("go_on") == 0
    assert EndSpeech(1) in table.game.inputs


def test_words_heard_before_the_floor_was_given_are_nobodys() -> None:
    joiner = Joiner(2.5)
    assert joiner.text_of(Heard("выставляю", 0.0, "mic")) is None
    assert joiner.text_of(Heard("номер пять", 1.0, "mic")) == "выставляю номер пять"


def test_without_doubt_the_host_takes_what_it_heard() -> None:
    unsure = {"text": "выставляю игрока номер семь", "result": [{"word": "семь", "conf": 0.3}]}
    table = run(Table(HearingSettings(ask_again=False)), [(2.0, "heard", ("выставляю игрока номер семь", unsure))],
                until=8)
    assert Nominate(1, 7) in table.game.inputs


@pytest.mark.parametrize("wer", [0.05, 0.2])
def test_the_error_model_mishears_at_about_its_rate_and_is_seeded(wer: float) -> None:
    said = "выставляю игрока номер шесть спасибо"
    first = Mishearing(ErrorRates.at(wer), 7, 10)
    heard = [[m.text for m in first.hear(said)] for _ in range(400)]
    again = Mishearing(ErrorRates.at(wer), 7, 10)
    assert heard == [[m.text for m in again.hear(said)] for _ in range(400)]
    assert abs(first.words_wrong / first.words_heard - wer) < wer * 0.5
    assert any("семь" in " ".join(h) or "оставляю" in " ".join(h) for h in heard)  # close words, not noise
