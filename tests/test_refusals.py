"""Refusals are values, and each kind's sentence is defined once: its English template beside the
kind (marked with ``N_``), its Russian in the gettext catalog with the same placeholders (issue 40,
item 2). The game's, the console's, the web's and the idle table's kinds are all walked."""

from __future__ import annotations

import dataclasses
import re
import string
import types
import typing
from pathlib import Path
from typing import Any, get_args, get_origin, get_type_hints

import pytest

import voicehost.host.refusals  # noqa: F401  (the console's kinds: imported so they are walked)
import voicehost.service.refusals  # noqa: F401  (the idle table's)
import voicehost.web.commands  # noqa: F401  (the web's)
import voicehost.web.refusals  # noqa: F401  (the web door's and the setup page's)
from voicehost.cli.main import main
from voicehost.config import load_ruleset
from voicehost.host.refusals import NoCommand, NominationNotTaken, NotNow
from voicehost.i18n import in_russian, set_language
from voicehost.language.phrasebook import load_phrasebook, phrasebook_from_mapping
from voicehost.language.refusals import refusal_text
from voicehost.rules import IllegalInput, InputError, Refusal, Role, new_game
from voicehost.rules.errors import CardsNotDealt, NotATarget, NotTheRolesAction, SeatNotAtTable
from voicehost.rules.inputs import Dawn
from voicehost.web.refusals import LoneSurrogate

CYRILLIC = re.compile("[А-Яа-яЁё]")


def kinds(base: type[Refusal] = Refusal) -> list[type[Refusal]]:
    found = []
    for kind in base.__subclasses__():
        found += [kind, *kinds(kind)]
    return found


def samples(kind: type[Refusal]) -> list[Refusal]:
    """The kind with sample values: one per value of a closed set (a Literal, the roles)."""
    hints = get_type_hints(kind)
    choices: dict[str, list[Any]] = {}
    for field in dataclasses.fields(kind):
        hint = hints[field.name]
        if get_origin(hint) in (types.UnionType, typing.Union):
            hint = next(arg for arg in get_args(hint) if arg is not type(None))
        if get_origin(hint) is typing.Literal:
            choices[field.name] = list(get_args(hint))
        elif hint is Role:
            choices[field.name] = list(Role)
        elif hint is int:
            choices[field.name] = [3]
        elif hint is str:
            choices[field.name] = ["x"]
        elif get_origin(hint) is tuple:
            choices[field.name] = [(1, 2)]
        else:
            raise AssertionError(f"{kind.__name__}.{field.name}: no sample for {hint}")
    longest = max((len(values) for values in choices.values()), default=1)
    return [kind(**{name: values[k % len(values)] for name, values in choices.items()}) for k in range(longest)]


def placeholders(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}


def test_there_are_kinds_from_the_game_and_the_console() -> None:
    modules = {kind.__module__ for kind in kinds()}
    assert modules == {"voicehost.rules.errors", "voicehost.host.refusals", "voicehost.web.commands",
                       "voicehost.web.refusals", "voicehost.service.refusals"}
    assert len(kinds()) >= 70


def test_each_kind_has_its_own_sentence() -> None:
    """Two kinds of one template would share one Russian (and one would say the other's words)."""
    templates = [kind.english for kind in kinds()]
    assert len(templates) == len(set(templates)), sorted(t for t in templates if templates.count(t) > 1)


@pytest.mark.parametrize("kind", kinds(), ids=lambda kind: kind.__name__)
def test_every_kind_has_an_english_template_and_a_russian_of_the_same_fields(kind: type[Refusal]) -> None:
    fields = {field.name for field in dataclasses.fields(kind)}
    assert kind.english and placeholders(kind.english) == fields, kind.english
    russian = in_russian(kind.english)
    assert CYRILLIC.search(russian), f"voicehost.po has no Russian for {kind.english!r}"
    assert placeholders(russian) == fields, russian
    for name, codes in kind.worded.items():
        hint = get_type_hints(kind)[name]
        assert set(codes) == set(get_args(hint)), f"{kind.__name__}.{name}: a code without its words"
        for template in codes.values():
            assert placeholders(template) <= fields - {name} and CYRILLIC.search(in_russian(template)), template
            assert placeholders(in_russian(template)) == placeholders(template), template
    for refusal in samples(kind):
        text = refusal_text(refusal)
        assert text and "\n" not in text and not any(f"{{{name}}}" in text for name in fields), text
        assert CYRILLIC.search(text), f"{refusal!r} is not worded in Russian: {text}"
        assert str(refusal) and str(refusal) == str(IllegalInput(refusal))   # the English, for logs and scripts
        assert not CYRILLIC.search(str(refusal)), str(refusal)


def test_a_refusal_carries_its_fields_and_keeps_its_english() -> None:
    ruleset = load_ruleset("sport")
    game = new_game(ruleset, ruleset.resolve({}), 10)
    with pytest.raises(IllegalInput) as refused:
        game.push(Dawn())
    assert refused.value.refusal == CardsNotDealt() and str(refused.value) == "the cards are not dealt yet"
    refusal = SeatNotAtTable(4)
    assert refusal.fields() == {"seat": 4}
    assert str(refusal) == "seat 4 is not at the table"
    assert refusal_text(refusal) == "Игрок 4 уже не за столом."


def test_the_russian_is_the_wording_the_phrasebook_had() -> None:
    """The move changed no Russian: a code worded by its own line, braces and a backslash, as ru.toml had them."""
    assert refusal_text(NotNow("speech")) == "Сейчас нельзя: идёт речь игрока."
    assert refusal_text(NominationNotTaken(1, 5, "not_your_turn")) == \
        "Игрок 1 выставляет игрока 5: не принято, сейчас не речь игрока 1."
    assert refusal_text(NoCommand()) == 'Нет команды: пришлите {"command": "foul 3"}.'
    assert refusal_text(LoneSurrogate()) == "Неверный JSON: одиночный суррогат (\\ud800…) в строке."
    assert refusal_text(NotATarget(3, (1, 2))) == "Игрока 3 нельзя выбрать: можно только 1, 2."


def test_a_phrases_file_with_refusals_is_refused_in_one_line(tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    """A club's old rewording of a refusal would be silently ignored: the section is refused instead."""
    with pytest.raises(InputError, match=r"club.toml: \[refusals\]"):
        phrasebook_from_mapping({"refusals": {"seat_not_at_table": "Номер {seat} уже вышел."}}, "club.toml",
                                load_phrasebook().lines)
    club = tmp_path / "club"
    main(["config", "init", str(club)])
    (club / "phrases" / "ru.toml").write_text("[refusals]\nseat_not_at_table = 'Номер {seat} уже вышел.'\n")
    capsys.readouterr()
    assert main(["config", "check", str(club)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "[refusals]" in err and CYRILLIC.search(err) and "Traceback" not in err, err


@pytest.mark.usefixtures("english")
def test_under_english_every_refusal_has_no_russian_in_it() -> None:
    """``--lang en`` printed «console: «foul 99» refused: Места 99 нет…»: the frame English, the reason Russian."""
    for kind in kinds():
        for refusal in samples(kind):
            text = refusal_text(refusal)
            assert not CYRILLIC.search(text), text
    assert refusal_text(SeatNotAtTable(4)) == str(SeatNotAtTable(4)) == "seat 4 is not at the table"
    assert refusal_text(NotTheRolesAction(Role.DON, "heal")) == "the don cannot heal"


def test_a_role_in_a_refusal_is_its_record_word() -> None:
    """The role words were written twice: ru.toml's ``[log] role_X`` and the catalog's record words."""
    assert not {f"log.role_{role.value}" for role in Role} & set(load_phrasebook().lines)
    assert refusal_text(NotTheRolesAction(Role.CITIZEN, "heal")) == "Роль «мирный житель» этого не делает (heal)."
    set_language("en")
    try:
        assert refusal_text(NotTheRolesAction(Role.CITIZEN, "heal")) == "the citizen cannot heal"
    finally:
        set_language(None)
