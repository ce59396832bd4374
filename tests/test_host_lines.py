"""Every line the host can say exists for every ruleset and renders in every placeholder form."""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from typing import get_args

import pytest

from voicehost.config import load_ruleset, ruleset_names
from voicehost.language.host_lines import HOST_KEYS, TURN_KEYS, event_lines, request_lines, spoken
from voicehost.language.phrasebook import load_phrasebook
from voicehost.rules import new_game
from voicehost.rules.events import PRIVATE_EVENTS
from voicehost.rules.requests import Turn
from voicehost.rules.roles import Role
from voicehost.simulation.random_games import random_game

SAMPLES = {"seat": range(1, 21), "n": range(0, 26), "name": ["Анна", "Пётр"], "target": ["Вера"],
           "list": [(1,), (2, 5), (3, 7, 10)], "names": [["Анна"], ["Анна", "Борис", "Вера"]],
           "role": list(Role), "seconds": [30, 60, 90, 100, 150, 300]}


def test_every_turn_has_the_line_that_gives_the_floor() -> None:
    """Each kind of turn (rules.requests.Turn) has its line; the last word's is the ruleset's."""
    assert set(TURN_KEYS) | {"last_word"} == set(get_args(Turn))
    assert set(TURN_KEYS.values()) <= HOST_KEYS


@pytest.mark.parametrize("ruleset", ruleset_names())
def test_every_host_line_exists_and_renders_in_every_form(ruleset: str) -> None:
    book = load_phrasebook()
    for key in sorted(HOST_KEYS):
        assert book.has(key, ruleset), f"host.{key} is missing for {ruleset}"
        template = book.lines[book.host_key(key, ruleset)]
        fields = {f.split(":")[0] for f in re.findall(r"{([^}]*)}", template)}
        assert fields <= set(SAMPLES), f"{key}: unknown placeholder in {template!r}"
        for field in fields or {None}:
            for sample in SAMPLES.get(field, [None]) if field else [None]:
                values = {f: SAMPLES[f][0] for f in fields}
                if field:
                    values[field] = sample
                text = spoken([(key, values)], book, ruleset)[0]
                assert text.strip() and "{" not in text and "}" not in text, (key, values, text)


def test_number_agreement_in_the_host_lines() -> None:
    book = load_phrasebook()
    say: Callable[..., str] = lambda key, **v: book.say(key, "sport", **v)  # noqa: E731
    assert say("nomination_accepted", seat=7) == "Кандидатура номер семь принята."
    assert [say("vote_count", seat=2, n=n) for n in (1, 2, 5, 11, 21)] == [
        "Игрок номер два — один голос.", "Игрок номер два — два голоса.", "Игрок номер два — пять голосов.",
        "Игрок номер два — одиннадцать голосов.", "Игрок номер два — двадцать один голос."]
    assert say("vote_count_none", seat=3, n=0) == "Игрок номер три — голосов нет."
    assert say("fouls_status", seat=3, n=2) == "Игрок номер три — два замечания."
    assert [say("status_time_left", n=n) for n in (1, 2, 5, 21, 11)] == [
        "Осталась одна секунда.", "Осталось две секунды.", "Осталось пять секунд.", "Осталась двадцать одна секунда.",
        "Осталось одиннадцать секунд."]
    assert [say("discussion", seconds=s) for s in (60, 90, 150, 100)] == [
        "Город обсуждает. У вас одна минута.", "Город обсуждает. У вас полторы минуты.",
        "Город обсуждает. У вас две с половиной минуты.", "Город обсуждает. У вас одна минута сорок секунд."]
    assert say("foul", seat=4, n=3) == "Игрок номер четыре, замечание. Это третье замечание."
    assert book.say("sheriff_searches", "classic") == "Просыпается комиссар и ищет мафию."
    assert book.say("sheriff_searches", "sport") == "Просыпается Шериф и ищет мафию."


@pytest.mark.parametrize("ruleset", ruleset_names())
def test_games_speak_only_known_lines_and_never_a_private_event(ruleset: str) -> None:
    book = load_phrasebook()
    r = load_ruleset(ruleset)
    for seed in range(30):
        game = random_game(r, r.resolve({}), random.Random(seed))
        for event in game.events:
            said = event_lines(event, game)
            if isinstance(event, PRIVATE_EVENTS):
                assert said == []
            assert all(key in HOST_KEYS for key, _ in said)
            spoken(said, book, ruleset)
        replay = new_game(r, game.options, game.seats)
        for item in game.inputs:
            replay.push(item)
            said = request_lines(replay.request, replay)
            assert all(key in HOST_KEYS for key, _ in said)
            spoken(said, book, ruleset)


def test_roster_names_are_declined_and_unknown_ones_stay_as_written() -> None:
    book = load_phrasebook()
    killed: Callable[[str], str] = lambda name: book.say("morning_killed", "canonical", name=name)  # noqa: E731
    assert killed("Анна") == "В городе наступает день! Все просыпаются, кроме Анны."
    assert killed("Анна Петрова") == "В городе наступает день! Все просыпаются, кроме Анны Петровой."
    assert killed("Барон") == "В городе наступает день! Все просыпаются, кроме Барона."
    assert killed("John") == "В городе наступает день! Все просыпаются, кроме John."
    assert killed("Кукумбер") == "В городе наступает день! Все просыпаются, кроме Кукумбер."
    assert book.say("sentence", "canonical", name="Жанна") == "Высший суд города приговорил к смерти Жанну."


@pytest.mark.parametrize(("nickname", "genitive", "accusative"), [
    ("Туман", "Тумана", "Тумана"), ("Пуля", "Пули", "Пулю"), ("Гром", "Грома", "Грома"),
    ("Молния", "Молнии", "Молнию"), ("Ромашка", "Ромашки", "Ромашку"), ("Кактус", "Кактуса", "Кактуса"),
    ("Тень", "Тени", "Тень"), ("Кеша", "Кеши", "Кешу"), ("Саша", "Саши", "Сашу")])
def test_a_club_nickname_is_declined_as_a_person(nickname: str, genitive: str, accusative: str) -> None:
    """An inanimate noun used as a nickname takes the animate accusative («приговорил Тумана»)."""
    book = load_phrasebook()
    assert book.say("morning_killed", "canonical", name=nickname).endswith(f"кроме {genitive}.")
    assert book.say("sentence", "canonical", name=nickname).endswith(f"к смерти {accusative}.")


def test_names_in_a_sentence_and_in_a_list() -> None:
    book = load_phrasebook()
    assert book.say("sentence", "canonical", name="Жанна") == "Высший суд города приговорил к смерти Жанну."
    assert book.say("runoff", "canonical", names=["Анна", "Егор"]) == "Поровну голосов. Второй тур: Анна и Егор."
