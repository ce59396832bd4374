"""The judge's words at the terminal (issue 42, "The judge at the terminal" and item 5): every
answer a sentence about its own command, a foul taken back at any time, corrections undone
without replaying the vote, an undone annulment that gives the speech its own time back, a late
withdrawal, the judge's «end» journaled as his, no internal words, Russian card names, and
English refusals under ``--lang en``."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Sequence
from pathlib import Path

import pytest
from test_console import console_at, day_one
from test_game import voted_game
from test_judge_controls import journaled_day_one

from voicehost.host import ConsoleAnswered, Director, EdgeLog, Notice, Ports, run_virtual
from voicehost.host.journal import load_journal
from voicehost.i18n import set_language
from voicehost.rules import Game
from voicehost.rules.inputs import EndSpeech, Nominate

SPOKEN = list[tuple[float, str]]


def hosted(game: Game, steps: Sequence[tuple[float, str]], until: float, journal_path: Path | None = None,
           after_game: bool = False) -> tuple[SPOKEN, list[str], list[ConsoleAnswered], Director]:
    """The whole host over ``game`` on the virtual clock, each step's line typed at its time;
    ``after_game``: once the run stops (a verdict), the after-game window and, when the verdict is
    undone there, the game again (as ``voicehost run`` does)."""
    said: SPOKEN = []
    printed: list[str] = []
    answers: list[ConsoleAnswered] = []
    made: list[Director] = []
    journal = None
    if journal_path is not None:
        game, journal = journaled_day_one(journal_path)

    async def session() -> None:
        loop = asyncio.get_running_loop()
        start = loop.time()

        async def speak(text: str) -> float:
            said.append((loop.time() - start, text))
            return loop.time()
        ports = Ports(speak=speak, night=lambda on: None, led=lambda s, p: None, edges=EdgeLog(), clock=loop.time,
                      poll_s=None)
        director = Director(game, ports, journal, log=printed.append)
        made.append(director)

        def heard(notice: Notice) -> None:
            if isinstance(notice, ConsoleAnswered):
                answers.append(notice)
        director.watch(heard)

        async def typing() -> None:
            for at, line in steps:
                await asyncio.sleep(max(0.0, at - (loop.time() - start)))
                ports.type(line)

        async def host() -> None:
            await director.run()
            while after_game and await director.after_game(None):
                await director.run()
        typist = asyncio.create_task(typing())
        hosting = asyncio.create_task(host())
        await asyncio.sleep(until)
        for task in (typist, hosting):
            task.cancel()
        await asyncio.gather(typist, hosting, return_exceptions=True)

    run_virtual(session())
    return said, printed, answers, made[0]


def answer_to(answers: list[ConsoleAnswered], line: str) -> str:
    found = [a.answer.text for a in answers if a.answer.line == line and a.answer.outcome == "done"]
    assert found, [(a.answer.line, a.answer.outcome) for a in answers]
    return found[-1]


def test_every_answer_is_a_sentence_about_its_own_command() -> None:
    """«time +30: Готово. …», «end: Готово. Игрок номер четыре, замечание.» (the foul's line): now
    each answer says what its own command did."""
    said, printed, answers, _ = hosted(day_one(), [(5, "foul 4"), (6, "time +30"), (7, "end"), (9, "undo")], 12)
    assert answer_to(answers, "foul 4") == "Игроку 4 — замечание (всего: 1)."
    assert re.fullmatch(r"Время игрока 1: \+30 с, осталось 8\d с\.", answer_to(answers, "time +30"))
    assert answer_to(answers, "end") == "Речь окончена по команде судьи."
    assert answer_to(answers, "undo") == "Отменён конец речи игрока 1."
    for answer in answers:
        assert "Готово" not in answer.answer.text and not re.search(r"\b(time|end|foul|undo)\b", answer.answer.text)
    assert "пульт: «end»: Речь окончена по команде судьи." in printed
    _, _, printed = console_at(day_one(), ["end"])   # read between two steps, no speech running
    assert printed == ["пульт: «end»: Сейчас никто не говорит: команде end заканчивать нечего."]


def test_a_note_is_acknowledged_and_undoing_a_note_a_time_change_or_a_release_says_what_it_took_back() -> None:
    steps = [(3, "note 3 перебивал"), (4, "undo"), (5, "time +15"), (6, "undo"), (7, "hold"), (8, "release"),
             (9, "undo")]
    _, printed, answers, _ = hosted(day_one(), steps, 12)
    texts = [a.answer.text for a in answers if a.answer.line == "undo"]
    assert answer_to(answers, "note 3 перебивал") == "Заметка об игроке 3 записана: перебивал"
    assert texts == ["Отменена заметка: перебивал", "Отменено изменение времени игрока 1 (+15 с).",
                     "Отменён запуск времени игрока 1: время снова стоит."]
    assert sum("«undo»: Отмен" in line for line in printed) == 3


def test_a_foul_is_taken_back_at_any_time_journaled_and_the_count_follows(tmp_path: Path) -> None:
    """A foul given in seat 1's speech, taken back during seat 2's: today only the newest input
    could be undone. The splice is journaled, and a resumed journal has the count without it."""
    path = tmp_path / "g.jsonl"
    _, printed, answers, director = hosted(day_one(), [(3, "foul 3"), (4, "foul 3"), (5, "end"), (8, "foul 6"),
                                                       (9, "unfoul 3")], 12, path)
    assert director.game.fouls[3] == 1 and director.game.fouls[6] == 1
    assert answer_to(answers, "unfoul 3") == "Замечание игроку 3 снято (осталось: 1)."
    rebuilt = day_one()
    rebuilt.splice(0, len(rebuilt.inputs), [entry.input for entry in load_journal(path).entries])
    assert (rebuilt.fouls[3], rebuilt.fouls[6]) == (1, 1)   # the journal rebuilds the game without it


def test_undo_right_after_a_vote_correction_takes_the_correction_back_without_a_new_vote() -> None:
    """«vote 1 9» then «undo»: the vote was taken again aloud («Кто за то, чтобы…»), and seat 5
    got a fresh last word. Now the correction is taken back: the ballot as it was, 5 out again."""
    game = voted_game()
    state = game.state()
    director, said, printed = console_at(game, ["vote 1 9", "undo"])
    assert not any(line.startswith("Кто за") for line in said), said
    assert game.state() == state and not game.is_alive(5)
    assert any("«undo»: Исправление голоса игрока 1 отменено" in line for line in printed), printed
    assert not any(line.startswith("console: Бюллетень") or "«vote 1 9»: Готово" in line for line in printed)


def test_undoing_an_annulment_gives_the_speech_the_time_it_had_and_the_table_hears_the_game_goes_on(
        tmp_path: Path) -> None:
    """Seat 1's speech: 15 s more at 20 s (55 s left), annulled at 40 s (35 s left), undone: his
    speech goes on with 35 s («Спасибо» 35 s after), and «Продолжаем.» is said. Before, the
    undone verdict restarted the speech from an older record's time."""
    said, printed, answers, _ = hosted(day_one(), [(20, "time +15"), (40, "annul свет погас"), (42, "undo")], 120,
                                       tmp_path / "g.jsonl", after_game=True)
    goes_on = next(t for t, line in said if line == "Продолжаем.")
    thanks = next(t for t, line in said if line == "Спасибо." and t > goes_on)
    assert thanks - goes_on == pytest.approx(35, abs=1.0)
    assert answer_to(answers, "undo") == "Отменено решение судьи: игра продолжается."


def test_withdraw_after_the_speech_takes_the_standing_nomination_back() -> None:
    """«withdraw 1 5» after seat 1's speech was refused «Игрок 1 не выставлял игрока 5»,
    although the nomination stood."""
    game = day_one()
    game.push(Nominate(1, 5))
    game.push(EndSpeech(1))
    director, _, printed = console_at(game, ["withdraw 1 5"])
    assert director.console.refused == []
    assert Nominate(1, 5) not in game.inputs and not getattr(game, "nominations", [])
    assert "пульт: «withdraw 1 5»: Игрок 1 снял кандидатуру игрока 5." in printed


def test_the_judges_end_is_journaled_as_the_judges(tmp_path: Path) -> None:
    path = tmp_path / "g.jsonl"
    hosted(day_one(), [(5, "end"), (70, "end")], 72, path)
    ends = [entry.source for entry in load_journal(path).entries if isinstance(entry.input, EndSpeech)]
    assert ends == ["console", "host", "console"]   # seat 2's speech ended by its time


def test_back_and_undo_print_no_internal_words() -> None:
    _, printed, _, _ = hosted(day_one(), [(3, "foul 3"), (4, "undo"), (5, "end"), (6, "back")], 8)
    shown = "\n".join(printed)
    assert "end_speech" not in shown and "отмена foul" not in shown and "back:" not in shown, shown
    assert "пульт: «back»: Слово возвращено игроку 1" in shown


def test_points_finer_than_hundredths_are_explained() -> None:
    director, _, printed = console_at(day_one(), ["penalty 3 0.333 опоздал"])
    assert printed == ["пульт: «penalty 3 0.333 опоздал» отклонено: Баллы 0.333: судья даёт баллы не точнее "
                       "сотых (0,25 или 0,5). Команда пишется так: penalty N P reason."]


def test_russian_card_names_are_taken_wherever_cards_are_typed() -> None:
    from voicehost.host import typed_deal
    from voicehost.rules import Role
    game = day_one()
    deal = typed_deal("3=Дон,5=мафия,9=мафия,7=шериф", game, "roles")
    assert [deal.roles[s - 1] for s in (3, 5, 9, 7)] == [Role.DON, Role.MAFIA, Role.MAFIA, Role.SHERIFF]
    director, _, printed = console_at(game, ["roles 2=дон,5=мафия,9=мафия,7=шериф"])
    assert director.console.refused == [] and game.inputs[0].roles[1] is Role.DON   # type: ignore[attr-defined]


def test_console_refusals_under_lang_en_are_all_english() -> None:
    """``console: «foul 99» refused: Места 99 нет…`` under ``--lang en``."""
    set_language("en")
    try:
        _, _, printed = console_at(day_one(), ["foul 99", "foul 3"])
    finally:
        set_language(None)
    assert printed[0] == "console: «foul 99» refused: there is no seat 99 at this table (seats 1–10); usage: foul N"
    assert not re.search("[а-яА-ЯёЁ]", printed[0])


def test_status_and_repeat_are_answered_during_a_pause() -> None:
    game = day_one()
    director, said, _ = console_at(game, ["pause", "status", "   ", "repeat", "resume"])
    assert said == ["Пауза.", "Кандидатур пока нет.", "Кандидатур пока нет.", "Продолжаем."]


def test_undo_after_a_vote_correction_while_the_host_plays_does_not_take_the_vote_again() -> None:
    """The whole host on: «vote 1 9» during seat 5's last word, then «undo». Before, the undo took
    the vote's close back and the host asked «Кто за то, чтобы…» again."""
    game = voted_game()
    said, _, answers, _ = hosted(game, [(2, "vote 1 9"), (4, "undo")], 8)
    assert not any(line.startswith("Кто за") for _, line in said), said
    assert not game.is_alive(5) and answer_to(answers, "undo").startswith("Исправление голоса игрока 1 отменено")
