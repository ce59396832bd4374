"""Push-to-talk for the judge (voicehost.language.judge_speech, voicehost.host.push_to_talk):
his small grammar read from recognised text with its slips, each command echoed in his
earpiece and carried out after the confirmation time unless he says «отмена» or taps the key."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from voicehost.host.keypad import KeypadCommands
from voicehost.host.push_to_talk import CONFIRM_S, TAIL_S, JudgeEars, heard_by
from voicehost.host.vclock import run_virtual
from voicehost.language.judge_speech import CANCEL, judge_command, judge_grammar


@pytest.mark.parametrize(("heard", "line"), [
    ("пауза", "pause"), ("пауз", "pause"), ("ну пауза", "pause"),
    ("продолжить", "resume"), ("продолжит", "resume"), ("продолжаем", "resume"),
    ("плюс тридцать", "time +30"), ("плюс тридцать секунд", "time +30"), ("плюс тридцать пять", "time +35"),
    ("фол игроку пять", "foul 5"), ("фол игроку номер пять", "foul 5"), ("фол пятому", "foul 5"),
    ("фол игроку десять", "foul 10"),
    ("статус", "status"), ("статуса", "status"),
    ("отмена", CANCEL), ("отменить", CANCEL),
    # none of his commands: said nothing to act on
    ("фол игроку одиннадцать", None), ("фол игроку", None), ("плюс", None), ("плюс сто", None),
    ("выставляю пятого", None), ("", None), ("спасибо", None),
])
def test_the_judges_words_with_the_recognisers_slips(heard: str, line: str | None) -> None:
    assert judge_command(heard, 10) == line


def test_every_phrase_of_the_grammar_is_a_command() -> None:
    phrases = judge_grammar(range(1, 11))
    assert len(phrases) == 15
    assert all(judge_command(phrase, 10) is not None for phrase in phrases)


class _Channel:
    def __init__(self) -> None:
        self.told: list[str] = []

    def tell(self, said: Any) -> None:
        self.told += [key for key, _ in said]

    def status(self) -> None:
        self.told.append("status")


def _session(steps: Any) -> tuple[list[str], list[str]]:
    typed: list[str] = []
    channel = _Channel()

    async def run() -> None:
        loop = asyncio.get_running_loop()
        keys = KeypadCommands(typed.append, channel)  # type: ignore[arg-type]
        ears = JudgeEars(keys, 10, loop.time)
        await steps(ears)

    run_virtual(run())
    return typed, channel.told


def test_a_command_is_echoed_then_carried_out() -> None:
    async def steps(ears: JudgeEars) -> None:
        ears.talk(True)
        ears.heard("фол игроку номер пять")
        ears.talk(False)
        await asyncio.sleep(CONFIRM_S / 2)
        assert ears.pending is not None
        await asyncio.sleep(CONFIRM_S)
        ears.heard("статус")
        await asyncio.sleep(CONFIRM_S + 0.1)
    typed, told = _session(steps)
    assert typed == ["foul 5"]
    assert told == ["ptt_foul", "ptt_status", "status"]


def test_otmena_or_a_tap_takes_the_command_back() -> None:
    async def steps(ears: JudgeEars) -> None:
        ears.heard("плюс тридцать")
        await asyncio.sleep(1.0)
        ears.heard("отмена")
        ears.heard("пауза")
        await asyncio.sleep(1.0)
        ears.talk(True)          # a tap of the talk key
        ears.talk(False)
        ears.heard("шум какой-то")
        await asyncio.sleep(CONFIRM_S * 2)
    typed, told = _session(steps)
    assert typed == []
    assert told == ["ptt_time", "ptt_cancelled", "ptt_pause", "ptt_cancelled", "ptt_unknown"]


def test_only_what_is_said_while_the_key_is_held_is_the_judges() -> None:
    async def steps(ears: JudgeEars) -> None:
        assert not ears.listening(0.0)
        ears.talk(True)
        start = asyncio.get_running_loop().time()
        await asyncio.sleep(2.0)
        assert ears.listening(start + 1.0) and not ears.listening(start - 1.0)
        ears.talk(False)
        end = asyncio.get_running_loop().time()
        assert ears.listening(end + TAIL_S / 2) and not ears.listening(end + TAIL_S * 2)
        assert not ears.listening(start - 1.0)   # what a player said before the key went down stays his
    _session(steps)


def test_the_talk_key_routes_the_real_decoders_words_to_the_judge() -> None:
    """The pipeline through vosk's real decoder (the Korean model: no Russian one can be fetched
    on CI; tests/test_listener.py): espeak-ng's Korean, streamed as the microphone's blocks,
    comes out of the recogniser with its end time; what ended while the talk key was held (or
    :data:`TAIL_S` after) is the judge's — not a command of his, so the earpiece says «Не понял.»
    and nothing is typed — and the same words after the key are the players' (the ports' ears)."""
    from test_listener import KO_GRAMMAR, THANKS_KO, blocks, ko_model_path, spoken

    from audio.listener import ModelUnavailable, SpeechModel
    try:
        model = SpeechModel(ko_model_path())
    except ModelUnavailable as err:
        pytest.skip(f"vosk cannot load the Korean model here: {err}")
    pcm = spoken(THANKS_KO)
    now = [0.0]
    typed: list[str] = []
    channel = _Channel()
    players: list[Any] = []

    async def run() -> None:
        ears = JudgeEars(KeypadCommands(typed.append, channel), 10, lambda: now[0])  # type: ignore[arg-type]
        hear = heard_by(ears, players.append)
        recognizer = model.recognizer(KO_GRAMMAR)
        now[0] = 10.0
        ears.talk(True)                            # the key goes down as he starts to speak
        for chunk, t in blocks(pcm, t0=10.0):
            if (heard := recognizer.accept(chunk, t)) is not None:
                now[0] = heard.t_end - 0.3         # he let go just before the decoder's endpoint
                ears.talk(False)
                hear(heard)
        for chunk, t in blocks(pcm, t0=20.0):      # the same words, well after the key
            if (heard := recognizer.accept(chunk, t)) is not None:
                hear(heard)
        await asyncio.sleep(CONFIRM_S + 0.1)

    run_virtual(run())
    assert channel.told == ["ptt_unknown"] and typed == []
    assert [h.text for h in players] == [THANKS_KO] and players[0].t_end > 20.0
