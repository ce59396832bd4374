"""The phrase parser's test table (issue: at least 100 utterances).

Expected intents are written compactly: ``N7`` nominate seat 7, ``W3`` withdraw seat 3,
``E`` end of speech, in spoken order; an empty string means "nothing".
"""

from __future__ import annotations

import pytest

from voicehost.language.intents import EndIntent, NominateIntent, WithdrawIntent
from voicehost.language.numbers import cardinal_word, ordinal_word
from voicehost.language.parser import normalize, parse


def compact(text: str) -> str:
    out = []
    for intent in parse(text):
        if isinstance(intent, NominateIntent):
            out.append(f"N{intent.seat}")
        elif isinstance(intent, WithdrawIntent):
            out.append(f"W{intent.seat}")
        else:
            assert isinstance(intent, EndIntent)
            out.append("E")
    return " ".join(out)


TABLE = [
    # the seeds' own wordings
    ("Я выставляю игрока номер семь", "N7"),
    ("выставляю игрока номер семь", "N7"),
    ("я выставляю на голосование игрока номер пять", "N5"),
    ("я выставляю игрока номер пять на голосование", "N5"),
    ("я выставляю кандидатуру игрока номер два", "N2"),
    ("я выставляю кандидатуру игрока под номером восемь", "N8"),
    ("выставляю на голосование кандидатуру игрока под номером десять", "N10"),
    ("на голосование выставляю игрока номер четыре", "N4"),
    ("выставляю номер шесть", "N6"),
    ("выставляю под номером три", "N3"),
    ("отзываю игрока номер три", "W3"),
    ("я отзываю кандидатуру игрока номер три", "W3"),
    ("отзываю игрока номер три с голосования", "W3"),
    ("отзываю кандидатуру номер девять", "W9"),
    # ordinals in their case forms
    ("выставляю седьмого", "N7"),
    ("выставляю седьмого игрока", "N7"),
    ("выставляю десятого игрока", "N10"),
    ("выставляю четвёртого", "N4"),
    ("выставляю четвертого", "N4"),
    ("выставляю первого", "N1"),
    ("выставляю второго", "N2"),
    ("выставляю третьего", "N3"),
    ("выставляю пятого", "N5"),
    ("выставляю шестого", "N6"),
    ("выставляю восьмого", "N8"),
    ("выставляю девятого", "N9"),
    ("выставляю одиннадцатого", "N11"),
    ("выставляю двенадцатого", "N12"),
    ("выставляю игрока номер двенадцать", "N12"),
    ("выставляю игрока номер одиннадцать", "N11"),
    ("выставляю восемнадцатого", "N18"),
    ("выставляю двадцать первого", "N21"),
    ("выставляю игрока номер двадцать один", "N21"),
    ("выставляю игрока номер двадцать", "N20"),
    ("отзываю третьего", "W3"),
    ("отзываю седьмого игрока", "W7"),
    # cardinals 1..10
    ("выставляю игрока номер один", "N1"),
    ("выставляю игрока номер два", "N2"),
    ("выставляю игрока номер три", "N3"),
    ("выставляю игрока номер четыре", "N4"),
    ("выставляю игрока номер пять", "N5"),
    ("выставляю игрока номер шесть", "N6"),
    ("выставляю игрока номер восемь", "N8"),
    ("выставляю игрока номер девять", "N9"),
    ("выставляю игрока номер десять", "N10"),
    # digits and №
    ("выставляю игрока №5", "N5"),
    ("Выставляю игрока № 5.", "N5"),
    ("выставляю игрока номер 7", "N7"),
    ("выставляю 5-го", "N5"),
    ("выставляю 10-го игрока", "N10"),
    ("отзываю №3", "W3"),
    ("выставляю 12", "N12"),
    # capitals, punctuation, ё
    ("ВЫСТАВЛЯЮ ИГРОКА НОМЕР СЕМЬ!", "N7"),
    ("Я, выставляю... игрока номер семь?", "N7"),
    ("Спасибо, всё.", "E"),
    ("Спасибо. Всё!", "E"),
    ("Выставляю Четвёртого, спасибо!", "N4 E"),
    ("«Выставляю игрока номер два»", "N2"),
    # several intents in one utterance, in order
    ("выставляю игрока номер три отзываю игрока номер три выставляю седьмого", "N3 W3 N7"),
    ("выставляю пятого отзываю пятого", "N5 W5"),
    ("отзываю второго выставляю восьмого спасибо", "W2 N8 E"),
    ("я выставляю игрока номер пять спасибо", "N5 E"),
    ("выставляю пятого и выставляю шестого", "N5 N6"),
    ("выставляю игрока номер один выставляю игрока номер два выставляю игрока номер три", "N1 N2 N3"),
    # only the present tense nominates
    ("я бы выставил пятого", ""),
    ("выставлю пятого", ""),
    ("я выставлю игрока номер пять", ""),
    ("выставлял игрока номер пять", ""),
    ("вчера я выставлял седьмого", ""),
    ("не выставляю пятого", ""),
    ("я не выставляю игрока номер пять", ""),
    ("я никого не выставляю", ""),
    ("буду выставлять седьмого", ""),
    ("выставил бы четвертого", ""),
    ("выставим пятого", ""),
    ("давайте выставим игрока номер пять", ""),
    ("отозвал игрока номер три", ""),
    ("не отзываю третьего", ""),
    ("отзову третьего", ""),
    # no number right after the verb: not a nomination
    ("пять", ""),
    ("седьмой", ""),
    ("номер семь", ""),
    ("игрок номер семь мафия", ""),
    ("выставляю его", ""),
    ("выставляю этого игрока", ""),
    ("я выставляю", ""),
    ("выставляю", ""),
    ("отзываю", ""),
    ("отзываю кандидатуру", ""),
    ("выставляю себя", ""),
    ("семь восемь девять", ""),
    ("я думаю что пятый мафия", ""),
    ("выставляю мафию", ""),
    # «спасибо» ends a speech only at the end
    ("спасибо", "E"),
    ("спасибо всё", "E"),
    ("спасибо все", "E"),
    ("всё спасибо", "E"),
    ("пас", "E"),
    ("я пас", "E"),
    ("пас спасибо", "E"),
    ("спасибо пас", "E"),
    ("спасибо за игру", ""),
    ("спасибо седьмому за проверку я мирный", ""),
    ("спасибо выставляю пятого", "N5"),
    ("всё", "E"),
    ("у меня всё", "E"),
    ("всё, спасибо", "E"),
    ("выставляю пятого всё", "N5 E"),
    ("все тут мирные", ""),
    ("все покидают", ""),
    ("я думаю все голосуем за пятого", ""),
    ("", ""),
    ("   ", ""),
    ("...", ""),
    ("пасую", ""),
    ("выставляю пятого спасибо всё", "N5 E"),
    ("выставляю седьмого пас", "N7 E"),
    ("пас выставляю седьмого", "N7"),
]


@pytest.mark.parametrize(("text", "expected"), TABLE)
def test_parser_table(text: str, expected: str) -> None:
    assert compact(text) == expected


def test_parser_table_has_at_least_100_utterances() -> None:
    assert len(TABLE) >= 100


@pytest.mark.parametrize("seat", range(1, 31))
def test_parser_reads_every_cardinal_and_ordinal_up_to_thirty(seat: int) -> None:
    assert compact(f"выставляю игрока номер {cardinal_word(seat)}") == f"N{seat}"
    assert compact(f"выставляю {ordinal_word(seat)}") == f"N{seat}"
    assert compact(f"отзываю игрока {ordinal_word(seat)}") == f"W{seat}"


def test_normalize_folds_case_yo_numero_and_punctuation() -> None:
    assert normalize("Четвёртого, №5; 5-го — всё!") == ["четвертого", "номер", "5", "5-го", "все"]


def test_forbidden_words_are_reported_where_they_are_said() -> None:
    from voicehost.language.intents import ForbiddenIntent
    from voicehost.language.parser import forbidden_words
    words = forbidden_words(["Честно", "клянусь"])
    intents = parse("честно говорю, выставляю пятого, клянусь. Спасибо", words)
    assert [i.to_dict() for i in intents] == [{"type": "forbidden", "word": "честно"}, {"type": "nominate", "seat": 5},
                                              {"type": "forbidden", "word": "клянусь"}, {"type": "end"}]
    assert not any(isinstance(i, ForbiddenIntent) for i in parse("честно говорю"))  # only when the club lists them


@pytest.mark.parametrize("text", ["всё", "у меня всё", "всё, спасибо", "Выставляю игрока номер пять. Всё."])
def test_vsyo_ends_a_speech(text: str) -> None:
    """README: «спасибо», «всё», «пас» end a speech — «всё» too, as the last word."""
    assert compact(text).endswith("E")


@pytest.mark.parametrize("text", ["все тут мирные", "все покидают", "думаю, все против пятого"])
def test_vse_inside_a_sentence_ends_nothing(text: str) -> None:
    assert "E" not in compact(text)
