"""Refusals are values: every kind — the game's and the console's — has a Russian sentence in
config/phrases/ru.toml [refusals] whose placeholders are its fields, and renders."""

from __future__ import annotations

import dataclasses
import re
import types
import typing
from typing import Any, get_args, get_origin, get_type_hints

import pytest

import voicehost.host.refusals  # noqa: F401  (the console's kinds: imported so they are walked)
import voicehost.service.refusals  # noqa: F401  (the idle table's)
import voicehost.web.commands  # noqa: F401  (the web's)
import voicehost.web.refusals  # noqa: F401  (the web door's and the setup page's)
from voicehost.config import load_ruleset
from voicehost.i18n import set_language
from voicehost.language.phrasebook import load_phrasebook, phrasebook_from_mapping, placeholders
from voicehost.language.refusals import WORDED, refusal_text
from voicehost.rules import IllegalInput, Refusal, Role, new_game
from voicehost.rules.errors import CardsNotDealt, NotTheRolesAction, SeatNotAtTable
from voicehost.rules.inputs import Dawn

# Fields the packaged Russian leaves out on purpose (a club may still use them).
UNSAID = {"not_asked": {"request"},          # a request class's name (AwaitSpeech) is for the log
          "unknown_command": {"usages"}}     # the Russian lists the command names only


def kinds(base: type[Refusal] = Refusal) -> list[type[Refusal]]:
    found = []
    for kind in base.__subclasses__():
        found += [kind, *kinds(kind)]
    return found


def samples(kind: type[Refusal]) -> list[Refusal]:
    """The kind with sample values: one per value of a closed set (a Literal, the roles)."""
    hints = get_type_hints(kind, vars(__import__(kind.__module__, fromlist=["_"])))
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


def test_there_are_kinds_from_the_game_and_the_console() -> None:
    modules = {kind.__module__ for kind in kinds()}
    assert modules == {"voicehost.rules.errors", "voicehost.host.refusals", "voicehost.web.commands",
                       "voicehost.web.refusals", "voicehost.service.refusals"}
    assert len(kinds()) >= 70


def test_each_kind_has_its_own_key() -> None:
    """Two kinds of one name would share a sentence (and one would say the other's words)."""
    names = [kind.kind() for kind in kinds()]
    assert len(names) == len(set(names)), sorted(name for name in names if names.count(name) > 1)


@pytest.mark.parametrize("kind", kinds(), ids=lambda kind: kind.kind())
def test_every_kind_has_a_russian_sentence_of_its_fields(kind: type[Refusal]) -> None:
    book = load_phrasebook()
    dotted = f"refusals.{kind.kind()}"
    assert dotted in book.lines, f"config/phrases/ru.toml [refusals] has no {kind.kind()}"
    fields = {field.name for field in dataclasses.fields(kind)}
    assert placeholders(book.lines[dotted]) == fields - UNSAID.get(kind.kind(), set()), dotted
    for name in fields & set(WORDED):
        section, prefix = WORDED[name]
        worded = [key for key in book.lines if key.startswith(f"{section}.{prefix}")]
        assert worded, f"no {section}.{prefix}… lines word {name}"
    for refusal in samples(kind):
        text = refusal_text(refusal, book)
        assert text and "\n" not in text and not any(f"{{{name}}}" in text for name in fields), text
        assert any("а" <= c <= "я" for c in text.lower()), f"{refusal!r} is not worded in Russian: {text}"
        assert str(refusal) and str(refusal) == str(IllegalInput(refusal))   # the English, for logs and scripts


def test_a_refusal_carries_its_kind_and_fields_and_keeps_its_english() -> None:
    ruleset = load_ruleset("sport")
    game = new_game(ruleset, ruleset.resolve({}), 10)
    with pytest.raises(IllegalInput) as refused:
        game.push(Dawn())
    assert refused.value.refusal == CardsNotDealt() and str(refused.value) == "the cards are not dealt yet"
    refusal = SeatNotAtTable(4)
    assert refusal.kind() == "seat_not_at_table" and refusal.fields() == {"seat": 4}
    assert str(refusal) == "seat 4 is not at the table"
    assert refusal_text(refusal, load_phrasebook()) == "Игрок 4 уже не за столом."


@pytest.mark.usefixtures("english")
def test_a_club_rewords_a_refusal_in_one_place_and_only_with_its_fields() -> None:
    reference = load_phrasebook().lines
    book = phrasebook_from_mapping({"refusals": {"seat_not_at_table": "Номер {seat} уже вышел."}}, "club.toml",
                                   reference)
    set_language("ru")
    try:
        assert refusal_text(SeatNotAtTable(4), book) == "Номер 4 уже вышел."
    finally:
        set_language(None)
    with pytest.raises(Exception, match="unknown placeholder"):
        phrasebook_from_mapping({"refusals": {"seat_not_at_table": "Номер {by}."}}, "club.toml", reference)


@pytest.mark.usefixtures("english")
def test_under_english_a_refusal_is_its_english_sentence_with_no_russian_in_it() -> None:
    """``--lang en`` printed «console: «foul 99» refused: Места 99 нет…»: the frame English, the reason Russian."""
    for refusal in (SeatNotAtTable(4), NotTheRolesAction(Role.DON, "heal")):
        text = refusal_text(refusal, load_phrasebook())
        assert text == str(refusal) and not re.search("[А-Яа-яЁё]", text), text


def test_a_role_in_a_refusal_is_its_record_word() -> None:
    """The role words were written twice: ru.toml's ``[log] role_X`` and the catalog's record words."""
    assert not {f"log.role_{role.value}" for role in Role} & set(load_phrasebook().lines)
    assert refusal_text(NotTheRolesAction(Role.CITIZEN, "heal"), load_phrasebook()) == \
        "Роль «мирный житель» этого не делает (heal)."
