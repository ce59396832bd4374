"""Each ruleset owns what its host says and when (issue 27, part 3): the line builders and the
live host never ask which ruleset is playing; the speaker's warning is the ruleset's; a line
about one seat agrees in number with it."""

from __future__ import annotations

import ast
import asyncio
from dataclasses import fields, replace
from pathlib import Path
from types import MappingProxyType
from typing import TypeGuard

import pytest

from voicehost.config import load_ruleset, ruleset_names
from voicehost.host.table_file import WarningStyle
from voicehost.host.vclock import run_virtual
from voicehost.language.host_lines import HOST_KEYS, event_lines, spoken, status_lines
from voicehost.language.narrate import narrate
from voicehost.language.phrasebook import load_phrasebook
from voicehost.rules import GAMES, TableGame, new_game
from voicehost.rules.events import Event, NominationAccepted, NominationsTallied, VotesCounted, VotingBegan
from voicehost.rules.requests import AwaitSpeech, Turn
from voicehost.rules.ruleset import WARNING_LINES
from voicehost.simulation.script import load_script
from voicehost.simulation.table_level import TableRun, play_table

ROOT = Path(__file__).resolve().parent.parent
RULESET_NAMES = frozenset(GAMES)


def _compares_a_ruleset_name(node: ast.AST) -> TypeGuard[ast.Compare | ast.MatchValue]:
    """``x == "club"``, ``name in ("sport", …)``, ``match name: case "canonical"``."""
    if isinstance(node, ast.Compare):
        sides = [node.left, *node.comparators]
        constants = [c for side in sides for c in ([side] if not isinstance(side, (ast.Tuple, ast.List, ast.Set))
                                                   else side.elts)]
        return any(isinstance(c, ast.Constant) and c.value in RULESET_NAMES for c in constants)
    return isinstance(node, ast.MatchValue) and isinstance(node.value, ast.Constant) \
        and node.value.value in RULESET_NAMES


@pytest.mark.parametrize("path", sorted([*(ROOT / "voicehost" / "language").glob("*.py"),
                                         *(ROOT / "voicehost" / "host").glob("*.py")]),
                         ids=lambda p: str(p.relative_to(ROOT)))
def test_no_line_builder_or_host_part_branches_on_a_rulesets_name(path: Path) -> None:
    tree = ast.parse(path.read_text())
    found = [node.lineno for node in ast.walk(tree) if _compares_a_ruleset_name(node)]
    assert not found, f"{path.relative_to(ROOT)} compares a ruleset's name at lines {found}"


@pytest.mark.parametrize("name", sorted(GAMES))
def test_every_line_a_ruleset_names_is_a_host_line(name: str) -> None:
    lines = GAMES[name].lines
    for field in fields(lines):
        value = getattr(lines, field.name)
        for key in value if isinstance(value, tuple) else [value] if isinstance(value, str) else []:
            assert key in HOST_KEYS, f"{name}: lines.{field.name} = {key!r} is no host line"
    assert set(WARNING_LINES.values()) | {"status_time_left"} <= HOST_KEYS


# ---- the warning ---------------------------------------------------------------------------

def _game(name: str, **options: object) -> TableGame:
    ruleset = load_ruleset(name)
    return new_game(ruleset, ruleset.resolve(options), ruleset.seats[0] if name != "sport" else 10)


@pytest.mark.parametrize(("ruleset", "turn", "seconds", "given", "warning"), [
    ("canonical", "free", 300, None, (60, "one_minute")),
    ("canonical", "nominate", 15, None, None),            # shorter than the minute: no warning at all
    ("canonical", "free", 300, 45.0, None),               # a discussion taken back with 45 s left
    ("sport", "speech", 60, None, (10, "ten_seconds")),
    ("sport", "speech", 60, 10.0, None),                  # not longer than ten seconds
    ("sport", "speech", 60, 10.5, (10, "ten_seconds")),
    ("club", "intro", 30, None, (10, "ten_seconds")),
    ("classic", "free", 300, None, (10, "ten_seconds")),
])
def test_the_warning_is_the_rulesets_and_only_in_a_turn_longer_than_it(
        ruleset: str, turn: Turn, seconds: int, given: float | None, warning: tuple[int, str] | None) -> None:
    request = AwaitSpeech(1, seconds, turn, False)
    assert _game(ruleset).warning_for(request, given) == warning


def test_a_warning_of_another_length_says_the_time_left() -> None:
    sport = load_ruleset("sport")
    ruleset = replace(sport, timers=MappingProxyType({**sport.timers, "warning_s": 30}))
    game = new_game(ruleset, ruleset.resolve({}), 10)
    warning = game.warning_for(AwaitSpeech(1, 60, "speech", True))
    assert warning is not None
    left, key = warning
    assert (left, key) == (30, "status_time_left")
    assert spoken([(key, {"n": left})], load_phrasebook(), "sport") == ["Осталось тридцать секунд."]


def _canonical_at_the_table(warning: WarningStyle = "voice") -> tuple[list[tuple[float, str]], list[tuple[float, str]]]:
    cues: list[tuple[float, str]] = []

    def cue(name: str) -> None:
        cues.append((asyncio.get_running_loop().time(), name))

    run = run_virtual(play_table(load_script(ROOT / "examples" / "canonical-sample.json"),
                                 how=TableRun(cue=cue, warning=warning)))
    return run.table.lines, cues


def test_canonical_says_the_minute_line_a_minute_before_the_discussion_ends_and_never_ten_seconds() -> None:
    """Today's main said «Десять секунд.» at one minute left and ~2 s into every 15-second
    «кого вы выдвигаете?» turn."""
    lines, _ = _canonical_at_the_table()
    texts = [text for _, text in lines]
    assert "Десять секунд." not in texts
    minutes = [k for k, text in enumerate(texts) if text == "Осталась одна минута."]
    assert len(minutes) == texts.count("Свободное обсуждение. У вас пять минут.") == 2
    for k in minutes:
        assert texts[k - 1] == "Свободное обсуждение. У вас пять минут." and texts[k + 1] == "Спасибо."
        assert lines[k + 1][0] - lines[k][0] == pytest.approx(60.0, abs=0.01)
    for k, text in enumerate(texts):
        if text.endswith("кого вы выдвигаете?"):   # answered, or «Спасибо» at its end: nothing between
            assert texts[k + 1] == "Спасибо." or " выдвигает " in texts[k + 1], texts[k + 1]


def test_canonical_warning_tone_sounds_at_one_minute_and_not_in_an_answer_turn() -> None:
    lines, cues = _canonical_at_the_table("tone")
    warnings = [t for t, name in cues if name == "ten_seconds"]
    thanks_after = [next(t for t, text in lines if t > w and text == "Спасибо.") for w in warnings]
    assert len(warnings) == 2
    assert all(t - w == pytest.approx(60.0, abs=0.01) for w, t in zip(warnings, thanks_after, strict=True))
    assert "Осталась одна минута." not in [text for _, text in lines]   # a tone, not the voice


# ---- lines that agree with the count ---------------------------------------------------------

def _said(name: str, event: Event, names: dict[int, str] | None = None) -> list[str]:
    game = _game(name)
    game.names = dict(names or {})
    return spoken(event_lines(event, game), load_phrasebook(), name)


def test_sport_names_a_single_candidate_in_the_singular() -> None:
    assert _said("sport", VotingBegan(2, "main", (9,)))[1:] == ["На голосование выставлен игрок номер девять."] * 2
    assert _said("sport", VotingBegan(2, "main", (9, 3)))[1:] == [
        "На голосование выставлены игроки номер девять и три."] * 2


def test_canonical_ballot_of_one_and_the_nomination_agree() -> None:
    names = {1: "Анна", 2: "Борис", 3: "Вера", 6: "Егор", 7: "Саша"}
    assert _said("canonical", NominationsTallied(1, ((6, 5),), (6,)), names) == ["На голосование выставлен Егор."]
    assert _said("canonical", NominationsTallied(1, ((3, 5),), (3,)), names) == ["На голосование выставлена Вера."]
    assert _said("canonical", NominationsTallied(1, ((3, 2), (6, 2)), (3, 6)), names) == [
        "На голосование выставлены: Вера и Егор."]
    assert _said("canonical", NominationAccepted(2, 6), names) == ["Борис выдвигает Егора."]
    assert _said("canonical", NominationAccepted(6, 3), names) == ["Егор выдвигает Веру."]
    assert _said("canonical", NominationAccepted(1, 7), names) == ["Анна выдвигает Сашу."]


def test_canonical_sample_at_the_table_says_the_ballot_and_nominations_in_agreement() -> None:
    lines, _ = _canonical_at_the_table()
    texts = [text for _, text in lines]
    assert "На голосование выставлен Егор." in texts and "На голосование выставлена Вера." in texts
    assert "Борис выдвигает Егора." in texts and "Жанна выдвигает Веру." in texts
    assert not [text for text in texts if "выставлены:" in text or "выдвигает:" in text]


def test_the_status_of_one_nominee_is_singular() -> None:
    book = load_phrasebook()
    assert spoken(status_lines((5,)), book, "sport") == ["Выставлен игрок номер пять."]
    assert spoken(status_lines((5, 7)), book, "sport") == ["Выставлены игроки номер пять и семь."]
    assert spoken(status_lines(()), book, "sport") == ["Кандидатур пока нет."]


def test_the_judges_log_names_one_candidate_and_one_defaulted_vote_in_the_singular() -> None:
    log = list(narrate([VotingBegan(2, "main", (5,)), VotesCounted(2, "main", ((5, 9),), (3,)),
                        VotingBegan(2, "main", (5, 7)), VotesCounted(2, "main", ((5, 6), (7, 3)), (3, 4))],
                       {5: "Егор"}))
    assert log == ["Голосование. Кандидат: 5 (Егор).",
                   "Итог: №5 (Егор) — 9. Голос не проголосовавшего (3) отдан последней кандидатуре.",
                   "Голосование. Кандидаты: 5 (Егор), 7.",
                   "Итог: №5 (Егор) — 6; №7 — 3. Голоса не проголосовавших (3, 4) отданы последней кандидатуре."]


@pytest.mark.parametrize("ruleset", ruleset_names())
def test_the_singular_lines_exist_for_every_ruleset(ruleset: str) -> None:
    book = load_phrasebook()
    for key in ("candidates_one", "ballot_one", "status_nominated_one", "one_minute"):
        assert book.has(key, ruleset)
